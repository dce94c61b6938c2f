//! What HTML's structured serialization needs from the engine: which internal slots an object
//! has (read without running script), and the objects structured deserialization creates in the
//! current realm. The algorithm itself is in `crate::html::serialize`.
//!
//! <https://html.spec.whatwg.org/multipage/structured-data.html#structuredserializeinternal>
//!
//! Slots are read with QuickJS's class predicates and the built-ins captured when the realm was
//! set up (`Date.prototype.getTime`, the `RegExp` flag getters, the Map and Set iterators, ...),
//! called on the object: nothing a script could patch is consulted.

use std::ffi::{c_int, c_void};

use super::buffer::{
    buffer_data, call_intrinsic, class_ids, class_of, construct_intrinsic, current_cx,
    is_array_buffer, is_immutable, is_shared_buffer, view_slots,
};
use super::core::{check, check_status, q};
use super::*;
pub use crate::engine::kinds::{ObjectKind, Primitive, ViewedBuffer, ERROR_NAMES};

/// Intrinsics this file uses (name, expression), captured per realm.
pub(crate) const INTRINSICS: &[(&str, &str)] = &[
    ("Boolean.prototype.valueOf", "Boolean.prototype.valueOf"),
    ("Number.prototype.valueOf", "Number.prototype.valueOf"),
    ("String.prototype.valueOf", "String.prototype.valueOf"),
    ("BigInt.prototype.valueOf", "BigInt.prototype.valueOf"),
    ("BigInt", "BigInt"),
    ("Date.prototype.getTime", "Date.prototype.getTime"),
    ("RegExp", "RegExp"),
    (
        "RegExp.prototype.source",
        "Object.getOwnPropertyDescriptor(RegExp.prototype, 'source').get",
    ),
    (
        "RegExp.prototype.hasIndices",
        "Object.getOwnPropertyDescriptor(RegExp.prototype, 'hasIndices').get",
    ),
    (
        "RegExp.prototype.global",
        "Object.getOwnPropertyDescriptor(RegExp.prototype, 'global').get",
    ),
    (
        "RegExp.prototype.ignoreCase",
        "Object.getOwnPropertyDescriptor(RegExp.prototype, 'ignoreCase').get",
    ),
    (
        "RegExp.prototype.multiline",
        "Object.getOwnPropertyDescriptor(RegExp.prototype, 'multiline').get",
    ),
    (
        "RegExp.prototype.dotAll",
        "Object.getOwnPropertyDescriptor(RegExp.prototype, 'dotAll').get",
    ),
    (
        "RegExp.prototype.unicode",
        "Object.getOwnPropertyDescriptor(RegExp.prototype, 'unicode').get",
    ),
    (
        "RegExp.prototype.unicodeSets",
        "(Object.getOwnPropertyDescriptor(RegExp.prototype, 'unicodeSets') || {}).get",
    ),
    (
        "RegExp.prototype.sticky",
        "Object.getOwnPropertyDescriptor(RegExp.prototype, 'sticky').get",
    ),
    ("Map", "Map"),
    ("Map.prototype.entries", "Map.prototype.entries"),
    (
        "MapIteratorPrototype.next",
        "Object.getPrototypeOf(new Map().entries()).next",
    ),
    ("Map.prototype.set", "Map.prototype.set"),
    ("Set", "Set"),
    ("Set.prototype.values", "Set.prototype.values"),
    (
        "SetIteratorPrototype.next",
        "Object.getPrototypeOf(new Set().values()).next",
    ),
    ("Set.prototype.add", "Set.prototype.add"),
    ("Error", "Error"),
    ("EvalError", "EvalError"),
    ("RangeError", "RangeError"),
    ("ReferenceError", "ReferenceError"),
    ("SyntaxError", "SyntaxError"),
    ("TypeError", "TypeError"),
    ("URIError", "URIError"),
];

/// The primitive `value` is, or `None` for an object.
pub fn primitive(value: &Value) -> Option<Primitive> {
    let raw = value.raw();
    // SAFETY: reading tags and payloads of a live value.
    unsafe {
        if q::JS_IsString(raw) {
            return Some(Primitive::String(JsString::from_string_value(value)));
        }
        if q::JS_IsBigInt(raw) {
            return Some(Primitive::BigInt(big_int_digits(value)));
        }
        if q::JS_IsSymbol(raw) {
            return Some(Primitive::Symbol);
        }
        if q::JS_IsObject(raw) {
            return None;
        }
    }
    Some(if value.is_undefined() {
        Primitive::Undefined
    } else if value.is_null() {
        Primitive::Null
    } else if let Some(b) = value.as_boolean() {
        Primitive::Boolean(b)
    } else if let Some(n) = value.as_number() {
        Primitive::Number(n)
    } else {
        // No other primitive reaches script.
        Primitive::Undefined
    })
}

