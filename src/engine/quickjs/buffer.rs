//! Array buffers and views: ArrayBufferView and BufferSource conversion, TransferArrayBuffer,
//! view construction per kind, byte copies, new `Uint8Array`s.
//!
//! Slots are read through QuickJS's C API (`JS_GetArrayBuffer`, `JS_GetTypedArrayBuffer`,
//! `JS_GetTypedArrayType`, ...) and, where it has none (a `DataView`'s slots, whether a buffer
//! is resizable, the buffer of a detached typed array), through the built-in getters captured
//! when the realm was set up, called on the object: no user-visible lookup either way.

use std::ffi::c_int;

use super::core::{check, current_ctx, q, take_exception};
use super::*;
use crate::engine::{TypedArrayKind, ViewKind, ViewRecord};

/// Intrinsics this file uses (name, expression), captured per realm. Also those of
/// `encoding.rs` and `json.rs`, and the sample objects whose class ids `class_ids` reads.
pub(crate) const INTRINSICS: &[(&str, &str)] = &[
    (
        "ArrayBuffer.prototype.transferToFixedLength",
        "ArrayBuffer.prototype.transferToFixedLength",
    ),
    (
        "ArrayBuffer.prototype.detached",
        "Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, 'detached').get",
    ),
    (
        "ArrayBuffer.prototype.resizable",
        "Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, 'resizable').get",
    ),
    (
        "SharedArrayBuffer.prototype.growable",
        "typeof SharedArrayBuffer === 'function' ? \
         Object.getOwnPropertyDescriptor(SharedArrayBuffer.prototype, 'growable').get : undefined",
    ),
    (
        "TypedArray.prototype.buffer",
        "Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), 'buffer').get",
    ),
    (
        "TypedArray.prototype.byteOffset",
        "Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), 'byteOffset').get",
    ),
    (
        "TypedArray.prototype.byteLength",
        "Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), 'byteLength').get",
    ),
    ("DataView", "DataView"),
    (
        "DataView.prototype.buffer",
        "Object.getOwnPropertyDescriptor(DataView.prototype, 'buffer').get",
    ),
    (
        "DataView.prototype.byteOffset",
        "Object.getOwnPropertyDescriptor(DataView.prototype, 'byteOffset').get",
    ),
    (
        "DataView.prototype.byteLength",
        "Object.getOwnPropertyDescriptor(DataView.prototype, 'byteLength').get",
    ),
    // json.rs
    ("JSON.parse", "JSON.parse"),
    ("JSON.stringify", "JSON.stringify"),
    // Samples whose class ids `class_ids` reads (once per runtime).
    (
        "sample.SharedArrayBuffer",
        "typeof SharedArrayBuffer === 'function' ? new SharedArrayBuffer(0) : undefined",
    ),
    ("sample.Boolean", "new Boolean(false)"),
    ("sample.Number", "new Number(0)"),
    ("sample.String", "new String('')"),
    ("sample.Symbol", "Object(Symbol())"),
    ("sample.BigInt", "Object(0n)"),
    ("sample.Object", "({})"),
];

// ---------------------------------------------------------------------------------------------
// Helpers shared with clone.rs and encoding.rs
// ---------------------------------------------------------------------------------------------

/// The class ids of the built-in classes that have no `JS_Is*` predicate (read from sample
/// objects; the same in every runtime of the process, kept per agent).
#[derive(Clone, Copy, Debug)]
pub(super) struct ClassIds {
    pub(super) shared_array_buffer: q::JSClassID,
    pub(super) boolean: q::JSClassID,
    pub(super) number: q::JSClassID,
    pub(super) string: q::JSClassID,
    pub(super) symbol: q::JSClassID,
    pub(super) big_int: q::JSClassID,
    pub(super) object: q::JSClassID,
}

/// The agent's [`ClassIds`] (read from the current realm's samples on first use).
pub(super) fn class_ids(cx: &Cx) -> ClassIds {
    if let Some(ids) = cx.agent().data::<ClassIds>() {
        return *ids;
    }
    let realm = cx.realm_state();
    let id = |name: &str| {
        let sample = realm.intrinsic(name);
        if sample.is_object() {
            // SAFETY: reading the class of a live object.
            unsafe { q::JS_GetClassID(sample.raw()) }
        } else {
            // No such class in this build: an id no object has.
            0
        }
    };
    let ids = ClassIds {
        shared_array_buffer: id("sample.SharedArrayBuffer"),
        boolean: id("sample.Boolean"),
        number: id("sample.Number"),
        string: id("sample.String"),
        symbol: id("sample.Symbol"),
        big_int: id("sample.BigInt"),
        object: id("sample.Object"),
    };
    cx.agent().set_data(ids);
    ids
}

