//! The `WritableStream` interface and the abstract operations on a writable stream.
//!
//! <https://streams.spec.whatwg.org/#ws-class>

use std::{cell::Cell, collections::VecDeque};

use crate::engine::{Cx, JsPromise, JsResult, Object, Slot, Value};

use super::{
    abort_signal,
    default_controller::{
        self, set_up_writable_stream_default_controller,
        set_up_writable_stream_default_controller_from_underlying_sink,
        writable_stream_default_controller_close, AbortAlgorithm, CloseAlgorithm, Controller,
        StartAlgorithm, UnderlyingSink, WriteAlgorithm,
    },
    default_writer::{
        new_writer_object, set_up_writable_stream_default_writer,
        writable_stream_default_writer_ensure_ready_promise_rejected, Writer,
    },
    WritableState, WriteRequest,
};
use crate::engine::webidl::new_object;
use crate::engine::{upon_settlement, PromiseResult};
use crate::{
    engine::webidl,
    engine::{self, PromiseCapability},
    queuing_strategy::{
        extract_high_water_mark, extract_size_algorithm, QueuingStrategy, SizeAlgorithm,
    },
};

/// A typed handle on a `WritableStream` object.
pub(crate) type Stream = Object<WritableStream>;

traced! {
    /// A pending abort request: <https://streams.spec.whatwg.org/#pending-abort-request>.
    #[derive(Debug, Clone)]
    pub(crate) struct PendingAbortRequest {
        /// <https://streams.spec.whatwg.org/#pending-abort-request-promise>
        pub(crate) promise: PromiseCapability,
        /// <https://streams.spec.whatwg.org/#pending-abort-request-reason>
        pub(crate) reason: Value,
        /// <https://streams.spec.whatwg.org/#pending-abort-request-was-already-erroring>
        pub(crate) was_already_erroring: bool,
    }
}

traced! {
    data;
    /// <https://streams.spec.whatwg.org/#writablestream>
    #[derive(Debug)]
    pub(crate) struct WritableStream {
        /// <https://streams.spec.whatwg.org/#writablestream-backpressure>
        pub(crate) backpressure: Cell<bool>,
        /// <https://streams.spec.whatwg.org/#writablestream-closerequest>
        pub(crate) close_request: Slot<Option<PromiseCapability>>,
        /// <https://streams.spec.whatwg.org/#writablestream-controller>
        pub(crate) controller: Slot<Option<Controller>>,
        /// <https://streams.spec.whatwg.org/#writablestream-detached>
        pub(crate) detached: Cell<bool>,
        /// <https://streams.spec.whatwg.org/#writablestream-inflightwriterequest>
        pub(crate) in_flight_write_request: Slot<Option<WriteRequest>>,
        /// <https://streams.spec.whatwg.org/#writablestream-inflightcloserequest>
        pub(crate) in_flight_close_request: Slot<Option<PromiseCapability>>,
        /// <https://streams.spec.whatwg.org/#writablestream-pendingabortrequest>
        pub(crate) pending_abort_request: Slot<Option<PendingAbortRequest>>,
        /// <https://streams.spec.whatwg.org/#writablestream-state>
        #[unsafe_ignore_trace]
        pub(crate) state: Cell<WritableState>,
        /// <https://streams.spec.whatwg.org/#writablestream-storederror>
        pub(crate) stored_error: Slot<Value>,
        /// <https://streams.spec.whatwg.org/#writablestream-writer>
        pub(crate) writer: Slot<Option<Writer>>,
        /// <https://streams.spec.whatwg.org/#writablestream-writerequests>
        pub(crate) write_requests: Slot<VecDeque<WriteRequest>>,
        /// The converted constructor arguments, between the argument conversion (before the object
        /// exists) and the set-up of the controller (which needs the object).
        constructor_arguments: Slot<Option<ConstructorArguments>>,
    }
}

traced! {
    /// What the constructor converted, kept until the object exists.
    #[derive(Debug)]
    struct ConstructorArguments {
        sink: UnderlyingSink,
        high_water_mark: f64,
        size_algorithm: SizeAlgorithm,
    }
}

