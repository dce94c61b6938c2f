//! `pipeTo()`, `pipeThrough()` and ReadableStreamPipeTo.
//!
//! <https://streams.spec.whatwg.org/#readable-stream-pipe-to>
//!
//! The spec describes the pipe as steps that run "in parallel" under constraints, and leaves
//! their timing open. Here the loop follows the reference implementation's pipeLoop job for
//! job (the choice this project makes, so `stream-diff` finds no difference): each step waits
//! for writer.[[readyPromise]] (backpressure), reads one chunk with a Rust read request
//! (`PipeRead`, [`ReadRequest::Pipe`]), and resolves its promise with the read's; the chunk
//! steps write with an internal write request (`WriteRequest::Internal`, reporting to
//! [`write_settled`]) recorded as the current write, which the shutdown steps wait for. The step's, the read's and
//! the write's promises each have one reaction, the pipe's, so they are state of the pipe
//! ([`ReadState`], [`PipeState::current_write_finished`]) from which the jobs they would queue
//! are queued, and the pipe writer's ready promises are internal promises (Rust values with the
//! job timing of JS promises), so a chunk costs no JS promise, function or `{ value, done }`
//! object, and no promise of any kind but the ready promise. Where the spec governs, the loop departs from the reference: no read
//! starts once shuttingDown is set, and a chunk that arrives inside the source's `enqueue()` is
//! written in a microtask. The error and close propagation rules react to reader.[[closedPromise]]
//! and writer.[[closedPromise]] (once per pipe), and the `AbortSignal` gets an abort algorithm.
//!
//! Where the source is a byte stream whose source fills buffers from Rust and the destination's
//! sink takes Rust bytes (a Rust byte source piped to a Rust `ByteSink`), the reader is a BYOB
//! reader (step 8 leaves the choice to the user agent) whose reads go into the pipe's own
//! recycled Rust buffers: the chunks reach the sink as Rust bytes, with no JS object and no
//! zero-filled buffer per chunk ([`native_read_size`]).
//!
//! [`js_objects_created`] counts every JS object (promise or function) this module creates, so
//! a test can show that the count does not grow with the number of chunks.

use crate::writable::stream::WritableSlots;
use std::{cell::Cell, collections::VecDeque};

use crate::engine::internal_promise::InternalPromise;
use crate::engine::{
    upon_settlement, Cx, JsPromise, JsResult, Object, PromiseResult, Shared, Slot, Value,
};

use crate::queue::Chunk;
use crate::queue::{BufferPool, NativeBytes};
use crate::writable::default_controller as writable_default_controller;

use super::{
    byob_reader::{
        acquire_readable_stream_byob_reader, readable_stream_byob_reader_read_native,
        readable_stream_byob_reader_release, ReadIntoRequest, ReadIntoRequestSteps,
        ReadableStreamBYOBReader,
    },
    byte_controller,
    default_reader::{
        readable_stream_default_reader_read, readable_stream_default_reader_release, ReadRequest,
        ReadableStreamDefaultReader,
    },
    stream::{
        acquire_readable_stream_default_reader, as_stream, is_readable_stream_locked,
        readable_stream_cancel, ReadableStream, StreamSlots, StreamState,
    },
    ControllerRef,
};
use crate::{
    dom::{self, AbortAlgorithmHandle},
    engine::webidl,
    engine::{self, PromiseCapability},
    writable::{
        default_writer::{
            self, writable_stream_default_writer_close_with_error_propagation,
            writable_stream_default_writer_release, writable_stream_default_writer_write_request,
            Writer,
        },
        stream::{
            acquire_writable_stream_default_writer, is_writable_stream_locked,
            writable_stream_abort, writable_stream_close_queued_or_in_flight,
        },
        InternalWrite, WritableState, WritableStream, WriteRequest,
    },
};

thread_local! {
    static JS_OBJECTS_CREATED: Cell<u64> = const { Cell::new(0) };
}

/// Counts `n` JS objects created by the pipe machinery.
fn count(n: u64) {
    JS_OBJECTS_CREATED.with(|c| c.set(c.get() + n));
}

/// The number of JS objects (promises, functions, errors, the state object) that the pipe's own
/// steps on this thread have created so far: the pipe's promise and state, its reactions to the
/// closed promises, and what abort handling and shutdown need. (The stream operations the pipe
/// calls, such as acquiring the reader and writer or aborting the destination, are not counted:
/// they are the spec's observable steps.) The chunk steps create nothing, so the count does not
/// grow with the number of chunks.
pub fn js_objects_created() -> u64 {
    JS_OBJECTS_CREATED.with(Cell::get)
}

/// `engine::react`: two reaction functions and the derived promise.
const REACTION_OBJECTS: u64 = 3;
/// `PromiseCapability::new`: the promise and its two resolving functions.
const CAPABILITY_OBJECTS: u64 = 3;

/// The `StreamPipeOptions` dictionary, converted:
/// <https://streams.spec.whatwg.org/#dictdef-streampipeoptions>.
struct StreamPipeOptions {
    prevent_abort: bool,
    prevent_cancel: bool,
    prevent_close: bool,
    signal: Option<Object>,
}

impl StreamPipeOptions {
    /// Members in lexicographic order: `preventAbort`, `preventCancel`, `preventClose`,
    /// `signal`.
    fn from_js(value: &Value, ctx: &mut Cx) -> JsResult<Self> {
        let dict = webidl::dictionary(value, "The pipe options")?;
        let dict = dict.as_ref();
        let prevent_abort = webidl::member(dict, "preventAbort", ctx)?.to_boolean();
        let prevent_cancel = webidl::member(dict, "preventCancel", ctx)?.to_boolean();
        let prevent_close = webidl::member(dict, "preventClose", ctx)?.to_boolean();
        let signal = webidl::member(dict, "signal", ctx)?;
        let signal = if signal.is_undefined() {
            None
        } else if dom::is_abort_signal(&signal) {
            signal.as_object()
        } else {
            return Err(engine::throw_type_error(
                "The pipe options' signal must be an AbortSignal",
            ));
        };
        Ok(Self {
            prevent_abort,
            prevent_cancel,
            prevent_close,
            signal,
        })
    }
}

