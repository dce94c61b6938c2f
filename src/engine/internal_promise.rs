//! Promises that the spec creates for its own bookkeeping and never hands to script (a transform
//! stream's [[backpressureChangePromise]], the promises its sink write algorithm and
//! TransformStreamDefaultControllerPerformTransform return).
//!
//! They live in Rust: settling one queues its reactions as microtasks, in order, and reacting to
//! a settled one queues the reaction as a microtask, exactly when PerformPromiseThen and
//! TriggerPromiseReactions would queue their jobs for a JS promise. So the spec's job order is
//! kept while a chunk costs no JS promise, resolving function or reaction function.
//!
//! Resolving follows the promise resolve functions
//! (<https://tc39.es/ecma262/#sec-promise-resolve-functions>): a non-object fulfills; an object
//! has its `then` read (as the spec's promise would) and, if callable, is called in a later job
//! with resolving functions (only then are JS functions created); another internal promise is
//! adopted the same way, minus the unobservable `then` lookup.
//!
//! Engine-free: written over the contract's `AcyclicShared`, `Slot`, `queue_microtask` and
//! `new_closure`. The state is a traced shared cell, so a cycle through an internal promise (a
//! reaction's data holding the stream that holds the promise) is collected on either engine.
//! On QuickJS that cell is no JS object (an `Rc` the collector traces through its holders), so
//! a cycle must pass through a JS object (a stream, a pipe's state, a `Shared`): internal
//! promises never hold each other in a ring. Each holds its reactions' data only until it
//! settles, and the data that reactions capture are the objects of the operation (streams,
//! controllers, readers, writers, pipe and tee states: objects or `Shared`s), or a promise
//! to settle, which never holds back the promise it waits on.

use super::pool::PoolBox;
use super::{new_closure, queue_microtask, thrown_value, Cx, JsResult};
use super::{AcyclicShared, Slot, Trace, Value};
use super::{Object, ReactionStep};

traced! {
/// A promise internal to the spec layer.
#[derive(Clone)]
pub(crate) struct InternalPromise(AcyclicShared<Slot<State>>);
}

impl std::fmt::Debug for InternalPromise {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("InternalPromise")
    }
}

traced_without_drop! {
enum State {
    /// Pending; `resolved` is the resolving functions' [[AlreadyResolved]] (set once resolved
    /// with a thenable that has not settled it yet).
    Pending {
        resolved: bool,
        reactions: Reactions,
    },
    Fulfilled(Value),
    Rejected(Value),
}
}

traced_without_drop! {
/// A pending promise's reactions, in order. Most internal promises get one, which needs no
/// list (no allocation besides the reaction's own block from the pool).
enum Reactions {
    None,
    One(PoolBox<dyn Reaction>),
    Many(Vec<PoolBox<dyn Reaction>>),
}
}

impl State {
    /// The state of a promise settled with `outcome`.
    #[inline]
    fn settled(outcome: Result<Value, Value>) -> Self {
        match outcome {
            Ok(value) => State::Fulfilled(value),
            Err(reason) => State::Rejected(reason),
        }
    }
}

impl Reactions {
    /// Appends `reaction`: inline for the first (most promises get one), the rest out of line.
    #[inline]
    fn push(&mut self, reaction: PoolBox<dyn Reaction>) {
        if let Reactions::None = self {
            // (`None` holds nothing to drop.)
            std::mem::forget(std::mem::replace(self, Reactions::One(reaction)));
            return;
        }
        self.push_more(reaction);
    }

    /// Appends `reaction` to a list that has one already.
    #[inline(never)]
    fn push_more(&mut self, reaction: PoolBox<dyn Reaction>) {
        match self {
            Reactions::None => *self = Reactions::One(reaction),
            Reactions::One(_) => {
                if let Reactions::One(first) = std::mem::replace(self, Reactions::None) {
                    *self = Reactions::Many(vec![first, reaction]);
                }
            }
            Reactions::Many(all) => all.push(reaction),
        }
    }

    /// Queues each reaction's job with `outcome`, in order.
    fn trigger(self, outcome: Result<Value, Value>, ctx: &mut Cx) {
        match self {
            Reactions::None => {}
            Reactions::One(reaction) => queue_reaction(reaction, outcome, ctx),
            Reactions::Many(all) => {
                for reaction in all {
                    queue_reaction(reaction, outcome.clone(), ctx);
                }
            }
        }
    }
}

/// A pending reaction, type-erased but traced.
trait Reaction: Trace {
    /// Runs the reaction's step for `outcome` (its job's body).
    fn run(&self, outcome: Result<Value, Value>, ctx: &mut Cx) -> JsResult<()>;
}

traced! {
/// The captured data and both steps of a reaction.
struct Steps<T: Trace + 'static> {
    data: T,
    #[unsafe_ignore_trace]
    on_fulfilled: ReactionStep<T>,
    #[unsafe_ignore_trace]
    on_rejected: ReactionStep<T>,
}
}

