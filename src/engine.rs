//! The engine boundary: the only place where the spec layer touches Boa's promise, job-queue,
//! function-call and GC machinery directly.
//!
//! Everything here is written so that internal plumbing is unobservable from JavaScript: no
//! lookup of `then`, `constructor` or `Symbol.species` that the spec does not itself perform,
//! and no dependence on patched globals or prototypes.

use boa_engine::{
    builtins::promise::{PromiseState, ResolvingFunctions},
    job::{Job, PromiseJob},
    native_function::NativeFunction,
    object::{
        builtins::{JsFunction, JsPromise},
        FunctionObjectBuilder,
    },
    Context, JsError, JsNativeError, JsObject, JsResult, JsValue,
};
use boa_gc::{Finalize, Trace};

pub use boa_engine::builtins::promise::PromiseState as SettledState;

/// A promise created by this layer together with its resolving functions: the spec's
/// "a new promise" that the layer later resolves or rejects.
#[derive(Debug, Clone, Trace, Finalize)]
pub struct PromiseCapability {
    promise: JsPromise,
    resolvers: ResolvingFunctions,
}

impl PromiseCapability {
    /// <https://webidl.spec.whatwg.org/#a-new-promise>
    pub fn new(ctx: &mut Context) -> Self {
        let (promise, resolvers) = JsPromise::new_pending(ctx);
        Self { promise, resolvers }
    }

    /// The promise object itself, as handed to script.
    pub fn promise(&self) -> &JsPromise {
        &self.promise
    }

    /// <https://webidl.spec.whatwg.org/#resolve>
    ///
    /// Resolving with an object performs `Get(value, "then")`, as the spec requires; internal
    /// steps therefore never resolve with an object that script could have decorated.
    pub fn resolve(&self, value: JsValue, ctx: &mut Context) -> JsResult<()> {
        self.resolvers
            .resolve
            .call(&JsValue::undefined(), &[value], ctx)
            .map(drop)
    }

    /// <https://webidl.spec.whatwg.org/#reject>
    pub fn reject(&self, reason: JsValue, ctx: &mut Context) -> JsResult<()> {
        self.resolvers
            .reject
            .call(&JsValue::undefined(), &[reason], ctx)
            .map(drop)
    }

    /// Whether the promise is still pending.
    pub fn is_pending(&self) -> bool {
        matches!(self.promise.state(), PromiseState::Pending)
    }
}

/// <https://webidl.spec.whatwg.org/#a-promise-resolved-with>
pub fn promise_resolved_with(value: JsValue, ctx: &mut Context) -> JsResult<JsPromise> {
    let cap = PromiseCapability::new(ctx);
    cap.resolve(value, ctx)?;
    Ok(cap.promise.clone())
}

/// <https://webidl.spec.whatwg.org/#a-promise-rejected-with>
pub fn promise_rejected_with(reason: JsValue, ctx: &mut Context) -> JsResult<JsPromise> {
    let cap = PromiseCapability::new(ctx);
    cap.reject(reason, ctx)?;
    Ok(cap.promise.clone())
}

/// Runs `then` on `promise` without any observable lookup: for the duration of the call the
/// promise has no prototype, so SpeciesConstructor finds no `constructor` and falls back to
/// %Promise% (PerformPromiseThen itself is crate-private in Boa).
fn then_unobservably(
    promise: &JsPromise,
    on_fulfilled: Option<JsFunction>,
    on_rejected: Option<JsFunction>,
    ctx: &mut Context,
) -> JsResult<()> {
    let object: JsObject = promise.clone().into();
    let proto = object.prototype();
    object.set_prototype(None);
    let result = promise.then(on_fulfilled, on_rejected, ctx);
    object.set_prototype(proto);
    result.map(drop)
}

/// <https://webidl.spec.whatwg.org/#mark-a-promise-as-handled>
pub fn mark_as_handled(promise: &JsPromise, ctx: &mut Context) -> JsResult<()> {
    if let PromiseState::Fulfilled(_) = promise.state() {
        // A fulfilled promise can never be reported as unhandled.
        return Ok(());
    }
    let noop = NativeFunction::from_fn_ptr(|_, _, _| Ok(JsValue::undefined()));
    let noop = FunctionObjectBuilder::new(ctx.realm(), noop).build();
    then_unobservably(promise, None, Some(noop), ctx)
}

