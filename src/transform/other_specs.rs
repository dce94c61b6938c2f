//! Transform streams for other specifications: "set up" with Rust algorithms, and the
//! `GenericTransformStream` mixin that `TextEncoderStream`, `TextDecoderStream`,
//! `CompressionStream` and `DecompressionStream` include.
//!
//! <https://streams.spec.whatwg.org/#other-specs-ts>

use crate::engine::traced_without_drop;
use crate::engine::{Cx, JsResult, Object, Value};

use super::{
    default_controller::{
        set_up_transform_stream_default_controller, CancelAlgorithm, Controller, FlushAlgorithm,
        TransformAlgorithm,
    },
    stream::{initialize_transform_stream, readable, writable, Stream},
    TransformStream,
};
use crate::{
    compression::{CompressionStream, DecompressionStream},
    encoding::{TextDecoderStream, TextEncoderStream},
    engine::PromiseCapability,
    queuing_strategy::SizeAlgorithm,
    readable::new_object,
};

traced_without_drop! {
/// The Rust transform and flush algorithms of a transform stream set up by another standard.
/// Each variant holds the object whose state the algorithms use.
#[derive(Debug, Clone)]
pub(crate) enum NativeTransformer {
    /// "encode and enqueue a chunk" / "encode and flush" (Encoding Standard).
    TextEncoder(Object<TextEncoderStream>),
    /// "decode and enqueue a chunk" / "flush and enqueue" (Encoding Standard).
    TextDecoder(Object<TextDecoderStream>),
    /// "compress and enqueue a chunk" / "compress flush and enqueue" (Compression Standard).
    Compression(Object<CompressionStream>),
    /// "decompress and enqueue a chunk" / "decompress flush and enqueue".
    Decompression(Object<DecompressionStream>),
}
}

impl NativeTransformer {
    /// The transformAlgorithm, given `chunk`; `controller` is the transform's
    /// [[controller]], which "enqueue" uses.
    pub(crate) fn transform(
        &self,
        controller: &Controller,
        chunk: Value,
        ctx: &mut Cx,
    ) -> JsResult<()> {
        match self {
            Self::TextEncoder(o) => {
                crate::encoding::encode_and_enqueue_a_chunk(o, controller, chunk, ctx)
            }
            Self::TextDecoder(o) => {
                crate::encoding::decode_and_enqueue_a_chunk(o, controller, chunk, ctx)
            }
            Self::Compression(o) => {
                crate::compression::compress_and_enqueue_a_chunk(o, controller, chunk, ctx)
            }
            Self::Decompression(o) => {
                crate::compression::decompress_and_enqueue_a_chunk(o, controller, chunk, ctx)
            }
        }
    }

    /// The flushAlgorithm.
    pub(crate) fn flush(&self, controller: &Controller, ctx: &mut Cx) -> JsResult<()> {
        match self {
            Self::TextEncoder(o) => crate::encoding::encode_and_flush(o, controller, ctx),
            Self::TextDecoder(o) => crate::encoding::flush_and_enqueue(o, controller, ctx),
            Self::Compression(o) => {
                crate::compression::compress_flush_and_enqueue(o, controller, ctx)
            }
            Self::Decompression(o) => {
                crate::compression::decompress_flush_and_enqueue(o, controller, ctx)
            }
        }
    }
}

/// `new TransformStream` for another standard: a `TransformStream` object of the current realm
/// whose slots are not initialized yet ([`set_up_transform_stream`] does that).
pub(crate) fn new_transform_stream(ctx: &mut Cx) -> JsResult<Stream> {
    new_object(TransformStream::new_uninitialized(), ctx)
}

/// <https://streams.spec.whatwg.org/#transformstream-set-up>
///
/// The transformAlgorithm and flushAlgorithm are `transformer`'s; no cancelAlgorithm is given.
/// The wrappers of steps 5–7 are where `perform transform` and the sink close algorithm run the
/// [`NativeTransformer`] variants: a thrown exception becomes a rejected promise, anything else
/// a promise resolved with undefined (the Rust algorithms never return a promise).
pub(crate) fn set_up_transform_stream(
    stream: &Stream,
    transformer: NativeTransformer,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Let writableHighWaterMark be 1.
    // 2. Let writableSizeAlgorithm be an algorithm that returns 1.
    // 3. Let readableHighWaterMark be 0.
    // 4. Let readableSizeAlgorithm be an algorithm that returns 1.
    // 5.–7. transformAlgorithmWrapper, flushAlgorithmWrapper, cancelAlgorithmWrapper.
    let transform_algorithm = TransformAlgorithm::Native(transformer.clone());
    let flush_algorithm = FlushAlgorithm::Native(transformer);
    let cancel_algorithm = CancelAlgorithm::ResolvedUndefined;
    // 8. Let startPromise be a promise resolved with undefined.
    let start_promise = PromiseCapability::new(ctx);
    start_promise.resolve(Value::undefined(), ctx)?;
    // 9. Perform ! InitializeTransformStream(stream, startPromise, writableHighWaterMark,
    //    writableSizeAlgorithm, readableHighWaterMark, readableSizeAlgorithm).
    initialize_transform_stream(
        stream,
        &start_promise,
        1.0,
        SizeAlgorithm::One,
        0.0,
        SizeAlgorithm::One,
        ctx,
    )?;
    // 10. Let controller be a new TransformStreamDefaultController.
    // 11. Perform ! SetUpTransformStreamDefaultController(stream, controller,
    //     transformAlgorithmWrapper, flushAlgorithmWrapper, cancelAlgorithmWrapper).
    set_up_transform_stream_default_controller(
        stream,
        transform_algorithm,
        flush_algorithm,
        cancel_algorithm,
        ctx,
    )?;
    Ok(())
}

/// <https://streams.spec.whatwg.org/#dom-generictransformstream-readable>: the getter steps,
/// given this's transform.
pub(crate) fn generic_transform_stream_readable(transform: Option<Stream>) -> Value {
    // Return this's transform.[[readable]].
    transform
        .and_then(|t| readable(&t))
        .map(|r| r.upcast().into())
        .unwrap_or_default()
}

/// <https://streams.spec.whatwg.org/#dom-generictransformstream-writable>: the getter steps,
/// given this's transform.
pub(crate) fn generic_transform_stream_writable(transform: Option<Stream>) -> Value {
    // Return this's transform.[[writable]].
    transform
        .and_then(|t| writable(&t))
        .map(|w| w.upcast().into())
        .unwrap_or_default()
}