fn as_writable(value: &Value) -> Option<Object<WritableStream>> {
    value
        .as_object()
        .and_then(|o| o.clone().downcast::<WritableStream>().ok())
}

/// <https://streams.spec.whatwg.org/#rs-pipe-through>
pub(crate) fn rs_pipe_through(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let stream = webidl::this::<ReadableStream>(this)?;
    // WebIDL conversion of `ReadableWritablePair transform` (required members `readable`, then
    // `writable`) and `optional StreamPipeOptions options = {}`.
    let pair = args.first().cloned().unwrap_or_default();
    let pair = webidl::dictionary(&pair, "The transform stream pair")?;
    let readable = webidl::member(pair.as_ref(), "readable", ctx)?;
    let Some(readable) = as_stream(&readable) else {
        return Err(engine::throw_type_error(
            "pipeThrough's transform.readable must be a ReadableStream",
        ));
    };
    let writable = webidl::member(pair.as_ref(), "writable", ctx)?;
    let Some(writable) = as_writable(&writable) else {
        return Err(engine::throw_type_error(
            "pipeThrough's transform.writable must be a WritableStream",
        ));
    };
    let options = StreamPipeOptions::from_js(&args.get(1).cloned().unwrap_or_default(), ctx)?;
    // 1. If ! IsReadableStreamLocked(this) is true, throw a TypeError exception.
    if is_readable_stream_locked(&stream) {
        return Err(engine::throw_type_error(
            "Cannot pipe a stream that is locked to a reader",
        ));
    }
    // 2. If ! IsWritableStreamLocked(transform["writable"]) is true, throw a TypeError
    //    exception.
    if is_writable_stream_locked(&writable) {
        return Err(engine::throw_type_error(
            "Cannot pipe to a stream that is locked to a writer",
        ));
    }
    // 3. Let signal be options["signal"] if it exists, or undefined otherwise.
    // 4. Let promise be ! ReadableStreamPipeTo(this, transform["writable"],
    //    options["preventClose"], options["preventAbort"], options["preventCancel"], signal).
    let promise = readable_stream_pipe_to(
        &stream,
        &writable,
        options.prevent_close,
        options.prevent_abort,
        options.prevent_cancel,
        options.signal,
        ctx,
    )?;
    // 5. Set promise.[[PromiseIsHandled]] to true.
    count(REACTION_OBJECTS - 1);
    engine::mark_as_handled(&promise, ctx)?;
    // 6. Return transform["readable"].
    Ok(readable.upcast().into())
}

/// <https://streams.spec.whatwg.org/#rs-pipe-to>
pub(crate) fn rs_pipe_to(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let stream = webidl::this::<ReadableStream>(this)?;
    // WebIDL conversion of `WritableStream destination` and
    // `optional StreamPipeOptions options = {}`.
    let Some(destination) = as_writable(&args.first().cloned().unwrap_or_default()) else {
        return Err(engine::throw_type_error(
            "pipeTo's destination must be a WritableStream",
        ));
    };
    let options = StreamPipeOptions::from_js(&args.get(1).cloned().unwrap_or_default(), ctx)?;
    // 1. If ! IsReadableStreamLocked(this) is true, return a promise rejected with a TypeError
    //    exception.
    if is_readable_stream_locked(&stream) {
        return Err(engine::throw_type_error(
            "Cannot pipe a stream that is locked to a reader",
        ));
    }
    // 2. If ! IsWritableStreamLocked(destination) is true, return a promise rejected with a
    //    TypeError exception.
    if is_writable_stream_locked(&destination) {
        return Err(engine::throw_type_error(
            "Cannot pipe to a stream that is locked to a writer",
        ));
    }
    // 3. Let signal be options["signal"] if it exists, or undefined otherwise.
    // 4. Return ! ReadableStreamPipeTo(this, destination, options["preventClose"],
    //    options["preventAbort"], options["preventCancel"], signal).
    readable_stream_pipe_to(
        &stream,
        &destination,
        options.prevent_close,
        options.prevent_abort,
        options.prevent_cancel,
        options.signal,
        ctx,
    )
    .map(Value::from)
}

traced_without_drop! {
/// What a shutdown with an action performs once every read chunk has been written.
#[derive(Debug, Clone)]
enum Action {
    /// ! WritableStreamAbort(dest, error).
    AbortDest(Value),
    /// ! ReadableStreamCancel(source, error).
    CancelSource(Value),
    /// ! WritableStreamDefaultWriterCloseWithErrorPropagation(writer).
    CloseDest,
    /// The abort algorithm's action: getting a promise to wait for all of the actions it
    /// collected (abort the destination unless preventAbort, cancel the source unless
    /// preventCancel), with the signal's abort reason.
    Abort(Value),
}
}

traced_without_drop! {
    /// The pipe's reader (ReadableStreamPipeTo step 8).
    #[derive(Debug, Clone)]
    enum PipeReader {
        /// A default reader.
        Default(Object<ReadableStreamDefaultReader>),
        /// A BYOB reader that reads into the pipe's Rust buffers (a native pipe).
        Byob(Object<ReadableStreamBYOBReader>),
    }
}

impl PipeReader {
    /// reader.[[closedPromise]].
    fn closed_promise(&self) -> Option<JsPromise> {
        match self {
            PipeReader::Default(reader) => reader.borrow().data().generic.closed_promise(),
            PipeReader::Byob(reader) => reader.borrow().data().generic.closed_promise(),
        }
    }
}

