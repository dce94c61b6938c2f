//! The engine side of the host's stream-diff additions (`src/host/diff_api.rs`): QuickJS's
//! interrupt handler, its uncatchable errors, and a native PerformPromiseThen. Raw FFI stays in
//! this folder; the host calls these (the Boa backend's `diff_hook.rs` has the same functions).

use std::cell::Cell;
use std::ffi::{c_int, c_void};

use super::core::{check, check_status, q, try_agent_of, Cx, NULL};
use super::intrinsics::Intrinsic;
use super::{is_promise, throw_type_error, JsError, JsResult, Value};

thread_local! {
    /// What the interrupt handler asks (one runtime per thread in the hosts that use it).
    static STOP: Cell<Option<fn() -> bool>> = const { Cell::new(None) };
}

/// Whether the deadline of the runtime `rt` (its agent's `deadline`, set by
/// `Runtime::set_deadline`) has passed: past it, the interrupt handler stops running script, and
/// the microtask queue stops running jobs.
pub(super) fn deadline_passed(rt: *mut q::JSRuntime) -> bool {
    try_agent_of(rt).is_some_and(super::core::Agent::deadline_passed)
}

/// QuickJS's interrupt handler: called every few thousand bytecode steps; nonzero makes the
/// running script throw an uncatchable `InternalError: interrupted`. It stops script once the
/// thread's `STOP` function (the differential tester's) says so, or once the runtime's
/// deadline has passed.
///
/// # Safety
/// Only QuickJS calls it, from `__js_poll_interrupts` (function calls and bytecode loops) and
/// `lre_check_timeout` (regular expression matching) in quickjs.c, and guarantees on entry:
/// - it runs on the thread running the runtime `rt`, in the middle of executing script (or
///   a regular expression), with `_opaque` the pointer given to `JS_SetInterruptHandler`
///   (null here);
/// - nothing is passed by reference count and nothing is returned but the flag;
/// - the engine is mid-operation: the handler must not call into it (it reads the
///   thread-local `STOP` and runs the plain `fn` stored there, and reads the agent's
///   deadline, plain Rust state found by the runtime's address without calling QuickJS).
///
/// A panic in `stop` is caught (it would abort at the `extern "C"` boundary) and stops the
/// script instead.
unsafe extern "C" fn interrupt(rt: *mut q::JSRuntime, _opaque: *mut c_void) -> c_int {
    if deadline_passed(rt) {
        return 1;
    }
    let Some(stop) = STOP.with(Cell::get) else {
        return 0;
    };
    // A panic must not unwind into C: it stops the script instead.
    c_int::from(std::panic::catch_unwind(stop).unwrap_or(true))
}

/// Installs [`interrupt`] as `rt`'s interrupt handler (it does nothing until `STOP` or a
/// deadline is set).
pub(super) fn install_interrupt(rt: *mut q::JSRuntime) {
    // SAFETY: `rt` is a live runtime on this thread (the callers pass a `Cx`'s or a
    // `Runtime`'s); the call stores the handler and opaque in it. `interrupt` keeps the
    // `JSInterruptHandler` contract (its `# Safety`) and ignores the opaque, so null is fine;
    // being a `fn` item it outlives the runtime.
    unsafe { q::JS_SetInterruptHandler(rt, Some(interrupt), std::ptr::null_mut()) };
}

/// QuickJS keeps its own stack limit (a catchable RangeError); runaway loops are stopped by
/// [`set_interrupt`] instead, so this does nothing.
pub(crate) fn set_runtime_limits(_cx: &mut Cx) {}

/// Makes running script stop with an uncatchable error once `stop` returns true (asked every
/// few thousand bytecode steps); `None` removes it (the handler stays, for a deadline).
pub(crate) fn set_interrupt(cx: &Cx, stop: Option<fn() -> bool>) {
    STOP.with(|s| s.set(stop));
    install_interrupt(cx.rt());
}

/// A new uncatchable `InternalError` with `message` (script's `catch` and `finally` do not run
/// for it; it ends the script, a job or a task as QuickJS's own interrupt does).
pub(crate) fn uncatchable_error(cx: &mut Cx, message: &str) -> JsError {
    let text = std::ffi::CString::new(message).unwrap_or_default();
    // SAFETY: `cx`'s context is live (`Cx`'s invariant); the format is the static C string
    // "%s" and its one argument `text`, a NUL-terminated string alive for the call, as printf
    // expects. The result is owned, or `JS_EXCEPTION`, as `check` takes it.
    let raw = unsafe { q::JS_NewInternalError(cx.raw(), c"%s".as_ptr(), text.as_ptr()) };
    match check(cx, raw) {
        Ok(error) => {
            // SAFETY: `cx`'s context is live and `error` a live value of its runtime
            // (`Value`'s invariant), borrowed; the call sets the flag of an `Error` object and
            // does nothing to anything else.
            unsafe { q::JS_SetUncatchableError(cx.raw(), error.raw()) };
            JsError::from_thrown(error)
        }
        Err(error) => error,
    }
}

/// PerformPromiseThen(promise, onFulfilled, onRejected, ! NewPromiseCapability(%Promise%)):
/// the captured `Promise.prototype.then` called on the promise with its prototype set to null
/// for the call, so its SpeciesConstructor finds no `constructor` and takes %Promise% without
/// an observable lookup; a promise that is not extensible or has an own `constructor` gets the
/// plain call. A TypeError if `promise` is not a promise.
pub(crate) fn perform_promise_then(
    promise: &Value,
    on_fulfilled: &Value,
    on_rejected: &Value,
    cx: &mut Cx,
) -> JsResult<Value> {
    if !is_promise(promise) {
        return Err(throw_type_error("__sdPerformPromiseThen: not a promise"));
    }
    let then = cx.realm_state().intrinsic(Intrinsic::PromisePrototypeThen);
    let args = [on_fulfilled.clone(), on_rejected.clone()];
    // SAFETY: `cx`'s context is live (`Cx`'s invariant) and `promise` a live promise object of
    // its runtime (`Value`'s invariant; checked above), borrowed. A promise is not a proxy, so
    // no trap runs: the call reads the object's flag.
    let extensible = check_status(cx, unsafe { q::JS_IsExtensible(cx.raw(), promise.raw()) })?;
    let own_constructor = match promise.as_object() {
        Some(object) => object.has_own_property("constructor", cx)?,
        None => false,
    };
    if extensible == 0 || own_constructor {
        return super::call(&then, promise, &args, cx);
    }
    // SAFETY: as above (no `getPrototypeOf` trap for a promise). `JS_GetPrototype` returns a
    // new reference to the prototype (or `null`), owned, as `check` takes it.
    let proto = check(cx, unsafe { q::JS_GetPrototype(cx.raw(), promise.raw()) })?;
    // SAFETY: `cx`'s context is live and `promise` a live object of its runtime, borrowed, as
    // is the `null` prototype (no count). An extensible promise takes any prototype; the call
    // runs no script and returns a status, as `check_status` takes it.
    check_status(cx, unsafe {
        q::JS_SetPrototype(cx.raw(), promise.raw(), NULL)
    })?;
    let result = super::call(&then, promise, &args, cx);
    // SAFETY: as above; `proto` is a live value (the `Value` owns a count of it, taken before
    // `then` ran), borrowed. Should script have made the promise non-extensible meanwhile,
    // the call fails with a TypeError status, which `check_status` takes.
    let restored = check_status(cx, unsafe {
        q::JS_SetPrototype(cx.raw(), promise.raw(), proto.raw())
    });
    let result = result?;
    restored?;
    Ok(result)
}
