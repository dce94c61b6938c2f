//! The `ReadableStreamGenericReader` mixin: the slots, abstract operations and members shared by
//! the default reader and the BYOB reader.
//!
//! <https://streams.spec.whatwg.org/#generic-reader-mixin>

use crate::engine::{webidl, Cx, JsResult, Object, Slot, Value};

use super::{
    readable_stream_controller_release_steps,
    stream::{readable_stream_cancel, ReadableStream, StreamSlots, StreamState},
    ReaderRef,
};
use crate::engine::{self, PromiseCapability};

traced! {
    /// The mixin's internal slots.
    #[derive(Debug)]
    pub(crate) struct GenericReaderSlots {
        /// <https://streams.spec.whatwg.org/#readablestreamgenericreader-closedpromise>
        closed_promise: Slot<Option<PromiseCapability>>,
        /// <https://streams.spec.whatwg.org/#readablestreamgenericreader-stream>
        stream: Slot<Option<Object<ReadableStream>>>,
    }
}

impl GenericReaderSlots {
    /// Slots before ReadableStreamReaderGenericInitialize.
    pub(crate) fn new() -> Self {
        Self {
            closed_promise: Slot::new(None),
            stream: Slot::new(None),
        }
    }

    /// [[stream]].
    pub(crate) fn stream(&self) -> Option<Object<ReadableStream>> {
        self.stream.borrow().clone()
    }

    /// Runs `f` on [[stream]], borrowed in place (`f` must not run script).
    pub(crate) fn with_stream<R>(&self, f: impl FnOnce(&Object<ReadableStream>) -> R) -> Option<R> {
        self.stream.borrow().as_ref().map(f)
    }

    /// The [[closedPromise]] JS promise.
    pub(crate) fn closed_promise(&self) -> Option<crate::engine::JsPromise> {
        self.closed_promise
            .borrow()
            .as_ref()
            .map(|c| c.promise().clone())
    }

    fn closed_capability(&self) -> Option<PromiseCapability> {
        self.closed_promise.borrow().clone()
    }
}

/// A reader interface that includes the mixin.
pub(crate) trait GenericReader: webidl::Interface + Sized {
    /// The mixin's slots.
    fn generic(&self) -> &GenericReaderSlots;
    /// The reader as a stream's [[reader]].
    fn reader_ref(this: Object<Self>) -> ReaderRef;
}

/// Defines the mixin's members (`closed`, `cancel()`) on `T`'s interface prototype.
pub(crate) fn define_generic_reader<T: GenericReader>(b: &mut webidl::InterfaceBuilder<'_, '_>) {
    b.promise_attribute("closed", generic_reader_closed::<T>);
    b.promise_operation("cancel", 0, generic_reader_cancel::<T>);
}

/// <https://streams.spec.whatwg.org/#generic-reader-closed>
fn generic_reader_closed<T: GenericReader>(
    this: &Value,
    _: &[Value],
    _: &mut Cx,
) -> JsResult<Value> {
    let reader = webidl::this::<T>(this)?;
    // 1. Return this.[[closedPromise]].
    let promise = reader.borrow().data().generic().closed_promise();
    Ok(promise.map(Value::from).unwrap_or_default())
}

/// <https://streams.spec.whatwg.org/#generic-reader-cancel>
fn generic_reader_cancel<T: GenericReader>(
    this: &Value,
    args: &[Value],
    ctx: &mut Cx,
) -> JsResult<Value> {
    let reader = T::reader_ref(webidl::this::<T>(this)?);
    let reason = webidl::arg(args, 0);
    // 1. If this.[[stream]] is undefined, return a promise rejected with a TypeError exception.
    if with_slots(&reader, GenericReaderSlots::stream).is_none() {
        let e = engine::type_error("The reader is not attached to a stream", ctx);
        return Ok(engine::promise_rejected_with(e, ctx)?.into());
    }
    // 2. Return ! ReadableStreamReaderGenericCancel(this, reason).
    Ok(readable_stream_reader_generic_cancel(&reader, reason, ctx)?.into())
}

/// Runs `f` on the generic slots of `reader`.
pub(crate) fn with_slots<R>(reader: &ReaderRef, f: impl FnOnce(&GenericReaderSlots) -> R) -> R {
    match reader {
        ReaderRef::Default(r) => f(&r.borrow().data().generic),
        ReaderRef::Byob(r) => f(&r.borrow().data().generic),
    }
}

/// Resolves reader.[[closedPromise]] with undefined (ReadableStreamClose step 5).
pub(crate) fn resolve_closed_promise(reader: &ReaderRef, ctx: &mut Cx) -> JsResult<()> {
    match with_slots(reader, GenericReaderSlots::closed_capability) {
        Some(closed) => closed.resolve(Value::undefined(), ctx),
        None => Ok(()),
    }
}

