//! The host environment: an HTML-ordered event loop, and the globals that scripts and the Web
//! Platform Tests expect (`self`, `console`, timers, `fetch`, `gc`, ...). Not part of the spec
//! layer: the streams code never depends on it.
//!
//! NOTE: provisional API stub; the implementation replaces the bodies, keeping the signatures.

use std::{path::PathBuf, time::Instant};

use boa_engine::{Context, JsResult, JsValue, Source};

/// How to build a host.
#[derive(Debug, Clone, Default)]
pub struct HostOptions {
    /// Root folder that `fetch('/path')` serves files from (the WPT root for the runner).
    pub fetch_root: Option<PathBuf>,
    /// Send `console` output to stderr instead of stdout (the WPT runner's child processes
    /// keep stdout for their protocol).
    pub console_to_stderr: bool,
}

/// Something the host reports instead of throwing: an error thrown by a job or timer callback,
/// or a promise rejection nobody handled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostReport {
    /// An exception thrown by a task, timer or microtask.
    UncaughtError(String),
    /// A promise rejected with no handler by the end of a microtask checkpoint.
    UnhandledRejection(String),
}

/// Why [`Host::run_until`] returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunOutcome {
    /// The `done` predicate became true.
    Done,
    /// No microtask, task or timer is left.
    Idle,
    /// The deadline passed first.
    DeadlineReached,
}

/// A context's host: owns its event loop and host hooks.
#[derive(Debug)]
pub struct Host {}

impl Host {
    /// Builds a context with the event loop, host hooks, the host globals, and the streams
    /// globals (`crate::register`) installed.
    pub fn new(_options: HostOptions) -> JsResult<(Host, Context)> {
        // Provisional: `self` and timers so that testharness.js loads; the real host replaces
        // this body.
        let mut ctx = Context::default();
        boa_runtime::register_extensions(
            (
                boa_runtime::extensions::TimeoutExtension,
                boa_runtime::extensions::MicrotaskExtension,
            ),
            None,
            &mut ctx,
        )?;
        let global = ctx.global_object();
        ctx.register_global_property(
            boa_engine::js_string!("self"),
            global,
            boa_engine::property::Attribute::WRITABLE
                | boa_engine::property::Attribute::CONFIGURABLE,
        )?;
        crate::register(&mut ctx)?;
        Ok((Host {}, ctx))
    }

    /// Evaluates a classic script, then performs a microtask checkpoint.
    pub fn eval_script(&self, ctx: &mut Context, name: &str, source: &str) -> JsResult<JsValue> {
        let _ = name;
        ctx.eval(Source::from_bytes(source))
    }

    /// Runs the event loop until `done` returns true (checked after every task / microtask
    /// checkpoint), nothing is left to run, or `deadline` passes.
    pub fn run_until(
        &self,
        ctx: &mut Context,
        deadline: Option<Instant>,
        done: &mut dyn FnMut(&mut Context) -> bool,
    ) -> RunOutcome {
        let _ = (deadline, ctx.run_jobs());
        if done(ctx) {
            RunOutcome::Done
        } else {
            RunOutcome::Idle
        }
    }

    /// Takes the reports gathered so far.
    pub fn take_reports(&self) -> Vec<HostReport> {
        Vec::new()
    }
}
