//! The job queue: microtasks that run Rust code, on the engine's own job queue (the FIFO that
//! holds promise reaction jobs, so they interleave exactly as HTML's microtask queue would),
//! and tasks for the host's event loop.
//!
//! The agent's queue (`Agent::microtasks`) holds the Rust microtasks in order; QuickJS's FIFO
//! holds entries of ours among its promise jobs, each standing for the next few of them. An
//! entry stands for one microtask, or for several queued one after the other with nothing
//! between them on the FIFO: a Rust microtask queued when the FIFO's last entry is one of ours
//! (same context) joins it instead of taking an entry of its own ([`join_last_entry`]), since it
//! is the job right after that entry's last microtask. The count is the entry's one argument.
//! When the entry runs ([`run_microtask`]) its microtasks are the front of the agent's queue
//! and the next jobs of all, so running them in a row keeps the FIFO's order: the host's loop
//! runs them as a chain ([`run_chain`]: an error or the deadline stops it, the host's loop runs
//! the rest first), and any other loop (an application's `execute_pending_job`, which expects
//! a microtask per job) gets one job per microtask: the rest keep an entry of their own at the
//! FIFO's front.
//!
//! Reading the FIFO's last entry and putting one at its front needs QuickJS's private
//! `rt->job_list`, found once per runtime by a probe ([`probe_job_list`]); where it is not
//! found, every microtask takes an entry of its own.

#[cfg(target_pointer_width = "64")]
use std::cell::RefCell;
use std::ffi::c_int;
#[cfg(target_pointer_width = "64")]
use std::mem::offset_of;
use std::ptr;

use super::core::{agent_of, mkval, q, take_exception, throw, Agent, Job, UNDEFINED};
use super::runtime::gc_stress_tick;
use super::{current_realm, queue_task_in, Cx, JsResult};

/// QuickJS's `struct list_head` (list.h: `{ struct list_head *prev; struct list_head *next; }`):
/// the links of a circular doubly linked list, whose head is a member of the list's owner (an
/// empty list's head points at itself both ways).
#[repr(C)]
pub(crate) struct ListHead {
    prev: *mut ListHead,
    next: *mut ListHead,
}

/// QuickJS's `JSJobEntry` (quickjs.c: `{ struct list_head link; JSContext *ctx; JSJobFunc
/// *job_func; int argc; JSValue argv[]; }`), an entry of the runtime's job FIFO, whose `link`
/// is in the list: `argc` values follow the header. An entry of ours has one, an int, the
/// number of Rust microtasks it stands for. The layout is that of the quickjs-ng the pinned
/// `rquickjs-sys` (`=0.14.0`) builds; [`probe_job_list`] checks it at every runtime (and finds
/// nothing to share where it differs), `promise_tests::the_job_list_is_where_quickjs_keeps_it`
/// against QuickJS's own calls.
#[repr(C)]
struct RawJobEntry {
    link: ListHead,
    ctx: *mut q::JSContext,
    job_func: q::JSJobFunc,
    argc: c_int,
    argv: [q::JSValue; 0],
}

/// A `JSJobFunc` (the type of [`run_microtask`]).
type JobFunc = unsafe extern "C" fn(*mut q::JSContext, c_int, *mut q::JSValue) -> q::JSValue;

/// The most Rust microtasks one entry stands for (its count is an int value).
const MAX_SHARED: u32 = i32::MAX as u32;

/// The int `value` holds, if it is one.
fn int_of(value: &q::JSValue) -> Option<i32> {
    // SAFETY: reads the tag, then (for an int) the `int32` member, which `JS_MKVAL` (and
    // `mkval`) set for an int value: every `JSValue` has both initialized.
    unsafe { (q::JS_VALUE_GET_TAG(*value) == q::JS_TAG_INT).then(|| q::JS_VALUE_GET_INT(*value)) }
}

