//! The MIME Sniffing Standard's [MIME type](https://mimesniff.spec.whatwg.org/#mime-type-representation)
//! record, its parser and serializer, and the Fetch Standard's "extract a MIME type" from a
//! header list.

use std::fmt;

use super::headers::HeaderList;
use super::http::{
    collect_a_sequence_of_code_points, collect_an_http_quoted_string,
    is_http_quoted_string_token_code_point, is_http_token_code_point, is_http_whitespace,
};
use super::infra::{isomorphic_decode, isomorphic_encode};

/// A [MIME type](https://mimesniff.spec.whatwg.org/#mime-type): a type, a subtype (both ASCII
/// lowercase when parsed) and an ordered map of parameters (names lowercase when parsed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MimeType {
    pub type_: String,
    pub subtype: String,
    pub parameters: Vec<(String, String)>,
}

impl MimeType {
    /// A MIME type with no parameters.
    pub fn new(type_: &str, subtype: &str) -> Self {
        Self {
            type_: type_.to_owned(),
            subtype: subtype.to_owned(),
            parameters: Vec::new(),
        }
    }

    /// The [essence](https://mimesniff.spec.whatwg.org/#mime-type-essence): type, "/", subtype.
    pub fn essence(&self) -> String {
        format!("{}/{}", self.type_, self.subtype)
    }

    /// parameters[`name`], if it exists.
    pub fn parameter(&self, name: &str) -> Option<&str> {
        self.parameters
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Sets parameters[`name`] to `value`: in place if it exists, at the end otherwise.
    pub fn set_parameter(&mut self, name: &str, value: &str) {
        match self.parameters.iter_mut().find(|(n, _)| n == name) {
            Some((_, v)) => *v = value.to_owned(),
            None => self.parameters.push((name.to_owned(), value.to_owned())),
        }
    }
}

impl fmt::Display for MimeType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&serialize_a_mime_type(self))
    }
}

fn solely(s: &str, condition: impl Fn(char) -> bool) -> bool {
    s.chars().all(condition)
}

/// [Parse a MIME type](https://mimesniff.spec.whatwg.org/#parse-a-mime-type), `None` for
/// failure.
pub fn parse_a_mime_type(input: &str) -> Option<MimeType> {
    // 1. Remove any leading and trailing HTTP whitespace from input.
    let input: Vec<char> = input.trim_matches(is_http_whitespace).chars().collect();
    // 2. Let position be a position variable for input.
    let mut position = 0;
    // 3. Let type be the code points that are not U+002F (/).
    let type_ = collect_a_sequence_of_code_points(|c| c != '/', &input, &mut position);
    // 4. If type is empty or does not solely contain HTTP token code points, return failure.
    if type_.is_empty() || !solely(&type_, is_http_token_code_point) {
        return None;
    }
    // 5. If position is past the end of input, then return failure.
    if position >= input.len() {
        return None;
    }
    // 6. Advance position by 1. (This skips past U+002F (/).)
    position += 1;
    // 7. Let subtype be the code points that are not U+003B (;).
    let subtype = collect_a_sequence_of_code_points(|c| c != ';', &input, &mut position);
    // 8. Remove any trailing HTTP whitespace from subtype.
    let subtype = subtype.trim_end_matches(is_http_whitespace);
    // 9. If subtype is empty or does not solely contain HTTP token code points, return failure.
    if subtype.is_empty() || !solely(subtype, is_http_token_code_point) {
        return None;
    }
    // 10. Let mimeType be a new MIME type record: type and subtype in ASCII lowercase.
    let mut mime_type = MimeType::new(&type_.to_ascii_lowercase(), &subtype.to_ascii_lowercase());
    // 11. While position is not past the end of input:
    while position < input.len() {
        // 1. Advance position by 1. (This skips past U+003B (;).)
        position += 1;
        // 2. Collect a sequence of code points that are HTTP whitespace.
        collect_a_sequence_of_code_points(is_http_whitespace, &input, &mut position);
        // 3. Let parameterName be the code points that are not U+003B (;) or U+003D (=).
        // 4. Set parameterName to parameterName, in ASCII lowercase.
        let parameter_name =
            collect_a_sequence_of_code_points(|c| c != ';' && c != '=', &input, &mut position)
                .to_ascii_lowercase();
        // 5. If position is not past the end of input: if the code point at position is
        //    U+003B (;), continue; advance position by 1 (past U+003D (=)).
        if let Some(&c) = input.get(position) {
            if c == ';' {
                continue;
            }
            position += 1;
        }
        // 6. If position is past the end of input, then break.
        let Some(&c) = input.get(position) else {
            break;
        };
        // 7. Let parameterValue be null.
        let parameter_value;
        if c == '"' {
            // 8. If the code point at position is U+0022 ("): the HTTP quoted string (value
            //    extracted), then skip the code points that are not U+003B (;).
            parameter_value = collect_an_http_quoted_string(&input, &mut position, true);
            collect_a_sequence_of_code_points(|c| c != ';', &input, &mut position);
        } else {
            // 9. Otherwise: the code points that are not U+003B (;), trailing HTTP whitespace
            //    removed; if that is the empty string, continue.
            let value = collect_a_sequence_of_code_points(|c| c != ';', &input, &mut position);
            let value = value.trim_end_matches(is_http_whitespace);
            if value.is_empty() {
                continue;
            }
            parameter_value = value.to_owned();
        }
        // 10. If parameterName is non-empty, solely HTTP token code points, parameterValue is
        //     solely HTTP quoted-string token code points, and parameters[parameterName] does
        //     not exist, then set parameters[parameterName] to parameterValue.
        if !parameter_name.is_empty()
            && solely(&parameter_name, is_http_token_code_point)
            && solely(&parameter_value, is_http_quoted_string_token_code_point)
            && mime_type.parameter(&parameter_name).is_none()
        {
            mime_type.parameters.push((parameter_name, parameter_value));
        }
    }
    // 12. Return mimeType.
    Some(mime_type)
}

