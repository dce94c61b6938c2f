//! The lexical pieces of the Fetch Standard's "HTTP" section that headers and MIME types share:
//! HTTP whitespace, token code points, and collecting an HTTP quoted string.

/// An [HTTP newline byte](https://fetch.spec.whatwg.org/#http-newline-byte): 0x0A (LF) or 0x0D
/// (CR).
pub fn is_http_newline_byte(byte: u8) -> bool {
    matches!(byte, b'\n' | b'\r')
}

/// An [HTTP tab or space byte](https://fetch.spec.whatwg.org/#http-tab-or-space-byte): 0x09 (HT)
/// or 0x20 (SP).
pub fn is_http_tab_or_space_byte(byte: u8) -> bool {
    matches!(byte, b'\t' | b' ')
}

/// An [HTTP whitespace byte](https://fetch.spec.whatwg.org/#http-whitespace-byte): an HTTP
/// newline byte or an HTTP tab or space byte.
pub fn is_http_whitespace_byte(byte: u8) -> bool {
    is_http_newline_byte(byte) || is_http_tab_or_space_byte(byte)
}

/// [HTTP whitespace](https://fetch.spec.whatwg.org/#http-whitespace) as code points: U+000A,
/// U+000D, U+0009 or U+0020.
pub fn is_http_whitespace(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\t' | ' ')
}

/// [HTTP tab or space](https://fetch.spec.whatwg.org/#http-tab-or-space) as code points: U+0009
/// or U+0020.
pub fn is_http_tab_or_space(c: char) -> bool {
    matches!(c, '\t' | ' ')
}

/// An [HTTP token code point](https://mimesniff.spec.whatwg.org/#http-token-code-point): the
/// `tchar` of RFC 9110 (`!#$%&'*+-.^_`|~`, digits and ASCII letters).
pub fn is_http_token_code_point(c: char) -> bool {
    matches!(
        c,
        '!' | '#' | '$' | '%' | '&' | '\'' | '*' | '+' | '-' | '.' | '^' | '_' | '`' | '|' | '~'
    ) || c.is_ascii_alphanumeric()
}

/// A byte that is an HTTP token code point (the `token` production's `tchar`, as bytes).
pub fn is_token_byte(byte: u8) -> bool {
    is_http_token_code_point(char::from(byte))
}

/// Whether `bytes` matches the `token` production (`1*tchar`).
pub fn is_token(bytes: &[u8]) -> bool {
    !bytes.is_empty() && bytes.iter().all(|&b| is_token_byte(b))
}

/// An [HTTP quoted-string token code
/// point](https://mimesniff.spec.whatwg.org/#http-quoted-string-token-code-point): U+0009, U+0020
/// to U+007E, or U+0080 to U+00FF.
pub fn is_http_quoted_string_token_code_point(c: char) -> bool {
    matches!(c, '\t' | ' '..='~' | '\u{80}'..='\u{FF}')
}

/// [Collect a sequence of code points](https://infra.spec.whatwg.org/#collect-a-sequence-of-code-points)
/// for which `condition` holds, from `input` at `position`, advancing `position` past them.
pub fn collect_a_sequence_of_code_points(
    condition: impl Fn(char) -> bool,
    input: &[char],
    position: &mut usize,
) -> String {
    let start = (*position).min(input.len());
    let end = input[start..]
        .iter()
        .position(|&c| !condition(c))
        .map_or(input.len(), |n| start + n);
    *position = end;
    input[start..end].iter().collect()
}

