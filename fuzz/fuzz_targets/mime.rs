//! MIME types: parsing any bytes does not panic, and a parsed MIME type serializes to a string
//! that parses back to the same MIME type.
#![no_main]

use boa_streams::fuzzing::mime;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
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
});
