//! An HTML-ordered event loop for Boa, and the promise rejection tracker that goes with it.
//!
//! <https://html.spec.whatwg.org/multipage/webappapis.html#event-loop-processing-model>
//!
//! - Microtasks (`Job::PromiseJob`: promise reactions, thenable jobs, `queueMicrotask`) run in a
//!   *microtask checkpoint* that drains the whole queue, including microtasks queued meanwhile,
//!   before the next task.
//! - Tasks are `Job::GenericJob`s and timers that came due (`setTimeout`, `setInterval`), in one
//!   FIFO queue; due timers enter it ordered by due time, then by insertion order.
//! - A job that throws is reported ([`HostReport::UncaughtError`]); nothing else is dropped.
//! - When nothing is runnable, the loop sleeps until the next timer is due (or the deadline),
//!   or, while a `MessagePort` here is entangled with a port in another agent (thread), until a
//!   message arrives: the agent's inbox is a condition variable, so waiting costs no CPU. It
//!   returns idle once nothing is left that could ever run (no timer, no job, no port that can
//!   still receive from elsewhere).
//! - Messages that other agents post to this agent's ports become tasks here, in arrival
//!   order, before each task is picked.
//! - At the end of each checkpoint, rejected promises that are still unhandled are reported
//!   ([`HostReport::UnhandledRejection`]), and `ClearKeptObjects` runs.
//! - `Job::AsyncJob`s (futures) are polled while [`EventLoop::run`] is running; a future still
//!   pending when `run` returns is abandoned (and reported). `FinalizationRegistry` cleanup
//!   futures are polled too but never keep the loop alive (the spec allows omitting them).

use std::{
    cell::{Cell, RefCell},
    collections::{BTreeMap, HashMap, VecDeque},
    future::Future,
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
    context::{intrinsics::Intrinsics, HostHooks},
    job::{GenericJob, IntervalJob, Job, JobExecutor, NativeAsyncJob, PromiseJob, TimeoutJob},
    object::builtins::JsPromise,
    Context, JsError, JsObject, JsResult, JsValue,
};

use super::{HostReport, RunOutcome};
use crate::html::Agent;

/// A task: one unit of work run between microtask checkpoints.
enum Task {
    Generic(GenericJob),
    Timeout(TimeoutJob),
    Interval(IntervalJob),
}

impl Task {
    /// Whether a timer was cancelled (`clearTimeout`/`clearInterval`) and must be skipped.
    fn cancelled(&self) -> bool {
        match self {
            Task::Generic(_) => false,
            Task::Timeout(job) => job.cancelled(),
            Task::Interval(job) => job.cancelled(),
        }
    }
}

/// A started `NativeAsyncJob`, borrowing the context cell of the running [`EventLoop::run`].
struct InFlight<'a> {
    future: Pin<Box<dyn Future<Output = JsResult<JsValue>> + 'a>>,
    /// `false` for `FinalizationRegistry` cleanup futures, which wait forever by design.
    keeps_alive: bool,
}

/// Wakes the event loop (waiting on its agent's inbox) when an async job can make progress.
struct LoopWaker {
    woken: AtomicBool,
    agent: Arc<Agent>,
}

impl Wake for LoopWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.woken.store(true, Ordering::SeqCst);
        self.agent.wake();
    }
}

/// The job executor and host hooks of a host-built context (one shared `Rc`).
pub(crate) struct EventLoop {
    /// This agent, as other threads see it: the inbox its `MessagePort`s receive through.
    agent: Arc<Agent>,
    microtasks: RefCell<VecDeque<PromiseJob>>,
    tasks: RefCell<VecDeque<Task>>,
    /// Pending timers keyed by (due time, insertion number).
    timers: RefCell<BTreeMap<(Instant, u64), Task>>,
    next_timer_seq: Cell<u64>,
    /// Async jobs not yet started (they start in the next `run`).
    async_jobs: RefCell<VecDeque<NativeAsyncJob>>,
    cleanup_jobs: RefCell<VecDeque<NativeAsyncJob>>,
    /// HTML's "about-to-be-notified rejected promises list", with the order of rejection.
    about_to_be_notified: RefCell<HashMap<JsObject<Promise>, u64>>,
    next_rejection_seq: Cell<u64>,
    reports: RefCell<Vec<HostReport>>,
    /// HTML's "performing a microtask checkpoint" flag.
    performing_checkpoint: Cell<bool>,
    /// A worker's closing flag: set by `close()` in a spawned agent; the loop stops.
    closing: Cell<bool>,
}

