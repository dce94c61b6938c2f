//! The compression contexts (<https://compression.spec.whatwg.org/#compression-context>) of
//! the four supported formats: the DEFLATE ones over `flate2` (on the pure-Rust miniz_oxide
//! backend), "brotli" over the `brotli` crate (see [`super::brotli_codec`]).
//!
//! Compression uses flate2's zlib, raw DEFLATE and gzip encoders. Decompression drives
//! flate2's raw/zlib inflater directly and reads the gzip wrapper (RFC 1952 header and trailer)
//! here, so that this module knows exactly when "the end of the compressed input has been
//! reached" and how much of a chunk was consumed. The Brotli decoder reports both itself.

use std::io::Write;

use super::brotli_codec::{reserve_output, BrotliDecoder, BrotliEncoder};
pub use super::error::CodecError;
use flate2::{
    write::{DeflateEncoder, GzEncoder, ZlibEncoder},
    Compression, Crc, Decompress, FlushDecompress, Status,
};

/// A supported `CompressionFormat`: <https://compression.spec.whatwg.org/#supported-formats>.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// "deflate": the ZLIB Compressed Data Format (RFC 1950).
    Deflate,
    /// "deflate-raw": the DEFLATE algorithm (RFC 1951).
    DeflateRaw,
    /// "gzip": the GZIP file format (RFC 1952).
    Gzip,
    /// "brotli": the Brotli Compressed Data Format (RFC 7932).
    Brotli,
}

impl Format {
    /// The format named by a `CompressionFormat` value, or `None` when it is unsupported.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "deflate" => Some(Self::Deflate),
            "deflate-raw" => Some(Self::DeflateRaw),
            "gzip" => Some(Self::Gzip),
            "brotli" => Some(Self::Brotli),
            _ => None,
        }
    }
}

/// A compression context for `CompressionStream`.
#[derive(Debug)]
pub enum Compressor {
    /// "deflate".
    Zlib(ZlibEncoder<Vec<u8>>),
    /// "deflate-raw".
    Raw(DeflateEncoder<Vec<u8>>),
    /// "gzip".
    Gzip(GzEncoder<Vec<u8>>),
    /// "brotli" (boxed: the encoder's state is large).
    Brotli(Box<BrotliEncoder>),
}

impl Compressor {
    /// A context in its start state.
    pub fn new(format: Format) -> Self {
        let level = Compression::default();
        match format {
            Format::Deflate => Self::Zlib(ZlibEncoder::new(Vec::new(), level)),
            Format::DeflateRaw => Self::Raw(DeflateEncoder::new(Vec::new(), level)),
            Format::Gzip => Self::Gzip(GzEncoder::new(Vec::new(), level)),
            Format::Brotli => Self::Brotli(Box::new(BrotliEncoder::new())),
        }
    }

    /// Takes the output a flate2 encoder has produced so far.
    fn take_output(&mut self) -> Vec<u8> {
        match self {
            Self::Zlib(e) => std::mem::take(e.get_mut()),
            Self::Raw(e) => std::mem::take(e.get_mut()),
            Self::Gzip(e) => std::mem::take(e.get_mut()),
            // The Brotli encoder hands its output over from `encode` itself.
            Self::Brotli(_) => Vec::new(),
        }
    }

    /// "compressing chunk with format and context": the output available so far (possibly
    /// empty; the encoder may keep some of it until later).
    pub fn compress(&mut self, input: &[u8]) -> Result<Vec<u8>, CodecError> {
        let result = match self {
            Self::Zlib(e) => e.write_all(input),
            Self::Raw(e) => e.write_all(input),
            Self::Gzip(e) => e.write_all(input),
            Self::Brotli(e) => return e.encode(input, false),
        };
        result.map_err(|_| CodecError)?;
        Ok(self.take_output())
    }

    /// "compressing an empty input with format and context, with the finish flag".
    pub fn finish(&mut self) -> Result<Vec<u8>, CodecError> {
        let result = match self {
            Self::Zlib(e) => e.try_finish(),
            Self::Raw(e) => e.try_finish(),
            Self::Gzip(e) => e.try_finish(),
            Self::Brotli(e) => return e.encode(&[], true),
        };
        result.map_err(|_| CodecError)?;
        Ok(self.take_output())
    }
}

/// Where a decompression context is in its input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    /// Reading the gzip member header (its bytes so far are in `header`).
    GzipHeader,
    /// Inflating the DEFLATE data (for "deflate", including the zlib header and ADLER32), or
    /// decoding the Brotli stream.
    Body,
    /// Reading the gzip trailer, CRC32 and ISIZE (its bytes so far are in `trailer`).
    GzipTrailer,
    /// The end of the compressed input has been reached.
    Done,
}

