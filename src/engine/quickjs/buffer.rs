//! Array buffers and views: ArrayBufferView and BufferSource conversion, TransferArrayBuffer,
//! view construction per kind, byte copies, new `Uint8Array`s.
//!
//! Slots are read through QuickJS's C API (`JS_GetArrayBuffer`, `JS_GetTypedArrayType`, ...);
//! where it has none, from the fields its own getters read (whether a buffer is detached or
//! resizable, its length, a view's buffer, offset and length: [`RawArrayBuffer`],
//! [`RawTypedArray`]) or through the getters captured when the realm was set up, called on
//! the object (the current length of a view that tracks a resizable buffer's): no
//! user-visible lookup either way.

use std::ffi::c_int;

use super::core::{check, current_ctx, q, take_exception};
use super::intrinsics::Intrinsic;
use super::*;
use crate::engine::{TypedArrayKind, ViewKind, ViewRecord};

// ---------------------------------------------------------------------------------------------
// Helpers shared with clone.rs and encoding.rs
// ---------------------------------------------------------------------------------------------

/// The class ids of the built-in classes that have no `JS_Is*` predicate (read from sample
/// objects; the same in every runtime of the process, kept per agent).
#[derive(Clone, Copy, Debug)]
pub(crate) struct ClassIds {
    pub(super) shared_array_buffer: q::JSClassID,
    pub(super) boolean: q::JSClassID,
    pub(super) number: q::JSClassID,
    pub(super) string: q::JSClassID,
    pub(super) symbol: q::JSClassID,
    pub(super) big_int: q::JSClassID,
    pub(super) object: q::JSClassID,
}

/// The agent's [`ClassIds`] (read from the current realm's samples on first use).
#[inline]
pub(super) fn class_ids(cx: &Cx) -> ClassIds {
    if let Some(ids) = cx.agent().class_ids.get() {
        return ids;
    }
    read_class_ids(cx)
}

/// [`class_ids`]' first read.
#[cold]
fn read_class_ids(cx: &Cx) -> ClassIds {
    let realm = cx.realm_state();
    let id = |name: Intrinsic| {
        let sample = realm.intrinsic(name);
        if sample.is_object() {
            // SAFETY: `sample` is an object the realm's intrinsics own a count of (`Value`'s
            // invariant), so it is allocated; `JS_GetClassID` reads its tag and class id.
            unsafe { q::JS_GetClassID(sample.raw()) }
        } else {
            // No such class in this build: an id no object has.
            0
        }
    };
    let ids = ClassIds {
        shared_array_buffer: id(Intrinsic::SampleSharedArrayBuffer),
        boolean: id(Intrinsic::SampleBoolean),
        number: id(Intrinsic::SampleNumber),
        string: id(Intrinsic::SampleString),
        symbol: id(Intrinsic::SampleSymbol),
        big_int: id(Intrinsic::SampleBigInt),
        object: id(Intrinsic::SampleObject),
    };
    cx.agent().class_ids.set(Some(ids));
    ids
}

/// The class id of an object value (0 for a primitive).
#[inline]
pub(super) fn class_of(value: &Value) -> q::JSClassID {
    if !value.is_object() {
        return 0;
    }
    // SAFETY: `value` is an object and owns a count of it (`Value`'s invariant), so it is
    // allocated; `JS_GetClassID` reads its tag and class id.
    unsafe { q::JS_GetClassID(value.raw()) }
}

/// A handle on the current context, for the operations of the API that take none (`None`
/// outside any entry).
///
/// The caller keeps the handle as a local of that operation and drops it before returning: it
/// then nests inside the `Cx` that made the context current, which outlives the operation.
pub(super) fn current_cx() -> Option<Cx> {
    let ctx = current_ctx();
    // SAFETY: `Cx::enter`'s contract. A non-null current context is the `raw` of the innermost
    // `Cx` alive on this thread, so it is live, of a runtime set up by `Agent::install`, with
    // its realm state installed (`current_ctx`'s invariant), for as long as that `Cx` lives.
    // The handle is dropped before it (the callers keep it for one operation, above) and is
    // never leaked, so handles nest.
    (!ctx.is_null()).then(|| unsafe { Cx::enter(ctx) })
}

/// `? Call(intrinsic, this, args)` for a captured intrinsic of the current realm.
pub(super) fn call_intrinsic(
    cx: &mut Cx,
    name: Intrinsic,
    this: &Value,
    args: &[Value],
) -> JsResult<Value> {
    let function = cx.realm_state().intrinsic(name);
    call(&function, this, args, cx)
}

/// `? Construct(constructor, args)` (NewTarget = the constructor) for a captured intrinsic
/// constructor of the current realm.
pub(super) fn construct_intrinsic(cx: &mut Cx, name: Intrinsic, args: &[Value]) -> JsResult<Value> {
    let constructor = cx.realm_state().intrinsic(name);
    if !constructor.is_object() {
        return Err(throw_type_error(format!(
            "{} is not available",
            name.name()
        )));
    }
    let mut raw_args: Vec<q::JSValue> = args.iter().map(Value::raw).collect();
    // QuickJS reads `argc` values from the buffer: a count it cannot take is an error, not a
    // longer read.
    let Ok(argc) = c_int::try_from(raw_args.len()) else {
        return Err(throw_range_error("too many arguments"));
    };
    // SAFETY: `cx`'s context is live (`Cx`'s invariant); the constructor and the arguments are
    // live values of its runtime (`Value`'s invariant), borrowed for the call: `args` is
    // borrowed for the whole call, so the copies in `raw_args` stay valid, and `raw_args` holds
    // exactly `argc` of them. `JS_CallConstructor` passes `JS_CALL_FLAG_COPY_ARGV`, so the
    // buffer is only read, and takes no count. Script may run (a new error calls
    // `Error.prepareStackTrace`), with `cx` borrowed mutably. The result is owned, or
    // `JS_EXCEPTION`, as `check` takes it.
    let raw =
        unsafe { q::JS_CallConstructor(cx.raw(), constructor.raw(), argc, raw_args.as_mut_ptr()) };
    check(cx, raw)
}

