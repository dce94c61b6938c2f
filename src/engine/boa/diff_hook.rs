//! What a differential tester's host needs of the engine beyond running scripts (the host's
//! `diff_api`): limits that stop a runaway script, an uncatchable error, and a native
//! PerformPromiseThen. The same functions as the QuickJS backend's `diff_hook.rs`.

use boa_engine::{
    error::{EngineError, RuntimeLimitError},
    js_string,
    object::builtins::{JsFunction, JsPromise},
    JsObject,
};

use super::{throw_type_error, Cx, JsError, JsResult, Value};

/// Sets the limits that stop a runaway script: at most 1,000,000 iterations per loop and a
/// recursion depth of 400 (each an uncatchable runtime-limit error).
pub(crate) fn set_runtime_limits(cx: &mut Cx) {
    let limits = cx.runtime_limits_mut();
    limits.set_loop_iteration_limit(1_000_000);
    limits.set_recursion_limit(400);
}

/// Boa has no interrupt hook (its runtime limits, [`set_runtime_limits`], stop runaway loops
/// instead), so this does nothing.
pub(crate) fn set_interrupt(_cx: &Cx, _stop: Option<fn() -> bool>) {}

/// An uncatchable error (script cannot catch it): a loop-iteration runtime limit (Boa's
/// engine errors carry no message of their own, so `_message` is not kept).
pub(crate) fn uncatchable_error(_cx: &mut Cx, _message: &str) -> JsError {
    JsError::from(boa_engine::JsError::from(EngineError::RuntimeLimit(
        RuntimeLimitError::LoopIteration,
    )))
}

/// PerformPromiseThen(promise, onFulfilled, onRejected, ! NewPromiseCapability(%Promise%)):
/// no Get of `then`, no SpeciesConstructor (`Promise.prototype.then` Gets `constructor`). For
/// the call the promise has no prototype, so SpeciesConstructor finds no `constructor` and
/// takes %Promise%; a promise that script made non-extensible or gave an own `constructor`
/// gets plain `then`. A TypeError if `promise` is not a promise.
pub(crate) fn perform_promise_then(
    promise: &Value,
    on_fulfilled: &Value,
    on_rejected: &Value,
    cx: &mut Cx,
) -> JsResult<Value> {
    let Some(promise) = promise
        .js()
        .as_object()
        .and_then(|o| JsPromise::from_object(o.clone()).ok())
    else {
        return Err(throw_type_error("__sdPerformPromiseThen: not a promise"));
    };
    let handler = |v: &Value| {
        v.js()
            .as_object()
            .and_then(|o| JsFunction::from_object(o.clone()))
    };
    let (on_fulfilled, on_rejected) = (handler(on_fulfilled), handler(on_rejected));
    let object: JsObject = promise.clone().into();
    let quiet =
        object.is_extensible(cx)? && !object.has_own_property(js_string!("constructor"), cx)?;
    if !quiet {
        return promise
            .then(on_fulfilled, on_rejected, cx)
            .map(|p| Value::from(boa_engine::JsValue::from(p)))
            .map_err(JsError::from);
    }
    let proto = object.prototype();
    object.set_prototype(None);
    let result = promise.then(on_fulfilled, on_rejected, cx);
    object.set_prototype(proto);
    result
        .map(|p| Value::from(boa_engine::JsValue::from(p)))
        .map_err(JsError::from)
}
