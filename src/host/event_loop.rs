//! The host's event loop state, and what the engine's runtime asks of it
//! ([`RuntimeHost`]): one implementation over the engine's runtime interface, for both engines.
//!
//! <https://html.spec.whatwg.org/multipage/webappapis.html#event-loop-processing-model>
//!
//! - Microtasks are the engine's job queue (promise reactions, thenable jobs, `queueMicrotask`,
//!   the library's Rust microtasks); a *microtask checkpoint* ([`super::Host::perform_microtask_checkpoint`])
//!   drains it, including microtasks queued meanwhile, before the next task. It is not
//!   re-entrant (HTML's "performing a microtask checkpoint" flag): a checkpoint asked for while
//!   one runs (by "clean up after running script" after an event listener that a microtask
//!   dispatched) returns at once.
//! - Tasks (the engine's `queue_task_in`, messages of this agent's ports, Boa's generic jobs)
//!   are one FIFO queue; timers (`setTimeout`, `setInterval`, the engine's `queue_timer`) join
//!   it once due, ordered by due time, then by the order they were set.
//! - A task or microtask that throws is reported ([`HostReport::UncaughtError`]); nothing else
//!   is dropped.
//! - Rejections follow HTML's HostPromiseRejectionTracker: a promise rejected without a handler
//!   goes on the about-to-be-notified list, a handler added later takes it off, and at the end
//!   of each checkpoint the list is processed: each promise whose [[PromiseIsHandled]] is still
//!   false is reported ([`HostReport::UnhandledRejection`], in place of the
//!   `unhandledrejection` event).
//! - The loop itself ([`super::Host::run_until`]) sleeps when nothing is runnable: until the
//!   next timer is due (or the deadline), or, while a `MessagePort` here is entangled with a
//!   port in another agent, until a message arrives (the agent's inbox is a condition
//!   variable). Messages other agents post become tasks before each task is picked.

use std::{
    cell::{Cell, RefCell},
    collections::{BTreeMap, HashMap, VecDeque},
    sync::Arc,
    time::{Duration, Instant},
};

use super::HostReport;
use crate::engine::{
    self, Cx, JsError, Object, RejectionOperation, RuntimeHost, Task, TimerCanceled, Value,
};
use crate::html::Agent;

/// The event loop's clock: tokio's with the `tokio` feature (so `tokio::time::pause` makes
/// timers deterministic: a paused runtime's clock jumps to the next timer when the loop
/// sleeps), the system's monotonic clock otherwise. Timers, deadlines and the loop's sleeps
/// all read it.
pub(super) fn now() -> Instant {
    #[cfg(feature = "tokio")]
    {
        tokio::time::Instant::now().into_std()
    }
    #[cfg(not(feature = "tokio"))]
    {
        Instant::now()
    }
}

/// A timer: its task, and (for an engine's cancellable timer) whether it was canceled.
struct Timer {
    task: Task,
    canceled: Option<TimerCanceled>,
}

impl Timer {
    fn is_canceled(&self) -> bool {
        self.canceled.as_ref().is_some_and(|canceled| canceled())
    }
}

/// Where a timer waits: its due time and its insertion number (the order among timers due at
/// the same time).
type TimerKey = (Instant, u64);

/// An agent's event loop: its task queue and timers, HTML's about-to-be-notified rejected
/// promises list, the reports, and the loop's flags.
pub(super) struct EventLoop {
    agent: Arc<Agent>,
    tasks: RefCell<VecDeque<Task>>,
    timers: RefCell<BTreeMap<TimerKey, Timer>>,
    next_timer_seq: Cell<u64>,
    /// HTML's map of active timers (`setTimeout`'s and `setInterval`'s): id → where the timer
    /// waits (absent while its task runs, for a one-shot timer after it ran).
    active_timers: RefCell<HashMap<u32, Option<TimerKey>>>,
    /// The last timer id handed out.
    last_timer_id: Cell<u32>,
    /// HTML's "about-to-be-notified rejected promises list": each promise with its rejection
    /// number (the list's order) and reason.
    about_to_be_notified: RefCell<HashMap<Object, (u64, Value)>>,
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
            .field("tasks", &self.tasks.borrow().len())
            .field("timers", &self.timers.borrow().len())
            .field("reports", &self.reports.borrow().len())
            .finish_non_exhaustive()
    }
}

