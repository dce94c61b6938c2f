//! `TextDecoderStream`: <https://encoding.spec.whatwg.org/#interface-textdecoderstream>.

use std::fmt;

use crate::engine::{Cx, JsResult, Object, Slot, Value};

use super::common::{DecodeError, Decoded, TextDecoderCommon};
use crate::{
    engine::webidl,
    engine::{check_buffer_source, with_buffer_source_bytes},
    transform::{
        default_controller::{transform_stream_default_controller_enqueue, Controller},
        other_specs::{
            define_generic_transform_stream, native_transform_stream, new_transform_stream,
            NativeTransform,
        },
        TransformStream,
    },
};

traced! {
    data;
    /// <https://encoding.spec.whatwg.org/#textdecoderstream>
    pub(crate) struct TextDecoderStream {
        /// The slots of <https://encoding.spec.whatwg.org/#textdecodercommon> (encoding,
        /// error mode, ignore BOM, BOM seen, decoder and I/O queue). Holds no JS value.
        #[unsafe_ignore_trace]
        pub(crate) common: TextDecoderCommon,
        /// <https://streams.spec.whatwg.org/#generictransformstream-transform>
        transform: Slot<Option<Object<TransformStream>>>,
    }
}

impl fmt::Debug for TextDecoderStream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TextDecoderStream")
            .field("common", &self.common)
            .finish_non_exhaustive()
    }
}

impl webidl::ClassInterface for TextDecoderStream {
    const LENGTH: usize = 0;
    fn members(b: &mut webidl::InterfaceBuilder<'_, '_>) {
        // TextDecoderCommon
        b.attribute("encoding", get_encoding, None);
        b.attribute("fatal", get_fatal, None);
        b.attribute("ignoreBOM", get_ignore_bom, None);
        define_generic_transform_stream::<Self>(b);
    }

