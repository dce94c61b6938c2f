//! The `WritableStreamDefaultWriter` interface and the writer abstract operations.
//!
//! <https://streams.spec.whatwg.org/#default-writer-class>

use crate::engine::internal_promise::InternalPromise;
use crate::engine::{Cx, JsPromise, JsResult, Object, Slot, Value};
use crate::queue::Chunk;
use crate::writable::stream::WritableSlots;

use super::{
    default_controller::{
        takes_native_bytes, writable_stream_default_controller_get_chunk_size,
        writable_stream_default_controller_get_desired_size,
        writable_stream_default_controller_write,
    },
    stream::{
        self, writable_stream_abort, writable_stream_add_write_request, writable_stream_close,
        writable_stream_close_queued_or_in_flight, Stream, WritableStream,
    },
    WritableState, WriteRequest,
};
use crate::engine::webidl::new_object;
use crate::{
    engine::webidl,
    engine::{self, NewPromise, PromiseCapability},
};

/// A typed handle on a `WritableStreamDefaultWriter` object.
pub(crate) type Writer = Object<WritableStreamDefaultWriter>;

traced! {
    data;
    /// <https://streams.spec.whatwg.org/#writablestreamdefaultwriter>
    #[derive(Debug)]
    pub(crate) struct WritableStreamDefaultWriter {
        /// <https://streams.spec.whatwg.org/#writablestreamdefaultwriter-closedpromise>
        closed_promise: Slot<Option<PromiseCapability>>,
        /// <https://streams.spec.whatwg.org/#writablestreamdefaultwriter-readypromise>
        ready_promise: Slot<Option<NewPromise>>,
        /// <https://streams.spec.whatwg.org/#writablestreamdefaultwriter-stream>
        stream: Slot<Option<Stream>>,
        /// The constructor's converted argument, kept until the object exists.
        constructor_stream: Slot<Option<Stream>>,
        /// Owned by a pipe, which reacts to the ready promises from Rust: new pending ready
        /// promises are internal promises ([`NewPromise::Internal`]).
        #[unsafe_ignore_trace]
        reacted_to_from_rust: std::cell::Cell<bool>,
    }
}

impl WritableStreamDefaultWriter {
    fn empty() -> Self {
        Self {
            closed_promise: Slot::new(None),
            ready_promise: Slot::new(None),
            stream: Slot::new(None),
            constructor_stream: Slot::new(None),
            reacted_to_from_rust: std::cell::Cell::new(false),
        }
    }
}

/// Marks `writer` as owned by a pipe: its later pending ready promises keep Rust reactions
/// beside them, so waiting on backpressure creates no JS function.
pub(crate) fn set_reacted_to_from_rust(writer: &Writer) {
    writer.borrow().data().reacted_to_from_rust.set(true);
}

/// "A new promise" for writer.[[readyPromise]]: an internal promise when a pipe owns the writer;
/// otherwise one whose JS promise is made only when script reads `writer.ready` (the promise is
/// replaced whenever backpressure flips, which a loop of awaited writes does per chunk).
pub(crate) fn new_ready_promise(writer: &Writer) -> NewPromise {
    if writer.borrow().data().reacted_to_from_rust.get() {
        NewPromise::Internal(InternalPromise::new())
    } else {
        NewPromise::deferred()
    }
}

/// Sets writer.[[readyPromise]] to "a new promise" (of the kind [`new_ready_promise`] makes):
/// the one it holds is made new in place where no one can tell the difference
/// ([`NewPromise::renew`]: settled, held by the writer alone), so a flip of backpressure
/// allocates nothing.
pub(crate) fn set_new_ready_promise(writer: &Writer) {
    let renewed = {
        let w = writer.borrow();
        let d = w.data();
        let internal = d.reacted_to_from_rust.get();
        let ready = d.ready_promise.borrow();
        match &*ready {
            Some(promise @ NewPromise::Internal(_)) if internal => promise.renew(),
            Some(promise @ NewPromise::Deferred(_)) if !internal => promise.renew(),
            _ => false,
        }
    };
    if !renewed {
        let promise = new_ready_promise(writer);
        set_ready_promise(writer, promise);
    }
}

