//! The little JSON this tool needs: string literals out, an array of strings in (Node's log).

/// `s` as a JSON (and JavaScript) string literal: the host's, which the WPT runner shares.
pub use boa_streams::host::json_string as string;

/// Parses `["a", "b", ...]` (what `JSON.stringify` makes of an array of strings).
pub fn parse_string_array(text: &str) -> Option<Vec<String>> {
    let mut chars = text.trim().chars().peekable();
    if chars.next()? != '[' {
        return None;
    }
    let mut out = Vec::new();
    loop {
        while chars.peek().is_some_and(|c| c.is_whitespace()) {
            chars.next();
        }
        match chars.next()? {
            ']' => return Some(out),
            ',' => continue,
            '"' => {
                let mut s = String::new();
                loop {
                    match chars.next()? {
                        '"' => break,
                        '\\' => match chars.next()? {
                            'n' => s.push('\n'),
                            'r' => s.push('\r'),
                            't' => s.push('\t'),
                            'b' => s.push('\u{8}'),
                            'f' => s.push('\u{c}'),
                            'u' => {
                                let hex: String = (0..4).filter_map(|_| chars.next()).collect();
                                let unit = u32::from_str_radix(&hex, 16).ok()?;
                                // Surrogate pairs: combine; a lone one becomes U+FFFD.
                                if (0xD800..0xDC00).contains(&unit) {
                                    let mut rest = chars.clone();
                                    if rest.next() == Some('\\') && rest.next() == Some('u') {
                                        let hex: String =
                                            (0..4).filter_map(|_| rest.next()).collect();
                                        if let Ok(low) = u32::from_str_radix(&hex, 16) {
                                            if (0xDC00..0xE000).contains(&low) {
                                                let c = 0x10000
                                                    + ((unit - 0xD800) << 10)
                                                    + (low - 0xDC00);
                                                s.push(char::from_u32(c)?);
                                                chars = rest;
                                                continue;
                                            }
                                        }
                                    }
                                }
                                s.push(char::from_u32(unit).unwrap_or('\u{FFFD}'));
                            }
                            other => s.push(other),
                        },
                        c => s.push(c),
                    }
                }
                out.push(s);
            }
            _ => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let items = vec![
            "a\"b".to_owned(),
            "\\\n\t".to_owned(),
            "é😀".to_owned(),
            String::new(),
        ];
        let text = format!(
            "[{}]",
            items
                .iter()
                .map(|s| string(s))
                .collect::<Vec<_>>()
                .join(",")
        );
        assert_eq!(parse_string_array(&text), Some(items));
        assert_eq!(
            parse_string_array("[\"\\ud83d\\ude00\"]"),
            Some(vec!["😀".to_owned()])
        );
        assert_eq!(parse_string_array("{}"), None);
    }
}
