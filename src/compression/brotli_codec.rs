//! The "brotli" format (RFC 7932) over the `brotli` crate, Dropbox's pure-Rust port of Google's
//! encoder and decoder, driven through their streaming interfaces
//! (`BrotliEncoderStateStruct::compress_stream` and `BrotliDecompressStream`), so that both
//! keep their state between chunks and the decoder says exactly where the compressed stream
//! ends.

use brotli::{
    enc::{
        encode::{BrotliEncoderOperation, BrotliEncoderParameter, BrotliEncoderStateStruct},
        interface::{InputPair, InputReferenceMut, PredictionModeContextMap, StaticCommand},
        StandardAlloc,
    },
    BrotliDecompressStream, BrotliResult, BrotliState,
};

use super::error::CodecError;

/// The encoder's quality, 0 (fastest) to 11 (smallest). The Compression Standard leaves the
/// level to the implementation; 5 is the usual choice for compressing on the fly (the default
/// of 11 is meant for static content, compressed once, and is tens of times slower).
const QUALITY: u32 = 5;

/// The base-2 logarithm of the encoder's window, 22 (4 MiB) as in the reference encoder's
/// default; a decoder needs this much memory at most for the stream.
const WINDOW_BITS: u32 = 22;

/// Makes sure `output` has spare capacity to write into: a few times the input's size, at
/// least 1 KiB, at most 4 MiB at a time, growing geometrically while the output keeps filling
/// it. Shared with the DEFLATE inflater.
pub(super) fn reserve_output(output: &mut Vec<u8>, input_len: usize) {
    if output.capacity() - output.len() < 1024 {
        let extra = output
            .len()
            .max(input_len.saturating_mul(4))
            .clamp(1024, 1 << 22);
        output.reserve(extra);
    }
}

/// A Brotli compression context: the encoder's state, which owns its input ring buffer and
/// the output it has produced but not yet handed over.
pub(crate) struct BrotliEncoder {
    state: BrotliEncoderStateStruct<StandardAlloc>,
}

impl std::fmt::Debug for BrotliEncoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BrotliEncoder").finish_non_exhaustive()
    }
}

impl BrotliEncoder {
    /// An encoder in its start state.
    pub(crate) fn new() -> Self {
        let mut state = BrotliEncoderStateStruct::new(StandardAlloc::default());
        // Both values are in range and nothing was encoded yet, so both are accepted.
        state.set_parameter(BrotliEncoderParameter::BROTLI_PARAM_QUALITY, QUALITY);
        state.set_parameter(BrotliEncoderParameter::BROTLI_PARAM_LGWIN, WINDOW_BITS);
        Self { state }
    }

    /// Gives `input` to the encoder, with the finish flag when `finish` is set, and returns
    /// the output it produced (possibly empty: without the finish flag the encoder keeps its
    /// input until it has a whole block).
    pub(crate) fn encode(&mut self, input: &[u8], finish: bool) -> Result<Vec<u8>, CodecError> {
        let operation = if finish {
            BrotliEncoderOperation::BROTLI_OPERATION_FINISH
        } else {
            BrotliEncoderOperation::BROTLI_OPERATION_PROCESS
        };
        let mut output = Vec::new();
        let mut available_in = input.len();
        let mut offset = 0;
        loop {
            // No output buffer: the encoder writes into its own storage, which take_output
            // then lends out, so the output is copied once.
            let (mut available_out, mut out_offset) = (0, 0);
            let before = available_in;
            let ok = self.state.compress_stream(
                operation,
                &mut available_in,
                input,
                &mut offset,
                &mut available_out,
                &mut [],
                &mut out_offset,
                &mut None,
                &mut |_: &mut PredictionModeContextMap<InputReferenceMut>,
                      _: &mut [StaticCommand],
                      _: InputPair,
                      _: &mut StandardAlloc| {},
            );
            if !ok {
                return Err(CodecError);
            }
            let mut produced = false;
            while self.state.has_more_output() {
                // Asking for 0 bytes takes all of them; `size` is then how many were taken,
                // and the slice lent out may be longer than that.
                let mut size = 0;
                let bytes = self.state.take_output(&mut size);
                let bytes = bytes.get(..size).unwrap_or(bytes);
                produced |= !bytes.is_empty();
                output.extend_from_slice(bytes);
            }
            let done = if finish {
                self.state.is_finished()
            } else {
                available_in == 0
            };
            if done {
                return Ok(output);
            }
            if !produced && available_in == before {
                // The encoder neither took input nor gave output: it would never finish.
                return Err(CodecError);
            }
        }
    }
}

/// The Brotli decoder's state, with the standard allocator for all three of its arrays.
type DecoderState = BrotliState<StandardAlloc, StandardAlloc, StandardAlloc>;

/// A Brotli decompression context.
pub(crate) struct BrotliDecoder {
    state: DecoderState,
    /// The decoder's count of bytes written, which it keeps up to date.
    total_out: usize,
}

impl std::fmt::Debug for BrotliDecoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BrotliDecoder")
            .field("total_out", &self.total_out)
            .finish_non_exhaustive()
    }
}

impl BrotliDecoder {
    /// A decoder in its start state. "Strict": RFC 7932 only, without the "large window"
    /// extension (a window size code RFC 7932 reserves, which the crate accepts by default).
    pub(crate) fn new() -> Self {
        Self {
            state: DecoderState::new_strict(
                StandardAlloc::default(),
                StandardAlloc::default(),
                StandardAlloc::default(),
            ),
            total_out: 0,
        }
    }

    /// Decodes from `input` into `output` until the input is used up (the decoder keeps an
    /// incomplete tail itself) or the Brotli stream ends. Returns the unread rest of `input`
    /// and whether the stream ended.
    pub(crate) fn decode<'a>(
        &mut self,
        input: &'a [u8],
        output: &mut Vec<u8>,
    ) -> Result<(&'a [u8], bool), CodecError> {
        let mut offset = 0;
        loop {
            let remaining = input.len().saturating_sub(offset);
            reserve_output(output, remaining);
            let start = output.len();
            // The decoder writes into an initialized slice: the spare capacity, zeroed.
            output.resize(output.capacity(), 0);
            let mut available_in = remaining;
            let mut available_out = output.len() - start;
            let mut out_offset = start;
            let result = BrotliDecompressStream(
                &mut available_in,
                &mut offset,
                input,
                &mut available_out,
                &mut out_offset,
                output,
                &mut self.total_out,
                &mut self.state,
            );
            output.truncate(out_offset);
            let rest = input.get(offset..).unwrap_or_default();
            match result {
                BrotliResult::ResultSuccess => return Ok((rest, true)),
                // Every byte was taken (a partial tail is buffered in the decoder).
                BrotliResult::NeedsMoreInput => return Ok((rest, false)),
                // The output is full: again with more room, unless nothing moved at all.
                BrotliResult::NeedsMoreOutput => {
                    if out_offset == start && rest.len() == remaining {
                        return Err(CodecError);
                    }
                }
                BrotliResult::ResultFailure => return Err(CodecError),
            }
        }
    }
}
