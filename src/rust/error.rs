//! Errors across the boundary.

use crate::engine::{self, Cx, JsError, Value};

/// An error crossing the Rust/JS boundary, in either direction.
///
/// From Rust to JS: a source, sink or transformer callback returns one, and the stream errors
/// with the JS value it names: a `TypeError`, a `RangeError`, a `DOMException` with the given
/// name, or any JS value. From JS to Rust: a reader's failed read, or a stream errored by
/// script, gives [`StreamError::Js`] with the JS value itself, to inspect with the engine's API
/// (or [`StreamError::message`]).
///
/// ```
/// use boa_streams::host::{Host, HostOptions};
/// use boa_streams::rust::StreamError;
/// let (_host, mut ctx) = Host::new(HostOptions::default()).unwrap();
/// let e = StreamError::dom_exception("AbortError", "stopped");
/// assert_eq!(e.to_string(), "AbortError: stopped");
/// let value = e.into_js(&mut ctx);
/// assert_eq!(boa_streams::dom::dom_exception_name(&value).unwrap().to_std_string_escaped(), "AbortError");
/// ```
#[derive(Debug, thiserror::Error)]
pub enum StreamError {
    /// A JS `TypeError` with this message.
    #[error("TypeError: {0}")]
    TypeError(String),
    /// A JS `RangeError` with this message.
    #[error("RangeError: {0}")]
    RangeError(String),
    /// A `DOMException` with this name (`"AbortError"`, `"NetworkError"`, ...) and message.
    #[error("{name}: {message}")]
    DomException {
        /// The exception's name.
        name: String,
        /// The exception's message.
        message: String,
    },
    /// An I/O error (from the [`std::io`] adapters): a JS `TypeError` with its message, as
    /// `fetch` reports network errors.
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
    /// A JS value: thrown by script, a stream's stored error, or any value a Rust callback
    /// wants the stream to error with.
    #[error("a JavaScript exception")]
    Js(Value),
}

impl StreamError {
    /// A `TypeError` with `message`.
    ///
    /// ```
    /// assert_eq!(boa_streams::rust::StreamError::type_error("x").to_string(), "TypeError: x");
    /// ```
    pub fn type_error(message: impl Into<String>) -> Self {
        Self::TypeError(message.into())
    }

    /// A `RangeError` with `message`.
    ///
    /// ```
    /// assert_eq!(boa_streams::rust::StreamError::range_error("x").to_string(), "RangeError: x");
    /// ```
    pub fn range_error(message: impl Into<String>) -> Self {
        Self::RangeError(message.into())
    }

    /// A `DOMException` named `name` with `message`.
    ///
    /// ```
    /// let e = boa_streams::rust::StreamError::dom_exception("NetworkError", "reset");
    /// assert_eq!(e.to_string(), "NetworkError: reset");
    /// ```
    pub fn dom_exception(name: impl Into<String>, message: impl Into<String>) -> Self {
        Self::DomException {
            name: name.into(),
            message: message.into(),
        }
    }

    /// The error an engine operation threw, as the JS value script would catch (an uncatchable
    /// engine error becomes a `TypeError` with its message).
    pub(crate) fn from_js_error(error: JsError, ctx: &mut Cx) -> Self {
        let message = error.to_string();
        match engine::thrown_value(error, ctx) {
            Ok(value) => Self::Js(value),
            Err(_) => Self::TypeError(message),
        }
    }

    /// The JS value of this error: a new `TypeError`/`RangeError`/`DOMException` object, or the
    /// value of [`StreamError::Js`].
    ///
    /// ```
    /// use boa_streams::host::{Host, HostOptions};
    /// use boa_streams::rust::StreamError;
    /// let (_host, mut ctx) = Host::new(HostOptions::default()).unwrap();
    /// let value = StreamError::range_error("too big").into_js(&mut ctx);
    /// assert_eq!(StreamError::Js(value).message(&mut ctx), "RangeError: too big");
    /// ```
    pub fn into_js(self, ctx: &mut Cx) -> Value {
        match self {
            Self::TypeError(message) => engine::type_error(&message, ctx),
            Self::RangeError(message) => engine::range_error(&message, ctx),
            Self::DomException { name, message } => {
                match crate::dom::create_dom_exception(ctx, &message, &name) {
                    Ok(exception) => exception.into(),
                    Err(_) => engine::type_error(&format!("{name}: {message}"), ctx),
                }
            }
            Self::Io(error) => engine::type_error(&error.to_string(), ctx),
            Self::Js(value) => value,
        }
    }

    /// This error thrown: what a native function (`boa_streams::NativeFunctionPointer`)
    /// returns to throw it.
    pub fn into_thrown(self, ctx: &mut Cx) -> crate::engine::JsError {
        engine::throw_value(self.into_js(ctx))
    }

    /// The JS value, if this is [`StreamError::Js`].
    ///
    /// ```
    /// use boa_streams::rust::{StreamError, Value};
    /// assert!(StreamError::Js(Value::from(7)).js_value().is_some());
    /// assert!(StreamError::type_error("x").js_value().is_none());
    /// ```
    pub fn js_value(&self) -> Option<&Value> {
        match self {
            Self::Js(value) => Some(value),
            _ => None,
        }
    }

    /// A one-line description: `Name: message` for errors and `DOMException`s (read from their
    /// `name` and `message` properties), `ToString` of any other JS value.
    ///
    /// ```
    /// use boa_streams::host::{Host, HostOptions};
    /// use boa_streams::rust::StreamError;
    /// let (host, mut ctx) = Host::new(HostOptions::default()).unwrap();
    /// let thrown = host.eval_script(&mut ctx, "e.js", "new TypeError('bad chunk')").unwrap().into();
    /// assert_eq!(StreamError::Js(thrown).message(&mut ctx), "TypeError: bad chunk");
    /// ```
    pub fn message(&self, ctx: &mut Cx) -> String {
        match self {
            Self::Js(value) => crate::engine::value_message(value, ctx),
            other => other.to_string(),
        }
    }
}
