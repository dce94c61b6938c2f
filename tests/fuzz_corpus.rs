//! The fuzz targets' seed corpora (`fuzz/corpus/TARGET`), replayed through the targets' own
//! checks (`fuzz/checks.rs`) as an ordinary test: CI's smoke of the parser targets, with no
//! libFuzzer build. (`stream-diff/tests/fuzz_corpus.rs` replays the stream-program corpus.)

#[path = "../fuzz/checks.rs"]
mod checks;
#[path = "../fuzz/clone_check.rs"]
mod clone_check;

use std::path::Path;

/// A target's check: panics on a finding.
type Check = fn(&[u8]);

/// Runs `check` on every file of `fuzz/corpus/<target>`; returns how many there were.
fn replay(target: &str, check: Check) -> usize {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(target);
    let mut files = 0;
    for entry in std::fs::read_dir(&dir).expect("the seed corpus") {
        let path = entry.expect("a corpus entry").path();
        check(&std::fs::read(&path).expect("a corpus file"));
        files += 1;
    }
    files
}

#[test]
fn the_seed_corpora_pass_the_parser_targets_checks() {
    let targets: [(&str, Check); 5] = [
        ("multipart", checks::multipart),
        ("data_url", checks::data_url),
        ("mime", checks::mime),
        ("headers", checks::headers),
        ("urlencoded", checks::urlencoded),
    ];
    for (target, check) in targets {
        assert!(replay(target, check) > 0, "{target}: an empty seed corpus");
    }
}

/// The structured-clone target's seeds, on the build's engine: value graphs sent through
/// `structuredClone()`, a `MessageChannel` and an agent on another thread.
#[test]
fn the_seed_corpus_passes_the_structured_clone_target_check() {
    let check: Check = |data| {
        clone_check::structured_clone(data);
    };
    assert!(
        replay("structured_clone", check) > 0,
        "an empty seed corpus"
    );
}
