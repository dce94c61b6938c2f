//! Header values and lists: normalizing is idempotent and gives a header value when the input
//! has no NUL or newline; a header list takes any name and value, and reads back what it holds.
#![no_main]

#[path = "../checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::headers(data));
