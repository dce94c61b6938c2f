//! The fuzz targets' checks, one function per parser target: each takes the fuzzer's bytes and
//! panics on a finding. Shared by the targets (`fuzz_targets/*.rs`, through libFuzzer) and by
//! `tests/fuzz_corpus.rs` (the seed corpus replayed as an ordinary cargo test, no libFuzzer).
// (Each user takes the functions it needs.)
#![allow(dead_code)]

use boa_streams::fuzzing::headers::{is_header_name, is_header_value, normalize, HeaderList};
use boa_streams::fuzzing::multipart::{
    multipart_form_data_encoding_algorithm, parse_a_multipart_form_data_body,
};
use boa_streams::fuzzing::urlencoded::{
    application_x_www_form_urlencoded_parser, application_x_www_form_urlencoded_serializer,
    percent_decode,
};
use boa_streams::fuzzing::{data_url::data_url_processor, mime};

/// `multipart/form-data`: the parser takes any bytes and any boundary without panicking, and
/// what it parses encodes and parses back to the same entries (the encoding of a parsed body is
/// a fixed point).
pub fn multipart(data: &[u8]) {
    // The first byte says how long the boundary is; the rest is the body.
    let (boundary, body) = match data.split_first() {
        Some((&n, rest)) => rest.split_at((n as usize % 72).min(rest.len())),
        None => return,
    };
    let Ok(entries) = parse_a_multipart_form_data_body(body, boundary) else {
        return;
    };
    let boundary = std::str::from_utf8(boundary).expect("a valid boundary is ASCII");
    let Ok(encoded) = multipart_form_data_encoding_algorithm(&entries, boundary) else {
        // A value that holds the delimiter cannot be encoded with this boundary.
        return;
    };
    let reparsed = parse_a_multipart_form_data_body(&encoded, boundary.as_bytes())
        .expect("an encoded body parses");
    let again =
        multipart_form_data_encoding_algorithm(&reparsed, boundary).expect("parsed entries encode");
    assert_eq!(again, encoded, "encode(parse(encode(x))) == encode(x)");
}

/// The `data:` URL processor takes any string without panicking; what it gives has a MIME type
/// that serializes and parses back to itself.
pub fn data_url(data: &[u8]) {
    let input = String::from_utf8_lossy(data);
    let url = format!("data:{input}");
    for candidate in [&*input, url.as_str()] {
        if let Some(result) = data_url_processor(candidate) {
            let serialized = mime::serialize_a_mime_type(&result.mime_type);
            assert_eq!(
                mime::parse_a_mime_type(&serialized).as_ref(),
                Some(&result.mime_type),
                "{serialized:?}"
            );
        }
    }
}

/// MIME types: parsing any bytes does not panic, and a parsed MIME type serializes to a string
/// that parses back to the same MIME type.
pub fn mime(data: &[u8]) {
    if let Some(parsed) = mime::parse_a_mime_type_from_bytes(data) {
        let serialized = mime::serialize_a_mime_type(&parsed);
        assert_eq!(
            mime::parse_a_mime_type(&serialized),
            Some(parsed.clone()),
            "{serialized:?}"
        );
        if let Some(bytes) = mime::serialize_a_mime_type_to_bytes(&parsed) {
            assert_eq!(mime::parse_a_mime_type_from_bytes(&bytes), Some(parsed));
        }
    }
    let _ = mime::parse_a_mime_type(&String::from_utf8_lossy(data));
}

/// Header values and lists: normalizing is idempotent and gives a header value when the input
/// has no NUL or newline; a header list takes any name and value, and reads back what it holds.
pub fn headers(data: &[u8]) {
    let normalized = normalize(data);
    assert_eq!(normalize(normalized), normalized, "normalize is idempotent");
    if !data.iter().any(|b| matches!(b, 0 | b'\r' | b'\n')) {
        assert!(is_header_value(normalized), "{normalized:?}");
    }
    // Split into a name and a value at the first ':'.
    let (name, value) = match data.iter().position(|&b| b == b':') {
        Some(i) => (&data[..i], normalize(&data[i + 1..])),
        None => return,
    };
    if !is_header_name(name) || !is_header_value(value) {
        return;
    }
    let mut list = HeaderList::new();
    list.append((name.to_vec(), value.to_vec()));
    list.append((name.to_ascii_uppercase(), value.to_vec()));
    assert!(list.contains(&name.to_ascii_lowercase()));
    let combined = list.get(name).expect("the header is there");
    assert!(combined.starts_with(value));
    let _ = list.get_decode_and_split(name);
    let _ = list.sort_and_combine();
    list.delete(name);
    assert!(!list.contains(name));
}

/// `application/x-www-form-urlencoded`: parsing any bytes does not panic, and the serialization
/// of what it parsed parses back to the same name-value pairs.
pub fn urlencoded(data: &[u8]) {
    let tuples = application_x_www_form_urlencoded_parser(data);
    let serialized = application_x_www_form_urlencoded_serializer(&tuples);
    assert_eq!(
        application_x_www_form_urlencoded_parser(serialized.as_bytes()),
        tuples,
        "{serialized:?}"
    );
    let _ = percent_decode(data);
}