/// The `JSJobFunc` of a Rust microtask: runs the Rust microtasks its entry stands for, which
/// are the front of the agent's microtask queue (each entry of ours stands for the microtasks
/// queued in its place on the engine's FIFO, so entries and closures pair up in order); the
/// first here, the rest as [`share_rest`] says; then the chained ones queued behind them
/// ([`run_chain`]). No object is made per microtask.
///
/// # Safety
/// Only QuickJS calls it, from `JS_ExecutePendingJob` (quickjs.c) for an entry that
/// [`enqueue_entry`] put on the job queue, and guarantees on entry:
/// - it runs on the thread that called `JS_ExecutePendingJob` for the runtime (the runtime's
///   thread), outside any collection;
/// - `ctx` is the context the entry was queued with. The entry holds no count of it: it is
///   live because the host keeps every context of the runtime until its teardown, and
///   `JS_FreeRuntime` frees the entries left then without running them;
/// - `argv` points to `argc` borrowed values (1 here: the count, an int), and the entry is
///   off the FIFO already (QuickJS unlinks it before the call);
/// - the job may re-enter the engine (run script, queue jobs).
///
/// It returns an owned value (QuickJS frees it), or `JS_EXCEPTION` with the exception pending
/// (`JS_ExecutePendingJob` then returns -1 and the host takes it). A panic cannot unwind out
/// of it: it aborts.
unsafe extern "C" fn run_microtask(
    ctx: *mut q::JSContext,
    argc: c_int,
    argv: *mut q::JSValue,
) -> q::JSValue {
    // SAFETY: `ctx` is live (QuickJS's guarantee on entry, above); this reads its `rt` field.
    let rt = unsafe { q::JS_GetRuntime(ctx) };
    // The runtime of a live context of this backend: its agent is installed.
    let agent = agent_of(rt);
    let count = if argc >= 1 {
        // SAFETY: `argv` points to `argc` (at least one) live values, borrowed for the call.
        int_of(unsafe { &*argv }).and_then(|n| u32::try_from(n).ok())
    } else {
        None
    };
    let job = agent.microtasks.pop_front();
    let Some(job) = job else {
        return UNDEFINED;
    };
    if let Some(rest @ 1..) = count.and_then(|count| count.checked_sub(1)) {
        share_rest(agent, ctx, rest);
    }
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

/// The `rest` Rust microtasks of the running entry after its first (the front of the agent's
/// queue now, and the next jobs of all). In the host's loop they become chained ones, which
/// [`run_chain`] runs right after the first (an error or the deadline leaves the rest at the
/// front, which the loop runs first). Under any other loop (an application's
/// `execute_pending_job`), which takes one job at a time, they get an entry of their own at
/// the FIFO's front, so each still runs as its own job, in order.
fn share_rest(agent: &Agent, ctx: *mut q::JSContext, rest: u32) {
    // (No microtask is chained while an entry runs: the host's loop runs the chained ones
    // before it takes an entry, and a chain stops only to return to that loop.)
    debug_assert_eq!(
        agent.chained.get(),
        0,
        "chained microtasks while an entry runs"
    );
    if agent.own_loop.get() && agent.chained.get() == 0 {
        agent.chained.set(rest as usize);
        agent.chain_ctx.set(ctx);
        return;
    }
    if !enqueue_entry(agent, ctx, rest, true) {
        // Out of memory: as for a microtask that could not be queued, the closures are
        // dropped.
        let queue = &agent.microtasks;
        let end = (rest as usize).min(queue.len());
        let dropped: Vec<Job> = (0..end).filter_map(|_| queue.pop_front()).collect();
        drop(dropped);
    }
}

/// Runs `first` in `cx`, then, while the host's own loop runs this (`Agent::own_loop`), each
/// chained microtask behind it: the rest of `first`'s entry, or one queued while the one
/// before ran, in `cx`'s context, with nothing on QuickJS's FIFO, so it is the next job of
/// all. It stops at an error (returned: the caller reports it as the job's), at the deadline,
/// or when no chained microtask is left; chained ones left at the front then run first in the
/// host's loop (`Runtime::run_microtasks`), before anything on QuickJS's FIFO.
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
        let Some(next) = agent.microtasks.pop_front_slot() else {
            break;
        };
        agent.chained.set(agent.chained.get() - 1);
        gc_stress_tick(rt, agent);
        // SAFETY: the job in `next` was just taken off the queue, so it is ours to run, and
        // nothing used the queue since (`gc_stress_tick` only sets a number).
        result = unsafe { Job::run_in_slot(next, cx) };
    }
    agent.chain.set(outer);
    result
}

