//! Native pipes: `pipeTo` from a Rust byte source (one with an `auto_allocate_chunk_size`) to a
//! Rust `ByteSink` reads with a BYOB reader into the pipe's own recycled Rust buffers, so the
//! chunks never become JS objects. What script can observe stays the spec's: the locks, a
//! `cancel()` refused while locked, the pipe's promise, abort through the signal and its
//! propagation to both ends, and bytes a released read leaves behind.

use std::{cell::RefCell, rc::Rc};

use boa_streams::rust::{
    ByteController, ByteSink, ByteSource, Completer, Completion, Context, ReadableStream,
    StreamError, Value, WritableController, WritableStream,
};

use crate::support::script::{Fixture, TestAction};
use crate::Api;

/// What the ends of a pipe saw.
#[derive(Default)]
struct Seen {
    /// The bytes the sink got, in order.
    bytes: Vec<u8>,
    /// How many writes the sink got.
    writes: usize,
    /// Calls other than writes, in order ("cancel: reason", "abort: reason", "close").
    calls: Vec<String>,
    /// A read the source left waiting (see [`Source::stall_at`]).
    stalled: Option<Completer>,
    /// Where the source's fills went, and where the sink's writes came from.
    fill_addresses: Vec<usize>,
    write_addresses: Vec<usize>,
}

type Shared = Rc<RefCell<Seen>>;

/// A byte source of `total` bytes (0, 1, 2, ... mod 251), `chunk` bytes per pull, filled in
/// place (or copied in with `enqueue` when `enqueue` is set); at pull number `stall_at` it
/// fills the request but answers only when script calls `respond()`.
struct Source {
    next: usize,
    total: usize,
    chunk: usize,
    enqueue: bool,
    pulls: usize,
    stall_at: Option<usize>,
    seen: Shared,
}

fn byte(i: usize) -> u8 {
    (i % 251) as u8
}

impl ByteSource for Source {
    fn pull(&mut self, c: &ByteController, ctx: &mut Context) -> Result<Completion, StreamError> {
        self.pulls += 1;
        if self.next == self.total {
            c.close(ctx)?;
            return Ok(Completion::Ready);
        }
        let n = self.chunk.min(self.total - self.next);
        let start = self.next;
        self.next += n;
        if self.enqueue {
            let bytes: Vec<u8> = (start..start + n).map(byte).collect();
            c.enqueue(&bytes, ctx)?;
            return Ok(Completion::Ready);
        }
        let request = c.byob_request().expect("a read is waiting");
        let seen = self.seen.clone();
        let filled = request
            .fill(|buf| {
                seen.borrow_mut().fill_addresses.push(buf.as_ptr() as usize);
                for (i, b) in buf[..n].iter_mut().enumerate() {
                    *b = byte(start + i);
                }
                n
            })
            .expect("the request is unanswered");
        if self.stall_at == Some(self.pulls) {
            let (completion, completer) = Completion::later();
            RESPOND.with(|r| *r.borrow_mut() = Some((request, filled)));
            self.seen.borrow_mut().stalled = Some(completer);
            return Ok(completion);
        }
        request.respond(filled, ctx)?;
        Ok(Completion::Ready)
    }

    fn cancel(&mut self, reason: Value, ctx: &mut Context) -> Result<Completion, StreamError> {
        let reason = reason
            .to_string(ctx)
            .map_err(|_| StreamError::type_error("reason"))?;
        let reason = reason.to_std_string_escaped();
        self.seen
            .borrow_mut()
            .calls
            .push(format!("cancel: {reason}"));
        Ok(Completion::Ready)
    }
}

thread_local! {
    /// The request a stalled pull keeps, with the bytes it filled.
    static RESPOND: RefCell<Option<(boa_streams::rust::ByobRequest, usize)>> =
        const { RefCell::new(None) };
}

/// A byte sink recording what it gets.
struct Sink(Shared);