/// A new writer object whose slots are not yet set up.
pub(crate) fn new_writer_object(ctx: &mut Cx) -> JsResult<Writer> {
    new_object(WritableStreamDefaultWriter::empty(), ctx)
}

/// writer.[[stream]]
pub(crate) fn stream_of(writer: &Writer) -> Option<Stream> {
    writer.borrow().data().stream.borrow().clone()
}

/// writer.[[closedPromise]] (set by SetUpWritableStreamDefaultWriter; `None` only before).
pub(crate) fn closed_promise(writer: &Writer) -> Option<PromiseCapability> {
    writer.borrow().data().closed_promise.borrow().clone()
}

/// writer.[[readyPromise]] (set by SetUpWritableStreamDefaultWriter; `None` only before).
pub(crate) fn ready_promise(writer: &Writer) -> Option<NewPromise> {
    writer.borrow().data().ready_promise.borrow().clone()
}

/// Resolves writer.[[readyPromise]] with undefined. An internal promise (a pipe's writer's) is
/// resolved where it is: settling it with a non-object only queues its reactions' jobs, which
/// runs no script and touches nothing of the writer.
pub(crate) fn resolve_ready_promise(writer: &Writer, ctx: &mut Cx) -> JsResult<()> {
    let ready = {
        let w = writer.borrow();
        let slot = w.data().ready_promise.borrow();
        match &*slot {
            Some(NewPromise::Internal(promise)) => {
                return promise.resolve(Value::undefined(), ctx);
            }
            Some(promise) => promise.clone(),
            None => return Ok(()),
        }
    };
    ready.resolve(Value::undefined(), ctx)
}

/// Upon fulfillment / upon rejection of writer.[[readyPromise]]; false if the writer has none
/// (it was released). An internal promise (a pipe's writer's) is reacted to where it is:
/// that only adds the reaction or queues its job, which runs no script and touches nothing of
/// the writer.
pub(crate) fn react_to_ready_promise<T: crate::engine::Trace + 'static>(
    writer: &Writer,
    data: T,
    on_fulfilled: engine::ReactionStep<T>,
    on_rejected: engine::ReactionStep<T>,
    ctx: &mut Cx,
) -> JsResult<bool> {
    let ready = {
        let w = writer.borrow();
        let slot = w.data().ready_promise.borrow();
        match &*slot {
            Some(NewPromise::Internal(promise)) => {
                promise.react(data, on_fulfilled, on_rejected, ctx);
                return Ok(true);
            }
            Some(promise) => promise.clone(),
            None => return Ok(false),
        }
    };
    ready.react(data, on_fulfilled, on_rejected, ctx)?;
    Ok(true)
}

fn set_closed_promise(writer: &Writer, promise: PromiseCapability) {
    *writer.borrow().data().closed_promise.borrow_mut() = Some(promise);
}

pub(crate) fn set_ready_promise(writer: &Writer, promise: NewPromise) {
    *writer.borrow().data().ready_promise.borrow_mut() = Some(promise);
}

/// A new promise already resolved with undefined ("a promise resolved with undefined"), kept
/// with its resolving functions so that a later "resolve" is the no-op the spec expects.
fn resolved_promise(ctx: &mut Cx) -> JsResult<PromiseCapability> {
    let promise = PromiseCapability::new(ctx);
    promise.resolve(Value::undefined(), ctx)?;
    Ok(promise)
}

/// "A promise rejected with" `reason`, marked as handled.
fn rejected_handled_promise(reason: Value, ctx: &mut Cx) -> JsResult<PromiseCapability> {
    let promise = PromiseCapability::new(ctx);
    promise.reject(reason, ctx)?;
    engine::mark_as_handled(promise.promise(), ctx)?;
    Ok(promise)
}

