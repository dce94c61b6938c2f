//! One side of a comparison: a fresh Boa context (boa_streams' `Host`), optionally with the
//! reference implementation installed over the native stream classes, the tracing prelude,
//! then the script under test; the event loop runs until idle or the deadline.

use std::{
    cell::RefCell,
    fmt,
    panic::{catch_unwind, AssertUnwindSafe},
    time::{Duration, Instant},
};

use boa_engine::{
    error::{EngineError, RuntimeLimitError},
    js_string,
    native_function::NativeFunction,
    object::builtins::{JsFunction, JsPromise},
    Context, JsError, JsNativeError, JsObject, JsResult, JsValue, Source,
};
use boa_streams::host::{Host, HostOptions, HostReport, RunOutcome};

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

/// `__sdPerformPromiseThen(promise, onFulfilled, onRejected)`: PerformPromiseThen(promise,
/// onFulfilled, onRejected, ! NewPromiseCapability(%Promise%)), which is what WebIDL's "react to
/// a promise" performs: no Get of `then`, no SpeciesConstructor (`Promise.prototype.then` Gets
/// `constructor`). Script cannot do that (the reference's own `PerformPromiseThen` says it is "just
/// an approximation"), so the corrected references call this. For the call the promise has no
/// prototype, so SpeciesConstructor finds no `constructor` and takes %Promise%; a promise that
/// script made non-extensible or gave an own `constructor` gets plain `then`.
fn perform_promise_then(_: &JsValue, args: &[JsValue], ctx: &mut Context) -> JsResult<JsValue> {
    let arg = |i: usize| args.get(i).cloned().unwrap_or_default();
    let Some(promise) = arg(0)
        .as_object()
        .and_then(|o| JsPromise::from_object(o.clone()).ok())
    else {
        return Err(JsNativeError::typ()
            .with_message("__sdPerformPromiseThen: not a promise")
            .into());
    };
    let handler = |v: JsValue| {
        v.as_object()
            .and_then(|o| JsFunction::from_object(o.clone()))
    };
    let (on_fulfilled, on_rejected) = (handler(arg(1)), handler(arg(2)));
    let object: JsObject = promise.clone().into();
    let quiet =
        object.is_extensible(ctx)? && !object.has_own_property(js_string!("constructor"), ctx)?;
    if !quiet {
        return promise.then(on_fulfilled, on_rejected, ctx).map(Into::into);
    }
    let proto = object.prototype();
    object.set_prototype(None);
    let result = promise.then(on_fulfilled, on_rejected, ctx);
    object.set_prototype(proto);
    result.map(Into::into)
}

fn push_event(event: String) {
    LOG.with(|log| log.borrow_mut().events.push(event));
}

/// `__sd_emit(string)`: appends an event. Past the event limit or the deadline it throws an
/// uncatchable runtime-limit error, so a runaway script stops at its next logged event.
fn emit(_: &JsValue, args: &[JsValue], ctx: &mut Context) -> JsResult<JsValue> {
    let text = match args.first() {
        Some(value) => value.to_string(ctx)?.to_std_string_escaped(),
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
        return Err(EngineError::RuntimeLimit(RuntimeLimitError::LoopIteration).into());
    }
    Ok(JsValue::undefined())
}

/// A context ready to run a script: the host, with (for the reference) the bundle installed,
/// and the prelude loaded.
pub struct Prepared {
    pub host: Host,
    pub ctx: Context,
    render: JsObject,
}

/// The reference implementation's sources.
#[derive(Debug, Clone)]
pub struct ReferenceSource {
    pub install: String,
    pub bundle: String,
    pub bundle_name: String,
}

fn eval(host: &Host, ctx: &mut Context, name: &str, source: &str) -> Result<JsValue, String> {
    host.eval_script(ctx, name, source)
        .map_err(|e| format!("{name}: {}", boa_streams::host::error_message(e, ctx)))
}

/// Builds a fresh context for `kind`.
pub fn prepare(kind: SideKind, reference: &ReferenceSource) -> Result<Prepared, String> {
    // The script's `console` output goes to stderr, so stdout stays the tool's (--json).
    let options = HostOptions {
        console_to_stderr: true,
        ..HostOptions::default()
    };
    let (host, mut ctx) = Host::new(options).map_err(|e| e.to_string())?;
    {
        let limits = ctx.runtime_limits_mut();
        limits.set_loop_iteration_limit(1_000_000);
        limits.set_recursion_limit(400);
    }
    let emit_fn = NativeFunction::from_fn_ptr(emit);
    ctx.register_global_builtin_callable(js_string!("__sd_emit"), 1, emit_fn)
        .map_err(|e| e.to_string())?;
    if kind == SideKind::Reference {
        let then_fn = NativeFunction::from_fn_ptr(perform_promise_then);
        ctx.register_global_builtin_callable(js_string!("__sdPerformPromiseThen"), 3, then_fn)
            .map_err(|e| e.to_string())?;
        eval(&host, &mut ctx, "install.js", &reference.install)?;
        eval(&host, &mut ctx, &reference.bundle_name, &reference.bundle)?;
        eval(&host, &mut ctx, "reference-hook.js", REFERENCE_HOOK)?;
    }
    let render = eval(&host, &mut ctx, "stream-diff-prelude.js", PRELUDE)?;
    let render = render
        .as_object()
        .ok_or_else(|| "the prelude did not return its renderer".to_owned())?
        .clone();
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

fn render_thrown(prepared: &mut Prepared, error: JsError) -> String {
    let Prepared { ctx, render, .. } = prepared;
    match error.into_opaque(ctx) {
        Ok(value) => match render.call(&JsValue::undefined(), &[value], ctx) {
            Ok(s) => s
                .as_string()
                .map(|s| s.to_std_string_escaped())
                .unwrap_or_default(),
            Err(_) => "?".to_owned(),
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
        let host = prepared.host.clone();
        let thrown = prepared
            .ctx
            .eval(Source::from_bytes(script).with_path(std::path::Path::new("script.js")));
        if let Err(error) = thrown {
            let text = render_thrown(&mut prepared, error);
            push_event(format!("script threw {text}"));
        }
        host.perform_microtask_checkpoint(&mut prepared.ctx);
        drain_reports(&host);
        let outcome = host.run_until(&mut prepared.ctx, Some(deadline), &mut |_| {
            drain_reports(&host);
            LOG.with(|log| {
                let log = log.borrow();
                log.overflow || log.late
            })
        });
        drain_reports(&host);
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
