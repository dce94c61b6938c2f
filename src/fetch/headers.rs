//! The Fetch Standard's [headers](https://fetch.spec.whatwg.org/#terminology-headers): header
//! names and values as bytes, the header list and its operations, and the header predicates the
//! `Headers` guards and CORS use (forbidden, CORS-safelisted, no-CORS-safelisted, privileged
//! no-CORS).

use super::http::{
    collect_a_sequence_of_code_points, collect_an_http_quoted_string, is_http_tab_or_space,
    is_http_tab_or_space_byte, is_http_whitespace_byte, is_token, trim_bytes,
};
use super::infra::{isomorphic_decode, isomorphic_encode};
use super::method::is_forbidden_method;
use super::mime::parse_a_mime_type;

/// A header: a name and a value, both byte sequences.
pub type Header = (Vec<u8>, Vec<u8>);

/// Whether `name` is a [header name](https://fetch.spec.whatwg.org/#header-name): it matches the
/// `field-name` token production.
pub fn is_header_name(name: &[u8]) -> bool {
    is_token(name)
}

/// Whether `value` is a [header value](https://fetch.spec.whatwg.org/#header-value): no leading
/// or trailing HTTP tab or space bytes, and no 0x00 (NUL) or HTTP newline bytes.
pub fn is_header_value(value: &[u8]) -> bool {
    let edge_ok = |b: Option<&u8>| b.is_none_or(|&b| !is_http_tab_or_space_byte(b));
    edge_ok(value.first())
        && edge_ok(value.last())
        && !value.iter().any(|&b| matches!(b, 0 | b'\n' | b'\r'))
}

/// [Normalize](https://fetch.spec.whatwg.org/#concept-header-value-normalize) a potential value:
/// remove any leading and trailing HTTP whitespace bytes.
pub fn normalize(potential_value: &[u8]) -> &[u8] {
    trim_bytes(potential_value, is_http_whitespace_byte)
}

/// A [header list](https://fetch.spec.whatwg.org/#concept-header-list): an ordered list of
/// headers, names compared byte-case-insensitively.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HeaderList {
    headers: Vec<Header>,
}

impl From<Vec<Header>> for HeaderList {
    fn from(headers: Vec<Header>) -> Self {
        Self { headers }
    }
}

impl HeaderList {
    /// An empty header list.
    pub fn new() -> Self {
        Self::default()
    }

    /// The headers, in order.
    pub fn headers(&self) -> &[Header] {
        &self.headers
    }

