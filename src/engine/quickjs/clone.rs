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
use super::intrinsics::Intrinsic;
use super::*;
pub use crate::engine::kinds::{ObjectKind, Primitive, ViewedBuffer, ERROR_NAMES};

/// The primitive `value` is, or `None` for an object.
pub fn primitive(value: &Value) -> Option<Primitive> {
    let raw = value.raw();
    // SAFETY: the four predicates (rquickjs-sys's inline functions) read the tag field only,
    // which every `JSValue` has initialized.
    let (string, big_int, symbol, object) = unsafe {
        (
            q::JS_IsString(raw),
            q::JS_IsBigInt(raw),
            q::JS_IsSymbol(raw),
            q::JS_IsObject(raw),
        )
    };
    if string {
        return Some(Primitive::String(JsString::from_string_value(value)));
    }
    if big_int {
        return Some(Primitive::BigInt(big_int_digits(value)));
    }
    if symbol {
        return Some(Primitive::Symbol);
    }
    if object {
        return None;
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
            match call_intrinsic(&mut cx, Intrinsic::BigInt, &Value::undefined(), &[text]) {
                Ok(v) => v,
                Err(e) => {
                    drop(e);
                    // SAFETY: `cx`'s context is live (`Cx`'s invariant). 0 is a short BigInt,
                    // which QuickJS makes without allocating; the result is owned (no count),
                    // or `JS_EXCEPTION`, as `check` takes it.
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
    let checks: [(char, Intrinsic); 8] = [
        ('d', Intrinsic::RegExpPrototypeHasIndices),
        ('g', Intrinsic::RegExpPrototypeGlobal),
        ('i', Intrinsic::RegExpPrototypeIgnoreCase),
        ('m', Intrinsic::RegExpPrototypeMultiline),
        ('s', Intrinsic::RegExpPrototypeDotAll),
        ('u', Intrinsic::RegExpPrototypeUnicode),
        ('v', Intrinsic::RegExpPrototypeUnicodeSets),
        ('y', Intrinsic::RegExpPrototypeSticky),
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
        let b = call_intrinsic(ctx, Intrinsic::BooleanPrototypeValueOf, value, &[])?;
        return Ok(ObjectKind::Boolean(b.as_boolean().unwrap_or(false)));
    }
    if class == ids.number {
        let n = call_intrinsic(ctx, Intrinsic::NumberPrototypeValueOf, value, &[])?;
        return Ok(ObjectKind::Number(n.as_number().unwrap_or(f64::NAN)));
    }
    if class == ids.big_int {
        let b = call_intrinsic(ctx, Intrinsic::BigIntPrototypeValueOf, value, &[])?;
        return Ok(ObjectKind::BigInt(big_int_digits(&b)));
    }
    if class == ids.string {
        let s = call_intrinsic(ctx, Intrinsic::StringPrototypeValueOf, value, &[])?;
        // SAFETY: `JS_IsString` reads the tag field only, which every `JSValue` has
        // initialized.
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
    // SAFETY: `value` owns a count of its `JSValue` (`Value`'s invariant), so an object is
    // allocated; `JS_IsDate` reads the tag and, for an object, its class id.
    if unsafe { q::JS_IsDate(value.raw()) } {
        let time = call_intrinsic(ctx, Intrinsic::DatePrototypeGetTime, value, &[])?;
        return Ok(ObjectKind::Date(time.as_number().unwrap_or(f64::NAN)));
    }
    // SAFETY: as for `JS_IsDate` above: the tag, and a live object's class id, are read.
    if unsafe { q::JS_IsRegExp(value.raw()) } {
        let source = call_intrinsic(ctx, Intrinsic::RegExpPrototypeSource, value, &[])?;
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
            out_of_bounds: slots.out_of_bounds,
        });
    }
    // SAFETY: as for `JS_IsDate` above: the tag, and a live object's class id, are read.
    if unsafe { q::JS_IsMap(value.raw()) } {
        return Ok(ObjectKind::Map);
    }
    // SAFETY: as for `JS_IsDate` above: the tag, and a live object's class id, are read.
    if unsafe { q::JS_IsSet(value.raw()) } {
        return Ok(ObjectKind::Set);
    }
    // SAFETY: as for `JS_IsDate` above: the tag, and a live object's class id, are read.
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
fn drain_iterator(cx: &mut Cx, iterator: &Value, next: Intrinsic) -> JsResult<Vec<Value>> {
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
    // SAFETY: `object` owns a count of its value (`Value`'s invariant), so an object is
    // allocated; `JS_IsMap` reads the tag and, for an object, its class id.
    if !unsafe { q::JS_IsMap(object.raw()) } {
        return Ok(Vec::new());
    }
    let Some(mut cx) = current_cx() else {
        return Ok(Vec::new());
    };
    let iterator = call_intrinsic(
        &mut cx,
        Intrinsic::MapPrototypeEntries,
        object.as_value(),
        &[],
    )?;
    let pairs = drain_iterator(&mut cx, &iterator, Intrinsic::MapIteratorPrototypeNext)?;
    let mut entries = Vec::with_capacity(pairs.len());
    for pair in pairs {
        // Each pair is a new Array [key, value] the iterator made: own elements.
        let Some(pair) = pair.as_object() else {
            continue;
        };
        // SAFETY: `cx`'s context is live (`Cx`'s invariant) and `pair` a live object of its
        // runtime (`Value`'s invariant), borrowed for both calls: a fresh Array the iterator
        // made, whose elements 0 and 1 are own data properties, so no script runs. Each result
        // is owned, or `JS_EXCEPTION`, as `check` takes it.
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
    // SAFETY: `object` owns a count of its value (`Value`'s invariant), so an object is
    // allocated; `JS_IsSet` reads the tag and, for an object, its class id.
    if !unsafe { q::JS_IsSet(object.raw()) } {
        return Ok(Vec::new());
    }
    let Some(mut cx) = current_cx() else {
        return Ok(Vec::new());
    };
    let iterator = call_intrinsic(
        &mut cx,
        Intrinsic::SetPrototypeValues,
        object.as_value(),
        &[],
    )?;
    drain_iterator(&mut cx, &iterator, Intrinsic::SetIteratorPrototypeNext)
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
    // SAFETY: `ctx`'s context is live (`Cx`'s invariant) and `object` a live Array of its
    // runtime (`Value`'s invariant), borrowed; its `length` is an own data property, so no
    // script runs. `length` is a valid `int64_t` for QuickJS to write.
    let status = unsafe { q::JS_GetLength(ctx.raw(), object.raw(), &mut length) };
    check_status(ctx, status)?;
    Ok(u32::try_from(length).unwrap_or(u32::MAX))
}

/// `object.[[GetOwnProperty]](key)` read directly (never a proxy's trap): `Some((is_accessor,
/// value or getter))`.
fn own_property(object: &Object, key: &PropertyKey) -> Option<(bool, Value)> {
    // SAFETY: `object` owns a count of its value (`Value`'s invariant), so an object is
    // allocated; `JS_IsProxy` reads the tag and, for an object, its class id.
    if unsafe { q::JS_IsProxy(object.raw()) } {
        return None;
    }
    let mut cx = current_cx()?;
    let atom = super::core::atom(&mut cx, key).ok()?;
    let mut desc = std::mem::MaybeUninit::<q::JSPropertyDescriptor>::zeroed();
    // SAFETY: `cx`'s context is live (`Cx`'s invariant); `object` is a live value of its
    // runtime (`Value`'s invariant), borrowed, not a proxy (so no trap runs), and `atom` a
    // live atom we own. `desc` is valid for writes of one descriptor, which QuickJS fills in
    // only when it finds the property.
    let status = unsafe { q::JS_GetOwnProperty(cx.raw(), desc.as_mut_ptr(), object.raw(), atom) };
    // SAFETY: `cx` is live; `atom` is ours (from `atom` above), given back once.
    unsafe { q::JS_FreeAtom(cx.raw(), atom) };
    match check_status(&mut cx, status) {
        Ok(0) => return None,
        Ok(_) => {}
        Err(e) => {
            drop(e);
            return None;
        }
    }
    // SAFETY: the descriptor was zeroed, and all-zero bytes are a valid
    // `JSPropertyDescriptor` (flags 0, three `JSValue`s with tag 0, `JS_TAG_INT`, and an
    // initialized payload); QuickJS wrote whole fields over that (all four for a found
    // property, in `JS_GetOwnPropertyInternal2`).
    let desc = unsafe { desc.assume_init() };
    let rt = cx.rt();
    // The three values are owned by us (QuickJS dups what it writes; `undefined` and a zeroed
    // field have no count): `Value::from_raw`'s contract.
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
    // SAFETY: `ctx`'s context is live (`Cx`'s invariant). The result is owned, or
    // `JS_EXCEPTION`, as `check` takes it. (`JS_NewDate` applies TimeClip.)
    let raw = unsafe { q::JS_NewDate(ctx.raw(), time) };
    Ok(Object::from_value_unchecked(check(ctx, raw)?))
}

/// A new `RegExp` from a source and flags that came from one.
pub fn new_regexp(source: JsString, flags: &str, ctx: &mut Cx) -> JsResult<Object> {
    let source = source.to_value_in(ctx);
    let flags = new_string_value(ctx, flags);
    let regexp = construct_intrinsic(ctx, Intrinsic::RegExp, &[source, flags])?;
    Ok(Object::from_value_unchecked(regexp))
}

/// The realloc function (`JSReallocArrayBufferDataFunc`) of a buffer whose data block is a
/// [`ByteBlock`]'s: `opaque` is the boxed `Vec<u8>` that owns the block. With `size` 0 it
/// frees the box and returns null; otherwise it resizes the vector to `size` bytes (new bytes
/// zeroed) and returns its block, or returns null, the block left as it was, when the memory
/// cannot be had.
///
/// # Safety
/// Only QuickJS calls it: [`new_array_buffer_from`] gives it to `JS_NewArrayBuffer` as the
/// realloc function of a fixed-length (`max_len` 0), unshared buffer whose data is the
/// vector's block. QuickJS calls it (quickjs.c) from `JS_DetachArrayBuffer` and the
/// ArrayBuffer finalizer with `size` 0, and from `transfer` / `transferToFixedLength` with a
/// new length (1 to 2^31 - 1: a length of 0 detaches instead, a larger one throws first);
/// never from `resize`, as the buffer is not resizable. It guarantees on entry:
/// - it runs on the thread running the runtime `_rt` (the finalizer possibly mid-collection
///   or in `JS_FreeRuntime`), and calls nothing back into the engine meanwhile;
/// - `opaque` is the pointer `Box::into_raw` made in `new_array_buffer_from`, of a live
///   `Box<Vec<u8>>` owned by exactly one buffer: a transfer moves it to the new buffer and
///   clears it in the old one, and a detach clears it after the call with `size` 0, so it is
///   never passed again after that call;
/// - `_ptr` is the buffer's data pointer, which is always the vector's block (the one the
///   buffer was made with, then each one this function returned), so the vector alone is used.
///
/// The crate keeps no reference to a vector once it is boxed, so the function has the only
/// one. It must return null after freeing, the resized block, or null on failure with the old
/// block still valid (QuickJS then keeps the buffer's size). A panic cannot unwind out of an
/// `extern "C"` function (it aborts); nothing here panics but on allocation failure, which
/// aborts anyway.
unsafe extern "C" fn byte_block_realloc(
    _rt: *mut q::JSRuntime,
    opaque: *mut c_void,
    _ptr: *mut c_void,
    size: q::size_t,
) -> *mut c_void {
    let vec = opaque.cast::<Vec<u8>>();
    if vec.is_null() {
        // Not reached (QuickJS passes the opaque it was given); nothing to free or resize.
        return std::ptr::null_mut();
    }
    if size == 0 {
        // SAFETY: `vec` is the live box `new_array_buffer_from` leaked, owned by the buffer
        // that is being detached or finalized, which never passes it again (QuickJS's
        // guarantee on entry): it is freed exactly once, and no reference to the vector is
        // live (the function has the only one, and made none yet).
        let block = *unsafe { Box::from_raw(vec) };
        keep_spare_block(block);
        return std::ptr::null_mut();
    }
    let Ok(size) = usize::try_from(size) else {
        return std::ptr::null_mut();
    };
    // SAFETY: `vec` is the live box (QuickJS's guarantee on entry), a valid, aligned
    // `Vec<u8>`, and nothing else references the vector during the call (the crate keeps no
    // reference to it, and QuickJS calls nothing back): a unique borrow for this call.
    let block = unsafe { &mut *vec };
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
        // SAFETY: `ctx`'s context is live (`Cx`'s invariant); with a null source and a length
        // of 0, QuickJS reads nothing. The result is owned, or `JS_EXCEPTION`.
        let raw = unsafe { q::JS_NewArrayBufferCopy(ctx.raw(), std::ptr::null(), 0) };
        return Ok(Object::from_value_unchecked(check(ctx, raw)?));
    }
    let (data, len) = (block.as_mut_ptr(), block.len());
    // Moving the vector into the box moves its header only: `data` stays its block.
    let owner = Box::into_raw(Box::new(block));
    // SAFETY: `ctx`'s context is live (`Cx`'s invariant). `data` is the block of the vector
    // `owner` owns, valid for reads and writes of `len` (at least 1, below 2^31 or QuickJS
    // refuses it) initialized bytes. On success the new buffer takes the block as its data,
    // with `byte_block_realloc` and `owner` as its realloc function and opaque: from then on
    // the buffer owns the box, and QuickJS calls the function as its `# Safety` section
    // describes. On failure QuickJS stored neither (it frees the half-made object, whose
    // opaque is still null, and never calls the function): the box is still ours.
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
    // SAFETY: reads the tag only.
    if unsafe { q::JS_IsException(raw) } {
        // SAFETY: `owner` came from `Box::into_raw` above and, the buffer not made, QuickJS
        // kept no pointer to it (above): this is its only owner, freeing it once.
        drop(unsafe { Box::from_raw(owner) });
    }
    Ok(Object::from_value_unchecked(check(ctx, raw)?))
}

/// A new `Map`.
pub fn new_map(ctx: &mut Cx) -> Object {
    Object::from_value_unchecked(construct_intrinsic(ctx, Intrinsic::Map, &[]).unwrap_or_default())
}

/// Appends an entry to a new map's [[MapData]] (the intrinsic `set`, no lookup).
pub fn map_append(map: &Object, key: Value, value: Value, ctx: &mut Cx) -> JsResult<()> {
    call_intrinsic(
        ctx,
        Intrinsic::MapPrototypeSet,
        map.as_value(),
        &[key, value],
    )
    .map(drop)
}

/// A new `Set`.
pub fn new_set(ctx: &mut Cx) -> Object {
    Object::from_value_unchecked(construct_intrinsic(ctx, Intrinsic::Set, &[]).unwrap_or_default())
}

/// Appends a value to a new set's [[SetData]] (the intrinsic `add`, no lookup).
pub fn set_append(set: &Object, value: Value, ctx: &mut Cx) -> JsResult<()> {
    call_intrinsic(ctx, Intrinsic::SetPrototypeAdd, set.as_value(), &[value]).map(drop)
}

/// A new error object of the named type (one of [`ERROR_NAMES`]), with an own `message` data
/// property unless `message` is `None`.
pub fn new_error(name: &str, message: Option<JsString>, ctx: &mut Cx) -> JsResult<Object> {
    let constructor = match name {
        "EvalError" => Intrinsic::EvalError,
        "RangeError" => Intrinsic::RangeError,
        "ReferenceError" => Intrinsic::ReferenceError,
        "SyntaxError" => Intrinsic::SyntaxError,
        "TypeError" => Intrinsic::TypeError,
        "URIError" => Intrinsic::URIError,
        _ => Intrinsic::Error,
    };
    let args: Vec<Value> = message.map(|m| m.to_value_in(ctx)).into_iter().collect();
    let error = construct_intrinsic(ctx, constructor, &args)?;
    Ok(Object::from_value_unchecked(error))
}

/// `! ArrayCreate(length)`.
pub fn new_array(length: u32, ctx: &mut Cx) -> JsResult<Object> {
    // SAFETY: `ctx`'s context is live (`Cx`'s invariant). The result is owned, or
    // `JS_EXCEPTION`, as `check` takes it.
    let raw = unsafe { q::JS_NewArray(ctx.raw()) };
    let array = check(ctx, raw)?;
    // SAFETY: `ctx` is live and `array` a live, new Array of its runtime (`Value`'s
    // invariant), borrowed; its `length` is an own data property, and the new length a
    // number, so setting it runs no script.
    let status = unsafe { q::JS_SetLength(ctx.raw(), array.raw(), i64::from(length)) };
    check_status(ctx, status)?;
    Ok(Object::from_value_unchecked(array))
}

/// `! OrdinaryObjectCreate(%Object.prototype%)`.
pub fn new_plain_object(ctx: &mut Cx) -> Object {
    // SAFETY: `ctx`'s context is live (`Cx`'s invariant). The result is owned, or
    // `JS_EXCEPTION`, as `check` takes it.
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

    /// An empty block, to be grown with [`ByteBlock::extend_from_slice`] (what "read all
    /// bytes" builds a body in, so that the body's `ArrayBuffer` adopts it without a copy).
    pub fn new() -> Self {
        Self(Vec::new())
    }

    /// An empty block with room for exactly `capacity` bytes, advised to use huge pages when
    /// it is large ([`crate::engine::huge_pages`]): what "read all bytes" copies a body into
    /// once its length is known.
    ///
    /// A block of [`SPARE_FROM`] or more is the spare a freed buffer left
    /// ([`keep_spare_block`]) when that one fits: its pages are already mapped, where a fresh
    /// one's would be faulted in and zero-filled by the kernel again (a 32 MiB body read by
    /// `arrayBuffer()` spent more time there than in its copies). Only its first `len()` bytes
    /// are ever seen, and each is written first: no byte of the earlier buffer shows.
    pub fn with_capacity(capacity: usize) -> Self {
        if let Some(mut spare) = take_spare_block(capacity) {
            spare.clear();
            return Self(spare);
        }
        let mut block = Vec::new();
        crate::engine::huge_pages::reserve_exact_total(&mut block, capacity);
        Self(block)
    }

    /// Appends a copy of `bytes` (amortized growth, as a vector's).
    pub fn extend_from_slice(&mut self, bytes: &[u8]) {
        self.0.extend_from_slice(bytes);
    }

    /// A vector's bytes as a block: the vector itself (no copy).
    pub fn from_vec(bytes: Vec<u8>) -> Self {
        Self(bytes)
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

/// From this many bytes of capacity on, a block an `ArrayBuffer` of ours frees is kept, one per
/// thread, for the next [`ByteBlock::with_capacity`] it fits (blocks under it come from the
/// allocator's heap, already mapped).
const SPARE_FROM: usize = crate::engine::huge_pages::HUGE_PAGES_FROM;

/// The largest block kept: the memory a thread may hold after its last large body.
const SPARE_UP_TO: usize = 64 << 20;

thread_local! {
    /// The spare block (empty: none).
    static SPARE_BLOCK: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
}

/// Keeps `block`, freed by its buffer, as the thread's spare when its size is in range (the
/// spare it replaces is freed); frees it otherwise, or when the thread is exiting.
fn keep_spare_block(block: Vec<u8>) {
    if (SPARE_FROM..=SPARE_UP_TO).contains(&block.capacity()) {
        let _ = SPARE_BLOCK.try_with(|spare| spare.set(block));
    }
}

/// The thread's spare block when it holds `capacity` bytes with at most a quarter more to
/// spare; a spare that does not fit stays.
fn take_spare_block(capacity: usize) -> Option<Vec<u8>> {
    if capacity < SPARE_FROM {
        return None;
    }
    SPARE_BLOCK
        .try_with(|spare| {
            let block = spare.take();
            let room = block.capacity();
            if room >= capacity && room - capacity <= capacity / 4 {
                Some(block)
            } else {
                spare.set(block);
                None
            }
        })
        .ok()
        .flatten()
}

/// A copy of the bytes of a buffer that is not detached.
pub fn copy_buffer_bytes(buffer: &JsArrayBuffer) -> Option<ByteBlock> {
    let mut cx = current_cx()?;
    let (data, len) = buffer_data(&mut cx, buffer.0.as_value())?;
    // SAFETY: `data` is the live block of `len` initialized bytes (`buffer_data`'s contract;
    // `len` is below 2^31), and nothing writes, moves or frees it while the slice lives, which
    // ends with the copy: no script or engine operation runs, and no `&mut` slice of it is
    // live (the engine lends one only to closures, which call nothing of it).
    let bytes = unsafe { std::slice::from_raw_parts(data, len) };
    Some(ByteBlock::copy_of(bytes))
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
    // SAFETY: as in `copy_buffer_bytes`: `data` is the live block of `len` initialized bytes
    // (`buffer_data`'s contract), unchanged until the copy ends the slice.
    let bytes = unsafe { std::slice::from_raw_parts(data, len) };
    let block = ByteBlock::copy_of(bytes);
    // SAFETY: `cx`'s context is live (`Cx`'s invariant) and `value` a live `ArrayBuffer` of its
    // runtime (`Value`'s invariant), borrowed, neither detached nor immutable (checked above).
    // QuickJS frees the block (through its realloc function, with size 0) and marks the buffer
    // and its views detached. No slice of the block is live: `bytes` ended with the copy, and
    // a block lent to a closure is pinned, that is immutable, which was refused above.
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
    // SAFETY: `ctx`'s context is live (`Cx`'s invariant) and `array` a live, new Array of its
    // runtime (`Value`'s invariant), borrowed; freezing an ordinary Array runs no script.
    let status = unsafe { q::JS_FreezeObject(ctx.raw(), array.raw()) };
    check_status(ctx, status)?;
    Ok(array)
}
