//! What the Encoding Standard's `TextEncoder.encodeInto()` needs of the engine: writing into
//! the bytes of an `[AllowShared] Uint8Array`.

use super::buffer::{buffer_data, buffer_source_range, is_immutable, typed_array_kind_of};
use super::*;
use crate::engine::TypedArrayKind;

/// Converts `value` to an IDL `[AllowShared] Uint8Array`
/// (<https://webidl.spec.whatwg.org/#es-buffer-source-types>): anything but a `Uint8Array`,
/// and a view on a resizable `ArrayBuffer` (`[AllowResizable]` is not given), is a TypeError
/// naming `what`. Then runs `f` on the view's bytes (none when its buffer is detached),
/// writable in place; `f` returns its result and how many leading bytes it wrote.
///
/// On an `ArrayBuffer`, `f` writes in place. On a `SharedArrayBuffer`, `f` gets a copy of the
/// bytes, and only the leading bytes it says it wrote are stored back. A view on an immutable
/// `ArrayBuffer` is a TypeError too (its bytes cannot be written). `f` must not run script nor
/// call into the engine (it gets no context; the engine's few context-free functions, such as
/// `with_array_buffer_bytes_mut`, are off limits too): the bytes are lent to it as a plain
/// slice. (Its one caller, `TextEncoder.encodeInto()`, only encodes text into them.)
pub fn with_uint8_array_bytes_mut<R>(
    value: &Value,
    what: &str,
    ctx: &mut Cx,
    f: impl FnOnce(&mut [u8]) -> (R, usize),
) -> JsResult<R> {
    if typed_array_kind_of(value) != Some(TypedArrayKind::Uint8) {
        return Err(throw_type_error(format!("{what} must be a Uint8Array")));
    }
    let (buffer, shared, offset, len) = buffer_source_range(value, true, what, ctx)?;
    if is_immutable(&buffer) {
        return Err(throw_type_error(format!(
            "{what} must not be backed by an immutable ArrayBuffer"
        )));
    }
    let Some((data, size)) = buffer_data(ctx, &buffer) else {
        // Detached: no bytes.
        return Ok(f(&mut []).0);
    };
    let in_bounds = offset.checked_add(len).is_some_and(|end| end <= size);
    if !in_bounds {
        return Ok(f(&mut []).0);
    }
    // Why the raw range below is sound: `data` is the block of `buffer` (a live value, held
    // until this function returns), `size` bytes long, and stays so until script runs
    // (`buffer_data`'s contract: only script detaches or resizes a buffer). No script runs
    // from here on: `f` runs none and calls nothing of the engine (this function's contract;
    // its one caller's closure only encodes text). And `offset + len <= size` was just
    // checked. So `data + offset .. + len` is in bounds of one live allocation for the rest
    // of the function.
    if shared {
        // Another agent may access the block concurrently: `f` works on a copy, and the bytes
        // it wrote are stored back with one copy. (In this backend none can: QuickJS allocates
        // a SharedArrayBuffer's block in its own runtime, as no host installs
        // `JS_SetSharedArrayBufferFunctions`, and structured clone refuses one; so this
        // thread is the only one that can reach the block.)
        // SAFETY: the range is in bounds of the live block (above); the bytes are initialized
        // (QuickJS zero-fills a new block) and, on this thread, nothing writes them while the
        // slice is read, which ends with `to_vec`.
        let mut copy = unsafe { std::slice::from_raw_parts(data.add(offset), len) }.to_vec();
        let (result, written) = f(&mut copy);
        let written = written.min(copy.len());
        // SAFETY: `f` ran no script, so the block is still live and as large (above), and
        // `written <= len`, so the destination range is in bounds; `copy` is a separate
        // allocation, so the ranges do not overlap.
        unsafe { std::ptr::copy_nonoverlapping(copy.as_ptr(), data.add(offset), written) };
        return Ok(result);
    }
    // SAFETY: the range is in bounds of the live block, initialized, and stays so while the
    // slice lives, as `f` runs no script (above). Nothing else reads or writes the bytes
    // meanwhile: QuickJS touches a buffer's bytes only when script or an engine function
    // runs, and neither does until the slice is gone: `ctx` is borrowed mutably by this call,
    // and `f` calls nothing of the engine (so it makes no second slice of the block either).
    let bytes = unsafe { std::slice::from_raw_parts_mut(data.add(offset), len) };
    Ok(f(bytes).0)
}
