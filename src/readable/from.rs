//! ReadableStreamFromIterable, with WebIDL's async sequence operations and
//! CreateAsyncFromSyncIterator done by hand (Boa keeps its iterator helpers crate-private).
//!
//! <https://streams.spec.whatwg.org/#readable-stream-from-iterable>

use crate::engine::{
    create_iter_result_object, js_string, webidl, Cx, JsError, JsPromise, JsResult, JsSymbol,
    Object, PropertyKey, Shared, Slot, Trace, Value,
};

use super::{
    default_controller::{
        readable_stream_default_controller_close, readable_stream_default_controller_enqueue,
        readable_stream_default_controller_error, CancelAlgorithm, PullAlgorithm, StartAlgorithm,
    },
    other_specs::{NativeSource, NativeUnderlyingSource},
    stream::{create_readable_stream, ReadableStream, StreamSlots},
};
use crate::engine::{reject_adopted, resolve_adopted, upon_settlement, PromiseResult};
use crate::{
    engine::internal_promise::InternalPromise,
    engine::{self, PromiseCapability},
};

traced_without_drop! {
/// An iterator record for an opened async sequence: an async iterator, or a sync iterator seen
/// through CreateAsyncFromSyncIterator.
#[derive(Debug)]
enum AsyncIteratorRecord {
    /// An async iterator: [[Iterator]] and [[NextMethod]].
    Async { iterator: Object, next: Value },
    /// CreateAsyncFromSyncIterator(syncIteratorRecord).
    FromSync { iterator: Object, next: Value },
}
}

traced! {
    /// The variables ReadableStreamFromIterable's algorithms close over.
    #[derive(Debug)]
    pub(crate) struct FromState {
        stream: Slot<Option<Object<ReadableStream>>>,
        iterator: AsyncIteratorRecord,
    }
}

impl FromState {
    fn controller(&self) -> Option<Object<super::ReadableStreamDefaultController>> {
        let stream = self.stream.borrow().clone()?;
        stream.controller().and_then(|c| c.as_default())
    }
}

/// GetMethod(V, P) (<https://tc39.es/ecma262/#sec-getmethod>) on an object: undefined and null
/// are absent; anything else must be callable.
fn get_method(
    object: &Object,
    key: impl Into<PropertyKey>,
    ctx: &mut Cx,
) -> JsResult<Option<Object>> {
    let func = object.get(key, ctx)?;
    if func.is_null_or_undefined() {
        return Ok(None);
    }
    match func.as_callable() {
        Some(f) => Ok(Some(f.clone())),
        None => Err(engine::throw_type_error(
            "The iterator method is not callable",
        )),
    }
}

/// GetIteratorFromMethod(obj, method): the iterator and its `next` method.
fn get_iterator_from_method(
    obj: &Object,
    method: &Object,
    ctx: &mut Cx,
) -> JsResult<(Object, Value)> {
    let iterator = crate::engine::call_object(method, &obj.clone().into(), &[], ctx)?;
    let Some(iterator) = iterator.as_object() else {
        return Err(engine::throw_type_error(
            "The iterator method did not return an object",
        ));
    };
    let next = iterator.get(js_string!("next"), ctx)?;
    Ok((iterator, next))
}

/// An IDL `async_sequence<any>` value: the object, its iterator method, and whether that
/// method is `@@asyncIterator` ("async") or `@@iterator` ("sync").
struct AsyncSequence {
    object: Object,
    method: Object,
    is_sync: bool,
}

