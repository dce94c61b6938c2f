//! The Rust API (`boa_streams::rust`): Rust sources, sinks and transformers seen from
//! JavaScript, and Rust readers of JS streams.

mod support;

use std::{
    cell::{Cell, RefCell},
    io::Cursor,
    rc::Rc,
};

use boa_streams::rust::{
    js_string, queue_task, uint8_array, with_chunk_bytes, ByteController, ByteSource, Completion,
    Context, ReadSource, ReadableController, ReadableStream, Sink, Source, StreamError,
    TransformController, TransformStream, Transformer, Value, WritableController, WritableStream,
    WriteSink,
};
use support::host::{eval, eval_string, host, run_to_idle_without_reports};
use support::{set_global, text};

fn bytes_of(value: &Value, ctx: &mut Context) -> Vec<u8> {
    with_chunk_bytes(value, ctx, <[u8]>::to_vec).expect("a byte chunk")
}

// ---------------------------------------------------------------------------------------------
// Value sources
// ---------------------------------------------------------------------------------------------

/// Enqueues 0..end, one per pull, counting pulls.
struct Counter {
    next: i32,
    end: i32,
    pulls: Rc<Cell<u32>>,
}

impl Source for Counter {
    fn pull(
        &mut self,
        c: &ReadableController,
        ctx: &mut Context,
    ) -> Result<Completion, StreamError> {
        self.pulls.set(self.pulls.get() + 1);
        if self.next == self.end {
            c.close(ctx)?;
        } else {
            c.enqueue(Value::from(self.next), ctx)?;
            self.next += 1;
        }
        Ok(Completion::Ready)
    }
}

#[test]
fn chunks_arrive_in_order_and_the_stream_is_an_ordinary_readable_stream() {
    let (host, mut ctx) = host();
    let pulls = Rc::new(Cell::new(0));
    let stream = ReadableStream::from_source(
        Counter {
            next: 0,
            end: 5,
            pulls: pulls.clone(),
        },
        1.0,
        &mut ctx,
    )
    .unwrap();
    set_global(&mut ctx, "s", stream.to_value());
    eval(
        &host,
        &mut ctx,
        r#"
        globalThis.out = [];
        globalThis.brand = [
            s instanceof ReadableStream,
            Object.prototype.toString.call(s),
            typeof ReadableStream.prototype.getReader.call(s).releaseLock(),
        ].join();
        const [a, b] = s.tee();
        (async () => {
            for await (const x of a) out.push('a' + x);
            const r = b.getReader();
            for (;;) { const { value, done } = await r.read(); if (done) break; out.push('b' + value); }
        })();
        "#,
    );
    run_to_idle_without_reports(&host, &mut ctx);
    assert_eq!(
        eval_string(&host, &mut ctx, "brand"),
        "true,[object ReadableStream],undefined"
    );
    assert_eq!(
        eval_string(&host, &mut ctx, "out.join()"),
        "a0,a1,a2,a3,a4,b0,b1,b2,b3,b4"
    );
    assert_eq!(pulls.get(), 6); // five chunks, then the pull that closes
}

#[test]
fn backpressure_pull_is_not_called_while_the_queue_is_full() {
    let (host, mut ctx) = host();
    let pulls = Rc::new(Cell::new(0));
    let stream = ReadableStream::from_source(
        Counter {
            next: 0,
            end: 100,
            pulls: pulls.clone(),
        },
        3.0,
        &mut ctx,
    )
    .unwrap();
    run_to_idle_without_reports(&host, &mut ctx);
    // The queue fills to the high-water mark, then the source is left alone.
    assert_eq!(pulls.get(), 3);
    run_to_idle_without_reports(&host, &mut ctx);
    assert_eq!(pulls.get(), 3);
    // One read frees one slot: exactly one more pull.
    let reader = stream.reader(&mut ctx).unwrap();
    let first = reader
        .read(&mut ctx)
        .wait(&host, &mut ctx)
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(first.as_number(), Some(0.0));
    run_to_idle_without_reports(&host, &mut ctx);
    assert_eq!(pulls.get(), 4);
}

/// Records its cancel reason.
struct Cancellable {
    reason: Rc<RefCell<Option<String>>>,
}

impl Source for Cancellable {
    fn pull(&mut self, _: &ReadableController, _: &mut Context) -> Result<Completion, StreamError> {
        Ok(Completion::Ready)
    }
    fn cancel(&mut self, reason: Value, ctx: &mut Context) -> Result<Completion, StreamError> {
        *self.reason.borrow_mut() = Some(text(&reason, ctx));
        Ok(Completion::Ready)
    }
}

#[test]
fn cancel_reaches_rust_with_the_reason() {
    let (host, mut ctx) = host();
    let reason = Rc::new(RefCell::new(None));
    let stream = ReadableStream::from_source(
        Cancellable {
            reason: reason.clone(),
        },
        0.0,
        &mut ctx,
    )
    .unwrap();
    set_global(&mut ctx, "s", stream.to_value());
    eval(
        &host,
        &mut ctx,
        "s.cancel('enough').then(v => { globalThis.settled = String(v); });",
    );
    run_to_idle_without_reports(&host, &mut ctx);
    assert_eq!(reason.borrow().as_deref(), Some("enough"));
    assert_eq!(eval_string(&host, &mut ctx, "settled"), "undefined");
}

