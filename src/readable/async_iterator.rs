//! The `ReadableStream` async iterator: WebIDL's default asynchronous iterator object for an
//! `async_iterable<any>` declaration, with the Streams Standard's iterator steps.
//!
//! <https://streams.spec.whatwg.org/#rs-asynciterator> and
//! <https://webidl.spec.whatwg.org/#es-asynchronous-iterator-prototype-object>

use std::cell::Cell;

use crate::engine::{
    create_iter_result_object, js_string, Cx, JsPromise, JsResult, JsSymbol, Object,
    PropertyDescriptor, Slot, Value,
};

use super::{
    default_reader::{
        readable_stream_default_reader_read, readable_stream_default_reader_release, ReadRequest,
        ReadableStreamDefaultReader,
    },
    generic_reader::readable_stream_reader_generic_cancel,
    stream::{acquire_readable_stream_default_reader, ReadableStream},
    ReaderRef,
};
use crate::engine::{upon_settlement, PromiseResult};
use crate::{engine, engine::webidl, engine::PromiseCapability};

traced! {
    data;
    /// A default asynchronous iterator object for `ReadableStream`.
    #[derive(Debug)]
    pub(crate) struct ReadableStreamAsyncIterator {
        /// <https://streams.spec.whatwg.org/#readablestream-async-iterator-reader>
        reader: Object<ReadableStreamDefaultReader>,
        /// <https://streams.spec.whatwg.org/#readablestream-async-iterator-prevent-cancel>
        prevent_cancel: bool,
        /// WebIDL's ongoing promise.
        ongoing_promise: Slot<Option<JsPromise>>,
        /// WebIDL's is finished.
        is_finished: Cell<bool>,
        /// Set while "get the next iteration result" runs ReadableStreamDefaultReaderRead: the
        /// read request's steps that run inside it settle the spec's promise, and the reaction to
        /// it waits here until the read has returned (see [`get_the_next_iteration_result`]).
        reading: Cell<bool>,
        settled_in_read: Slot<Option<(NextOutcome, PromiseResult, PromiseCapability)>>,
    }
}

engine::traced_without_drop! {
/// How the read request settled the spec's promise: with a chunk, with end of iteration, or
/// with an error.
#[derive(Debug, Clone, Copy)]
enum NextOutcome {
    Chunk,
    End,
    Error,
}
}

impl webidl::Interface for ReadableStreamAsyncIterator {
    const NAME: &'static str = "ReadableStream AsyncIterator";
}

type Iter = Object<ReadableStreamAsyncIterator>;

traced! {
    data;
    /// The per-realm asynchronous iterator prototype object.
    #[derive(Debug)]
    struct AsyncIteratorPrototype(Object);
}

/// Creates the realm's `ReadableStream` async iterator prototype.
pub(crate) fn register(ctx: &mut Cx) -> JsResult<()> {
    let parent = engine::async_iterator_prototype(ctx);
    let proto = Object::with_null_proto(ctx);
    proto.set_prototype(Some(parent));
    for (name, length, f) in [
        ("next", 0, next as crate::engine::NativeFunctionPointer),
        ("return", 1, return_),
    ] {
        let func = webidl::function(ctx, name, length, f);
        proto.define_property_or_throw(
            js_string!(name),
            PropertyDescriptor::builder()
                .value(func)
                .writable(true)
                .enumerable(true)
                .configurable(true),
            ctx,
        )?;
    }
    proto.define_property_or_throw(
        JsSymbol::to_string_tag(),
        PropertyDescriptor::builder()
            .value(js_string!("ReadableStream AsyncIterator"))
            .writable(false)
            .enumerable(false)
            .configurable(true),
        ctx,
    )?;
    engine::set_realm_data(ctx, AsyncIteratorPrototype(proto));
    Ok(())
}

/// Creates a default asynchronous iterator for `stream` and runs the asynchronous iterator
/// initialization steps: <https://streams.spec.whatwg.org/#rs-get-iterator>.
pub(crate) fn create(
    stream: &Object<ReadableStream>,
    prevent_cancel: bool,
    ctx: &mut Cx,
) -> JsResult<Object> {
    let proto = engine::with_realm_data::<AsyncIteratorPrototype, _>(ctx, |p| p.0.clone())
        .ok_or_else(|| {
            engine::throw_type_error("ReadableStream is not registered in this realm")
        })?;
    // 1. Let reader be ? AcquireReadableStreamDefaultReader(stream).
    let reader = acquire_readable_stream_default_reader(stream, ctx)?;
    // 2. Set iterator's reader to reader.
    // 3. Let preventCancel be args[0]["preventCancel"].
    // 4. Set iterator's prevent cancel to preventCancel.
    let iterator = webidl::object_with_prototype(
        Some(proto),
        ReadableStreamAsyncIterator {
            reader,
            prevent_cancel,
            ongoing_promise: Slot::new(None),
            is_finished: Cell::new(false),
            reading: Cell::new(false),
            settled_in_read: Slot::new(None),
        },
        ctx,
    );
    Ok(iterator.upcast())
}

