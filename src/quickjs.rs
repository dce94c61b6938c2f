//! boa_streams in an application's own rquickjs runtime (QuickJS build, feature `rquickjs`).
//!
//! [`install`] puts the streams, the DOM and HTML interfaces they need and the chosen clients
//! (Encoding, Compression, URL, File, Fetch) into a context the application made with
//! rquickjs's safe API, `Runtime`/`Context` or `AsyncRuntime`/`AsyncContext`. Our classes and
//! agent state are set up on the runtime at its first install; a further context of the same
//! runtime becomes a second realm of it. Nothing of ours lives in the runtime's opaque
//! (rquickjs's): the agent is in a side table, its teardown in rquickjs's userdata, run when
//! the application drops the runtime, before QuickJS frees it.
//!
//! **Who drives what.** The application drives the loop:
//! - microtasks (promise reactions, the streams' internal jobs) are QuickJS jobs: rquickjs's
//!   `Runtime::execute_pending_job` (or `AsyncRuntime::idle`) runs them;
//! - tasks and timers (HTML's task queue: `Blob` reads, `fetch()` bodies, `MessagePort`
//!   messages, `setTimeout` when the host globals are installed) are ours:
//!   [`run_pending_tasks`] runs the ready ones (each followed by a microtask checkpoint), and
//!   [`next_timer_at`] says when the next timer is due, so an idle application knows how long
//!   it may sleep.
//!
//! A loop that runs everything to the end:
//!
//! ```
//! use boa_streams::quickjs::{self, InstallOptions};
//! use boa_streams::quickjs::rquickjs::{Context, Runtime};
//!
//! let runtime = Runtime::new().unwrap();
//! let context = Context::full(&runtime).unwrap();
//! context.with(|ctx| quickjs::install(&ctx, InstallOptions::default())).unwrap();
//! context.with(|ctx| {
//!     ctx.eval::<(), _>(r#"
//!         globalThis.out = [];
//!         new Blob(["a", "b"]).text().then(t => out.push(t));
//!     "#).unwrap();
//! });
//! loop {
//!     // Microtasks: QuickJS jobs.
//!     while runtime.execute_pending_job().unwrap() {}
//!     // Tasks and timers: ours.
//!     let ran = context.with(|ctx| quickjs::run_pending_tasks(&ctx)).unwrap();
//!     if ran == 0 && !runtime.is_job_pending() {
//!         match context.with(|ctx| quickjs::next_timer_at(&ctx)) {
//!             Some(at) => std::thread::sleep(at.saturating_duration_since(std::time::Instant::now())),
//!             None => break,
//!         }
//!     }
//! }
//! let text: String = context.with(|ctx| ctx.eval("out.join()")).unwrap();
//! assert_eq!(text, "ab");
//! ```
//!
//! Limits: rquickjs's `parallel` feature is not supported ([`install`] refuses: the agent of
//! a runtime is found from the thread that installed it, and our values are not `Send`); a context the application drops stays alive (with its
//! realm's state) until its runtime is dropped.

use std::time::Instant;

/// The rquickjs crate these functions take the types of (0.14, over the rquickjs-sys 0.14 the
/// backend links: one QuickJS). With the `rquickjs-futures` feature it has `futures`
/// (`AsyncRuntime`, `AsyncContext`).
pub use rquickjs;

use crate::engine::{self, AdoptedCtx};
use crate::host::{Host, HostReport};
use crate::{JsError, Value};

/// What [`install`] installs: the clients (default: all), the host globals (default: none),
/// the fetcher, the base URL, and whether QuickJS's rejection tracker reports to us.
pub use crate::host::AdoptOptions as InstallOptions;

/// Which clients of the streams [`InstallOptions::clients`] installs.
pub use crate::Clients;

/// Why a call of this module failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// boa_streams is not installed in the context ([`install`] it first).
    #[error("boa_streams is not installed in this context")]
    NotInstalled,
    /// Installing threw (already installed, an opaque in use, a bad option): the message.
    #[error("cannot install boa_streams: {0}")]
    Install(String),
    /// The value belongs to another runtime.
    #[error("the value belongs to another QuickJS runtime")]
    ForeignValue,
}

