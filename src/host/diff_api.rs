//! What stream-diff (a differential tester, `stream-diff/`) needs of a host beyond running
//! scripts, the same on both engines: runtime limits for runaway scripts, an uncatchable error
//! to stop one, a global built-in function, and a native PerformPromiseThen.

use super::Context;
use crate::engine::{self, webidl, PropertyDescriptor};
use crate::{JsError, JsResult, NativeFunctionPointer, Value};

/// Sets the limits that stop a runaway script on this engine: on Boa, at most 1,000,000
/// iterations per loop and a recursion depth of 400 (each an uncatchable runtime-limit error);
/// on QuickJS, its own stack limit (a catchable RangeError) is kept, and runaway loops are
/// stopped by [`set_interrupt`].
pub fn set_runtime_limits(ctx: &mut Context) {
    engine::set_runtime_limits(ctx);
}

/// Makes running script stop (with an uncatchable error) once `stop` returns true, checked
/// while script runs (QuickJS's interrupt handler); `None` removes the check. Boa has no such
/// hook: its runtime limits ([`set_runtime_limits`]) stop runaway loops instead, so there this
/// does nothing.
pub fn set_interrupt(ctx: &mut Context, stop: Option<fn() -> bool>) {
    engine::set_interrupt(ctx, stop);
}

/// An uncatchable error (script cannot catch it): on Boa, a loop-iteration runtime limit; on
/// QuickJS, an uncatchable `InternalError`.
pub fn uncatchable_error(ctx: &mut Context) -> JsError {
    engine::uncatchable_error(ctx, "stopped by the host's limits")
}

/// The value an error throws, or for an uncatchable engine error its description.
pub fn thrown_or_uncatchable(error: JsError, ctx: &mut Context) -> Result<Value, String> {
    engine::thrown_value(error, ctx).map_err(|e| e.to_string())
}

/// [`Host::eval_script`](super::Host::eval_script) (a classic script, then a microtask
/// checkpoint), with an exception as its message.
pub fn eval_script(
    host: &super::Host,
    ctx: &mut Context,
    name: &str,
    source: &str,
) -> Result<Value, String> {
    host.eval_script(ctx, name, source)
        .map_err(|e| super::error_message(e, ctx))
}

/// Defines a global built-in function `name` (writable, not enumerable, configurable).
pub fn define_builtin(
    ctx: &mut Context,
    name: &str,
    length: usize,
    f: NativeFunctionPointer,
) -> JsResult<()> {
    let function = webidl::function(ctx, name, length, f);
    engine::global_object(ctx).define_property_or_throw(
        name,
        PropertyDescriptor::builder()
            .value(function)
            .writable(true)
            .enumerable(false)
            .configurable(true),
        ctx,
    )?;
    Ok(())
}

/// The ToString of a value, as a Rust string (lone surrogates escaped).
pub fn to_rust_string(value: &Value, ctx: &mut Context) -> JsResult<String> {
    Ok(value.to_string(ctx)?.to_std_string_escaped())
}

/// `(promise, onFulfilled, onRejected)` → PerformPromiseThen(promise, onFulfilled, onRejected,
/// ! NewPromiseCapability(%Promise%)), which is what WebIDL's "react to a promise" performs: no
/// Get of `then`, no SpeciesConstructor (`Promise.prototype.then` Gets `constructor`). For the
/// call the promise has no prototype, so SpeciesConstructor finds no `constructor` and takes
/// %Promise%; a promise that script made non-extensible or gave an own `constructor` gets plain
/// `then`. A TypeError if the first argument is not a promise.
pub fn perform_promise_then(_: &Value, args: &[Value], ctx: &mut Context) -> JsResult<Value> {
    let arg = |i: usize| args.get(i).cloned().unwrap_or_default();
    engine::perform_promise_then(&arg(0), &arg(1), &arg(2), ctx)
}

/// `(signal, algorithm)` → DOM's "add" of an abort algorithm to `signal`: `algorithm` (a
/// function) is called with no arguments among the signal's abort algorithms, which "signal
/// abort" runs before it fires `abort` at the signal; returns a handle for
/// [`remove_abort_algorithm`] (0 when the signal is already aborted, and nothing is added). A
/// TypeError unless the arguments are an `AbortSignal` and a function.
pub fn add_abort_algorithm(_: &Value, args: &[Value], _ctx: &mut Context) -> JsResult<Value> {
    let signal = args.first().and_then(Value::as_object);
    let algorithm = args.get(1).and_then(Value::as_object);
    match (signal, algorithm) {
        (Some(signal), Some(algorithm))
            if crate::dom::is_abort_signal(&signal.clone().into()) && algorithm.is_callable() =>
        {
            let handle = crate::dom::add_abort_algorithm(&signal, algorithm, |f, ctx| {
                engine::call_object(f, &Value::undefined(), &[], ctx).map(drop)
            });
            Ok(Value::from(handle.to_bits() as f64))
        }
        _ => Err(engine::throw_type_error(
            "__sdAddAbortAlgorithm: expects an AbortSignal and a function",
        )),
    }
}

/// `(signal, handle)` → DOM's "remove" of the abort algorithm [`add_abort_algorithm`] added.
pub fn remove_abort_algorithm(_: &Value, args: &[Value], _ctx: &mut Context) -> JsResult<Value> {
    let signal = args.first().and_then(Value::as_object);
    let handle = args.get(1).and_then(Value::as_number);
    if let (Some(signal), Some(handle)) = (signal, handle) {
        crate::dom::remove_abort_algorithm(
            &signal,
            crate::dom::AbortAlgorithmHandle::from_bits(handle as u64),
        );
    }
    Ok(Value::undefined())
}