traced! {
    data;
    /// The state of one ReadableStreamPipeTo: the locals of the algorithm and the progress of the
    /// "in parallel" part.
    #[derive(Debug)]
    pub(crate) struct PipeState {
        source: Object<ReadableStream>,
        dest: Object<WritableStream>,
        reader: PipeReader,
        /// A native pipe's buffers (see [`native_read_size`]).
        #[unsafe_ignore_trace]
        pool: BufferPool,
        /// The size of a native pipe's reads (0 for a default reader).
        read_size: usize,
        writer: Writer,
        prevent_close: bool,
        prevent_abort: bool,
        prevent_cancel: bool,
        signal: Option<Object>,
        /// The abort algorithm added to `signal`.
        #[unsafe_ignore_trace]
        abort_algorithm: Cell<Option<AbortAlgorithmHandle>>,
        /// shuttingDown.
        shutting_down: Cell<bool>,
        /// promise.
        promise: PromiseCapability,
        /// The step's read and the step's promise resolved with it (see [`ReadState`]).
        #[unsafe_ignore_trace]
        read: Cell<ReadState>,
        /// The pipe's own read call is running: chunk steps that run now are not inside the
        /// source's `controller.enqueue()`.
        reading_synchronously: Cell<bool>,
        /// Whether the last write's promise has fulfilled (it does one microtask after its write
        /// request settles; see [`PipeWrite`]): the shutdown steps wait for it.
        current_write_finished: Cell<bool>,
        /// The waits for a write's promise to fulfill (see [`wait_for_writes_to_finish`]), with
        /// the number of the write each waits for.
        write_waiters: Slot<Vec<(u64, InternalPromise)>>,
        /// How many writes the pipe has made (the number of the last one): what tells a wait
        /// for the current write that a newer one started meanwhile.
        writes: Cell<u64>,
        /// Chunks read but not yet written: each arrived inside the source's `enqueue()` and waits
        /// for its microtask (see [`chunk_steps`]). A shutdown writes them at once, or drops them
        /// where the spec writes nothing more.
        unwritten: Slot<VecDeque<Chunk>>,
    }
}

type Pipe = Object<PipeState>;

/// The step's read promise (the reference implementation's `new Promise((resolveRead,
/// rejectRead) => ...)`) and the step's promise, which the read's was returned to (the
/// `writer.[[readyPromise]].then()` callback's result), kept in the pipe: one step runs at a
/// time and each promise has one reaction, so the jobs they would queue are queued from here,
/// in the same order, with no promise made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ReadState {
    /// No read outstanding, or its outcome has gone on to the step's promise.
    Idle,
    /// The read is outstanding, and the step's promise does not react to it yet (its
    /// NewPromiseResolveThenableJob has not run).
    Pending,
    /// The step's promise reacts to the outstanding read: the read's settling queues the
    /// reaction job.
    Awaited,
    /// The read settled before the step's promise reacted to it: `Some(done)` fulfilled with
    /// whether the source is done, `None` rejected.
    Settled(Option<bool>),
}

/// <https://streams.spec.whatwg.org/#readable-stream-pipe-to>
#[allow(clippy::too_many_arguments)] // the spec's signature
pub(crate) fn readable_stream_pipe_to(
    source: &Object<ReadableStream>,
    dest: &Object<WritableStream>,
    prevent_close: bool,
    prevent_abort: bool,
    prevent_cancel: bool,
    signal: Option<Object>,
    ctx: &mut Cx,
) -> JsResult<JsPromise> {
    // 1. Assert: source implements ReadableStream.
    // 2. Assert: dest implements WritableStream.
    // 3. Assert: preventClose, preventAbort, and preventCancel are all booleans.
    // 4. If signal was not given, let signal be undefined.
    // 5. Assert: either signal is undefined, or signal implements AbortSignal.
    // 6. Assert: ! IsReadableStreamLocked(source) is false.
    // 7. Assert: ! IsWritableStreamLocked(dest) is false.
    // 8. If source.[[controller]] implements ReadableByteStreamController, let reader be either
    //    ! AcquireReadableStreamBYOBReader(source) or ! AcquireReadableStreamDefaultReader(source),
    //    at the user agent's discretion.
    // 9. Otherwise, let reader be ! AcquireReadableStreamDefaultReader(source).
    // The user agent's choice: a BYOB reader reading into the pipe's own Rust buffers where
    // the source fills buffers from Rust and the destination's sink takes Rust bytes, so that
    // no JS object is made per chunk (nothing the chunks pass through is script); a default
    // reader otherwise.
    let read_size = native_read_size(source, dest);
    let reader = match read_size {
        Some(_) => PipeReader::Byob(acquire_readable_stream_byob_reader(source, ctx)?),
        None => PipeReader::Default(acquire_readable_stream_default_reader(source, ctx)?),
    };
    // 10. Let writer be ! AcquireWritableStreamDefaultWriter(dest).
    let writer = acquire_writable_stream_default_writer(dest, ctx)?;
    // The pipe reacts to the writer's ready promises from Rust.
    default_writer::set_reacted_to_from_rust(&writer);
    // 11. Set source.[[disturbed]] to true.
    source.set_disturbed(true);
    // 12. Let shuttingDown be false.
    // 13. Let promise be a new promise.
    let promise = PromiseCapability::new(ctx);
    count(CAPABILITY_OBJECTS);
    let pipe: Pipe = webidl::internal_object(
        PipeState {
            source: source.clone(),
            dest: dest.clone(),
            reader: reader.clone(),
            pool: BufferPool::default(),
            read_size: read_size.unwrap_or(0),
            writer: writer.clone(),
            prevent_close,
            prevent_abort,
            prevent_cancel,
            signal: signal.clone(),
            abort_algorithm: Cell::new(None),
            shutting_down: Cell::new(false),
            promise: promise.clone(),
            read: Cell::new(ReadState::Idle),
            reading_synchronously: Cell::new(false),
            current_write_finished: Cell::new(true),
            write_waiters: Slot::new(Vec::new()),
            writes: Cell::new(0),
            unwritten: Slot::new(VecDeque::new()),
        },
        ctx,
    );
    count(1);
    // 14. If signal is not undefined,
    if let Some(signal) = &signal {
        // 14.1. Let abortAlgorithm be the following steps: (see `abort_algorithm`)
        // 14.2. If signal is aborted, perform abortAlgorithm and return promise.
        if dom::signal_is_aborted(signal) {
            abort_algorithm(&pipe, ctx)?;
            return Ok(promise.promise().clone());
        }
        // 14.3. Add abortAlgorithm to signal.
        let handle =
            dom::add_abort_algorithm(signal, pipe.clone().upcast(), |data, ctx| {
                match data.clone().downcast::<PipeState>() {
                    Ok(pipe) => abort_algorithm(&pipe, ctx),
                    Err(_) => Ok(()),
                }
            });
        pipe.borrow().data().abort_algorithm.set(Some(handle));
    }
    // 15. In parallel, using reader and writer, read all chunks from source and write them to
    //     dest, applying the constraints below in order.
    start_propagation(&pipe, ctx)?;
    pipe_loop(&pipe, ctx)?;
    // 16. Return promise.
    Ok(promise.promise().clone())
}

