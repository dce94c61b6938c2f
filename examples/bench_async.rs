//! Throughput of streams between tokio I/O ends: 64 KiB chunks from an `AsyncRead` through
//! `pipeThrough(new TransformStream())` (in script) into an `AsyncWrite`, against
//! `tokio::io::copy` between the same two ends; and the JS objects the library makes per chunk
//! on that path.
//!
//! ```sh
//! cargo run --release --features tokio --example bench_async [MiB]
//! ```

use std::time::{Duration, Instant};

use boa_streams::host::{Host, HostOptions};
use boa_streams::rust::{ReadableStream, WritableStream};
use tokio::io::AsyncReadExt;

const CHUNK: usize = 64 * 1024;

/// The ends a transfer runs between.
#[derive(Clone, Copy, Debug)]
enum Ends {
    /// `tokio::io::repeat(..).take(n)` into `tokio::io::sink()`: no I/O at all, so the streams'
    /// own cost per chunk against a bare loop.
    Memory,
    /// Two `tokio::io::duplex` pipes (256 KiB buffers): a task writes the bytes into the first,
    /// the transfer reads its other end and writes into the second, a task drains that.
    Duplex,
    /// Two loopback TCP connections (127.0.0.1): a task sends the bytes into the first, the
    /// transfer reads its server side and writes into the second, a task drains that.
    Tcp,
}

type Reader = Box<dyn tokio::io::AsyncRead + Unpin>;
type Writer = Box<dyn tokio::io::AsyncWrite + Unpin>;

/// The two ends of a transfer of `bytes` bytes, with the tasks that feed and drain them.
async fn ends(kind: Ends, bytes: u64) -> (Reader, Writer, Vec<tokio::task::JoinHandle<()>>) {
    use tokio::io::AsyncWriteExt;
    let feed = |mut w: Box<dyn tokio::io::AsyncWrite + Unpin>| {
        tokio::task::spawn_local(async move {
            let block = vec![b'x'; CHUNK];
            let mut sent = 0;
            while sent < bytes {
                let n = (bytes - sent).min(CHUNK as u64) as usize;
                w.write_all(&block[..n]).await.expect("feed");
                sent += n as u64;
            }
            w.shutdown().await.expect("shutdown");
        })
    };
    let drain = |mut r: Box<dyn tokio::io::AsyncRead + Unpin>| {
        tokio::task::spawn_local(async move {
            let mut buf = vec![0u8; CHUNK];
            let mut got = 0u64;
            loop {
                let n = r.read(&mut buf).await.expect("drain");
                if n == 0 {
                    break;
                }
                got += n as u64;
            }
            assert_eq!(got, bytes, "every byte arrived");
        })
    };
    match kind {
        Ends::Memory => (
            Box::new(tokio::io::repeat(b'x').take(bytes)),
            Box::new(tokio::io::sink()),
            Vec::new(),
        ),
        Ends::Duplex => {
            let (a_in, a_out) = tokio::io::duplex(4 * CHUNK);
            let (b_in, b_out) = tokio::io::duplex(4 * CHUNK);
            let tasks = vec![feed(Box::new(a_in)), drain(Box::new(b_out))];
            (Box::new(a_out), Box::new(b_in), tasks)
        }
        Ends::Tcp => {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                .await
                .expect("bind");
            let address = listener.local_addr().expect("an address");
            let a_client = tokio::net::TcpStream::connect(address)
                .await
                .expect("connect");
            let (a_server, _) = listener.accept().await.expect("accept");
            let b_client = tokio::net::TcpStream::connect(address)
                .await
                .expect("connect");
            let (b_server, _) = listener.accept().await.expect("accept");
            let tasks = vec![feed(Box::new(a_client)), drain(Box::new(b_client))];
            (Box::new(a_server), Box::new(b_server), tasks)
        }
    }
}

/// One transfer through the streams; returns its time and the library's JS objects made.
async fn through_streams(kind: Ends, bytes: u64) -> (Duration, u64) {
    let (host, mut ctx) = Host::new(HostOptions::default()).expect("a host");
    let (reader, writer, tasks) = ends(kind, bytes).await;
    let rs = ReadableStream::from_async_read(reader, CHUNK, &mut ctx).expect("a readable");
    let ws = WritableStream::from_async_write(writer, &mut ctx).expect("a writable");
    host.set_global(&mut ctx, "rs", rs).expect("rs");
    host.set_global(&mut ctx, "ws", ws).expect("ws");
    let objects = boa_streams::js_objects_created();
    let start = Instant::now();
    host.eval_script(
        &mut ctx,
        "pipe.js",
        "globalThis.done = 'pending'; rs.pipeThrough(new TransformStream()).pipeTo(ws).then(() => done = 'ok', (e) => done = String(e));",
    )
    .expect("pipe.js");
    host.run(&mut ctx).await;
    for task in tasks {
        task.await.expect("the end's task");
    }
    let elapsed = start.elapsed();
    let made = boa_streams::js_objects_created() - objects;
    let done = host
        .eval_script(&mut ctx, "check.js", "done")
        .expect("done");
    let done = done
        .to_string(&mut ctx)
        .expect("a string")
        .to_std_string_escaped();
    assert_eq!(done, "ok", "the pipe finished");
    (elapsed, made)
}

async fn plain_copy(kind: Ends, bytes: u64) -> Duration {
    let (mut reader, mut writer, tasks) = ends(kind, bytes).await;
    let start = Instant::now();
    let copied = tokio::io::copy(&mut reader, &mut writer)
        .await
        .expect("copy");
    tokio::io::AsyncWriteExt::shutdown(&mut writer)
        .await
        .expect("shutdown");
    drop(writer);
    for task in tasks {
        task.await.expect("the end's task");
    }
    assert_eq!(copied, bytes);
    start.elapsed()
}

fn main() {
    let mib: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1024);
    let bytes = mib << 20;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    tokio::task::LocalSet::new().block_on(&runtime, async {
        // Objects per chunk: the difference between two sizes cancels the per-pipe setup.
        let (_, small) = through_streams(Ends::Memory, 64 * CHUNK as u64).await;
        let (_, large) = through_streams(Ends::Memory, 1024 * CHUNK as u64).await;
        let per_chunk = (large as f64 - small as f64) / (1024.0 - 64.0);
        println!("bench_async: {mib} MiB in 64 KiB chunks, best of 3");
        for kind in [Ends::Memory, Ends::Duplex, Ends::Tcp] {
            let mut best_streams = Duration::MAX;
            let mut best_copy = Duration::MAX;
            for _ in 0..3 {
                best_streams = best_streams.min(through_streams(kind, bytes).await.0);
                best_copy = best_copy.min(plain_copy(kind, bytes).await);
            }
            let rate = |d: Duration| bytes as f64 / d.as_secs_f64() / 1e9;
            println!(
                "  {kind:?}: streams {:.2} GB/s ({:.3} s), tokio::io::copy {:.2} GB/s ({:.3} s): {:.2}x",
                rate(best_streams),
                best_streams.as_secs_f64(),
                rate(best_copy),
                best_copy.as_secs_f64(),
                best_copy.as_secs_f64() / best_streams.as_secs_f64(),
            );
        }
        println!("  JS objects made by the library per chunk: {per_chunk:.3} ({small} for 64 chunks, {large} for 1024)");
    });
}
