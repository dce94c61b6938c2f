//! Soaks `boa_streams::http`'s server in one process: a load of mixed requests, many of whose
//! clients go away mid-body or mid-upload, then counts what the server still holds.
//!
//! ```text
//! cargo run --release --features http --example http_soak -- [--seconds S] [--clients C]
//! cargo run --release --features http --example http_soak -- --disconnects N [--clients C]
//! cargo run --release --features http --example http_soak -- --slow-client [--seconds S]
//! ```
//! (`--no-default-features --features rquickjs-futures,tokio,http` for QuickJS.)
//!
//! The server runs a script's handler on this thread's loop; the clients run on a second
//! thread (its own tokio runtime) over loopback, with hyper's client.
//! - **Mixed** (the default, 600 s, 32 clients): complete reads of value, byte, timer and tiny
//!   chunk bodies, a static 1 MiB body, uploads echoed back through a `TransformStream`, a
//!   proxy that `fetch()`es a body from the same server; and clients that go away before the
//!   response, mid-body and mid-upload.
//! - **`--disconnects N`:** N requests for an endless body, each client going away after
//!   64–256 KiB.
//! - **`--slow-client`:** one client reads an endless body at 1 MiB/s; the report gives how
//!   far the server's source ran ahead of what the client had read (its high-water marks,
//!   hyper's frame and the sockets' buffers bound it; the body does not).
//!
//! RSS is sampled every second. At the end the report counts:
//! - the server's connections, requests and bodies in flight (0 once the clients are gone);
//! - the body streams the handler made against those that closed or were cancelled (equal);
//! - the process's open file descriptors against those before the load (equal: no socket
//!   or port left behind);
//! - whether RSS is flat after warm-up: the peak of the last fifth of the samples within 10%
//!   (or 16 MiB) of the peak of the second fifth, as `scripts/soak` judges.
//!
//! It exits 1 when a count or the RSS check fails, or a complete read came back wrong.

use std::cell::Cell;
use std::net::SocketAddr;
use std::pin::Pin;
use std::process::ExitCode;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::task::{Context as TaskContext, Poll};
use std::time::{Duration, Instant};

use boa_streams::host::{Context, Host, HostOptions};
use boa_streams::http::{ServeOptions, Server, TokioIo};
use bytes::Bytes;
use http_body::{Body as _, Frame};

/// The handler: each body stream it makes counts in `made`, and in `ended` once it closed or
/// was cancelled. `sent` is the bytes the endless sources have enqueued. (Chunks are left
/// zeroed: Boa 0.22's `TypedArray.prototype.fill` sets element by element through the generic
/// path, which would make the handler, not the server, what a Boa soak measures.)
const HANDLER: &str = r#"
globalThis.made = 0; globalThis.ended = 0; globalThis.sent = 0;
const counted = (source, strategy) => {
    made++;
    const pull = source.pull;
    let over = false;
    const end = () => { if (!over) { over = true; ended++; } };
    return new ReadableStream({
        ...source,
        pull(c) { const r = pull.call(source, c, end); return r; },
        cancel() { end(); },
    }, strategy);
};
const chunks = (size, count, strategy) => {
    let i = 0;
    return counted({ pull(c, end) { c.enqueue(new Uint8Array(size)); if (++i == count) { c.close(); end(); } } }, strategy);
};
const bytes = (size, count) => {
    let i = 0;
    return counted({
        type: 'bytes', autoAllocateChunkSize: 65536,
        pull(c, end) {
            const n = Math.min(size, c.byobRequest.view.byteLength);
            c.byobRequest.respond(n);
            if (++i == count) { c.close(); end(); }
        },
    });
};
const timer = (size, count) => {
    let i = 0;
    return counted({
        pull(c, end) {
            return new Promise((resolve) => setTimeout(() => {
                try { c.enqueue(new Uint8Array(size)); if (++i == count) { c.close(); end(); } } catch {}
                resolve();
            }, 1));
        },
    });
};
const endless = () => counted({ pull(c) { c.enqueue(new Uint8Array(16384)); sent += 16384; } });
const STATIC = new Uint8Array(1 << 20).fill(7);
let port = 0;
serve(async (request) => {
    const path = new URL(request.url).pathname;
    switch (path) {
        case '/large': return new Response(chunks(65536, 16));
        case '/medium-hwm0': return new Response(chunks(4096, 100, { highWaterMark: 0 }));
        case '/tiny': return new Response(chunks(64, 256));
        case '/byte': return new Response(bytes(65536, 16));
        case '/timer': return new Response(timer(4096, 10));
        case '/static': return new Response(STATIC);
        case '/endless': return new Response(endless());
        case '/late':
            await new Promise((resolve) => setTimeout(resolve, 5));
            return new Response(chunks(4096, 10));
        case '/echo': {
            made++;
            let over = false;
            const end = () => { if (!over) { over = true; ended++; } };
            return new Response(request.body.pipeThrough(new TransformStream({
                flush() { end(); }, cancel() { end(); },
            })));
        }
        case '/proxy': {
            const upstream = await fetch(`http://${new URL(request.url).host}/large`);
            return new Response(upstream.body);
        }
    }
    return new Response('ok');
});
// Wakes the loop every 100 ms, so the sampler runs while nothing else moves.
globalThis.ticker = setInterval(() => {}, 100);
"#;