/// Step 14.1 of ReadableStreamPipeTo: the abort algorithm.
fn abort_algorithm(pipe: &Pipe, ctx: &mut Cx) -> JsResult<()> {
    let signal = pipe.borrow().data().signal.clone();
    // 1. Let error be signal's abort reason.
    let error = signal.as_ref().map(dom::signal_reason).unwrap_or_default();
    // 2.–4. Let actions be an empty ordered set; append the abort and cancel actions unless
    //       prevented (see `perform_action`).
    // 5. Shutdown with an action consisting of getting a promise to wait for all of the actions
    //    in actions, and with error.
    shutdown_with_action(pipe, Action::Abort(error.clone()), Some(error), ctx)
}

/// The error and close propagation rules, checked in the spec's order, and the reactions that
/// apply them when the condition "becomes" true later.
fn start_propagation(pipe: &Pipe, ctx: &mut Cx) -> JsResult<()> {
    let (source, dest, reader, writer) = {
        let p = pipe.borrow();
        let d = p.data();
        (
            d.source.clone(),
            d.dest.clone(),
            d.reader.clone(),
            d.writer.clone(),
        )
    };
    let reader_closed = reader
        .closed_promise()
        .ok_or_else(|| engine::throw_type_error("the reader has no closed promise"))?;
    let writer_closed = default_writer::closed_promise(&writer)
        .ok_or_else(|| engine::throw_type_error("the writer has no closed promise"))?;
    // 1. Errors must be propagated forward: if source.[[state]] is or becomes "errored", then
    if source.state() == StreamState::Errored {
        source_errored(pipe, source.stored_error(), ctx)?;
    } else {
        count(REACTION_OBJECTS);
        engine::react(
            &reader_closed,
            pipe.clone(),
            |_, _, _| Ok(()),
            source_errored,
            ctx,
        )?;
    }
    // 2. Errors must be propagated backward: if dest.[[state]] is or becomes "errored", then
    if dest.state() == WritableState::Errored {
        dest_errored(pipe, dest.stored_error(), ctx)?;
    } else {
        count(REACTION_OBJECTS);
        engine::react(
            writer_closed.promise(),
            pipe.clone(),
            |_, _, _| Ok(()),
            dest_errored,
            ctx,
        )?;
    }
    // 3. Closing must be propagated forward: if source.[[state]] is or becomes "closed", then
    if source.state() == StreamState::Closed {
        source_closed(pipe, ctx)?;
    } else {
        count(REACTION_OBJECTS);
        engine::react(
            &reader_closed,
            pipe.clone(),
            |pipe, _, ctx| source_closed(pipe, ctx),
            |_, _, _| Ok(()),
            ctx,
        )?;
    }
    // 4. Closing must be propagated backward: if ! WritableStreamCloseQueuedOrInFlight(dest) is
    //    true or dest.[[state]] is "closed", then
    if writable_stream_close_queued_or_in_flight(&dest) || dest.state() == WritableState::Closed {
        // 4.1. Assert: no chunks have been read or written.
        // 4.2. Let destClosed be a new TypeError.
        let dest_closed = engine::type_error("The destination stream is closed", ctx);
        count(1);
        let prevent_cancel = pipe.borrow().data().prevent_cancel;
        if !prevent_cancel {
            // 4.3. If preventCancel is false, shutdown with an action of !
            //      ReadableStreamCancel(source, destClosed) and with destClosed.
            shutdown_with_action(
                pipe,
                Action::CancelSource(dest_closed.clone()),
                Some(dest_closed),
                ctx,
            )?;
        } else {
            // 4.4. Otherwise, shutdown with destClosed.
            shutdown(pipe, Some(dest_closed), ctx)?;
        }
    }
    Ok(())
}

/// Rule 1, "errors must be propagated forward", given source.[[storedError]].
fn source_errored(pipe: &Pipe, stored_error: Value, ctx: &mut Cx) -> JsResult<()> {
    let prevent_abort = pipe.borrow().data().prevent_abort;
    if !prevent_abort {
        // 1.1. If preventAbort is false, shutdown with an action of ! WritableStreamAbort(dest,
        //      source.[[storedError]]) and with source.[[storedError]].
        shutdown_with_action(
            pipe,
            Action::AbortDest(stored_error.clone()),
            Some(stored_error),
            ctx,
        )
    } else {
        // 1.2. Otherwise, shutdown with source.[[storedError]].
        shutdown(pipe, Some(stored_error), ctx)
    }
}

/// Rule 2, "errors must be propagated backward", given dest.[[storedError]].
fn dest_errored(pipe: &Pipe, stored_error: Value, ctx: &mut Cx) -> JsResult<()> {
    let prevent_cancel = pipe.borrow().data().prevent_cancel;
    if !prevent_cancel {
        // 2.1. If preventCancel is false, shutdown with an action of !
        //      ReadableStreamCancel(source, dest.[[storedError]]) and with dest.[[storedError]].
        shutdown_with_action(
            pipe,
            Action::CancelSource(stored_error.clone()),
            Some(stored_error),
            ctx,
        )
    } else {
        // 2.2. Otherwise, shutdown with dest.[[storedError]].
        shutdown(pipe, Some(stored_error), ctx)
    }
}

/// Rule 3, "closing must be propagated forward".
fn source_closed(pipe: &Pipe, ctx: &mut Cx) -> JsResult<()> {
    let prevent_close = pipe.borrow().data().prevent_close;
    if !prevent_close {
        // 3.1. If preventClose is false, shutdown with an action of !
        //      WritableStreamDefaultWriterCloseWithErrorPropagation(writer).
        shutdown_with_action(pipe, Action::CloseDest, None, ctx)
    } else {
        // 3.2. Otherwise, shutdown.
        shutdown(pipe, None, ctx)
    }
}

