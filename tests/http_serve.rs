//! `boa_streams::http::Server` over real loopback sockets, driven by hyper's client: statuses,
//! headers, HEAD, content-length and chunked bodies, streaming request and response bodies,
//! errors (a handler that throws, a non-`Response`, a body that errors midway), a client that
//! goes away (the response stream's `cancel` gets the reason, `request.signal` aborts), and
//! the limits. Every wait is for an event (a response, a close, a flag script sets), never for
//! a time.
#![cfg(feature = "http")]

use std::{
    collections::VecDeque,
    net::SocketAddr,
    pin::Pin,
    task::{Context as TaskContext, Poll},
    time::Duration,
};

use boa_streams::host::{Context, Host, HostOptions};
use boa_streams::http::{ServeOptions, Server, TokioIo};
use bytes::Bytes;
use http_body::{Body as _, Frame};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// A request body of chunks given up front, or fed through a channel.
enum Chunks {
    Given(VecDeque<Bytes>),
    Fed(tokio::sync::mpsc::UnboundedReceiver<Bytes>),
}

impl http_body::Body for Chunks {
    type Data = Bytes;
    type Error = std::io::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, std::io::Error>>> {
        match &mut *self {
            Chunks::Given(chunks) => Poll::Ready(chunks.pop_front().map(|b| Ok(Frame::data(b)))),
            Chunks::Fed(receiver) => receiver
                .poll_recv(cx)
                .map(|chunk| chunk.map(|b| Ok(Frame::data(b)))),
        }
    }
}

fn given(chunks: &[&[u8]]) -> Chunks {
    Chunks::Given(chunks.iter().map(|c| Bytes::copy_from_slice(c)).collect())
}

/// A hyper client connection to `address`.
async fn connect(address: SocketAddr) -> hyper::client::conn::http1::SendRequest<Chunks> {
    let socket = TcpStream::connect(address).await.expect("connect");
    let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(socket))
        .await
        .expect("handshake");
    tokio::task::spawn_local(async move {
        let _ = connection.await;
    });
    sender
}

/// Sends one request; the response's head and its whole body (or the body's error).
async fn send(
    address: SocketAddr,
    method: &str,
    path: &str,
    body: Chunks,
) -> (hyper::http::response::Parts, Result<Vec<u8>, String>) {
    let mut sender = connect(address).await;
    let request = hyper::Request::builder()
        .method(method)
        .uri(path)
        .header("host", address.to_string())
        .body(body)
        .expect("a request");
    let response = sender.send_request(request).await.expect("a response");
    let (parts, mut incoming) = response.into_parts();
    let mut bytes = Vec::new();
    loop {
        match std::future::poll_fn(|cx| Pin::new(&mut incoming).poll_frame(cx)).await {
            None => break,
            Some(Ok(frame)) => {
                if let Ok(data) = frame.into_data() {
                    bytes.extend_from_slice(&data);
                }
            }
            Some(Err(error)) => return (parts, Err(error.to_string())),
        }
    }
    (parts, Ok(bytes))
}

/// Runs `client` against a server whose handler script is `script`; returns the client's
/// output and the host (to read what script recorded).
fn with_server<F, T>(
    script: &str,
    options: ServeOptions,
    client: impl FnOnce(SocketAddr, Server) -> F,
) -> (T, Host, Context)
where
    F: std::future::Future<Output = T>,
{
    with_server_then(script, options, &[], client)
}

/// [`with_server`], then runs the loop until script has set each of `flags` (with the
/// server's connections still served).
fn with_server_then<F, T>(
    script: &str,
    options: ServeOptions,
    flags: &[&str],
    client: impl FnOnce(SocketAddr, Server) -> F,
) -> (T, Host, Context)
where
    F: std::future::Future<Output = T>,
{
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let local = tokio::task::LocalSet::new();
    local.block_on(&runtime, async {
        let (host, mut ctx) = Host::new(HostOptions::default()).expect("a host");
        boa_streams::http::install(&mut ctx).expect("serve()");
        host.eval_script(&mut ctx, "handler.js", script)
            .expect("the handler script");
        let server = Server::new(options, &ctx).expect("a server");
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let address = listener.local_addr().expect("an address");
        tokio::task::spawn_local(server.clone().run(listener));
        let output = host
            .complete(&mut ctx, client(address, server.clone()))
            .await
            .expect("the client finishes");
        for flag in flags {
            until_flag(&host, &mut ctx, flag).await;
        }
        shut_down(&server, &host, &mut ctx).await;
        (output, host, ctx)
    })
}