/// Fails its first pull with the given error.
struct Failing(Option<StreamError>);

impl Source for Failing {
    fn pull(&mut self, _: &ReadableController, _: &mut Context) -> Result<Completion, StreamError> {
        Err(self
            .0
            .take()
            .unwrap_or_else(|| StreamError::type_error("again")))
    }
}

#[test]
fn a_rust_error_rejects_the_js_read_with_the_chosen_error_type() {
    let cases: Vec<(StreamError, &str)> = vec![
        (StreamError::type_error("bad"), "TypeError|bad|true"),
        (StreamError::range_error("far"), "RangeError|far|true"),
        (
            StreamError::dom_exception("NetworkError", "reset"),
            "NetworkError|reset|true",
        ),
        (StreamError::Js(Value::from(42)), "42"),
    ];
    for (error, expected) in cases {
        let (host, mut ctx) = host();
        let stream = ReadableStream::from_source(Failing(Some(error)), 1.0, &mut ctx).unwrap();
        set_global(&mut ctx, "s", stream.to_value());
        eval(
            &host,
            &mut ctx,
            r#"
            s.getReader().read().then(() => { globalThis.got = 'fulfilled'; }, e => {
                globalThis.got = typeof e === 'object'
                    ? [e.name, e.message, e instanceof (e.name.endsWith('Error') && globalThis[e.name] || DOMException)].join('|')
                    : String(e);
            });
            "#,
        );
        run_to_idle_without_reports(&host, &mut ctx);
        assert_eq!(eval_string(&host, &mut ctx, "got"), expected);
    }
}

#[test]
fn a_dom_exception_error_is_a_dom_exception() {
    let (host, mut ctx) = host();
    let stream = ReadableStream::from_source(
        Failing(Some(StreamError::dom_exception("AbortError", "stop"))),
        1.0,
        &mut ctx,
    )
    .unwrap();
    set_global(&mut ctx, "s", stream.to_value());
    eval(
        &host,
        &mut ctx,
        "s.getReader().closed.catch(e => { globalThis.got = [e instanceof DOMException, e.code].join(); });",
    );
    run_to_idle_without_reports(&host, &mut ctx);
    assert_eq!(eval_string(&host, &mut ctx, "got"), "true,20");
}

/// Completes each pull later, from a task, enqueuing then.
struct Later {
    next: i32,
    end: i32,
}

impl Source for Later {
    fn pull(
        &mut self,
        c: &ReadableController,
        ctx: &mut Context,
    ) -> Result<Completion, StreamError> {
        let (completion, completer) = Completion::later();
        let (c, n, end) = (c.clone(), self.next, self.end);
        self.next += 1;
        queue_task(ctx, move |ctx| {
            if n == end {
                c.close(ctx)?;
            } else {
                c.enqueue(Value::from(n), ctx)?;
            }
            completer.complete(ctx);
            Ok(())
        });
        Ok(completion)
    }
}

#[test]
fn async_completion_from_a_task() {
    let (host, mut ctx) = host();
    let stream = ReadableStream::from_source(Later { next: 0, end: 4 }, 1.0, &mut ctx).unwrap();
    set_global(&mut ctx, "s", stream.to_value());
    eval(
        &host,
        &mut ctx,
        "globalThis.out = []; (async () => { for await (const x of s) out.push(x); out.push('end'); })();",
    );
    run_to_idle_without_reports(&host, &mut ctx);
    assert_eq!(eval_string(&host, &mut ctx, "out.join()"), "0,1,2,3,end");
}

#[test]
fn an_async_failure_errors_the_stream() {
    struct FailLater;
    impl Source for FailLater {
        fn pull(
            &mut self,
            _: &ReadableController,
            ctx: &mut Context,
        ) -> Result<Completion, StreamError> {
            let (completion, completer) = Completion::later();
            queue_task(ctx, move |ctx| {
                completer.fail(StreamError::range_error("late"), ctx);
                Ok(())
            });
            Ok(completion)
        }
    }
    let (host, mut ctx) = host();
    let stream = ReadableStream::from_source(FailLater, 1.0, &mut ctx).unwrap();
    let reader = stream.reader(&mut ctx).unwrap();
    let error = reader
        .read(&mut ctx)
        .wait(&host, &mut ctx)
        .unwrap()
        .unwrap_err();
    assert_eq!(error.message(&mut ctx), "RangeError: late");
}

// ---------------------------------------------------------------------------------------------
// Re-entrancy
// ---------------------------------------------------------------------------------------------

/// Enqueues three chunks and closes from inside one pull; a later enqueue fails cleanly.
struct SelfCancelling {
    cancelled: Rc<RefCell<Option<String>>>,
}

impl Source for SelfCancelling {
    fn pull(
        &mut self,
        c: &ReadableController,
        ctx: &mut Context,
    ) -> Result<Completion, StreamError> {
        for i in 0..3 {
            c.enqueue(Value::from(i), ctx)?;
        }
        c.close(ctx)?;
        assert!(c.enqueue(Value::from(9), ctx).is_err());
        Ok(Completion::Ready)
    }
    fn cancel(&mut self, reason: Value, ctx: &mut Context) -> Result<Completion, StreamError> {
        *self.cancelled.borrow_mut() = Some(text(&reason, ctx));
        Ok(Completion::Ready)
    }
}

