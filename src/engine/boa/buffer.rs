//! Array buffers and views: ArrayBufferView and BufferSource conversion, TransferArrayBuffer,
//! view construction per kind, byte copies, new `Uint8Array`s.

use boa_engine::{
    builtins::{
        array_buffer::{ArrayBuffer, SharedArrayBuffer},
        dataview::DataView,
        typed_array::TypedArray,
    },
    object::builtins::{AlignedVec, JsDataView, JsSharedArrayBuffer, JsTypedArray, JsUint8Array},
    Context, JsObject, JsValue,
};
use boa_engine::{object::builtins::JsArrayBuffer as BoaArrayBuffer, JsNativeError};

use super::*;

// ---------------------------------------------------------------------------------------------
// Array buffers and views
// ---------------------------------------------------------------------------------------------

/// Boa's typed array kind as the engine's.
pub(in crate::engine) fn typed_array_kind(
    kind: boa_engine::builtins::typed_array::TypedArrayKind,
) -> TypedArrayKind {
    use boa_engine::builtins::typed_array::TypedArrayKind as Boa;
    match kind {
        Boa::Int8 => TypedArrayKind::Int8,
        Boa::Uint8 => TypedArrayKind::Uint8,
        Boa::Uint8Clamped => TypedArrayKind::Uint8Clamped,
        Boa::Int16 => TypedArrayKind::Int16,
        Boa::Uint16 => TypedArrayKind::Uint16,
        Boa::Int32 => TypedArrayKind::Int32,
        Boa::Uint32 => TypedArrayKind::Uint32,
        Boa::BigInt64 => TypedArrayKind::BigInt64,
        Boa::BigUint64 => TypedArrayKind::BigUint64,
        Boa::Float16 => TypedArrayKind::Float16,
        Boa::Float32 => TypedArrayKind::Float32,
        Boa::Float64 => TypedArrayKind::Float64,
    }
}

/// The intrinsic view constructor (`%Uint8Array%`, ..., `%DataView%`) of the current realm.
fn view_constructor(kind: ViewKind, ctx: &Context) -> JsObject {
    let c = ctx.intrinsics().constructors();
    let standard = match kind {
        ViewKind::DataView => c.data_view(),
        ViewKind::Typed(kind) => match kind {
            TypedArrayKind::Int8 => c.typed_int8_array(),
            TypedArrayKind::Uint8 => c.typed_uint8_array(),
            TypedArrayKind::Uint8Clamped => c.typed_uint8clamped_array(),
            TypedArrayKind::Int16 => c.typed_int16_array(),
            TypedArrayKind::Uint16 => c.typed_uint16_array(),
            TypedArrayKind::Int32 => c.typed_int32_array(),
            TypedArrayKind::Uint32 => c.typed_uint32_array(),
            TypedArrayKind::BigInt64 => c.typed_bigint64_array(),
            TypedArrayKind::BigUint64 => c.typed_biguint64_array(),
            TypedArrayKind::Float16 => c.typed_float16_array(),
            TypedArrayKind::Float32 => c.typed_float32_array(),
            TypedArrayKind::Float64 => c.typed_float64_array(),
        },
    };
    standard.constructor()
}