/// The loop: run a step, and when its promise fulfills with false (the source is not done),
/// the next one. The steps and their promises follow the reference implementation's pipeLoop
/// job for job (the spec leaves the timing of the "in parallel" steps open); the step's and
/// the read's promises are the pipe's [`ReadState`], whose jobs are queued where the promises
/// would queue them: a chunk costs no JS object and no promise.
fn pipe_loop(pipe: &Pipe, ctx: &mut Cx) -> JsResult<()> {
    pipe_step(pipe, ctx)
}

/// The step's promise settled with `outcome` (`Some(done)` fulfilled, `None` rejected): its one
/// reaction, the loop's, runs in a job. The loop goes on when the source is not done; the
/// destination's ready promise rejected or the read errored ends the loop, and the
/// propagation rules shut the pipe down.
fn step_settled(pipe: &Pipe, outcome: Option<bool>, ctx: &mut Cx) {
    if outcome == Some(false) {
        let pipe = pipe.clone();
        engine::queue_microtask(ctx, move |ctx| pipe_loop(&pipe, ctx));
    } else {
        engine::queue_microtask(ctx, |_| Ok(()));
    }
}

/// One step: backpressure must be enforced, so the read waits for writer.[[readyPromise]]
/// (while WritableStreamDefaultWriterGetDesiredSize(writer) is ≤ 0 or null it is pending).
/// The step's promise is resolved with the read's promise (fulfilled with whether the source
/// is done).
fn pipe_step(pipe: &Pipe, ctx: &mut Cx) -> JsResult<()> {
    let writer = {
        let p = pipe.borrow();
        let d = p.data();
        // Shutdown must stop activity: the step's promise is one fulfilled with true.
        if d.shutting_down.get() {
            step_settled(pipe, Some(true), ctx);
            return Ok(());
        }
        d.writer.clone()
    };
    let reacted = default_writer::react_to_ready_promise(
        &writer,
        pipe.clone(),
        read_step,
        |pipe, _, ctx| {
            // The step's promise rejects.
            step_settled(pipe, None, ctx);
            Ok(())
        },
        ctx,
    )?;
    if !reacted {
        // Invariant: an acquired writer has a ready promise until it is released, which only
        // finalize does, after shuttingDown is set.
        debug_assert!(false, "the pipe's writer has no ready promise");
        step_settled(pipe, Some(true), ctx);
    }
    Ok(())
}

/// The destination is ready: read a chunk.
fn read_step(pipe: &Pipe, _: Value, ctx: &mut Cx) -> JsResult<()> {
    let reader = {
        let p = pipe.borrow();
        let d = p.data();
        // Shutdown must stop activity: after shuttingDown becomes true, no further reads are
        // initiated (the reference implementation still reads here). The step's promise is
        // resolved with true.
        if d.shutting_down.get() {
            step_settled(pipe, Some(true), ctx);
            return Ok(());
        }
        d.reader.clone()
    };
    let (pool, read_size) = {
        let p = pipe.borrow();
        p.data().read.set(ReadState::Pending);
        p.data().reading_synchronously.set(true);
        (p.data().pool.clone(), p.data().read_size)
    };
    let result = match reader {
        PipeReader::Default(reader) => {
            readable_stream_default_reader_read(&reader, PipeRead::request(pipe), ctx)
        }
        PipeReader::Byob(reader) => match pool.take(read_size) {
            Some(bytes) => readable_stream_byob_reader_read_native(
                &reader,
                bytes,
                ReadIntoRequest::Steps(Box::new(PipeRead(pipe.clone()))),
                ctx,
            ),
            // The buffer could not be allocated: the read's error steps, as for a default
            // reader's auto-allocated buffer (ReadableByteStreamController's pull steps 5.2).
            None => {
                let e = engine::range_error("Array buffer allocation failed", ctx);
                error_steps(pipe, e, ctx)
            }
        },
    };
    pipe.borrow().data().reading_synchronously.set(false);
    result?;
    // The step's promise is resolved with the read's: NewPromiseResolveThenableJob, which
    // reacts to the read's promise.
    let pipe = pipe.clone();
    engine::queue_microtask(ctx, move |ctx| {
        let read = pipe.borrow().data().read.get();
        match read {
            ReadState::Settled(outcome) => {
                pipe.borrow().data().read.set(ReadState::Idle);
                step_resolved_with_read(&pipe, outcome, ctx);
            }
            ReadState::Pending => pipe.borrow().data().read.set(ReadState::Awaited),
            // (The job runs once per read.)
            ReadState::Idle | ReadState::Awaited => {}
        }
        Ok(())
    });
    Ok(())
}

/// The read's promise settled with `outcome` (`Some(done)` fulfilled, `None` rejected).
fn read_settled(pipe: &Pipe, outcome: Option<bool>, ctx: &mut Cx) {
    let p = pipe.borrow();
    let read = &p.data().read;
    match read.get() {
        // The step's promise does not react to it yet: the outcome waits for its job.
        ReadState::Pending => read.set(ReadState::Settled(outcome)),
        ReadState::Awaited => {
            read.set(ReadState::Idle);
            step_resolved_with_read(pipe, outcome, ctx);
        }
        // No read outstanding, or it settled already (a promise settles once).
        ReadState::Idle | ReadState::Settled(_) => {}
    }
}

/// The step's promise's reaction to the read's promise, which settled with `outcome`: its job
/// settles the step's promise the same way.
fn step_resolved_with_read(pipe: &Pipe, outcome: Option<bool>, ctx: &mut Cx) {
    let pipe = pipe.clone();
    engine::queue_microtask(ctx, move |ctx| {
        step_settled(&pipe, outcome, ctx);
        Ok(())
    });
}