#[test]
fn enqueue_and_close_from_pull() {
    let (host, mut ctx) = host();
    let cancelled = Rc::new(RefCell::new(None));
    let stream = ReadableStream::from_source(
        SelfCancelling {
            cancelled: cancelled.clone(),
        },
        0.0,
        &mut ctx,
    )
    .unwrap();
    set_global(&mut ctx, "s", stream.to_value());
    eval(
        &host,
        &mut ctx,
        "globalThis.out = []; (async () => { for await (const x of s) out.push(x); out.push('end'); })();",
    );
    run_to_idle_without_reports(&host, &mut ctx);
    assert_eq!(eval_string(&host, &mut ctx, "out.join()"), "0,1,2,end");
    assert!(cancelled.borrow().is_none());
}

/// Cancels its own (unlocked) stream from inside its pull: the cancel is a re-entrant call into
/// the same Rust object, deferred to a microtask.
struct CancelsItself {
    stream: Rc<RefCell<Option<ReadableStream>>>,
    log: Rc<RefCell<Vec<String>>>,
}

impl Source for CancelsItself {
    fn pull(
        &mut self,
        _: &ReadableController,
        ctx: &mut Context,
    ) -> Result<Completion, StreamError> {
        self.log.borrow_mut().push("pull".into());
        let stream = self.stream.borrow_mut().take();
        if let Some(stream) = stream {
            let ticket = stream.cancel(Value::from(js_string("from pull")), ctx);
            let log = self.log.clone();
            // The ticket settles once the deferred cancel has run.
            queue_task(ctx, move |_| {
                log.borrow_mut().push(format!(
                    "cancel settled: {:?}",
                    ticket.take().map(|r| r.is_ok())
                ));
                Ok(())
            });
        }
        self.log.borrow_mut().push("pull returns".into());
        Ok(Completion::Ready)
    }
    fn cancel(&mut self, reason: Value, ctx: &mut Context) -> Result<Completion, StreamError> {
        self.log
            .borrow_mut()
            .push(format!("cancel: {}", text(&reason, ctx)));
        Ok(Completion::Ready)
    }
}

#[test]
fn cancel_from_inside_pull_is_deferred_not_a_panic() {
    let (host, mut ctx) = host();
    let slot = Rc::new(RefCell::new(None));
    let log = Rc::new(RefCell::new(Vec::new()));
    let stream = ReadableStream::from_source(
        CancelsItself {
            stream: slot.clone(),
            log: log.clone(),
        },
        1.0,
        &mut ctx,
    )
    .unwrap();
    *slot.borrow_mut() = Some(stream);
    run_to_idle_without_reports(&host, &mut ctx);
    assert_eq!(
        *log.borrow(),
        [
            "pull",
            "pull returns",
            "cancel: from pull",
            "cancel settled: Some(true)"
        ]
    );
}

/// A sink whose write reads a chunk from another stream (and re-enters it).
struct ReadingSink {
    other: Rc<boa_streams::rust::Reader>,
    log: Rc<RefCell<Vec<String>>>,
}

impl Sink for ReadingSink {
    fn write(
        &mut self,
        chunk: Value,
        _: &WritableController,
        ctx: &mut Context,
    ) -> Result<Completion, StreamError> {
        let (completion, completer) = Completion::later();
        let log = self.log.clone();
        let written = text(&chunk, ctx);
        self.other.read_with(ctx, move |result, ctx| {
            let paired = result
                .ok()
                .flatten()
                .map(|v| text(&v, ctx))
                .unwrap_or_default();
            log.borrow_mut().push(format!("{written}{paired}"));
            completer.complete(ctx);
        });
        Ok(completion)
    }
}

#[test]
fn a_sink_may_read_from_a_stream_and_a_read_callback_may_read_again() {
    let (host, mut ctx) = host();
    let pulls = Rc::new(Cell::new(0));
    let numbers = ReadableStream::from_source(
        Counter {
            next: 0,
            end: 10,
            pulls,
        },
        0.0,
        &mut ctx,
    )
    .unwrap();
    let reader = Rc::new(numbers.reader(&mut ctx).unwrap());
    let log = Rc::new(RefCell::new(Vec::new()));
    let sink = WritableStream::from_sink(
        ReadingSink {
            other: reader.clone(),
            log: log.clone(),
        },
        1.0,
        &mut ctx,
    )
    .unwrap();
    set_global(&mut ctx, "w", sink.to_value());
    eval(
        &host,
        &mut ctx,
        "const wr = w.getWriter(); for (const c of 'abc') wr.write(c); wr.close();",
    );
    run_to_idle_without_reports(&host, &mut ctx);
    assert_eq!(*log.borrow(), ["a0", "b1", "c2"]);

    // A read callback that reads again, recursively, until the stream ends.
    let seen = Rc::new(RefCell::new(Vec::new()));
    fn read_all(
        reader: Rc<boa_streams::rust::Reader>,
        seen: Rc<RefCell<Vec<f64>>>,
        ctx: &mut Context,
    ) {
        let again = reader.clone();
        reader.read_with(ctx, move |result, ctx| {
            if let Ok(Some(v)) = result {
                seen.borrow_mut().push(v.as_number().unwrap_or(f64::NAN));
                read_all(again, seen, ctx);
            }
        });
    }
    read_all(reader, seen.clone(), &mut ctx);
    run_to_idle_without_reports(&host, &mut ctx);
    assert_eq!(*seen.borrow(), [3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]);
}

