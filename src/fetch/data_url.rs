//! The Fetch Standard's [`data:` URL processor](https://fetch.spec.whatwg.org/#data-url-processor).

use super::infra::forgiving_base64_decode;
use super::mime::{parse_a_mime_type, MimeType};
use crate::url::urlencoded::percent_decode_string;

/// A [`data:` URL struct](https://fetch.spec.whatwg.org/#data-url-struct): a MIME type and a
/// body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataUrl {
    pub mime_type: MimeType,
    pub body: Vec<u8>,
}

/// The [`data:` URL processor](https://fetch.spec.whatwg.org/#data-url-processor), `None` for
/// failure.
///
/// `url` is the URL serializer's output for an already-parsed URL whose scheme is "data" (so it
/// starts with `data:`, matched ASCII case-insensitively here, and holds no tab or newline: the
/// URL parser removed them). The fragment may be included or not: in a serialized URL the first
/// U+0023 (#) can only start the fragment, so everything from it on is dropped, which is step 2's
/// "exclude fragment". A `url` not starting with `data:` (step 1's assertion) is failure.
pub fn data_url_processor(url: &str) -> Option<DataUrl> {
    // 1. Assert: dataURL's scheme is "data".
    // 2. Let input be the result of running the URL serializer on dataURL with exclude
    //    fragment set to true.
    let input = url.split('#').next().unwrap_or_default();
    // 3. Remove the leading "data:" from input.
    let input = input
        .get(..5)
        .filter(|scheme| scheme.eq_ignore_ascii_case("data:"))
        .and_then(|_| input.get(5..))?;
    // 4. Let position point at the start of input.
    // 5. Let mimeType be the code points that are not U+002C (,).
    // 7. If position is past the end of input, then return failure.
    let (mime_type, encoded_body) = input.split_once(',')?;
    // 6. Strip leading and trailing ASCII whitespace from mimeType.
    let mut mime_type = mime_type
        .trim_matches(|c: char| c.is_ascii_whitespace())
        .to_owned();
    // 8. Advance position by 1.
    // 9. Let encodedBody be the remainder of input.
    // 10. Let body be the percent-decoding of encodedBody.
    let mut body = percent_decode_string(encoded_body);
    // 11. If mimeType ends with U+003B (;), followed by zero or more U+0020 SPACE, followed by
    //     an ASCII case-insensitive match for "base64", then:
    if let Some(before_base64) = strip_base64_suffix(&mime_type) {
        // 1. Let stringBody be the isomorphic decode of body.
        // 2. Set body to the forgiving-base64 decode of stringBody.
        // 3. If body is failure, then return failure.
        body = forgiving_base64_decode(&body)?;
        // 4. Remove the last 6 code points from mimeType.
        // 5. Remove trailing U+0020 SPACE code points from mimeType, if any.
        // 6. Remove the last U+003B (;) from mimeType.
        mime_type.truncate(before_base64);
    }
    // 12. If mimeType starts with ";", then prepend "text/plain" to mimeType.
    if mime_type.starts_with(';') {
        mime_type.insert_str(0, "text/plain");
    }
    // 13. Let mimeTypeRecord be the result of parsing mimeType.
    // 14. If mimeTypeRecord is failure, then set it to text/plain;charset=US-ASCII.
    let mime_type = parse_a_mime_type(&mime_type).unwrap_or_else(|| {
        let mut fallback = MimeType::new("text", "plain");
        fallback.set_parameter("charset", "US-ASCII");
        fallback
    });
    // 15. Return a new data: URL struct whose MIME type is mimeTypeRecord and body is body.
    Some(DataUrl { mime_type, body })
}

