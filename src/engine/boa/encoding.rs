//! What the Encoding Standard's `TextEncoder.encodeInto()` needs of the engine: writing into
//! the bytes of an `[AllowShared] Uint8Array`.

use boa_engine::object::builtins::{AlignedVec, JsArrayBuffer as BoaArrayBuffer, JsTypedArray};
use boa_engine::{builtins::typed_array::TypedArrayKind as BoaKind, JsNativeError};

use super::buffer::{buffer_source_range, Backing};
use super::*;

/// Converts `value` to an IDL `[AllowShared] Uint8Array`
/// (<https://webidl.spec.whatwg.org/#es-buffer-source-types>): anything but a `Uint8Array`,
/// and a view on a resizable `ArrayBuffer` (`[AllowResizable]` is not given), is a TypeError
/// naming `what`. Then runs `f` on the view's bytes (none when its buffer is detached),
/// writable in place; `f` returns its result and how many leading bytes it wrote.
///
/// On an `ArrayBuffer`, `f` writes in place. On a `SharedArrayBuffer`, `f` gets a copy of the
/// bytes, and only the leading bytes it says it wrote are stored back (with
/// `%TypedArray%.prototype.set`'s internals, which run no script). `f` runs while the buffer's
/// data is borrowed: it must not run script (it gets no context).
pub fn with_uint8_array_bytes_mut<R>(
    value: &Value,
    what: &str,
    ctx: &mut Cx,
    f: impl FnOnce(&mut [u8]) -> (R, usize),
) -> JsResult<R> {
    let not_a_uint8_array = || -> JsError {
        JsNativeError::typ()
            .with_message(format!("{what} must be a Uint8Array"))
            .into()
    };
    let object = value.js().as_object().ok_or_else(not_a_uint8_array)?;
    let typed = JsTypedArray::from_object(object.clone()).map_err(|_| not_a_uint8_array())?;
    if typed.kind() != Some(BoaKind::Uint8) {
        return Err(not_a_uint8_array());
    }
    let (backing, offset, len) = buffer_source_range(value.js(), true, what, ctx)?;
    let end = offset.saturating_add(len);
    match backing {
        Backing::Buffer(buffer) => {
            let Some(mut data) = buffer.data_mut() else {
                // Detached: no bytes.
                return Ok(f(&mut []).0);
            };
            match data.get_mut(offset..end) {
                Some(bytes) => Ok(f(bytes).0),
                None => Ok(f(&mut []).0),
            }
        }
        Backing::Shared(buffer) => {
            let mut copy = buffer
                .to_vec()
                .get(offset..end)
                .map(<[u8]>::to_vec)
                .unwrap_or_default();
            let (result, written) = f(&mut copy);
            let written = written.min(copy.len());
            if written > 0 {
                let block = AlignedVec::from_slice(0, &copy[..written]);
                let source = BoaArrayBuffer::from_byte_block(block, ctx)?;
                let source =
                    boa_engine::object::builtins::JsUint8Array::from_array_buffer(source, ctx)?;
                typed.set_values(source.into(), Some(0), ctx)?;
            }
            Ok(result)
        }
    }
}