/// What decompressing one chunk gives (the tests' view of [`Decompressor::decompress_into`]).
#[cfg(test)]
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Decompressed {
    /// The decompressed bytes.
    pub output: Vec<u8>,
    /// The end of the compressed input was reached before the whole chunk was consumed.
    pub trailing_data: bool,
}

/// The decoder under a decompression context.
#[derive(Debug)]
enum Engine {
    /// "deflate", "deflate-raw" and "gzip": the inflater (zlib-wrapped or raw).
    Inflate(Decompress),
    /// "brotli" (boxed: the decoder's state is large).
    Brotli(Box<BrotliDecoder>),
}

/// A compression context for `DecompressionStream`.
#[derive(Debug)]
pub struct Decompressor {
    format: Format,
    stage: Stage,
    engine: Engine,
    header: Vec<u8>,
    trailer: Vec<u8>,
    crc: Crc,
}

/// gzip header flags (RFC 1952 section 2.3.1).
const FHCRC: u8 = 1 << 1;
const FEXTRA: u8 = 1 << 2;
const FNAME: u8 = 1 << 3;
const FCOMMENT: u8 = 1 << 4;
const FRESERVED: u8 = 0xE0;

/// Parses a gzip member header from its first bytes: `Ok(Some(length))` once complete,
/// `Ok(None)` while more bytes are needed, `Err` for a header RFC 1952 calls invalid (wrong
/// ID or CM, a reserved flag set, a wrong FHCRC).
fn parse_gzip_header(bytes: &[u8]) -> Result<Option<usize>, CodecError> {
    // ID1, ID2 and CM are checked as soon as they arrive.
    for (index, expected) in [(0, 0x1f), (1, 0x8b), (2, 8)] {
        match bytes.get(index) {
            Some(&b) if b != expected => return Err(CodecError),
            Some(_) => {}
            None => return Ok(None),
        }
    }
    let Some(&flags) = bytes.get(3) else {
        return Ok(None);
    };
    if flags & FRESERVED != 0 {
        return Err(CodecError);
    }
    // MTIME (4), XFL, OS: any value.
    let mut position = 10;
    if bytes.len() < position {
        return Ok(None);
    }
    if flags & FEXTRA != 0 {
        let (Some(&low), Some(&high)) = (bytes.get(position), bytes.get(position + 1)) else {
            return Ok(None);
        };
        position += 2 + usize::from(u16::from_le_bytes([low, high]));
        if bytes.len() < position {
            return Ok(None);
        }
    }
    for flag in [FNAME, FCOMMENT] {
        if flags & flag != 0 {
            // A zero-terminated string.
            let Some(end) = bytes[position..].iter().position(|&b| b == 0) else {
                return Ok(None);
            };
            position += end + 1;
        }
    }
    if flags & FHCRC != 0 {
        let (Some(&low), Some(&high)) = (bytes.get(position), bytes.get(position + 1)) else {
            return Ok(None);
        };
        // The two least significant bytes of the CRC32 of the header before it.
        let mut crc = Crc::new();
        crc.update(&bytes[..position]);
        if crc.sum() as u16 != u16::from_le_bytes([low, high]) {
            return Err(CodecError);
        }
        position += 2;
    }
    Ok(Some(position))
}

/// Inflates from `input` into `output` until the input is used up or the DEFLATE stream ends,
/// adding the output to `crc` when given; returns the unread rest of `input` and whether the
/// DEFLATE stream ended.
fn inflate<'a>(
    inflater: &mut Decompress,
    mut crc: Option<&mut Crc>,
    mut input: &'a [u8],
    output: &mut Vec<u8>,
) -> Result<(&'a [u8], bool), CodecError> {
    loop {
        reserve_output(output, input.len());
        let start = output.len();
        let (read_before, written_before) = (inflater.total_in(), inflater.total_out());
        let status = inflater
            .decompress_vec(input, output, FlushDecompress::None)
            .map_err(|_| CodecError)?;
        // Bounded by input.len(), which is a usize.
        let read = usize::try_from(inflater.total_in() - read_before).unwrap_or(input.len());
        let progressed = read > 0 || inflater.total_out() != written_before;
        input = input.get(read..).unwrap_or_default();
        if let Some(crc) = crc.as_deref_mut() {
            crc.update(&output[start..]);
        }
        if status == Status::StreamEnd {
            return Ok((input, true));
        }
        // Done when the input is used up and the output was not cut short, or when nothing
        // moves any more.
        if (input.is_empty() && output.len() < output.capacity()) || !progressed {
            return Ok((input, false));
        }
    }
}