/// Converts a JavaScript value to an IDL `async_sequence<any>`
/// (<https://webidl.spec.whatwg.org/#js-to-async-iterable>).
fn to_async_sequence(value: &Value, ctx: &mut Cx) -> JsResult<AsyncSequence> {
    // 1. If V is not an Object, then throw a TypeError. (A string is a primitive: since
    //    whatwg/streams 2999707 `ReadableStream.from('ab')` throws.)
    let Some(object) = value.as_object() else {
        return Err(engine::throw_type_error(
            "ReadableStream.from() needs an async iterable or iterable object",
        ));
    };
    // 2. Let method be ? GetMethod(obj, %Symbol.asyncIterator%).
    if let Some(method) = get_method(&object, JsSymbol::async_iterator(), ctx)? {
        // 4. Return an IDL async sequence value with object V, method method, type "async".
        return Ok(AsyncSequence {
            object,
            method,
            is_sync: false,
        });
    }
    // 3. If method is undefined:
    // 3.1. Set syncMethod to ? GetMethod(obj, %Symbol.iterator%).
    // 3.2. If syncMethod is undefined, throw a TypeError.
    let Some(method) = get_method(&object, JsSymbol::iterator(), ctx)? else {
        return Err(engine::throw_type_error(
            "ReadableStream.from() needs an async iterable or iterable object",
        ));
    };
    // 3.3. Return an IDL async sequence value with object V, method syncMethod, type "sync".
    Ok(AsyncSequence {
        object,
        method,
        is_sync: true,
    })
}

/// <https://webidl.spec.whatwg.org/#async-sequence-open>
fn open_async_sequence(sequence: &AsyncSequence, ctx: &mut Cx) -> JsResult<AsyncIteratorRecord> {
    // 1. Let iterator be ? GetIteratorFromMethod(sequence's object, sequence's method).
    let (iterator, next) = get_iterator_from_method(&sequence.object, &sequence.method, ctx)?;
    // 2. If sequence's type is "sync", set iterator to CreateAsyncFromSyncIterator(iterator).
    // 3. Return an async iterator value with underlying record iterator.
    Ok(if sequence.is_sync {
        AsyncIteratorRecord::FromSync { iterator, next }
    } else {
        AsyncIteratorRecord::Async { iterator, next }
    })
}

/// <https://streams.spec.whatwg.org/#readable-stream-from-iterable>
pub(crate) fn readable_stream_from_iterable(
    async_iterable: Value,
    ctx: &mut Cx,
) -> JsResult<Object<ReadableStream>> {
    // 1. Let stream be undefined.
    // (The argument conversion of `from(async_sequence<any> asyncIterable)`.)
    let sequence = to_async_sequence(&async_iterable, ctx)?;
    // 2. Let iterator be the result of opening an async sequence asyncIterable.
    let iterator = open_async_sequence(&sequence, ctx)?;
    let state = Shared::new(FromState {
        stream: Slot::new(None),
        iterator,
    });
    // 3. Let startAlgorithm be an algorithm that returns undefined.
    // 4. Let pullAlgorithm be the following steps: (see `pull_algorithm`)
    // 5. Let cancelAlgorithm be the following steps, given reason: (see `cancel_algorithm`)
    // 6. Set stream to ! CreateReadableStream(startAlgorithm, pullAlgorithm, cancelAlgorithm, 0).
    let source = NativeSource::new(&webidl::internal_object(FromSource(state.clone()), ctx));
    let stream = create_readable_stream(
        StartAlgorithm::ReturnUndefined,
        PullAlgorithm::Native(source.clone()),
        CancelAlgorithm::Native(source),
        Some(0.0),
        None,
        ctx,
    )?;
    *state.stream.borrow_mut() = Some(stream.clone());
    // 7. Return stream.
    Ok(stream)
}

traced_without_drop! {
/// The outcome of "get an async iterator next value" once its promise settles.
#[derive(Debug, Clone)]
enum NextValue {
    Value(Value),
    EndOfIteration,
    Rejected(Value),
}
}

traced! {
    data;
    /// The stream's underlying source: ReadableStreamFromIterable's pullAlgorithm and
    /// cancelAlgorithm.
    struct FromSource(Shared<FromState>);
}

impl NativeUnderlyingSource for FromSource {
    fn pull(this: &Object<Self>, _: Value, ctx: &mut Cx) -> JsResult<PromiseResult> {
        let state = this.borrow().data().0.clone();
        pull_algorithm(&state, ctx)
    }

    fn cancel(this: &Object<Self>, reason: Value, ctx: &mut Cx) -> JsResult<PromiseResult> {
        let state = this.borrow().data().0.clone();
        cancel_algorithm(&state, reason, ctx)
    }
}