impl std::fmt::Debug for EventLoop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventLoop")
            .field("microtasks", &self.microtasks.borrow().len())
            .field("tasks", &self.tasks.borrow().len())
            .field("timers", &self.timers.borrow().len())
            .field("reports", &self.reports.borrow().len())
            .finish_non_exhaustive()
    }
}

impl EventLoop {
    /// An event loop for a new agent.
    pub(crate) fn new() -> Self {
        Self {
            agent: Agent::new(),
            microtasks: RefCell::default(),
            tasks: RefCell::default(),
            timers: RefCell::default(),
            next_timer_seq: Cell::default(),
            async_jobs: RefCell::default(),
            cleanup_jobs: RefCell::default(),
            about_to_be_notified: RefCell::default(),
            next_rejection_seq: Cell::default(),
            reports: RefCell::default(),
            performing_checkpoint: Cell::default(),
            closing: Cell::default(),
        }
    }

    /// Sets the closing flag: the running loop returns [`RunOutcome::Closed`] after the current
    /// task, and later runs return at once.
    pub(crate) fn close(&self) {
        self.closing.set(true);
    }

    /// This event loop's agent.
    pub(crate) fn agent(&self) -> &Arc<Agent> {
        &self.agent
    }

    /// Records a report.
    pub(crate) fn report(&self, report: HostReport) {
        self.reports.borrow_mut().push(report);
    }

    /// Takes the reports gathered so far.
    pub(crate) fn take_reports(&self) -> Vec<HostReport> {
        std::mem::take(&mut *self.reports.borrow_mut())
    }

    /// Reports an exception thrown by a job ("report the exception").
    fn report_error(&self, error: JsError, ctx: &mut Context) {
        let message = error_message(error, ctx);
        self.report(HostReport::UncaughtError(message));
    }

    fn add_timer(&self, due: Instant, timer: Task) {
        let seq = self.next_timer_seq.get();
        self.next_timer_seq.set(seq.wrapping_add(1));
        self.timers.borrow_mut().insert((due, seq), timer);
    }

    /// Moves every timer due at `now` into the task queue, in (due time, insertion) order.
    fn queue_due_timers(&self, now: Instant) {
        let mut timers = self.timers.borrow_mut();
        let mut tasks = self.tasks.borrow_mut();
        while let Some(entry) = timers.first_entry() {
            if entry.key().0 > now {
                break;
            }
            let timer = entry.remove();
            if !timer.cancelled() {
                tasks.push_back(timer);
            }
        }
    }

    /// The due time of the earliest timer that was not cancelled (cancelled ones are dropped).
    fn next_timer_due(&self) -> Option<Instant> {
        let mut timers = self.timers.borrow_mut();
        timers.retain(|_, timer| !timer.cancelled());
        timers.first_key_value().map(|(key, _)| key.0)
    }

    /// Whether a microtask, task, timer or async job is queued.
    pub(crate) fn has_pending_work(&self) -> bool {
        !self.microtasks.borrow().is_empty()
            || !self.tasks.borrow().is_empty()
            || self.next_timer_due().is_some()
            || !self.async_jobs.borrow().is_empty()
            || self.agent.has_ready()
    }

    /// <https://html.spec.whatwg.org/multipage/webappapis.html#perform-a-microtask-checkpoint>
    pub(crate) fn microtask_checkpoint(&self, ctx: &mut Context) {
        // 1-2. Not re-entrant.
        if self.performing_checkpoint.replace(true) {
            return;
        }
        // 3. Run microtasks until the queue is empty (the borrow ends before the call).
        loop {
            let job = self.microtasks.borrow_mut().pop_front();
            let Some(job) = job else { break };
            if let Err(error) = job.call(ctx) {
                self.report_error(error, ctx);
            }
            // Reactions the streams layer holds in Rust run once their promise has settled.
            crate::engine::run_deferred_reactions(ctx);
        }
        // 4. Notify about rejected promises.
        self.notify_about_rejected_promises(ctx);
        // 6. ClearKeptObjects().
        ctx.clear_kept_objects();
        // 7.
        self.performing_checkpoint.set(false);
    }

