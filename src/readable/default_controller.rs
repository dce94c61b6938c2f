//! `ReadableStreamDefaultController` and the default controller abstract operations.
//!
//! <https://streams.spec.whatwg.org/#rs-default-controller-class>

use std::cell::Cell;

use crate::engine::{Cx, JsResult, Object, Realm, Slot, Value};

use super::{
    stream::{
        readable_stream_add_read_request, readable_stream_close, readable_stream_error,
        readable_stream_fulfill_read_request, readable_stream_has_waiting_read_request,
        set_controller, ReadableStream, StreamSlots, StreamState, UnderlyingSource,
    },
    ControllerRef,
};
use crate::{
    engine,
    engine::webidl,
    queue::{Chunk, NativeBytes, QueueWithSizes},
    queuing_strategy::SizeAlgorithm,
};

use super::default_reader::ReadRequest;
use super::other_specs::NativeSource;
use crate::engine::webidl::new_object;
use crate::engine::{upon_settlement, PromiseResult};

/// A [[startAlgorithm]]: the writable controller's (one type for both kinds of stream).
pub(crate) use crate::writable::StartAlgorithm;

traced_without_drop! {
/// A controller's [[pullAlgorithm]].
#[derive(Debug, Clone)]
pub(crate) enum PullAlgorithm {
    /// An algorithm that returns a promise resolved with undefined.
    ResolvedUndefined,
    /// Invoke the underlying source's `pull` with the controller, `this` = the source.
    Js {
        /// The underlying source object.
        source: Value,
        /// Its `pull` method.
        pull: Object,
    },
    /// Another specification's pullAlgorithm (<https://streams.spec.whatwg.org/#readablestream-set-up>),
    /// or one of the Streams Standard's own: the tee's, from()'s, TransformStream's, the
    /// cross-realm transform's.
    Native(NativeSource),
}
}

traced_without_drop! {
/// A controller's [[cancelAlgorithm]].
#[derive(Debug, Clone)]
pub(crate) enum CancelAlgorithm {
    /// An algorithm that returns a promise resolved with undefined.
    ResolvedUndefined,
    /// Invoke the underlying source's `cancel` with the reason, `this` = the source.
    Js {
        /// The underlying source object.
        source: Value,
        /// Its `cancel` method.
        cancel: Object,
    },
    /// Another specification's cancelAlgorithm, or the tee's, from()'s, TransformStream's or
    /// the cross-realm transform's.
    Native(NativeSource),
}
}

impl PullAlgorithm {
    /// Performs the algorithm for `controller`.
    pub(crate) fn perform(self, controller: Value, ctx: &mut Cx) -> JsResult<PromiseResult> {
        match self {
            PullAlgorithm::ResolvedUndefined => Ok(PromiseResult::undefined()),
            PullAlgorithm::Js { source, pull } => {
                let r = engine::call_object(&pull, &source, &[controller], ctx);
                PromiseResult::from_callback(r, ctx)
            }
            PullAlgorithm::Native(source) => source.pull(controller, ctx),
        }
    }
}

impl CancelAlgorithm {
    /// Performs the algorithm, passing `reason`.
    pub(crate) fn perform(self, reason: Value, ctx: &mut Cx) -> JsResult<PromiseResult> {
        match self {
            CancelAlgorithm::ResolvedUndefined => Ok(PromiseResult::undefined()),
            CancelAlgorithm::Js { source, cancel } => {
                let r = engine::call_object(&cancel, &source, &[reason], ctx);
                PromiseResult::from_callback(r, ctx)
            }
            CancelAlgorithm::Native(source) => source.cancel(reason, ctx),
        }
    }
}

