//! The bridges between streams and async Rust (the `tokio` feature), on `tokio::io::duplex`
//! and loopback sockets: data in both directions, backpressure measured (bytes held between a
//! producer and a slow consumer), errors and cancellation with their reasons both ways, pipe
//! options and abort.
#![cfg(feature = "tokio")]

use std::{
    cell::{Cell, RefCell},
    pin::Pin,
    rc::Rc,
    task::{Context as TaskContext, Poll},
    time::Duration,
};

use boa_streams::host::{Context, Host, HostOptions, RunOutcome};
use boa_streams::rust::{
    AbortHandle, AsyncReadSource, AsyncWriteSink, LoopHandle, PipeOptions, ReadableStream,
    StreamError, StreamSource, WritableStream,
};
use boa_streams::{JsResult, Value};
use futures::{SinkExt, StreamExt};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt, ReadBuf};

thread_local! {
    /// Bytes script reports it has consumed (`consumed(n)`) or produced (`produced(n)`).
    static CONSUMED: Cell<u64> = const { Cell::new(0) };
    static PRODUCED: Cell<u64> = const { Cell::new(0) };
}

fn consumed(_: &Value, args: &[Value], ctx: &mut Context) -> JsResult<Value> {
    let n = args.first().cloned().unwrap_or_default().to_number(ctx)?;
    CONSUMED.with(|c| c.set(c.get() + n as u64));
    Ok(Value::undefined())
}

fn produced(_: &Value, args: &[Value], ctx: &mut Context) -> JsResult<Value> {
    let n = args.first().cloned().unwrap_or_default().to_number(ctx)?;
    PRODUCED.with(|c| c.set(c.get() + n as u64));
    Ok(Value::undefined())
}

fn host() -> (Host, Context) {
    CONSUMED.with(|c| c.set(0));
    PRODUCED.with(|c| c.set(0));
    let (host, mut ctx) = Host::new(HostOptions::default()).expect("a host");
    host.define_global_function(&mut ctx, "consumed", 1, consumed)
        .expect("consumed()");
    host.define_global_function(&mut ctx, "produced", 1, produced)
        .expect("produced()");
    (host, ctx)
}

fn string(host: &Host, ctx: &mut Context, source: &str) -> String {
    let value = host.eval_script(ctx, "get.js", source).expect("a value");
    value
        .to_string(ctx)
        .expect("a string")
        .to_std_string_escaped()
}

fn paused_local(test: impl std::future::Future<Output = ()>) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .expect("a runtime");
    tokio::task::LocalSet::new().block_on(&rt, test);
}

fn real_local(test: impl std::future::Future<Output = ()>) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    tokio::task::LocalSet::new().block_on(&rt, test);
}

/// A byte pattern that shows reordering or loss.
fn pattern(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i % 251) as u8).collect()
}

/// A slow JS consumer: reads `rs` with a default reader, reports each chunk with
/// `consumed(n)`, waits 1 ms between reads, and keeps a checksum.
const SLOW_READER: &str = r#"
globalThis.sum = 0; globalThis.total = 0; globalThis.done = false;
(async () => {
  const reader = rs.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    consumed(value.byteLength);
    total += value.byteLength;
    for (let i = 0; i < value.length; i += 97) sum = (sum + value[i] * (i % 7 + 1)) % 1000003;
    await new Promise((r) => setTimeout(r, 1));
  }
  globalThis.done = true;
})();
"#;

#[test]
fn fast_tokio_producer_into_slow_js_consumer_holds_the_duplex_buffer_plus_one_chunk() {
    paused_local(async {
        const DUPLEX: usize = 64 * 1024;
        const CHUNK: usize = 16 * 1024;
        const WRITE: usize = 8 * 1024;
        const TOTAL: usize = 4 * 1024 * 1024;
        let (host, mut ctx) = host();
        let (mut tx, rx) = tokio::io::duplex(DUPLEX);
        let rs = ReadableStream::from_async_read(rx, CHUNK, &mut ctx).expect("a stream");
        host.set_global(&mut ctx, "rs", rs).expect("global");
        host.eval_script(&mut ctx, "reader.js", SLOW_READER)
            .expect("runs");
        let max_ahead = Rc::new(Cell::new(0u64));
        let ahead = Rc::clone(&max_ahead);
        let writer = tokio::task::spawn_local(async move {
            let data = pattern(TOTAL);
            let mut written = 0u64;
            for part in data.chunks(WRITE) {
                tx.write_all(part).await.expect("write");
                written += part.len() as u64;
                let in_flight = written - CONSUMED.with(Cell::get);
                ahead.set(ahead.get().max(in_flight));
            }
            drop(tx);
        });
        assert_eq!(host.run(&mut ctx).await, RunOutcome::Idle);
        writer.await.expect("the writer");
        assert_eq!(string(&host, &mut ctx, "String(done)"), "true");
        assert_eq!(string(&host, &mut ctx, "String(total)"), TOTAL.to_string());
        // Held between the producer and the consumer: the duplex's buffer, the chunk the
        // stream read (the one read waiting), and the write that filled the buffer.
        let max = max_ahead.get();
        assert!(
            max <= (DUPLEX + CHUNK + WRITE) as u64,
            "{max} bytes held ahead of the consumer"
        );
        assert!(
            max >= DUPLEX as u64,
            "the producer did fill the buffer: {max}"
        );
        assert!(host.take_reports().is_empty());
    });
}

