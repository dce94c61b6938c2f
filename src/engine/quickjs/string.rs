//! [`JsString`] (Rust-owned UTF-16), [`PropertyKey`] and [`JsSymbol`].

use std::rc::Rc;

use super::core::{current_ctx, q, realm_of, Marker, Trace};
use super::intrinsics::Intrinsic;
use super::{Cx, JsResult, Value};

/// A JavaScript string: UTF-16 code units, owned by Rust (converted to a QuickJS string when
/// it becomes a [`Value`]).
#[derive(Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct JsString(Rc<[u16]>);

/// `js_string!`: a string from a literal or an expression, or the empty string.
macro_rules! js_string {
    () => {
        $crate::engine::JsString::default()
    };
    ($text:expr) => {
        $crate::engine::JsString::from($text)
    };
}
pub(crate) use js_string;

impl JsString {
    /// The contents of a string value (empty outside any context).
    ///
    /// `value` must be a string (a flat string or a rope): anything else would be converted
    /// with ToString, which may run script.
    pub(crate) fn from_string_value(value: &Value) -> Self {
        // (An 8-bit string's characters are widened straight into the new block.)
        Self::with_code_units_of_string_value(value, |units| match units {
            crate::engine::CodeUnits::Utf16(units) => Self(Rc::from(units)),
            crate::engine::CodeUnits::Latin1(bytes) => {
                Self(bytes.iter().map(|&b| u16::from(b)).collect())
            }
        })
    }

    /// Runs `f` on the code units of `value`, a string, in place where QuickJS keeps them as
    /// UTF-16 (a wide flat string), else on a wide copy QuickJS makes; `f` gets no units
    /// outside any context or out of memory (as [`JsString::from_string_value`] gets the
    /// empty string). `f` must not call into the engine.
    pub(crate) fn with_units_of_string_value<R>(value: &Value, f: impl FnOnce(&[u16]) -> R) -> R {
        let ctx = current_ctx();
        if ctx.is_null() {
            return f(&[]);
        }
        let mut len: q::size_t = 0;
        // SAFETY: a non-null current context is live (`current_ctx`'s invariant), of the
        // value's runtime (`Value`'s invariant, point 4); `value` is a live string, borrowed
        // (no script runs: a rope is only flattened). `len` is a valid `size_t` to write. On
        // success QuickJS returns the units of a string it holds a count of for us (the
        // value's own, or a wide copy), `len` of them, valid until `JS_FreeCStringUTF16`.
        let ptr = unsafe { q::JS_ToCStringLenUTF16(ctx, &mut len, value.raw()) };
        if ptr.is_null() {
            // Out of memory: the pending exception is ours to free.
            // SAFETY: `ctx` is live (above); this reads its `rt` field.
            let rt = unsafe { q::JS_GetRuntime(ctx) };
            // SAFETY: `ctx` is live; `JS_GetException` moves the pending exception out, an
            // owned value of `rt`, which the `Value` frees.
            let exception = unsafe { q::JS_GetException(ctx) };
            drop(Value::from_raw(rt, exception));
            return f(&[]);
        }
        // SAFETY: `ptr` is non-null, aligned (the `uint16_t` units of a `JSString`) and
        // points to `len` initialized units (above), which nothing writes while the slice
        // lives: QuickJS does not mutate a string's units, `f` does not call into the engine
        // (this function's contract), and the slice ends with `f`, before the buffer is freed.
        let units = unsafe { std::slice::from_raw_parts(ptr, len as usize) };
        let result = f(units);
        // SAFETY: `ptr` came from `JS_ToCStringLenUTF16` on `ctx` and is given back once;
        // the slice is gone (it was moved into `f`, which has returned).
        unsafe { q::JS_FreeCStringUTF16(ctx, ptr) };
        result
    }