traced! {
    data;
    /// <https://streams.spec.whatwg.org/#readablestreamdefaultcontroller>
    #[derive(Debug)]
    pub(crate) struct ReadableStreamDefaultController {
        /// <https://streams.spec.whatwg.org/#readablestreamdefaultcontroller-cancelalgorithm>
        cancel_algorithm: Slot<Option<CancelAlgorithm>>,
        /// <https://streams.spec.whatwg.org/#readablestreamdefaultcontroller-closerequested>
        close_requested: Cell<bool>,
        /// <https://streams.spec.whatwg.org/#readablestreamdefaultcontroller-pullagain>
        pull_again: Cell<bool>,
        /// <https://streams.spec.whatwg.org/#readablestreamdefaultcontroller-pullalgorithm>
        pull_algorithm: Slot<Option<PullAlgorithm>>,
        /// <https://streams.spec.whatwg.org/#readablestreamdefaultcontroller-pulling>
        pulling: Cell<bool>,
        /// <https://streams.spec.whatwg.org/#readablestreamdefaultcontroller-queue> and
        /// <https://streams.spec.whatwg.org/#readablestreamdefaultcontroller-queuetotalsize>
        queue: Slot<QueueWithSizes<Chunk>>,
        /// <https://streams.spec.whatwg.org/#readablestreamdefaultcontroller-started>
        started: Cell<bool>,
        /// <https://streams.spec.whatwg.org/#readablestreamdefaultcontroller-strategyhwm>
        strategy_hwm: Cell<f64>,
        /// <https://streams.spec.whatwg.org/#readablestreamdefaultcontroller-strategysizealgorithm>
        strategy_size_algorithm: Slot<Option<SizeAlgorithm>>,
        /// <https://streams.spec.whatwg.org/#readablestreamdefaultcontroller-stream>
        stream: Object<ReadableStream>,
        /// AD-HOC: the realm the controller was made in, its stream's relevant realm. Rust
        /// bytes in the queue become a `Uint8Array` of this realm when a reader that does not
        /// take bytes gets them ([`bytes_chunk_value`]).
        realm: Realm,
    }
}

type Controller = Object<ReadableStreamDefaultController>;

/// "A new ReadableStreamDefaultController" for `stream` (its [[stream]] is set here rather than
/// in SetUpReadableStreamDefaultController step 2: the slot is immutable afterwards).
pub(crate) fn new_controller(
    stream: &Object<ReadableStream>,
    ctx: &mut Cx,
) -> JsResult<Controller> {
    new_object(
        ReadableStreamDefaultController {
            cancel_algorithm: Slot::new(None),
            close_requested: Cell::new(false),
            pull_again: Cell::new(false),
            pull_algorithm: Slot::new(None),
            pulling: Cell::new(false),
            queue: Slot::new(QueueWithSizes::default()),
            started: Cell::new(false),
            strategy_hwm: Cell::new(1.0),
            strategy_size_algorithm: Slot::new(None),
            stream: stream.clone(),
            realm: engine::current_realm(ctx),
        },
        ctx,
    )
}

/// A chunk of Rust bytes read from `stream`, as the `Uint8Array` holding them that script gets:
/// made in the stream's relevant realm, whichever realm the read runs in. That is where the
/// spec makes a cross-realm readable's chunks (it deserializes them in its port's realm), and
/// where the chunks of a Rust source are made.
pub(crate) fn bytes_chunk_value(
    stream: &Object<ReadableStream>,
    bytes: NativeBytes,
    ctx: &mut Cx,
) -> JsResult<Value> {
    let realm = match stream.controller() {
        Some(ControllerRef::Default(controller)) => Some(controller.borrow().data().realm.clone()),
        _ => None,
    };
    match realm {
        Some(realm) => engine::in_realm(ctx, &realm, |ctx| {
            engine::new_uint8_array(bytes.as_slice(), ctx)
        }),
        None => engine::new_uint8_array(bytes.as_slice(), ctx),
    }
}

fn stream_of(controller: &Controller) -> Object<ReadableStream> {
    controller.borrow().data().stream.clone()
}

impl webidl::ClassInterface for ReadableStreamDefaultController {
    const LENGTH: usize = 0;
    fn members(b: &mut webidl::InterfaceBuilder<'_, '_>) {
        b.attribute("desiredSize", desired_size, None);
        b.operation("close", 0, close);
        b.operation("enqueue", 0, enqueue);
        b.operation("error", 0, error);
    }

