//! Re-entrancy: a source or sink that calls back into streams from inside its own callbacks.

use std::{
    cell::{Cell, RefCell},
    rc::Rc,
};

use boa_streams::rust::{
    js_string, queue_task, Completion, Context, ReadableController, ReadableStream, Reader, Sink,
    Source, StreamError, Value, WritableController, WritableStream,
};

use crate::sources::Counter;
use crate::support::script::{Fixture, TestAction};
use crate::support::text;
use crate::Api;

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
    let mut api = Fixture::host();
    let cancelled = Rc::new(RefCell::new(None));
    let stream = ReadableStream::from_source(
        SelfCancelling {
            cancelled: cancelled.clone(),
        },
        0.0,
        api.context(),
    )
    .unwrap();
    api.set("s", stream.to_value());
    api.run([
        TestAction::run(
            "(async () => { for await (const x of s) log.push(x); log.push('end'); })();",
        ),
        TestAction::run_to_idle(),
        TestAction::assert_no_failures(),
        TestAction::assert_log("0,1,2,end"),
    ]);
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
    let mut api = Fixture::host();
    let slot = Rc::new(RefCell::new(None));
    let log = Rc::new(RefCell::new(Vec::new()));
    let stream = ReadableStream::from_source(
        CancelsItself {
            stream: slot.clone(),
            log: log.clone(),
        },
        1.0,
        api.context(),
    )
    .unwrap();
    *slot.borrow_mut() = Some(stream);
    api.run([TestAction::run_to_idle(), TestAction::assert_no_failures()]);
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
    other: Rc<Reader>,
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
    let mut api = Fixture::host();
    let pulls = Rc::new(Cell::new(0));
    let numbers = ReadableStream::from_source(
        Counter {
            next: 0,
            end: 10,
            pulls,
        },
        0.0,
        api.context(),
    )
    .unwrap();
    let reader = Rc::new(numbers.reader(api.context()).unwrap());
    let log = Rc::new(RefCell::new(Vec::new()));
    let sink = WritableStream::from_sink(
        ReadingSink {
            other: reader.clone(),
            log: log.clone(),
        },
        1.0,
        api.context(),
    )
    .unwrap();
    api.set("w", sink.to_value());
    api.run([
        TestAction::run(
            "const wr = w.getWriter(); for (const c of 'abc') wr.write(c); wr.close();",
        ),
        TestAction::run_to_idle(),
        TestAction::assert_no_failures(),
    ]);
    assert_eq!(*log.borrow(), ["a0", "b1", "c2"]);

    // A read callback that reads again, recursively, until the stream ends.
    let seen = Rc::new(RefCell::new(Vec::new()));
    fn read_all(reader: Rc<Reader>, seen: Rc<RefCell<Vec<f64>>>, ctx: &mut Context) {
        let again = reader.clone();
        reader.read_with(ctx, move |result, ctx| {
            if let Ok(Some(v)) = result {
                seen.borrow_mut().push(v.as_number().unwrap_or(f64::NAN));
                read_all(again, seen, ctx);
            }
        });
    }
    read_all(reader, seen.clone(), api.context());
    api.run([TestAction::run_to_idle(), TestAction::assert_no_failures()]);
    assert_eq!(*seen.borrow(), [3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]);
}
