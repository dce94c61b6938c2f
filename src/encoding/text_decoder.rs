//! `TextDecoder`: <https://encoding.spec.whatwg.org/#interface-textdecoder>.

use std::cell::{Cell, RefCell};
use std::fmt;

use crate::engine::{self, webidl, Cx, JsResult, Value};

use super::common::TextDecoderCommon;

traced! {
    data;
    /// <https://encoding.spec.whatwg.org/#textdecoder>. Holds no JS value.
    pub(crate) struct TextDecoder {
        /// The slots of <https://encoding.spec.whatwg.org/#textdecodercommon>.
        #[unsafe_ignore_trace]
        common: TextDecoderCommon,
        /// The bytes of <https://encoding.spec.whatwg.org/#textdecodercommon-i-o-queue> that the
        /// decoder has not taken: those after a fatal error in a `stream` decode(), read first
        /// by the next decode().
        #[unsafe_ignore_trace]
        io_queue: RefCell<Vec<u8>>,
        /// <https://encoding.spec.whatwg.org/#textdecoder-do-not-flush-flag>
        #[unsafe_ignore_trace]
        do_not_flush: Cell<bool>,
    }
}

impl fmt::Debug for TextDecoder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TextDecoder")
            .field("common", &self.common)
            .field("do_not_flush", &self.do_not_flush.get())
            .finish_non_exhaustive()
    }
}

impl webidl::ClassInterface for TextDecoder {
    const LENGTH: usize = 0;
    fn members(b: &mut webidl::InterfaceBuilder<'_, '_>) {
        // TextDecoderCommon
        b.attribute("encoding", get_encoding, None);
        b.attribute("fatal", get_fatal, None);
        b.attribute("ignoreBOM", get_ignore_bom, None);
        b.operation("decode", 0, decode);
    }

    /// <https://encoding.spec.whatwg.org/#dom-textdecoder>
    fn construct(_: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Self> {
        // The conversions of the arguments, then steps 1–5.
        Ok(Self {
            common: TextDecoderCommon::construct(args, ctx)?,
            io_queue: RefCell::new(Vec::new()),
            do_not_flush: Cell::new(false),
        })
    }
}

webidl::interface!(TextDecoder, "TextDecoder");

/// <https://encoding.spec.whatwg.org/#dom-textdecoder-encoding>
fn get_encoding(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    let decoder = webidl::this::<TextDecoder>(this)?;
    // Return this's encoding's name, in ASCII lowercase.
    let name = decoder.borrow().data().common.encoding_name();
    Ok(name)
}

/// <https://encoding.spec.whatwg.org/#dom-textdecoder-fatal>
fn get_fatal(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    let decoder = webidl::this::<TextDecoder>(this)?;
    // Return true if this's error mode is "fatal", otherwise false.
    let fatal = decoder.borrow().data().common.fatal;
    Ok(fatal.into())
}

/// <https://encoding.spec.whatwg.org/#dom-textdecoder-ignorebom>
fn get_ignore_bom(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    let decoder = webidl::this::<TextDecoder>(this)?;
    // Return this's ignore BOM.
    let ignore_bom = decoder.borrow().data().common.ignore_bom;
    Ok(ignore_bom.into())
}

/// <https://encoding.spec.whatwg.org/#dom-textdecoder-decode>
fn decode(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let decoder = webidl::this::<TextDecoder>(this)?;
    // WebIDL: `optional AllowSharedBufferSource input`, then
    // `optional TextDecodeOptions options = {}` (member `stream`, a boolean defaulting to
    // false). The buffer source is checked now and its bytes copied in step 3, after the
    // options' getter has run.
    let input = webidl::arg(args, 0);
    let input = if input.is_undefined() {
        None
    } else {
        engine::check_buffer_source(&input, true, "The input", ctx)?;
        Some(input)
    };
    let options = webidl::arg(args, 1);
    let dict = webidl::dictionary(&options, "The options")?;
    let stream = webidl::member(dict.as_ref(), "stream", ctx)?.to_boolean();

    let d = decoder.borrow();
    let d = d.data();
    // 1. If this's do not flush is false, then set this's decoder to a new instance of this's
    //    encoding's decoder, this's I/O queue to the I/O queue of bytes « end-of-queue », and
    //    this's BOM seen to false.
    let fresh = !d.do_not_flush.get();
    if fresh {
        d.common.reset();
        d.io_queue.borrow_mut().clear();
    }
    // 2. Set this's do not flush to options["stream"].
    d.do_not_flush.set(stream);
    // 3. If input is given, then push a copy of input to this's I/O queue.
    let mut queue = std::mem::take(&mut *d.io_queue.borrow_mut());
    if let Some(input) = input {
        // (Runs no script: the conversion was checked above.)
        let bytes = engine::buffer_source_copy(&input, true, "The input", ctx)?;
        if queue.is_empty() {
            queue = bytes;
        } else {
            queue.extend_from_slice(&bytes);
        }
    }
    // (A whole UTF-8 input that a new decoder decodes and flushes (step 1 reset it, and
    // options["stream"] is false), made only of characters up to U+00FF, is its own output:
    // no error, and no BOM, which is U+FEFF. It becomes an 8-bit string in one conversion;
    // the decoder it did not go through is reset before its next use, as do not flush is
    // false.)
    if fresh && !stream && d.common.encoding == encoding_rs::UTF_8 {
        if let Some(output) = super::latin1_string_value(&[&queue], 0, ctx)? {
            return Ok(output);
        }
    }
    // 4. Let output be the I/O queue of scalar values « end-of-queue ».
    // 5. While true:
    //    1. Let item be the result of reading from this's I/O queue.
    //    2. If item is end-of-queue and this's do not flush is true, then return the result of
    //       running serialize I/O queue with this and output.
    //    3. Otherwise:
    //       1. Let result be the result of processing an item with item, this's decoder,
    //          this's I/O queue, output, and this's error mode.
    //       2. If result is finished, then return the result of running serialize I/O queue
    //          with this and output.
    //       3. Otherwise, if result is error, throw a TypeError.
    //    (Decoded into the decoder's scratch buffers, which the next call reuses.)
    //    (The output's string value is made straight from the decoder's output; a string
    //    longer than the engine can hold is its RangeError.)
    let result = match d.common.process(&queue, !stream) {
        Ok(output) => output.string_value(ctx),
        Err(error) => {
            // The items after the error stay in the I/O queue.
            let at_end = error.consumed >= queue.len();
            if let Some(rest) = queue.get(error.consumed..) {
                *d.io_queue.borrow_mut() = rest.to_vec();
            }
            Err(d.common.error(at_end))
        }
    };
    result
}
