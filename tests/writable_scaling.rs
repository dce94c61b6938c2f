//! Scaling (ratio, not time): unawaited `writer.write()` calls drained by a synchronous sink,
//! timed at n and 8n chunks. A linear implementation gives a ratio near 8; the bound is 32.

use std::time::{Duration, Instant};

use boa_engine::{Context, Source};

/// Writes `n` chunks without awaiting, drains the job queue, and checks that the sink saw every
/// chunk once, in order, and that every write promise fulfilled.
fn run(n: u32) -> Duration {
    let mut ctx = Context::default();
    boa_streams::register(&mut ctx).expect("register");
    let setup = format!(
        r#"
        var N = {n};
        var next = 0, bad = 0, fulfilled = 0;
        var ws = new WritableStream({{
            write(chunk) {{ if (chunk !== next) bad++; next++; }}
        }});
        var writer = ws.getWriter();
        var onFulfilled = () => {{ fulfilled++; }};
        "#
    );
    ctx.eval(Source::from_bytes(&setup)).expect("setup");
    ctx.run_jobs().expect("start");
    let start = Instant::now();
    ctx.eval(Source::from_bytes(
        "for (let i = 0; i < N; i++) writer.write(i).then(onFulfilled);",
    ))
    .expect("writes");
    ctx.run_jobs().expect("drain");
    let elapsed = start.elapsed();
    let check = ctx
        .eval(Source::from_bytes(
            "`${next} ${bad} ${fulfilled} ${writer.desiredSize}`",
        ))
        .expect("check")
        .to_string(&mut ctx)
        .expect("string")
        .to_std_string_escaped();
    assert_eq!(
        check,
        format!("{n} 0 {n} 1"),
        "next bad fulfilled desiredSize"
    );
    elapsed
}

#[test]
fn unawaited_writes_scale_linearly() {
    let n = 20_000;
    // Warm up, then take the best of a few runs at each size (noise only ever adds time).
    run(n / 4);
    let small = (0..3).map(|_| run(n)).min().expect("runs");
    let large = (0..2).map(|_| run(8 * n)).min().expect("runs");
    let ratio = large.as_secs_f64() / small.as_secs_f64();
    eprintln!(
        "writes: n={n} {:?}, 8n={} {:?}, ratio {ratio:.2}",
        small,
        8 * n,
        large
    );
    assert!(ratio <= 32.0, "ratio {ratio:.2} > 32");
}
