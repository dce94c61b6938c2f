//! Structured clone of value graphs from fuzzer bytes, through `structuredClone()`, a
//! `MessageChannel` and an agent on another thread (`clone_check.rs` says what an attacker
//! controls there, and the oracle).
#![no_main]

#[path = "../clone_check.rs"]
mod clone_check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    clone_check::structured_clone(data);
});