#[test]
fn from_stream_polls_only_when_the_stream_pulls() {
    paused_local(async {
        const CHUNK: usize = 4096;
        let (host, mut ctx) = host();
        let polled = Rc::new(Cell::new(0u64));
        let max_ahead = Rc::new(Cell::new(0u64));
        let (p, a) = (Rc::clone(&polled), Rc::clone(&max_ahead));
        let items = futures::stream::iter(0..256).map(move |i: u32| {
            p.set(p.get() + CHUNK as u64);
            a.set(a.get().max(p.get() - CONSUMED.with(Cell::get)));
            Ok::<_, StreamError>(vec![(i % 256) as u8; CHUNK])
        });
        let rs = ReadableStream::from_stream(items, &mut ctx).expect("a stream");
        host.set_global(&mut ctx, "rs", rs).expect("global");
        host.eval_script(&mut ctx, "reader.js", SLOW_READER)
            .expect("runs");
        assert_eq!(host.run(&mut ctx).await, RunOutcome::Idle);
        assert_eq!(
            string(&host, &mut ctx, "String(total)"),
            (256 * CHUNK).to_string()
        );
        // High-water mark 0: an item is taken only for a read that waits, so at most the
        // one chunk being handed over is ahead of the consumer.
        assert_eq!(max_ahead.get(), CHUNK as u64);
    });
}