    fn construct(_: &Value, _: &[Value], _: &mut Cx) -> JsResult<Self> {
        Err(webidl::illegal_constructor(
            <Self as webidl::Interface>::NAME,
        ))
    }
}

webidl::interface!(
    ReadableStreamDefaultController,
    "ReadableStreamDefaultController"
);

/// <https://streams.spec.whatwg.org/#rs-default-controller-desired-size>
fn desired_size(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    let controller = webidl::this::<ReadableStreamDefaultController>(this)?;
    // 1. Return ! ReadableStreamDefaultControllerGetDesiredSize(this).
    Ok(
        match readable_stream_default_controller_get_desired_size(&controller) {
            Some(size) => Value::from(size),
            None => Value::null(),
        },
    )
}

/// <https://streams.spec.whatwg.org/#rs-default-controller-close>
fn close(this: &Value, _: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let controller = webidl::this::<ReadableStreamDefaultController>(this)?;
    // 1. If ! ReadableStreamDefaultControllerCanCloseOrEnqueue(this) is false, throw a TypeError.
    if !readable_stream_default_controller_can_close_or_enqueue(&controller) {
        return Err(engine::throw_type_error(
            "The stream is not in a state that permits close",
        ));
    }
    // 2. Perform ! ReadableStreamDefaultControllerClose(this).
    readable_stream_default_controller_close(&controller, ctx)?;
    Ok(Value::undefined())
}

/// <https://streams.spec.whatwg.org/#rs-default-controller-enqueue>
fn enqueue(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let controller = webidl::this::<ReadableStreamDefaultController>(this)?;
    let chunk = args.first().cloned().unwrap_or_default();
    // 1. If ! ReadableStreamDefaultControllerCanCloseOrEnqueue(this) is false, throw a TypeError.
    if !readable_stream_default_controller_can_close_or_enqueue(&controller) {
        return Err(engine::throw_type_error(
            "The stream is not in a state that permits enqueue",
        ));
    }
    // (A buffer chunk script made counts toward the host's collection: see
    // `engine::note_chunk_bytes`.)
    engine::note_chunk_bytes(&chunk, ctx);
    // 2. Perform ? ReadableStreamDefaultControllerEnqueue(this, chunk).
    readable_stream_default_controller_enqueue(&controller, chunk, ctx)?;
    Ok(Value::undefined())
}

/// <https://streams.spec.whatwg.org/#rs-default-controller-error>
fn error(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let controller = webidl::this::<ReadableStreamDefaultController>(this)?;
    let e = args.first().cloned().unwrap_or_default();
    // 1. Perform ! ReadableStreamDefaultControllerError(this, e).
    readable_stream_default_controller_error(&controller, e, ctx)?;
    Ok(Value::undefined())
}

/// <https://streams.spec.whatwg.org/#rs-default-controller-private-cancel>
pub(crate) fn readable_stream_default_controller_cancel_steps(
    controller: &Controller,
    reason: Value,
    ctx: &mut Cx,
) -> JsResult<PromiseResult> {
    // 1. Perform ! ResetQueue(this).
    controller.borrow().data().queue.borrow_mut().reset_queue();
    // 2. Let result be the result of performing this.[[cancelAlgorithm]], passing reason.
    let algorithm = controller.borrow().data().cancel_algorithm.borrow().clone();
    let result = match algorithm {
        Some(algorithm) => algorithm.perform(reason, ctx)?,
        None => PromiseResult::undefined(),
    };
    // 3. Perform ! ReadableStreamDefaultControllerClearAlgorithms(this).
    readable_stream_default_controller_clear_algorithms(controller);
    // 4. Return result.
    Ok(result)
}

