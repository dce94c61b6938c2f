//! The streams' promise vocabulary: the result of a promise-returning algorithm as the stream
//! cores pass it around ([`PromiseResult`]), reacting to one ([`upon_settlement`]: WebIDL's
//! "upon fulfillment" and "upon rejection" for JS promises, internal promises and results
//! already settled), and a new promise the streams settle themselves ([`NewPromise`]: a JS
//! promise, or an internal one where no script can reach it). `PromiseCapability`,
//! `JsPromise` and `InternalPromise` are what these are made of.

use super::{
    internal_promise::InternalPromise, AcyclicShared, Cx, JsPromise, JsResult, PromiseCapability,
    Slot, Trace, Value,
};
use crate::engine;

traced_without_drop! {
/// The result of a promise-returning algorithm. Results that are already settled stay unboxed,
/// so internal plumbing does not allocate a JS promise just to react to it: reacting to a
/// settled result queues the reaction as a microtask, exactly when PerformPromiseThen on an
/// already-settled promise would queue its reaction job.
#[derive(Debug, Clone)]
pub enum PromiseResult {
    /// A promise fulfilled with this value (it is never a thenable object).
    Fulfilled(Value),
    /// A promise rejected with this reason.
    Rejected(Value),
    /// Any JS promise.
    Promise(JsPromise),
    /// A promise that never reaches script (a transform stream's internal promises).
    Internal(InternalPromise),
    /// A promise that the job queued when it was made fulfills with this value (never an
    /// object): "the result of reacting to" a promise already fulfilled with it, with no
    /// fulfillment steps. No promise is made: the job is queued when the result is reacted to
    /// ([`upon_settlement`]) or adopted, which its maker's caller does before anything else is
    /// queued, so the job takes the same place in the queue, and the reaction's own job the
    /// same place after it.
    FulfilledByQueuedJob(Value),
}
}

impl PromiseResult {
    /// "A promise resolved with undefined".
    pub fn undefined() -> Self {
        PromiseResult::Fulfilled(Value::undefined())
    }

    /// "A promise resolved with `value`": a JS promise [`engine::untouched_promise`] vouches
    /// for is adopted by a Rust promise ([`adopt_untouched_promise`]), other objects go through
    /// a real promise (resolving reads `then`), everything else is fulfilled at once.
    pub fn resolved_with(value: Value, ctx: &mut Cx) -> JsResult<Self> {
        if !value.is_object() {
            return Ok(PromiseResult::Fulfilled(value));
        }
        if let Some(promise) = engine::untouched_promise(&value, ctx) {
            return Ok(PromiseResult::Internal(adopt_untouched_promise(
                promise, ctx,
            )));
        }
        Ok(PromiseResult::Promise(engine::promise_resolved_with(
            value, ctx,
        )?))
    }