/// [Parse a MIME type from bytes](https://mimesniff.spec.whatwg.org/#parse-a-mime-type-from-bytes):
/// parse the isomorphic decoding of `input`.
pub fn parse_a_mime_type_from_bytes(input: &[u8]) -> Option<MimeType> {
    // 1. Let string be input, isomorphic decoded.
    // 2. Return the result of parse a MIME type with string.
    parse_a_mime_type(&isomorphic_decode(input))
}

/// [Serialize a MIME type](https://mimesniff.spec.whatwg.org/#serialize-a-mime-type).
pub fn serialize_a_mime_type(mime_type: &MimeType) -> String {
    // 1. Let serialization be the concatenation of type, U+002F (/), and subtype.
    let mut serialization = mime_type.essence();
    // 2. For each name → value of parameters:
    for (name, value) in &mime_type.parameters {
        // 1. Append U+003B (;). 2. Append name. 3. Append U+003D (=).
        serialization.push(';');
        serialization.push_str(name);
        serialization.push('=');
        // 4. If value does not solely contain HTTP token code points or value is the empty
        //    string, then: precede each U+0022 (") or U+005C (\) with U+005C (\), and wrap
        //    value in U+0022 (").
        if value.is_empty() || !solely(value, is_http_token_code_point) {
            serialization.push('"');
            for c in value.chars() {
                if c == '"' || c == '\\' {
                    serialization.push('\\');
                }
                serialization.push(c);
            }
            serialization.push('"');
        } else {
            // 5. Append value to serialization.
            serialization.push_str(value);
        }
    }
    // 3. Return serialization.
    serialization
}

/// [Serialize a MIME type to bytes](https://mimesniff.spec.whatwg.org/#serialize-a-mime-type-to-bytes):
/// the isomorphic encoding of its serialization; `None` if a code point is above U+00FF (which
/// a parsed MIME type never holds).
pub fn serialize_a_mime_type_to_bytes(mime_type: &MimeType) -> Option<Vec<u8>> {
    isomorphic_encode(&serialize_a_mime_type(mime_type))
}