/// ReadableStreamFromIterable's pullAlgorithm.
fn pull_algorithm(state: &Shared<FromState>, ctx: &mut Cx) -> JsResult<PromiseResult> {
    // 1. Let nextPromise be the result of getting the next value of iterator
    //    (<https://webidl.spec.whatwg.org/#async-iterator-get-next-value>):
    //    nextResult = IteratorNext(iteratorRecord); abrupt -> a promise rejected with it;
    //    otherwise a promise resolved with nextResult.[[Value]], reacted to below.
    let next_result = match &state.iterator {
        AsyncIteratorRecord::Async { iterator, next } => {
            // (A result that is not an object fulfills nextPromise, and the fulfillment steps
            // throw the TypeError.)
            engine::call(next, &iterator.clone().into(), &[], ctx).map(IteratorPromise::Value)
        }
        AsyncIteratorRecord::FromSync { iterator, next } => {
            Ok(async_from_sync_iterator_next(iterator, next, ctx)?)
        }
    };
    let next_promise = match next_result {
        Ok(promise) => promise_resolved_with_iterator_promise(promise, ctx)?,
        Err(e) => {
            // If nextResult is an abrupt completion, "get the next value" returns a promise
            // rejected with it (no reaction of its own): step 2's reaction errors the stream
            // one job from now.
            let reason = engine::thrown_value(e, ctx)?;
            let pull_promise = InternalPromise::new();
            let (state, pulled) = (state.clone(), pull_promise.clone());
            engine::queue_microtask(ctx, move |ctx| {
                finish_pull(&state, &pulled, NextValue::Rejected(reason), ctx)
            });
            return Ok(PromiseResult::Internal(pull_promise));
        }
    };
    react_to_next_promise(state, next_promise, ctx)
}

/// What an iterator method (`next()`, `return()`) returned: any value, or the promise of
/// `%AsyncFromSyncIteratorPrototype%` as a Rust promise where no script can tell the
/// difference (see [`async_from_sync_iterator_continuation`]).
enum IteratorPromise {
    Value(Value),
    Internal(InternalPromise),
}

/// <https://webidl.spec.whatwg.org/#a-promise-resolved-with> the result of an iterator method.
///
/// Resolving with a promise reads its `then` and queues NewPromiseResolveThenableJob, whose
/// `then` call is PerformPromiseThen(promise, resolve, reject). Where that promise is a Rust
/// one, or a JS one [`engine::untouched_promise`] vouches for (its `then` and species lookups
/// reach only the originals), the job is a Rust microtask reacting to it, and the new promise a
/// Rust promise: the same jobs in the same order, and the fulfillment still reads the value's
/// `then`.
fn promise_resolved_with_iterator_promise(
    promise: IteratorPromise,
    ctx: &mut Cx,
) -> JsResult<PromiseResult> {
    let promise = match promise {
        // (A JS promise untouched_promise vouches for is adopted the same way there.)
        IteratorPromise::Value(value) => {
            return PromiseResult::resolved_with_for_reaction(value, ctx)
        }
        IteratorPromise::Internal(promise) => promise,
    };
    let adopted = InternalPromise::new();
    let resolved_by = adopted.clone();
    // The job calls the `then` of a fresh promise (the original) on the Rust promise, whose
    // SpeciesConstructor is read when the job runs: script may have decorated %Promise% in
    // between, and then the lookups are made as the spec makes them.
    engine::queue_microtask(ctx, move |ctx| {
        if !engine::species_lookup_is_intrinsic(None, ctx) {
            if let Err(error) = engine::species_lookups_of_fresh_promise(ctx) {
                let reason = engine::thrown_value(error, ctx)?;
                resolved_by.reject(reason, ctx);
                return Ok(());
            }
        }
        promise.react(resolved_by, resolve_adopted, reject_adopted, ctx);
        Ok(())
    });
    Ok(PromiseResult::Internal(adopted))
}

