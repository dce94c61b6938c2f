//! `TextEncoderStream`: <https://encoding.spec.whatwg.org/#interface-textencoderstream>.

use std::cell::Cell;

use crate::engine::{js_string, CodeUnits, Cx, JsResult, Object, Slot, Value};

use crate::{
    engine::new_uint8_array,
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
    /// <https://encoding.spec.whatwg.org/#textencoderstream>
    ///
    /// Its encoder is always UTF-8's, which keeps no state: the only state is the pending high
    /// surrogate.
    #[derive(Debug)]
    pub(crate) struct TextEncoderStream {
        /// <https://encoding.spec.whatwg.org/#textencoderstream-pending-high-surrogate>
        pending_high_surrogate: Cell<Option<u16>>,
        /// <https://streams.spec.whatwg.org/#generictransformstream-transform>
        transform: Slot<Option<Object<TransformStream>>>,
    }
}

impl webidl::ClassInterface for TextEncoderStream {
    const LENGTH: usize = 0;
    fn members(b: &mut webidl::InterfaceBuilder<'_, '_>) {
        // TextEncoderCommon
        b.attribute("encoding", get_encoding, None);
        define_generic_transform_stream::<Self>(b);
    }

    /// <https://encoding.spec.whatwg.org/#dom-textencoderstream>, step 1.
    fn construct(_: &Value, _: &[Value], _: &mut Cx) -> JsResult<Self> {
        // 1. Set this's encoder to an instance of the UTF-8 encoder.
        Ok(Self {
            pending_high_surrogate: Cell::new(None),
            transform: Slot::new(None),
        })
    }

    /// <https://encoding.spec.whatwg.org/#dom-textencoderstream>, the remaining steps.
    fn constructed(this: &Object<Self>, _: &[Value], ctx: &mut Cx) -> JsResult<()> {
        // 2. Let transformAlgorithm be an algorithm which takes a chunk argument and runs the
        //    encode and enqueue a chunk algorithm with this and chunk.
        // 3. Let flushAlgorithm be an algorithm which runs the encode and flush algorithm with
        //    this.
        // 4. Set this's transform to a new TransformStream.
        let transform = new_transform_stream(ctx)?;
        *this.borrow().data().transform.borrow_mut() = Some(transform.clone());
        // 5. Set up this's transform with transformAlgorithm set to transformAlgorithm and
        //    flushAlgorithm set to flushAlgorithm.
        NativeTransform::new(this).set_up(&transform, ctx)
    }
}

webidl::interface!(TextEncoderStream, "TextEncoderStream");

/// <https://encoding.spec.whatwg.org/#dom-textencoder-encoding>
fn get_encoding(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    webidl::this::<TextEncoderStream>(this)?;
    // Return "utf-8".
    Ok(js_string!("utf-8").into())
}

native_transform_stream!(TextEncoderStream, slot: transform, transform: encode_and_enqueue_a_chunk, flush: encode_and_flush);

/// What "convert code unit to scalar value" gives.
enum Converted {
    /// A scalar value to encode.
    Scalar(u32),
    /// `continue`: a high surrogate is now pending.
    Continue,
    /// U+FFFD for a pending high surrogate that `item` does not complete; `item` is put back
    /// at the front of the input.
    ReplacementAndPrepend,
}

/// <https://encoding.spec.whatwg.org/#convert-code-unit-to-scalar-value>
fn convert_code_unit_to_scalar_value(pending: &Cell<Option<u16>>, item: u16) -> Converted {
    let item32 = u32::from(item);
    // 1. If encoder's pending high surrogate is non-null, then:
    if let Some(high_surrogate) = pending.get() {
        // 1.1. Let high surrogate be encoder's pending high surrogate.
        // 1.2. Set encoder's pending high surrogate to null.
        pending.set(None);
        // 1.3. If item is in the range U+DC00 to U+DFFF, inclusive, then return a scalar value
        //      whose value is 0x10000 + ((high surrogate − 0xD800) << 10) + (item − 0xDC00).
        if (0xDC00..=0xDFFF).contains(&item) {
            return Converted::Scalar(
                0x10000 + ((u32::from(high_surrogate) - 0xD800) << 10) + (item32 - 0xDC00),
            );
        }
        // 1.4. Prepend item to input.
        // 1.5. Return U+FFFD.
        return Converted::ReplacementAndPrepend;
    }
    // 2. If item is in the range U+D800 to U+DBFF, inclusive, then set pending high surrogate
    //    to item and return continue.
    if (0xD800..=0xDBFF).contains(&item) {
        pending.set(Some(item));
        return Converted::Continue;
    }
    // 3. If item is in the range U+DC00 to U+DFFF, inclusive, then return U+FFFD.
    if (0xDC00..=0xDFFF).contains(&item) {
        return Converted::Scalar(0xFFFD);
    }
    // 4. Return item.
    Converted::Scalar(item32)
}

