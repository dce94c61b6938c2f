//! Promises and reactions: "a new promise", resolve and reject, mark as handled, and reacting
//! to a promise from Rust with PerformPromiseThen's timing and no user-visible lookup.

use boa_engine::{
    builtins::promise::{PromiseState, ResolvingFunctions},
    object::builtins::JsWeakSet,
    Context, JsObject, JsValue,
};
use boa_engine::{
    native_function::NativeFunction,
    object::builtins::{JsFunction as BoaFunction, JsPromise as BoaPromise},
    object::FunctionObjectBuilder,
};
use boa_gc::{Finalize, Trace};
use std::cell::{Cell, RefCell};

use super::*;

thread_local! {
    /// How many reactions wait in a context's deferred list on this thread (contexts live on
    /// one thread; a per-thread count, so no lock is shared between threads).
    static DEFERRED: Cell<usize> = const { Cell::new(0) };
}

/// A promise created by this layer together with its resolving functions: the spec's
/// "a new promise" that the layer later resolves or rejects.
#[derive(Clone, Trace, Finalize)]
pub struct PromiseCapability {
    promise: JsPromise,
    resolvers: ResolvingFunctions,
}

impl std::fmt::Debug for PromiseCapability {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PromiseCapability")
            .field("promise", &self.promise)
            .finish_non_exhaustive()
    }
}

impl PromiseCapability {
    /// <https://webidl.spec.whatwg.org/#a-new-promise>
    pub fn new(ctx: &mut Cx) -> Self {
        crate::engine::count_objects(3);
        let (promise, resolvers) = BoaPromise::new_pending(ctx);
        Self {
            promise: JsPromise(promise),
            resolvers,
        }
    }

    /// Upon fulfillment / upon rejection of this capability's promise ([`react`]).
    pub fn react<T: Trace + 'static>(
        &self,
        data: T,
        on_fulfilled: ReactionStep<T>,
        on_rejected: ReactionStep<T>,
        ctx: &mut Cx,
    ) -> JsResult<()> {
        react(&self.promise, data, on_fulfilled, on_rejected, ctx)
    }

    /// The promise object itself, as handed to script.
    pub fn promise(&self) -> &JsPromise {
        &self.promise
    }

    /// <https://webidl.spec.whatwg.org/#resolve>
    ///
    /// Resolving with an object performs `Get(value, "then")`, as the spec requires; internal
    /// steps therefore never resolve with an object that script could have decorated.
    pub fn resolve(&self, value: Value, ctx: &mut Cx) -> JsResult<()> {
        let result = self
            .resolvers
            .resolve
            .call(&JsValue::undefined(), &[value.into_js()], ctx)
            .map(drop);
        run_deferred_reactions(ctx);
        result.map_err(JsError::from)
    }

    /// <https://webidl.spec.whatwg.org/#reject>
    pub fn reject(&self, reason: Value, ctx: &mut Cx) -> JsResult<()> {
        let result = self
            .resolvers
            .reject
            .call(&JsValue::undefined(), &[reason.into_js()], ctx)
            .map(drop);
        run_deferred_reactions(ctx);
        result.map_err(JsError::from)
    }

    /// Whether the promise is still pending.
    pub fn is_pending(&self) -> bool {
        matches!(self.promise.0.state(), PromiseState::Pending)
    }
}

/// What the engine boundary keeps per context about promises: the ones the spec marked as
/// handled, and reactions waiting on promises that script has decorated.
struct PromiseBookkeeping {
    /// Promises whose [[PromiseIsHandled]] the spec layer set ([`mark_as_handled`]). Weak: a
    /// collected promise leaves the set.
    handled: JsWeakSet,
    /// Reactions to pending promises on which `then` would run an observable lookup (see
    /// [`react`]), oldest first.
    deferred: RefCell<Vec<DeferredReaction>>,
}

/// A reaction held in Rust until its promise settles.
struct DeferredReaction {
    promise: BoaPromise,
    reaction: Box<dyn ErasedReaction>,
}

/// A type-erased reaction: the captured data and both steps.
trait ErasedReaction: Trace {
    fn run(self: Box<Self>, outcome: Result<JsValue, JsValue>, ctx: &mut Context) -> JsResult<()>;
}