/// A BigInt's decimal digits (ToString of a BigInt runs no script).
fn big_int_digits(value: &Value) -> String {
    let Some(mut cx) = current_cx() else {
        return "0".into();
    };
    match value.to_string(&mut cx) {
        Ok(s) => s.to_std_string_lossy(),
        Err(e) => {
            drop(e);
            "0".into()
        }
    }
}

/// The value of a primitive (a BigInt that does not parse is 0n; the serializer wrote it).
pub fn primitive_value(primitive: &Primitive) -> Value {
    match primitive {
        Primitive::Undefined | Primitive::Symbol => Value::undefined(),
        Primitive::Null => Value::null(),
        Primitive::Boolean(b) => Value::from(*b),
        Primitive::Number(n) => Value::from(*n),
        Primitive::BigInt(digits) => {
            let Some(mut cx) = current_cx() else {
                return Value::undefined();
            };
            // `%BigInt%(string)` is StringToBigInt: no script runs.
            let text = new_string_value(&mut cx, digits);
            match call_intrinsic(&mut cx, "BigInt", &Value::undefined(), &[text]) {
                Ok(v) => v,
                Err(e) => {
                    drop(e);
                    // SAFETY: a live context; a BigInt zero.
                    let raw = unsafe { q::JS_NewBigInt64(cx.raw(), 0) };
                    check(&mut cx, raw).unwrap_or_default()
                }
            }
        }
        Primitive::String(s) => Value::from(s.clone()),
    }
}

/// A Rust string as a JS string value of `cx`.
fn new_string_value(cx: &mut Cx, s: &str) -> Value {
    JsString::from(s).to_value_in(cx)
}

/// The flags of a RegExp, from the individual flag getters (which read [[OriginalFlags]]; the
/// `flags` getter would read properties, observably), in canonical order.
fn regexp_flags(regexp: &Value, ctx: &mut Cx) -> JsResult<String> {
    let checks: [(char, &str); 8] = [
        ('d', "RegExp.prototype.hasIndices"),
        ('g', "RegExp.prototype.global"),
        ('i', "RegExp.prototype.ignoreCase"),
        ('m', "RegExp.prototype.multiline"),
        ('s', "RegExp.prototype.dotAll"),
        ('u', "RegExp.prototype.unicode"),
        ('v', "RegExp.prototype.unicodeSets"),
        ('y', "RegExp.prototype.sticky"),
    ];
    let mut flags = String::new();
    for (flag, getter) in checks {
        if !ctx.realm_state().intrinsic(getter).is_object() {
            continue;
        }
        if call_intrinsic(ctx, getter, regexp, &[])?.to_boolean() {
            flags.push(flag);
        }
    }
    Ok(flags)
}

/// The `[[ViewedArrayBuffer]]` of a view, as serialization sees it.
fn viewed_buffer(ctx: &mut Cx, buffer: Value) -> ViewedBuffer {
    if is_array_buffer(&buffer) {
        ViewedBuffer::Buffer(JsArrayBuffer(Object::from_value_unchecked(buffer)))
    } else {
        let _ = ctx;
        ViewedBuffer::Shared
    }
}

