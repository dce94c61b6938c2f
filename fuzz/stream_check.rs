//! The stream-program target's check (`fuzz_targets/stream_program.rs`), shared with
//! `stream-diff/tests/fuzz_corpus.rs` (the seed corpus replayed as an ordinary cargo test).

use stream_diff::{
    gen::generate_from_bytes,
    side::{self, Limits, Outcome, ReferenceSource, SideKind},
};

/// Stream programs from fuzzer bytes: stream-diff's generator makes its choices from `data`,
/// and the program runs on the native streams of the build's engine. Panics if the run ends
/// with a Rust panic (a borrow panic included) or a crash; returns the program.
pub fn stream_program(data: &[u8]) -> String {
    let program = generate_from_bytes(data).to_js();
    let none = ReferenceSource {
        install: String::new(),
        bundle: String::new(),
        bundle_name: String::new(),
    };
    let native = side::run_fresh(SideKind::Native, &none, &program, Limits::default());
    if let Outcome::Panic(_) | Outcome::Crash(_) = native.outcome {
        panic!("{}\n--- program ---\n{program}", native.outcome);
    }
    program
}
