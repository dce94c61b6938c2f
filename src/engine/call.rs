//! Calls into JavaScript.

use super::{Cx, Object, Value};
use boa_engine::{JsNativeError, JsResult};

/// Calls a JS function value with `this` and arguments.
pub fn call(function: &Value, this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    match function.as_callable() {
        Some(f) => f.call(this, args, ctx),
        None => Err(JsNativeError::typ()
            .with_message("value is not callable")
            .into()),
    }
}

/// Calls a callable object (its [[Call]]): a user callback, iterator method or getter.
pub fn call_object(
    function: &Object,
    this: &Value,
    args: &[Value],
    ctx: &mut Cx,
) -> JsResult<Value> {
    function.js().call(this, args, ctx)
}
