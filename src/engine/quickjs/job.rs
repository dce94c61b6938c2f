//! The job queue: microtasks that run Rust code, on the engine's own job queue (the FIFO that
//! holds promise reaction jobs, so they interleave exactly as HTML's microtask queue would),
//! and tasks for the host's event loop.

use std::ffi::c_int;

use super::core::{agent_of, q, take_exception, throw, Job, UNDEFINED};
use super::{current_realm, queue_task_in, Cx, JsResult};

/// The `JSJobFunc` of a Rust microtask: runs the front of the agent's microtask queue. Each
/// queued microtask put exactly one such entry on the engine's FIFO, so entries and closures
/// pair up in order; no object is made per microtask.
///
/// # Safety
/// Only QuickJS calls it, from `JS_ExecutePendingJob` (quickjs.c) for an entry that
/// [`queue_microtask`] put on the job queue, and guarantees on entry:
/// - it runs on the thread that called `JS_ExecutePendingJob` for the runtime (the runtime's
///   thread), outside any collection;
/// - `ctx` is the context the entry was queued with. The entry holds no count of it: it is
///   live because the host keeps every context of the runtime until its teardown, and
///   `JS_FreeRuntime` frees the entries left then without running them;
/// - `_argv` points to `_argc` (0 here) borrowed values;
/// - the job may re-enter the engine (run script, queue jobs).
///
/// It returns an owned value (QuickJS frees it), or `JS_EXCEPTION` with the exception pending
/// (`JS_ExecutePendingJob` then returns -1 and the host takes it). A panic cannot unwind out
/// of it: it aborts.
unsafe extern "C" fn run_microtask(
    ctx: *mut q::JSContext,
    _argc: c_int,
    _argv: *mut q::JSValue,
) -> q::JSValue {
    // SAFETY: `ctx` is live (QuickJS's guarantee on entry, above); this reads its `rt` field.
    let rt = unsafe { q::JS_GetRuntime(ctx) };
    // The runtime of a live context of this backend: its agent is installed.
    let job = agent_of(rt).microtasks.borrow_mut().pop_front();
    let Some(job) = job else {
        return UNDEFINED;
    };
    // SAFETY: `ctx` is a live context of this runtime until the runtime's teardown (above),
    // with its agent and realm state installed (both last until then, and no job runs during
    // it). `cx` is dropped before this function returns, inside the `Cx` of the code that
    // called `JS_ExecutePendingJob`, so handles nest.
    let mut cx = unsafe { Cx::enter(ctx) };
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
    // SAFETY: `ctx`'s context is live (`Cx`'s invariant) and `run_microtask` keeps the
    // `JSJobFunc` contract (its `# Safety`); with `argc` 0 QuickJS reads no argument, so a
    // null `argv` is fine. The entry stores `ctx` without a count: see `run_microtask` for why
    // it is still live when the entry runs.
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
