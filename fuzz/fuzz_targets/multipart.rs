//! `multipart/form-data`: the parser takes any bytes and any boundary without panicking, and
//! what it parses encodes and parses back to the same entries (the encoding of a parsed body is
//! a fixed point).
#![no_main]

use boa_streams::fuzzing::multipart::{
    multipart_form_data_encoding_algorithm, parse_a_multipart_form_data_body,
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
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
});
