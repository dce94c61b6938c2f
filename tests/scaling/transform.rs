//! Scaling (ratio, not time): unawaited `writer.write()` calls into an identity
//! `TransformStream`, read back from its readable side with unawaited `reader.read()` calls,
//! timed at n and 16n chunks (16n = 80 000). A write costs more than a read here (the sink
//! write algorithm waits for the backpressure change and reacts to the transform). A linear
//! implementation gives a ratio near 16; the bound is 64.

use std::time::Duration;

use crate::support::scaling::{time_script, Scaling};
use crate::support::script::{Fixture, TestAction};

/// Writes `n` chunks and reads them back, without awaiting, then drains the job queue and
/// checks that every chunk came out once, in order, and that every write fulfilled.
fn run(n: u32) -> Duration {
    let mut fixture = Fixture::streams();
    let setup = format!(
        r#"
        var N = {n};
        var next = 0, bad = 0, fulfilled = 0;
        var ts = new TransformStream();
        var writer = ts.writable.getWriter();
        var reader = ts.readable.getReader();
        var onWritten = () => {{ fulfilled++; }};
        var onRead = ({{ value, done }}) => {{ if (done || value !== next) bad++; next++; }};
        "#
    );
    fixture.eval(&setup);
    let elapsed = time_script(
        fixture.context(),
        "for (let i = 0; i < N; i++) writer.write(i).then(onWritten);
         for (let i = 0; i < N; i++) reader.read().then(onRead);",
    );
    // next, bad, fulfilled
    fixture.run([TestAction::assert_string(
        "`${next} ${bad} ${fulfilled}`",
        format!("{n} 0 {n}"),
    )]);
    elapsed
}

#[test]
fn identity_transform_scales_linearly() {
    let n = 5_000;
    Scaling {
        name: "identity transform",
        n,
        factor: 16,
        warm_up: n / 4,
        small_runs: 3,
        large_runs: 1,
    }
    .assert_linear(run);
}