impl ByteSink for Sink {
    fn write(
        &mut self,
        bytes: &[u8],
        _: &WritableController,
        _: &mut Context,
    ) -> Result<Completion, StreamError> {
        let mut seen = self.0.borrow_mut();
        seen.bytes.extend_from_slice(bytes);
        seen.writes += 1;
        seen.write_addresses.push(bytes.as_ptr() as usize);
        Ok(Completion::Ready)
    }

    fn close(&mut self, _: &mut Context) -> Result<Completion, StreamError> {
        self.0.borrow_mut().calls.push("close".into());
        Ok(Completion::Ready)
    }

    fn abort(&mut self, reason: Value, ctx: &mut Context) -> Result<Completion, StreamError> {
        let reason = reason
            .to_string(ctx)
            .map_err(|_| StreamError::type_error("reason"))?;
        let reason = reason.to_std_string_escaped();
        self.0.borrow_mut().calls.push(format!("abort: {reason}"));
        Ok(Completion::Ready)
    }
}

/// Checks that the sink got the source's `total` bytes in order, one write per `chunk`-byte
/// read, and then closed.
fn assert_whole(seen: &Seen, total: usize, chunk: usize) {
    assert_eq!(seen.bytes.len(), total);
    assert!(seen.bytes.iter().enumerate().all(|(i, b)| *b == byte(i)));
    assert_eq!(seen.writes, total.div_ceil(chunk));
    assert_eq!(seen.calls, ["close"]);
}

fn source(total: usize, chunk: usize, seen: &Shared) -> Source {
    Source {
        next: 0,
        total,
        chunk,
        enqueue: false,
        pulls: 0,
        stall_at: None,
        seen: seen.clone(),
    }
}

/// Pipes `total` bytes in `chunk`-byte reads from Rust to Rust; returns the JS objects the
/// library made while the pipe ran, and checks the bytes.
fn native_pipe(total: usize, chunk: usize, enqueue: bool) -> u64 {
    let mut api = Fixture::host();
    let seen = Shared::default();
    let ctx = api.context();
    let mut src = source(total, chunk, &seen);
    src.enqueue = enqueue;
    let rs = ReadableStream::from_byte_source(src, 0.0, Some(chunk), ctx).unwrap();
    let ws = WritableStream::from_byte_sink(Sink(seen.clone()), 1.0, ctx).unwrap();
    let before = boa_streams::js_objects_created();
    let done = rs.pipe_to(&ws, api.context());
    assert!(matches!(api.wait(&done), Some(Ok(()))));
    let made = boa_streams::js_objects_created() - before;
    assert_whole(&seen.borrow(), total, chunk);
    made
}

#[test]
fn a_native_pipe_makes_no_js_object_per_chunk() {
    let small = native_pipe(10 * 64, 64, false);
    let large = native_pipe(1000 * 64, 64, false);
    eprintln!("native pipe: {small} JS objects for 10 chunks, {large} for 1000");
    // On both engines: the pipe loop's internal promises (a step, a read, a write) are no JS
    // objects (on QuickJS, `AcyclicShared` nodes outside its heap).
    assert_eq!(small, large, "objects made per chunk");
}

#[test]
fn a_source_that_enqueues_fills_the_native_reads_from_the_queue() {
    // The source copies each chunk in with enqueue(); the pipe's BYOB reads take them from the
    // queue (the chunks are JS buffers then; the bytes must still all arrive, in order).
    native_pipe(37 * 100 + 5, 100, true);
}

