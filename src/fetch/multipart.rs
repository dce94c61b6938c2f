//! `multipart/form-data`: HTML's [multipart/form-data encoding
//! algorithm](https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#multipart/form-data-encoding-algorithm)
//! (framed per RFC 7578 and RFC 2046, the way browsers frame it), the parser Fetch's `formData()`
//! needs for such a body, and [`formData()`'s steps](https://fetch.spec.whatwg.org/#dom-body-formdata)
//! over bytes and a MIME type.
//!
//! The parser accepts what the encoder produces and the RFC framing around it: a preamble before
//! the first boundary line (RFC 2046 §5.1.1: ignored), transport padding (spaces and tabs) after
//! a delimiter, a missing CRLF after the close delimiter, an epilogue after it, any header besides `Content-Disposition` and `Content-Type` (ignored), and header
//! names, the `form-data` disposition and its `name`/`filename` parameters in any ASCII case (WPT
//! `fetch/api/body/formdata.any.js` lowercases a whole body). It fails on a part without `Content-Disposition: form-data; name="..."`, other disposition parameters
//! (`filename*`), a missing close delimiter, and a boundary that is not RFC 2046's.

use std::error::Error;
use std::fmt;

use super::http::{is_http_tab_or_space_byte, is_token, trim_bytes};
use super::infra::{isomorphic_decode, isomorphic_encode};
use super::mime::MimeType;
use crate::url::urlencoded::application_x_www_form_urlencoded_parser;

/// A file entry's value: the parts of a `File` the encoding uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct File {
    /// The file's name (the `filename` parameter).
    pub name: String,
    /// The file's type (the part's `Content-Type`); empty for none.
    pub type_: String,
    /// The file's bytes.
    pub body: Vec<u8>,
}

/// An [entry](https://xhr.spec.whatwg.org/#concept-formdata-entry)'s value: a string or a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EntryValue {
    String(String),
    File(File),
}

/// An [entry](https://xhr.spec.whatwg.org/#concept-formdata-entry) of a `FormData` entry list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub name: String,
    pub value: EntryValue,
}

impl Entry {
    /// A string entry.
    pub fn string(name: &str, value: &str) -> Self {
        Self {
            name: name.to_owned(),
            value: EntryValue::String(value.to_owned()),
        }
    }

    /// A file entry.
    pub fn file(name: &str, filename: &str, type_: &str, body: &[u8]) -> Self {
        Self {
            name: name.to_owned(),
            value: EntryValue::File(File {
                name: filename.to_owned(),
                type_: type_.to_owned(),
                body: body.to_vec(),
            }),
        }
    }
}

/// Why the encoding algorithm refused a boundary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EncodeError {
    /// The boundary is not RFC 2046's `boundary` (1 to 70 `bchars`, not ending in a space).
    InvalidBoundary,
    /// A value holds CRLF, "--" and the boundary, so the body would not parse back.
    BoundaryInContent,
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::InvalidBoundary => "the multipart/form-data boundary is not an RFC 2046 boundary",
            Self::BoundaryInContent => {
                "a multipart/form-data value contains the boundary delimiter"
            }
        })
    }
}

impl Error for EncodeError {}

/// Why a body did not parse as `multipart/form-data` (or as form data at all): `formData()`
/// rejects with a `TypeError` then.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FormDataError {
    pub reason: &'static str,
}

impl fmt::Display for FormDataError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.reason)
    }
}

impl Error for FormDataError {}

fn fail<T>(reason: &'static str) -> Result<T, FormDataError> {
    Err(FormDataError { reason })
}

/// Whether `boundary` is RFC 2046's `boundary`: 1 to 70 `bchars` (digits, letters and
/// `'()+_,-./:=?` and space), the last not a space.
pub fn is_multipart_boundary(boundary: &[u8]) -> bool {
    let bchar = |b: &u8| {
        b.is_ascii_alphanumeric()
            || matches!(
                b,
                b'\''
                    | b'('
                    | b')'
                    | b'+'
                    | b'_'
                    | b','
                    | b'-'
                    | b'.'
                    | b'/'
                    | b':'
                    | b'='
                    | b'?'
                    | b' '
            )
    };
    (1..=70).contains(&boundary.len())
        && boundary.iter().all(bchar)
        && boundary.last() != Some(&b' ')
}

