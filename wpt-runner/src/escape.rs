//! Escaping for the two line-based text formats: the child → parent protocol and the
//! expectations file. Both must carry any subtest name or message on one line and get it back
//! unchanged.

/// Protocol escaping: backslash, tab, newline and carriage return become `\\`, `\t`, `\n`, `\r`,
/// so a field never contains a tab or a line break.
pub fn proto_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
    out
}

/// Inverse of [`proto_escape`]. Unknown escapes are kept as written.
pub fn proto_unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('\\') => out.push('\\'),
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}

/// An optional message as one protocol field: `~` for none, `=` followed by the escaped text
/// otherwise (so an empty message and no message stay distinct).
pub fn proto_opt(s: Option<&str>) -> String {
    match s {
        None => "~".to_string(),
        Some(s) => format!("={}", proto_escape(s)),
    }
}

/// Inverse of [`proto_opt`].
pub fn proto_unopt(s: &str) -> Option<String> {
    s.strip_prefix('=').map(proto_unescape)
}

/// Escapes a subtest name (or file path) for the expectations file, where the name sits between
/// the status and the `#` that starts the reason, surrounded by spaces:
/// `\\` `\#` `\n` `\r` `\t`, other control characters as `\u{HEX}`, a space at either end as
/// `\u{20}`, and the empty name as `\e`.
pub fn name_escape(s: &str) -> String {
    if s.is_empty() {
        return "\\e".to_string();
    }
    let count = s.chars().count();
    let mut out = String::with_capacity(s.len());
    for (i, c) in s.chars().enumerate() {
        match c {
            '\\' => out.push_str("\\\\"),
            '#' => out.push_str("\\#"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() || (c.is_whitespace() && (i == 0 || i + 1 == count)) => {
                out.push_str(&format!("\\u{{{:X}}}", c as u32))
            }
            c if is_line_breaking(c) => out.push_str(&format!("\\u{{{:X}}}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// Characters that some editors or tools treat as line breaks.
fn is_line_breaking(c: char) -> bool {
    matches!(c, '\u{2028}' | '\u{2029}' | '\u{85}' | '\u{0B}' | '\u{0C}')
}

/// Inverse of [`name_escape`]. Errors on a malformed escape.
pub fn name_unescape(s: &str) -> Result<String, String> {
    if s == "\\e" {
        return Ok(String::new());
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('\\') => out.push('\\'),
            Some('#') => out.push('#'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('t') => out.push('\t'),
            Some('u') => {
                if chars.next() != Some('{') {
                    return Err(format!("bad \\u escape in {s:?}"));
                }
                let mut hex = String::new();
                loop {
                    match chars.next() {
                        Some('}') => break,
                        Some(h) if h.is_ascii_hexdigit() && hex.len() < 6 => hex.push(h),
                        _ => return Err(format!("bad \\u escape in {s:?}")),
                    }
                }
                let ch = u32::from_str_radix(&hex, 16)
                    .ok()
                    .and_then(char::from_u32)
                    .ok_or_else(|| format!("bad \\u escape in {s:?}"))?;
                out.push(ch);
            }
            other => {
                return Err(format!(
                    "unknown escape \\{} in {s:?}",
                    other.unwrap_or(' ')
                ))
            }
        }
    }
    Ok(out)
}

/// Finds the first `#` not preceded by an escaping backslash.
pub fn find_unescaped_hash(s: &str) -> Option<usize> {
    let mut escaped = false;
    for (i, c) in s.char_indices() {
        if escaped {
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if c == '#' {
            return Some(i);
        }
    }
    None
}

/// A JSON string literal (with quotes): the host's, which stream-diff shares.
pub use boa_streams::host::json_string;

/// A JSON string literal, or `null`.
pub fn json_opt(s: Option<&str>) -> String {
    s.map_or_else(|| "null".to_string(), json_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TRICKY: &[&str] = &[
        "",
        " ",
        "plain name",
        "  leading and trailing  ",
        "with # hash and \\ backslash and \\# both",
        "tab\there\nnewline\r\nCRLF",
        "unicode: ünïcødé 💙 \u{2028} \u{0} \u{7f} \u{1b}[0m",
        "\\e",
        "\\u{20}",
        "ends with backslash \\",
        "[looks like a header]",
        "FAIL  # reason: fake",
    ];

    #[test]
    fn protocol_round_trip() {
        for s in TRICKY {
            let e = proto_escape(s);
            assert!(!e.contains('\t') && !e.contains('\n') && !e.contains('\r'));
            assert_eq!(proto_unescape(&e), *s);
            assert_eq!(proto_unopt(&proto_opt(Some(s))).as_deref(), Some(*s));
        }
        assert_eq!(proto_unopt(&proto_opt(None)), None);
    }

    #[test]
    fn name_round_trip() {
        for s in TRICKY {
            let e = name_escape(s);
            assert!(!e.contains('\n') && !e.contains('\r') && !e.contains('\t'));
            assert_eq!(find_unescaped_hash(&e), None, "{e}");
            assert_eq!(e.trim(), e, "{e:?}");
            assert!(!e.is_empty());
            assert_eq!(name_unescape(&e).unwrap(), *s, "{e}");
        }
    }

    #[test]
    fn json() {
        assert_eq!(json_string("a\"b\\c\n\u{1}"), "\"a\\\"b\\\\c\\n\\u0001\"");
        assert_eq!(json_opt(None), "null");
    }
}