/// Gives the chained microtasks left at the front (a chain the deadline stopped) entries on
/// QuickJS's FIFO, once the host's loop is done, so whatever runs the queue later runs each
/// of them once, in order: one entry for all of them at the FIFO's front (they are the next
/// jobs of all), or, where the FIFO was not found, one entry each at its end (after the jobs
/// already on the FIFO: past the deadline, no script runs any more).
pub(crate) fn unchain(agent: &Agent) {
    let ctx = agent.chain_ctx.get();
    let chained = agent.chained.get();
    if chained == 0 {
        return;
    }
    if let Ok(count @ ..=MAX_SHARED) = u32::try_from(chained) {
        if !agent.job_list.get().is_null() {
            if enqueue_entry(agent, ctx, count, true) {
                agent.chained.set(0);
            }
            return;
        }
    }
    while agent.chained.get() > 0 {
        if !enqueue_entry(agent, ctx, 1, false) {
            // Out of memory: the rest stay chained (the host's loop runs them first next time).
            break;
        }
        agent.chained.set(agent.chained.get() - 1);
    }
}

/// Puts an entry of ours for `count` Rust microtasks (1 to [`MAX_SHARED`]) of `ctx`'s context
/// on QuickJS's FIFO: at its end, or, with `at_front` (only when the agent found the FIFO), at
/// its front. Returns false when out of memory (no entry is queued; QuickJS's exception is
/// taken and dropped).
fn enqueue_entry(agent: &Agent, ctx: *mut q::JSContext, count: u32, at_front: bool) -> bool {
    debug_assert!((1..=MAX_SHARED).contains(&count));
    let mut argument = mkval(q::JS_TAG_INT, count as i32);
    // SAFETY: `ctx` is a live context of the agent's runtime (each caller's: the context of a
    // running `Cx`, of a running entry, or of the chain, each live until the runtime's
    // teardown, as for `run_microtask`'s), and `run_microtask` keeps the `JSJobFunc` contract
    // (its `# Safety`). QuickJS reads the one argument during the call (an int: its `js_dup`
    // counts nothing). The entry stores `ctx` without a count: see `run_microtask` for why it
    // is still live when the entry runs. Queuing an entry runs no script.
    let status = unsafe { q::JS_EnqueueJob(ctx, Some(run_microtask), 1, &mut argument) };
    if status < 0 {
        // SAFETY: `ctx` is live (above); the pending exception is taken and freed once.
        unsafe {
            let exception = q::JS_GetException(ctx);
            q::JS_FreeValueRT(q::JS_GetRuntime(ctx), exception);
        }
        return false;
    }
    let head = agent.job_list.get();
    if at_front {
        debug_assert!(!head.is_null(), "an entry at the front of an unknown FIFO");
        if !head.is_null() {
            // SAFETY: `head` is the job FIFO of the live runtime of `ctx` (the probe's result,
            // kept by its agent), on its thread; the entry just queued is its last, and no
            // other code touches the list meanwhile.
            unsafe { move_last_to_front(head) };
        }
    }
    true
}

/// Moves the last entry of the FIFO whose head is `head` to its front (list.h's `list_del`
/// then `list_add`).
///
/// # Safety
/// `head` is a runtime's `job_list`, found by [`probe_job_list`], of a live runtime used on
/// this thread, with no job entry being linked or unlinked meanwhile. QuickJS touches the list
/// only in `JS_EnqueueJob`, `JS_FreeRuntime` and `JS_ExecutePendingJob`, and the last only
/// before it calls a job (taking the entry off the list) and after (freeing it): a caller
/// inside a job's call, as `run_microtask`'s are, is between the two, and no caller is inside
/// the other two.
unsafe fn move_last_to_front(head: *mut ListHead) {
    // SAFETY: `head` is the live list's head (the contract), and every link of a circular
    // list QuickJS keeps points at the head or at the `link` of a live entry: each read and
    // write below is of such a `ListHead`, and the writes relink the list as list.h would.
    unsafe {
        let last = (*head).prev;
        if last == head || (*head).next == last {
            return;
        }
        let before = (*last).prev;
        (*before).next = head;
        (*head).prev = before;
        let first = (*head).next;
        (*last).prev = head;
        (*last).next = first;
        (*first).prev = last;
        (*head).next = last;
    }
}