/// Lengths of the bodies a complete read must get.
const SHAPES: &[(&str, usize)] = &[
    ("/large", 65536 * 16),
    ("/medium-hwm0", 4096 * 100),
    ("/tiny", 64 * 256),
    ("/byte", 65536 * 16),
    ("/timer", 4096 * 10),
    ("/static", 1 << 20),
    ("/proxy", 65536 * 16),
];

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Mixed,
    Disconnects(u64),
    SlowClient,
}

struct Options {
    mode: Mode,
    seconds: u64,
    clients: usize,
}

fn main() -> ExitCode {
    boa_streams::host::keep_freed_memory_mapped();
    let mut options = Options {
        mode: Mode::Mixed,
        seconds: 600,
        clients: 32,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut number = |name: &str| -> Result<u64, ExitCode> {
            args.next()
                .and_then(|n| n.parse().ok())
                .ok_or_else(|| usage(&format!("{name} needs a number")))
        };
        match arg.as_str() {
            "--seconds" => match number("--seconds") {
                Ok(n) => options.seconds = n,
                Err(code) => return code,
            },
            "--clients" => match number("--clients") {
                Ok(n) => options.clients = n.max(1) as usize,
                Err(code) => return code,
            },
            "--disconnects" => match number("--disconnects") {
                Ok(n) => options.mode = Mode::Disconnects(n),
                Err(code) => return code,
            },
            "--slow-client" => options.mode = Mode::SlowClient,
            other => return usage(&format!("unknown argument {other}")),
        }
    }
    if options.mode == Mode::SlowClient && options.seconds == 600 {
        options.seconds = 30;
    }
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => return usage(&format!("a runtime: {error}")),
    };
    tokio::task::LocalSet::new().block_on(&runtime, soak(options))
}

fn usage(message: &str) -> ExitCode {
    eprintln!(
        "http_soak: {message}\nusage: http_soak [--seconds S] [--clients C] \
         [--disconnects N | --slow-client]"
    );
    ExitCode::from(2)
}

/// What the client thread counts.
#[derive(Default)]
struct Tally {
    complete: AtomicU64,
    wrong: AtomicU64,
    gone_mid_body: AtomicU64,
    gone_early: AtomicU64,
    gone_mid_upload: AtomicU64,
    bytes: AtomicU64,
    done: AtomicBool,
}