/// <https://streams.spec.whatwg.org/#rs-default-controller-private-pull>
pub(crate) fn readable_stream_default_controller_pull_steps(
    controller: &Controller,
    read_request: ReadRequest,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Let stream be this.[[stream]].
    let stream = stream_of(controller);
    // 2. If this.[[queue]] is not empty,
    // (The dequeue and step 2.2's test read the slots in one borrow: nothing runs between.)
    let (chunk, close_now) = {
        let data = controller.borrow();
        let c = data.data();
        let mut queue = c.queue.borrow_mut();
        // 2.1. Let chunk be ! DequeueValue(this).
        let chunk = queue.dequeue_value();
        (chunk, c.close_requested.get() && queue.is_empty())
    };
    if let Some(chunk) = chunk {
        // 2.2. If this.[[closeRequested]] is true and this.[[queue]] is empty,
        if close_now {
            // 2.2.1. Perform ! ReadableStreamDefaultControllerClearAlgorithms(this).
            readable_stream_default_controller_clear_algorithms(controller);
            // 2.2.2. Perform ! ReadableStreamClose(stream).
            readable_stream_close(&stream, ctx)?;
        } else {
            // 2.3. Otherwise, perform ! ReadableStreamDefaultControllerCallPullIfNeeded(this).
            readable_stream_default_controller_call_pull_if_needed(controller, ctx)?;
        }
        // 2.4. Perform readRequest's chunk steps, given chunk.
        read_request.chunk_steps_for(chunk, &stream, ctx)
    } else {
        // 3. Otherwise,
        // 3.1. Perform ! ReadableStreamAddReadRequest(stream, readRequest).
        readable_stream_add_read_request(&stream, read_request);
        // 3.2. Perform ! ReadableStreamDefaultControllerCallPullIfNeeded(this).
        readable_stream_default_controller_call_pull_if_needed(controller, ctx)
    }
}

/// <https://streams.spec.whatwg.org/#abstract-opdef-readablestreamdefaultcontroller-releasesteps>
pub(crate) fn readable_stream_default_controller_release_steps(_controller: &Controller) {
    // 1. Return.
}

/// <https://streams.spec.whatwg.org/#readable-stream-default-controller-call-pull-if-needed>
pub(crate) fn readable_stream_default_controller_call_pull_if_needed(
    controller: &Controller,
    ctx: &mut Cx,
) -> JsResult<()> {
    {
        let data = controller.borrow();
        let c = data.data();
        // 1. Let shouldPull be ! ReadableStreamDefaultControllerShouldCallPull(controller).
        // 2. If shouldPull is false, return.
        if !should_call_pull(c) {
            return Ok(());
        }
        // 3. If controller.[[pulling]] is true,
        if c.pulling.get() {
            // 3.1. Set controller.[[pullAgain]] to true.
            c.pull_again.set(true);
            // 3.2. Return.
            return Ok(());
        }
        // 4. Assert: controller.[[pullAgain]] is false.
        debug_assert!(!c.pull_again.get());
        // 5. Set controller.[[pulling]] to true.
        c.pulling.set(true);
    }
    // 6. Let pullPromise be the result of performing controller.[[pullAlgorithm]].
    let algorithm = controller.borrow().data().pull_algorithm.borrow().clone();
    let pull_promise = match algorithm {
        Some(algorithm) => algorithm.perform(controller.clone().upcast().into(), ctx)?,
        None => PromiseResult::undefined(),
    };
    upon_settlement(
        pull_promise,
        controller.clone(),
        // 7. Upon fulfillment of pullPromise,
        |controller, _, ctx| {
            let pull_again = {
                let data = controller.borrow();
                let c = data.data();
                // 7.1. Set controller.[[pulling]] to false.
                c.pulling.set(false);
                // 7.2. If controller.[[pullAgain]] is true,
                // 7.2.1. Set controller.[[pullAgain]] to false.
                c.pull_again.replace(false)
            };
            if pull_again {
                // 7.2.2. Perform ! ReadableStreamDefaultControllerCallPullIfNeeded(controller).
                readable_stream_default_controller_call_pull_if_needed(controller, ctx)?;
            }
            Ok(())
        },
        // 8. Upon rejection of pullPromise with reason e,
        |controller, e, ctx| {
            // 8.1. Perform ! ReadableStreamDefaultControllerError(controller, e).
            readable_stream_default_controller_error(controller, e, ctx)
        },
        ctx,
    )
}

