//! Promises and reactions on QuickJS: "a new promise" (`JS_NewPromiseCapability`), resolve and
//! reject, mark as handled (`JS_PromiseMarkAsHandled`), and reacting to a promise from Rust
//! through `JS_PromiseThen`, which is PerformPromiseThen with an intrinsic result promise: no
//! `then` or `@@species` lookup, so unlike on Boa no reaction ever waits in Rust
//! ([`run_deferred_reactions`] has nothing to do).

use std::ffi::{c_int, c_void};

use super::call::new_hidden_closure;
use super::core::{check, current_ctx, q, take_exception, KnownAtom, Marker, Trace, UNDEFINED};
use super::intrinsics::Intrinsic;
use super::*;

/// A promise created by this layer together with its resolving functions: the spec's
/// "a new promise" that the layer later resolves or rejects.
#[derive(Clone, Debug)]
pub struct PromiseCapability {
    promise: JsPromise,
    resolve: Value,
    reject: Value,
}

impl Trace for PromiseCapability {
    fn trace(&self, m: &mut Marker) {
        self.promise.trace(m);
        self.resolve.trace(m);
        self.reject.trace(m);
    }
}

/// A reaction step run when a promise settles: it gets the captured data and the value or
/// reason. Errors it returns are reported by the job queue like any uncaught job error.
pub type ReactionStep<T> = fn(&T, Value, &mut Cx) -> JsResult<()>;

impl JsPromise {
    /// <https://tc39.es/ecma262/#sec-promise-resolve>: PromiseResolve(%Promise%, value) (a
    /// promise whose `constructor` is %Promise% is returned as it is; anything else is wrapped
    /// in a new promise, which reads a thenable's `then`).
    pub fn resolve(value: Value, ctx: &mut Cx) -> JsResult<Self> {
        let resolve = ctx.realm_state().intrinsic(Intrinsic::PromiseResolve);
        let constructor = ctx.realm_state().intrinsic(Intrinsic::Promise);
        let promise = call(&resolve, &constructor, &[value], ctx)?;
        // SAFETY: `promise` owns a count of its `JSValue` (`Value`'s invariant), so an object
        // is allocated; `JS_IsPromise` reads the tag and, for an object, its class id.
        if unsafe { q::JS_IsPromise(promise.raw()) } {
            Ok(JsPromise(Object::from_value_unchecked(promise)))
        } else {
            Err(throw_type_error("Promise.resolve did not return a promise"))
        }
    }
}