impl webidl::ClassInterface for WritableStreamDefaultWriter {
    const LENGTH: usize = 1;
    fn members(b: &mut webidl::InterfaceBuilder<'_, '_>) {
        b.promise_attribute("closed", writer_closed);
        b.attribute("desiredSize", writer_desired_size, None);
        b.promise_attribute("ready", writer_ready);
        b.promise_operation("abort", 0, writer_abort);
        b.promise_operation("close", 0, writer_close);
        b.operation("releaseLock", 0, writer_release_lock);
        b.promise_operation("write", 0, writer_write);
    }

    /// <https://streams.spec.whatwg.org/#default-writer-constructor>: the argument conversion.
    fn construct(_: &Value, args: &[Value], _: &mut Cx) -> JsResult<Self> {
        let stream = args
            .first()
            .and_then(Value::as_object)
            .and_then(|o| o.clone().downcast::<WritableStream>().ok())
            .ok_or_else(|| {
                engine::throw_type_error(
                    "WritableStreamDefaultWriter needs a WritableStream argument",
                )
            })?;
        let writer = Self::empty();
        *writer.constructor_stream.borrow_mut() = Some(stream);
        Ok(writer)
    }

    fn constructed(instance: &Object<Self>, _: &[Value], ctx: &mut Cx) -> JsResult<()> {
        let stream = instance
            .borrow()
            .data()
            .constructor_stream
            .borrow_mut()
            .take();
        match stream {
            // 1. Perform ? SetUpWritableStreamDefaultWriter(this, stream).
            Some(stream) => set_up_writable_stream_default_writer(instance, &stream, ctx),
            // Created from Rust: set up by the caller.
            None => Ok(()),
        }
    }
}

webidl::interface!(WritableStreamDefaultWriter, "WritableStreamDefaultWriter");

/// <https://streams.spec.whatwg.org/#default-writer-closed>
fn writer_closed(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    let writer = webidl::this::<WritableStreamDefaultWriter>(this)?;
    // 1. Return this.[[closedPromise]].
    Ok(closed_promise(&writer).map_or_else(Value::undefined, |p| p.promise().clone().into()))
}

/// <https://streams.spec.whatwg.org/#default-writer-desired-size>
fn writer_desired_size(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    let writer = webidl::this::<WritableStreamDefaultWriter>(this)?;
    // 1. If this.[[stream]] is undefined, throw a TypeError exception.
    if stream_of(&writer).is_none() {
        return Err(engine::throw_type_error("The writer has been released"));
    }
    // 2. Return ! WritableStreamDefaultWriterGetDesiredSize(this).
    Ok(writable_stream_default_writer_get_desired_size(&writer)
        .map_or_else(Value::null, Value::from))
}

/// <https://streams.spec.whatwg.org/#default-writer-ready>
fn writer_ready(this: &Value, _: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let writer = webidl::this::<WritableStreamDefaultWriter>(this)?;
    // 1. Return this.[[readyPromise]].
    match ready_promise(&writer) {
        Some(ready) => ready.to_value(ctx),
        None => Ok(Value::undefined()),
    }
}

/// <https://streams.spec.whatwg.org/#default-writer-abort>
fn writer_abort(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let writer = webidl::this::<WritableStreamDefaultWriter>(this)?;
    let reason = args.first().cloned().unwrap_or_default();
    // 1. If this.[[stream]] is undefined, return a promise rejected with a TypeError exception.
    if stream_of(&writer).is_none() {
        return Err(engine::throw_type_error("The writer has been released"));
    }
    // 2. Return ! WritableStreamDefaultWriterAbort(this, reason).
    Ok(writable_stream_default_writer_abort(&writer, reason, ctx)?.into())
}

