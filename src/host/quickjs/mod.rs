//! The embedding on QuickJS (the `engine-quickjs` feature): a runtime with one agent, its main
//! realm, an HTML-ordered event loop (a microtask checkpoint after every task; tasks in FIFO
//! order; timers by due time, then by the order they were set), unhandled-rejection tracking,
//! and the host globals scripts and WPT files use (`self`, `console`, timers,
//! `queueMicrotask`, `gc()`; QuickJS's own `performance`).
//!
//! The API mirrors the Boa host's (`src/host/mod.rs`) where it can: `Host::new` returns the
//! host and a context handle, `eval_script`, `perform_microtask_checkpoint`, `run_until`,
//! `take_reports`. The runtime is freed when the `Host` drops: drop every value and context
//! handle first (QuickJS asserts that no object is left).

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::fmt;
use std::rc::Rc;
use std::time::{Duration, Instant};

use crate::engine::quickjs_host as qh;
use crate::engine::{Cx, JsError, JsResult, Value};

#[path = "../base64.rs"]
mod base64;
#[path = "../common_api.rs"]
mod common_api;
#[path = "../crypto.rs"]
mod crypto;
pub mod diff_api;
#[path = "../file_fetcher.rs"]
mod file_fetcher;
#[path = "../performance.rs"]
mod performance;
#[path = "../text.rs"]
mod text;
#[path = "../types.rs"]
mod types;
pub use types::{HostOptions, HostReport, RunOutcome};

mod agent;
pub use agent::{port_pair, AgentExit, PortHandle};
pub use text::json_string;
/// Helpers for tests, with the same signatures on both engines.
pub mod test_api;

/// The context handle the host's API takes (on QuickJS, a handle on the main realm).
pub type Context = Cx;

/// The host's state shared with the QuickJS hooks.
#[derive(Default)]
struct HostState {
    reports: RefCell<Vec<HostReport>>,
    /// Rejected promises without a handler, in rejection order, not yet reported.
    pending_rejections: RefCell<Vec<(Value, Value)>>,
    /// Live timer ids (`clearTimeout` removes one; a fired one-shot timer too).
    live_timers: RefCell<HashMap<u32, bool>>,
    next_timer: Cell<u32>,
    closed: Cell<bool>,
    /// `console.group` nesting, and the `count` and `time` labels.
    console_group: Cell<usize>,
    console_counts: RefCell<HashMap<String, u64>>,
    console_timers: RefCell<HashMap<String, Instant>>,
    console_to_stderr: bool,
}

/// A runtime's host: owns the runtime, its realms and the event loop.
pub struct Host {
    // Dropped first: the state holds values of the runtime.
    state: Rc<HostState>,
    runtime: qh::Runtime,
    options: HostOptions,
    /// This agent's inbox: other agents post to its ports through it, and the event loop
    /// waits on it.
    agent: std::sync::Arc<crate::html::Agent>,
}

/// The origin that `Response.url` reports (wptserve's default host and port).
const FETCH_ORIGIN: &str = "http://web-platform.test:8000";

impl fmt::Debug for Host {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Host").finish_non_exhaustive()
    }
}

impl Host {
    /// Builds a runtime and its main realm with the host globals and the streams globals
    /// (`crate::register`) installed; returns the host and a handle on the realm.
    pub fn new(options: HostOptions) -> JsResult<(Host, Context)> {
        let state = Rc::new(HostState {
            console_to_stderr: options.console_to_stderr,
            ..HostState::default()
        });
        let tracker_state = Rc::clone(&state);
        let runtime = qh::Runtime::new(Box::new(move |promise, reason, handled| {
            let mut pending = tracker_state.pending_rejections.borrow_mut();
            if handled {
                pending.retain(|(p, _)| p != &promise);
            } else {
                pending.push((promise, reason));
            }
        }))?;
        let mut ctx = runtime.main_context();
        let agent = crate::html::Agent::new();
        crate::html::set_agent(&mut ctx, std::sync::Arc::clone(&agent));
        let host = Host {
            runtime,
            state,
            options,
            agent,
        };
        crate::engine::set_agent_data(&mut ctx, HostLink(Rc::downgrade(&host.state)));
        crate::engine::set_microtask_checkpoint(&mut ctx, |ctx| {
            perform_checkpoint(ctx);
        });
        install_realm(&host.options, &mut ctx)?;
        Ok((host, ctx))
    }

    /// Evaluates a classic script, then performs a microtask checkpoint (also when the script
    /// threw).
    pub fn eval_script(&self, ctx: &mut Context, name: &str, source: &str) -> JsResult<Value> {
        let result = qh::eval_script(ctx, name, source);
        self.perform_microtask_checkpoint(ctx);
        result
    }