/// `%ReadableStreamAsyncIteratorPrototype%.next()`:
/// <https://webidl.spec.whatwg.org/#es-asynchronous-iterator-prototype-object>.
fn next(this: &Value, _: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    // 1–6. Validate this (a rejected promise if it is not a ReadableStream async iterator).
    let Ok(iterator) = webidl::this::<ReadableStreamAsyncIterator>(this) else {
        let e = engine::type_error("'this' is not a ReadableStream async iterator", ctx);
        return Ok(engine::promise_rejected_with(e, ctx)?.into());
    };
    // 8. Let ongoingPromise be object's ongoing promise.
    let ongoing = iterator.borrow().data().ongoing_promise.borrow().clone();
    let promise = match ongoing {
        // 9. If ongoingPromise is not null, then:
        Some(ongoing) => {
            // 9.1. Let afterOngoingPromiseCapability be ! NewPromiseCapability(%Promise%).
            let after = PromiseCapability::new(ctx);
            // 9.2–9.3. PerformPromiseThen(ongoingPromise, onSettled, onSettled,
            //          afterOngoingPromiseCapability), onSettled running nextSteps.
            engine::react(
                &ongoing,
                (iterator.clone(), after.clone()),
                |(iterator, after), _, ctx| {
                    let p = next_steps(iterator, ctx)?;
                    after.resolve(p.into(), ctx)
                },
                |(iterator, after), _, ctx| {
                    let p = next_steps(iterator, ctx)?;
                    after.resolve(p.into(), ctx)
                },
                ctx,
            )?;
            // 9.4. Set object's ongoing promise to afterOngoingPromiseCapability.[[Promise]].
            after.promise().clone()
        }
        // 10. Otherwise: Set object's ongoing promise to the result of running nextSteps.
        None => next_steps(&iterator, ctx)?,
    };
    *iterator.borrow().data().ongoing_promise.borrow_mut() = Some(promise.clone());
    // 11. Return object's ongoing promise.
    Ok(promise.into())
}

/// WebIDL's nextSteps for `next()`.
fn next_steps(iterator: &Iter, ctx: &mut Cx) -> JsResult<JsPromise> {
    // 1. Let nextPromiseCapability be ! NewPromiseCapability(%Promise%).
    let capability = PromiseCapability::new(ctx);
    let promise = capability.promise().clone();
    // 2. If object's is finished is true, then resolve with CreateIterResultObject(undefined,
    //    true) and return the promise.
    if iterator.borrow().data().is_finished.get() {
        let result = create_iter_result_object(Value::undefined(), true, ctx);
        capability.resolve(result, ctx)?;
        return Ok(promise);
    }
    // 4. Let nextPromise be the result of getting the next iteration result with object's
    //    target and object.
    // 5–9. React to nextPromise with fulfillSteps / rejectSteps, resolving
    //      nextPromiseCapability: done by the read request below.
    get_the_next_iteration_result(iterator, capability, ctx)?;
    // 10. Return nextPromiseCapability.[[Promise]].
    Ok(promise)
}

/// <https://streams.spec.whatwg.org/#rs-asynciterator-prototype-next>
///
/// The promise the spec returns here is only ever reacted to by WebIDL's `next()` (its steps
/// 5–9, once this returns); the read request carries that reaction (the capability of
/// `next()`'s promise) instead. Read request steps that run later react to the settled promise
/// when they run, as the reaction made earlier would; steps that run inside
/// ReadableStreamDefaultReaderRead (a queued chunk, a `pull()` that enqueues or closes, a
/// closed or errored stream) leave the promise in `settled_in_read`, and the reaction is made
/// here after the read, behind whatever the read queued (the pull promise's reaction, jobs a
/// `pull()` queued), as PerformPromiseThen on a settled promise would.
fn get_the_next_iteration_result(
    iterator: &Iter,
    next_capability: PromiseCapability,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Let reader be iterator's reader.
    let reader = iterator.borrow().data().reader.clone();
    // 2. Assert: reader.[[stream]] is not undefined.
    // 3. Let promise be a new promise.
    // 4. Let readRequest be a new read request (chunk, close and error steps below).
    let read_request = ReadRequest::AsyncIterator(iterator.clone(), next_capability);
    // 5. Perform ! ReadableStreamDefaultReaderRead(this, readRequest).
    let reading = iterator.borrow().data().reading.replace(true);
    let read = readable_stream_default_reader_read(&reader, read_request, ctx);
    let settled = {
        let data = iterator.borrow();
        data.data().reading.set(reading);
        let settled = data.data().settled_in_read.borrow_mut().take();
        settled
    };
    read?;
    // 6. Return promise. (WebIDL's next() reacts to it now.)
    match settled {
        Some((outcome, promise, next_capability)) => {
            react_to_next_promise(iterator.clone(), next_capability, outcome, promise, ctx)
        }
        None => Ok(()),
    }
}