#[test]
fn script_watches_a_native_pipe() {
    let mut api = Fixture::host();
    let seen = Shared::default();
    let ctx = api.context();
    let mut src = source(1000, 10, &seen);
    src.stall_at = Some(3);
    let rs = ReadableStream::from_byte_source(src, 0.0, Some(10), ctx).unwrap();
    let ws = WritableStream::from_byte_sink(Sink(seen.clone()), 1.0, ctx).unwrap();
    api.set("rs", rs.to_value());
    api.set("ws", ws.to_value());
    api.run([
        TestAction::run(
            r#"
        var controller = new AbortController();
        var piped = rs.pipeTo(ws, { signal: controller.signal });
        piped.then(() => log.push('fulfilled'), e => log.push('rejected: ' + e));
        log.push('locked: ' + rs.locked + ' ' + ws.locked);
        rs.cancel('no').then(() => log.push('cancelled'), e => log.push('cancel: ' + e.name));
        "#,
        ),
        TestAction::run_to_idle(),
        // Two chunks went through; the third read waits on the stalled pull.
        TestAction::assert_string("log.join('|')", "locked: true true|cancel: TypeError"),
    ]);
    assert_eq!(seen.borrow().bytes.len(), 20);
    api.run([
        TestAction::run("controller.abort('stop');"),
        TestAction::run_to_idle(),
        TestAction::assert_string(
            "log.join('|')",
            "locked: true true|cancel: TypeError|rejected: stop",
        ),
        TestAction::assert_string("`${rs.locked} ${ws.locked}`", "false false"),
    ]);
    assert_eq!(seen.borrow().calls, ["abort: stop", "cancel: stop"]);
    // The stalled pull answers after the pipe let go: its 10 bytes (20..30) wait in the
    // stream's queue for the next reader, as an ArrayBuffer script can read... but the stream
    // was cancelled, so they are dropped, and the source sees a closed request.
    let stalled = seen
        .borrow_mut()
        .stalled
        .take()
        .expect("the third pull stalled");
    let (request, filled) = RESPOND.with(|r| r.borrow_mut().take()).expect("a request");
    assert_eq!(filled, 10);
    let answered = request.respond(filled, api.context());
    assert!(
        answered.is_err(),
        "the cancelled stream has no read to answer"
    );
    stalled.complete(api.context());
    api.run([TestAction::run_to_idle(), TestAction::assert_no_failures()]);
    assert_eq!(seen.borrow().bytes.len(), 20);
}

#[test]
fn bytes_a_released_native_read_leaves_behind_reach_the_next_reader() {
    let mut api = Fixture::host();
    let seen = Shared::default();
    let ctx = api.context();
    let mut src = source(60, 10, &seen);
    src.stall_at = Some(2);
    let rs = ReadableStream::from_byte_source(src, 0.0, Some(10), ctx).unwrap();
    let ws = WritableStream::from_byte_sink(Sink(seen.clone()), 1.0, ctx).unwrap();
    api.set("rs", rs.to_value());
    api.set("ws", ws.to_value());
    api.run([
        TestAction::run(
            r#"
        var controller = new AbortController();
        rs.pipeTo(ws, { signal: controller.signal, preventCancel: true })
            .catch(e => log.push('rejected: ' + e));
        "#,
        ),
        TestAction::run_to_idle(),
        TestAction::run("controller.abort('stop');"),
        TestAction::run_to_idle(),
        TestAction::assert_string("`${log} ${rs.locked}`", "rejected: stop false"),
    ]);
    assert_eq!(seen.borrow().bytes.len(), 10);
    // The stalled read's buffer (bytes 10..20) is answered now that no reader waits: the
    // bytes go to the queue, and script reads them, then the rest.
    let (request, filled) = RESPOND.with(|r| r.borrow_mut().take()).expect("a request");
    request.respond(filled, api.context()).unwrap();
    let stalled = seen
        .borrow_mut()
        .stalled
        .take()
        .expect("the second pull stalled");
    stalled.complete(api.context());
    api.run([
        TestAction::run(
            r#"
        (async () => {
            const got = [];
            for await (const chunk of rs) got.push(...chunk);
            log.push(got.length + ' ' + got[0] + ' ' + got[got.length - 1]);
        })();
        "#,
        ),
        TestAction::run_to_idle(),
        TestAction::assert_no_failures(),
        TestAction::assert_string("log.join('|')", "rejected: stop|50 10 59"),
    ]);
}

