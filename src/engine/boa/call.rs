//! Calls into JavaScript.

use super::JsResult;
use super::{Cx, Object, Value};
use boa_engine::JsNativeError;

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
    function.call(this, args, ctx)
}

/// <https://tc39.es/ecma262/#sec-createiterresultobject>: `{ value, done }`, an ordinary object
/// of the current realm with two data properties (no script runs).
pub fn create_iter_result_object(value: Value, done: bool, ctx: &mut Cx) -> Value {
    crate::engine::count_objects(1);
    boa_engine::builtins::iterable::create_iter_result_object(value.into_js(), done, ctx).into()
}

/// <https://tc39.es/ecma262/#sec-createarrayfromlist>: a new Array of the current realm holding
/// `values` (no script runs).
pub fn create_array_from_list(values: impl IntoIterator<Item = Value>, ctx: &mut Cx) -> Object {
    crate::engine::count_objects(1);
    boa_engine::object::builtins::JsArray::from_iter(values.into_iter().map(Value::into_js), ctx)
        .into()
}