    /// The headers whose name is a byte-case-insensitive match for `name`, in order.
    fn matching<'a>(&'a self, name: &'a [u8]) -> impl Iterator<Item = &'a Header> + 'a {
        self.headers
            .iter()
            .filter(move |(n, _)| n.eq_ignore_ascii_case(name))
    }

    /// A header list [contains](https://fetch.spec.whatwg.org/#header-list-contains) `name` if
    /// one of its headers' names is a byte-case-insensitive match for it.
    pub fn contains(&self, name: &[u8]) -> bool {
        self.matching(name).next().is_some()
    }

    /// [Get](https://fetch.spec.whatwg.org/#concept-header-list-get) `name`: null if absent,
    /// otherwise the values of the matching headers, separated by 0x2C 0x20, in order.
    pub fn get(&self, name: &[u8]) -> Option<Vec<u8>> {
        // 1. If list does not contain name, then return null.
        if !self.contains(name) {
            return None;
        }
        // 2. Return the values of all headers in list whose name is a byte-case-insensitive
        //    match for name, separated from each other by 0x2C 0x20, in order.
        let values: Vec<&[u8]> = self.matching(name).map(|(_, v)| v.as_slice()).collect();
        Some(values.join(&b", "[..]))
    }

    /// [Get, decode, and split](https://fetch.spec.whatwg.org/#concept-header-list-get-decode-split)
    /// `name`.
    pub fn get_decode_and_split(&self, name: &[u8]) -> Option<Vec<String>> {
        // 1. Let value be the result of getting name from list.
        // 2. If value is null, then return null.
        let value = self.get(name)?;
        // 3. Return the result of getting, decoding, and splitting value.
        Some(get_decode_and_split_value(&value))
    }

    /// [Append](https://fetch.spec.whatwg.org/#concept-header-list-append) a header.
    pub fn append(&mut self, (name, value): Header) {
        // 1. If list contains name, then set name to the first such header's name.
        let first = self.matching(&name).next().map(|(first, _)| first.clone());
        let name = first.unwrap_or(name);
        // 2. Append (name, value) to list.
        self.headers.push((name, value));
    }

    /// [Delete](https://fetch.spec.whatwg.org/#concept-header-list-delete) `name`: remove all
    /// headers whose name is a byte-case-insensitive match for it.
    pub fn delete(&mut self, name: &[u8]) {
        self.headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
    }

    /// [Set](https://fetch.spec.whatwg.org/#concept-header-list-set) a header.
    pub fn set(&mut self, (name, value): Header) {
        // 1. If list contains name, then set the value of the first such header to value and
        //    remove the others.
        if let Some(first) = self
            .headers
            .iter()
            .position(|(n, _)| n.eq_ignore_ascii_case(&name))
        {
            self.headers[first].1 = value;
            let mut index = 0;
            self.headers.retain(|(n, _)| {
                let keep = index <= first || !n.eq_ignore_ascii_case(&name);
                index += 1;
                keep
            });
        } else {
            // 2. Otherwise, append (name, value) to list.
            self.headers.push((name, value));
        }
    }

    /// [Combine](https://fetch.spec.whatwg.org/#concept-header-list-combine) a header.
    pub fn combine(&mut self, (name, value): Header) {
        // 1. If list contains name, then set the value of the first such header to its value,
        //    followed by 0x2C 0x20, followed by value.
        if let Some((_, first)) = self
            .headers
            .iter_mut()
            .find(|(n, _)| n.eq_ignore_ascii_case(&name))
        {
            first.extend_from_slice(b", ");
            first.extend_from_slice(&value);
        } else {
            // 2. Otherwise, append (name, value) to list.
            self.headers.push((name, value));
        }
    }

    /// [Sort and combine](https://fetch.spec.whatwg.org/#concept-header-list-sort-and-combine):
    /// lowercased names in byte order, values combined, `set-cookie` headers kept apart.
    pub fn sort_and_combine(&self) -> Vec<Header> {
        // 1. Let headers be an empty list of headers.
        let mut headers = Vec::new();
        // 2. Let names be the result of convert header names to a sorted-lowercase set with
        //    all the names of the headers in list.
        let names =
            convert_header_names_to_a_sorted_lowercase_set(self.headers.iter().map(|(n, _)| n));
        // 3. For each name of names:
        for name in names {
            if name == b"set-cookie" {
                // 1. If name is `set-cookie`, then: for each value of the values of headers
                //    whose name matches name, in order, append (name, value) to headers.
                for (_, value) in self.matching(&name) {
                    headers.push((name.clone(), value.clone()));
                }
            } else if let Some(value) = self.get(&name) {
                // 2. Otherwise: let value be the result of getting name from list; assert:
                //    value is non-null; append (name, value) to headers.
                headers.push((name, value));
            }
        }
        // 4. Return headers.
        headers
    }
}

/// [Getting, decoding, and splitting](https://fetch.spec.whatwg.org/#header-value-get-decode-and-split)
/// a header value: split on commas outside quoted strings, trimming tabs and spaces.
pub fn get_decode_and_split_value(value: &[u8]) -> Vec<String> {
    // 1. Let input be the result of isomorphic decoding value.
    let input: Vec<char> = value.iter().copied().map(char::from).collect();
    // 2. Let position be a position variable for input.
    let mut position = 0;
    // 3. Let values be a list of strings, initially « ».
    let mut values = Vec::new();
    // 4. Let temporaryValue be the empty string.
    let mut temporary_value = String::new();
    // 5. While true:
    loop {
        // 1. Append the code points that are not U+0022 (") or U+002C (,) to temporaryValue.
        temporary_value.push_str(&collect_a_sequence_of_code_points(
            |c| c != '"' && c != ',',
            &input,
            &mut position,
        ));
        // 2. If the code point at position is U+0022 ("), then: append the result of
        //    collecting an HTTP quoted string; if position is not past the end, continue.
        if input.get(position) == Some(&'"') {
            temporary_value.push_str(&collect_an_http_quoted_string(&input, &mut position, false));
            if position < input.len() {
                continue;
            }
        }
        // 3. Remove all HTTP tab or space from the start and end of temporaryValue.
        // 4. Append temporaryValue to values.
        // 5. Set temporaryValue to the empty string.
        values.push(
            temporary_value
                .trim_matches(is_http_tab_or_space)
                .to_owned(),
        );
        temporary_value.clear();
        // 6. If position is past the end of input, then return values.
        if position >= input.len() {
            return values;
        }
        // 7. Assert: the code point at position within input is U+002C (,).
        // 8. Advance position by 1.
        position += 1;
    }
}

/// [Convert header names to a sorted-lowercase
/// set](https://fetch.spec.whatwg.org/#convert-header-names-to-a-sorted-lowercase-set).
pub fn convert_header_names_to_a_sorted_lowercase_set<'a>(
    header_names: impl IntoIterator<Item = &'a Vec<u8>>,
) -> Vec<Vec<u8>> {
    // 1. Let headerNames be a new ordered set.
    // 2. For each name of headerNames, append the result of byte-lowercasing name.
    let mut names: Vec<Vec<u8>> = header_names
        .into_iter()
        .map(|n| n.to_ascii_lowercase())
        .collect();
    // 3. Return the result of sorting headerNames in ascending order with byte less than.
    names.sort();
    names.dedup();
    names
}