/// The output bytes of an encoding: written from the start of a buffer whose length stays at
/// its largest (every byte of it initialized), so a reused buffer is neither zero-filled nor
/// grown again for each chunk.
#[derive(Default)]
pub(crate) struct Encoded {
    buf: Vec<u8>,
    end: usize,
}

impl Encoded {
    /// Appends `bytes`.
    fn push(&mut self, bytes: &[u8]) {
        let end = self.end + bytes.len();
        if self.buf.len() < end {
            self.buf.resize(end, 0);
        }
        self.buf[self.end..end].copy_from_slice(bytes);
        self.end = end;
    }

    /// The bytes written.
    pub(crate) fn bytes(&self) -> &[u8] {
        &self.buf[..self.end]
    }
}

/// UTF-8's encoder handler for one scalar value (it never returns error).
fn utf8_encode(scalar: u32, output: &mut Encoded) {
    // Every value passed here is a scalar value (surrogates were replaced above).
    let c = char::from_u32(scalar).unwrap_or(char::REPLACEMENT_CHARACTER);
    let mut buf = [0u8; 4];
    output.push(c.encode_utf8(&mut buf).as_bytes());
}

/// Encodes the code units of one chunk to UTF-8, carrying a high surrogate at its end over to
/// the next chunk through `pending`: step 4's loop of "encode and enqueue a chunk".
///
/// AD-HOC: the units between the chunk's first and last go through a bulk UTF-16 → UTF-8
/// conversion (`transcode`, encoding_rs's where it does not vectorize), which replaces each
/// lone surrogate with U+FFFD exactly as "convert code unit to scalar value" does within a
/// run; only a pending high surrogate from the previous chunk and a high surrogate that ends
/// this one take the per-unit steps. `encode_code_units_per_unit` (tests) is the loop as
/// written, and the tests check the two agree. The bytes are appended to `output`.
pub(crate) fn encode_code_units_into(
    pending: &Cell<Option<u16>>,
    input: CodeUnits<'_>,
    output: &mut Encoded,
) {
    let units = match input {
        CodeUnits::Latin1(bytes) => {
            if bytes.is_empty() {
                return;
            }
            // A Latin-1 unit is never a surrogate: a pending high surrogate becomes U+FFFD and
            // the first unit is read again as itself.
            if pending.take().is_some() {
                utf8_encode(0xFFFD, output);
            }
            output.end += super::transcode::latin1_to_utf8_at(bytes, &mut output.buf, output.end);
            return;
        }
        CodeUnits::Utf16(units) => units,
    };
    let Some((&first, _)) = units.split_first() else {
        return;
    };
    let mut rest = units;
    // A pending high surrogate meets the chunk's first unit.
    if pending.get().is_some() {
        match convert_code_unit_to_scalar_value(pending, first) {
            Converted::Scalar(scalar) => {
                utf8_encode(scalar, output);
                rest = &units[1..];
            }
            // The first unit is read again, now with nothing pending (below).
            Converted::ReplacementAndPrepend => utf8_encode(0xFFFD, output),
            Converted::Continue => {}
        }
    }
    // A high surrogate at the end waits for the next chunk.
    if let Some((&last, init)) = rest.split_last() {
        if (0xD800..=0xDBFF).contains(&last) {
            pending.set(Some(last));
            rest = init;
        }
    }
    output.end += super::transcode::utf16_to_utf8_at(rest, &mut output.buf, output.end);
}

