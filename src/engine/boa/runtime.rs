//! The runtime interface on Boa (`../runtime.rs` has its engine-free half): a `Context` built
//! with this backend's job executor and host hooks, which hand tasks, timers, rejections and
//! global objects to the host's [`RuntimeHost`]; the microtask queue (Boa's promise jobs) and
//! Boa's async jobs (futures: dynamic `import()`, `Atomics.waitAsync`, `FinalizationRegistry`
//! cleanup, an embedder's); script evaluation and collection.

use std::{
    cell::{Cell, RefCell},
    collections::VecDeque,
    future::Future,
    path::Path,
    pin::Pin,
    rc::Rc,
    sync::{
        atomic::{AtomicBool, Ordering},
        Arc,
    },
    task::{Poll, Wake, Waker},
    time::{Duration, Instant},
};

use boa_engine::{
    builtins::promise::{OperationType, Promise, PromiseState},
    context::{intrinsics::Intrinsics, ContextBuilder, HostHooks},
    job::{IntervalJob, Job, JobExecutor, NativeAsyncJob, PromiseJob},
    object::builtins::JsPromise as BoaPromise,
    JsObject, JsValue, Script, Source,
};

use super::{Cx, JsError, JsResult, Object, Realm, Value};
use crate::engine::runtime::{RejectionOperation, RuntimeHost};

/// The VM stack size limit of a runtime's context, in values: 1,048,576 (Boa's default is
/// 10,240). Mitigates a Boa 0.22 bug (ENGINE_BUGS.md, 1): each caught exception leaks a few VM
/// stack slots, so at the default limit a loop dies with an uncatchable "maximum stack size"
/// error after about 1,460 catches; at this one, after about 150,000. The stack grows only as
/// it is used.
const STACK_SIZE_LIMIT: usize = 1 << 20;

/// The context's job executor and host hooks: the engine's microtask queue and async jobs
/// here, everything else handed to the host.
struct Executor {
    host: Rc<dyn RuntimeHost>,
    microtasks: RefCell<VecDeque<PromiseJob>>,
    /// Async jobs not started yet (they start in the event loop's next polling round).
    async_jobs: RefCell<VecDeque<NativeAsyncJob>>,
    /// `FinalizationRegistry` cleanup jobs: polled like async jobs, but they never keep the
    /// event loop alive (the spec allows omitting cleanup).
    cleanup_jobs: RefCell<VecDeque<NativeAsyncJob>>,
    /// Past this time the microtask queue stops running ([`Runtime::set_deadline`]).
    deadline: Cell<Option<Instant>>,
    /// GC stress: a full collection after every this many microtasks (0: off).
    gc_every: Cell<u32>,
    /// Microtasks run since the last stress collection.
    since_gc: Cell<u32>,
}

/// An agent on Boa: the context it built (the embedder holds it) and the context's executor.
pub struct Runtime {
    executor: Rc<Executor>,
}

impl std::fmt::Debug for Runtime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runtime")
            .field("microtasks", &self.executor.microtasks.borrow().len())
            .finish_non_exhaustive()
    }
}

impl Runtime {
    /// A new agent and its main realm, whose tasks, timers and rejections go to `host`.
    pub fn new(host: Rc<dyn RuntimeHost>) -> JsResult<(Runtime, Cx)> {
        let executor = Rc::new(Executor {
            host,
            microtasks: RefCell::default(),
            async_jobs: RefCell::default(),
            cleanup_jobs: RefCell::default(),
            deadline: Cell::default(),
            gc_every: Cell::default(),
            since_gc: Cell::default(),
        });
        let mut ctx = ContextBuilder::new()
            .host_hooks(Rc::clone(&executor))
            .job_executor(Rc::clone(&executor))
            .build()?;
        ctx.runtime_limits_mut()
            .set_stack_size_limit(STACK_SIZE_LIMIT);
        Ok((Runtime { executor }, ctx))
    }

    /// A new realm of this agent (its global object from the host's
    /// [`RuntimeHost::new_global_object`]); the caller installs its globals.
    pub fn new_realm(&self, ctx: &mut Cx) -> JsResult<Realm> {
        ctx.create_realm().map(Realm).map_err(JsError::from)
    }