/// Closes the server and runs the loop until its connections are gone (they hold JS values,
/// which must go before the host).
async fn shut_down(server: &Server, host: &Host, ctx: &mut Context) {
    server.close();
    while server.stats().connections > 0 {
        tokio::task::yield_now().await;
    }
    host.run_until_async(ctx, |_| false).await;
}

/// Runs the loop until script's `globalThis[flag]` is truthy.
async fn until_flag(host: &Host, ctx: &mut Context, flag: &str) {
    let source = format!("!!globalThis.{flag}");
    host.run_until_async(ctx, |ctx| {
        Host::from_context(ctx)
            .and_then(|h| h.eval_script(ctx, "flag.js", &source).ok())
            .is_some_and(|v| v.to_boolean())
    })
    .await;
}

fn string(host: &Host, ctx: &mut Context, source: &str) -> String {
    host.eval_script(ctx, "get.js", source)
        .expect("a value")
        .to_string(ctx)
        .expect("a string")
        .to_std_string_escaped()
}

fn header<'a>(parts: &'a hyper::http::response::Parts, name: &str) -> Option<&'a str> {
    parts.headers.get(name).and_then(|v| v.to_str().ok())
}

/// Each call's `info` is a fresh plain object, `{ remoteAddr: { transport, hostname, port } }`
/// with writable, enumerable, configurable data properties in that order, as JSON would make
/// it: what one handler does to its `info` (a member added, one deleted, the object frozen)
/// is not seen by the next call's.
#[test]
fn every_call_gets_a_fresh_info_of_data_properties() {
    let script = r#"
        let previous = null;
        serve((request, info) => {
            const describe = (o) => Object.getPrototypeOf(o) === Object.prototype &&
                Object.entries(Object.getOwnPropertyDescriptors(o)).map(([k, d]) =>
                    `${k}:${'value' in d}${d.writable}${d.enumerable}${d.configurable}:${typeof d.value}`).join();
            const out = `${describe(info)}|${describe(info.remoteAddr)}|${info === previous}|${info.remoteAddr.port > 0}`;
            previous = info;
            info.extra = 1;
            delete info.remoteAddr.transport;
            info.remoteAddr.hostname = 'changed';
            Object.freeze(info.remoteAddr);
            return new Response(out);
        });
    "#;
    let ((first, second), _, _) =
        with_server(script, ServeOptions::default(), |address, _| async move {
            let mut sender = connect(address).await;
            let mut bodies = Vec::new();
            for _ in 0..2 {
                let request = hyper::Request::builder()
                    .uri("/")
                    .header("host", address.to_string())
                    .body(given(&[]))
                    .expect("a request");
                let response = sender.send_request(request).await.expect("a response");
                let mut incoming = response.into_body();
                let mut bytes = Vec::new();
                while let Some(frame) =
                    std::future::poll_fn(|cx| Pin::new(&mut incoming).poll_frame(cx)).await
                {
                    if let Ok(data) = frame.expect("a frame").into_data() {
                        bytes.extend_from_slice(&data);
                    }
                }
                bodies.push(String::from_utf8(bytes).expect("UTF-8"));
            }
            (bodies[0].clone(), bodies[1].clone())
        });
    let want = "remoteAddr:truetruetruetrue:object|transport:truetruetruetrue:string,\
                hostname:truetruetruetrue:string,port:truetruetruetrue:number|false|true";
    assert_eq!(first, want);
    assert_eq!(second, want);
}

#[test]
fn status_headers_and_a_content_length_body() {
    let script = r#"
        serve((request, info) => new Response(`${request.method} ${new URL(request.url).pathname} ${request.headers.get('x-in')} ${info.remoteAddr.hostname} ${info.remoteAddr.transport} ${typeof info.remoteAddr.port}`,
            { status: 201, headers: { 'x-out': 'yes' } }));
    "#;
    let ((parts, body), _, _) =
        with_server(script, ServeOptions::default(), |address, _| async move {
            let mut sender = connect(address).await;
            let request = hyper::Request::builder()
                .uri("/path?q=1")
                .header("host", address.to_string())
                .header("x-in", "hello")
                .body(given(&[]))
                .expect("a request");
            let response = sender.send_request(request).await.expect("a response");
            let (parts, mut incoming) = response.into_parts();
            let mut bytes = Vec::new();
            while let Some(frame) =
                std::future::poll_fn(|cx| Pin::new(&mut incoming).poll_frame(cx)).await
            {
                if let Ok(data) = frame.expect("a frame").into_data() {
                    bytes.extend_from_slice(&data);
                }
            }
            (parts, bytes)
        });
    assert_eq!(parts.status, 201);
    assert_eq!(header(&parts, "x-out"), Some("yes"));
    assert_eq!(
        header(&parts, "content-type"),
        Some("text/plain;charset=UTF-8")
    );
    assert_eq!(
        String::from_utf8(body).unwrap(),
        "GET /path hello 127.0.0.1 tcp number"
    );
    assert_eq!(header(&parts, "content-length"), Some("36"));
}

