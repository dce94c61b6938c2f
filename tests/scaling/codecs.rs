//! Scaling (ratio, not time) of the codec streams: n and 16n chunks (16n = 32 000) through
//! `TextEncoderStream` → `TextDecoderStream` (each chunk ends in half a surrogate pair, so state
//! is carried between every pair of chunks) and through `CompressionStream` →
//! `DecompressionStream`, piped. A linear implementation gives a ratio near 16; the bound is 64.

use std::time::Duration;

use crate::support::scaling::{time_script, Scaling};
use crate::support::script::{Fixture, TestAction};

/// Pipes `n` chunks through `pipeline` into a sink (which pushes them to the shared `log`) and
/// returns how long the pipe took; then `check` must hold of `log`.
fn run(n: u32, pipeline: &str, check: &str) -> Duration {
    let mut fixture = Fixture::streams();
    let setup = format!(
        r#"
        var N = {n};
        var done = false, result;
        var source = new ReadableStream({{
          i: 0,
          pull(c) {{ if (this.i === N) c.close(); else c.enqueue(this.i++ % 2 ? '\uDE00b' : 'a\uD83D'); }},
        }}, {{ highWaterMark: 0 }});
        var sink = new WritableStream({{ write(chunk) {{ log.push(chunk); }} }});
        "#
    );
    fixture.eval(&setup);
    let elapsed = time_script(
        fixture.context(),
        &format!(
            "{pipeline}.pipeTo(sink).then(() => {{ done = true; }}, e => {{ result = String(e); }});"
        ),
    );
    fixture.run([TestAction::assert_string(
        format!("done ? ({check}) : result"),
        "true",
    )]);
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
        "log.join('') === 'a\\uD83D\\uDE00b'.repeat(N / 2)",
    );
}

#[test]
fn compression_streams_scale_linearly() {
    ratio(
        "compression",
        "source.pipeThrough(new TextEncoderStream()).pipeThrough(new CompressionStream('gzip'))
           .pipeThrough(new DecompressionStream('gzip')).pipeThrough(new TextDecoderStream())",
        "log.join('') === 'a\\uD83D\\uDE00b'.repeat(N / 2)",
    );
}

#[test]
fn brotli_streams_scale_linearly() {
    ratio(
        "brotli",
        "source.pipeThrough(new TextEncoderStream()).pipeThrough(new CompressionStream('brotli'))
           .pipeThrough(new DecompressionStream('brotli')).pipeThrough(new TextDecoderStream())",
        "log.join('') === 'a\\uD83D\\uDE00b'.repeat(N / 2)",
    );
}
