//! Value sources: Rust `Source`s seen from JavaScript.

use std::{
    cell::{Cell, RefCell},
    rc::Rc,
};

use boa_streams::rust::{
    queue_task, Completion, Context, ReadableController, ReadableStream, Source, StreamError, Value,
};

use crate::support::script::{Fixture, TestAction};
use crate::support::text;
use crate::Api;

/// Enqueues 0..end, one per pull, counting pulls.
pub struct Counter {
    pub next: i32,
    pub end: i32,
    pub pulls: Rc<Cell<u32>>,
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
    let mut api = Fixture::host();
    let pulls = Rc::new(Cell::new(0));
    let stream = ReadableStream::from_source(
        Counter {
            next: 0,
            end: 5,
            pulls: pulls.clone(),
        },
        1.0,
        api.context(),
    )
    .unwrap();
    api.set("s", stream.to_value());
    api.run([
        TestAction::run(
            r#"
        globalThis.brand = [
            s instanceof ReadableStream,
            Object.prototype.toString.call(s),
            typeof ReadableStream.prototype.getReader.call(s).releaseLock(),
        ].join();
        const [a, b] = s.tee();
        (async () => {
            for await (const x of a) log.push('a' + x);
            const r = b.getReader();
            for (;;) { const { value, done } = await r.read(); if (done) break; log.push('b' + value); }
        })();
        "#,
        ),
        TestAction::run_to_idle(),
        TestAction::assert_no_failures(),
        TestAction::assert_string("brand", "true,[object ReadableStream],undefined"),
        TestAction::assert_log("a0,a1,a2,a3,a4,b0,b1,b2,b3,b4"),
    ]);
    assert_eq!(pulls.get(), 6); // five chunks, then the pull that closes
}

#[test]
fn backpressure_pull_is_not_called_while_the_queue_is_full() {
    let mut api = Fixture::host();
    let pulls = Rc::new(Cell::new(0));
    let stream = ReadableStream::from_source(
        Counter {
            next: 0,
            end: 100,
            pulls: pulls.clone(),
        },
        3.0,
        api.context(),
    )
    .unwrap();
    api.run([TestAction::run_to_idle(), TestAction::assert_no_failures()]);
    // The queue fills to the high-water mark, then the source is left alone.
    assert_eq!(pulls.get(), 3);
    api.run([TestAction::run_to_idle(), TestAction::assert_no_failures()]);
    assert_eq!(pulls.get(), 3);
    // One read frees one slot: exactly one more pull.
    let reader = stream.reader(api.context()).unwrap();
    let read = reader.read(api.context());
    let first = api.wait(&read).unwrap().unwrap().unwrap();
    assert_eq!(first.as_number(), Some(0.0));
    api.run([TestAction::run_to_idle(), TestAction::assert_no_failures()]);
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
    let mut api = Fixture::host();
    let reason = Rc::new(RefCell::new(None));
    let stream = ReadableStream::from_source(
        Cancellable {
            reason: reason.clone(),
        },
        0.0,
        api.context(),
    )
    .unwrap();
    api.set("s", stream.to_value());
    api.run([
        TestAction::run("s.cancel('enough').then(v => { globalThis.settled = String(v); });"),
        TestAction::run_to_idle(),
        TestAction::assert_no_failures(),
    ]);
    assert_eq!(reason.borrow().as_deref(), Some("enough"));
    api.run([TestAction::assert_string("settled", "undefined")]);
}

/// Fails its first pull with the given error.
pub struct Failing(pub Option<StreamError>);

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
        let mut api = Fixture::host();
        let stream = ReadableStream::from_source(Failing(Some(error)), 1.0, api.context()).unwrap();
        api.set("s", stream.to_value());
        api.run([
            TestAction::run(
                r#"
            s.getReader().read().then(() => { globalThis.got = 'fulfilled'; }, e => {
                globalThis.got = typeof e === 'object'
                    ? [e.name, e.message, e instanceof (e.name.endsWith('Error') && globalThis[e.name] || DOMException)].join('|')
                    : String(e);
            });
            "#,
            ),
            TestAction::run_to_idle(),
            TestAction::assert_no_failures(),
            TestAction::assert_string("got", expected),
        ]);
    }
}

#[test]
fn a_dom_exception_error_is_a_dom_exception() {
    let mut api = Fixture::host();
    let stream = ReadableStream::from_source(
        Failing(Some(StreamError::dom_exception("AbortError", "stop"))),
        1.0,
        api.context(),
    )
    .unwrap();
    api.set("s", stream.to_value());
    api.run([
        TestAction::run(
            "s.getReader().closed.catch(e => { globalThis.got = [e instanceof DOMException, e.code].join(); });",
        ),
        TestAction::run_to_idle(),
        TestAction::assert_no_failures(),
        TestAction::assert_string("got", "true,20"),
    ]);
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
    let mut api = Fixture::host();
    let stream =
        ReadableStream::from_source(Later { next: 0, end: 4 }, 1.0, api.context()).unwrap();
    api.set("s", stream.to_value());
    api.run([
        TestAction::run(
            "(async () => { for await (const x of s) log.push(x); log.push('end'); })();",
        ),
        TestAction::run_to_idle(),
        TestAction::assert_no_failures(),
        TestAction::assert_log("0,1,2,3,end"),
    ]);
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
    let mut api = Fixture::host();
    let stream = ReadableStream::from_source(FailLater, 1.0, api.context()).unwrap();
    let reader = stream.reader(api.context()).unwrap();
    let read = reader.read(api.context());
    let error = api.wait(&read).unwrap().unwrap_err();
    assert_eq!(error.message(api.context()), "RangeError: late");
}