#[test]
fn fast_js_producer_into_slow_async_write_holds_the_high_water_marks_plus_one_chunk() {
    paused_local(async {
        const DUPLEX: usize = 32 * 1024;
        const CHUNK: usize = 16 * 1024;
        const TOTAL: u64 = 4 * 1024 * 1024;
        let (host, mut ctx) = host();
        let (tx, mut rx) = tokio::io::duplex(DUPLEX);
        let ws = WritableStream::from_async_write(tx, &mut ctx).expect("a stream");
        host.set_global(&mut ctx, "ws", ws).expect("global");
        host.eval_script(
            &mut ctx,
            "producer.js",
            &format!(
                r#"
                let sent = 0;
                globalThis.piped = 'pending';
                new ReadableStream({{
                  pull(c) {{
                    if (sent === {TOTAL}) return c.close();
                    const chunk = new Uint8Array({CHUNK}).fill(sent / {CHUNK} % 256);
                    sent += {CHUNK};
                    produced({CHUNK});
                    c.enqueue(chunk);
                  }}
                }}).pipeTo(ws).then(() => piped = 'done', (e) => piped = String(e));
                "#
            ),
        )
        .expect("runs");
        let max_ahead = Rc::new(Cell::new(0u64));
        let ahead = Rc::clone(&max_ahead);
        let reader = tokio::task::spawn_local(async move {
            let mut buf = vec![0u8; 4096];
            let mut read = 0u64;
            let mut ok = true;
            loop {
                let n = rx.read(&mut buf).await.expect("read");
                if n == 0 {
                    break;
                }
                for (i, b) in buf[..n].iter().enumerate() {
                    ok &= u64::from(*b) == ((read + i as u64) / CHUNK as u64) % 256;
                }
                read += n as u64;
                let in_flight = PRODUCED.with(Cell::get) - read;
                ahead.set(ahead.get().max(in_flight));
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
            (read, ok)
        });
        assert_eq!(host.run(&mut ctx).await, RunOutcome::Idle);
        let (read, in_order) = reader.await.expect("the reader");
        assert_eq!(string(&host, &mut ctx, "piped"), "done");
        assert_eq!(read, TOTAL);
        assert!(in_order, "every byte arrived, in order");
        // Held between the producer and the slow reader: the duplex's buffer, the readable's
        // queue (high-water mark 1 chunk), the chunk the pipe holds, the writable's queue (1
        // chunk), and the chunk being written.
        let max = max_ahead.get();
        assert!(
            max <= (DUPLEX + 4 * CHUNK) as u64,
            "{max} bytes held ahead of the reader"
        );
        assert!(
            max >= DUPLEX as u64,
            "the producer did fill the buffer: {max}"
        );
    });
}

/// An `AsyncRead` that yields `good` bytes, then fails.
struct Failing {
    good: usize,
}

impl AsyncRead for Failing {
    fn poll_read(
        mut self: Pin<&mut Self>,
        _: &mut TaskContext<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        if self.good == 0 {
            return Poll::Ready(Err(std::io::Error::new(
                std::io::ErrorKind::ConnectionReset,
                "the peer reset the connection",
            )));
        }
        let n = self.good.min(buf.remaining());
        buf.put_slice(&vec![b'x'; n]);
        self.good -= n;
        Poll::Ready(Ok(()))
    }
}

#[test]
fn an_io_error_becomes_a_js_error_script_can_catch() {
    paused_local(async {
        let (host, mut ctx) = host();
        let rs =
            ReadableStream::from_async_read(Failing { good: 10 }, 4, &mut ctx).expect("a stream");
        host.set_global(&mut ctx, "rs", rs).expect("global");
        host.eval_script(
            &mut ctx,
            "catch.js",
            r#"
            globalThis.out = [];
            (async () => {
              try { for await (const c of rs) out.push(c.byteLength); }
              catch (e) { out.push(e instanceof TypeError, e.message); }
            })();
            "#,
        )
        .expect("runs");
        host.run(&mut ctx).await;
        assert_eq!(
            string(&host, &mut ctx, "out.join()"),
            "4,4,2,true,the peer reset the connection"
        );
        assert!(host.take_reports().is_empty());
    });
}

#[test]
fn a_js_cancel_reaches_the_rust_source_with_its_reason() {
    paused_local(async {
        let (host, mut ctx) = host();
        let (mut tx, rx) = tokio::io::duplex(1024);
        let reason = Rc::new(RefCell::new(String::new()));
        let seen = Rc::clone(&reason);
        let rs = AsyncReadSource::new(rx, 16)
            .on_cancel(move |reason, ctx| *seen.borrow_mut() = reason.message(ctx))
            .into_stream(&mut ctx)
            .expect("a stream");
        let polled_stream = Rc::new(RefCell::new(String::new()));
        let seen = Rc::clone(&polled_stream);
        let items = StreamSource::new(futures::stream::pending::<Result<Vec<u8>, StreamError>>())
            .on_cancel(move |reason, ctx| *seen.borrow_mut() = reason.message(ctx))
            .into_stream(&mut ctx)
            .expect("a stream");
        host.set_global(&mut ctx, "rs", rs).expect("global");
        host.set_global(&mut ctx, "items", items).expect("global");
        tx.write_all(b"hello").await.expect("write");
        host.eval_script(
            &mut ctx,
            "cancel.js",
            r#"
            (async () => {
              const r = rs.getReader();
              const { value } = await r.read();
              globalThis.first = new TextDecoder().decode(value);
              await r.cancel(new RangeError('enough'));
              const i = items.getReader();
              const pending = i.read();
              await i.cancel('no more items');
              globalThis.after = JSON.stringify(await pending);
            })();
            "#,
        )
        .expect("runs");
        // Idle: the pending Rust stream was dropped by the cancel, so nothing keeps the loop.
        assert_eq!(host.run(&mut ctx).await, RunOutcome::Idle);
        assert_eq!(string(&host, &mut ctx, "first"), "hello");
        assert_eq!(*reason.borrow(), "RangeError: enough");
        assert_eq!(*polled_stream.borrow(), "no more items");
        assert_eq!(string(&host, &mut ctx, "after"), r#"{"done":true}"#);
        // The AsyncRead was dropped: the other end sees a broken pipe.
        assert!(tx.write_all(b"more").await.is_err());
    });
}

#[test]
fn a_js_abort_reaches_the_rust_sink_with_its_reason() {
    paused_local(async {
        let (host, mut ctx) = host();
        let (tx, mut rx) = tokio::io::duplex(1024);
        let reason = Rc::new(RefCell::new(String::new()));
        let seen = Rc::clone(&reason);
        let ws = AsyncWriteSink::new(tx)
            .on_abort(move |reason, ctx| *seen.borrow_mut() = reason.message(ctx))
            .into_stream(&mut ctx)
            .expect("a stream");
        host.set_global(&mut ctx, "ws", ws).expect("global");
        host.eval_script(
            &mut ctx,
            "abort.js",
            r#"
            (async () => {
              const w = ws.getWriter();
              await w.write(new TextEncoder().encode('partial'));
              await w.abort(new TypeError('giving up'));
            })();
            "#,
        )
        .expect("runs");
        host.run(&mut ctx).await;
        assert_eq!(*reason.borrow(), "TypeError: giving up");
        let mut got = Vec::new();
        rx.read_to_end(&mut got).await.expect("read to the end");
        assert_eq!(got, b"partial", "the writer was dropped after the write");
    });
}

#[test]
fn into_stream_and_into_async_read_read_a_js_stream() {
    paused_local(async {
        let (host, mut ctx) = host();
        let js = host
            .eval_script(
                &mut ctx,
                "s.js",
                r#"
                let n = 0;
                new ReadableStream({
                  async pull(c) {
                    await new Promise((r) => setTimeout(r, 1));
                    if (n === 5) return c.close();
                    c.enqueue(new TextEncoder().encode('chunk' + n++ + ';'));
                  }
                })
                "#,
            )
            .expect("a stream");
        let stream = ReadableStream::from_value(&js).expect("a stream");
        let chunks = stream.into_stream(&mut ctx).expect("unlocked");
        let collected = host
            .complete(&mut ctx, chunks.collect::<Vec<_>>())
            .await
            .expect("the stream ends");
        let text: Vec<String> = collected
            .into_iter()
            .map(|c| String::from_utf8(c.expect("a chunk").to_vec()).expect("utf-8"))
            .collect();
        assert_eq!(
            text,
            ["chunk0;", "chunk1;", "chunk2;", "chunk3;", "chunk4;"]
        );

        // As an AsyncRead, through tokio::io::copy into a duplex.
        let js = host
            .eval_script(
                &mut ctx,
                "s.js",
                "new Blob(['a'.repeat(100000), 'b'.repeat(100000)]).stream()",
            )
            .expect("a stream");
        let mut read = ReadableStream::from_value(&js)
            .expect("a stream")
            .into_async_read(&mut ctx)
            .expect("unlocked");
        let mut out = Vec::new();
        let copied = host
            .complete(&mut ctx, tokio::io::copy(&mut read, &mut out))
            .await
            .expect("the copy ends")
            .expect("no error");
        assert_eq!(copied, 200_000);
        assert!(out[..100_000].iter().all(|&b| b == b'a'));
        assert!(out[100_000..].iter().all(|&b| b == b'b'));
    });
}

#[test]
fn a_js_error_reaches_into_stream_and_dropping_it_cancels_with_a_reason() {
    paused_local(async {
        let (host, mut ctx) = host();
        let js = host
            .eval_script(
                &mut ctx,
                "s.js",
                "new ReadableStream({ start(c) { c.enqueue(new Uint8Array(1)); c.error(new SyntaxError('bad input')); } })",
            )
            .expect("a stream");
        let mut items = ReadableStream::from_value(&js)
            .expect("a stream")
            .into_stream(&mut ctx)
            .expect("unlocked");
        let first = host
            .complete(&mut ctx, items.next())
            .await
            .expect("an item");
        // An errored stream drops its queue: the error is the first item.
        let Some(Err(error)) = first else {
            panic!("an error item, got {first:?}");
        };
        assert_eq!(error.message(&mut ctx), "SyntaxError: bad input");

        let js = host
            .eval_script(
                &mut ctx,
                "s.js",
                r#"
                globalThis.cancelReason = 'none';
                new ReadableStream({
                  pull(c) { c.enqueue(new Uint8Array(8)); },
                  cancel(r) { cancelReason = r.name + ': ' + r.message; },
                })
                "#,
            )
            .expect("a stream");
        let mut items = ReadableStream::from_value(&js)
            .expect("a stream")
            .into_stream(&mut ctx)
            .expect("unlocked");
        let chunk = host
            .complete(&mut ctx, items.next())
            .await
            .expect("an item");
        assert_eq!(chunk.expect("a chunk").expect("bytes").len(), 8);
        drop(items);
        host.run(&mut ctx).await;
        assert_eq!(
            string(&host, &mut ctx, "cancelReason"),
            "AbortError: the Rust consumer dropped the stream"
        );
    });
}

#[test]
fn into_sink_writes_to_a_js_stream_with_its_backpressure() {
    paused_local(async {
        let (host, mut ctx) = host();
        let js = host
            .eval_script(
                &mut ctx,
                "w.js",
                r#"
                globalThis.got = []; globalThis.maxQueued = 0; globalThis.closed = false;
                let queued = 0;
                const ws = new WritableStream({
                  async write(chunk) {
                    got.push(new TextDecoder().decode(chunk));
                    await new Promise((r) => setTimeout(r, 5));
                    consumed(1);
                  },
                  close() { closed = true; },
                }, { highWaterMark: 2 });
                ws
                "#,
            )
            .expect("a stream");
        let stream = WritableStream::from_value(&js).expect("a stream");
        let mut sink = stream.into_sink(&mut ctx).expect("unlocked");
        let max_in_flight = Rc::new(Cell::new(0u64));
        let m = Rc::clone(&max_in_flight);
        let producer = async move {
            let mut sent = 0u64;
            for i in 0..20 {
                // `feed`: no flush per item, so only the stream's backpressure holds it back.
                sink.feed(bytes::Bytes::from(format!("{i},")))
                    .await
                    .expect("sent");
                sent += 1;
                m.set(m.get().max(sent - CONSUMED.with(Cell::get)));
            }
            sink.close().await.expect("closed");
        };
        host.complete(&mut ctx, producer)
            .await
            .expect("the producer ends");
        host.run(&mut ctx).await;
        let got = string(&host, &mut ctx, "got.join('')");
        let expected: String = (0..20).map(|i| format!("{i},")).collect();
        assert_eq!(got, expected);
        assert_eq!(string(&host, &mut ctx, "String(closed)"), "true");
        // Fed ahead of the slow sink's completed writes: its high-water mark (2 chunks, the
        // write in progress counted, as the stream counts it), and never more.
        assert_eq!(max_in_flight.get(), 2);
    });
}

#[test]
fn pipe_to_with_options_prevent_close_and_abort() {
    paused_local(async {
        let (host, mut ctx) = host();
        // preventClose: the destination stays writable after the source closes.
        let source =
            ReadableStream::from_async_read(&b"first part;"[..], 4, &mut ctx).expect("a source");
        let (tx, mut rx) = tokio::io::duplex(1 << 16);
        let dest = WritableStream::from_async_write(tx, &mut ctx).expect("a sink");
        let options = PipeOptions {
            prevent_close: true,
            ..PipeOptions::default()
        };
        let piped = source.pipe_to_with_options(&dest, options, &mut ctx);
        host.complete(&mut ctx, piped)
            .await
            .expect("the pipe ends")
            .expect("no error");
        assert!(!dest.is_locked());
        host.set_global(&mut ctx, "dest", dest.clone())
            .expect("global");
        host.eval_script(
            &mut ctx,
            "more.js",
            "(async () => { const w = dest.getWriter(); await w.write(new TextEncoder().encode('second')); await w.close(); })()",
        )
        .expect("runs");
        host.run(&mut ctx).await;
        let mut got = Vec::new();
        rx.read_to_end(&mut got).await.expect("read");
        assert_eq!(got, b"first part;second");

        // An abort handle stops a pipe that would never finish: the source is canceled and
        // the destination aborted with the reason.
        let canceled = Rc::new(RefCell::new(String::new()));
        let aborted = Rc::new(RefCell::new(String::new()));
        let (c, a) = (Rc::clone(&canceled), Rc::clone(&aborted));
        let (_keep_open, rx) = tokio::io::duplex(64);
        let source = AsyncReadSource::new(rx, 16)
            .on_cancel(move |r, ctx| *c.borrow_mut() = r.message(ctx))
            .into_stream(&mut ctx)
            .expect("a source");
        let dest = AsyncWriteSink::new(tokio::io::sink())
            .on_abort(move |r, ctx| *a.borrow_mut() = r.message(ctx))
            .into_stream(&mut ctx)
            .expect("a sink");
        let abort = AbortHandle::new(&mut ctx).expect("a signal");
        let options = PipeOptions {
            abort: Some(abort.clone()),
            ..PipeOptions::default()
        };
        let piped = source.pipe_to_with_options(&dest, options, &mut ctx);
        let handle = LoopHandle::new(&ctx).expect("a handle");
        tokio::task::spawn_local(async move {
            tokio::time::sleep(Duration::from_secs(1)).await;
            abort.abort_later(None, &handle);
        });
        let result = host.complete(&mut ctx, piped).await.expect("the pipe ends");
        let error = result.expect_err("aborted");
        assert_eq!(
            error.message(&mut ctx),
            "AbortError: signal is aborted without reason"
        );
        host.run(&mut ctx).await;
        assert_eq!(
            *canceled.borrow(),
            "AbortError: signal is aborted without reason"
        );
        assert_eq!(
            *aborted.borrow(),
            "AbortError: signal is aborted without reason"
        );
    });
}

#[test]
fn futures_sink_and_channels() {
    paused_local(async {
        let (host, mut ctx) = host();
        let (tx, rx) = futures::channel::mpsc::channel::<bytes::Bytes>(1);
        let ws = WritableStream::from_futures_sink(
            tx.sink_map_err(|e| StreamError::type_error(e.to_string())),
            &mut ctx,
        )
        .expect("a sink");
        host.set_global(&mut ctx, "ws", ws).expect("global");
        host.eval_script(
            &mut ctx,
            "w.js",
            r#"
            (async () => {
              const w = ws.getWriter();
              for (const s of ['x', 'y', 'z']) await w.write(new TextEncoder().encode(s));
              await w.close();
            })();
            "#,
        )
        .expect("runs");
        let collect = rx.collect::<Vec<_>>();
        let (_, items) = futures::future::join(host.run(&mut ctx), collect).await;
        let items: Vec<&[u8]> = items.iter().map(|b| &b[..]).collect();
        assert_eq!(items, [b"x", b"y", b"z"]);
    });
}

#[test]
fn loopback_sockets_through_a_js_transform() {
    real_local(async {
        let (host, mut ctx) = host();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let address = listener.local_addr().expect("an address");
        const TOTAL: usize = 1 << 20;
        let client = tokio::task::spawn_local(async move {
            let stream = tokio::net::TcpStream::connect(address)
                .await
                .expect("connect");
            let (mut r, mut w) = stream.into_split();
            let writer = tokio::task::spawn_local(async move {
                let data: Vec<u8> = (0..TOTAL).map(|i| b"abcdefghij"[i % 10]).collect();
                w.write_all(&data).await.expect("write");
                w.shutdown().await.expect("shutdown");
            });
            let mut back = Vec::new();
            r.read_to_end(&mut back).await.expect("read back");
            writer.await.expect("writer");
            back
        });
        let (socket, _) = listener.accept().await.expect("accept");
        let (r, w) = socket.into_split();
        let rs = ReadableStream::from_async_read(r, 64 * 1024, &mut ctx).expect("a source");
        let ws = WritableStream::from_async_write(w, &mut ctx).expect("a sink");
        host.set_global(&mut ctx, "rs", rs).expect("global");
        host.set_global(&mut ctx, "ws", ws).expect("global");
        host.eval_script(
            &mut ctx,
            "upper.js",
            r#"
            globalThis.result = 'pending';
            rs.pipeThrough(new TransformStream({
              transform(chunk, c) {
                const out = new Uint8Array(chunk.byteLength);
                for (let i = 0; i < chunk.length; i++) {
                  const b = chunk[i];
                  out[i] = b >= 97 && b <= 122 ? b - 32 : b;
                }
                c.enqueue(out);
              }
            })).pipeTo(ws).then(() => result = 'done', (e) => result = String(e));
            "#,
        )
        .expect("runs");
        let back = host
            .complete(&mut ctx, client)
            .await
            .expect("the client ends")
            .expect("no panic");
        assert_eq!(back.len(), TOTAL);
        assert!(back
            .iter()
            .enumerate()
            .all(|(i, &b)| b == b"ABCDEFGHIJ"[i % 10]));
        host.run(&mut ctx).await;
        assert_eq!(string(&host, &mut ctx, "result"), "done");
    });
}

#[test]
fn the_bridges_work_under_the_blocking_loop_too() {
    let (host, mut ctx) = host();
    let items = futures::stream::iter([Ok::<_, StreamError>("ab"), Ok("cd")]);
    let rs = ReadableStream::from_stream(items, &mut ctx).expect("a stream");
    let reader = rs.reader(&mut ctx).expect("a reader");
    let mut seen = Vec::new();
    while let Some(chunk) = reader
        .read(&mut ctx)
        .wait(&host, &mut ctx)
        .expect("a result")
        .expect("no error")
    {
        let bytes =
            boa_streams::rust::with_chunk_bytes(&chunk, &mut ctx, <[u8]>::to_vec).expect("bytes");
        seen.push(String::from_utf8(bytes).expect("utf-8"));
    }
    assert_eq!(seen, ["ab", "cd"]);

    // An AsyncRead woken from another thread: the blocking loop waits on the agent's
    // condition variable, which the waker notifies.
    let (mut tx, rx) = tokio::io::duplex(8);
    let rs = ReadableStream::from_async_read(rx, 8, &mut ctx).expect("a stream");
    host.set_global(&mut ctx, "rs", rs).expect("global");
    host.eval_script(&mut ctx, "r.js", "globalThis.text = ''; (async () => { for await (const c of rs) text += new TextDecoder().decode(c); })();")
        .expect("runs");
    let writer = std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a runtime");
        rt.block_on(async move {
            for part in ["one ", "two ", "three"] {
                tx.write_all(part.as_bytes()).await.expect("write");
            }
        });
    });
    assert_eq!(
        host.run_until(&mut ctx, None, &mut |_| false),
        RunOutcome::Idle
    );
    writer.join().expect("the writer");
    assert_eq!(string(&host, &mut ctx, "text"), "one two three");
}