    /// Runs `f` on the code units of `value`, a string, where QuickJS keeps them: an 8-bit
    /// string's as Latin-1 bytes, a wide string's as UTF-16, a slice's within its parent; a
    /// rope's on the wide copy QuickJS flattens it to ([`JsString::with_units_of_string_value`]).
    /// `f` must not call into the engine.
    pub(crate) fn with_code_units_of_string_value<R>(
        value: &Value,
        f: impl FnOnce(crate::engine::CodeUnits<'_>) -> R,
    ) -> R {
        // SAFETY: `value` is a live string value, borrowed for this call; the units lent are
        // read only by `f`, which does not call into the engine (this function's contract), so
        // nothing frees or changes the string (QuickJS never mutates a string's characters).
        match unsafe { units_in_place(value) } {
            Some(units) => f(units),
            None => Self::with_units_of_string_value(value, |units| {
                f(crate::engine::CodeUnits::Utf16(units))
            }),
        }
    }

    /// The string as a QuickJS value of `cx` (`undefined` if QuickJS cannot make it: past its
    /// string length limit, or out of memory; see [`JsString::try_to_value_in`]).
    pub(crate) fn to_value_in(&self, cx: &mut Cx) -> Value {
        self.try_to_value_in(cx).unwrap_or_default()
    }

    /// The string as a QuickJS value of `cx`, or QuickJS's error: a RangeError past its string
    /// length limit (2^30 - 1 code units), or out of memory.
    pub(crate) fn try_to_value_in(&self, cx: &mut Cx) -> JsResult<Value> {
        string_value_from_utf16(&self.0, cx)
    }

    /// The code units.
    pub fn iter(&self) -> impl Iterator<Item = u16> + '_ {
        self.0.iter().copied()
    }

    /// The string's code units in place (always UTF-16 here).
    pub fn code_units(&self) -> crate::engine::CodeUnits<'_> {
        crate::engine::CodeUnits::Utf16(&self.0)
    }

    /// The code units, copied.
    pub fn to_vec(&self) -> Vec<u16> {
        self.0.to_vec()
    }

    /// The code units, borrowed.
    pub(crate) fn units(&self) -> &[u16] {
        &self.0
    }

    /// The length in code units.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether the string is empty.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The string as Rust's, if it is well-formed UTF-16.
    pub fn to_std_string(&self) -> Result<String, std::string::FromUtf16Error> {
        String::from_utf16(&self.0)
    }

    /// The string as Rust's, lone surrogates escaped as `\uXXXX`.
    pub fn to_std_string_escaped(&self) -> String {
        let mut out = String::with_capacity(self.0.len());
        for unit in char::decode_utf16(self.0.iter().copied()) {
            match unit {
                Ok(c) => out.push(c),
                Err(e) => out.push_str(&format!("\\u{:04X}", e.unpaired_surrogate())),
            }
        }
        out
    }

    /// The string as Rust's, lone surrogates replaced by U+FFFD.
    pub fn to_std_string_lossy(&self) -> String {
        // ASCII (URLs, header values, names) is narrowed in one pass.
        if self.0.iter().all(|&u| u < 0x80) {
            // Every unit is below 0x80 (checked above): the cast keeps it whole.
            #[allow(clippy::cast_possible_truncation)]
            let bytes: Vec<u8> = self.0.iter().map(|&u| u as u8).collect();
            return String::from_utf8(bytes).unwrap_or_default();
        }
        String::from_utf16_lossy(&self.0)
    }
}

impl std::fmt::Debug for JsString {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.to_std_string_escaped())
    }
}

impl Trace for JsString {
    #[inline]
    fn trace(&self, _: &mut Marker) {}
}

