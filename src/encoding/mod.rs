//! The Encoding Standard's streams: `TextEncoderStream` and `TextDecoderStream`.
//!
//! <https://encoding.spec.whatwg.org/#interface-textdecoderstream>
//!
//! Both are `GenericTransformStream`s: their transform streams are set up with Rust
//! algorithms (they implement `NativeTransformer`), so no JS function
//! runs per chunk. The decoders are `encoding_rs`'s, which implement the Encoding Standard's
//! decoders and label table; UTF-8 encoding and the surrogate carried between chunks are here.

mod decoder;
mod encoder;

use crate::engine::{Cx, JsResult};

pub(crate) use decoder::TextDecoderStream;
pub(crate) use encoder::TextEncoderStream;

/// Installs `TextEncoderStream` and `TextDecoderStream` in the current realm.
pub(crate) fn register(ctx: &mut Cx) -> JsResult<()> {
    crate::engine::webidl::register_interface::<TextEncoderStream>(ctx)?;
    crate::engine::webidl::register_interface::<TextDecoderStream>(ctx)?;
    Ok(())
}