/// Installs the streams into `ctx` (see the module's documentation). Call it once per
/// context, inside `Context::with` / `AsyncContext::with`.
pub fn install(ctx: &AdoptedCtx<'_>, options: InstallOptions) -> Result<(), Error> {
    match Host::adopt(ctx, options) {
        Ok(_) => Ok(()),
        Err(error) => Err(Error::Install(message(error, ctx))),
    }
}

/// Whether boa_streams is installed in `ctx`.
pub fn is_installed(ctx: &AdoptedCtx<'_>) -> bool {
    engine::adopted_cx(ctx).is_some()
}

/// Runs the ready tasks of `ctx`'s runtime: a microtask checkpoint, then every queued task,
/// every timer due by now and every message from another agent, each followed by a microtask
/// checkpoint (which runs all of the runtime's pending jobs), until none is ready; tasks
/// these queue run too. Returns how many ran.
///
/// Call it whenever the application's own jobs are done, until it returns 0 while
/// `is_job_pending()` is false; then [`next_timer_at`] says when to call it again. (A program
/// whose tasks keep queueing tasks, a `MessagePort` ping-pong, keeps it running: [`run_tasks`]
/// bounds a call.)
pub fn run_pending_tasks(ctx: &AdoptedCtx<'_>) -> Result<usize, Error> {
    let (host, mut cx) = Host::of_adopted(ctx).ok_or(Error::NotInstalled)?;
    Ok(host.run_pending_tasks(&mut cx, None))
}

/// [`run_pending_tasks`], stopping after `max` tasks (the microtask checkpoint that follows
/// the last one included), so an application interleaves its own work.
pub fn run_tasks(ctx: &AdoptedCtx<'_>, max: usize) -> Result<usize, Error> {
    let (host, mut cx) = Host::of_adopted(ctx).ok_or(Error::NotInstalled)?;
    Ok(host.run_pending_tasks(&mut cx, Some(max)))
}

/// When the next timer of `ctx`'s runtime is due (`None`: no timer waits).
pub fn next_timer_at(ctx: &AdoptedCtx<'_>) -> Option<Instant> {
    let (host, _cx) = Host::of_adopted(ctx)?;
    host.next_timer_due()
}

/// Whether a task, timer or message from another agent waits in `ctx`'s runtime (its jobs
/// aside: `is_job_pending()` tells those).
pub fn has_pending_tasks(ctx: &AdoptedCtx<'_>) -> bool {
    Host::of_adopted(ctx).is_some_and(|(host, _)| host.has_pending_tasks())
}

/// Takes what the host reported so far: errors thrown by tasks and by microtasks run in its
/// checkpoints, and (with [`InstallOptions::track_rejections`]) unhandled rejections.
pub fn take_reports(ctx: &AdoptedCtx<'_>) -> Vec<HostReport> {
    Host::of_adopted(ctx).map_or_else(Vec::new, |(host, _)| host.take_reports())
}

/// Runs `f` with the host and a context handle of ours on `ctx`: what the Rust API
/// (`boa_streams::rust`) and the library's values take. The handle is valid for the call;
/// neither a clone of the host nor a value may be kept past the application's runtime (they
/// hold parts of it: QuickJS then finds objects left when it frees the runtime, and aborts).
pub fn with_context<R>(
    ctx: &AdoptedCtx<'_>,
    f: impl FnOnce(&Host, &mut crate::host::Context) -> R,
) -> Result<R, Error> {
    let (host, mut cx) = Host::of_adopted(ctx).ok_or(Error::NotInstalled)?;
    Ok(f(&host, &mut cx))
}

/// The library's value of an rquickjs value (to hand a JS stream to `boa_streams::rust`), once
/// boa_streams is installed in its runtime.
pub fn from_rquickjs(value: &rquickjs::Value<'_>) -> Result<Value, Error> {
    engine::value_from_adopted(value).ok_or(Error::NotInstalled)
}

/// The rquickjs value of a library value made in `ctx`'s runtime.
pub fn to_rquickjs<'js>(
    ctx: &AdoptedCtx<'js>,
    value: Value,
) -> Result<rquickjs::Value<'js>, Error> {
    engine::value_to_adopted(ctx, value).ok_or(Error::ForeignValue)
}

/// An error's message, read in `ctx` when boa_streams is installed there.
fn message(error: JsError, ctx: &AdoptedCtx<'_>) -> String {
    match Host::of_adopted(ctx) {
        Some((_, mut cx)) => crate::host::error_message(error, &mut cx),
        None => error.to_string(),
    }
}