/// Whether `value` is an `ArrayBuffer` (not shared).
#[inline]
pub(super) fn is_array_buffer(value: &Value) -> bool {
    // SAFETY: `value` is an object and owns a count of it (`Value`'s invariant), so it is
    // allocated; `JS_IsArrayBuffer` reads its tag and class id.
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
///
/// What the callers' raw accesses rely on: the pointer is non-null, and the block is
/// allocated, `len` bytes long, initialized (QuickJS zero-fills a new block; a `ByteBlock`'s
/// is a filled `Vec`), and stays so at that address until the buffer is detached,
/// transferred or resized, which only script and the engine's own operations on the buffer
/// (`detach_array_buffer`, `transfer_array_buffer`) do; `value` keeps the buffer itself alive.
/// A caller that lends the bytes to a closure pins them with [`Pin`].
pub(super) fn buffer_data(cx: &mut Cx, value: &Value) -> Option<(*mut u8, usize)> {
    if let Some(data) = array_buffer_data(value) {
        return data;
    }
    // (Only a `SharedArrayBuffer` gets here, which is never detached.)
    if !is_shared_buffer(cx, value) {
        return None;
    }
    let mut size: q::size_t = 0;
    // SAFETY: `cx`'s context is live (`Cx`'s invariant) and `value` a live buffer object of its
    // runtime (`Value`'s invariant), a `SharedArrayBuffer` (checked above), which cannot be
    // detached, so QuickJS throws nothing: it writes the byte length to `size`, a valid
    // `size_t`, and returns the block. No script runs.
    let data = unsafe { q::JS_GetArrayBuffer(cx.raw(), &mut size, value.raw()) };
    if data.is_null() {
        // Not reached (the buffer is not detached); QuickJS would have thrown.
        drop(take_exception(cx));
        return None;
    }
    Some((data, usize::try_from(size).unwrap_or(0)))
}

/// The leading fields of quickjs.c's `JSArrayBuffer`, the state of an `ArrayBuffer` or a
/// `SharedArrayBuffer` object (its `u.array_buffer`, which `JS_GetOpaque` returns for the
/// object's own class: the member shares the union's first word with `opaque`), in the
/// quickjs-ng the pinned `rquickjs-sys` (`=0.14.0`) builds:
/// `{ int byte_length; int max_byte_length; uint8_t detached; uint8_t immutable; uint8_t
/// shared; uint8_t *data; ... }`. The built-in getters read exactly these (`detached` is
/// `abuf->detached`, `resizable` and `growable` are `max_byte_length >= 0`), and
/// `JS_GetArrayBuffer` returns `data`; reading them here spares a call of a getter (a JS
/// function call) per chunk. `buffer_tests::raw_slots_match_the_getters` checks this layout
/// against those getters and `JS_GetArrayBuffer`.
#[repr(C)]
struct RawArrayBuffer {
    byte_length: c_int,
    max_byte_length: c_int,
    detached: u8,
    immutable: u8,
    shared: u8,
    data: *mut u8,
}

/// The leading fields of quickjs.c's `JSTypedArray`, the state of a typed array or a
/// `DataView` (its `u.typed_array`, which `JS_GetOpaque` returns for the object's own class),
/// in the same quickjs-ng: `{ struct list_head link; JSObject *obj; JSObject *buffer; uint32_t
/// offset; uint32_t length; bool track_rab; }`. The `buffer` getters return `buffer`; checked by
/// the same test.
#[repr(C)]
struct RawTypedArray {
    link: [*mut std::ffi::c_void; 2],
    obj: *mut std::ffi::c_void,
    buffer: *mut std::ffi::c_void,
    offset: u32,
    length: u32,
    track_rab: bool,
}

/// The state of an `ArrayBuffer` or a `SharedArrayBuffer`, as [`raw_buffer_state`] reads it.
#[derive(Clone, Copy)]
struct BufferState {
    /// `[[ArrayBufferByteLength]]` (0 once detached).
    byte_length: u64,
    /// IsDetachedBuffer.
    detached: bool,
    /// IsResizableArrayBuffer, or a growable `SharedArrayBuffer`.
    resizable: bool,
}

/// [`buffer_data`] of an `ArrayBuffer` (`None` for anything else, a `SharedArrayBuffer`
/// included), read from its state (`RawArrayBuffer`: `detached`, `data`, `byte_length`, what
/// `JS_GetArrayBuffer` reads) with no context: the per-chunk reads of a BYOB read ask for it
/// several times, from operations without a context.
fn array_buffer_data(value: &Value) -> Option<Option<(*mut u8, usize)>> {
    if !is_array_buffer(value) {
        return None;
    }
    // SAFETY: `value` is a live `ArrayBuffer` (checked above; it owns a count, `Value`'s
    // invariant), so `JS_GetOpaque` with its own class id returns its `JSArrayBuffer`, which
    // the object owns while it lives.
    let state = unsafe { q::JS_GetOpaque(value.raw(), class_of(value)) }.cast::<RawArrayBuffer>();
    // SAFETY: null, or the object's `JSArrayBuffer`, whose leading fields are `RawArrayBuffer`;
    // it stays allocated while `value` holds the object, and no script runs during these
    // reads, so nothing writes it meanwhile.
    let Some(state) = (unsafe { state.as_ref() }) else {
        return Some(None);
    };
    // (`JS_GetArrayBuffer` throws for a detached buffer; a null block is no data either.)
    if state.detached != 0 || state.data.is_null() {
        return Some(None);
    }
    Some(Some((
        state.data,
        usize::try_from(state.byte_length).unwrap_or(0),
    )))
}

/// The state of `value` if it is an `ArrayBuffer` or a `SharedArrayBuffer`.
fn raw_buffer_state(cx: &Cx, value: &Value) -> Option<BufferState> {
    if !is_array_buffer(value) && !is_shared_buffer(cx, value) {
        return None;
    }
    // SAFETY: `value` is a live `ArrayBuffer` or `SharedArrayBuffer` (checked above; it owns a
    // count, `Value`'s invariant), so `JS_GetOpaque` with its own class id returns its
    // `JSArrayBuffer`, which the object owns while it lives (a buffer always has one).
    let state = unsafe { q::JS_GetOpaque(value.raw(), class_of(value)) }.cast::<RawArrayBuffer>();
    // SAFETY: non-null, the object's `JSArrayBuffer`, whose leading fields are
    // `RawArrayBuffer` ([`RawArrayBuffer`]); it stays allocated while `value` holds the object,
    // and no script runs during these reads, so nothing writes it meanwhile.
    let state = unsafe { state.as_ref() }?;
    Some(BufferState {
        byte_length: u64::try_from(state.byte_length).unwrap_or(0),
        detached: state.detached != 0,
        resizable: state.max_byte_length >= 0,
    })
}

/// A typed array's or `DataView`'s state, read from its `JSTypedArray` (`None` for anything
/// else): `[[ViewedArrayBuffer]]` (as the `buffer` getters read it), `[[ByteOffset]]`, its byte
/// length as made (for a view whose length does not track its buffer's) and whether it tracks.
fn raw_view(cx: &Cx, value: &Value) -> Option<(Value, u64, u64, bool)> {
    // SAFETY: `value` is a live typed array or `DataView` (the caller's check, and it owns a
    // count), so `JS_GetOpaque` with its own class id returns its `JSTypedArray`, which the
    // object owns while it lives.
    let state = unsafe { q::JS_GetOpaque(value.raw(), class_of(value)) }.cast::<RawTypedArray>();
    // SAFETY: non-null, the object's `JSTypedArray`, whose leading fields are `RawTypedArray`;
    // allocated while `value` holds the object, with no script running during the read.
    let state = unsafe { state.as_ref() }?;
    if state.buffer.is_null() {
        return None;
    }
    // `state.buffer` is the view's buffer object, which the view holds a count of for its life
    // (quickjs.c's `typed_array_init` dups it), so it is a live object of `cx`'s runtime, as
    // `dup_raw` requires; the returned value takes a count of its own.
    let buffer = Value::dup_raw(cx.rt(), q::JS_MKPTR(q::JS_TAG_OBJECT, state.buffer));
    Some((
        buffer,
        state.offset.into(),
        state.length.into(),
        state.track_rab,
    ))
}

/// `IsDetachedBuffer` for an `ArrayBuffer` (false for anything else), read from its state
/// (as the `detached` getter does): `JS_GetArrayBuffer` would throw (and a thrown error runs a
/// script's `Error.prepareStackTrace`, even when cleared). (The library reads it through
/// `array_buffer_data`; the layout test checks this one against the getter.)
#[cfg(test)]
pub(super) fn is_detached(cx: &mut Cx, buffer: &Value) -> bool {
    if !is_array_buffer(buffer) {
        return false;
    }
    raw_buffer_state(cx, buffer).is_some_and(|state| state.detached)
}

/// Whether an `ArrayBuffer` was made immutable (`transferToImmutable`).
pub(super) fn is_immutable(buffer: &Value) -> bool {
    // SAFETY: `buffer` is an object and owns a count of it (`Value`'s invariant), so it is
    // allocated. `JS_IsImmutableArrayBuffer` reads its tag and class, and for an `ArrayBuffer`
    // the flag in its opaque `JSArrayBuffer`, which the object owns while it lives (-1 for
    // anything else).
    buffer.is_object() && unsafe { q::JS_IsImmutableArrayBuffer(buffer.raw()) } == 1
}

/// `IsResizableArrayBuffer` (an `ArrayBuffer` with a max byte length, a growable
/// `SharedArrayBuffer`), read from its state as the `resizable` / `growable` getters do.
pub(super) fn is_resizable(cx: &mut Cx, buffer: &Value) -> bool {
    raw_buffer_state(cx, buffer).is_some_and(|state| state.resizable)
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
    // SAFETY: `value` is an object and owns a count of it (`Value`'s invariant), so it is
    // allocated; `JS_GetTypedArrayType` reads its tag and class id (-1 for anything but a
    // typed array).
    typed_array_kind(unsafe { q::JS_GetTypedArrayType(value.raw()) })
}

/// Whether `value` is a `DataView`.
#[inline]
pub(super) fn is_data_view(value: &Value) -> bool {
    // SAFETY: `value` is an object and owns a count of it (`Value`'s invariant), so it is
    // allocated; `JS_IsDataView` reads its tag and class id.
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
    /// IsArrayBufferViewOutOfBounds: the buffer is detached, or (resizable) shrank below the
    /// view.
    pub(super) out_of_bounds: bool,
}

/// The slots of `value` if it is a typed array or a `DataView`.
///
/// Nothing here makes QuickJS throw (an error thrown and cleared would still run a script's
/// `Error.prepareStackTrace`): the cases where a C accessor or a getter throws (a detached
/// buffer, a view out of bounds of a resizable one) are told apart first, from the view's and
/// its buffer's state ([`RawTypedArray`], [`RawArrayBuffer`]).
pub(super) fn view_slots(cx: &mut Cx, value: &Value) -> Option<ViewSlots> {
    let (kind, getters) = if let Some(kind) = typed_array_kind_of(value) {
        (
            ViewKind::Typed(kind),
            [
                Intrinsic::TypedArrayPrototypeByteOffset,
                Intrinsic::TypedArrayPrototypeByteLength,
            ],
        )
    } else if is_data_view(value) {
        (
            ViewKind::DataView,
            [
                Intrinsic::DataViewPrototypeByteOffset,
                Intrinsic::DataViewPrototypeByteLength,
            ],
        )
    } else {
        return None;
    };
    let (buffer, offset, length, tracking) = raw_view(cx, value)?;
    let state = raw_buffer_state(cx, &buffer)?;
    let mut slots = ViewSlots {
        kind,
        buffer,
        resizable: state.resizable,
        byte_offset: 0,
        byte_length: 0,
        out_of_bounds: true,
    };
    // IsArrayBufferViewOutOfBounds, as quickjs.c's `typed_array_is_oob` decides it (and a
    // `DataView`'s getters, which throw exactly then): detached, or the view starts past the
    // buffer's end, or a view of fixed length ends past it.
    if state.detached
        || offset > state.byte_length
        || (!tracking && offset + length > state.byte_length)
    {
        return Some(slots);
    }
    slots.out_of_bounds = false;
    if !tracking {
        // A view of fixed length in bounds: its slots as made.
        slots.byte_offset = offset;
        slots.byte_length = length;
        return Some(slots);
    }
    // A view whose length tracks a resizable buffer's: the getters compute its current length
    // (in bounds, checked above, so a `DataView`'s do not throw).
    let byte_offset = call_intrinsic(cx, getters[0], value, &[]);
    let byte_length = call_intrinsic(cx, getters[1], value, &[]);
    slots.byte_offset = number_of(byte_offset);
    slots.byte_length = number_of(byte_length);
    Some(slots)
}

// ---------------------------------------------------------------------------------------------
// Array buffers and views
// ---------------------------------------------------------------------------------------------

/// Converts a JS value to an `ArrayBufferView` (<https://webidl.spec.whatwg.org/#ArrayBufferView>,
/// without `[AllowShared]` or `[AllowResizable]`): anything else, and views on a
/// `SharedArrayBuffer` or a resizable `ArrayBuffer`, are TypeErrors.
pub fn array_buffer_view(value: &Value, what: &str, ctx: &mut Cx) -> JsResult<ViewRecord> {
    let error = |message: &str| throw_type_error(format!("{what} {message}"));
    // 1. Not an object with [[ViewedArrayBuffer]]: a TypeError.
    let slots = view_slots(ctx, value).ok_or_else(|| error("must be an ArrayBufferView"))?;
    // 2. Without [AllowShared], a view on a SharedArrayBuffer is a TypeError.
    if !is_array_buffer(&slots.buffer) {
        return Err(error("must not be backed by a SharedArrayBuffer"));
    }
    // 3. Without [AllowResizable], a view on a resizable ArrayBuffer is a TypeError.
    if slots.resizable {
        return Err(error("must not be backed by a resizable ArrayBuffer"));
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
    if let Some(data) = array_buffer_data(buffer.0.as_value()) {
        return data.is_none();
    }
    let Some(mut cx) = current_cx() else {
        return true;
    };
    buffer_data(&mut cx, buffer.0.as_value()).is_none()
}

/// `[[ArrayBufferByteLength]]` (0 once detached).
pub fn array_buffer_byte_length(buffer: &JsArrayBuffer) -> u64 {
    if let Some(data) = array_buffer_data(buffer.0.as_value()) {
        return data.map_or(0, |(_, len)| len as u64);
    }
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
        Intrinsic::ArrayBufferPrototypeTransferToFixedLength,
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
    // SAFETY: `data` is the live block of `len` bytes (`buffer_data`'s contract) and
    // `start <= start + count <= len` (checked above), so the offset pointer stays within it.
    let source = unsafe { data.add(start) };
    // SAFETY: `ctx`'s context is live (`Cx`'s invariant). `source` is readable for `count`
    // bytes (above), and stays so during the call: nothing detaches or resizes the buffer
    // (no script runs: QuickJS only allocates the new buffer, which cannot free the old one,
    // as `buffer` holds it, and then copies). The result is owned, or `JS_EXCEPTION`.
    let raw = unsafe { q::JS_NewArrayBufferCopy(ctx.raw(), source, count as q::size_t) };
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
            let [buffer_arg, offset_arg, length_arg] = &args;
            let mut raw_args = [buffer_arg.raw(), offset_arg.raw(), length_arg.raw()];
            // SAFETY: `ctx`'s context is live (`Cx`'s invariant); `raw_args` holds exactly the
            // 3 values `argc` says, live values of its runtime (`Value`'s invariant) that
            // `args` owns for the whole call; QuickJS only reads them (`JSValueConst`) and
            // takes no count. With no new target, the object gets the realm's prototype. The
            // result is owned, or `JS_EXCEPTION`, as `check` takes it.
            let raw = unsafe {
                q::JS_NewTypedArray(ctx.raw(), 3, raw_args.as_mut_ptr(), typed_array_enum(kind))
            };
            check(ctx, raw)?
        }
        ViewKind::DataView => construct_intrinsic(ctx, Intrinsic::DataView, &args)?,
    };
    Ok(Object::from_value_unchecked(value))
}