impl PromiseCapability {
    /// <https://webidl.spec.whatwg.org/#a-new-promise> (in the current realm).
    ///
    /// Only running out of memory makes `JS_NewPromiseCapability` fail; the capability then
    /// holds `undefined` (it is never pending, and resolving it throws a TypeError).
    pub fn new(ctx: &mut Cx) -> Self {
        crate::engine::count_objects(3);
        let mut funcs = [UNDEFINED; 2];
        // SAFETY: `ctx`'s context is live (`Cx`'s invariant); `funcs` is valid for QuickJS to
        // write two `JSValue`s. On success the result and both functions are owned values of
        // `ctx`'s runtime; on failure the result is `JS_EXCEPTION` and `funcs` hold
        // `undefined` (left as they were, or reset by `js_create_resolving_functions` after
        // it frees what it made), which has no count. With no constructor, no script runs.
        let raw = unsafe { q::JS_NewPromiseCapability(ctx.raw(), funcs.as_mut_ptr()) };
        let rt = ctx.rt();
        let promise = check(ctx, raw).unwrap_or_default();
        // Owned values of `rt`, or `undefined` (above): `Value::from_raw`'s contract.
        Self {
            promise: JsPromise(Object::from_value_unchecked(promise)),
            resolve: Value::from_raw(rt, funcs[0]),
            reject: Value::from_raw(rt, funcs[1]),
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
        call(&self.resolve, &Value::undefined(), &[value], ctx).map(drop)
    }

    /// <https://webidl.spec.whatwg.org/#reject>
    pub fn reject(&self, reason: Value, ctx: &mut Cx) -> JsResult<()> {
        call(&self.reject, &Value::undefined(), &[reason], ctx).map(drop)
    }

    /// Whether the promise is still pending.
    pub fn is_pending(&self) -> bool {
        promise_state(self.promise.0.as_value()) == q::JSPromiseStateEnum_JS_PROMISE_PENDING
    }
}

/// `JS_PromiseState` (`JS_PROMISE_NOT_A_PROMISE` for anything but a promise).
fn promise_state(promise: &Value) -> q::JSPromiseStateEnum {
    // SAFETY: `JS_PromiseState` never reads its context argument (quickjs.c: it only calls
    // `JS_GetOpaque(promise, JS_CLASS_PROMISE)` and reads the state), so a null one, outside
    // any entry, is fine. `promise` owns a count of its `JSValue` (`Value`'s invariant), so an
    // object is allocated, and a promise's opaque is its `JSPromiseData`, which the object
    // owns while it lives (or null: then the answer is "not a promise").
    unsafe { q::JS_PromiseState(current_ctx(), promise.raw()) }
}

/// `JS_PromiseResult`: the value or reason of a settled promise.
fn promise_result(promise: &Value, ctx: &Cx) -> Value {
    // SAFETY: `ctx`'s context is live (`Cx`'s invariant) and `promise` a live value of its
    // runtime (`Value`'s invariant), borrowed. QuickJS returns a new reference to the result
    // (`js_dup`), or `undefined` for a non-promise, with no exception possible.
    let raw = unsafe { q::JS_PromiseResult(ctx.raw(), promise.raw()) };
    // An owned value of `ctx`'s runtime: `Value::from_raw`'s contract.
    Value::from_raw(ctx.rt(), raw)
}

/// <https://webidl.spec.whatwg.org/#mark-a-promise-as-handled>: sets [[PromiseIsHandled]]
/// (`JS_PromiseMarkAsHandled`, which also tells the host's rejection tracker when the promise
/// was a rejected, unhandled one). Nothing script can observe happens here.
pub fn mark_as_handled(promise: &JsPromise, ctx: &mut Cx) -> JsResult<()> {
    // SAFETY: `ctx`'s context is live (`Cx`'s invariant) and the promise a live value of its
    // runtime (`Value`'s invariant), borrowed (a no-op for a non-promise). For a rejected,
    // unhandled promise QuickJS first calls the host's rejection tracker, Rust code of the
    // host's, with `ctx` borrowed mutably by this call.
    unsafe { q::JS_PromiseMarkAsHandled(ctx.raw(), promise.0.raw()) };
    Ok(())
}

/// The head of quickjs-ng's `JSPromiseData` (quickjs.c, 0.16.2: the promise object's opaque),
/// up to `is_handled`, the [[PromiseIsHandled]] slot. QuickJS has no public getter for it.
///
/// Every field takes any initialized bit pattern (`is_handled` is a `u8`, not a `bool`), so
/// reading the head is sound even were the layout to drift in a later rquickjs-sys 0.14.x
/// (Cargo.toml asks for `0.14`): a wrong answer, never undefined behavior.
#[repr(C)]
#[derive(Clone, Copy)]
struct PromiseDataHead {
    /// `JSPromiseStateEnum promise_state`.
    promise_state: c_int,
    /// `struct list_head promise_reactions[2]` (two pairs of pointers).
    promise_reactions: [[*mut c_void; 2]; 2],
    /// `bool is_handled`.
    is_handled: u8,
}

/// Whether [[PromiseIsHandled]] is set on `promise`: the streams layer marked it as handled
/// ("mark as handled"), or something reacted to it (PerformPromiseThen sets it too). A host
/// that reports unhandled rejections skips these promises.
///
/// QuickJS keeps the flag in the promise's private `JSPromiseData` and exports no getter, so
/// it is read through [`PromiseDataHead`], a mirror of that struct's head in the pinned
/// quickjs-ng (rquickjs-sys 0.14.0); the mirror is trusted only while its `promise_state` agrees
/// with `JS_PromiseState`, and the unit tests check the flag on marked, reacted-to and fresh
/// promises. (The host's rejection tracker needs it rarely: QuickJS never reports a promise
/// whose flag is set.)
pub fn is_marked_as_handled(promise: &Object, ctx: &mut Cx) -> bool {
    let value = promise.as_value();
    // SAFETY: `value` owns a count of its `JSValue` (`Value`'s invariant), so an object is
    // allocated; `JS_IsPromise` reads the tag and, for an object, its class id.
    if !unsafe { q::JS_IsPromise(value.raw()) } {
        return false;
    }
    // SAFETY: `value` is a live object (above); `JS_GetClassID` reads its class id, the
    // promise class's.
    let class = unsafe { q::JS_GetClassID(value.raw()) };
    // SAFETY: `value` is a live object of class `class`; `JS_GetOpaque` returns its opaque.
    let data = unsafe { q::JS_GetOpaque(value.raw(), class) }.cast::<PromiseDataHead>();
    if data.is_null() {
        return false;
    }
    // SAFETY: a promise's opaque is its `JSPromiseData`, allocated (`js_mallocz`, so aligned
    // for any field and zero-filled before it is set up) when the promise is made and freed
    // only by its finalizer, so alive while `promise` holds the object. `PromiseDataHead`
    // mirrors a prefix of it (the whole struct also holds the result `JSValue` after the
    // head), so the read stays in the allocation, and each of its fields takes any
    // initialized bits (see the type). The head is copied out; nothing writes it meanwhile
    // (no script runs, and the runtime is this thread's).
    let head = unsafe { data.read() };
    // SAFETY: `ctx`'s context is live (`Cx`'s invariant) and `value` a live value of its
    // runtime (`Value`'s invariant); `JS_PromiseState` reads the state through the opaque.
    let state = unsafe { q::JS_PromiseState(ctx.raw(), value.raw()) };
    head.promise_state == state && head.is_handled != 0
}

/// A reaction: the captured data and both steps, shared by the two reaction functions.
struct Reaction<T: Trace + 'static> {
    data: T,
    on_fulfilled: ReactionStep<T>,
    on_rejected: ReactionStep<T>,
}

