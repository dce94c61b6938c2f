//! The runtime interface on QuickJS (`../runtime.rs` has its engine-free half): a `JSRuntime`
//! with its agent state and main realm, new realms, script evaluation, the microtask queue
//! (QuickJS's job queue), promise rejection tracking, and collection. Tasks and timers go to
//! the host's [`RuntimeHost`], which the agent holds.

use std::ffi::{c_int, c_void, CString};
use std::path::Path;
use std::rc::Rc;
use std::time::Instant;

use super::core::{agent_of, check, q, take_exception, Agent, RealmState};
use super::intrinsics::Intrinsic;
use super::{Cx, JsError, JsResult, Object, Value};
use crate::engine::runtime::{RejectionOperation, RuntimeHost, Task, TimerCanceled};

/// The agent's host, as agent data.
struct Host(Rc<dyn RuntimeHost>);

/// The host of the runtime `cx` belongs to.
fn host_of(cx: &Cx) -> Option<Rc<dyn RuntimeHost>> {
    cx.agent().data::<Host>().map(|host| Rc::clone(&host.0))
}

/// Hands `task` to the agent's host (dropped if the runtime has none).
pub(crate) fn enqueue_task(cx: &Cx, task: Task) {
    if let Some(host) = host_of(cx) {
        host.enqueue_task(task);
    }
}

/// Hands a timer to the agent's host (dropped if the runtime has none).
pub(crate) fn enqueue_timer(
    cx: &Cx,
    delay: std::time::Duration,
    task: Task,
    canceled: Option<TimerCanceled>,
) {
    if let Some(host) = host_of(cx) {
        host.enqueue_timer(delay, task, canceled);
    }
}

/// A QuickJS runtime (an agent) with its main realm and the realms made after it: one we made
/// ([`Runtime::new`]), or one an application made with rquickjs and gave us
/// ([`Runtime::adopt`], feature `rquickjs`).
pub struct Runtime {
    pub(super) rt: *mut q::JSRuntime,
    ctx: *mut q::JSContext,
    /// Realms made after the main one (freed with the runtime).
    realms: std::cell::RefCell<Vec<*mut q::JSContext>>,
    /// Whether this handle made the runtime (and frees it on drop). An adopted runtime's agent
    /// is torn down by the application's runtime, when it is dropped (`adopt.rs`).
    owned: bool,
    /// What an adopted runtime's handle keeps alive and drops last: the rquickjs runtime and
    /// context it made itself ([`Runtime::new`] over rquickjs, `adopt.rs`), if any.
    owner: Option<Box<dyn std::any::Any>>,
}

impl std::fmt::Debug for Runtime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runtime").finish_non_exhaustive()
    }
}

/// QuickJS's HostPromiseRejectionTracker hook: to the agent's host.
///
/// # Safety
/// QuickJS calls it (`js_promise_rejection_tracker` callers in quickjs.c: `reject_promise`
/// and `perform_promise_then`) on the runtime's own thread, during a call into the engine, with
/// `ctx` the live context the promise operation runs in (so its runtime is the one
/// [`Runtime::new`] installed the agent and this hook on, and the hook is removed in `drop`
/// before the agent goes), and with `promise` and `reason` borrowed: it keeps neither
/// reference, so each value kept here is duplicated. The host's tracker runs no script.
unsafe extern "C" fn track_rejection(
    ctx: *mut q::JSContext,
    promise: q::JSValue,
    reason: q::JSValue,
    is_handled: bool,
    _opaque: *mut c_void,
) {
    // SAFETY: `ctx` is live on this thread (the hook's entry contract above).
    let rt = unsafe { q::JS_GetRuntime(ctx) };
    // `rt` is the runtime `Runtime::new` installed the agent on (the hook is only set there,
    // after `Agent::install`, and removed before `Agent::uninstall`).
    let agent = agent_of(rt);
    let Some(host) = agent.data::<Host>().map(|host| Rc::clone(&host.0)) else {
        return;
    };
    // `promise` and `reason` are live values of `rt` that QuickJS only lends for this call;
    // `dup_raw` takes a reference of our own for each.
    let promise = Object::from_value_unchecked(Value::dup_raw(rt, promise));
    let operation = if is_handled {
        RejectionOperation::Handle
    } else {
        RejectionOperation::Reject {
            reason: Value::dup_raw(rt, reason),
        }
    };
    host.promise_rejection_tracker(promise, operation);
}

