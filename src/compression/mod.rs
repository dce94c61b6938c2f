//! The Compression Standard: `CompressionStream` and `DecompressionStream`.
//!
//! <https://compression.spec.whatwg.org/>
//!
//! Both are `GenericTransformStream`s set up with Rust algorithms (they implement `NativeTransformer`
//! variants of the transform algorithms). The compression contexts are in [`codec`]: flate2's
//! encoders, and flate2's inflater with the gzip wrapper read there, for "deflate",
//! "deflate-raw" and "gzip"; the `brotli` crate's streaming encoder and decoder, in
//! [`brotli_codec`], for "brotli". All four formats of the standard are supported.

pub(crate) mod brotli_codec;
pub(crate) mod codec;
pub(crate) mod error;

use crate::engine;
use crate::engine::{Cx, JsResult, Object, Slot, Value};
use crate::queue::{Chunk, NativeBytes};
use std::cell::RefCell;

use crate::{
    engine::webidl,
    engine::{buffer_source_copy, check_buffer_source, new_uint8_array, with_buffer_source_bytes},
    transform::{
        default_controller::{
            transform_stream_default_controller_enqueue,
            transform_stream_default_controller_enqueue_chunk, Controller,
        },
        other_specs::{
            define_generic_transform_stream, native_transform_stream, new_transform_stream,
            NativeTransform,
        },
        TransformStream,
    },
};
use codec::{Compressor, Decompressor, Format};

/// Installs `CompressionStream` and `DecompressionStream` in the current realm.
pub(crate) fn register(ctx: &mut Cx) -> JsResult<()> {
    webidl::register_interface::<CompressionStream>(ctx)?;
    webidl::register_interface::<DecompressionStream>(ctx)?;
    Ok(())
}

/// Converts the constructors' `CompressionFormat format` argument
/// (<https://webidl.spec.whatwg.org/#es-enumeration>: a missing argument and a string that is no
/// enumeration value are TypeErrors), then applies "If format is unsupported, then throw a
/// TypeError".
fn compression_format(args: &[Value], interface: &str, ctx: &mut Cx) -> JsResult<Format> {
    let Some(value) = args.first() else {
        return Err(engine::throw_type_error(format!(
            "{interface}: the format argument is required"
        )));
    };
    let name = value.to_string(ctx)?.to_std_string_escaped();
    Format::from_name(&name).ok_or_else(|| {
        engine::throw_type_error(format!(
            "{interface}: unsupported compression format '{name}'"
        ))
    })
}

/// Enqueues `buffer` in the transform as one `Uint8Array` when it is non-empty (the standard's
/// "If buffer is empty, return", the split into non-empty pieces, and the enqueue loop).
fn enqueue_bytes(buffer: &[u8], controller: &Controller, ctx: &mut Cx) -> JsResult<()> {
    if buffer.is_empty() {
        return Ok(());
    }
    let array = new_uint8_array(buffer, ctx)?;
    transform_stream_default_controller_enqueue(controller, array, ctx)
}

/// The largest output buffer a `DecompressionStream` keeps between chunks (a larger one, from
/// an unusually large chunk, is freed).
const OUTPUT_KEEP: usize = 4 << 20;

fn corrupt(message: &str) -> crate::engine::JsError {
    engine::throw_type_error(message.to_owned())
}

traced! {
    data;
    /// <https://compression.spec.whatwg.org/#compressionstream>
    pub(crate) struct CompressionStream {
        /// <https://compression.spec.whatwg.org/#compressionstream-format> with its
        /// <https://compression.spec.whatwg.org/#compressionstream-context>. Holds no JS value.
        #[unsafe_ignore_trace]
        context: RefCell<Compressor>,
        /// <https://streams.spec.whatwg.org/#generictransformstream-transform>
        transform: Slot<Option<Object<TransformStream>>>,
    }
}

impl std::fmt::Debug for CompressionStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompressionStream").finish_non_exhaustive()
    }
}

impl webidl::ClassInterface for CompressionStream {
    const LENGTH: usize = 1;
    fn members(b: &mut webidl::InterfaceBuilder<'_, '_>) {
        define_generic_transform_stream::<Self>(b);
    }

