//! The job queue: microtasks that run Rust code.

use super::Cx;
use super::JsResult;
use boa_engine::{
    job::{Job, PromiseJob},
    JsValue,
};

/// Queues a microtask that runs Rust code (HTML "queue a microtask"). Values captured by the
/// closure are GC roots until it runs.
pub fn queue_microtask(ctx: &mut Cx, job: impl FnOnce(&mut Cx) -> JsResult<()> + 'static) {
    ctx.enqueue_job(Job::PromiseJob(PromiseJob::new(move |ctx| {
        job(ctx).map(|()| JsValue::undefined()).map_err(Into::into)
    })));
}

/// Queues a task (HTML "queue a global task") on the host's event loop that runs Rust code.
/// Values captured by the closure are GC roots until it runs.
pub fn queue_task(ctx: &mut Cx, job: impl FnOnce(&mut Cx) -> JsResult<()> + 'static) {
    let realm = ctx.realm().clone();
    ctx.enqueue_job(
        boa_engine::job::GenericJob::new(
            move |ctx| job(ctx).map(|()| JsValue::undefined()).map_err(Into::into),
            realm,
        )
        .into(),
    );
}