/// The class id of an object value (0 for a primitive).
#[inline]
pub(super) fn class_of(value: &Value) -> q::JSClassID {
    if !value.is_object() {
        return 0;
    }
    // SAFETY: reading the class of a live object.
    unsafe { q::JS_GetClassID(value.raw()) }
}

/// A handle on the current context, for the operations of the API that take none.
pub(super) fn current_cx() -> Option<Cx> {
    let ctx = current_ctx();
    // SAFETY: the current context is live while it is current; the handle restores it.
    (!ctx.is_null()).then(|| unsafe { Cx::enter(ctx) })
}

/// `? Call(intrinsic, this, args)` for a captured intrinsic of the current realm.
pub(super) fn call_intrinsic(
    cx: &mut Cx,
    name: &str,
    this: &Value,
    args: &[Value],
) -> JsResult<Value> {
    let function = cx.realm_state().intrinsic(name);
    call(&function, this, args, cx)
}

/// `? Construct(constructor, args)` (NewTarget = the constructor) for a captured intrinsic
/// constructor of the current realm.
pub(super) fn construct_intrinsic(cx: &mut Cx, name: &str, args: &[Value]) -> JsResult<Value> {
    let constructor = cx.realm_state().intrinsic(name);
    if !constructor.is_object() {
        return Err(throw_type_error(format!("{name} is not available")));
    }
    let mut raw_args: Vec<q::JSValue> = args.iter().map(Value::raw).collect();
    let argc = c_int::try_from(raw_args.len()).unwrap_or(c_int::MAX);
    // SAFETY: a live context and values; JS_CallConstructor does not take ownership of them.
    let raw =
        unsafe { q::JS_CallConstructor(cx.raw(), constructor.raw(), argc, raw_args.as_mut_ptr()) };
    check(cx, raw)
}

/// Whether `value` is an `ArrayBuffer` (not shared).
#[inline]
pub(super) fn is_array_buffer(value: &Value) -> bool {
    // SAFETY: reading the class of a value.
    value.is_object() && unsafe { q::JS_IsArrayBuffer(value.raw()) }
}

/// Whether `value` is a `SharedArrayBuffer`.
#[inline]
pub(super) fn is_shared_buffer(cx: &Cx, value: &Value) -> bool {
    let class = class_of(value);
    class != 0 && class == class_ids(cx).shared_array_buffer
}

/// The data block of an `ArrayBuffer` or `SharedArrayBuffer`: its pointer and byte length.
/// `None` when `value` is neither or the buffer is detached (no exception is left pending).
/// The pointer is valid until script runs (script may detach or resize the buffer).
pub(super) fn buffer_data(cx: &mut Cx, value: &Value) -> Option<(*mut u8, usize)> {
    if !is_array_buffer(value) && !is_shared_buffer(cx, value) {
        return None;
    }
    if is_detached(cx, value) {
        return None;
    }
    let mut size: q::size_t = 0;
    // SAFETY: a live context and buffer object.
    let data = unsafe { q::JS_GetArrayBuffer(cx.raw(), &mut size, value.raw()) };
    if data.is_null() {
        // Not reached (the buffer is not detached); QuickJS would have thrown.
        drop(take_exception(cx));
        return None;
    }
    Some((data, usize::try_from(size).unwrap_or(0)))
}

/// `IsDetachedBuffer` for an `ArrayBuffer` (false for anything else), through the captured
/// `detached` getter: `JS_GetArrayBuffer` would throw (and a thrown error runs a script's
/// `Error.prepareStackTrace`, even when cleared).
pub(super) fn is_detached(cx: &mut Cx, buffer: &Value) -> bool {
    if !is_array_buffer(buffer) {
        return false;
    }
    match call_intrinsic(cx, "ArrayBuffer.prototype.detached", buffer, &[]) {
        Ok(v) => v.to_boolean(),
        Err(e) => {
            drop(e);
            false
        }
    }
}