    /// <https://compression.spec.whatwg.org/#dom-compressionstream-compressionstream>,
    /// steps 1–2.
    fn construct(_: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Self> {
        // 1. If format is unsupported in CompressionStream, then throw a TypeError.
        let format = compression_format(args, <Self as webidl::Interface>::NAME, ctx)?;
        // 2. Set this's format to format.
        Ok(Self {
            context: RefCell::new(Compressor::new(format)),
            transform: Slot::new(None),
        })
    }

    /// <https://compression.spec.whatwg.org/#dom-compressionstream-compressionstream>,
    /// steps 3–6.
    fn constructed(this: &Object<Self>, _: &[Value], ctx: &mut Cx) -> JsResult<()> {
        // 3. Let transformAlgorithm be an algorithm which takes a chunk argument and runs the
        //    compress and enqueue a chunk algorithm with this and chunk.
        // 4. Let flushAlgorithm be an algorithm which takes no argument and runs the compress
        //    flush and enqueue algorithm with this.
        // 5. Set this's transform to a new TransformStream.
        let transform = new_transform_stream(ctx)?;
        *this.borrow().data().transform.borrow_mut() = Some(transform.clone());
        // 6. Set up this's transform with transformAlgorithm set to transformAlgorithm and
        //    flushAlgorithm set to flushAlgorithm.
        NativeTransform::new(this).set_up(&transform, ctx)
    }
}

webidl::interface!(CompressionStream, "CompressionStream");

native_transform_stream!(CompressionStream, slot: transform, transform: compress_and_enqueue_a_chunk, flush: compress_flush_and_enqueue);

/// <https://compression.spec.whatwg.org/#compress-and-enqueue-a-chunk>
pub(crate) fn compress_and_enqueue_a_chunk(
    cs: &Object<CompressionStream>,
    controller: &Controller,
    chunk: Value,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. If chunk is not a BufferSource type, then throw a TypeError.
    let input = buffer_source_copy(&chunk, false, "The chunk", ctx)?;
    // 2. Let buffer be the result of compressing chunk with cs's format and context.
    let buffer = cs.borrow().data().context.borrow_mut().compress(&input);
    let buffer = buffer.map_err(|_| corrupt("The data could not be compressed"))?;
    // 3. If buffer is empty, return.
    // 4. Let arrays be the result of splitting buffer into one or more non-empty pieces and
    //    converting them into Uint8Arrays.
    // 5. For each Uint8Array array of arrays, enqueue array in cs's transform.
    enqueue_bytes(&buffer, controller, ctx)
}

/// <https://compression.spec.whatwg.org/#compress-flush-and-enqueue>
pub(crate) fn compress_flush_and_enqueue(
    cs: &Object<CompressionStream>,
    controller: &Controller,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Let buffer be the result of compressing an empty input with cs's format and context,
    //    with the finish flag.
    let buffer = cs.borrow().data().context.borrow_mut().finish();
    let buffer = buffer.map_err(|_| corrupt("The data could not be compressed"))?;
    // 2. If buffer is empty, return.
    // 3. Let arrays be the result of splitting buffer into one or more non-empty pieces and
    //    converting them into Uint8Arrays.
    // 4. For each Uint8Array array of arrays, enqueue array in cs's transform.
    enqueue_bytes(&buffer, controller, ctx)
}

traced! {
    data;
    /// <https://compression.spec.whatwg.org/#decompressionstream>
    pub(crate) struct DecompressionStream {
        /// <https://compression.spec.whatwg.org/#decompressionstream-format> with its
        /// <https://compression.spec.whatwg.org/#decompressionstream-context>. Holds no JS value.
        #[unsafe_ignore_trace]
        context: RefCell<Decompressor>,
        /// The buffer the last chunk was decompressed into, kept for the next one (its bytes
        /// are copied into the `Uint8Array` enqueued, so a new buffer per chunk is not needed).
        #[unsafe_ignore_trace]
        output: RefCell<Vec<u8>>,
        /// <https://streams.spec.whatwg.org/#generictransformstream-transform>
        transform: Slot<Option<Object<TransformStream>>>,
    }
}

impl std::fmt::Debug for DecompressionStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DecompressionStream")
            .finish_non_exhaustive()
    }
}

impl webidl::ClassInterface for DecompressionStream {
    const LENGTH: usize = 1;
    fn members(b: &mut webidl::InterfaceBuilder<'_, '_>) {
        define_generic_transform_stream::<Self>(b);
    }

