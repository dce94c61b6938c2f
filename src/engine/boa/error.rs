//! Errors: thrown values and the spec's TypeError / RangeError objects.

use super::{Cx, Value};
use boa_engine::JsNativeError;
use boa_gc::{custom_trace, Finalize, Trace};

/// An abrupt completion: a thrown JavaScript value, or an uncatchable engine error (a runtime
/// limit) that must propagate without reaching script. On Boa a `#[repr(transparent)]` newtype
/// of Boa's `JsError`.
#[repr(transparent)]
#[derive(Clone)]
pub struct JsError(pub(in crate::engine) boa_engine::JsError);

/// What an operation that can throw returns.
pub type JsResult<T> = Result<T, JsError>;

impl JsError {
    /// Whether this is an uncatchable engine error (a runtime limit), which is never handed to
    /// script as an exception or a rejection reason.
    #[inline]
    pub fn is_uncatchable(&self) -> bool {
        self.0.as_engine().is_some()
    }
}

impl std::fmt::Debug for JsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::fmt::Display for JsError {
    /// The error as a message, without running script.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl Finalize for JsError {}

// SAFETY: boa_gc's `Trace` contract is that `trace` marks every `Gc` the value holds (and
// `trace_non_roots` / `run_finalizer` visit the same ones). The newtype's one field is Boa's
// `JsError`, which is `Trace` itself, and `custom_trace!` makes each of the three methods call
// the field's, so the newtype visits exactly the `Gc`s Boa's error does.
unsafe impl Trace for JsError {
    custom_trace!(this, mark, mark(&this.0));
}

impl From<boa_engine::JsError> for JsError {
    #[inline]
    fn from(error: boa_engine::JsError) -> Self {
        Self(error)
    }
}

impl From<JsNativeError> for JsError {
    #[inline]
    fn from(error: JsNativeError) -> Self {
        Self(error.into())
    }
}

impl From<JsError> for boa_engine::JsError {
    #[inline]
    fn from(error: JsError) -> Self {
        error.0
    }
}

/// Turns a thrown error into the JS value script would catch.
///
/// Uncatchable engine errors (runtime limits, engine panics) stay errors: they must propagate,
/// never be handed to script as a rejection reason.
pub fn thrown_value(error: JsError, ctx: &mut Cx) -> JsResult<Value> {
    error.0.into_opaque(ctx).map(Value::from).map_err(JsError)
}

/// A TypeError object, as the spec's "a TypeError".
pub fn type_error(message: &str, ctx: &mut Cx) -> Value {
    boa_engine::JsError::from(JsNativeError::typ().with_message(message.to_owned()))
        .into_opaque(ctx)
        .map(Value::from)
        .unwrap_or_default()
}

/// A RangeError object, as the spec's "a RangeError".
pub fn range_error(message: &str, ctx: &mut Cx) -> Value {
    boa_engine::JsError::from(JsNativeError::range().with_message(message.to_owned()))
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
    JsError(boa_engine::JsError::from_opaque(value.into_js()))
}
