//! The Infra Standard pieces the fetch algorithms share: isomorphic decode and encode, and
//! forgiving-base64 (which `atob` and the `data:` URL processor use).

/// [isomorphic decode](https://infra.spec.whatwg.org/#isomorphic-decode): each byte becomes the
/// code point of the same value.
pub fn isomorphic_decode(input: &[u8]) -> String {
    input.iter().copied().map(char::from).collect()
}

/// [isomorphic encode](https://infra.spec.whatwg.org/#isomorphic-encode): each code point becomes
/// the byte of the same value. The spec asserts that no code point is above U+00FF; here such an
/// input gives `None`.
pub fn isomorphic_encode(input: &str) -> Option<Vec<u8>> {
    input
        .chars()
        .map(|c| u8::try_from(u32::from(c)).ok())
        .collect()
}

/// The value of a base64 alphabet byte (RFC 4648, table 1), or `None` for any other byte.
fn base64_value(byte: u8) -> Option<u8> {
    match byte {
        b'A'..=b'Z' => Some(byte - b'A'),
        b'a'..=b'z' => Some(byte - b'a' + 26),
        b'0'..=b'9' => Some(byte - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    }
}

/// [forgiving-base64 decode](https://infra.spec.whatwg.org/#forgiving-base64-decode), `None` for
/// failure.
///
/// The input is the string's code points as bytes: either UTF-8 (a `&str`'s bytes) or an
/// isomorphic encoding. Both give the same answer, because any code point outside ASCII fails
/// step 4 whatever its encoding, and steps 2 and 3 only decide between failures then.
pub fn forgiving_base64_decode(data: &[u8]) -> Option<Vec<u8>> {
    // 1. Remove all ASCII whitespace from data.
    let mut data: Vec<u8> = data
        .iter()
        .copied()
        .filter(|b| !b.is_ascii_whitespace())
        .collect();
    // 2. If data's length divides by 4 leaving no remainder: if data ends with one or two
    //    U+003D (=), remove them.
    if data.len().is_multiple_of(4) {
        if data.ends_with(b"==") {
            data.truncate(data.len() - 2);
        } else if data.ends_with(b"=") {
            data.truncate(data.len() - 1);
        }
    }
    // 3. If data's length divides by 4 leaving a remainder of 1, return failure.
    if data.len() % 4 == 1 {
        return None;
    }
    // 4. If data contains a code point that is not U+002B (+), U+002F (/) or ASCII
    //    alphanumeric, return failure. (Checked per byte in step 8.)
    // 5.-7. output, buffer, position.
    let mut output = Vec::with_capacity(data.len() / 4 * 3 + 2);
    let mut buffer: u32 = 0;
    let mut bits = 0;
    // 8. For each code point: append its six bits; every 24 bits, output three bytes.
    for &byte in &data {
        let n = base64_value(byte)?;
        buffer = (buffer << 6) | u32::from(n);
        bits += 6;
        if bits == 24 {
            output.extend_from_slice(&buffer.to_be_bytes()[1..]);
            buffer = 0;
            bits = 0;
        }
    }
    // 9. 12 bits left: discard 4, one byte; 18 bits left: discard 2, two bytes.
    match bits {
        12 => output.push((buffer >> 4) as u8),
        18 => {
            let value = buffer >> 2;
            output.push((value >> 8) as u8);
            output.push(value as u8);
        }
        _ => {}
    }
    // 10. Return output.
    Some(output)
}

/// [forgiving-base64 encode](https://infra.spec.whatwg.org/#forgiving-base64-encode): RFC 4648
/// section 4 base64, with padding.
pub fn forgiving_base64_encode(data: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let symbol = |six: u32| char::from(ALPHABET[(six & 63) as usize]);
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let mut group = [0u8; 3];
        group[..chunk.len()].copy_from_slice(chunk);
        let n = u32::from(group[0]) << 16 | u32::from(group[1]) << 8 | u32::from(group[2]);
        out.push(symbol(n >> 18));
        out.push(symbol(n >> 12));
        out.push(if chunk.len() > 1 { symbol(n >> 6) } else { '=' });
        out.push(if chunk.len() > 2 { symbol(n) } else { '=' });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn isomorphic_decode_and_encode_round_trip_bytes() {
        let bytes: Vec<u8> = (0..=255).collect();
        let text = isomorphic_decode(&bytes);
        assert_eq!(text.chars().count(), 256);
        assert_eq!(text.chars().nth(0xE9), Some('é'));
        assert_eq!(isomorphic_encode(&text), Some(bytes));
        assert_eq!(isomorphic_encode("a€"), None);
    }

    #[test]
    fn forgiving_base64_decode_follows_infra() {
        let decode = |s: &str| forgiving_base64_decode(s.as_bytes());
        assert_eq!(decode(""), Some(vec![]));
        assert_eq!(decode("YQ"), Some(b"a".to_vec()));
        assert_eq!(decode("YQ=="), Some(b"a".to_vec()));
        assert_eq!(decode("YWI="), Some(b"ab".to_vec()));
        assert_eq!(decode("YWJj"), Some(b"abc".to_vec()));
        assert_eq!(decode(" Y W\tJ\nj\x0c\r"), Some(b"abc".to_vec()));
        // Padding only counts when the length is a multiple of four.
        assert_eq!(decode("YQ="), None);
        assert_eq!(decode("YQ==="), None);
        assert_eq!(decode("YQ=a"), None);
        assert_eq!(decode("=YQ="), None);
        // A remainder of one is failure.
        assert_eq!(decode("a"), None);
        assert_eq!(decode("abcde"), None);
        // Non-alphabet code points.
        assert_eq!(decode("YW-j"), None);
        assert_eq!(decode("YW_j"), None);
        assert_eq!(decode("YWé="), None);
        assert_eq!(forgiving_base64_decode(&[b'Y', b'W', 0xE9, b'=']), None);
        // The discarded bits need not be zero.
        assert_eq!(decode("YR"), Some(b"a".to_vec()));
        assert_eq!(decode("/+/+"), Some(vec![0xFF, 0xEF, 0xFE]));
    }

    #[test]
    fn forgiving_base64_encode_pads() {
        assert_eq!(forgiving_base64_encode(b""), "");
        assert_eq!(forgiving_base64_encode(b"a"), "YQ==");
        assert_eq!(forgiving_base64_encode(b"ab"), "YWI=");
        assert_eq!(forgiving_base64_encode(b"abc"), "YWJj");
        assert_eq!(forgiving_base64_encode(&[0xFF, 0xEF, 0xFE]), "/+/+");
        let bytes: Vec<u8> = (0..=255).collect();
        let encoded = forgiving_base64_encode(&bytes);
        assert_eq!(forgiving_base64_decode(encoded.as_bytes()), Some(bytes));
    }
}