impl WritableStream {
    /// <https://streams.spec.whatwg.org/#initialize-writable-stream>: a stream's slots, as
    /// InitializeWritableStream leaves them.
    pub(crate) fn initialize_writable_stream() -> Self {
        // 1. Set stream.[[state]] to "writable".
        // 2. Set stream.[[storedError]], stream.[[writer]], stream.[[controller]],
        //    stream.[[inFlightWriteRequest]], stream.[[closeRequest]],
        //    stream.[[inFlightCloseRequest]], and stream.[[pendingAbortRequest]] to undefined.
        // 3. Set stream.[[writeRequests]] to a new empty list.
        // 4. Set stream.[[backpressure]] to false.
        Self {
            backpressure: Cell::new(false),
            close_request: Slot::new(None),
            controller: Slot::new(None),
            detached: Cell::new(false),
            in_flight_write_request: Slot::new(None),
            in_flight_close_request: Slot::new(None),
            pending_abort_request: Slot::new(None),
            state: Cell::new(WritableState::Writable),
            stored_error: Slot::new(Value::undefined()),
            writer: Slot::new(None),
            write_requests: Slot::new(VecDeque::new()),
            constructor_arguments: Slot::new(None),
        }
    }
}

/// A writable stream's slots as the algorithms read them (each a short borrow of the object):
/// the same idiom as the readable side's `StreamSlots`.
pub(crate) trait WritableSlots {
    /// [[state]].
    fn state(&self) -> WritableState;
    /// [[storedError]].
    fn stored_error(&self) -> Value;
    /// [[writer]].
    fn writer(&self) -> Option<Writer>;
    /// [[controller]].
    fn controller(&self) -> Option<Controller>;
    /// [[backpressure]].
    fn backpressure(&self) -> bool;
}

impl WritableSlots for Stream {
    fn state(&self) -> WritableState {
        self.borrow().data().state.get()
    }
    fn stored_error(&self) -> Value {
        self.borrow().data().stored_error.borrow().clone()
    }
    fn writer(&self) -> Option<Writer> {
        self.borrow().data().writer.borrow().clone()
    }
    fn controller(&self) -> Option<Controller> {
        self.borrow().data().controller.borrow().clone()
    }
    fn backpressure(&self) -> bool {
        self.borrow().data().backpressure.get()
    }
}

impl webidl::ClassInterface for WritableStream {
    const LENGTH: usize = 0;
    fn members(b: &mut webidl::InterfaceBuilder<'_, '_>) {
        b.attribute("locked", ws_locked, None);
        b.promise_operation("abort", 0, ws_abort);
        b.promise_operation("close", 0, ws_close);
        b.operation("getWriter", 0, ws_get_writer);
    }