    /// Runs the microtask queue until it is empty (microtasks queued meanwhile included),
    /// handing each error a microtask threw to `report`; stops early, leaving the rest queued,
    /// once the deadline ([`Runtime::set_deadline`]) has passed.
    pub fn run_microtasks(&self, ctx: &mut Cx, report: &mut dyn FnMut(JsError, &mut Cx)) {
        loop {
            if self.deadline_passed() {
                break;
            }
            // The borrow ends before the job runs.
            let job = self.executor.microtasks.borrow_mut().pop_front();
            let Some(job) = job else { break };
            if let Err(error) = job.call(ctx) {
                report(JsError::from(error), ctx);
            }
            // Reactions the streams layer holds in Rust run once their promise has settled.
            super::run_deferred_reactions(ctx);
            self.gc_stress_tick();
        }
    }

    /// Whether the deadline ([`Runtime::set_deadline`]) has passed.
    fn deadline_passed(&self) -> bool {
        self.executor
            .deadline
            .get()
            .is_some_and(|deadline| Instant::now() >= deadline)
    }

    /// Counts a microtask for GC stress, collecting after every `gc_every`-th.
    fn gc_stress_tick(&self) {
        let every = self.executor.gc_every.get();
        if every == 0 {
            return;
        }
        let count = self.executor.since_gc.get() + 1;
        if count >= every {
            self.executor.since_gc.set(0);
            boa_gc::force_collect();
        } else {
            self.executor.since_gc.set(count);
        }
    }

    /// Sets (or, with `None`, removes) the time past which script stops: on Boa, only between
    /// microtasks ([`Runtime::run_microtasks`] leaves the rest queued). Boa 0.22 has no hook
    /// that interrupts running script (no interrupt handler, no clock in its runtime limits):
    /// a loop is bounded only by [`Runtime::set_loop_iteration_limit`].
    pub fn set_deadline(&self, deadline: Option<Instant>) {
        self.executor.deadline.set(deadline);
    }

    /// Boa 0.22 has no memory limit (its collector has no allocation cap and no allocation
    /// hook): does nothing and returns false.
    pub fn set_memory_limit(&self, _ctx: &mut Cx, _bytes: usize) -> bool {
        false
    }

    /// Boa's loop-iteration runtime limit: a loop (every loop of one call frame, counted
    /// together) that runs more than `iterations` iterations ends with an uncatchable
    /// `RuntimeLimit` error. Returns true (the engine enforces it).
    pub fn set_loop_iteration_limit(&self, ctx: &mut Cx, iterations: u64) -> bool {
        ctx.runtime_limits_mut()
            .set_loop_iteration_limit(iterations);
        true
    }

    /// GC stress: a full collection after every `every` microtasks (0: off). The host
    /// collects at every task itself ([`collect_garbage`]).
    pub fn set_gc_stress(&self, _ctx: &mut Cx, every: u32) {
        self.executor.gc_every.set(every);
        self.executor.since_gc.set(0);
    }

    /// Whether a microtask, or an async job not started yet, is queued.
    pub fn has_pending_jobs(&self) -> bool {
        !self.executor.microtasks.borrow().is_empty()
            || !self.executor.async_jobs.borrow().is_empty()
    }
}

impl JobExecutor for Executor {
    fn enqueue_job(self: Rc<Self>, job: Job, _ctx: &mut Cx) {
        match job {
            Job::PromiseJob(job) => self.microtasks.borrow_mut().push_back(job),
            Job::GenericJob(job) => self.host.enqueue_task(Box::new(move |ctx| {
                job.call(ctx).map(drop).map_err(Into::into)
            })),
            Job::TimeoutJob(job) => {
                let delay = Duration::from_millis(job.timeout().as_millis());
                let token = job.cancellation_token().clone();
                self.host.enqueue_timer(
                    delay,
                    Box::new(move |ctx| {
                        if job.cancelled() {
                            return Ok(());
                        }
                        job.call(ctx).map(drop).map_err(Into::into)
                    }),
                    Some(Box::new(move || token.revoked())),
                );
            }
            Job::IntervalJob(job) => enqueue_interval(&self.host, job),
            Job::AsyncJob(job) => self.async_jobs.borrow_mut().push_back(job),
            Job::FinalizationRegistryCleanupJob(job) => {
                self.cleanup_jobs.borrow_mut().push_back(job);
            }
            // A kind of job this executor does not know: reported (as a task that throws).
            _ => self.host.enqueue_task(Box::new(|_| {
                Err(super::throw_type_error(
                    "a job of an unsupported kind was dropped",
                ))
            })),
        }
    }