#[test]
fn a_blob_body_goes_out_with_its_length_and_head_sends_none() {
    let script = r#"
        serve({ fetch: () => new Response(new Blob(['x'.repeat(100000)], { type: 'text/x' })) });
    "#;
    let ((get, head), _, _) =
        with_server(script, ServeOptions::default(), |address, _| async move {
            let get = send(address, "GET", "/", given(&[])).await;
            let head = send(address, "HEAD", "/", given(&[])).await;
            (get, head)
        });
    assert_eq!(header(&get.0, "content-length"), Some("100000"));
    assert_eq!(header(&get.0, "content-type"), Some("text/x"));
    assert_eq!(get.1.unwrap().len(), 100000);
    assert_eq!(header(&head.0, "content-length"), Some("100000"));
    assert_eq!(head.1.unwrap().len(), 0);
}

#[test]
fn a_stream_body_goes_out_chunked() {
    let script = r#"
        serve(() => {
            let i = 0;
            return new Response(new ReadableStream({
                pull(c) { c.enqueue(new TextEncoder().encode(`chunk ${i} `)); if (++i == 100) c.close(); },
            }));
        });
    "#;
    let ((parts, body), _, _) = with_server(script, ServeOptions::default(), |address, _| {
        send(address, "GET", "/", given(&[]))
    });
    assert_eq!(header(&parts, "transfer-encoding"), Some("chunked"));
    let expected: String = (0..100).map(|i| format!("chunk {i} ")).collect();
    assert_eq!(String::from_utf8(body.unwrap()).unwrap(), expected);
}

#[test]
fn a_request_body_streams_in_and_echoes_back_through_a_transform() {
    let script = r#"
        serve(async (request) => {
            let chunks = 0;
            const count = new TransformStream({ transform(c, ctl) { chunks++; ctl.enqueue(c); } });
            return new Response(request.body.pipeThrough(count));
        });
    "#;
    let big: Vec<u8> = (0..1_000_000u32).map(|i| (i % 251) as u8).collect();
    let chunks: Vec<&[u8]> = big.chunks(10_000).collect();
    let ((parts, body), _, _) = with_server(script, ServeOptions::default(), |address, _| {
        send(address, "POST", "/echo", given(&chunks))
    });
    assert_eq!(parts.status, 200);
    assert_eq!(body.unwrap(), big);
}

#[test]
fn the_request_body_is_read_while_the_client_still_sends() {
    // The handler answers with the first chunk it reads; the client sends the second only once
    // it has that answer's head: a server that read the whole body first would never answer.
    let script = r#"
        serve(async (request) => {
            const reader = request.body.getReader();
            const { value } = await reader.read();
            const first = new TextDecoder().decode(value);
            return new Response(new ReadableStream({
                start(c) { c.enqueue(new TextEncoder().encode(first + '|')); },
                async pull(c) {
                    const { value, done } = await reader.read();
                    if (done) c.close(); else c.enqueue(value);
                },
            }));
        });
    "#;
    let (body, _, _) = with_server(script, ServeOptions::default(), |address, _| async move {
        let (feed, receiver) = tokio::sync::mpsc::unbounded_channel();
        let mut sender = connect(address).await;
        feed.send(Bytes::from_static(b"first")).unwrap();
        let request = hyper::Request::builder()
            .method("POST")
            .uri("/")
            .header("host", address.to_string())
            .body(Chunks::Fed(receiver))
            .expect("a request");
        let response = sender.send_request(request).await.expect("a response");
        let mut incoming = response.into_body();
        let mut bytes = Vec::new();
        let first = std::future::poll_fn(|cx| Pin::new(&mut incoming).poll_frame(cx))
            .await
            .expect("a frame")
            .expect("data");
        bytes.extend_from_slice(&first.into_data().unwrap());
        feed.send(Bytes::from_static(b"second")).unwrap();
        drop(feed);
        while let Some(frame) =
            std::future::poll_fn(|cx| Pin::new(&mut incoming).poll_frame(cx)).await
        {
            bytes.extend_from_slice(&frame.expect("a frame").into_data().unwrap());
        }
        bytes
    });
    assert_eq!(String::from_utf8(body).unwrap(), "first|second");
}

