//! Bulk conversions between UTF-8 and UTF-16 (or Latin-1) for text whose characters are mostly
//! under U+0800: the valid start of UTF-8 bytes to UTF-16 for the UTF-8 decoder, and UTF-16 or
//! Latin-1 to UTF-8 for the UTF-8 encoder.
//!
//! encoding_rs converts ASCII runs with SIMD but leaves its vector loop at every other
//! character, so prose with an accent every few words (most text in Latin scripts) runs at
//! its scalar speed. On x86-64 with AVX-512 (BW, VBMI and VBMI2), these convert 64 bytes or 32
//! code units per step whatever mix of one- and two-byte UTF-8 sequences they hold, with
//! `vpcompress` doing the packing in a register; anything else (a three- or four-byte sequence, a
//! surrogate) is handed to encoding_rs a stretch at a time, cut at a character boundary. Other
//! machines use encoding_rs throughout. Each function's result is encoding_rs's on the same
//! input, which the tests check on both paths. The decoding kernel checks the bytes as it
//! converts them (a block of one- and two-byte sequences is valid when every lead byte from
//! 0xC2 is followed by one continuation byte and every continuation byte follows one), so no
//! separate validation pass reads them first.

/// How many bytes (or code units) around a character the vector loop cannot take are handed to
/// encoding_rs at once: text in a script whose characters are three UTF-8 bytes long goes to
/// it in stretches, not in 64-byte blocks.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
const SCALAR_STRETCH: usize = 512;

/// `out` from index `at`, grown first (zero-filling only what is new) to hold `room` elements
/// from there: where a conversion writes.
fn room_at<T: Copy + Default>(out: &mut Vec<T>, at: usize, room: usize) -> &mut [T] {
    let end = at.saturating_add(room);
    if out.len() < end {
        out.resize(end, T::default());
    }
    &mut out[at..]
}

/// Converts a valid start of `src`, UTF-8 that may hold errors or end in the middle of a
/// character, to UTF-16 code units written into `out` from index `at` (growing it,
/// zero-filling only what is new, when it is shorter than `at + src.len()`). Returns how many
/// bytes it read, always a character boundary with only valid UTF-8 before it (all of `src`
/// when it is valid and complete; before an error, at most where encoding_rs's
/// `utf8_valid_up_to` is), and how many units it wrote. The units past those, up to `at +
/// src.len()`, may be overwritten.
pub(crate) fn utf8_prefix_to_utf16_at(src: &[u8], out: &mut Vec<u16>, at: usize) -> (usize, usize) {
    let dst = room_at(out, at, src.len());
    #[cfg(target_arch = "x86_64")]
    if x86::has_avx512() {
        // SAFETY: the CPU has every feature `x86::utf8_prefix_to_utf16` enables (just
        // checked), and `dst` is at least as long as `src` (`out` was grown above), its one
        // precondition.
        return unsafe { x86::utf8_prefix_to_utf16(src, dst) };
    }
    valid_prefix_to_utf16(src, dst)
}

/// The longest valid start of `src` (encoding_rs's `utf8_valid_up_to`) converted by
/// encoding_rs into `dst` (at least as long as that start): the bytes read and units written.
fn valid_prefix_to_utf16(src: &[u8], dst: &mut [u16]) -> (usize, usize) {
    let valid = encoding_rs::Encoding::utf8_valid_up_to(src);
    let Some(valid) = src.get(..valid) else {
        return (0, 0);
    };
    // SAFETY: `valid` is the prefix of `src` that `Encoding::utf8_valid_up_to` found to be
    // valid UTF-8 (its documented result: the length of the longest valid prefix), so it is
    // a `str`'s bytes. (std's `from_utf8` would check it a second time, at about three times
    // encoding_rs's cost.)
    let valid = unsafe { std::str::from_utf8_unchecked(valid) };
    (
        valid.len(),
        encoding_rs::mem::convert_str_to_utf16(valid, dst),
    )
}

/// Converts `src`, UTF-16, to UTF-8 written into `out` from index `at`, each lone surrogate
/// as U+FFFD (encoding_rs's `convert_utf16_to_utf8`), growing `out` (zero-filling only what
/// is new) when it is shorter than 3 bytes per unit past `at`; returns how many bytes it wrote.
/// The bytes past those, up to that room, may be overwritten.
pub(crate) fn utf16_to_utf8_at(src: &[u16], out: &mut Vec<u8>, at: usize) -> usize {
    let dst = room_at(out, at, src.len().saturating_mul(3));
    #[cfg(target_arch = "x86_64")]
    if x86::has_avx512() {
        // SAFETY: the CPU has every feature `x86::utf16_to_utf8` enables (just checked), and
        // `dst` holds 3 bytes per unit of `src` (`out` was grown above), its one precondition.
        return unsafe { x86::utf16_to_utf8(src, dst) };
    }
    encoding_rs::mem::convert_utf16_to_utf8(src, dst)
}