/// Lets a Rust microtask of `ctx`'s context join the FIFO's last entry, when it is one of ours
/// of the same context: the microtask is then the job right after that entry's last one. The
/// caller queues the microtask itself at the back of the agent's queue, where that entry's
/// microtasks are the last ones. Returns false (nothing changed) otherwise.
///
/// # Safety
/// `head` is the job FIFO of `ctx`'s runtime, found by [`probe_job_list`], of a live runtime
/// used on this thread, with no entry being linked or unlinked meanwhile (as for
/// [`move_last_to_front`]: inside a job's call is fine).
#[inline]
unsafe fn join_last_entry(head: *mut ListHead, ctx: *mut q::JSContext) -> bool {
    // SAFETY: `head` is the live list's head (the contract); this reads its `prev` link.
    let last = unsafe { (*head).prev };
    if last == head {
        return false;
    }
    let entry = last.cast::<RawJobEntry>();
    // SAFETY: `last` is the `link` of a live entry (a non-empty list's `prev` link), the first
    // member of its `JSJobEntry` (`RawJobEntry`, the layout the probe checked), so its header
    // fields are allocated and initialized (`JS_EnqueueJob` sets them all); this reads three.
    let ours = unsafe {
        (*entry).ctx == ctx
            && (*entry).argc == 1
            && (*entry)
                .job_func
                .is_some_and(|f| ptr::fn_addr_eq(f, run_microtask as JobFunc))
    };
    if !ours {
        return false;
    }
    // SAFETY: an entry of ours with its one argument, so `argv[0]` is allocated right after
    // the header (the probe checked where), an int value `enqueue_entry` or this function
    // wrote.
    let argument = unsafe { ptr::addr_of_mut!((*entry).argv).cast::<q::JSValue>() };
    // SAFETY: as just above: a live, initialized `JSValue`.
    let count = int_of(unsafe { &*argument }).and_then(|n| u32::try_from(n).ok());
    let Some(count @ 1..MAX_SHARED) = count else {
        return false;
    };
    // SAFETY: as above; the old value is an int, which owns nothing, so overwriting it leaks
    // nothing, and the new one is an int too (QuickJS's `JS_FreeValue` of it frees nothing).
    unsafe { argument.write(mkval(q::JS_TAG_INT, (count + 1) as i32)) };
    true
}

/// Queues a microtask that runs Rust code (HTML "queue a microtask") in the current realm, on
/// the engine's job queue, or chained to the running microtask when it is the next job of all
/// (see [`run_chain`]). Values captured by the closure are roots until it runs (or until the
/// runtime ends).
#[inline]
pub fn queue_microtask(ctx: &mut Cx, job: impl FnOnce(&mut Cx) -> JsResult<()> + 'static) {
    // (Not borrowed from `ctx`, so `ctx` stays free: the agent outlives every `Cx` of its
    // runtime.)
    let agent: &Agent = {
        let agent: *const Agent = ctx.agent();
        // SAFETY: the live, leaked agent box (`Cx::agent`), installed until the runtime's
        // teardown, which runs no `Cx`: it outlives this call.
        unsafe { &*agent }
    };
    // The job goes in at the back of the agent's queue, written in its slot; then it gets its
    // place on QuickJS's FIFO.
    agent.microtasks.push(job);
    let raw = ctx.raw();
    if agent.chain.get() == raw && fifo_is_empty(agent.job_list.get(), ctx) {
        // Nothing is on QuickJS's FIFO, so no Rust microtask has an entry there: the queue
        // holds only chained ones (of this chain's context), and this one joins them (the
        // host loop's common case, inline).
        agent.chained.set(agent.chained.get() + 1);
        agent.chain_ctx.set(raw);
        return;
    }
    queued(ctx, agent);
}