/// <https://streams.spec.whatwg.org/#readable-stream-default-controller-should-call-pull>
///
/// Runs once or more per chunk, so the slots are read in place, each object borrowed once and
/// no handle cloned (the abstract operations it calls are inlined as their steps).
pub(crate) fn readable_stream_default_controller_should_call_pull(controller: &Controller) -> bool {
    should_call_pull(controller.borrow().data())
}

/// ReadableStreamDefaultControllerShouldCallPull, given the controller's slots (borrowed once
/// by the caller).
fn should_call_pull(c: &ReadableStreamDefaultController) -> bool {
    // 1. Let stream be controller.[[stream]].
    let stream = c.stream.borrow();
    let s = stream.data();
    // 2. If ! ReadableStreamDefaultControllerCanCloseOrEnqueue(controller) is false, return false.
    //    (CanCloseOrEnqueue: controller.[[closeRequested]] is false and state is "readable".)
    if c.close_requested.get() || s.state.get() != StreamState::Readable {
        return false;
    }
    // 3. If controller.[[started]] is false, return false.
    if !c.started.get() {
        return false;
    }
    // 4. If ! IsReadableStreamLocked(stream) is true and !
    //    ReadableStreamGetNumReadRequests(stream) > 0, return true.
    //    (Locked: stream.[[reader]] is not undefined; the number of read requests is its
    //    [[readRequests]]'s size when it is a default reader.)
    if let Some(super::ReaderRef::Default(reader)) = &*s.reader.borrow() {
        if super::default_reader::num_read_requests(reader) > 0 {
            return true;
        }
    }
    // 5. Let desiredSize be ! ReadableStreamDefaultControllerGetDesiredSize(controller).
    //    (The state is "readable": strategyHWM − queueTotalSize.)
    // 6. Assert: desiredSize is not null.
    // 7. If desiredSize > 0, return true.
    // 8. Return false.
    let queued = c.queue.borrow().total_size();
    c.strategy_hwm.get() - queued > 0.0
}

/// <https://streams.spec.whatwg.org/#readable-stream-default-controller-clear-algorithms>
pub(crate) fn readable_stream_default_controller_clear_algorithms(controller: &Controller) {
    let data = controller.borrow();
    let c = data.data();
    // 1. Set controller.[[pullAlgorithm]] to undefined.
    *c.pull_algorithm.borrow_mut() = None;
    // 2. Set controller.[[cancelAlgorithm]] to undefined.
    *c.cancel_algorithm.borrow_mut() = None;
    // 3. Set controller.[[strategySizeAlgorithm]] to undefined.
    *c.strategy_size_algorithm.borrow_mut() = None;
}

/// <https://streams.spec.whatwg.org/#readable-stream-default-controller-close>
pub(crate) fn readable_stream_default_controller_close(
    controller: &Controller,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. If ! ReadableStreamDefaultControllerCanCloseOrEnqueue(controller) is false, return.
    if !readable_stream_default_controller_can_close_or_enqueue(controller) {
        return Ok(());
    }
    // 2. Let stream be controller.[[stream]].
    let stream = stream_of(controller);
    // 3. Set controller.[[closeRequested]] to true.
    let empty = {
        let data = controller.borrow();
        let c = data.data();
        c.close_requested.set(true);
        let empty = c.queue.borrow().is_empty();
        empty
    };
    // 4. If controller.[[queue]] is empty,
    if empty {
        // 4.1. Perform ! ReadableStreamDefaultControllerClearAlgorithms(controller).
        readable_stream_default_controller_clear_algorithms(controller);
        // 4.2. Perform ! ReadableStreamClose(stream).
        readable_stream_close(&stream, ctx)?;
    }
    Ok(())
}

