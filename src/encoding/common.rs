//! What `TextDecoder` and `TextDecoderStream` share: the label lookup, the constructor steps
//! and slots of `TextDecoderCommon`, running a decoder over bytes, and "serialize I/O queue"
//! with its BOM handling.

use std::cell::{Cell, RefCell};

use crate::engine::{self, webidl, Cx, JsResult, JsString, Value};
use encoding_rs::{CoderResult, Decoder, DecoderResult, Encoding};

/// <https://encoding.spec.whatwg.org/#concept-encoding-get>
///
/// encoding_rs's `for_label` is this algorithm over the label's bytes: it removes leading and
/// trailing ASCII whitespace, matches ASCII case-insensitively, and knows every label of the
/// table. A label that is not ASCII (or not even scalar values) matches nothing.
pub(crate) fn get_an_encoding(label: &JsString) -> Option<&'static Encoding> {
    // 1. Remove any leading and trailing ASCII whitespace from label.
    // 2. If label is an ASCII case-insensitive match for any of the labels listed in the
    //    table below, then return the corresponding encoding; otherwise return failure.
    let label = label.to_std_string().ok()?;
    Encoding::for_label(label.as_bytes())
}

/// <https://encoding.spec.whatwg.org/#textdecodercommon>: the slots `TextDecoder` and
/// `TextDecoderStream` share. Holds no JS value.
pub(crate) struct TextDecoderCommon {
    /// <https://encoding.spec.whatwg.org/#textdecodercommon-encoding>
    pub(crate) encoding: &'static Encoding,
    /// <https://encoding.spec.whatwg.org/#textdecodercommon-error-mode>: "fatal" when true,
    /// "replacement" otherwise.
    pub(crate) fatal: bool,
    /// <https://encoding.spec.whatwg.org/#textdecodercommon-ignore-bom>
    pub(crate) ignore_bom: bool,
    /// <https://encoding.spec.whatwg.org/#textdecodercommon-bom-seen>
    pub(crate) bom_seen: Cell<bool>,
    /// <https://encoding.spec.whatwg.org/#textdecodercommon-decoder>; the bytes of a sequence
    /// split between inputs wait inside it (part of the
    /// <https://encoding.spec.whatwg.org/#textdecodercommon-i-o-queue>).
    pub(crate) decoder: RefCell<Decoder>,
    /// The code units of the last [`TextDecoderCommon::process`], kept so the next one
    /// decodes into memory that is already there (no fresh, zero-filled buffer per chunk).
    scratch: RefCell<Vec<u16>>,
    /// The same for the output of [`TextDecoderCommon::process`] when it is Latin-1 bytes.
    latin1_scratch: RefCell<Vec<u8>>,
    /// Whether this decoder has met output that is not Latin-1 since its last reset: it then
    /// decodes straight to code units (no Latin-1 attempt per input).
    wide: Cell<bool>,
}

/// The largest scratch buffer a decoder keeps between chunks, in code units (a larger one,
/// from an unusually large chunk, is freed).
const SCRATCH_KEEP: usize = 1 << 20;

impl std::fmt::Debug for TextDecoderCommon {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TextDecoderCommon")
            .field("encoding", &self.encoding.name())
            .field("fatal", &self.fatal)
            .field("ignore_bom", &self.ignore_bom)
            .field("bom_seen", &self.bom_seen.get())
            .finish_non_exhaustive()
    }
}