/// The most bytes [`with_encoded_buffer`]'s buffer keeps between calls (1 MiB).
const ENCODED_KEEP: usize = 1 << 20;

thread_local! {
    /// [`with_encoded_buffer`]'s output buffer, reused (taken out while in use, so a nested call
    /// would get a fresh one).
    static ENCODED: Cell<Vec<u8>> = const { Cell::new(Vec::new()) };
}

/// Runs `f` with an empty [`Encoded`] whose buffer is reused from call to call: a chunk's
/// encoding allocates nothing once the buffer has grown to the chunks' size, and zero-fills
/// nothing (a fresh three-bytes-per-unit block per chunk was a fresh mapping, faulted in page
/// by page; a cleared one was zero-filled again).
pub(crate) fn with_encoded_buffer<R>(f: impl FnOnce(&mut Encoded) -> R) -> R {
    let mut output = Encoded {
        buf: ENCODED.with(Cell::take),
        end: 0,
    };
    let result = f(&mut output);
    if output.buf.len() <= ENCODED_KEEP {
        ENCODED.with(|kept| kept.set(output.buf));
    }
    result
}

/// U+FFFD for a high surrogate still pending at the end of the input (which is cleared).
pub(crate) fn flush_pending(pending: &Cell<Option<u16>>, output: &mut Encoded) {
    if pending.take().is_some() {
        utf8_encode(0xFFFD, output);
    }
}

/// Step 4's loop of "encode and enqueue a chunk" as written, one unit at a time (the oracle
/// of [`encode_code_units_into`]).
#[cfg(test)]
fn encode_code_units_per_unit(pending: &Cell<Option<u16>>, input: &[u16]) -> Vec<u8> {
    let mut output = Encoded::default();
    for &item in input {
        match convert_code_unit_to_scalar_value(pending, item) {
            Converted::Scalar(scalar) => utf8_encode(scalar, &mut output),
            Converted::Continue => {}
            Converted::ReplacementAndPrepend => {
                utf8_encode(0xFFFD, &mut output);
                // The prepended item is read again at once, with no pending surrogate.
                match convert_code_unit_to_scalar_value(pending, item) {
                    Converted::Scalar(scalar) => utf8_encode(scalar, &mut output),
                    Converted::Continue | Converted::ReplacementAndPrepend => {}
                }
            }
        }
    }
    output.bytes().to_vec()
}

/// <https://encoding.spec.whatwg.org/#encode-and-enqueue-a-chunk>
pub(crate) fn encode_and_enqueue_a_chunk(
    encoder: &Object<TextEncoderStream>,
    controller: &Controller,
    chunk: Value,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Let input be the result of converting chunk to a DOMString.
    // 2. Convert input to an I/O queue of code units.
    // 3. Let output be the I/O queue of bytes « end-of-queue ».
    // 4. While true: read each item, convert it to a scalar value, and process the result for
    //    the UTF-8 encoder.
    // 4.2. If item is end-of-queue, then:
    // 4.2.1. Convert output into a byte sequence.
    //    (The string's code units are read in place, into a reused buffer.)
    // 4.2.2. If output is non-empty, then:
    // 4.2.2.1. Let chunk be a Uint8Array object wrapping an ArrayBuffer containing output.
    let chunk = with_encoded_buffer(|output| {
        chunk.with_code_units(ctx, |units| {
            let e = encoder.borrow();
            encode_code_units_into(&e.data().pending_high_surrogate, units, output);
        })?;
        (!output.bytes().is_empty())
            .then(|| new_uint8_array(output.bytes(), ctx))
            .transpose()
    })?;
    match chunk {
        // 4.2.2.2. Enqueue chunk into encoder's transform.
        Some(chunk) => transform_stream_default_controller_enqueue(controller, chunk, ctx),
        // 4.2.3. Return.
        None => Ok(()),
    }
}