/// <https://streams.spec.whatwg.org/#readable-stream-default-controller-enqueue>
pub(crate) fn readable_stream_default_controller_enqueue(
    controller: &Controller,
    chunk: Value,
    ctx: &mut Cx,
) -> JsResult<()> {
    readable_stream_default_controller_enqueue_chunk(controller, Chunk::Value(chunk), ctx)
}

/// ReadableStreamDefaultControllerEnqueue given a [`Chunk`]: Rust bytes stay Rust bytes in the
/// queue and on the way to a read request that takes them; where the size algorithm would see
/// them (a strategy's `size` callback) they become a `Uint8Array` first.
pub(crate) fn readable_stream_default_controller_enqueue_chunk(
    controller: &Controller,
    chunk: Chunk,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. If ! ReadableStreamDefaultControllerCanCloseOrEnqueue(controller) is false, return.
    if !readable_stream_default_controller_can_close_or_enqueue(controller) {
        return Ok(());
    }
    // 2. Let stream be controller.[[stream]].
    let stream = stream_of(controller);
    // 3. If ! IsReadableStreamLocked(stream) is true and !
    //    ReadableStreamGetNumReadRequests(stream) > 0, perform !
    //    ReadableStreamFulfillReadRequest(stream, chunk, false).
    if readable_stream_has_waiting_read_request(&stream) {
        readable_stream_fulfill_read_request(&stream, chunk, false, ctx)?;
    } else {
        // 4. Otherwise,
        // 4.1. Let result be the result of performing controller.[[strategySizeAlgorithm]],
        //      passing in chunk, and interpreting the result as a completion record.
        let size_algorithm = controller
            .borrow()
            .data()
            .strategy_size_algorithm
            .borrow()
            .clone();
        let (chunk, result) = match (size_algorithm, chunk) {
            (None | Some(SizeAlgorithm::One), chunk) => (chunk, Ok(1.0)),
            (Some(algorithm), chunk) => {
                let chunk = match chunk {
                    Chunk::Bytes(bytes) => bytes_chunk_value(&stream, bytes, ctx)?,
                    Chunk::Value(chunk) => chunk,
                };
                let result = algorithm.perform(&chunk, ctx);
                (Chunk::Value(chunk), result)
            }
        };
        // 4.2. If result is an abrupt completion,
        let chunk_size = match result {
            Ok(size) => size,
            Err(error) => {
                let e = engine::thrown_value(error, ctx)?;
                // 4.2.1. Perform ! ReadableStreamDefaultControllerError(controller,
                //        result.[[Value]]).
                readable_stream_default_controller_error(controller, e.clone(), ctx)?;
                // 4.2.2. Return result.
                return Err(crate::engine::throw_value(e));
            }
        };
        // 4.3. Let chunkSize be result.[[Value]].
        // 4.4. Let enqueueResult be EnqueueValueWithSize(controller, chunk, chunkSize).
        let enqueue_result = {
            let data = controller.borrow();
            let mut queue = data.data().queue.borrow_mut();
            queue.enqueue_value_with_size(chunk, chunk_size, ctx)
        };
        // 4.5. If enqueueResult is an abrupt completion,
        if let Err(error) = enqueue_result {
            let e = engine::thrown_value(error, ctx)?;
            // 4.5.1. Perform ! ReadableStreamDefaultControllerError(controller,
            //        enqueueResult.[[Value]]).
            readable_stream_default_controller_error(controller, e.clone(), ctx)?;
            // 4.5.2. Return enqueueResult.
            return Err(crate::engine::throw_value(e));
        }
    }
    // 5. Perform ! ReadableStreamDefaultControllerCallPullIfNeeded(controller).
    readable_stream_default_controller_call_pull_if_needed(controller, ctx)
}