#[test]
fn script_chunks_written_to_a_byte_sink_must_be_bytes() {
    let mut api = Fixture::host();
    let seen = Shared::default();
    let ws = WritableStream::from_byte_sink(Sink(seen.clone()), 1.0, api.context()).unwrap();
    api.set("ws", ws.to_value());
    api.run([
        TestAction::run(
            r#"
        var w = ws.getWriter();
        w.write(new Uint8Array([1, 2, 3]).subarray(1));
        w.write(new Uint16Array([0x0504]).buffer);
        w.write('text').catch(e => log.push(e.name));
        "#,
        ),
        TestAction::run_to_idle(),
        TestAction::assert_string("log.join('|')", "TypeError"),
    ]);
    assert_eq!(seen.borrow().bytes, [2, 3, 4, 5]);
}

/// A value source that enqueues `count` chunks of Rust bytes (`enqueue_bytes`), chunk `i`
/// holding `len` bytes of value `i`, one chunk per pull.
struct BytesSource {
    next: usize,
    count: usize,
    len: usize,
}

impl boa_streams::rust::Source for BytesSource {
    fn pull(
        &mut self,
        c: &boa_streams::rust::ReadableController,
        ctx: &mut Context,
    ) -> Result<Completion, StreamError> {
        if self.next == self.count {
            c.close(ctx)?;
        } else {
            c.enqueue_bytes(&vec![self.next as u8; self.len], ctx)?;
            self.next += 1;
        }
        Ok(Completion::Ready)
    }
}

fn bytes_stream(count: usize, len: usize, ctx: &mut Context) -> ReadableStream {
    let source = BytesSource {
        next: 0,
        count,
        len,
    };
    ReadableStream::from_source(source, 0.0, ctx).unwrap()
}

#[test]
fn rust_bytes_become_a_uint8_array_wherever_script_reads_them() {
    let mut api = Fixture::host();
    let ctx = api.context();
    let (a, b) = (bytes_stream(3, 2, ctx), bytes_stream(2, 3, ctx));
    api.set("a", a.to_value());
    api.set("b", b.to_value());
    api.run([
        TestAction::run(
            r#"
        (async () => {
            const seen = [];
            for await (const chunk of a) seen.push(chunk.constructor.name + ':' + chunk.join(''));
            const [left, right] = b.tee();
            const r1 = left.getReader(), r2 = right.getReader();
            const x = await r1.read(), y = await r2.read();
            seen.push(x.value.join(''), y.value.join(''), x.value !== y.value);
            log.push(seen.join(' '));
        })();
        "#,
        ),
        TestAction::run_to_idle(),
        TestAction::assert_no_failures(),
        TestAction::assert_string(
            "log.join('|')",
            "Uint8Array:00 Uint8Array:11 Uint8Array:22 000 000 false",
        ),
    ]);
}

#[test]
fn a_draining_read_of_bytes_coalesces_rust_and_js_chunks() {
    let mut api = Fixture::host();
    let stream = bytes_stream(4, 3, api.context());
    let reader = stream.draining_reader(api.context()).unwrap();
    let mut bytes = Vec::new();
    let mut chunks = 0;
    loop {
        let read = reader.read_bytes(1 << 20, api.context());
        let drained = api.wait(&read).unwrap().unwrap();
        bytes.extend_from_slice(&drained.bytes);
        chunks += drained.chunks;
        if drained.done {
            break;
        }
    }
    assert_eq!(bytes, [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3]);
    assert_eq!(chunks, 4);
    // JS chunks: views are read at their offset; a chunk that is not bytes fails the read.
    let js = support_js_stream(&mut api);
    let reader = ReadableStream::from_value(&js)
        .unwrap()
        .draining_reader(api.context())
        .unwrap();
    let read = reader.read_bytes(1 << 20, api.context());
    let failed = api.wait(&read).unwrap();
    assert!(failed.is_err(), "a string chunk is not bytes");
}

fn support_js_stream(api: &mut Fixture) -> Value {
    api.run([TestAction::run(
        r#"
        var js = new ReadableStream({ start(c) {
            c.enqueue(new Uint8Array([9, 1, 2]).subarray(1)); c.enqueue('text'); c.close();
        } });
        "#,
    )]);
    crate::support::global(api.context(), "js")
}