/// Whether `name` is a byte-case-insensitive match for one of `list`.
fn is_one_of(name: &[u8], list: &[&str]) -> bool {
    list.iter().any(|n| name.eq_ignore_ascii_case(n.as_bytes()))
}

/// Whether (`name`, `value`) is a [forbidden
/// request-header](https://fetch.spec.whatwg.org/#forbidden-request-header).
pub fn is_forbidden_request_header(name: &[u8], value: &[u8]) -> bool {
    // 1. If name is a byte-case-insensitive match for one of these, return true.
    const FORBIDDEN: &[&str] = &[
        "Accept-Charset",
        "Accept-Encoding",
        "Access-Control-Request-Headers",
        "Access-Control-Request-Method",
        "Connection",
        "Content-Length",
        "Cookie",
        "Cookie2",
        "Date",
        "DNT",
        "Expect",
        "Host",
        "Keep-Alive",
        "Origin",
        "Referer",
        "Set-Cookie",
        "TE",
        "Trailer",
        "Transfer-Encoding",
        "Upgrade",
        "Via",
    ];
    if is_one_of(name, FORBIDDEN) {
        return true;
    }
    // 2. If name when byte-lowercased starts with `proxy-` or `sec-`, then return true.
    let starts_with = |prefix: &[u8]| {
        name.get(..prefix.len())
            .is_some_and(|p| p.eq_ignore_ascii_case(prefix))
    };
    if starts_with(b"proxy-") || starts_with(b"sec-") {
        return true;
    }
    // 3. If name is a byte-case-insensitive match for one of `X-HTTP-Method`,
    //    `X-HTTP-Method-Override`, or `X-Method-Override`, then:
    if is_one_of(
        name,
        &[
            "X-HTTP-Method",
            "X-HTTP-Method-Override",
            "X-Method-Override",
        ],
    ) {
        // 1. Let parsedValues be the result of getting, decoding, and splitting value.
        // 2. For each method of parsedValues: if the isomorphic encoding of method is a
        //    forbidden method, then return true.
        let forbidden = get_decode_and_split_value(value)
            .iter()
            .filter_map(|method| isomorphic_encode(method))
            .any(|method| is_forbidden_method(&method));
        if forbidden {
            return true;
        }
    }
    // 4. Return false.
    false
}

/// Whether `name` is a [forbidden response-header
/// name](https://fetch.spec.whatwg.org/#forbidden-response-header-name): `Set-Cookie` or
/// `Set-Cookie2`.
pub fn is_forbidden_response_header_name(name: &[u8]) -> bool {
    is_one_of(name, &["Set-Cookie", "Set-Cookie2"])
}

/// Whether `name` is a [no-CORS-safelisted request-header
/// name](https://fetch.spec.whatwg.org/#no-cors-safelisted-request-header-name).
pub fn is_no_cors_safelisted_request_header_name(name: &[u8]) -> bool {
    is_one_of(
        name,
        &[
            "Accept",
            "Accept-Language",
            "Content-Language",
            "Content-Type",
        ],
    )
}

/// Whether (`name`, `value`) is a [no-CORS-safelisted
/// request-header](https://fetch.spec.whatwg.org/#no-cors-safelisted-request-header).
pub fn is_no_cors_safelisted_request_header(name: &[u8], value: &[u8]) -> bool {
    // 1. If name is not a no-CORS-safelisted request-header name, then return false.
    // 2. Return whether (name, value) is a CORS-safelisted request-header.
    is_no_cors_safelisted_request_header_name(name)
        && is_cors_safelisted_request_header(name, value)
}

/// Whether `name` is a [privileged no-CORS request-header
/// name](https://fetch.spec.whatwg.org/#privileged-no-cors-request-header-name): `Range`.
pub fn is_privileged_no_cors_request_header_name(name: &[u8]) -> bool {
    name.eq_ignore_ascii_case(b"Range")
}

/// Whether `name` is a [CORS non-wildcard request-header
/// name](https://fetch.spec.whatwg.org/#cors-non-wildcard-request-header-name): `Authorization`.
pub fn is_cors_non_wildcard_request_header_name(name: &[u8]) -> bool {
    name.eq_ignore_ascii_case(b"Authorization")
}