    /// Runs every queued microtask (and those they queue), then reports unhandled rejections.
    pub fn perform_microtask_checkpoint(&self, ctx: &mut Context) {
        perform_checkpoint(ctx);
    }

    /// Runs the event loop until `done` returns true (checked after every task and its
    /// checkpoint), nothing is left to run, or `deadline` passes.
    pub fn run_until(
        &self,
        ctx: &mut Context,
        deadline: Option<Instant>,
        done: &mut dyn FnMut(&mut Context) -> bool,
    ) -> RunOutcome {
        loop {
            self.perform_microtask_checkpoint(ctx);
            if done(ctx) {
                return RunOutcome::Done;
            }
            if self.state.closed.get() {
                return RunOutcome::Closed;
            }
            if deadline.is_some_and(|d| Instant::now() >= d) {
                return RunOutcome::DeadlineReached;
            }
            // Messages other agents posted to this agent's ports become tasks.
            crate::html::deliver_remote_messages(ctx);
            let next_timer = match qh::next_task(ctx) {
                qh::Next::Task(task) => {
                    if let Err(error) = qh::run_task(ctx, task) {
                        self.report_error(error, ctx);
                    }
                    continue;
                }
                qh::Next::Wait(nanos) => Some(
                    Instant::now() + Duration::from_nanos(u64::try_from(nanos).unwrap_or(u64::MAX)),
                ),
                qh::Next::Idle => None,
            };
            // Nothing runnable: stop, or wait until the next timer, the deadline, or a message
            // from another agent.
            let may_receive =
                self.agent.has_ready() || crate::html::may_receive_remote_messages(ctx);
            if next_timer.is_none() && !may_receive {
                return RunOutcome::Idle;
            }
            let wake_at = match (next_timer, deadline) {
                (Some(timer), Some(deadline)) => Some(timer.min(deadline)),
                (timer, deadline) => timer.or(deadline),
            };
            self.agent.wait(wake_at);
        }
    }

    fn report_error(&self, error: JsError, ctx: &mut Context) {
        let message = error_message(error, ctx);
        self.state
            .reports
            .borrow_mut()
            .push(HostReport::UncaughtError(message));
    }

    /// Closes the agent: the event loop stops after the current task.
    pub fn close(&self) {
        self.state.closed.set(true);
    }

    /// Whether a microtask, task or timer is queued.
    pub fn has_pending_work(&self) -> bool {
        self.runtime.has_pending_work()
    }

    /// Takes the reports gathered so far.
    pub fn take_reports(&self) -> Vec<HostReport> {
        std::mem::take(&mut *self.state.reports.borrow_mut())
    }

    /// Evaluates a classic script in the current realm, without the microtask checkpoint
    /// [`Host::eval_script`] performs (for a harness that loads several scripts in one task).
    pub fn evaluate(
        &self,
        ctx: &mut Context,
        path: Option<&std::path::Path>,
        source: &str,
    ) -> JsResult<Value> {
        let name = path.map_or_else(|| "<script>".to_owned(), |p| p.display().to_string());
        qh::eval_script(ctx, &name, source)
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
        let function = qh::function(ctx, name, length, f);
        let global = crate::engine::global_object(ctx);
        global.define_property_or_throw(
            name,
            crate::engine::PropertyDescriptor::builder()
                .value(function)
                .writable(true)
                .enumerable(true)
                .configurable(true),
            ctx,
        )?;
        Ok(())
    }

    /// The global object of a new realm of this agent, with the same globals as the first.
    pub fn new_realm_global(&self, ctx: &mut Context) -> JsResult<Value> {
        let realm = self.runtime.new_realm()?;
        ctx.in_realm(realm.0, |ctx| {
            install_realm(&self.options, ctx)?;
            Ok(crate::engine::global_object(ctx).into())
        })
    }

    /// The value an error throws, if it is not an uncatchable engine error.
    pub fn thrown_value(&self, error: JsError, ctx: &mut Context) -> Option<Value> {
        crate::engine::thrown_value(error, ctx).ok()
    }

    /// Whether `value` is a promise that is still pending.
    pub fn is_pending_promise(&self, value: &Value) -> bool {
        qh::is_pending_promise(value)
    }
}

/// The host's state, as the agent's data (a weak link: the host owns it).
struct HostLink(std::rc::Weak<HostState>);

fn host_state(ctx: &Cx) -> Option<Rc<HostState>> {
    crate::engine::agent_data::<HostLink>(ctx).and_then(|l| l.0.upgrade())
}