/// The read request's steps have settled the spec's promise: WebIDL's `next()` reacts to it,
/// now or (inside the read) once the read has returned.
fn settled_next_promise(
    iterator: Iter,
    next_capability: PromiseCapability,
    outcome: NextOutcome,
    promise: PromiseResult,
    ctx: &mut Cx,
) -> JsResult<()> {
    {
        let data = iterator.borrow();
        if data.data().reading.get() {
            *data.data().settled_in_read.borrow_mut() = Some((outcome, promise, next_capability));
            return Ok(());
        }
    }
    react_to_next_promise(iterator, next_capability, outcome, promise, ctx)
}

/// WebIDL's `next()`, steps 5–9: react to nextPromise with fulfillSteps and rejectSteps,
/// resolving nextPromiseCapability.
fn react_to_next_promise(
    iterator: Iter,
    next_capability: PromiseCapability,
    outcome: NextOutcome,
    promise: PromiseResult,
    ctx: &mut Cx,
) -> JsResult<()> {
    upon_settlement(
        promise,
        (iterator, next_capability, outcome),
        |(iterator, next_capability, outcome), next, ctx| {
            // fulfillSteps, given next:
            let data = iterator.borrow();
            // 1. Set object's ongoing promise to null.
            *data.data().ongoing_promise.borrow_mut() = None;
            // 2. If next is end of iteration: set object's is finished to true and return
            //    CreateIterResultObject(undefined, true).
            let result = if matches!(outcome, NextOutcome::End) {
                data.data().is_finished.set(true);
                drop(data);
                create_iter_result_object(Value::undefined(), true, ctx)
            } else {
                drop(data);
                // 4. Return CreateIterResultObject(next, false).
                create_iter_result_object(next, false, ctx)
            };
            next_capability.resolve(result, ctx)
        },
        |(iterator, next_capability, _), reason, ctx| {
            reject_steps(iterator, next_capability, reason, ctx)
        },
        ctx,
    )
}

/// The iterator read request's chunk steps: "Resolve promise with chunk".
pub(crate) fn next_chunk_steps(
    iterator: Iter,
    next_capability: PromiseCapability,
    chunk: Value,
    ctx: &mut Cx,
) -> JsResult<()> {
    // Resolving the spec's promise with an object looks up `then` now; a thenable chunk is
    // adopted. Any other chunk fulfills it at once. (The promise is only reacted to, by
    // WebIDL's `next()`.)
    let promise = PromiseResult::resolved_with_for_reaction(chunk, ctx)?;
    settled_next_promise(iterator, next_capability, NextOutcome::Chunk, promise, ctx)
}

/// The iterator read request's close steps.
pub(crate) fn next_close_steps(
    iterator: Iter,
    next_capability: PromiseCapability,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Perform ! ReadableStreamDefaultReaderRelease(reader).
    let reader = iterator.borrow().data().reader.clone();
    readable_stream_default_reader_release(&reader, ctx)?;
    // 2. Resolve promise with end of iteration.
    let promise = PromiseResult::undefined();
    settled_next_promise(iterator, next_capability, NextOutcome::End, promise, ctx)
}

/// The iterator read request's error steps, given `e`.
pub(crate) fn next_error_steps(
    iterator: Iter,
    next_capability: PromiseCapability,
    e: Value,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Perform ! ReadableStreamDefaultReaderRelease(reader).
    let reader = iterator.borrow().data().reader.clone();
    readable_stream_default_reader_release(&reader, ctx)?;
    // 2. Reject promise with e.
    let promise = PromiseResult::Rejected(e);
    settled_next_promise(iterator, next_capability, NextOutcome::Error, promise, ctx)
}

/// WebIDL's rejectSteps for `next()`, given `reason`.
fn reject_steps(
    iterator: &Iter,
    next_capability: &PromiseCapability,
    reason: Value,
    ctx: &mut Cx,
) -> JsResult<()> {
    {
        let data = iterator.borrow();
        // 1. Set object's ongoing promise to null.
        *data.data().ongoing_promise.borrow_mut() = None;
        // 2. Set object's is finished to true.
        data.data().is_finished.set(true);
    }
    // 3. Throw reason.
    next_capability.reject(reason, ctx)
}