/// Converts a JS value to an `ArrayBufferView` (<https://webidl.spec.whatwg.org/#ArrayBufferView>,
/// without `[AllowShared]` or `[AllowResizable]`): anything else, and views on a
/// `SharedArrayBuffer` or a resizable `ArrayBuffer`, are TypeErrors.
///
/// The slots are read through the built-in getters' internals, which run no script.
pub fn array_buffer_view(value: &Value, what: &str, ctx: &mut Cx) -> JsResult<ViewRecord> {
    let error = |message: &str| -> JsError {
        JsNativeError::typ()
            .with_message(format!("{what} {message}"))
            .into()
    };
    let Some(object) = value.js().as_object() else {
        return Err(error("must be an ArrayBufferView"));
    };
    let (kind, buffer) = if let Ok(typed) = JsTypedArray::from_object(object.clone()) {
        let kind = typed
            .kind()
            .map(typed_array_kind)
            .ok_or_else(|| error("must be an ArrayBufferView"))?;
        (ViewKind::Typed(kind), typed.buffer(ctx)?)
    } else if let Ok(view) = object.clone().downcast::<DataView>() {
        (ViewKind::DataView, JsDataView::from(view).buffer(ctx)?)
    } else {
        return Err(error("must be an ArrayBufferView"));
    };
    // 2. Without [AllowShared], a view on a SharedArrayBuffer is a TypeError.
    let buffer = buffer
        .as_object()
        .and_then(|b| BoaArrayBuffer::from_object(b).ok())
        .ok_or_else(|| error("must not be backed by a SharedArrayBuffer"))?;
    // 3. Without [AllowResizable], a view on a resizable ArrayBuffer is a TypeError.
    if is_resizable_array_buffer(&buffer.clone().into()) {
        return Err(error("must not be backed by a resizable ArrayBuffer"));
    }
    let (byte_offset, byte_length) = if buffer.data().is_none() {
        (0, 0)
    } else {
        match kind {
            ViewKind::Typed(_) => {
                // The TypedArray slots are public; no getter is involved.
                let buffer_length = buffer.byte_length();
                match object.downcast_ref::<TypedArray>() {
                    Some(typed) => (typed.byte_offset(), typed.byte_length(buffer_length)),
                    None => (0, 0),
                }
            }
            ViewKind::DataView => {
                // The getters throw only for a detached or out-of-bounds view: length 0.
                let view = JsDataView::from_object(object.clone())?;
                let offset = view.byte_offset(ctx).unwrap_or(0);
                let length = view.byte_length(ctx).unwrap_or(0);
                (offset, length)
            }
        }
    };
    Ok(ViewRecord {
        buffer: JsArrayBuffer(buffer),
        byte_offset,
        byte_length,
        kind,
    })
}

/// `! IsDetachedBuffer(buffer)`.
pub fn is_detached_buffer(buffer: &JsArrayBuffer) -> bool {
    buffer.0.data().is_none()
}

/// `[[ArrayBufferByteLength]]` (0 once detached).
pub fn array_buffer_byte_length(buffer: &JsArrayBuffer) -> u64 {
    buffer.0.byte_length() as u64
}

/// <https://streams.spec.whatwg.org/#can-transfer-array-buffer>
pub fn can_transfer_array_buffer(buffer: &JsArrayBuffer) -> bool {
    // 1. Assert: O is an Object.
    // 2. Assert: O has an [[ArrayBufferData]] internal slot.
    // 3. If ! IsDetachedBuffer(O) is true, return false.
    // 4. If SameValue(O.[[ArrayBufferDetachKey]], undefined) is false, return false.
    //    (Every buffer Boa's public API and script can make has the key undefined.)
    // 5. Return true.
    !is_detached_buffer(buffer)
}

/// <https://streams.spec.whatwg.org/#transfer-array-buffer>
///
/// Zero-copy: the data block moves to the new buffer.
pub fn transfer_array_buffer(buffer: &JsArrayBuffer, ctx: &mut Cx) -> JsResult<JsArrayBuffer> {
    crate::engine::count_objects(1);
    // 1. Assert: ! IsDetachedBuffer(O) is false.
    // 2. Let arrayBufferData be O.[[ArrayBufferData]].
    // 3. Let arrayBufferByteLength be O.[[ArrayBufferByteLength]].
    // 4. Perform ? DetachArrayBuffer(O).
    let data = buffer.0.detach(&JsValue::undefined())?;
    // 5. Return a new ArrayBuffer object, created in the current Realm, whose
    //    [[ArrayBufferData]] internal slot value is arrayBufferData and whose
    //    [[ArrayBufferByteLength]] internal slot value is arrayBufferByteLength.
    BoaArrayBuffer::from_byte_block(data, ctx)
        .map(JsArrayBuffer)
        .map_err(JsError::from)
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
    let block = {
        let Some(data) = buffer.0.data() else {
            return Err(JsNativeError::typ()
                .with_message("Cannot clone a detached ArrayBuffer")
                .into());
        };
        let start = usize::try_from(byte_offset).unwrap_or(usize::MAX);
        let end = usize::try_from(byte_offset.saturating_add(byte_length)).unwrap_or(usize::MAX);
        let Some(bytes) = data.get(start..end) else {
            return Err(JsNativeError::range()
                .with_message("The range to clone is outside the ArrayBuffer")
                .into());
        };
        AlignedVec::from_slice(0, bytes)
    };
    note_buffer_bytes(block.len());
    BoaArrayBuffer::from_byte_block(block, ctx)
        .map(JsArrayBuffer)
        .map_err(JsError::from)
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
    let constructor = view_constructor(kind, ctx);
    let buffer: JsObject = buffer.0.clone().into();
    // Offsets and lengths come from existing buffers, so they are far below 2^53.
    #[allow(clippy::cast_precision_loss)]
    let args = [
        JsValue::from(buffer),
        JsValue::from(byte_offset as f64),
        JsValue::from(length as f64),
    ];
    constructor
        .construct(&args, None, ctx)
        .map(Object::from)
        .map_err(JsError::from)
}

