//! Calls into JavaScript.

use boa_engine::{Context, JsValue};
use boa_engine::{JsNativeError, JsResult};

/// Calls a JS function value with `this` and arguments.
pub fn call(
    function: &JsValue,
    this: &JsValue,
    args: &[JsValue],
    ctx: &mut Context,
) -> JsResult<JsValue> {
    match function.as_callable() {
        Some(f) => f.call(this, args, ctx),
        None => Err(JsNativeError::typ()
            .with_message("value is not callable")
            .into()),
    }
}

/// Calls a callable object (its [[Call]]): a user callback, iterator method or getter.
pub fn call_object(
    function: &boa_engine::JsObject,
    this: &JsValue,
    args: &[JsValue],
    ctx: &mut Context,
) -> JsResult<JsValue> {
    function.call(this, args, ctx)
}