/// Gives the Rust microtask just queued at the back of the agent's queue, which is not
/// chained (see [`queue_microtask`]), its place on QuickJS's FIFO: a share of the FIFO's last
/// entry, or an entry of its own.
fn queued(ctx: &mut Cx, agent: &Agent) {
    let raw = ctx.raw();
    let head = agent.job_list.get();
    // SAFETY: a non-null `head` is the probe's result for this live runtime (the agent's),
    // on its thread, and no job entry is being linked or unlinked (this runs in Rust code
    // between engine calls).
    if !head.is_null() && unsafe { join_last_entry(head, raw) } {
        return;
    }
    if !enqueue_entry(agent, raw, 1, false) {
        // Out of memory: no entry was queued, so the closure is taken back.
        let job = agent.microtasks.pop_back();
        drop(job);
        drop(take_exception(ctx));
    }
}

/// Whether QuickJS's job FIFO of `ctx`'s runtime is empty (`head`: the FIFO, when the probe
/// found it).
#[inline]
fn fifo_is_empty(head: *mut ListHead, ctx: &Cx) -> bool {
    if head.is_null() {
        // SAFETY: a live runtime (`ctx`'s); the call reads its job list's head.
        return !unsafe { q::JS_IsJobPending(ctx.rt()) };
    }
    // SAFETY: `head` is this live runtime's job FIFO (the probe's result), on its thread;
    // this reads one link.
    unsafe { (*head).next == head }
}

/// How many bytes at the start of `JSRuntime` [`probe_job_list`] scans for the FIFO's head:
/// `job_list`'s offset (1,344) and size (16) in the quickjs-ng the pinned `rquickjs-sys`
/// (`=0.14.0`) builds on 64-bit targets, where `JSRuntime` is 1,496 bytes; without
/// `ENABLE_DUMPS` (an `NDEBUG` build: rquickjs-sys's `disable-assertions`) both shrink by
/// 16 bytes (`job_list` at 1,328, 1,480 bytes), so the scan stays inside the struct in either
/// build.
#[cfg(target_pointer_width = "64")]
const SCAN_BYTES: usize = 1360;

/// The argument of the probe's marker job.
#[cfg(target_pointer_width = "64")]
const PROBE_MARK: i32 = 0x6a6f_6273;

/// What the probe's marker job works with ([`probe_job_list`]).
#[cfg(target_pointer_width = "64")]
#[derive(Default)]
struct ProbeState {
    /// The candidates for the FIFO's head: its offset in `JSRuntime`, the one element it holds.
    candidates: Vec<(usize, usize)>,
    /// The offset the marker confirmed (`Err(())` if more than one).
    found: Option<Result<usize, ()>>,
}

#[cfg(target_pointer_width = "64")]
thread_local! {
    /// The probe's state while its marker job runs.
    static PROBE: RefCell<ProbeState> = RefCell::new(ProbeState::default());
}

/// Finds the job FIFO (`rt->job_list`) of `ctx`'s runtime, or returns null (and the caller's
/// agent gives every Rust microtask an entry of its own, as without sharing). Run once per
/// runtime, with its first realm.
///
/// With the FIFO empty, the scan notes every list head in the first [`SCAN_BYTES`] of
/// `JSRuntime` that is empty (points at itself both ways), queues a marker job with an int
/// argument, and notes the heads that now hold one element; the marker, run by
/// `JS_ExecutePendingJob`, keeps the one whose element is its own entry: its `argv` (QuickJS
/// passes it) lies where [`RawJobEntry`] says, after that element, with the marker's context,
/// function and argument count in the header. Then that head must be empty again. Anything
/// else (a job already queued, no candidate or two, an entry laid out otherwise, a 32-bit
/// target) finds nothing.
///
/// # Safety
/// `ctx` is a live context of a runtime set up by [`Agent::install`], used on this thread.
pub(crate) unsafe fn probe_job_list(ctx: *mut q::JSContext) -> *mut ListHead {
    #[cfg(target_pointer_width = "64")]
    {
        // SAFETY: the same contract.
        unsafe { probe_job_list_64(ctx) }
    }
    #[cfg(not(target_pointer_width = "64"))]
    {
        let _ = ctx;
        ptr::null_mut()
    }
}

