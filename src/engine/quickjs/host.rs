//! The engine side of the QuickJS host (`src/host/quickjs/`): the runtime and its main realm,
//! script evaluation, the microtask queue (QuickJS's job queue) and the agent's task and timer
//! queues, promise rejection tracking, and collection.

use std::ffi::{c_int, c_void, CString};

use super::core::{agent_of, check, q, take_exception, Agent, RealmState, Task};
use super::{Cx, JsError, JsResult, NativeFunctionPointer, Value};

/// What the host's rejection tracker receives: the promise, the reason, and whether a handler
/// was just added (true) or the promise was rejected without one (false).
pub(crate) type RejectionTracker = Box<dyn FnMut(Value, Value, bool)>;

/// A QuickJS runtime with its agent state and main realm.
pub(crate) struct Runtime {
    rt: *mut q::JSRuntime,
    ctx: *mut q::JSContext,
    /// Realms made after the main one (freed with the runtime).
    realms: std::cell::RefCell<Vec<*mut q::JSContext>>,
    tracker: *mut RejectionTracker,
}

unsafe extern "C" fn track_rejection(
    ctx: *mut q::JSContext,
    promise: q::JSValue,
    reason: q::JSValue,
    is_handled: bool,
    opaque: *mut c_void,
) {
    let rt = q::JS_GetRuntime(ctx);
    let tracker = &mut *opaque.cast::<RejectionTracker>();
    tracker(
        Value::dup_raw(rt, promise),
        Value::dup_raw(rt, reason),
        is_handled,
    );
}

impl Runtime {
    /// A new runtime and main realm (QuickJS's standard intrinsics, then the backend's
    /// captured intrinsics).
    pub(crate) fn new(tracker: RejectionTracker) -> JsResult<Self> {
        // SAFETY: a new runtime and context, set up before any script runs; the tracker box
        // lives until `drop`.
        unsafe {
            let rt = q::JS_NewRuntime();
            // A debugging aid: `BOA_STREAMS_QUICKJS_DUMP_LEAKS=1` lists the objects left when
            // the runtime is freed (before QuickJS's assertion that none is).
            if std::env::var_os("BOA_STREAMS_QUICKJS_DUMP_LEAKS").is_some() {
                q::JS_SetDumpFlags(rt, 0x4000);
            }
            Agent::install(rt);
            let tracker = Box::into_raw(Box::new(tracker));
            q::JS_SetHostPromiseRejectionTracker(rt, Some(track_rejection), tracker.cast());
            let ctx = q::JS_NewContext(rt);
            let runtime = Self {
                rt,
                ctx,
                realms: std::cell::RefCell::new(Vec::new()),
                tracker,
            };
            RealmState::install(ctx)?;
            Ok(runtime)
        }
    }

    /// A handle on the main realm.
    pub(crate) fn main_context(&self) -> Cx {
        // SAFETY: the context lives as long as the runtime.
        unsafe { Cx::enter(self.ctx) }
    }

    /// A new realm of this runtime's agent (QuickJS's standard intrinsics and the backend's
    /// captured ones; the caller installs the globals).
    pub(crate) fn new_realm(&self) -> JsResult<super::Realm> {
        // SAFETY: a new context of this runtime, freed in `drop`.
        unsafe {
            let ctx = q::JS_NewContext(self.rt);
            if ctx.is_null() {
                return Err(super::throw_type_error("cannot create a realm"));
            }
            self.realms.borrow_mut().push(ctx);
            RealmState::install(ctx)?;
            Ok(super::Realm::of(ctx))
        }
    }

    /// Whether a microtask, task or timer is queued.
    pub(crate) fn has_pending_work(&self) -> bool {
        let agent = agent_of(self.rt);
        // SAFETY: a live runtime.
        let jobs = unsafe { q::JS_IsJobPending(self.rt) };
        jobs || !agent.tasks.borrow().is_empty() || !agent.timers.borrow().is_empty()
    }
}

impl Drop for Runtime {
    fn drop(&mut self) {
        // SAFETY: nothing of the runtime is used afterwards; queued tasks and data are dropped
        // before the context and runtime they hold values of.
        unsafe {
            Agent::uninstall(self.rt);
            for ctx in self.realms.borrow_mut().drain(..) {
                RealmState::uninstall(ctx);
                q::JS_FreeContext(ctx);
            }
            RealmState::uninstall(self.ctx);
            q::JS_FreeContext(self.ctx);
            q::JS_RunGC(self.rt);
            q::JS_FreeRuntime(self.rt);
            drop(Box::from_raw(self.tracker));
        }
    }
}