/// ReadableStreamFromIterable's pullAlgorithm, step 2.
fn react_to_next_promise(
    state: &Shared<FromState>,
    next_promise: PromiseResult,
    ctx: &mut Cx,
) -> JsResult<PromiseResult> {
    // 2. Return the result of reacting to nextPromise. The pull promise is internal: only the
    //    controller reacts to it, and it settles after the enqueue/close/error below.
    let pull_promise = InternalPromise::new();
    upon_settlement(
        next_promise,
        (state.clone(), pull_promise.clone()),
        |(state, pull_promise), iter_result, ctx| {
            // Fulfillment steps of "get the next value", given iterResult:
            let outcome = match next_value_from_iter_result(&iter_result, ctx) {
                Ok(v) => v,
                Err(e) => NextValue::Rejected(engine::thrown_value(e, ctx)?),
            };
            settle_next_promise(state.clone(), pull_promise.clone(), outcome, ctx)
        },
        |(state, pull_promise), r, ctx| {
            settle_next_promise(
                state.clone(),
                pull_promise.clone(),
                NextValue::Rejected(r),
                ctx,
            )
        },
        ctx,
    )?;
    Ok(PromiseResult::Internal(pull_promise))
}

/// "Get the next value" returns the result of reacting to a promise: its fulfillment steps
/// return the value, which resolves that derived promise (the nextPromise of
/// ReadableStreamFromIterable). A non-object fulfills it at once, so the pull algorithm's
/// reaction runs one microtask later; an object has its `then` read, and a thenable is adopted
/// (its `then` called in a later job) before the reaction sees the value it settles with.
fn settle_next_promise(
    state: Shared<FromState>,
    pull_promise: InternalPromise,
    outcome: NextValue,
    ctx: &mut Cx,
) -> JsResult<()> {
    match outcome {
        NextValue::Value(value) if value.is_object() => {
            let next_promise = InternalPromise::new();
            next_promise.resolve(value, ctx)?;
            next_promise.react(
                (state, pull_promise),
                |(state, pull_promise), v, ctx| {
                    finish_pull(state, pull_promise, NextValue::Value(v), ctx)
                },
                |(state, pull_promise), r, ctx| {
                    finish_pull(state, pull_promise, NextValue::Rejected(r), ctx)
                },
                ctx,
            );
        }
        outcome => {
            engine::queue_microtask(ctx, move |ctx| {
                finish_pull(&state, &pull_promise, outcome, ctx)
            });
        }
    }
    Ok(())
}

/// Fulfillment steps of "get an async iterator next value", given iterResult.
fn next_value_from_iter_result(iter_result: &Value, ctx: &mut Cx) -> JsResult<NextValue> {
    // 1. If iterResult is not an Object, throw a TypeError.
    let Some(obj) = iter_result.as_object() else {
        return Err(engine::throw_type_error(
            "The iterator result is not an object",
        ));
    };
    // 2. Let done be ? IteratorComplete(iterResult).
    let done = engine::iterator_complete(&obj, ctx)?;
    // 3. If done is true, return end of iteration.
    if done {
        return Ok(NextValue::EndOfIteration);
    }
    // 4. Return ? IteratorValue(iterResult).
    Ok(NextValue::Value(engine::iterator_value(&obj, ctx)?))
}

/// ReadableStreamFromIterable's pullAlgorithm step 2: the reaction to nextPromise.
fn finish_pull(
    state: &Shared<FromState>,
    pull_promise: &InternalPromise,
    outcome: NextValue,
    ctx: &mut Cx,
) -> JsResult<()> {
    if let Some(controller) = state.controller() {
        match outcome {
            // If nextPromise was fulfilled with value v:
            // 1. If v is end of iteration, perform !
            //    ReadableStreamDefaultControllerClose(stream.[[controller]]).
            NextValue::EndOfIteration => {
                readable_stream_default_controller_close(&controller, ctx)?;
            }
            // 2. Otherwise, perform ! ReadableStreamDefaultControllerEnqueue(
            //    stream.[[controller]], v).
            NextValue::Value(v) => {
                if let Err(e) = readable_stream_default_controller_enqueue(&controller, v, ctx) {
                    engine::thrown_value(e, ctx)?;
                }
            }
            // If nextPromise was rejected with reason r, perform !
            // ReadableStreamDefaultControllerError(stream.[[controller]], r).
            NextValue::Rejected(r) => {
                readable_stream_default_controller_error(&controller, r, ctx)?;
            }
        }
    }
    pull_promise.resolve(Value::undefined(), ctx)
}