impl From<&str> for JsString {
    fn from(s: &str) -> Self {
        // ASCII (nearly every name and string the library makes) is one unit per byte: an
        // iterator of exact length, so the block is allocated once at its size, where
        // `encode_utf16`'s estimate grows a vector by reallocation and then copies it.
        if s.is_ascii() {
            return Self(s.bytes().map(u16::from).collect());
        }
        Self(s.encode_utf16().collect())
    }
}
impl From<String> for JsString {
    fn from(s: String) -> Self {
        Self::from(s.as_str())
    }
}
impl From<&String> for JsString {
    fn from(s: &String) -> Self {
        Self::from(s.as_str())
    }
}
impl From<&[u16]> for JsString {
    fn from(units: &[u16]) -> Self {
        Self(Rc::from(units))
    }
}
impl PartialEq<str> for JsString {
    fn eq(&self, other: &str) -> bool {
        self.0.iter().copied().eq(other.encode_utf16())
    }
}
impl PartialEq<&str> for JsString {
    fn eq(&self, other: &&str) -> bool {
        *self == **other
    }
}
impl From<JsString> for Value {
    /// A string value in the current context.
    fn from(s: JsString) -> Self {
        let ctx = current_ctx();
        if ctx.is_null() {
            return Value::undefined();
        }
        // SAFETY: a non-null current context is the `raw` of the innermost live `Cx`
        // (`current_ctx`'s invariant), so `Cx`'s invariant holds for a second handle on it
        // while this function runs; `cx` is dropped at its end, before that handle, and
        // restores it as current.
        let mut cx = unsafe { Cx::enter(ctx) };
        s.to_value_in(&mut cx)
    }
}

/// Number::toString for display purposes (integers without a fraction).
pub(crate) fn number_to_string(n: f64) -> String {
    if n.is_nan() {
        "NaN".into()
    } else if n.is_infinite() {
        if n > 0.0 { "Infinity" } else { "-Infinity" }.into()
    } else if n == n.trunc() && n.abs() < 1e21 {
        format!("{n:.0}")
    } else {
        format!("{n}")
    }
}

/// A symbol.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct JsSymbol(pub(crate) Value);

impl JsSymbol {
    fn well_known(name: Intrinsic) -> Self {
        let ctx = current_ctx();
        if ctx.is_null() {
            return Self(Value::undefined());
        }
        Self(realm_of(ctx).intrinsic(name))
    }

    /// `Symbol.iterator`.
    pub fn iterator() -> Self {
        Self::well_known(Intrinsic::SymbolIterator)
    }

    /// `Symbol.asyncIterator`.
    pub fn async_iterator() -> Self {
        Self::well_known(Intrinsic::SymbolAsyncIterator)
    }

    /// `Symbol.toStringTag`.
    pub fn to_string_tag() -> Self {
        Self::well_known(Intrinsic::SymbolToStringTag)
    }
}

impl Trace for JsSymbol {
    fn trace(&self, m: &mut Marker) {
        self.0.trace(m);
    }
}

impl From<JsSymbol> for Value {
    fn from(s: JsSymbol) -> Self {
        s.0
    }
}

/// A property key: a string or a symbol.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum PropertyKey {
    /// A string key (array indices included).
    String(JsString),
    /// A symbol key.
    Symbol(JsSymbol),
}

impl PropertyKey {
    /// The key as a value (a string or a symbol) of `cx`.
    pub(crate) fn to_value(&self, cx: &mut Cx) -> Value {
        match self {
            Self::String(s) => s.to_value_in(cx),
            Self::Symbol(s) => s.0.clone(),
        }
    }

    /// A key from a string or symbol value.
    pub(crate) fn from_value(value: &Value) -> Self {
        match value.as_string() {
            Some(s) => Self::String(s),
            None => Self::Symbol(JsSymbol(value.clone())),
        }
    }
}

impl Trace for PropertyKey {
    fn trace(&self, m: &mut Marker) {
        if let Self::Symbol(s) = self {
            s.trace(m);
        }
    }
}

impl From<JsString> for PropertyKey {
    fn from(s: JsString) -> Self {
        Self::String(s)
    }
}
impl From<&str> for PropertyKey {
    fn from(s: &str) -> Self {
        Self::String(JsString::from(s))
    }
}
impl From<JsSymbol> for PropertyKey {
    fn from(s: JsSymbol) -> Self {
        Self::Symbol(s)
    }
}
impl From<PropertyKey> for Value {
    fn from(key: PropertyKey) -> Self {
        match key {
            PropertyKey::String(s) => Value::from(s),
            PropertyKey::Symbol(s) => s.0,
        }
    }
}

