//! The Encoding Standard's API: `TextEncoder` and `TextDecoder`
//! (<https://encoding.spec.whatwg.org/#api>), and its streams, `TextEncoderStream` and
//! `TextDecoderStream` (<https://encoding.spec.whatwg.org/#interface-textdecoderstream>).
//!
//! The streams are `GenericTransformStream`s: their transform streams are set up with Rust
//! algorithms (they implement `NativeTransformer`), so no JS function runs per chunk. The
//! decoders are `encoding_rs`'s, which implement the Encoding Standard's decoders and label
//! table (`common.rs`, shared by `TextDecoder` and `TextDecoderStream`); UTF-8 encoding and the
//! surrogate carried between chunks are here.
//!
//! `register` installs all four, replacing any `TextEncoder`/`TextDecoder` the embedder's
//! runtime installed before it.

mod common;
mod decoder;
mod encoder;
mod text_decoder;
mod text_encoder;
mod transcode;

use crate::engine::{Cx, JsResult};

pub(crate) use decoder::TextDecoderStream;
pub(crate) use encoder::TextEncoderStream;
pub(crate) use text_decoder::TextDecoder;
pub(crate) use text_encoder::TextEncoder;

/// Installs `TextEncoder`, `TextDecoder`, `TextEncoderStream` and `TextDecoderStream` in the
/// current realm.
pub(crate) fn register(ctx: &mut Cx) -> JsResult<()> {
    crate::engine::webidl::register_interface::<TextEncoder>(ctx)?;
    crate::engine::webidl::register_interface::<TextDecoder>(ctx)?;
    crate::engine::webidl::register_interface::<TextEncoderStream>(ctx)?;
    crate::engine::webidl::register_interface::<TextDecoderStream>(ctx)?;
    Ok(())
}

/// <https://encoding.spec.whatwg.org/#utf-8-encode> of a USVString given as the code units of
/// a string (each lone surrogate becomes U+FFFD, as the USVString conversion makes it): the
/// bulk conversion of `TextEncoder`, into a shared block of the result's size (copied once
/// from the encoder's reused buffer).
pub(crate) fn utf8_encode_units(units: crate::engine::CodeUnits<'_>) -> std::sync::Arc<[u8]> {
    let pending = std::cell::Cell::new(None);
    encoder::with_encoded_buffer(|output| {
        encoder::encode_code_units_into(&pending, units, output);
        encoder::flush_pending(&pending, output);
        std::sync::Arc::from(output.bytes())
    })
}

/// [`utf8_encode_units`] of ToString of `value` (the USVString conversion, then UTF-8
/// encode), its code units read where the engine keeps them.
pub(crate) fn utf8_encode_value(
    value: &crate::engine::Value,
    ctx: &mut Cx,
) -> crate::engine::JsResult<std::sync::Arc<[u8]>> {
    value.with_code_units(ctx, utf8_encode_units)
}

/// <https://encoding.spec.whatwg.org/#utf-8-decode>: a leading BOM is dropped, invalid
/// sequences become U+FFFD.
pub(crate) fn utf8_decode(bytes: &[u8]) -> crate::engine::JsString {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    with_utf8_decoded(bytes, |units| crate::engine::JsString::from(units))
}

/// [`utf8_decode`] as a string value, with no UTF-16 buffer in between where the text allows:
/// ASCII goes straight into the engine's string where the engine builds strings from UTF-8
/// itself (QuickJS), and valid UTF-8 of characters up to U+00FF is converted once into an
/// 8-bit string; other text is decoded to UTF-16. `Body`'s `text()`, `Blob`'s `text()` and
/// `FileReader`'s `readAsText()` for UTF-8.
/// An error where the engine cannot hold a string that long (QuickJS: 2^30 - 1 code units).
pub(crate) fn utf8_decode_to_value(
    bytes: &[u8],
    ctx: &mut Cx,
) -> crate::engine::JsResult<crate::engine::Value> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    if let Some(value) = crate::engine::string_value_from_utf8(bytes, ctx)? {
        return Ok(value);
    }
    // Latin-1 text becomes an 8-bit string; other text, or bytes with an error, are decoded
    // to UTF-16.
    match latin1_string_value(&[bytes], 0, ctx)? {
        Some(value) => Ok(value),
        None => with_utf8_decoded(bytes, |units| {
            crate::engine::string_value_from_utf16(units, ctx)
        }),
    }
}

/// The string of UTF-8 bytes given in parts (from byte `skip` of the first) when they are
/// valid and each character fits in 8 bits (Latin-1 prose, where every other word may have an
/// accent; ASCII): an 8-bit string made in one conversion. `None` for any other bytes.
pub(crate) fn latin1_string_value(
    parts: &[&[u8]],
    skip: usize,
    ctx: &mut Cx,
) -> crate::engine::JsResult<Option<crate::engine::Value>> {
    let len = parts.iter().map(|part| part.len()).sum::<usize>();
    crate::engine::string_value_from_latin1_with(
        len.saturating_sub(skip),
        |room| transcode::utf8_parts_to_latin1(parts, skip, room),
        ctx,
    )
}