    /// <https://encoding.spec.whatwg.org/#dom-textdecoderstream>, steps 1–6 (the transform is
    /// set up by `object_constructor`, which has the new object).
    fn construct(_: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Self> {
        // The conversions of the arguments, then steps 1–6.
        Ok(Self {
            common: TextDecoderCommon::construct(args, ctx)?,
            transform: Slot::new(None),
        })
    }

    /// <https://encoding.spec.whatwg.org/#dom-textdecoderstream>, steps 7–9.
    fn constructed(this: &Object<Self>, _: &[Value], ctx: &mut Cx) -> JsResult<()> {
        // 7. Let transformAlgorithm be an algorithm which takes a chunk argument and runs the
        //    decode and enqueue a chunk algorithm with this and chunk.
        // 8. Let flushAlgorithm be an algorithm which takes no arguments and runs the flush and
        //    enqueue algorithm with this.
        // 9. Set this's transform to a new TransformStream.
        let transform = new_transform_stream(ctx)?;
        *this.borrow().data().transform.borrow_mut() = Some(transform.clone());
        // 10. Set up this's transform with transformAlgorithm set to transformAlgorithm and
        //     flushAlgorithm set to flushAlgorithm.
        NativeTransform::new(this).set_up(&transform, ctx)
    }
}

webidl::interface!(TextDecoderStream, "TextDecoderStream");

/// <https://encoding.spec.whatwg.org/#dom-textdecoder-encoding>
fn get_encoding(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    let decoder = webidl::this::<TextDecoderStream>(this)?;
    // Return this's encoding's name, in ASCII lowercase.
    let name = decoder.borrow().data().common.encoding_name();
    Ok(name)
}

/// <https://encoding.spec.whatwg.org/#dom-textdecoder-fatal>
fn get_fatal(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    let decoder = webidl::this::<TextDecoderStream>(this)?;
    // Return true if this's error mode is "fatal", otherwise false.
    let fatal = decoder.borrow().data().common.fatal;
    Ok(fatal.into())
}

/// <https://encoding.spec.whatwg.org/#dom-textdecoder-ignorebom>
fn get_ignore_bom(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    let decoder = webidl::this::<TextDecoderStream>(this)?;
    // Return this's ignore BOM.
    let ignore_bom = decoder.borrow().data().common.ignore_bom;
    Ok(ignore_bom.into())
}

native_transform_stream!(TextDecoderStream, slot: transform, transform: decode_and_enqueue_a_chunk, flush: flush_and_enqueue, bytes: decode_and_enqueue_bytes);

/// The serialized output as the string to enqueue, made straight from the decoder's output
/// (`None` when it is empty), or the TypeError of a decoder error.
fn output_chunk(
    output: Result<Decoded<'_>, DecodeError>,
    common: &TextDecoderCommon,
    at_end: bool,
    ctx: &mut Cx,
) -> JsResult<Option<Value>> {
    let output = output.map_err(|_| common.error(at_end))?;
    if output.is_empty() {
        return Ok(None);
    }
    output.string_value(ctx).map(Some)
}

/// The enqueue that follows <https://encoding.spec.whatwg.org/#concept-td-serialize> in both
/// callers: if outputChunk is non-empty, then enqueue outputChunk in decoder's transform.
fn enqueue_output(controller: &Controller, chunk: Option<Value>, ctx: &mut Cx) -> JsResult<()> {
    match chunk {
        Some(chunk) => transform_stream_default_controller_enqueue(controller, chunk, ctx),
        None => Ok(()),
    }
}

/// <https://encoding.spec.whatwg.org/#decode-and-enqueue-a-chunk>
pub(crate) fn decode_and_enqueue_a_chunk(
    decoder: &Object<TextDecoderStream>,
    controller: &Controller,
    chunk: Value,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Let bufferSource be the result of converting chunk to an
    //    [AllowShared] BufferSource.
    // 2. Push a copy of bufferSource to decoder's I/O queue.
    //    (The bytes are read in place: decoding runs no script, so the copy is not needed.)
    check_buffer_source(&chunk, true, "The chunk", ctx)?;
    // 3. Let output be the I/O queue of scalar values « end-of-queue ».
    // 4. While true: read items and process them with the decoder; on error throw a TypeError.
    // 4.2. If item is end-of-queue: serialize output (and enqueue it if non-empty).
    let chunk = {
        let data = decoder.borrow();
        let common = &data.data().common;
        let output = with_buffer_source_bytes(&chunk, ctx, |bytes| common.process(bytes, false))
            .unwrap_or_else(|| common.process(&[], false));
        output_chunk(output, common, false, ctx)?
    };
    enqueue_output(controller, chunk, ctx)
}

/// The decode and enqueue a chunk algorithm given a chunk of Rust bytes (a native pipe's: step
/// 1's conversion has nothing to check).
pub(crate) fn decode_and_enqueue_bytes(
    decoder: &Object<TextDecoderStream>,
    controller: &Controller,
    bytes: &[u8],
    ctx: &mut Cx,
) -> JsResult<()> {
    // 2.–4. Process the bytes with the decoder, and serialize the output.
    let chunk = {
        let data = decoder.borrow();
        let common = &data.data().common;
        output_chunk(common.process(bytes, false), common, false, ctx)?
    };
    enqueue_output(controller, chunk, ctx)
}

/// <https://encoding.spec.whatwg.org/#flush-and-enqueue>
pub(crate) fn flush_and_enqueue(
    decoder: &Object<TextDecoderStream>,
    controller: &Controller,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Let output be the I/O queue of scalar values « end-of-queue ».
    // 2. Let result be the result of processing end-of-queue for decoder's decoder and I/O
    //    queue, output, and error mode.
    // 3. If result is finished, serialize output and enqueue it if non-empty.
    // 4. Otherwise, throw a TypeError.
    let chunk = {
        let data = decoder.borrow();
        let common = &data.data().common;
        output_chunk(common.process(&[], true), common, true, ctx)?
    };
    enqueue_output(controller, chunk, ctx)
}