impl Runtime {
    /// A new runtime (an agent) and its main realm (QuickJS's standard intrinsics, the
    /// backend's captured intrinsics, and the host's global object data), whose tasks, timers
    /// and rejections go to `host`. Returns a handle on the main realm.
    ///
    /// With the `rquickjs` feature and `BOA_STREAMS_QUICKJS_ADOPT` set in the environment, the
    /// runtime is an rquickjs `Runtime` and `Context` made with rquickjs's safe API, then
    /// adopted ([`Runtime::adopt`]): the tests run once that way too.
    pub fn new(host: Rc<dyn RuntimeHost>) -> JsResult<(Runtime, Cx)> {
        #[cfg(all(feature = "rquickjs", not(feature = "engine-boa")))]
        if std::env::var_os("BOA_STREAMS_QUICKJS_ADOPT").is_some() {
            return Self::new_over_rquickjs(host);
        }
        // On Linux, with the C allocator advising its large blocks to use huge pages
        // (`malloc.rs`).
        // SAFETY: `JS_NewRuntime2` copies the table, whose functions are the C library's
        // allocator (its contract: blocks freed once, by the same table) and need no opaque;
        // it returns null only when out of memory.
        #[cfg(target_os = "linux")]
        let rt =
            unsafe { q::JS_NewRuntime2(&super::malloc::MALLOC_FUNCTIONS, std::ptr::null_mut()) };
        // SAFETY: `JS_NewRuntime` has no precondition; it returns null only when out of memory.
        #[cfg(not(target_os = "linux"))]
        let rt = unsafe { q::JS_NewRuntime() };
        if rt.is_null() {
            return Err(super::throw_type_error("cannot create a QuickJS runtime"));
        }
        // A debugging aid: `BOA_STREAMS_QUICKJS_DUMP_LEAKS=1` lists the objects left when the
        // runtime is freed (before QuickJS's assertion that none is).
        if std::env::var_os("BOA_STREAMS_QUICKJS_DUMP_LEAKS").is_some() {
            // SAFETY: `rt` is the live runtime just made; the flags only select what
            // `JS_FreeRuntime` prints.
            unsafe { q::JS_SetDumpFlags(rt, 0x4000) };
        }
        // SAFETY: `rt` is new (so without an agent) and used on this thread only; `drop` calls
        // `Agent::uninstall` before `JS_FreeRuntime`.
        unsafe { Agent::install(rt) };
        // SAFETY: `rt` is live with its agent installed just above; `drop` removes the hook
        // before the agent goes.
        unsafe { set_up_runtime(rt, host, true) };
        // SAFETY: `rt` is live and set up; the context is freed in `drop`.
        let ctx = unsafe { q::JS_NewContext(rt) };
        let runtime = Self {
            rt,
            ctx,
            realms: std::cell::RefCell::new(Vec::new()),
            owned: true,
            owner: None,
        };
        if ctx.is_null() {
            // (`drop` frees the runtime; it skips the context that was never made.)
            return Err(super::throw_type_error("cannot create a QuickJS context"));
        }
        // SAFETY: `ctx` was just made by `JS_NewContext` on `rt`, whose agent is installed; it
        // has no opaque yet and lives until `drop`.
        unsafe { set_up_realm(runtime.ctx)? };
        let cx = runtime.main_context();
        Ok((runtime, cx))
    }

    /// The handle of an adopted runtime (`adopt.rs`): `ctx` is its main realm, set up; the
    /// handle frees neither.
    #[cfg(all(feature = "rquickjs", not(feature = "engine-boa")))]
    pub(super) fn adopted(rt: *mut q::JSRuntime, ctx: *mut q::JSContext) -> Self {
        Self {
            rt,
            ctx,
            realms: std::cell::RefCell::new(Vec::new()),
            owned: false,
            owner: None,
        }
    }

    /// Makes this adopted runtime's handle keep `owner` alive, and drop it last.
    #[cfg(all(feature = "rquickjs", not(feature = "engine-boa")))]
    pub(super) fn keep_owner(&mut self, owner: Box<dyn std::any::Any>) {
        self.owner = Some(owner);
    }

