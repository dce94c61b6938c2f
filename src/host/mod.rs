//! The host environment: an HTML-ordered event loop, and the globals that scripts and the Web
//! Platform Tests expect (`self`, `console`, timers, `fetch`, `gc`, `atob`, ...); agents on other
//! threads connected by `MessagePort`s, and second realms. Not part of the spec layer: the
//! streams code never depends on it.
//!
//! One host for both engines, written over the engine's runtime interface (`Runtime`,
//! `evaluate_script`, the microtask queue, and the [`RuntimeHost`](crate::engine::RuntimeHost)
//! hooks the event loop implements); it names no engine crate.
//!
//! ```no_run
//! use boa_streams::host::{Host, HostOptions, RunOutcome};
//!
//! let (host, mut ctx) = Host::new(HostOptions::default()).expect("fresh context");
//! host.eval_script(&mut ctx, "main.js", "setTimeout(() => console.log('later'), 10);")
//!     .expect("no exception");
//! assert_eq!(host.run_until(&mut ctx, None, &mut |_| false), RunOutcome::Idle);
//! for report in host.take_reports() {
//!     eprintln!("{report}");
//! }
//! ```

#[cfg(all(feature = "rquickjs", not(feature = "engine-boa")))]
mod adopt;
mod agent;
mod allocator;
#[cfg(feature = "tokio")]
mod async_loop;
mod base64;
mod console;
mod crypto;
pub mod diff_api;
#[cfg(all(test, feature = "tokio"))]
mod drain_tests;
mod event_loop;
mod file_fetcher;
mod globals;
mod performance;
/// Helpers for tests, with the same signatures on both engines.
pub mod test_api;
mod text;
mod timers;
mod types;

use std::{
    cell::{Cell, RefCell},
    path::Path,
    rc::{Rc, Weak},
    sync::Arc,
    time::Instant,
};

use crate::engine::{self, Runtime, RuntimeHost};
use crate::{JsError, JsResult, Object, Realm, Value};
use event_loop::EventLoop;

#[cfg(all(feature = "rquickjs", not(feature = "engine-boa")))]
pub use adopt::AdoptOptions;
pub use agent::{port_pair, AgentExit, PortHandle};
pub use allocator::keep_freed_memory_mapped;
pub use text::json_string;
pub use types::{HostOptions, HostReport, RunOutcome};

/// The context handle the host's API takes: on Boa, Boa's `Context` (the embedder owns it); on
/// QuickJS, a handle on a realm of the host's runtime (the host owns the runtime: drop every
/// value and context handle before the last clone of the [`Host`]).
pub type Context = engine::Cx;

/// An agent's host: its runtime (on QuickJS, the owner of the runtime), event loop and
/// options. Cloning it clones the handle.
#[derive(Clone)]
pub struct Host(Rc<HostInner>);

struct HostInner {
    /// Drops the Rust operations still waiting when the host goes (see `Drop`).
    wake: crate::rust::wake::ShutDown,
    // Dropped before the runtime (field order): its tasks and timers hold values of it.
    event_loop: Rc<EventLoop>,
    runtime: Runtime,
    options: HostOptions,
    /// GC stress is on ([`HostOptions::gc_stress`] or `BOA_STREAMS_GC_STRESS`): collect
    /// before every task and script.
    gc_stress: bool,
    /// The deadline of the script or turn of the loop that runs now, under
    /// [`HostOptions::time_limit`] (the outermost one: nested calls keep it).
    deadline: Cell<Option<Instant>>,
    /// The time limit ran out: the loop stops at once, before running anything more.
    limit_exceeded: Cell<bool>,
}

/// The GC stress setting: the option, else `BOA_STREAMS_GC_STRESS=N` from the environment
/// (N microtasks between collections; 0 or not a number: off).
fn gc_stress_setting(options: &HostOptions) -> Option<u32> {
    options
        .gc_stress
        .or_else(|| {
            std::env::var("BOA_STREAMS_GC_STRESS")
                .ok()?
                .trim()
                .parse()
                .ok()
        })
        .filter(|every| *every > 0)
}

impl std::fmt::Debug for Host {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Host")
            .field("event_loop", &self.0.event_loop)
            .field("options", &self.0.options)
            .finish_non_exhaustive()
    }
}

impl Drop for HostInner {
    /// Before the runtime goes: the Rust operations still waiting (a bridge's pending read or
    /// write, an async fetch) and the Rust objects behind streams' algorithms (a source that
    /// keeps a pull's completer) drop their JS values, so no Rust root outlives the runtime.
    fn drop(&mut self) {
        self.wake.shut_down();
    }
}