async fn soak(options: Options) -> ExitCode {
    let (host, mut ctx) = match Host::new(HostOptions::default()) {
        Ok(made) => made,
        Err(error) => return usage(&format!("a host: {error}")),
    };
    if let Err(error) = boa_streams::http::install(&mut ctx)
        .and_then(|()| boa_streams::http::install_fetcher(&mut ctx))
    {
        return usage(&format!("install: {error}"));
    }
    if let Err(error) = host.eval_script(&mut ctx, "soak-handler.js", HANDLER) {
        eprintln!("{}", boa_streams::host::error_message(error, &mut ctx));
        return ExitCode::from(1);
    }
    let server = match Server::new(ServeOptions::default(), &ctx) {
        Ok(server) => server,
        Err(error) => return usage(&format!("serve: {error}")),
    };
    let listener = match tokio::net::TcpListener::bind("127.0.0.1:0").await {
        Ok(listener) => listener,
        Err(error) => return usage(&format!("bind: {error}")),
    };
    let Ok(address) = listener.local_addr() else {
        return usage("no local address");
    };
    tokio::task::spawn_local(server.clone().run(listener));
    let fds_before = open_fds();
    let tally = Arc::new(Tally::default());
    let clients = {
        let tally = Arc::clone(&tally);
        let (mode, seconds, count) = (options.mode, options.seconds, options.clients);
        std::thread::spawn(move || run_clients(address, mode, seconds, count, tally))
    };

    // The loop runs until the clients are done; RSS (and, for the slow client, the run-ahead)
    // sampled every second meanwhile.
    let start = Instant::now();
    let mut samples: Vec<(u64, u64)> = Vec::new();
    let next = Cell::new(Instant::now());
    let run_ahead = Cell::new(0u64);
    host.run_until_async(&mut ctx, |ctx| {
        if Instant::now() >= next.get() {
            next.set(next.get() + Duration::from_secs(1));
            samples.push((start.elapsed().as_secs(), rss_kib()));
            if options.mode == Mode::SlowClient {
                let sent = number(ctx, "sent");
                let read = tally.bytes.load(Ordering::Relaxed);
                run_ahead.set(run_ahead.get().max(sent.saturating_sub(read)));
            }
        }
        tally.done.load(Ordering::Acquire)
    })
    .await;
    let _ = clients.join();

    // Then everything the clients started must end: connections close, streams end. (The
    // proxy's fetches keep their connections to this server alive in the fetcher's pool once
    // done: they are closed as a shutdown would.)
    let settle = Instant::now() + Duration::from_secs(20);
    host.run_until_async(&mut ctx, |ctx| {
        boa_streams::http::close_idle_connections(ctx);
        let stats = server.stats();
        Instant::now() > settle
            || (stats.connections == 0
                && stats.requests_in_flight == 0
                && stats.bodies_in_flight == 0
                && number(ctx, "made") == number(ctx, "ended"))
    })
    .await;
    let stats = server.stats();
    let (made, ended) = (number(&mut ctx, "made"), number(&mut ctx, "ended"));
    let fds_after = open_fds();
    let reports = host.take_reports();

    println!("engine: {}", engine_name());
    println!(
        "{:.0} s; requests {}; complete reads {} ({} wrong); gone before the response {}, \
         mid-body {}, mid-upload {}; {:.1} MiB read by clients",
        start.elapsed().as_secs_f64(),
        stats.requests,
        tally.complete.load(Ordering::Relaxed),
        tally.wrong.load(Ordering::Relaxed),
        tally.gone_early.load(Ordering::Relaxed),
        tally.gone_mid_body.load(Ordering::Relaxed),
        tally.gone_mid_upload.load(Ordering::Relaxed),
        tally.bytes.load(Ordering::Relaxed) as f64 / (1 << 20) as f64,
    );
    println!(
        "left behind: connections {}, requests in flight {}, bodies in flight {}; \
         streams made {made}, ended {ended}; open fds {fds_before} before, {fds_after} after",
        stats.connections, stats.requests_in_flight, stats.bodies_in_flight
    );
    if options.mode == Mode::SlowClient {
        println!(
            "slow client: the source ran at most {} KiB ahead of the client's reads",
            run_ahead.get() / 1024
        );
    }
    println!("host reports: {}", reports.len());
    for report in reports.iter().take(5) {
        println!("  {report}");
    }
    let (flat, verdict) = rss_verdict(&samples);
    println!("RSS: {verdict}");

    let ok = stats.connections == 0
        && stats.requests_in_flight == 0
        && stats.bodies_in_flight == 0
        && made == ended
        && fds_after <= fds_before
        && tally.wrong.load(Ordering::Relaxed) == 0
        && flat;
    server.close();
    host.eval_script(&mut ctx, "stop.js", "clearInterval(ticker)")
        .ok();
    host.run_until_async(&mut ctx, |_| false).await;
    if ok {
        println!("http_soak: clean");
        ExitCode::SUCCESS
    } else {
        println!("http_soak: FAILED");
        ExitCode::from(1)
    }
}

fn engine_name() -> &'static str {
    if cfg!(feature = "engine-boa") {
        "boa"
    } else {
        "quickjs"
    }
}

/// `globalThis[name]` as a number (0 when it is not one).
fn number(ctx: &mut Context, name: &str) -> u64 {
    Host::from_context(ctx)
        .and_then(|host| host.eval_script(ctx, "count.js", name).ok())
        .and_then(|value| value.to_string(ctx).ok())
        .and_then(|s| s.to_std_string_escaped().parse::<f64>().ok())
        .map_or(0, |n| n as u64)
}

fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

fn open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd").map_or(0, |d| d.count())
}