#[test]
fn a_handler_that_throws_or_returns_no_response_gets_a_500_and_a_report() {
    let script = r#"
        serve((request) => {
            const path = new URL(request.url).pathname;
            if (path == '/throw') throw new Error('boom');
            if (path == '/reject') return Promise.reject(new TypeError('nope'));
            return 'not a response';
        });
    "#;
    let (statuses, host, _) =
        with_server(script, ServeOptions::default(), |address, _| async move {
            let mut statuses = Vec::new();
            for path in ["/throw", "/reject", "/other"] {
                statuses.push(
                    send(address, "GET", path, given(&[]))
                        .await
                        .0
                        .status
                        .as_u16(),
                );
            }
            statuses
        });
    assert_eq!(statuses, [500, 500, 500]);
    let reports: Vec<String> = host.take_reports().iter().map(|r| r.to_string()).collect();
    assert_eq!(reports.len(), 3, "{reports:?}");
    assert!(reports[0].contains("boom"), "{reports:?}");
    assert!(reports[1].contains("nope"), "{reports:?}");
    assert!(reports[2].contains("not a Response"), "{reports:?}");
}

#[test]
fn a_body_that_errors_midway_resets_the_connection() {
    let script = r#"
        serve(() => new Response(new ReadableStream({
            start(c) { c.enqueue(new TextEncoder().encode('partial')); },
            pull(c) { return Promise.resolve().then(() => c.error(new Error('source failed'))); },
        })));
    "#;
    let ((_, body), _, _) = with_server(script, ServeOptions::default(), |address, _| {
        send(address, "GET", "/", given(&[]))
    });
    assert!(body.is_err(), "the client saw a complete body: {body:?}");
}

#[test]
fn a_client_that_goes_away_mid_body_cancels_the_stream_with_a_reason() {
    let script = r#"
        globalThis.cancelled = '';
        serve((request) => {
            request.signal.addEventListener('abort', () => { globalThis.aborted = request.signal.reason.name; });
            return new Response(new ReadableStream({
                pull(c) { c.enqueue(new Uint8Array(16384)); },
                cancel(reason) { globalThis.cancelled = reason.name + ': ' + reason.message; },
            }));
        });
    "#;
    let (_, host, mut ctx) = with_server_then(
        script,
        ServeOptions::default(),
        &["cancelled", "aborted"],
        |address, _| read_part_then_leave(address, 100_000),
    );
    assert_eq!(
        string(&host, &mut ctx, "cancelled"),
        "AbortError: the client disconnected"
    );
    assert_eq!(string(&host, &mut ctx, "aborted"), "AbortError");
}

#[test]
fn a_response_sent_to_its_end_leaves_the_signal_alone() {
    // Bytes, a stream whose source closes with its last chunk (the end comes with the last
    // frame), one whose source closes in a later pull, and one closed from the start (its end
    // known before the head goes out): each sent whole, the exchange is over and the request's
    // signal never aborts. A stream body goes out chunked, the empty one too.
    let script = r#"
        globalThis.aborted = [];
        serve((request) => {
            const path = new URL(request.url).pathname;
            request.signal.onabort = () => { aborted.push(path); };
            if (path == '/bytes') return new Response('bytes');
            if (path == '/empty') return new Response(new ReadableStream({ start(c) { c.close(); } }));
            let i = 0;
            return new Response(new ReadableStream({
                pull(c) {
                    if (i == 3) { c.close(); return; }
                    c.enqueue(new Uint8Array(100000));
                    if (++i == 3 && path == '/with-last') c.close();
                },
            }));
        });
    "#;
    let (sent, host, mut ctx) =
        with_server(script, ServeOptions::default(), |address, _| async move {
            let mut sent = Vec::new();
            for path in ["/bytes", "/with-last", "/later", "/empty"] {
                let (parts, body) = send(address, "GET", path, given(&[])).await;
                assert_eq!(parts.status, 200, "{path}");
                let chunked = header(&parts, "transfer-encoding") == Some("chunked");
                sent.push((body.map(|b| b.len()), chunked));
            }
            sent
        });
    assert_eq!(
        sent,
        [
            (Ok(5), false),
            (Ok(300_000), true),
            (Ok(300_000), true),
            (Ok(0), true)
        ]
    );
    assert_eq!(string(&host, &mut ctx, "aborted.join()"), "");
}

