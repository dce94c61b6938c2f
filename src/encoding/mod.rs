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
