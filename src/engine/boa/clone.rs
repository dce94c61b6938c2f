//! What HTML's structured serialization needs from the engine: which internal slots an object
//! has (read without running script), and the objects structured deserialization creates in the
//! current realm. The algorithm itself is in `crate::html::serialize`.
//!
//! <https://html.spec.whatwg.org/multipage/structured-data.html#structuredserializeinternal>

use super::{Cx, JsArrayBuffer, JsError, JsResult, JsString, Object, PropertyKey, Value};
use boa_engine::{
    builtins::{
        array_buffer::ArrayBuffer, dataview::DataView, error::Error, object::OrdinaryObject,
        typed_array::TypedArray,
    },
    object::builtins::{
        AlignedVec, JsArray, JsArrayBuffer as BoaArrayBuffer, JsDataView, JsDate, JsMap, JsRegExp,
        JsSet, JsSharedArrayBuffer, JsTypedArray,
    },
    property::PropertyKey as BoaKey,
    Context, JsBigInt, JsObject, JsString as BoaString, JsValue, JsVariant,
};

pub use super::kinds::{ObjectKind, Primitive, ViewedBuffer, ERROR_NAMES};
use super::ViewKind;

/// The primitive `value` is, or `None` for an object.
pub fn primitive(value: &Value) -> Option<Primitive> {
    Some(match value.js().variant() {
        JsVariant::Undefined => Primitive::Undefined,
        JsVariant::Null => Primitive::Null,
        JsVariant::Boolean(b) => Primitive::Boolean(b),
        JsVariant::Integer32(i) => Primitive::Number(f64::from(i)),
        JsVariant::Float64(f) => Primitive::Number(f),
        JsVariant::BigInt(b) => Primitive::BigInt(b.to_string_radix(10)),
        JsVariant::String(s) => Primitive::String(JsString(s.clone())),
        JsVariant::Symbol(_) => Primitive::Symbol,
        JsVariant::Object(_) => return None,
    })
}

/// The value of a primitive (a BigInt that does not parse is 0n; the serializer wrote it).
pub fn primitive_value(primitive: &Primitive) -> Value {
    match primitive {
        Primitive::Undefined | Primitive::Symbol => Value::undefined(),
        Primitive::Null => Value::null(),
        Primitive::Boolean(b) => Value::from(*b),
        Primitive::Number(n) => Value::from(*n),
        Primitive::BigInt(digits) => Value::from(JsValue::from(
            JsBigInt::from_string(digits).unwrap_or_else(JsBigInt::zero),
        )),
        Primitive::String(s) => Value::from(s.clone()),
    }
}

/// A pattern equivalent to a regexp's [[OriginalSource]], from what Boa 0.22's `source` getter
/// returns. The spec's EscapeRegExpPattern gives a string that parses back to the same
/// pattern; Boa's puts a `\` before every `/`, one the pattern already escaped too (`\/`
/// becomes `\\/`, an escaped backslash and a bare slash: another pattern), so cloning the
/// getter's result changed what the clone matches (ENGINE_BUGS.md, 8). Every `/` in that
/// result comes with exactly one `\` Boa put before it, and dropping it gives
/// [[OriginalSource]]'s slashes back. (Its other escapes, `\n`, `\r`, `\u2028` and
/// `\u2029` for line terminators, match what they replace, except after a `\`: a line
/// terminator the pattern itself escaped, which Annex B allows without the `u` flag, comes
/// back as an escaped backslash and a letter. The getter's result cannot tell it apart.)
fn original_source(escaped: &str) -> String {
    let mut source = String::with_capacity(escaped.len());
    for c in escaped.chars() {
        if c == '/' && source.ends_with('\\') {
            source.pop();
        }
        source.push(c);
    }
    source
}

/// The realm's `get RegExp.prototype.unicodeSets`, as it was when the streams were registered
/// (Boa 0.22's `JsRegExp` has a Rust reading of every flag but `v`).
#[derive(boa_gc::Trace, boa_gc::Finalize, boa_engine::JsData)]
struct UnicodeSetsGetter(JsObject);

/// Remembers the realm's `get RegExp.prototype.unicodeSets` (before script runs).
pub(super) fn remember_regexp_intrinsics(ctx: &mut Context) {
    let proto = ctx.intrinsics().constructors().regexp().prototype();
    if let Some(getter) = super::buffer::own_getter(&proto, "unicodeSets") {
        ctx.realm()
            .host_defined_mut()
            .insert(UnicodeSetsGetter(getter));
    }
}

