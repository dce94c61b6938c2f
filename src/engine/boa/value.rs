//! [`Value`]: a JavaScript value as the spec layer holds it. On Boa it is a
//! `#[repr(transparent)]` newtype of `JsValue` with `#[inline]` methods, so it costs nothing;
//! nothing of Boa's value is reachable through it.
//!
//! The type tests (`is_undefined`, `as_object`, ...) never run script. The conversions that
//! take a `Cx` (`to_string`, `to_number`, `to_object`) are the ECMAScript abstract operations
//! of the same name and may run script (a `toString`, a `valueOf`, a `Symbol.toPrimitive`).

use boa_engine::{object::builtins::JsArray, Context, JsValue, NativeObject};
use boa_gc::{custom_trace, Finalize, Trace};

use super::{JsError, JsResult, JsString, Object};

/// A JavaScript value.
#[repr(transparent)]
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct Value(JsValue);

impl Value {
    /// `undefined`.
    #[inline]
    pub const fn undefined() -> Self {
        Self(JsValue::undefined())
    }

    /// `null`.
    #[inline]
    pub const fn null() -> Self {
        Self(JsValue::null())
    }

    /// Whether the value is `undefined`.
    #[inline]
    pub fn is_undefined(&self) -> bool {
        self.0.is_undefined()
    }

    /// Whether the value is `null`.
    #[inline]
    pub fn is_null(&self) -> bool {
        self.0.is_null()
    }

    /// Whether the value is `undefined` or `null`.
    #[inline]
    pub fn is_null_or_undefined(&self) -> bool {
        self.0.is_null_or_undefined()
    }

    /// Whether the value is an object (Type(value) is Object).
    #[inline]
    pub fn is_object(&self) -> bool {
        self.0.is_object()
    }

    /// The object, if the value is one.
    #[inline]
    pub fn as_object(&self) -> Option<Object> {
        self.0.as_object().map(Object::from)
    }

    /// The object, if the value is a callable one (IsCallable).
    #[inline]
    pub fn as_callable(&self) -> Option<Object> {
        self.0.as_callable().map(Object::from)
    }

    /// IsCallable(value).
    #[inline]
    pub fn is_callable(&self) -> bool {
        self.0.is_callable()
    }

    /// Whether the value is a string.
    #[inline]
    pub fn is_string(&self) -> bool {
        self.0.is_string()
    }

    /// The string, if the value is one.
    #[inline]
    pub fn as_string(&self) -> Option<JsString> {
        self.0.as_string().map(JsString)
    }

    /// The boolean, if the value is one.
    #[inline]
    pub fn as_boolean(&self) -> Option<bool> {
        self.0.as_boolean()
    }

    /// The number, if the value is one.
    #[inline]
    pub fn as_number(&self) -> Option<f64> {
        self.0.as_number()
    }

    /// ToBoolean(value): never runs script.
    #[inline]
    pub fn to_boolean(&self) -> bool {
        self.0.to_boolean()
    }

    /// `? ToString(value)`.
    #[inline]
    pub fn to_string(&self, ctx: &mut Context) -> JsResult<JsString> {
        self.0.to_string(ctx).map(JsString).map_err(JsError::from)
    }