/// <https://streams.spec.whatwg.org/#default-writer-close>
fn writer_close(this: &Value, _: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let writer = webidl::this::<WritableStreamDefaultWriter>(this)?;
    // 1. Let stream be this.[[stream]].
    // 2. If stream is undefined, return a promise rejected with a TypeError exception.
    let Some(stream) = stream_of(&writer) else {
        return Err(engine::throw_type_error("The writer has been released"));
    };
    // 3. If ! WritableStreamCloseQueuedOrInFlight(stream) is true, return a promise rejected
    //    with a TypeError exception.
    if writable_stream_close_queued_or_in_flight(&stream) {
        return Err(engine::throw_type_error("The stream is already closing"));
    }
    // 4. Return ! WritableStreamDefaultWriterClose(this).
    Ok(writable_stream_default_writer_close(&writer, ctx)?.into())
}

/// <https://streams.spec.whatwg.org/#default-writer-release-lock>
fn writer_release_lock(this: &Value, _: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let writer = webidl::this::<WritableStreamDefaultWriter>(this)?;
    // 1. Let stream be this.[[stream]].
    // 2. If stream is undefined, return.
    if stream_of(&writer).is_none() {
        return Ok(Value::undefined());
    }
    // 3. Assert: stream.[[writer]] is not undefined.
    // 4. Perform ! WritableStreamDefaultWriterRelease(this).
    writable_stream_default_writer_release(&writer, ctx)?;
    Ok(Value::undefined())
}

/// <https://streams.spec.whatwg.org/#default-writer-write>
fn writer_write(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let writer = webidl::this::<WritableStreamDefaultWriter>(this)?;
    let chunk = args.first().cloned().unwrap_or_default();
    // 1. If this.[[stream]] is undefined, return a promise rejected with a TypeError exception.
    if stream_of(&writer).is_none() {
        return Err(engine::throw_type_error("The writer has been released"));
    }
    // (A buffer chunk script made counts toward the host's collection: see
    // `engine::note_chunk_bytes`.)
    engine::note_chunk_bytes(&chunk, ctx);
    // 2. Return ! WritableStreamDefaultWriterWrite(this, chunk).
    Ok(writable_stream_default_writer_write(&writer, chunk, ctx)?.into())
}

/// <https://streams.spec.whatwg.org/#set-up-writable-stream-default-writer>
pub(crate) fn set_up_writable_stream_default_writer(
    writer: &Writer,
    stream: &Stream,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. If ! IsWritableStreamLocked(stream) is true, throw a TypeError exception.
    if stream::is_writable_stream_locked(stream) {
        return Err(engine::throw_type_error(
            "The stream is already locked to a writer",
        ));
    }
    // 2. Set writer.[[stream]] to stream.
    *writer.borrow().data().stream.borrow_mut() = Some(stream.clone());
    // 3. Set stream.[[writer]] to writer.
    *stream.borrow().data().writer.borrow_mut() = Some(writer.clone());
    // 4. Let state be stream.[[state]].
    match stream.state() {
        // 5. If state is "writable",
        WritableState::Writable => {
            // 1. If ! WritableStreamCloseQueuedOrInFlight(stream) is false and
            //    stream.[[backpressure]] is true, set writer.[[readyPromise]] to a new promise.
            // 2. Otherwise, set writer.[[readyPromise]] to a promise resolved with undefined.
            let ready =
                if !writable_stream_close_queued_or_in_flight(stream) && stream.backpressure() {
                    new_ready_promise(writer)
                } else {
                    NewPromise::Js(resolved_promise(ctx)?)
                };
            set_ready_promise(writer, ready);
            // 3. Set writer.[[closedPromise]] to a new promise.
            set_closed_promise(writer, PromiseCapability::new(ctx));
        }
        // 6. Otherwise, if state is "erroring",
        WritableState::Erroring => {
            // 1. Set writer.[[readyPromise]] to a promise rejected with stream.[[storedError]].
            // 2. Set writer.[[readyPromise]].[[PromiseIsHandled]] to true.
            let ready = rejected_handled_promise(stream.stored_error(), ctx)?;
            set_ready_promise(writer, NewPromise::Js(ready));
            // 3. Set writer.[[closedPromise]] to a new promise.
            set_closed_promise(writer, PromiseCapability::new(ctx));
        }
        // 7. Otherwise, if state is "closed",
        WritableState::Closed => {
            // 1. Set writer.[[readyPromise]] to a promise resolved with undefined.
            set_ready_promise(writer, NewPromise::Js(resolved_promise(ctx)?));
            // 2. Set writer.[[closedPromise]] to a promise resolved with undefined.
            set_closed_promise(writer, resolved_promise(ctx)?);
        }
        // 8. Otherwise,
        WritableState::Errored => {
            // 1. Assert: state is "errored".
            // 2. Let storedError be stream.[[storedError]].
            let stored = stream.stored_error();
            // 3. Set writer.[[readyPromise]] to a promise rejected with storedError.
            // 4. Set writer.[[readyPromise]].[[PromiseIsHandled]] to true.
            set_ready_promise(
                writer,
                NewPromise::Js(rejected_handled_promise(stored.clone(), ctx)?),
            );
            // 5. Set writer.[[closedPromise]] to a promise rejected with storedError.
            // 6. Set writer.[[closedPromise]].[[PromiseIsHandled]] to true.
            set_closed_promise(writer, rejected_handled_promise(stored, ctx)?);
        }
    }
    Ok(())
}