    /// <https://compression.spec.whatwg.org/#dom-decompressionstream-decompressionstream>,
    /// steps 1–2.
    fn construct(_: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Self> {
        // 1. If format is unsupported in DecompressionStream, then throw a TypeError.
        let format = compression_format(args, <Self as webidl::Interface>::NAME, ctx)?;
        // 2. Set this's format to format.
        Ok(Self {
            context: RefCell::new(Decompressor::new(format)),
            output: RefCell::new(Vec::new()),
            transform: Slot::new(None),
        })
    }

    /// <https://compression.spec.whatwg.org/#dom-decompressionstream-decompressionstream>,
    /// steps 3–6.
    fn constructed(this: &Object<Self>, _: &[Value], ctx: &mut Cx) -> JsResult<()> {
        // 3. Let transformAlgorithm be an algorithm which takes a chunk argument and runs the
        //    decompress and enqueue a chunk algorithm with this and chunk.
        // 4. Let flushAlgorithm be an algorithm which takes no argument and runs the
        //    decompress flush and enqueue algorithm with this.
        // 5. Set this's transform to a new TransformStream.
        let transform = new_transform_stream(ctx)?;
        *this.borrow().data().transform.borrow_mut() = Some(transform.clone());
        // 6. Set up this's transform with transformAlgorithm set to transformAlgorithm and
        //    flushAlgorithm set to flushAlgorithm.
        NativeTransform::new(this).set_up(&transform, ctx)
    }
}

webidl::interface!(DecompressionStream, "DecompressionStream");

native_transform_stream!(DecompressionStream, slot: transform, transform: decompress_and_enqueue_a_chunk, flush: decompress_flush_and_enqueue, bytes: decompress_and_enqueue_bytes);

/// The decompress and enqueue a chunk algorithm given a chunk of Rust bytes (a native pipe's:
/// the BufferSource conversion of step 1 has nothing to check), whose output is enqueued as
/// Rust bytes: a reader that is not Rust makes them the `Uint8Array` step 4 would have made.
pub(crate) fn decompress_and_enqueue_bytes(
    ds: &Object<DecompressionStream>,
    controller: &Controller,
    input: &[u8],
    ctx: &mut Cx,
) -> JsResult<()> {
    // 2. Let buffer be the result of decompressing chunk with ds's format and context.
    let mut buffer = Vec::new();
    let result = {
        let data = ds.borrow();
        let mut context = data.data().context.borrow_mut();
        context.decompress_into(input, &mut buffer)
    };
    let trailing_data = result.map_err(|_| corrupt("The compressed data is corrupt"))?;
    // 3. If buffer is empty, return. (After step 6's check: see the chunk algorithm.)
    // 4.–5. Enqueue it in ds's transform, as one chunk.
    if !buffer.is_empty() {
        let chunk = Chunk::Bytes(NativeBytes::from_vec(buffer));
        transform_stream_default_controller_enqueue_chunk(controller, chunk, ctx)?;
    }
    // 6. If the end of the compressed input has been reached, and ds's context has not fully
    //    consumed chunk, then throw a TypeError.
    if trailing_data {
        return Err(corrupt(
            "The chunk has data after the end of the compressed data",
        ));
    }
    Ok(())
}

/// <https://compression.spec.whatwg.org/#decompress-and-enqueue-a-chunk>
pub(crate) fn decompress_and_enqueue_a_chunk(
    ds: &Object<DecompressionStream>,
    controller: &Controller,
    chunk: Value,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. If chunk is not a BufferSource type, then throw a TypeError.
    check_buffer_source(&chunk, false, "The chunk", ctx)?;
    // 2. Let buffer be the result of decompressing chunk with ds's format and context. If this
    //    results in an error, then throw a TypeError. (The bytes are read in place: decompressing
    //    runs no script, so nothing can change them meanwhile.)
    let mut buffer = std::mem::take(&mut *ds.borrow().data().output.borrow_mut());
    buffer.clear();
    let result = with_buffer_source_bytes(&chunk, ctx, |input| {
        let data = ds.borrow();
        let mut context = data.data().context.borrow_mut();
        context.decompress_into(input, &mut buffer)
    })
    .unwrap_or_else(|| {
        let data = ds.borrow();
        let mut context = data.data().context.borrow_mut();
        context.decompress_into(&[], &mut buffer)
    });
    let trailing_data = result.map_err(|_| corrupt("The compressed data is corrupt"))?;
    // 3. If buffer is empty, return.
    //    (Not before step 6: input after the end is an error of the format ("It is an error if
    //    there is additional input data after ..."), so a chunk of nothing but such data is an
    //    error of step 2 even though it gives no output.)
    // 4. Let arrays be the result of splitting buffer into one or more non-empty pieces and
    //    converting them into Uint8Arrays.
    // 5. For each Uint8Array array of arrays, enqueue array in ds's transform.
    let enqueued = enqueue_bytes(&buffer, controller, ctx);
    if buffer.capacity() <= OUTPUT_KEEP {
        *ds.borrow().data().output.borrow_mut() = buffer;
    }
    enqueued?;
    // 6. If the end of the compressed input has been reached, and ds's context has not fully
    //    consumed chunk, then throw a TypeError.
    if trailing_data {
        return Err(corrupt(
            "The chunk has data after the end of the compressed data",
        ));
    }
    Ok(())
}

/// <https://compression.spec.whatwg.org/#decompress-flush-and-enqueue>
pub(crate) fn decompress_flush_and_enqueue(
    ds: &Object<DecompressionStream>,
    controller: &Controller,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Let buffer be the result of decompressing an empty input with ds's format and
    //    context, with the finish flag.
    let (result, ended) = {
        let d = ds.borrow();
        let mut context = d.data().context.borrow_mut();
        let result = context.finish();
        (result, context.ended())
    };
    let buffer = result.map_err(|_| corrupt("The compressed data is corrupt"))?;
    // 2. If buffer is not empty: split it into Uint8Arrays and enqueue each in ds's transform.
    enqueue_bytes(&buffer, controller, ctx)?;
    // 3. If the end of the compressed input has not been reached, then throw a TypeError.
    if !ended {
        return Err(corrupt("The compressed data ends before its end"));
    }
    Ok(())
}