impl EventLoop {
    /// The event loop of the agent `agent`.
    pub(super) fn new(agent: Arc<Agent>) -> Self {
        Self {
            agent,
            tasks: RefCell::default(),
            timers: RefCell::default(),
            next_timer_seq: Cell::default(),
            active_timers: RefCell::default(),
            last_timer_id: Cell::default(),
            about_to_be_notified: RefCell::default(),
            next_rejection_seq: Cell::default(),
            reports: RefCell::default(),
            performing_checkpoint: Cell::default(),
            closing: Cell::default(),
        }
    }

    /// This event loop's agent.
    pub(super) fn agent(&self) -> &Arc<Agent> {
        &self.agent
    }

    /// Sets the closing flag: the running loop returns [`RunOutcome::Closed`] after the current
    /// task, and later runs return at once.
    pub(super) fn close(&self) {
        self.closing.set(true);
    }

    /// Whether the closing flag is set.
    pub(super) fn is_closing(&self) -> bool {
        self.closing.get()
    }

    /// Sets HTML's "performing a microtask checkpoint" flag; returns what it was.
    pub(super) fn enter_checkpoint(&self) -> bool {
        self.performing_checkpoint.replace(true)
    }

    /// Clears the "performing a microtask checkpoint" flag.
    pub(super) fn leave_checkpoint(&self) {
        self.performing_checkpoint.set(false);
    }

    /// Takes the reports gathered so far.
    pub(super) fn take_reports(&self) -> Vec<HostReport> {
        std::mem::take(&mut *self.reports.borrow_mut())
    }

    /// "Report the exception": an error a task, a timer or a microtask threw.
    pub(super) fn report_error(&self, error: JsError, ctx: &mut Cx) {
        let message = super::error_message(error, ctx);
        self.reports
            .borrow_mut()
            .push(HostReport::UncaughtError(message));
    }

    /// Records a report.
    pub(super) fn report(&self, report: HostReport) {
        self.reports.borrow_mut().push(report);
    }

    // ---- Tasks and timers ----

    fn add_timer(&self, due: Instant, timer: Timer) -> TimerKey {
        let seq = self.next_timer_seq.get();
        self.next_timer_seq.set(seq.wrapping_add(1));
        let key = (due, seq);
        self.timers.borrow_mut().insert(key, timer);
        key
    }

    /// The next task: first every timer due at `now` joins the task queue, in (due time,
    /// insertion) order; then the oldest task.
    pub(super) fn next_task(&self, now: Instant) -> Option<Task> {
        let mut canceled = Vec::new();
        {
            let mut timers = self.timers.borrow_mut();
            if !timers.is_empty() {
                let mut tasks = self.tasks.borrow_mut();
                while let Some(entry) = timers.first_entry() {
                    if entry.key().0 > now {
                        break;
                    }
                    let timer = entry.remove();
                    if timer.is_canceled() {
                        canceled.push(timer);
                    } else {
                        tasks.push_back(timer.task);
                    }
                }
            }
        }
        // Dropped outside the borrows: what a task captured may run finalizers.
        drop(canceled);
        self.tasks.borrow_mut().pop_front()
    }

    /// The due time of the earliest timer that was not canceled (canceled ones are dropped).
    pub(super) fn next_timer_due(&self) -> Option<Instant> {
        let mut canceled = Vec::new();
        let due = {
            let mut timers = self.timers.borrow_mut();
            loop {
                let Some(entry) = timers.first_entry() else {
                    break None;
                };
                if !entry.get().is_canceled() {
                    break Some(entry.key().0);
                }
                canceled.push(entry.remove());
            }
        };
        drop(canceled);
        due
    }

    /// Whether a task or a live timer is queued.
    pub(super) fn has_pending_tasks(&self) -> bool {
        !self.tasks.borrow().is_empty() || self.next_timer_due().is_some()
    }

    /// A new id for `setTimeout` / `setInterval`: an integer greater than zero that is not in
    /// the map of active timers.
    pub(super) fn new_timer_id(&self) -> u32 {
        let active = self.active_timers.borrow();
        let mut id = self.last_timer_id.get();
        loop {
            id = id.checked_add(1).unwrap_or(1);
            if !active.contains_key(&id) {
                break;
            }
        }
        self.last_timer_id.set(id);
        id
    }

