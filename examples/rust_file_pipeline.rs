//! A file read by a Rust source, transformed in JavaScript, written by a Rust sink.
//!
//! `cargo run --example rust_file_pipeline -- [INPUT] [OUTPUT]` reads INPUT (default:
//! `README.md`) through `ReadSource` (a byte stream filling each read's buffer in place),
//! pipes it in JavaScript through `TextDecoderStream`, a `TransformStream` that upper-cases
//! the text, and `TextEncoderStream`, into a `WriteSink` over OUTPUT (default: stdout).

use std::fs::File;
use std::io::Write;

use boa_streams::host::{Host, HostOptions};
use boa_streams::rust::{ReadSource, WriteSink};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let input = args.next().unwrap_or_else(|| "README.md".to_owned());
    let output: Box<dyn Write> = match args.next() {
        Some(path) => Box::new(File::create(path)?),
        None => Box::new(std::io::stdout()),
    };

    let (host, mut ctx) = Host::new(HostOptions::default()).map_err(|e| e.to_string())?;
    let source = ReadSource::new(File::open(&input)?, 16 * 1024).into_stream(&mut ctx)?;
    let sink = WriteSink::new(output).into_stream(&mut ctx)?;
    host.set_global(&mut ctx, "source", source.to_value())
        .map_err(|e| e.to_string())?;
    host.set_global(&mut ctx, "sink", sink.to_value())
        .map_err(|e| e.to_string())?;

    host.eval_script(
        &mut ctx,
        "pipeline.js",
        r#"
        globalThis.result = 'running';
        source
            .pipeThrough(new TextDecoderStream())
            .pipeThrough(new TransformStream({ transform(text, c) { c.enqueue(text.toUpperCase()); } }))
            .pipeThrough(new TextEncoderStream())
            .pipeTo(sink)
            .then(() => { result = 'done'; }, e => { result = 'failed: ' + e; });
        "#,
    )
    .map_err(|e| e.to_string())?;
    host.run_until(&mut ctx, None, &mut |_| false);

    let result = host
        .eval_script(&mut ctx, "result.js", "result")
        .and_then(|v| v.to_string(&mut ctx))
        .map_err(|e| e.to_string())?
        .to_std_string_escaped();
    eprintln!("{input}: {result}");
    if result != "done" {
        return Err(result.into());
    }
    Ok(())
}