#[test]
fn a_pipe_moves_rust_bytes_from_a_value_source_to_a_byte_sink_without_js_objects() {
    let run = |count: usize| {
        let mut api = Fixture::host();
        let seen = Shared::default();
        let rs = bytes_stream(count, 8, api.context());
        let ws = WritableStream::from_byte_sink(Sink(seen.clone()), 1.0, api.context()).unwrap();
        let before = boa_streams::js_objects_created();
        let done = rs.pipe_to(&ws, api.context());
        assert!(matches!(api.wait(&done), Some(Ok(()))));
        let made = boa_streams::js_objects_created() - before;
        let seen = seen.borrow();
        assert_eq!((seen.writes, seen.bytes.len()), (count, count * 8));
        assert!(seen
            .bytes
            .chunks(8)
            .enumerate()
            .all(|(i, c)| c == [i as u8; 8]));
        made
    };
    let (small, large) = (run(10), run(200));
    assert_eq!(small, large, "objects made per chunk");
}

/// A byte source over `data`, `chunk` bytes per read, filled in place.
struct Slice {
    data: Vec<u8>,
    at: usize,
}

impl ByteSource for Slice {
    fn pull(&mut self, c: &ByteController, ctx: &mut Context) -> Result<Completion, StreamError> {
        if self.at == self.data.len() {
            c.close(ctx)?;
            return Ok(Completion::Ready);
        }
        let request = c.byob_request().expect("a read is waiting");
        let (data, at) = (&self.data, self.at);
        let n = request
            .fill(|buf| {
                let n = buf.len().min(data.len() - at);
                buf[..n].copy_from_slice(&data[at..at + n]);
                n
            })
            .expect("the request is unanswered");
        self.at += n;
        request.respond(n, ctx)?;
        Ok(Completion::Ready)
    }
}

/// Collects string chunks.
struct Text(Rc<RefCell<String>>);