    /// <https://html.spec.whatwg.org/multipage/webappapis.html#notify-about-rejected-promises>,
    /// reporting (instead of firing `unhandledrejection`) each promise still unhandled.
    fn notify_about_rejected_promises(&self, ctx: &mut Context) {
        let mut list: Vec<(u64, JsObject<Promise>)> = {
            let mut pending = self.about_to_be_notified.borrow_mut();
            if pending.is_empty() {
                return;
            }
            pending
                .drain()
                .map(|(promise, seq)| (seq, promise))
                .collect()
        };
        list.sort_unstable_by_key(|(seq, _)| *seq);
        for (_, promise) in list {
            // [[PromiseIsHandled]] set by the streams layer (mark as handled).
            if crate::engine::is_marked_as_handled(&promise.clone().upcast().into(), ctx) {
                continue;
            }
            let Ok(promise) = JsPromise::from_object(promise.upcast()) else {
                continue;
            };
            if let PromiseState::Rejected(reason) = promise.state() {
                let message = crate::engine::value_message(&reason.into(), ctx);
                self.report(HostReport::UnhandledRejection(message));
            }
        }
    }

    fn run_task(&self, task: Task, ctx: &mut Context) {
        match task {
            Task::Generic(job) => {
                if let Err(error) = job.call(ctx) {
                    self.report_error(error, ctx);
                }
            }
            Task::Timeout(job) => {
                if !job.cancelled() {
                    if let Err(error) = job.call(ctx) {
                        self.report_error(error, ctx);
                    }
                }
            }
            Task::Interval(job) => {
                if job.cancelled() {
                    return;
                }
                if let Err(error) = job.call(ctx) {
                    self.report_error(error, ctx);
                }
                // The callback may have cleared its own interval.
                if !job.cancelled() {
                    let due = Instant::now() + duration(job.interval().as_millis());
                    self.add_timer(due, Task::Interval(job));
                }
            }
        }
    }

    /// Runs the loop: checkpoint, `done` check, deadline check, then one task (or one round of
    /// async polling), sleeping when nothing is runnable. See [`super::Host::run_until`].
    pub(crate) fn run(
        &self,
        ctx: &mut Context,
        deadline: Option<Instant>,
        done: &mut dyn FnMut(&mut Context) -> bool,
    ) -> RunOutcome {
        let cell = RefCell::new(ctx);
        let waker_state = Arc::new(LoopWaker {
            woken: AtomicBool::new(false),
            agent: Arc::clone(&self.agent),
        });
        let waker = Waker::from(Arc::clone(&waker_state));
        let mut in_flight: Vec<InFlight<'_>> = Vec::new();

        let outcome = loop {
            self.microtask_checkpoint(&mut cell.borrow_mut());
            if self.closing.get() {
                break RunOutcome::Closed;
            }
            if done(&mut cell.borrow_mut()) {
                break RunOutcome::Done;
            }
            if deadline.is_some_and(|deadline| Instant::now() >= deadline) {
                break RunOutcome::DeadlineReached;
            }

            // Async jobs: start the queued ones, poll when started or woken.
            let mut poll_needed = waker_state.woken.swap(false, Ordering::SeqCst);
            for (queue, keeps_alive) in [(&self.async_jobs, true), (&self.cleanup_jobs, false)] {
                loop {
                    let job = queue.borrow_mut().pop_front();
                    let Some(job) = job else { break };
                    in_flight.push(InFlight {
                        future: Box::pin(job.call(&cell)),
                        keeps_alive,
                    });
                    poll_needed = true;
                }
            }
            if poll_needed && !in_flight.is_empty() {
                // A polling round counts as a task; it does not starve the task queue even if
                // a future keeps waking itself.
                self.poll_in_flight(&mut in_flight, &waker, &cell);
                self.microtask_checkpoint(&mut cell.borrow_mut());
                if done(&mut cell.borrow_mut()) {
                    break RunOutcome::Done;
                }
            }

            // Messages other agents posted to this agent's ports become tasks.
            crate::html::deliver_remote_messages(&mut cell.borrow_mut());
            // One task.
            self.queue_due_timers(Instant::now());
            let task = self.tasks.borrow_mut().pop_front();
            if let Some(task) = task {
                self.run_task(task, &mut cell.borrow_mut());
                continue;
            }

            // Nothing runnable: stop, or wait until the next timer / deadline / wake-up / message.
            let next_timer = self.next_timer_due();
            let keeps_alive = in_flight.iter().any(|job| job.keeps_alive);
            let may_receive =
                self.agent.has_ready() || crate::html::may_receive_remote_messages(&cell.borrow());
            if next_timer.is_none() && !keeps_alive && !may_receive {
                break RunOutcome::Idle;
            }
            let wake_at = match (next_timer, deadline) {
                (Some(timer), Some(deadline)) => Some(timer.min(deadline)),
                (timer, deadline) => timer.or(deadline),
            };
            self.agent.wait(wake_at);
        };

        let abandoned = in_flight.iter().filter(|job| job.keeps_alive).count();
        drop(in_flight);
        if abandoned > 0 {
            self.report(HostReport::UncaughtError(format!(
                "{abandoned} pending async job(s) abandoned when the event loop returned"
            )));
        }
        outcome
    }