/// [`probe_job_list`] on a 64-bit target.
///
/// # Safety
/// As for [`probe_job_list`].
#[cfg(target_pointer_width = "64")]
unsafe fn probe_job_list_64(ctx: *mut q::JSContext) -> *mut ListHead {
    // SAFETY: `ctx` is live (the contract); this reads its `rt` field.
    let rt = unsafe { q::JS_GetRuntime(ctx) };
    // SAFETY: a live runtime; the call reads its job list's head.
    if unsafe { q::JS_IsJobPending(rt) } {
        return ptr::null_mut();
    }
    let base = rt as usize;
    let word = |offset: usize| -> usize {
        // SAFETY: `rt` points to the live runtime's `JSRuntime` (`JS_NewRuntime2` allocates
        // it zeroed, aligned for its pointer members), larger than `SCAN_BYTES` in either
        // build of the pinned quickjs-ng (`SCAN_BYTES`'s documentation); every word read
        // starts at a multiple of 8 and ends by `SCAN_BYTES`, so it is inside the struct and
        // aligned. Nothing writes it meanwhile (this thread runs only
        // this code and the engine calls below). A word of padding reads as whatever bytes are
        // there: only its equality to an address counts.
        unsafe { (rt.cast::<u8>().add(offset).cast::<usize>()).read() }
    };
    let is_empty_head =
        |offset: usize| word(offset) == base + offset && word(offset + 8) == base + offset;
    let empty: Vec<usize> = (0..=SCAN_BYTES - 16)
        .step_by(8)
        .filter(|&offset| is_empty_head(offset))
        .collect();
    let mut argument = mkval(q::JS_TAG_INT, PROBE_MARK);
    // SAFETY: `ctx` is live; `probe_marker` keeps the `JSJobFunc` contract; QuickJS reads the
    // one argument (an int) during the call. No script runs.
    if unsafe { q::JS_EnqueueJob(ctx, Some(probe_marker), 1, &mut argument) } < 0 {
        // SAFETY: `ctx` is live; the pending exception is taken and freed once.
        unsafe {
            let exception = q::JS_GetException(ctx);
            q::JS_FreeValueRT(rt, exception);
        }
        return ptr::null_mut();
    }
    let filled: Vec<(usize, usize)> = empty
        .into_iter()
        .filter_map(|offset| {
            let element = word(offset);
            (element != base + offset && word(offset + 8) == element).then_some((offset, element))
        })
        .collect();
    PROBE.with(|probe| {
        *probe.borrow_mut() = ProbeState {
            candidates: filled,
            found: None,
        };
    });
    let mut job_ctx: *mut q::JSContext = ptr::null_mut();
    // SAFETY: a live runtime on its thread, whose FIFO holds only the marker (it was empty,
    // and nothing else queued a job since), so this runs the marker and nothing else. That is
    // safe even inside a running job (an application may install from one): QuickJS unlinks
    // an entry before it runs it, so a nested call sees only entries still queued.
    let status = unsafe { q::JS_ExecutePendingJob(rt, &mut job_ctx) };
    let found = PROBE.with(|probe| std::mem::take(&mut *probe.borrow_mut()).found);
    let Some(Ok(offset)) = found else {
        return ptr::null_mut();
    };
    // SAFETY: a live runtime; the call reads its job list's head.
    let still_pending = unsafe { q::JS_IsJobPending(rt) };
    if status != 1 || job_ctx != ctx || still_pending || !is_empty_head(offset) {
        return ptr::null_mut();
    }
    // (Inside the struct: `offset + 16 <= SCAN_BYTES`.)
    rt.cast::<u8>().wrapping_add(offset).cast::<ListHead>()
}

