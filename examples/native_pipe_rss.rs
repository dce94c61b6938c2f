//! Peak memory of a native pipe: `pipeTo` from a Rust byte source that makes its bytes as it is
//! pulled (64 KiB auto-allocated requests) to a Rust sink that only counts them. Neither end
//! holds the data, so what the process's peak resident memory grows by is what the pipe holds
//! in flight (and what the garbage collector has not freed yet). Each size runs twice: to a
//! `Sink` (chunks are JS `Uint8Array`s: the pipe reads with a default reader, each read
//! auto-allocates an `ArrayBuffer`) and to a `ByteSink` (the native pipe: BYOB reads into the
//! pipe's recycled Rust buffers). Then a compressed body: the same number of MiB of text,
//! gzip-compressed beforehand (the compressed bytes are allocated before the first reading),
//! read 64 KiB at a time by a Rust byte source and piped through `DecompressionStream('gzip')`
//! and `TextDecoderStream` to a Rust sink that counts the text.
//!
//! ```text
//! cargo run --release --example native_pipe_rss -- [MiB ...]     (default: 64 256)
//! ```
//!
//! Each run is a fresh process (the example re-runs itself), so each peak is its own.

use std::{process::ExitCode, time::Instant};

use boa_streams::host::{Host, HostOptions};
use boa_streams::rust::{
    with_chunk_bytes, ByteController, ByteSink, ByteSource, Completion, Context, ReadableStream,
    Sink, StreamError, Value, WritableController, WritableStream,
};

const CHUNK: usize = 64 * 1024;

/// Fills each BYOB request with a byte pattern until `left` bytes were made.
struct Generated {
    left: usize,
}

impl ByteSource for Generated {
    fn pull(&mut self, c: &ByteController, ctx: &mut Context) -> Result<Completion, StreamError> {
        if self.left == 0 {
            c.close(ctx)?;
            return Ok(Completion::Ready);
        }
        if let Some(request) = c.byob_request() {
            let left = self.left;
            let n = request
                .fill(|buf| {
                    let n = buf.len().min(left);
                    for (i, b) in buf[..n].iter_mut().enumerate() {
                        *b = i as u8;
                    }
                    n
                })
                .unwrap_or(0);
            self.left -= n;
            request.respond(n, ctx)?;
        }
        Ok(Completion::Ready)
    }
}

/// Counts the bytes written.
struct Counting(std::rc::Rc<std::cell::Cell<usize>>);

impl Sink for Counting {
    fn write(
        &mut self,
        chunk: Value,
        _: &WritableController,
        ctx: &mut Context,
    ) -> Result<Completion, StreamError> {
        let n = with_chunk_bytes(&chunk, ctx, <[u8]>::len)
            .ok_or_else(|| StreamError::type_error("bytes only"))?;
        self.0.set(self.0.get() + n);
        Ok(Completion::Ready)
    }
}

impl ByteSink for Counting {
    fn write(
        &mut self,
        bytes: &[u8],
        _: &WritableController,
        _: &mut Context,
    ) -> Result<Completion, StreamError> {
        self.0.set(self.0.get() + bytes.len());
        Ok(Completion::Ready)
    }
}

/// Counts the UTF-16 code units of the string chunks written.
struct CountText(std::rc::Rc<std::cell::Cell<usize>>);

impl Sink for CountText {
    fn write(
        &mut self,
        chunk: Value,
        _: &WritableController,
        _: &mut Context,
    ) -> Result<Completion, StreamError> {
        let n = chunk
            .as_string()
            .map(|s| s.len())
            .ok_or_else(|| StreamError::type_error("strings only"))?;
        self.0.set(self.0.get() + n);
        Ok(Completion::Ready)
    }
}

/// Serves `data` in requests of up to 64 KiB, filled in place.
struct Compressed {
    data: Vec<u8>,
    at: usize,
}

impl ByteSource for Compressed {
    fn pull(&mut self, c: &ByteController, ctx: &mut Context) -> Result<Completion, StreamError> {
        if self.at == self.data.len() {
            c.close(ctx)?;
            return Ok(Completion::Ready);
        }
        if let Some(request) = c.byob_request() {
            let (data, at) = (&self.data, self.at);
            let n = request
                .fill(|buf| {
                    let n = buf.len().min(data.len() - at);
                    buf[..n].copy_from_slice(&data[at..at + n]);
                    n
                })
                .unwrap_or(0);
            self.at += n;
            request.respond(n, ctx)?;
        }
        Ok(Completion::Ready)
    }
}

/// `mib` MiB of ASCII text (pseudo-random words), gzip-compressed.
fn compressed_text(mib: usize) -> Vec<u8> {
    use std::io::Write;
    const WORDS: [&str; 8] = [
        "stream", "chunk", "pipe", "queue", "bytes", "reader", "writer", "body",
    ];
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let mut line = String::new();
    let mut x: u32 = 0x2545_f491;
    let mut written = 0;
    while written < mib << 20 {
        line.clear();
        for _ in 0..12 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            line.push_str(WORDS[(x % 8) as usize]);
            line.push(' ');
        }
        line.push('\n');
        written += line.len();
        let _ = encoder.write_all(line.as_bytes());
    }
    encoder.finish().unwrap_or_default()
}

