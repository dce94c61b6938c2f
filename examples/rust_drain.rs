//! A JavaScript stream drained into a `Vec<u8>` from Rust.
//!
//! `cargo run --example rust_drain` makes a JS `ReadableStream` whose `pull` enqueues 64-byte
//! chunks, and reads it from Rust with a `DrainingReader`: each read returns every chunk the
//! source can produce synchronously (up to a 4 KiB limit), appended to one `Vec<u8>` in one
//! write. The same stream read with the plain `Reader` needs one read per chunk.

use boa_streams::host::{Host, HostOptions};
use boa_streams::rust::{with_chunk_bytes, ReadableStream};

const SCRIPT: &str = r#"
    (() => {
    let i = 0;
    return new ReadableStream({
        pull(c) {
            c.enqueue(new TextEncoder().encode(`chunk ${String(i).padStart(3, '0')} `.padEnd(64, '.')));
            if (++i == 256) c.close();
        },
    }, { highWaterMark: 0 });
    })()
"#;

// `eval_script` returns the engine's value (a Boa `JsValue` on Boa, already a `Value` on
// QuickJS): the `.into()` is a conversion on one engine and none on the other.
#[allow(clippy::useless_conversion)]
fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (host, mut ctx) = Host::new(HostOptions::default()).map_err(|e| e.to_string())?;

    // Draining: every chunk available now, up to the byte limit, per read.
    let js = host
        .eval_script(&mut ctx, "source.js", SCRIPT)
        .map_err(|e| e.to_string())?;
    let stream = ReadableStream::from_value(&js.clone().into()).ok_or("not a ReadableStream")?;
    let reader = stream.draining_reader(&mut ctx)?;
    let mut bytes = Vec::new();
    let mut reads = 0;
    loop {
        let drained = reader
            .read(4096, &mut ctx)
            .wait(&host, &mut ctx)
            .ok_or("the event loop went idle")??;
        reads += 1;
        for chunk in &drained.chunks {
            with_chunk_bytes(chunk, &mut ctx, |b| bytes.extend_from_slice(b)).ok_or("not bytes")?;
        }
        if drained.done {
            break;
        }
    }
    println!("draining reader: {} bytes in {reads} reads", bytes.len());
    println!("first line: {}", String::from_utf8_lossy(&bytes[..64]));

    // Plain: one chunk per read.
    let js = host
        .eval_script(&mut ctx, "source.js", SCRIPT)
        .map_err(|e| e.to_string())?;
    let reader = ReadableStream::from_value(&js.clone().into())
        .ok_or("not a ReadableStream")?
        .reader(&mut ctx)?;
    let (mut plain, mut reads) = (Vec::new(), 0);
    while let Some(chunk) = reader
        .read(&mut ctx)
        .wait(&host, &mut ctx)
        .ok_or("idle")??
    {
        reads += 1;
        with_chunk_bytes(&chunk, &mut ctx, |b| plain.extend_from_slice(b)).ok_or("not bytes")?;
    }
    println!("plain reader:    {} bytes in {reads} reads", plain.len());
    assert_eq!(plain, bytes);
    Ok(())
}