#[test]
fn a_client_that_goes_away_before_the_response_aborts_the_signal() {
    let script = r#"
        serve((request) => new Promise((resolve) => {
            globalThis.started = true;
            request.signal.onabort = () => { globalThis.aborted = true; resolve(new Response('late')); };
        }));
    "#;
    let (_, host, mut ctx) = with_server_then(
        script,
        ServeOptions::default(),
        &["aborted"],
        |address, _| async move {
            let mut socket = TcpStream::connect(address).await.expect("connect");
            socket
                .write_all(format!("GET / HTTP/1.1\r\nhost: {address}\r\n\r\n").as_bytes())
                .await
                .unwrap();
            // Wait until the handler runs (the server answers nothing before), then go away.
            socket.shutdown().await.unwrap();
            drop(socket);
        },
    );
    assert_eq!(string(&host, &mut ctx, "String(aborted)"), "true");
}

#[test]
fn limits_give_a_response_or_a_close() {
    let script = r#"
        serve(async (request) => {
            if (new URL(request.url).pathname != '/read') return new Response('ok');
            try { await request.arrayBuffer(); return new Response('read'); }
            catch (e) { return new Response(e.name); }
        });
    "#;
    let options = ServeOptions {
        max_body_bytes: 10,
        max_header_bytes: 8192,
        header_read_timeout: Duration::from_millis(200),
        ..ServeOptions::default()
    };
    let (results, _, _) = with_server(script, options, |address, _| async move {
        // A declared body over the limit: 413, the handler is not called.
        let mut socket = TcpStream::connect(address).await.expect("connect");
        socket
            .write_all(
                b"POST / HTTP/1.1\r\nhost: a\r\ncontent-length: 20\r\n\r\n01234567890123456789",
            )
            .await
            .unwrap();
        let mut reply = vec![0; 1024];
        let n = socket.read(&mut reply).await.unwrap();
        let large = String::from_utf8_lossy(&reply[..n])
            .lines()
            .next()
            .unwrap_or("")
            .to_owned();
        // A chunked body that grows past the limit errors the request's body stream.
        let chunked = send(
            address,
            "POST",
            "/read",
            given(&[b"0123456789", b"0123456789"]),
        )
        .await;
        let chunked = String::from_utf8(chunked.1.unwrap_or_default()).unwrap_or_default();
        // A head over the limit: 431.
        let mut socket = TcpStream::connect(address).await.expect("connect");
        let long = "x".repeat(20_000);
        let _ = socket
            .write_all(format!("GET / HTTP/1.1\r\nhost: a\r\nx-long: {long}\r\n\r\n").as_bytes())
            .await;
        let mut reply = Vec::new();
        let _ = socket.read_to_end(&mut reply).await;
        let header_status = String::from_utf8_lossy(&reply)
            .lines()
            .next()
            .unwrap_or("")
            .to_owned();
        // A head that never ends: closed once the header-read timeout passes.
        let mut slow = TcpStream::connect(address).await.expect("connect");
        slow.write_all(b"GET / HTTP/1.1\r\nhost: a\r\n")
            .await
            .unwrap();
        let mut rest = Vec::new();
        let closed = slow.read_to_end(&mut rest).await.is_ok();
        (large, header_status, closed, chunked)
    });
    assert_eq!(results.0, "HTTP/1.1 413 Payload Too Large");
    assert!(results.1.starts_with("HTTP/1.1 431"), "{}", results.1);
    assert!(results.2);
    assert_eq!(results.3, "TypeError");
}

#[test]
fn connections_over_the_limit_get_a_503() {
    let options = ServeOptions {
        max_connections: 2,
        ..ServeOptions::default()
    };
    let script = "serve(() => new Response('ok'));";
    let (refused, _, _) = with_server(script, options, |address, server| async move {
        let _a = TcpStream::connect(address).await.expect("connect");
        let _b = TcpStream::connect(address).await.expect("connect");
        let mut third = TcpStream::connect(address).await.expect("connect");
        let mut refused = Vec::new();
        let _ = third.read_to_end(&mut refused).await;
        assert_eq!(server.stats().refused, 1);
        String::from_utf8_lossy(&refused)
            .lines()
            .next()
            .unwrap_or("")
            .to_owned()
    });
    assert_eq!(refused, "HTTP/1.1 503 Service Unavailable");
}

