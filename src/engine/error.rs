//! Errors: thrown values and the spec's TypeError / RangeError objects.

use super::{Cx, Value};
use boa_engine::{JsError, JsNativeError, JsResult};

/// Turns a thrown error into the JS value script would catch.
///
/// Uncatchable engine errors (runtime limits, engine panics) stay errors: they must propagate,
/// never be handed to script as a rejection reason.
pub fn thrown_value(error: JsError, ctx: &mut Cx) -> JsResult<Value> {
    error.into_opaque(ctx).map(Value::from)
}

/// A TypeError object, as the spec's "a TypeError".
pub fn type_error(message: &str, ctx: &mut Cx) -> Value {
    JsError::from(JsNativeError::typ().with_message(message.to_owned()))
        .into_opaque(ctx)
        .map(Value::from)
        .unwrap_or_default()
}

/// A RangeError object, as the spec's "a RangeError".
pub fn range_error(message: &str, ctx: &mut Cx) -> Value {
    JsError::from(JsNativeError::range().with_message(message.to_owned()))
        .into_opaque(ctx)
        .map(Value::from)
        .unwrap_or_default()
}

/// A TypeError to throw (`Err(..)`), as the spec's "throw a TypeError".
pub fn throw_type_error(message: impl Into<String>) -> JsError {
    JsNativeError::typ().with_message(message.into()).into()
}

/// A RangeError to throw (`Err(..)`), as the spec's "throw a RangeError".
pub fn throw_range_error(message: impl Into<String>) -> JsError {
    JsNativeError::range().with_message(message.into()).into()
}

/// The string form of a thrown value or rejection reason: `ToString(value)` (for an `Error`,
/// `"TypeError: message"`), or Boa's display form when `ToString` throws (e.g. a symbol).
pub fn value_message(value: &Value, ctx: &mut Cx) -> String {
    match value.to_string(ctx) {
        Ok(string) => string.to_std_string_escaped(),
        Err(_) => value.to_string_for_display(),
    }
}

/// A throw completion whose value is `value` (what `throw value` does): how a spec step
/// rethrows an exception it caught, or throws a stored error.
pub fn throw_value(value: Value) -> JsError {
    JsError::from_opaque(value.into_js())
}