impl<T: Trace + 'static> Reaction for Steps<T> {
    fn run(&self, outcome: Result<Value, Value>, ctx: &mut Cx) -> JsResult<()> {
        match outcome {
            Ok(value) => (self.on_fulfilled)(&self.data, value, ctx),
            Err(reason) => (self.on_rejected)(&self.data, reason, ctx),
        }
    }
}

/// Queues the job that runs `reaction` with `outcome` (a PromiseReactionJob). The job holds
/// the reaction's block and its outcome (which a backend may queue without boxing them: a
/// queued job holds its values as roots, as any queued microtask does).
fn queue_reaction(reaction: PoolBox<dyn Reaction>, outcome: Result<Value, Value>, ctx: &mut Cx) {
    queue_microtask(ctx, move |ctx| reaction.run(outcome, ctx));
}

impl InternalPromise {
    /// The outcome once settled: `Ok(value)` fulfilled, `Err(reason)` rejected.
    pub(crate) fn outcome(&self) -> Option<Result<Value, Value>> {
        match &*self.0.borrow() {
            State::Pending { .. } => None,
            State::Fulfilled(value) => Some(Ok(value.clone())),
            State::Rejected(reason) => Some(Err(reason.clone())),
        }
    }

    /// Whether `self` and `other` are the same promise (the QuickJS backend's tests ask).
    #[cfg(test)]
    #[allow(dead_code)]
    pub(crate) fn ptr_eq(&self, other: &Self) -> bool {
        AcyclicShared::ptr_eq(&self.0, &other.0)
    }

    /// "A promise resolved with" a non-object `value`.
    pub(crate) fn fulfilled(value: Value) -> Self {
        Self(AcyclicShared::new(Slot::new(State::Fulfilled(value))))
    }

    /// "A new promise".
    pub(crate) fn new() -> Self {
        Self(AcyclicShared::new(Slot::new(State::Pending {
            resolved: false,
            reactions: Reactions::None,
        })))
    }

    /// Makes the promise "a new promise" in place, if that is the same as making a new one:
    /// it has settled (its reactions are queued already) and no one else holds it, so no one
    /// can tell it from a new one. Returns whether it did; where it did not, the caller makes a
    /// new promise. (This spares the allocation of the promise a slot is set to each time
    /// backpressure flips.)
    pub(crate) fn renew(&self) -> bool {
        if !self.0.is_unique() {
            return false;
        }
        let previous = {
            let mut state = self.0.borrow_mut();
            if let State::Pending { .. } = &*state {
                return false;
            }
            std::mem::replace(
                &mut *state,
                State::Pending {
                    resolved: false,
                    reactions: Reactions::None,
                },
            )
        };
        // (The outcome is dropped as a value, not through the state's drop glue.)
        if let State::Fulfilled(outcome) | State::Rejected(outcome) = previous {
            drop(outcome);
        }
        true
    }

