//! One side of a comparison: a fresh context of the build's engine (boa_streams' `Host`, through
//! its public API only), optionally with the reference implementation installed over the native
//! stream classes, the tracing prelude, then the script under test; the event loop runs until
//! idle or the deadline.

use std::{
    cell::RefCell,
    fmt,
    panic::{catch_unwind, AssertUnwindSafe},
    time::{Duration, Instant},
};

use boa_streams::host::{diff_api, Context, Host, HostOptions, HostReport, RunOutcome};
use boa_streams::{JsError, JsResult, Value};

/// The tracing prelude (see its header comment).
pub const PRELUDE: &str = include_str!("prelude.js");

/// Installed on the reference side after the bundle: the bundle's `assert.AssertionError`
/// constructor calls `Error.captureStackTrace(this, ...)` when it exists, so this logs the exact
/// moment the reference's own invariant check fails, as the event
/// `reference AssertionError "message"`.
const REFERENCE_HOOK: &str = r#"(function () {
  const emit = globalThis.__sd_emit;
  const stringify = JSON.stringify;
  const gopd = Reflect.getOwnPropertyDescriptor;
  Reflect.defineProperty(Error, 'captureStackTrace', {
    value: function captureStackTrace(target) {
      const d = target !== null && typeof target === 'object' ? gopd(target, 'name') : undefined;
      if (d !== undefined && d.value === 'AssertionError') {
        const m = gopd(target, 'message');
        emit('reference AssertionError ' + stringify(m ? String(m.value) : ''));
      }
    },
    writable: true, configurable: true, enumerable: false,
  });
})();"#;

/// Which implementation of the streams classes a side runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SideKind {
    /// boa_streams' native classes.
    Native,
    /// The reference implementation's bundle, installed over them.
    Reference,
}

impl SideKind {
    pub fn name(self) -> &'static str {
        match self {
            SideKind::Native => "native",
            SideKind::Reference => "reference",
        }
    }
}

/// How a side ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The event loop went idle.
    Idle,
    /// The deadline passed with work still pending (or the process stopped answering).
    Hang,
    /// The script logged more events than the limit.
    EventLimit,
    /// A Rust panic, with its message.
    Panic(String),
    /// The side could not be set up, or its process died (fork mode), with the reason.
    Crash(String),
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Idle => write!(f, "idle"),
            Outcome::Hang => write!(f, "hang"),
            Outcome::EventLimit => write!(f, "event limit"),
            Outcome::Panic(m) => write!(f, "panic: {m}"),
            Outcome::Crash(m) => write!(f, "crash: {m}"),
        }
    }
}

/// What a side produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SideResult {
    pub events: Vec<String>,
    pub outcome: Outcome,
    pub elapsed: Duration,
}

/// Limits for one run.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub timeout: Duration,
    pub max_events: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            timeout: Duration::from_secs(2),
            max_events: 5000,
        }
    }
}

struct LogState {
    events: Vec<String>,
    max_events: usize,
    deadline: Option<Instant>,
    overflow: bool,
    late: bool,
}

thread_local! {
    static LOG: RefCell<LogState> = const { RefCell::new(LogState {
        events: Vec::new(),
        max_events: usize::MAX,
        deadline: None,
        overflow: false,
        late: false,
    }) };
}

fn push_event(event: String) {
    LOG.with(|log| log.borrow_mut().events.push(event));
}

/// `__sd_emit(string)`: appends an event. Past the event limit or the deadline it throws an
/// uncatchable runtime-limit error, so a runaway script stops at its next logged event.
fn emit(_: &Value, args: &[Value], ctx: &mut Context) -> JsResult<Value> {
    let text = match args.first() {
        Some(value) => diff_api::to_rust_string(value, ctx)?,
        None => String::new(),
    };
    let stop = LOG.with(|log| {
        let mut log = log.borrow_mut();
        if log.overflow || log.late {
            return true;
        }
        if log.events.len() >= log.max_events {
            log.overflow = true;
            return true;
        }
        if log.deadline.is_some_and(|d| Instant::now() >= d) {
            log.late = true;
            return true;
        }
        log.events.push(text);
        false
    });
    if stop {
        return Err(diff_api::uncatchable_error(ctx));
    }
    Ok(Value::undefined())
}