    /// "A promise resolved with `value`" that is only ever reacted to ([`upon_settlement`]):
    /// never resolved with, adopted, or handed to script.
    ///
    /// AD-HOC: where [`PromiseResult::resolved_with`] makes a JS promise for an object (and
    /// its resolve function reads `then`), this runs the resolve function's steps itself, with
    /// no promise to resolve: `Get(value, "then")` now, as the resolve function would; an
    /// abrupt completion is a promise rejected with its value, a `then` that is not callable a
    /// promise fulfilled with `value` (reacting to either queues the reaction's job when
    /// PerformPromiseThen on the settled promise would), and a callable `then` an internal
    /// promise whose NewPromiseResolveThenableJob is queued now, as the resolve function queues
    /// it. The reactions see the same value, in the same jobs. A JS promise
    /// [`engine::untouched_promise`] vouches for is adopted as in `resolved_with`.
    pub fn resolved_with_for_reaction(value: Value, ctx: &mut Cx) -> JsResult<Self> {
        let Some(object) = value.as_object() else {
            return Ok(PromiseResult::Fulfilled(value));
        };
        if let Some(promise) = engine::untouched_promise(&value, ctx) {
            return Ok(PromiseResult::Internal(adopt_untouched_promise(
                promise, ctx,
            )));
        }
        // Promise Resolve Functions, 9. Let then be Completion(Get(resolution, "then")).
        let then = match engine::get_then(&object, ctx) {
            Ok(then) => then,
            // 10. If then is an abrupt completion, RejectPromise(promise, then.[[Value]]).
            Err(error) => return Ok(PromiseResult::Rejected(engine::thrown_value(error, ctx)?)),
        };
        // 12. If IsCallable(thenAction) is false, FulfillPromise(promise, resolution).
        let Some(then) = then.as_callable() else {
            return Ok(PromiseResult::Fulfilled(value));
        };
        // 13-15. HostEnqueuePromiseJob(NewPromiseResolveThenableJob(promise, resolution,
        //        thenJobCallback)).
        let promise = InternalPromise::new();
        let resolved_by = promise.clone();
        engine::queue_microtask(ctx, move |ctx| resolved_by.thenable_job(value, then, ctx));
        Ok(PromiseResult::Internal(promise))
    }

    /// The result of invoking a callback whose return type is a promise type: a thrown
    /// exception becomes a rejected promise, a returned value a promise resolved with it.
    pub fn from_callback(result: JsResult<Value>, ctx: &mut Cx) -> JsResult<Self> {
        match result {
            Ok(value) => Self::resolved_with(value, ctx),
            Err(error) => Ok(PromiseResult::Rejected(engine::thrown_value(error, ctx)?)),
        }
    }

    /// The result of running an algorithm another specification gave (the wrappers of the
    /// Streams Standard's "set up" operations): a thrown exception becomes a rejected promise.
    pub fn from_algorithm(result: JsResult<PromiseResult>, ctx: &mut Cx) -> JsResult<Self> {
        match result {
            Ok(result) => Ok(result),
            Err(error) => Ok(PromiseResult::Rejected(engine::thrown_value(error, ctx)?)),
        }
    }
}

/// <https://webidl.spec.whatwg.org/#upon-fulfillment> and
/// <https://webidl.spec.whatwg.org/#upon-rejection> for a [`PromiseResult`].
pub fn upon_settlement<T: Trace + 'static>(
    result: PromiseResult,
    data: T,
    on_fulfilled: engine::ReactionStep<T>,
    on_rejected: engine::ReactionStep<T>,
    ctx: &mut Cx,
) -> JsResult<()> {
    match result {
        PromiseResult::Fulfilled(value) => {
            engine::queue_microtask(ctx, move |ctx| on_fulfilled(&data, value, ctx));
            Ok(())
        }
        PromiseResult::Rejected(reason) => {
            engine::queue_microtask(ctx, move |ctx| on_rejected(&data, reason, ctx));
            Ok(())
        }
        PromiseResult::Promise(promise) => {
            engine::react(&promise, data, on_fulfilled, on_rejected, ctx)
        }
        PromiseResult::Internal(promise) => {
            promise.react(data, on_fulfilled, on_rejected, ctx);
            Ok(())
        }
        PromiseResult::FulfilledByQueuedJob(value) => {
            // The job that fulfills the promise, which queues the reaction's job.
            engine::queue_microtask(ctx, move |ctx| {
                engine::queue_microtask(ctx, move |ctx| on_fulfilled(&data, value, ctx));
                Ok(())
            });
            Ok(())
        }
    }
}

