//! `TextDecoderStream`: <https://encoding.spec.whatwg.org/#interface-textdecoderstream>.

use std::fmt;

use crate::engine::{Cx, JsResult, JsString, Object, Slot, Value};

use super::common::TextDecoderCommon;
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

/// The enqueue that follows <https://encoding.spec.whatwg.org/#concept-td-serialize> in both
/// callers: the serialized output, when it is non-empty, enqueued as one string.
fn enqueue_output(controller: &Controller, output: Option<JsString>, ctx: &mut Cx) -> JsResult<()> {
    // If outputChunk is non-empty, then enqueue outputChunk in decoder's transform.
    match output {
        Some(chunk) => {
            let chunk = crate::engine::string_value(&chunk, ctx)?;
            transform_stream_default_controller_enqueue(controller, chunk, ctx)
        }
        None => Ok(()),
    }
}

/// The serialized output as a string, `None` when it is empty.
fn output_chunk(units: &[u16]) -> Option<JsString> {
    (!units.is_empty()).then(|| JsString::from(units))
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
    // 3.–4. (see `decode_chunk`)
    let output = with_buffer_source_bytes(&chunk, ctx, |bytes| decode_chunk(decoder, bytes))
        .unwrap_or_else(|| decode_chunk(decoder, &[]))?;
    enqueue_output(controller, output, ctx)
}

/// Steps 3–4 of <https://encoding.spec.whatwg.org/#decode-and-enqueue-a-chunk> on `bytes`: the
/// serialized output (its enqueue is the caller's), or the TypeError of a decoder error.
fn decode_chunk(decoder: &Object<TextDecoderStream>, bytes: &[u8]) -> JsResult<Option<JsString>> {
    // 3. Let output be the I/O queue of scalar values « end-of-queue ».
    // 4. While true: read items and process them with the decoder; on error throw a TypeError.
    // 4.2. If item is end-of-queue: serialize output (and enqueue it if non-empty).
    let data = decoder.borrow();
    let common = &data.data().common;
    common
        .process_with(bytes, false, output_chunk)
        .map_err(|_| common.error(false))
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
    let output = decode_chunk(decoder, bytes)?;
    enqueue_output(controller, output, ctx)
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
    let output = decoder
        .borrow()
        .data()
        .common
        .process_with(&[], true, output_chunk);
    match output {
        // 3. If result is finished, serialize output and enqueue it if non-empty.
        Ok(output) => enqueue_output(controller, output, ctx),
        // 4. Otherwise, throw a TypeError.
        Err(_) => Err(decoder.borrow().data().common.error(true)),
    }
}