/// The `v` flag, through the remembered built-in getter (which reads [[OriginalFlags]]: no
/// script runs).
fn unicode_sets(regexp: &JsRegExp, ctx: &mut Context) -> boa_engine::JsResult<bool> {
    let realm = ctx.realm().clone();
    let Some(getter) = realm
        .host_defined()
        .get::<UnicodeSetsGetter>()
        .map(|g| g.0.clone())
    else {
        return Ok(false);
    };
    let this = JsValue::from(JsObject::from(regexp.clone()));
    Ok(getter.call(&this, &[], ctx)?.to_boolean())
}

fn regexp_flags(regexp: &JsRegExp, ctx: &mut Context) -> JsResult<String> {
    // The individual flag getters read [[OriginalFlags]]; the `flags` getter would read
    // properties (observable). In the order of the `flags` getter.
    type FlagGetter = fn(&JsRegExp, &mut Context) -> boa_engine::JsResult<bool>;
    let mut flags = String::new();
    let checks: [(char, FlagGetter); 8] = [
        ('d', JsRegExp::has_indices),
        ('g', JsRegExp::global),
        ('i', JsRegExp::ignore_case),
        ('m', JsRegExp::multiline),
        ('s', JsRegExp::dot_all),
        ('u', JsRegExp::unicode),
        ('v', unicode_sets),
        ('y', JsRegExp::sticky),
    ];
    for (flag, check) in checks {
        if check(regexp, ctx)? {
            flags.push(flag);
        }
    }
    Ok(flags)
}

/// Classifies `object` by its internal slots. Runs no script (slot reads only).
pub fn object_kind(object: &Object, ctx: &mut Cx) -> JsResult<ObjectKind> {
    if let Some(b) = object.downcast_ref::<bool>() {
        return Ok(ObjectKind::Boolean(*b));
    }
    if let Some(n) = object.downcast_ref::<f64>() {
        return Ok(ObjectKind::Number(*n));
    }
    if let Some(b) = object.downcast_ref::<JsBigInt>() {
        return Ok(ObjectKind::BigInt(b.to_string_radix(10)));
    }
    if let Some(s) = object.downcast_ref::<BoaString>() {
        return Ok(ObjectKind::String(JsString(s.clone())));
    }
    if object.is::<boa_engine::JsSymbol>() {
        return Ok(ObjectKind::Symbol);
    }
    if let Ok(date) = JsDate::from_object(object.js().clone()) {
        let time = date.get_time(ctx)?.as_number().unwrap_or(f64::NAN);
        return Ok(ObjectKind::Date(time));
    }
    if let Ok(regexp) = JsRegExp::from_object(object.js().clone()) {
        let source = JsString::from(original_source(&regexp.source(ctx)?).as_str());
        let flags = regexp_flags(&regexp, ctx)?;
        return Ok(ObjectKind::RegExp { source, flags });
    }
    if object.is::<ArrayBuffer>() {
        return Ok(match BoaArrayBuffer::from_object(object.js().clone()) {
            Ok(buffer) => ObjectKind::ArrayBuffer(JsArrayBuffer(buffer)),
            Err(_) => ObjectKind::Other,
        });
    }
    if JsSharedArrayBuffer::from_object(object.js().clone()).is_ok() {
        return Ok(ObjectKind::SharedArrayBuffer);
    }
    if let Ok(typed) = JsTypedArray::from_object(object.js().clone()) {
        let Some(kind) = typed.kind() else {
            return Ok(ObjectKind::Other);
        };
        let buffer = typed.buffer(ctx)?;
        let shared_length = buffer
            .as_object()
            .and_then(|b| JsSharedArrayBuffer::from_object(b).ok())
            .map(|b| b.byte_length());
        let buffer = match buffer
            .as_object()
            .and_then(|b| BoaArrayBuffer::from_object(b).ok())
        {
            Some(b) => ViewedBuffer::Buffer(JsArrayBuffer(b)),
            None => ViewedBuffer::Shared,
        };
        // IsTypedArrayOutOfBounds (a detached buffer included): exactly when
        // `%TypedArray%.prototype.keys`'s ValidateTypedArray throws (it runs no script, and
        // makes only an iterator).
        let out_of_bounds = typed.keys(ctx).is_err();
        // The viewed buffer's length, shared or not: Boa's `array_length` asserts (a debug
        // assertion) that the view is in bounds of it, which `out_of_bounds` just said.
        let buffer_length = match &buffer {
            ViewedBuffer::Buffer(b) => b.0.byte_length(),
            ViewedBuffer::Shared => shared_length.unwrap_or(0),
        };
        let (byte_offset, array_length) = match object.downcast_ref::<TypedArray>() {
            Some(t) if !out_of_bounds => (t.byte_offset(), t.array_length(buffer_length)),
            _ => (0, 0),
        };
        return Ok(ObjectKind::View {
            kind: ViewKind::Typed(super::buffer::typed_array_kind(kind)),
            buffer,
            byte_offset,
            array_length,
            out_of_bounds,
        });
    }
    if object.is::<DataView>() {
        let view = JsDataView::from_object(object.js().clone())?;
        let buffer = match view
            .buffer(ctx)?
            .as_object()
            .and_then(|b| BoaArrayBuffer::from_object(b).ok())
        {
            Some(b) => ViewedBuffer::Buffer(JsArrayBuffer(b)),
            None => ViewedBuffer::Shared,
        };
        // The getters throw only for a detached or out-of-bounds view
        // (IsViewOutOfBounds).
        let (byte_offset, byte_length, out_of_bounds) =
            match (view.byte_offset(ctx), view.byte_length(ctx)) {
                (Ok(offset), Ok(length)) => (offset, length, false),
                _ => (0, 0, true),
            };
        return Ok(ObjectKind::View {
            kind: ViewKind::DataView,
            buffer,
            byte_offset,
            array_length: byte_length,
            out_of_bounds,
        });
    }
    if JsMap::from_object(object.js().clone()).is_ok() {
        return Ok(ObjectKind::Map);
    }
    if JsSet::from_object(object.js().clone()).is_ok() {
        return Ok(ObjectKind::Set);
    }
    if object.is::<Error>() {
        return Ok(ObjectKind::Error);
    }
    if object.is_array() {
        return Ok(ObjectKind::Array);
    }
    if object.is_callable() {
        return Ok(ObjectKind::Callable);
    }
    if object.is::<OrdinaryObject>() {
        return Ok(ObjectKind::Ordinary);
    }
    Ok(ObjectKind::Other)
}