/// "A promise resolved with" `promise`, a JS promise [`engine::untouched_promise`] vouched for,
/// as a Rust promise.
///
/// Resolving a new promise with `promise` reads its `then` (the original, unobservably: no own
/// `then`, %Promise.prototype%'s data property) and queues NewPromiseResolveThenableJob, whose
/// `then` call is PerformPromiseThen(promise, resolve, reject) once its SpeciesConstructor
/// lookups reach %Promise%. So the job is a Rust microtask reacting to `promise`, and the new
/// promise a Rust promise: the same jobs in the same order (the job, `promise`'s reaction job,
/// then the new promise's reactions), and a fulfillment value is still resolved with (its
/// `then` read). Script may decorate `promise` or the intrinsics between now and the job, so
/// the job asks again, and then calls the original `then` with resolving functions, as the
/// spec's job does. Where the spec makes a JS promise and two resolving functions here, and the
/// `then` call a derived promise and two more, this makes none (the reaction to `promise` makes
/// its handlers).
pub(crate) fn adopt_untouched_promise(promise: JsPromise, ctx: &mut Cx) -> InternalPromise {
    let adopted = InternalPromise::new();
    let resolved_by = adopted.clone();
    engine::queue_microtask(ctx, move |ctx| {
        if engine::species_lookup_is_intrinsic(Some(&promise), ctx) {
            return engine::react(&promise, resolved_by, resolve_adopted, reject_adopted, ctx);
        }
        match engine::original_promise_then(ctx) {
            Some(then) => resolved_by.thenable_job(promise.into(), then, ctx),
            // Invariant: untouched_promise vouched for the original `then`, which exists only
            // once it was remembered.
            None => engine::react(&promise, resolved_by, resolve_adopted, reject_adopted, ctx),
        }
    });
    adopted
}

/// The resolve function of a thenable job's `then` call: resolves the adopting promise.
pub(crate) fn resolve_adopted(
    adopted: &InternalPromise,
    value: Value,
    ctx: &mut Cx,
) -> JsResult<()> {
    adopted.resolve(value, ctx)
}

/// The reject function of a thenable job's `then` call: rejects the adopting promise.
pub(crate) fn reject_adopted(
    adopted: &InternalPromise,
    reason: Value,
    ctx: &mut Cx,
) -> JsResult<()> {
    adopted.reject(reason, ctx);
    Ok(())
}

/// A reaction step that does nothing.
pub fn ignore<T>(_: &T, _: Value, _: &mut Cx) -> JsResult<()> {
    Ok(())
}

traced_without_drop! {
/// "A new promise" that the streams settle: a JS promise where script can hold it, or, where
/// no script can reach it (a pipe's writer's [[readyPromise]]), an internal promise with the
/// same job timing and no JS object. The other half of the vocabulary is [`PromiseResult`],
/// the promise an algorithm returns, which is reacted to with [`upon_settlement`].
#[derive(Debug, Clone)]
pub enum NewPromise {
    /// A JS promise and its resolving functions.
    Js(PromiseCapability),
    /// A promise no script sees.
    Internal(InternalPromise),
    /// A promise script may ask for but usually does not (a writer's [[readyPromise]], replaced
    /// whenever backpressure flips): its state, and a JS promise made only when asked for
    /// ([`NewPromise::to_value`], or a reaction). See [`NewPromise::deferred`].
    Deferred(AcyclicShared<Slot<Deferred>>),
}
}

traced_without_drop! {
/// [`NewPromise::Deferred`]'s state.
#[derive(Debug)]
pub enum Deferred {
    /// No JS promise yet, pending; whether it is marked as handled.
    Pending { handled: bool },
    /// No JS promise yet, fulfilled with the value.
    Fulfilled(Value),
    /// No JS promise yet, rejected with the reason; whether it is marked as handled.
    Rejected { reason: Value, handled: bool },
    /// The JS promise, made: everything goes to it.
    Made(PromiseCapability),
}
}