/// `%ReadableStreamAsyncIteratorPrototype%.return(value)`:
/// <https://webidl.spec.whatwg.org/#es-asynchronous-iterator-prototype-object>.
fn return_(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let value = args.first().cloned().unwrap_or_default();
    // 2. Let returnPromiseCapability be ! NewPromiseCapability(%Promise%).
    // 1–6. Validate this.
    let Ok(iterator) = webidl::this::<ReadableStreamAsyncIterator>(this) else {
        let e = engine::type_error("'this' is not a ReadableStream async iterator", ctx);
        return Ok(engine::promise_rejected_with(e, ctx)?.into());
    };
    let return_capability = PromiseCapability::new(ctx);
    // 8. Let ongoingPromise be object's ongoing promise.
    let ongoing = iterator.borrow().data().ongoing_promise.borrow().clone();
    let ongoing = match ongoing {
        // 9. If ongoingPromise is not null, then:
        Some(ongoing) => {
            let after = PromiseCapability::new(ctx);
            engine::react(
                &ongoing,
                (iterator.clone(), after.clone(), value.clone()),
                |(iterator, after, value), _, ctx| {
                    let p = return_steps(iterator, value.clone(), ctx)?;
                    after.resolve(p.into(), ctx)
                },
                |(iterator, after, value), _, ctx| {
                    let p = return_steps(iterator, value.clone(), ctx)?;
                    after.resolve(p.into(), ctx)
                },
                ctx,
            )?;
            after.promise().clone()
        }
        // 10. Otherwise: Set object's ongoing promise to the result of running returnSteps.
        None => return_steps(&iterator, value.clone(), ctx)?,
    };
    *iterator.borrow().data().ongoing_promise.borrow_mut() = Some(ongoing.clone());
    // 11–13. PerformPromiseThen(object's ongoing promise, onFulfilled, undefined,
    //        returnPromiseCapability), onFulfilled returning CreateIterResultObject(value, true).
    engine::react(
        &ongoing,
        (return_capability.clone(), value),
        |(capability, value), _, ctx| {
            let result = create_iter_result_object(value.clone(), true, ctx);
            capability.resolve(result, ctx)
        },
        |(capability, _), reason, ctx| capability.reject(reason, ctx),
        ctx,
    )?;
    // 14. Return returnPromiseCapability.[[Promise]].
    Ok(return_capability.promise().clone().into())
}

/// WebIDL's returnSteps for `return()`.
fn return_steps(iterator: &Iter, value: Value, ctx: &mut Cx) -> JsResult<JsPromise> {
    // 2. If object's is finished is true, then resolve with CreateIterResultObject(value, true).
    if iterator.borrow().data().is_finished.get() {
        let capability = PromiseCapability::new(ctx);
        let result = create_iter_result_object(value, true, ctx);
        capability.resolve(result, ctx)?;
        return Ok(capability.promise().clone());
    }
    // 3. Set object's is finished to true.
    iterator.borrow().data().is_finished.set(true);
    // 4. Return the result of running the asynchronous iterator return algorithm.
    asynchronous_iterator_return(iterator, value, ctx)
}

/// <https://streams.spec.whatwg.org/#rs-asynciterator-prototype-return>
fn asynchronous_iterator_return(iterator: &Iter, arg: Value, ctx: &mut Cx) -> JsResult<JsPromise> {
    // 1. Let reader be iterator's reader.
    let (reader, prevent_cancel) = {
        let data = iterator.borrow();
        (data.data().reader.clone(), data.data().prevent_cancel)
    };
    // 2. Assert: reader.[[stream]] is not undefined.
    // 3. Assert: reader.[[readRequests]] is empty.
    // 4. If iterator's prevent cancel is false:
    if !prevent_cancel {
        // 4.1. Let result be ! ReadableStreamReaderGenericCancel(reader, arg).
        let result =
            readable_stream_reader_generic_cancel(&ReaderRef::Default(reader.clone()), arg, ctx)?;
        // 4.2. Perform ! ReadableStreamDefaultReaderRelease(reader).
        readable_stream_default_reader_release(&reader, ctx)?;
        // 4.3. Return result.
        return Ok(result);
    }
    // 5. Perform ! ReadableStreamDefaultReaderRelease(reader).
    readable_stream_default_reader_release(&reader, ctx)?;
    // 6. Return a promise resolved with undefined.
    engine::promise_resolved_with(Value::undefined(), ctx)
}
