//! A TCP server on tokio whose connections pass through a JS `TransformStream`: each
//! connection's bytes are read by a `ReadableStream` over the socket's read half
//! (`ReadableStream::from_async_read`), uppercased by a transform written in JS, and written
//! back through a `WritableStream` over its write half (`WritableStream::from_async_write`).
//! One host (one JS context) serves every connection; the event loop runs as a future on a
//! current-thread runtime, next to the accept loop.
//!
//! ```sh
//! cargo run --features tokio --example tcp_upper -- serve 127.0.0.1:7000   # then: nc 127.0.0.1 7000
//! cargo run --release --features tokio --example tcp_upper -- selftest 1073741824
//! ```
//!
//! `selftest BYTES` starts the server on a loopback port, sends BYTES through one connection
//! from a client task in the same process, checks every byte that comes back, and prints the
//! throughput and the process's peak RSS; `selftest BYTES identity` passes the bytes through an
//! identity `new TransformStream()` instead (no JS per chunk: the bridges' own cost), and
//! checks they come back unchanged.

use std::time::Instant;

use boa_streams::host::{Context, Host, HostOptions};
use boa_streams::rust::{LoopHandle, ReadableStream, WritableStream};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// The per-connection pipeline, in JS: `serve(readable, writable)`.
const SERVE_JS: &str = r#"
globalThis.connections = 0;
globalThis.serve = (readable, writable) => {
  connections++;
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  const upper = new TransformStream({
    transform(chunk, controller) {
      controller.enqueue(encoder.encode(decoder.decode(chunk, { stream: true }).toUpperCase()));
    },
    flush(controller) {
      const rest = decoder.decode();
      if (rest) controller.enqueue(encoder.encode(rest.toUpperCase()));
    },
  });
  return readable.pipeThrough(upper).pipeTo(writable).catch((e) => console.error('connection:', String(e)));
};
"#;

/// Hands a connection to script (in a task of the event loop).
fn serve(ctx: &mut Context, socket: TcpStream) {
    let (read, write) = socket.into_split();
    let run = |ctx: &mut Context| -> Result<(), String> {
        let readable =
            ReadableStream::from_async_read(read, 64 * 1024, ctx).map_err(|e| e.to_string())?;
        let writable = WritableStream::from_async_write(write, ctx).map_err(|e| e.to_string())?;
        let host = Host::from_context(ctx).ok_or("no host")?;
        let serve = host
            .evaluate(ctx, None, "serve")
            .map_err(|e| format!("{e:?}"))?;
        let function = serve.as_callable().ok_or("serve is not a function")?;
        function
            .call(
                &boa_streams::Value::undefined(),
                &[readable.to_value(), writable.to_value()],
                ctx,
            )
            .map_err(|e| format!("{e:?}"))?;
        Ok(())
    };
    if let Err(error) = run(ctx) {
        eprintln!("connection: {error}");
    }
}

/// Accepts connections for ever, handing each to the event loop.
async fn accept_loop(listener: TcpListener, handle: LoopHandle) {
    let _alive = handle.keep_alive();
    loop {
        match listener.accept().await {
            Ok((socket, _)) => handle.queue(move |ctx| serve(ctx, socket)),
            Err(error) => eprintln!("accept: {error}"),
        }
    }
}

/// The process's peak resident set size in KiB (`VmHWM`), if the platform reports it.
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// The identity pipeline, for `selftest BYTES identity`.
const IDENTITY_JS: &str = "globalThis.serve = (readable, writable) => readable.pipeThrough(new TransformStream()).pipeTo(writable);";

/// Sends `total` bytes through the server at `address` and checks what comes back
/// (uppercased, or unchanged with `identity`).
async fn client(address: std::net::SocketAddr, total: u64, identity: bool) -> u64 {
    let stream = TcpStream::connect(address).await.expect("connect");
    let (mut read, mut write) = stream.into_split();
    let writer = tokio::task::spawn_local(async move {
        let block: Vec<u8> = (0..64 * 1024)
            .map(|i| b"abcdefghijklmnopqrstuvwxyz0123456789 \n"[i % 38])
            .collect();
        let mut sent = 0u64;
        while sent < total {
            let n = (total - sent).min(block.len() as u64) as usize;
            write.write_all(&block[..n]).await.expect("write");
            sent += n as u64;
        }
        write.shutdown().await.expect("shutdown");
    });
    let expected_text: &[u8] = if identity {
        b"abcdefghijklmnopqrstuvwxyz0123456789 \n"
    } else {
        b"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 \n"
    };
    let expected: Vec<u8> = (0..64 * 1024).map(|i| expected_text[i % 38]).collect();
    let mut buf = vec![0u8; 64 * 1024];
    let mut received = 0u64;
    loop {
        let n = read.read(&mut buf).await.expect("read");
        if n == 0 {
            break;
        }
        for (i, b) in buf[..n].iter().enumerate() {
            let at = ((received + i as u64) % (64 * 1024)) as usize;
            assert_eq!(
                *b,
                expected[at],
                "byte {} came back wrong",
                received + i as u64
            );
        }
        received += n as u64;
    }
    writer.await.expect("the writer");
    received
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mode = args.first().map(String::as_str).unwrap_or("selftest");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    tokio::task::LocalSet::new().block_on(&runtime, async {
        let (host, mut ctx) = Host::new(HostOptions::default()).expect("a host");
        host.eval_script(&mut ctx, "serve.js", SERVE_JS).expect("serve.js");
        let handle = LoopHandle::new(&ctx).expect("a host context");
        match mode {
            "serve" => {
                let address = args.get(1).map(String::as_str).unwrap_or("127.0.0.1:7000");
                let listener = TcpListener::bind(address).await.expect("bind");
                eprintln!("uppercasing on {}", listener.local_addr().expect("an address"));
                tokio::task::spawn_local(accept_loop(listener, handle));
                host.run(&mut ctx).await;
            }
            _ => {
                let total: u64 = args.get(1).and_then(|n| n.parse().ok()).unwrap_or(64 << 20);
                let identity = args.get(2).map(String::as_str) == Some("identity");
                if identity {
                    host.eval_script(&mut ctx, "identity.js", IDENTITY_JS).expect("identity.js");
                }
                let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
                let address = listener.local_addr().expect("an address");
                tokio::task::spawn_local(accept_loop(listener, handle));
                let start = Instant::now();
                let received = host
                    .complete(&mut ctx, client(address, total, identity))
                    .await
                    .expect("the client finishes");
                let elapsed = start.elapsed();
                assert_eq!(received, total);
                for report in host.take_reports() {
                    eprintln!("{report}");
                }
                println!(
                    "tcp_upper selftest{}: {total} bytes through a JS TransformStream and back in {:.2} s ({:.1} MB/s), peak RSS {} KiB",
                    if identity { " (identity)" } else { "" },
                    elapsed.as_secs_f64(),
                    total as f64 / elapsed.as_secs_f64() / 1e6,
                    peak_rss_kib().map_or("?".to_owned(), |k| k.to_string()),
                );
            }
        }
    });
}