/// Whether an `ArrayBuffer` was made immutable (`transferToImmutable`).
pub(super) fn is_immutable(buffer: &Value) -> bool {
    // SAFETY: reading a buffer's flag (-1 for anything else).
    buffer.is_object() && unsafe { q::JS_IsImmutableArrayBuffer(buffer.raw()) } == 1
}

/// `IsResizableArrayBuffer` (an `ArrayBuffer` with a max byte length, a growable
/// `SharedArrayBuffer`), through the captured `resizable` / `growable` getters.
pub(super) fn is_resizable(cx: &mut Cx, buffer: &Value) -> bool {
    let getter = if is_array_buffer(buffer) {
        "ArrayBuffer.prototype.resizable"
    } else if is_shared_buffer(cx, buffer) {
        "SharedArrayBuffer.prototype.growable"
    } else {
        return false;
    };
    match call_intrinsic(cx, getter, buffer, &[]) {
        Ok(v) => v.to_boolean(),
        Err(e) => {
            drop(e);
            false
        }
    }
}

/// A number from a getter's result (0 for anything else).
fn number_of(result: JsResult<Value>) -> u64 {
    match result {
        Ok(v) => {
            let n = v.as_number().unwrap_or(0.0);
            if n.is_finite() && n > 0.0 {
                // Byte offsets and lengths are below 2^32 in QuickJS.
                n as u64
            } else {
                0
            }
        }
        Err(_) => 0,
    }
}

/// QuickJS's typed array type as the engine's kind.
fn typed_array_kind(raw: c_int) -> Option<TypedArrayKind> {
    Some(match raw as q::JSTypedArrayEnum {
        q::JSTypedArrayEnum_JS_TYPED_ARRAY_UINT8C => TypedArrayKind::Uint8Clamped,
        q::JSTypedArrayEnum_JS_TYPED_ARRAY_INT8 => TypedArrayKind::Int8,
        q::JSTypedArrayEnum_JS_TYPED_ARRAY_UINT8 => TypedArrayKind::Uint8,
        q::JSTypedArrayEnum_JS_TYPED_ARRAY_INT16 => TypedArrayKind::Int16,
        q::JSTypedArrayEnum_JS_TYPED_ARRAY_UINT16 => TypedArrayKind::Uint16,
        q::JSTypedArrayEnum_JS_TYPED_ARRAY_INT32 => TypedArrayKind::Int32,
        q::JSTypedArrayEnum_JS_TYPED_ARRAY_UINT32 => TypedArrayKind::Uint32,
        q::JSTypedArrayEnum_JS_TYPED_ARRAY_BIG_INT64 => TypedArrayKind::BigInt64,
        q::JSTypedArrayEnum_JS_TYPED_ARRAY_BIG_UINT64 => TypedArrayKind::BigUint64,
        q::JSTypedArrayEnum_JS_TYPED_ARRAY_FLOAT16 => TypedArrayKind::Float16,
        q::JSTypedArrayEnum_JS_TYPED_ARRAY_FLOAT32 => TypedArrayKind::Float32,
        q::JSTypedArrayEnum_JS_TYPED_ARRAY_FLOAT64 => TypedArrayKind::Float64,
        _ => return None,
    })
}

/// The engine's typed array kind as QuickJS's type.
fn typed_array_enum(kind: TypedArrayKind) -> q::JSTypedArrayEnum {
    match kind {
        TypedArrayKind::Uint8Clamped => q::JSTypedArrayEnum_JS_TYPED_ARRAY_UINT8C,
        TypedArrayKind::Int8 => q::JSTypedArrayEnum_JS_TYPED_ARRAY_INT8,
        TypedArrayKind::Uint8 => q::JSTypedArrayEnum_JS_TYPED_ARRAY_UINT8,
        TypedArrayKind::Int16 => q::JSTypedArrayEnum_JS_TYPED_ARRAY_INT16,
        TypedArrayKind::Uint16 => q::JSTypedArrayEnum_JS_TYPED_ARRAY_UINT16,
        TypedArrayKind::Int32 => q::JSTypedArrayEnum_JS_TYPED_ARRAY_INT32,
        TypedArrayKind::Uint32 => q::JSTypedArrayEnum_JS_TYPED_ARRAY_UINT32,
        TypedArrayKind::BigInt64 => q::JSTypedArrayEnum_JS_TYPED_ARRAY_BIG_INT64,
        TypedArrayKind::BigUint64 => q::JSTypedArrayEnum_JS_TYPED_ARRAY_BIG_UINT64,
        TypedArrayKind::Float16 => q::JSTypedArrayEnum_JS_TYPED_ARRAY_FLOAT16,
        TypedArrayKind::Float32 => q::JSTypedArrayEnum_JS_TYPED_ARRAY_FLOAT32,
        TypedArrayKind::Float64 => q::JSTypedArrayEnum_JS_TYPED_ARRAY_FLOAT64,
    }
}

