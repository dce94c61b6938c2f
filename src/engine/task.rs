//! Realms, and tasks queued in a given realm (HTML's "queue a global task" on the event loop of
//! a port's relevant global object).

use boa_engine::{job::GenericJob, Context, JsResult, JsValue};

/// A realm (its intrinsics and global object).
pub type Realm = boa_engine::realm::Realm;

/// The current realm.
pub fn current_realm(ctx: &Context) -> Realm {
    ctx.realm().clone()
}

/// Queues a task on the host's event loop that runs Rust code in `realm`. Values captured by the
/// closure are GC roots until it runs.
pub fn queue_task_in(
    ctx: &mut Context,
    realm: Realm,
    job: impl FnOnce(&mut Context) -> JsResult<()> + 'static,
) {
    ctx.enqueue_job(
        GenericJob::new(move |ctx| job(ctx).map(|()| JsValue::undefined()), realm).into(),
    );
}