/// quickjs.c's `JSString` header (rquickjs-sys =0.14.0, quickjs-ng 0.16): a 32-bit word of
/// `len` (31 bits) and `is_wide_char` (the top bit), a 32-bit word whose bits 28 and 29 are
/// `kind`, `hash_next` and `first_weak_ref`: 24 bytes, 40 where QuickJS is built with
/// `ENABLE_DUMPS` (every build without `NDEBUG`: a `list_head` more). Then by `kind` the
/// characters themselves (`JS_STRING_KIND_NORMAL`, an 8-bit string's with a NUL after them) or
/// a `JSStringSlice { parent, start }` (`JS_STRING_KIND_SLICE`: `start` in bytes into the
/// characters of the parent, a normal string the slice holds a count of).
mod header {
    pub const SIZES: [usize; 2] = [24, 40];
    pub const LEN_MASK: u32 = 0x7FFF_FFFF;
    pub const WIDE_BIT: u32 = 1 << 31;
    pub const KIND_SHIFT: u32 = 28;
    pub const NORMAL: u32 = 0;
    pub const SLICE: u32 = 1;
}

/// The size of this build's `JSString` header ([`header`]), or `None` where QuickJS does not
/// lay a string out as `header` says: learned once per process from two strings QuickJS makes
/// through its API, an 8-bit and a wide one, whose header words and characters are read back
/// and compared with what was given. The bit fields' places and the sizes are quickjs.c's on a
/// little-endian 64-bit target; the pinned source is the only one this crate builds.
fn header_size(ctx: *mut q::JSContext) -> Option<usize> {
    static SIZE: std::sync::OnceLock<Option<usize>> = std::sync::OnceLock::new();
    // (On a 32-bit target the header is smaller than the probe's reads assume: none there.)
    if !cfg!(all(target_endian = "little", target_pointer_width = "64")) {
        return None;
    }
    *SIZE.get_or_init(|| {
        const TEXT: &[u8] = b"boa_streams: where QuickJS keeps a string's characters";
        let wide: Vec<u16> = std::iter::once(0x0100)
            .chain(TEXT.iter().map(|&b| u16::from(b)))
            .collect();
        let wide_bytes: Vec<u8> = wide.iter().flat_map(|u| u.to_ne_bytes()).collect();
        // SAFETY: `ctx` is a live context (the caller's, non-null); both calls copy the
        // characters given (readable for their length) into a new string, owned here and freed
        // below; `JS_EXCEPTION` (out of memory) is not a counted value and is left alone.
        let (narrow_raw, wide_raw) = unsafe {
            (
                q::JS_NewStringLen(ctx, TEXT.as_ptr().cast(), TEXT.len() as _),
                q::JS_NewStringUTF16(ctx, wide.as_ptr(), wide.len() as _),
            )
        };
        // The first two header words, and `bytes` bytes from offset 24.
        let read = |raw: q::JSValue, bytes: usize| -> Option<(u32, u32, Vec<u8>)> {
            // SAFETY: reads the tag only.
            if unsafe { q::JS_VALUE_GET_NORM_TAG(raw) } != q::JS_TAG_STRING {
                return None;
            }
            // SAFETY: `raw` is a live flat string made above: its block holds a header of at
            // least 24 bytes, then its characters (and an 8-bit string's NUL), the `bytes`
            // asked for: two aligned words at its start and `bytes` bytes from offset 24 stay
            // within the block whichever the header's size.
            unsafe {
                let p = q::JS_VALUE_GET_PTR(raw).cast::<u8>();
                let w0 = p.cast::<u32>().read();
                let w1 = p.add(4).cast::<u32>().read();
                let chars = std::slice::from_raw_parts(p.add(header::SIZES[0]), bytes).to_vec();
                Some((w0, w1, chars))
            }
        };
        let narrow = read(narrow_raw, TEXT.len() + 1);
        let wide_read = read(wide_raw, wide_bytes.len());
        // SAFETY: `ctx` is live; each string value made above is freed once (a non-counted
        // `JS_EXCEPTION` is ignored by `JS_FreeValue`).
        unsafe {
            q::JS_FreeValue(ctx, narrow_raw);
            q::JS_FreeValue(ctx, wide_raw);
        }
        let (Some((n0, n1, narrow)), Some((w0, w1, wide_read))) = (narrow, wide_read) else {
            return None;
        };
        let kind = |w1: u32| (w1 >> header::KIND_SHIFT) & 3;
        if n0 != TEXT.len() as u32
            || kind(n1) != header::NORMAL
            || w0 != (wide.len() as u32 | header::WIDE_BIT)
            || kind(w1) != header::NORMAL
        {
            return None;
        }
        // The characters begin where the bytes read from offset 24 match what was given, from
        // their start (a 24-byte header) or 16 bytes on (40): each compared for the bytes read.
        header::SIZES.into_iter().find(|&size| {
            let skip = size - header::SIZES[0];
            let narrow_text = [TEXT, &[0]].concat();
            narrow
                .get(skip..)
                .is_some_and(|got| narrow_text.starts_with(got))
                && wide_read
                    .get(skip..)
                    .is_some_and(|got| wide_bytes.starts_with(got))
        })
    })
}