impl Decompressor {
    /// A context in its start state.
    pub fn new(format: Format) -> Self {
        Self {
            format,
            stage: if format == Format::Gzip {
                Stage::GzipHeader
            } else {
                Stage::Body
            },
            engine: match format {
                Format::Brotli => Engine::Brotli(Box::new(BrotliDecoder::new())),
                _ => Engine::Inflate(Decompress::new(format == Format::Deflate)),
            },
            header: Vec::new(),
            trailer: Vec::new(),
            crc: Crc::new(),
        }
    }

    /// Whether the end of the compressed input has been reached.
    pub fn ended(&self) -> bool {
        self.stage == Stage::Done
    }

    /// Decodes from `input` into `output` until the input is used up or the compressed
    /// data (for "gzip", the DEFLATE data) ends, and moves on to the next stage when it
    /// does; returns the unread rest of `input`.
    fn decode_body<'a>(
        &mut self,
        input: &'a [u8],
        output: &mut Vec<u8>,
    ) -> Result<&'a [u8], CodecError> {
        let (rest, ended) = match &mut self.engine {
            Engine::Inflate(inflater) => {
                let crc = (self.format == Format::Gzip).then_some(&mut self.crc);
                inflate(inflater, crc, input, output)?
            }
            Engine::Brotli(decoder) => decoder.decode(input, output)?,
        };
        if ended {
            self.stage = if self.format == Format::Gzip {
                Stage::GzipTrailer
            } else {
                Stage::Done
            };
        }
        Ok(rest)
    }

    /// "decompressing chunk with format and context", into a new buffer.
    #[cfg(test)]
    pub fn decompress(&mut self, chunk: &[u8]) -> Result<Decompressed, CodecError> {
        let mut output = Vec::new();
        let trailing_data = self.decompress_into(chunk, &mut output)?;
        Ok(Decompressed {
            output,
            trailing_data,
        })
    }

    /// "decompressing chunk with format and context", appending the output to `output` (a
    /// buffer the caller reuses); returns whether the end of the compressed input was reached before the whole
    /// chunk was consumed.
    pub fn decompress_into(
        &mut self,
        chunk: &[u8],
        output: &mut Vec<u8>,
    ) -> Result<bool, CodecError> {
        let mut input = chunk;
        loop {
            match self.stage {
                Stage::GzipHeader => {
                    let before = self.header.len();
                    self.header.extend_from_slice(input);
                    match parse_gzip_header(&self.header)? {
                        None => return Ok(false),
                        Some(length) => {
                            // The bytes after the header are the DEFLATE data.
                            let consumed = length.saturating_sub(before);
                            input = input.get(consumed..).unwrap_or_default();
                            self.header = Vec::new();
                            self.stage = Stage::Body;
                        }
                    }
                }
                Stage::Body => {
                    input = self.decode_body(input, output)?;
                    if self.stage == Stage::Body {
                        return Ok(false);
                    }
                }
                Stage::GzipTrailer => {
                    let wanted = 8 - self.trailer.len();
                    let taken = wanted.min(input.len());
                    self.trailer.extend_from_slice(&input[..taken]);
                    input = &input[taken..];
                    if self.trailer.len() < 8 {
                        return Ok(false);
                    }
                    let crc32 = u32::from_le_bytes([
                        self.trailer[0],
                        self.trailer[1],
                        self.trailer[2],
                        self.trailer[3],
                    ]);
                    let isize = u32::from_le_bytes([
                        self.trailer[4],
                        self.trailer[5],
                        self.trailer[6],
                        self.trailer[7],
                    ]);
                    if crc32 != self.crc.sum() || isize != self.crc.amount() {
                        return Err(CodecError);
                    }
                    self.stage = Stage::Done;
                }
                Stage::Done => return Ok(!input.is_empty()),
            }
        }
    }

    /// "decompressing an empty input with format and context, with the finish flag": every
    /// byte was already decoded as it came, so this only checks where the input ended.
    pub fn finish(&mut self) -> Result<Vec<u8>, CodecError> {
        let mut output = Vec::new();
        if self.stage == Stage::Body {
            // Give the decoder the chance to drain anything it still holds.
            let rest = self.decode_body(&[], &mut output)?;
            // Invariant: decoding an empty input leaves no unread input behind.
            debug_assert!(rest.is_empty());
        }
        Ok(output)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL_FORMATS: [Format; 4] = [
        Format::Deflate,
        Format::DeflateRaw,
        Format::Gzip,
        Format::Brotli,
    ];

    fn compress(format: Format, data: &[u8]) -> Vec<u8> {
        let mut c = Compressor::new(format);
        let mut out = c.compress(data).expect("compress");
        out.extend(c.finish().expect("finish"));
        out
    }

    /// A gzip member with every optional header field, its header CRC computed or broken.
    fn gzip_with_all_fields(data: &[u8], good_header_crc: bool) -> Vec<u8> {
        let mut member = vec![
            0x1f,
            0x8b,
            8,
            FHCRC | FEXTRA | FNAME | FCOMMENT,
            1,
            2,
            3,
            4,
            0,
            3,
        ];
        member.extend([3, 0, b'a', b'b', b'c']); // XLEN = 3, then the extra field
        member.extend(b"name.txt\0");
        member.extend(b"a comment\0");
        let mut crc = Crc::new();
        crc.update(&member);
        let header_crc = (crc.sum() as u16) ^ u16::from(!good_header_crc);
        member.extend(header_crc.to_le_bytes());
        member.extend(compress(Format::DeflateRaw, data));
        let mut crc = Crc::new();
        crc.update(data);
        member.extend(crc.sum().to_le_bytes());
        member.extend(crc.amount().to_le_bytes());
        member
    }

    /// Feeds `input` in pieces of `size` bytes; the output, or the first error.
    fn decompress_in_pieces(
        format: Format,
        input: &[u8],
        size: usize,
    ) -> Result<(Vec<u8>, bool), CodecError> {
        let mut d = Decompressor::new(format);
        let mut out = Vec::new();
        let mut trailing = false;
        for piece in input.chunks(size) {
            let r = d.decompress(piece)?;
            out.extend(r.output);
            trailing |= r.trailing_data;
        }
        out.extend(d.finish()?);
        Ok((out, trailing || !d.ended()))
    }

    #[test]
    fn gzip_header_fields_are_read_in_any_split() {
        let data = b"the optional gzip header fields".repeat(10);
        let member = gzip_with_all_fields(&data, true);
        for size in [1, 2, 3, 7, 11, member.len()] {
            assert_eq!(
                decompress_in_pieces(Format::Gzip, &member, size),
                Ok((data.clone(), false)),
                "pieces of {size}"
            );
        }
        let broken = gzip_with_all_fields(&data, false);
        for size in [1, 5, broken.len()] {
            assert_eq!(
                decompress_in_pieces(Format::Gzip, &broken, size),
                Err(CodecError)
            );
        }
    }

    #[test]
    fn every_format_round_trips_and_finds_its_end() {
        let data: Vec<u8> = (0..100_000u32).map(|i| (i * 7 % 251) as u8).collect();
        for format in ALL_FORMATS {
            let compressed = compress(format, &data);
            for size in [1, 100, compressed.len()] {
                assert_eq!(
                    decompress_in_pieces(format, &compressed, size),
                    Ok((data.clone(), false)),
                    "{format:?} in pieces of {size}"
                );
            }
            // A byte after the end: the output, and trailing data.
            let mut extended = compressed.clone();
            extended.push(0);
            let mut d = Decompressor::new(format);
            let r = d.decompress(&extended).expect("decompress");
            assert_eq!((r.output.len(), r.trailing_data), (data.len(), true));
            // Truncated: no error until the end, where the end is missing.
            let mut d = Decompressor::new(format);
            d.decompress(&compressed[..compressed.len() - 1])
                .expect("a prefix is fine");
            d.finish().expect("finish gives what is left");
            assert!(!d.ended(), "{format:?}: the end was not reached");
        }
    }

    #[test]
    fn empty_input_compresses_to_a_complete_stream() {
        for format in ALL_FORMATS {
            let compressed = compress(format, &[]);
            assert!(!compressed.is_empty());
            assert_eq!(
                decompress_in_pieces(format, &compressed, 1),
                Ok((Vec::new(), false))
            );
        }
        // Nothing at all is not a compressed stream.
        for format in ALL_FORMATS {
            let mut d = Decompressor::new(format);
            assert_eq!(d.finish(), Ok(Vec::new()));
            assert!(!d.ended());
        }
    }

    #[test]
    fn gzip_header_errors_are_found_early() {
        assert_eq!(parse_gzip_header(&[0x1f]), Ok(None));
        assert_eq!(parse_gzip_header(&[0x1e]), Err(CodecError));
        assert_eq!(parse_gzip_header(&[0x1f, 0x8b, 7]), Err(CodecError));
        assert_eq!(parse_gzip_header(&[0x1f, 0x8b, 8, 0x40]), Err(CodecError));
        assert_eq!(
            parse_gzip_header(&[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0]),
            Ok(None)
        );
        assert_eq!(
            parse_gzip_header(&[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]),
            Ok(Some(10))
        );
    }
}
