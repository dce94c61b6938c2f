//! Buffer algorithms written over the contract's array-buffer primitives (`array_buffer_view`,
//! `clone_array_buffer`, `construct_view`, ...), the same on every engine.

use std::cell::Cell;

use super::{
    agent_data, array_buffer_byte_length, clone_array_buffer, collect_garbage, construct_view,
    is_detached_buffer, new_array_buffer, same_buffer, set_agent_data, throw_range_error,
    throw_type_error, with_array_buffer_bytes_mut, Cx, JsArrayBuffer, JsResult, Object,
    TypedArrayKind, ViewKind, ViewRecord,
};

// ---------------------------------------------------------------------------------------------
// Bytes held in Rust on behalf of engine objects
// ---------------------------------------------------------------------------------------------
//
// A stream's queue can hold Rust bytes no script sees (a native source's chunk). An unread
// stream that became garbage keeps them until the engine collects it, and neither engine's
// collector sees them: QuickJS counts only what it allocated, Boa weighs an object by its own
// size. So they are counted here, on the thread, and a collection is forced once the bytes
// still held have grown by `COLLECT_AFTER_EXTERNAL_BYTES` since their lowest point after the
// last forced one, or by half that low point if more. Bytes freed as they are consumed never
// add up to it, and bytes that survive a collection raise the next budget, as QuickJS raises
// its own threshold by half of what survives. The count is per thread, not per engine
// runtime: with several runtimes on one thread, the one whose turn it is collects, and the
// count starts again from what is left, so no collection repeats.

/// What the Rust bytes counted on this thread are: `live` held now, `low` the fewest held
/// since the last forced collection.
#[derive(Clone, Copy, Default)]
struct Held {
    live: usize,
    low: usize,
}

thread_local! {
    static EXTERNAL: Cell<Held> = const { Cell::new(Held { live: 0, low: 0 }) };
}

/// How far the Rust bytes held may grow past their low point before a collection is forced (at
/// least).
pub const COLLECT_AFTER_EXTERNAL_BYTES: usize = 16 << 20;

/// A count of Rust bytes that live as long as an engine object may (a chunk in a stream's
/// queue): counted while this lives. (During the thread's teardown, once the count is gone,
/// nothing is counted.)
#[derive(Debug)]
pub struct ExternalBytes(usize);

impl ExternalBytes {
    /// Counts `len` bytes until the result drops.
    pub fn new(len: usize) -> Self {
        let _ = EXTERNAL.try_with(|held| {
            let mut h = held.get();
            h.live = h.live.saturating_add(len);
            held.set(h);
        });
        Self(len)
    }
}

impl Drop for ExternalBytes {
    fn drop(&mut self) {
        let _ = EXTERNAL.try_with(|held| {
            let mut h = held.get();
            h.live = h.live.saturating_sub(self.0);
            h.low = h.low.min(h.live);
            held.set(h);
        });
    }
}

/// Forces a collection if the Rust bytes held on this thread grew by
/// [`COLLECT_AFTER_EXTERNAL_BYTES`] (or half their low point, if more) since their low point;
/// whether it did. The caller is at a
/// point where the engine may collect (any point it may allocate an object).
pub fn collect_if_external_bytes_grew(ctx: &mut Cx) -> bool {
    let Ok(held) = EXTERNAL.try_with(Cell::get) else {
        return false;
    };
    let budget = COLLECT_AFTER_EXTERNAL_BYTES.max(held.low / 2);
    if held.live - held.low.min(held.live) < budget {
        return false;
    }
    collect_counting_from_here(ctx);
    true
}

/// A collection, after which the count's low point is what is left.
fn collect_counting_from_here(ctx: &mut Cx) {
    collect_garbage(ctx);
    let _ = EXTERNAL.try_with(|held| {
        let mut h = held.get();
        h.low = h.live;
        held.set(h);
    });
}

/// The agent's limit on the Rust bytes counted ([`set_external_bytes_limit`]).
struct ExternalLimit(usize);

/// Limits the Rust bytes held for engine objects that native sources may add while this
/// agent's script runs ([`check_external_bytes_limit`]): the host's memory limit, applied to
/// them apart from the engine's heap (which they are not part of).
pub fn set_external_bytes_limit(ctx: &mut Cx, bytes: usize) {
    set_agent_data(ctx, ExternalLimit(bytes));
}

/// A RangeError if the Rust bytes counted on this thread are past the agent's limit
/// ([`set_external_bytes_limit`]) even after a collection, which may free some. Called where
/// native sources add bytes on script's behalf (a body's, a `Blob`'s stream's), at a point
/// where the engine may collect.
pub fn check_external_bytes_limit(ctx: &mut Cx) -> JsResult<()> {
    let Some(limit) = agent_data::<ExternalLimit>(ctx).map(|limit| limit.0) else {
        return Ok(());
    };
    if external_bytes_held() <= limit {
        return Ok(());
    }
    collect_counting_from_here(ctx);
    if external_bytes_held() <= limit {
        return Ok(());
    }
    Err(throw_range_error(format!(
        "out of memory: the bytes held for streams and bodies are past the memory limit \
         ({limit} bytes)"
    )))
}

/// The Rust bytes counted on this thread now ([`ExternalBytes`]).
pub fn external_bytes_held() -> usize {
    EXTERNAL.try_with(|held| held.get().live).unwrap_or(0)
}

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