/// Converts `src`, Latin-1 (bytes as the code points U+0000 to U+00FF), to UTF-8 written
/// into `out` from index `at`, growing `out` (zero-filling only what is new) when it is
/// shorter than 2 bytes per byte past `at`; returns how many bytes it wrote. The bytes past
/// those, up to that room, may be overwritten.
pub(crate) fn latin1_to_utf8_at(src: &[u8], out: &mut Vec<u8>, at: usize) -> usize {
    let dst = room_at(out, at, src.len().saturating_mul(2));
    #[cfg(target_arch = "x86_64")]
    if x86::has_avx512() {
        // SAFETY: the CPU has every feature `x86::latin1_to_utf8` enables (just checked), and
        // `dst` holds 2 bytes per byte of `src` (`out` was grown above), its one precondition.
        return unsafe { x86::latin1_to_utf8(src, dst) };
    }
    encoding_rs::mem::convert_latin1_to_utf8(src, dst)
}

/// Converts `src`, UTF-8, to Latin-1 (each character as one byte) into `dst`, when `src` is
/// valid UTF-8 of characters from U+0000 to U+00FF only; returns how many bytes it wrote, or
/// `None` (with `dst` partly overwritten) for any other input, and when `dst` is shorter than
/// `src` (a character is never longer in Latin-1 than in UTF-8).
pub(crate) fn utf8_to_latin1(src: &[u8], dst: &mut [u8]) -> Option<usize> {
    if dst.len() < src.len() {
        return None;
    }
    #[cfg(target_arch = "x86_64")]
    if x86::has_avx512() {
        // SAFETY: the CPU has every feature `x86::utf8_to_latin1` enables (just checked), and
        // `dst` is at least as long as `src` (checked above), its one precondition.
        return unsafe { x86::utf8_to_latin1(src, dst) };
    }
    utf8_to_latin1_scalar(src, dst)
}

/// [`utf8_to_latin1`] of the bytes of `parts` in order, from byte `skip` of the first: a
/// character may be cut between two parts. `None` as for [`utf8_to_latin1`] (for `dst`:
/// shorter than the bytes).
pub(crate) fn utf8_parts_to_latin1(parts: &[&[u8]], skip: usize, dst: &mut [u8]) -> Option<usize> {
    let mut written = 0;
    // A lead byte at the end of a part, whose continuation byte starts a later one (a
    // Latin-1 character is at most two bytes).
    let mut lead = None;
    for (i, part) in parts.iter().enumerate() {
        let mut part = if i == 0 { part.get(skip..)? } else { part };
        if part.is_empty() {
            continue;
        }
        if let Some(first) = lead.take() {
            let (&second, rest) = part.split_first()?;
            written += utf8_to_latin1(&[first, second], dst.get_mut(written..)?)?;
            part = rest;
        }
        if let Some((&last, head)) = part.split_last() {
            if last >= 0xC0 {
                lead = Some(last);
                part = head;
            }
        }
        written += utf8_to_latin1(part, dst.get_mut(written..)?)?;
    }
    // A character cut by the end is an error.
    lead.is_none().then_some(written)
}

