//! The engine API's plain data: what kind of view or typed array an object is, a view's
//! slots, and how structured serialization classifies a value. Shared by every backend: these
//! hold only the engine's own types.

use super::{JsArrayBuffer, JsString};

/// `[[TypedArrayName]]`: the element type of a typed array.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TypedArrayKind {
    /// `Int8Array`.
    Int8,
    /// `Uint8Array`.
    Uint8,
    /// `Uint8ClampedArray`.
    Uint8Clamped,
    /// `Int16Array`.
    Int16,
    /// `Uint16Array`.
    Uint16,
    /// `Int32Array`.
    Int32,
    /// `Uint32Array`.
    Uint32,
    /// `BigInt64Array`.
    BigInt64,
    /// `BigUint64Array`.
    BigUint64,
    /// `Float16Array`.
    Float16,
    /// `Float32Array`.
    Float32,
    /// `Float64Array`.
    Float64,
}

/// What kind of `ArrayBufferView` an object is: a typed array of some element type, or a
/// `DataView`. It gives the element size and the view constructor of a pull-into descriptor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ViewKind {
    /// A typed array (`[[TypedArrayName]]`).
    Typed(TypedArrayKind),
    /// A `DataView`.
    DataView,
}

impl ViewKind {
    /// The element size from "the typed array constructors table" (1 for `DataView`).
    pub fn element_size(self) -> u64 {
        match self {
            ViewKind::DataView => 1,
            ViewKind::Typed(kind) => match kind {
                TypedArrayKind::Int8 | TypedArrayKind::Uint8 | TypedArrayKind::Uint8Clamped => 1,
                TypedArrayKind::Int16 | TypedArrayKind::Uint16 | TypedArrayKind::Float16 => 2,
                TypedArrayKind::Int32 | TypedArrayKind::Uint32 | TypedArrayKind::Float32 => 4,
                TypedArrayKind::BigInt64 | TypedArrayKind::BigUint64 | TypedArrayKind::Float64 => 8,
            },
        }
    }
}

/// The internal slots of an `ArrayBufferView` that the streams algorithms read, copied out of
/// the view object (no getter runs, nothing observable happens).
#[derive(Debug, Clone)]
pub struct ViewRecord {
    /// `[[ViewedArrayBuffer]]` (never a `SharedArrayBuffer`: see [`array_buffer_view`]).
    pub buffer: JsArrayBuffer,
    /// `[[ByteOffset]]` (0 when the buffer is detached).
    pub byte_offset: u64,
    /// `[[ByteLength]]` (0 when the buffer is detached or the view is out of bounds).
    pub byte_length: u64,
    /// `[[TypedArrayName]]`, or `DataView`.
    pub kind: ViewKind,
}

impl ViewRecord {
    /// `[[ArrayLength]]` of a typed array, `[[ByteLength]]` of a `DataView`.
    pub fn element_length(&self) -> u64 {
        self.byte_length / self.kind.element_size()
    }
}

/// A primitive value, as structured serialization sees it.
#[derive(Debug, Clone)]
pub enum Primitive {
    /// `undefined`.
    Undefined,
    /// `null`.
    Null,
    /// A Boolean.
    Boolean(bool),
    /// A Number.
    Number(f64),
    /// A BigInt, in decimal.
    BigInt(String),
    /// A String.
    String(JsString),
    /// A Symbol (never serializable).
    Symbol,
}

/// The `[[ViewedArrayBuffer]]` of a view.
#[derive(Debug, Clone)]
pub enum ViewedBuffer {
    /// An `ArrayBuffer`.
    Buffer(JsArrayBuffer),
    /// A `SharedArrayBuffer`.
    Shared,
}

/// Which of the internal slots HTML's StructuredSerializeInternal dispatches on an object has.
#[derive(Debug, Clone)]
pub enum ObjectKind {
    /// `[[BooleanData]]`.
    Boolean(bool),
    /// `[[NumberData]]`.
    Number(f64),
    /// `[[BigIntData]]`, in decimal.
    BigInt(String),
    /// `[[StringData]]`.
    String(JsString),
    /// `[[SymbolData]]` (not serializable).
    Symbol,
    /// `[[DateValue]]`.
    Date(f64),
    /// `[[RegExpMatcher]]`: the source (as the `source` getter gives it, so that
    /// `new RegExp(source, flags)` rebuilds it) and the flags, read from the slots.
    RegExp {
        /// The pattern.
        source: JsString,
        /// The flags, in canonical order.
        flags: String,
    },
    /// `[[ArrayBufferData]]` of an `ArrayBuffer`.
    ArrayBuffer(JsArrayBuffer),
    /// `[[ArrayBufferData]]` of a `SharedArrayBuffer`.
    SharedArrayBuffer,
    /// `[[ViewedArrayBuffer]]`: a typed array or `DataView`.
    View {
        /// `[[TypedArrayName]]`, or `DataView`.
        kind: ViewKind,
        /// `[[ViewedArrayBuffer]]`.
        buffer: ViewedBuffer,
        /// `[[ByteOffset]]`.
        byte_offset: u64,
        /// `[[ArrayLength]]` (the byte length for a `DataView`); 0 when out of bounds.
        array_length: u64,
        /// IsArrayBufferViewOutOfBounds: the buffer is detached, or (resizable) shrank below
        /// the view. Then the lengths above are 0 and mean nothing. (On QuickJS, a typed array
        /// on a shrunk resizable buffer is not detected: ENGINE_BUGS.md.)
        out_of_bounds: bool,
    },
    /// `[[MapData]]`.
    Map,
    /// `[[SetData]]`.
    Set,
    /// `[[ErrorData]]`.
    Error,
    /// An Array exotic object.
    Array,
    /// Callable.
    Callable,
    /// An ordinary object with no internal slot beyond [[Prototype]] and [[Extensible]].
    Ordinary,
    /// Anything else: exotic objects (proxies), objects with other internal slots (promises,
    /// weak maps, ...), and platform objects.
    Other,
}

/// The error names HTML's serialization keeps (others become "Error").
pub const ERROR_NAMES: [&str; 7] = [
    "Error",
    "EvalError",
    "RangeError",
    "ReferenceError",
    "SyntaxError",
    "TypeError",
    "URIError",
];

/// A string's code units as the engine stores them: one byte each (Latin-1, every unit below
/// U+0100) or UTF-16. Lets byte-level code (the UTF-8 encoder) run over the units in place.
#[derive(Debug, Clone, Copy)]
pub enum CodeUnits<'a> {
    /// Each byte is one code unit.
    Latin1(&'a [u8]),
    /// UTF-16 code units (possibly with lone surrogates).
    Utf16(&'a [u16]),
}