// ---------------------------------------------------------------------------------------------
// Byte sources
// ---------------------------------------------------------------------------------------------

/// Fills every request in place with an incrementing byte, recording each request's length.
struct Filler {
    next: u8,
    remaining: usize,
    lengths: Rc<RefCell<Vec<usize>>>,
}

impl ByteSource for Filler {
    fn pull(&mut self, c: &ByteController, ctx: &mut Context) -> Result<Completion, StreamError> {
        if self.remaining == 0 {
            c.close(ctx)?;
            return Ok(Completion::Ready);
        }
        let Some(request) = c.byob_request() else {
            c.enqueue(&[self.next], ctx)?;
            self.remaining -= 1;
            return Ok(Completion::Ready);
        };
        self.lengths.borrow_mut().push(request.len());
        let n = request
            .fill(|buf| {
                let n = buf.len().min(self.remaining);
                for b in &mut buf[..n] {
                    *b = self.next;
                    self.next = self.next.wrapping_add(1);
                }
                n
            })
            .unwrap_or(0);
        self.remaining -= n;
        request.respond(n, ctx)?;
        Ok(Completion::Ready)
    }
}

#[test]
fn byob_views_are_filled_in_place() {
    let (host, mut ctx) = host();
    let lengths = Rc::new(RefCell::new(Vec::new()));
    let stream = ReadableStream::from_byte_source(
        Filler {
            next: 1,
            remaining: 12,
            lengths: lengths.clone(),
        },
        0.0,
        None,
        &mut ctx,
    )
    .unwrap();
    set_global(&mut ctx, "s", stream.to_value());
    eval(
        &host,
        &mut ctx,
        r#"
        globalThis.out = [];
        (async () => {
            const r = s.getReader({ mode: 'byob' });
            const buffer = new ArrayBuffer(16);
            let { value } = await r.read(new Uint8Array(buffer, 4, 8));
            out.push(buffer.detached, value.buffer.byteLength, value.byteOffset, value.byteLength, [...value].join(' '));
            ({ value } = await r.read(new Uint8Array(value.buffer, 0, 16)));
            out.push(value.byteLength, [...value].join(' '));
            const last = await r.read(new Uint8Array(4));
            out.push(last.done, last.value.byteLength);
        })();
        "#,
    );
    run_to_idle_without_reports(&host, &mut ctx);
    // The view's own buffer (transferred, same length) holds the bytes at the view's offset.
    assert_eq!(
        eval_string(&host, &mut ctx, "out.join('|')"),
        "true|16|4|8|1 2 3 4 5 6 7 8|4|9 10 11 12|true|0"
    );
    assert_eq!(*lengths.borrow(), [8, 16]);
}

#[test]
fn default_reads_fill_the_auto_allocated_buffer() {
    let (host, mut ctx) = host();
    let lengths = Rc::new(RefCell::new(Vec::new()));
    let stream = ReadableStream::from_byte_source(
        Filler {
            next: 0,
            remaining: 10,
            lengths: lengths.clone(),
        },
        0.0,
        Some(4),
        &mut ctx,
    )
    .unwrap();
    let reader = stream.reader(&mut ctx).unwrap();
    let mut chunks = Vec::new();
    while let Some(chunk) = reader
        .read(&mut ctx)
        .wait(&host, &mut ctx)
        .unwrap()
        .unwrap()
    {
        chunks.push(bytes_of(&chunk, &mut ctx));
    }
    assert_eq!(chunks, [vec![0, 1, 2, 3], vec![4, 5, 6, 7], vec![8, 9]]);
    assert_eq!(*lengths.borrow(), [4, 4, 4]);
}

#[test]
fn a_byob_request_answered_twice_is_a_type_error() {
    struct Twice(Rc<RefCell<Vec<String>>>);
    impl ByteSource for Twice {
        fn pull(
            &mut self,
            c: &ByteController,
            ctx: &mut Context,
        ) -> Result<Completion, StreamError> {
            let first = c.byob_request().expect("a request");
            let second = c.byob_request().expect("the same request");
            first.fill(|b| b[0] = 7);
            first.respond(1, ctx)?;
            self.0
                .borrow_mut()
                .push(format!("{:?}", second.fill(|_| ())));
            self.0
                .borrow_mut()
                .push(second.respond(1, ctx).unwrap_err().to_string());
            assert!(c.enqueue(&[], ctx).is_err());
            Ok(Completion::Ready)
        }
    }
    let (host, mut ctx) = host();
    let log = Rc::new(RefCell::new(Vec::new()));
    let stream =
        ReadableStream::from_byte_source(Twice(log.clone()), 0.0, Some(8), &mut ctx).unwrap();
    let reader = stream.reader(&mut ctx).unwrap();
    let chunk = reader
        .read(&mut ctx)
        .wait(&host, &mut ctx)
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(bytes_of(&chunk, &mut ctx), [7]);
    assert_eq!(
        *log.borrow(),
        [
            "None",
            "TypeError: The BYOB request has already been answered"
        ]
    );
}