impl TextDecoderCommon {
    /// The WebIDL conversions of `(optional DOMString label = "utf-8",
    /// optional TextDecoderOptions options = {})` and the steps the constructors of
    /// <https://encoding.spec.whatwg.org/#dom-textdecoder> and
    /// <https://encoding.spec.whatwg.org/#dom-textdecoderstream> share (1–5, and 6 of the
    /// stream's: a new decoder).
    pub(crate) fn construct(args: &[Value], ctx: &mut Cx) -> JsResult<Self> {
        // `label`: undefined is the default "utf-8"; anything else is ToString'd.
        let label = match args.first() {
            Some(v) if !v.is_undefined() => Some(v.to_string(ctx)?),
            _ => None,
        };
        // `options`: the dictionary's members in lexicographic order, `fatal` then
        // `ignoreBOM`, both booleans defaulting to false.
        let options = webidl::arg(args, 1);
        let dict = webidl::dictionary(&options, "The options")?;
        let fatal = webidl::member(dict.as_ref(), "fatal", ctx)?.to_boolean();
        let ignore_bom = webidl::member(dict.as_ref(), "ignoreBOM", ctx)?.to_boolean();
        // 1. Let encoding be the result of getting an encoding from label.
        let encoding = match label {
            None => Some(encoding_rs::UTF_8),
            Some(label) => get_an_encoding(&label),
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
        // (TextDecoderStream 6. Set this's decoder to a new instance of this's encoding's
        // decoder; TextDecoder makes a new one in decode() too.)
        Ok(Self {
            encoding,
            fatal,
            ignore_bom,
            bom_seen: Cell::new(false),
            decoder: RefCell::new(encoding.new_decoder_without_bom_handling()),
            scratch: RefCell::new(Vec::new()),
            latin1_scratch: RefCell::new(Vec::new()),
            wide: Cell::new(false),
        })
    }

    /// <https://encoding.spec.whatwg.org/#dom-textdecoder-encoding>: this's encoding's name,
    /// in ASCII lowercase.
    pub(crate) fn encoding_name(&self) -> Value {
        let name = self.encoding.name().to_ascii_lowercase();
        JsString::from(name.as_str()).into()
    }

    /// A new instance of the encoding's decoder, and BOM seen false (a decode() that is not a
    /// continuation).
    pub(crate) fn reset(&self) {
        *self.decoder.borrow_mut() = self.encoding.new_decoder_without_bom_handling();
        self.bom_seen.set(false);
        self.wide.set(false);
    }

    /// Processes `input`, then end-of-queue when `last`, with this's decoder and error mode
    /// (<https://encoding.spec.whatwg.org/#concept-encoding-process>), then serializes the I/O
    /// queue ([`TextDecoderCommon::serialize_io_queue_units`]): the output, kept in this
    /// decoder's scratch buffers until it is dropped (so a caller can make its string after a
    /// borrow of the input ends, with no copy in between).
    ///
    /// AD-HOC: UTF-8 input whose output is all Latin-1 (ASCII, and prose in most Latin
    /// scripts) is output as one byte per character, which becomes an 8-bit string with no
    /// code units in between (half the memory, and on Boa half the string). The bytes up to
    /// and including the first ASCII byte go through the decoder, which then holds nothing
    /// (whatever it held before); the valid characters that follow are converted in one pass,
    /// but for a character cut by the input's end, whose bytes go to the decoder, to wait in
    /// it as they would. The output, errors and bytes left in the decoder are those of one
    /// decoder run over the input. On output that is not Latin-1 the rest is decoded to code
    /// units, and this decoder stops trying until its next reset.
    pub(crate) fn process(&self, input: &[u8], last: bool) -> Result<Decoded<'_>, DecodeError> {
        let mut decoded = Decoded {
            common: self,
            scratch: std::mem::take(&mut *self.scratch.borrow_mut()),
            latin1: std::mem::take(&mut *self.latin1_scratch.borrow_mut()),
            units: 0..0,
            latin1_len: None,
        };
        let decoder = &mut self.decoder.borrow_mut();
        if let Some((head, body, tail)) = self.latin1_candidate(input, last) {
            let start =
                run_decoder_from(decoder, self.fatal, head, false, &mut decoded.scratch, 0, 0)?;
            let all = decoded.scratch.get(..start).unwrap_or_default();
            let units = self.serialize_io_queue_units(all);
            let skip = start - units.len();
            if let Some(len) = units_and_utf8_to_latin1(units, body, &mut decoded.latin1) {
                // The cut character's bytes, a valid start of one, give no unit and no error.
                let consumed = head.len() + body.len();
                run_decoder_from(
                    decoder,
                    self.fatal,
                    tail,
                    false,
                    &mut decoded.scratch,
                    0,
                    consumed,
                )?;
                decoded.latin1_len = Some(len);
                return Ok(decoded);
            }
            self.wide.set(true);
            let rest = input.get(head.len()..).unwrap_or_default();
            let end = run_decoder_bulk(
                decoder,
                self.fatal,
                rest,
                last,
                &mut decoded.scratch,
                start,
                head.len(),
            )?;
            decoded.units = skip..end;
            return Ok(decoded);
        }
        let written = run_decoder_into(decoder, self.fatal, input, last, &mut decoded.scratch)?;
        let all = decoded.scratch.get(..written).unwrap_or_default();
        let units = self.serialize_io_queue_units(all);
        // The serialized units are a tail of what the decoder wrote (a BOM dropped or not).
        decoded.units = written - units.len()..written;
        Ok(decoded)
    }

