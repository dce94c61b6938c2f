//! The job queue: microtasks that run Rust code, on the engine's own job queue (the FIFO that
//! holds promise reaction jobs, so they interleave exactly as HTML's microtask queue would),
//! and tasks for the host's event loop.

use std::ffi::c_int;

use super::core::{agent_of, q, take_exception, throw, Agent, Job, UNDEFINED};
use super::runtime::gc_stress_tick;
use super::{current_realm, queue_task_in, Cx, JsResult};

/// The `JSJobFunc` of a Rust microtask: runs the front of the agent's microtask queue. Each
/// unchained microtask put exactly one such entry on the engine's FIFO, so entries and
/// closures pair up in order; then it runs the chained ones queued behind it ([`run_chain`]).
/// No object is made per microtask.
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
    let agent = agent_of(rt);
    let job = agent.microtasks.borrow_mut().pop_front();
    let Some(job) = job else {
        return UNDEFINED;
    };
    // SAFETY: `ctx` is a live context of this runtime until the runtime's teardown (above),
    // with its agent and realm state installed (both last until then, and no job runs during
    // it). `cx` is dropped before this function returns, inside the `Cx` of the code that
    // called `JS_ExecutePendingJob`, so handles nest.
    let mut cx = unsafe { Cx::enter(ctx) };
    match run_chain(agent, rt, job, &mut cx) {
        Ok(()) => UNDEFINED,
        Err(error) => throw(&mut cx, error),
    }
}

/// Runs `first` in `cx`, then, while the host's own loop runs this (`Agent::own_loop`), each
/// chained microtask behind it: queued while the one before ran, in `cx`'s context, with
/// nothing on QuickJS's FIFO, so it is the next job of all. It stops at an error (returned:
/// the caller reports it as the job's), at the deadline, or at a microtask with an entry of
/// its own; chained ones left at the front then run first in the host's loop
/// (`Runtime::run_microtasks`), before anything on QuickJS's FIFO.
#[inline(always)]
pub(crate) fn run_chain(
    agent: &Agent,
    rt: *mut q::JSRuntime,
    first: Job,
    cx: &mut Cx,
) -> JsResult<()> {
    if !agent.own_loop.get() {
        return first.run(cx);
    }
    let outer = agent.chain.replace(cx.raw());
    let mut result = first.run(cx);
    while result.is_ok() && agent.chained.get() > 0 {
        if agent.deadline_passed() {
            break;
        }
        let Some(next) = agent.microtasks.borrow_mut().pop_front() else {
            break;
        };
        agent.chained.set(agent.chained.get() - 1);
        gc_stress_tick(rt, agent);
        result = next.run(cx);
    }
    agent.chain.set(outer);
    result
}

/// Gives each chained microtask left at the front (a chain the deadline stopped) an entry of
/// its own on QuickJS's FIFO, once the host's loop is done: whatever runs the queue later runs
/// each of them once, in order (after the jobs already on the FIFO: past the deadline, no
/// script runs any more).
pub(crate) fn unchain(agent: &Agent) {
    let ctx = agent.chain_ctx.get();
    while agent.chained.get() > 0 {
        // SAFETY: `ctx` is the live context the chained microtasks were queued in (live until
        // the runtime's teardown, as for `run_microtask`'s), and `run_microtask` keeps the
        // `JSJobFunc` contract; with `argc` 0 a null `argv` is fine. Queuing an entry runs no
        // script.
        let status = unsafe { q::JS_EnqueueJob(ctx, Some(run_microtask), 0, std::ptr::null_mut()) };
        if status < 0 {
            // Out of memory: the rest stay chained (the host's loop runs them first next time).
            // SAFETY: `ctx` is live (above); the pending exception is taken and freed once.
            unsafe {
                let exception = q::JS_GetException(ctx);
                q::JS_FreeValueRT(q::JS_GetRuntime(ctx), exception);
            }
            break;
        }
        agent.chained.set(agent.chained.get() - 1);
    }
}

/// Queues a microtask that runs Rust code (HTML "queue a microtask") in the current realm, on
/// the engine's job queue, or chained to the running microtask when it is the next job of all
/// (see [`run_chain`]). Values captured by the closure are roots until it runs (or until the
/// runtime ends).
pub fn queue_microtask(ctx: &mut Cx, job: impl FnOnce(&mut Cx) -> JsResult<()> + 'static) {
    queue_job(ctx, Job::new(job));
}

/// Queues `job` (see [`queue_microtask`]).
fn queue_job(ctx: &mut Cx, job: Job) {
    let agent = ctx.agent();
    let chain = agent.chain.get();
    // SAFETY: a live runtime (`Cx`'s invariant); the call reads its job list's head.
    if chain == ctx.raw() && !unsafe { q::JS_IsJobPending(ctx.rt()) } {
        // Nothing is on QuickJS's FIFO, so no Rust microtask has an entry there: the queue
        // holds only chained ones (of this chain's context), and this one joins them.
        agent.microtasks.borrow_mut().push_back(job);
        agent.chained.set(agent.chained.get() + 1);
        agent.chain_ctx.set(chain);
        return;
    }
    agent.microtasks.borrow_mut().push_back(job);
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