    /// Upon fulfillment / upon rejection of this promise.
    pub(crate) fn react<T: Trace + 'static>(
        &self,
        data: T,
        on_fulfilled: ReactionStep<T>,
        on_rejected: ReactionStep<T>,
        ctx: &mut Cx,
    ) {
        let outcome = {
            let mut state = self.0.borrow_mut();
            match &mut *state {
                State::Pending { reactions, .. } => {
                    let steps = PoolBox::new(Steps {
                        data,
                        on_fulfilled,
                        on_rejected,
                    });
                    // SAFETY: the cast only adds the trait object's metadata.
                    reactions.push(unsafe { steps.unsize(|p| p as *mut dyn Reaction) });
                    return;
                }
                State::Fulfilled(value) => Ok(value.clone()),
                State::Rejected(reason) => Err(reason.clone()),
            }
        };
        // Settled: the job is queued now, as a closure (which a backend may queue without
        // boxing it).
        queue_microtask(ctx, move |ctx| match outcome {
            Ok(value) => on_fulfilled(&data, value, ctx),
            Err(reason) => on_rejected(&data, reason, ctx),
        });
    }

    /// Settles the promise (FulfillPromise / RejectPromise) and queues its reactions.
    fn settle(&self, outcome: Result<Value, Value>, ctx: &mut Cx) {
        self.settle_if(outcome, false, ctx);
    }

    /// Settles the promise as [`InternalPromise::settle`] does, unless `unresolved_only` and
    /// it was resolved already ([[AlreadyResolved]]): the resolving functions' check and
    /// FulfillPromise / RejectPromise in one borrow of the state.
    fn settle_if(&self, outcome: Result<Value, Value>, unresolved_only: bool, ctx: &mut Cx) {
        let previous = {
            let mut state = self.0.borrow_mut();
            match &*state {
                // Already settled: keep the first outcome.
                State::Fulfilled(_) | State::Rejected(_) => return,
                // Already resolved (with a thenable that has not settled it yet).
                State::Pending { resolved: true, .. } if unresolved_only => return,
                State::Pending {
                    reactions: Reactions::None,
                    ..
                } => {
                    // No reaction to queue: the outcome goes to the state as it is. (The
                    // pending state without reactions holds nothing to drop.)
                    std::mem::forget(std::mem::replace(&mut *state, State::settled(outcome)));
                    return;
                }
                State::Pending { .. } => {
                    std::mem::replace(&mut *state, State::settled(outcome.clone()))
                }
            }
        };
        if let State::Pending { reactions, .. } = previous {
            reactions.trigger(outcome, ctx);
        }
    }

    /// Marks the promise resolved; false if it already was (the resolving functions'
    /// [[AlreadyResolved]]).
    fn begin_resolve(&self) -> bool {
        match &mut *self.0.borrow_mut() {
            State::Pending { resolved, .. } if !*resolved => {
                *resolved = true;
                true
            }
            _ => false,
        }
    }

    /// [=Resolve=] the promise with `value`.
    #[inline]
    pub(crate) fn resolve(&self, value: Value, ctx: &mut Cx) -> JsResult<()> {
        if !value.is_object() {
            // The [[AlreadyResolved]] check, then (a non-object) FulfillPromise.
            self.settle_if(Ok(value), true, ctx);
            return Ok(());
        }
        if !self.begin_resolve() {
            return Ok(());
        }
        self.resolution_steps_for_object(value, ctx)
    }

    /// The promise resolve functions' steps after the [[AlreadyResolved]] check: a non-object
    /// fulfills the promise here (the common case, inline), an object goes on in
    /// [`InternalPromise::resolution_steps_for_object`].
    #[inline]
    fn resolution_steps(&self, value: Value, ctx: &mut Cx) -> JsResult<()> {
        if !value.is_object() {
            self.settle(Ok(value), ctx);
            return Ok(());
        }
        self.resolution_steps_for_object(value, ctx)
    }

    /// [`InternalPromise::resolution_steps`] for an object (a possible thenable).
    #[inline(never)]
    fn resolution_steps_for_object(&self, value: Value, ctx: &mut Cx) -> JsResult<()> {
        let Some(object) = value.as_object() else {
            self.settle(Ok(value), ctx);
            return Ok(());
        };
        // Let then be Completion(Get(resolution, "then")).
        let then = match super::get_then(&object, ctx) {
            Ok(then) => then,
            Err(error) => {
                let reason = thrown_value(error, ctx)?;
                self.settle(Err(reason), ctx);
                return Ok(());
            }
        };
        let Some(then) = then.as_callable() else {
            self.settle(Ok(value), ctx);
            return Ok(());
        };
        // NewPromiseResolveThenableJob(promise, resolution, thenJobCallback).
        let (this, then) = (value.clone(), then.clone());
        let promise = self.clone();
        queue_microtask(ctx, move |ctx| promise.thenable_job(this, then, ctx));
        Ok(())
    }

    /// The body of NewPromiseResolveThenableJob(this promise, `thenable`, `then`): calls `then`
    /// on `thenable` with a fresh pair of resolving functions sharing one [[AlreadyResolved]]
    /// (the promise has begun resolving already).
    pub(crate) fn thenable_job(&self, thenable: Value, then: Object, ctx: &mut Cx) -> JsResult<()> {
        let already_resolved = AcyclicShared::new(Slot::new(false));
        let resolve = new_closure(
            ctx,
            "",
            1,
            (self.clone(), already_resolved.clone()),
            |(promise, already_resolved), _, args, ctx| {
                if !std::mem::replace(&mut *already_resolved.borrow_mut(), true) {
                    let value = args.first().cloned().unwrap_or_default();
                    promise.resolution_steps(value, ctx)?;
                }
                Ok(Value::undefined())
            },
        );
        let reject = new_closure(
            ctx,
            "",
            1,
            (self.clone(), already_resolved.clone()),
            |(promise, already_resolved), _, args, ctx| {
                if !std::mem::replace(&mut *already_resolved.borrow_mut(), true) {
                    let reason = args.first().cloned().unwrap_or_default();
                    promise.settle(Err(reason), ctx);
                }
                Ok(Value::undefined())
            },
        );
        if let Err(error) = then.call(&thenable, &[resolve.into(), reject.into()], ctx) {
            if !std::mem::replace(&mut *already_resolved.borrow_mut(), true) {
                let reason = thrown_value(error, ctx)?;
                self.settle(Err(reason), ctx);
            }
        }
        Ok(())
    }

    /// [=Resolve=] the promise with another internal promise: adopted as a promise with the
    /// intrinsic `then` would be (one job to call `then`, then the inner promise's reaction),
    /// without an observable lookup.
    pub(crate) fn resolve_with_internal(&self, inner: InternalPromise, ctx: &mut Cx) {
        if !self.begin_resolve() {
            return;
        }
        let promise = self.clone();
        queue_microtask(ctx, move |ctx| {
            inner.react(
                promise,
                |promise, value, ctx| {
                    promise.settle(Ok(value), ctx);
                    Ok(())
                },
                |promise, reason, ctx| {
                    promise.settle(Err(reason), ctx);
                    Ok(())
                },
                ctx,
            );
            Ok(())
        });
    }

    /// [=Reject=] the promise with `reason`.
    pub(crate) fn reject(&self, reason: Value, ctx: &mut Cx) {
        // The [[AlreadyResolved]] check, then RejectPromise.
        self.settle_if(Err(reason), true, ctx);
    }
}
