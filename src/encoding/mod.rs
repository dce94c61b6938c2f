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