/// The interrupt check (engines that have one): past the deadline, or once the limits stopped
/// the script, running script stops with an uncatchable error.
fn interrupted() -> bool {
    LOG.with(|log| {
        let Ok(mut log) = log.try_borrow_mut() else {
            return false;
        };
        if log.overflow || log.late {
            return true;
        }
        if log.deadline.is_some_and(|d| Instant::now() >= d) {
            log.late = true;
            return true;
        }
        false
    })
}

/// A context ready to run a script: the host, with (for the reference) the bundle installed,
/// and the prelude loaded.
pub struct Prepared {
    // Field order is drop order: values, then the context handle, then the host (on QuickJS
    // the runtime is freed with the host, and no value may outlive it).
    render: Value,
    pub ctx: Context,
    pub host: Host,
}

/// The reference implementation's sources.
#[derive(Debug, Clone)]
pub struct ReferenceSource {
    pub install: String,
    pub bundle: String,
    pub bundle_name: String,
}

fn eval(host: &Host, ctx: &mut Context, name: &str, source: &str) -> Result<Value, String> {
    diff_api::eval_script(host, ctx, name, source).map_err(|e| format!("{name}: {e}"))
}

/// Builds a fresh context for `kind`.
pub fn prepare(kind: SideKind, reference: &ReferenceSource) -> Result<Prepared, String> {
    // The script's `console` output goes to stderr, so stdout stays the tool's (--json).
    let options = HostOptions {
        console_to_stderr: true,
        ..HostOptions::default()
    };
    let (host, mut ctx) = Host::new(options).map_err(|e| e.to_string())?;
    diff_api::set_runtime_limits(&mut ctx);
    diff_api::define_builtin(&mut ctx, "__sd_emit", 1, emit).map_err(|e| e.to_string())?;
    if kind == SideKind::Reference {
        // `__sdPerformPromiseThen(promise, onFulfilled, onRejected)`: PerformPromiseThen with a
        // new %Promise% capability, which is what WebIDL's "react to a promise" performs (no
        // Get of `then`, no SpeciesConstructor). Script cannot do that (the reference's own
        // `PerformPromiseThen` says it is "just an approximation"), so the corrected
        // references call this.
        diff_api::define_builtin(
            &mut ctx,
            "__sdPerformPromiseThen",
            3,
            diff_api::perform_promise_then,
        )
        .map_err(|e| e.to_string())?;
        // `__sdAddAbortAlgorithm(signal, f)` / `__sdRemoveAbortAlgorithm(signal, handle)`: DOM's
        // "add" and "remove" of an abort algorithm, which script cannot reach (the
        // abort-algorithm-as-listener correction calls them).
        diff_api::define_builtin(
            &mut ctx,
            "__sdAddAbortAlgorithm",
            2,
            diff_api::add_abort_algorithm,
        )
        .map_err(|e| e.to_string())?;
        diff_api::define_builtin(
            &mut ctx,
            "__sdRemoveAbortAlgorithm",
            2,
            diff_api::remove_abort_algorithm,
        )
        .map_err(|e| e.to_string())?;
        eval(&host, &mut ctx, "install.js", &reference.install)?;
        eval(&host, &mut ctx, &reference.bundle_name, &reference.bundle)?;
        eval(&host, &mut ctx, "reference-hook.js", REFERENCE_HOOK)?;
    }
    let render = eval(&host, &mut ctx, "stream-diff-prelude.js", PRELUDE)?;
    if !render.is_callable() {
        return Err("the prelude did not return its renderer".to_owned());
    }
    // Whatever setup reported (nothing, normally) is not the script's.
    let setup_reports = host.take_reports();
    if !setup_reports.is_empty() {
        return Err(format!("setup reported: {:?}", setup_reports));
    }
    Ok(Prepared { host, ctx, render })
}

/// Normalises a host report for comparison: engine and stream error messages differ between
/// implementations, so `TypeError: some text` becomes `TypeError`; the script's own errors
/// (message starting with `sd:`) keep their message.
pub fn normalize_report(message: &str) -> String {
    if let Some((name, rest)) = message.split_once(": ") {
        let is_name = !name.is_empty()
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && name.starts_with(|c: char| c.is_ascii_uppercase());
        if is_name {
            return if rest.starts_with("sd:") {
                format!("{name}({rest})")
            } else {
                name.to_owned()
            };
        }
    }
    message.to_owned()
}