/// <https://streams.spec.whatwg.org/#writable-stream-default-writer-abort>
pub(crate) fn writable_stream_default_writer_abort(
    writer: &Writer,
    reason: Value,
    ctx: &mut Cx,
) -> JsResult<JsPromise> {
    // 1. Let stream be writer.[[stream]].
    // 2. Assert: stream is not undefined.
    let Some(stream) = stream_of(writer) else {
        debug_assert!(false, "Assert: stream is not undefined");
        let error = engine::type_error("The writer has been released", ctx);
        return engine::promise_rejected_with(error, ctx);
    };
    // 3. Return ! WritableStreamAbort(stream, reason).
    writable_stream_abort(&stream, reason, ctx)
}

/// <https://streams.spec.whatwg.org/#writable-stream-default-writer-close>
pub(crate) fn writable_stream_default_writer_close(
    writer: &Writer,
    ctx: &mut Cx,
) -> JsResult<JsPromise> {
    // 1. Let stream be writer.[[stream]].
    // 2. Assert: stream is not undefined.
    let Some(stream) = stream_of(writer) else {
        debug_assert!(false, "Assert: stream is not undefined");
        let error = engine::type_error("The writer has been released", ctx);
        return engine::promise_rejected_with(error, ctx);
    };
    // 3. Return ! WritableStreamClose(stream).
    writable_stream_close(&stream, ctx)
}

/// <https://streams.spec.whatwg.org/#writable-stream-default-writer-close-with-error-propagation>
pub(crate) fn writable_stream_default_writer_close_with_error_propagation(
    writer: &Writer,
    ctx: &mut Cx,
) -> JsResult<JsPromise> {
    // 1. Let stream be writer.[[stream]].
    // 2. Assert: stream is not undefined.
    let Some(stream) = stream_of(writer) else {
        debug_assert!(false, "Assert: stream is not undefined");
        let error = engine::type_error("The writer has been released", ctx);
        return engine::promise_rejected_with(error, ctx);
    };
    // 3. Let state be stream.[[state]].
    let state = stream.state();
    // 4. If ! WritableStreamCloseQueuedOrInFlight(stream) is true or state is "closed", return
    //    a promise resolved with undefined.
    if writable_stream_close_queued_or_in_flight(&stream) || state == WritableState::Closed {
        return engine::promise_resolved_with(Value::undefined(), ctx);
    }
    // 5. If state is "errored", return a promise rejected with stream.[[storedError]].
    if state == WritableState::Errored {
        return engine::promise_rejected_with(stream.stored_error(), ctx);
    }
    // 6. Assert: state is "writable" or "erroring".
    // 7. Return ! WritableStreamDefaultWriterClose(writer).
    writable_stream_default_writer_close(writer, ctx)
}