    /// <https://streams.spec.whatwg.org/#ws-constructor>, up to the set-up of the controller
    /// (which [`webidl::ClassInterface::constructed`] performs once the object exists).
    fn construct(_: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Self> {
        // IDL argument conversion: `optional object underlyingSink`, then
        // `optional QueuingStrategy strategy = {}`.
        let underlying_sink = args.first().cloned().unwrap_or_default();
        if !underlying_sink.is_undefined() && !underlying_sink.is_object() {
            return Err(engine::throw_type_error(
                "The underlying sink must be an object",
            ));
        }
        let strategy = QueuingStrategy::from_js(&args.get(1).cloned().unwrap_or_default(), ctx)?;
        // 1. If underlyingSink is missing, set it to null.
        let underlying_sink = if underlying_sink.is_undefined() {
            Value::null()
        } else {
            underlying_sink
        };
        // 2. Let underlyingSinkDict be underlyingSink, converted to an IDL value of type
        //    UnderlyingSink.
        // 3. If underlyingSinkDict["type"] exists, throw a RangeError exception.
        let sink = UnderlyingSink::from_js(underlying_sink, ctx)?;
        // 4. Perform ! InitializeWritableStream(this).
        let stream = Self::initialize_writable_stream();
        // 5. Let sizeAlgorithm be ! ExtractSizeAlgorithm(strategy).
        let size_algorithm = extract_size_algorithm(&strategy);
        // 6. Let highWaterMark be ? ExtractHighWaterMark(strategy, 1).
        let high_water_mark = extract_high_water_mark(&strategy, 1.0)?;
        *stream.constructor_arguments.borrow_mut() = Some(ConstructorArguments {
            sink,
            high_water_mark,
            size_algorithm,
        });
        Ok(stream)
    }

    fn constructed(instance: &Object<Self>, _: &[Value], ctx: &mut Cx) -> JsResult<()> {
        let arguments = instance
            .borrow()
            .data()
            .constructor_arguments
            .borrow_mut()
            .take();
        let Some(arguments) = arguments else {
            // Created from Rust (CreateWritableStream): set up by the caller.
            return Ok(());
        };
        // 7. Perform ? SetUpWritableStreamDefaultControllerFromUnderlyingSink(this,
        //    underlyingSink, underlyingSinkDict, highWaterMark, sizeAlgorithm).
        set_up_writable_stream_default_controller_from_underlying_sink(
            instance,
            arguments.sink.clone(),
            arguments.high_water_mark,
            arguments.size_algorithm.clone(),
            ctx,
        )
    }
}

webidl::interface!(WritableStream, "WritableStream");

/// <https://streams.spec.whatwg.org/#ws-locked>
fn ws_locked(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    let stream = webidl::this::<WritableStream>(this)?;
    // 1. Return ! IsWritableStreamLocked(this).
    Ok(is_writable_stream_locked(&stream).into())
}

/// <https://streams.spec.whatwg.org/#ws-abort>
fn ws_abort(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let stream = webidl::this::<WritableStream>(this)?;
    let reason = args.first().cloned().unwrap_or_default();
    // 1. If ! IsWritableStreamLocked(this) is true, return a promise rejected with a TypeError
    //    exception.
    if is_writable_stream_locked(&stream) {
        let error = engine::type_error("Cannot abort a stream that is locked to a writer", ctx);
        return Ok(engine::promise_rejected_with(error, ctx)?.into());
    }
    // 2. Return ! WritableStreamAbort(this, reason).
    Ok(writable_stream_abort(&stream, reason, ctx)?.into())
}

/// <https://streams.spec.whatwg.org/#ws-close>
fn ws_close(this: &Value, _: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let stream = webidl::this::<WritableStream>(this)?;
    // 1. If ! IsWritableStreamLocked(this) is true, return a promise rejected with a TypeError
    //    exception.
    if is_writable_stream_locked(&stream) {
        let error = engine::type_error("Cannot close a stream that is locked to a writer", ctx);
        return Ok(engine::promise_rejected_with(error, ctx)?.into());
    }
    // 2. If ! WritableStreamCloseQueuedOrInFlight(this) is true, return a promise rejected with a
    //    TypeError exception.
    if writable_stream_close_queued_or_in_flight(&stream) {
        let error = engine::type_error("Cannot close a stream that is already closing", ctx);
        return Ok(engine::promise_rejected_with(error, ctx)?.into());
    }
    // 3. Return ! WritableStreamClose(this).
    Ok(writable_stream_close(&stream, ctx)?.into())
}

/// <https://streams.spec.whatwg.org/#ws-get-writer>
fn ws_get_writer(this: &Value, _: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let stream = webidl::this::<WritableStream>(this)?;
    // 1. Return ? AcquireWritableStreamDefaultWriter(this).
    Ok(acquire_writable_stream_default_writer(&stream, ctx)?
        .upcast()
        .into())
}

/// <https://streams.spec.whatwg.org/#acquire-writable-stream-default-writer>
pub(crate) fn acquire_writable_stream_default_writer(
    stream: &Stream,
    ctx: &mut Cx,
) -> JsResult<Writer> {
    // 1. Let writer be a new WritableStreamDefaultWriter.
    let writer = new_writer_object(ctx)?;
    // 2. Perform ? SetUpWritableStreamDefaultWriter(writer, stream).
    set_up_writable_stream_default_writer(&writer, stream, ctx)?;
    // 3. Return writer.
    Ok(writer)
}

/// <https://streams.spec.whatwg.org/#create-writable-stream>
#[allow(clippy::too_many_arguments)]
pub(crate) fn create_writable_stream(
    start_algorithm: StartAlgorithm,
    write_algorithm: WriteAlgorithm,
    close_algorithm: CloseAlgorithm,
    abort_algorithm: AbortAlgorithm,
    high_water_mark: f64,
    size_algorithm: SizeAlgorithm,
    ctx: &mut Cx,
) -> JsResult<Stream> {
    // 1. Assert: ! IsNonNegativeNumber(highWaterMark) is true.
    // 2. Let stream be a new WritableStream.
    // 3. Perform ! InitializeWritableStream(stream).
    let stream = new_object(WritableStream::initialize_writable_stream(), ctx)?;
    // 4. Let controller be a new WritableStreamDefaultController.
    // 5. Perform ? SetUpWritableStreamDefaultController(stream, controller, startAlgorithm,
    //    writeAlgorithm, closeAlgorithm, abortAlgorithm, highWaterMark, sizeAlgorithm).
    set_up_writable_stream_default_controller(
        &stream,
        start_algorithm,
        write_algorithm,
        close_algorithm,
        abort_algorithm,
        high_water_mark,
        size_algorithm,
        ctx,
    )?;
    // 6. Return stream.
    Ok(stream)
}

/// <https://streams.spec.whatwg.org/#is-writable-stream-locked>
pub(crate) fn is_writable_stream_locked(stream: &Stream) -> bool {
    // 1. If stream.[[writer]] is undefined, return false.
    // 2. Return true.
    stream.borrow().data().writer.borrow().is_some()
}

/// <https://streams.spec.whatwg.org/#writable-stream-abort>
pub(crate) fn writable_stream_abort(
    stream: &Stream,
    reason: Value,
    ctx: &mut Cx,
) -> JsResult<JsPromise> {
    // 1. If stream.[[state]] is "closed" or "errored", return a promise resolved with undefined.
    if matches!(
        stream.state(),
        WritableState::Closed | WritableState::Errored
    ) {
        return engine::promise_resolved_with(Value::undefined(), ctx);
    }
    // 2. Signal abort on stream.[[controller]].[[abortController]] with reason.
    if let Some(controller) = stream.controller() {
        let signal = default_controller::signal(&controller);
        abort_signal::signal_abort(&signal, reason.clone(), ctx)?;
    }
    // 3. Let state be stream.[[state]].
    let current = stream.state();
    // 4. If state is "closed" or "errored", return a promise resolved with undefined.
    if matches!(current, WritableState::Closed | WritableState::Errored) {
        return engine::promise_resolved_with(Value::undefined(), ctx);
    }
    // 5. If stream.[[pendingAbortRequest]] is not undefined, return
    //    stream.[[pendingAbortRequest]]'s promise.
    let pending = stream
        .borrow()
        .data()
        .pending_abort_request
        .borrow()
        .as_ref()
        .map(|request| request.promise.promise().clone());
    if let Some(promise) = pending {
        return Ok(promise);
    }
    // 6. Assert: state is "writable" or "erroring".
    // 7. Let wasAlreadyErroring be false.
    // 8. If state is "erroring",
    // 8.1. Set wasAlreadyErroring to true.
    // 8.2. Set reason to undefined.
    let was_already_erroring = current == WritableState::Erroring;
    let reason = if was_already_erroring {
        Value::undefined()
    } else {
        reason
    };
    // 9. Let promise be a new promise.
    let promise = PromiseCapability::new(ctx);
    // 10. Set stream.[[pendingAbortRequest]] to a new pending abort request whose promise is
    //     promise, reason is reason, and was already erroring is wasAlreadyErroring.
    *stream.borrow().data().pending_abort_request.borrow_mut() = Some(PendingAbortRequest {
        promise: promise.clone(),
        reason: reason.clone(),
        was_already_erroring,
    });
    // 11. If wasAlreadyErroring is false, perform ! WritableStreamStartErroring(stream, reason).
    if !was_already_erroring {
        writable_stream_start_erroring(stream, reason, ctx)?;
    }
    // 12. Return promise.
    Ok(promise.promise().clone())
}

/// <https://streams.spec.whatwg.org/#writable-stream-close>
pub(crate) fn writable_stream_close(stream: &Stream, ctx: &mut Cx) -> JsResult<JsPromise> {
    // 1. Let state be stream.[[state]].
    let current = stream.state();
    // 2. If state is "closed" or "errored", return a promise rejected with a TypeError exception.
    if matches!(current, WritableState::Closed | WritableState::Errored) {
        let error = engine::type_error("The stream is closed or errored", ctx);
        return engine::promise_rejected_with(error, ctx);
    }
    // 3. Assert: state is "writable" or "erroring".
    // 4. Assert: ! WritableStreamCloseQueuedOrInFlight(stream) is false.
    // 5. Let promise be a new promise.
    let promise = PromiseCapability::new(ctx);
    // 6. Set stream.[[closeRequest]] to promise.
    *stream.borrow().data().close_request.borrow_mut() = Some(promise.clone());
    // 7. Let writer be stream.[[writer]].
    // 8. If writer is not undefined, and stream.[[backpressure]] is true, and state is
    //    "writable", resolve writer.[[readyPromise]] with undefined.
    if let Some(writer) = stream.writer() {
        if stream.backpressure() && current == WritableState::Writable {
            if let Some(ready) = super::default_writer::ready_promise(&writer) {
                ready.resolve(Value::undefined(), ctx)?;
            }
        }
    }
    // 9. Perform ! WritableStreamDefaultControllerClose(stream.[[controller]]).
    if let Some(controller) = stream.controller() {
        writable_stream_default_controller_close(&controller, ctx)?;
    }
    // 10. Return promise.
    Ok(promise.promise().clone())
}

/// <https://streams.spec.whatwg.org/#writable-stream-add-write-request>
///
/// The request (the spec's "new promise") is made by the caller, so that Rust callers can use a
/// write request that is not a JS promise.
pub(crate) fn writable_stream_add_write_request(stream: &Stream, request: WriteRequest) {
    // 1. Assert: ! IsWritableStreamLocked(stream) is true.
    // 2. Assert: stream.[[state]] is "writable".
    // 3. Let promise be a new promise.
    // 4. Append promise to stream.[[writeRequests]].
    // 5. Return promise.
    stream
        .borrow()
        .data()
        .write_requests
        .borrow_mut()
        .push_back(request);
}

/// <https://streams.spec.whatwg.org/#writable-stream-close-queued-or-in-flight>
pub(crate) fn writable_stream_close_queued_or_in_flight(stream: &Stream) -> bool {
    let s = stream.borrow();
    let data = s.data();
    // 1. If stream.[[closeRequest]] is undefined and stream.[[inFlightCloseRequest]] is
    //    undefined, return false.
    // 2. Return true.
    data.close_request.borrow().is_some() || data.in_flight_close_request.borrow().is_some()
}

/// <https://streams.spec.whatwg.org/#writable-stream-deal-with-rejection>
pub(crate) fn writable_stream_deal_with_rejection(
    stream: &Stream,
    error: Value,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Let state be stream.[[state]].
    // 2. If state is "writable",
    if stream.state() == WritableState::Writable {
        // 1. Perform ! WritableStreamStartErroring(stream, error).
        // 2. Return.
        return writable_stream_start_erroring(stream, error, ctx);
    }
    // 3. Assert: state is "erroring".
    // 4. Perform ! WritableStreamFinishErroring(stream).
    writable_stream_finish_erroring(stream, ctx)
}

traced! {
    /// The data an abort reaction needs: the stream and the abort request's promise.
    struct AbortReaction {
        stream: Stream,
        promise: PromiseCapability,
    }
}

/// <https://streams.spec.whatwg.org/#writable-stream-finish-erroring>
pub(crate) fn writable_stream_finish_erroring(stream: &Stream, ctx: &mut Cx) -> JsResult<()> {
    // 1. Assert: stream.[[state]] is "erroring".
    // 2. Assert: ! WritableStreamHasOperationMarkedInFlight(stream) is false.
    // 3. Set stream.[[state]] to "errored".
    stream.borrow().data().state.set(WritableState::Errored);
    // 4. Perform ! stream.[[controller]].[[ErrorSteps]]().
    let controller = stream.controller();
    if let Some(controller) = &controller {
        writable_stream_controller_error_steps(controller);
    }
    // 5. Let storedError be stream.[[storedError]].
    let stored = stream.stored_error();
    // 6. For each writeRequest of stream.[[writeRequests]]:
    // 6.1. Reject writeRequest with storedError.
    // 7. Set stream.[[writeRequests]] to an empty list.
    let requests = std::mem::take(&mut *stream.borrow().data().write_requests.borrow_mut());
    for request in requests {
        request.reject(stored.clone(), ctx)?;
    }
    // 8. If stream.[[pendingAbortRequest]] is undefined,
    // 8.1. Perform ! WritableStreamRejectCloseAndClosedPromiseIfNeeded(stream).
    // 8.2. Return.
    // 9. Let abortRequest be stream.[[pendingAbortRequest]].
    // 10. Set stream.[[pendingAbortRequest]] to undefined.
    let abort_request = stream
        .borrow()
        .data()
        .pending_abort_request
        .borrow_mut()
        .take();
    let Some(abort_request) = abort_request else {
        return writable_stream_reject_close_and_closed_promise_if_needed(stream, ctx);
    };
    // 11. If abortRequest's was already erroring is true,
    if abort_request.was_already_erroring {
        // 1. Reject abortRequest's promise with storedError.
        abort_request.promise.reject(stored, ctx)?;
        // 2. Perform ! WritableStreamRejectCloseAndClosedPromiseIfNeeded(stream).
        // 3. Return.
        return writable_stream_reject_close_and_closed_promise_if_needed(stream, ctx);
    }
    // 12. Let promise be ! stream.[[controller]].[[AbortSteps]](abortRequest's reason).
    let promise = match &controller {
        Some(controller) => {
            writable_stream_controller_abort_steps(controller, abort_request.reason.clone(), ctx)?
        }
        None => PromiseResult::undefined(),
    };
    // 13. Upon fulfillment of promise,
    // 13.1. Resolve abortRequest's promise with undefined.
    // 13.2. Perform ! WritableStreamRejectCloseAndClosedPromiseIfNeeded(stream).
    // 14. Upon rejection of promise with reason reason,
    // 14.1. Reject abortRequest's promise with reason.
    // 14.2. Perform ! WritableStreamRejectCloseAndClosedPromiseIfNeeded(stream).
    upon_settlement(
        promise,
        AbortReaction {
            stream: stream.clone(),
            promise: abort_request.promise.clone(),
        },
        |reaction, _, ctx| {
            reaction.promise.resolve(Value::undefined(), ctx)?;
            writable_stream_reject_close_and_closed_promise_if_needed(&reaction.stream, ctx)
        },
        |reaction, reason, ctx| {
            reaction.promise.reject(reason, ctx)?;
            writable_stream_reject_close_and_closed_promise_if_needed(&reaction.stream, ctx)
        },
        ctx,
    )
}

/// <https://streams.spec.whatwg.org/#abstract-opdef-writablestreamcontroller-abortsteps>: the
/// controller's [[AbortSteps]] (only the default controller exists).
pub(crate) fn writable_stream_controller_abort_steps(
    controller: &Controller,
    reason: Value,
    ctx: &mut Cx,
) -> JsResult<PromiseResult> {
    default_controller::writable_stream_default_controller_abort_steps(controller, reason, ctx)
}

/// <https://streams.spec.whatwg.org/#abstract-opdef-writablestreamcontroller-errorsteps>: the
/// controller's [[ErrorSteps]] (only the default controller exists).
pub(crate) fn writable_stream_controller_error_steps(controller: &Controller) {
    default_controller::writable_stream_default_controller_error_steps(controller);
}

/// <https://streams.spec.whatwg.org/#writable-stream-finish-in-flight-close>
pub(crate) fn writable_stream_finish_in_flight_close(
    stream: &Stream,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Assert: stream.[[inFlightCloseRequest]] is not undefined.
    // 2. Resolve stream.[[inFlightCloseRequest]] with undefined.
    // 3. Set stream.[[inFlightCloseRequest]] to undefined.
    let request = stream
        .borrow()
        .data()
        .in_flight_close_request
        .borrow_mut()
        .take();
    if let Some(request) = request {
        request.resolve(Value::undefined(), ctx)?;
    }
    // 4. Let state be stream.[[state]].
    // 5. Assert: stream.[[state]] is "writable" or "erroring".
    // 6. If state is "erroring",
    if stream.state() == WritableState::Erroring {
        // 1. Set stream.[[storedError]] to undefined.
        *stream.borrow().data().stored_error.borrow_mut() = Value::undefined();
        // 2. If stream.[[pendingAbortRequest]] is not undefined,
        // 2.1. Resolve stream.[[pendingAbortRequest]]'s promise with undefined.
        // 2.2. Set stream.[[pendingAbortRequest]] to undefined.
        let abort_request = stream
            .borrow()
            .data()
            .pending_abort_request
            .borrow_mut()
            .take();
        if let Some(abort_request) = abort_request {
            abort_request.promise.resolve(Value::undefined(), ctx)?;
        }
    }
    // 7. Set stream.[[state]] to "closed".
    stream.borrow().data().state.set(WritableState::Closed);
    // 8. Let writer be stream.[[writer]].
    // 9. If writer is not undefined, resolve writer.[[closedPromise]] with undefined.
    if let Some(writer) = stream.writer() {
        if let Some(closed) = super::default_writer::closed_promise(&writer) {
            closed.resolve(Value::undefined(), ctx)?;
        }
    }
    // 10. Assert: stream.[[pendingAbortRequest]] is undefined.
    // 11. Assert: stream.[[storedError]] is undefined.
    Ok(())
}

/// <https://streams.spec.whatwg.org/#writable-stream-finish-in-flight-close-with-error>
pub(crate) fn writable_stream_finish_in_flight_close_with_error(
    stream: &Stream,
    error: Value,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Assert: stream.[[inFlightCloseRequest]] is not undefined.
    // 2. Reject stream.[[inFlightCloseRequest]] with error.
    // 3. Set stream.[[inFlightCloseRequest]] to undefined.
    let request = stream
        .borrow()
        .data()
        .in_flight_close_request
        .borrow_mut()
        .take();
    if let Some(request) = request {
        request.reject(error.clone(), ctx)?;
    }
    // 4. Assert: stream.[[state]] is "writable" or "erroring".
    // 5. If stream.[[pendingAbortRequest]] is not undefined,
    // 5.1. Reject stream.[[pendingAbortRequest]]'s promise with error.
    // 5.2. Set stream.[[pendingAbortRequest]] to undefined.
    let abort_request = stream
        .borrow()
        .data()
        .pending_abort_request
        .borrow_mut()
        .take();
    if let Some(abort_request) = abort_request {
        abort_request.promise.reject(error.clone(), ctx)?;
    }
    // 6. Perform ! WritableStreamDealWithRejection(stream, error).
    writable_stream_deal_with_rejection(stream, error, ctx)
}

/// <https://streams.spec.whatwg.org/#writable-stream-finish-in-flight-write>
pub(crate) fn writable_stream_finish_in_flight_write(
    stream: &Stream,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Assert: stream.[[inFlightWriteRequest]] is not undefined.
    // 2. Resolve stream.[[inFlightWriteRequest]] with undefined.
    // 3. Set stream.[[inFlightWriteRequest]] to undefined.
    let request = stream
        .borrow()
        .data()
        .in_flight_write_request
        .borrow_mut()
        .take();
    match request {
        Some(request) => request.resolve(ctx),
        None => Ok(()),
    }
}

/// <https://streams.spec.whatwg.org/#writable-stream-finish-in-flight-write-with-error>
pub(crate) fn writable_stream_finish_in_flight_write_with_error(
    stream: &Stream,
    error: Value,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Assert: stream.[[inFlightWriteRequest]] is not undefined.
    // 2. Reject stream.[[inFlightWriteRequest]] with error.
    // 3. Set stream.[[inFlightWriteRequest]] to undefined.
    let request = stream
        .borrow()
        .data()
        .in_flight_write_request
        .borrow_mut()
        .take();
    if let Some(request) = request {
        request.reject(error.clone(), ctx)?;
    }
    // 4. Assert: stream.[[state]] is "writable" or "erroring".
    // 5. Perform ! WritableStreamDealWithRejection(stream, error).
    writable_stream_deal_with_rejection(stream, error, ctx)
}

/// <https://streams.spec.whatwg.org/#writable-stream-has-operation-marked-in-flight>
pub(crate) fn writable_stream_has_operation_marked_in_flight(stream: &Stream) -> bool {
    let s = stream.borrow();
    let data = s.data();
    // 1. If stream.[[inFlightWriteRequest]] is undefined and stream.[[inFlightCloseRequest]] is
    //    undefined, return false.
    // 2. Return true.
    data.in_flight_write_request.borrow().is_some()
        || data.in_flight_close_request.borrow().is_some()
}

/// <https://streams.spec.whatwg.org/#writable-stream-mark-close-request-in-flight>
pub(crate) fn writable_stream_mark_close_request_in_flight(stream: &Stream) {
    let s = stream.borrow();
    let data = s.data();
    // 1. Assert: stream.[[inFlightCloseRequest]] is undefined.
    // 2. Assert: stream.[[closeRequest]] is not undefined.
    // 3. Set stream.[[inFlightCloseRequest]] to stream.[[closeRequest]].
    // 4. Set stream.[[closeRequest]] to undefined.
    let request = data.close_request.borrow_mut().take();
    *data.in_flight_close_request.borrow_mut() = request;
}

/// <https://streams.spec.whatwg.org/#writable-stream-mark-first-write-request-in-flight>
pub(crate) fn writable_stream_mark_first_write_request_in_flight(stream: &Stream) {
    let s = stream.borrow();
    let data = s.data();
    // 1. Assert: stream.[[inFlightWriteRequest]] is undefined.
    // 2. Assert: stream.[[writeRequests]] is not empty.
    // 3. Let writeRequest be stream.[[writeRequests]][0].
    // 4. Remove writeRequest from stream.[[writeRequests]].
    let request = {
        let mut requests = data.write_requests.borrow_mut();
        let request = requests.pop_front();
        crate::queue::give_back_memory(&mut requests);
        request
    };
    // 5. Set stream.[[inFlightWriteRequest]] to writeRequest.
    *data.in_flight_write_request.borrow_mut() = request;
}

/// <https://streams.spec.whatwg.org/#writable-stream-reject-close-and-closed-promise-if-needed>
pub(crate) fn writable_stream_reject_close_and_closed_promise_if_needed(
    stream: &Stream,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Assert: stream.[[state]] is "errored".
    let stored = stream.stored_error();
    // 2. If stream.[[closeRequest]] is not undefined,
    // 2.1. Assert: stream.[[inFlightCloseRequest]] is undefined.
    // 2.2. Reject stream.[[closeRequest]] with stream.[[storedError]].
    // 2.3. Set stream.[[closeRequest]] to undefined.
    let close_request = stream.borrow().data().close_request.borrow_mut().take();
    if let Some(close_request) = close_request {
        close_request.reject(stored.clone(), ctx)?;
    }
    // 3. Let writer be stream.[[writer]].
    // 4. If writer is not undefined,
    if let Some(writer) = stream.writer() {
        // 1. Reject writer.[[closedPromise]] with stream.[[storedError]].
        // 2. Set writer.[[closedPromise]].[[PromiseIsHandled]] to true.
        if let Some(closed) = super::default_writer::closed_promise(&writer) {
            closed.reject(stored, ctx)?;
            engine::mark_as_handled(closed.promise(), ctx)?;
        }
    }
    Ok(())
}

/// <https://streams.spec.whatwg.org/#writable-stream-start-erroring>
pub(crate) fn writable_stream_start_erroring(
    stream: &Stream,
    reason: Value,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Assert: stream.[[storedError]] is undefined.
    // 2. Assert: stream.[[state]] is "writable".
    // 3. Let controller be stream.[[controller]].
    // 4. Assert: controller is not undefined.
    let controller = stream.controller();
    // 5. Set stream.[[state]] to "erroring".
    // 6. Set stream.[[storedError]] to reason.
    {
        let s = stream.borrow();
        let data = s.data();
        data.state.set(WritableState::Erroring);
        *data.stored_error.borrow_mut() = reason.clone();
    }
    // 7. Let writer be stream.[[writer]].
    // 8. If writer is not undefined, perform !
    //    WritableStreamDefaultWriterEnsureReadyPromiseRejected(writer, reason).
    if let Some(writer) = stream.writer() {
        writable_stream_default_writer_ensure_ready_promise_rejected(&writer, reason, ctx)?;
    }
    // 9. If ! WritableStreamHasOperationMarkedInFlight(stream) is false and
    //    controller.[[started]] is true, perform ! WritableStreamFinishErroring(stream).
    let started = controller.as_ref().is_some_and(default_controller::started);
    if !writable_stream_has_operation_marked_in_flight(stream) && started {
        writable_stream_finish_erroring(stream, ctx)?;
    }
    Ok(())
}

/// <https://streams.spec.whatwg.org/#writable-stream-update-backpressure>
pub(crate) fn writable_stream_update_backpressure(
    stream: &Stream,
    backpressure: bool,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Assert: stream.[[state]] is "writable".
    // 2. Assert: ! WritableStreamCloseQueuedOrInFlight(stream) is false.
    // 3. Let writer be stream.[[writer]].
    // 4. If writer is not undefined and backpressure is not stream.[[backpressure]],
    if let Some(writer) = stream.writer() {
        if backpressure != stream.backpressure() {
            if backpressure {
                // 1. If backpressure is true, set writer.[[readyPromise]] to a new promise.
                super::default_writer::set_new_ready_promise(&writer);
            } else {
                // 2. Otherwise,
                // 2.1. Assert: backpressure is false.
                // 2.2. Resolve writer.[[readyPromise]] with undefined.
                super::default_writer::resolve_ready_promise(&writer, ctx)?;
            }
        }
    }
    // 5. Set stream.[[backpressure]] to backpressure.
    stream.borrow().data().backpressure.set(backpressure);
    Ok(())
}

/// A debug reading for tests of memory give-back: if `value` is a `WritableStream`, the length
/// and ring-buffer capacity of its [[writeRequests]], and the ring-buffer capacity of its
/// controller's queue (0 without a controller).
pub fn queue_capacities(value: &Value) -> Option<(usize, usize, usize)> {
    let stream = value.as_object()?.downcast::<WritableStream>().ok()?;
    let (len, capacity) = {
        let s = stream.borrow();
        let requests = s.data().write_requests.borrow();
        (requests.len(), requests.capacity())
    };
    let queue = stream
        .controller()
        .map_or(0, |c| c.borrow().data().queue_capacity());
    Some((len, capacity, queue))
}