/// A copy of `[[MapData]]`'s entries (no script runs).
pub fn map_entries(object: &Object) -> JsResult<Vec<(Value, Value)>> {
    let mut entries = Vec::new();
    if let Ok(map) = JsMap::from_object(object.js().clone()) {
        map.for_each_native(|k, v| {
            entries.push((k.into(), v.into()));
            Ok(())
        })?;
    }
    Ok(entries)
}

/// A copy of `[[SetData]]`'s entries (no script runs).
pub fn set_entries(object: &Object) -> JsResult<Vec<Value>> {
    let mut entries = Vec::new();
    if let Ok(set) = JsSet::from_object(object.js().clone()) {
        set.for_each_native(|v| {
            entries.push(v.into());
            Ok(())
        })?;
    }
    Ok(entries)
}

/// `! EnumerableOwnProperties(object, key)` for an ordinary or Array object (their
/// [[OwnPropertyKeys]] and [[GetOwnProperty]] run no script): the string keys, in order.
pub fn enumerable_own_keys(object: &Object, ctx: &mut Cx) -> JsResult<Vec<PropertyKey>> {
    let keys = object.own_property_keys(ctx)?;
    let borrowed = object.js().borrow();
    let properties = borrowed.properties();
    Ok(keys
        .into_iter()
        .filter(|key| !matches!(key.0, BoaKey::Symbol(_)))
        .filter(|key| {
            properties
                .get(&key.0)
                .is_some_and(|desc| desc.enumerable() == Some(true))
        })
        .collect())
}

/// `! OrdinaryGetOwnProperty(array, "length").[[Value]]`.
pub fn array_length(object: &Object, ctx: &mut Cx) -> JsResult<u32> {
    match JsArray::from_object(object.js().clone()) {
        Ok(array) => Ok(u32::try_from(array.length(ctx)?).unwrap_or(u32::MAX)),
        Err(_) => Ok(0),
    }
}