impl<T: Trace + 'static> ErasedReaction for Reaction<T> {
    fn run(self: Box<Self>, outcome: Result<JsValue, JsValue>, ctx: &mut Context) -> JsResult<()> {
        match outcome {
            Ok(value) => (self.on_fulfilled)(&self.data, value.into(), ctx),
            Err(reason) => (self.on_rejected)(&self.data, reason.into(), ctx),
        }
    }
}

/// The context's [`PromiseBookkeeping`], created on first use.
/// Returns the weak set of handled promises.
fn bookkeeping(ctx: &mut Context) -> JsWeakSet {
    if let Some(state) = ctx.get_data::<PromiseBookkeeping>() {
        return state.handled.clone();
    }
    let handled = JsWeakSet::new(ctx);
    ctx.insert_data(PromiseBookkeeping {
        handled: handled.clone(),
        deferred: RefCell::new(Vec::new()),
    });
    handled
}

/// Whether `then` on `promise` can be made to perform no observable lookup: the promise is
/// extensible (so its prototype can be taken away for the call) and has no own `constructor`
/// property. Both checks are ordinary-object internal methods, which run no script.
fn then_is_unobservable(promise: &BoaPromise, ctx: &mut Context) -> JsResult<bool> {
    let object: JsObject = promise.clone().into();
    Ok(object.is_extensible(ctx)? && !object.has_own_property(js_string!("constructor"), ctx)?)
}

/// Runs `then` on `promise` without any observable lookup: for the duration of the call the
/// promise has no prototype, so SpeciesConstructor finds no `constructor` and falls back to
/// %Promise% (PerformPromiseThen itself is crate-private in Boa). Only for promises where
/// [`then_is_unobservable`] holds.
fn then_unobservably(
    promise: &BoaPromise,
    on_fulfilled: Option<BoaFunction>,
    on_rejected: Option<BoaFunction>,
    ctx: &mut Context,
) -> JsResult<()> {
    let object: JsObject = promise.clone().into();
    let proto = object.prototype();
    // Invariant: the promise is extensible (checked by the caller, and nothing ran since).
    let removed = object.set_prototype(None);
    debug_assert!(removed, "then_unobservably on a non-extensible promise");
    let result = promise.then(on_fulfilled, on_rejected, ctx);
    object.set_prototype(proto);
    result.map(drop).map_err(JsError::from)
}

/// <https://webidl.spec.whatwg.org/#mark-a-promise-as-handled>
///
/// Boa has no public way to set [[PromiseIsHandled]], and `then` would run observable lookups,
/// so the promise goes into a per-context weak set instead; the host's rejection tracker
/// consults it ([`is_marked_as_handled`]) before it reports a rejection as unhandled. Nothing
/// script can observe happens here.
pub fn mark_as_handled(promise: &JsPromise, ctx: &mut Cx) -> JsResult<()> {
    let promise = &promise.0;
    if let PromiseState::Fulfilled(_) = promise.state() {
        // A fulfilled promise can never be reported as unhandled.
        return Ok(());
    }
    let object: JsObject = promise.clone().into();
    let handled = bookkeeping(ctx);
    handled.add(&object, ctx).map(drop).map_err(JsError::from)
}

/// Whether the streams layer marked `promise` as handled ("mark as handled"), or reacted to it
/// (PerformPromiseThen sets `[[PromiseIsHandled]]` too). A host that reports unhandled
/// rejections skips these promises.
pub fn is_marked_as_handled(promise: &Object, ctx: &mut Cx) -> bool {
    let Some(state) = ctx.get_data::<PromiseBookkeeping>() else {
        return false;
    };
    let handled = state.handled.clone();
    handled.has(promise.js(), ctx).unwrap_or(false)
}

/// A reaction step run when a promise settles: it gets the captured data and the value or
/// reason. Errors it returns are reported by the job queue like any uncaught job error.
pub type ReactionStep<T> = fn(&T, super::Value, &mut super::Cx) -> JsResult<()>;