    /// Polls every in-flight async job once, reporting the errors of those that complete.
    fn poll_in_flight(
        &self,
        in_flight: &mut Vec<InFlight<'_>>,
        waker: &Waker,
        cell: &RefCell<&mut Context>,
    ) {
        let mut task_cx = std::task::Context::from_waker(waker);
        let mut index = 0;
        while index < in_flight.len() {
            // No borrow of `cell` is held here: the future borrows it itself.
            match in_flight[index].future.as_mut().poll(&mut task_cx) {
                Poll::Pending => index += 1,
                Poll::Ready(result) => {
                    drop(in_flight.swap_remove(index));
                    if let Err(error) = result {
                        self.report_error(error, &mut cell.borrow_mut());
                    }
                }
            }
        }
    }
}

fn duration(millis: u64) -> Duration {
    Duration::from_millis(millis)
}

impl JobExecutor for EventLoop {
    fn enqueue_job(self: Rc<Self>, job: Job, _context: &mut Context) {
        match job {
            Job::PromiseJob(job) => self.microtasks.borrow_mut().push_back(job),
            Job::GenericJob(job) => self.tasks.borrow_mut().push_back(Task::Generic(job)),
            Job::TimeoutJob(job) => {
                let due = Instant::now() + duration(job.timeout().as_millis());
                self.add_timer(due, Task::Timeout(job));
            }
            Job::IntervalJob(job) => {
                let due = Instant::now() + duration(job.interval().as_millis());
                self.add_timer(due, Task::Interval(job));
            }
            Job::AsyncJob(job) => self.async_jobs.borrow_mut().push_back(job),
            Job::FinalizationRegistryCleanupJob(job) => {
                self.cleanup_jobs.borrow_mut().push_back(job);
            }
            _ => self.report(HostReport::UncaughtError(
                "a job of an unsupported kind was dropped".to_owned(),
            )),
        }
    }

    /// `Context::run_jobs`: runs the loop until nothing is left; errors are reported, not
    /// returned.
    fn run_jobs(self: Rc<Self>, context: &mut Context) -> JsResult<()> {
        self.run(context, None, &mut |_| false);
        Ok(())
    }
}

impl HostHooks for EventLoop {
    /// Every global object is an `EventTarget` (as window and worker global scopes are), with
    /// %Object.prototype% as its prototype until the host makes it a window.
    fn create_global_object(&self, intrinsics: &Intrinsics) -> JsObject {
        crate::dom::new_event_target_global(intrinsics.constructors().object().prototype().into())
            .into()
    }

    /// <https://html.spec.whatwg.org/multipage/webappapis.html#the-hostpromiserejectiontracker-implementation>
    fn promise_rejection_tracker(
        &self,
        promise: &JsObject<Promise>,
        operation: OperationType,
        _context: &mut Context,
    ) {
        match operation {
            OperationType::Reject => {
                let seq = self.next_rejection_seq.get();
                self.next_rejection_seq.set(seq.wrapping_add(1));
                self.about_to_be_notified
                    .borrow_mut()
                    .insert(promise.clone(), seq);
            }
            OperationType::Handle => {
                self.about_to_be_notified.borrow_mut().remove(promise);
            }
        }
    }
}

/// The string form of an error: see [`crate::engine::value_message`]; engine errors that script cannot catch
/// (e.g. runtime limits) use their own message.
pub(crate) fn error_message(error: JsError, ctx: &mut Context) -> String {
    let fallback = error.to_string();
    match error.into_opaque(ctx) {
        Ok(value) => crate::engine::value_message(&value.into(), ctx),
        Err(_) => fallback,
    }
}