impl NewPromise {
    /// "A new promise" whose JS promise is made only if script asks for it.
    ///
    /// AD-HOC: the spec makes a promise object at once. Until something reacts to it or
    /// script reads it, nothing can observe whether it exists: a settled promise made late is
    /// in the state it would have reached, and reactions added to it queue their jobs as they
    /// would have. Making it then keeps every observable step: its settlement is replayed when
    /// it is made, marked as handled first if it was (so a rejection marked handled is never
    /// reported, as an eager one is not), and from then on every operation goes to it.
    pub fn deferred() -> Self {
        Self::Deferred(AcyclicShared::new(Slot::new(Deferred::Pending {
            handled: false,
        })))
    }

    /// Makes the promise "a new promise" of the same kind in place, if that is the same as
    /// making a new one: an internal promise that has settled and that no one else holds
    /// ([`InternalPromise::renew`]), or a deferred one whose JS promise was never made, that
    /// has settled, and that no one else holds (nothing can tell it from a new one). Returns
    /// whether it did; where it did not, the caller makes a new promise.
    pub fn renew(&self) -> bool {
        match self {
            Self::Js(_) => false,
            Self::Internal(p) => p.renew(),
            Self::Deferred(state) => {
                if !state.is_unique() {
                    return false;
                }
                let mut current = state.borrow_mut();
                match &*current {
                    Deferred::Fulfilled(_) | Deferred::Rejected { .. } => {
                        *current = Deferred::Pending { handled: false };
                        true
                    }
                    Deferred::Pending { .. } | Deferred::Made(_) => false,
                }
            }
        }
    }

    /// The JS promise of a deferred promise, if it was made (from then on every operation goes
    /// to it).
    fn made_already(state: &AcyclicShared<Slot<Deferred>>) -> Option<PromiseCapability> {
        match &*state.borrow() {
            Deferred::Made(promise) => Some(promise.clone()),
            _ => None,
        }
    }

    /// The JS promise of a deferred promise, made now if it was not.
    fn made(state: &AcyclicShared<Slot<Deferred>>, ctx: &mut Cx) -> JsResult<PromiseCapability> {
        let current = std::mem::replace(
            &mut *state.borrow_mut(),
            Deferred::Pending { handled: false },
        );
        let promise = match current {
            Deferred::Made(promise) => promise,
            Deferred::Pending { handled } => {
                let promise = PromiseCapability::new(ctx);
                if handled {
                    engine::mark_as_handled(promise.promise(), ctx)?;
                }
                promise
            }
            Deferred::Fulfilled(value) => {
                let promise = PromiseCapability::new(ctx);
                promise.resolve(value, ctx)?;
                promise
            }
            Deferred::Rejected { reason, handled } => {
                let promise = PromiseCapability::new(ctx);
                if handled {
                    engine::mark_as_handled(promise.promise(), ctx)?;
                }
                promise.reject(reason, ctx)?;
                promise
            }
        };
        *state.borrow_mut() = Deferred::Made(promise.clone());
        Ok(promise)
    }

    /// Resolve the promise with `value`.
    pub fn resolve(&self, value: Value, ctx: &mut Cx) -> JsResult<()> {
        match self {
            Self::Js(p) => p.resolve(value, ctx),
            Self::Internal(p) => p.resolve(value, ctx),
            Self::Deferred(state) => {
                if let Some(promise) = Self::made_already(state) {
                    return promise.resolve(value, ctx);
                }
                // Resolving with an object may read its `then`: that goes through a JS
                // promise, made now.
                if value.is_object() {
                    return Self::made(state, ctx)?.resolve(value, ctx);
                }
                let mut current = state.borrow_mut();
                if matches!(*current, Deferred::Pending { .. }) {
                    *current = Deferred::Fulfilled(value);
                }
                Ok(())
            }
        }
    }

    /// Reject the promise with `reason`.
    pub fn reject(&self, reason: Value, ctx: &mut Cx) -> JsResult<()> {
        match self {
            Self::Js(p) => p.reject(reason, ctx),
            Self::Internal(p) => {
                p.reject(reason, ctx);
                Ok(())
            }
            Self::Deferred(state) => {
                if let Some(promise) = Self::made_already(state) {
                    return promise.reject(reason, ctx);
                }
                // Once settled, the resolving functions do nothing.
                let mut current = state.borrow_mut();
                if let Deferred::Pending { handled } = *current {
                    *current = Deferred::Rejected { reason, handled };
                }
                Ok(())
            }
        }
    }

