//! Buffer algorithms written over the contract's array-buffer primitives (`array_buffer_view`,
//! `clone_array_buffer`, `construct_view`, ...), the same on every engine.

use super::{
    array_buffer_byte_length, clone_array_buffer, construct_view, is_detached_buffer,
    new_array_buffer, same_buffer, throw_type_error, with_array_buffer_bytes_mut, Cx,
    JsArrayBuffer, JsResult, Object, TypedArrayKind, ViewKind, ViewRecord,
};

/// A new `ArrayBuffer` of the current realm holding a copy of `bytes` (a RangeError if it
/// cannot be allocated).
pub fn new_array_buffer_holding(bytes: &[u8], ctx: &mut Cx) -> JsResult<JsArrayBuffer> {
    let length = bytes.len() as u64;
    let buffer = new_array_buffer(length, ctx)?;
    with_array_buffer_bytes_mut(&buffer, 0, length, |target| target.copy_from_slice(bytes))
        .ok_or_else(|| throw_type_error("Cannot fill a new ArrayBuffer"))?;
    Ok(buffer)
}

/// <https://streams.spec.whatwg.org/#abstract-opdef-cloneasuint8array>
pub fn clone_as_uint8_array(view: &ViewRecord, ctx: &mut Cx) -> JsResult<Object> {
    crate::engine::count_objects(2);
    // 1. Assert: O is an Object.
    // 2. Assert: O has an [[ViewedArrayBuffer]] internal slot.
    // 3. Assert: ! IsDetachedBuffer(O.[[ViewedArrayBuffer]]) is false.
    // 4. Let buffer be ? CloneArrayBuffer(O.[[ViewedArrayBuffer]], O.[[ByteOffset]],
    //    O.[[ByteLength]], %ArrayBuffer%).
    let buffer = clone_array_buffer(&view.buffer, view.byte_offset, view.byte_length, ctx)?;
    // 5. Let array be ! Construct(%Uint8Array%, « buffer »).
    // 6. Return array.
    let length = array_buffer_byte_length(&buffer);
    construct_view(
        ViewKind::Typed(TypedArrayKind::Uint8),
        &buffer,
        0,
        length,
        ctx,
    )
}

/// <https://streams.spec.whatwg.org/#abstract-opdef-cancopydatablockbytes>
///
/// (The QuickJS backend's `copy_data_block_bytes` makes the same checks on the block pointers
/// and lengths it reads anyway, so only its unit tests call this there.)
#[cfg_attr(not(any(test, feature = "engine-boa")), allow(dead_code))]
pub fn can_copy_data_block_bytes(
    to_buffer: &JsArrayBuffer,
    to_index: u64,
    from_buffer: &JsArrayBuffer,
    from_index: u64,
    count: u64,
) -> bool {
    // 1–4. Assert: toBuffer and fromBuffer are objects with an [[ArrayBufferData]] slot.
    // 5. If toBuffer is fromBuffer, return false.
    if same_buffer(to_buffer, from_buffer) {
        return false;
    }
    // 6. If ! IsDetachedBuffer(toBuffer) is true, return false.
    // 7. If ! IsDetachedBuffer(fromBuffer) is true, return false.
    if is_detached_buffer(to_buffer) || is_detached_buffer(from_buffer) {
        return false;
    }
    // 8. If toIndex + count > toBuffer.[[ArrayBufferByteLength]], return false.
    // 9. If fromIndex + count > fromBuffer.[[ArrayBufferByteLength]], return false.
    // 10. Return true.
    to_index.saturating_add(count) <= array_buffer_byte_length(to_buffer)
        && from_index.saturating_add(count) <= array_buffer_byte_length(from_buffer)
}