/// ReadableStreamFromIterable's cancelAlgorithm, given `reason`: "close an async iterator"
/// (<https://webidl.spec.whatwg.org/#async-iterator-close>).
fn cancel_algorithm(
    state: &Shared<FromState>,
    reason: Value,
    ctx: &mut Cx,
) -> JsResult<PromiseResult> {
    let return_result = match &state.iterator {
        AsyncIteratorRecord::Async { iterator, .. } => {
            let iterator_value: Value = iterator.clone().into();
            // 2. Let returnMethod be GetMethod(iterator, "return").
            // 3. If returnMethod is an abrupt completion, return a promise rejected with
            //    returnMethod.[[Value]].
            let return_method = match get_method(iterator, js_string!("return"), ctx) {
                Ok(m) => m,
                Err(e) => return Ok(PromiseResult::Rejected(engine::thrown_value(e, ctx)?)),
            };
            // 4. If returnMethod is undefined, return a promise resolved with undefined.
            let Some(return_method) = return_method else {
                return Ok(PromiseResult::undefined());
            };
            // 5. Let returnResult be Call(returnMethod.[[Value]], iterator, « reason »).
            // 6. If returnResult is an abrupt completion, return a promise rejected with
            //    returnResult.[[Value]].
            match crate::engine::call_object(&return_method, &iterator_value, &[reason], ctx) {
                Ok(v) => IteratorPromise::Value(v),
                Err(e) => return Ok(PromiseResult::Rejected(engine::thrown_value(e, ctx)?)),
            }
        }
        AsyncIteratorRecord::FromSync { iterator, .. } => {
            async_from_sync_iterator_return(iterator, reason, ctx)?
        }
    };
    // 7. Let returnPromise be a promise resolved with returnResult.[[Value]].
    let return_promise = promise_resolved_with_iterator_promise(return_result, ctx)?;
    // 8. Return the result of reacting to returnPromise with the following fulfillment steps,
    //    given returnPromiseResult:
    let result = PromiseCapability::new(ctx);
    upon_settlement(
        return_promise,
        result.clone(),
        |result, return_promise_result, ctx| {
            // 8.1. If returnPromiseResult is not an Object, throw a TypeError.
            if !return_promise_result.is_object() {
                let e = engine::type_error("The iterator's return() did not give an object", ctx);
                return result.reject(e, ctx);
            }
            // 8.2. Return undefined.
            result.resolve(Value::undefined(), ctx)
        },
        |result, reason, ctx| result.reject(reason, ctx),
        ctx,
    )?;
    Ok(PromiseResult::Promise(result.promise().clone()))
}

/// A promise rejected with `error`, as IfAbruptRejectPromise leaves promiseCapability.
fn rejected_iterator_promise(error: JsError, ctx: &mut Cx) -> JsResult<IteratorPromise> {
    let capability = PromiseCapability::new(ctx);
    capability.reject(engine::thrown_value(error, ctx)?, ctx)?;
    Ok(IteratorPromise::Value(capability.promise().clone().into()))
}

/// `%AsyncFromSyncIteratorPrototype%.next()` called with no value.
fn async_from_sync_iterator_next(
    sync_iterator: &Object,
    next: &Value,
    ctx: &mut Cx,
) -> JsResult<IteratorPromise> {
    // 3. Let promiseCapability be ! NewPromiseCapability(%Promise%). (Made where it is first
    //    needed: making it runs no script.)
    // 5. Let result be Completion(IteratorNext(syncIteratorRecord)).
    // 6. IfAbruptRejectPromise(result, promiseCapability).
    let result = match engine::call(next, &sync_iterator.clone().into(), &[], ctx) {
        Ok(v) => match v.as_object() {
            Some(o) => o.clone(),
            None => {
                let e = engine::throw_type_error("The iterator's next() did not return an object");
                return rejected_iterator_promise(e, ctx);
            }
        },
        Err(e) => return rejected_iterator_promise(e, ctx),
    };
    // 7. Return AsyncFromSyncIteratorContinuation(result, promiseCapability,
    //    syncIteratorRecord, true).
    async_from_sync_iterator_continuation(&result, sync_iterator, true, ctx)
}