    /// `Context::run_jobs`: the host's event loop, until nothing is left (errors are
    /// reported, not returned).
    fn run_jobs(self: Rc<Self>, ctx: &mut Cx) -> boa_engine::JsResult<()> {
        self.host.run_jobs(ctx);
        Ok(())
    }
}

/// An interval job: a timer whose task runs the job, then sets the timer again unless the job
/// was canceled.
fn enqueue_interval(host: &Rc<dyn RuntimeHost>, job: IntervalJob) {
    let delay = Duration::from_millis(job.interval().as_millis());
    let token = job.cancellation_token().clone();
    let again = Rc::clone(host);
    host.enqueue_timer(
        delay,
        Box::new(move |ctx| {
            if job.cancelled() {
                return Ok(());
            }
            let result = job.call(ctx).map(drop).map_err(Into::into);
            // The callback may have canceled its own interval.
            if !job.cancelled() {
                enqueue_interval(&again, job);
            }
            result
        }),
        Some(Box::new(move || token.revoked())),
    );
}

impl HostHooks for Executor {
    /// The host's global object (what makes it an `EventTarget`), with the realm's
    /// %Object.prototype%.
    fn create_global_object(&self, intrinsics: &Intrinsics) -> JsObject {
        let prototype = Object::from(intrinsics.constructors().object().prototype());
        self.host.new_global_object(prototype).into()
    }

    /// HostPromiseRejectionTracker: to the host, with the promise's result.
    fn promise_rejection_tracker(
        &self,
        promise: &JsObject<Promise>,
        operation: OperationType,
        _ctx: &mut Cx,
    ) {
        let object: JsObject = promise.clone().upcast();
        let operation = match operation {
            OperationType::Reject => {
                let reason = match BoaPromise::from_object(object.clone()).map(|p| p.state()) {
                    Ok(PromiseState::Rejected(reason)) => Value::from(reason),
                    _ => Value::undefined(),
                };
                RejectionOperation::Reject { reason }
            }
            OperationType::Handle => RejectionOperation::Handle,
        };
        self.host
            .promise_rejection_tracker(Object::from(object), operation);
    }
}

/// Evaluates `source` as a classic script in the current realm (`name` is its path in stack
/// traces and errors).
pub fn evaluate_script(ctx: &mut Cx, name: Option<&Path>, source: &str) -> JsResult<Value> {
    let mut source = Source::from_bytes(source);
    if let Some(name) = name {
        source = source.with_path(name);
    }
    Script::parse(source, None, ctx)
        .and_then(|script| script.evaluate(ctx))
        .map(Value::from)
        .map_err(JsError::from)
}

/// Runs every job the context has: a host's context, its event loop until nothing is left
/// (errors reported there); a plain context built without a host, Boa's own executor (its
/// first error returned).
pub fn run_jobs(ctx: &mut Cx) -> JsResult<()> {
    ctx.run_jobs().map_err(JsError::from)
}

/// A full collection (on Boa, of the thread's heap).
pub fn collect_garbage(_ctx: &mut Cx) {
    boa_gc::force_collect();
}

/// ClearKeptObjects(): releases the objects `WeakRef`s kept alive for the current job.
pub fn clear_kept_objects(ctx: &mut Cx) {
    ctx.clear_kept_objects();
}

/// Whether `value` is a promise that is still pending.
pub fn is_pending_promise(value: &Value) -> bool {
    value
        .js()
        .as_object()
        .and_then(|o| BoaPromise::from_object(o.clone()).ok())
        .is_some_and(|p| matches!(p.state(), PromiseState::Pending))
}