/// A fresh [multipart/form-data boundary
/// string](https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#multipart/form-data-boundary-string):
/// a fixed prefix and 128 bits from std's randomly keyed hasher (not a cryptographic source;
/// enough to make a collision with content unlikely, and the encoding algorithm checks anyway).
pub fn generate_a_multipart_form_data_boundary() -> String {
    use std::collections::hash_map::RandomState;
    use std::hash::{BuildHasher, Hasher};
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::time::{SystemTime, UNIX_EPOCH};

    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let mut boundary = String::from("----boa-formdata-");
    for _ in 0..2 {
        let mut hasher = RandomState::new().build_hasher();
        hasher.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
        hasher.write_u128(nanos);
        boundary.push_str(&format!("{:016x}", hasher.finish()));
    }
    boundary
}

/// Replaces every U+000D (CR) not followed by U+000A (LF), and every LF not preceded by CR, by
/// CRLF.
fn normalize_newlines(input: &str) -> String {
    let mut output = String::with_capacity(input.len());
    let mut chars = input.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' => {
                output.push_str("\r\n");
                if chars.peek() == Some(&'\n') {
                    chars.next();
                }
            }
            '\n' => output.push_str("\r\n"),
            c => output.push(c),
        }
    }
    output
}

/// A field name or filename as the encoding writes it: UTF-8, with 0x0A (LF) as `%0A`, 0x0D (CR)
/// as `%0D` and 0x22 (") as `%22`, and no other escapes.
fn escape_name(name: &str, output: &mut Vec<u8>) {
    for &byte in name.as_bytes() {
        match byte {
            b'\n' => output.extend_from_slice(b"%0A"),
            b'\r' => output.extend_from_slice(b"%0D"),
            b'"' => output.extend_from_slice(b"%22"),
            _ => output.push(byte),
        }
    }
}