/// Whether `name` is a [CORS-safelisted response-header
/// name](https://fetch.spec.whatwg.org/#cors-safelisted-response-header-name), given the
/// response's list of exposed header names.
pub fn is_cors_safelisted_response_header_name(name: &[u8], list: &[Vec<u8>]) -> bool {
    is_one_of(
        name,
        &[
            "Cache-Control",
            "Content-Language",
            "Content-Length",
            "Content-Type",
            "Expires",
            "Last-Modified",
            "Pragma",
        ],
    ) || list
        .iter()
        .any(|n| n.eq_ignore_ascii_case(name) && !is_forbidden_response_header_name(n))
}

/// A [CORS-unsafe request-header byte](https://fetch.spec.whatwg.org/#cors-unsafe-request-header-byte):
/// a control byte other than HT, or one of `"():<>?@[\]{}` and 0x7F.
pub fn is_cors_unsafe_request_header_byte(byte: u8) -> bool {
    (byte < 0x20 && byte != 0x09)
        || matches!(
            byte,
            0x22 | 0x28
                | 0x29
                | 0x3A
                | 0x3C
                | 0x3E
                | 0x3F
                | 0x40
                | 0x5B
                | 0x5C
                | 0x5D
                | 0x7B
                | 0x7D
                | 0x7F
        )
}

/// Whether (`name`, `value`) is a [CORS-safelisted
/// request-header](https://fetch.spec.whatwg.org/#cors-safelisted-request-header).
pub fn is_cors_safelisted_request_header(name: &[u8], value: &[u8]) -> bool {
    // 1. If value's length is greater than 128, then return false.
    if value.len() > 128 {
        return false;
    }
    let contains_unsafe_byte = value.iter().any(|&b| is_cors_unsafe_request_header_byte(b));
    // 2. Byte-lowercase name and switch on the result:
    match name.to_ascii_lowercase().as_slice() {
        // `accept`: if value contains a CORS-unsafe request-header byte, return false.
        b"accept" => !contains_unsafe_byte,
        // `accept-language`, `content-language`: if value contains a byte that is not in the
        // range 0x30-0x39, 0x41-0x5A or 0x61-0x7A, and is not 0x20, 0x2A, 0x2C, 0x2D, 0x2E,
        // 0x3B or 0x3D, then return false.
        b"accept-language" | b"content-language" => value.iter().all(|&b| {
            b.is_ascii_alphanumeric() || matches!(b, 0x20 | 0x2A | 0x2C | 0x2D | 0x2E | 0x3B | 0x3D)
        }),
        // `content-type`:
        b"content-type" => {
            // 1. If value contains a CORS-unsafe request-header byte, then return false.
            if contains_unsafe_byte {
                return false;
            }
            // 2. Let mimeType be the result of parsing the isomorphic decoding of value.
            // 3. If mimeType is failure, then return false.
            // 4. If mimeType's essence is not "application/x-www-form-urlencoded",
            //    "multipart/form-data", or "text/plain", then return false.
            parse_a_mime_type(&isomorphic_decode(value)).is_some_and(|m| {
                matches!(
                    m.essence().as_str(),
                    "application/x-www-form-urlencoded" | "multipart/form-data" | "text/plain"
                )
            })
        }
        // `range`:
        // 1. Let rangeValue be the result of parsing a single range header value given value
        //    and false.
        // 2. If rangeValue is failure, then return false.
        // 3. If rangeValue[0] is null, then return false.
        b"range" => {
            parse_a_single_range_header_value(value, false).is_some_and(|r| r.start.is_some())
        }
        // Otherwise: return false.
        _ => false,
    }
    // 3. Return true. (The arms above return it.)
}

/// The [CORS-unsafe request-header names](https://fetch.spec.whatwg.org/#cors-unsafe-request-header-names)
/// of a header list: the names of its headers that are not CORS-safelisted, and all the
/// safelisted ones too when their values add up to more than 1024 bytes; sorted and lowercase.
pub fn cors_unsafe_request_header_names(headers: &HeaderList) -> Vec<Vec<u8>> {
    // 1. Let unsafeNames be a new list.
    let mut unsafe_names = Vec::new();
    // 2. Let potentiallyUnsafeNames be a new list.
    let mut potentially_unsafe_names = Vec::new();
    // 3. Let safelistValueSize be 0.
    let mut safelist_value_size = 0usize;
    // 4. For each header of headers:
    for (name, value) in headers.headers() {
        if !is_cors_safelisted_request_header(name, value) {
            // 1. If header is not a CORS-safelisted request-header, append its name to
            //    unsafeNames.
            unsafe_names.push(name);
        } else {
            // 2. Otherwise, append its name to potentiallyUnsafeNames and increase
            //    safelistValueSize by its value's length.
            potentially_unsafe_names.push(name);
            safelist_value_size += value.len();
        }
    }
    // 5. If safelistValueSize is greater than 1024, then append each name of
    //    potentiallyUnsafeNames to unsafeNames.
    if safelist_value_size > 1024 {
        unsafe_names.extend(potentially_unsafe_names);
    }
    // 6. Return the result of convert header names to a sorted-lowercase set with unsafeNames.
    convert_header_names_to_a_sorted_lowercase_set(unsafe_names)
}