/// `%AsyncFromSyncIteratorPrototype%.return(value)`.
fn async_from_sync_iterator_return(
    sync_iterator: &Object,
    value: Value,
    ctx: &mut Cx,
) -> JsResult<IteratorPromise> {
    // 3. Let promiseCapability be ! NewPromiseCapability(%Promise%).
    let capability = PromiseCapability::new(ctx);
    let iterator_value: Value = sync_iterator.clone().into();
    // 5. Let return be Completion(GetMethod(syncIterator, "return")).
    // 6. IfAbruptRejectPromise(return, promiseCapability).
    let return_method = match get_method(sync_iterator, js_string!("return"), ctx) {
        Ok(m) => m,
        Err(e) => {
            capability.reject(engine::thrown_value(e, ctx)?, ctx)?;
            return Ok(IteratorPromise::Value(capability.promise().clone().into()));
        }
    };
    // 7. If return is undefined, then
    let Some(return_method) = return_method else {
        // 7.1. Let iteratorResult be CreateIteratorResultObject(value, true).
        let result = create_iter_result_object(value, true, ctx);
        // 7.2. Perform ! Call(promiseCapability.[[Resolve]], undefined, « iteratorResult »).
        capability.resolve(result, ctx)?;
        // 7.3. Return promiseCapability.[[Promise]].
        return Ok(IteratorPromise::Value(capability.promise().clone().into()));
    };
    // 8. Let result be Completion(Call(return, syncIterator, « value »)).
    // 9. IfAbruptRejectPromise(result, promiseCapability).
    let result = match crate::engine::call_object(&return_method, &iterator_value, &[value], ctx) {
        Ok(r) => r,
        Err(e) => {
            capability.reject(engine::thrown_value(e, ctx)?, ctx)?;
            return Ok(IteratorPromise::Value(capability.promise().clone().into()));
        }
    };
    // 10. If result is not an Object, then reject with a TypeError.
    let Some(result) = result.as_object() else {
        let e = engine::type_error("The iterator's return() did not return an object", ctx);
        capability.reject(e, ctx)?;
        return Ok(IteratorPromise::Value(capability.promise().clone().into()));
    };
    // 11. Return AsyncFromSyncIteratorContinuation(result, promiseCapability,
    //     syncIteratorRecord, false).
    async_from_sync_iterator_continuation(&result, sync_iterator, false, ctx)
}

/// IteratorClose(iteratorRecord, completion) for a throw completion: calls `return` if there is
/// one, ignoring its outcome; the original error wins.
fn iterator_close_on_throw(iterator: &Object, ctx: &mut Cx) -> JsResult<()> {
    let iterator_value: Value = iterator.clone().into();
    if let Ok(Some(return_method)) = get_method(iterator, js_string!("return"), ctx) {
        if let Err(e) = crate::engine::call_object(&return_method, &iterator_value, &[], ctx) {
            // Only uncatchable errors propagate.
            engine::thrown_value(e, ctx)?;
        }
    }
    Ok(())
}

traced! {
    /// Captured by the continuation's reactions: promiseCapability (a JS one, or a Rust promise
    /// where script cannot see it), the sync iterator, done and closeOnRejection.
    struct Continuation<P: Trace + 'static> {
        capability: P,
        sync_iterator: Object,
        done: bool,
        close_on_rejection: bool,
    }
}

impl<P: Trace + 'static> Continuation<P> {
    /// 10–12. onRejected: close the sync iterator first when done is false and
    /// closeOnRejection is true; the error rejects promiseCapability.
    fn close_on_rejection(&self, ctx: &mut Cx) -> JsResult<()> {
        if !self.done && self.close_on_rejection {
            iterator_close_on_throw(&self.sync_iterator, ctx)?;
        }
        Ok(())
    }
}

