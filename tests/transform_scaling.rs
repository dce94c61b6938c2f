//! Scaling (ratio, not time): unawaited `writer.write()` calls into an identity
//! `TransformStream`, read back from its readable side with unawaited `reader.read()` calls,
//! timed at n and 16n chunks (16n = 80 000). A write costs more than a read here (the sink
//! write algorithm waits for the backpressure change and reacts to the transform). A linear
//! implementation gives a ratio near 16; the bound is 64.

use std::time::{Duration, Instant};

use boa_engine::{Context, Source};

/// Writes `n` chunks and reads them back, without awaiting, then drains the job queue and
/// checks that every chunk came out once, in order, and that every write fulfilled.
fn run(n: u32) -> Duration {
    let mut ctx = Context::default();
    boa_streams::register(&mut ctx).expect("register");
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
    ctx.eval(Source::from_bytes(&setup)).expect("setup");
    ctx.run_jobs().expect("start");
    let start = Instant::now();
    ctx.eval(Source::from_bytes(
        "for (let i = 0; i < N; i++) writer.write(i).then(onWritten);
         for (let i = 0; i < N; i++) reader.read().then(onRead);",
    ))
    .expect("writes and reads");
    ctx.run_jobs().expect("drain");
    let elapsed = start.elapsed();
    let check = ctx
        .eval(Source::from_bytes("`${next} ${bad} ${fulfilled}`"))
        .expect("check")
        .to_string(&mut ctx)
        .expect("string")
        .to_std_string_escaped();
    assert_eq!(check, format!("{n} 0 {n}"), "next bad fulfilled");
    elapsed
}

#[test]
fn identity_transform_scales_linearly() {
    let n = 5_000;
    // Warm up, then take the best of a few runs at each size (noise only ever adds time).
    run(n / 4);
    let small = (0..3).map(|_| run(n)).min().expect("runs");
    let large = run(16 * n);
    let ratio = large.as_secs_f64() / small.as_secs_f64();
    eprintln!(
        "identity transform: n={n} {:?}, 16n={} {:?}, ratio {ratio:.2}",
        small,
        16 * n,
        large
    );
    assert!(ratio <= 64.0, "ratio {ratio:.2} > 64");
}