/// `! CopyDataBlockBytes(to.[[ArrayBufferData]], toIndex, from.[[ArrayBufferData]], fromIndex,
/// count)`: one slice copy. Returns false (and copies nothing) where
/// [`can_copy_data_block_bytes`](crate::engine::can_copy_data_block_bytes) would be false.
pub fn copy_data_block_bytes(
    to_buffer: &JsArrayBuffer,
    to_index: u64,
    from_buffer: &JsArrayBuffer,
    from_index: u64,
    count: u64,
) -> bool {
    if !crate::engine::can_copy_data_block_bytes(
        to_buffer,
        to_index,
        from_buffer,
        from_index,
        count,
    ) {
        return false;
    }
    // The checks above bound every index by a live buffer length, which fits in usize.
    let (to_index, from_index, count) = (to_index as usize, from_index as usize, count as usize);
    let (Some(mut to), Some(from)) = (to_buffer.0.data_mut(), from_buffer.0.data()) else {
        return false;
    };
    to[to_index..to_index + count].copy_from_slice(&from[from_index..from_index + count]);
    true
}

thread_local! {
    /// Bytes of `ArrayBuffer` data this backend has allocated since the last collection it asked
    /// for (per thread: Boa's collector is the thread's).
    ///
    /// Boa's collector counts only its own allocations (an `ArrayBuffer`'s object, not its data
    /// block), so script that makes a buffer per chunk (a JS transform's `encoder.encode(...)`,
    /// a byte stream's auto-allocated 64 KiB buffer) lets megabytes of dead data blocks pile up
    /// between the collections Boa triggers. The host's policy: once [`COLLECT_AFTER_BYTES`] of
    /// data blocks have been allocated here, the allocation first runs a full collection, at a
    /// point where Boa may run one itself (an allocation). Counting costs an add and a compare.
    static BUFFER_BYTES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// See [`BUFFER_BYTES`]: the least budget between two collections.
pub(crate) const COLLECT_AFTER_BYTES: usize = 16 << 20;

/// The most budget between two collections. (At 512 MiB, the bench's `textdecoder`, late in a
/// sitting whose heap is large, let so much dead text and so many buffers pile up that its
/// median tripled; at 64 MiB it stays at its floor.)
const COLLECT_AFTER_BYTES_MAX: usize = 64 << 20;

/// Bytes of dead buffer data a collection must be able to save per second it takes. A block
/// that is not reused is a fresh one, whose pages the kernel zero-fills one fault at a time:
/// about 9 µs per 64 KiB on the AMD VM (a Boa loop of `new Uint8Array(65536)` with no
/// collection, against 0.9 µs on QuickJS, which reuses the block), so 4 GB/s rates a
/// collection at no more than about half of what the faults it spares would cost.
const BYTES_SAVED_PER_SECOND: f64 = 4e9;

thread_local! {
    /// The budget until the next collection: [`COLLECT_AFTER_BYTES`], or more where the last
    /// collection took long (a large heap), so that collections never cost more than the
    /// fresh pages they spare.
    static BUDGET: std::cell::Cell<usize> = const { std::cell::Cell::new(COLLECT_AFTER_BYTES) };
}

/// Counts `bytes` of new buffer data, collecting first once the budget is spent; the
/// collection's duration sets the next budget ([`BYTES_SAVED_PER_SECOND`], within
/// [`COLLECT_AFTER_BYTES`] and [`COLLECT_AFTER_BYTES_MAX`]).
pub(super) fn note_buffer_bytes(bytes: usize) {
    BUFFER_BYTES.with(|total| {
        let sum = total.get().saturating_add(bytes);
        if sum >= BUDGET.with(std::cell::Cell::get) {
            total.set(0);
            let started = std::time::Instant::now();
            boa_gc::force_collect();
            let worth = started.elapsed().as_secs_f64() * BYTES_SAVED_PER_SECOND;
            // (A float past `usize::MAX` converts to it; the clamp bounds it either way.)
            let next = (worth as usize).clamp(COLLECT_AFTER_BYTES, COLLECT_AFTER_BYTES_MAX);
            BUDGET.with(|budget| budget.set(next));
        } else {
            total.set(sum);
        }
    });
}

/// Counts `bytes` of a chunk a native consumer copied out and let go (a body's "read all
/// bytes", a draining read of bytes): data that script made and that is now, most likely,
/// garbage Boa does not count (its collector weighs a buffer by its object, not its data
/// block). They count toward the host's collection like buffer data made here.
pub fn note_consumed_bytes(bytes: usize) {
    note_buffer_bytes(bytes);
}

/// Counts the bytes of a chunk script enqueued into a value stream (a buffer source's byte
/// length; nothing for any other value) like buffer data made here: a JS source that makes a
/// buffer per chunk and a JS reader that drops each one leave dead data blocks Boa does not
/// weigh, which would pile up, each a fresh mapping faulted in page by page, until Boa's own
/// count of objects runs a collection.
pub fn note_chunk_bytes(chunk: &Value, ctx: &mut Cx) {
    let Some(object) = chunk.js().as_object() else {
        return;
    };
    // (Only a buffer source is measured: any other object costs a type test, no error made.)
    if !(object.is::<TypedArray>() || object.is::<DataView>() || object.is::<ArrayBuffer>()) {
        return;
    }
    if let Some(bytes) = buffer_source_byte_length(chunk, ctx) {
        note_buffer_bytes(bytes);
    }
}

/// `Construct(%ArrayBuffer%, « byteLength »)`: a RangeError when it cannot be allocated.
pub fn new_array_buffer(byte_length: u64, ctx: &mut Cx) -> JsResult<JsArrayBuffer> {
    crate::engine::count_objects(1);
    let length = usize::try_from(byte_length).map_err(|_| {
        JsError::from(JsNativeError::range().with_message("Array buffer allocation failed"))
    })?;
    note_buffer_bytes(length);
    BoaArrayBuffer::new(length, ctx)
        .map(JsArrayBuffer)
        .map_err(JsError::from)
}

// ---------------------------------------------------------------------------------------------
// Buffer sources (chunks of the Encoding and Compression standards' streams)
// ---------------------------------------------------------------------------------------------
//
// <https://webidl.spec.whatwg.org/#BufferSource>. Every slot is read through the built-ins'
// internals: no getter runs, nothing a script could patch is consulted.

/// The bytes a view or buffer is backed by.
pub(super) enum Backing {
    Buffer(BoaArrayBuffer),
    Shared(JsSharedArrayBuffer),
}

impl Backing {
    /// The backing buffer object of a typed array or `DataView` (`[[ViewedArrayBuffer]]`).
    fn of(buffer: &JsValue) -> Option<Self> {
        let object = buffer.as_object()?;
        // Tested with `is` first: a failed `from_object` builds (and drops) an error.
        if object.is::<ArrayBuffer>() {
            return BoaArrayBuffer::from_object(object.clone())
                .ok()
                .map(Backing::Buffer);
        }
        if object.is::<SharedArrayBuffer>() {
            return JsSharedArrayBuffer::from_object(object.clone())
                .ok()
                .map(Backing::Shared);
        }
        None
    }

    fn is_shared(&self) -> bool {
        matches!(self, Backing::Shared(_))
    }

    /// `IsFixedLengthArrayBuffer` is false: a resizable `ArrayBuffer` that is not detached
    /// ([`is_resizable_array_buffer`]), or a growable `SharedArrayBuffer`
    /// ([`is_growable_shared_array_buffer`]).
    fn is_resizable(&self, ctx: &mut Context) -> bool {
        match self {
            Backing::Buffer(buffer) => is_resizable_array_buffer(&buffer.clone().into()),
            Backing::Shared(buffer) => is_growable_shared_array_buffer(&buffer.clone().into(), ctx),
        }
    }

    /// The current byte length (0 once detached).
    fn byte_length(&self) -> usize {
        match self {
            Backing::Buffer(b) => b.byte_length(),
            Backing::Shared(b) => b.byte_length(),
        }
    }

    /// A copy of `len` bytes from `offset` (empty when detached or out of range).
    fn copy(&self, offset: usize, len: usize) -> Vec<u8> {
        let end = offset.saturating_add(len);
        match self {
            Backing::Buffer(b) => b
                .data()
                .and_then(|data| data.get(offset..end).map(<[u8]>::to_vec))
                .unwrap_or_default(),
            Backing::Shared(b) => {
                let all = b.to_vec();
                all.get(offset..end).map(<[u8]>::to_vec).unwrap_or_default()
            }
        }
    }
}

/// Converts `value` to an IDL `BufferSource` (`[AllowShared] BufferSource` when
/// `allow_shared`) and returns "a copy of the bytes held by the buffer source"
/// (<https://webidl.spec.whatwg.org/#dfn-get-buffer-source-copy>): empty for a detached buffer.
///
/// Anything that is not an `ArrayBuffer` or an `ArrayBufferView` is a TypeError, and so is a
/// `SharedArrayBuffer` (or a view on one) unless `allow_shared`, and a resizable `ArrayBuffer`
/// (or a view on one): `[AllowResizable]` is not given.
pub fn buffer_source_copy(
    value: &Value,
    allow_shared: bool,
    what: &str,
    ctx: &mut Cx,
) -> JsResult<Vec<u8>> {
    let (backing, offset, len) = buffer_source_range(value.js(), allow_shared, what, ctx)?;
    Ok(backing.copy(offset, len))
}

/// Converts `value` to an IDL `BufferSource` like [`buffer_source_copy`], throwing the same
/// TypeErrors, without copying the bytes (for a conversion whose bytes are read later).
pub fn check_buffer_source(
    value: &Value,
    allow_shared: bool,
    what: &str,
    ctx: &mut Cx,
) -> JsResult<()> {
    buffer_source_range(value.js(), allow_shared, what, ctx).map(drop)
}

/// Whether `value` is an object with an `[[ArrayBufferData]]` slot (an `ArrayBuffer` or a
/// `SharedArrayBuffer`) or an `ArrayBufferView` (a typed array or a `DataView`): the objects
/// that a union conversion sends to its buffer source member. Runs no script.
pub fn is_buffer_source_object(value: &Value) -> bool {
    let value = value.js();
    let Some(object) = value.as_object() else {
        return false;
    };
    Backing::of(value).is_some()
        || JsTypedArray::from_object(object.clone()).is_ok()
        || JsDataView::from_object(object.clone()).is_ok()
}

/// The backing buffer and the byte range of a buffer source, after the conversion's checks.
pub(super) fn buffer_source_range(
    value: &JsValue,
    allow_shared: bool,
    what: &str,
    ctx: &mut Context,
) -> JsResult<(Backing, usize, usize)> {
    let not_a_buffer_source = || {
        JsNativeError::typ().with_message(format!(
            "{what} must be an ArrayBuffer or an ArrayBufferView{}",
            if allow_shared {
                ""
            } else {
                " not backed by a SharedArrayBuffer"
            }
        ))
    };
    let Some(object) = value.as_object() else {
        return Err(not_a_buffer_source().into());
    };
    let (backing, offset, len) = if let Some(backing) = Backing::of(value) {
        // An ArrayBuffer or SharedArrayBuffer itself: all of its bytes.
        let len = backing.byte_length();
        (backing, 0, len)
    } else if let Ok(typed) = JsTypedArray::from_object(object.clone()) {
        let backing = Backing::of(&typed.buffer(ctx)?).ok_or_else(not_a_buffer_source)?;
        let (offset, len) = typed_array_range(&object, backing.byte_length());
        (backing, offset, len)
    } else if let Ok(view) = JsDataView::from_object(object.clone()) {
        let backing = Backing::of(&view.buffer(ctx)?).ok_or_else(not_a_buffer_source)?;
        // The getters throw only for a detached or out-of-bounds view: no bytes.
        let offset = view.byte_offset(ctx).unwrap_or(0);
        let len = view.byte_length(ctx).unwrap_or(0);
        (
            backing,
            usize::try_from(offset).unwrap_or(usize::MAX),
            usize::try_from(len).unwrap_or(0),
        )
    } else {
        return Err(not_a_buffer_source().into());
    };
    if backing.is_shared() && !allow_shared {
        return Err(not_a_buffer_source().into());
    }
    if backing.is_resizable(ctx) {
        return Err(JsNativeError::typ()
            .with_message(format!(
                "{what} must not be backed by a resizable ArrayBuffer"
            ))
            .into());
    }
    Ok((backing, offset, len))
}

/// `[[ByteOffset]]` and the current byte length of a typed array (0 when out of bounds).
fn typed_array_range(object: &JsObject, buffer_length: usize) -> (usize, usize) {
    match object.downcast_ref::<TypedArray>() {
        Some(typed) => (
            usize::try_from(typed.byte_offset()).unwrap_or(usize::MAX),
            usize::try_from(typed.byte_length(buffer_length)).unwrap_or(0),
        ),
        None => (0, 0),
    }
}

/// A new `Uint8Array` of the current realm wrapping a new `ArrayBuffer` that holds `bytes`.
pub fn new_uint8_array(bytes: &[u8], ctx: &mut Cx) -> JsResult<Value> {
    crate::engine::count_objects(2);
    note_buffer_bytes(bytes.len());
    let block = AlignedVec::from_slice(0, bytes);
    let buffer = BoaArrayBuffer::from_byte_block(block, ctx)?;
    let array = JsUint8Array::from_array_buffer(buffer, ctx)?;
    Ok(array.into())
}

/// Runs `f` on the bytes of a buffer source (an `ArrayBuffer`, `SharedArrayBuffer` or
/// `ArrayBufferView`) without copying them (a `SharedArrayBuffer`'s bytes are copied first).
/// `None` when `value` is not a buffer source. `f` runs while the buffer's data is borrowed: it
/// must not run script (it gets no context).
pub fn with_buffer_source_bytes<R>(
    value: &Value,
    ctx: &mut Cx,
    f: impl FnOnce(&[u8]) -> R,
) -> Option<R> {
    let (backing, offset, len) = buffer_source_range(value.js(), true, "The chunk", ctx).ok()?;
    let end = offset.saturating_add(len);
    match backing {
        Backing::Buffer(b) => match b.data() {
            Some(data) => data.get(offset..end).map(f),
            None => Some(f(&[])),
        },
        Backing::Shared(b) => {
            let all = b.to_vec();
            all.get(offset..end).map(f)
        }
    }
}

/// Runs `f` on the bytes of a `Uint8Array` (of any realm; a view on a `SharedArrayBuffer` is
/// copied first). `None` when `value` is not a `Uint8Array` object (a `Uint8ClampedArray` is
/// not one). Runs no script; `f` must not run script either.
pub fn uint8_array_bytes<R>(value: &Value, ctx: &mut Cx, f: impl FnOnce(&[u8]) -> R) -> Option<R> {
    let object = value.js().as_object()?;
    let is_uint8 = object
        .downcast_ref::<TypedArray>()
        .is_some_and(|typed| typed_array_kind(typed.kind()) == TypedArrayKind::Uint8);
    if !is_uint8 {
        return None;
    }
    with_buffer_source_bytes(value, ctx, f)
}

/// The byte length of a buffer source, `None` for anything else. Runs no script.
pub fn buffer_source_byte_length(value: &Value, ctx: &mut Cx) -> Option<usize> {
    let js = value.js();
    let object = js.as_object()?;
    // A typed array (the usual chunk), without the conversion's checks and errors: its byte
    // length given its buffer's current length (0 once detached or out of bounds).
    if let Ok(typed) = JsTypedArray::from_object(object.clone()) {
        let buffer_length = Backing::of(&typed.buffer(ctx).ok()?)?.byte_length();
        let data = object.downcast_ref::<TypedArray>()?;
        return usize::try_from(data.byte_length(buffer_length)).ok();
    }
    buffer_source_range(js, true, "The chunk", ctx)
        .ok()
        .map(|(_, _, len)| len)
}

/// Runs `f` on `len` bytes of `buffer` from `offset`, writable in place. `None` when the buffer
/// is detached or the range is out of bounds. `f` runs while the buffer's data is borrowed: it
/// must not run script (it gets no context).
pub fn with_array_buffer_bytes_mut<R>(
    buffer: &JsArrayBuffer,
    offset: u64,
    len: u64,
    f: impl FnOnce(&mut [u8]) -> R,
) -> Option<R> {
    let offset = usize::try_from(offset).ok()?;
    let end = offset.checked_add(usize::try_from(len).ok()?)?;
    let mut data = buffer.0.data_mut()?;
    data.get_mut(offset..end).map(f)
}

/// Whether `a` and `b` are the same `ArrayBuffer` object.
pub fn same_buffer(a: &JsArrayBuffer, b: &JsArrayBuffer) -> bool {
    let (a, b): (JsObject, JsObject) = (a.0.clone().into(), b.0.clone().into());
    JsObject::equals(&a, &b)
}

/// `IsFixedLengthArrayBuffer(buffer)` is false: `buffer` is a resizable `ArrayBuffer` that is not
/// detached.
///
/// Boa 0.22 keeps the maximum byte length private; its public `resize` fails exactly for
/// fixed-length buffers, and resizing to the current length changes nothing.
fn is_resizable_array_buffer(object: &JsObject) -> bool {
    let Some(mut data) = object.downcast_mut::<ArrayBuffer>() else {
        return false;
    };
    let Some(length) = data.data().map(<[u8]>::len) else {
        return false;
    };
    data.resize(length as u64).is_ok()
}

/// The realm's `get SharedArrayBuffer.prototype.growable`, as it was when the streams were
/// registered (Boa 0.22 has no public Rust reading of a shared buffer's growability).
#[derive(boa_gc::Trace, boa_gc::Finalize, boa_engine::JsData)]
struct GrowableGetter(JsObject);

/// The getter of `object`'s own accessor property `name`, read from its property table (no
/// script runs): how the backend remembers a built-in getter before script can replace it.
pub(super) fn own_getter(object: &JsObject, name: &str) -> Option<JsObject> {
    object
        .borrow()
        .properties()
        .get(&boa_engine::JsString::from(name).into())
        .and_then(|d| d.get().and_then(JsValue::as_object))
}

/// Remembers the realm's `get SharedArrayBuffer.prototype.growable` (before script runs).
pub(super) fn remember_buffer_intrinsics(ctx: &mut Cx) {
    let proto = ctx
        .intrinsics()
        .constructors()
        .shared_array_buffer()
        .prototype();
    if let Some(getter) = own_getter(&proto, "growable") {
        ctx.realm()
            .host_defined_mut()
            .insert(GrowableGetter(getter));
    }
}

/// Whether a `SharedArrayBuffer` is growable, through the remembered built-in getter (no
/// script runs; false where none was remembered).
fn is_growable_shared_array_buffer(object: &JsObject, ctx: &mut Context) -> bool {
    let realm = ctx.realm().clone();
    let getter = match realm.host_defined().get::<GrowableGetter>() {
        Some(g) => g.0.clone(),
        None => return false,
    };
    getter
        .call(&JsValue::from(object.clone()), &[], ctx)
        .is_ok_and(|v| v.to_boolean())
}
