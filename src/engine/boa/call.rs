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

/// A built-in function (not a constructor) of the current realm, closing over traced `data`:
/// calling it runs `f(&data, this, args)`. What the spec's "abstract closures" made into
/// function objects become (a promise's resolving functions, for one).
pub(crate) fn new_closure<D: crate::engine::Trace + 'static>(
    ctx: &mut Cx,
    name: &str,
    length: usize,
    data: D,
    f: fn(&D, &Value, &[Value], &mut Cx) -> JsResult<Value>,
) -> Object {
    let function = boa_engine::NativeFunction::from_copy_closure_with_captures(
        move |this, args, data: &D, ctx| {
            f(
                data,
                Value::from_js_ref(this),
                Value::from_js_slice(args),
                ctx,
            )
            .map(Value::into_js)
            .map_err(Into::into)
        },
        data,
    );
    crate::engine::count_objects(1);
    let realm = ctx.realm().clone();
    boa_engine::object::FunctionObjectBuilder::new(&realm, function)
        .name(boa_engine::JsString::from(name))
        .length(length)
        .build()
        .into()
}