/// Rejects reader.[[closedPromise]] with `e` and marks it handled (ReadableStreamError steps 6–7).
pub(crate) fn reject_closed_promise(reader: &ReaderRef, e: Value, ctx: &mut Cx) -> JsResult<()> {
    if let Some(closed) = with_slots(reader, GenericReaderSlots::closed_capability) {
        closed.reject(e, ctx)?;
        engine::mark_as_handled(closed.promise(), ctx)?;
    }
    Ok(())
}

/// <https://streams.spec.whatwg.org/#readable-stream-reader-generic-cancel>
pub(crate) fn readable_stream_reader_generic_cancel(
    reader: &ReaderRef,
    reason: Value,
    ctx: &mut Cx,
) -> JsResult<crate::engine::JsPromise> {
    // 1. Let stream be reader.[[stream]].
    // 2. Assert: stream is not undefined.
    let Some(stream) = with_slots(reader, GenericReaderSlots::stream) else {
        debug_assert!(false, "Assert: stream is not undefined");
        let e = engine::type_error("The reader is not attached to a stream", ctx);
        return engine::promise_rejected_with(e, ctx);
    };
    // 3. Return ! ReadableStreamCancel(stream, reason).
    readable_stream_cancel(&stream, reason, ctx)
}

/// <https://streams.spec.whatwg.org/#readable-stream-reader-generic-initialize>
pub(crate) fn readable_stream_reader_generic_initialize(
    reader: &ReaderRef,
    stream: &Object<ReadableStream>,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Set reader.[[stream]] to stream.
    with_slots(reader, |s| *s.stream.borrow_mut() = Some(stream.clone()));
    // 2. Set stream.[[reader]] to reader.
    stream.set_reader(Some(reader.clone()));
    let closed = PromiseCapability::new(ctx);
    match stream.state() {
        // 3. If stream.[[state]] is "readable",
        //    set reader.[[closedPromise]] to a new promise.
        StreamState::Readable => {}
        // 4. Otherwise, if stream.[[state]] is "closed",
        //    set reader.[[closedPromise]] to a promise resolved with undefined.
        StreamState::Closed => closed.resolve(Value::undefined(), ctx)?,
        // 5. Otherwise,
        StreamState::Errored => {
            // 5.1. Assert: stream.[[state]] is "errored".
            // 5.2. Set reader.[[closedPromise]] to a promise rejected with stream.[[storedError]].
            closed.reject(stream.stored_error(), ctx)?;
            // 5.3. Set reader.[[closedPromise]].[[PromiseIsHandled]] to true.
            engine::mark_as_handled(closed.promise(), ctx)?;
        }
    }
    with_slots(reader, |s| *s.closed_promise.borrow_mut() = Some(closed));
    Ok(())
}

/// <https://streams.spec.whatwg.org/#readable-stream-reader-generic-release>
pub(crate) fn readable_stream_reader_generic_release(
    reader: &ReaderRef,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Let stream be reader.[[stream]].
    // 2. Assert: stream is not undefined.
    // AD-HOC: the Assert is reachable through an async iterator: WebIDL's `next()` fulfill
    // steps set the iterator's ongoing promise to null even when a later `next()` has chained
    // on it, so a third `next()` can start a read while the second's is pending; when the
    // stream closes, the first read request's close steps release the reader, whose release
    // errors the second request, whose error steps release it again. (The reference reaches
    // the same Assert: stream-diff class reference-assertion.) The second release does
    // nothing.
    let Some(stream) = with_slots(reader, GenericReaderSlots::stream) else {
        return Ok(());
    };
    // 3. Assert: stream.[[reader]] is reader.
    let e = engine::type_error("The reader's lock was released", ctx);
    // 4. If stream.[[state]] is "readable", reject reader.[[closedPromise]] with a TypeError.
    let closed = if stream.state() == StreamState::Readable {
        match with_slots(reader, GenericReaderSlots::closed_capability) {
            Some(closed) => closed,
            None => PromiseCapability::new(ctx),
        }
    } else {
        // 5. Otherwise, set reader.[[closedPromise]] to a promise rejected with a TypeError.
        let closed = PromiseCapability::new(ctx);
        with_slots(reader, |s| {
            *s.closed_promise.borrow_mut() = Some(closed.clone());
        });
        closed
    };
    closed.reject(e, ctx)?;
    // 6. Set reader.[[closedPromise]].[[PromiseIsHandled]] to true.
    engine::mark_as_handled(closed.promise(), ctx)?;
    // 7. Perform ! stream.[[controller]].[[ReleaseSteps]]().
    if let Some(controller) = stream.controller() {
        readable_stream_controller_release_steps(&controller);
    }
    // 8. Set stream.[[reader]] to undefined.
    stream.set_reader(None);
    // 9. Set reader.[[stream]] to undefined.
    with_slots(reader, |s| *s.stream.borrow_mut() = None);
    Ok(())
}