/// <https://encoding.spec.whatwg.org/#encode-and-flush>
pub(crate) fn encode_and_flush(
    encoder: &Object<TextEncoderStream>,
    controller: &Controller,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. If encoder's pending high surrogate is non-null, then:
    let pending = encoder.borrow().data().pending_high_surrogate.get();
    if pending.is_some() {
        // 1.1. Let output be the byte sequence 0xEF 0xBF 0xBD.
        // 1.2. Let chunk be a Uint8Array object wrapping an ArrayBuffer containing output.
        let chunk = new_uint8_array(&[0xEF, 0xBF, 0xBD], ctx)?;
        // 1.3. Enqueue chunk into encoder's transform.
        transform_stream_default_controller_enqueue(controller, chunk, ctx)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`encode_code_units_into`] a new vector.
    fn encode_code_units(pending: &Cell<Option<u16>>, input: CodeUnits<'_>) -> Vec<u8> {
        let mut output = Encoded::default();
        encode_code_units_into(pending, input, &mut output);
        output.bytes().to_vec()
    }

    fn encode(chunks: &[&[u16]]) -> Vec<Vec<u8>> {
        let pending = Cell::new(None);
        let mut out: Vec<Vec<u8>> = chunks
            .iter()
            .map(|c| encode_code_units(&pending, CodeUnits::Utf16(c)))
            .collect();
        if pending.get().is_some() {
            out.push(vec![0xEF, 0xBF, 0xBD]);
        }
        out
    }

    /// Every sequence of up to 6 units drawn from ASCII, Latin-1, BMP, high and low
    /// surrogates, split into two chunks at every point, and also given as Latin-1 where it
    /// can be: the bulk encoder gives the bytes and the pending surrogate the per-unit loop
    /// gives.
    #[test]
    fn the_bulk_encoder_agrees_with_the_per_unit_loop() {
        const UNITS: [u16; 6] = [0x41, 0xE9, 0x20AC, 0xD83D, 0xDC99, 0xDBFF];
        let mut checked = 0;
        for len in 0..=6u32 {
            for mut code in 0..6usize.pow(len) {
                let mut seq = Vec::new();
                for _ in 0..len {
                    seq.push(UNITS[code % 6]);
                    code /= 6;
                }
                for split in 0..=seq.len() {
                    let (a, b) = seq.split_at(split);
                    let (bulk, unit) = (Cell::new(None), Cell::new(None));
                    for chunk in [a, b] {
                        let before = unit.get();
                        assert_eq!(
                            encode_code_units(&bulk, CodeUnits::Utf16(chunk)),
                            encode_code_units_per_unit(&unit, chunk),
                            "{seq:x?} split at {split}"
                        );
                        assert_eq!(bulk.get(), unit.get(), "{seq:x?} split at {split}");
                        if let Ok(latin1) = chunk
                            .iter()
                            .map(|&u| u8::try_from(u))
                            .collect::<Result<Vec<u8>, _>>()
                        {
                            let (bulk, unit) = (Cell::new(before), Cell::new(before));
                            assert_eq!(
                                encode_code_units(&bulk, CodeUnits::Latin1(&latin1)),
                                encode_code_units_per_unit(&unit, chunk),
                                "{seq:x?} as Latin-1"
                            );
                            assert_eq!(bulk.get(), unit.get());
                        }
                    }
                    checked += 1;
                }
            }
        }
        assert_eq!(
            checked,
            1 + 2 * 6 + 3 * 36 + 4 * 216 + 5 * 1296 + 6 * 7776 + 7 * 46656
        );
    }

    #[test]
    fn surrogates_split_between_chunks() {
        let heart = vec![0xF0, 0x9F, 0x92, 0x99];
        let fffd = vec![0xEF, 0xBF, 0xBD];
        assert_eq!(encode(&[&[0xD83D], &[0xDC99]]), vec![vec![], heart.clone()]);
        assert_eq!(
            encode(&[&[0xD83D], &[0xD83D, 0xDC99]]),
            vec![vec![], [fffd.clone(), heart.clone()].concat()]
        );
        assert_eq!(encode(&[&[0xD83D]]), vec![vec![], fffd.clone()]);
        assert_eq!(
            encode(&[&[0xDC99, 0x41]]),
            vec![[fffd, vec![0x41]].concat()]
        );
        assert_eq!(
            encode(&[&[0x7F, 0x80, 0x800]]),
            vec![vec![0x7F, 0xC2, 0x80, 0xE0, 0xA0, 0x80]]
        );
    }
}