/// Evaluates a classic script in the current realm.
pub(crate) fn eval_script(cx: &mut Cx, name: &str, source: &str) -> JsResult<Value> {
    let text = CString::new(source)
        .map_err(|_| super::throw_type_error("the script contains a NUL character"))?;
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

/// Runs QuickJS's job queue (promise jobs and queued microtasks) until it is empty; returns
/// the errors jobs threw, in order.
pub(crate) fn run_microtasks(cx: &mut Cx) -> Vec<JsError> {
    let mut errors = Vec::new();
    loop {
        let mut job_ctx: *mut q::JSContext = std::ptr::null_mut();
        // SAFETY: a live runtime.
        let status = unsafe { q::JS_ExecutePendingJob(cx.rt(), &mut job_ctx) };
        if status == 0 {
            break;
        }
        if status < 0 && !job_ctx.is_null() {
            // SAFETY: the job's context is live.
            let mut job_cx = unsafe { Cx::enter(job_ctx) };
            errors.push(take_exception(&mut job_cx));
        }
    }
    errors
}

/// What the event loop does next.
pub(crate) enum Next {
    /// Run this task.
    Task(Task),
    /// Nothing runnable before this many nanoseconds (a timer).
    Wait(u128),
    /// Nothing is queued.
    Idle,
}

/// The next task: due timers first join the task queue (by due time, then by the order they
/// were set), then the oldest task.
pub(crate) fn next_task(cx: &mut Cx) -> Next {
    let agent = cx.agent();
    let now = super::clock_nanos(cx);
    {
        let mut timers = agent.timers.borrow_mut();
        if !timers.is_empty() {
            timers.sort_by_key(|t| (t.due, t.sequence));
            let due = timers.iter().take_while(|t| t.due <= now).count();
            let mut tasks = agent.tasks.borrow_mut();
            for timer in timers.drain(..due) {
                tasks.push_back(timer.task);
            }
        }
    }
    if let Some(task) = agent.tasks.borrow_mut().pop_front() {
        return Next::Task(task);
    }
    match agent.timers.borrow().iter().map(|t| t.due).min() {
        Some(due) => Next::Wait(due.saturating_sub(now)),
        None => Next::Idle,
    }
}

/// Runs a task in its realm.
pub(crate) fn run_task(cx: &mut Cx, task: Task) -> JsResult<()> {
    let Task { realm, job } = task;
    cx.in_realm(realm.0, job)
}

/// Whether `value` is a pending promise.
pub(crate) fn is_pending_promise(value: &Value) -> bool {
    let ctx = super::core::current_ctx();
    // SAFETY: a live context when one is current.
    !ctx.is_null()
        && unsafe { q::JS_IsPromise(value.raw()) }
        && unsafe { q::JS_PromiseState(ctx, value.raw()) }
            == q::JSPromiseStateEnum_JS_PROMISE_PENDING
}

/// A full collection (cycles included).
pub(crate) fn run_gc(cx: &mut Cx) {
    // SAFETY: a live runtime.
    unsafe { q::JS_RunGC(cx.rt()) }
}

/// A built-in function of the current realm.
pub(crate) fn function(cx: &mut Cx, name: &str, length: usize, f: NativeFunctionPointer) -> Value {
    super::call::new_function(cx, name, length, f).into_value()
}

/// A built-in function of the current realm that returns `text` (a `toString` of a host
/// object).
pub(crate) fn string_function(cx: &mut Cx, name: &str, text: super::JsString) -> Value {
    fn get(text: &super::JsString, _: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
        Ok(Value::from(text.clone()))
    }
    super::call::new_closure(cx, name, 0, text, get).into_value()
}

/// Makes the current realm's global object carry `holder`'s native data (QuickJS makes the
/// global object with a class of its own, which has no room for ours): what makes it an
/// `EventTarget`.
pub(crate) fn adopt_global_data(cx: &mut Cx, holder: super::Object) {
    let global = super::global_object(cx);
    cx.agent()
        .adopt_foreign_data(global.as_value(), holder.into_value());
}

/// The current realm's %Object.prototype%.
pub(crate) fn object_prototype(cx: &mut Cx) -> super::Object {
    super::task::intrinsic_object(cx, "Object.prototype")
}

/// Queues a timer the host may cancel with [`cancel_timer`] (`setTimeout`'s): `job` runs in the
/// current realm once `milliseconds` have passed.
pub(crate) fn queue_keyed_timer(
    cx: &mut Cx,
    key: u64,
    milliseconds: u64,
    job: impl FnOnce(&mut Cx) -> JsResult<()> + 'static,
) {
    let due = super::clock_nanos(cx) + u128::from(milliseconds) * 1_000_000;
    let agent = cx.agent();
    let sequence = agent.timer_sequence.get();
    agent.timer_sequence.set(sequence + 1);
    agent.timers.borrow_mut().push(super::core::Timer {
        due,
        sequence,
        key: Some(key),
        task: Task {
            realm: super::Realm::of(cx.raw()),
            job: Box::new(job),
        },
    });
}

/// Removes the queued timer with `key` (`clearTimeout`): it neither runs nor keeps the event
/// loop waiting.
pub(crate) fn cancel_timer(cx: &mut Cx, key: u64) {
    let removed: Vec<super::core::Timer> = {
        let mut timers = cx.agent().timers.borrow_mut();
        let (gone, kept) = std::mem::take(&mut *timers)
            .into_iter()
            .partition(|t| t.key == Some(key));
        *timers = kept;
        gone
    };
    // Dropped outside the borrow: the jobs' captured values may run finalizers.
    drop(removed);
}