/// Classifies `object` by its internal slots. Runs no script (slot reads only).
pub fn object_kind(object: &Object, ctx: &mut Cx) -> JsResult<ObjectKind> {
    let value = object.as_value();
    let ids = class_ids(ctx);
    let class = class_of(value);
    if class == ids.boolean {
        let b = call_intrinsic(ctx, "Boolean.prototype.valueOf", value, &[])?;
        return Ok(ObjectKind::Boolean(b.as_boolean().unwrap_or(false)));
    }
    if class == ids.number {
        let n = call_intrinsic(ctx, "Number.prototype.valueOf", value, &[])?;
        return Ok(ObjectKind::Number(n.as_number().unwrap_or(f64::NAN)));
    }
    if class == ids.big_int {
        let b = call_intrinsic(ctx, "BigInt.prototype.valueOf", value, &[])?;
        return Ok(ObjectKind::BigInt(big_int_digits(&b)));
    }
    if class == ids.string {
        let s = call_intrinsic(ctx, "String.prototype.valueOf", value, &[])?;
        // SAFETY: reading a tag.
        let s = if unsafe { q::JS_IsString(s.raw()) } {
            JsString::from_string_value(&s)
        } else {
            JsString::default()
        };
        return Ok(ObjectKind::String(s));
    }
    if class == ids.symbol {
        return Ok(ObjectKind::Symbol);
    }
    // SAFETY (the predicates below): reading the class of a live object.
    if unsafe { q::JS_IsDate(value.raw()) } {
        let time = call_intrinsic(ctx, "Date.prototype.getTime", value, &[])?;
        return Ok(ObjectKind::Date(time.as_number().unwrap_or(f64::NAN)));
    }
    // SAFETY: as above.
    if unsafe { q::JS_IsRegExp(value.raw()) } {
        let source = call_intrinsic(ctx, "RegExp.prototype.source", value, &[])?;
        let source = source.to_string(ctx)?;
        let flags = regexp_flags(value, ctx)?;
        return Ok(ObjectKind::RegExp { source, flags });
    }
    if is_array_buffer(value) {
        return Ok(ObjectKind::ArrayBuffer(JsArrayBuffer(object.clone())));
    }
    if is_shared_buffer(ctx, value) {
        return Ok(ObjectKind::SharedArrayBuffer);
    }
    if let Some(slots) = view_slots(ctx, value) {
        let element_size = slots.kind.element_size();
        let buffer = viewed_buffer(ctx, slots.buffer);
        return Ok(ObjectKind::View {
            kind: slots.kind,
            buffer,
            byte_offset: slots.byte_offset,
            array_length: slots.byte_length / element_size,
        });
    }
    // SAFETY: as above.
    if unsafe { q::JS_IsMap(value.raw()) } {
        return Ok(ObjectKind::Map);
    }
    // SAFETY: as above.
    if unsafe { q::JS_IsSet(value.raw()) } {
        return Ok(ObjectKind::Set);
    }
    // SAFETY: as above.
    if unsafe { q::JS_IsError(value.raw()) } {
        return Ok(ObjectKind::Error);
    }
    if object.is_array() {
        return Ok(ObjectKind::Array);
    }
    if object.is_callable() {
        return Ok(ObjectKind::Callable);
    }
    if class == ids.object {
        return Ok(ObjectKind::Ordinary);
    }
    Ok(ObjectKind::Other)
}

/// Drains a built-in iterator with its captured `next` (no script runs: the iterator and its
/// result objects are the built-ins' own), collecting each result's `value`.
fn drain_iterator(cx: &mut Cx, iterator: &Value, next: &str) -> JsResult<Vec<Value>> {
    let next = cx.realm_state().intrinsic(next);
    let mut values = Vec::new();
    loop {
        let result = call(&next, iterator, &[], cx)?;
        let Some(result) = result.as_object() else {
            break;
        };
        if result.get("done", cx)?.to_boolean() {
            break;
        }
        values.push(result.get("value", cx)?);
    }
    Ok(values)
}

/// A copy of `[[MapData]]`'s entries (no script runs).
pub fn map_entries(object: &Object) -> JsResult<Vec<(Value, Value)>> {
    // SAFETY: reading the class of a live object.
    if !unsafe { q::JS_IsMap(object.raw()) } {
        return Ok(Vec::new());
    }
    let Some(mut cx) = current_cx() else {
        return Ok(Vec::new());
    };
    let iterator = call_intrinsic(&mut cx, "Map.prototype.entries", object.as_value(), &[])?;
    let pairs = drain_iterator(&mut cx, &iterator, "MapIteratorPrototype.next")?;
    let mut entries = Vec::with_capacity(pairs.len());
    for pair in pairs {
        // Each pair is a new Array [key, value] the iterator made: own elements.
        let Some(pair) = pair.as_object() else {
            continue;
        };
        // SAFETY: a live context and array; the element references are ours.
        let (key, value) = unsafe {
            (
                q::JS_GetPropertyUint32(cx.raw(), pair.raw(), 0),
                q::JS_GetPropertyUint32(cx.raw(), pair.raw(), 1),
            )
        };
        let key = check(&mut cx, key);
        let value = check(&mut cx, value);
        entries.push((key?, value?));
    }
    Ok(entries)
}