/// `! value.[[GetOwnProperty]]("message")`, if it is a data property: its value.
pub fn own_data_property(object: &Object, key: &PropertyKey) -> Option<Value> {
    let borrowed = object.js().borrow();
    let desc = borrowed.properties().get(&key.0)?;
    if desc.is_data_descriptor() {
        Some(desc.value().cloned().unwrap_or_default().into())
    } else {
        None
    }
}

/// `! object.[[GetOwnProperty]](key)`, if it is an accessor property: its getter.
pub fn own_accessor_getter(object: &Object, key: &PropertyKey) -> Option<Value> {
    let borrowed = object.js().borrow();
    let desc = borrowed.properties().get(&key.0)?;
    if desc.is_accessor_descriptor() {
        desc.get().cloned().map(Value::from)
    } else {
        None
    }
}

/// A property key from its string form (array indices become index keys).
pub fn property_key(string: JsString) -> PropertyKey {
    PropertyKey(BoaKey::from(string.0))
}

/// The string form of a property key.
pub fn property_key_string(key: &PropertyKey) -> JsString {
    match &key.0 {
        BoaKey::String(s) => JsString(s.clone()),
        BoaKey::Index(i) => JsString::from(i.get().to_string()),
        BoaKey::Symbol(_) => JsString::default(),
    }
}

// ---------------------------------------------------------------------------------------------
// Deserialization: new objects in the current realm (intrinsic constructors only).
// ---------------------------------------------------------------------------------------------

/// A new Boolean, Number, BigInt or String object wrapping `value` (ToObject).
pub fn new_primitive_wrapper(value: &Primitive, ctx: &mut Cx) -> JsResult<Object> {
    primitive_value(value).to_object(ctx)
}

/// A new `Date` with the given time value.
pub fn new_date(time: f64, ctx: &mut Cx) -> JsResult<Object> {
    let date = JsDate::new(ctx);
    date.set_time(time, ctx)?;
    Ok(Object::from_js(date))
}

/// A new `RegExp` from a source and flags that came from one.
pub fn new_regexp(source: JsString, flags: &str, ctx: &mut Cx) -> JsResult<Object> {
    let regexp = JsRegExp::new(
        JsValue::from(source),
        JsValue::from(JsString::from(flags)),
        ctx,
    )?;
    Ok(Object::from_js(regexp))
}

/// A new `ArrayBuffer` whose data block is `bytes` (moved, not copied).
pub fn new_array_buffer_from(bytes: ByteBlock, ctx: &mut Cx) -> JsResult<Object> {
    crate::engine::count_objects(1);
    super::buffer::note_buffer_bytes(bytes.len());
    Ok(Object::from_js(BoaArrayBuffer::from_byte_block(
        bytes.0, ctx,
    )?))
}

/// A new `Map`.
pub fn new_map(ctx: &mut Cx) -> Object {
    Object::from_js(JsMap::new(ctx))
}

/// Appends an entry to a new map's [[MapData]] (the intrinsic `set`, no lookup).
pub fn map_append(map: &Object, key: Value, value: Value, ctx: &mut Cx) -> JsResult<()> {
    if let Ok(map) = JsMap::from_object(map.js().clone()) {
        map.set(key, value, ctx)?;
    }
    Ok(())
}

/// A new `Set`.
pub fn new_set(ctx: &mut Cx) -> Object {
    Object::from_js(JsSet::new(ctx))
}

/// Appends a value to a new set's [[SetData]] (the intrinsic `add`, no lookup).
pub fn set_append(set: &Object, value: Value, ctx: &mut Cx) -> JsResult<()> {
    if let Ok(set) = JsSet::from_object(set.js().clone()) {
        set.add(value, ctx)?;
    }
    Ok(())
}

/// A new error object of the named type (one of [`ERROR_NAMES`]), with an own `message` data
/// property unless `message` is `None`.
pub fn new_error(name: &str, message: Option<JsString>, ctx: &mut Cx) -> JsResult<Object> {
    let c = ctx.intrinsics().constructors();
    let constructor = match name {
        "EvalError" => c.eval_error(),
        "RangeError" => c.range_error(),
        "ReferenceError" => c.reference_error(),
        "SyntaxError" => c.syntax_error(),
        "TypeError" => c.type_error(),
        "URIError" => c.uri_error(),
        _ => c.error(),
    }
    .constructor();
    let args: Vec<JsValue> = message.map(JsValue::from).into_iter().collect();
    constructor
        .construct(&args, None, ctx)
        .map(Object::from)
        .map_err(JsError::from)
}