    /// For [`TextDecoderCommon::process`]'s Latin-1 output: UTF-8 input long enough to be
    /// worth it, to a decoder that has not met other output, split into the bytes up to and
    /// including the first ASCII byte, the bytes that follow up to a character cut by the
    /// input's end, and that character's bytes (empty when none is cut; a valid start of a
    /// character, and only when more input may follow). `None` otherwise.
    fn latin1_candidate<'i>(
        &self,
        input: &'i [u8],
        last: bool,
    ) -> Option<(&'i [u8], &'i [u8], &'i [u8])> {
        if self.encoding != encoding_rs::UTF_8 || self.wide.get() || input.len() < BULK_MIN {
            return None;
        }
        let ascii = input.iter().position(u8::is_ascii)?;
        let (head, rest) = input.split_at(ascii + 1);
        let (body, tail) = rest.split_at(cut_character_start(rest));
        if !tail.is_empty() && (last || !starts_a_character(tail)) {
            return None;
        }
        Some((head, body, tail))
    }

    /// <https://encoding.spec.whatwg.org/#concept-td-serialize>, on the code units of the
    /// decoder's output: without a leading BOM when the encoding is UTF-8 or UTF-16 and ignore
    /// BOM is false, for the first scalar value this decoder outputs.
    fn serialize_io_queue_units<'a>(&self, units: &'a [u16]) -> &'a [u16] {
        // 1. Let output be the empty string.
        // 2. While true: read item from ioQueue; at end-of-queue return output.
        // 2.3. If decoder's encoding is UTF-8 or UTF-16BE/LE, and decoder's ignore BOM and BOM
        //      seen are false, then:
        let bom_encoding = self.encoding == encoding_rs::UTF_8
            || self.encoding == encoding_rs::UTF_16BE
            || self.encoding == encoding_rs::UTF_16LE;
        if bom_encoding && !self.ignore_bom && !self.bom_seen.get() && !units.is_empty() {
            // 2.3.1. Set decoder's BOM seen to true.
            self.bom_seen.set(true);
            // 2.3.2. If item is U+FEFF BOM, then continue.
            if units.first() == Some(&0xFEFF) {
                return units.get(1..).unwrap_or_default();
            }
        }
        // 2.4. Append item to output.
        units
    }

    /// The TypeError of a decoder error in "fatal" mode.
    pub(crate) fn error(&self, at_end: bool) -> engine::JsError {
        if at_end {
            engine::throw_type_error(format!(
                "The input ends in an incomplete {} sequence",
                self.encoding.name()
            ))
        } else {
            engine::throw_type_error(format!("The input is not valid {}", self.encoding.name()))
        }
    }
}

/// The decoder's error: <https://encoding.spec.whatwg.org/#error> in error mode "fatal".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct DecodeError {
    /// How many bytes of the input the decoder had taken when it hit the error; the rest are
    /// still in the I/O queue.
    pub(crate) consumed: usize,
}

/// The serialized output of [`TextDecoderCommon::process`]: code units, or Latin-1 bytes, in
/// the decoder's scratch buffers, which go back to the decoder when this is dropped.
pub(crate) struct Decoded<'a> {
    common: &'a TextDecoderCommon,
    scratch: Vec<u16>,
    latin1: Vec<u8>,
    /// The code units in `scratch`, when the output is code units.
    units: std::ops::Range<usize>,
    /// The output's length in `latin1`, when the output is Latin-1.
    latin1_len: Option<usize>,
}