    /// A handle on the main realm.
    pub(crate) fn main_context(&self) -> Cx {
        // SAFETY: the context lives as long as the runtime.
        unsafe { Cx::enter(self.ctx) }
    }

    /// A new realm of this runtime's agent (its global object's data from the host); the
    /// caller installs its globals.
    pub fn new_realm(&self, _cx: &mut Cx) -> JsResult<super::Realm> {
        // SAFETY: `self.rt` is live (this handle's runtime, on its thread); the new context's
        // count is ours: kept in `realms` and given back in `drop` for a runtime we own, given
        // back below for an adopted one.
        let ctx = unsafe { q::JS_NewContext(self.rt) };
        if ctx.is_null() {
            return Err(super::throw_type_error("cannot create a realm"));
        }
        if self.owned {
            self.realms.borrow_mut().push(ctx);
        }
        // SAFETY: `ctx` is new (no opaque), of this runtime, whose agent is installed.
        let realm = unsafe { set_up_realm(ctx) }.map(|()| super::Realm::of(ctx));
        if !self.owned {
            // An adopted runtime may outlive this handle's use, or this handle the runtime (a
            // host clone kept too long): the agent's own count (`RealmState::install`) and the
            // `Realm`'s keep the context, and the agent's teardown gives its count back.
            // SAFETY: gives back the count `JS_NewContext` gave us, once.
            unsafe { q::JS_FreeContext(ctx) };
        }
        realm
    }

    /// Runs QuickJS's job queue (promise jobs and queued microtasks) until it is empty,
    /// handing each error a job threw to `report`; stops early, leaving the rest queued, once
    /// the deadline ([`Runtime::set_deadline`]) has passed.
    pub fn run_microtasks(&self, _cx: &mut Cx, report: &mut dyn FnMut(JsError, &mut Cx)) {
        // The runtime (borrowed for the call) keeps its agent installed.
        let agent = agent_of(self.rt);
        let outer = agent.own_loop.replace(true);
        loop {
            if agent.deadline_passed() {
                break;
            }
            gc_stress_tick(self.rt, agent);
            // Chained microtasks left at the front (a chain stopped at an error or the
            // deadline) are the next jobs of all: they run before anything on QuickJS's FIFO.
            if agent.chained.get() > 0 {
                let job = agent.microtasks.pop_front();
                agent.chained.set(agent.chained.get() - 1);
                if let Some(job) = job {
                    // SAFETY: the chain's context is the one its microtasks were queued in,
                    // live until the runtime's teardown (as for `run_microtask`'s), of this
                    // runtime.
                    let mut job_cx = unsafe { Cx::enter(agent.chain_ctx.get()) };
                    if let Err(error) = super::job::run_chain(agent, self.rt, job, &mut job_cx) {
                        report(error, &mut job_cx);
                    }
                }
                continue;
            }
            let mut job_ctx: *mut q::JSContext = std::ptr::null_mut();
            // SAFETY: a live runtime.
            let status = unsafe { q::JS_ExecutePendingJob(self.rt, &mut job_ctx) };
            if status == 0 {
                break;
            }
            if status < 0 && !job_ctx.is_null() {
                // SAFETY: the job's context is live.
                let mut job_cx = unsafe { Cx::enter(job_ctx) };
                let error = take_exception(&mut job_cx);
                report(error, &mut job_cx);
            }
        }
        agent.own_loop.set(outer);
        super::job::unchain(agent);
    }

    /// Sets (or, with `None`, removes) the time past which script stops: QuickJS's interrupt
    /// handler (asked every few thousand bytecode steps, and during regular expression
    /// matching) makes running script throw an uncatchable `InternalError: interrupted`, and
    /// [`Runtime::run_microtasks`] runs no job past it (the rest stay queued). Native work
    /// inside one engine call (a huge `Array.prototype.join`, a `TextEncoder` over a long
    /// string) is not interrupted.
    pub fn set_deadline(&self, deadline: Option<Instant>) {
        let agent = agent_of(self.rt);
        if deadline.is_some() {
            super::diff_hook::install_interrupt(self.rt);
        }
        agent.deadline.set(deadline);
    }

