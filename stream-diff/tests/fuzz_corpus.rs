//! The stream-program fuzz target's seed corpus (`fuzz/corpus/stream_program`), replayed
//! through the target's own check (`fuzz/stream_check.rs`) as an ordinary test: CI's smoke of
//! the target, with no libFuzzer build.

#[path = "../../fuzz/stream_check.rs"]
mod stream_check;

#[test]
fn the_seed_corpus_runs_without_a_panic_or_crash() {
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus/stream_program");
    let mut files = 0;
    for entry in std::fs::read_dir(&dir).expect("the seed corpus") {
        let path = entry.expect("a corpus entry").path();
        let program = stream_check::stream_program(&std::fs::read(&path).expect("a corpus file"));
        assert!(!program.is_empty(), "{}", path.display());
        files += 1;
    }
    assert!(files > 0, "an empty seed corpus");
}