/// <https://html.spec.whatwg.org/multipage/webappapis.html#perform-a-microtask-checkpoint>.
fn perform_checkpoint(ctx: &mut Cx) {
    let Some(state) = host_state(ctx) else {
        return;
    };
    for error in qh::run_microtasks(ctx) {
        let message = error_message(error, ctx);
        state
            .reports
            .borrow_mut()
            .push(HostReport::UncaughtError(message));
    }
    // Notify about rejected promises: those still without a handler.
    let pending = std::mem::take(&mut *state.pending_rejections.borrow_mut());
    for (_promise, reason) in pending {
        let message = crate::engine::value_message(&reason, ctx);
        state
            .reports
            .borrow_mut()
            .push(HostReport::UnhandledRejection(message));
    }
}

/// Reports an exception thrown by a task (as the event loop does).
fn report_uncaught(error: JsError, ctx: &mut Cx) {
    let message = error_message(error, ctx);
    if let Some(state) = host_state(ctx) {
        state
            .reports
            .borrow_mut()
            .push(HostReport::UncaughtError(message));
    }
}

/// The message of an uncaught exception: `ToString(thrown value)`.
pub fn error_message(error: impl Into<JsError>, ctx: &mut Context) -> String {
    match crate::engine::thrown_value(error.into(), ctx) {
        Ok(value) => crate::engine::value_message(&value, ctx),
        Err(error) => format!("{error}"),
    }
}

/// Installs a host realm's globals in the current realm: the host globals, the streams
/// globals (`crate::register`), `atob`/`btoa` (replacing QuickJS's, whose errors are not this
/// realm's `DOMException`), the base URL and `location`, and the fetcher.
fn install_realm(options: &HostOptions, ctx: &mut Cx) -> JsResult<()> {
    // Every global object is an `EventTarget` (as window and worker global scopes are).
    let object_prototype = qh::object_prototype(ctx);
    qh::adopt_global_data(ctx, crate::dom::new_event_target_global(object_prototype));
    install_globals(ctx)?;
    crate::register(ctx)?;
    base64::register(ctx)?;
    crypto::register(ctx)?;
    performance::register(ctx)?;
    crate::file::set_blob_url_origin(ctx, FETCH_ORIGIN);
    let base = options
        .location
        .clone()
        .unwrap_or_else(|| format!("{FETCH_ORIGIN}/"));
    if !crate::fetch::urls::set_api_base_url(&base, ctx) {
        return Err(crate::engine::throw_type_error(format!(
            "the host's location {base:?} is not a URL"
        )));
    }
    if let Some(location) = &options.location {
        install_location(location, ctx)?;
    }
    if options.window {
        crate::html::window::install_window(FETCH_ORIGIN, ctx)?;
    }
    let fetcher: Option<crate::fetcher::SharedFetcher> =
        match (&options.fetcher, &options.fetch_root) {
            (Some(fetcher), _) => Some(fetcher.clone()),
            (None, Some(root)) => Some(std::sync::Arc::new(file_fetcher::FileFetcher {
                root: root.clone(),
            })),
            (None, None) => None,
        };
    if let Some(fetcher) = fetcher {
        crate::fetcher::set_fetcher(fetcher, ctx);
    }
    Ok(())
}

/// `location`: a stand-in for HTML's `Location` object, with the components of the document's
/// URL as read-only data properties and `toString()` (as the Boa host's).
fn install_location(location: &str, ctx: &mut Cx) -> JsResult<()> {
    use ::url::quirks;
    let url = ::url::Url::parse(location).map_err(|error| {
        crate::engine::throw_type_error(format!("invalid location {location:?}: {error}"))
    })?;
    let object = crate::engine::clone::new_plain_object(ctx);
    let href = crate::engine::JsString::from(quirks::href(&url));
    for (name, value) in [
        ("href", quirks::href(&url).to_owned()),
        ("origin", quirks::origin(&url)),
        ("protocol", quirks::protocol(&url).to_owned()),
        ("host", quirks::host(&url).to_owned()),
        ("hostname", quirks::hostname(&url).to_owned()),
        ("port", quirks::port(&url).to_owned()),
        ("pathname", quirks::pathname(&url).to_owned()),
        ("search", quirks::search(&url).to_owned()),
        ("hash", quirks::hash(&url).to_owned()),
    ] {
        object.define_property_or_throw(
            name,
            crate::engine::PropertyDescriptor::builder()
                .value(crate::engine::JsString::from(value))
                .writable(false)
                .enumerable(true)
                .configurable(false),
            ctx,
        )?;
    }
    let to_string = qh::string_function(ctx, "toString", href);
    object.define_property_or_throw("toString", method(to_string), ctx)?;
    let global = crate::engine::global_object(ctx);
    global.define_property_or_throw("location", method(object.into()), ctx)?;
    Ok(())
}