    /// QuickJS's memory limit (`JS_SetMemoryLimit`): an allocation of the engine's heap that
    /// would take it past `bytes` fails, and the operation throws `InternalError: out of
    /// memory` (catchable). Memory the library allocates in Rust (queue records, buffers'
    /// bookkeeping) is not counted. Returns true (the engine enforces it).
    pub fn set_memory_limit(&self, _cx: &mut Cx, bytes: usize) -> bool {
        let limit = q::size_t::try_from(bytes).unwrap_or(q::size_t::MAX);
        // SAFETY: a live runtime, on its thread; the call sets a number.
        unsafe { q::JS_SetMemoryLimit(self.rt, limit) };
        true
    }

    /// QuickJS has no loop-iteration limit (its interrupt handler bounds loops by time,
    /// [`Runtime::set_deadline`]): does nothing and returns false.
    pub fn set_loop_iteration_limit(&self, _cx: &mut Cx, _iterations: u64) -> bool {
        false
    }

    /// GC stress: the collection threshold drops to zero now and after every `every`
    /// microtasks (0: off), so a collection lands at the next allocation. The host collects at
    /// every task itself ([`collect_garbage`]).
    pub fn set_gc_stress(&self, _cx: &mut Cx, every: u32) {
        if every == 0 {
            return;
        }
        agent_of(self.rt).gc_stress.set((every, 0));
        // SAFETY: a live runtime, on its thread; the call sets a number.
        unsafe { q::JS_SetGCThreshold(self.rt, 0) };
    }

    /// Whether a microtask is queued (on QuickJS's FIFO, or chained and left at the front).
    pub fn has_pending_jobs(&self) -> bool {
        // SAFETY: a live runtime.
        let queued = unsafe { q::JS_IsJobPending(self.rt) };
        queued || !agent_of(self.rt).microtasks.is_empty()
    }
}

/// Counts a microtask of `rt` (whose agent is `agent`) for GC stress: after every `every`-th,
/// the collection threshold drops to zero, so a collection lands at the next allocation,
/// wherever it is.
#[inline]
pub(crate) fn gc_stress_tick(rt: *mut q::JSRuntime, agent: &Agent) {
    let (every, since) = agent.gc_stress.get();
    if every == 0 {
        return;
    }
    let count = since + 1;
    if count >= every {
        agent.gc_stress.set((every, 0));
        // SAFETY: a live runtime, on its thread; the call sets a number.
        unsafe { q::JS_SetGCThreshold(rt, 0) };
    } else {
        agent.gc_stress.set((every, count));
    }
}

/// Gives a runtime's agent its host and, with `track_rejections`, sets QuickJS's rejection
/// tracker to hand rejections to it.
///
/// # Safety
/// `rt` is live, on this thread, with its agent installed ([`Agent::install`]); when
/// `track_rejections`, the hook is removed before the agent is uninstalled.
pub(super) unsafe fn set_up_runtime(
    rt: *mut q::JSRuntime,
    host: Rc<dyn RuntimeHost>,
    track_rejections: bool,
) {
    // (The caller's promise: the agent is installed.)
    agent_of(rt).set_data(Host(host));
    if track_rejections {
        // SAFETY: `rt` is live, with its agent installed (what `track_rejection` reads); the
        // caller removes the hook before the agent goes.
        unsafe {
            q::JS_SetHostPromiseRejectionTracker(rt, Some(track_rejection), std::ptr::null_mut());
        }
    }
}

/// Sets up a context's realm: its state (the captured intrinsics), then its global object's
/// native data from the host (QuickJS makes the global object with a class of its own, which
/// has no room for ours: a holder object carries it).
///
/// # Safety
/// `ctx` is a live context, used on this thread, of a runtime whose agent is installed (by
/// [`Runtime::new`] or [`Runtime::adopt`]), without a context opaque.
pub(super) unsafe fn set_up_realm(ctx: *mut q::JSContext) -> JsResult<()> {
    // SAFETY: the caller's contract: `ctx` is live, of a set-up runtime, without an opaque.
    unsafe { RealmState::install(ctx)? };
    // SAFETY: `ctx` is live with its realm state installed just above, and this handle is
    // dropped at the end of this function, before any handle entered earlier.
    let mut cx = unsafe { Cx::enter(ctx) };
    if let Some(host) = host_of(&cx) {
        let prototype = super::task::intrinsic_object(&cx, Intrinsic::ObjectPrototype);
        let holder = host.new_global_object(prototype);
        adopt_global_data(&mut cx, holder);
    }
    Ok(())
}

