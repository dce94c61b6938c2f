//! Scaling (ratio, not time) of the codec streams: n and 16n chunks (16n = 32 000) through
//! `TextEncoderStream` → `TextDecoderStream` (each chunk ends in half a surrogate pair, so state
//! is carried between every pair of chunks) and through `CompressionStream` →
//! `DecompressionStream`, piped. A linear implementation gives a ratio near 16; the bound is 64.

mod support;

use std::time::Duration;

use support::scaling::{time_script, Scaling};
use support::{context, eval, eval_string};

/// Pipes `n` chunks through `pipeline` into a sink and returns how long the pipe took; then
/// `check` must hold of the sink's `out`.
fn run(n: u32, pipeline: &str, check: &str) -> Duration {
    let mut ctx = context();
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
    eval(&mut ctx, &setup);
    let elapsed = time_script(
        &mut ctx,
        &format!(
            "{pipeline}.pipeTo(sink).then(() => {{ done = true; }}, e => {{ result = String(e); }});"
        ),
    );
    let got = eval_string(&mut ctx, &format!("done ? ({check}) : result"));
    assert_eq!(got, "true", "n = {n}");
    elapsed
}

fn ratio(name: &str, pipeline: &str, check: &str) {
    let n = 2_000;
    Scaling {
        name,
        n,
        factor: 16,
        warm_up: n / 4,
        small_runs: 3,
        large_runs: 1,
    }
    .assert_linear(|size| run(size, pipeline, check));
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