/// The typed array kind of `value`, if it is a typed array.
#[inline]
pub(super) fn typed_array_kind_of(value: &Value) -> Option<TypedArrayKind> {
    if !value.is_object() {
        return None;
    }
    // SAFETY: reading the class of a live object (-1 for anything but a typed array).
    typed_array_kind(unsafe { q::JS_GetTypedArrayType(value.raw()) })
}

/// Whether `value` is a `DataView`.
#[inline]
pub(super) fn is_data_view(value: &Value) -> bool {
    // SAFETY: reading the class of a value.
    value.is_object() && unsafe { q::JS_IsDataView(value.raw()) }
}

/// The slots of an `ArrayBufferView`, read without running script.
pub(super) struct ViewSlots {
    /// `[[TypedArrayName]]`, or `DataView`.
    pub(super) kind: ViewKind,
    /// `[[ViewedArrayBuffer]]` (an `ArrayBuffer` or a `SharedArrayBuffer`).
    pub(super) buffer: Value,
    /// Whether the buffer is resizable (or a growable `SharedArrayBuffer`).
    pub(super) resizable: bool,
    /// `[[ByteOffset]]` (0 when the view is detached or out of bounds).
    pub(super) byte_offset: u64,
    /// The current byte length (0 when the view is detached or out of bounds).
    pub(super) byte_length: u64,
}

/// The slots of `value` if it is a typed array or a `DataView`.
///
/// Nothing here makes QuickJS throw (an error thrown and cleared would still run a script's
/// `Error.prepareStackTrace`): the cases where a C accessor or a getter throws (a detached
/// buffer, a view out of bounds of a resizable one) are told apart first.
pub(super) fn view_slots(cx: &mut Cx, value: &Value) -> Option<ViewSlots> {
    let (kind, getters) = if let Some(kind) = typed_array_kind_of(value) {
        (
            ViewKind::Typed(kind),
            [
                "TypedArray.prototype.buffer",
                "TypedArray.prototype.byteOffset",
                "TypedArray.prototype.byteLength",
            ],
        )
    } else if is_data_view(value) {
        (
            ViewKind::DataView,
            [
                "DataView.prototype.buffer",
                "DataView.prototype.byteOffset",
                "DataView.prototype.byteLength",
            ],
        )
    } else {
        return None;
    };
    // The `buffer` getters check nothing.
    let buffer = call_intrinsic(cx, getters[0], value, &[]).ok()?;
    let resizable = is_resizable(cx, &buffer);
    let mut slots = ViewSlots {
        kind,
        buffer,
        resizable,
        byte_offset: 0,
        byte_length: 0,
    };
    if is_detached(cx, &slots.buffer) {
        return Some(slots);
    }
    if let (ViewKind::Typed(_), false) = (kind, resizable) {
        // On a fixed-length buffer that is not detached, a typed array is in bounds, and its
        // length slot is current: one C call.
        // `size_t` is `u64` on the targets QuickJS's bindings are generated for.
        let (mut offset, mut length): (u64, u64) = (0, 0);
        // SAFETY: a live context and typed array; the returned buffer reference is ours.
        let raw = unsafe {
            q::JS_GetTypedArrayBuffer(
                cx.raw(),
                value.raw(),
                &mut offset,
                &mut length,
                std::ptr::null_mut(),
            )
        };
        if check(cx, raw).is_ok() {
            slots.byte_offset = offset;
            slots.byte_length = length;
        }
        return Some(slots);
    }
    // A `DataView`, or a view on a resizable buffer (whose length may track the buffer's):
    // the getters (a typed array's give 0 when out of bounds; a `DataView`'s throw then).
    slots.byte_offset = number_of(call_intrinsic(cx, getters[1], value, &[]));
    slots.byte_length = number_of(call_intrinsic(cx, getters[2], value, &[]));
    Some(slots)
}