/// `! CopyDataBlockBytes(to.[[ArrayBufferData]], toIndex, from.[[ArrayBufferData]], fromIndex,
/// count)`: one copy. Returns false (and copies nothing) where
/// [`can_copy_data_block_bytes`](crate::engine::can_copy_data_block_bytes)
/// would be false, and where `to` is immutable (its bytes never change; the bytes of a buffer
/// lent to a closure are, see [`Pin`]).
pub fn copy_data_block_bytes(
    to_buffer: &JsArrayBuffer,
    to_index: u64,
    from_buffer: &JsArrayBuffer,
    from_index: u64,
    count: u64,
) -> bool {
    if same_buffer(to_buffer, from_buffer) || is_immutable(to_buffer.0.as_value()) {
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
    // SAFETY: `from` and `to` are live blocks of `from_len` and `to_len` bytes
    // (`buffer_data`'s contract; no script ran since), and `from_index + count <= from_len`,
    // `to_index + count <= to_len` (checked above), so both offset pointers stay within them.
    let (source, destination) = unsafe { (from.add(from_index), to.add(to_index)) };
    // SAFETY: `source` is readable and `destination` writable for `count` bytes (above). No
    // reference to either block is live: the engine lends a block's bytes only to closures,
    // which run nothing of the engine (their contracts), and `to` is not pinned for one
    // (checked mutable above). The buffers are different objects, so their blocks do not
    // overlap (`ptr::copy` would allow it anyway).
    unsafe { std::ptr::copy(source, destination, count) };
    true
}

/// `Construct(%ArrayBuffer%, « byteLength »)`: a RangeError when it cannot be allocated.
pub fn new_array_buffer(byte_length: u64, ctx: &mut Cx) -> JsResult<JsArrayBuffer> {
    crate::engine::count_objects(1);
    // QuickJS's buffers are limited to 2 GB.
    let Ok(length) = i32::try_from(byte_length) else {
        return Err(throw_range_error("Array buffer allocation failed"));
    };
    // SAFETY: `ctx`'s context is live (`Cx`'s invariant). With a null source,
    // `JS_NewArrayBufferCopy` allocates a zeroed block of `length` bytes and reads nothing.
    // The result is owned, or `JS_EXCEPTION`, as `check` takes it.
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
///
/// `f` must not run script nor call into the engine (it gets no context; its one caller
/// passes `<[u8]>::to_vec`).
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
    // SAFETY: `data` is the live block of `size` bytes (`buffer_data`'s contract) and
    // `offset <= end <= size`, so the offset pointer stays within it.
    let start = unsafe { data.add(offset) };
    // SAFETY: `start` is valid for reads of `len` bytes (above), initialized, and `len` is at
    // most a buffer's length (below 2^31). While the slice lives nothing writes, moves or frees
    // them: that takes script or an engine operation, and `f` runs neither (this function's
    // contract; `to_vec` only copies), and no `&mut` slice of the block is live (the engine
    // lends one only to closures, which call nothing of it).
    let bytes = unsafe { std::slice::from_raw_parts(start, len) };
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
    if bytes.len() >= UNZEROED_FROM {
        return new_uint8_array_unzeroed(bytes, ctx);
    }
    // An empty slice's pointer is dangling, which C's `memcpy` may not be given even for no
    // bytes: pass null, for which QuickJS copies nothing.
    let source = if bytes.is_empty() {
        std::ptr::null()
    } else {
        bytes.as_ptr()
    };
    // SAFETY: `ctx`'s context is live (`Cx`'s invariant). `source` is null with a length of 0
    // (QuickJS allocates and copies nothing), or readable for `bytes.len()` bytes for the
    // call (`bytes` is borrowed), which QuickJS copies into the new buffer. The result is
    // owned, or `JS_EXCEPTION`, as `check` takes it.
    let raw = unsafe { q::JS_NewUint8ArrayCopy(ctx.raw(), source, bytes.len() as q::size_t) };
    check(ctx, raw)
}

/// Counts the bytes of a chunk script enqueued into a value stream. Nothing to do here:
/// QuickJS frees a buffer when its last reference goes.
#[inline]
pub fn note_chunk_bytes(_chunk: &Value, _ctx: &mut Cx) {}

/// Counts `bytes` of a chunk a native consumer copied out and let go. Nothing to do here:
/// QuickJS frees a buffer when its last reference goes (the Boa backend counts them toward a
/// collection).
pub fn note_consumed_bytes(_bytes: usize) {}

/// From this many bytes on, [`new_uint8_array`] fills a block it allocated itself instead of
/// calling `JS_NewUint8ArrayCopy`, which zero-fills its block before copying into it. Below
/// it the extra constructor call costs more than the zero-fill saves.
const UNZEROED_FROM: usize = 4096;

/// [`new_uint8_array`] for a large chunk: the block comes from the runtime's allocator
/// (`js_malloc`, counted against the runtime's memory limit as `JS_NewUint8ArrayCopy`'s block
/// is), is filled once, and becomes a fixed-length `ArrayBuffer`'s data, viewed by a new
/// `Uint8Array`.
fn new_uint8_array_unzeroed(bytes: &[u8], ctx: &mut Cx) -> JsResult<Value> {
    // SAFETY: `ctx`'s context is live (`Cx`'s invariant). On failure `js_malloc` returns null
    // with an out-of-memory exception pending.
    let data = unsafe { q::js_malloc(ctx.raw(), bytes.len() as q::size_t) }.cast::<u8>();
    if data.is_null() {
        return Err(take_exception(ctx));
    }
    // SAFETY: `data` is a fresh block of `bytes.len()` bytes (non-null, checked above) that
    // nothing else references, and `bytes` is a borrowed slice: disjoint, both valid for the
    // length.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), data, bytes.len()) };
    // SAFETY: `ctx` is live; `data` is a `js_malloc` block of `bytes.len()` (at least 4096,
    // below 2^31 or QuickJS refuses it) initialized bytes. On success the buffer owns it,
    // with `runtime_heap_realloc` (QuickJS's own realloc for the blocks it allocates) as its
    // realloc function: QuickJS frees or resizes it through that function from then on. On
    // failure QuickJS stored it nowhere (the half-made object has no data yet): it is still
    // ours, and freed below.
    let raw = unsafe {
        q::JS_NewArrayBuffer(
            ctx.raw(),
            data,
            bytes.len() as q::size_t,
            0,
            Some(runtime_heap_realloc),
            std::ptr::null_mut(),
            false,
        )
    };
    // SAFETY: reads the tag only.
    if unsafe { q::JS_IsException(raw) } {
        // SAFETY: `data` came from `js_malloc` on this context and, the buffer not made, no
        // one else holds it (above): freed once, here.
        unsafe { q::js_free(ctx.raw(), data.cast()) };
    }
    let buffer = check(ctx, raw)?;
    let mut args = [buffer.raw()];
    // SAFETY: `ctx` is live; `args` holds one borrowed value, the new `ArrayBuffer` (`buffer`
    // keeps it alive for the call). With no new target, the intrinsic Uint8Array constructor
    // views the whole buffer and runs no script. The result is owned, or `JS_EXCEPTION`.
    let raw = unsafe {
        q::JS_NewTypedArray(
            ctx.raw(),
            1,
            args.as_mut_ptr(),
            q::JSTypedArrayEnum_JS_TYPED_ARRAY_UINT8,
        )
    };
    check(ctx, raw)
}

/// The realloc function of the blocks [`new_uint8_array_unzeroed`] allocates: what QuickJS's
/// own `js_array_buffer_realloc` does for the buffers it allocates, `js_realloc_rt`.
///
/// # Safety
///
/// Only QuickJS calls it, as a fixed-length buffer's realloc function: from the finalizer and
/// `JS_DetachArrayBuffer` with `size` 0 (to free) and from `transfer` with a new length, on the
/// thread running `rt`, with `ptr` the buffer's current block, which came from `js_malloc` on
/// one of `rt`'s contexts or from an earlier call of this function, and is never passed again
/// after a call that freed it (QuickJS clears the buffer's data then).
unsafe extern "C" fn runtime_heap_realloc(
    rt: *mut q::JSRuntime,
    _opaque: *mut std::ffi::c_void,
    ptr: *mut std::ffi::c_void,
    size: q::size_t,
) -> *mut std::ffi::c_void {
    // SAFETY: `ptr` is a live block of `rt`'s allocator (this function's contract), which
    // `js_realloc_rt` frees for a size of 0 and otherwise resizes (null on failure, the old
    // block untouched).
    unsafe { q::js_realloc_rt(rt, ptr, size) }
}

/// Runs `f` on the bytes of a `Uint8Array` (of any realm). `None` when `value` is not a `Uint8Array` object (a `Uint8ClampedArray` is
/// not one). Runs no script; `f` must not run script either.
pub fn uint8_array_bytes<R>(value: &Value, ctx: &mut Cx, f: impl FnOnce(&[u8]) -> R) -> Option<R> {
    if typed_array_kind_of(value) != Some(TypedArrayKind::Uint8) {
        return None;
    }
    with_buffer_source_bytes(value, ctx, f)
}

/// Keeps an `ArrayBuffer` immutable while its bytes are lent to a closure as a slice, and
/// restores the flag when dropped (when unwinding too).
///
/// The closures get no context, and their contracts say they run no script nor call into the
/// engine: that is what keeps the slice valid. The pin bounds the damage should one break the
/// contract, which is possible from safe code: the API has context-free operations that may
/// run script (`Object::set_prototype` runs a proxy's trap), and `rust::with_chunk_bytes` lends
/// the bytes to code outside the crate. QuickJS checks the flag before it detaches, transfers
/// or resizes a buffer (`transfer*`, `resize`), and so do the backend's own detach and
/// in-place writes (`detach_array_buffer`, `with_array_buffer_bytes_mut`,
/// `copy_data_block_bytes`, `with_uint8_array_bytes_mut`): while pinned, the block stays
/// allocated and in place, whatever runs. Writes are refused too (typed array and `DataView`
/// stores, `set`, `fill`, `copyWithin`, `reverse`, `sort`, `setFromBase64`), except quickjs-ng's
/// `Atomics` operations, which do not check the flag: those could still change (never free or
/// move) lent bytes under a contract-breaking closure. A `SharedArrayBuffer` has no such flag:
/// its bytes are copied before they are lent.
struct Pin<'a> {
    buffer: &'a Value,
    /// Whether the pin set the flag (and so clears it): a buffer that was immutable stays so.
    set: bool,
}