/// [Collect an HTTP quoted string](https://fetch.spec.whatwg.org/#collect-an-http-quoted-string)
/// from `input` at `position` (which must point at U+0022 (")); with `extract_value`, the string
/// between the quotes with its escapes resolved, otherwise the code points consumed, quotes and
/// backslashes included.
///
/// The spec asserts that `position` points at U+0022; if it does not, this returns the empty
/// string and leaves `position` where it was.
pub fn collect_an_http_quoted_string(
    input: &[char],
    position: &mut usize,
    extract_value: bool,
) -> String {
    // 1. Let positionStart be position.
    let position_start = *position;
    // 2. Let value be the empty string.
    let mut value = String::new();
    // 3. Assert: the code point at position within input is U+0022 (").
    if input.get(*position) != Some(&'"') {
        return value;
    }
    // 4. Advance position by 1.
    *position += 1;
    // 5. While true:
    loop {
        // 1. Append the code points that are not U+0022 (") or U+005C (\).
        value.push_str(&collect_a_sequence_of_code_points(
            |c| c != '"' && c != '\\',
            input,
            position,
        ));
        // 2. If position is past the end of input, then break.
        // 3. Let quoteOrBackslash be the code point at position within input.
        let Some(&quote_or_backslash) = input.get(*position) else {
            break;
        };
        // 4. Advance position by 1.
        *position += 1;
        // 5. If quoteOrBackslash is U+005C (\), then:
        if quote_or_backslash == '\\' {
            // 1. If position is past the end of input, append U+005C (\) to value and break.
            // 2. Append the code point at position within input to value.
            // 3. Advance position by 1.
            match input.get(*position) {
                None => {
                    value.push('\\');
                    break;
                }
                Some(&c) => {
                    value.push(c);
                    *position += 1;
                }
            }
        } else {
            // 6. Otherwise: assert quoteOrBackslash is U+0022 ("); break.
            break;
        }
    }
    // 6. If extract-value is true, then return value.
    if extract_value {
        return value;
    }
    // 7. Return the code points from positionStart to position, inclusive.
    input[position_start..*position].iter().collect()
}

/// Removes leading and trailing bytes for which `strip` holds.
pub fn trim_bytes(bytes: &[u8], strip: impl Fn(u8) -> bool) -> &[u8] {
    let start = bytes.iter().position(|&b| !strip(b)).unwrap_or(bytes.len());
    let end = bytes
        .iter()
        .rposition(|&b| !strip(b))
        .map_or(start, |i| i + 1);
    &bytes[start..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quoted(input: &str, extract: bool) -> (String, usize) {
        let chars: Vec<char> = input.chars().collect();
        let mut position = 0;
        let value = collect_an_http_quoted_string(&chars, &mut position, extract);
        (value, position)
    }

    #[test]
    fn quoted_strings_follow_the_spec_examples() {
        // The table under the algorithm in the Fetch Standard.
        assert_eq!(quoted("\"\\", false), ("\"\\".into(), 2));
        assert_eq!(quoted("\"\\", true), ("\\".into(), 2));
        assert_eq!(quoted("\"Hello\" World", false), ("\"Hello\"".into(), 7));
        assert_eq!(quoted("\"Hello\" World", true), ("Hello".into(), 7));
        assert_eq!(quoted("\"Hello \\\\ World\\\"\"", false).1, 18);
        assert_eq!(
            quoted("\"Hello \\\\ World\\\"\"", true),
            ("Hello \\ World\"".into(), 18)
        );
        // Unterminated: everything to the end.
        assert_eq!(quoted("\"abc", true), ("abc".into(), 4));
    }

    #[test]
    fn a_quoted_string_not_at_a_quote_is_empty_and_does_not_move() {
        assert_eq!(quoted("abc", true), (String::new(), 0));
        assert_eq!(quoted("", false), (String::new(), 0));
    }

    #[test]
    fn tokens_and_trimming() {
        assert!(is_token(b"Content-Type"));
        assert!(is_token(b"!#$%&'*+-.^_`|~09azAZ"));
        assert!(!is_token(b""));
        assert!(!is_token(b"a b"));
        assert!(!is_token(b"a:b"));
        assert!(!is_token(b"\xC3\xA9"));
        assert!(is_http_quoted_string_token_code_point('ÿ'));
        assert!(!is_http_quoted_string_token_code_point('\u{7F}'));
        assert!(!is_http_quoted_string_token_code_point('Ā'));
        assert_eq!(trim_bytes(b" \t a b\r\n", is_http_whitespace_byte), b"a b");
        assert_eq!(trim_bytes(b" \t ", is_http_whitespace_byte), b"");
    }
}