/// <https://webidl.spec.whatwg.org/#upon-fulfillment> and
/// <https://webidl.spec.whatwg.org/#upon-rejection>: react to `promise` from Rust, with
/// PerformPromiseThen's timing and no user-visible lookup.
///
/// - A settled promise: the reaction is queued as a microtask at once, as PerformPromiseThen
///   queues a reaction job for a settled promise (a rejected one is marked as handled).
/// - A pending promise on which `then` runs no observable lookup (the usual case): a reaction
///   through `then` with the promise's prototype taken away for the call, so the reaction
///   takes its place among the promise's other reactions.
/// - A pending promise that script made non-extensible or gave an own `constructor`: the
///   reaction waits in Rust and is queued once the promise has settled (checked after every
///   resolve or reject of a [`PromiseCapability`] and by the host after every microtask,
///   [`run_deferred_reactions`]). Its job then follows the jobs of reactions that were
///   registered on the promise earlier and later; that is the one place where the order can
///   differ from PerformPromiseThen's.
///
/// `data` is traced while the reaction is pending.
pub fn react<T: Trace + 'static>(
    promise: &JsPromise,
    data: T,
    on_fulfilled: ReactionStep<T>,
    on_rejected: ReactionStep<T>,
    ctx: &mut Cx,
) -> JsResult<()> {
    let handle = promise;
    let promise = &promise.0;
    match promise.state() {
        PromiseState::Fulfilled(value) => {
            queue_microtask(ctx, move |ctx| on_fulfilled(&data, value.into(), ctx));
            return Ok(());
        }
        PromiseState::Rejected(reason) => {
            mark_as_handled(handle, ctx)?;
            queue_microtask(ctx, move |ctx| on_rejected(&data, reason.into(), ctx));
            return Ok(());
        }
        PromiseState::Pending => {}
    }
    if !then_is_unobservable(promise, ctx)? {
        let reaction = Box::new(Reaction {
            data,
            on_fulfilled,
            on_rejected,
        });
        // Marking it as handled also creates the bookkeeping the reaction waits in.
        mark_as_handled(handle, ctx)?;
        if let Some(state) = ctx.get_data::<PromiseBookkeeping>() {
            DEFERRED.with(|n| n.set(n.get() + 1));
            state.deferred.borrow_mut().push(DeferredReaction {
                promise: promise.clone(),
                reaction,
            });
        }
        return Ok(());
    }
    let data = boa_gc::Gc::new(Reaction {
        data,
        on_fulfilled,
        on_rejected,
    });
    let fulfilled = NativeFunction::from_copy_closure_with_captures(
        |_, args, reaction: &boa_gc::Gc<Reaction<T>>, ctx| {
            let value = args.first().cloned().unwrap_or_default().into();
            (reaction.on_fulfilled)(&reaction.data, value, ctx)
                .map(|()| JsValue::undefined())
                .map_err(Into::into)
        },
        data.clone(),
    );
    let rejected = NativeFunction::from_copy_closure_with_captures(
        |_, args, reaction: &boa_gc::Gc<Reaction<T>>, ctx| {
            let reason = args.first().cloned().unwrap_or_default().into();
            (reaction.on_rejected)(&reaction.data, reason, ctx)
                .map(|()| JsValue::undefined())
                .map_err(Into::into)
        },
        data,
    );
    let realm = ctx.realm().clone();
    crate::engine::count_objects(3);
    let fulfilled = FunctionObjectBuilder::new(&realm, fulfilled).build();
    let rejected = FunctionObjectBuilder::new(&realm, rejected).build();
    then_unobservably(promise, Some(fulfilled), Some(rejected), ctx)
}

/// Queues the deferred reactions ([`react`]) whose promises have settled, in the order they
/// were made. Cheap when there are none; the host calls it after every microtask.
pub fn run_deferred_reactions(ctx: &mut Cx) {
    // The common case, nothing deferred on this thread: no lookup at all.
    if DEFERRED.with(Cell::get) == 0 {
        return;
    }
    let ready: Vec<(Result<JsValue, JsValue>, Box<dyn ErasedReaction>)> = {
        let Some(state) = ctx.get_data::<PromiseBookkeeping>() else {
            return;
        };
        let mut deferred = state.deferred.borrow_mut();
        if deferred.is_empty() {
            return;
        }
        let mut ready = Vec::new();
        let mut waiting = Vec::with_capacity(deferred.len());
        for entry in deferred.drain(..) {
            match entry.promise.state() {
                PromiseState::Pending => waiting.push(entry),
                PromiseState::Fulfilled(value) => ready.push((Ok(value), entry.reaction)),
                PromiseState::Rejected(reason) => ready.push((Err(reason), entry.reaction)),
            }
        }
        *deferred = waiting;
        DEFERRED.with(|n| n.set(n.get().saturating_sub(ready.len())));
        ready
    };
    for (outcome, reaction) in ready {
        queue_microtask(ctx, move |ctx| reaction.run(outcome, ctx));
    }
}