#[test]
fn into_stream_release_leaves_the_rest_to_script() {
    paused_local(async {
        let (host, mut ctx) = host();
        let js = host
            .eval_script(
                &mut ctx,
                "s.js",
                "new ReadableStream({ start(c) { for (const s of ['a', 'b', 'c']) c.enqueue(new TextEncoder().encode(s)); c.close(); } })",
            )
            .expect("a stream");
        let stream = ReadableStream::from_value(&js).expect("a stream");
        let mut items = stream.clone().into_stream(&mut ctx).expect("unlocked");
        let first = host
            .complete(&mut ctx, items.next())
            .await
            .expect("an item");
        assert_eq!(&first.expect("a chunk").expect("bytes")[..], b"a");
        items.release();
        host.run(&mut ctx).await;
        assert!(!stream.is_locked());
        host.set_global(&mut ctx, "rs", stream).expect("global");
        host.eval_script(&mut ctx, "r.js", "globalThis.rest = ''; (async () => { for await (const c of rs) rest += new TextDecoder().decode(c); })();")
            .expect("runs");
        host.run(&mut ctx).await;
        assert_eq!(string(&host, &mut ctx, "rest"), "bc");
    });
}

#[test]
fn an_async_read_through_an_identity_transform_into_an_async_write() {
    paused_local(async {
        let (host, mut ctx) = host();
        const TOTAL: u64 = 64 * 64 * 1024;
        let reader = tokio::io::AsyncReadExt::take(tokio::io::repeat(b'x'), TOTAL);
        let (tx, mut rx) = tokio::io::duplex(256 * 1024);
        let rs = ReadableStream::from_async_read(reader, 64 * 1024, &mut ctx).expect("a readable");
        let ws = WritableStream::from_async_write(tx, &mut ctx).expect("a writable");
        host.set_global(&mut ctx, "rs", rs).expect("rs");
        host.set_global(&mut ctx, "ws", ws).expect("ws");
        host.eval_script(
            &mut ctx,
            "pipe.js",
            "globalThis.done = 'pending'; rs.pipeThrough(new TransformStream()).pipeTo(ws).then(() => done = 'ok', (e) => done = String(e));",
        )
        .expect("runs");
        let drain = tokio::task::spawn_local(async move {
            let mut got = Vec::new();
            rx.read_to_end(&mut got).await.expect("read");
            got.len() as u64
        });
        assert_eq!(
            host.complete(&mut ctx, drain)
                .await
                .expect("drained")
                .expect("no panic"),
            TOTAL
        );
        host.run(&mut ctx).await;
        assert_eq!(string(&host, &mut ctx, "done"), "ok");
    });
}

