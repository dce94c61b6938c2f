//! `application/x-www-form-urlencoded`: parsing any bytes does not panic, and the serialization
//! of what it parsed parses back to the same name-value pairs.
#![no_main]

#[path = "../checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::urlencoded(data));
