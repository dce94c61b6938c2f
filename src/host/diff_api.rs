//! What stream-diff (a differential tester, `stream-diff/`) needs of a host beyond running
//! scripts, with the same signatures on every engine (`src/host/quickjs/diff_api.rs`):
//! runtime limits for runaway scripts, an uncatchable error to stop one, a global built-in
//! function, and a native PerformPromiseThen.

use boa_engine::{
    error::{EngineError, RuntimeLimitError},
    js_string,
    native_function::NativeFunction,
    object::builtins::{JsFunction, JsPromise},
    JsNativeError, JsObject, JsValue,
};

use super::Context;
use crate::{JsError, JsResult, NativeFunctionPointer, Value};

/// Sets the limits that stop a runaway script on this engine: on Boa, at most 1,000,000
/// iterations per loop and a recursion depth of 400 (each an uncatchable runtime-limit error).
pub fn set_runtime_limits(ctx: &mut Context) {
    let limits = ctx.runtime_limits_mut();
    limits.set_loop_iteration_limit(1_000_000);
    limits.set_recursion_limit(400);
}

/// Makes running script stop (with an uncatchable error) once `stop` returns true, checked
/// while script runs; `None` removes the check. Boa has no such hook: its runtime limits
/// ([`set_runtime_limits`]) stop runaway loops instead, so this does nothing.
pub fn set_interrupt(_ctx: &mut Context, _stop: Option<fn() -> bool>) {}

/// An uncatchable error (script cannot catch it): on Boa, a loop-iteration runtime limit.
pub fn uncatchable_error(_ctx: &mut Context) -> JsError {
    JsError::from(boa_engine::JsError::from(EngineError::RuntimeLimit(
        RuntimeLimitError::LoopIteration,
    )))
}

/// The value an error throws, or for an uncatchable engine error its description.
pub fn thrown_or_uncatchable(error: JsError, ctx: &mut Context) -> Result<Value, String> {
    match boa_engine::JsError::from(error).into_opaque(ctx) {
        Ok(value) => Ok(Value::from(value)),
        Err(engine) => Err(engine.to_string()),
    }
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
        .map(Value::from)
        .map_err(|e| super::error_message(e, ctx))
}

/// Defines a global built-in function `name` (writable, not enumerable, configurable).
pub fn define_builtin(
    ctx: &mut Context,
    name: &str,
    length: usize,
    f: NativeFunctionPointer,
) -> JsResult<()> {
    let function = NativeFunction::from_copy_closure(move |this, args, ctx| {
        f(Value::from_js_ref(this), Value::from_js_slice(args), ctx)
            .map(JsValue::from)
            .map_err(boa_engine::JsError::from)
    });
    ctx.register_global_builtin_callable(boa_engine::JsString::from(name), length, function)
        .map_err(JsError::from)
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
    let args = Value::as_js_slice(args);
    let arg = |i: usize| args.get(i).cloned().unwrap_or_default();
    let Some(promise) = arg(0)
        .as_object()
        .and_then(|o| JsPromise::from_object(o.clone()).ok())
    else {
        return Err(JsNativeError::typ()
            .with_message("__sdPerformPromiseThen: not a promise")
            .into());
    };
    let handler = |v: JsValue| {
        v.as_object()
            .and_then(|o| JsFunction::from_object(o.clone()))
    };
    let (on_fulfilled, on_rejected) = (handler(arg(1)), handler(arg(2)));
    let object: JsObject = promise.clone().into();
    let quiet =
        object.is_extensible(ctx)? && !object.has_own_property(js_string!("constructor"), ctx)?;
    if !quiet {
        return promise
            .then(on_fulfilled, on_rejected, ctx)
            .map(|p| Value::from(JsValue::from(p)))
            .map_err(JsError::from);
    }
    let proto = object.prototype();
    object.set_prototype(None);
    let result = promise.then(on_fulfilled, on_rejected, ctx);
    object.set_prototype(proto);
    result
        .map(|p| Value::from(JsValue::from(p)))
        .map_err(JsError::from)
}