/// The pipe's read request's chunk steps: write the chunk to dest, and fulfill the read's
/// promise with false (not done).
///
/// A chunk that arrives inside the source's `controller.enqueue()` (a read that was waiting)
/// is written in a microtask: the destination's write algorithm must not run inside it (WPT
/// piping/general-addition.any.js; the reference implementation writes at once). Once the pipe
/// is shutting down, a chunk its read gets is written at once, as the reference writes it: the
/// shutdown has dealt with the chunks read before it (written, or dropped where dest is not
/// writable), and finalizing releases the writer, which a write left for a microtask could
/// then find released.
fn chunk_steps(pipe: Pipe, chunk: Chunk, ctx: &mut Cx) -> JsResult<()> {
    let synchronous = {
        let p = pipe.borrow();
        p.data().reading_synchronously.get() || p.data().shutting_down.get()
    };
    if synchronous {
        write_chunk(&pipe, chunk, ctx)?;
    } else {
        pipe.borrow().data().unwritten.borrow_mut().push_back(chunk);
        let pipe = pipe.clone();
        engine::queue_microtask(ctx, move |ctx| {
            // The chunk is still unwritten unless a shutdown wrote or dropped it meanwhile.
            let chunk = pipe.borrow().data().unwritten.borrow_mut().pop_front();
            match chunk {
                Some(chunk) => write_chunk(&pipe, chunk, ctx),
                None => Ok(()),
            }
        });
    }
    read_settled(&pipe, Some(false), ctx);
    Ok(())
}

traced_without_drop! {
/// The pipe's read request ([`ReadRequest::Pipe`] for a default reader).
#[derive(Debug)]
pub(crate) struct PipeRead(Pipe);
}

impl PipeRead {
    fn request(pipe: &Pipe) -> ReadRequest {
        ReadRequest::Pipe(PipeRead(pipe.clone()))
    }

    /// The chunk steps.
    pub(crate) fn chunk_steps(self, chunk: Value, ctx: &mut Cx) -> JsResult<()> {
        chunk_steps(self.0, Chunk::Value(chunk), ctx)
    }

    /// The chunk steps for a chunk of Rust bytes, which go on to the write as they are (see
    /// `write_chunk`).
    pub(crate) fn bytes_chunk_steps(self, bytes: NativeBytes, ctx: &mut Cx) -> JsResult<()> {
        chunk_steps(self.0, Chunk::Bytes(bytes), ctx)
    }

    /// The close steps.
    pub(crate) fn close_steps(self, ctx: &mut Cx) -> JsResult<()> {
        close_steps(&self.0, ctx)
    }

    /// The error steps.
    pub(crate) fn error_steps(self, e: Value, ctx: &mut Cx) -> JsResult<()> {
        error_steps(&self.0, e, ctx)
    }
}

/// The native pipe's read-into request: its chunk is the Rust bytes the source filled.
impl ReadIntoRequestSteps for PipeRead {
    fn chunk_steps(self: Box<Self>, chunk: Value, ctx: &mut Cx) -> JsResult<()> {
        chunk_steps(self.0, Chunk::Value(chunk), ctx)
    }
    fn close_steps(self: Box<Self>, _: Value, ctx: &mut Cx) -> JsResult<()> {
        close_steps(&self.0, ctx)
    }
    fn error_steps(self: Box<Self>, e: Value, ctx: &mut Cx) -> JsResult<()> {
        error_steps(&self.0, e, ctx)
    }
    fn bytes_chunk_steps(self: Box<Self>, bytes: NativeBytes, ctx: &mut Cx) -> JsResult<()> {
        chunk_steps(self.0, Chunk::Bytes(bytes), ctx)
    }
    fn bytes_close_steps(self: Box<Self>, _: NativeBytes, ctx: &mut Cx) -> JsResult<()> {
        close_steps(&self.0, ctx)
    }
}

/// The size of a native pipe's reads from `source` to `dest`, or `None` where the pipe reads
/// with a default reader: `source`'s byte source fills buffers from Rust (so no script sees
/// the buffer a read gives it) and has an autoAllocateChunkSize (the size of a read), and
/// `dest` takes chunks of Rust bytes (its sink is Rust and its size algorithm does not look
/// at chunks).
fn native_read_size(
    source: &Object<ReadableStream>,
    dest: &Object<WritableStream>,
) -> Option<usize> {
    let Some(ControllerRef::Byte(controller)) = source.controller() else {
        return None;
    };
    let size = byte_controller::native_read_size(&controller)?;
    let takes_bytes = dest
        .controller()
        .is_some_and(|c| writable_default_controller::takes_native_bytes(&c));
    if takes_bytes {
        usize::try_from(size).ok()
    } else {
        None
    }
}

/// WritableStreamDefaultWriterWrite(writer, chunk), recorded as the current write. Rust bytes
/// go to a destination that takes them as they are; any other gets the `Uint8Array` holding them
/// that script would have read from the source (made in its realm).
fn write_chunk(pipe: &Pipe, chunk: Chunk, ctx: &mut Cx) -> JsResult<()> {
    let chunk = match chunk {
        Chunk::Bytes(bytes) => {
            let (source, dest) = {
                let p = pipe.borrow();
                (p.data().source.clone(), p.data().dest.clone())
            };
            let takes_bytes = dest
                .controller()
                .is_some_and(|c| writable_default_controller::takes_native_bytes(&c));
            if takes_bytes {
                Chunk::Bytes(bytes)
            } else {
                Chunk::Value(super::default_controller::bytes_chunk_value(
                    &source, bytes, ctx,
                )?)
            }
        }
        chunk => chunk,
    };
    let (writer, number) = {
        let p = pipe.borrow();
        let d = p.data();
        let number = d.writes.get() + 1;
        d.writes.set(number);
        d.current_write_finished.set(false);
        (d.writer.clone(), number)
    };
    let request = WriteRequest::Internal(InternalWrite::new(
        pipe.clone().upcast(),
        number,
        write_settled,
    ));
    writable_stream_default_writer_write_request(&writer, chunk, request, ctx)
}

/// The pipe's write request `number` ([`WriteRequest::Internal`], made by [`write_chunk`])
/// settled (fulfilled or rejected): the write's promise, the reference implementation's
/// `transformPromiseWith(write, undefined, () => {})`, fulfills in a job. The pipe keeps where
/// that promise is ([`PipeState::current_write_finished`]) and who waits for it, so a write
/// makes no promise.
fn write_settled(pipe: &Object, number: u64, ctx: &mut Cx) {
    let Ok(pipe) = pipe.clone().downcast::<PipeState>() else {
        // Invariant: only `write_chunk` makes a request with this function, with its pipe.
        debug_assert!(false, "a pipe's write request without its pipe");
        return;
    };
    engine::queue_microtask(ctx, move |ctx| {
        write_finished(&pipe, number, ctx);
        Ok(())
    });
}

