//! `TextDecoderStream`: <https://encoding.spec.whatwg.org/#interface-textdecoderstream>.

use crate::engine;
use std::cell::{Cell, RefCell};
use std::fmt;

use crate::engine::{Cx, JsResult, JsString, Object, Slot, Value};
use encoding_rs::{CoderResult, Decoder, DecoderResult, Encoding};

use crate::{
    engine::buffer_source_copy,
    engine::webidl,
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
        /// <https://encoding.spec.whatwg.org/#textdecodercommon-encoding>
        #[unsafe_ignore_trace]
        encoding: &'static Encoding,
        /// <https://encoding.spec.whatwg.org/#textdecodercommon-error-mode>: "fatal" or
        /// "replacement".
        fatal: bool,
        /// <https://encoding.spec.whatwg.org/#textdecodercommon-ignore-bom>
        ignore_bom: bool,
        /// <https://encoding.spec.whatwg.org/#textdecodercommon-bom-seen>
        bom_seen: Cell<bool>,
        /// <https://encoding.spec.whatwg.org/#textdecodercommon-decoder>, with its
        /// <https://encoding.spec.whatwg.org/#textdecodercommon-i-o-queue> (the bytes of a sequence
        /// split between chunks wait inside the decoder). Holds no JS value.
        #[unsafe_ignore_trace]
        decoder: RefCell<Decoder>,
        /// <https://streams.spec.whatwg.org/#generictransformstream-transform>
        transform: Slot<Option<Object<TransformStream>>>,
    }
}

