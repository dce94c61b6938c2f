//! The result of a promise-returning algorithm as the stream cores pass it around
//! ([`PromiseResult`]), and reacting to one ([`upon_settlement`]): WebIDL's "upon fulfillment"
//! and "upon rejection" for JS promises, Rust-held promises and results already settled.

use super::{internal_promise::InternalPromise, Cx, JsPromise, JsResult, Trace, Value};
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
}
}

impl PromiseResult {
    /// "A promise resolved with undefined".
    pub fn undefined() -> Self {
        PromiseResult::Fulfilled(Value::undefined())
    }

    /// "A promise resolved with `value`": objects go through a real promise (resolving reads
    /// `then`), everything else is fulfilled at once.
    pub fn resolved_with(value: Value, ctx: &mut Cx) -> JsResult<Self> {
        if value.is_object() {
            Ok(PromiseResult::Promise(engine::promise_resolved_with(
                value, ctx,
            )?))
        } else {
            Ok(PromiseResult::Fulfilled(value))
        }
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
    }
}

/// A reaction step that does nothing.
pub fn ignore<T>(_: &T, _: Value, _: &mut Cx) -> JsResult<()> {
    Ok(())
}
