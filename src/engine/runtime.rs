//! The runtime interface's engine-free half: what a runtime asks of the host that embeds it.
//!
//! A backend's `runtime.rs` implements the runtime itself: `Runtime` (an agent: the engine's
//! runtime with its main realm, and new realms), `evaluate_script`, the microtask queue
//! (`Runtime::run_microtasks`), async jobs (`AsyncJobs`), collection (`collect_garbage`,
//! `clear_kept_objects`). What is HTML's rather than the engine's goes the other way, through
//! [`RuntimeHost`]: tasks and timers (HTML's event loop owns the task queues; the engine owns
//! only its job queue), HostPromiseRejectionTracker, the global object of a new realm, and
//! running the loop when an engine API asks for every job to run.
//!
//! The host (`src/host/`) implements [`RuntimeHost`] once, for both backends.

use std::time::Duration;

use super::{Cx, JsResult, Object, Value};

/// A task (or a timer's task): Rust code run from the host's event loop. It enters its realm
/// itself (the engine's `queue_task_in` wraps the job so it does).
pub type Task = Box<dyn FnOnce(&mut Cx) -> JsResult<()>>;

/// Whether a timer was canceled before it came due (asked before it runs, and while the event
/// loop decides how long it may sleep: a canceled timer keeps nothing waiting).
pub type TimerCanceled = Box<dyn Fn() -> bool>;

/// <https://tc39.es/ecma262/#sec-host-promise-rejection-tracker>'s operation.
pub enum RejectionOperation {
    /// "reject": the promise was rejected while it had no handler; `reason` is its result.
    Reject {
        /// The promise's [[PromiseResult]].
        reason: Value,
    },
    /// "handle": a handler was added to a rejected promise that had none.
    Handle,
}

/// What a runtime asks of its host: HTML's side of the engine's host hooks.
pub trait RuntimeHost {
    /// Queues `task` on the event loop's task queue (HTML "queue a task"; the engine's
    /// `queue_task_in` and, on Boa, generic jobs come here).
    fn enqueue_task(&self, task: Task);

    /// Runs `task` as a task once `delay` has passed (HTML "run steps after a timeout": timers
    /// join the task queue by due time, then in the order they were set). `canceled`, when
    /// given, says whether the timer was canceled meanwhile.
    fn enqueue_timer(&self, delay: Duration, task: Task, canceled: Option<TimerCanceled>);

    /// <https://html.spec.whatwg.org/multipage/webappapis.html#the-hostpromiserejectiontracker-implementation>
    fn promise_rejection_tracker(&self, promise: Object, operation: RejectionOperation);

    /// The global object of a new realm (its native data makes it what the host's globals are,
    /// an `EventTarget`), given that realm's %Object.prototype%.
    fn new_global_object(&self, object_prototype: Object) -> Object;

    /// Runs the event loop until nothing is left to run: what an engine API that runs every
    /// job asks for (Boa's `Context::run_jobs`; the engine's `run_jobs`).
    fn run_jobs(&self, ctx: &mut Cx);
}