/// What the host's `eval_script` returns, as the library's value type (the same type on QuickJS,
/// Boa's `JsValue` on Boa).
fn as_value(value: impl Into<Value>) -> Value {
    value.into()
}

fn run_decompress(mib: usize) -> Result<(), String> {
    let (host, mut ctx) = Host::new(HostOptions::default()).map_err(|e| e.to_string())?;
    let data = compressed_text(mib);
    let compressed = data.len();
    let before = peak_rss_kib();
    let count = std::rc::Rc::new(std::cell::Cell::new(0));
    let start = Instant::now();
    let body =
        ReadableStream::from_byte_source(Compressed { data, at: 0 }, 0.0, Some(CHUNK), &mut ctx)
            .map_err(|e| e.to_string())?;
    host.set_global(&mut ctx, "body", body.to_value())
        .map_err(|e| format!("{e:?}"))?;
    let text = as_value(
        host.eval_script(
            &mut ctx,
            "decode.js",
            "body.pipeThrough(new DecompressionStream('gzip')).pipeThrough(new TextDecoderStream())",
        )
        .map_err(|e| format!("{e:?}"))?,
    );
    let text = ReadableStream::from_value(&text).ok_or("not a stream")?;
    let sink = WritableStream::from_sink(CountText(count.clone()), 1.0, &mut ctx)
        .map_err(|e| e.to_string())?;
    text.pipe_to(&sink, &mut ctx)
        .wait(&host, &mut ctx)
        .ok_or("the pipe did not settle")?
        .map_err(|e| e.to_string())?;
    let elapsed = start.elapsed();
    let after = peak_rss_kib();
    match (before, after) {
        (Some(b), Some(a)) => println!(
            "{mib} MiB of text ({:.1} MiB gzip) through DecompressionStream and TextDecoderStream to a Sink: {:.2} s; peak RSS {:.1} MiB before, {:.1} MiB after (growth {:.1} MiB); {} UTF-16 units",
            compressed as f64 / 1048576.0,
            elapsed.as_secs_f64(),
            b as f64 / 1024.0,
            a as f64 / 1024.0,
            a.saturating_sub(b) as f64 / 1024.0,
            count.get()
        ),
        _ => println!("{mib} MiB: {:.2} s; peak RSS not reported here", elapsed.as_secs_f64()),
    }
    Ok(())
}

/// The process's peak resident set size in KiB (`VmHWM`).
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn run_one(mib: usize, byte_sink: bool) -> Result<(), String> {
    let (host, mut ctx) = Host::new(HostOptions::default()).map_err(|e| e.to_string())?;
    let before = peak_rss_kib();
    let length = mib * 1024 * 1024;
    let count = std::rc::Rc::new(std::cell::Cell::new(0));
    let start = Instant::now();
    let source =
        ReadableStream::from_byte_source(Generated { left: length }, 0.0, Some(CHUNK), &mut ctx)
            .map_err(|e| e.to_string())?;
    let sink = if byte_sink {
        WritableStream::from_byte_sink(Counting(count.clone()), 1.0, &mut ctx)
    } else {
        WritableStream::from_sink(Counting(count.clone()), 1.0, &mut ctx)
    }
    .map_err(|e| e.to_string())?;
    let kind = if byte_sink { "ByteSink" } else { "Sink" };
    source
        .pipe_to(&sink, &mut ctx)
        .wait(&host, &mut ctx)
        .ok_or("the pipe did not settle")?
        .map_err(|e| e.to_string())?;
    let elapsed = start.elapsed();
    let after = peak_rss_kib();
    if count.get() != length {
        return Err(format!("piped {} of {length} bytes", count.get()));
    }
    match (before, after) {
        (Some(b), Some(a)) => println!(
            "{mib} MiB in {CHUNK}-byte chunks to a {kind}: {:.2} s; peak RSS {:.1} MiB before, {:.1} MiB after (growth {:.1} MiB)",
            elapsed.as_secs_f64(),
            b as f64 / 1024.0,
            a as f64 / 1024.0,
            a.saturating_sub(b) as f64 / 1024.0
        ),
        _ => println!("{mib} MiB: {:.2} s; peak RSS not reported here", elapsed.as_secs_f64()),
    }
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [flag, mib, kind] = args.as_slice() {
        if flag == "--one" {
            let byte_sink = kind == "byte-sink";
            let mib = mib.parse().map_err(|e| format!("{e}"));
            let result = if kind == "decompress" {
                mib.and_then(run_decompress)
            } else {
                mib.and_then(|mib| run_one(mib, byte_sink))
            };
            return match result {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("{e}");
                    ExitCode::FAILURE
                }
            };
        }
    }
    let sizes: Vec<String> = if args.is_empty() {
        vec!["64".into(), "256".into()]
    } else {
        args
    };
    let Ok(me) = std::env::current_exe() else {
        return ExitCode::FAILURE;
    };
    for mib in sizes {
        for kind in ["sink", "byte-sink", "decompress"] {
            let status = std::process::Command::new(&me)
                .args(["--one", &mib, kind])
                .status();
            if !status.is_ok_and(|s| s.success()) {
                return ExitCode::FAILURE;
            }
        }
    }
    ExitCode::SUCCESS
}