/// A client that sends `GET /`, reads at least `bytes` of the response (head included), and
/// goes away (closes its socket) mid-body.
async fn read_part_then_leave(address: SocketAddr, bytes: usize) {
    let mut socket = TcpStream::connect(address).await.expect("connect");
    socket
        .write_all(format!("GET / HTTP/1.1\r\nhost: {address}\r\n\r\n").as_bytes())
        .await
        .unwrap();
    let mut buf = vec![0; 65536];
    let mut got = 0;
    while got < bytes {
        let n = socket.read(&mut buf).await.expect("read");
        assert!(n > 0, "the server closed after {got} bytes");
        got += n;
    }
}

/// Reads from `socket` until `marker` has arrived; what was read.
async fn read_until(socket: &mut TcpStream, marker: &[u8]) -> Vec<u8> {
    let mut got = Vec::new();
    let mut buf = [0; 4096];
    while !got.windows(marker.len()).any(|w| w == marker) {
        let n = socket.read(&mut buf).await.expect("read");
        assert!(n > 0, "closed before {:?}", String::from_utf8_lossy(marker));
        got.extend_from_slice(&buf[..n]);
    }
    got
}

#[test]
fn a_connection_left_idle_closes_after_the_idle_timeout() {
    let options = ServeOptions {
        idle_timeout: Duration::from_millis(100),
        ..ServeOptions::default()
    };
    let script = "serve(() => new Response('idle-ok'));";
    let (closed, _, _) = with_server(script, options, |address, server| async move {
        let mut socket = TcpStream::connect(address).await.expect("connect");
        // A keep-alive exchange: the connection stays open after it.
        socket
            .write_all(format!("GET / HTTP/1.1\r\nhost: {address}\r\n\r\n").as_bytes())
            .await
            .unwrap();
        read_until(&mut socket, b"idle-ok").await;
        assert_eq!(server.stats().connections, 1);
        // Then nothing moves: the server closes it (a bound only turns a hang into a failure).
        let mut rest = Vec::new();
        let closed = tokio::time::timeout(Duration::from_secs(30), socket.read_to_end(&mut rest))
            .await
            .is_ok_and(|read| read.is_ok());
        while server.stats().connections > 0 {
            tokio::task::yield_now().await;
        }
        (closed, rest)
    });
    assert!(closed.0, "the idle connection stayed open");
    assert!(
        closed.1.is_empty(),
        "{:?}",
        String::from_utf8_lossy(&closed.1)
    );
}

#[test]
fn a_pipe_into_the_response_aborts_when_the_client_goes_away() {
    // The response body is a TransformStream's readable end, fed by pipeTo: the disconnect
    // cancels the readable end, which errors the writable end, so the pipe cancels its
    // source with that reason and rejects with it.
    let script = r#"
        serve(() => {
            const { readable, writable } = new TransformStream();
            const source = new ReadableStream({
                pull(c) { c.enqueue(new Uint8Array(16384)); },
                cancel(reason) { globalThis.sourceCancelled = reason.name + ': ' + reason.message; },
            });
            source.pipeTo(writable).then(() => { globalThis.piped = 'fulfilled'; },
                                         (e) => { globalThis.piped = e.name; });
            return new Response(readable);
        });
    "#;
    let (_, host, mut ctx) = with_server_then(
        script,
        ServeOptions::default(),
        &["sourceCancelled", "piped"],
        |address, _| read_part_then_leave(address, 100_000),
    );
    assert_eq!(
        string(&host, &mut ctx, "sourceCancelled"),
        "AbortError: the client disconnected"
    );
    assert_eq!(string(&host, &mut ctx, "piped"), "AbortError");
}

#[test]
fn clients_that_go_away_mid_body_leave_no_stream_or_request_behind() {
    // Each of 60 clients (4 at a time) reads part of an endless body and goes away; every
    // stream the handler made is cancelled, and the server holds nothing once they are gone.
    const CLIENTS: usize = 60;
    let script = format!(
        r#"
        globalThis.made = 0; globalThis.cancelled = 0;
        serve(() => {{
            made++;
            return new Response(new ReadableStream({{
                pull(c) {{ c.enqueue(new Uint8Array(8192)); }},
                cancel() {{ if (++cancelled == {CLIENTS}) globalThis.allCancelled = true; }},
            }}));
        }});
    "#
    );
    let (stats, host, mut ctx) = with_server_then(
        &script,
        ServeOptions::default(),
        &["allCancelled"],
        |address, server| async move {
            for _ in 0..CLIENTS / 4 {
                let clients = (0..4).map(|_| read_part_then_leave(address, 40_000));
                futures::future::join_all(clients).await;
            }
            while server.stats().connections > 0 {
                tokio::task::yield_now().await;
            }
            server.stats()
        },
    );
    assert_eq!(stats.requests, CLIENTS as u64);
    assert_eq!(stats.connections, 0);
    assert_eq!(stats.requests_in_flight, 0, "{stats:?}");
    assert_eq!(stats.bodies_in_flight, 0, "{stats:?}");
    assert_eq!(string(&host, &mut ctx, "made"), CLIENTS.to_string());
    assert_eq!(string(&host, &mut ctx, "cancelled"), CLIENTS.to_string());
}