impl<'a> Pin<'a> {
    /// Pins `buffer` if it is a mutable `ArrayBuffer` (anything else is left as it is).
    fn new(buffer: &'a Value) -> Self {
        let set = is_array_buffer(buffer) && !is_immutable(buffer);
        if set {
            // SAFETY: `buffer` is a live `ArrayBuffer` object (`Value`'s invariant; checked
            // just above). `JS_SetImmutableArrayBuffer` reads its class and sets the flag in
            // its opaque `JSArrayBuffer`, which the object owns while it lives; it takes no
            // context and runs nothing.
            unsafe { q::JS_SetImmutableArrayBuffer(buffer.raw(), true) };
        }
        Self { buffer, set }
    }
}

impl Drop for Pin<'_> {
    fn drop(&mut self) {
        if self.set {
            // SAFETY: as in `Pin::new`: `self.buffer` is still that `ArrayBuffer`, alive (the
            // pin borrows the value that owns a count of it).
            unsafe { q::JS_SetImmutableArrayBuffer(self.buffer.raw(), false) };
        }
    }
}

/// Runs `f` on the bytes of a buffer source (an `ArrayBuffer`, `SharedArrayBuffer` or
/// `ArrayBufferView`) without copying them (a `SharedArrayBuffer`'s are copied). `None` when
/// `value` is not a buffer source. `f` must not run script nor call into the engine (it gets
/// no context); should it anyway, the buffer is pinned ([`Pin`]): script gets a TypeError
/// where it would detach, resize or write it.
pub fn with_buffer_source_bytes<R>(
    value: &Value,
    ctx: &mut Cx,
    f: impl FnOnce(&[u8]) -> R,
) -> Option<R> {
    if let Some((buffer, start, len)) = fixed_view_bytes(ctx, value) {
        let pin = Pin::new(&buffer);
        // SAFETY: `start` is valid for reads of `len` initialized bytes (`fixed_view_bytes`'s
        // contract), which stay allocated, in place and unchanged while `f` runs, for the
        // reasons given for the general case below (the buffer is an `ArrayBuffer`, pinned).
        let bytes = unsafe { std::slice::from_raw_parts(start, len) };
        let result = f(bytes);
        drop(pin);
        return Some(result);
    }
    let (buffer, shared, offset, len) = buffer_source_range(value, true, "The chunk", ctx).ok()?;
    let Some((data, size)) = buffer_data(ctx, &buffer) else {
        // Detached: no bytes.
        return Some(f(&[]));
    };
    if offset.checked_add(len)? > size {
        return None;
    }
    // SAFETY: `data` is the live block of `size` bytes (`buffer_data`'s contract) and
    // `offset + len <= size` (checked above), so the offset pointer stays within it.
    let start = unsafe { data.add(offset) };
    if shared {
        // SAFETY: `start` is valid for reads of `len` initialized bytes (above; `len` is below
        // 2^31), and nothing writes them while the slice lives, which ends with `to_vec`: no
        // script runs, and no other thread reaches the block (QuickJS allocates a shared block
        // in its own runtime, as no host installs `JS_SetSharedArrayBufferFunctions`, and
        // structured clone refuses a `SharedArrayBuffer`).
        let copy = unsafe { std::slice::from_raw_parts(start, len) }.to_vec();
        return Some(f(&copy));
    }
    let pin = Pin::new(&buffer);
    // SAFETY: `start` is valid for reads of `len` initialized bytes (above; `len` is below
    // 2^31). They stay allocated, in place and unchanged while the slice lives, that is while
    // `f` runs: only script or an engine operation could detach, resize or write the buffer,
    // and `f` runs neither (this function's contract; should it anyway, the pin still keeps
    // the block allocated and in place). No `&mut` slice of the block is live: the engine
    // lends one only to closures, which call nothing of it, from `with_array_buffer_bytes_mut`
    // and `with_uint8_array_bytes_mut`, which refuse a pinned (immutable) buffer besides; and
    // `ctx` is borrowed by this call for the rest.
    let bytes = unsafe { std::slice::from_raw_parts(start, len) };
    let result = f(bytes);
    drop(pin);
    Some(result)
}