/// The host of an agent, as the agent's data: a weak link (the host owns the runtime on
/// QuickJS, whose agent data this is).
struct HostLink(Weak<HostInner>);

impl Host {
    /// Builds an agent (the engine's runtime) and its main realm with the host globals and the
    /// streams globals (`crate::register`) installed; returns the host and a handle on the
    /// realm.
    ///
    /// Globals, in installation order: `console`, `setTimeout`, `setInterval`, `clearTimeout`,
    /// `clearInterval`, `queueMicrotask`, `self`, `gc()`; the streams, DOM, HTML, Encoding,
    /// URL, File and Fetch interfaces with `structuredClone` and `fetch()`
    /// ([`crate::register`]); `performance`, `crypto.getRandomValues`, `atob`, `btoa`; with
    /// [`HostOptions::location`], `location`; with [`HostOptions::window`], `window`,
    /// `postMessage` and `onmessage`.
    ///
    /// The context is one agent: its `MessagePort`s can be entangled with ports of agents on
    /// other threads ([`Host::spawn_agent`], [`port_pair`]).
    pub fn new(options: HostOptions) -> JsResult<(Host, Context)> {
        let agent = crate::html::Agent::new();
        let event_loop = Rc::new(EventLoop::new(Arc::clone(&agent)));
        let (runtime, mut ctx) = Runtime::new(Rc::clone(&event_loop) as Rc<dyn RuntimeHost>)?;
        crate::html::set_agent(&mut ctx, Arc::clone(&agent));
        let wake = crate::rust::wake::install(&mut ctx, Arc::new(move || agent.wake()));
        console::set_up(options.console_to_stderr, &mut ctx);
        if let Some(bytes) = options.memory_limit {
            runtime.set_memory_limit(&mut ctx, bytes);
            // The Rust bytes streams and bodies hold, which the engine's heap does not count.
            engine::set_external_bytes_limit(&mut ctx, bytes);
        }
        if let Some(iterations) = options.loop_iteration_limit {
            runtime.set_loop_iteration_limit(&mut ctx, iterations);
        }
        let gc_stress = gc_stress_setting(&options);
        if let Some(every) = gc_stress {
            runtime.set_gc_stress(&mut ctx, every);
        }
        let host = Host(Rc::new(HostInner {
            wake,
            event_loop,
            runtime,
            options,
            gc_stress: gc_stress.is_some(),
            deadline: Cell::new(None),
            limit_exceeded: Cell::new(false),
        }));
        engine::set_agent_data(&mut ctx, HostLink(Rc::downgrade(&host.0)));
        // The checkpoint that follows a callback run from a task ("clean up after running
        // script").
        engine::set_microtask_checkpoint(&mut ctx, |ctx| {
            if let Some(host) = Host::from_context(ctx) {
                host.perform_microtask_checkpoint(ctx);
            }
        });
        globals::install_realm(&host.0.options, &mut ctx)?;
        Ok((host, ctx))
    }

    /// The host of a context built by [`Host::new`] (or of one of its realms), while the host
    /// lives.
    pub fn from_context(ctx: &Context) -> Option<Host> {
        engine::agent_data::<HostLink>(ctx)
            .and_then(|link| link.0.upgrade())
            .map(Host)
    }

    /// A second realm in this agent, with the same globals as the first (the streams, DOM and
    /// HTML interfaces, the host globals, a window if the host makes windows). Returns it and
    /// its global object. Objects of one realm can be handed to the other directly, and a
    /// stream can be transferred into it (`otherGlobal.structuredClone(rs, { transfer: [rs]
    /// })`, or a `MessagePort` whose other end is in it).
    ///
    /// ```
    /// use boa_streams::host::{Host, HostOptions};
    ///
    /// let (host, mut ctx) = Host::new(HostOptions::default()).unwrap();
    /// let (_realm, global) = host.create_realm(&mut ctx).unwrap();
    /// host.set_global(&mut ctx, "other", global).unwrap();
    /// let same = host
    ///     .eval_script(&mut ctx, "realms.js", "other.ReadableStream === ReadableStream")
    ///     .unwrap();
    /// assert_eq!(same.as_boolean(), Some(false));
    /// ```
    pub fn create_realm(&self, ctx: &mut Context) -> JsResult<(Realm, Object)> {
        let realm = self.0.runtime.new_realm(ctx)?;
        let global = engine::in_realm(ctx, &realm, |ctx| {
            globals::install_realm(&self.0.options, ctx)?;
            Ok::<_, JsError>(engine::global_object(ctx))
        })?;
        Ok((realm, global))
    }

