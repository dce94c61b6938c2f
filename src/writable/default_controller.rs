//! The `WritableStreamDefaultController` interface, the sink algorithms it holds, and the
//! abstract operations of default controllers.
//!
//! <https://streams.spec.whatwg.org/#ws-default-controller-class>

use crate::writable::stream::WritableSlots;
use std::cell::Cell;

use crate::engine::{Cx, JsResult, Object, Slot, Value};

use super::{
    abort_signal,
    other_specs::NativeSink,
    stream::{
        writable_stream_close_queued_or_in_flight, writable_stream_deal_with_rejection,
        writable_stream_finish_erroring, writable_stream_finish_in_flight_close,
        writable_stream_finish_in_flight_close_with_error, writable_stream_finish_in_flight_write,
        writable_stream_finish_in_flight_write_with_error,
        writable_stream_mark_close_request_in_flight,
        writable_stream_mark_first_write_request_in_flight, writable_stream_start_erroring,
        writable_stream_update_backpressure, Stream,
    },
    WritableState,
};
use crate::engine::webidl::new_object;
use crate::engine::{upon_settlement, PromiseResult};
use crate::{
    engine,
    engine::webidl,
    queue::{Chunk, NativeBytes, QueueWithSizes},
    queuing_strategy::SizeAlgorithm,
};
use std::rc::Rc;

/// A typed handle on a `WritableStreamDefaultController` object.
pub(crate) type Controller = Object<WritableStreamDefaultController>;