    /// Sets the active timer `id` to run `task` once `timeout` has passed (the timer
    /// initialization steps' "run steps after a timeout", and map of active timers[id]).
    pub(super) fn set_active_timer(&self, id: u32, timeout: Duration, task: Task) {
        let key = self.add_timer(
            now() + timeout,
            Timer {
                task,
                canceled: None,
            },
        );
        self.active_timers.borrow_mut().insert(id, Some(key));
    }

    /// Marks the active timer `id` as running (its task was taken from the timers): it stays
    /// in the map of active timers, so `clearTimeout(id)` during its task still clears it.
    /// Returns whether `id` is active.
    pub(super) fn start_active_timer(&self, id: u32) -> bool {
        match self.active_timers.borrow_mut().get_mut(&id) {
            Some(key) => {
                *key = None;
                true
            }
            None => false,
        }
    }

    /// Whether `id` is in the map of active timers.
    pub(super) fn is_active_timer(&self, id: u32) -> bool {
        self.active_timers.borrow().contains_key(&id)
    }

    /// Removes `id` from the map of active timers, and its waiting task if any
    /// (`clearTimeout`, or a one-shot timer that ran).
    pub(super) fn clear_active_timer(&self, id: u32) {
        let key = self.active_timers.borrow_mut().remove(&id).flatten();
        if let Some(key) = key {
            let timer = self.timers.borrow_mut().remove(&key);
            // Dropped outside the borrow.
            drop(timer);
        }
    }

    // ---- Rejections ----

    /// <https://html.spec.whatwg.org/multipage/webappapis.html#notify-about-rejected-promises>:
    /// takes the list, then reports each promise (in rejection order) whose
    /// [[PromiseIsHandled]] is still false.
    ///
    /// AD-HOC: HTML queues a task that fires `unhandledrejection` for those promises (and
    /// checks [[PromiseIsHandled]] again when it runs); the host has no such event, so it
    /// reports them at once, at the end of the checkpoint, as HTML's user agent "may report
    /// p.[[PromiseResult]] to a developer console".
    pub(super) fn notify_about_rejected_promises(&self, ctx: &mut Cx) {
        let mut list: Vec<(u64, Object, Value)> = {
            let mut pending = self.about_to_be_notified.borrow_mut();
            if pending.is_empty() {
                return;
            }
            pending
                .drain()
                .map(|(promise, (seq, reason))| (seq, promise, reason))
                .collect()
        };
        list.sort_unstable_by_key(|(seq, _, _)| *seq);
        for (_, promise, reason) in list {
            if engine::is_marked_as_handled(&promise, ctx) {
                continue;
            }
            let message = engine::value_message(&reason, ctx);
            self.report(HostReport::UnhandledRejection(message));
        }
    }
}

impl RuntimeHost for EventLoop {
    fn enqueue_task(&self, task: Task) {
        self.tasks.borrow_mut().push_back(task);
    }

    fn enqueue_timer(&self, delay: Duration, task: Task, canceled: Option<TimerCanceled>) {
        self.add_timer(now() + delay, Timer { task, canceled });
    }

    /// <https://html.spec.whatwg.org/multipage/webappapis.html#the-hostpromiserejectiontracker-implementation>
    fn promise_rejection_tracker(&self, promise: Object, operation: RejectionOperation) {
        match operation {
            // "reject": append promise to the about-to-be-notified rejected promises list.
            RejectionOperation::Reject { reason } => {
                let seq = self.next_rejection_seq.get();
                self.next_rejection_seq.set(seq.wrapping_add(1));
                self.about_to_be_notified
                    .borrow_mut()
                    .insert(promise, (seq, reason));
            }
            // "handle": if the list contains promise, remove it (the host keeps no outstanding
            // rejected promises set, and fires no `rejectionhandled`).
            RejectionOperation::Handle => {
                let removed = self.about_to_be_notified.borrow_mut().remove(&promise);
                drop(removed);
            }
        }
    }

    /// Every global object is an `EventTarget` (as window and worker global scopes are), with
    /// %Object.prototype% as its prototype until the host makes it a window.
    fn new_global_object(&self, object_prototype: Object) -> Object {
        crate::dom::new_event_target_global(object_prototype)
    }

    fn run_jobs(&self, ctx: &mut Cx) {
        if let Some(host) = super::Host::from_context(ctx) {
            host.run_until(ctx, None, &mut |_| false);
        }
    }
}