/// Whether `haystack` contains `needle` (non-empty) and where it first starts.
fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    let first = *needle.first()?;
    let mut from = 0;
    while let Some(offset) = haystack.get(from..)?.iter().position(|&b| b == first) {
        let at = from + offset;
        if haystack.get(at..at + needle.len()) == Some(needle) {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

/// The [multipart/form-data encoding
/// algorithm](https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#multipart/form-data-encoding-algorithm)
/// with UTF-8 and the given boundary string.
///
/// Each entry becomes a part `--boundary CRLF`, `Content-Disposition: form-data; name="..."`
/// (and `; filename="..."` for a file, then `Content-Type:` the file's type or
/// `application/octet-stream`), a blank line, the value and CRLF; the body ends with
/// `--boundary-- CRLF`. The type, which a `Blob` never gives a CR, LF or `"`, is escaped like a
/// name so that it stays on its line.
///
/// Errors: a boundary that is not RFC 2046's, or one whose delimiter (CRLF, "--", boundary)
/// occurs in a value, since the body would then not parse back.
pub fn multipart_form_data_encoding_algorithm(
    entries: &[Entry],
    boundary: &str,
) -> Result<Vec<u8>, EncodeError> {
    if !is_multipart_boundary(boundary.as_bytes()) {
        return Err(EncodeError::InvalidBoundary);
    }
    let delimiter = format!("\r\n--{boundary}");
    let mut output = Vec::new();
    // 1. For each entry of entry list:
    for entry in entries {
        // 1. Replace every lone CR and lone LF in entry's name by CRLF.
        let name = normalize_newlines(&entry.name);
        // 2. If entry's value is not a File object, then do the same in entry's value.
        let string_value;
        let value: &[u8] = match &entry.value {
            EntryValue::String(value) => {
                string_value = normalize_newlines(value);
                string_value.as_bytes()
            }
            EntryValue::File(file) => &file.body,
        };
        if find(value, delimiter.as_bytes()).is_some() {
            return Err(EncodeError::BoundaryInContent);
        }
        // 2. Return the entry list encoded per RFC 7578: one part per entry, in order, names
        //    (and filenames) escaped, no Content-Type on a non-file part.
        output.extend_from_slice(b"--");
        output.extend_from_slice(boundary.as_bytes());
        output.extend_from_slice(b"\r\nContent-Disposition: form-data; name=\"");
        escape_name(&name, &mut output);
        output.push(b'"');
        if let EntryValue::File(file) = &entry.value {
            output.extend_from_slice(b"; filename=\"");
            escape_name(&file.name, &mut output);
            output.extend_from_slice(b"\"\r\nContent-Type: ");
            let type_ = if file.type_.is_empty() {
                "application/octet-stream"
            } else {
                &file.type_
            };
            escape_name(type_, &mut output);
        }
        output.extend_from_slice(b"\r\n\r\n");
        output.extend_from_slice(value);
        output.extend_from_slice(b"\r\n");
    }
    output.extend_from_slice(b"--");
    output.extend_from_slice(boundary.as_bytes());
    output.extend_from_slice(b"--\r\n");
    Ok(output)
}

/// A `FormData` body as [extract a body](https://fetch.spec.whatwg.org/#concept-bodyinit-extract)
/// makes it: the encoding algorithm's bytes with a fresh boundary, and the type
/// `multipart/form-data; boundary=` followed by that boundary. Returns (body, type).
pub fn extract_a_form_data_body(entries: &[Entry]) -> (Vec<u8>, Vec<u8>) {
    loop {
        let boundary = generate_a_multipart_form_data_boundary();
        // A generated boundary is always valid; a collision with content retries.
        if let Ok(body) = multipart_form_data_encoding_algorithm(entries, &boundary) {
            let content_type = format!("multipart/form-data; boundary={boundary}");
            return (body, content_type.into_bytes());
        }
    }
}

/// The headers of one part that the parser keeps.
struct PartHeaders {
    name: String,
    filename: Option<String>,
    content_type: Option<String>,
}

/// The bytes of `input` from `position` on (empty past the end).
fn rest(input: &[u8], position: usize) -> &[u8] {
    input.get(position..).unwrap_or_default()
}

/// Advances `position` past bytes for which `condition` holds; returns them.
fn collect<'a>(input: &'a [u8], position: &mut usize, condition: impl Fn(u8) -> bool) -> &'a [u8] {
    let start = (*position).min(input.len());
    let length = input[start..]
        .iter()
        .position(|&b| !condition(b))
        .unwrap_or(input.len() - start);
    *position = start + length;
    &input[start..start + length]
}

/// Advances `position` past `expected` (ASCII case-insensitive) if `input` has it there.
fn skip_ascii_case_insensitive(input: &[u8], position: &mut usize, expected: &[u8]) -> bool {
    let matches = rest(input, *position)
        .get(..expected.len())
        .is_some_and(|b| b.eq_ignore_ascii_case(expected));
    if matches {
        *position += expected.len();
    }
    matches
}