#[test]
/// A close that waits (tokio's cooperative budget makes `sink()` wait) outlives the sink: the
/// writable stream clears its algorithms, dropping the Rust sink, as soon as the close starts.
fn an_async_read_through_an_identity_transform_into_tokio_sink() {
    paused_local(async {
        let (host, mut ctx) = host();
        const TOTAL: u64 = 64 * 64 * 1024;
        let reader = tokio::io::AsyncReadExt::take(tokio::io::repeat(b'x'), TOTAL);
        let rs = ReadableStream::from_async_read(reader, 64 * 1024, &mut ctx).expect("a readable");
        let ws = WritableStream::from_async_write(tokio::io::sink(), &mut ctx).expect("a writable");
        host.set_global(&mut ctx, "rs", rs).expect("rs");
        host.set_global(&mut ctx, "ws", ws).expect("ws");
        host.eval_script(
            &mut ctx,
            "pipe.js",
            "globalThis.done = 'pending'; rs.pipeThrough(new TransformStream()).pipeTo(ws).then(() => done = 'ok', (e) => done = String(e));",
        )
        .expect("runs");
        host.run(&mut ctx).await;
        assert_eq!(string(&host, &mut ctx, "done"), "ok");
    });
}

#[test]
fn a_host_dropped_with_a_read_waiting_on_rust_io_leaves_no_js_object() {
    // On QuickJS the host's drop is a leak check: the waiting read's controller and completer,
    // held by the wake hub, are dropped before the runtime.
    let (_writer_kept_open, rx) = tokio::io::duplex(64);
    paused_local(async move {
        let (host, mut ctx) = host();
        let rs = ReadableStream::from_async_read(rx, 16, &mut ctx).expect("a stream");
        host.set_global(&mut ctx, "rs", rs).expect("global");
        host.eval_script(&mut ctx, "r.js", "globalThis.read = rs.getReader().read();")
            .expect("runs");
        let handle = LoopHandle::new(&ctx).expect("a handle");
        handle.queue(|_| {});
        let outcome = tokio::time::timeout(Duration::from_secs(1), host.run(&mut ctx)).await;
        assert!(outcome.is_err(), "the read keeps the loop waiting");
        drop(ctx);
        drop(host);
    });
}

