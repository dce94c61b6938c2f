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
/// `ArrayBuffer` is a TypeError too (its bytes cannot be written). `f` must not run script (it
/// gets no context).
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
    if shared {
        // Another agent may access the block concurrently: `f` works on a copy, and the bytes
        // it wrote are stored back with one copy.
        // SAFETY: the range is inside the live block (checked above, no script ran since).
        let mut copy = unsafe { std::slice::from_raw_parts(data.add(offset), len) }.to_vec();
        let (result, written) = f(&mut copy);
        let written = written.min(copy.len());
        // SAFETY: as above; `f` ran no script, so the block is still live and as large.
        unsafe { std::ptr::copy_nonoverlapping(copy.as_ptr(), data.add(offset), written) };
        return Ok(result);
    }
    // SAFETY: the range is inside the live block; `f` runs no script, so nothing detaches or
    // resizes the buffer while the slice lives, and no other slice of it is live.
    let bytes = unsafe { std::slice::from_raw_parts_mut(data.add(offset), len) };
    Ok(f(bytes).0)
}