/// [`utf8_to_latin1`] with encoding_rs (`dst` at least as long as `src`).
fn utf8_to_latin1_scalar(src: &[u8], dst: &mut [u8]) -> Option<usize> {
    // `is_utf8_latin1` is false for invalid UTF-8 too; the conversion is then exact.
    encoding_rs::mem::is_utf8_latin1(src)
        .then(|| encoding_rs::mem::convert_utf8_to_latin1_lossy(src, dst))
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::SCALAR_STRETCH;
    use std::arch::x86_64::*;

    /// Whether this CPU runs the kernels below: AVX-512 F, BW, VBMI and VBMI2, and BMI2
    /// (`pdep`). `is_x86_feature_detected!` caches its answer, so this is a load and a test.
    pub(super) fn has_avx512() -> bool {
        is_x86_feature_detected!("avx512f")
            && is_x86_feature_detected!("avx512bw")
            && is_x86_feature_detected!("avx512vbmi")
            && is_x86_feature_detected!("avx512vbmi2")
            && is_x86_feature_detected!("bmi2")
    }

    /// [`super::utf8_prefix_to_utf16_at`]'s conversion with AVX-512, into `dst`: the bytes
    /// read and the units written.
    ///
    /// # Safety
    /// The CPU must have the features enabled here, and `dst.len() >= src.len()`.
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vbmi2,bmi2")]
    pub(super) unsafe fn utf8_prefix_to_utf16(src: &[u8], dst: &mut [u16]) -> (usize, usize) {
        let bytes = src;
        let n = bytes.len();
        // `i` is always a character boundary with only valid UTF-8 before it, and `o <= i`:
        // every character takes at least as many bytes as it gives units.
        let (mut i, mut o) = (0usize, 0usize);
        while i + 64 <= n {
            // SAFETY: `i + 64 <= n`, so the 64 bytes are inside `bytes` (an unaligned load).
            let v = unsafe { _mm512_loadu_si512(bytes.as_ptr().add(i).cast()) };
            let high = _mm512_movepi8_mask(v);
            let out = dst.as_mut_ptr();
            if high == 0 {
                // 64 ASCII bytes: 64 units.
                let lo = _mm512_cvtepu8_epi16(_mm512_castsi512_si256(v));
                let hi = _mm512_cvtepu8_epi16(_mm512_extracti64x4_epi64::<1>(v));
                // SAFETY: `o + 64 <= i + 64 <= n <= dst.len()`, so both 32-unit stores are
                // inside `dst`.
                unsafe {
                    _mm512_storeu_si512(out.add(o).cast(), lo);
                    _mm512_storeu_si512(out.add(o + 32).cast(), hi);
                }
                i += 64;
                o += 64;
                continue;
            }
            // A lead byte of a three- or four-byte sequence (or a byte that is never UTF-8):
            // encoding_rs checks and converts a stretch.
            if _mm512_cmpge_epu8_mask(v, _mm512_set1_epi8(0xE0u8 as i8)) != 0 {
                let end = (i + SCALAR_STRETCH).min(n);
                // The units fit: `dst.len() - o >= n - i`.
                let (read, written) = super::valid_prefix_to_utf16(&src[i..end], &mut dst[o..]);
                i += read;
                o += written;
                // An error, or a character cut by the input's end, at `i` (a stretch ends a
                // character early only past 4 bytes from `i`, so `read` is not 0 then).
                if read == 0 {
                    return (i, o);
                }
                continue;
            }
            // Only one- and two-byte sequences; otherwise the decoder takes it from `i`.
            let Some(TwoByteBlock { lead, keep, used }) = two_byte_block(v, high) else {
                return (i, o);
            };
            // Every lane that starts a character gives one unit: itself, or for a lead byte
            // ((lead & 0x1F) << 6) | (next & 0x3F).
            let next = next_bytes(v);
            for half in 0..2 {
                let (b, nx) = if half == 0 {
                    (_mm512_castsi512_si256(v), _mm512_castsi512_si256(next))
                } else {
                    (
                        _mm512_extracti64x4_epi64::<1>(v),
                        _mm512_extracti64x4_epi64::<1>(next),
                    )
                };
                let b = _mm512_cvtepu8_epi16(b);
                let nx = _mm512_cvtepu8_epi16(nx);
                let two = _mm512_or_si512(
                    _mm512_slli_epi16::<6>(_mm512_and_si512(b, _mm512_set1_epi16(0x1F))),
                    _mm512_and_si512(nx, _mm512_set1_epi16(0x3F)),
                );
                let lead_h = (lead >> (32 * half)) as u32;
                let keep_h = (keep >> (32 * half)) as u32;
                let units = _mm512_mask_mov_epi16(b, lead_h, two);
                // The kept units packed at the bottom of the register (vpcompressw to a
                // register; its form that stores to memory is microcoded on some cores), all
                // 32 lanes stored, the ones past the kept units being overwritten next.
                let packed = _mm512_maskz_compress_epi16(keep_h, units);
                // SAFETY: the store writes 32 units from `out + o`. Before the first half
                // `o <= i`; before the second `o` has grown by at most 32; so `o + 32 <= i +
                // 64 <= n <= dst.len()` both times.
                unsafe { _mm512_storeu_si512(out.add(o).cast(), packed) };
                o += keep_h.count_ones() as usize;
            }
            i += used;
        }
        // The last bytes, fewer than 64 (the units fit, as above).
        let (read, written) = super::valid_prefix_to_utf16(&src[i..], &mut dst[o..]);
        (i + read, o + written)
    }

    /// [`super::utf8_to_latin1`]'s conversion with AVX-512, into `dst`: the bytes written, or
    /// `None` for input that is not valid UTF-8 of characters up to U+00FF. The same blocks as
    /// [`utf8_prefix_to_utf16`]'s, of 8-bit lanes: a character from U+0080 is a lead byte
    /// 0xC2 or 0xC3 and a continuation byte, `((lead & 3) << 6) | (next & 0x3F)`.
    ///
    /// # Safety
    /// The CPU must have the features enabled here, and `dst.len() >= src.len()`.
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vbmi2,bmi2")]
    pub(super) unsafe fn utf8_to_latin1(src: &[u8], dst: &mut [u8]) -> Option<usize> {
        let n = src.len();
        // `i` is always a character boundary with only valid Latin-1-range UTF-8 before it,
        // and `o <= i`.
        let (mut i, mut o) = (0usize, 0usize);
        while i + 64 <= n {
            // SAFETY: `i + 64 <= n`, so the 64 bytes are inside `src` (an unaligned load).
            let v = unsafe { _mm512_loadu_si512(src.as_ptr().add(i).cast()) };
            let high = _mm512_movepi8_mask(v);
            let out = dst.as_mut_ptr();
            if high == 0 {
                // 64 ASCII bytes, as they are.
                // SAFETY: `o + 64 <= i + 64 <= n <= dst.len()`.
                unsafe { _mm512_storeu_si512(out.add(o).cast(), v) };
                i += 64;
                o += 64;
                continue;
            }
            // A lead byte of a character from U+0100 (0xC4 and up), or a byte that is never
            // UTF-8: not Latin-1.
            if _mm512_cmpge_epu8_mask(v, _mm512_set1_epi8(0xC4u8 as i8)) != 0 {
                return None;
            }
            let TwoByteBlock { lead, keep, used } = two_byte_block(v, high)?;
            let next = next_bytes(v);
            // The lead's two low bits to the top of its byte (a 16-bit shift moves bits of a
            // lane's low byte into its high byte; the mask drops them), and the continuation's
            // six low bits.
            let two = _mm512_or_si512(
                _mm512_and_si512(_mm512_slli_epi16::<6>(v), _mm512_set1_epi8(0xC0u8 as i8)),
                _mm512_and_si512(next, _mm512_set1_epi8(0x3F)),
            );
            let chars = _mm512_mask_mov_epi8(v, lead, two);
            // The kept characters packed at the bottom of the register, all 64 lanes stored,
            // the ones past them being overwritten next (see `utf8_prefix_to_utf16`).
            let packed = _mm512_maskz_compress_epi8(keep, chars);
            // SAFETY: `o + 64 <= i + 64 <= n <= dst.len()`.
            unsafe { _mm512_storeu_si512(out.add(o).cast(), packed) };
            o += keep.count_ones() as usize;
            i += used;
        }
        // The last bytes, fewer than 64, from a character boundary (`dst[o..]` is at least as
        // long, as `o <= i`).
        super::utf8_to_latin1_scalar(&src[i..], &mut dst[o..]).map(|w| o + w)
    }

    /// Lane k: byte k + 1 of `v` (lane 63: lane 0's, never used), the byte after each.
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    fn next_bytes(v: __m512i) -> __m512i {
        let up_one = _mm512_set_epi8(
            0, 63, 62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47, 46, 45, 44, 43,
            42, 41, 40, 39, 38, 37, 36, 35, 34, 33, 32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21,
            20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1,
        );
        _mm512_permutexvar_epi8(up_one, v)
    }

    /// A block of one- and two-byte UTF-8 sequences, as [`two_byte_block`] reads it.
    struct TwoByteBlock {
        /// The lanes holding a lead byte whose continuation is in the block.
        lead: u64,
        /// The lanes that start a character in the block (ASCII or a lead byte).
        keep: u64,
        /// How many bytes of the block are taken: 63 when the last lane holds a lead byte
        /// (its continuation is in the next block), else 64.
        used: usize,
    }

    /// Reads a block of 64 bytes, `v` (`high`: its lanes from 0x80), of valid one- and
    /// two-byte sequences only (no byte from 0xE0 may be in it): `None` when it is not valid,
    /// that is when a lead byte is 0xC0 or 0xC1 (overlong) or the continuation bytes are not
    /// exactly the lanes after the lead bytes (a lead in lane 62 must have lane 63 as its
    /// continuation).
    #[target_feature(enable = "avx512f,avx512bw")]
    fn two_byte_block(v: __m512i, high: u64) -> Option<TwoByteBlock> {
        let lead = _mm512_cmpge_epu8_mask(v, _mm512_set1_epi8(0xC0u8 as i8));
        let continuation = high & !lead;
        let (take, used) = if lead >> 63 != 0 {
            (u64::MAX >> 1, 63)
        } else {
            (u64::MAX, 64)
        };
        let overlong = _mm512_cmplt_epu8_mask(v, _mm512_set1_epi8(0xC2u8 as i8)) & lead;
        if overlong != 0 || continuation != (lead & take) << 1 {
            return None;
        }
        Some(TwoByteBlock {
            lead: lead & take,
            keep: !continuation & take,
            used,
        })
    }

    /// Two UTF-8 bytes per code unit in `units` (each under U+0800), packed as little-endian
    /// 16-bit lanes (the first byte in the low half), and the mask of the bytes to keep: both
    /// for a unit from U+0080, the first alone for ASCII.
    #[target_feature(enable = "avx512f,avx512bw,bmi2")]
    fn two_byte_lanes(units: __m512i) -> (__m512i, u64) {
        let ascii = _mm512_cmplt_epu16_mask(units, _mm512_set1_epi16(0x80));
        // Lead byte 0xC0 | (u >> 6) (ASCII: u itself); trail byte 0x80 | (u & 0x3F).
        let lead = _mm512_mask_mov_epi16(
            _mm512_or_si512(_mm512_srli_epi16::<6>(units), _mm512_set1_epi16(0xC0)),
            ascii,
            units,
        );
        let trail = _mm512_or_si512(
            _mm512_and_si512(units, _mm512_set1_epi16(0x3F)),
            _mm512_set1_epi16(0x80),
        );
        let lanes = _mm512_or_si512(lead, _mm512_slli_epi16::<8>(trail));
        // Even bytes (leads) always; odd bytes (trails) where the unit is not ASCII.
        let keep = 0x5555_5555_5555_5555 | _pdep_u64(u64::from(!ascii), 0xAAAA_AAAA_AAAA_AAAA);
        (lanes, keep)
    }

    /// [`super::utf16_to_utf8_at`]'s conversion with AVX-512, into `dst`; returns the bytes
    /// written.
    ///
    /// # Safety
    /// The CPU must have the features enabled here, and `dst.len() >= 3 * src.len()`.
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi2,bmi2")]
    pub(super) unsafe fn utf16_to_utf8(src: &[u16], dst: &mut [u8]) -> usize {
        let n = src.len();
        // `o <= 3 * i` throughout (at most 3 bytes per unit), and `i` never splits a surrogate
        // pair.
        let (mut i, mut o) = (0usize, 0usize);
        while i + 32 <= n {
            // SAFETY: `i + 32 <= n`: the 32 units are inside `src` (an unaligned load).
            let u = unsafe { _mm512_loadu_si512(src.as_ptr().add(i).cast()) };
            let out = dst.as_mut_ptr();
            if _mm512_cmpge_epu16_mask(u, _mm512_set1_epi16(0x800)) != 0 {
                // Three-byte units or surrogates: encoding_rs takes a stretch, never ending
                // between the two units of a pair (it would make two U+FFFD of them).
                let mut end = (i + SCALAR_STRETCH).min(n);
                if end < n && (0xD800..0xDC00).contains(&src[end - 1]) {
                    end += 1;
                }
                // `dst.len() - o >= 3 * (n - i) >= 3 * (end - i)`.
                o += encoding_rs::mem::convert_utf16_to_utf8(&src[i..end], &mut dst[o..]);
                i = end;
                continue;
            }
            if _mm512_cmpge_epu16_mask(u, _mm512_set1_epi16(0x80)) == 0 {
                // 32 ASCII units: 32 bytes.
                let b = _mm512_cvtepi16_epi8(u);
                // SAFETY: `o + 32 <= 3 * i + 32 <= 3 * n <= dst.len()`.
                unsafe { _mm256_storeu_si256(out.add(o).cast(), b) };
                i += 32;
                o += 32;
                continue;
            }
            let (lanes, keep) = two_byte_lanes(u);
            // The kept bytes packed at the bottom of the register, all 64 lanes stored (see
            // `utf8_to_utf16`).
            let packed = _mm512_maskz_compress_epi8(keep, lanes);
            // SAFETY: the store writes 64 bytes from `out + o`, and `o + 64 <= 3 * i + 64 <
            // 3 * (i + 32) <= 3 * n <= dst.len()`.
            unsafe { _mm512_storeu_si512(out.add(o).cast(), packed) };
            o += keep.count_ones() as usize;
            i += 32;
        }
        o + encoding_rs::mem::convert_utf16_to_utf8(&src[i..], &mut dst[o..])
    }

    /// [`super::latin1_to_utf8_at`]'s conversion with AVX-512, into `dst`; returns the bytes
    /// written.
    ///
    /// # Safety
    /// The CPU must have the features enabled here, and `dst.len() >= 2 * src.len()`.
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi2,bmi2")]
    pub(super) unsafe fn latin1_to_utf8(src: &[u8], dst: &mut [u8]) -> usize {
        let n = src.len();
        // `o <= 2 * i` throughout (at most 2 bytes per byte).
        let (mut i, mut o) = (0usize, 0usize);
        while i + 32 <= n {
            // SAFETY: `i + 32 <= n`: the 32 bytes are inside `src` (an unaligned load).
            let b = unsafe { _mm256_loadu_si256(src.as_ptr().add(i).cast()) };
            let out = dst.as_mut_ptr();
            let high = _mm256_movemask_epi8(b) as u32;
            if high == 0 {
                // SAFETY: `o + 32 <= 2 * i + 32 <= 2 * n <= dst.len()`.
                unsafe { _mm256_storeu_si256(out.add(o).cast(), b) };
            } else {
                let (lanes, keep) = two_byte_lanes(_mm512_cvtepu8_epi16(b));
                // The kept bytes packed at the bottom, all 64 lanes stored (see
                // `utf8_to_utf16`).
                let packed = _mm512_maskz_compress_epi8(keep, lanes);
                // SAFETY: the store writes 64 bytes from `out + o`, and `o + 64 <= 2 * i + 64
                // = 2 * (i + 32) <= 2 * n <= dst.len()`.
                unsafe { _mm512_storeu_si512(out.add(o).cast(), packed) };
            }
            // One byte each, and a second for each byte from 0x80.
            o += 32 + high.count_ones() as usize;
            i += 32;
        }
        o + encoding_rs::mem::convert_latin1_to_utf8(&src[i..], &mut dst[o..])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Deterministic pseudo-random text from `alphabet`, `len` characters long.
    fn text(alphabet: &[char], len: usize, seed: u64) -> String {
        let mut s = seed | 1;
        (0..len)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                alphabet[(s % alphabet.len() as u64) as usize]
            })
            .collect()
    }

    /// Alphabets that make every block kind: ASCII only, one accent in many ASCII, Latin-1
    /// and two-byte letters only, three- and four-byte characters mixed in.
    const ALPHABETS: &[&[char]] = &[
        &['a', 'b', ' ', '\n', '~', '\0'],
        &['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', ' ', 'é', '.'],
        &['é', 'ü', 'ÿ', '\u{80}', 'Ā', 'ж', '\u{7FF}', 'a'],
        &[
            'a',
            'é',
            'ж',
            '€',
            '水',
            '\u{FFFF}',
            '\u{1F499}',
            '\u{10FFFF}',
            ' ',
        ],
    ];

    /// Every length from 0 to 300 and some past 64 KiB, from every alphabet, and every start
    /// offset within a block: all of a valid input is read, giving encoding_rs's units.
    #[test]
    fn utf8_to_utf16_agrees_with_encoding_rs() {
        for (a, alphabet) in ALPHABETS.iter().enumerate() {
            for len in (0..300).chain([4096, 70_000]) {
                let s = text(alphabet, len, (a * 1000 + len) as u64);
                for skip in [0, 1, 7, 63] {
                    let Some(s) = s.get(skip.min(s.len())..) else {
                        continue;
                    };
                    let mut want = vec![0; s.len()];
                    let n = encoding_rs::mem::convert_str_to_utf16(s, &mut want);
                    // Written after 3 units already there, into a vector too short at first.
                    let mut got = vec![0xAAAA; 3];
                    let read = utf8_prefix_to_utf16_at(s.as_bytes(), &mut got, 3);
                    assert_eq!(read, (s.len(), n), "{a} {len} {skip}");
                    assert_eq!(got[..3], [0xAAAA; 3]);
                    assert_eq!(got[3..3 + n], want[..n], "{a} {len} {skip}");
                }
            }
        }
    }

    /// Valid text with one error, or a cut character, at every place in and around a block:
    /// what is read is valid, ends on a boundary at or before the error, gives encoding_rs's
    /// units for those bytes, and stops no more than a block before the error.
    #[test]
    fn utf8_prefixes_stop_before_errors() {
        const ERRORS: &[&[u8]] = &[
            b"\x80",
            b"\xC0\xAF",
            b"\xC1\xBF",
            b"\xC3",
            b"\xC3a",
            b"\xE2\x82",
            b"\xED\xA0\x80",
            b"\xF0\x9F\x92",
            b"\xF5",
            b"\xFF",
        ];
        let mut checked = 0;
        for (a, alphabet) in ALPHABETS.iter().enumerate() {
            let valid = text(alphabet, 200, a as u64 + 5);
            for error in ERRORS {
                for at in [0, 1, 31, 62, 63, 64, 65, 127, 128, 150] {
                    let mut at = at.min(valid.len());
                    while !valid.is_char_boundary(at) {
                        at += 1;
                    }
                    let mut input = valid.as_bytes()[..at].to_vec();
                    input.extend_from_slice(error);
                    input.extend_from_slice(&valid.as_bytes()[at..]);
                    let limit = encoding_rs::Encoding::utf8_valid_up_to(&input);
                    let mut got = Vec::new();
                    let (read, written) = utf8_prefix_to_utf16_at(&input, &mut got, 0);
                    assert!(
                        read <= limit && read + 64 >= limit,
                        "{a} {error:x?} at {at}"
                    );
                    let prefix = std::str::from_utf8(&input[..read]).expect("valid");
                    let mut want = vec![0; prefix.len()];
                    let n = encoding_rs::mem::convert_str_to_utf16(prefix, &mut want);
                    assert_eq!(got[..written], want[..n], "{a} {error:x?} at {at}");
                    checked += 1;
                }
            }
        }
        assert_eq!(checked, ALPHABETS.len() * ERRORS.len() * 10);
    }

    /// The same texts as UTF-16, with lone surrogates and split pairs at every place a stretch
    /// can end, to UTF-8: the same bytes as encoding_rs.
    #[test]
    fn utf16_to_utf8_agrees_with_encoding_rs() {
        let mut inputs: Vec<Vec<u16>> = Vec::new();
        for (a, alphabet) in ALPHABETS.iter().enumerate() {
            for len in (0..300).chain([4096, 70_000]) {
                inputs.push(
                    text(alphabet, len, (a * 7 + len) as u64)
                        .encode_utf16()
                        .collect(),
                );
            }
        }
        // Lone and paired surrogates around the 32-unit steps and the stretch's end.
        for at in [0, 1, 31, 32, 33, 511, 512, 513, 543, 544] {
            for pair in [
                [0xD83D, 0xDC99],
                [0xD83D, 0x61],
                [0xDC99, 0xD83D],
                [0xE9, 0xDC99],
            ] {
                let mut units: Vec<u16> = "é".repeat(600).encode_utf16().collect();
                units[at] = 0x4E00;
                units[at + 1] = pair[0];
                units[at + 2] = pair[1];
                inputs.push(units);
            }
        }
        for units in &inputs {
            let mut want = vec![0; units.len() * 3];
            let n = encoding_rs::mem::convert_utf16_to_utf8(units, &mut want);
            // Written after 3 bytes already there, into a vector too short at first.
            let mut got = b"pre".to_vec();
            assert_eq!(utf16_to_utf8_at(units, &mut got, 3), n);
            assert_eq!(got[..3], *b"pre");
            assert_eq!(got[3..3 + n], want[..n]);
        }
    }

    /// Every byte value at every place in a 32-byte step, and long mixed runs: the same bytes
    /// as encoding_rs.
    #[test]
    fn latin1_to_utf8_agrees_with_encoding_rs() {
        let mut inputs: Vec<Vec<u8>> = Vec::new();
        for b in 0..=255u8 {
            for at in [0, 5, 31, 32, 40, 63] {
                let mut bytes = vec![b'x'; 70];
                bytes[at] = b;
                inputs.push(bytes);
            }
        }
        for len in (0..200).chain([70_000]) {
            let s = text(ALPHABETS[1], len, len as u64);
            inputs.push(s.chars().map(|c| c as u8).collect());
        }
        for bytes in &inputs {
            let mut want = vec![0; bytes.len() * 2];
            let n = encoding_rs::mem::convert_latin1_to_utf8(bytes, &mut want);
            let mut got = b"pre".to_vec();
            assert_eq!(latin1_to_utf8_at(bytes, &mut got, 3), n);
            assert_eq!(got[..3], *b"pre");
            assert_eq!(got[3..3 + n], want[..n]);
        }
    }

    /// Latin-1-range text of every length to 300 and past 64 KiB, at every start offset in a
    /// block, converts as encoding_rs converts it; text with one character past U+00FF, or one
    /// error, anywhere in or around a block, is refused.
    #[test]
    fn utf8_to_latin1_agrees_with_encoding_rs() {
        let latin1: &[&[char]] = &[
            &['a', 'b', ' ', '\n', '~', '\0'],
            &[
                'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', ' ', '\u{e9}', '.',
            ],
            &[
                '\u{e9}', '\u{fc}', '\u{ff}', '\u{80}', '\u{bf}', '\u{c0}', 'a',
            ],
        ];
        for (a, alphabet) in latin1.iter().enumerate() {
            for len in (0..300).chain([4096, 70_000]) {
                let s = text(alphabet, len, (a * 1000 + len) as u64);
                for skip in [0, 1, 7, 63] {
                    let Some(s) = s.get(skip.min(s.len())..) else {
                        continue;
                    };
                    let want: Vec<u8> = s.chars().map(|c| c as u8).collect();
                    let mut got = vec![0xAA; s.len() + 3];
                    let written = utf8_to_latin1(s.as_bytes(), &mut got);
                    assert_eq!(written, Some(want.len()), "{a} {len} {skip}");
                    assert_eq!(got[..want.len()], want[..], "{a} {len} {skip}");
                    let mut scalar = vec![0xAA; s.len()];
                    let written = utf8_to_latin1_scalar(s.as_bytes(), &mut scalar);
                    assert_eq!(written, Some(want.len()), "{a} {len} {skip}: scalar");
                    assert_eq!(scalar[..want.len()], want[..], "{a} {len} {skip}: scalar");
                }
            }
        }
        const REFUSED: &[&[u8]] = &[
            "\u{100}".as_bytes(),
            "\u{7ff}".as_bytes(),
            "\u{20ac}".as_bytes(),
            "\u{1f499}".as_bytes(),
            b"\x80",
            b"\xC0\xAF",
            b"\xC1\xBF",
            b"\xC3",
            b"\xC3a",
            b"\xFF",
        ];
        for (a, alphabet) in latin1.iter().enumerate() {
            let valid = text(alphabet, 200, a as u64 + 5);
            for bad in REFUSED {
                for at in [0, 1, 31, 62, 63, 64, 65, 127, 128, 150, valid.len()] {
                    let mut at = at.min(valid.len());
                    while !valid.is_char_boundary(at) {
                        at += 1;
                    }
                    let mut input = valid.as_bytes()[..at].to_vec();
                    input.extend_from_slice(bad);
                    input.extend_from_slice(&valid.as_bytes()[at..]);
                    let mut got = vec![0; input.len()];
                    assert_eq!(
                        utf8_to_latin1(&input, &mut got),
                        None,
                        "{a} {bad:?} at {at}"
                    );
                }
            }
        }
        // Room for fewer bytes than the input is refused, not overrun.
        assert_eq!(utf8_to_latin1(b"abc", &mut [0; 2]), None);
    }

    /// Latin-1-range text cut into parts at every place (between the two bytes of a
    /// character too, with empty parts among them) converts as it does whole, from `skip`; a
    /// character cut by the end, or any character past U+00FF, is refused.
    #[test]
    fn utf8_parts_to_latin1_joins_characters_cut_between_parts() {
        let alphabet = ['a', '\u{e9}', '\u{ff}', ' ', '\u{80}'];
        for len in [0, 1, 2, 5, 63, 64, 65, 200, 1000] {
            let s = text(&alphabet, len, len as u64 + 11);
            let bytes = s.as_bytes();
            let want: Vec<u8> = s.chars().map(|c| c as u8).collect();
            for cut in 0..=bytes.len().min(130) {
                for second in [cut, (cut + 1).min(bytes.len()), (cut + 70).min(bytes.len())] {
                    let parts = [
                        &bytes[..cut],
                        &[][..],
                        &bytes[cut..second],
                        &bytes[second..],
                    ];
                    let mut got = vec![0; bytes.len()];
                    let written = utf8_parts_to_latin1(&parts, 0, &mut got);
                    assert_eq!(written, Some(want.len()), "{len} {cut} {second}");
                    assert_eq!(got[..want.len()], want[..], "{len} {cut} {second}");
                }
            }
        }
        let mut got = [0; 8];
        assert_eq!(
            utf8_parts_to_latin1(&[b"\xEF\xBB\xBFab", b"c"], 3, &mut got),
            Some(3)
        );
        assert_eq!(&got[..3], b"abc");
        assert_eq!(utf8_parts_to_latin1(&[b"ab\xC3"], 0, &mut got), None);
        assert_eq!(utf8_parts_to_latin1(&[b"ab\xC3", b""], 0, &mut got), None);
        assert_eq!(
            utf8_parts_to_latin1(&[b"ab\xC4", b"\x80"], 0, &mut got),
            None
        );
        assert_eq!(
            utf8_parts_to_latin1(&[b"ab", "\u{20ac}".as_bytes()], 0, &mut got),
            None
        );
    }
}