/// <https://streams.spec.whatwg.org/#writable-stream-default-writer-ensure-closed-promise-rejected>
pub(crate) fn writable_stream_default_writer_ensure_closed_promise_rejected(
    writer: &Writer,
    error: Value,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. If writer.[[closedPromise]].[[PromiseState]] is "pending", reject
    //    writer.[[closedPromise]] with error.
    // 2. Otherwise, set writer.[[closedPromise]] to a promise rejected with error.
    // 3. Set writer.[[closedPromise]].[[PromiseIsHandled]] to true.
    match closed_promise(writer) {
        Some(closed) if closed.is_pending() => {
            closed.reject(error, ctx)?;
            engine::mark_as_handled(closed.promise(), ctx)
        }
        _ => {
            let closed = rejected_handled_promise(error, ctx)?;
            set_closed_promise(writer, closed);
            Ok(())
        }
    }
}

/// <https://streams.spec.whatwg.org/#writable-stream-default-writer-ensure-ready-promise-rejected>
pub(crate) fn writable_stream_default_writer_ensure_ready_promise_rejected(
    writer: &Writer,
    error: Value,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. If writer.[[readyPromise]].[[PromiseState]] is "pending", reject
    //    writer.[[readyPromise]] with error.
    // 2. Otherwise, set writer.[[readyPromise]] to a promise rejected with error.
    // 3. Set writer.[[readyPromise]].[[PromiseIsHandled]] to true.
    match ready_promise(writer) {
        Some(ready) if ready.is_pending() => {
            ready.reject(error, ctx)?;
            ready.mark_as_handled(ctx)
        }
        _ => {
            let ready = rejected_handled_promise(error, ctx)?;
            set_ready_promise(writer, NewPromise::Js(ready));
            Ok(())
        }
    }
}

/// <https://streams.spec.whatwg.org/#writable-stream-default-writer-get-desired-size>
///
/// `None` is the spec's null.
pub(crate) fn writable_stream_default_writer_get_desired_size(writer: &Writer) -> Option<f64> {
    // 1. Let stream be writer.[[stream]].
    let stream = stream_of(writer)?;
    // 2. Let state be stream.[[state]].
    match stream.state() {
        // 3. If state is "errored" or "erroring", return null.
        WritableState::Errored | WritableState::Erroring => None,
        // 4. If state is "closed", return 0.
        WritableState::Closed => Some(0.0),
        // 5. Return ! WritableStreamDefaultControllerGetDesiredSize(stream.[[controller]]).
        WritableState::Writable => Some(stream.controller().map_or(0.0, |c| {
            writable_stream_default_controller_get_desired_size(&c)
        })),
    }
}

/// <https://streams.spec.whatwg.org/#writable-stream-default-writer-release>
pub(crate) fn writable_stream_default_writer_release(
    writer: &Writer,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Let stream be writer.[[stream]].
    // 2. Assert: stream is not undefined.
    let Some(stream) = stream_of(writer) else {
        debug_assert!(false, "Assert: stream is not undefined");
        return Ok(());
    };
    // 3. Assert: stream.[[writer]] is writer.
    // 4. Let releasedError be a new TypeError.
    let released_error = engine::type_error("The writer's lock was released", ctx);
    // 5. Perform ! WritableStreamDefaultWriterEnsureNewPromiseRejected(writer, releasedError).
    writable_stream_default_writer_ensure_ready_promise_rejected(
        writer,
        released_error.clone(),
        ctx,
    )?;
    // 6. Perform ! WritableStreamDefaultWriterEnsureClosedPromiseRejected(writer, releasedError).
    writable_stream_default_writer_ensure_closed_promise_rejected(writer, released_error, ctx)?;
    // 7. Set stream.[[writer]] to undefined.
    *stream.borrow().data().writer.borrow_mut() = None;
    // 8. Set writer.[[stream]] to undefined.
    *writer.borrow().data().stream.borrow_mut() = None;
    Ok(())
}

