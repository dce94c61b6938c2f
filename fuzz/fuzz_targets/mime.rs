//! MIME types: parsing any bytes does not panic, and a parsed MIME type serializes to a string
//! that parses back to the same MIME type.
#![no_main]

#[path = "../checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::mime(data));