    /// The global object of a new realm of this agent, with the same globals (see
    /// [`Host::create_realm`]).
    pub fn new_realm_global(&self, ctx: &mut Context) -> JsResult<Value> {
        let (_, global) = self.create_realm(ctx)?;
        Ok(Value::from(global))
    }

    /// Evaluates a classic script, then performs a microtask checkpoint (also when the script
    /// threw, as HTML's "clean up after running script" does).
    ///
    /// An exception thrown by the script is returned (the caller reports it); exceptions thrown
    /// by microtasks during the checkpoint are reported ([`Host::take_reports`]).
    ///
    /// Under [`HostOptions::time_limit`], the script and its checkpoint share one deadline.
    // (Never inlined: `scripts/instructions` counts from its entry, which fat LTO would erase.)
    #[inline(never)]
    pub fn eval_script(&self, ctx: &mut Context, name: &str, source: &str) -> JsResult<Value> {
        let _time_limit = self.arm_time_limit();
        if self.0.gc_stress {
            engine::collect_garbage(ctx);
        }
        let result = engine::evaluate_script(ctx, Some(Path::new(name)), source);
        self.perform_microtask_checkpoint(ctx);
        result
    }

    /// Starts the clock of [`HostOptions::time_limit`] for a script or a turn of the loop,
    /// unless one already runs (a script evaluated from inside a task); the clock stops when
    /// the guard drops.
    fn arm_time_limit(&self) -> TimeLimit<'_> {
        let mut armed = false;
        if let (Some(limit), None) = (self.0.options.time_limit, self.0.deadline.get()) {
            // The system's clock, even with tokio's paused one: the limit is about real time.
            let deadline = Instant::now().checked_add(limit);
            self.0.deadline.set(deadline);
            self.0.runtime.set_deadline(deadline);
            armed = deadline.is_some();
        }
        TimeLimit { host: self, armed }
    }

    /// Stops the clock a [`TimeLimit`] started; if the deadline passed, reports it and closes
    /// the agent.
    fn disarm_time_limit(&self) {
        let deadline = self.0.deadline.take();
        self.0.runtime.set_deadline(None);
        if deadline.is_some_and(|deadline| Instant::now() >= deadline) {
            let limit = self.0.options.time_limit.unwrap_or_default();
            self.0.event_loop.report(HostReport::LimitExceeded(format!(
                "the time limit ({limit:?}) ran out; the agent is closed"
            )));
            self.0.limit_exceeded.set(true);
            self.close();
        }
    }

    /// Evaluates a classic script in the current realm, without the microtask checkpoint
    /// [`Host::eval_script`] performs (for a harness that loads several scripts in one task).
    pub fn evaluate(
        &self,
        ctx: &mut Context,
        path: Option<&Path>,
        source: &str,
    ) -> JsResult<Value> {
        engine::evaluate_script(ctx, path, source)
    }

    /// <https://html.spec.whatwg.org/multipage/webappapis.html#perform-a-microtask-checkpoint>:
    /// runs every queued microtask (and those they queue), then reports the rejected promises
    /// still unhandled. Does nothing if a checkpoint is already being performed.
    pub fn perform_microtask_checkpoint(&self, ctx: &mut Context) {
        let HostInner {
            event_loop,
            runtime,
            ..
        } = &*self.0;
        // 1–2. If the event loop's performing a microtask checkpoint is true, return;
        //      otherwise set it to true.
        if event_loop.enter_checkpoint() {
            return;
        }
        // 3. While the microtask queue is not empty: run the oldest microtask (its exception
        //    reported).
        runtime.run_microtasks(ctx, &mut |error, ctx| event_loop.report_error(error, ctx));
        // 4. Notify about rejected promises.
        event_loop.notify_about_rejected_promises(ctx);
        // 6. ClearKeptObjects().
        engine::clear_kept_objects(ctx);
        // 7. Set the event loop's performing a microtask checkpoint to false.
        event_loop.leave_checkpoint();
    }

    /// Runs the event loop (<https://html.spec.whatwg.org/multipage/webappapis.html#event-loop-processing-model>)
    /// until `done` returns true (checked after every task and its microtask checkpoint),
    /// nothing is left to run, the agent closes, or `deadline` passes.
    ///
    /// Between tasks the loop sleeps until the next timer is due (never past `deadline`), or a
    /// message from another agent arrives.
    // (Never inlined: `scripts/instructions` counts from its entry, which fat LTO would erase.)
    #[inline(never)]
    pub fn run_until(
        &self,
        ctx: &mut Context,
        deadline: Option<Instant>,
        done: &mut dyn FnMut(&mut Context) -> bool,
    ) -> RunOutcome {
        let ctx = RefCell::new(ctx);
        let mut async_jobs = self.async_jobs(&ctx);
        let outcome = loop {
            match self.turn(&ctx, &mut async_jobs, deadline, false, done) {
                Turn::Ran => {}
                Turn::Stop(outcome) => break outcome,
                Turn::Wait(wake_at) => self.0.event_loop.agent().wait(wake_at),
            }
        };
        self.end_run(async_jobs);
        outcome
    }

    /// The engine's async jobs of one run of the loop, which wake the agent.
    fn async_jobs<'a, 'c>(
        &'a self,
        ctx: &'a RefCell<&'c mut Context>,
    ) -> engine::AsyncJobs<'a, 'c> {
        let agent = Arc::clone(self.0.event_loop.agent());
        engine::AsyncJobs::new(&self.0.runtime, ctx, Arc::new(move || agent.wake()))
    }

    /// Reports the async jobs a run of the loop leaves behind.
    fn end_run(&self, async_jobs: engine::AsyncJobs<'_, '_>) {
        let abandoned = async_jobs.abandon();
        if abandoned > 0 {
            self.0.event_loop.report(HostReport::UncaughtError(format!(
                "{abandoned} pending async job(s) abandoned when the event loop returned"
            )));
        }
    }

    /// One turn of the event loop, the steps the blocking loop ([`Host::run_until`]) and the
    /// async one (`Host::run`) share: a microtask checkpoint, the stop conditions, the
    /// engine's async jobs, messages and Rust work that arrived, then one task; or, with
    /// nothing runnable, when to wake up (`Turn::Wait`) or that the loop is idle (never, with
    /// `never_idle`: a caller that waits for something outside the loop).
    ///
    /// Under [`HostOptions::time_limit`], the turn runs with a deadline; once one ran out, the
    /// loop stops at once (nothing more runs).
    fn turn(
        &self,
        ctx: &RefCell<&mut Context>,
        async_jobs: &mut engine::AsyncJobs<'_, '_>,
        deadline: Option<Instant>,
        never_idle: bool,
        done: &mut dyn FnMut(&mut Context) -> bool,
    ) -> Turn {
        if self.0.limit_exceeded.get() {
            return Turn::Stop(RunOutcome::Closed);
        }
        let _time_limit = self.arm_time_limit();
        let event_loop = &self.0.event_loop;
        self.perform_microtask_checkpoint(&mut ctx.borrow_mut());
        if event_loop.is_closing() {
            return Turn::Stop(RunOutcome::Closed);
        }
        if done(&mut ctx.borrow_mut()) {
            return Turn::Stop(RunOutcome::Done);
        }
        let now = event_loop::now();
        if deadline.is_some_and(|deadline| now >= deadline) {
            return Turn::Stop(RunOutcome::DeadlineReached);
        }
        // The engine's async jobs (Boa's futures): a polling round counts as a task.
        let report = &mut |error, ctx: &mut Context| event_loop.report_error(error, ctx);
        if async_jobs.poll(report) {
            self.perform_microtask_checkpoint(&mut ctx.borrow_mut());
            if done(&mut ctx.borrow_mut()) {
                return Turn::Stop(RunOutcome::Done);
            }
        }
        // Messages other agents posted to this agent's ports become tasks, and so do Rust
        // wake-ups and closures queued without a context.
        crate::html::deliver_remote_messages(&mut ctx.borrow_mut());
        crate::rust::wake::deliver(&mut ctx.borrow_mut());
        // One task.
        if let Some(task) = event_loop.next_task(now) {
            let mut ctx = ctx.borrow_mut();
            if self.0.gc_stress {
                engine::collect_garbage(&mut ctx);
            } else {
                // Rust bytes held for engine objects (chunks in streams' queues) that grew
                // enough since the last collection force one (the enqueue of a native source's
                // bytes checks too; this catches the ones made elsewhere).
                engine::collect_if_external_bytes_grew(&mut ctx);
            }
            if let Err(error) = task(&mut ctx) {
                event_loop.report_error(error, &mut ctx);
            }
            return Turn::Ran;
        }
        // Nothing runnable: stop, or wait until the next timer, the deadline, a wake-up of
        // an async job or of Rust work, or a message from another agent.
        let next_timer = event_loop.next_timer_due();
        let may_receive = event_loop.agent().has_ready()
            || crate::html::may_receive_remote_messages(&ctx.borrow())
            || crate::rust::wake::keeps_alive(&ctx.borrow());
        if next_timer.is_none() && !async_jobs.keeps_alive() && !may_receive && !never_idle {
            return Turn::Stop(RunOutcome::Idle);
        }
        Turn::Wait(match (next_timer, deadline) {
            (Some(timer), Some(deadline)) => Some(timer.min(deadline)),
            (timer, deadline) => timer.or(deadline),
        })
    }

    /// Closes this agent, as a worker's `close()` does: the event loop stops after the current
    /// task and does not run again. (The agent's ports are disentangled when its context is
    /// dropped.)
    pub fn close(&self) {
        self.0.event_loop.close();
    }

    /// Whether a microtask, task, live timer, async job or message from another agent is
    /// queued.
    pub fn has_pending_work(&self) -> bool {
        self.0.runtime.has_pending_jobs()
            || self.0.event_loop.has_pending_tasks()
            || self.0.event_loop.agent().has_ready()
    }

    /// How many `MessagePort`s this agent holds because they are entangled (or still have
    /// messages to dispatch): a debug count for leak tests. Each transferred stream holds one
    /// until it closes, errors or is canceled.
    pub fn entangled_ports(&self, ctx: &Context) -> usize {
        crate::html::held_ports(ctx)
    }

    /// Takes the reports gathered so far.
    pub fn take_reports(&self) -> Vec<HostReport> {
        self.0.event_loop.take_reports()
    }

    /// Defines `name` on the current realm's global object as a writable, enumerable and
    /// configurable data property holding `value` (what `globalThis[name] = value` makes of a
    /// new name).
    pub fn set_global(
        &self,
        ctx: &mut Context,
        name: &str,
        value: impl Into<Value>,
    ) -> JsResult<()> {
        engine::global_object(ctx).define_property_or_throw(
            name,
            engine::PropertyDescriptor::builder()
                .value(value.into())
                .writable(true)
                .enumerable(true)
                .configurable(true),
            ctx,
        )?;
        Ok(())
    }

    /// Defines a function on the current realm's global object (writable, enumerable and
    /// configurable, as a WebIDL operation of the global).
    pub fn define_global_function(
        &self,
        ctx: &mut Context,
        name: &str,
        length: usize,
        f: crate::NativeFunctionPointer,
    ) -> JsResult<()> {
        engine::webidl::define_global_operation(name, length, f, ctx)
    }

    /// The value an error throws, if it is not an uncatchable engine error.
    pub fn thrown_value(&self, error: JsError, ctx: &mut Context) -> Option<Value> {
        engine::thrown_value(error, ctx).ok()
    }

    /// Whether `value` is a promise that is still pending.
    pub fn is_pending_promise(&self, value: &Value) -> bool {
        engine::is_pending_promise(value)
    }
}