/// A copy of `[[SetData]]`'s entries (no script runs).
pub fn set_entries(object: &Object) -> JsResult<Vec<Value>> {
    // SAFETY: reading the class of a live object.
    if !unsafe { q::JS_IsSet(object.raw()) } {
        return Ok(Vec::new());
    }
    let Some(mut cx) = current_cx() else {
        return Ok(Vec::new());
    };
    let iterator = call_intrinsic(&mut cx, "Set.prototype.values", object.as_value(), &[])?;
    drain_iterator(&mut cx, &iterator, "SetIteratorPrototype.next")
}

/// `! EnumerableOwnProperties(object, key)` for an ordinary or Array object (their
/// [[OwnPropertyKeys]] and [[GetOwnProperty]] run no script): the string keys, in order.
pub fn enumerable_own_keys(object: &Object, ctx: &mut Cx) -> JsResult<Vec<PropertyKey>> {
    let keys = object.own_property_keys(ctx)?;
    let mut out = Vec::with_capacity(keys.len());
    for key in keys {
        if matches!(key, PropertyKey::Symbol(_)) {
            continue;
        }
        if object.own_property_enumerable(key.clone(), ctx)? == Some(true) {
            out.push(key);
        }
    }
    Ok(out)
}

/// `! OrdinaryGetOwnProperty(array, "length").[[Value]]`.
pub fn array_length(object: &Object, ctx: &mut Cx) -> JsResult<u32> {
    if !object.is_array() {
        return Ok(0);
    }
    let mut length: i64 = 0;
    // SAFETY: a live context and Array (its `length` is an own data property: no script).
    let status = unsafe { q::JS_GetLength(ctx.raw(), object.raw(), &mut length) };
    check_status(ctx, status)?;
    Ok(u32::try_from(length).unwrap_or(u32::MAX))
}

/// `object.[[GetOwnProperty]](key)` read directly (never a proxy's trap): `Some((is_accessor,
/// value or getter))`.
fn own_property(object: &Object, key: &PropertyKey) -> Option<(bool, Value)> {
    // SAFETY: reading the class of a live object.
    if unsafe { q::JS_IsProxy(object.raw()) } {
        return None;
    }
    let mut cx = current_cx()?;
    let atom = super::core::atom(&mut cx, key).ok()?;
    let mut desc = std::mem::MaybeUninit::<q::JSPropertyDescriptor>::zeroed();
    // SAFETY: a live context, object and atom (freed here); the descriptor's values are ours
    // when the property is found.
    let status = unsafe {
        let s = q::JS_GetOwnProperty(cx.raw(), desc.as_mut_ptr(), object.raw(), atom);
        q::JS_FreeAtom(cx.raw(), atom);
        s
    };
    match check_status(&mut cx, status) {
        Ok(0) => return None,
        Ok(_) => {}
        Err(e) => {
            drop(e);
            return None;
        }
    }
    // SAFETY: filled in by a successful JS_GetOwnProperty.
    let desc = unsafe { desc.assume_init() };
    let rt = cx.rt();
    let (value, getter, setter) = (
        Value::from_raw(rt, desc.value),
        Value::from_raw(rt, desc.getter),
        Value::from_raw(rt, desc.setter),
    );
    drop(setter);
    if desc.flags & q::JS_PROP_GETSET as c_int != 0 {
        Some((true, getter))
    } else {
        Some((false, value))
    }
}

/// `! value.[[GetOwnProperty]](key)`, if it is a data property: its value.
pub fn own_data_property(object: &Object, key: &PropertyKey) -> Option<Value> {
    match own_property(object, key)? {
        (false, value) => Some(value),
        (true, _) => None,
    }
}

/// `! object.[[GetOwnProperty]](key)`, if it is an accessor property: its getter.
pub fn own_accessor_getter(object: &Object, key: &PropertyKey) -> Option<Value> {
    match own_property(object, key)? {
        (true, getter) if !getter.is_undefined() => Some(getter),
        _ => None,
    }
}

/// A property key from its string form (array indices become index keys).
pub fn property_key(string: JsString) -> PropertyKey {
    PropertyKey::String(string)
}