/// <https://streams.spec.whatwg.org/#readable-stream-default-controller-error>
pub(crate) fn readable_stream_default_controller_error(
    controller: &Controller,
    e: Value,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Let stream be controller.[[stream]].
    let stream = stream_of(controller);
    // 2. If stream.[[state]] is not "readable", return.
    if stream.state() != StreamState::Readable {
        return Ok(());
    }
    // 3. Perform ! ResetQueue(controller).
    controller.borrow().data().queue.borrow_mut().reset_queue();
    // 4. Perform ! ReadableStreamDefaultControllerClearAlgorithms(controller).
    readable_stream_default_controller_clear_algorithms(controller);
    // 5. Perform ! ReadableStreamError(stream, e).
    readable_stream_error(&stream, e, ctx)
}

/// <https://streams.spec.whatwg.org/#readable-stream-default-controller-get-desired-size>
pub(crate) fn readable_stream_default_controller_get_desired_size(
    controller: &Controller,
) -> Option<f64> {
    // 1. Let state be controller.[[stream]].[[state]].
    let data = controller.borrow();
    let c = data.data();
    match c.stream.state() {
        // 2. If state is "errored", return null.
        StreamState::Errored => None,
        // 3. If state is "closed", return 0.
        StreamState::Closed => Some(0.0),
        // 4. Return controller.[[strategyHWM]] − controller.[[queueTotalSize]].
        StreamState::Readable => Some(c.strategy_hwm.get() - c.queue.borrow().total_size()),
    }
}

/// <https://streams.spec.whatwg.org/#rs-default-controller-has-backpressure>
pub(crate) fn readable_stream_default_controller_has_backpressure(controller: &Controller) -> bool {
    // 1. If ! ReadableStreamDefaultControllerShouldCallPull(controller) is true, return false.
    // 2. Otherwise, return true.
    !readable_stream_default_controller_should_call_pull(controller)
}

/// <https://streams.spec.whatwg.org/#readable-stream-default-controller-can-close-or-enqueue>
pub(crate) fn readable_stream_default_controller_can_close_or_enqueue(
    controller: &Controller,
) -> bool {
    // 1. Let state be controller.[[stream]].[[state]].
    let data = controller.borrow();
    let c = data.data();
    // 2. If controller.[[closeRequested]] is false and state is "readable", return true.
    // 3. Otherwise, return false.
    !c.close_requested.get() && c.stream.state() == StreamState::Readable
}

/// <https://streams.spec.whatwg.org/#set-up-readable-stream-default-controller>
#[allow(clippy::too_many_arguments)] // the spec's signature
pub(crate) fn set_up_readable_stream_default_controller(
    stream: &Object<ReadableStream>,
    controller: &Controller,
    start_algorithm: StartAlgorithm,
    pull_algorithm: PullAlgorithm,
    cancel_algorithm: CancelAlgorithm,
    high_water_mark: f64,
    size_algorithm: SizeAlgorithm,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Assert: stream.[[controller]] is undefined.
    debug_assert!(stream.controller().is_none());
    {
        let data = controller.borrow();
        let c = data.data();
        // 2. Set controller.[[stream]] to stream. (Done by `new_controller`.)
        // 3. Perform ! ResetQueue(controller).
        c.queue.borrow_mut().reset_queue();
        // 4. Set controller.[[started]], controller.[[closeRequested]], controller.[[pullAgain]],
        //    and controller.[[pulling]] to false.
        c.started.set(false);
        c.close_requested.set(false);
        c.pull_again.set(false);
        c.pulling.set(false);
        // 5. Set controller.[[strategySizeAlgorithm]] to sizeAlgorithm and
        //    controller.[[strategyHWM]] to highWaterMark.
        *c.strategy_size_algorithm.borrow_mut() = Some(size_algorithm);
        c.strategy_hwm.set(high_water_mark);
        // 6. Set controller.[[pullAlgorithm]] to pullAlgorithm.
        *c.pull_algorithm.borrow_mut() = Some(pull_algorithm);
        // 7. Set controller.[[cancelAlgorithm]] to cancelAlgorithm.
        *c.cancel_algorithm.borrow_mut() = Some(cancel_algorithm);
    }
    // 8. Set stream.[[controller]] to controller.
    set_controller(stream, ControllerRef::Default(controller.clone()));
    // 9. Let startResult be the result of performing startAlgorithm. (This might throw an
    //    exception.)
    let start_result = start_algorithm.perform(controller.clone().upcast().into(), ctx)?;
    // 10. Let startPromise be a promise resolved with startResult.
    let start_promise = PromiseResult::resolved_with(start_result, ctx)?;
    upon_settlement(
        start_promise,
        controller.clone(),
        // 11. Upon fulfillment of startPromise,
        |controller, _, ctx| {
            {
                let data = controller.borrow();
                let c = data.data();
                // 11.1. Set controller.[[started]] to true.
                c.started.set(true);
                // 11.2. Assert: controller.[[pulling]] is false.
                debug_assert!(!c.pulling.get());
                // 11.3. Assert: controller.[[pullAgain]] is false.
                debug_assert!(!c.pull_again.get());
            }
            // 11.4. Perform ! ReadableStreamDefaultControllerCallPullIfNeeded(controller).
            readable_stream_default_controller_call_pull_if_needed(controller, ctx)
        },
        // 12. Upon rejection of startPromise with reason r,
        |controller, r, ctx| {
            // 12.1. Perform ! ReadableStreamDefaultControllerError(controller, r).
            readable_stream_default_controller_error(controller, r, ctx)
        },
        ctx,
    )
}