/// `! ArrayCreate(length)`.
pub fn new_array(length: u32, ctx: &mut Cx) -> JsResult<Object> {
    let array: JsObject = JsArray::new(ctx)?.into();
    array.set(boa_engine::js_string!("length"), length, true, ctx)?;
    Ok(array.into())
}

/// `! OrdinaryObjectCreate(%Object.prototype%)`.
pub fn new_plain_object(ctx: &mut Cx) -> Object {
    JsObject::with_object_proto(ctx.intrinsics()).into()
}

/// A data block: the bytes of an `ArrayBuffer`, owned (it can move to another thread).
pub struct ByteBlock(AlignedVec<u8>);

impl std::fmt::Debug for ByteBlock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ByteBlock({} bytes)", self.0.len())
    }
}

impl ByteBlock {
    /// The bytes.
    pub fn as_slice(&self) -> &[u8] {
        &self.0
    }

    /// The bytes, as a vector of their own (a copy: the block's memory is aligned for the
    /// engine's buffers).
    pub fn into_vec(self) -> Vec<u8> {
        self.0.to_vec()
    }

    /// A copy of `bytes`.
    pub fn copy_of(bytes: &[u8]) -> Self {
        Self(AlignedVec::from_slice(0, bytes))
    }

    /// An empty block, to be grown with [`ByteBlock::extend_from_slice`] (what "read all
    /// bytes" builds a body in, so that the body's `ArrayBuffer` adopts it without a copy).
    pub fn new() -> Self {
        Self(AlignedVec::new(0))
    }

    /// An empty block with room for exactly `capacity` bytes, advised to use huge pages when
    /// it is large ([`crate::engine::huge_pages`]): what "read all bytes" copies a body into
    /// once its length is known.
    pub fn with_capacity(capacity: usize) -> Self {
        let mut block = AlignedVec::with_capacity(0, capacity);
        crate::engine::huge_pages::advise_huge_pages(block.as_mut_ptr(), block.capacity());
        Self(block)
    }

    /// Appends a copy of `bytes` (amortized growth, as a vector's).
    pub fn extend_from_slice(&mut self, bytes: &[u8]) {
        self.0.extend_from_slice(bytes);
    }

    /// A vector's bytes as a block (a copy: the block's memory is aligned for the engine's
    /// buffers).
    pub fn from_vec(bytes: Vec<u8>) -> Self {
        Self::copy_of(&bytes)
    }

    /// The number of bytes.
    pub fn len(&self) -> usize {
        self.0.len()
    }
}

impl Default for ByteBlock {
    fn default() -> Self {
        Self::new()
    }
}

/// A copy of the bytes of a buffer that is not detached.
pub fn copy_buffer_bytes(buffer: &JsArrayBuffer) -> Option<ByteBlock> {
    buffer.0.data().map(|data| ByteBlock::copy_of(&data))
}

/// `? DetachArrayBuffer(buffer)`, returning its data block (no copy).
pub fn detach_array_buffer(buffer: &JsArrayBuffer) -> JsResult<ByteBlock> {
    Ok(ByteBlock(buffer.0.detach(&JsValue::undefined())?))
}

/// The `ArrayBuffer` an object is, if it is one.
pub fn as_array_buffer(object: &Object) -> Option<JsArrayBuffer> {
    if object.is::<ArrayBuffer>() {
        BoaArrayBuffer::from_object(object.js().clone())
            .ok()
            .map(JsArrayBuffer)
    } else {
        None
    }
}

/// Whether `object` is a `SharedArrayBuffer`.
pub fn is_shared_array_buffer(object: &Object) -> bool {
    JsSharedArrayBuffer::from_object(object.js().clone()).is_ok()
}

/// A new frozen Array of `values` (a WebIDL `FrozenArray<T>` value).
pub fn frozen_array(values: Vec<Value>, ctx: &mut Cx) -> JsResult<Object> {
    let array = super::create_array_from_list(values, ctx);
    array
        .js()
        .set_integrity_level(boa_engine::object::IntegrityLevel::Frozen, ctx)?;
    Ok(array)
}
