//! The `data:` URL processor takes any string without panicking; what it gives has a MIME type
//! that serializes and parses back to itself.
#![no_main]

#[path = "../checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::data_url(data));