/// The host globals: `self`, `console`, timers, `queueMicrotask`, `gc()` (`performance`,
/// `crypto`, `atob` and `btoa` come from the shared files).
fn install_globals(ctx: &mut Cx) -> JsResult<()> {
    let global = crate::engine::global_object(ctx);
    global.define_property_or_throw(
        "self",
        crate::engine::PropertyDescriptor::builder()
            .value(global.clone())
            .writable(true)
            .enumerable(false)
            .configurable(true),
        ctx,
    )?;
    let console = crate::engine::clone::new_plain_object(ctx);
    for (name, f) in [
        ("log", console_out as crate::engine::NativeFunctionPointer),
        ("info", console_out),
        ("debug", console_out),
        ("dir", console_out),
        ("dirxml", console_out),
        ("table", console_out),
        ("trace", console_out),
        ("error", console_err),
        ("warn", console_err),
        ("assert", console_assert),
        ("group", console_group),
        ("groupCollapsed", console_group),
        ("groupEnd", console_group_end),
        ("count", console_count),
        ("countReset", console_count_reset),
        ("time", console_time),
        ("timeLog", console_time_log),
        ("timeEnd", console_time_end),
    ] {
        let function = qh::function(ctx, name, 0, f);
        console.define_property_or_throw(name, method(function), ctx)?;
    }
    global.define_property_or_throw("console", method(console.into()), ctx)?;
    for (name, length, f) in [
        (
            "setTimeout",
            1,
            set_timeout as crate::engine::NativeFunctionPointer,
        ),
        ("setInterval", 1, set_interval),
        ("clearTimeout", 0, clear_timer),
        ("clearInterval", 0, clear_timer),
        ("queueMicrotask", 1, queue_microtask),
        ("gc", 0, gc),
    ] {
        let function = qh::function(ctx, name, length, f);
        global.define_property_or_throw(name, method(function), ctx)?;
    }
    Ok(())
}

fn method(value: Value) -> crate::engine::PropertyDescriptor {
    crate::engine::PropertyDescriptor::builder()
        .value(value)
        .writable(true)
        .enumerable(false)
        .configurable(true)
        .build()
}

fn console_line(args: &[Value], ctx: &mut Cx) -> String {
    let mut parts = Vec::with_capacity(args.len());
    for a in args {
        parts.push(match a.as_string() {
            Some(s) => s.to_std_string_escaped(),
            None => crate::engine::value_message(a, ctx),
        });
    }
    let depth = host_state(ctx).map_or(0, |s| s.console_group.get());
    format!("{}{}", "  ".repeat(depth), parts.join(" "))
}

/// A label argument (`default` when absent or undefined).
fn console_label(args: &[Value], ctx: &mut Cx) -> JsResult<String> {
    match args.first() {
        Some(v) if !v.is_undefined() => Ok(v.to_string(ctx)?.to_std_string_escaped()),
        _ => Ok("default".to_owned()),
    }
}

fn console_assert(_: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    if args.first().is_some_and(Value::to_boolean) {
        return Ok(Value::undefined());
    }
    let rest = console_line(args.get(1..).unwrap_or_default(), ctx);
    let line = if rest.trim().is_empty() {
        "Assertion failed".to_owned()
    } else {
        format!("Assertion failed: {}", rest.trim_start())
    };
    eprintln!("{line}");
    Ok(Value::undefined())
}

fn console_group(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    if !args.is_empty() {
        console_out(this, args, ctx)?;
    }
    if let Some(state) = host_state(ctx) {
        state.console_group.set(state.console_group.get() + 1);
    }
    Ok(Value::undefined())
}

fn console_group_end(_: &Value, _: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    if let Some(state) = host_state(ctx) {
        state
            .console_group
            .set(state.console_group.get().saturating_sub(1));
    }
    Ok(Value::undefined())
}

fn console_count(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let label = console_label(args, ctx)?;
    let count = match host_state(ctx) {
        Some(state) => {
            let mut counts = state.console_counts.borrow_mut();
            let count = counts.entry(label.clone()).or_insert(0);
            *count += 1;
            *count
        }
        None => 1,
    };
    let line = crate::engine::JsString::from(format!("{label}: {count}"));
    console_out(this, &[Value::from(line)], ctx)
}

fn console_count_reset(_: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let label = console_label(args, ctx)?;
    if let Some(state) = host_state(ctx) {
        state.console_counts.borrow_mut().insert(label, 0);
    }
    Ok(Value::undefined())
}