#[test]
fn the_status_text_goes_out_as_the_reason_phrase() {
    let script = r#"
        serve((request) => new URL(request.url).pathname == '/custom'
            ? new Response('x', { status: 299, statusText: 'Fine, Thanks' })
            : new Response('x', { status: 404 }));
    "#;
    let (lines, _, _) = with_server(script, ServeOptions::default(), |address, _| async move {
        let mut lines = Vec::new();
        for path in ["/custom", "/plain"] {
            let mut socket = TcpStream::connect(address).await.expect("connect");
            socket
                .write_all(
                    format!("GET {path} HTTP/1.1\r\nhost: {address}\r\nconnection: close\r\n\r\n")
                        .as_bytes(),
                )
                .await
                .unwrap();
            let mut reply = Vec::new();
            socket.read_to_end(&mut reply).await.unwrap();
            lines.push(
                String::from_utf8_lossy(&reply)
                    .lines()
                    .next()
                    .unwrap_or("")
                    .to_owned(),
            );
        }
        lines
    });
    // A status message of its own goes out as it is; an empty one (the default) gets the
    // status's canonical phrase.
    assert_eq!(
        lines,
        ["HTTP/1.1 299 Fine, Thanks", "HTTP/1.1 404 Not Found"]
    );
}

/// Serves each of `requests` (a path and the chunks of a POST body, or none for a GET) in turn
/// (one connection each, read whole, then closed) from the handler `script`, on a host that also
/// has the HTTP fetcher (with `BASE` set to the server) and has run the script's setup until
/// `globalThis.ready`; returns, per request, the JS objects the library made while it was
/// served (`boa_streams::js_objects_created`) and the response body's length.
fn objects_per_response(script: &str, requests: &[(String, Vec<Bytes>)]) -> Vec<(u64, usize)> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    tokio::task::LocalSet::new().block_on(&runtime, async {
        let (host, mut ctx) = Host::new(HostOptions::default()).expect("a host");
        boa_streams::http::install(&mut ctx).expect("serve()");
        boa_streams::http::install_fetcher(&mut ctx).expect("the fetcher");
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let address = listener.local_addr().expect("an address");
        let prelude = format!("globalThis.BASE = 'http://{address}';");
        host.eval_script(&mut ctx, "prelude.js", &prelude)
            .expect("prelude");
        host.eval_script(&mut ctx, "handler.js", script)
            .expect("the handler script");
        until_flag(&host, &mut ctx, "ready").await;
        let server = Server::new(ServeOptions::default(), &ctx).expect("a server");
        tokio::task::spawn_local(server.clone().run(listener));
        let mut made = Vec::new();
        for (path, upload) in requests {
            let before = boa_streams::js_objects_created();
            let watched = server.clone();
            let method = if upload.is_empty() { "GET" } else { "POST" };
            let upload = Chunks::Given(upload.iter().cloned().collect());
            let (parts, body) = host
                .complete(&mut ctx, async move {
                    let response = send(address, method, path, upload).await;
                    // The client's connection is closed (its sender dropped): wait until the
                    // server has let go of it too.
                    while watched.stats().connections > 0 {
                        tokio::task::yield_now().await;
                    }
                    response
                })
                .await
                .expect("a response");
            assert_eq!(parts.status, 200, "{path}");
            let body = body.unwrap_or_else(|e| panic!("{path}: {e}"));
            made.push((boa_streams::js_objects_created() - before, body.len()));
        }
        shut_down(&server, &host, &mut ctx).await;
        made
    })
}

