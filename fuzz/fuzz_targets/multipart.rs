//! `multipart/form-data`: the parser takes any bytes and any boundary without panicking, and
//! what it parses encodes and parses back to the same entries (the encoding of a parsed body is
//! a fixed point).
#![no_main]

#[path = "../checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::multipart(data));