    /// Set [[PromiseIsHandled]] to true (an internal promise is never reported).
    pub fn mark_as_handled(&self, ctx: &mut Cx) -> JsResult<()> {
        match self {
            Self::Js(p) => engine::mark_as_handled(p.promise(), ctx),
            Self::Internal(_) => Ok(()),
            Self::Deferred(state) => {
                if let Some(promise) = Self::made_already(state) {
                    return engine::mark_as_handled(promise.promise(), ctx);
                }
                // (A fulfilled promise is never reported either way.)
                if let Deferred::Pending { handled } | Deferred::Rejected { handled, .. } =
                    &mut *state.borrow_mut()
                {
                    *handled = true;
                }
                Ok(())
            }
        }
    }

    /// Whether [[PromiseState]] is "pending".
    pub fn is_pending(&self) -> bool {
        match self {
            Self::Js(p) => p.is_pending(),
            Self::Internal(p) => p.outcome().is_none(),
            Self::Deferred(state) => match &*state.borrow() {
                Deferred::Pending { .. } => true,
                Deferred::Made(promise) => promise.is_pending(),
                _ => false,
            },
        }
    }

    /// Upon fulfillment / upon rejection.
    pub fn react<T: Trace + 'static>(
        &self,
        data: T,
        on_fulfilled: engine::ReactionStep<T>,
        on_rejected: engine::ReactionStep<T>,
        ctx: &mut Cx,
    ) -> JsResult<()> {
        match self {
            Self::Js(p) => p.react(data, on_fulfilled, on_rejected, ctx),
            Self::Internal(p) => {
                p.react(data, on_fulfilled, on_rejected, ctx);
                Ok(())
            }
            Self::Deferred(state) => {
                Self::made(state, ctx)?.react(data, on_fulfilled, on_rejected, ctx)
            }
        }
    }

    /// The promise as a JS value (the `ready` getter). An internal promise is only ever made for a
    /// pipe's writer, which script cannot reach; should Rust code ask, it gets a JS promise in
    /// the same state (a pending one is resolved by a reaction, one job late).
    pub fn to_value(&self, ctx: &mut Cx) -> JsResult<Value> {
        match self {
            Self::Js(p) => Ok(p.promise().clone().into()),
            Self::Deferred(state) => Ok(Self::made(state, ctx)?.promise().clone().into()),
            Self::Internal(p) => {
                let mirror = PromiseCapability::new(ctx);
                match p.outcome() {
                    Some(Ok(value)) => mirror.resolve(value, ctx)?,
                    Some(Err(reason)) => {
                        mirror.reject(reason, ctx)?;
                        engine::mark_as_handled(mirror.promise(), ctx)?;
                    }
                    None => p.react(
                        mirror.clone(),
                        |m, v, ctx| m.resolve(v, ctx),
                        |m, r, ctx| m.reject(r, ctx),
                        ctx,
                    ),
                }
                Ok(mirror.promise().clone().into())
            }
        }
    }
}

/// <https://webidl.spec.whatwg.org/#a-promise-resolved-with>
pub fn promise_resolved_with(value: Value, ctx: &mut Cx) -> JsResult<JsPromise> {
    let cap = PromiseCapability::new(ctx);
    cap.resolve(value, ctx)?;
    Ok(cap.promise().clone())
}

/// <https://webidl.spec.whatwg.org/#a-promise-rejected-with>
pub fn promise_rejected_with(reason: Value, ctx: &mut Cx) -> JsResult<JsPromise> {
    let cap = PromiseCapability::new(ctx);
    cap.reject(reason, ctx)?;
    Ok(cap.promise().clone())
}