/// How the console prints a value that is not a string (the Console Standard leaves it to the
/// implementation): Boa's inspection form, which runs no script (`{ a: 1 }`, `[ 1, 2 ]`,
/// `TypeError: message`).
pub fn inspect(value: &Value, _ctx: &mut Cx) -> String {
    value.to_string_for_display()
}

/// Boa's async jobs, polled by the event loop while it runs: each borrows the context through
/// the loop's `RefCell` for as long as it is in flight, so they live as long as one run of the
/// loop; one still pending when the loop returns is abandoned (the loop reports it).
pub struct AsyncJobs<'a, 'c> {
    executor: &'a Executor,
    ctx: &'a RefCell<&'c mut Cx>,
    in_flight: Vec<InFlight<'a>>,
    woken: Arc<LoopWaker>,
    waker: Waker,
}

struct InFlight<'a> {
    future: Pin<Box<dyn Future<Output = boa_engine::JsResult<JsValue>> + 'a>>,
    /// Whether it keeps the event loop alive (async jobs do, cleanup jobs do not).
    keeps_alive: bool,
}

/// Wakes the event loop when an in-flight async job can make progress.
struct LoopWaker {
    woken: AtomicBool,
    wake: Arc<dyn Fn() + Send + Sync>,
}

impl Wake for LoopWaker {
    fn wake(self: Arc<Self>) {
        self.woken.store(true, Ordering::SeqCst);
        (self.wake)();
    }
}

impl<'a, 'c> AsyncJobs<'a, 'c> {
    /// The async jobs of one run of the event loop, which holds its context in `ctx`; `wake`
    /// wakes the loop (from any thread) when one of them can make progress.
    pub fn new(
        runtime: &'a Runtime,
        ctx: &'a RefCell<&'c mut Cx>,
        wake: Arc<dyn Fn() + Send + Sync>,
    ) -> Self {
        let woken = Arc::new(LoopWaker {
            woken: AtomicBool::new(false),
            wake,
        });
        Self {
            executor: &runtime.executor,
            ctx,
            in_flight: Vec::new(),
            waker: Waker::from(Arc::clone(&woken)),
            woken,
        }
    }

    /// Starts the async jobs queued since the last call, then, if one started or was woken,
    /// polls every job in flight once (errors go to `report`). Returns whether it polled (a
    /// polling round counts as a task: the caller performs a microtask checkpoint after it).
    pub fn poll(&mut self, report: &mut dyn FnMut(JsError, &mut Cx)) -> bool {
        let mut poll_needed = self.woken.woken.swap(false, Ordering::SeqCst);
        for (queue, keeps_alive) in [
            (&self.executor.async_jobs, true),
            (&self.executor.cleanup_jobs, false),
        ] {
            loop {
                let job = queue.borrow_mut().pop_front();
                let Some(job) = job else { break };
                self.in_flight.push(InFlight {
                    future: Box::pin(job.call(self.ctx)),
                    keeps_alive,
                });
                poll_needed = true;
            }
        }
        if !poll_needed || self.in_flight.is_empty() {
            return false;
        }
        let mut task_cx = std::task::Context::from_waker(&self.waker);
        let mut index = 0;
        while index < self.in_flight.len() {
            // No borrow of the context is held here: the future borrows it itself.
            match self.in_flight[index].future.as_mut().poll(&mut task_cx) {
                Poll::Pending => index += 1,
                Poll::Ready(result) => {
                    drop(self.in_flight.swap_remove(index));
                    if let Err(error) = result {
                        report(JsError::from(error), &mut self.ctx.borrow_mut());
                    }
                }
            }
        }
        true
    }

    /// Whether a job in flight keeps the event loop alive.
    pub fn keeps_alive(&self) -> bool {
        self.in_flight.iter().any(|job| job.keeps_alive)
    }

    /// Drops the jobs still in flight; returns how many of them kept the loop alive.
    pub fn abandon(self) -> usize {
        self.in_flight.iter().filter(|job| job.keeps_alive).count()
    }
}
