//! Tests over the embedding: a fresh `Host` and its `Context`, scripts evaluated through it
//! (the host's microtask checkpoint after each), and its event loop run until nothing is left.

use std::time::{Duration, Instant};

use boa_engine::{Context, JsValue};
use boa_streams::host::{error_message, Host, HostOptions, RunOutcome};

/// A fresh host with the default options.
pub fn host() -> (Host, Context) {
    host_with(HostOptions::default())
}

/// A fresh host with `options`.
pub fn host_with(options: HostOptions) -> (Host, Context) {
    Host::new(options).expect("a fresh host builds")
}

/// Evaluates `source` as a script that must not throw (a thrown error is the panic's message).
pub fn eval(host: &Host, ctx: &mut Context, source: &str) -> JsValue {
    match host.eval_script(ctx, "test.js", source) {
        Ok(value) => value,
        Err(error) => panic!("script threw: {}", error_message(error, ctx)),
    }
}

/// [`eval`], and the value's string form.
pub fn eval_string(host: &Host, ctx: &mut Context, source: &str) -> String {
    let value = eval(host, ctx, source);
    super::text(&value, ctx)
}

/// Runs the event loop until nothing is left to run (at most 10 s).
pub fn run_to_idle(host: &Host, ctx: &mut Context) {
    let outcome = host.run_until(
        ctx,
        Some(Instant::now() + Duration::from_secs(10)),
        &mut |_| false,
    );
    assert_eq!(outcome, RunOutcome::Idle);
}

/// Asserts that the host reported nothing (no uncaught error, no unhandled rejection).
pub fn assert_no_reports(host: &Host) {
    let reports = host.take_reports();
    assert!(reports.is_empty(), "host reports: {reports:?}");
}

/// [`run_to_idle`], then [`assert_no_reports`].
pub fn run_to_idle_without_reports(host: &Host, ctx: &mut Context) {
    run_to_idle(host, ctx);
    assert_no_reports(host);
}

/// A fresh host in which `source` has been evaluated and the event loop run to idle.
pub fn run_script(source: &str) -> (Host, Context) {
    let (host, mut ctx) = host();
    eval(&host, &mut ctx, source);
    run_to_idle(&host, &mut ctx);
    (host, ctx)
}