/// The code units of `value` where QuickJS keeps them, read through its `JSString` header
/// ([`header`]), or `None` for a rope, outside any context, or where the header is not as
/// known ([`header_size`]).
///
/// # Safety
/// `value` is a live string value, and the units returned are read only while it stays so and
/// nothing calls into the engine.
unsafe fn units_in_place(value: &Value) -> Option<crate::engine::CodeUnits<'_>> {
    let raw = value.raw();
    // SAFETY: reads the tag only.
    if unsafe { q::JS_VALUE_GET_NORM_TAG(raw) } != q::JS_TAG_STRING {
        return None;
    }
    let ctx = current_ctx();
    if ctx.is_null() {
        return None;
    }
    let size = header_size(ctx)?;
    // SAFETY: `raw` is a live flat string (its tag, checked above; the caller's contract), laid
    // out as `header` says with a header of `size` bytes (learned once for this process from
    // strings QuickJS made): its two header words are read,
    // then by its kind the characters' place: inline after the header, or in the parent a
    // slice holds a count of (the slice's `start` counts bytes within the parent's characters,
    // and a slice's length fits in them). Either is `len`
    // characters of 1 or 2 bytes (2-aligned for a wide string: headers are 8-aligned, and a
    // wide parent's `start` is a whole number of units), valid and unchanged while the string
    // lives (the caller's contract: no call into the engine meanwhile).
    unsafe {
        let p = q::JS_VALUE_GET_PTR(raw).cast::<u8>();
        let w0 = p.cast::<u32>().read();
        let kind = (p.add(4).cast::<u32>().read() >> header::KIND_SHIFT) & 3;
        let len = (w0 & header::LEN_MASK) as usize;
        let chars: *const u8 = match kind {
            header::NORMAL => p.add(size),
            header::SLICE => {
                let parent = p.add(size).cast::<*const u8>().read();
                let start = p.add(size + 8).cast::<u32>().read() as usize;
                parent.add(size + start)
            }
            // (`JS_STRING_KIND_INDIRECT` holds a regular expression's bytecode, never a
            // script's string.)
            _ => return None,
        };
        if len == 0 {
            return Some(crate::engine::CodeUnits::Latin1(&[]));
        }
        Some(if w0 & header::WIDE_BIT != 0 {
            crate::engine::CodeUnits::Utf16(std::slice::from_raw_parts(chars.cast::<u16>(), len))
        } else {
            crate::engine::CodeUnits::Latin1(std::slice::from_raw_parts(chars, len))
        })
    }
}

/// A string value made from UTF-16 code units: one copy, straight into a QuickJS string (a
/// [`JsString`] would be a second, Rust-side copy first).
pub fn string_value_from_utf16(units: &[u16], ctx: &mut Cx) -> JsResult<Value> {
    // SAFETY: `ctx`'s context is live (`Cx`'s invariant); the units are readable for their
    // length during the call (QuickJS copies them; none are read for length 0). The result
    // is owned, or `JS_EXCEPTION` (past the length limit, or out of memory), as `check`
    // takes it.
    let raw = unsafe { q::JS_NewStringUTF16(ctx.raw(), units.as_ptr(), units.len() as _) };
    super::core::check(ctx, raw)
}