fn report_event(report: HostReport) -> String {
    match report {
        HostReport::UncaughtError(m) => format!("report uncaught {}", normalize_report(&m)),
        HostReport::UnhandledRejection(m) => format!("report unhandled {}", normalize_report(&m)),
        HostReport::LimitExceeded(m) => format!("report limit {m}"),
    }
}

fn drain_reports(host: &Host) {
    let reports = host.take_reports();
    // Once the limits stopped the script, what its aborted jobs report is the tool's doing.
    if LOG.with(|log| {
        let log = log.borrow();
        log.overflow || log.late
    }) {
        return;
    }
    for report in reports {
        push_event(report_event(report));
    }
}

fn render_thrown(ctx: &mut Context, render: &Value, error: JsError) -> String {
    match diff_api::thrown_or_uncatchable(error, ctx) {
        Ok(value) => match render
            .as_object()
            .map(|f| f.call(&Value::undefined(), &[value], ctx))
        {
            Some(Ok(s)) => s
                .as_string()
                .map(|s| s.to_std_string_escaped())
                .unwrap_or_default(),
            _ => "?".to_owned(),
        },
        Err(engine) => format!("(uncatchable) {engine}"),
    }
}

/// Runs `script` in a prepared context (consumed: a context runs one program).
pub fn run_prepared(mut prepared: Prepared, script: &str, limits: Limits) -> SideResult {
    let start = Instant::now();
    let deadline = start + limits.timeout;
    LOG.with(|log| {
        *log.borrow_mut() = LogState {
            events: Vec::new(),
            max_events: limits.max_events,
            deadline: Some(deadline),
            overflow: false,
            late: false,
        }
    });
    let result = catch_unwind(AssertUnwindSafe(|| {
        let Prepared { render, ctx, host } = &mut prepared;
        diff_api::set_interrupt(ctx, Some(interrupted));
        let thrown = host.evaluate(ctx, Some(std::path::Path::new("script.js")), script);
        if let Err(error) = thrown {
            let text = render_thrown(ctx, render, error);
            push_event(format!("script threw {text}"));
        }
        host.perform_microtask_checkpoint(ctx);
        drain_reports(host);
        let outcome = host.run_until(ctx, Some(deadline), &mut |_| {
            drain_reports(host);
            LOG.with(|log| {
                let log = log.borrow();
                log.overflow || log.late
            })
        });
        drain_reports(host);
        (outcome, host.has_pending_work())
    }));
    let (overflow, late, events) = LOG.with(|log| {
        let mut log = log.borrow_mut();
        (log.overflow, log.late, std::mem::take(&mut log.events))
    });
    let outcome = match result {
        Err(payload) => Outcome::Panic(panic_message(&payload)),
        Ok(_) if overflow => Outcome::EventLimit,
        Ok(_) if late => Outcome::Hang,
        Ok((RunOutcome::DeadlineReached, pending)) if pending => Outcome::Hang,
        Ok((RunOutcome::DeadlineReached, _)) => Outcome::Idle,
        Ok(_) => Outcome::Idle,
    };
    // Drop the context outside the timed region's catch (a panic in a destructor is a panic too).
    let dropped = catch_unwind(AssertUnwindSafe(move || drop(prepared)));
    let outcome = match (outcome, dropped) {
        (Outcome::Idle, Err(payload)) => Outcome::Panic(panic_message(&payload)),
        (outcome, _) => outcome,
    };
    SideResult {
        events,
        outcome,
        elapsed: start.elapsed(),
    }
}

/// Prepares a fresh context and runs `script` in it.
pub fn run_fresh(
    kind: SideKind,
    reference: &ReferenceSource,
    script: &str,
    limits: Limits,
) -> SideResult {
    let start = Instant::now();
    let prepared = catch_unwind(AssertUnwindSafe(|| prepare(kind, reference)));
    let mut result = match prepared {
        Ok(Ok(prepared)) => run_prepared(prepared, script, limits),
        Ok(Err(message)) => SideResult {
            events: Vec::new(),
            outcome: Outcome::Crash(format!("setup failed: {message}")),
            elapsed: Duration::ZERO,
        },
        Err(payload) => SideResult {
            events: Vec::new(),
            outcome: Outcome::Panic(format!("during setup: {}", panic_message(&payload))),
            elapsed: Duration::ZERO,
        },
    };
    result.elapsed = start.elapsed();
    result
}

pub fn panic_message(payload: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "non-string panic payload".to_owned()
    }
}