// ---------------------------------------------------------------------------------------------
// Array buffers and views
// ---------------------------------------------------------------------------------------------

/// Converts a JS value to an `ArrayBufferView` (<https://webidl.spec.whatwg.org/#ArrayBufferView>,
/// without `[AllowShared]`): anything else, and views on a `SharedArrayBuffer`, are TypeErrors.
pub fn array_buffer_view(value: &Value, what: &str, ctx: &mut Cx) -> JsResult<ViewRecord> {
    let error = |message: &str| throw_type_error(format!("{what} {message}"));
    let slots = view_slots(ctx, value).ok_or_else(|| error("must be an ArrayBufferView"))?;
    if !is_array_buffer(&slots.buffer) {
        return Err(error("must not be backed by a SharedArrayBuffer"));
    }
    Ok(ViewRecord {
        buffer: JsArrayBuffer(Object::from_value_unchecked(slots.buffer)),
        byte_offset: slots.byte_offset,
        byte_length: slots.byte_length,
        kind: slots.kind,
    })
}

/// `! IsDetachedBuffer(buffer)`.
pub fn is_detached_buffer(buffer: &JsArrayBuffer) -> bool {
    let Some(mut cx) = current_cx() else {
        return true;
    };
    buffer_data(&mut cx, buffer.0.as_value()).is_none()
}

/// `[[ArrayBufferByteLength]]` (0 once detached).
pub fn array_buffer_byte_length(buffer: &JsArrayBuffer) -> u64 {
    let Some(mut cx) = current_cx() else {
        return 0;
    };
    buffer_data(&mut cx, buffer.0.as_value()).map_or(0, |(_, len)| len as u64)
}

/// <https://streams.spec.whatwg.org/#can-transfer-array-buffer>
pub fn can_transfer_array_buffer(buffer: &JsArrayBuffer) -> bool {
    // 1. Assert: O is an Object.
    // 2. Assert: O has an [[ArrayBufferData]] internal slot.
    // 3. If ! IsDetachedBuffer(O) is true, return false.
    // 4. If SameValue(O.[[ArrayBufferDetachKey]], undefined) is false, return false.
    //    (Every buffer QuickJS makes has the key undefined.)
    // 5. Return true.
    // (An immutable buffer cannot be detached either: DetachArrayBuffer would throw.)
    !is_detached_buffer(buffer) && !is_immutable(buffer.0.as_value())
}

/// <https://streams.spec.whatwg.org/#transfer-array-buffer>
///
/// Zero-copy: the captured `ArrayBuffer.prototype.transferToFixedLength` with the same length
/// keeps the data block.
pub fn transfer_array_buffer(buffer: &JsArrayBuffer, ctx: &mut Cx) -> JsResult<JsArrayBuffer> {
    crate::engine::count_objects(1);
    // 1. Assert: ! IsDetachedBuffer(O) is false.
    // 2–4. arrayBufferData, arrayBufferByteLength; ? DetachArrayBuffer(O).
    // 5. Return a new ArrayBuffer object, created in the current Realm, with that data.
    let result = call_intrinsic(
        ctx,
        "ArrayBuffer.prototype.transferToFixedLength",
        buffer.0.as_value(),
        &[],
    )?;
    if !is_array_buffer(&result) {
        return Err(throw_type_error("ArrayBuffer transfer failed"));
    }
    Ok(JsArrayBuffer(Object::from_value_unchecked(result)))
}