#[derive(Trace, Finalize)]
struct Reaction<T: Trace + 'static> {
    data: T,
    #[unsafe_ignore_trace]
    on_fulfilled: ReactionStep<T>,
    #[unsafe_ignore_trace]
    on_rejected: ReactionStep<T>,
}

/// The functions a fresh promise's `then` lookup and call reach, as they were when the streams
/// were registered in the realm: `%Promise.prototype%.then` and the `%Promise%[@@species]`
/// getter.
#[derive(Trace, Finalize, boa_engine::JsData)]
struct PromiseIntrinsics {
    then: JsValue,
    species_getter: JsValue,
}

/// Remembers [`PromiseIntrinsics`] for the current realm (from `register`, before script runs),
/// and the getters that `buffer.rs` and `clone.rs` call.
pub fn remember_promise_intrinsics(ctx: &mut Cx) {
    super::buffer::remember_buffer_intrinsics(ctx);
    super::clone::remember_regexp_intrinsics(ctx);
    let promise = ctx.intrinsics().constructors().promise().clone();
    let then = promise
        .prototype()
        .borrow()
        .properties()
        .get(&js_string!("then").into())
        .and_then(|d| d.value().cloned())
        .unwrap_or_default();
    let species_getter = promise
        .constructor()
        .borrow()
        .properties()
        .get(&boa_engine::JsSymbol::species().into())
        .and_then(|d| d.get().cloned())
        .unwrap_or_default();
    ctx.realm().host_defined_mut().insert(PromiseIntrinsics {
        then,
        species_getter,
    });
}

/// Whether resolving a promise with a fresh, untouched JS promise `p` (its prototype
/// %Promise.prototype%, no own properties) would be unobservable: the resolution's
/// `Get(p, "then")` finds a data property holding the original `then`, and that `then`'s
/// SpeciesConstructor finds a data `constructor` that is %Promise% whose `@@species` getter is
/// the original. Only own properties are read, without running JavaScript. Where this holds,
/// such a promise can be a Rust [`InternalPromise`] and the thenable job a Rust reaction, with
/// the same jobs in the same order.
pub fn fresh_promise_then_is_intrinsic(ctx: &mut Cx) -> bool {
    let proto = ctx.intrinsics().constructors().promise().prototype();
    let realm = ctx.realm().clone();
    let host_defined = realm.host_defined();
    let Some(original) = host_defined.get::<PromiseIntrinsics>() else {
        return false;
    };
    let then_ok = proto
        .borrow()
        .properties()
        .get(&js_string!("then").into())
        .is_some_and(|d| d.is_data_descriptor() && same_object(d.value(), &original.then));
    drop(host_defined);
    then_ok && species_lookup_is_intrinsic(None, ctx)
}

/// Whether `a` and `b` are the same object.
fn same_object(a: Option<&JsValue>, b: &JsValue) -> bool {
    match (a.and_then(JsValue::as_object), b.as_object()) {
        (Some(a), Some(b)) => JsObject::equals(&a, &b),
        _ => false,
    }
}

/// `%Promise.prototype%.then` as it was when the streams were registered in the realm: the
/// `then` that a resolution reads from a promise [`untouched_promise`] vouched for.
pub fn original_promise_then(ctx: &mut Cx) -> Option<Object> {
    let realm = ctx.realm().clone();
    let host_defined = realm.host_defined();
    host_defined
        .get::<PromiseIntrinsics>()
        .and_then(|original| original.then.as_object())
        .map(Object::from)
}