/// <https://streams.spec.whatwg.org/#set-up-readable-stream-default-controller-from-underlying-source>
pub(crate) fn set_up_readable_stream_default_controller_from_underlying_source(
    stream: &Object<ReadableStream>,
    underlying_source: Value,
    underlying_source_dict: UnderlyingSource,
    high_water_mark: f64,
    size_algorithm: SizeAlgorithm,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Let controller be a new ReadableStreamDefaultController.
    let controller = new_controller(stream, ctx)?;
    // 2. Let startAlgorithm be an algorithm that returns undefined.
    // 5. If underlyingSourceDict["start"] exists, then set startAlgorithm to an algorithm which
    //    returns the result of invoking underlyingSourceDict["start"] with argument list
    //    « controller » and callback this value underlyingSource.
    let start_algorithm = match underlying_source_dict.start {
        Some(start) => StartAlgorithm::Js {
            underlying: underlying_source.clone(),
            start,
        },
        None => StartAlgorithm::ReturnUndefined,
    };
    // 3. Let pullAlgorithm be an algorithm that returns a promise resolved with undefined.
    // 6. If underlyingSourceDict["pull"] exists, then set pullAlgorithm to an algorithm which
    //    returns the result of invoking underlyingSourceDict["pull"] with argument list
    //    « controller » and callback this value underlyingSource.
    let pull_algorithm = match underlying_source_dict.pull {
        Some(pull) => PullAlgorithm::Js {
            source: underlying_source.clone(),
            pull,
        },
        None => PullAlgorithm::ResolvedUndefined,
    };
    // 4. Let cancelAlgorithm be an algorithm that returns a promise resolved with undefined.
    // 7. If underlyingSourceDict["cancel"] exists, then set cancelAlgorithm to an algorithm
    //    which takes an argument reason and returns the result of invoking
    //    underlyingSourceDict["cancel"] with argument list « reason » and callback this value
    //    underlyingSource.
    let cancel_algorithm = match underlying_source_dict.cancel {
        Some(cancel) => CancelAlgorithm::Js {
            source: underlying_source,
            cancel,
        },
        None => CancelAlgorithm::ResolvedUndefined,
    };
    // 8. Perform ? SetUpReadableStreamDefaultController(stream, controller, startAlgorithm,
    //    pullAlgorithm, cancelAlgorithm, highWaterMark, sizeAlgorithm).
    set_up_readable_stream_default_controller(
        stream,
        &controller,
        start_algorithm,
        pull_algorithm,
        cancel_algorithm,
        high_water_mark,
        size_algorithm,
        ctx,
    )
}