/// The usual chunk's bytes, read straight from QuickJS's state: for a typed array whose
/// length does not track its buffer, over an `ArrayBuffer` that is neither resizable nor
/// detached, its buffer and the start and length of its bytes (within the buffer's block, so
/// valid for reads while nothing detaches, resizes or frees the buffer). `None` for anything
/// else, which takes the general path (`buffer_source_range`, `buffer_data`): for these views
/// that path finds the same bytes, with a dozen calls more per chunk.
pub(super) fn fixed_view_bytes(cx: &Cx, value: &Value) -> Option<(Value, *const u8, usize)> {
    typed_array_kind_of(value)?;
    let (buffer, offset, length, tracking) = raw_view(cx, value)?;
    if tracking || !is_array_buffer(&buffer) {
        return None;
    }
    // SAFETY: `buffer` is a live `ArrayBuffer` (checked above; it owns a count), so
    // `JS_GetOpaque` with its own class id returns its `JSArrayBuffer`, which it owns while it
    // lives; the leading fields are `RawArrayBuffer`'s. No script runs during these reads.
    let state = unsafe {
        q::JS_GetOpaque(buffer.raw(), class_of(&buffer))
            .cast::<RawArrayBuffer>()
            .as_ref()
    }?;
    let size = u64::try_from(state.byte_length).ok()?;
    if state.detached != 0
        || state.shared != 0
        || state.max_byte_length >= 0
        || state.data.is_null()
    {
        return None;
    }
    // A fixed-length view of a fixed-length buffer is within it (checked all the same).
    let end = offset.checked_add(length)?;
    if end > size {
        return None;
    }
    let offset = usize::try_from(offset).ok()?;
    let len = usize::try_from(length).ok()?;
    // SAFETY: `data` is the buffer's live block of `size` bytes and `offset + len <= size`
    // (checked above), so the pointer stays within the block.
    let start = unsafe { state.data.add(offset) }.cast_const();
    Some((buffer, start, len))
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
/// is detached or immutable, or the range is out of bounds. `f` must not run script nor call
/// into the engine (it gets no context); the buffer is pinned meanwhile ([`Pin`]), so script
/// that runs anyway cannot detach, resize or write it, and a second lending of its bytes is
/// refused.
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
    // SAFETY: `data` is the live block of `size` bytes (`buffer_data`'s contract) and
    // `offset + len <= size` (checked above), so the offset pointer stays within it.
    let start = unsafe { data.add(offset) };
    let pin = Pin::new(buffer.0.as_value());
    // SAFETY: `start` is valid for reads and writes of `len` initialized bytes (above; `len`
    // is below 2^31), and they stay allocated and in place while the slice lives (`f` runs):
    // only script or an engine operation could detach or resize the buffer, and `f` runs
    // neither (this function's contract; should it anyway, the pin makes those refuse). No
    // other slice of the block is live: one lent earlier by this function or
    // `with_buffer_source_bytes` pinned the buffer, which was then immutable and refused
    // above, and the closures of the other lendings call nothing of the engine (their
    // contracts); `f` asks for none either (it calls nothing of the engine; the lendings of
    // mutable bytes would refuse the pinned buffer anyway). For the same reason nothing else
    // reads or writes the bytes until `f` returns.
    let bytes = unsafe { std::slice::from_raw_parts_mut(start, len) };
    let result = f(bytes);
    drop(pin);
    Some(result)
}