/// A string value straight from UTF-8 bytes when they are ASCII (`None` otherwise: the caller
/// decodes, with its replacement rules): QuickJS makes an 8-bit string of them with one scan
/// and a copy. (Its own UTF-8 conversion of other text is a per-character loop, slower than
/// decoding to UTF-16 first.)
pub fn string_value_from_utf8(bytes: &[u8], ctx: &mut Cx) -> JsResult<Option<Value>> {
    if !bytes.is_ascii() {
        return Ok(None);
    }
    // SAFETY: `ctx`'s context is live (`Cx`'s invariant); `bytes` is ASCII, hence valid
    // UTF-8, readable for its length during the call (QuickJS copies it). The result is
    // owned, or `JS_EXCEPTION`, as `check` takes it.
    let raw = unsafe { q::JS_NewStringLen(ctx.raw(), bytes.as_ptr().cast(), bytes.len() as _) };
    super::core::check(ctx, raw).map(Some)
}

/// `JS_STRING_LEN_MAX`: the longest string QuickJS makes.
const STRING_LEN_MAX: usize = (1 << 30) - 1;

/// The record of one 8-bit string in QuickJS's object serialization (`JS_WriteObject`): its
/// format version and the string's tag, learned from QuickJS itself ([`string_record`]), then
/// a checksum, an atom count of 0, and the length (LEB128) before the characters.
#[derive(Clone, Copy)]
struct StringRecord {
    version: u8,
    tag: u8,
}

impl StringRecord {
    /// The bytes before the characters: version, checksum (all ones: "not checked", which
    /// QuickJS's reader accepts), atom count, tag, and the length field padded to 5 bytes
    /// (its reader takes up to 5), so that the characters can be written before their count
    /// is known.
    const PREFIX: usize = 12;

    /// Writes the prefix of a record of `len` characters at the start of `record`.
    fn write_prefix(self, record: &mut [u8], len: usize) {
        let mut prefix = [
            self.version,
            0xff,
            0xff,
            0xff,
            0xff,
            0,
            self.tag,
            0,
            0,
            0,
            0,
            0,
        ];
        // The length times two (the low bit: not wide), 7 bits a byte, each byte but the
        // last with its high bit set.
        let mut field = (len as u64) << 1;
        for byte in &mut prefix[7..11] {
            *byte = (field & 0x7f) as u8 | 0x80;
            field >>= 7;
        }
        prefix[11] = (field & 0x7f) as u8;
        if let Some(head) = record.get_mut(..Self::PREFIX) {
            head.copy_from_slice(&prefix);
        }
    }
}

/// [`StringRecord`]'s version and tag (0: not yet learned; `u16::MAX`: QuickJS serializes a
/// string some other way, and Latin-1 text takes the UTF-16 path). A property of the QuickJS
/// this process links, so process-wide.
static STRING_RECORD: std::sync::atomic::AtomicU16 = std::sync::atomic::AtomicU16::new(0);

/// [`StringRecord`], learned once.
fn string_record(ctx: &mut Cx) -> Option<StringRecord> {
    use std::sync::atomic::Ordering;
    match STRING_RECORD.load(Ordering::Relaxed) {
        0 => {}
        u16::MAX => return None,
        known => {
            let [version, tag] = known.to_be_bytes();
            return Some(StringRecord { version, tag });
        }
    }
    let learned = learn_string_record(ctx);
    STRING_RECORD.store(
        learned.map_or(u16::MAX, |r| u16::from_be_bytes([r.version, r.tag])),
        Ordering::Relaxed,
    );
    learned
}