/// The clock of [`HostOptions::time_limit`] for one script or turn of the loop, from
/// `Host::arm_time_limit` until it drops.
struct TimeLimit<'a> {
    host: &'a Host,
    /// Whether this guard started the clock (an inner script's guard did not).
    armed: bool,
}

impl Drop for TimeLimit<'_> {
    fn drop(&mut self) {
        if self.armed {
            self.host.disarm_time_limit();
        }
    }
}

/// What one turn of the event loop did.
enum Turn {
    /// It ran a task.
    Ran,
    /// The loop stops.
    Stop(RunOutcome),
    /// Nothing is runnable: wait until this time (or a wake-up).
    Wait(Option<Instant>),
}

/// The message of an uncaught exception, as the host reports it: `ToString(thrown value)`
/// (e.g. `TypeError: foo`), or the engine's description of an uncatchable error.
pub fn error_message(error: impl Into<JsError>, ctx: &mut Context) -> String {
    match engine::thrown_value(error.into(), ctx) {
        Ok(value) => engine::value_message(&value, ctx),
        Err(error) => error.to_string(),
    }
}

/// The host's event loop is what [`crate::rust::Ticket::wait`] drives.
impl crate::rust::EventLoop for Host {
    fn run_until_done(&self, ctx: &mut Context, done: &mut dyn FnMut(&mut Context) -> bool) {
        self.run_until(ctx, None, done);
    }
}
