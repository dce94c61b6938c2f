//! A Rust fetcher streams a gzip body into `response.body.pipeThrough(new
//! DecompressionStream('gzip'))`, read to the end from JavaScript; prints the bytes, the time and
//! the process's peak resident memory before and after, to show that memory is bounded by the
//! streams' queues, not by the body's length.
//!
//! ```text
//! cargo run --release --example fetch_gzip -- [MiB]     (default 64)
//! ```
//!
//! The body is pseudo-random bytes (incompressible, so the compressed stream is as long as the
//! data) compressed on the fly by the fetcher's reader: neither side ever holds the whole body.

use std::{
    io::Read,
    process::ExitCode,
    sync::{
        atomic::{AtomicU64, Ordering},
        Arc,
    },
    time::Instant,
};

use boa_streams::fetcher::{
    BodyReader, FetchRequest, FetchResponse, Fetcher, IoBodyReader, ResponseBody,
};
use boa_streams::host::{error_message, Host, HostOptions};

/// Pseudo-random bytes (xorshift64).
struct Noise {
    state: u64,
    left: u64,
}

impl Read for Noise {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = (buf.len() as u64).min(self.left) as usize;
        for byte in &mut buf[..n] {
            self.state ^= self.state << 13;
            self.state ^= self.state >> 7;
            self.state ^= self.state << 17;
            *byte = self.state as u8;
        }
        self.left -= n as u64;
        Ok(n)
    }
}

/// Counts the compressed bytes handed to the stream.
struct Counted<R> {
    inner: R,
    counter: Arc<AtomicU64>,
}

impl<R: BodyReader> BodyReader for Counted<R> {
    fn read_chunk(&mut self) -> Result<Option<Vec<u8>>, String> {
        let chunk = self.inner.read_chunk()?;
        if let Some(chunk) = &chunk {
            self.counter
                .fetch_add(chunk.len() as u64, Ordering::Relaxed);
        }
        Ok(chunk)
    }
}

struct GzipFetcher {
    length: u64,
    compressed: Arc<AtomicU64>,
}

impl Fetcher for GzipFetcher {
    fn fetch(&self, _: &FetchRequest) -> Result<FetchResponse, String> {
        let noise = Noise {
            state: 0x9E37_79B9_7F4A_7C15,
            left: self.length,
        };
        let gzip = flate2::read::GzEncoder::new(noise, flate2::Compression::fast());
        Ok(FetchResponse::ok(ResponseBody::Reader(Box::new(Counted {
            inner: IoBodyReader::new(gzip, 64 * 1024),
            counter: self.compressed.clone(),
        }))))
    }
}

/// The process's peak resident set size in KiB (`VmHWM`), if the platform reports it.
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn main() -> ExitCode {
    let mib: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(64);
    let length = mib * 1024 * 1024;
    let compressed = Arc::new(AtomicU64::new(0));
    let options = HostOptions {
        fetcher: Some(Arc::new(GzipFetcher {
            length,
            compressed: compressed.clone(),
        })),
        ..HostOptions::default()
    };
    let (host, mut ctx) = match Host::new(options) {
        Ok(built) => built,
        Err(error) => {
            eprintln!("cannot set up the host: {error}");
            return ExitCode::FAILURE;
        }
    };
    let before = peak_rss_kib();
    let script = r"
        globalThis.total = 0; globalThis.chunks = 0; globalThis.done = false;
        fetch('https://example.test/body.gz').then(async r => {
            const reader = r.body.pipeThrough(new DecompressionStream('gzip')).getReader();
            for (;;) {
                const { value, done } = await reader.read();
                if (done) break;
                total += value.length;
                chunks += 1;
            }
            done = true;
        });
    ";
    let start = Instant::now();
    if let Err(error) = host.eval_script(&mut ctx, "fetch_gzip.js", script) {
        eprintln!("Uncaught {}", error_message(error, &mut ctx));
        return ExitCode::FAILURE;
    }
    host.run_until(&mut ctx, None, &mut |_| false);
    let elapsed = start.elapsed();
    let after = peak_rss_kib();
    let result = host
        .eval_script(&mut ctx, "result.js", "[done, total, chunks].join(' ')")
        .ok()
        .and_then(|v| v.as_string().map(|s| s.to_std_string_escaped()))
        .unwrap_or_default();
    for report in host.take_reports() {
        eprintln!("{report}");
    }
    let fields: Vec<&str> = result.split(' ').collect();
    println!(
        "body: {mib} MiB decompressed ({} bytes compressed)",
        compressed.load(Ordering::Relaxed)
    );
    println!(
        "read: done={} bytes={} chunks={}",
        fields.first().unwrap_or(&"?"),
        fields.get(1).unwrap_or(&"?"),
        fields.get(2).unwrap_or(&"?")
    );
    println!(
        "time: {:.2} s ({:.1} MB/s)",
        elapsed.as_secs_f64(),
        length as f64 / 1e6 / elapsed.as_secs_f64()
    );
    match (before, after) {
        (Some(b), Some(a)) => println!(
            "peak RSS: {:.1} MiB before the fetch, {:.1} MiB after (growth {:.1} MiB for a {mib} MiB body)",
            b as f64 / 1024.0,
            a as f64 / 1024.0,
            (a.saturating_sub(b)) as f64 / 1024.0
        ),
        _ => println!("peak RSS: not reported on this platform"),
    }
    if fields.first() == Some(&"true") && fields.get(1) == Some(&length.to_string().as_str()) {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