impl Drop for Runtime {
    fn drop(&mut self) {
        if !self.owned {
            // An adopted runtime: this handle holds no count of anything (`new_realm` gives
            // its count back at once); the application's runtime tears the agent down. The
            // rquickjs runtime this handle made, if any, goes now: dropping it tears the agent
            // down and frees the runtime.
            drop(self.owner.take());
            return;
        }
        // SAFETY: `self.rt` is the live runtime this handle made, on its thread; removing the
        // hook first means no rejection reaches a freed agent.
        unsafe { q::JS_SetHostPromiseRejectionTracker(self.rt, None, std::ptr::null_mut()) };
        // SAFETY: nothing of the runtime is used afterwards (the host drops its handle last,
        // after every value and context handle, as its API says): the host (with the tasks it
        // queued), the agent's data and the realms' state are dropped before the contexts and
        // the runtime they hold values of.
        unsafe { Agent::uninstall(self.rt) };
        // No handle the embedder leaked may leave one of these contexts current.
        let mut contexts = self.realms.borrow().clone();
        contexts.push(self.ctx);
        super::core::forget_entered_contexts(&contexts);
        for ctx in self.realms.borrow_mut().drain(..) {
            // SAFETY: `ctx` is live (this handle holds the count `JS_NewContext` gave it), and
            // that count is given back once.
            unsafe { q::JS_FreeContext(ctx) };
        }
        if !self.ctx.is_null() {
            // SAFETY: as above, for the main context.
            unsafe { q::JS_FreeContext(self.ctx) };
        }
        // SAFETY: the runtime is live, on this thread, with no collection running; nothing of
        // it is used after `JS_FreeRuntime`, and no other handle frees it (`owned`).
        unsafe {
            q::JS_RunGC(self.rt);
            q::JS_FreeRuntime(self.rt);
        }
        super::object::assert_no_nodes_left();
    }
}

/// Evaluates a classic script in the current realm (`name` is its file name in stack traces
/// and errors).
pub fn evaluate_script(cx: &mut Cx, name: Option<&Path>, source: &str) -> JsResult<Value> {
    let text = CString::new(source)
        .map_err(|_| super::throw_type_error("the script contains a NUL character"))?;
    let name = name.map_or_else(|| "<script>".to_owned(), |p| p.display().to_string());
    let name = CString::new(name).unwrap_or_default();
    // SAFETY: a live context; both strings are NUL-terminated.
    let raw = unsafe {
        q::JS_Eval(
            cx.raw(),
            text.as_ptr(),
            source.len() as _,
            name.as_ptr(),
            q::JS_EVAL_TYPE_GLOBAL as c_int,
        )
    };
    check(cx, raw)
}

/// Runs every job: the host's event loop, until nothing is left (errors are reported there).
pub fn run_jobs(cx: &mut Cx) -> JsResult<()> {
    if let Some(host) = host_of(cx) {
        host.run_jobs(cx);
    }
    Ok(())
}

/// Whether `value` is a pending promise.
pub fn is_pending_promise(value: &Value) -> bool {
    let ctx = super::core::current_ctx();
    // SAFETY: a live context when one is current.
    !ctx.is_null()
        && unsafe { q::JS_IsPromise(value.raw()) }
        && unsafe { q::JS_PromiseState(ctx, value.raw()) }
            == q::JSPromiseStateEnum_JS_PROMISE_PENDING
}

/// A full collection (cycles included). Under GC stress ([`Runtime::set_gc_stress`]) the
/// collection threshold drops back to zero after it.
pub fn collect_garbage(cx: &mut Cx) {
    // SAFETY: a live runtime.
    unsafe { q::JS_RunGC(cx.rt()) }
    if cx.agent().gc_stress.get().0 != 0 {
        // SAFETY: a live runtime, on its thread; the call sets a number.
        unsafe { q::JS_SetGCThreshold(cx.rt(), 0) };
    }
}

