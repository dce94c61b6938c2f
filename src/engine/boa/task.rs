//! Realms and agents: the current realm, its global object, %Error.prototype% and the data a
//! layer keeps per realm or per agent; tasks queued in a given realm (HTML's "queue a global
//! task" on the event loop of a port's relevant global object) and timer tasks; the clock.

use super::JsResult;
use super::{Cx, Object, Realm};
use boa_engine::{job::GenericJob, JsValue};

/// The current realm.
pub fn current_realm(ctx: &Cx) -> Realm {
    Realm(ctx.realm().clone())
}

/// Runs `f` with `realm` as the current realm, then makes the current realm what it was.
pub fn in_realm<R>(ctx: &mut Cx, realm: &Realm, f: impl FnOnce(&mut Cx) -> R) -> R {
    let previous = ctx.enter_realm(realm.0.clone());
    let result = f(ctx);
    ctx.enter_realm(previous);
    result
}

/// Queues a task on the host's event loop that runs Rust code in `realm`. Values captured by the
/// closure are GC roots until it runs.
pub fn queue_task_in(
    ctx: &mut Cx,
    realm: Realm,
    job: impl FnOnce(&mut Cx) -> JsResult<()> + 'static,
) {
    ctx.enqueue_job(
        GenericJob::new(
            move |ctx| job(ctx).map(|()| JsValue::undefined()).map_err(Into::into),
            realm.0,
        )
        .into(),
    );
}

/// Queues a timer task: `job` runs in the current realm once `milliseconds` have passed (HTML's
/// timer task source; the host's event loop orders it among the other tasks).
pub fn queue_timer(
    ctx: &mut Cx,
    milliseconds: u64,
    job: impl FnOnce(&mut Cx) -> JsResult<()> + 'static,
) {
    let job = boa_engine::job::NativeJob::with_realm(
        move |ctx| job(ctx).map(|()| JsValue::undefined()).map_err(Into::into),
        ctx.realm().clone(),
    );
    ctx.enqueue_job(boa_engine::job::TimeoutJob::new(job, milliseconds).into());
}

/// The current realm's global object.
pub fn global_object(ctx: &Cx) -> Object {
    ctx.global_object().into()
}

/// Stores `data` with the current realm (one value per type; a second one replaces the first):
/// what a layer keeps per realm, its interface objects and prototypes.
pub fn set_realm_data<T: boa_engine::NativeObject>(ctx: &Cx, data: T) {
    ctx.realm().host_defined_mut().insert(data);
}

/// Runs `f` on the current realm's data of type `T`, if it has one (a short borrow: `f` must
/// not call into JavaScript).
pub fn with_realm_data<T: boa_engine::NativeObject, R>(
    ctx: &Cx,
    f: impl FnOnce(&T) -> R,
) -> Option<R> {
    ctx.realm().host_defined().get::<T>().map(f)
}

/// Stores `data` with the agent (the context: one per thread; one value per type).
pub fn set_agent_data<T: std::any::Any>(ctx: &mut Cx, data: T) {
    ctx.insert_data(data);
}

/// The agent's data of type `T`, if it has one.
pub fn agent_data<T: std::any::Any>(ctx: &Cx) -> Option<&T> {
    ctx.get_data::<T>()
}

/// The current realm's %Error.prototype%.
pub fn error_prototype(ctx: &Cx) -> Object {
    ctx.intrinsics().constructors().error().prototype().into()
}

/// The current realm's %Iterator.prototype%.
pub fn iterator_prototype(ctx: &Cx) -> Object {
    Object::from(ctx.intrinsics().constructors().iterator().prototype())
}

/// The current realm's %AsyncIteratorPrototype%.
pub fn async_iterator_prototype(ctx: &Cx) -> Object {
    Object::from(
        ctx.intrinsics()
            .objects()
            .iterator_prototypes()
            .async_iterator(),
    )
}

/// The engine clock's reading, in nanoseconds since an origin that stays fixed for the agent
/// (the clock behind HR-Time's monotonic clock).
pub fn clock_nanos(ctx: &Cx) -> u128 {
    ctx.clock().now().nanos_since_epoch()
}
