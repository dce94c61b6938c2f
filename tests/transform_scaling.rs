//! Scaling (ratio, not time): unawaited `writer.write()` calls into an identity
//! `TransformStream`, read back from its readable side with unawaited `reader.read()` calls,
//! timed at n and 16n chunks (16n = 80 000). A write costs more than a read here (the sink
//! write algorithm waits for the backpressure change and reacts to the transform). A linear
//! implementation gives a ratio near 16; the bound is 64.

mod support;

use std::time::Duration;

use support::scaling::{time_script, Scaling};
use support::{context, eval, eval_string};

/// Writes `n` chunks and reads them back, without awaiting, then drains the job queue and
/// checks that every chunk came out once, in order, and that every write fulfilled.
fn run(n: u32) -> Duration {
    let mut ctx = context();
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
    eval(&mut ctx, &setup);
    let elapsed = time_script(
        &mut ctx,
        "for (let i = 0; i < N; i++) writer.write(i).then(onWritten);
         for (let i = 0; i < N; i++) reader.read().then(onRead);",
    );
    let check = eval_string(&mut ctx, "`${next} ${bad} ${fulfilled}`");
    assert_eq!(check, format!("{n} 0 {n}"), "next bad fulfilled");
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
