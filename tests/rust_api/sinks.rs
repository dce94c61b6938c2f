//! Sinks: Rust `Sink`s seen from JavaScript, a pipe between Rust ends, and the `std::io`
//! adapters (`ReadSource`, `WriteSink`).

use std::{
    cell::{Cell, RefCell},
    io::Cursor,
    rc::Rc,
};

use boa_streams::rust::{
    queue_task, with_chunk_bytes, Completion, Context, ReadSource, Sink, StreamError, Value,
    WritableController, WritableStream, WriteSink,
};

use crate::support::script::{Fixture, TestAction};
use crate::support::text;
use crate::Api;

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
    let mut api = Fixture::host();
    let log = Rc::new(RefCell::new(Vec::new()));
    let sink = WritableStream::from_sink(LogSink(log.clone()), 2.0, api.context()).unwrap();
    api.set("w", sink.to_value());
    api.run([
        TestAction::run(
            r#"
        const wr = w.getWriter();
        globalThis.sizes = [wr.desiredSize];
        wr.write('a'); sizes.push(wr.desiredSize);
        wr.write('b'); sizes.push(wr.desiredSize);
        wr.close().then(() => sizes.push('closed'));
        "#,
        ),
        TestAction::run_to_idle(),
        TestAction::assert_no_failures(),
    ]);
    assert_eq!(*log.borrow(), ["write a", "write b", "close"]);
    api.run([TestAction::assert_string("sizes.join()", "2,1,0,closed")]);
}

#[test]
fn abort_reaches_rust_with_the_reason_and_a_write_error_rejects_with_its_type() {
    let mut api = Fixture::host();
    let log = Rc::new(RefCell::new(Vec::new()));
    let sink = WritableStream::from_sink(LogSink(log.clone()), 1.0, api.context()).unwrap();
    api.set("w", sink.to_value());
    api.run([
        TestAction::run("const wr = w.getWriter(); wr.write('x').then(() => wr.abort('user gave up')); wr.closed.catch(() => {});"),
        TestAction::run_to_idle(),
        TestAction::assert_no_failures(),
    ]);
    assert_eq!(*log.borrow(), ["write x", "abort user gave up"]);

    let log = Rc::new(RefCell::new(Vec::new()));
    let sink = WritableStream::from_sink(LogSink(log.clone()), 1.0, api.context()).unwrap();
    api.set("w2", sink.to_value());
    api.run([
        TestAction::run(
            r#"
        const wr2 = w2.getWriter();
        wr2.write('bad').catch(e => { globalThis.got = [e instanceof DOMException, e.name, e.message].join(); });
        wr2.closed.catch(() => {});
        "#,
        ),
        TestAction::run_to_idle(),
        TestAction::assert_no_failures(),
        TestAction::assert_string("got", "true,DataError,bad chunk"),
    ]);
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
    let mut api = Fixture::host();
    let data: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
    let source = ReadSource::new(Cursor::new(data.clone()), 4096)
        .into_stream(api.context())
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
        api.context(),
    )
    .unwrap();
    let done = source.pipe_to(&sink, api.context());
    api.wait(&done).unwrap().unwrap();
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
    let mut api = Fixture::host();
    let source = ReadSource::new(Cursor::new(b"hello streams".to_vec()), 4)
        .into_stream(api.context())
        .unwrap();
    let out = Shared::default();
    let sink = WriteSink::new(out.clone())
        .into_stream(api.context())
        .unwrap();
    api.set("src", source.to_value());
    api.set("dst", sink.to_value());
    api.run([
        TestAction::run(
            r#"
        src.pipeThrough(new TransformStream({
            transform(chunk, c) { c.enqueue(chunk.map(b => b >= 97 && b <= 122 ? b - 32 : b)); }
        })).pipeTo(dst).then(() => { globalThis.piped = true; });
        "#,
        ),
        TestAction::run_to_idle(),
        TestAction::assert_no_failures(),
        TestAction::assert_string("piped", "true"),
    ]);
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
    let mut api = Fixture::host();
    let stream = ReadSource::new(Broken, 16)
        .into_stream(api.context())
        .unwrap();
    let reader = stream.reader(api.context()).unwrap();
    let read = reader.read(api.context());
    let error = api.wait(&read).unwrap().unwrap_err();
    assert_eq!(error.message(api.context()), "TypeError: disk unplugged");
}