impl<T: Trace + 'static> Trace for Reaction<T> {
    fn trace(&self, m: &mut Marker) {
        self.data.trace(m);
    }
}

/// <https://webidl.spec.whatwg.org/#upon-fulfillment> and
/// <https://webidl.spec.whatwg.org/#upon-rejection>: react to `promise` from Rust, with
/// PerformPromiseThen's timing and no user-visible lookup.
///
/// - A settled promise: the reaction is queued as a microtask at once, as PerformPromiseThen
///   queues a reaction job for a settled promise (a rejected one is marked as handled).
/// - A pending promise: `JS_PromiseThen` with two reaction functions over the shared
///   reaction (PerformPromiseThen with an intrinsic result promise; a step's error rejects
///   that result promise, as a throwing handler of `then` would).
///
/// `data` is traced while the reaction is pending.
pub fn react<T: Trace + 'static>(
    promise: &JsPromise,
    data: T,
    on_fulfilled: ReactionStep<T>,
    on_rejected: ReactionStep<T>,
    ctx: &mut Cx,
) -> JsResult<()> {
    let value = promise.0.as_value();
    match promise_state(value) {
        q::JSPromiseStateEnum_JS_PROMISE_FULFILLED => {
            let result = promise_result(value, ctx);
            queue_microtask(ctx, move |ctx| on_fulfilled(&data, result, ctx));
            return Ok(());
        }
        q::JSPromiseStateEnum_JS_PROMISE_REJECTED => {
            mark_as_handled(promise, ctx)?;
            let reason = promise_result(value, ctx);
            queue_microtask(ctx, move |ctx| on_rejected(&data, reason, ctx));
            return Ok(());
        }
        q::JSPromiseStateEnum_JS_PROMISE_PENDING => {}
        _ => return Err(throw_type_error("not a promise")),
    }
    crate::engine::count_objects(3);
    let reaction = Shared::new(Reaction {
        data,
        on_fulfilled,
        on_rejected,
    });
    // The handlers are reachable only through the promise's reaction records (nothing gives
    // them to script), so they need no `length` or `name`.
    let fulfilled = new_hidden_closure(
        ctx,
        reaction.clone(),
        |reaction: &Shared<Reaction<T>>, _, args, ctx| {
            let value = args.first().cloned().unwrap_or_default();
            (reaction.on_fulfilled)(&reaction.data, value, ctx).map(|()| Value::undefined())
        },
    );
    let rejected = new_hidden_closure(
        ctx,
        reaction,
        |reaction: &Shared<Reaction<T>>, _, args, ctx| {
            let reason = args.first().cloned().unwrap_or_default();
            (reaction.on_rejected)(&reaction.data, reason, ctx).map(|()| Value::undefined())
        },
    );
    // SAFETY: `ctx`'s context is live (`Cx`'s invariant); the promise and both functions are
    // live values of its runtime (`Value`'s invariant), borrowed for the call (the reactions
    // QuickJS records dup the handlers). The promise is pending (checked above, and nothing
    // ran since). No script runs: `JS_PromiseThen` makes an intrinsic result promise without
    // a `then` or `@@species` lookup. The result is owned, or `JS_EXCEPTION`, as `check`
    // takes it.
    let raw = unsafe { q::JS_PromiseThen(ctx.raw(), value.raw(), fulfilled.raw(), rejected.raw()) };
    check(ctx, raw).map(drop)
}