impl Decoded<'_> {
    /// Whether the output is empty.
    pub(crate) fn is_empty(&self) -> bool {
        match self.latin1_len {
            Some(len) => len == 0,
            None => self.units.is_empty(),
        }
    }

    /// The output's string value (an 8-bit string where the engine takes Latin-1 output as it
    /// is); a string longer than the engine can hold is its RangeError.
    pub(crate) fn string_value(&self, ctx: &mut Cx) -> JsResult<Value> {
        let Some(len) = self.latin1_len else {
            let units = self.scratch.get(self.units.clone()).unwrap_or_default();
            return engine::string_value_from_utf16(units, ctx);
        };
        let bytes = self.latin1.get(..len).unwrap_or_default();
        if let Some(value) = engine::string_value_from_latin1(bytes, ctx)? {
            return Ok(value);
        }
        let units: Vec<u16> = bytes.iter().map(|&b| u16::from(b)).collect();
        engine::string_value_from_utf16(&units, ctx)
    }
}

impl Drop for Decoded<'_> {
    fn drop(&mut self) {
        if self.scratch.len() <= SCRATCH_KEEP {
            *self.common.scratch.borrow_mut() = std::mem::take(&mut self.scratch);
        }
        if self.latin1.len() <= SCRATCH_KEEP {
            *self.common.latin1_scratch.borrow_mut() = std::mem::take(&mut self.latin1);
        }
    }
}

/// `units` (code units from U+0000 to U+00FF) then the UTF-8 `body` (when it is valid and of
/// such characters only) as Latin-1 bytes written into `out` from its start (grown,
/// zero-filling only what is new, when it is too short): how many bytes; `None` for other
/// units or bytes.
fn units_and_utf8_to_latin1(units: &[u16], body: &[u8], out: &mut Vec<u8>) -> Option<usize> {
    let total = units.len().checked_add(body.len())?;
    if out.len() < total {
        out.resize(total, 0);
    }
    let (head, rest) = out.split_at_mut(units.len());
    for (byte, &unit) in head.iter_mut().zip(units) {
        *byte = u8::try_from(unit).ok()?;
    }
    let written = super::transcode::utf8_to_latin1(body, rest)?;
    Some(units.len() + written)
}

/// Where the character that `bytes` (UTF-8) ends in starts, when the end cuts it: the last
/// lead byte among the last three bytes, when fewer bytes follow it than its sequence takes;
/// `bytes.len()` otherwise.
fn cut_character_start(bytes: &[u8]) -> usize {
    let len = bytes.len();
    for back in 1..=len.min(3) {
        let byte = bytes[len - back];
        if byte & 0xC0 == 0x80 {
            continue;
        }
        let takes = match byte {
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xFF => 4,
            _ => 1,
        };
        return if back < takes { len - back } else { len };
    }
    len
}

/// Whether `bytes` are a valid start of one UTF-8 character, not all of it.
fn starts_a_character(bytes: &[u8]) -> bool {
    matches!(std::str::from_utf8(bytes), Err(e) if e.valid_up_to() == 0 && e.error_len().is_none())
}

/// Runs `decoder` over `input` (then over end-of-queue when `last`), giving the code units of
/// the scalar values it outputs. In "replacement" error mode errors become U+FFFD; in "fatal"
/// mode the first one is returned. Bytes of an unfinished sequence stay in the decoder.
#[cfg(test)]
pub(crate) fn run_decoder(
    decoder: &mut Decoder,
    fatal: bool,
    input: &[u8],
    last: bool,
) -> Result<Vec<u16>, DecodeError> {
    let mut output = Vec::new();
    let written = run_decoder_into(decoder, fatal, input, last, &mut output)?;
    output.truncate(written);
    Ok(output)
}