/// The promise of write `number` fulfilled: the waits for it go on, each in a job (its
/// reaction's), in the order they began.
fn write_finished(pipe: &Pipe, number: u64, ctx: &mut Cx) {
    let waiters = {
        let p = pipe.borrow();
        let d = p.data();
        if d.writes.get() == number {
            d.current_write_finished.set(true);
        }
        let mut all = d.write_waiters.borrow_mut();
        if all.is_empty() {
            return;
        }
        let (now, later): (Vec<_>, Vec<_>) = std::mem::take(&mut *all)
            .into_iter()
            .partition(|(n, _)| *n == number);
        *all = later;
        now
    };
    for (_, finished) in waiters {
        queue_write_check(pipe, number, finished, ctx);
    }
}

/// The pipe's read request's close steps: the read's promise fulfills with true (done); rule
/// 3 applies through reader.[[closedPromise]].
fn close_steps(pipe: &Pipe, ctx: &mut Cx) -> JsResult<()> {
    read_settled(pipe, Some(true), ctx);
    Ok(())
}

/// The pipe's read request's error steps: the read's promise rejects; rule 1 applies through
/// reader.[[closedPromise]].
fn error_steps(pipe: &Pipe, _e: Value, ctx: &mut Cx) -> JsResult<()> {
    // (Nothing reads the reason: the step's rejection ends the loop, and rule 1 has the
    // error.)
    read_settled(pipe, None, ctx);
    Ok(())
}

/// The shutdown steps' condition: dest.[[state]] is "writable" and !
/// WritableStreamCloseQueuedOrInFlight(dest) is false. Where it holds, "if any chunks have
/// been read but not yet written, write them to dest" happens here, and the caller waits for
/// the writes; where it does not, those chunks are never written ("if shuttingDown becomes
/// true, the user agent ... must only perform writes of already-read chunks, as described
/// below").
fn write_read_chunks_if_writable(pipe: &Pipe, ctx: &mut Cx) -> JsResult<bool> {
    let (dest, unwritten) = {
        let p = pipe.borrow();
        let d = p.data();
        let unwritten = std::mem::take(&mut *d.unwritten.borrow_mut());
        (d.dest.clone(), unwritten)
    };
    let writable = dest.state() == WritableState::Writable
        && !writable_stream_close_queued_or_in_flight(&dest);
    if writable {
        for chunk in unwritten {
            write_chunk(pipe, chunk, ctx)?;
        }
    }
    Ok(writable)
}

/// "Wait until every chunk that has been read has been written (i.e. the corresponding
/// promises have settled)": fulfills once the current write has settled and no newer write
/// started meanwhile. (Every chunk read is written as soon as it is read.)
fn wait_for_writes_to_finish(pipe: &Pipe, ctx: &mut Cx) -> InternalPromise {
    let finished = InternalPromise::new();
    let (writes, current_finished) = {
        let p = pipe.borrow();
        (p.data().writes.get(), p.data().current_write_finished.get())
    };
    if current_finished {
        // The current write's promise has fulfilled: the reaction's job is queued now.
        queue_write_check(pipe, writes, finished.clone(), ctx);
    } else {
        let p = pipe.borrow();
        let mut waiters = p.data().write_waiters.borrow_mut();
        waiters.push((writes, finished.clone()));
    }
    finished
}

/// Queues the job of the reaction to write `writes`'s promise that
/// [`wait_for_writes_to_finish`] waits with: `finished` fulfills if no newer write started
/// meanwhile; otherwise it waits for that one too.
fn queue_write_check(pipe: &Pipe, writes: u64, finished: InternalPromise, ctx: &mut Cx) {
    let pipe = pipe.clone();
    engine::queue_microtask(ctx, move |ctx| {
        if pipe.borrow().data().writes.get() == writes {
            finished.resolve(Value::undefined(), ctx)
        } else {
            // Another write started while this one was pending: wait for that one too.
            let inner = wait_for_writes_to_finish(&pipe, ctx);
            finished.resolve_with_internal(inner, ctx);
            Ok(())
        }
    });
}

/// <https://streams.spec.whatwg.org/#rs-pipeTo-shutdown-with-action>
fn shutdown_with_action(
    pipe: &Pipe,
    action: Action,
    original_error: Option<Value>,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. If shuttingDown is true, abort these substeps.
    // 2. Set shuttingDown to true.
    if pipe.borrow().data().shutting_down.replace(true) {
        return Ok(());
    }
    // 3. If dest.[[state]] is "writable" and ! WritableStreamCloseQueuedOrInFlight(dest) is
    //    false,
    //    3.1. If any chunks have been read but not yet written, write them to dest.
    if write_read_chunks_if_writable(pipe, ctx)? {
        // 3.2. Wait until every chunk that has been read has been written.
        let finished = wait_for_writes_to_finish(pipe, ctx);
        finished.react(
            (pipe.clone(), action, original_error),
            |(pipe, action, error), _, ctx| {
                perform_action_then_finalize(pipe, action.clone(), error.clone(), ctx)
            },
            |_, _, _| Ok(()),
            ctx,
        );
        return Ok(());
    }
    perform_action_then_finalize(pipe, action, original_error, ctx)
}

/// Shutdown with an action, steps 4–6.
fn perform_action_then_finalize(
    pipe: &Pipe,
    action: Action,
    original_error: Option<Value>,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 4. Let p be the result of performing action.
    let p = perform_action(pipe, action, ctx)?;
    // 5. Upon fulfillment of p, finalize, passing along originalError if it was given.
    // 6. Upon rejection of p with reason newError, finalize with newError.
    if matches!(p, PromiseResult::Promise(_)) {
        count(REACTION_OBJECTS);
    }
    upon_settlement(
        p,
        (pipe.clone(), original_error),
        |(pipe, error), _, ctx| finalize(pipe, error.clone(), ctx),
        |(pipe, _), new_error, ctx| finalize(pipe, Some(new_error), ctx),
        ctx,
    )
}