#[test]
fn bad_arguments_are_errors_not_panics() {
    let (_host, mut ctx) = host();
    let pulls = Rc::new(Cell::new(0));
    let e = ReadableStream::from_source(
        Counter {
            next: 0,
            end: 1,
            pulls: pulls.clone(),
        },
        -1.0,
        &mut ctx,
    )
    .unwrap_err();
    assert!(matches!(e, StreamError::RangeError(_)));
    let e = ReadableStream::from_source(
        Counter {
            next: 0,
            end: 1,
            pulls,
        },
        f64::NAN,
        &mut ctx,
    )
    .unwrap_err();
    assert!(matches!(e, StreamError::RangeError(_)));
    let lengths = Rc::new(RefCell::new(Vec::new()));
    let e = ReadableStream::from_byte_source(
        Filler {
            next: 0,
            remaining: 1,
            lengths,
        },
        0.0,
        Some(0),
        &mut ctx,
    )
    .unwrap_err();
    assert!(matches!(e, StreamError::TypeError(_)));
    let e = WritableStream::from_sink(WriteSink::new(Vec::new()), -2.0, &mut ctx).unwrap_err();
    assert!(matches!(e, StreamError::RangeError(_)));
    // A locked stream cannot get a second reader.
    let s = ReadSource::new(Cursor::new(vec![1u8]), 1)
        .into_stream(&mut ctx)
        .unwrap();
    let _r = s.reader(&mut ctx).unwrap();
    assert!(matches!(
        s.reader(&mut ctx).unwrap_err(),
        StreamError::Js(_)
    ));
    assert!(s.draining_reader(&mut ctx).is_err());
}

// ---------------------------------------------------------------------------------------------
// Sinks
// ---------------------------------------------------------------------------------------------

/// Logs every call; fails the write of "bad".
struct LogSink(Rc<RefCell<Vec<String>>>);

impl Sink for LogSink {
    fn write(
        &mut self,
        chunk: Value,
        _: &WritableController,
        ctx: &mut Context,
    ) -> Result<Completion, StreamError> {
        let chunk = text(&chunk, ctx);
        if chunk == "bad" {
            return Err(StreamError::dom_exception("DataError", "bad chunk"));
        }
        self.0.borrow_mut().push(format!("write {chunk}"));
        Ok(Completion::Ready)
    }
    fn close(&mut self, _: &mut Context) -> Result<Completion, StreamError> {
        self.0.borrow_mut().push("close".into());
        Ok(Completion::Ready)
    }
    fn abort(&mut self, reason: Value, ctx: &mut Context) -> Result<Completion, StreamError> {
        self.0
            .borrow_mut()
            .push(format!("abort {}", text(&reason, ctx)));
        Ok(Completion::Ready)
    }
}

#[test]
fn a_sink_gets_writes_in_order_then_close() {
    let (host, mut ctx) = host();
    let log = Rc::new(RefCell::new(Vec::new()));
    let sink = WritableStream::from_sink(LogSink(log.clone()), 2.0, &mut ctx).unwrap();
    set_global(&mut ctx, "w", sink.to_value());
    eval(
        &host,
        &mut ctx,
        r#"
        const wr = w.getWriter();
        globalThis.sizes = [wr.desiredSize];
        wr.write('a'); sizes.push(wr.desiredSize);
        wr.write('b'); sizes.push(wr.desiredSize);
        wr.close().then(() => sizes.push('closed'));
        "#,
    );
    run_to_idle_without_reports(&host, &mut ctx);
    assert_eq!(*log.borrow(), ["write a", "write b", "close"]);
    assert_eq!(eval_string(&host, &mut ctx, "sizes.join()"), "2,1,0,closed");
}

#[test]
fn abort_reaches_rust_with_the_reason_and_a_write_error_rejects_with_its_type() {
    let (host, mut ctx) = host();
    let log = Rc::new(RefCell::new(Vec::new()));
    let sink = WritableStream::from_sink(LogSink(log.clone()), 1.0, &mut ctx).unwrap();
    set_global(&mut ctx, "w", sink.to_value());
    eval(&host, &mut ctx, "const wr = w.getWriter(); wr.write('x').then(() => wr.abort('user gave up')); wr.closed.catch(() => {});");
    run_to_idle_without_reports(&host, &mut ctx);
    assert_eq!(*log.borrow(), ["write x", "abort user gave up"]);

    let log = Rc::new(RefCell::new(Vec::new()));
    let sink = WritableStream::from_sink(LogSink(log.clone()), 1.0, &mut ctx).unwrap();
    set_global(&mut ctx, "w2", sink.to_value());
    eval(
        &host,
        &mut ctx,
        r#"
        const wr2 = w2.getWriter();
        wr2.write('bad').catch(e => { globalThis.got = [e instanceof DOMException, e.name, e.message].join(); });
        wr2.closed.catch(() => {});
        "#,
    );
    run_to_idle_without_reports(&host, &mut ctx);
    assert_eq!(
        eval_string(&host, &mut ctx, "got"),
        "true,DataError,bad chunk"
    );
    assert!(log.borrow().is_empty());
}

