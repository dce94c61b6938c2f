//! Scaling (ratio, not time) of the codec streams: n and 16n chunks (16n = 32 000) through
//! `TextEncoderStream` → `TextDecoderStream` (each chunk ends in half a surrogate pair, so state
//! is carried between every pair of chunks) and through `CompressionStream` →
//! `DecompressionStream`, piped. A linear implementation gives a ratio near 16; the bound is 64.

use std::time::{Duration, Instant};

use boa_engine::{Context, Source};

fn run(n: u32, pipeline: &str, check: &str) -> Duration {
    let mut ctx = Context::default();
    boa_streams::register(&mut ctx).expect("register");
    let setup = format!(
        r#"
        var N = {n};
        var done = false, result;
        var source = new ReadableStream({{
          i: 0,
          pull(c) {{ if (this.i === N) c.close(); else c.enqueue(this.i++ % 2 ? '\uDE00b' : 'a\uD83D'); }},
        }}, {{ highWaterMark: 0 }});
        var out = [];
        var sink = new WritableStream({{ write(chunk) {{ out.push(chunk); }} }});
        "#
    );
    ctx.eval(Source::from_bytes(&setup)).expect("setup");
    ctx.run_jobs().expect("start");
    let start = Instant::now();
    ctx.eval(Source::from_bytes(&format!(
        "{pipeline}.pipeTo(sink).then(() => {{ done = true; }}, e => {{ result = String(e); }});"
    )))
    .expect("pipe");
    ctx.run_jobs().expect("drain");
    let elapsed = start.elapsed();
    let got = ctx
        .eval(Source::from_bytes(&format!("done ? ({check}) : result")))
        .expect("check")
        .to_string(&mut ctx)
        .expect("string")
        .to_std_string_escaped();
    assert_eq!(got, "true", "n = {n}");
    elapsed
}

fn ratio(name: &str, pipeline: &str, check: &str) {
    let n = 2_000;
    run(n / 4, pipeline, check);
    let small = (0..3).map(|_| run(n, pipeline, check)).min().expect("runs");
    let large = run(16 * n, pipeline, check);
    let ratio = large.as_secs_f64() / small.as_secs_f64();
    eprintln!(
        "{name}: n={n} {small:?}, 16n={} {large:?}, ratio {ratio:.2}",
        16 * n
    );
    assert!(ratio <= 64.0, "{name}: ratio {ratio:.2} > 64");
}

#[test]
fn text_encoder_and_decoder_streams_scale_linearly() {
    ratio(
        "text",
        "source.pipeThrough(new TextEncoderStream()).pipeThrough(new TextDecoderStream())",
        // Every pair of chunks gives 'a', then the joined pair and 'b'.
        "out.join('') === 'a\\uD83D\\uDE00b'.repeat(N / 2)",
    );
}

#[test]
fn compression_streams_scale_linearly() {
    ratio(
        "compression",
        "source.pipeThrough(new TextEncoderStream()).pipeThrough(new CompressionStream('gzip'))
           .pipeThrough(new DecompressionStream('gzip')).pipeThrough(new TextDecoderStream())",
        "out.join('') === 'a\\uD83D\\uDE00b'.repeat(N / 2)",
    );
}

#[test]
fn brotli_streams_scale_linearly() {
    ratio(
        "brotli",
        "source.pipeThrough(new TextEncoderStream()).pipeThrough(new CompressionStream('brotli'))
           .pipeThrough(new DecompressionStream('brotli')).pipeThrough(new TextDecoderStream())",
        "out.join('') === 'a\\uD83D\\uDE00b'.repeat(N / 2)",
    );
}