/// <https://streams.spec.whatwg.org/#writable-stream-default-writer-write>
///
/// Returns the promise `writer.write()` hands to script.
pub(crate) fn writable_stream_default_writer_write(
    writer: &Writer,
    chunk: Value,
    ctx: &mut Cx,
) -> JsResult<JsPromise> {
    let promise = PromiseCapability::new(ctx);
    writable_stream_default_writer_write_request(
        writer,
        Chunk::Value(chunk),
        WriteRequest::Promise(promise.clone()),
        ctx,
    )?;
    Ok(promise.promise().clone())
}

/// WritableStreamDefaultWriterWrite with the write request made by the caller: where the spec
/// returns "a promise rejected with" a reason, the request is rejected with it; where it returns
/// the promise from WritableStreamAddWriteRequest, the request is queued.
///
/// A chunk of Rust bytes stays Rust bytes only where the stream's controller takes them
/// ([`takes_native_bytes`]); elsewhere it becomes a `Uint8Array` here, before the size
/// algorithm could see it.
pub(crate) fn writable_stream_default_writer_write_request(
    writer: &Writer,
    chunk: Chunk,
    request: WriteRequest,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Let stream be writer.[[stream]].
    // 2. Assert: stream is not undefined.
    let Some(stream) = stream_of(writer) else {
        debug_assert!(false, "Assert: stream is not undefined");
        let error = engine::type_error("The writer has been released", ctx);
        return request.reject(error, ctx);
    };
    // 3. Let controller be stream.[[controller]].
    let Some(controller) = stream.controller() else {
        let error = engine::type_error("The stream has no controller", ctx);
        return request.reject(error, ctx);
    };
    // Rust bytes stay bytes only for a controller that takes them (the pipe, which writes them,
    // has made them a value already where it does not; this keeps that so for any caller).
    let chunk = match chunk {
        Chunk::Bytes(bytes) if !takes_native_bytes(&controller) => {
            Chunk::Value(Chunk::Bytes(bytes).into_value(ctx)?)
        }
        chunk => chunk,
    };
    // 4. Let chunkSize be ! WritableStreamDefaultControllerGetChunkSize(controller, chunk).
    let chunk_size = writable_stream_default_controller_get_chunk_size(&controller, &chunk, ctx)?;
    // 5. If stream is not equal to writer.[[stream]], return a promise rejected with a TypeError
    //    exception.
    if stream_of(writer).as_ref() != Some(&stream) {
        let error = engine::type_error("The writer's lock was released during write()", ctx);
        return request.reject(error, ctx);
    }
    // 6. Let state be stream.[[state]].
    let state = stream.state();
    // 7. If state is "errored", return a promise rejected with stream.[[storedError]].
    if state == WritableState::Errored {
        return request.reject(stream.stored_error(), ctx);
    }
    // 8. If ! WritableStreamCloseQueuedOrInFlight(stream) is true or state is "closed", return a
    //    promise rejected with a TypeError exception indicating that the stream is closing or
    //    closed.
    if writable_stream_close_queued_or_in_flight(&stream) || state == WritableState::Closed {
        let error = engine::type_error("The stream is closing or closed", ctx);
        return request.reject(error, ctx);
    }
    // 9. If state is "erroring", return a promise rejected with stream.[[storedError]].
    if state == WritableState::Erroring {
        return request.reject(stream.stored_error(), ctx);
    }
    // 10. Assert: state is "writable".
    // 11. Let promise be ! WritableStreamAddWriteRequest(stream).
    writable_stream_add_write_request(&stream, request);
    // 12. Perform ! WritableStreamDefaultControllerWrite(controller, chunk, chunkSize).
    writable_stream_default_controller_write(&controller, chunk, chunk_size, ctx)
    // 13. Return promise.
}