/// Boa queues here the reactions it had to hold in Rust; QuickJS's `JS_PromiseThen` never
/// needs that ([`react`]), so there is nothing to do (and the QuickJS host has no call to it).
#[allow(dead_code)]
pub fn run_deferred_reactions(_ctx: &mut Cx) {}

/// The promise intrinsics are captured with the realm's other intrinsics when it is set up,
/// before any script runs ([`INTRINSICS`]): nothing is left to remember here.
pub fn remember_promise_intrinsics(_ctx: &mut Cx) {}

/// `Get(object, "then")`, as a promise resolve function reads it: may run script (a getter,
/// a proxy trap). The name is the agent's atom, so the read makes no string.
pub fn get_then(object: &Object, ctx: &mut Cx) -> JsResult<Value> {
    super::call::get_known(object, KnownAtom::Then, ctx)
}

/// An own property of an ordinary object, read without running script.
enum Own {
    /// No such own property.
    Absent,
    /// A data property and its value.
    Data(Value),
    /// An accessor property and its getter.
    Accessor(Value),
    /// The read failed (out of memory): treated as "not the original".
    Unknown,
}

/// The own property `key` of `object` (an ordinary object: a promise, %Promise% or
/// %Promise.prototype%, whose [[GetOwnProperty]] runs no script).
fn own_property(object: &Value, key: OwnKey, ctx: &mut Cx) -> Own {
    // (`owned`: the atom is ours to free, not the agent's.)
    let (atom, owned) = match key {
        OwnKey::Then => (ctx.agent().known_atom(ctx, KnownAtom::Then), false),
        OwnKey::Constructor => (ctx.agent().known_atom(ctx, KnownAtom::Constructor), false),
        OwnKey::Species => {
            let species = ctx.realm_state().intrinsic(Intrinsic::SymbolSpecies);
            // SAFETY: `ctx` is live and `species` a live value of its runtime (`Value`'s
            // invariant), borrowed: the captured `Symbol.species`, a symbol, so converting it
            // runs no script. The atom returned (or 0) is ours, freed below.
            (unsafe { q::JS_ValueToAtom(ctx.raw(), species.raw()) }, true)
        }
    };
    if atom == 0 {
        drop(take_exception(ctx));
        return Own::Unknown;
    }
    let mut desc = std::mem::MaybeUninit::<q::JSPropertyDescriptor>::zeroed();
    // SAFETY: `ctx`'s context is live (`Cx`'s invariant); `object` is a live value of its
    // runtime (`Value`'s invariant), borrowed, an ordinary object (this function's contract),
    // so no trap runs, and `atom` a live atom we own. `desc` is valid for writes of one
    // descriptor, which QuickJS fills in only when it finds the property.
    let status = unsafe { q::JS_GetOwnProperty(ctx.raw(), desc.as_mut_ptr(), object.raw(), atom) };
    if owned {
        // SAFETY: `ctx` is live; `atom` is ours (made above), given back once.
        unsafe { q::JS_FreeAtom(ctx.raw(), atom) };
    }
    if status < 0 {
        drop(take_exception(ctx));
        return Own::Unknown;
    }
    if status == 0 {
        return Own::Absent;
    }
    // SAFETY: the descriptor was zeroed, and all-zero bytes are a valid
    // `JSPropertyDescriptor` (flags 0, three `JSValue`s with tag 0, `JS_TAG_INT`, and an
    // initialized payload); QuickJS wrote whole fields over that (all four for a found
    // property, in `JS_GetOwnPropertyInternal2`).
    let desc = unsafe { desc.assume_init() };
    let rt = ctx.rt();
    // The three values are owned by us (QuickJS dups what it writes; `undefined` and a zeroed
    // field have no count): `Value::from_raw`'s contract.
    let (value, getter, setter) = (
        Value::from_raw(rt, desc.value),
        Value::from_raw(rt, desc.getter),
        Value::from_raw(rt, desc.setter),
    );
    drop(setter);
    if desc.flags & q::JS_PROP_GETSET as c_int != 0 {
        Own::Accessor(getter)
    } else {
        Own::Data(value)
    }
}

