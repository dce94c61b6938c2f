//! WebIDL buffer source conversions for the transform streams of other standards
//! (`TextDecoderStream`, `CompressionStream`, `DecompressionStream`): chunk → bytes, and
//! bytes → a new `Uint8Array`.
//!
//! <https://webidl.spec.whatwg.org/#BufferSource>
//!
//! Every slot is read through the built-ins' internals: no getter runs, nothing a script could
//! patch is consulted.

use boa_engine::{
    builtins::{array_buffer::ArrayBuffer, typed_array::TypedArray},
    object::builtins::{
        AlignedVec, JsArrayBuffer, JsDataView, JsSharedArrayBuffer, JsTypedArray, JsUint8Array,
    },
    Context, JsNativeError, JsObject, JsResult, JsValue,
};

/// The bytes a view or buffer is backed by.
enum Backing {
    Buffer(JsArrayBuffer),
    Shared(JsSharedArrayBuffer),
}

impl Backing {
    /// The backing buffer object of a typed array or `DataView` (`[[ViewedArrayBuffer]]`).
    fn of(buffer: &JsValue) -> Option<Self> {
        let object = buffer.as_object()?;
        if let Ok(buffer) = JsArrayBuffer::from_object(object.clone()) {
            return Some(Backing::Buffer(buffer));
        }
        JsSharedArrayBuffer::from_object(object.clone())
            .ok()
            .map(Backing::Shared)
    }

    fn is_shared(&self) -> bool {
        matches!(self, Backing::Shared(_))
    }

    /// `IsResizableArrayBuffer` for an `ArrayBuffer` that is not detached.
    ///
    /// Boa 0.22 keeps the maximum byte length private; its public `resize` fails exactly for
    /// fixed-length buffers, and resizing to the current length changes nothing.
    /// (A growable `SharedArrayBuffer` cannot be told apart through the public API.)
    fn is_resizable(&self) -> bool {
        let Backing::Buffer(buffer) = self else {
            return false;
        };
        let object: JsObject = buffer.clone().into();
        let Some(mut data) = object.downcast_mut::<ArrayBuffer>() else {
            return false;
        };
        let Some(length) = data.data().map(<[u8]>::len) else {
            return false;
        };
        data.resize(length as u64).is_ok()
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
pub(crate) fn buffer_source_copy(
    value: &JsValue,
    allow_shared: bool,
    what: &str,
    ctx: &mut Context,
) -> JsResult<Vec<u8>> {
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
    if backing.is_resizable() {
        return Err(JsNativeError::typ()
            .with_message(format!(
                "{what} must not be backed by a resizable ArrayBuffer"
            ))
            .into());
    }
    Ok(backing.copy(offset, len))
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
pub(crate) fn new_uint8_array(bytes: &[u8], ctx: &mut Context) -> JsResult<JsValue> {
    let block = AlignedVec::from_slice(0, bytes);
    let buffer = JsArrayBuffer::from_byte_block(block, ctx)?;
    let array = JsUint8Array::from_array_buffer(buffer, ctx)?;
    Ok(array.into())
}