impl boa_streams::rust::Sink for Text {
    fn write(
        &mut self,
        chunk: Value,
        _: &WritableController,
        _: &mut Context,
    ) -> Result<Completion, StreamError> {
        let text = chunk
            .as_string()
            .ok_or_else(|| StreamError::type_error("strings only"))?;
        self.0.borrow_mut().push_str(&text.to_std_string_escaped());
        Ok(Completion::Ready)
    }
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

/// The text the decompress pipeline tests decode: `lines` numbered lines, some non-ASCII.
fn lines(lines: usize) -> String {
    (0..lines)
        .map(|i| format!("line {i}: données façade 流 {}\n", i * 7))
        .collect()
}

/// Rust byte source → DecompressionStream → TextDecoderStream → Rust sink, piped from script
/// (`pipeThrough`) and from Rust: the text arrives whole, and the JS objects made do not grow
/// with the number of chunks (on Boa: the chunks between the native ends are Rust bytes).
#[test]
fn a_compressed_body_decodes_through_native_transforms_without_js_objects_per_chunk() {
    let run = |count: usize| {
        let mut api = Fixture::host();
        let text = lines(count);
        let body = ReadableStream::from_byte_source(
            Slice {
                data: gzip(text.as_bytes()),
                at: 0,
            },
            0.0,
            Some(256),
            api.context(),
        )
        .unwrap();
        api.set("body", body.to_value());
        let before = boa_streams::js_objects_created();
        api.run([TestAction::run(
            "var decoded = body.pipeThrough(new DecompressionStream('gzip')).pipeThrough(new TextDecoderStream());",
        )]);
        let decoded = crate::support::global(api.context(), "decoded");
        let decoded = ReadableStream::from_value(&decoded).unwrap();
        let out = Rc::new(RefCell::new(String::new()));
        let sink = WritableStream::from_sink(Text(out.clone()), 1.0, api.context()).unwrap();
        let done = decoded.pipe_to(&sink, api.context());
        assert!(matches!(api.wait(&done), Some(Ok(()))));
        let made = boa_streams::js_objects_created() - before;
        assert_eq!(*out.borrow(), text);
        made
    };
    let (small, large) = (run(20), run(2000));
    eprintln!("decompress pipeline: {small} JS objects for 20 lines, {large} for 2000");
    assert_eq!(small, large, "objects made per chunk");
}

/// Rust bytes that a native transform outputs, read by script, are `Uint8Array`s with the
/// bytes; an identity `TransformStream` passes Rust bytes on to a byte sink as they are.
#[test]
fn native_transform_output_is_a_uint8_array_for_script() {
    let mut api = Fixture::host();
    let body = ReadableStream::from_byte_source(
        Slice {
            data: gzip(b"abcdef"),
            at: 0,
        },
        0.0,
        Some(4),
        api.context(),
    )
    .unwrap();
    api.set("body", body.to_value());
    api.run([
        TestAction::run(
            r#"
        (async () => {
            const kinds = new Set();
            let text = '';
            for await (const chunk of body.pipeThrough(new DecompressionStream('gzip'))) {
                kinds.add(chunk.constructor.name);
                text += new TextDecoder().decode(chunk);
            }
            log.push([...kinds].join() + ':' + text);
        })();
        "#,
        ),
        TestAction::run_to_idle(),
        TestAction::assert_no_failures(),
        TestAction::assert_string("log.join('')", "Uint8Array:abcdef"),
    ]);
    let seen = Shared::default();
    let source = source(100, 10, &seen);
    let rs = ReadableStream::from_byte_source(source, 0.0, Some(10), api.context()).unwrap();
    let ws = WritableStream::from_byte_sink(Sink(seen.clone()), 1.0, api.context()).unwrap();
    api.set("rs", rs.to_value());
    api.set("ws", ws.to_value());
    api.run([
        TestAction::run(
            "rs.pipeThrough(new TransformStream()).pipeTo(ws).then(() => log.push('piped'));",
        ),
        TestAction::run_to_idle(),
        TestAction::assert_no_failures(),
        TestAction::assert_string("log.join(' ')", "Uint8Array:abcdef piped"),
    ]);
    let seen = seen.borrow();
    assert_eq!(seen.bytes.len(), 100);
    assert!(seen.bytes.iter().enumerate().all(|(i, b)| *b == byte(i)));
    // Each chunk reaches the sink in the buffer the source filled: the identity transform
    // passes it on without a copy (the pipe's buffers all stay alive while it runs, so a copy
    // could not land at one of their addresses).
    assert_eq!(seen.write_addresses.len(), 10);
    assert!(
        seen.write_addresses
            .iter()
            .all(|a| seen.fill_addresses.contains(a)),
        "a chunk was copied on the way"
    );
}

/// A byte source whose pulls answer later, from a task: pull `end_at` closes the stream (or
/// errors it, when `error` is set) while the pipe's native read waits; the others fill 4 bytes.
struct LateSource {
    pulls: usize,
    end_at: usize,
    error: bool,
}

impl ByteSource for LateSource {
    fn pull(&mut self, c: &ByteController, ctx: &mut Context) -> Result<Completion, StreamError> {
        self.pulls += 1;
        let (completion, completer) = Completion::later();
        let (c, pulls, end_at, error) = (c.clone(), self.pulls, self.end_at, self.error);
        boa_streams::rust::queue_task(ctx, move |ctx| {
            if pulls == end_at {
                if error {
                    c.error(StreamError::type_error("source failed"), ctx);
                } else {
                    c.close(ctx)?;
                }
            } else if let Some(request) = c.byob_request() {
                let n = request.fill(|buf| {
                    buf[..4].copy_from_slice(&[pulls as u8; 4]);
                    4
                });
                request.respond(n.unwrap_or(0), ctx)?;
            }
            completer.complete(ctx);
            Ok(())
        });
        Ok(completion)
    }
}

/// A byte sink that answers each write later (from a task), fails the write numbered
/// `fail_at` (1-based), and records what it got.
struct LateSink {
    seen: Shared,
    writes: usize,
    fail_at: Option<usize>,
}

impl ByteSink for LateSink {
    fn write(
        &mut self,
        bytes: &[u8],
        _: &WritableController,
        ctx: &mut Context,
    ) -> Result<Completion, StreamError> {
        self.writes += 1;
        self.seen.borrow_mut().bytes.extend_from_slice(bytes);
        self.seen.borrow_mut().writes += 1;
        let (completion, completer) = Completion::later();
        let fail = self.fail_at == Some(self.writes);
        boa_streams::rust::queue_task(ctx, move |ctx| {
            if fail {
                completer.fail(StreamError::type_error("sink failed"), ctx);
            } else {
                completer.complete(ctx);
            }
            Ok(())
        });
        Ok(completion)
    }

