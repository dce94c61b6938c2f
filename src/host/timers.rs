//! HTML's timers (`setTimeout`, `setInterval`, `clearTimeout`, `clearInterval`) and
//! `queueMicrotask`, written over the engine contract, the same on both engines:
//! <https://html.spec.whatwg.org/multipage/timers-and-user-prompts.html#timers> and
//! <https://html.spec.whatwg.org/multipage/timers-and-user-prompts.html#microtask-queuing>.
//!
//! The map of active timers and the timers themselves are the event loop's
//! ([`super::event_loop::EventLoop`]); a timer's task is queued by due time, then in the order
//! the timers were set.

use std::path::Path;
use std::time::Duration;

use crate::engine::{self, webidl, Cx, JsResult, NativeFunctionPointer, Task, Value};

/// Installs the timer operations and `queueMicrotask` on the current realm's global object
/// (WebIDL operations of `WindowOrWorkerGlobalScope`: writable, enumerable, configurable).
pub(super) fn install(ctx: &mut Cx) -> JsResult<()> {
    let operations: [(&str, usize, NativeFunctionPointer); 5] = [
        ("setTimeout", 1, set_timeout),
        ("setInterval", 1, set_interval),
        ("clearTimeout", 0, clear_timer),
        ("clearInterval", 0, clear_timer),
        ("queueMicrotask", 1, queue_microtask),
    ];
    for (name, length, f) in operations {
        webidl::define_global_operation(name, length, f, ctx)?;
    }
    Ok(())
}

/// A timer's handler: `(TrustedScript or DOMString or Function)` (no trusted types here).
enum Handler {
    Function(Value),
    /// Source text, compiled as a classic script when the timer fires.
    Script(String),
}

/// WebIDL's `long`: ConvertToInt(V, 32, "signed") (ToNumber; NaN and infinities are 0; then
/// the integer modulo 2^32, as a signed 32-bit value).
fn to_long(value: &Value, ctx: &mut Cx) -> JsResult<i32> {
    let n = value.to_number(ctx)?;
    if !n.is_finite() {
        return Ok(0);
    }
    let n = n.trunc().rem_euclid(4_294_967_296.0);
    Ok(n as u32 as i32)
}

fn set_timeout(_: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    timer_initialization_steps(args, false, ctx)
}

fn set_interval(_: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    timer_initialization_steps(args, true, ctx)
}

/// The arguments of `setTimeout(handler, timeout, ...arguments)` / `setInterval`, converted,
/// then <https://html.spec.whatwg.org/multipage/timers-and-user-prompts.html#timer-initialisation-steps>
/// for a new timer; returns its id.
fn timer_initialization_steps(args: &[Value], repeat: bool, ctx: &mut Cx) -> JsResult<Value> {
    let handler = args.first().cloned().unwrap_or_default();
    let handler = if handler.is_callable() {
        Handler::Function(handler)
    } else {
        Handler::Script(handler.to_string(ctx)?.to_std_string_escaped())
    };
    let timeout = match args.get(1) {
        Some(value) => to_long(value, ctx)?,
        None => 0,
    };
    let arguments = args.get(2..).unwrap_or_default().to_vec();
    let Some(host) = super::Host::from_context(ctx) else {
        return Ok(Value::from(0));
    };
    // 2. The id: a new integer greater than zero, not in the map of active timers.
    let id = host.0.event_loop.new_timer_id();
    schedule(&host, ctx, id, handler, timeout, arguments, repeat);
    // 13. Return id.
    Ok(Value::from(id))
}

/// Steps 5–12 of the timer initialization steps for timer `id`: the task that runs `handler`,
/// queued once `timeout` milliseconds have passed.
///
/// AD-HOC: no timer nesting level (HTML clamps the timeout of a timer set more than five levels
/// deep in nested timers to 4 ms); the host runs timers as soon as they are due.
fn schedule(
    host: &super::Host,
    ctx: &mut Cx,
    id: u32,
    handler: Handler,
    timeout: i32,
    arguments: Vec<Value>,
    repeat: bool,
) {
    // 5. If timeout is less than 0, then set timeout to 0.
    let timeout = u64::try_from(timeout).unwrap_or(0);
    // 7. The realm: the global's (the current realm, the function's).
    let realm = engine::current_realm(ctx);
    // 9. The task.
    let task: Task = Box::new(move |ctx| {
        engine::in_realm(ctx, &realm, |ctx| {
            run_timer(id, handler, timeout, arguments, repeat, ctx)
        })
    });
    // 11–12. Set the map of active timers[id], and run steps after a timeout.
    host.0
        .event_loop
        .set_active_timer(id, Duration::from_millis(timeout), task);
}

/// Step 9's task of timer `id`.
fn run_timer(
    id: u32,
    handler: Handler,
    timeout: u64,
    arguments: Vec<Value>,
    repeat: bool,
    ctx: &mut Cx,
) -> JsResult<()> {
    let Some(host) = super::Host::from_context(ctx) else {
        return Ok(());
    };
    // 1. If id does not exist in the map of active timers, abort.
    if !host.0.event_loop.start_active_timer(id) {
        return Ok(());
    }
    // 3. Run the handler: invoke the function with the arguments, or create and run a classic
    //    script from the source (its exception is reported, as the loop reports the task's).
    let result = match &handler {
        // (The callback this value: the global object, thisArg.)
        Handler::Function(function) => {
            let this = Value::from(engine::global_object(ctx));
            engine::call(function, &this, &arguments, ctx).map(drop)
        }
        Handler::Script(source) => {
            engine::evaluate_script(ctx, Some(Path::new("<timer>")), source).map(drop)
        }
    };
    // 4. If id does not exist in the map of active timers (the handler cleared it), abort.
    if host.0.event_loop.is_active_timer(id) {
        if repeat {
            // 5. Repeat: the timer initialization steps again, with the same id.
            let timeout = i32::try_from(timeout).unwrap_or(i32::MAX);
            schedule(&host, ctx, id, handler, timeout, arguments, true);
        } else {
            // 6. Otherwise, remove the map of active timers[id].
            host.0.event_loop.clear_active_timer(id);
        }
    }
    result
}

/// `clearTimeout(id)` and `clearInterval(id)`: removes the map of active timers[id].
fn clear_timer(_: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let id = match args.first() {
        Some(value) => to_long(value, ctx)?,
        None => 0,
    };
    if let (Ok(id), Some(host)) = (u32::try_from(id), super::Host::from_context(ctx)) {
        host.0.event_loop.clear_active_timer(id);
    }
    Ok(Value::undefined())
}

/// `queueMicrotask(callback)`: a microtask that invokes `callback` (its exception reported).
fn queue_microtask(_: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    webidl::require_args(args, 1, "Window", "queueMicrotask")?;
    let callback = args[0].clone();
    if !callback.is_callable() {
        return Err(engine::throw_type_error(
            "queueMicrotask: argument 1 is not a function",
        ));
    }
    engine::queue_microtask(ctx, move |ctx| {
        engine::call(&callback, &Value::undefined(), &[], ctx).map(drop)
    });
    Ok(Value::undefined())
}
