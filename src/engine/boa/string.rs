//! [`JsString`]: a JavaScript string (a sequence of UTF-16 code units). On Boa it is a
//! `#[repr(transparent)]` newtype of Boa's `JsString` with `#[inline]` methods; cloning one is
//! a reference-count increment, and `js_string!("literal")` makes a static one.

use boa_gc::{empty_trace, Finalize, Trace};

use super::Value;

/// A JavaScript string.
#[repr(transparent)]
#[derive(Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct JsString(pub(in crate::engine) boa_engine::JsString);

/// `js_string!("text")`: a string from a literal (made at compile time on Boa);
/// `js_string!(expr)`: a string from a `&str` or `String`; `js_string!()`: the empty string.
macro_rules! js_string {
    () => {
        $crate::engine::JsString::default()
    };
    ($text:literal) => {
        $crate::engine::JsString::from_boa(::boa_engine::js_string!($text))
    };
    ($text:expr) => {
        $crate::engine::JsString::from($text)
    };
}
pub(crate) use js_string;

impl JsString {
    /// Boa's string as the engine's (the `js_string!` macro's).
    #[doc(hidden)]
    #[inline]
    pub fn from_boa(string: boa_engine::JsString) -> Self {
        Self(string)
    }

    /// The string's code units.
    #[inline]
    pub fn iter(&self) -> impl Iterator<Item = u16> + '_ {
        self.0.iter()
    }

    /// The string's code units in place, in the engine's storage.
    #[inline]
    pub fn code_units(&self) -> crate::engine::CodeUnits<'_> {
        match self.0.variant() {
            boa_engine::string::JsStrVariant::Latin1(units) => {
                crate::engine::CodeUnits::Latin1(units)
            }
            boa_engine::string::JsStrVariant::Utf16(units) => {
                crate::engine::CodeUnits::Utf16(units)
            }
        }
    }

    /// A copy of the string's code units.
    #[inline]
    pub fn to_vec(&self) -> Vec<u16> {
        self.0.to_vec()
    }

    /// The number of code units.
    #[inline]
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether the string is empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The string as Rust's, or an error if it holds a lone surrogate.
    #[inline]
    pub fn to_std_string(&self) -> Result<String, std::string::FromUtf16Error> {
        self.0.to_std_string()
    }

    /// The string as Rust's, lone surrogates written as `\uXXXX` escapes (for messages).
    #[inline]
    pub fn to_std_string_escaped(&self) -> String {
        self.0.to_std_string_escaped()
    }

    /// The string as Rust's, each lone surrogate replaced with U+FFFD (a USVString's
    /// conversion, <https://webidl.spec.whatwg.org/#es-USVString>).
    #[inline]
    pub fn to_std_string_lossy(&self) -> String {
        self.0.to_std_string_lossy()
    }
}