/// Flat after warm-up: the last fifth's peak within 10% (or 16 MiB) of the second fifth's.
fn rss_verdict(samples: &[(u64, u64)]) -> (bool, String) {
    let n = samples.len();
    if n < 10 {
        return (true, format!("{n} samples, too few to judge"));
    }
    let fifth = n / 5;
    let peak =
        |range: std::ops::Range<usize>| samples[range].iter().map(|s| s.1).max().unwrap_or(0);
    let warm = peak(fifth..2 * fifth);
    let end = peak(n - fifth..n);
    let grow = end as i64 - warm as i64;
    let flat = grow <= (warm / 10) as i64 || grow <= 16384;
    let whole = samples.iter().map(|s| s.1).max().unwrap_or(0);
    (
        flat,
        format!(
            "{} over {n} samples; peak after warm-up {warm} KiB, at the end {end} KiB ({grow:+} KiB), \
             whole run {whole} KiB",
            if flat { "flat" } else { "GROWING" }
        ),
    )
}

// ---------------------------------------------------------------------------------------------
// The clients
// ---------------------------------------------------------------------------------------------

/// A request body: none, given whole, or one chunk and then nothing (the client goes away
/// mid-upload).
enum Upload {
    Given(Option<Bytes>),
    Stalled(Option<Bytes>),
}

impl http_body::Body for Upload {
    type Data = Bytes;
    type Error = std::io::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        _: &mut TaskContext<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, std::io::Error>>> {
        match &mut *self {
            Upload::Given(chunk) => Poll::Ready(chunk.take().map(|b| Ok(Frame::data(b)))),
            Upload::Stalled(chunk) => match chunk.take() {
                Some(b) => Poll::Ready(Some(Ok(Frame::data(b)))),
                None => Poll::Pending,
            },
        }
    }
}

/// A small deterministic generator (xorshift64*), one per client.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) % n
    }
}

fn run_clients(address: SocketAddr, mode: Mode, seconds: u64, count: usize, tally: Arc<Tally>) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("the clients' runtime");
    tokio::task::LocalSet::new().block_on(&runtime, async {
        let deadline = Instant::now() + Duration::from_secs(seconds);
        let left = Rc::new(Cell::new(match mode {
            Mode::Disconnects(n) => n,
            _ => u64::MAX,
        }));
        let count = if mode == Mode::SlowClient { 1 } else { count };
        let tasks: Vec<_> = (0..count)
            .map(|i| {
                let tally = Arc::clone(&tally);
                let left = Rc::clone(&left);
                tokio::task::spawn_local(async move {
                    let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ ((i as u64 + 1) * 0x1000_0001));
                    loop {
                        match mode {
                            Mode::Mixed if Instant::now() >= deadline => break,
                            Mode::Disconnects(_) => {
                                if left.get() == 0 {
                                    break;
                                }
                                left.set(left.get() - 1);
                                let keep = 65536 + rng.below(196_608) as usize;
                                gone_mid_body(address, "/endless", keep, &tally).await;
                            }
                            Mode::SlowClient => {
                                slow_read(address, deadline, &tally).await;
                                break;
                            }
                            Mode::Mixed => one_of_the_mix(address, &mut rng, &tally).await,
                        }
                    }
                })
            })
            .collect();
        for task in tasks {
            let _ = task.await;
        }
    });
    tally.done.store(true, Ordering::Release);
}

/// A connection: hyper's client handshake, its connection task (aborted to go away).
async fn connect(
    address: SocketAddr,
) -> Option<(
    hyper::client::conn::http1::SendRequest<Upload>,
    tokio::task::JoinHandle<()>,
)> {
    let socket = tokio::net::TcpStream::connect(address).await.ok()?;
    let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(socket))
        .await
        .ok()?;
    let task = tokio::task::spawn_local(async move {
        let _ = connection.await;
    });
    Some((sender, task))
}

fn request(address: SocketAddr, method: &str, path: &str, body: Upload) -> hyper::Request<Upload> {
    hyper::Request::builder()
        .method(method)
        .uri(path)
        .header("host", address.to_string())
        .body(body)
        .expect("a request")
}

/// One request whose whole response body is read and checked for its length.
async fn complete_read(
    address: SocketAddr,
    method: &str,
    path: &str,
    body: Upload,
    length: usize,
    tally: &Tally,
) {
    let Some((mut sender, task)) = connect(address).await else {
        tally.wrong.fetch_add(1, Ordering::Relaxed);
        return;
    };
    let got = match sender
        .send_request(request(address, method, path, body))
        .await
    {
        Ok(response) => read_body(&mut response.into_body(), usize::MAX, tally).await,
        Err(_) => None,
    };
    if got == Some(length) {
        tally.complete.fetch_add(1, Ordering::Relaxed);
    } else {
        eprintln!("{path}: {got:?} bytes, expected {length}");
        tally.wrong.fetch_add(1, Ordering::Relaxed);
    }
    drop(sender);
    let _ = task.await;
}