#[test]
fn a_host_dropped_with_a_native_pipe_waiting_leaves_no_js_object() {
    // A Rust byte source into a Rust byte sink (the pipe reads into Rust buffers, no JS
    // chunk), still waiting on the source's I/O when the host goes: on QuickJS the host's drop
    // is a leak check (JS_FreeRuntime asserts that no object is left).
    let (_writer_kept_open, rx) = tokio::io::duplex(64);
    let (tx, _reader_kept) = tokio::io::duplex(64);
    paused_local(async move {
        let (host, mut ctx) = host();
        let source = ReadableStream::from_async_read(rx, 16, &mut ctx).expect("a source");
        let dest = WritableStream::from_async_write(tx, &mut ctx).expect("a sink");
        let piped = source.pipe_to_with_options(&dest, PipeOptions::default(), &mut ctx);
        let outcome =
            tokio::time::timeout(Duration::from_secs(1), host.complete(&mut ctx, piped)).await;
        assert!(outcome.is_err(), "the pipe waits on the source");
        assert!(source.is_locked() && dest.is_locked());
        drop((source, dest));
        drop(ctx);
        drop(host);
    });
}

#[test]
fn a_host_dropped_with_a_rust_byte_source_pending_in_a_pipe_leaves_no_js_object() {
    // A Rust byte source whose pull never completes (it keeps its completer), piped into a
    // Rust sink, when the host goes: the completer is a Rust root of the pipe's JS objects,
    // which hold the source (a cycle through Rust). The host's drop drops the source (on
    // QuickJS it is a leak check too: JS_FreeRuntime asserts that no object is left).
    struct Never(Option<boa_streams::rust::Completer>, Rc<Cell<bool>>);
    impl Drop for Never {
        fn drop(&mut self) {
            self.1.set(true);
        }
    }
    impl boa_streams::rust::ByteSource for Never {
        fn pull(
            &mut self,
            _: &boa_streams::rust::ByteController,
            _: &mut Context,
        ) -> Result<boa_streams::rust::Completion, StreamError> {
            let (completion, completer) = boa_streams::rust::Completion::later();
            self.0 = Some(completer);
            Ok(completion)
        }
    }
    let (tx, _reader_kept) = tokio::io::duplex(64);
    let dropped = Rc::new(Cell::new(false));
    let flag = Rc::clone(&dropped);
    paused_local(async move {
        let (host, mut ctx) = host();
        let source = ReadableStream::from_byte_source(Never(None, flag), 0.0, Some(16), &mut ctx)
            .expect("a source");
        let dest = WritableStream::from_async_write(tx, &mut ctx).expect("a sink");
        let piped = source.pipe_to_with_options(&dest, PipeOptions::default(), &mut ctx);
        let outcome =
            tokio::time::timeout(Duration::from_secs(1), host.complete(&mut ctx, piped)).await;
        assert!(outcome.is_err(), "the pipe waits on the source");
        drop((source, dest));
        drop(ctx);
        assert!(!dropped.get(), "the pipe holds the source");
        drop(host);
        assert!(dropped.get(), "the host's drop drops the source");
    });
}