/// A sink that completes each write later, counting writes in flight.
struct SlowSink {
    in_flight: Rc<Cell<u32>>,
    max_in_flight: Rc<Cell<u32>>,
    written: Rc<RefCell<Vec<u8>>>,
}

impl Sink for SlowSink {
    fn write(
        &mut self,
        chunk: Value,
        _: &WritableController,
        ctx: &mut Context,
    ) -> Result<Completion, StreamError> {
        self.in_flight.set(self.in_flight.get() + 1);
        self.max_in_flight
            .set(self.max_in_flight.get().max(self.in_flight.get()));
        with_chunk_bytes(&chunk, ctx, |b| {
            self.written.borrow_mut().extend_from_slice(b)
        })
        .ok_or_else(|| StreamError::type_error("bytes only"))?;
        let (completion, completer) = Completion::later();
        let in_flight = self.in_flight.clone();
        queue_task(ctx, move |ctx| {
            in_flight.set(in_flight.get() - 1);
            completer.complete(ctx);
            Ok(())
        });
        Ok(completion)
    }
}

#[test]
fn pipe_from_a_rust_byte_source_to_a_rust_sink() {
    let (host, mut ctx) = host();
    let data: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
    let source = ReadSource::new(Cursor::new(data.clone()), 4096)
        .into_stream(&mut ctx)
        .unwrap();
    let written = Rc::new(RefCell::new(Vec::new()));
    let max_in_flight = Rc::new(Cell::new(0));
    let sink = WritableStream::from_sink(
        SlowSink {
            in_flight: Rc::new(Cell::new(0)),
            max_in_flight: max_in_flight.clone(),
            written: written.clone(),
        },
        4.0,
        &mut ctx,
    )
    .unwrap();
    let done = source.pipe_to(&sink, &mut ctx);
    done.wait(&host, &mut ctx).unwrap().unwrap();
    assert_eq!(*written.borrow(), data);
    assert_eq!(max_in_flight.get(), 1); // one write at a time
}

#[test]
fn read_and_write_adapters_through_a_js_transform() {
    #[derive(Clone, Default)]
    struct Shared(Rc<RefCell<Vec<u8>>>);
    impl std::io::Write for Shared {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.borrow_mut().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let (host, mut ctx) = host();
    let source = ReadSource::new(Cursor::new(b"hello streams".to_vec()), 4)
        .into_stream(&mut ctx)
        .unwrap();
    let out = Shared::default();
    let sink = WriteSink::new(out.clone()).into_stream(&mut ctx).unwrap();
    set_global(&mut ctx, "src", source.to_value());
    set_global(&mut ctx, "dst", sink.to_value());
    eval(
        &host,
        &mut ctx,
        r#"
        src.pipeThrough(new TransformStream({
            transform(chunk, c) { c.enqueue(chunk.map(b => b >= 97 && b <= 122 ? b - 32 : b)); }
        })).pipeTo(dst).then(() => { globalThis.piped = true; });
        "#,
    );
    run_to_idle_without_reports(&host, &mut ctx);
    assert_eq!(eval_string(&host, &mut ctx, "piped"), "true");
    assert_eq!(&*out.0.borrow(), b"HELLO STREAMS");
}

#[test]
fn an_io_error_errors_the_stream_with_a_type_error() {
    struct Broken;
    impl std::io::Read for Broken {
        fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
            Err(std::io::Error::other("disk unplugged"))
        }
    }
    let (host, mut ctx) = host();
    let stream = ReadSource::new(Broken, 16).into_stream(&mut ctx).unwrap();
    let reader = stream.reader(&mut ctx).unwrap();
    let error = reader
        .read(&mut ctx)
        .wait(&host, &mut ctx)
        .unwrap()
        .unwrap_err();
    assert_eq!(error.message(&mut ctx), "TypeError: disk unplugged");
}

// ---------------------------------------------------------------------------------------------
// Transformers
// ---------------------------------------------------------------------------------------------

/// Splits string chunks into words; flush emits a count; "boom" fails.
struct Words {
    count: usize,
    cancelled: Rc<RefCell<Option<String>>>,
}

impl Transformer for Words {
    fn transform(
        &mut self,
        chunk: Value,
        c: &TransformController,
        ctx: &mut Context,
    ) -> Result<Completion, StreamError> {
        let chunk = text(&chunk, ctx);
        if chunk == "boom" {
            return Err(StreamError::range_error("boom"));
        }
        for word in chunk.split_whitespace() {
            self.count += 1;
            c.enqueue(Value::from(js_string(word)), ctx)?;
        }
        Ok(Completion::Ready)
    }
    fn flush(
        &mut self,
        c: &TransformController,
        ctx: &mut Context,
    ) -> Result<Completion, StreamError> {
        c.enqueue(
            Value::from(js_string(&format!("({} words)", self.count))),
            ctx,
        )?;
        Ok(Completion::Ready)
    }
    fn cancel(&mut self, reason: Value, ctx: &mut Context) -> Result<Completion, StreamError> {
        *self.cancelled.borrow_mut() = Some(text(&reason, ctx));
        Ok(Completion::Ready)
    }
}