/// CloneArrayBuffer(buffer, byteOffset, byteLength, %ArrayBuffer%)
/// (<https://tc39.es/ecma262/#sec-clonearraybuffer>): one copy of the bytes into a new buffer.
pub fn clone_array_buffer(
    buffer: &JsArrayBuffer,
    byte_offset: u64,
    byte_length: u64,
    ctx: &mut Cx,
) -> JsResult<JsArrayBuffer> {
    crate::engine::count_objects(1);
    let Some((data, len)) = buffer_data(ctx, buffer.0.as_value()) else {
        return Err(throw_type_error("Cannot clone a detached ArrayBuffer"));
    };
    let start = usize::try_from(byte_offset).unwrap_or(usize::MAX);
    let count = usize::try_from(byte_length).unwrap_or(usize::MAX);
    if start.checked_add(count).is_none_or(|end| end > len) {
        return Err(throw_range_error(
            "The range to clone is outside the ArrayBuffer",
        ));
    }
    // SAFETY: `start + count <= len` bytes of the live buffer's block; no script runs before
    // the copy.
    let raw = unsafe { q::JS_NewArrayBufferCopy(ctx.raw(), data.add(start), count as q::size_t) };
    let value = check(ctx, raw)?;
    Ok(JsArrayBuffer(Object::from_value_unchecked(value)))
}

/// `! Construct(ctor, « buffer, byteOffset, length »)` for a view constructor: `length` counts
/// elements (bytes for a `DataView`). The intrinsic constructors run no script.
pub fn construct_view(
    kind: ViewKind,
    buffer: &JsArrayBuffer,
    byte_offset: u64,
    length: u64,
    ctx: &mut Cx,
) -> JsResult<Object> {
    crate::engine::count_objects(1);
    // Offsets and lengths come from existing buffers, so they are far below 2^53.
    #[allow(clippy::cast_precision_loss)]
    let args = [
        buffer.0.as_value().clone(),
        Value::from(byte_offset as f64),
        Value::from(length as f64),
    ];
    let value = match kind {
        ViewKind::Typed(kind) => {
            let mut raw_args: Vec<q::JSValue> = args.iter().map(Value::raw).collect();
            // SAFETY: a live context and values; JS_NewTypedArray does not take ownership of
            // its arguments. With no new target, the object gets the realm's prototype.
            let raw = unsafe {
                q::JS_NewTypedArray(ctx.raw(), 3, raw_args.as_mut_ptr(), typed_array_enum(kind))
            };
            check(ctx, raw)?
        }
        ViewKind::DataView => construct_intrinsic(ctx, "DataView", &args)?,
    };
    Ok(Object::from_value_unchecked(value))
}

/// `! CopyDataBlockBytes(to.[[ArrayBufferData]], toIndex, from.[[ArrayBufferData]], fromIndex,
/// count)`: one copy. Returns false (and copies nothing) where
/// [`can_copy_data_block_bytes`](crate::engine::can_copy_data_block_bytes)
/// would be false.
pub fn copy_data_block_bytes(
    to_buffer: &JsArrayBuffer,
    to_index: u64,
    from_buffer: &JsArrayBuffer,
    from_index: u64,
    count: u64,
) -> bool {
    if same_buffer(to_buffer, from_buffer) {
        return false;
    }
    let Some(mut cx) = current_cx() else {
        return false;
    };
    let (Some((to, to_len)), Some((from, from_len))) = (
        buffer_data(&mut cx, to_buffer.0.as_value()),
        buffer_data(&mut cx, from_buffer.0.as_value()),
    ) else {
        return false;
    };
    let fits = |index: u64, len: usize| {
        index
            .checked_add(count)
            .is_some_and(|end| end <= len as u64)
    };
    if !fits(to_index, to_len) || !fits(from_index, from_len) {
        return false;
    }
    // The checks above bound every index by a live buffer length, which fits in usize.
    let (to_index, from_index, count) = (to_index as usize, from_index as usize, count as usize);
    // SAFETY: both ranges are inside live blocks (checked above, no script ran since); the
    // buffers are different objects, whose blocks do not overlap (`ptr::copy` regardless).
    unsafe { std::ptr::copy(from.add(from_index), to.add(to_index), count) };
    true
}

/// `Construct(%ArrayBuffer%, « byteLength »)`: a RangeError when it cannot be allocated.
pub fn new_array_buffer(byte_length: u64, ctx: &mut Cx) -> JsResult<JsArrayBuffer> {
    crate::engine::count_objects(1);
    // QuickJS's buffers are limited to 2 GB.
    let Ok(length) = i32::try_from(byte_length) else {
        return Err(throw_range_error("Array buffer allocation failed"));
    };
    // SAFETY: a live context; with a null source, JS_NewArrayBufferCopy allocates a zeroed
    // block and copies nothing.
    let raw = unsafe { q::JS_NewArrayBufferCopy(ctx.raw(), std::ptr::null(), length as q::size_t) };
    let value = check(ctx, raw)?;
    Ok(JsArrayBuffer(Object::from_value_unchecked(value)))
}