/// <https://streams.spec.whatwg.org/#rs-pipeTo-shutdown>
fn shutdown(pipe: &Pipe, error: Option<Value>, ctx: &mut Cx) -> JsResult<()> {
    // 1. If shuttingDown is true, abort these substeps.
    // 2. Set shuttingDown to true.
    if pipe.borrow().data().shutting_down.replace(true) {
        return Ok(());
    }
    // 3. If dest.[[state]] is "writable" and ! WritableStreamCloseQueuedOrInFlight(dest) is
    //    false, write the chunks read but not yet written and wait until every chunk that has
    //    been read has been written.
    if write_read_chunks_if_writable(pipe, ctx)? {
        let finished = wait_for_writes_to_finish(pipe, ctx);
        finished.react(
            (pipe.clone(), error),
            // 4. Finalize, passing along error if it was given.
            |(pipe, error), _, ctx| finalize(pipe, error.clone(), ctx),
            |_, _, _| Ok(()),
            ctx,
        );
        return Ok(());
    }
    // 4. Finalize, passing along error if it was given.
    finalize(pipe, error, ctx)
}

/// Performs a shutdown action, returning its promise.
fn perform_action(pipe: &Pipe, action: Action, ctx: &mut Cx) -> JsResult<PromiseResult> {
    let (source, dest, writer, prevent_abort, prevent_cancel) = {
        let p = pipe.borrow();
        let d = p.data();
        (
            d.source.clone(),
            d.dest.clone(),
            d.writer.clone(),
            d.prevent_abort,
            d.prevent_cancel,
        )
    };
    let promise = match action {
        Action::AbortDest(error) => writable_stream_abort(&dest, error, ctx)?,
        Action::CancelSource(error) => readable_stream_cancel(&source, error, ctx)?,
        Action::CloseDest => {
            writable_stream_default_writer_close_with_error_propagation(&writer, ctx)?
        }
        Action::Abort(error) => {
            let mut promises = Vec::with_capacity(2);
            // 3. If preventAbort is false, append the following action to actions:
            if !prevent_abort {
                // 3.1. If dest.[[state]] is "writable", return ! WritableStreamAbort(dest, error).
                // 3.2. Otherwise, return a promise resolved with undefined.
                let p = if dest.state() == WritableState::Writable {
                    writable_stream_abort(&dest, error.clone(), ctx)?
                } else {
                    engine::promise_resolved_with(Value::undefined(), ctx)?
                };
                promises.push(p);
            }
            // 4. If preventCancel is false, append the following action to actions:
            if !prevent_cancel {
                // 4.1. If source.[[state]] is "readable", return ! ReadableStreamCancel(source,
                //      error).
                // 4.2. Otherwise, return a promise resolved with undefined.
                let p = if source.state() == StreamState::Readable {
                    readable_stream_cancel(&source, error, ctx)?
                } else {
                    engine::promise_resolved_with(Value::undefined(), ctx)?
                };
                promises.push(p);
            }
            return wait_for_all(promises, ctx);
        }
    };
    Ok(PromiseResult::Promise(promise))
}

traced! {
    /// The shared state of <https://webidl.spec.whatwg.org/#wait-for-all>.
    struct WaitForAll {
        remaining: Cell<usize>,
        rejected: Cell<bool>,
        result: InternalPromise,
    }
}

/// <https://webidl.spec.whatwg.org/#get-a-promise-to-wait-for-all>. The promise is internal
/// (only the pipe reacts to it), so it is fulfilled with undefined rather than a list.
fn wait_for_all(promises: Vec<JsPromise>, ctx: &mut Cx) -> JsResult<PromiseResult> {
    let result = InternalPromise::new();
    let total = promises.len();
    if total == 0 {
        // If total is 0, queue a microtask to perform successSteps given « ».
        let r = result.clone();
        engine::queue_microtask(ctx, move |ctx| r.resolve(Value::undefined(), ctx));
        return Ok(PromiseResult::Internal(result));
    }
    let state = Shared::new(WaitForAll {
        remaining: Cell::new(total),
        rejected: Cell::new(false),
        result: result.clone(),
    });
    for promise in promises {
        count(REACTION_OBJECTS);
        engine::react(
            &promise,
            state.clone(),
            |state, _, ctx| {
                let remaining = state.remaining.get() - 1;
                state.remaining.set(remaining);
                if remaining == 0 {
                    state.result.resolve(Value::undefined(), ctx)?;
                }
                Ok(())
            },
            |state, reason, ctx| {
                if state.rejected.replace(true) {
                    return Ok(());
                }
                state.result.reject(reason, ctx);
                Ok(())
            },
            ctx,
        )?;
    }
    Ok(PromiseResult::Internal(result))
}

/// <https://streams.spec.whatwg.org/#rs-pipeTo-finalize>
fn finalize(pipe: &Pipe, error: Option<Value>, ctx: &mut Cx) -> JsResult<()> {
    let (writer, reader, signal, handle, promise) = {
        let p = pipe.borrow();
        let d = p.data();
        (
            d.writer.clone(),
            d.reader.clone(),
            d.signal.clone(),
            d.abort_algorithm.take(),
            d.promise.clone(),
        )
    };
    // 1. Perform ! WritableStreamDefaultWriterRelease(writer).
    writable_stream_default_writer_release(&writer, ctx)?;
    // 2. If reader implements ReadableStreamBYOBReader, perform !
    //    ReadableStreamBYOBReaderRelease(reader).
    // 3. Otherwise, perform ! ReadableStreamDefaultReaderRelease(reader).
    match &reader {
        PipeReader::Byob(reader) => {
            if reader.borrow().data().generic.stream().is_some() {
                readable_stream_byob_reader_release(reader, ctx)?;
            }
        }
        PipeReader::Default(reader) => {
            if reader.borrow().data().generic.stream().is_some() {
                readable_stream_default_reader_release(reader, ctx)?;
            }
        }
    }
    // 4. If signal is not undefined, remove abortAlgorithm from signal.
    if let (Some(signal), Some(handle)) = (signal, handle) {
        dom::remove_abort_algorithm(&signal, handle);
    }
    match error {
        // 5. If error was given, reject promise with error.
        Some(error) => promise.reject(error, ctx),
        // 6. Otherwise, resolve promise with undefined.
        None => promise.resolve(Value::undefined(), ctx),
    }
}
