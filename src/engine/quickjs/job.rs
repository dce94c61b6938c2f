//! The job queue: microtasks that run Rust code, on the engine's own job queue (the FIFO that
//! holds promise reaction jobs, so they interleave exactly as HTML's microtask queue would),
//! and tasks for the host's event loop.

use std::ffi::c_int;

use super::core::{agent_of, q, take_exception, throw, Job, UNDEFINED};
use super::{current_realm, queue_task_in, Cx, JsResult};

/// The `JSJobFunc` of a Rust microtask: runs the front of the agent's microtask queue. Each
/// queued microtask put exactly one such entry on the engine's FIFO, so entries and closures
/// pair up in order; no object is made per microtask.
unsafe extern "C" fn run_microtask(
    ctx: *mut q::JSContext,
    _argc: c_int,
    _argv: *mut q::JSValue,
) -> q::JSValue {
    let job = agent_of(q::JS_GetRuntime(ctx))
        .microtasks
        .borrow_mut()
        .pop_front();
    let Some(job) = job else {
        return UNDEFINED;
    };
    let mut cx = Cx::enter(ctx);
    match job(&mut cx) {
        Ok(()) => UNDEFINED,
        Err(error) => throw(&mut cx, error),
    }
}

/// Queues a microtask that runs Rust code (HTML "queue a microtask") in the current realm, on
/// the engine's job queue. Values captured by the closure are roots until it runs (or until
/// the runtime ends).
pub fn queue_microtask(ctx: &mut Cx, job: impl FnOnce(&mut Cx) -> JsResult<()> + 'static) {
    let job: Job = Box::new(job);
    ctx.agent().microtasks.borrow_mut().push_back(job);
    // SAFETY: a live context; the entry has no argument.
    let status =
        unsafe { q::JS_EnqueueJob(ctx.raw(), Some(run_microtask), 0, std::ptr::null_mut()) };
    if status < 0 {
        // Out of memory: no entry was queued, so the closure is taken back.
        let job = ctx.agent().microtasks.borrow_mut().pop_back();
        drop(job);
        drop(take_exception(ctx));
    }
}

/// Queues a task (HTML "queue a global task") on the host's event loop that runs Rust code in
/// the current realm. Values captured by the closure are roots until it runs.
pub fn queue_task(ctx: &mut Cx, job: impl FnOnce(&mut Cx) -> JsResult<()> + 'static) {
    let realm = current_realm(ctx);
    queue_task_in(ctx, realm, job);
}