/// Whether `a` and `b` are the same `ArrayBuffer` object.
pub fn same_buffer(a: &JsArrayBuffer, b: &JsArrayBuffer) -> bool {
    Object::equals(&a.0, &b.0)
}

/// The pin ([`Pin`]) under a closure that breaks its contract.
#[cfg(test)]
mod pin_tests {
    use super::super::runtime::{eval_script, Runtime};
    use super::super::*;

    fn eval(cx: &mut Cx, source: &str) -> Value {
        match eval_script(cx, "test.js", source) {
            Ok(v) => v,
            Err(e) => panic!("{source}: {e}"),
        }
    }

    /// Script that runs while the bytes are lent (a proxy's trap, which the context-free
    /// `Object::set_prototype` runs) cannot transfer the buffer out from under the slice:
    /// the transfer throws, and the buffer is transferable again afterwards.
    #[test]
    fn lent_bytes_stay_put_while_script_runs() {
        let rt = Runtime::for_tests().0;
        let mut cx = rt.main_context();
        let chunk = eval(
            &mut cx,
            "globalThis.chunk = new Uint8Array([1, 2, 3]); chunk",
        );
        let proxy = eval(
            &mut cx,
            "new Proxy({}, { setPrototypeOf() { chunk.buffer.transfer(1 << 20); return true; } })",
        )
        .as_object()
        .expect("an object");
        let seen = with_buffer_source_bytes(&chunk, &mut cx, |bytes| {
            let set = proxy.set_prototype(None);
            (set, bytes.to_vec())
        });
        assert_eq!(seen, Some((false, vec![1, 2, 3])));
        let after = eval(
            &mut cx,
            "const mutable = !chunk.buffer.immutable; chunk.buffer.transfer(); \
             mutable && chunk.buffer.detached",
        );
        assert_eq!(after.as_boolean(), Some(true));
    }

    /// A second lending of the bytes of a buffer lent mutably is refused.
    #[test]
    fn nested_mutable_lending_is_refused() {
        let rt = Runtime::for_tests().0;
        let mut cx = rt.main_context();
        let value = eval(&mut cx, "new ArrayBuffer(4)");
        let buffer =
            clone::as_array_buffer(&value.as_object().expect("an object")).expect("an ArrayBuffer");
        let inner = with_array_buffer_bytes_mut(&buffer, 0, 4, |outer| {
            outer[0] = 7;
            with_array_buffer_bytes_mut(&buffer, 0, 4, |inner| inner[0] = 8)
        });
        assert_eq!(inner, Some(None));
        assert_eq!(
            with_array_buffer_bytes_mut(&buffer, 0, 1, |bytes| bytes[0]),
            Some(7)
        );
    }
}