/// The string form of a property key.
pub fn property_key_string(key: &PropertyKey) -> JsString {
    match key {
        PropertyKey::String(s) => s.clone(),
        PropertyKey::Symbol(_) => JsString::default(),
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
    // SAFETY: a live context; the new object is ours. (JS_NewDate applies TimeClip.)
    let raw = unsafe { q::JS_NewDate(ctx.raw(), time) };
    Ok(Object::from_value_unchecked(check(ctx, raw)?))
}

/// A new `RegExp` from a source and flags that came from one.
pub fn new_regexp(source: JsString, flags: &str, ctx: &mut Cx) -> JsResult<Object> {
    let source = source.to_value_in(ctx);
    let flags = new_string_value(ctx, flags);
    let regexp = construct_intrinsic(ctx, "RegExp", &[source, flags])?;
    Ok(Object::from_value_unchecked(regexp))
}

/// The realloc function of a buffer whose data block is a [`ByteBlock`]'s: `opaque` is the
/// boxed `Vec<u8>` that owns the block (freed when `size` is 0).
unsafe extern "C" fn byte_block_realloc(
    _rt: *mut q::JSRuntime,
    opaque: *mut c_void,
    _ptr: *mut c_void,
    size: q::size_t,
) -> *mut c_void {
    let vec = opaque.cast::<Vec<u8>>();
    if vec.is_null() {
        return std::ptr::null_mut();
    }
    if size == 0 {
        drop(Box::from_raw(vec));
        return std::ptr::null_mut();
    }
    let Ok(size) = usize::try_from(size) else {
        return std::ptr::null_mut();
    };
    let block = &mut *vec;
    if size > block.len() {
        if block.try_reserve_exact(size - block.len()).is_err() {
            // Out of memory: the block stays as it was.
            return std::ptr::null_mut();
        }
        block.resize(size, 0);
    } else {
        block.truncate(size);
    }
    block.as_mut_ptr().cast()
}

/// A new `ArrayBuffer` whose data block is `bytes` (moved, not copied).
pub fn new_array_buffer_from(bytes: ByteBlock, ctx: &mut Cx) -> JsResult<Object> {
    crate::engine::count_objects(1);
    let mut block = bytes.0;
    if block.is_empty() {
        // SAFETY: a live context; no bytes are read.
        let raw = unsafe { q::JS_NewArrayBufferCopy(ctx.raw(), std::ptr::null(), 0) };
        return Ok(Object::from_value_unchecked(check(ctx, raw)?));
    }
    let (data, len) = (block.as_mut_ptr(), block.len());
    let owner = Box::into_raw(Box::new(block));
    // SAFETY: a live context; the buffer owns `owner` (its realloc function frees it, also
    // when the buffer is detached or finalized); `data` is the vector's heap block, which does
    // not move when the box does.
    let raw = unsafe {
        q::JS_NewArrayBuffer(
            ctx.raw(),
            data,
            len as q::size_t,
            0,
            Some(byte_block_realloc),
            owner.cast(),
            false,
        )
    };
    // SAFETY: reading a tag.
    if unsafe { q::JS_IsException(raw) } {
        // Not created: the block is still ours.
        // SAFETY: `owner` came from `Box::into_raw` above and was not taken.
        drop(unsafe { Box::from_raw(owner) });
    }
    Ok(Object::from_value_unchecked(check(ctx, raw)?))
}

/// A new `Map`.
pub fn new_map(ctx: &mut Cx) -> Object {
    Object::from_value_unchecked(construct_intrinsic(ctx, "Map", &[]).unwrap_or_default())
}

/// Appends an entry to a new map's [[MapData]] (the intrinsic `set`, no lookup).
pub fn map_append(map: &Object, key: Value, value: Value, ctx: &mut Cx) -> JsResult<()> {
    call_intrinsic(ctx, "Map.prototype.set", map.as_value(), &[key, value]).map(drop)
}

/// A new `Set`.
pub fn new_set(ctx: &mut Cx) -> Object {
    Object::from_value_unchecked(construct_intrinsic(ctx, "Set", &[]).unwrap_or_default())
}

/// Appends a value to a new set's [[SetData]] (the intrinsic `add`, no lookup).
pub fn set_append(set: &Object, value: Value, ctx: &mut Cx) -> JsResult<()> {
    call_intrinsic(ctx, "Set.prototype.add", set.as_value(), &[value]).map(drop)
}

/// A new error object of the named type (one of [`ERROR_NAMES`]), with an own `message` data
/// property unless `message` is `None`.
pub fn new_error(name: &str, message: Option<JsString>, ctx: &mut Cx) -> JsResult<Object> {
    let constructor = match name {
        "EvalError" | "RangeError" | "ReferenceError" | "SyntaxError" | "TypeError"
        | "URIError" => name,
        _ => "Error",
    };
    let args: Vec<Value> = message.map(|m| m.to_value_in(ctx)).into_iter().collect();
    let error = construct_intrinsic(ctx, constructor, &args)?;
    Ok(Object::from_value_unchecked(error))
}

/// `! ArrayCreate(length)`.
pub fn new_array(length: u32, ctx: &mut Cx) -> JsResult<Object> {
    // SAFETY: a live context.
    let raw = unsafe { q::JS_NewArray(ctx.raw()) };
    let array = check(ctx, raw)?;
    // SAFETY: a live context and new Array (its `length` is an own data property).
    let status = unsafe { q::JS_SetLength(ctx.raw(), array.raw(), i64::from(length)) };
    check_status(ctx, status)?;
    Ok(Object::from_value_unchecked(array))
}

/// `! OrdinaryObjectCreate(%Object.prototype%)`.
pub fn new_plain_object(ctx: &mut Cx) -> Object {
    // SAFETY: a live context.
    let raw = unsafe { q::JS_NewObject(ctx.raw()) };
    Object::from_value_unchecked(check(ctx, raw).unwrap_or_default())
}

/// A data block: the bytes of an `ArrayBuffer`, owned (it can move to another thread).
pub struct ByteBlock(Vec<u8>);

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

    /// The bytes, as a vector of their own (no copy).
    pub fn into_vec(self) -> Vec<u8> {
        self.0
    }

    /// A copy of `bytes`.
    pub fn copy_of(bytes: &[u8]) -> Self {
        Self(bytes.to_vec())
    }
}