fn console_time(_: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let label = console_label(args, ctx)?;
    if let Some(state) = host_state(ctx) {
        state
            .console_timers
            .borrow_mut()
            .insert(label, Instant::now());
    }
    Ok(Value::undefined())
}

fn console_time_report(this: &Value, args: &[Value], end: bool, ctx: &mut Cx) -> JsResult<Value> {
    let label = console_label(args, ctx)?;
    let started = host_state(ctx).and_then(|state| {
        let mut timers = state.console_timers.borrow_mut();
        if end {
            timers.remove(&label)
        } else {
            timers.get(&label).copied()
        }
    });
    let Some(started) = started else {
        eprintln!("Timer '{label}' does not exist");
        return Ok(Value::undefined());
    };
    let ms = started.elapsed().as_secs_f64() * 1000.0;
    let line = crate::engine::JsString::from(format!("{label}: {ms:.3}ms"));
    console_out(this, &[Value::from(line)], ctx)
}

fn console_time_log(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    console_time_report(this, args, false, ctx)
}

fn console_time_end(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    console_time_report(this, args, true, ctx)
}

fn console_out(_: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let line = console_line(args, ctx);
    if host_state(ctx).is_some_and(|s| s.console_to_stderr) {
        eprintln!("{line}");
    } else {
        println!("{line}");
    }
    Ok(Value::undefined())
}

fn console_err(_: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    eprintln!("{}", console_line(args, ctx));
    Ok(Value::undefined())
}

fn set_timer(args: &[Value], repeat: bool, ctx: &mut Cx) -> JsResult<Value> {
    let Some(state) = host_state(ctx) else {
        return Ok(Value::undefined());
    };
    let id = state.next_timer.get() + 1;
    state.next_timer.set(id);
    state.live_timers.borrow_mut().insert(id, repeat);
    let callback = args.first().cloned().unwrap_or_default();
    let delay = match args.get(1) {
        Some(v) => v.to_number(ctx)?,
        None => 0.0,
    };
    let delay = if delay.is_finite() && delay > 0.0 {
        delay as u64
    } else {
        0
    };
    let extra: Vec<Value> = args.iter().skip(2).cloned().collect();
    schedule(ctx, id, delay, callback, extra);
    Ok(Value::from(id))
}

fn schedule(ctx: &mut Cx, id: u32, delay: u64, callback: Value, extra: Vec<Value>) {
    qh::queue_keyed_timer(ctx, u64::from(id), delay, move |ctx| {
        let Some(state) = host_state(ctx) else {
            return Ok(());
        };
        let repeat = match state.live_timers.borrow().get(&id) {
            Some(&repeat) => repeat,
            None => return Ok(()),
        };
        if !repeat {
            state.live_timers.borrow_mut().remove(&id);
        }
        let result = if callback.is_callable() {
            crate::engine::call(&callback, &Value::undefined(), &extra, ctx).map(drop)
        } else {
            Ok(())
        };
        if repeat && state.live_timers.borrow().contains_key(&id) {
            schedule(ctx, id, delay.max(1), callback, extra);
        }
        result
    });
}

fn set_timeout(_: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    set_timer(args, false, ctx)
}

fn set_interval(_: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    set_timer(args, true, ctx)
}

fn clear_timer(_: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    if let (Some(state), Some(id)) = (host_state(ctx), args.first().and_then(Value::as_number)) {
        if id >= 0.0 && id <= f64::from(u32::MAX) {
            let id = id as u32;
            state.live_timers.borrow_mut().remove(&id);
            qh::cancel_timer(ctx, u64::from(id));
        }
    }
    Ok(Value::undefined())
}

/// <https://html.spec.whatwg.org/multipage/timers-and-user-prompts.html#dom-queuemicrotask>.
fn queue_microtask(_: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let callback = args.first().cloned().unwrap_or_default();
    if !callback.is_callable() {
        return Err(crate::engine::throw_type_error(
            "queueMicrotask: argument 1 is not a function",
        ));
    }
    crate::engine::queue_microtask(ctx, move |ctx| {
        crate::engine::call(&callback, &Value::undefined(), &[], ctx).map(drop)
    });
    Ok(Value::undefined())
}

fn gc(_: &Value, _: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    qh::run_gc(ctx);
    Ok(Value::undefined())
}

/// The host is what [`crate::rust::Ticket::wait`] drives.
impl crate::rust::EventLoop for Host {
    fn run_until_done(&self, ctx: &mut Cx, done: &mut dyn FnMut(&mut Cx) -> bool) {
        self.run_until(ctx, None, done);
    }
}