/// [Extract a MIME type](https://fetch.spec.whatwg.org/#concept-header-extract-mime-type) from a
/// header list's `Content-Type` values, `None` for failure.
pub fn extract_a_mime_type(headers: &HeaderList) -> Option<MimeType> {
    // 1. Let charset be null.
    let mut charset: Option<String> = None;
    // 2. Let essence be null.
    let mut essence: Option<String> = None;
    // 3. Let mimeType be null.
    let mut mime_type: Option<MimeType> = None;
    // 4. Let values be the result of getting, decoding, and splitting `Content-Type`.
    // 5. If values is null, then return failure.
    let values = headers.get_decode_and_split(b"Content-Type")?;
    // 6. For each value of values:
    for value in values {
        // 1. Let temporaryMimeType be the result of parsing value.
        // 2. If temporaryMimeType is failure or its essence is "*/*", then continue.
        let Some(mut temporary) = parse_a_mime_type(&value) else {
            continue;
        };
        let temporary_essence = temporary.essence();
        if temporary_essence == "*/*" {
            continue;
        }
        // 3. Set mimeType to temporaryMimeType.
        // 4. If mimeType's essence is not essence, then: set charset to null; if
        //    parameters["charset"] exists, set charset to it; set essence to mimeType's
        //    essence.
        if essence.as_deref() != Some(temporary_essence.as_str()) {
            charset = temporary.parameter("charset").map(str::to_owned);
            essence = Some(temporary_essence);
        } else if let (None, Some(charset)) = (temporary.parameter("charset"), &charset) {
            // 5. Otherwise, if mimeType's parameters["charset"] does not exist, and charset
            //    is non-null, set mimeType's parameters["charset"] to charset.
            temporary.set_parameter("charset", charset);
        }
        mime_type = Some(temporary);
    }
    // 7. If mimeType is null, then return failure.
    // 8. Return mimeType.
    mime_type
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parses and serializes, `None` for failure.
    fn round(input: &str) -> Option<String> {
        parse_a_mime_type(input).map(|m| serialize_a_mime_type(&m))
    }

    #[test]
    fn parse_lowercases_and_trims() {
        let m = parse_a_mime_type(" \tText/HTML ; Charset=UTF-8 ;x=\"y\"\r\n").unwrap();
        assert_eq!(m.type_, "text");
        assert_eq!(m.subtype, "html");
        assert_eq!(m.essence(), "text/html");
        assert_eq!(
            m.parameters,
            vec![("charset".into(), "UTF-8".into()), ("x".into(), "y".into())]
        );
        assert_eq!(m.to_string(), "text/html;charset=UTF-8;x=y");
    }

    #[test]
    fn parse_failures() {
        for input in [
            "",
            "text",
            "text/",
            "/html",
            "te xt/html",
            "text/ht ml",
            "text/html/",
            "text/(html)",
            "tëxt/html",
            " / ",
            "\u{0B}text/html",
        ] {
            assert_eq!(parse_a_mime_type(input), None, "{input:?}");
        }
        // `text/html/` fails: `/` is not a token code point in the subtype.
        assert_eq!(round("text/html ;"), Some("text/html".into()));
    }

    #[test]
    fn parameters_follow_the_parser() {
        // Cases of the kind WPT's mimesniff/mime-types/resources/mime-types.json holds.
        let cases: &[(&str, Option<&str>)] = &[
            ("text/html;charset=gbk", Some("text/html;charset=gbk")),
            ("TEXT/HTML;CHARSET=GBK", Some("text/html;charset=GBK")),
            (
                "text/html;charset=gbk;charset=windows-1255",
                Some("text/html;charset=gbk"),
            ),
            ("text/html;charset=\"gbk\"", Some("text/html;charset=gbk")),
            ("text/html;charset=\"gbk", Some("text/html;charset=gbk")),
            (
                "text/html;charset=\"\\\"gbk\\\"\"",
                Some("text/html;charset=\"\\\"gbk\\\"\""),
            ),
            ("text/html;charset=\"gbk\"x", Some("text/html;charset=gbk")),
            (
                "text/html;charset=;charset=gbk",
                Some("text/html;charset=gbk"),
            ),
            ("text/html;charset= gbk", Some("text/html;charset=\" gbk\"")),
            ("text/html;charset=gbk ", Some("text/html;charset=gbk")),
            ("text/html;charset =gbk", Some("text/html")),
            ("text/html ;charset=gbk", Some("text/html;charset=gbk")),
            ("text/html; charset=gbk", Some("text/html;charset=gbk")),
            ("text/html;;;;charset=gbk", Some("text/html;charset=gbk")),
            ("text/html;charset", Some("text/html")),
            ("text/html;charset=", Some("text/html")),
            ("text/html;charset=\"\"", Some("text/html;charset=\"\"")),
            ("text/html;=gbk", Some("text/html")),
            ("text/html;test;charset=gbk", Some("text/html;charset=gbk")),
            ("text/html;charset=g\u{7F}bk", Some("text/html")),
            (
                "text/html;charset=\u{E9}",
                Some("text/html;charset=\"\u{E9}\""),
            ),
            ("text/html;charset=\u{100}", Some("text/html")),
            ("text/html;x=\"\\", Some("text/html;x=\"\\\\\"")),
            ("text/html;a]=bar;b[=bar;c=bar", Some("text/html;c=bar")),
            ("x/x;test=\"\\", Some("x/x;test=\"\\\\\"")),
            ("x/x;x= ", Some("x/x")),
            ("x/x\n;test", Some("x/x")),
            ("*/*", Some("*/*")),
        ];
        for (input, expected) in cases {
            assert_eq!(round(input).as_deref(), *expected, "{input:?}");
        }
    }

    #[test]
    fn bytes_are_isomorphic() {
        let m = parse_a_mime_type_from_bytes(b"text/plain;charset=\xE9").unwrap();
        assert_eq!(m.parameter("charset"), Some("\u{E9}"));
        assert_eq!(
            serialize_a_mime_type_to_bytes(&m),
            Some(b"text/plain;charset=\"\xE9\"".to_vec())
        );
        let mut wide = MimeType::new("a", "b");
        wide.set_parameter("x", "\u{100}");
        assert_eq!(serialize_a_mime_type_to_bytes(&wide), None);
    }

    fn extract(values: &[&str]) -> Option<String> {
        let headers = HeaderList::from(
            values
                .iter()
                .map(|v| (b"Content-Type".to_vec(), v.as_bytes().to_vec()))
                .collect::<Vec<_>>(),
        );
        extract_a_mime_type(&headers).map(|m| m.to_string())
    }

    #[test]
    fn extract_a_mime_type_follows_the_spec_examples() {
        // The table under "extract a MIME type" in the Fetch Standard.
        assert_eq!(extract(&[]), None);
        assert_eq!(
            extract(&["text/plain;charset=gbk, text/html"]).as_deref(),
            Some("text/html")
        );
        assert_eq!(
            extract(&["text/plain;charset=gbk", "text/html"]).as_deref(),
            Some("text/html")
        );
        assert_eq!(
            extract(&["text/html;charset=gbk;a=b, text/html;x=y"]).as_deref(),
            Some("text/html;x=y;charset=gbk")
        );
        assert_eq!(
            extract(&["text/html;charset=gbk;a=b", "text/html;x=y"]).as_deref(),
            Some("text/html;x=y;charset=gbk")
        );
        assert_eq!(
            extract(&["text/html;charset=gbk", "x/x", "text/html;x=y"]).as_deref(),
            Some("text/html;x=y")
        );
        assert_eq!(
            extract(&["text/html", "cannot-parse"]).as_deref(),
            Some("text/html")
        );
        assert_eq!(extract(&["text/html", "*/*"]).as_deref(), Some("text/html"));
        assert_eq!(extract(&["text/html", ""]).as_deref(), Some("text/html"));
        assert_eq!(extract(&["cannot-parse", "*/*"]), None);
        // A later charset on the same essence wins over the remembered one.
        assert_eq!(
            extract(&["text/html;charset=gbk", "text/html;charset=utf-8"]).as_deref(),
            Some("text/html;charset=utf-8")
        );
        // A quoted comma does not split.
        assert_eq!(
            extract(&["text/html;x=\"a,b\""]).as_deref(),
            Some("text/html;x=\"a,b\"")
        );
    }
}