traced_without_drop! {
    /// An entry of the controller's [[queue]]: a chunk, or the
    /// [close sentinel](https://streams.spec.whatwg.org/#close-sentinel).
    #[derive(Debug, Clone)]
    pub(crate) enum QueueEntry {
        /// A chunk written by the producer.
        Chunk(Value),
        /// A chunk of Rust bytes that no script sees ([`Chunk::Bytes`]).
        Bytes(#[unsafe_ignore_trace] Rc<NativeBytes>),
        /// The close sentinel.
        Close,
        /// A chunk of Rust bytes whose write is in flight: the bytes went to the write
        /// algorithm as they are (no copy), and nothing reads the entry's value again. Its size
        /// counts until the write finishes and DequeueValue removes it.
        Written,
    }
}

traced! {
    /// The `UnderlyingSink` dictionary, converted, with the object it came from (the callback this
    /// value): <https://streams.spec.whatwg.org/#dictdef-underlyingsink>.
    #[derive(Debug, Clone)]
    pub(crate) struct UnderlyingSink {
        /// The original `underlyingSink` object (null when absent).
        object: Value,
        /// <https://streams.spec.whatwg.org/#dom-underlyingsink-abort>
        abort: Option<Object>,
        /// <https://streams.spec.whatwg.org/#dom-underlyingsink-close>
        close: Option<Object>,
        /// <https://streams.spec.whatwg.org/#dom-underlyingsink-start>
        start: Option<Object>,
        /// <https://streams.spec.whatwg.org/#dom-underlyingsink-write>
        write: Option<Object>,
    }
}

impl UnderlyingSink {
    /// Converts `object` to an `UnderlyingSink` dictionary (members in WebIDL order: `abort`,
    /// `close`, `start`, `type`, `write`), and throws the constructor's RangeError if `type`
    /// exists.
    pub(crate) fn from_js(object: Value, ctx: &mut Cx) -> JsResult<Self> {
        let dict = webidl::dictionary(&object, "The underlying sink")?;
        let dict = dict.as_ref();
        let abort = webidl::callback(webidl::member(dict, "abort", ctx)?, "The sink's abort")?;
        let close = webidl::callback(webidl::member(dict, "close", ctx)?, "The sink's close")?;
        let start = webidl::callback(webidl::member(dict, "start", ctx)?, "The sink's start")?;
        let kind = webidl::member(dict, "type", ctx)?;
        let write = webidl::callback(webidl::member(dict, "write", ctx)?, "The sink's write")?;
        // https://streams.spec.whatwg.org/#ws-constructor step 3: if
        // underlyingSinkDict["type"] exists, throw a RangeError exception.
        if !kind.is_undefined() {
            return Err(engine::throw_range_error(
                "WritableStream does not support a sink type",
            ));
        }
        Ok(Self {
            object,
            abort,
            close,
            start,
            write,
        })
    }
}

traced! {
    /// A controller's startAlgorithm, writable or readable (used once, during set-up; the
    /// readable controllers share this one, as writable is the lower of the two stream modules).
    #[derive(Debug, Clone)]
    pub(crate) enum StartAlgorithm {
        /// "An algorithm that returns undefined."
        ReturnUndefined,
        /// An algorithm that returns this value (TransformStream's startPromise).
        Returns(Value),
        /// Invoke the underlying sink's or source's `start` with « controller », exception
        /// behavior "rethrow", callback this value the underlying sink or source.
        Js {
            /// The underlying sink or source.
            underlying: Value,
            /// Its `start` method.
            start: Object,
        },
    }
}

traced! {
    /// A controller's [[writeAlgorithm]].
    #[derive(Debug, Clone)]
    pub(crate) enum WriteAlgorithm {
        /// "An algorithm that returns a promise resolved with undefined."
        ResolvedUndefined,
        /// Invoke the underlying sink's `write` with « chunk, controller ».
        Js { sink: Value, write: Object },
        /// Another specification's writeAlgorithm (<https://streams.spec.whatwg.org/#writablestream-set-up>),
        /// or TransformStream's sink algorithm.
        Native(NativeSink),
    }
}

traced! {
    /// A controller's [[closeAlgorithm]].
    #[derive(Debug, Clone)]
    pub(crate) enum CloseAlgorithm {
        /// "An algorithm that returns a promise resolved with undefined."
        ResolvedUndefined,
        /// Invoke the underlying sink's `close` with « ».
        Js { sink: Value, close: Object },
        /// Another specification's closeAlgorithm (<https://streams.spec.whatwg.org/#writablestream-set-up>),
        /// or TransformStream's sink algorithm.
        Native(NativeSink),
    }
}

traced! {
    /// A controller's [[abortAlgorithm]].
    #[derive(Debug, Clone)]
    pub(crate) enum AbortAlgorithm {
        /// "An algorithm that returns a promise resolved with undefined."
        ResolvedUndefined,
        /// Invoke the underlying sink's `abort` with « reason ».
        Js { sink: Value, abort: Object },
        /// Another specification's abortAlgorithm (<https://streams.spec.whatwg.org/#writablestream-set-up>),
        /// or TransformStream's sink algorithm.
        Native(NativeSink),
    }
}

impl StartAlgorithm {
    /// Performs the algorithm for `controller` (this might throw an exception).
    pub(crate) fn perform(&self, controller: Value, ctx: &mut Cx) -> JsResult<Value> {
        match self {
            StartAlgorithm::ReturnUndefined => Ok(Value::undefined()),
            StartAlgorithm::Returns(value) => Ok(value.clone()),
            StartAlgorithm::Js { underlying, start } => {
                engine::call_object(start, underlying, &[controller], ctx)
            }
        }
    }
}

impl WriteAlgorithm {
    /// Performs the algorithm, passing `chunk` (and `controller` to a sink's `write`).
    pub(crate) fn perform(
        &self,
        chunk: Value,
        controller: Value,
        ctx: &mut Cx,
    ) -> JsResult<PromiseResult> {
        match self {
            WriteAlgorithm::ResolvedUndefined => Ok(PromiseResult::undefined()),
            WriteAlgorithm::Js { sink, write } => PromiseResult::from_callback(
                engine::call_object(write, sink, &[chunk, controller], ctx),
                ctx,
            ),
            WriteAlgorithm::Native(sink) => sink.write(chunk, controller, ctx),
        }
    }

    /// Performs the algorithm, passing a chunk of Rust bytes: as they are to a sink that takes
    /// them, as a new `Uint8Array` holding them to any other.
    pub(crate) fn perform_bytes(
        &self,
        bytes: Rc<NativeBytes>,
        controller: Value,
        ctx: &mut Cx,
    ) -> JsResult<PromiseResult> {
        match self {
            WriteAlgorithm::Native(sink) if sink.takes_bytes() => {
                sink.write_bytes(bytes, controller, ctx)
            }
            _ => {
                let chunk = engine::new_uint8_array(bytes.as_slice(), ctx)?;
                self.perform(chunk, controller, ctx)
            }
        }
    }
}

/// Whether a chunk of Rust bytes written to this controller's stream can stay Rust bytes: its
/// size algorithm counts each chunk as 1 without looking at it, and its sink takes bytes.
pub(crate) fn takes_native_bytes(controller: &Controller) -> bool {
    let data = controller.borrow();
    let c = data.data();
    let size_is_one = matches!(
        &*c.strategy_size_algorithm.borrow(),
        Some(SizeAlgorithm::One)
    );
    let sink_takes_bytes = matches!(
        &*c.write_algorithm.borrow(),
        Some(WriteAlgorithm::Native(sink)) if sink.takes_bytes()
    );
    size_is_one && sink_takes_bytes
}

impl CloseAlgorithm {
    /// Performs the algorithm.
    pub(crate) fn perform(&self, ctx: &mut Cx) -> JsResult<PromiseResult> {
        match self {
            CloseAlgorithm::ResolvedUndefined => Ok(PromiseResult::undefined()),
            CloseAlgorithm::Js { sink, close } => {
                PromiseResult::from_callback(engine::call_object(close, sink, &[], ctx), ctx)
            }
            CloseAlgorithm::Native(sink) => sink.close(ctx),
        }
    }
}

impl AbortAlgorithm {
    /// Performs the algorithm, passing `reason`.
    pub(crate) fn perform(&self, reason: Value, ctx: &mut Cx) -> JsResult<PromiseResult> {
        match self {
            AbortAlgorithm::ResolvedUndefined => Ok(PromiseResult::undefined()),
            AbortAlgorithm::Js { sink, abort } => {
                PromiseResult::from_callback(engine::call_object(abort, sink, &[reason], ctx), ctx)
            }
            AbortAlgorithm::Native(sink) => sink.abort(reason, ctx),
        }
    }
}

traced! {
    data;
    /// <https://streams.spec.whatwg.org/#writablestreamdefaultcontroller>
    #[derive(Debug)]
    pub(crate) struct WritableStreamDefaultController {
        /// <https://streams.spec.whatwg.org/#writablestreamdefaultcontroller-abortalgorithm>
        abort_algorithm: Slot<Option<AbortAlgorithm>>,
        /// <https://streams.spec.whatwg.org/#writablestreamdefaultcontroller-abortcontroller>:
        /// only its signal is observable, so the signal is what is kept.
        signal: Object,
        /// <https://streams.spec.whatwg.org/#writablestreamdefaultcontroller-closealgorithm>
        close_algorithm: Slot<Option<CloseAlgorithm>>,
        /// <https://streams.spec.whatwg.org/#writablestreamdefaultcontroller-queue> and
        /// <https://streams.spec.whatwg.org/#writablestreamdefaultcontroller-queuetotalsize>
        queue: Slot<QueueWithSizes<QueueEntry>>,
        /// <https://streams.spec.whatwg.org/#writablestreamdefaultcontroller-started>
        started: Cell<bool>,
        /// <https://streams.spec.whatwg.org/#writablestreamdefaultcontroller-strategyhwm>
        strategy_hwm: Cell<f64>,
        /// <https://streams.spec.whatwg.org/#writablestreamdefaultcontroller-strategysizealgorithm>
        strategy_size_algorithm: Slot<Option<SizeAlgorithm>>,
        /// <https://streams.spec.whatwg.org/#writablestreamdefaultcontroller-stream>
        stream: Stream,
        /// <https://streams.spec.whatwg.org/#writablestreamdefaultcontroller-writealgorithm>
        write_algorithm: Slot<Option<WriteAlgorithm>>,
    }
}

impl WritableStreamDefaultController {
    /// The chunk queue's ring buffer capacity (for tests of memory give-back).
    pub(crate) fn queue_capacity(&self) -> usize {
        self.queue.borrow().capacity()
    }
}

/// controller.[[stream]]
fn stream_of(controller: &Controller) -> Stream {
    controller.borrow().data().stream.clone()
}

/// controller.[[abortController]]'s signal.
pub(crate) fn signal(controller: &Controller) -> Object {
    controller.borrow().data().signal.clone()
}

/// controller.[[started]]
pub(crate) fn started(controller: &Controller) -> bool {
    controller.borrow().data().started.get()
}

impl webidl::ClassInterface for WritableStreamDefaultController {
    const LENGTH: usize = 0;
    fn members(b: &mut webidl::InterfaceBuilder<'_, '_>) {
        b.attribute("signal", controller_signal, None);
        b.operation("error", 0, controller_error);
    }

    fn construct(_: &Value, _: &[Value], _: &mut Cx) -> JsResult<Self> {
        Err(webidl::illegal_constructor(
            <Self as webidl::Interface>::NAME,
        ))
    }
}

webidl::interface!(
    WritableStreamDefaultController,
    "WritableStreamDefaultController"
);

/// <https://streams.spec.whatwg.org/#ws-default-controller-signal>
fn controller_signal(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    let controller = webidl::this::<WritableStreamDefaultController>(this)?;
    // 1. Return this.[[abortController]]'s signal.
    Ok(signal(&controller).into())
}

/// <https://streams.spec.whatwg.org/#ws-default-controller-error>
fn controller_error(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let controller = webidl::this::<WritableStreamDefaultController>(this)?;
    let e = args.first().cloned().unwrap_or_default();
    // 1. Let state be this.[[stream]].[[state]].
    // 2. If state is not "writable", return.
    if stream_of(&controller).state() != WritableState::Writable {
        return Ok(Value::undefined());
    }
    // 3. Perform ! WritableStreamDefaultControllerError(this, e).
    writable_stream_default_controller_error(&controller, e, ctx)?;
    Ok(Value::undefined())
}

/// <https://streams.spec.whatwg.org/#ws-default-controller-private-abort>
pub(crate) fn writable_stream_default_controller_abort_steps(
    controller: &Controller,
    reason: Value,
    ctx: &mut Cx,
) -> JsResult<PromiseResult> {
    // 1. Let result be the result of performing this.[[abortAlgorithm]], passing reason.
    let algorithm = controller.borrow().data().abort_algorithm.borrow().clone();
    let result = match &algorithm {
        Some(algorithm) => algorithm.perform(reason, ctx)?,
        None => PromiseResult::undefined(),
    };
    // 2. Perform ! WritableStreamDefaultControllerClearAlgorithms(this).
    writable_stream_default_controller_clear_algorithms(controller);
    // 3. Return result.
    Ok(result)
}

/// <https://streams.spec.whatwg.org/#ws-default-controller-private-error>
pub(crate) fn writable_stream_default_controller_error_steps(controller: &Controller) {
    // 1. Perform ! ResetQueue(this).
    controller.borrow().data().queue.borrow_mut().reset_queue();
}

/// <https://streams.spec.whatwg.org/#set-up-writable-stream-default-controller>
///
/// The controller object is created here (the spec's caller creates it just before).
#[allow(clippy::too_many_arguments)]
pub(crate) fn set_up_writable_stream_default_controller(
    stream: &Stream,
    start_algorithm: StartAlgorithm,
    write_algorithm: WriteAlgorithm,
    close_algorithm: CloseAlgorithm,
    abort_algorithm: AbortAlgorithm,
    high_water_mark: f64,
    size_algorithm: SizeAlgorithm,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Assert: stream implements WritableStream.
    // 2. Assert: stream.[[controller]] is undefined.
    // 3. Set controller.[[stream]] to stream.
    // 5. Perform ! ResetQueue(controller).
    // 6. Set controller.[[abortController]] to a new AbortController.
    // 7. Set controller.[[started]] to false.
    // 8. Set controller.[[strategySizeAlgorithm]] to sizeAlgorithm.
    // 9. Set controller.[[strategyHWM]] to highWaterMark.
    // 10. Set controller.[[writeAlgorithm]] to writeAlgorithm.
    // 11. Set controller.[[closeAlgorithm]] to closeAlgorithm.
    // 12. Set controller.[[abortAlgorithm]] to abortAlgorithm.
    let signal = abort_signal::new_abort_signal(ctx)?;
    let controller = new_object(
        WritableStreamDefaultController {
            abort_algorithm: Slot::new(Some(abort_algorithm)),
            signal,
            close_algorithm: Slot::new(Some(close_algorithm)),
            queue: Slot::new(QueueWithSizes::default()),
            started: Cell::new(false),
            strategy_hwm: Cell::new(high_water_mark),
            strategy_size_algorithm: Slot::new(Some(size_algorithm)),
            stream: stream.clone(),
            write_algorithm: Slot::new(Some(write_algorithm)),
        },
        ctx,
    )?;
    // 4. Set stream.[[controller]] to controller.
    *stream.borrow().data().controller.borrow_mut() = Some(controller.clone());
    // 13. Let backpressure be ! WritableStreamDefaultControllerGetBackpressure(controller).
    let backpressure = writable_stream_default_controller_get_backpressure(&controller);
    // 14. Perform ! WritableStreamUpdateBackpressure(stream, backpressure).
    writable_stream_update_backpressure(stream, backpressure, ctx)?;
    // 15. Let startResult be the result of performing startAlgorithm. (This may throw an
    //     exception.)
    let start_result = start_algorithm.perform(controller.clone().upcast().into(), ctx)?;
    // 16. Let startPromise be a promise resolved with startResult.
    let start_promise = PromiseResult::resolved_with(start_result, ctx)?;
    // 17. Upon fulfillment of startPromise,
    // 17.1. Assert: stream.[[state]] is "writable" or "erroring".
    // 17.2. Set controller.[[started]] to true.
    // 17.3. Perform ! WritableStreamDefaultControllerAdvanceQueueIfNeeded(controller).
    // 18. Upon rejection of startPromise with reason r,
    // 18.1. Assert: stream.[[state]] is "writable" or "erroring".
    // 18.2. Set controller.[[started]] to true.
    // 18.3. Perform ! WritableStreamDealWithRejection(stream, r).
    upon_settlement(
        start_promise,
        controller,
        |controller, _, ctx| {
            controller.borrow().data().started.set(true);
            writable_stream_default_controller_advance_queue_if_needed(controller, ctx)
        },
        |controller, r, ctx| {
            controller.borrow().data().started.set(true);
            writable_stream_deal_with_rejection(&stream_of(controller), r, ctx)
        },
        ctx,
    )
}

/// <https://streams.spec.whatwg.org/#set-up-writable-stream-default-controller-from-underlying-sink>
pub(crate) fn set_up_writable_stream_default_controller_from_underlying_sink(
    stream: &Stream,
    sink: UnderlyingSink,
    high_water_mark: f64,
    size_algorithm: SizeAlgorithm,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Let controller be a new WritableStreamDefaultController.
    //    (Created by SetUpWritableStreamDefaultController.)
    let object = sink.object.clone();
    let (abort, close, start, write) = (
        sink.abort.clone(),
        sink.close.clone(),
        sink.start.clone(),
        sink.write.clone(),
    );
    // 2. Let startAlgorithm be an algorithm that returns undefined.
    // 6. If underlyingSinkDict["start"] exists, then set startAlgorithm to an algorithm which
    //    returns the result of invoking underlyingSinkDict["start"] with argument list
    //    « controller », exception behavior "rethrow", and callback this value underlyingSink.
    let start_algorithm = match start {
        Some(start) => StartAlgorithm::Js {
            underlying: object.clone(),
            start,
        },
        None => StartAlgorithm::ReturnUndefined,
    };
    // 3. Let writeAlgorithm be an algorithm that returns a promise resolved with undefined.
    // 7. If underlyingSinkDict["write"] exists, then set writeAlgorithm to an algorithm which
    //    takes an argument chunk and returns the result of invoking underlyingSinkDict["write"]
    //    with argument list « chunk, controller » and callback this value underlyingSink.
    let write_algorithm = match write {
        Some(write) => WriteAlgorithm::Js {
            sink: object.clone(),
            write,
        },
        None => WriteAlgorithm::ResolvedUndefined,
    };
    // 4. Let closeAlgorithm be an algorithm that returns a promise resolved with undefined.
    // 8. If underlyingSinkDict["close"] exists, then set closeAlgorithm to an algorithm which
    //    returns the result of invoking underlyingSinkDict["close"] with argument list «» and
    //    callback this value underlyingSink.
    let close_algorithm = match close {
        Some(close) => CloseAlgorithm::Js {
            sink: object.clone(),
            close,
        },
        None => CloseAlgorithm::ResolvedUndefined,
    };
    // 5. Let abortAlgorithm be an algorithm that returns a promise resolved with undefined.
    // 9. If underlyingSinkDict["abort"] exists, then set abortAlgorithm to an algorithm which
    //    takes an argument reason and returns the result of invoking
    //    underlyingSinkDict["abort"] with argument list « reason » and callback this value
    //    underlyingSink.
    let abort_algorithm = match abort {
        Some(abort) => AbortAlgorithm::Js {
            sink: object,
            abort,
        },
        None => AbortAlgorithm::ResolvedUndefined,
    };
    // 10. Perform ? SetUpWritableStreamDefaultController(stream, controller, startAlgorithm,
    //     writeAlgorithm, closeAlgorithm, abortAlgorithm, highWaterMark, sizeAlgorithm).
    set_up_writable_stream_default_controller(
        stream,
        start_algorithm,
        write_algorithm,
        close_algorithm,
        abort_algorithm,
        high_water_mark,
        size_algorithm,
        ctx,
    )
}

/// <https://streams.spec.whatwg.org/#writable-stream-default-controller-advance-queue-if-needed>
pub(crate) fn writable_stream_default_controller_advance_queue_if_needed(
    controller: &Controller,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Let stream be controller.[[stream]].
    let stream = stream_of(controller);
    // 2. If controller.[[started]] is false, return.
    if !started(controller) {
        return Ok(());
    }
    // 3. If stream.[[inFlightWriteRequest]] is not undefined, return.
    if stream
        .borrow()
        .data()
        .in_flight_write_request
        .borrow()
        .is_some()
    {
        return Ok(());
    }
    // 4. Let state be stream.[[state]].
    let state = stream.state();
    // 5. Assert: state is not "closed" or "errored".
    if matches!(state, WritableState::Closed | WritableState::Errored) {
        debug_assert!(false, "Assert: state is not \"closed\" or \"errored\"");
        return Ok(());
    }
    // 6. If state is "erroring",
    if state == WritableState::Erroring {
        // 1. Perform ! WritableStreamFinishErroring(stream).
        // 2. Return.
        return writable_stream_finish_erroring(&stream, ctx);
    }
    // 7. If controller.[[queue]] is empty, return.
    // 8. Let value be ! PeekQueueValue(controller). (Rust bytes are taken out of the entry: see
    //    `QueueEntry::Written`.)
    let value = {
        let c = controller.borrow();
        let mut queue = c.data().queue.borrow_mut();
        match queue.peek_queue_value() {
            Some(entry @ QueueEntry::Bytes(_)) => {
                Some(std::mem::replace(entry, QueueEntry::Written))
            }
            entry => entry.map(|entry| entry.clone()),
        }
    };
    match value {
        None => Ok(()),
        // Assert: a write in flight (step 3 returned) is the only entry made `Written`.
        Some(QueueEntry::Written) => {
            debug_assert!(false, "Assert: no write is in flight");
            Ok(())
        }
        // 9. If value is the close sentinel, perform !
        //    WritableStreamDefaultControllerProcessClose(controller).
        Some(QueueEntry::Close) => {
            writable_stream_default_controller_process_close(controller, ctx)
        }
        // 10. Otherwise, perform ! WritableStreamDefaultControllerProcessWrite(controller, value).
        Some(value) => writable_stream_default_controller_process_write(controller, value, ctx),
    }
}

/// <https://streams.spec.whatwg.org/#writable-stream-default-controller-clear-algorithms>
pub(crate) fn writable_stream_default_controller_clear_algorithms(controller: &Controller) {
    let c = controller.borrow();
    let data = c.data();
    // 1. Set controller.[[writeAlgorithm]] to undefined.
    *data.write_algorithm.borrow_mut() = None;
    // 2. Set controller.[[closeAlgorithm]] to undefined.
    *data.close_algorithm.borrow_mut() = None;
    // 3. Set controller.[[abortAlgorithm]] to undefined.
    *data.abort_algorithm.borrow_mut() = None;
    // 4. Set controller.[[strategySizeAlgorithm]] to undefined.
    *data.strategy_size_algorithm.borrow_mut() = None;
}

/// <https://streams.spec.whatwg.org/#writable-stream-default-controller-close>
pub(crate) fn writable_stream_default_controller_close(
    controller: &Controller,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Perform ! EnqueueValueWithSize(controller, close sentinel, 0).
    controller
        .borrow()
        .data()
        .queue
        .borrow_mut()
        .enqueue_value_with_size(QueueEntry::Close, 0.0, ctx)?;
    // 2. Perform ! WritableStreamDefaultControllerAdvanceQueueIfNeeded(controller).
    writable_stream_default_controller_advance_queue_if_needed(controller, ctx)
}

/// <https://streams.spec.whatwg.org/#writable-stream-default-controller-error>
pub(crate) fn writable_stream_default_controller_error(
    controller: &Controller,
    error: Value,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Let stream be controller.[[stream]].
    let stream = stream_of(controller);
    // 2. Assert: stream.[[state]] is "writable".
    // 3. Perform ! WritableStreamDefaultControllerClearAlgorithms(controller).
    writable_stream_default_controller_clear_algorithms(controller);
    // 4. Perform ! WritableStreamStartErroring(stream, error).
    writable_stream_start_erroring(&stream, error, ctx)
}

/// <https://streams.spec.whatwg.org/#writable-stream-default-controller-error-if-needed>
pub(crate) fn writable_stream_default_controller_error_if_needed(
    controller: &Controller,
    error: Value,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. If controller.[[stream]].[[state]] is "writable", perform !
    //    WritableStreamDefaultControllerError(controller, error).
    if stream_of(controller).state() == WritableState::Writable {
        writable_stream_default_controller_error(controller, error, ctx)?;
    }
    Ok(())
}

/// <https://streams.spec.whatwg.org/#writable-stream-default-controller-get-backpressure>
pub(crate) fn writable_stream_default_controller_get_backpressure(controller: &Controller) -> bool {
    // 1. Let desiredSize be ! WritableStreamDefaultControllerGetDesiredSize(controller).
    let desired_size = writable_stream_default_controller_get_desired_size(controller);
    // 2. Return true if desiredSize ≤ 0, or false otherwise.
    desired_size <= 0.0
}

/// <https://streams.spec.whatwg.org/#writable-stream-default-controller-get-chunk-size>
pub(crate) fn writable_stream_default_controller_get_chunk_size(
    controller: &Controller,
    chunk: &Chunk,
    ctx: &mut Cx,
) -> JsResult<f64> {
    // 1. If controller.[[strategySizeAlgorithm]] is undefined, then:
    // 1.1. Assert: controller.[[stream]].[[state]] is not "writable".
    // 1.2. Return 1.
    let algorithm = controller
        .borrow()
        .data()
        .strategy_size_algorithm
        .borrow()
        .clone();
    let Some(algorithm) = algorithm else {
        return Ok(1.0);
    };
    // (Rust bytes reach here only where the size algorithm returns 1: `takes_native_bytes`.)
    let Chunk::Value(chunk) = chunk else {
        return Ok(1.0);
    };
    // 2. Let returnValue be the result of performing controller.[[strategySizeAlgorithm]],
    //    passing in chunk, and interpreting the result as a completion record.
    match algorithm.perform(chunk, ctx) {
        // 4. Return returnValue.[[Value]].
        Ok(size) => Ok(size),
        // 3. If returnValue is an abrupt completion,
        Err(error) => {
            let error = engine::thrown_value(error, ctx)?;
            // 1. Perform ! WritableStreamDefaultControllerErrorIfNeeded(controller,
            //    returnValue.[[Value]]).
            writable_stream_default_controller_error_if_needed(controller, error, ctx)?;
            // 2. Return 1.
            Ok(1.0)
        }
    }
}

/// <https://streams.spec.whatwg.org/#writable-stream-default-controller-get-desired-size>
pub(crate) fn writable_stream_default_controller_get_desired_size(controller: &Controller) -> f64 {
    let c = controller.borrow();
    let data = c.data();
    // 1. Return controller.[[strategyHWM]] − controller.[[queueTotalSize]].
    let total_size = data.queue.borrow().total_size();
    data.strategy_hwm.get() - total_size
}

/// <https://streams.spec.whatwg.org/#writable-stream-default-controller-process-close>
pub(crate) fn writable_stream_default_controller_process_close(
    controller: &Controller,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Let stream be controller.[[stream]].
    let stream = stream_of(controller);
    // 2. Perform ! WritableStreamMarkCloseRequestInFlight(stream).
    writable_stream_mark_close_request_in_flight(&stream);
    // 3. Perform ! DequeueValue(controller).
    // 4. Assert: controller.[[queue]] is empty.
    controller
        .borrow()
        .data()
        .queue
        .borrow_mut()
        .dequeue_value();
    // 5. Let sinkClosePromise be the result of performing controller.[[closeAlgorithm]].
    let algorithm = controller.borrow().data().close_algorithm.borrow().clone();
    let sink_close_promise = match &algorithm {
        Some(algorithm) => algorithm.perform(ctx)?,
        None => PromiseResult::undefined(),
    };
    // 6. Perform ! WritableStreamDefaultControllerClearAlgorithms(controller).
    writable_stream_default_controller_clear_algorithms(controller);
    // 7. Upon fulfillment of sinkClosePromise,
    // 7.1. Perform ! WritableStreamFinishInFlightClose(stream).
    // 8. Upon rejection of sinkClosePromise with reason reason,
    // 8.1. Perform ! WritableStreamFinishInFlightCloseWithError(stream, reason).
    upon_settlement(
        sink_close_promise,
        stream,
        |stream, _, ctx| writable_stream_finish_in_flight_close(stream, ctx),
        |stream, reason, ctx| {
            writable_stream_finish_in_flight_close_with_error(stream, reason, ctx)
        },
        ctx,
    )
}

/// <https://streams.spec.whatwg.org/#writable-stream-default-controller-process-write>
///
/// `chunk` is the queue entry at the head of the queue (never the close sentinel).
pub(crate) fn writable_stream_default_controller_process_write(
    controller: &Controller,
    chunk: QueueEntry,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Let stream be controller.[[stream]].
    let stream = stream_of(controller);
    // 2. Perform ! WritableStreamMarkFirstWriteRequestInFlight(stream).
    writable_stream_mark_first_write_request_in_flight(&stream);
    // 3. Let sinkWritePromise be the result of performing controller.[[writeAlgorithm]],
    //    passing in chunk.
    let algorithm = controller.borrow().data().write_algorithm.borrow().clone();
    let sink_write_promise = match &algorithm {
        Some(algorithm) => {
            let controller = controller.clone().upcast().into();
            match chunk {
                QueueEntry::Chunk(chunk) => algorithm.perform(chunk, controller, ctx)?,
                QueueEntry::Bytes(bytes) => algorithm.perform_bytes(bytes, controller, ctx)?,
                QueueEntry::Close | QueueEntry::Written => PromiseResult::undefined(),
            }
        }
        None => PromiseResult::undefined(),
    };
    // 4. Upon fulfillment of sinkWritePromise, ...
    // 5. Upon rejection of sinkWritePromise with reason, ...
    upon_settlement(
        sink_write_promise,
        controller.clone(),
        |controller, _, ctx| {
            let stream = stream_of(controller);
            // 1. Perform ! WritableStreamFinishInFlightWrite(stream).
            writable_stream_finish_in_flight_write(&stream, ctx)?;
            // 2. Let state be stream.[[state]].
            let state = stream.state();
            // 3. Assert: state is "writable" or "erroring".
            // 4. Perform ! DequeueValue(controller).
            controller
                .borrow()
                .data()
                .queue
                .borrow_mut()
                .dequeue_value();
            // 5. If ! WritableStreamCloseQueuedOrInFlight(stream) is false and state is
            //    "writable",
            if !writable_stream_close_queued_or_in_flight(&stream)
                && state == WritableState::Writable
            {
                // 1. Let backpressure be ! WritableStreamDefaultControllerGetBackpressure(
                //    controller).
                let backpressure = writable_stream_default_controller_get_backpressure(controller);
                // 2. Perform ! WritableStreamUpdateBackpressure(stream, backpressure).
                writable_stream_update_backpressure(&stream, backpressure, ctx)?;
            }
            // 6. Perform ! WritableStreamDefaultControllerAdvanceQueueIfNeeded(controller).
            writable_stream_default_controller_advance_queue_if_needed(controller, ctx)
        },
        |controller, reason, ctx| {
            let stream = stream_of(controller);
            // 1. If stream.[[state]] is "writable", perform !
            //    WritableStreamDefaultControllerClearAlgorithms(controller).
            if stream.state() == WritableState::Writable {
                writable_stream_default_controller_clear_algorithms(controller);
            }
            // 2. Perform ! WritableStreamFinishInFlightWriteWithError(stream, reason).
            writable_stream_finish_in_flight_write_with_error(&stream, reason, ctx)
        },
        ctx,
    )
}

/// <https://streams.spec.whatwg.org/#writable-stream-default-controller-write>
pub(crate) fn writable_stream_default_controller_write(
    controller: &Controller,
    chunk: Chunk,
    chunk_size: f64,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Let enqueueResult be EnqueueValueWithSize(controller, chunk, chunkSize).
    let enqueue_result = controller
        .borrow()
        .data()
        .queue
        .borrow_mut()
        .enqueue_value_with_size(
            match chunk {
                Chunk::Value(chunk) => QueueEntry::Chunk(chunk),
                Chunk::Bytes(bytes) => QueueEntry::Bytes(Rc::new(bytes)),
            },
            chunk_size,
            ctx,
        );
    // 2. If enqueueResult is an abrupt completion,
    if let Err(error) = enqueue_result {
        // 1. Perform ! WritableStreamDefaultControllerErrorIfNeeded(controller,
        //    enqueueResult.[[Value]]).
        let error = engine::thrown_value(error, ctx)?;
        writable_stream_default_controller_error_if_needed(controller, error, ctx)?;
        // 2. Return.
        return Ok(());
    }
    // 3. Let stream be controller.[[stream]].
    let stream = stream_of(controller);
    // 4. If ! WritableStreamCloseQueuedOrInFlight(stream) is false and stream.[[state]] is
    //    "writable",
    if !writable_stream_close_queued_or_in_flight(&stream)
        && stream.state() == WritableState::Writable
    {
        // 1. Let backpressure be ! WritableStreamDefaultControllerGetBackpressure(controller).
        let backpressure = writable_stream_default_controller_get_backpressure(controller);
        // 2. Perform ! WritableStreamUpdateBackpressure(stream, backpressure).
        writable_stream_update_backpressure(&stream, backpressure, ctx)?;
    }
    // 5. Perform ! WritableStreamDefaultControllerAdvanceQueueIfNeeded(controller).
    writable_stream_default_controller_advance_queue_if_needed(controller, ctx)
}