// ---------------------------------------------------------------------------------------------
// Buffer sources (chunks of the Encoding and Compression standards' streams)
// ---------------------------------------------------------------------------------------------
//
// <https://webidl.spec.whatwg.org/#BufferSource>.

/// The backing buffer and the byte range of a buffer source, after the conversion's checks:
/// `(buffer, shared, offset, length)`.
pub(super) fn buffer_source_range(
    value: &Value,
    allow_shared: bool,
    what: &str,
    ctx: &mut Cx,
) -> JsResult<(Value, bool, usize, usize)> {
    let not_a_buffer_source = || {
        throw_type_error(format!(
            "{what} must be an ArrayBuffer or an ArrayBufferView{}",
            if allow_shared {
                ""
            } else {
                " not backed by a SharedArrayBuffer"
            }
        ))
    };
    if !value.is_object() {
        return Err(not_a_buffer_source());
    }
    let (buffer, resizable, offset, len) = if is_array_buffer(value) || is_shared_buffer(ctx, value)
    {
        // An ArrayBuffer or SharedArrayBuffer itself: all of its bytes.
        let len = buffer_data(ctx, value).map_or(0, |(_, len)| len);
        (value.clone(), is_resizable(ctx, value), 0, len)
    } else if let Some(slots) = view_slots(ctx, value) {
        (
            slots.buffer,
            slots.resizable,
            usize::try_from(slots.byte_offset).unwrap_or(usize::MAX),
            usize::try_from(slots.byte_length).unwrap_or(0),
        )
    } else {
        return Err(not_a_buffer_source());
    };
    let shared = is_shared_buffer(ctx, &buffer);
    if shared && !allow_shared {
        return Err(not_a_buffer_source());
    }
    if resizable {
        return Err(throw_type_error(format!(
            "{what} must not be backed by a resizable ArrayBuffer"
        )));
    }
    Ok((buffer, shared, offset, len))
}

/// Converts `value` to an IDL `BufferSource` (`[AllowShared] BufferSource` when
/// `allow_shared`) and returns "a copy of the bytes held by the buffer source"
/// (<https://webidl.spec.whatwg.org/#dfn-get-buffer-source-copy>): empty for a detached buffer.
pub fn buffer_source_copy(
    value: &Value,
    allow_shared: bool,
    what: &str,
    ctx: &mut Cx,
) -> JsResult<Vec<u8>> {
    let (buffer, _, offset, len) = buffer_source_range(value, allow_shared, what, ctx)?;
    Ok(with_range(ctx, &buffer, offset, len, <[u8]>::to_vec).unwrap_or_default())
}

/// Runs `f` on `len` bytes of `buffer` from `offset` (`None` when detached or out of range).
fn with_range<R>(
    cx: &mut Cx,
    buffer: &Value,
    offset: usize,
    len: usize,
    f: impl FnOnce(&[u8]) -> R,
) -> Option<R> {
    let (data, size) = buffer_data(cx, buffer)?;
    let end = offset.checked_add(len)?;
    if end > size {
        return None;
    }
    // SAFETY: `offset..end` is inside the live block, and `f` runs no script (it gets no
    // context), so nothing detaches or resizes the buffer while the slice lives.
    let bytes = unsafe { std::slice::from_raw_parts(data.add(offset), len) };
    Some(f(bytes))
}

/// Converts `value` to an IDL `BufferSource` like [`buffer_source_copy`], throwing the same
/// TypeErrors, without copying the bytes (for a conversion whose bytes are read later).
pub fn check_buffer_source(
    value: &Value,
    allow_shared: bool,
    what: &str,
    ctx: &mut Cx,
) -> JsResult<()> {
    buffer_source_range(value, allow_shared, what, ctx).map(drop)
}

/// Whether `value` is an object with an `[[ArrayBufferData]]` slot (an `ArrayBuffer` or a
/// `SharedArrayBuffer`) or an `ArrayBufferView` (a typed array or a `DataView`). Runs no script.
pub fn is_buffer_source_object(value: &Value) -> bool {
    if !value.is_object() {
        return false;
    }
    if is_array_buffer(value) || typed_array_kind_of(value).is_some() || is_data_view(value) {
        return true;
    }
    current_cx().is_some_and(|cx| is_shared_buffer(&cx, value))
}