#[test]
fn native_bodies_make_no_js_object_per_chunk_on_the_way_to_the_socket() {
    // Five bodies whose bytes never meet script: bytes given to the Response, a Blob's
    // stream, a DecompressionStream over a Blob's stream, a body fetched from this same server
    // passed through as the response, and the request's own body echoed back. Each is served at
    // 16 and at 64 chunks of 64 KiB; whatever the handler and the exchange cost in JS objects
    // (the request, the Response, the fetch and its promises), it must not grow with the body.
    let script = r#"
        const chunk = new Uint8Array(65536);
        for (let i = 0; i < chunk.length; i++) chunk[i] = (i * 7) % 251;
        const blob = (n) => new Blob(Array(n).fill(chunk));
        const gzipped = {}, bytes = {}, blobs = {};
        Promise.all([16, 64].map(async (n) => {
            blobs[n] = blob(n);
            const stream = blob(n).stream().pipeThrough(new CompressionStream('gzip'));
            gzipped[n] = new Blob([await new Response(stream).arrayBuffer()]);
            bytes[n] = new Uint8Array(await blob(n).arrayBuffer());
        })).then(() => { globalThis.ready = true; });
        serve(async (request) => {
            const url = new URL(request.url);
            const n = Number(url.searchParams.get('n'));
            switch (url.pathname) {
                case '/bytes':
                    return new Response(bytes[n]);
                case '/blob':
                    return new Response(blobs[n].stream());
                case '/gunzip':
                    return new Response(gzipped[n].stream().pipeThrough(new DecompressionStream('gzip')));
                case '/proxy':
                    return new Response((await fetch(`${BASE}/bytes?n=${n}`)).body);
                case '/echo':
                    return new Response(request.body);
            }
            return new Response('no such path', { status: 404 });
        });
    "#;
    const PATHS: [&str; 5] = ["/bytes", "/blob", "/gunzip", "/proxy", "/echo"];
    let chunk = Bytes::from(
        (0..65536u32)
            .map(|i| (i * 7 % 251) as u8)
            .collect::<Vec<u8>>(),
    );
    let requests: Vec<(String, Vec<Bytes>)> = PATHS
        .iter()
        .flat_map(|path| {
            [16, 64].map(|n| {
                let upload = if *path == "/echo" {
                    vec![chunk.clone(); n]
                } else {
                    Vec::new()
                };
                (format!("{path}?n={n}"), upload)
            })
        })
        .collect();
    let made = objects_per_response(script, &requests);
    let mut per_path = Vec::new();
    for (pair, path) in made.chunks(2).zip(PATHS) {
        let [(small, small_len), (large, large_len)] = pair else {
            unreachable!("two sizes per path")
        };
        eprintln!("{path}: {small} JS objects for 1 MiB, {large} for 4 MiB");
        assert_eq!(
            (*small_len, *large_len),
            (16 << 16, 64 << 16),
            "{path}: the whole body"
        );
        per_path.push((path, *large - *small));
    }
    // Made for the larger body beyond the smaller one's, per path: none.
    assert_eq!(
        per_path,
        [
            ("/bytes", 0),
            ("/blob", 0),
            ("/gunzip", 0),
            ("/proxy", 0),
            ("/echo", 0)
        ]
    );
}

/// A response whose body is bytes goes out as those bytes, and its stream is locked as if the
/// server had read it, whether script asked for the stream before returning it (made) or not
/// (made only when script asks afterwards): locked, not used, and unusable for a second read.
#[test]
fn a_body_sent_as_its_bytes_is_locked_whether_or_not_its_stream_was_made() {
    let script = r#"
        globalThis.sent = {};
        serve((request) => {
            const name = new URL(request.url).pathname.slice(1);
            const response = new Response('bytes of ' + name);
            if (name === 'touched') response.body;
            sent[name] = response;
            return response;
        });
        globalThis.after = async (name) => {
            const response = sent[name];
            let read;
            try { await response.text(); read = 'read'; } catch (e) { read = e.constructor.name; }
            return [response.body.locked, response.bodyUsed, read].join();
        };
        globalThis.report = {};
    "#;
    let (bodies, host, mut ctx) =
        with_server(script, ServeOptions::default(), |address, _| async move {
            let untouched = send(address, "GET", "/untouched", given(&[])).await;
            let touched = send(address, "GET", "/touched", given(&[])).await;
            (untouched.1.unwrap(), touched.1.unwrap())
        });
    assert_eq!(bodies.0, b"bytes of untouched");
    assert_eq!(bodies.1, b"bytes of touched");
    host.eval_script(
        &mut ctx,
        "after.js",
        "after('untouched').then((r) => { report.untouched = r; }); \
         after('touched').then((r) => { report.touched = r; });",
    )
    .expect("the script runs");
    host.run_until(&mut ctx, None, &mut |_| false);
    assert_eq!(
        string(&host, &mut ctx, "report.untouched"),
        "true,false,TypeError"
    );
    assert_eq!(
        string(&host, &mut ctx, "report.touched"),
        "true,false,TypeError"
    );
}
