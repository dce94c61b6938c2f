//! The `data:` URL processor takes any string without panicking; what it gives has a MIME type
//! that serializes and parses back to itself.
#![no_main]

use boa_streams::fuzzing::{data_url::data_url_processor, mime};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
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
});