impl fmt::Debug for TextDecoderStream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TextDecoderStream")
            .field("encoding", &self.encoding.name())
            .field("fatal", &self.fatal)
            .field("ignore_bom", &self.ignore_bom)
            .field("bom_seen", &self.bom_seen.get())
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
        // WebIDL: `optional DOMString label = "utf-8"`, then
        // `optional TextDecoderOptions options = {}` (members `fatal`, `ignoreBOM`, both
        // `boolean` defaulting to false, read in lexicographic order).
        let label = match args.first() {
            None => None,
            Some(v) if v.is_undefined() => None,
            Some(v) => Some(v.to_string(ctx)?),
        };
        let options = args.get(1).cloned().unwrap_or_default();
        let dict = webidl::dictionary(&options, "The options")?;
        let fatal = webidl::member(dict.as_ref(), "fatal", ctx)?.to_boolean();
        let ignore_bom = webidl::member(dict.as_ref(), "ignoreBOM", ctx)?.to_boolean();
        // 1. Let encoding be the result of getting an encoding from label.
        let encoding = match label {
            None => Some(encoding_rs::UTF_8),
            Some(label) => label
                .to_std_string()
                .ok()
                .and_then(|l| Encoding::for_label(l.as_bytes())),
        };
        // 2. If encoding is failure or replacement, then throw a RangeError.
        let encoding = match encoding {
            Some(e) if e != encoding_rs::REPLACEMENT => e,
            _ => {
                return Err(engine::throw_range_error(
                    "The encoding label is not supported",
                ))
            }
        };
        // 3. Set this's encoding to encoding.
        // 4. If options["fatal"] is true, then set this's error mode to "fatal".
        // 5. Set this's ignore BOM to options["ignoreBOM"].
        // 6. Set this's decoder to a new decoder for this's encoding, and set this's I/O queue
        //    to a new I/O queue.
        Ok(Self {
            encoding,
            fatal,
            ignore_bom,
            bom_seen: Cell::new(false),
            decoder: RefCell::new(encoding.new_decoder_without_bom_handling()),
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
    let name = decoder.borrow().data().encoding.name().to_ascii_lowercase();
    Ok(JsString::from(name.as_str()).into())
}

/// <https://encoding.spec.whatwg.org/#dom-textdecoder-fatal>
fn get_fatal(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    let decoder = webidl::this::<TextDecoderStream>(this)?;
    // Return true if this's error mode is "fatal", otherwise false.
    let fatal = decoder.borrow().data().fatal;
    Ok(fatal.into())
}

/// <https://encoding.spec.whatwg.org/#dom-textdecoder-ignorebom>
fn get_ignore_bom(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    let decoder = webidl::this::<TextDecoderStream>(this)?;
    // Return this's ignore BOM.
    let ignore_bom = decoder.borrow().data().ignore_bom;
    Ok(ignore_bom.into())
}

native_transform_stream!(TextDecoderStream, slot: transform, transform: decode_and_enqueue_a_chunk, flush: flush_and_enqueue);

/// The decoder's error: <https://encoding.spec.whatwg.org/#error> in error mode "fatal".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct DecodeError;

/// Runs `decoder` over `input` (then over end-of-queue when `last`), giving the code units of
/// the scalar values it outputs. In "replacement" error mode errors become U+FFFD; in "fatal"
/// mode the first one is returned. Bytes of an unfinished sequence stay in the decoder.
pub(crate) fn run_decoder(
    decoder: &mut Decoder,
    fatal: bool,
    input: &[u8],
    last: bool,
) -> Result<Vec<u16>, DecodeError> {
    let mut output: Vec<u16> = Vec::new();
    let mut src = input;
    loop {
        // Room for everything the input can give, and at least for one U+FFFD.
        let room = decoder
            .max_utf16_buffer_length(src.len())
            .unwrap_or(1 << 20)
            .max(4);
        let start = output.len();
        output.resize(start + room, 0);
        let dst = &mut output[start..];
        let (done, read, written) = if fatal {
            let (result, read, written) =
                decoder.decode_to_utf16_without_replacement(src, dst, last);
            match result {
                DecoderResult::Malformed(_, _) => return Err(DecodeError),
                DecoderResult::InputEmpty => (true, read, written),
                DecoderResult::OutputFull => (false, read, written),
            }
        } else {
            let (result, read, written, _) = decoder.decode_to_utf16(src, dst, last);
            (result == CoderResult::InputEmpty, read, written)
        };
        output.truncate(start + written);
        src = src.get(read..).unwrap_or_default();
        if done {
            return Ok(output);
        }
    }
}

/// <https://encoding.spec.whatwg.org/#concept-td-serialize>, with the enqueue that follows it
/// in both callers: the code units left after the BOM check are enqueued as one string when
/// there are any.
fn serialize_and_enqueue(
    decoder: &Object<TextDecoderStream>,
    controller: &Controller,
    mut output: Vec<u16>,
    ctx: &mut Cx,
) -> JsResult<()> {
    {
        let d = decoder.borrow();
        let d = d.data();
        // 2.3. If decoder's encoding is UTF-8 or UTF-16BE/LE, and decoder's ignore BOM and BOM
        //      seen are false, then:
        let bom_encoding = d.encoding == encoding_rs::UTF_8
            || d.encoding == encoding_rs::UTF_16BE
            || d.encoding == encoding_rs::UTF_16LE;
        if bom_encoding && !d.ignore_bom && !d.bom_seen.get() && !output.is_empty() {
            // 1. Set decoder's BOM seen to true.
            d.bom_seen.set(true);
            // 2. If item is U+FEFF BOM, then continue.
            if output.first() == Some(&0xFEFF) {
                output.remove(0);
            }
        }
    }
    // If outputChunk is non-empty, then enqueue outputChunk in decoder's transform.
    if output.is_empty() {
        return Ok(());
    }
    let chunk = JsString::from(&output[..]);
    transform_stream_default_controller_enqueue(controller, chunk.into(), ctx)
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
    let bytes = buffer_source_copy(&chunk, true, "The chunk", ctx)?;
    // 3. Let output be the I/O queue of scalar values « end-of-queue ».
    // 4. While true: read items and process them with the decoder; on error throw a TypeError.
    let output = {
        let d = decoder.borrow();
        let d = d.data();
        let mut state = d.decoder.borrow_mut();
        run_decoder(&mut state, d.fatal, &bytes, false)
    };
    let Ok(output) = output else {
        return Err(engine::throw_type_error(format!(
            "The input is not valid {}",
            decoder.borrow().data().encoding.name()
        )));
    };
    // 4.2. If item is end-of-queue: serialize output and enqueue it if non-empty.
    serialize_and_enqueue(decoder, controller, output, ctx)
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
    let output = {
        let d = decoder.borrow();
        let d = d.data();
        let mut state = d.decoder.borrow_mut();
        run_decoder(&mut state, d.fatal, &[], true)
    };
    match output {
        // 3. If result is finished, serialize output and enqueue it if non-empty.
        Ok(output) => serialize_and_enqueue(decoder, controller, output, ctx),
        // 4. Otherwise, throw a TypeError.
        Err(DecodeError) => Err(engine::throw_type_error(format!(
            "The input ends in an incomplete {} sequence",
            decoder.borrow().data().encoding.name()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(
        encoding: &'static Encoding,
        fatal: bool,
        chunks: &[&[u8]],
    ) -> Result<Vec<String>, DecodeError> {
        let mut decoder = encoding.new_decoder_without_bom_handling();
        let mut out = Vec::new();
        for chunk in chunks {
            out.push(String::from_utf16_lossy(&run_decoder(
                &mut decoder,
                fatal,
                chunk,
                false,
            )?));
        }
        out.push(String::from_utf16_lossy(&run_decoder(
            &mut decoder,
            fatal,
            &[],
            true,
        )?));
        Ok(out)
    }

    #[test]
    fn multi_byte_sequences_split_between_chunks() {
        let utf8 = encoding_rs::UTF_8;
        assert_eq!(
            decode(
                utf8,
                true,
                &[&[0x49, 0xF0], &[0x9F, 0x92], &[], &[0x99, 0x21]]
            ),
            Ok(vec![
                "I".into(),
                "".into(),
                "".into(),
                "\u{1F499}!".into(),
                "".into()
            ])
        );
        assert_eq!(
            decode(encoding_rs::SHIFT_JIS, false, &[&[0x90], &[0x85]]),
            Ok(vec!["".into(), "\u{6C34}".into(), "".into()])
        );
        assert_eq!(
            decode(
                encoding_rs::UTF_16BE,
                false,
                &[&[0xD8], &[0x3D, 0xDC], &[0x99]]
            ),
            Ok(vec!["".into(), "".into(), "\u{1F499}".into(), "".into()])
        );
    }

    #[test]
    fn errors_in_each_mode() {
        let utf8 = encoding_rs::UTF_8;
        // Replacement: an invalid byte, and a sequence cut by the end, become U+FFFD.
        assert_eq!(
            decode(utf8, false, &[&[0x61, 0xFF], &[0xE2, 0x82]]),
            Ok(vec!["a\u{FFFD}".into(), "".into(), "\u{FFFD}".into()])
        );
        // Fatal: both are errors.
        assert_eq!(decode(utf8, true, &[&[0x61, 0xFF]]), Err(DecodeError));
        assert_eq!(decode(utf8, true, &[&[0xE2, 0x82]]), Err(DecodeError));
        // A large chunk of invalid bytes in replacement mode.
        let out = decode(utf8, false, &[&[0xFF; 10_000]]).expect("replacement mode");
        assert_eq!(out[0].chars().count(), 10_000);
    }
}
