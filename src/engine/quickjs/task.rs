//! Realms and agents: the current realm, its global object, %Error.prototype% and the data a
//! layer keeps per realm or per agent; tasks queued in a given realm and timer tasks (handed
//! to the host's event loop, `runtime.rs`); the clock.

use super::core::q;
use super::intrinsics::Intrinsic;
use super::{Cx, JsResult, NativeObject, Object, Realm, Value};

/// The current realm.
pub fn current_realm(ctx: &Cx) -> Realm {
    Realm::of(ctx.raw())
}

/// Runs `f` with `realm` as the current realm, then makes the current realm what it was.
pub fn in_realm<R>(ctx: &mut Cx, realm: &Realm, f: impl FnOnce(&mut Cx) -> R) -> R {
    if realm.0 == ctx.raw() {
        return f(ctx);
    }
    ctx.in_realm(realm.0, f)
}

/// Queues a task on the host's event loop that runs Rust code in `realm`. Values captured by
/// the closure are roots until it runs.
pub fn queue_task_in(
    ctx: &mut Cx,
    realm: Realm,
    job: impl FnOnce(&mut Cx) -> JsResult<()> + 'static,
) {
    super::runtime::enqueue_task(ctx, Box::new(move |cx| in_realm(cx, &realm, job)));
}

/// Queues a timer task: `job` runs in the current realm once `milliseconds` have passed.
pub fn queue_timer(
    ctx: &mut Cx,
    milliseconds: u64,
    job: impl FnOnce(&mut Cx) -> JsResult<()> + 'static,
) {
    let realm = current_realm(ctx);
    super::runtime::enqueue_timer(
        ctx,
        std::time::Duration::from_millis(milliseconds),
        Box::new(move |cx| in_realm(cx, &realm, job)),
        None,
    );
}

/// The current realm's global object.
pub fn global_object(ctx: &Cx) -> Object {
    // SAFETY: `ctx`'s context is live (`Cx`'s invariant); `JS_GetGlobalObject` returns a new
    // reference (it dups the global object), which the `Value` owns.
    let raw = unsafe { q::JS_GetGlobalObject(ctx.raw()) };
    Object::from_value_unchecked(Value::from_raw(ctx.rt(), raw))
}

/// Stores `data` with the current realm (one value per type; a second one replaces the
/// first). Values it holds are roots until the realm ends.
pub fn set_realm_data<T: NativeObject>(ctx: &Cx, data: T) {
    ctx.realm_state().set_data(data);
}

/// Runs `f` on the current realm's data of type `T`, if it has one (a short borrow: `f` must
/// not call into JavaScript).
pub fn with_realm_data<T: NativeObject, R>(ctx: &Cx, f: impl FnOnce(&T) -> R) -> Option<R> {
    ctx.realm_state().with_data(f)
}

/// Stores `data` with the agent (one value per type).
pub fn set_agent_data<T: std::any::Any>(ctx: &mut Cx, data: T) {
    ctx.agent().set_data(data);
}

/// The agent's data of type `T`, if it has one.
pub fn agent_data<T: std::any::Any>(ctx: &Cx) -> Option<&T> {
    ctx.agent().data::<T>()
}

/// The current realm's %Error.prototype%.
pub fn error_prototype(ctx: &Cx) -> Object {
    intrinsic_object(ctx, Intrinsic::ErrorPrototype)
}

/// The current realm's %AsyncIteratorPrototype%.
pub fn async_iterator_prototype(ctx: &Cx) -> Object {
    intrinsic_object(ctx, Intrinsic::AsyncIteratorPrototype)
}

/// The current realm's %Iterator.prototype%.
pub fn iterator_prototype(ctx: &Cx) -> Object {
    intrinsic_object(ctx, Intrinsic::IteratorPrototype)
}

/// A captured intrinsic object of the current realm.
pub(crate) fn intrinsic_object(ctx: &Cx, name: Intrinsic) -> Object {
    let value = ctx.realm_state().intrinsic(name);
    Object::from_value_unchecked(value)
}

/// The clock's reading in nanoseconds since the agent started (monotonic).
pub fn clock_nanos(ctx: &Cx) -> u128 {
    ctx.agent().origin.elapsed().as_nanos()
}