/// Whether SpeciesConstructor(p, %Promise%), as the original `then` performs it when a
/// NewPromiseResolveThenableJob calls it, reaches %Promise% without running script: `p` (a
/// promise of script's, or, for `None`, a fresh %Promise% the layer keeps in Rust) has no own
/// `constructor` and %Promise.prototype% as its prototype, whose `constructor` is a data
/// property holding %Promise%, whose `@@species` getter is the original. Script can change
/// any of these between the resolution that read `then` and the job, so the job asks again.
pub fn species_lookup_is_intrinsic(promise: Option<&JsPromise>, ctx: &mut Cx) -> bool {
    let promise = promise.map(|p| &p.0);
    let intrinsic = ctx.intrinsics().constructors().promise().clone();
    let proto = intrinsic.prototype();
    if let Some(promise) = promise {
        let object: JsObject = promise.clone().into();
        let o = object.borrow();
        if o.properties()
            .contains_key(&js_string!("constructor").into())
            || !o.prototype().is_some_and(|p| JsObject::equals(&p, &proto))
        {
            return false;
        }
    }
    let realm = ctx.realm().clone();
    let host_defined = realm.host_defined();
    let Some(original) = host_defined.get::<PromiseIntrinsics>() else {
        return false;
    };
    let constructor_value: JsValue = intrinsic.constructor().into();
    let constructor_ok = proto
        .borrow()
        .properties()
        .get(&js_string!("constructor").into())
        .is_some_and(|d| d.is_data_descriptor() && same_object(d.value(), &constructor_value));
    let species_ok = intrinsic
        .constructor()
        .borrow()
        .properties()
        .get(&boa_engine::JsSymbol::species().into())
        .is_some_and(|d| {
            d.is_accessor_descriptor() && same_object(d.get(), &original.species_getter)
        });
    constructor_ok && species_ok
}

/// The Gets of SpeciesConstructor(p, %Promise%) for a fresh %Promise% `p` that the layer keeps
/// in Rust, where [`species_lookup_is_intrinsic`] says script has decorated them: `constructor`
/// through %Promise.prototype% (an accessor sees the prototype as its receiver, since `p` has
/// no object), then, for an object, its `@@species`. A throw is the `then` call's throw. What
/// they return does not change the adoption: the Rust promise stands for `p` and is adopted as
/// with %Promise% (an approximation only where script makes them return another constructor).
pub fn species_lookups_of_fresh_promise(ctx: &mut Cx) -> JsResult<()> {
    let proto = ctx.intrinsics().constructors().promise().prototype();
    let c = proto.get(js_string!("constructor"), ctx)?;
    if let Some(c) = c.as_object() {
        c.get(boa_engine::JsSymbol::species(), ctx)?;
    } else if !c.is_undefined() {
        return Err(boa_engine::JsNativeError::typ()
            .with_message("the promise's constructor is not an object")
            .into());
    }
    Ok(())
}

/// `Get(object, "then")`, as a promise resolve function reads it: may run script (a getter,
/// a proxy trap).
pub fn get_then(object: &Object, ctx: &mut Cx) -> JsResult<Value> {
    object.get(js_string!("then"), ctx)
}

/// IsPromise(value) (<https://tc39.es/ecma262/#sec-ispromise>).
pub fn is_promise(value: &Value) -> bool {
    value
        .as_object()
        .is_some_and(|o| o.is::<boa_engine::builtins::promise::Promise>())
}

/// `value` as a JS promise, if "a promise resolved with" it would adopt it unobservably: a
/// promise with no own `then` or `constructor` and %Promise.prototype% as its prototype, while
/// [`fresh_promise_then_is_intrinsic`] holds. Its `then` is then the original, called (in the
/// thenable job) on a promise whose SpeciesConstructor is %Promise%: the adoption is
/// PerformPromiseThen(value, resolve, reject), which a Rust reaction ([`react`]) can stand for.
pub fn untouched_promise(value: &Value, ctx: &mut Cx) -> Option<JsPromise> {
    let object = value.js().as_object()?;
    let promise = BoaPromise::from_object(object.clone()).ok()?;
    let proto = ctx.intrinsics().constructors().promise().prototype();
    let untouched = {
        let o = object.borrow();
        !o.properties().contains_key(&js_string!("then").into())
            && !o
                .properties()
                .contains_key(&js_string!("constructor").into())
            && o.prototype().is_some_and(|p| JsObject::equals(&p, &proto))
    };
    (untouched && fresh_promise_then_is_intrinsic(ctx)).then_some(JsPromise(promise))
}