/// [`utf8_decode_to_value`] of a byte sequence held in parts ("read all bytes"'s, for
/// `text()`): one part is decoded where it is; several, when their text is Latin-1 (ASCII
/// included), are converted part by part straight into the string, without first being joined
/// into one block; other text is joined, then decoded.
pub(crate) fn utf8_decode_parts_to_value(
    bytes: crate::readable::other_specs::ByteSequence,
    ctx: &mut Cx,
) -> crate::engine::JsResult<crate::engine::Value> {
    let parts: Vec<&[u8]> = bytes.parts().collect();
    match parts.as_slice() {
        [] => return utf8_decode_to_value(&[], ctx),
        [one] => return utf8_decode_to_value(one, ctx),
        // The BOM step needs the first three bytes in one part (a first part shorter than
        // that, a chunk of one or two bytes that the next did not fit beside, is joined).
        [first, ..] if first.len() >= 3 => {
            let skip = if first.starts_with(b"\xEF\xBB\xBF") {
                3
            } else {
                0
            };
            if let Some(value) = latin1_string_value(&parts, skip, ctx)? {
                return Ok(value);
            }
        }
        _ => {}
    }
    drop(parts);
    utf8_decode_to_value(bytes.into_block().as_slice(), ctx)
}

thread_local! {
    /// [`with_utf8_decoded`]'s output buffer (`huge_pages::with_scratch`).
    static UTF8_SCRATCH: std::cell::Cell<Vec<u16>> = const { std::cell::Cell::new(Vec::new()) };
}

/// [`utf8_decode`] after its BOM step, giving `f` the string's code units.
fn with_utf8_decoded<R>(bytes: &[u8], f: impl FnOnce(&[u16]) -> R) -> R {
    // The UTF-8 decoder (TextDecoder's, valid stretches converted in bulk), straight to UTF-16
    // code units.
    let mut decoder = encoding_rs::UTF_8.new_decoder_without_bom_handling();
    crate::engine::huge_pages::with_scratch(&UTF8_SCRATCH, |units| {
        // Room for every unit the bytes can give (one per byte, and a U+FFFD at the end), in
        // one block, a large one advised to use huge pages (a body's worth of fresh memory).
        crate::engine::huge_pages::reserve_exact_total(units, bytes.len().saturating_add(1));
        // In replacement mode the decoder reports no error.
        let written =
            common::run_decoder_into(&mut decoder, false, bytes, true, units).unwrap_or_default();
        f(units.get(..written).unwrap_or_default())
    })
}

/// `stream` piped through a new `TextDecoderStream` (UTF-8, the defaults) of the current realm
/// (<https://streams.spec.whatwg.org/#readablestream-pipe-through>): the decoder's readable
/// side, a stream of strings. `Blob`'s and the `Body` mixin's `textStream()`.
pub(crate) fn pipe_through_utf8_decoder(
    stream: &crate::engine::Object<crate::readable::ReadableStream>,
    ctx: &mut Cx,
) -> JsResult<crate::engine::Object<crate::readable::ReadableStream>> {
    use crate::transform::{other_specs::GenericTransformStream, stream::TransformSlots};
    // Let decoder be a new TextDecoderStream object (encoding UTF-8, the defaults).
    let decoder = crate::engine::webidl::construct_interface::<TextDecoderStream>(&[], ctx)?;
    let transform = decoder.borrow().data().transform();
    let (Some(readable), Some(writable)) = (
        transform.as_ref().and_then(|t| t.readable()),
        transform.as_ref().and_then(|t| t.writable()),
    ) else {
        return Err(crate::engine::throw_type_error(
            "textStream: the TextDecoderStream has no transform",
        ));
    };
    // Piped through: 1. Assert: ! IsReadableStreamLocked(readable) is false. (A locked
    // stream is a TypeError here, as the callers check before.)
    if crate::readable::other_specs::is_locked(stream) {
        return Err(crate::engine::throw_type_error(
            "textStream: the stream is locked",
        ));
    }
    // 3. Let promise be ! ReadableStreamPipeTo(readable, transform's writable, false, false,
    //    false). 4. Set promise.[[PromiseIsHandled]] to true.
    let promise = crate::readable::pipe::readable_stream_pipe_to(
        stream, &writable, false, false, false, None, ctx,
    )?;
    crate::engine::mark_as_handled(&promise, ctx)?;
    // 5. Return transform's readable.
    Ok(readable)
}