/// The property names [`own_property`] reads.
#[derive(Clone, Copy)]
enum OwnKey {
    Then,
    Constructor,
    Species,
}

/// Whether `object` has no own property `key` (false if that cannot be told).
fn lacks_own(object: &Value, key: OwnKey, ctx: &mut Cx) -> bool {
    matches!(own_property(object, key, ctx), Own::Absent)
}

/// Whether the own property `key` of `object` is a data property holding `expected`.
fn own_data_is(object: &Value, key: OwnKey, expected: &Value, ctx: &mut Cx) -> bool {
    matches!(own_property(object, key, ctx), Own::Data(v) if v.is_object() && v == *expected)
}

/// `object`'s [[Prototype]] (an ordinary object's: no script runs).
fn prototype_of(object: &Value, ctx: &mut Cx) -> Value {
    // SAFETY: `ctx`'s context is live (`Cx`'s invariant) and `object` a live value of its
    // runtime (`Value`'s invariant), borrowed: an ordinary object (no proxy trap runs), or a
    // primitive. quickjs-ng returns a new reference (`js_dup`; unlike older QuickJS, whose
    // result was borrowed), or `JS_EXCEPTION`, as `check` takes it.
    let raw = unsafe { q::JS_GetPrototype(ctx.raw(), object.raw()) };
    check(ctx, raw).unwrap_or_default()
}

/// Whether resolving a promise with a fresh, untouched JS promise `p` (its prototype
/// %Promise.prototype%, no own properties) would be unobservable: the resolution's
/// `Get(p, "then")` finds a data property holding the original `then`, and that `then`'s
/// SpeciesConstructor finds a data `constructor` that is %Promise% whose `@@species` getter is
/// the original. Only own properties are read, without running JavaScript. Where this holds,
/// such a promise can be a Rust [`InternalPromise`](super::internal_promise::InternalPromise)
/// and the thenable job a Rust reaction, with the same jobs in the same order.
pub fn fresh_promise_then_is_intrinsic(ctx: &mut Cx) -> bool {
    let proto = ctx.realm_state().intrinsic(Intrinsic::PromisePrototype);
    let then = ctx.realm_state().intrinsic(Intrinsic::PromisePrototypeThen);
    own_data_is(&proto, OwnKey::Then, &then, ctx) && species_lookup_is_intrinsic(None, ctx)
}

/// `%Promise.prototype%.then` as it was when the realm was set up: the `then` that a
/// resolution reads from a promise [`untouched_promise`] vouched for.
pub fn original_promise_then(ctx: &mut Cx) -> Option<Object> {
    ctx.realm_state()
        .intrinsic(Intrinsic::PromisePrototypeThen)
        .as_object()
}