/// If `mime_type` ends with ";", zero or more spaces, and "base64" (ASCII case-insensitive), the
/// length of what comes before that ";".
fn strip_base64_suffix(mime_type: &str) -> Option<usize> {
    let bytes = mime_type.as_bytes();
    let rest = bytes.len().checked_sub(6)?;
    if !bytes[rest..].eq_ignore_ascii_case(b"base64") {
        return None;
    }
    let before_spaces = bytes[..rest].iter().rposition(|&b| b != b' ')?;
    (bytes[before_spaces] == b';').then_some(before_spaces)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The processor's result as (serialized MIME type, body), `None` for failure.
    fn process(url: &str) -> Option<(String, Vec<u8>)> {
        data_url_processor(url).map(|d| (d.mime_type.to_string(), d.body))
    }

    fn ok(mime: &str, body: &[u8]) -> Option<(String, Vec<u8>)> {
        Some((mime.to_owned(), body.to_vec()))
    }

    const ASCII: &str = "text/plain;charset=US-ASCII";

    #[test]
    fn plain_data_urls() {
        // WPT fetch/api/basic/scheme-data.any.js.
        assert_eq!(
            process("data:,response%27s%20body"),
            ok(ASCII, b"response's body")
        );
        assert_eq!(
            process("data:text/plain;base64,cmVzcG9uc2UncyBib2R5"),
            ok("text/plain", b"response's body")
        );
        assert_eq!(
            process("data:image/png;base64,cmVzcG9uc2UncyBib2R5"),
            ok("image/png", b"response's body")
        );
        assert_eq!(process("data:notAdataUrl.com"), None);
        // Cases of the kind WPT's fetch/data-urls/resources/data-urls.json holds.
        assert_eq!(process("data://test/,X"), ok(ASCII, b"X"));
        assert_eq!(process("data:,"), ok(ASCII, b""));
        assert_eq!(process("data:"), None);
        assert_eq!(process("data:text/html"), None);
        assert_eq!(
            process("data:text/html    ;charset=x   ,"),
            ok("text/html;charset=x", b"")
        );
        assert_eq!(process("data:,X#X"), ok(ASCII, b"X"));
        assert_eq!(process("data:,%FF"), ok(ASCII, &[0xFF]));
        assert_eq!(process("data:,%"), ok(ASCII, b"%"));
        assert_eq!(process("data:,%2"), ok(ASCII, b"%2"));
        assert_eq!(process("data:,%C3%A9"), ok(ASCII, "é".as_bytes()));
        assert_eq!(process("data:,é"), ok(ASCII, "é".as_bytes()));
        assert_eq!(process("data:,X,X"), ok(ASCII, b"X,X"));
        assert_eq!(process("data:text/plain,X"), ok("text/plain", b"X"));
        assert_eq!(process("data:text/plain ,X"), ok("text/plain", b"X"));
        assert_eq!(process("data:text/plain%20,X"), ok("text/plain%20", b"X"));
        assert_eq!(process("data:text/plain\u{C},X"), ok("text/plain", b"X"));
        assert_eq!(
            process("data:;x=x;charset=x,X"),
            ok("text/plain;x=x;charset=x", b"X")
        );
        assert_eq!(process("data:;x=x,X"), ok("text/plain;x=x", b"X"));
        assert_eq!(
            process("data:text/html;charset=gbk,X"),
            ok("text/html;charset=gbk", b"X")
        );
        assert_eq!(process("data:IMAGE/gif,X"), ok("image/gif", b"X"));
        assert_eq!(
            process("data:IMAGE/gif;CHARSET=x,%C2%B1"),
            ok("image/gif;charset=x", &[0xC2, 0xB1])
        );
        assert_eq!(
            process("data:x/x;base64;charset=x,WA"),
            ok("x/x;charset=x", b"WA")
        );
        assert_eq!(process("data:/,X"), ok(ASCII, b"X"));
        assert_eq!(process("data:x,X"), ok(ASCII, b"X"));
        assert_eq!(process("DATA:,X"), ok(ASCII, b"X"));
        assert_eq!(process("http:,X"), None);
        assert_eq!(process(""), None);
    }

    #[test]
    fn base64_data_urls() {
        // Cases of the kind WPT's fetch/data-urls/resources/base64.json and data-urls.json hold.
        assert_eq!(process("data:;base64,WA"), ok(ASCII, b"X"));
        assert_eq!(process("data:;base64,WA=="), ok(ASCII, b"X"));
        assert_eq!(process("data:;base64,W%41"), ok(ASCII, b"X"));
        assert_eq!(process("data:;base64,W%0CA"), ok(ASCII, b"X"));
        assert_eq!(process("data:;base64,W A"), ok(ASCII, b"X"));
        assert_eq!(process("data:;base64,W"), None);
        assert_eq!(process("data:;base64,WA="), None);
        assert_eq!(process("data:;base64,W%3DA"), None);
        assert_eq!(process("data:;base64,%FF"), None);
        assert_eq!(process("data:;base64,é"), None);
        assert_eq!(process("data:;base64,"), ok(ASCII, b""));
        // Step 6 strips the space before step 11 looks for ";base64".
        assert_eq!(process("data:;base64 ,WA"), ok(ASCII, b"X"));
        assert_eq!(process("data:; base64,WA"), ok(ASCII, b"X"));
        assert_eq!(process("data:;  base64,WA"), ok(ASCII, b"X"));
        assert_eq!(process("data:;BASE64,WA"), ok(ASCII, b"X"));
        assert_eq!(process("data:;base64x,WA"), ok("text/plain", b"WA"));
        assert_eq!(process("data:base64,WA"), ok(ASCII, b"WA"));
        assert_eq!(process("data:;base 64,WA"), ok("text/plain", b"WA"));
        assert_eq!(
            process("data:;charset=x;base64,WA"),
            ok("text/plain;charset=x", b"X")
        );
        assert_eq!(
            process("data:;charset=x;   base64,WA"),
            ok("text/plain;charset=x", b"X")
        );
        assert_eq!(
            process("data:text/plain;base64;base64,WA"),
            ok("text/plain", b"X")
        );
        assert_eq!(process("data:text/plain;ba64,WA"), ok("text/plain", b"WA"));
        assert_eq!(process("data:;base64;,WA"), ok("text/plain", b"WA"));
        assert_eq!(process("data:x/x;base64;base64x,WA"), ok("x/x", b"WA"));
        assert_eq!(
            process("data:;charset=\"x\";base64,WA"),
            ok("text/plain;charset=x", b"X")
        );
        assert_eq!(process("data:x;base64,WA"), ok(ASCII, b"X"));
    }

    #[test]
    fn the_base64_suffix() {
        assert_eq!(strip_base64_suffix(";base64"), Some(0));
        assert_eq!(strip_base64_suffix("a/b;  BaSe64"), Some(3));
        assert_eq!(strip_base64_suffix("base64"), None);
        assert_eq!(strip_base64_suffix("a;x base64"), None);
        assert_eq!(strip_base64_suffix("é;base64"), Some(2));
        assert_eq!(strip_base64_suffix("ébase64"), None);
        assert_eq!(strip_base64_suffix(""), None);
    }
}