/// Parses a quoted field name or filename whose opening `"` is just behind `position`: the bytes
/// up to the closing `"` (no CR or LF allowed), with `%0A`, `%0D` and `%22` (hex digits in either
/// case) turned back into their bytes, UTF-8 decoded without BOM.
fn parse_a_multipart_form_data_name(
    input: &[u8],
    position: &mut usize,
) -> Result<String, FormDataError> {
    let name = collect(input, position, |b| !matches!(b, b'\n' | b'\r' | b'"'));
    if input.get(*position) != Some(&b'"') {
        return fail("a multipart/form-data name has no closing quote");
    }
    *position += 1;
    let mut bytes = Vec::with_capacity(name.len());
    let mut i = 0;
    while let Some(&byte) = name.get(i) {
        let escaped = match name.get(i..i + 3) {
            Some(e) if e.eq_ignore_ascii_case(b"%0A") => Some(b'\n'),
            Some(e) if e.eq_ignore_ascii_case(b"%0D") => Some(b'\r'),
            Some(b"%22") => Some(b'"'),
            _ => None,
        };
        match escaped {
            Some(b) => {
                bytes.push(b);
                i += 3;
            }
            None => {
                bytes.push(byte);
                i += 1;
            }
        }
    }
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// Parses one part's header lines, from `position` up to (not past) the blank line's CRLF.
fn parse_multipart_form_data_headers(
    input: &[u8],
    position: &mut usize,
) -> Result<PartHeaders, FormDataError> {
    let mut name = None;
    let mut filename = None;
    let mut content_type = None;
    loop {
        // The blank line ends the headers; a part must have had a name.
        if rest(input, *position).starts_with(b"\r\n") {
            return match name {
                Some(name) => Ok(PartHeaders {
                    name,
                    filename,
                    content_type,
                }),
                None => fail("a multipart/form-data part has no Content-Disposition name"),
            };
        }
        // A header name: bytes up to ":", trimmed of tabs and spaces, a token.
        let header_name = collect(input, position, |b| !matches!(b, b'\n' | b'\r' | b':'));
        let header_name = trim_bytes(header_name, is_http_tab_or_space_byte);
        if !is_token(header_name) || input.get(*position) != Some(&b':') {
            return fail("a multipart/form-data part has a malformed header");
        }
        *position += 1;
        collect(input, position, is_http_tab_or_space_byte);
        match header_name.to_ascii_lowercase().as_slice() {
            b"content-disposition" => {
                // A later Content-Disposition replaces an earlier one (name is set below).
                filename = None;
                let form_data = skip_ascii_case_insensitive(input, position, b"form-data")
                    && skip_ascii_case_insensitive(input, position, b";");
                collect(input, position, is_http_tab_or_space_byte);
                if !form_data || !skip_ascii_case_insensitive(input, position, b"name=\"") {
                    return fail("a multipart/form-data part is not `form-data; name=\"...\"`");
                }
                name = Some(parse_a_multipart_form_data_name(input, position)?);
                if skip_ascii_case_insensitive(input, position, b";") {
                    collect(input, position, is_http_tab_or_space_byte);
                    if !skip_ascii_case_insensitive(input, position, b"filename=\"") {
                        return fail(
                            "a multipart/form-data part has an unknown disposition parameter",
                        );
                    }
                    filename = Some(parse_a_multipart_form_data_name(input, position)?);
                }
                collect(input, position, is_http_tab_or_space_byte);
            }
            b"content-type" => {
                let value = collect(input, position, |b| !matches!(b, b'\n' | b'\r'));
                let value = trim_bytes(value, is_http_tab_or_space_byte);
                // The part's type becomes a `File`'s `type`, "an ASCII-encoded string in lower
                // case" (File API): normalized as the `Blob` constructor normalizes a type.
                content_type = Some(crate::file::normalize_type(&isomorphic_decode(value)));
            }
            _ => {
                collect(input, position, |b| !matches!(b, b'\n' | b'\r'));
            }
        }
        if !rest(input, *position).starts_with(b"\r\n") {
            return fail("a multipart/form-data header line does not end in CRLF");
        }
        *position += 2;
    }
}

/// Parses a `multipart/form-data` body with the given boundary (the `boundary` parameter of its
/// MIME type) into an entry list, as [`formData()`](https://fetch.spec.whatwg.org/#dom-body-formdata)
/// step 2.1 asks ("per the rules set forth in" RFC 7578): a part with a `filename` parameter
/// becomes a file (its type the part's `Content-Type`, or `text/plain` without one), any other
/// part a string, its bytes UTF-8 decoded without BOM whatever its `Content-Type` says.
pub fn parse_a_multipart_form_data_body(
    input: &[u8],
    boundary: &[u8],
) -> Result<Vec<Entry>, FormDataError> {
    if !is_multipart_boundary(boundary) {
        return fail("the multipart/form-data boundary is not an RFC 2046 boundary");
    }
    let dash_boundary = [b"--", boundary].concat();
    let delimiter = [b"\r\n", dash_boundary.as_slice()].concat();
    let mut entries = Vec::new();
    // RFC 2046 §5.1.1: "multipart-body := [preamble CRLF] dash-boundary ...": whatever comes
    // before the first line that starts with the boundary is a preamble, which "must" be
    // ignored.
    let mut position = if input.starts_with(&dash_boundary) {
        0
    } else {
        match find(input, &delimiter) {
            Some(at) => at + 2,
            None => return fail("a multipart/form-data body has no boundary line"),
        }
    };
    loop {
        // Each part, and the end, starts with "--" and the boundary.
        if !rest(input, position).starts_with(&dash_boundary) {
            return fail("a multipart/form-data body does not start with its boundary");
        }
        position += dash_boundary.len();
        // The close delimiter: "--", transport padding, then the end or CRLF and an epilogue.
        if rest(input, position).starts_with(b"--") {
            position += 2;
            collect(input, &mut position, is_http_tab_or_space_byte);
            let after = rest(input, position);
            if after.is_empty() || after.starts_with(b"\r\n") {
                return Ok(entries);
            }
            return fail("a multipart/form-data close delimiter is followed by bytes");
        }
        // A delimiter: transport padding, then CRLF.
        collect(input, &mut position, is_http_tab_or_space_byte);
        if !rest(input, position).starts_with(b"\r\n") {
            return fail("a multipart/form-data delimiter is not followed by CRLF");
        }
        position += 2;
        let headers = parse_multipart_form_data_headers(input, &mut position)?;
        // Past the blank line.
        position += 2;
        // The body runs to the next CRLF "--" boundary.
        let Some(length) = find(rest(input, position), &delimiter) else {
            return fail("a multipart/form-data body has no close delimiter");
        };
        let body = &input[position..position + length];
        position += length + 2;
        let value = match headers.filename {
            Some(filename) => EntryValue::File(File {
                name: filename,
                type_: headers
                    .content_type
                    .unwrap_or_else(|| "text/plain".to_owned()),
                body: body.to_vec(),
            }),
            None => EntryValue::String(String::from_utf8_lossy(body).into_owned()),
        };
        entries.push(Entry {
            name: headers.name,
            value,
        });
    }
}

/// The steps [`formData()`](https://fetch.spec.whatwg.org/#dom-body-formdata) runs on the bytes
/// of a body, given the body's MIME type (`None` when "get the MIME type" gave failure): a
/// `multipart/form-data` body is parsed with its `boundary` parameter, an
/// `application/x-www-form-urlencoded` one with the urlencoded parser; anything else is the
/// `TypeError` case.
pub fn form_data_steps(
    bytes: &[u8],
    mime_type: Option<&MimeType>,
) -> Result<Vec<Entry>, FormDataError> {
    // 1. Let mimeType be the result of get the MIME type with this.
    let Some(mime_type) = mime_type else {
        return fail("the body has no form MIME type");
    };
    match mime_type.essence().as_str() {
        // 2. If mimeType's essence is "multipart/form-data", then: parse bytes using the
        //    `boundary` parameter; if that fails, throw a TypeError; return the entries.
        "multipart/form-data" => {
            let Some(boundary) = mime_type.parameter("boundary").and_then(isomorphic_encode) else {
                return fail("the multipart/form-data MIME type has no boundary");
            };
            parse_a_multipart_form_data_body(bytes, &boundary)
        }
        // 3. Otherwise, if mimeType's essence is "application/x-www-form-urlencoded": parse
        //    bytes and return the entries.
        "application/x-www-form-urlencoded" => Ok(application_x_www_form_urlencoded_parser(bytes)
            .into_iter()
            .map(|(name, value)| Entry {
                name,
                value: EntryValue::String(value),
            })
            .collect()),
        // 4. Throw a TypeError.
        _ => fail("the body's MIME type is not a form MIME type"),
    }
}

#[cfg(test)]
mod tests {
    use super::super::mime::parse_a_mime_type;
    use super::*;

    const B: &str = "BOUNDARY";

    fn encode(entries: &[Entry]) -> Vec<u8> {
        multipart_form_data_encoding_algorithm(entries, B).unwrap()
    }

    fn parse(body: &[u8]) -> Result<Vec<Entry>, FormDataError> {
        parse_a_multipart_form_data_body(body, B.as_bytes())
    }

    /// A part's `Content-Type` is a `File`'s type: ASCII-lowercased, or empty when it holds a
    /// byte outside 0x20-0x7E. (Found by the `multipart` fuzz target: a type with such bytes
    /// was kept isomorphic-decoded, and grew at every encode and parse.)
    #[test]
    fn a_parts_type_is_normalized_as_a_blob_type() {
        let part = |type_: &[u8]| {
            let mut body = b"--BOUNDARY\r\nContent-Disposition: form-data; name=\"f\"; \
                filename=\"x\"\r\nContent-Type: "
                .to_vec();
            body.extend_from_slice(type_);
            body.extend_from_slice(b"\r\n\r\nbytes\r\n--BOUNDARY--\r\n");
            match &parse(&body).expect("parses")[0].value {
                EntryValue::File(file) => file.type_.clone(),
                EntryValue::String(_) => panic!("a file entry"),
            }
        };
        assert_eq!(part(b"Text/Plain"), "text/plain");
        assert_eq!(part(b"text/p\xC2\x91lain"), "");
        let entries = [Entry::file("f", "x", "text/p\u{91}lain", b"b")];
        let once = parse(&encode(&entries)).expect("parses");
        assert_eq!(
            encode(&parse(&encode(&once)).expect("parses")),
            encode(&once)
        );
    }

    #[test]
    fn encoding_frames_parts_as_browsers_do() {
        let body = encode(&[
            Entry::string("name", "value"),
            Entry::file("f", "a.txt", "text/plain", b"hi\r\n"),
            Entry::file("g", "", "", b""),
        ]);
        assert_eq!(
            String::from_utf8(body).unwrap(),
            "--BOUNDARY\r\n\
             Content-Disposition: form-data; name=\"name\"\r\n\r\n\
             value\r\n\
             --BOUNDARY\r\n\
             Content-Disposition: form-data; name=\"f\"; filename=\"a.txt\"\r\n\
             Content-Type: text/plain\r\n\r\n\
             hi\r\n\r\n\
             --BOUNDARY\r\n\
             Content-Disposition: form-data; name=\"g\"; filename=\"\"\r\n\
             Content-Type: application/octet-stream\r\n\r\n\
             \r\n\
             --BOUNDARY--\r\n"
        );
        assert_eq!(encode(&[]), b"--BOUNDARY--\r\n");
    }

    #[test]
    fn encoding_normalizes_newlines_and_escapes_names() {
        let body = encode(&[
            Entry::string("a\nb\rc\r\nd\"", "1\n2\r3\r\n4\n\r"),
            Entry::file("x\r", "q\"\n.txt", "", b"\r\n\n\r"),
        ]);
        let text = String::from_utf8(body).unwrap();
        assert!(
            text.contains("name=\"a%0D%0Ab%0D%0Ac%0D%0Ad%22\"\r\n\r\n1\r\n2\r\n3\r\n4\r\n\r\n\r\n")
        );
        // A file's name field is normalized, its filename only escaped, its bytes untouched.
        assert!(text.contains("name=\"x%0D%0A\"; filename=\"q%22%0A.txt\""));
        assert!(text.contains("\r\n\r\n\r\n\n\r\r\n--BOUNDARY--"));
        let parsed = parse(text.as_bytes()).unwrap();
        assert_eq!(
            parsed,
            vec![
                Entry::string("a\r\nb\r\nc\r\nd\"", "1\r\n2\r\n3\r\n4\r\n\r\n"),
                Entry::file(
                    "x\r\n",
                    "q\"\n.txt",
                    "application/octet-stream",
                    b"\r\n\n\r"
                ),
            ]
        );
    }

    #[test]
    fn encoding_refuses_bad_or_colliding_boundaries() {
        let entries = [Entry::string("a", "b")];
        for boundary in ["", "a b ", "a\r\nb", "é", &"x".repeat(71)] {
            assert_eq!(
                multipart_form_data_encoding_algorithm(&entries, boundary),
                Err(EncodeError::InvalidBoundary),
                "{boundary:?}"
            );
        }
        assert!(multipart_form_data_encoding_algorithm(&entries, &"x".repeat(70)).is_ok());
        assert!(multipart_form_data_encoding_algorithm(&entries, "a b").is_ok());
        assert_eq!(
            multipart_form_data_encoding_algorithm(&[Entry::string("a", "x\n--BOUNDARY")], B),
            Err(EncodeError::BoundaryInContent)
        );
        assert_eq!(
            multipart_form_data_encoding_algorithm(
                &[Entry::file("a", "f", "", b"\r\n--BOUNDARY--")],
                B
            ),
            Err(EncodeError::BoundaryInContent)
        );
        // Without the CRLF in front the boundary is harmless.
        let harmless = [Entry::file("a", "f", "", b"--BOUNDARY\r\n")];
        let body = multipart_form_data_encoding_algorithm(&harmless, B).unwrap();
        assert_eq!(
            parse(&body).unwrap(),
            [Entry::file(
                "a",
                "f",
                "application/octet-stream",
                b"--BOUNDARY\r\n"
            )]
        );
    }

    #[test]
    fn generated_boundaries_are_valid_and_differ() {
        let a = generate_a_multipart_form_data_boundary();
        let b = generate_a_multipart_form_data_boundary();
        assert!(is_multipart_boundary(a.as_bytes()));
        assert_ne!(a, b);
        let entries = [
            Entry::string("k", "v"),
            Entry::file("f", "n", "image/png", &[0, 1, 2, 255]),
        ];
        let (body, content_type) = extract_a_form_data_body(&entries);
        let mime = parse_a_mime_type(std::str::from_utf8(&content_type).unwrap()).unwrap();
        assert_eq!(mime.essence(), "multipart/form-data");
        assert_eq!(form_data_steps(&body, Some(&mime)).unwrap(), entries);
    }

    #[test]
    fn parsing_what_the_encoder_produces_round_trips() {
        let entries = vec![
            Entry::string("", ""),
            Entry::string("ünï", "çødé\u{FEFF}"),
            Entry::string("dup", "1"),
            Entry::string("dup", "2"),
            Entry::file(
                "file",
                "f.bin",
                "application/x-thing",
                &[0, 13, 10, 45, 45, 255],
            ),
            Entry::file("empty", "", "", b""),
        ];
        let parsed = parse(&encode(&entries)).unwrap();
        let mut expected = entries.clone();
        if let EntryValue::File(f) = &mut expected[5].value {
            f.type_ = "application/octet-stream".into();
        }
        assert_eq!(parsed, expected);
        assert_eq!(parse(b"--BOUNDARY--\r\n").unwrap(), vec![]);
    }

    #[test]
    fn parsing_is_case_insensitive_where_a_lowercased_body_needs_it() {
        // WPT fetch/api/body/formdata.any.js lowercases an encoded body and its boundary.
        let entries = [Entry::file(
            "foo",
            "blob",
            "application/json",
            b"{\"bar\":\"baz\"}",
        )];
        let body = multipart_form_data_encoding_algorithm(&entries, "XYZ").unwrap();
        let lower = body.to_ascii_lowercase();
        let parsed = parse_a_multipart_form_data_body(&lower, b"xyz").unwrap();
        assert_eq!(parsed.len(), 1);
        assert_eq!(parsed[0].name, "foo");
        let EntryValue::File(file) = &parsed[0].value else {
            panic!("a file entry")
        };
        assert_eq!(file.type_, "application/json");
        assert_eq!(file.name, "blob");
    }

    #[test]
    fn parsing_accepts_rfc_framing_and_other_headers() {
        let body = b"--BOUNDARY \t\r\n\
            content-disposition:form-data;name=\"x\"; FILENAME=\"y\" \r\n\
            Content-Length: 1\r\n\
            last-modified: Wed, 04 Oct 2023 20:28:45 GMT\r\n\r\n\
            y\r\n\
            --BOUNDARY\r\n\
            Content-Disposition: form-data; name=\"t\"\r\n\
            Content-Type: text/plain; charset=windows-1252\r\n\r\n\
            \xE9\r\n\
            --BOUNDARY-- \r\nepilogue";
        let parsed = parse(body).unwrap();
        assert_eq!(
            parsed,
            vec![
                Entry::file("x", "y", "text/plain", b"y"),
                Entry::string("t", "\u{FFFD}"),
            ]
        );
        // No CRLF after the close delimiter.
        assert_eq!(
            parse(b"--BOUNDARY\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nb\r\n--BOUNDARY--")
                .unwrap(),
            vec![Entry::string("a", "b")]
        );
        // Lowercase escapes in names.
        assert_eq!(
            parse(b"--BOUNDARY\r\nContent-Disposition: form-data; name=\"%0d%0a%22%41\"\r\n\r\n\r\n--BOUNDARY--")
                .unwrap(),
            vec![Entry::string("\r\n\"%41", "")]
        );
        // A preamble (RFC 2046 §5.1.1), even one with the boundary inside a line, is ignored.
        assert_eq!(
            parse(b"pre --BOUNDARY\r\n\r\n--BOUNDARY\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n--BOUNDARY--")
                .unwrap(),
            vec![Entry::string("a", "1")]
        );
        assert_eq!(parse(b"preamble\r\n--BOUNDARY--\r\npost").unwrap(), vec![]);
    }

    #[test]
    fn parsing_fails_on_malformed_bodies() {
        let part = |headers: &str| {
            format!("--BOUNDARY\r\n{headers}\r\n\r\nvalue\r\n--BOUNDARY--\r\n").into_bytes()
        };
        let cases: Vec<Vec<u8>> = vec![
            b"".to_vec(),
            b"--BOUNDARY".to_vec(),
            b"preamble--BOUNDARY--\r\n".to_vec(),
            b"preamble\r\n-BOUNDARY--\r\n".to_vec(),
            b"--BOUNDARY--x".to_vec(),
            b"--BOUNDARYX\r\n".to_vec(),
            b"--BOUNDARY\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nno end".to_vec(),
            b"--BOUNDARY\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nvalue\r\n--BOUNDARYx"
                .to_vec(),
            b"--BOUNDARY\r\nContent-Disposition: form-data; name=\"a\"".to_vec(),
            b"--BOUNDARY\r\nContent-Disposition: form-data; name=\"a\"\r\n".to_vec(),
            part(""),
            part("Content-Type: text/plain"),
            part("Content-Disposition: attachment; name=\"a\""),
            part("Content-Disposition: form-data"),
            part("Content-Disposition: form-data; name=a"),
            part("Content-Disposition: form-data; name=\"a"),
            part("Content-Disposition: form-data; name=\"a\nb\""),
            part("Content-Disposition: form-data; name=\"a\"; filename*=UTF-8''x"),
            part("Content-Disposition: form-data; name=\"a\" junk"),
            part("Content-Disposition: form-data; name=\"a\"\r\nBad Header: x"),
            part("Content-Disposition: form-data; name=\"a\"\r\nNoColon"),
            part("Content-Disposition: form-data; name=\"a\"\nX: y"),
        ];
        for body in cases {
            assert!(
                parse(&body).is_err(),
                "{:?}",
                String::from_utf8_lossy(&body)
            );
        }
        assert!(parse(&part("Content-Disposition: form-data; name=\"a\"")).is_ok());
        // A bad boundary parameter.
        assert!(parse_a_multipart_form_data_body(b"----\r\n", b"").is_err());
        assert!(parse_a_multipart_form_data_body(b"--a \r\n", b"a ").is_err());
    }

    #[test]
    fn form_data_steps_dispatch_on_the_essence() {
        let mime = |s: &str| parse_a_mime_type(s).unwrap();
        let urlencoded = mime("application/x-www-form-urlencoded;charset=UTF-8");
        assert_eq!(
            form_data_steps(b"a=b&c=%C3%A9+", Some(&urlencoded)).unwrap(),
            vec![Entry::string("a", "b"), Entry::string("c", "é ")]
        );
        assert_eq!(form_data_steps(b"", Some(&urlencoded)).unwrap(), vec![]);
        // WPT response-consume-empty: an empty multipart body is a TypeError.
        let multipart = mime("multipart/form-data; boundary=\"boundary\"");
        assert!(form_data_steps(b"", Some(&multipart)).is_err());
        assert_eq!(
            form_data_steps(b"--boundary--\r\n", Some(&multipart)).unwrap(),
            vec![]
        );
        assert!(form_data_steps(b"--x--", Some(&mime("multipart/form-data"))).is_err());
        assert!(form_data_steps(b"a=b", Some(&mime("text/plain"))).is_err());
        assert!(form_data_steps(b"a=b", None).is_err());
    }

    #[test]
    fn find_locates_the_first_occurrence() {
        assert_eq!(find(b"abcabc", b"ca"), Some(2));
        assert_eq!(find(b"aab", b"ab"), Some(1));
        assert_eq!(find(b"ab", b"abc"), None);
        assert_eq!(find(b"", b"a"), None);
        assert_eq!(find(b"abc", b""), None);
    }
}