/// [`run_decoder`] into `output`, overwriting it from the start, and growing it (zero-filling
/// only what is new) when it is too short: returns how many code units it wrote.
///
/// AD-HOC: for UTF-8 the valid middle of the input skips the decoder: the bytes up to and
/// including the first ASCII byte go through it (after an ASCII byte a UTF-8 decoder holds
/// nothing, whatever it held before), then valid UTF-8 that follows is converted in bulk
/// (`transcode`, which gives what the decoder would, and stops on a character boundary
/// before any error, so the decoder still holds nothing), then the rest goes through the
/// decoder. The units, errors and bytes left in the decoder are those of one decoder run over
/// the whole input.
pub(crate) fn run_decoder_into(
    decoder: &mut Decoder,
    fatal: bool,
    input: &[u8],
    last: bool,
    output: &mut Vec<u16>,
) -> Result<usize, DecodeError> {
    if decoder.encoding() == encoding_rs::UTF_8 && input.len() >= BULK_MIN {
        if let Some(ascii) = input.iter().position(u8::is_ascii) {
            let (head, rest) = input.split_at(ascii + 1);
            let start = run_decoder_from(decoder, fatal, head, false, output, 0, 0)?;
            return run_decoder_bulk(decoder, fatal, rest, last, output, start, head.len());
        }
    }
    run_decoder_from(decoder, fatal, input, last, output, 0, 0)
}

/// Below this many bytes the split of [`run_decoder_into`] (and of the Latin-1 output) is not
/// worth its scans.
const BULK_MIN: usize = 256;

/// [`run_decoder_into`] after its head (`consumed` bytes, which ended in an ASCII byte, so the
/// decoder holds nothing), writing from `output[start]`: the valid start of `rest` converted in
/// bulk, the rest through the decoder. Returns where the units end.
fn run_decoder_bulk(
    decoder: &mut Decoder,
    fatal: bool,
    rest: &[u8],
    last: bool,
    output: &mut Vec<u16>,
    start: usize,
    consumed: usize,
) -> Result<usize, DecodeError> {
    let (read, written) = super::transcode::utf8_prefix_to_utf16_at(rest, output, start);
    let tail = rest.get(read..).unwrap_or_default();
    run_decoder_from(
        decoder,
        fatal,
        tail,
        last,
        output,
        start + written,
        consumed + read,
    )
}