#[test]
fn a_rust_transformer_used_from_js() {
    let (host, mut ctx) = host();
    let cancelled = Rc::new(RefCell::new(None));
    let t = TransformStream::from_transformer(
        Words {
            count: 0,
            cancelled: cancelled.clone(),
        },
        &mut ctx,
    )
    .unwrap();
    set_global(&mut ctx, "t", t.to_value());
    eval(
        &host,
        &mut ctx,
        r#"
        globalThis.out = [String(t instanceof TransformStream), String(t.readable instanceof ReadableStream)];
        ReadableStream.from(['a b', 'c', 'd e f']).pipeThrough(t)
            .pipeTo(new WritableStream({ write(w) { out.push(w); } }));
        "#,
    );
    run_to_idle_without_reports(&host, &mut ctx);
    assert_eq!(
        eval_string(&host, &mut ctx, "out.join()"),
        "true,true,a,b,c,d,e,f,(6 words)"
    );

    let t = TransformStream::from_transformer(
        Words {
            count: 0,
            cancelled: cancelled.clone(),
        },
        &mut ctx,
    )
    .unwrap();
    set_global(&mut ctx, "t2", t.to_value());
    eval(
        &host,
        &mut ctx,
        r#"
        t2.readable.getReader().read().catch(() => {});
        const w = t2.writable.getWriter();
        w.write('boom').catch(e => { globalThis.got = e.constructor.name + ': ' + e.message; });
        "#,
    );
    run_to_idle_without_reports(&host, &mut ctx);
    assert_eq!(eval_string(&host, &mut ctx, "got"), "RangeError: boom");

    let t = TransformStream::from_transformer(
        Words {
            count: 0,
            cancelled: cancelled.clone(),
        },
        &mut ctx,
    )
    .unwrap();
    set_global(&mut ctx, "t3", t.to_value());
    eval(&host, &mut ctx, "t3.readable.cancel('not needed');");
    run_to_idle_without_reports(&host, &mut ctx);
    assert_eq!(cancelled.borrow().as_deref(), Some("not needed"));
}

// ---------------------------------------------------------------------------------------------
// Rust readers
// ---------------------------------------------------------------------------------------------

#[test]
fn a_js_error_reaches_rust_as_an_inspectable_value() {
    let (host, mut ctx) = host();
    let js = eval(
        &host,
        &mut ctx,
        "new ReadableStream({ pull(c) { c.error(new RangeError('out of range')); } })",
    );
    let reader = ReadableStream::from_value(&js)
        .unwrap()
        .reader(&mut ctx)
        .unwrap();
    let error = reader
        .read(&mut ctx)
        .wait(&host, &mut ctx)
        .unwrap()
        .unwrap_err();
    let value = error.js_value().expect("the JS value").clone();
    assert!(value.is_object());
    assert_eq!(error.message(&mut ctx), "RangeError: out of range");
    set_global(&mut ctx, "e", value);
    assert_eq!(
        eval_string(&host, &mut ctx, "e instanceof RangeError"),
        "true"
    );
}

#[test]
fn draining_returns_every_queued_chunk_up_to_the_byte_limit() {
    let (host, mut ctx) = host();
    let js = eval(
        &host,
        &mut ctx,
        "new ReadableStream({ start(c) { for (let i = 0; i < 10; i++) c.enqueue(new Uint8Array(100).fill(i)); c.close(); } })",
    );
    let reader = ReadableStream::from_value(&js)
        .unwrap()
        .draining_reader(&mut ctx)
        .unwrap();
    let mut batches = Vec::new();
    loop {
        let drained = reader
            .read(350, &mut ctx)
            .wait(&host, &mut ctx)
            .unwrap()
            .unwrap();
        let firsts: Vec<u8> = drained
            .chunks
            .iter()
            .map(|c| bytes_of(c, &mut ctx)[0])
            .collect();
        batches.push((firsts, drained.done));
        if drained.done {
            break;
        }
    }
    assert_eq!(
        batches,
        [
            (vec![0, 1, 2, 3], false),
            (vec![4, 5, 6, 7], false),
            (vec![8, 9], true)
        ]
    );
    // After the end, a read is an empty done batch.
    let after = reader
        .read(350, &mut ctx)
        .wait(&host, &mut ctx)
        .unwrap()
        .unwrap();
    assert!(after.chunks.is_empty() && after.done);
}

