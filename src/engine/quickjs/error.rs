//! [`JsError`]: a thrown value, an error made in Rust and not yet thrown, or QuickJS's
//! uncatchable error (stack overflow, interrupt, out of memory).

use super::core::{q, take_exception, Marker, Trace};
use super::{Cx, Value};

/// A thrown exception or an uncatchable engine error.
#[derive(Clone)]
pub struct JsError(Repr);

#[derive(Clone)]
enum Repr {
    /// A value thrown by script or by the engine.
    Thrown(Value),
    /// An error made in Rust, created in the realm where it is thrown.
    Native { kind: NativeKind, message: String },
}

#[derive(Clone, Copy, Debug)]
enum NativeKind {
    Type,
    Range,
}

/// What an operation that can throw returns.
pub type JsResult<T> = Result<T, JsError>;

impl JsError {
    /// A thrown value.
    pub(crate) fn from_thrown(value: Value) -> Self {
        Self(Repr::Thrown(value))
    }

    /// Whether the error is QuickJS's uncatchable error (script cannot catch it).
    pub fn is_uncatchable(&self) -> bool {
        match &self.0 {
            // SAFETY: `v` is a live object (`Value`'s invariant; the tag was just checked);
            // the call reads its class id and flag only.
            Repr::Thrown(v) => v.is_object() && unsafe { q::JS_IsUncatchableError(v.raw()) },
            Repr::Native { .. } => false,
        }
    }

    /// The value to throw: a native error is created in `cx`'s realm.
    pub(crate) fn into_thrown_value(self, cx: &mut Cx) -> Value {
        match self.0 {
            Repr::Thrown(v) => v,
            Repr::Native { kind, message } => new_native_error(kind, &message, cx),
        }
    }
}

fn new_native_error(kind: NativeKind, message: &str, cx: &mut Cx) -> Value {
    // SAFETY: `cx`'s context is live (`Cx`'s invariant). The format is the static C string
    // "%s" and its one argument a static, NUL-terminated string, as printf expects (the
    // message is set afterwards). The result is owned, or `JS_EXCEPTION`, as `check` takes it.
    let raw = unsafe {
        match kind {
            NativeKind::Type => q::JS_NewTypeError(cx.raw(), c"%s".as_ptr(), c"".as_ptr()),
            NativeKind::Range => q::JS_NewRangeError(cx.raw(), c"%s".as_ptr(), c"".as_ptr()),
        }
    };
    let error = match super::core::check(cx, raw) {
        Ok(e) => e,
        Err(e) => return e.into_thrown_value(cx),
    };
    // The message as a property: QuickJS formats with printf, so it is set afterwards.
    if let Some(object) = error.as_object() {
        let text = super::core::new_string(cx, message);
        let _ = object.define_property_or_throw(
            "message",
            super::PropertyDescriptor::builder()
                .value(text)
                .writable(true)
                .enumerable(false)
                .configurable(true),
            cx,
        );
    }
    error
}

impl std::fmt::Debug for JsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

impl std::fmt::Display for JsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            Repr::Thrown(v) => {
                let ctx = super::core::current_ctx();
                if v.is_object() && !ctx.is_null() {
                    // SAFETY: a non-null current context is the `raw` of the innermost live `Cx`
                    // (`current_ctx`'s invariant), so `Cx`'s invariant holds for a second
                    // handle on it while this block runs; `cx` is dropped at the block's end,
                    // before that handle, and restores it as current.
                    let mut cx = unsafe { Cx::enter(ctx) };
                    if let Ok(s) = v.to_string(&mut cx) {
                        return f.write_str(&s.to_std_string_escaped());
                    }
                    drop(take_exception(&mut cx));
                }
                f.write_str(&v.to_string_for_display())
            }
            Repr::Native { kind, message } => {
                let name = match kind {
                    NativeKind::Type => "TypeError",
                    NativeKind::Range => "RangeError",
                };
                write!(f, "{name}: {message}")
            }
        }
    }
}

impl Trace for JsError {
    fn trace(&self, m: &mut Marker) {
        if let Repr::Thrown(v) = &self.0 {
            v.trace(m);
        }
    }
}

/// The value an error throws (a native error becomes an error object of the current realm);
/// an uncatchable error stays an error.
pub fn thrown_value(error: JsError, ctx: &mut Cx) -> JsResult<Value> {
    if error.is_uncatchable() {
        return Err(error);
    }
    Ok(error.into_thrown_value(ctx))
}

/// A new `TypeError` object of the current realm.
pub fn type_error(message: &str, ctx: &mut Cx) -> Value {
    new_native_error(NativeKind::Type, message, ctx)
}

/// A new `RangeError` object of the current realm.
pub fn range_error(message: &str, ctx: &mut Cx) -> Value {
    new_native_error(NativeKind::Range, message, ctx)
}

/// A `TypeError` to throw.
pub fn throw_type_error(message: impl Into<String>) -> JsError {
    JsError(Repr::Native {
        kind: NativeKind::Type,
        message: message.into(),
    })
}

/// A `RangeError` to throw.
pub fn throw_range_error(message: impl Into<String>) -> JsError {
    JsError(Repr::Native {
        kind: NativeKind::Range,
        message: message.into(),
    })
}

/// The message of a thrown value, for reports (its ToString, else a display string).
pub fn value_message(value: &Value, ctx: &mut Cx) -> String {
    match value.to_string(ctx) {
        Ok(string) => string.to_std_string_escaped(),
        Err(_) => value.to_string_for_display(),
    }
}

/// `value`, thrown.
pub fn throw_value(value: Value) -> JsError {
    JsError(Repr::Thrown(value))
}