    /// `? ToString(value)`, then `f` on the result's code units, in place (Boa's strings are
    /// Latin-1 or UTF-16). `f` must not call into the engine.
    pub fn with_code_units<R>(
        &self,
        ctx: &mut Context,
        f: impl FnOnce(crate::engine::CodeUnits<'_>) -> R,
    ) -> JsResult<R> {
        let string = self.to_string(ctx)?;
        Ok(f(string.code_units()))
    }

    /// `? ToNumber(value)`.
    #[inline]
    pub fn to_number(&self, ctx: &mut Context) -> JsResult<f64> {
        self.0.to_number(ctx).map_err(JsError::from)
    }

    /// `? ToObject(value)`.
    #[inline]
    pub fn to_object(&self, ctx: &mut Context) -> JsResult<Object> {
        self.0
            .to_object(ctx)
            .map(Object::from)
            .map_err(JsError::from)
    }

    /// How the value prints in a message: not ToString, which may run script, but the
    /// engine's own rendering (a symbol as `Symbol(description)`, an object as its contents).
    pub fn to_string_for_display(&self) -> String {
        self.0.display().to_string()
    }

    /// Boa's value (for the engine's own functions).
    #[inline]
    pub(crate) fn js(&self) -> &JsValue {
        &self.0
    }

    /// Boa's value, by value (for the engine's own functions).
    #[inline]
    pub(crate) fn into_js(self) -> JsValue {
        self.0
    }

    /// A Boa value as the engine's (for the engine's own functions).
    #[inline]
    pub(crate) fn from_js_ref(value: &JsValue) -> &Value {
        // SAFETY: `Value` is `#[repr(transparent)]` over its one field, a `JsValue`, so the two
        // have the same size, alignment and bit validity, and every `JsValue` is a valid
        // `Value` (the newtype adds no invariant). The pointer comes from a reference, so it is
        // non-null, aligned and points to an initialized `JsValue`; the returned reference has
        // the input's lifetime and is shared, as the input is.
        unsafe { &*(value as *const JsValue as *const Value) }
    }

    /// Boa's argument list as the engine's (for the engine's own functions).
    #[inline]
    pub(crate) fn from_js_slice(values: &[JsValue]) -> &[Value] {
        // SAFETY: `Value` is `#[repr(transparent)]` over `JsValue` (see `from_js_ref`), so a
        // `[JsValue]` of `n` elements has the layout of a `[Value]` of `n` elements, and each
        // element is a valid `Value`. The slice pointer cast keeps the length, and the
        // reference keeps the input's lifetime and sharedness.
        unsafe { &*(values as *const [JsValue] as *const [Value]) }
    }

    /// The engine's argument list as Boa's (for the engine's own functions).
    #[inline]
    pub(crate) fn as_js_slice(values: &[Value]) -> &[JsValue] {
        // SAFETY: as in `from_js_slice`, the other way round: each `Value` is a `JsValue` with
        // the same layout (`#[repr(transparent)]`), so the slice reinterprets exactly, with
        // its length, lifetime and sharedness kept.
        unsafe { &*(values as *const [Value] as *const [JsValue]) }
    }
}

impl std::fmt::Debug for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl Finalize for Value {}

// SAFETY: boa_gc's `Trace` contract is that `trace` marks every `Gc` the value holds (and
// `trace_non_roots` / `run_finalizer` visit the same ones). The newtype's one field is a
// `JsValue`, which is `Trace` itself, and `custom_trace!` makes each of the three methods call
// the field's, so the newtype visits exactly the `Gc`s the `JsValue` does.
unsafe impl Trace for Value {
    custom_trace!(this, mark, mark(&this.0));
}

impl From<JsValue> for Value {
    #[inline]
    fn from(value: JsValue) -> Self {
        Self(value)
    }
}

impl From<Value> for JsValue {
    #[inline]
    fn from(value: Value) -> Self {
        value.0
    }
}

impl<T: NativeObject> From<Object<T>> for Value {
    #[inline]
    fn from(object: Object<T>) -> Self {
        Self(boa_engine::JsObject::from(object).into())
    }
}

impl<T: NativeObject> From<boa_engine::JsObject<T>> for Value {
    #[inline]
    fn from(object: boa_engine::JsObject<T>) -> Self {
        Self(object.into())
    }
}

impl<T: NativeObject> From<Object<T>> for JsValue {
    #[inline]
    fn from(object: Object<T>) -> Self {
        boa_engine::JsObject::from(object).into()
    }
}

/// The values Rust's and Boa's own types convert to.
macro_rules! from_via_js_value {
    ($($source:ty),*) => {$(
        impl From<$source> for Value {
            #[inline]
            fn from(value: $source) -> Self {
                Self(JsValue::from(value))
            }
        }
    )*};
}
from_via_js_value!(
    bool,
    f64,
    i32,
    u32,
    u64,
    usize,
    u8,
    u16,
    (),
    JsArray,
    boa_engine::JsString,
    boa_engine::JsSymbol,
    boa_engine::object::builtins::JsArrayBuffer,
    boa_engine::object::builtins::JsFunction,
    boa_engine::object::builtins::JsPromise,
    boa_engine::object::builtins::JsUint8Array
);