    fn close(&mut self, _: &mut Context) -> Result<Completion, StreamError> {
        self.seen.borrow_mut().calls.push("close".into());
        Ok(Completion::Ready)
    }

    fn abort(&mut self, reason: Value, ctx: &mut Context) -> Result<Completion, StreamError> {
        let reason = reason
            .to_string(ctx)
            .map_err(|_| StreamError::type_error("reason"))?;
        let reason = reason.to_std_string_escaped();
        self.seen
            .borrow_mut()
            .calls
            .push(format!("abort: {reason}"));
        Ok(Completion::Ready)
    }
}

/// Runs a native pipe from a `LateSource` to a `LateSink` (high-water mark 4) from script, and
/// returns how the pipe's promise settled and what the sink saw.
fn late_pipe(end_at: usize, error: bool, fail_at: Option<usize>) -> (String, Vec<u8>, Vec<String>) {
    let mut api = Fixture::host();
    let seen = Shared::default();
    let source = LateSource {
        pulls: 0,
        end_at,
        error,
    };
    let sink = LateSink {
        seen: seen.clone(),
        writes: 0,
        fail_at,
    };
    let rs = ReadableStream::from_byte_source(source, 0.0, Some(8), api.context()).unwrap();
    let ws = WritableStream::from_byte_sink(sink, 4.0, api.context()).unwrap();
    api.set("rs", rs.to_value());
    api.set("ws", ws.to_value());
    api.run([
        TestAction::run(
            "rs.pipeTo(ws).then(() => log.push('fulfilled'), e => log.push('rejected: ' + e.message));",
        ),
        TestAction::run_to_idle(),
        TestAction::assert_no_failures(),
    ]);
    let outcome = crate::support::eval_string(
        api.context(),
        "log.join('|') + ' ' + rs.locked + ' ' + ws.locked",
    );
    let seen = seen.borrow();
    (outcome, seen.bytes.clone(), seen.calls.clone())
}

#[test]
fn a_native_pipe_whose_source_closes_or_errors_while_a_read_waits() {
    // Pulls 1–3 fill 4 bytes each; pull 4 closes the stream while the native read waits: the
    // read's close steps run (respond in the closed state), the destination closes.
    let (outcome, bytes, calls) = late_pipe(4, false, None);
    assert_eq!(outcome, "fulfilled false false");
    assert_eq!(bytes, [1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3]);
    assert_eq!(calls, ["close"]);
    // Pull 3 errors the stream: the error propagates forward (the destination is aborted with
    // it) and the pipe rejects with it.
    let (outcome, bytes, calls) = late_pipe(3, true, None);
    assert_eq!(outcome, "rejected: source failed false false");
    assert_eq!(bytes, [1, 1, 1, 1, 2, 2, 2, 2]);
    assert_eq!(calls, ["abort: TypeError: source failed"]);
}

#[test]
fn a_native_pipe_whose_sink_fails_cancels_the_source() {
    // The second write fails: the error propagates backward (the source is cancelled with it;
    // the `LateSource` ignores cancel) and the pipe rejects with it. No byte is lost or doubled.
    let (outcome, bytes, calls) = late_pipe(100, false, Some(2));
    assert_eq!(outcome, "rejected: sink failed false false");
    assert_eq!(bytes, [1, 1, 1, 1, 2, 2, 2, 2]);
    assert!(calls.is_empty(), "{calls:?}");
}

/// Pipes `total` bytes in `chunk`-byte reads from a Rust byte source to a Rust byte sink, with
/// one end transferred by script (`structuredClone` with transfer): the transferred end's port
/// carries the chunks. Returns the JS objects the library made while the bytes moved, and
/// checks them.
fn transferred_pipe(total: usize, chunk: usize, transfer: &str) -> u64 {
    let mut api = Fixture::host();
    let seen = Shared::default();
    let ctx = api.context();
    let rs = ReadableStream::from_byte_source(source(total, chunk, &seen), 0.0, Some(chunk), ctx)
        .unwrap();
    let ws = WritableStream::from_byte_sink(Sink(seen.clone()), 1.0, ctx).unwrap();
    api.set("rs", rs.to_value());
    api.set("ws", ws.to_value());
    let script = match transfer {
        "writable" => "var from = rs, to = structuredClone(ws, { transfer: [ws] });",
        _ => "var from = structuredClone(rs, { transfer: [rs] }), to = ws;",
    };
    api.run([TestAction::run(format!(
        "{script} var moved = structuredClone(new Uint8Array(0)); var done = 'pending';"
    ))]);
    let before = boa_streams::js_objects_created();
    api.run([
        TestAction::run(
            "from.pipeTo(to).then(() => { done = 'fulfilled'; }, e => { done = 'rejected: ' + e; });",
        ),
        TestAction::run_to_idle(),
        TestAction::assert_string("done", "fulfilled"),
        TestAction::assert_string("`${from.locked} ${to.locked}`", "false false"),
    ]);
    let made = boa_streams::js_objects_created() - before;
    assert_whole(&seen.borrow(), total, chunk);
    made
}

/// A transferred stream's port as a native end: Rust bytes cross it as the serialization of the
/// `Uint8Array` holding them would, made without one, and arrive as Rust bytes for a reader that
/// takes them.
#[test]
fn a_transferred_end_of_a_native_pipe_carries_rust_bytes() {
    for transfer in ["writable", "readable"] {
        let small = transferred_pipe(10 * 64, 64, transfer);
        let large = transferred_pipe(300 * 64, 64, transfer);
        eprintln!("transferred {transfer}: {small} JS objects for 10 chunks, {large} for 300");
        assert_eq!(
            small, large,
            "objects made per chunk ({transfer} transferred)"
        );
    }
}

/// Script reading a transferred stream of Rust bytes gets a `Uint8Array` per chunk, each over
/// the whole of its own buffer, as deserialization would have made it; a script chunk that is a
/// view on part of a buffer arrives as such.
#[test]
fn script_reads_rust_bytes_from_a_transferred_stream_as_uint8_arrays() {
    let mut api = Fixture::host();
    let seen = Shared::default();
    let ctx = api.context();
    let rs = ReadableStream::from_byte_source(source(12, 4, &seen), 0.0, Some(4), ctx).unwrap();
    api.set("rs", rs.to_value());
    api.run([
        TestAction::run(
            r#"
        var moved = structuredClone(rs, { transfer: [rs] });
        var got = [];
        (async () => {
            for await (const chunk of moved) {
                got.push(`${chunk.constructor.name}:${chunk.byteOffset}:${chunk.buffer.byteLength}:${chunk.join(',')}`);
            }
            got.push('end');
        })();
        var partial = new TransformStream();
        var other = structuredClone(partial.readable, { transfer: [partial.readable] });
        var w = partial.writable.getWriter();
        w.write(new Uint8Array([7, 8, 9]).subarray(1));
        w.write(new Uint8Array([5, 6]));
        var parts = [];
        var r = other.getReader();
        r.read().then(({ value }) => parts.push(`${value.byteOffset}:${value.buffer.byteLength}:${value.join(',')}`))
            .then(() => r.read())
            .then(({ value }) => parts.push(`${value.byteOffset}:${value.buffer.byteLength}:${value.join(',')}`));
        "#,
        ),
        TestAction::run_to_idle(),
        TestAction::assert_string(
            "got.join('|')",
            "Uint8Array:0:4:0,1,2,3|Uint8Array:0:4:4,5,6,7|Uint8Array:0:4:8,9,10,11|end",
        ),
        TestAction::assert_string("parts.join('|')", "1:3:8,9|0:2:5,6"),
    ]);
}