/// A copy of the bytes of a buffer that is not detached.
pub fn copy_buffer_bytes(buffer: &JsArrayBuffer) -> Option<ByteBlock> {
    let mut cx = current_cx()?;
    let (data, len) = buffer_data(&mut cx, buffer.0.as_value())?;
    // SAFETY: `len` bytes of the live block; no script runs during the copy.
    Some(ByteBlock::copy_of(unsafe {
        std::slice::from_raw_parts(data, len)
    }))
}

/// `? DetachArrayBuffer(buffer)`, returning its data block (one copy: QuickJS frees the block
/// of a buffer it allocated when detaching it).
pub fn detach_array_buffer(buffer: &JsArrayBuffer) -> JsResult<ByteBlock> {
    let value = buffer.0.as_value();
    if !is_array_buffer(value) {
        return Err(throw_type_error("Cannot detach a SharedArrayBuffer"));
    }
    if is_immutable(value) {
        return Err(throw_type_error("Cannot detach an immutable ArrayBuffer"));
    }
    let mut cx = current_cx().ok_or_else(|| throw_type_error("No current realm"))?;
    let Some((data, len)) = buffer_data(&mut cx, value) else {
        return Err(throw_type_error("ArrayBuffer was already detached"));
    };
    // SAFETY: `len` bytes of the live block, copied before it is freed.
    let block = ByteBlock::copy_of(unsafe { std::slice::from_raw_parts(data, len) });
    // SAFETY: a live context and ArrayBuffer.
    unsafe { q::JS_DetachArrayBuffer(cx.raw(), value.raw()) };
    Ok(block)
}

/// The `ArrayBuffer` an object is, if it is one.
pub fn as_array_buffer(object: &Object) -> Option<JsArrayBuffer> {
    is_array_buffer(object.as_value()).then(|| JsArrayBuffer(object.clone()))
}

/// Whether `object` is a `SharedArrayBuffer`.
pub fn is_shared_array_buffer(object: &Object) -> bool {
    current_cx().is_some_and(|cx| is_shared_buffer(&cx, object.as_value()))
}

/// A new frozen Array of `values` (a WebIDL `FrozenArray<T>` value).
pub fn frozen_array(values: Vec<Value>, ctx: &mut Cx) -> JsResult<Object> {
    let array = create_array_from_list(values, ctx);
    // SAFETY: a live context and new Array (freezing it runs no script).
    let status = unsafe { q::JS_FreezeObject(ctx.raw(), array.raw()) };
    check_status(ctx, status)?;
    Ok(array)
}