impl std::fmt::Debug for JsString {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl Finalize for JsString {}

// SAFETY: boa_gc's `Trace` contract is that `trace` marks every `Gc` the value holds. The
// newtype's one field is Boa's `JsString`, a reference-counted (not garbage-collected) string
// that holds no `Gc` (boa_gc gives it an empty `Trace` too), so marking nothing is exact, and
// `empty_trace!`'s `run_finalizer` still runs this type's (empty) `Finalize`.
unsafe impl Trace for JsString {
    empty_trace!();
}

impl From<&str> for JsString {
    #[inline]
    fn from(text: &str) -> Self {
        Self(boa_engine::JsString::from(text))
    }
}

impl From<String> for JsString {
    #[inline]
    fn from(text: String) -> Self {
        Self(boa_engine::JsString::from(text))
    }
}

impl From<&String> for JsString {
    #[inline]
    fn from(text: &String) -> Self {
        Self(boa_engine::JsString::from(text.as_str()))
    }
}

impl From<&[u16]> for JsString {
    #[inline]
    fn from(units: &[u16]) -> Self {
        Self(boa_engine::JsString::from(units))
    }
}

impl PartialEq<str> for JsString {
    #[inline]
    fn eq(&self, other: &str) -> bool {
        self.0 == *other
    }
}

impl PartialEq<&str> for JsString {
    #[inline]
    fn eq(&self, other: &&str) -> bool {
        self.0 == **other
    }
}

impl From<boa_engine::JsString> for JsString {
    #[inline]
    fn from(string: boa_engine::JsString) -> Self {
        Self(string)
    }
}

impl From<JsString> for boa_engine::JsString {
    #[inline]
    fn from(string: JsString) -> Self {
        string.0
    }
}

impl From<JsString> for boa_engine::JsValue {
    #[inline]
    fn from(string: JsString) -> Self {
        string.0.into()
    }
}

impl From<JsString> for boa_engine::property::PropertyKey {
    #[inline]
    fn from(string: JsString) -> Self {
        string.0.into()
    }
}

impl From<JsString> for Value {
    #[inline]
    fn from(string: JsString) -> Self {
        Value::from(boa_engine::JsValue::from(string.0))
    }
}

/// A string value made from UTF-16 code units (one copy, into the engine's string); an error
/// where the engine cannot make a string that long (never on Boa 0.22, which allocates).
pub fn string_value_from_utf16(
    units: &[u16],
    _ctx: &mut crate::engine::Cx,
) -> crate::engine::JsResult<crate::engine::Value> {
    Ok(JsString::from(units).into())
}

/// A string value straight from UTF-8 bytes, where the engine builds strings from UTF-8
/// itself: never on Boa (its strings are Latin-1 or UTF-16; the caller decodes to UTF-16 in
/// one pass, which is what Boa would do anyway).
pub fn string_value_from_utf8(
    _bytes: &[u8],
    _ctx: &mut crate::engine::Cx,
) -> crate::engine::JsResult<Option<crate::engine::Value>> {
    Ok(None)
}

/// A string value of the characters U+0000 to U+00FF that `bytes` holds, one byte each; `None`
/// where the engine cannot take them as they are (never on Boa: a Latin-1 `JsString`, one
/// copy).
pub fn string_value_from_latin1(
    bytes: &[u8],
    _ctx: &mut crate::engine::Cx,
) -> crate::engine::JsResult<Option<crate::engine::Value>> {
    let string = boa_engine::JsString::from(boa_engine::string::JsStr::latin1(bytes));
    Ok(Some(JsString(string).into()))
}

/// A string value of at most `capacity` characters from U+0000 to U+00FF, one byte each, which
/// `fill` writes into the room it gets (`capacity` bytes) and counts; `None` when `fill`
/// gives up. On Boa a Latin-1 `JsString` whose room is the string's own block (boa_string's
/// builder), cleared first: a clearing pass from a small block of zeros costs less than
/// writing a scratch buffer and copying it out (8% of `text()` of a 1 MiB Latin-1 body, which
/// went through a 1 MiB scratch), and Rust gives no way to let `fill` write unset bytes.
pub fn string_value_from_latin1_with(
    capacity: usize,
    fill: impl FnOnce(&mut [u8]) -> Option<usize>,
    _ctx: &mut crate::engine::Cx,
) -> crate::engine::JsResult<Option<crate::engine::Value>> {
    // The clearing source: small enough to stay in the first-level cache.
    static ZEROS: [u8; 16 << 10] = [0; 16 << 10];
    let mut builder = boa_engine::string::Latin1JsStringBuilder::with_capacity(capacity);
    let mut left = capacity;
    while left > 0 {
        let n = left.min(ZEROS.len());
        builder.extend_from_slice(&ZEROS[..n]);
        left -= n;
    }
    // SAFETY: the slice is the builder's `capacity` set bytes, and every byte value is a
    // Latin-1 character, so whatever `fill` leaves there is valid content when the borrow ends
    // (the builder's one condition).
    let room = unsafe { builder.as_mut_slice() };
    let Some(written) = fill(room).filter(|&written| written <= capacity) else {
        return Ok(None);
    };
    // SAFETY: `written` is at most the builder's length (`capacity`, checked above), so the
    // bytes kept are set.
    unsafe { builder.set_len(written) };
    // SAFETY: the content is Latin-1 (every byte is a Latin-1 character, above).
    let string = unsafe { builder.build_as_latin1() };
    Ok(Some(JsString(string).into()))
}