/// A reaction step run when a promise settles: it gets the captured data and the value or
/// reason. Errors it returns are reported by the job queue like any uncaught job error.
pub type ReactionStep<T> = fn(&T, JsValue, &mut Context) -> JsResult<()>;

/// <https://webidl.spec.whatwg.org/#upon-fulfillment> and
/// <https://webidl.spec.whatwg.org/#upon-rejection>: react to `promise` from Rust.
///
/// `data` is traced while the reaction is pending. No user-visible lookup happens.
pub fn react<T: Trace + 'static>(
    promise: &JsPromise,
    data: T,
    on_fulfilled: ReactionStep<T>,
    on_rejected: ReactionStep<T>,
    ctx: &mut Context,
) -> JsResult<()> {
    let data = boa_gc::Gc::new(Reaction {
        data,
        on_fulfilled,
        on_rejected,
    });
    let fulfilled = NativeFunction::from_copy_closure_with_captures(
        |_, args, reaction: &boa_gc::Gc<Reaction<T>>, ctx| {
            let value = args.first().cloned().unwrap_or_default();
            (reaction.on_fulfilled)(&reaction.data, value, ctx).map(|()| JsValue::undefined())
        },
        data.clone(),
    );
    let rejected = NativeFunction::from_copy_closure_with_captures(
        |_, args, reaction: &boa_gc::Gc<Reaction<T>>, ctx| {
            let reason = args.first().cloned().unwrap_or_default();
            (reaction.on_rejected)(&reaction.data, reason, ctx).map(|()| JsValue::undefined())
        },
        data,
    );
    let realm = ctx.realm().clone();
    let fulfilled = FunctionObjectBuilder::new(&realm, fulfilled).build();
    let rejected = FunctionObjectBuilder::new(&realm, rejected).build();
    then_unobservably(promise, Some(fulfilled), Some(rejected), ctx)
}

#[derive(Trace, Finalize)]
struct Reaction<T: Trace + 'static> {
    data: T,
    #[unsafe_ignore_trace]
    on_fulfilled: ReactionStep<T>,
    #[unsafe_ignore_trace]
    on_rejected: ReactionStep<T>,
}

/// Queues a microtask that runs Rust code (HTML "queue a microtask"). Values captured by the
/// closure are GC roots until it runs.
pub fn queue_microtask(
    ctx: &mut Context,
    job: impl FnOnce(&mut Context) -> JsResult<()> + 'static,
) {
    ctx.enqueue_job(Job::PromiseJob(PromiseJob::new(move |ctx| {
        job(ctx).map(|()| JsValue::undefined())
    })));
}

/// Calls a JS function value with `this` and arguments.
pub fn call(
    function: &JsValue,
    this: &JsValue,
    args: &[JsValue],
    ctx: &mut Context,
) -> JsResult<JsValue> {
    match function.as_callable() {
        Some(f) => f.call(this, args, ctx),
        None => Err(JsNativeError::typ()
            .with_message("value is not callable")
            .into()),
    }
}

/// Turns a thrown error into the JS value script would catch.
///
/// Uncatchable engine errors (runtime limits, engine panics) stay errors: they must propagate,
/// never be handed to script as a rejection reason.
pub fn thrown_value(error: JsError, ctx: &mut Context) -> JsResult<JsValue> {
    error.into_opaque(ctx)
}

/// A TypeError object, as the spec's "a TypeError".
pub fn type_error(message: &str, ctx: &mut Context) -> JsValue {
    JsError::from(JsNativeError::typ().with_message(message.to_owned()))
        .into_opaque(ctx)
        .unwrap_or_default()
}

/// A RangeError object, as the spec's "a RangeError".
pub fn range_error(message: &str, ctx: &mut Context) -> JsValue {
    JsError::from(JsNativeError::range().with_message(message.to_owned()))
        .into_opaque(ctx)
        .unwrap_or_default()
}

/// Forces a full garbage collection.
pub fn collect_garbage() {
    boa_gc::force_collect();
}