/// [`run_decoder_into`] through the decoder alone, writing from `output[start]`, for `input`
/// which follows `consumed` bytes already taken (an error counts them): returns where the
/// units end.
fn run_decoder_from(
    decoder: &mut Decoder,
    fatal: bool,
    input: &[u8],
    last: bool,
    output: &mut Vec<u16>,
    mut start: usize,
    consumed_before: usize,
) -> Result<usize, DecodeError> {
    let mut consumed = 0;
    loop {
        let src = input.get(consumed..).unwrap_or_default();
        // Room for everything the input can give, and at least for one U+FFFD.
        let room = decoder
            .max_utf16_buffer_length(src.len())
            .unwrap_or(1 << 20)
            .max(4);
        if output.len() < start + room {
            output.resize(start + room, 0);
        }
        // Assert: output.len() ≥ start + room (resized just above).
        let dst = &mut output[start..start + room];
        let (done, read, written) = if fatal {
            let (result, read, written) =
                decoder.decode_to_utf16_without_replacement(src, dst, last);
            match result {
                DecoderResult::Malformed(_, _) => {
                    return Err(DecodeError {
                        consumed: consumed_before + consumed + read,
                    })
                }
                DecoderResult::InputEmpty => (true, read, written),
                DecoderResult::OutputFull => (false, read, written),
            }
        } else {
            let (result, read, written, _) = decoder.decode_to_utf16(src, dst, last);
            (result == CoderResult::InputEmpty, read, written)
        };
        start += written;
        consumed += read;
        if done {
            return Ok(start);
        }
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
        // Fatal: both are errors; the bytes after the error are not consumed.
        assert_eq!(
            decode(utf8, true, &[&[0x61, 0xFF, 0x62]]),
            Err(DecodeError { consumed: 2 })
        );
        assert_eq!(
            decode(utf8, true, &[&[0xE2, 0x82]]),
            Err(DecodeError { consumed: 0 })
        );
        // A large chunk of invalid bytes in replacement mode.
        let out = decode(utf8, false, &[&[0xFF; 10_000]]).expect("replacement mode");
        assert_eq!(out[0].chars().count(), 10_000);
    }

    /// UTF-8 with valid one- to four-byte characters, invalid and cut sequences mixed in, split
    /// into chunks at every kind of place: the bulk path of `run_decoder_into` gives, chunk by
    /// chunk, the units (or, in fatal mode, the error and its position) of the decoder alone.
    /// A pseudo-random index below `n` per call (xorshift64 from `seed`).
    fn xorshift(mut seed: u64) -> impl FnMut(usize) -> usize {
        move |n| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        }
    }

    impl Decoded<'_> {
        /// The output as code units, whichever form it has.
        fn output_units(&self) -> Vec<u16> {
            match self.latin1_len {
                Some(len) => self.latin1[..len].iter().map(|&b| u16::from(b)).collect(),
                None => self.scratch[self.units.clone()].to_vec(),
            }
        }
    }

    #[test]
    fn latin1_output_is_the_decoders_output() {
        const PIECES: &[&[u8]] = &[
            b"a",
            b"text ",
            "\u{e9}".as_bytes(),
            "\u{fc}".as_bytes(),
            "\u{ff}".as_bytes(),
            "\u{feff}".as_bytes(),
            "\u{20ac}".as_bytes(),
            "\u{1f499}".as_bytes(),
            b"\x80",
            b"\xC3",
            b"\xE2\x82",
        ];
        let mut next = xorshift(0x9E37_79B9_7F4A_7C15u64);
        let (mut latin1, mut wide, mut errors) = (0, 0, 0);
        for case in 0..2000 {
            // Latin-1 text, a BOM at the start of some, and in some a character past U+00FF
            // or an error somewhere; in two to four chunks, each cut anywhere.
            let mut input = Vec::new();
            if case % 4 == 0 {
                input.extend_from_slice("\u{feff}".as_bytes());
            }
            let len = 300 + next(1500);
            while input.len() < len {
                let piece = match next(3000) {
                    0 => PIECES[6 + next(PIECES.len() - 6)],
                    1 => PIECES[5],
                    _ => PIECES[next(5)],
                };
                input.extend_from_slice(piece);
            }
            let mut cuts = vec![0, input.len()];
            for _ in 0..1 + next(3) {
                cuts.push(next(input.len()));
            }
            cuts.sort_unstable();
            for (fatal, ignore_bom) in [(false, false), (true, false), (false, true)] {
                let common = TextDecoderCommon {
                    encoding: encoding_rs::UTF_8,
                    fatal,
                    ignore_bom,
                    bom_seen: Cell::new(false),
                    decoder: RefCell::new(encoding_rs::UTF_8.new_decoder_without_bom_handling()),
                    scratch: RefCell::new(Vec::new()),
                    latin1_scratch: RefCell::new(Vec::new()),
                    wide: Cell::new(false),
                };
                let mut alone = encoding_rs::UTF_8.new_decoder_without_bom_handling();
                let (mut got, mut want, mut scratch) = (Vec::new(), Vec::new(), Vec::new());
                let chunks = cuts.windows(2).map(|w| &input[w[0]..w[1]]);
                for (chunk, last) in chunks.map(|c| (c, false)).chain([(&[][..], true)]) {
                    let g = common.process(chunk, last);
                    let w = run_decoder_from(&mut alone, fatal, chunk, last, &mut scratch, 0, 0);
                    match (g, w) {
                        (Ok(g), Ok(w)) => {
                            latin1 += usize::from(g.latin1_len.is_some());
                            wide += usize::from(g.latin1_len.is_none() && chunk.len() >= 256);
                            got.extend(g.output_units());
                            want.extend_from_slice(&scratch[..w]);
                        }
                        (g, w) => {
                            assert_eq!(g.err(), w.err(), "case {case}, fatal {fatal}");
                            errors += 1;
                            break;
                        }
                    }
                }
                // Serialize I/O queue's BOM step, on the whole output of the decoder alone.
                if !ignore_bom && want.first() == Some(&0xFEFF) {
                    want.remove(0);
                }
                assert_eq!(
                    got, want,
                    "case {case}, fatal {fatal}, ignore BOM {ignore_bom}"
                );
            }
        }
        // Both outputs, and fatal errors, many times.
        assert!(
            latin1 > 3000 && wide > 1000 && errors > 100,
            "{latin1} {wide} {errors}"
        );
    }

    #[test]
    fn the_bulk_utf8_path_decodes_as_the_decoder_does() {
        const PIECES: &[&[u8]] = &[
            b"a",
            b"text ",
            "é".as_bytes(),
            "ж".as_bytes(),
            "\u{7FF}".as_bytes(),
            "€".as_bytes(),
            "💙".as_bytes(),
            b"\x80",
            b"\xFF",
            b"\xC3",
            b"\xE2\x82",
            b"\xF0\x9F\x92",
            b"\xED\xA0\x80",
            b"\xC0\xAF",
        ];
        let mut next = xorshift(0x2545_F491_4F6C_DD1Du64);
        let (mut bulk_runs, mut errors) = (0, 0);
        for case in 0..3000 {
            // Mostly valid text (errors are rare in a real body), long enough for the bulk
            // path, in two or three chunks.
            // Every other case has no three- or four-byte character (a block of one- and
            // two-byte sequences only is the vector loop's).
            let len = 200 + next(900);
            let valid = if case % 2 == 0 { 5 } else { 7 };
            let mut input = Vec::new();
            while input.len() < len {
                let piece = if next(40) == 0 {
                    PIECES[7 + next(PIECES.len() - 7)]
                } else {
                    PIECES[next(valid)]
                };
                input.extend_from_slice(piece);
            }
            let mut cuts = vec![0, next(input.len()), next(input.len()), input.len()];
            if case % 3 == 0 {
                cuts.remove(1);
            }
            cuts.sort_unstable();
            for fatal in [false, true] {
                let mut bulk = encoding_rs::UTF_8.new_decoder_without_bom_handling();
                let mut alone = encoding_rs::UTF_8.new_decoder_without_bom_handling();
                let (mut out_bulk, mut out_alone) = (Vec::new(), Vec::new());
                let chunks = cuts.windows(2).map(|w| &input[w[0]..w[1]]);
                for (chunk, last) in chunks.map(|c| (c, false)).chain([(&[][..], true)]) {
                    bulk_runs += usize::from(chunk.len() >= 256);
                    let got = run_decoder_into(&mut bulk, fatal, chunk, last, &mut out_bulk);
                    let want =
                        run_decoder_from(&mut alone, fatal, chunk, last, &mut out_alone, 0, 0);
                    match (got, want) {
                        (Ok(g), Ok(w)) => assert_eq!(out_bulk[..g], out_alone[..w], "{case}"),
                        (g, w) => {
                            assert_eq!(g, w, "case {case}, fatal {fatal}");
                            errors += 1;
                            break;
                        }
                    }
                }
            }
        }
        // The cases reached the bulk path, and fatal errors, many times.
        assert!(bulk_runs > 3000 && errors > 300, "{bulk_runs} {errors}");
    }

    #[test]
    fn labels() {
        let get = |l: &str| get_an_encoding(&JsString::from(l)).map(Encoding::name);
        assert_eq!(get(" \t\n\x0C\rUTF8 "), Some("UTF-8"));
        assert_eq!(get("unicode-1-1-utf-8"), Some("UTF-8"));
        assert_eq!(get("utf-16"), Some("UTF-16LE"));
        assert_eq!(get("big5-hkscs"), Some("Big5"));
        assert_eq!(get("x-user-defined"), Some("x-user-defined"));
        assert_eq!(get("iso-2022-kr"), Some("replacement"));
        assert_eq!(get("\u{0B}utf-8"), None);
        assert_eq!(get("utf-8\u{A0}"), None);
        assert_eq!(get("\u{212A}oi8-r"), None);
    }
}