/// QuickJS's serialization of `"ab"` must be the record [`StringRecord`] describes, and a
/// record written by [`StringRecord::write_prefix`] must read back as `"ab"`.
fn learn_string_record(ctx: &mut Cx) -> Option<StringRecord> {
    let ab = super::core::new_string(ctx, "ab");
    let mut size: q::size_t = 0;
    // SAFETY: `ctx`'s context is live (`Cx`'s invariant) and `ab` a live string of its
    // runtime. The result is null (with an exception pending, taken here) or a block of
    // `size` bytes from the context's allocator, which is copied and then freed once with
    // `js_free`.
    let written = unsafe {
        let data = q::JS_WriteObject(ctx.raw(), &mut size, ab.raw(), 0);
        if data.is_null() {
            let _ = super::core::take_exception(ctx);
            return None;
        }
        let bytes = std::slice::from_raw_parts(data, size as usize).to_vec();
        q::js_free(ctx.raw(), data.cast());
        bytes
    };
    let [version, _, _, _, _, 0, tag, 4, b'a', b'b'] = written.as_slice() else {
        return None;
    };
    let record = StringRecord {
        version: *version,
        tag: *tag,
    };
    let mut check = [0; StringRecord::PREFIX + 2];
    record.write_prefix(&mut check, 2);
    check[StringRecord::PREFIX..].copy_from_slice(b"ab");
    let read = read_string_record(ctx, &check).ok()?;
    (read == ab).then_some(record)
}

/// `JS_ReadObject` of a record made by [`StringRecord::write_prefix`] and its characters.
fn read_string_record(ctx: &mut Cx, record: &[u8]) -> JsResult<Value> {
    // SAFETY: `ctx`'s context is live (`Cx`'s invariant); `record` is readable for its length
    // during the call (QuickJS copies the characters into the string it makes). Flags 0: no
    // bytecode, shared buffer or object reference is read, and the record holds none. The
    // result is owned, or `JS_EXCEPTION`, as `check` takes it.
    let raw = unsafe { q::JS_ReadObject(ctx.raw(), record.as_ptr(), record.len() as _, 0) };
    let value = super::core::check(ctx, raw)?;
    if value.is_string() {
        Ok(value)
    } else {
        Err(super::throw_type_error("not a string record"))
    }
}

/// A string value of the characters U+0000 to U+00FF that `bytes` holds, one byte each; `None`
/// as for [`string_value_from_latin1_with`] (past QuickJS's longest string, or where this
/// QuickJS cannot take the record): an 8-bit string.
pub fn string_value_from_latin1(bytes: &[u8], ctx: &mut Cx) -> JsResult<Option<Value>> {
    string_value_from_latin1_with(
        bytes.len(),
        |room| {
            room.get_mut(..bytes.len())?.copy_from_slice(bytes);
            Some(bytes.len())
        },
        ctx,
    )
}

/// A string value of at most `capacity` characters from U+0000 to U+00FF, one byte each, which
/// `fill` writes into the room it gets (`capacity` bytes) and counts; `None` when `fill`
/// gives up, past QuickJS's longest string, or where this QuickJS cannot take the record
/// below (the caller then makes the string another way, which throws QuickJS's RangeError
/// for a string too long). On QuickJS an 8-bit string, the characters copied once, in half
/// the memory of a UTF-16 one.
///
/// AD-HOC: QuickJS has no API for an 8-bit string from 8-bit characters (`JS_NewStringLen`
/// takes UTF-8, and converts other than ASCII one character at a time). Its object reader
/// makes one from a serialized record with one copy, so `fill` writes into such a record.
pub fn string_value_from_latin1_with(
    capacity: usize,
    fill: impl FnOnce(&mut [u8]) -> Option<usize>,
    ctx: &mut Cx,
) -> JsResult<Option<Value>> {
    let Some(format) = string_record(ctx) else {
        return Ok(None);
    };
    let total = StringRecord::PREFIX.saturating_add(capacity);
    crate::engine::huge_pages::with_scratch_bytes(total, |record| {
        match fill(&mut record[StringRecord::PREFIX..]) {
            Some(0) => string_value_from_utf8(b"", ctx),
            Some(written) if written <= capacity.min(STRING_LEN_MAX) => {
                format.write_prefix(record, written);
                read_string_record(ctx, &record[..StringRecord::PREFIX + written]).map(Some)
            }
            // Given up, or past QuickJS's longest string (whose RangeError the caller's other
            // way gives).
            _ => Ok(None),
        }
    })
}