/// The result of [parsing a single range header
/// value](https://fetch.spec.whatwg.org/#simple-range-header-value): a start, an end, or both.
///
/// The spec's numbers are unbounded; a number past `u64::MAX` is `u64::MAX` here (step 18's
/// comparison is made on the digits, so it stays exact).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RangeHeaderValue {
    pub start: Option<u64>,
    pub end: Option<u64>,
}

/// [Parse a single range header value](https://fetch.spec.whatwg.org/#simple-range-header-value)
/// (`bytes=start-end`), `None` for failure.
pub fn parse_a_single_range_header_value(
    value: &[u8],
    allow_whitespace: bool,
) -> Option<RangeHeaderValue> {
    // 1. Let data be the isomorphic decoding of value.
    // 2. If data does not start with "bytes", then return failure.
    let data = value.strip_prefix(b"bytes")?;
    // 3. Let position be a position variable for data, pointing at the 5th code point.
    let mut position = 0;
    let skip_whitespace = |position: &mut usize| {
        if allow_whitespace {
            while data
                .get(*position)
                .is_some_and(|&b| is_http_tab_or_space_byte(b))
            {
                *position += 1;
            }
        }
    };
    let collect_digits = |position: &mut usize| {
        let start = *position;
        while data.get(*position).is_some_and(u8::is_ascii_digit) {
            *position += 1;
        }
        &data[start..*position]
    };
    // 4. If allowWhitespace is true, collect a sequence of HTTP tab or space.
    skip_whitespace(&mut position);
    // 5. If the code point at position within data is not U+003D (=), then return failure.
    // 6. Advance position by 1.
    if data.get(position) != Some(&b'=') {
        return None;
    }
    position += 1;
    // 7. If allowWhitespace is true, collect a sequence of HTTP tab or space.
    skip_whitespace(&mut position);
    // 8. Let rangeStart be the result of collecting a sequence of ASCII digits.
    let range_start = collect_digits(&mut position);
    // 9. Let rangeStartValue be rangeStart interpreted as decimal, if non-empty; else null.
    // 10. If allowWhitespace is true, collect a sequence of HTTP tab or space.
    skip_whitespace(&mut position);
    // 11. If the code point at position within data is not U+002D (-), return failure.
    // 12. Advance position by 1.
    if data.get(position) != Some(&b'-') {
        return None;
    }
    position += 1;
    // 13. If allowWhitespace is true, collect a sequence of HTTP tab or space.
    skip_whitespace(&mut position);
    // 14. Let rangeEnd be the result of collecting a sequence of ASCII digits.
    let range_end = collect_digits(&mut position);
    // 15. Let rangeEndValue be rangeEnd interpreted as decimal, if non-empty; else null.
    // 16. If position is not past the end of data, then return failure.
    if position < data.len() {
        return None;
    }
    // 17. If rangeEndValue and rangeStartValue are null, then return failure.
    if range_start.is_empty() && range_end.is_empty() {
        return None;
    }
    // 18. If rangeStartValue and rangeEndValue are numbers, and rangeStartValue is greater
    //     than rangeEndValue, then return failure.
    if !range_start.is_empty() && !range_end.is_empty() {
        let significant = |d: &'_ [u8]| -> Vec<u8> {
            let first = d.iter().position(|&b| b != b'0').unwrap_or(d.len());
            d[first..].to_vec()
        };
        let (s, e) = (significant(range_start), significant(range_end));
        if (s.len(), &s) > (e.len(), &e) {
            return None;
        }
    }
    // 19. Return (rangeStartValue, rangeEndValue).
    let number = |digits: &[u8]| -> Option<u64> {
        (!digits.is_empty()).then(|| {
            digits.iter().fold(0u64, |n, &d| {
                n.saturating_mul(10).saturating_add(u64::from(d - b'0'))
            })
        })
    };
    Some(RangeHeaderValue {
        start: number(range_start),
        end: number(range_end),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(name: &str, value: &str) -> Header {
        (name.as_bytes().to_vec(), value.as_bytes().to_vec())
    }

    fn list(headers: &[(&str, &str)]) -> HeaderList {
        HeaderList::from(headers.iter().map(|(n, v)| h(n, v)).collect::<Vec<_>>())
    }

    #[test]
    fn header_names_and_values() {
        assert!(is_header_name(b"X-Custom_Header.1"));
        assert!(!is_header_name(b""));
        assert!(!is_header_name(b"a b"));
        assert!(!is_header_name(b"a\xA0"));
        assert!(is_header_value(b""));
        assert!(is_header_value(b"a b\x7F\xFF"));
        assert!(is_header_value(b"\x0Ca"));
        assert!(!is_header_value(b" a"));
        assert!(!is_header_value(b"a\t"));
        assert!(!is_header_value(b"a\0b"));
        assert!(!is_header_value(b"a\rb"));
        assert!(!is_header_value(b"a\nb"));
    }

    #[test]
    fn normalize_strips_http_whitespace_only() {
        // WPT fetch/api/headers/headers-normalize.any.js's expectations.
        assert_eq!(normalize(b" space "), b"space");
        assert_eq!(normalize(b"\ttab\t"), b"tab");
        assert_eq!(normalize(b" spaceAndTab\t"), b"spaceAndTab");
        assert_eq!(normalize(b"\r\n newLine"), b"newLine");
        assert_eq!(normalize(b"newLine\r\n "), b"newLine");
        assert_eq!(normalize(b"\r\n\tnewLine"), b"newLine");
        assert_eq!(normalize(b"\t\x0C\tnewLine\n"), b"\x0C\tnewLine");
        assert_eq!(normalize(b"newLine\xA0"), b"newLine\xA0");
        assert_eq!(normalize(b" \r\n\t"), b"");
    }

    #[test]
    fn get_joins_values_case_insensitively() {
        let l = list(&[("A", "1"), ("b", "2"), ("a", "3")]);
        assert!(l.contains(b"a"));
        assert!(!l.contains(b"c"));
        assert_eq!(l.get(b"a"), Some(b"1, 3".to_vec()));
        assert_eq!(l.get(b"B"), Some(b"2".to_vec()));
        assert_eq!(l.get(b"c"), None);
        let empty = list(&[("a", "")]);
        assert_eq!(empty.get(b"A"), Some(vec![]));
    }

    #[test]
    fn get_decode_and_split_follows_the_spec_examples() {
        let split = |v: &str| get_decode_and_split_value(v.as_bytes());
        // The table under "getting, decoding, and splitting" in the Fetch Standard.
        assert_eq!(split("nosniff,"), ["nosniff", ""]);
        assert_eq!(split(""), [""]);
        assert_eq!(split("text/html;\", x/x"), ["text/html;\", x/x"]);
        assert_eq!(split("text/html;\""), ["text/html;\""]);
        assert_eq!(split("x/x;test=\"hi\",y/y"), ["x/x;test=\"hi\"", "y/y"]);
        assert_eq!(split("x/x;test=\"hi\";x"), ["x/x;test=\"hi\";x"]);
        assert_eq!(split("x / x,,,1"), ["x / x", "", "", "1"]);
        assert_eq!(split("\"1,2\", 3"), ["\"1,2\"", "3"]);
        assert_eq!(split("\"1,2\" ,3"), ["\"1,2\"", "3"]);
        assert_eq!(split(" a \t, b"), ["a", "b"]);
        assert_eq!(get_decode_and_split_value(b"\xE9"), ["\u{E9}"]);
        let l = list(&[("A", "1,2"), ("a", "\"3,4\"")]);
        assert_eq!(
            l.get_decode_and_split(b"a"),
            Some(vec!["1".into(), "2".into(), "\"3,4\"".into()])
        );
        assert_eq!(l.get_decode_and_split(b"b"), None);
    }

    #[test]
    fn append_reuses_the_first_name_and_set_replaces() {
        let mut l = list(&[("Accept", "a")]);
        l.append(h("ACCEPT", "b"));
        assert_eq!(l, list(&[("Accept", "a"), ("Accept", "b")]));
        l.append(h("x", "1"));
        l.set(h("accept", "c"));
        assert_eq!(l, list(&[("Accept", "c"), ("x", "1")]));
        l.set(h("Y", "2"));
        assert_eq!(l, list(&[("Accept", "c"), ("x", "1"), ("Y", "2")]));
        l.combine(h("X", "3"));
        l.combine(h("z", "4"));
        assert_eq!(
            l,
            list(&[("Accept", "c"), ("x", "1, 3"), ("Y", "2"), ("z", "4")])
        );
        l.delete(b"ACCEPT");
        l.delete(b"none");
        assert_eq!(l, list(&[("x", "1, 3"), ("Y", "2"), ("z", "4")]));
    }

    #[test]
    fn set_keeps_the_first_position_and_drops_later_duplicates() {
        let mut l = list(&[("a", "1"), ("b", "2"), ("A", "3"), ("c", "4"), ("a", "5")]);
        l.set(h("a", "x"));
        assert_eq!(l, list(&[("a", "x"), ("b", "2"), ("c", "4")]));
    }

    #[test]
    fn sort_and_combine_keeps_set_cookie_apart() {
        let l = list(&[
            ("Set-Cookie", "a=1"),
            ("b", "2"),
            ("A", "3"),
            ("set-cookie", "b=2"),
            ("a", "4"),
            ("C", ""),
        ]);
        assert_eq!(
            l.sort_and_combine(),
            vec![
                h("a", "3, 4"),
                h("b", "2"),
                h("c", ""),
                h("set-cookie", "a=1"),
                h("set-cookie", "b=2"),
            ]
        );
        assert_eq!(HeaderList::new().sort_and_combine(), vec![]);
    }

    #[test]
    fn forbidden_request_headers() {
        // WPT fetch/api/request/request-headers.any.js's lists.
        for name in [
            "Accept-Charset",
            "accept-charset",
            "ACCEPT-ENCODING",
            "Accept-Encoding",
            "Access-Control-Request-Headers",
            "Access-Control-Request-Method",
            "Connection",
            "Content-Length",
            "Cookie",
            "Cookie2",
            "Date",
            "DNT",
            "Expect",
            "Host",
            "Keep-Alive",
            "Origin",
            "Referer",
            "Set-Cookie",
            "TE",
            "Trailer",
            "Transfer-Encoding",
            "Upgrade",
            "Via",
            "Proxy-",
            "proxy-a",
            "Sec-",
            "sec-b",
        ] {
            assert!(
                is_forbidden_request_header(name.as_bytes(), b"KO"),
                "{name}"
            );
        }
        for name in [
            "Content-Type",
            "Potato",
            "proxy",
            "proxya",
            "sec",
            "secb",
            "Set-Cookie2",
            "User-Agent",
        ] {
            assert!(
                !is_forbidden_request_header(name.as_bytes(), b"OK"),
                "{name}"
            );
        }
    }

    #[test]
    fn method_override_headers_are_forbidden_with_a_forbidden_method() {
        // WPT fetch/api/headers/headers-forbidden-override.any.js, after the value is
        // normalized as `Headers.append` does.
        for name in [
            "x-http-method-override",
            "x-http-method",
            "x-method-override",
            "X-HTTP-METHOD-OVERRIDE",
        ] {
            for method in [
                "TRACE",
                "TRACK",
                "CONNECT",
                "trace",
                "track",
                "connect",
                "\rtrace",
                "\ttrack",
                "\nconnect",
                "trace,",
                "GET,track ",
                " connect",
            ] {
                let value = normalize(method.as_bytes());
                assert!(
                    is_forbidden_request_header(name.as_bytes(), value),
                    "{name}: {method:?}"
                );
            }
            for method in ["GETTRACE", "GET", "\",TRACE\","] {
                assert!(
                    !is_forbidden_request_header(name.as_bytes(), method.as_bytes()),
                    "{name}: {method:?}"
                );
            }
        }
        assert!(!is_forbidden_request_header(b"X-Other-Override", b"TRACE"));
    }

    #[test]
    fn forbidden_response_header_names() {
        assert!(is_forbidden_response_header_name(b"set-cookie"));
        assert!(is_forbidden_response_header_name(b"SET-COOKIE2"));
        assert!(!is_forbidden_response_header_name(b"cookie"));
    }

    #[test]
    fn no_cors_safelisted_request_headers() {
        // WPT fetch/api/request/request-headers.any.js's no-CORS lists.
        for (name, value) in [
            ("Accept", "OK"),
            ("Accept-Language", "OK"),
            ("content-language", "OK"),
            ("content-type", "application/x-www-form-urlencoded"),
            (
                "content-type",
                "application/x-www-form-urlencoded;charset=UTF-8",
            ),
            ("content-type", "multipart/form-data"),
            ("content-type", "multipart/form-data;charset=UTF-8"),
            ("content-TYPE", "text/plain"),
            ("CONTENT-type", "text/plain;charset=UTF-8"),
        ] {
            assert!(
                is_no_cors_safelisted_request_header(name.as_bytes(), value.as_bytes()),
                "{name}: {value}"
            );
        }
        for (name, value) in [
            ("Content-Type", "KO"),
            ("Potato", "KO"),
            ("proxy", "KO"),
            ("sec", "KO"),
            ("Empty-Value", ""),
            ("Range", "bytes=0-1"),
        ] {
            assert!(
                !is_no_cors_safelisted_request_header(name.as_bytes(), value.as_bytes()),
                "{name}: {value}"
            );
        }
        assert!(is_privileged_no_cors_request_header_name(b"range"));
        assert!(!is_privileged_no_cors_request_header_name(b"ranges"));
    }

    #[test]
    fn cors_safelisted_request_header_values() {
        let safe = |n: &str, v: &[u8]| is_cors_safelisted_request_header(n.as_bytes(), v);
        // The 128-byte limit; WPT headers-no-cors.any.js uses 127 and 128.
        assert!(safe("accept", &[b's'; 128]));
        assert!(!safe("accept", &[b's'; 129]));
        assert!(safe("accept", b"text/html, */*;q=0.8\t"));
        for unsafe_byte in [
            0x00, 0x1F, b'"', b'(', b')', b':', b'<', b'>', b'?', b'@', b'[', b'\\', b']', b'{',
            b'}', 0x7F,
        ] {
            assert!(!safe("accept", &[b'a', unsafe_byte]), "{unsafe_byte:#x}");
        }
        assert!(safe("accept", b"\xFF"));
        assert!(safe("accept-language", b"en-US, fr;q=0.5 *"));
        assert!(safe("content-language", b""));
        assert!(!safe("content-language", b"\t"));
        assert!(!safe("accept-language", b"@"));
        assert!(!safe("content-language", b"\x01"));
        assert!(safe("content-type", b"text/plain; charset=x"));
        assert!(safe("content-type", b"MULTIPART/form-data; boundary=x"));
        assert!(!safe("content-type", b"text/html"));
        assert!(!safe("content-type", b"text/plain; charset=\"x\""));
        assert!(!safe("content-type", b"text"));
        assert!(safe("range", b"bytes=0-"));
        assert!(safe("range", b"bytes=5-10"));
        assert!(!safe("range", b"bytes=-500"));
        assert!(!safe("range", b"bytes = 0-1"));
        assert!(!safe("range", b"bytes=0-1,3-4"));
        assert!(!safe("authorization", b"basics"));
        assert!(!safe("dpr", b"2"));
    }

    #[test]
    fn cors_unsafe_names_count_the_1024_byte_total() {
        let l = list(&[
            ("Accept", "a"),
            ("X-Custom", "1"),
            ("content-type", "text/html"),
        ]);
        assert_eq!(
            cors_unsafe_request_header_names(&l),
            vec![b"content-type".to_vec(), b"x-custom".to_vec()]
        );
        let value = "a".repeat(128);
        let mut big: Vec<(&str, &str)> = Vec::new();
        for _ in 0..8 {
            big.push(("accept", &value));
        }
        // 8 × 128 = 1024: still safe.
        assert_eq!(
            cors_unsafe_request_header_names(&list(&big)),
            Vec::<Vec<u8>>::new()
        );
        big.push(("Accept-Language", "x"));
        assert_eq!(
            cors_unsafe_request_header_names(&list(&big)),
            vec![b"accept".to_vec(), b"accept-language".to_vec()]
        );
    }

    #[test]
    fn cors_safelisted_response_header_names() {
        assert!(is_cors_safelisted_response_header_name(
            b"content-TYPE",
            &[]
        ));
        assert!(!is_cors_safelisted_response_header_name(b"x-a", &[]));
        assert!(is_cors_safelisted_response_header_name(
            b"x-a",
            &[b"X-A".to_vec()]
        ));
        assert!(!is_cors_safelisted_response_header_name(
            b"set-cookie",
            &[b"Set-Cookie".to_vec()]
        ));
        assert!(is_cors_non_wildcard_request_header_name(b"authorization"));
    }

    #[test]
    fn single_range_header_values() {
        let parse = |v: &str, ws| parse_a_single_range_header_value(v.as_bytes(), ws);
        let range = |start, end| Some(RangeHeaderValue { start, end });
        assert_eq!(parse("bytes=0-", false), range(Some(0), None));
        assert_eq!(parse("bytes=-5", false), range(None, Some(5)));
        assert_eq!(parse("bytes=3-7", false), range(Some(3), Some(7)));
        assert_eq!(parse("bytes=7-7", false), range(Some(7), Some(7)));
        assert_eq!(parse("bytes=8-7", false), None);
        assert_eq!(parse("bytes=-", false), None);
        assert_eq!(parse("bytes=", false), None);
        assert_eq!(parse("Bytes=0-", false), None);
        assert_eq!(parse("bytes=0-1x", false), None);
        assert_eq!(parse("bytes =0-1", false), None);
        assert_eq!(parse("bytes \t= 1 - 2", true), range(Some(1), Some(2)));
        // No whitespace is collected after the end.
        assert_eq!(parse("bytes=1-2 ", true), None);
        assert_eq!(parse("bytes= 1-2", false), None);
        // Past u64: saturated, but compared exactly.
        let big = "99999999999999999999999";
        assert_eq!(
            parse(&format!("bytes=00{big}-{big}1"), false),
            range(Some(u64::MAX), Some(u64::MAX))
        );
        assert_eq!(parse(&format!("bytes={big}1-{big}"), false), None);
    }
}