/// A new `Uint8Array` of the current realm wrapping a new `ArrayBuffer` that holds `bytes`.
pub fn new_uint8_array(bytes: &[u8], ctx: &mut Cx) -> JsResult<Value> {
    crate::engine::count_objects(2);
    // SAFETY: a live context; the bytes are valid for their length (copied).
    let raw =
        unsafe { q::JS_NewUint8ArrayCopy(ctx.raw(), bytes.as_ptr(), bytes.len() as q::size_t) };
    check(ctx, raw)
}

/// Runs `f` on the bytes of a `Uint8Array` (of any realm). `None` when `value` is not a `Uint8Array` object (a `Uint8ClampedArray` is
/// not one). Runs no script; `f` must not run script either.
pub fn uint8_array_bytes<R>(value: &Value, ctx: &mut Cx, f: impl FnOnce(&[u8]) -> R) -> Option<R> {
    if typed_array_kind_of(value) != Some(TypedArrayKind::Uint8) {
        return None;
    }
    with_buffer_source_bytes(value, ctx, f)
}

/// Runs `f` on the bytes of a buffer source (an `ArrayBuffer`, `SharedArrayBuffer` or
/// `ArrayBufferView`) without copying them. `None` when `value` is not a buffer source. `f` must not run script (it gets no context).
pub fn with_buffer_source_bytes<R>(
    value: &Value,
    ctx: &mut Cx,
    f: impl FnOnce(&[u8]) -> R,
) -> Option<R> {
    let (buffer, _, offset, len) = buffer_source_range(value, true, "The chunk", ctx).ok()?;
    let Some((data, size)) = buffer_data(ctx, &buffer) else {
        // Detached: no bytes.
        return Some(f(&[]));
    };
    if offset.checked_add(len)? > size {
        return None;
    }
    // SAFETY: `offset..offset + len` is inside the live block, and `f` runs no script (it
    // gets no context), so nothing detaches or resizes the buffer while the slice lives.
    let bytes = unsafe { std::slice::from_raw_parts(data.add(offset), len) };
    // (A `SharedArrayBuffer`'s block is read in place too: QuickJS reads and writes shared
    // blocks with plain memory accesses itself.)
    Some(f(bytes))
}

/// The byte length of a buffer source, `None` for anything else. Runs no script.
pub fn buffer_source_byte_length(value: &Value, ctx: &mut Cx) -> Option<usize> {
    // A typed array (the usual chunk), without the conversion's checks and errors: its byte
    // length given its buffer's current length (0 once detached or out of bounds).
    if typed_array_kind_of(value).is_some() {
        let slots = view_slots(ctx, value)?;
        return usize::try_from(slots.byte_length).ok();
    }
    buffer_source_range(value, true, "The chunk", ctx)
        .ok()
        .map(|(_, _, _, len)| len)
}

/// Runs `f` on `len` bytes of `buffer` from `offset`, writable in place. `None` when the buffer
/// is detached or immutable, or the range is out of bounds. `f` must not run script.
pub fn with_array_buffer_bytes_mut<R>(
    buffer: &JsArrayBuffer,
    offset: u64,
    len: u64,
    f: impl FnOnce(&mut [u8]) -> R,
) -> Option<R> {
    let mut cx = current_cx()?;
    if is_immutable(buffer.0.as_value()) {
        return None;
    }
    let (data, size) = buffer_data(&mut cx, buffer.0.as_value())?;
    let offset = usize::try_from(offset).ok()?;
    let len = usize::try_from(len).ok()?;
    if offset.checked_add(len)? > size {
        return None;
    }
    // SAFETY: the range is inside the live block; `f` runs no script, so nothing detaches or
    // resizes the buffer while the slice lives, and no other slice of it is live.
    let bytes = unsafe { std::slice::from_raw_parts_mut(data.add(offset), len) };
    Some(f(bytes))
}

/// Whether `a` and `b` are the same `ArrayBuffer` object.
pub fn same_buffer(a: &JsArrayBuffer, b: &JsArrayBuffer) -> bool {
    Object::equals(&a.0, &b.0)
}

#[cfg(test)]
#[path = "buffer_tests.rs"]
mod tests;