/// Whether SpeciesConstructor(p, %Promise%), as the original `then` performs it when a
/// NewPromiseResolveThenableJob calls it, reaches %Promise% without running script: `p` (a
/// promise of script's, or, for `None`, a fresh %Promise% the layer keeps in Rust) has no own
/// `constructor` and %Promise.prototype% as its prototype, whose `constructor` is a data
/// property holding %Promise%, whose `@@species` getter is the original. Script can change
/// any of these between the resolution that read `then` and the job, so the job asks again.
pub fn species_lookup_is_intrinsic(promise: Option<&JsPromise>, ctx: &mut Cx) -> bool {
    let proto = ctx.realm_state().intrinsic(Intrinsic::PromisePrototype);
    if let Some(promise) = promise {
        let object = promise.0.as_value();
        if !lacks_own(object, OwnKey::Constructor, ctx) || prototype_of(object, ctx) != proto {
            return false;
        }
    }
    let constructor = ctx.realm_state().intrinsic(Intrinsic::Promise);
    let getter = ctx.realm_state().intrinsic(Intrinsic::PromiseSpeciesGetter);
    let constructor_ok = own_data_is(&proto, OwnKey::Constructor, &constructor, ctx);
    let species_ok = matches!(
        own_property(&constructor, OwnKey::Species, ctx),
        Own::Accessor(g) if g.is_object() && g == getter
    );
    constructor_ok && species_ok
}

/// The Gets of SpeciesConstructor(p, %Promise%) for a fresh %Promise% `p` that the layer keeps
/// in Rust, where [`species_lookup_is_intrinsic`] says script has decorated them: `constructor`
/// through %Promise.prototype% (an accessor sees the prototype as its receiver, since `p` has
/// no object), then, for an object, its `@@species`. A throw is the `then` call's throw. What
/// they return does not change the adoption: the Rust promise stands for `p` and is adopted as
/// with %Promise% (an approximation only where script makes them return another constructor).
pub fn species_lookups_of_fresh_promise(ctx: &mut Cx) -> JsResult<()> {
    let proto =
        Object::from_value_unchecked(ctx.realm_state().intrinsic(Intrinsic::PromisePrototype));
    let c = proto.get("constructor", ctx)?;
    if let Some(c) = c.as_object() {
        let species = ctx.realm_state().intrinsic(Intrinsic::SymbolSpecies);
        c.get(PropertyKey::from_value(&species), ctx)?;
    } else if !c.is_undefined() {
        return Err(throw_type_error(
            "the promise's constructor is not an object",
        ));
    }
    Ok(())
}

/// IsPromise(value) (<https://tc39.es/ecma262/#sec-ispromise>).
pub fn is_promise(value: &Value) -> bool {
    // SAFETY: `value` owns a count of its `JSValue` (`Value`'s invariant), so an object is
    // allocated; `JS_IsPromise` reads the tag and, for an object, its class id.
    unsafe { q::JS_IsPromise(value.raw()) }
}

/// `value` as a JS promise, if "a promise resolved with" it would adopt it unobservably: a
/// promise with no own `then` or `constructor` and %Promise.prototype% as its prototype, while
/// [`fresh_promise_then_is_intrinsic`] holds. Its `then` is then the original, called (in the
/// thenable job) on a promise whose SpeciesConstructor is %Promise%: the adoption is
/// PerformPromiseThen(value, resolve, reject), which a Rust reaction ([`react`]) can stand for.
pub fn untouched_promise(value: &Value, ctx: &mut Cx) -> Option<JsPromise> {
    if !is_promise(value) {
        return None;
    }
    let proto = ctx.realm_state().intrinsic(Intrinsic::PromisePrototype);
    let untouched = lacks_own(value, OwnKey::Then, ctx)
        && lacks_own(value, OwnKey::Constructor, ctx)
        && prototype_of(value, ctx) == proto;
    (untouched && fresh_promise_then_is_intrinsic(ctx))
        .then(|| JsPromise(Object::from_value_unchecked(value.clone())))
}