/// Reads the body until it ends or `keep` bytes came; the bytes read, or None on an error.
async fn read_body(body: &mut hyper::body::Incoming, keep: usize, tally: &Tally) -> Option<usize> {
    let mut got = 0;
    while got < keep {
        match std::future::poll_fn(|cx| Pin::new(&mut *body).poll_frame(cx)).await {
            None => break,
            Some(Ok(frame)) => {
                if let Ok(data) = frame.into_data() {
                    got += data.len();
                    tally.bytes.fetch_add(data.len() as u64, Ordering::Relaxed);
                }
            }
            Some(Err(_)) => return None,
        }
    }
    Some(got)
}

async fn one_of_the_mix(address: SocketAddr, rng: &mut Rng, tally: &Tally) {
    match rng.below(10) {
        // Complete reads of every shape, checked for length.
        0..=3 => {
            let (path, length) = SHAPES[rng.below(SHAPES.len() as u64) as usize];
            complete_read(address, "GET", path, Upload::Given(None), length, tally).await;
        }
        // An upload echoed back whole.
        4 => {
            let size = 1 + rng.below(512 * 1024) as usize;
            let body = Upload::Given(Some(Bytes::from(vec![5u8; size])));
            complete_read(address, "POST", "/echo", body, size, tally).await;
        }
        // Gone mid-body: an endless body, or part of a finite one.
        5..=6 => {
            let keep = 1 + rng.below(300_000) as usize;
            let path = if rng.below(2) == 0 {
                "/endless"
            } else {
                SHAPES[rng.below(SHAPES.len() as u64) as usize].0
            };
            gone_mid_body(address, path, keep, tally).await;
        }
        // Gone before the response: `/late` answers after 5 ms; the client waits 1 ms (its
        // request is sent by then), then goes.
        7 => {
            if let Some((mut sender, task)) = connect(address).await {
                let sent =
                    sender.send_request(request(address, "GET", "/late", Upload::Given(None)));
                let _ = tokio::time::timeout(Duration::from_millis(1), sent).await;
                task.abort();
                let _ = task.await;
                tally.gone_early.fetch_add(1, Ordering::Relaxed);
            }
        }
        // Gone mid-upload: one chunk of the request body, then the client goes.
        _ => {
            if let Some((mut sender, task)) = connect(address).await {
                let body = Upload::Stalled(Some(Bytes::from(vec![1u8; 32768])));
                let response = sender.send_request(request(address, "POST", "/echo", body));
                if let Ok(response) = response.await {
                    let _ = read_body(&mut response.into_body(), 32768, tally).await;
                }
                task.abort();
                tally.gone_mid_upload.fetch_add(1, Ordering::Relaxed);
            }
        }
    }
}

/// Reads `keep` bytes of `path`'s body, then goes away.
async fn gone_mid_body(address: SocketAddr, path: &str, keep: usize, tally: &Tally) {
    let Some((mut sender, task)) = connect(address).await else {
        return;
    };
    if let Ok(response) = sender
        .send_request(request(address, "GET", path, Upload::Given(None)))
        .await
    {
        let _ = read_body(&mut response.into_body(), keep, tally).await;
    }
    task.abort();
    let _ = task.await;
    tally.gone_mid_body.fetch_add(1, Ordering::Relaxed);
}

/// Reads an endless body at 1 MiB/s (16 KiB every 15.6 ms) until the deadline.
async fn slow_read(address: SocketAddr, deadline: Instant, tally: &Tally) {
    let Some((mut sender, task)) = connect(address).await else {
        return;
    };
    if let Ok(response) = sender
        .send_request(request(address, "GET", "/endless", Upload::Given(None)))
        .await
    {
        let mut body = response.into_body();
        let started = Instant::now();
        let mut read = 0u64;
        while Instant::now() < deadline {
            // Keep the average at 1 MiB/s: read only what the schedule allows by now.
            let allowed = (started.elapsed().as_secs_f64() * (1 << 20) as f64) as u64;
            if read >= allowed {
                tokio::time::sleep(Duration::from_micros(15_625)).await;
                continue;
            }
            match std::future::poll_fn(|cx| Pin::new(&mut body).poll_frame(cx)).await {
                Some(Ok(frame)) => {
                    if let Ok(data) = frame.into_data() {
                        read += data.len() as u64;
                        tally.bytes.fetch_add(data.len() as u64, Ordering::Relaxed);
                    }
                }
                _ => break,
            }
        }
    }
    task.abort();
    let _ = task.await;
    tally.gone_mid_body.fetch_add(1, Ordering::Relaxed);
}
