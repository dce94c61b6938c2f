//! Stream programs from fuzzer bytes: stream-diff's generator makes its choices from the input
//! (two bytes a choice), and the program runs on the native streams of the build's engine. The
//! oracle: the run ends (idle, a hang past the deadline, or the event limit), never with a Rust
//! panic (a borrow panic included) or a crash. With `STREAM_FUZZ_DIFF=1`, the reference
//! implementation runs the program too, and a `real` divergence is a finding.
#![no_main]

#[path = "../stream_check.rs"]
mod stream_check;

use libfuzzer_sys::fuzz_target;
use stream_diff::{
    diff::{Class, Verdict},
    side::Limits,
};

fuzz_target!(|data: &[u8]| {
    let program = stream_check::stream_program(data);
    let limits = Limits::default();
    if std::env::var_os("STREAM_FUZZ_DIFF").is_some() {
        RUNNER.with(|runner| {
            let mut runner = runner.borrow_mut();
            if runner.is_none() {
                let reference = stream_diff::load_reference(None).expect("the reference bundle");
                *runner = Some(
                    stream_diff::Runner::new(reference, limits, false)
                        .expect("a stream-diff runner"),
                );
            }
            let verdict = runner.as_mut().expect("made above").verdict(&program);
            assert!(
                verdict != Verdict::Diverged(Class::Real),
                "a real divergence\n--- program ---\n{program}"
            );
        });
    }
});

thread_local! {
    /// The reference side, set up once per process (its corrected references take seconds).
    static RUNNER: std::cell::RefCell<Option<stream_diff::Runner>> =
        const { std::cell::RefCell::new(None) };
}