/// ClearKeptObjects(): nothing to do (QuickJS's `WeakRef`s keep nothing alive for the job).
pub fn clear_kept_objects(_cx: &mut Cx) {}

/// How the console prints a value that is not a string (the Console Standard leaves it to the
/// implementation): QuickJS has no inspection of its own over the API, so `ToString` (an
/// `Error` as `TypeError: message`), or the display form when that throws.
pub fn inspect(value: &Value, cx: &mut Cx) -> String {
    super::value_message(value, cx)
}

/// Makes the current realm's global object carry `holder`'s native data: what makes it an
/// `EventTarget`.
pub(crate) fn adopt_global_data(cx: &mut Cx, holder: Object) {
    let global = super::global_object(cx);
    cx.agent()
        .adopt_foreign_data(global.as_value(), holder.into_value());
}

/// QuickJS has no async jobs of Rust futures (the Boa backend's `AsyncJobs` polls Boa's): the
/// same API, with nothing ever in flight.
pub struct AsyncJobs<'a, 'c> {
    _ctx: std::marker::PhantomData<&'a std::cell::RefCell<&'c mut Cx>>,
}

impl<'a, 'c> AsyncJobs<'a, 'c> {
    /// The async jobs of one run of the event loop (none on QuickJS).
    pub fn new(
        _runtime: &'a Runtime,
        _ctx: &'a std::cell::RefCell<&'c mut Cx>,
        _wake: std::sync::Arc<dyn Fn() + Send + Sync>,
    ) -> Self {
        Self {
            _ctx: std::marker::PhantomData,
        }
    }

    /// Polls nothing: returns false.
    pub fn poll(&mut self, _report: &mut dyn FnMut(JsError, &mut Cx)) -> bool {
        false
    }

    /// Nothing in flight keeps the loop alive.
    pub fn keeps_alive(&self) -> bool {
        false
    }

    /// Nothing was in flight.
    pub fn abandon(self) -> usize {
        0
    }
}

#[cfg(test)]
pub(crate) use test_support::{eval_script, run_gc};

/// What the backend's unit tests use: a host that records, a runtime over it, script evaluation
/// by name and collection.
#[cfg(test)]
mod test_support {
    use super::*;

    /// A host for the backend's unit tests: tasks are kept for the test to run (it must leave
    /// none: they hold values of the runtime), timers are dropped, each rejection event is
    /// recorded (`true`: a handler was added), and the global object carries no data.
    pub(crate) struct TestHost {
        pub(crate) tasks: std::cell::RefCell<std::collections::VecDeque<Task>>,
        pub(crate) rejections: std::cell::RefCell<Vec<bool>>,
    }

    impl RuntimeHost for TestHost {
        fn enqueue_task(&self, task: Task) {
            self.tasks.borrow_mut().push_back(task);
        }
        fn enqueue_timer(&self, _: std::time::Duration, _: Task, _: Option<TimerCanceled>) {}
        fn promise_rejection_tracker(&self, _promise: Object, operation: RejectionOperation) {
            let handled = matches!(operation, RejectionOperation::Handle);
            self.rejections.borrow_mut().push(handled);
        }
        fn new_global_object(&self, object_prototype: Object) -> Object {
            Object::from_proto_and_data(Some(object_prototype), ())
        }
        fn run_jobs(&self, _ctx: &mut Cx) {}
    }

    impl Runtime {
        /// A runtime with a [`TestHost`] (the backend's unit tests).
        pub(crate) fn for_tests() -> (Self, Rc<TestHost>) {
            let host = Rc::new(TestHost {
                tasks: std::cell::RefCell::default(),
                rejections: std::cell::RefCell::default(),
            });
            let (runtime, cx) =
                Self::new(Rc::clone(&host) as Rc<dyn RuntimeHost>).expect("a runtime");
            drop(cx);
            (runtime, host)
        }
    }

    /// [`evaluate_script`] with a file name (the backend's unit tests).
    pub(crate) fn eval_script(cx: &mut Cx, name: &str, source: &str) -> JsResult<Value> {
        evaluate_script(cx, Some(Path::new(name)), source)
    }

    /// [`collect_garbage`] (the backend's unit tests).
    pub(crate) fn run_gc(cx: &mut Cx) {
        collect_garbage(cx);
    }
}