#[test]
fn draining_pulls_again_while_the_source_enqueues_synchronously() {
    let (host, mut ctx) = host();
    // hwm 0, one chunk per pull: the draining read keeps pulling within the checkpoint.
    let js = eval(
        &host,
        &mut ctx,
        r#"
        globalThis.pulls = 0;
        new ReadableStream({ pull(c) { pulls++; c.enqueue('x'.repeat(10)); if (pulls == 50) c.close(); } }, { highWaterMark: 0 })
        "#,
    );
    let reader = ReadableStream::from_value(&js)
        .unwrap()
        .draining_reader(&mut ctx)
        .unwrap();
    let first = reader
        .read(1 << 20, &mut ctx)
        .wait(&host, &mut ctx)
        .unwrap()
        .unwrap();
    assert_eq!(first.chunks.len(), 50);
    assert!(first.done);

    // A byte limit stops it: 10-byte strings, limit 95 -> 10 chunks per batch.
    let js = eval(
        &host,
        &mut ctx,
        "let n = 0; new ReadableStream({ pull(c) { c.enqueue('y'.repeat(10)); if (++n == 25) c.close(); } }, { highWaterMark: 0 })",
    );
    let reader = ReadableStream::from_value(&js)
        .unwrap()
        .draining_reader(&mut ctx)
        .unwrap();
    let mut sizes = Vec::new();
    loop {
        let d = reader
            .read(95, &mut ctx)
            .wait(&host, &mut ctx)
            .unwrap()
            .unwrap();
        sizes.push(d.chunks.len());
        if d.done {
            break;
        }
    }
    assert_eq!(sizes, [10, 10, 5]);
    assert_eq!(eval_string(&host, &mut ctx, "String(n)"), "25");
}

#[test]
fn draining_an_asynchronous_source_returns_what_is_there() {
    let (host, mut ctx) = host();
    let js = eval(
        &host,
        &mut ctx,
        r#"
        let i = 0;
        new ReadableStream({
            pull(c) { return new Promise(r => setTimeout(() => { c.enqueue(i++); if (i == 3) c.close(); r(); }, 1)); }
        }, { highWaterMark: 0 })
        "#,
    );
    let reader = ReadableStream::from_value(&js)
        .unwrap()
        .draining_reader(&mut ctx)
        .unwrap();
    let mut batches = Vec::new();
    loop {
        let d = reader
            .read(1000, &mut ctx)
            .wait(&host, &mut ctx)
            .unwrap()
            .unwrap();
        batches.push(
            d.chunks
                .iter()
                .map(|c| c.as_number().unwrap_or(-1.0))
                .collect::<Vec<_>>(),
        );
        if d.done {
            break;
        }
    }
    let flat: Vec<f64> = batches.concat();
    assert_eq!(flat, [0.0, 1.0, 2.0]);
    assert!(batches.iter().all(|b| b.len() <= 1), "{batches:?}");
}

#[test]
fn draining_byte_streams_and_errors() {
    let (host, mut ctx) = host();
    let js = eval(
        &host,
        &mut ctx,
        r#"
        let k = 0;
        new ReadableStream({
            type: 'bytes',
            pull(c) { c.enqueue(new Uint8Array(64).fill(k++)); if (k == 8) c.error(new TypeError('cut')); }
        })
        "#,
    );
    let reader = ReadableStream::from_value(&js)
        .unwrap()
        .draining_reader(&mut ctx)
        .unwrap();
    // The chunks before the error come first; the next read reports the error.
    let d = reader
        .read(1 << 20, &mut ctx)
        .wait(&host, &mut ctx)
        .unwrap();
    match d {
        Ok(d) => {
            assert!(!d.chunks.is_empty() && !d.done);
            let again = reader
                .read(1 << 20, &mut ctx)
                .wait(&host, &mut ctx)
                .unwrap();
            assert_eq!(again.unwrap_err().message(&mut ctx), "TypeError: cut");
        }
        Err(e) => panic!("first read failed: {}", e.message(&mut ctx)),
    }

    // Two reads at once: the second is a TypeError.
    let js = eval(&host, &mut ctx, "new ReadableStream()");
    let reader = ReadableStream::from_value(&js)
        .unwrap()
        .draining_reader(&mut ctx)
        .unwrap();
    let _pending = reader.read(10, &mut ctx);
    let second = reader.read(10, &mut ctx).wait(&host, &mut ctx).unwrap();
    assert!(matches!(second, Err(StreamError::TypeError(_))));
}

#[test]
fn a_rust_value_stream_of_bytes_drained_into_a_vec() {
    struct Chunks(u8);
    impl Source for Chunks {
        fn pull(
            &mut self,
            c: &ReadableController,
            ctx: &mut Context,
        ) -> Result<Completion, StreamError> {
            for _ in 0..4 {
                if self.0 == 20 {
                    c.close(ctx)?;
                    break;
                }
                c.enqueue(uint8_array(&[self.0; 3], ctx)?, ctx)?;
                self.0 += 1;
            }
            Ok(Completion::Ready)
        }
    }
    let (host, mut ctx) = host();
    let stream = ReadableStream::from_source(Chunks(0), 0.0, &mut ctx).unwrap();
    let reader = stream.draining_reader(&mut ctx).unwrap();
    let mut out = Vec::new();
    let mut calls = 0;
    loop {
        let d = reader
            .read(1 << 16, &mut ctx)
            .wait(&host, &mut ctx)
            .unwrap()
            .unwrap();
        calls += 1;
        for c in &d.chunks {
            with_chunk_bytes(c, &mut ctx, |b| out.extend_from_slice(b));
        }
        if d.done {
            break;
        }
    }
    assert_eq!(out.len(), 60);
    assert_eq!(calls, 1);
}