/// The probe's marker job ([`probe_job_list`]): keeps the candidate head whose element is its
/// own entry, found from `argv`.
///
/// # Safety
/// As for [`run_microtask`]: QuickJS calls it from `JS_ExecutePendingJob`, on the runtime's
/// thread, with `argv` pointing to `argc` borrowed values inside the entry (its `argv`
/// member), the entry unlinked but still allocated until the call returns.
#[cfg(target_pointer_width = "64")]
unsafe extern "C" fn probe_marker(
    ctx: *mut q::JSContext,
    argc: c_int,
    argv: *mut q::JSValue,
) -> q::JSValue {
    // SAFETY: `argv` points to `argc` live values (the entry contract), read when there is one.
    if argc != 1 || int_of(unsafe { &*argv }) != Some(PROBE_MARK) {
        return UNDEFINED;
    }
    let header = offset_of!(RawJobEntry, argv);
    let Some(entry) = (argv as usize).checked_sub(header) else {
        return UNDEFINED;
    };
    PROBE.with(|probe| {
        let mut probe = probe.borrow_mut();
        let ProbeState { candidates, found } = &mut *probe;
        for &(offset, element) in candidates.iter() {
            if element != entry {
                continue;
            }
            let entry = entry as *const RawJobEntry;
            // SAFETY: the entry's allocation holds its header and then `argv`: QuickJS's four
            // header members take 36 bytes, and `argv`, of 8-byte aligned `JSValue`s, starts
            // at 40 or later, so the 40 bytes before `argv` (`header`, `RawJobEntry`'s size up
            // to `argv`) are inside the allocation whatever the true layout is. The entry is
            // allocated during this call (the contract), and `JS_EnqueueJob` initialized its
            // header; this reads three fields of it.
            let matches = unsafe {
                (*entry).ctx == ctx
                    && (*entry).argc == argc
                    && (*entry)
                        .job_func
                        .is_some_and(|f| ptr::fn_addr_eq(f, probe_marker as JobFunc))
            };
            if matches {
                *found = Some(if found.is_some() { Err(()) } else { Ok(offset) });
            }
        }
    });
    UNDEFINED
}

/// Queues a task (HTML "queue a global task") on the host's event loop that runs Rust code in
/// the current realm. Values captured by the closure are roots until it runs.
pub fn queue_task(ctx: &mut Cx, job: impl FnOnce(&mut Cx) -> JsResult<()> + 'static) {
    let realm = current_realm(ctx);
    queue_task_in(ctx, realm, job);
}

/// An entry on QuickJS's job FIFO, as the tests see it ([`fifo_entries`]).
#[cfg(test)]
#[derive(Debug, PartialEq)]
pub(super) struct FifoEntry {
    pub(super) ctx: *mut q::JSContext,
    /// Whether it is an entry of ours ([`run_microtask`]).
    pub(super) ours: bool,
    pub(super) argc: c_int,
    /// An entry of ours: how many Rust microtasks it stands for.
    pub(super) count: Option<i32>,
}

/// The entries on the FIFO the agent found, front first (the tests' view of the layout).
#[cfg(test)]
pub(super) fn fifo_entries(agent: &Agent) -> Vec<FifoEntry> {
    let head = agent.job_list.get();
    assert!(!head.is_null(), "the probe found the job FIFO");
    let mut entries = Vec::new();
    // SAFETY: `head` is the live runtime's job FIFO (the probe's result, kept by its agent),
    // on this thread, outside any engine call: each link is the head or a live entry's `link`,
    // the first member of its `JSJobEntry`, whose header is initialized; an entry of ours has
    // its one argument right after the header.
    unsafe {
        let mut link = (*head).next;
        while link != head {
            let entry = link.cast::<RawJobEntry>();
            let ours = (*entry)
                .job_func
                .is_some_and(|f| ptr::fn_addr_eq(f, run_microtask as JobFunc));
            let count = (ours && (*entry).argc == 1)
                .then(|| int_of(&*ptr::addr_of!((*entry).argv).cast::<q::JSValue>()))
                .flatten();
            entries.push(FifoEntry {
                ctx: (*entry).ctx,
                ours,
                argc: (*entry).argc,
                count,
            });
            link = (*link).next;
        }
    }
    entries
}