/// AsyncFromSyncIteratorContinuation(result, promiseCapability, syncIteratorRecord,
/// closeOnRejection) (<https://tc39.es/ecma262/#sec-asyncfromsynciteratorcontinuation>).
///
/// When the value is not a promise and a fresh promise's `then` is the original (see
/// [`engine::fresh_promise_then_is_intrinsic`]), script never sees promiseCapability or
/// valueWrapper: both are [`InternalPromise`]s, which read `then` and adopt thenables as JS
/// promises do, and onFulfilled / onRejected are Rust reactions.
fn async_from_sync_iterator_continuation(
    result: &Object,
    sync_iterator: &Object,
    close_on_rejection: bool,
    ctx: &mut Cx,
) -> JsResult<IteratorPromise> {
    // 1. Let done be Completion(IteratorComplete(result)).
    // 2. IfAbruptRejectPromise(done, promiseCapability).
    let done = match engine::iterator_complete(result, ctx) {
        Ok(d) => d,
        Err(e) => return rejected_iterator_promise(e, ctx),
    };
    // 3. Let value be Completion(IteratorValue(result)).
    // 4. IfAbruptRejectPromise(value, promiseCapability).
    let value = match engine::iterator_value(result, ctx) {
        Ok(v) => v,
        Err(e) => return rejected_iterator_promise(e, ctx),
    };
    if !engine::is_promise(&value) && engine::fresh_promise_then_is_intrinsic(ctx) {
        // 5. Let valueWrapper be PromiseResolve(%Promise%, value): value is not a promise, so
        //    a new promise resolved with it (reading an object's `then`, adopting a thenable);
        //    it cannot throw.
        let value_wrapper = InternalPromise::new();
        value_wrapper.resolve(value, ctx)?;
        // 8–12. onFulfilled resolves promiseCapability with CreateIteratorResultObject(v,
        //       done) (reading its `then`); onRejected closes, then rejects.
        // 13. Perform PerformPromiseThen(valueWrapper, onFulfilled, onRejected,
        //     promiseCapability).
        let capability = InternalPromise::new();
        value_wrapper.react(
            Continuation {
                capability: capability.clone(),
                sync_iterator: sync_iterator.clone(),
                done,
                close_on_rejection,
            },
            |c, v, ctx| {
                let iter_result = create_iter_result_object(v, c.done, ctx);
                c.capability.resolve(iter_result, ctx)
            },
            |c, error, ctx| {
                c.close_on_rejection(ctx)?;
                c.capability.reject(error, ctx);
                Ok(())
            },
            ctx,
        );
        // 14. Return promiseCapability.[[Promise]].
        return Ok(IteratorPromise::Internal(capability));
    }
    // 5. Let valueWrapper be Completion(PromiseResolve(%Promise%, value)) (reading a
    //    promise's `constructor`).
    let value_wrapper = match JsPromise::resolve(value, ctx) {
        Ok(w) => w,
        Err(e) => {
            // 6. If valueWrapper is an abrupt completion, done is false, and closeOnRejection
            //    is true, then set valueWrapper to Completion(IteratorClose(syncIteratorRecord,
            //    valueWrapper)).
            let reason = engine::thrown_value(e, ctx)?;
            if !done && close_on_rejection {
                iterator_close_on_throw(sync_iterator, ctx)?;
            }
            // 7. IfAbruptRejectPromise(valueWrapper, promiseCapability).
            let capability = PromiseCapability::new(ctx);
            capability.reject(reason, ctx)?;
            return Ok(IteratorPromise::Value(capability.promise().clone().into()));
        }
    };
    let capability = PromiseCapability::new(ctx);
    let promise = capability.promise().clone();
    // 8–12. onFulfilled and onRejected, as above.
    // 13. Perform PerformPromiseThen(valueWrapper, onFulfilled, onRejected, promiseCapability).
    engine::react(
        &value_wrapper,
        Continuation {
            capability,
            sync_iterator: sync_iterator.clone(),
            done,
            close_on_rejection,
        },
        |c, v, ctx| {
            let result = create_iter_result_object(v, c.done, ctx);
            c.capability.resolve(result, ctx)
        },
        |c, error, ctx| {
            c.close_on_rejection(ctx)?;
            c.capability.reject(error, ctx)
        },
        ctx,
    )?;
    // 14. Return promiseCapability.[[Promise]].
    Ok(IteratorPromise::Value(promise.into()))
}
