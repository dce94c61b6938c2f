//! The host environment: an HTML-ordered event loop, and the globals that scripts and the Web
//! Platform Tests expect (`self`, `console`, timers, `fetch`, `gc`, `atob`, ...); agents on other
//! threads connected by `MessagePort`s, and second realms. Not part of the spec layer: the
//! streams code never depends on it.
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

mod agent;
mod base64;
pub mod diff_api;
mod event_loop;
mod globals;
mod performance;

use std::{path::Path, rc::Rc, time::Instant};

use boa_engine::{context::ContextBuilder, JsError, JsNativeError, JsResult, JsValue, Source};

use event_loop::EventLoop;

pub use agent::{port_pair, AgentExit, PortHandle};

mod common_api;
mod crypto;
mod file_fetcher;
mod text;
pub use text::json_string;
mod types;
pub use types::{HostOptions, HostReport, RunOutcome};
/// Helpers for tests, with the same signatures on both engines.
pub mod test_api;

/// The VM stack size limit of a host's context, in values: 1,048,576 (Boa's default is
/// 10,240). See ENGINE_BUGS.md, 1: it lets about 150,000 caught exceptions leak before the
/// limit, against about 1,460.
pub const HOST_STACK_SIZE_LIMIT: usize = 1 << 20;

/// The context handle the host's API takes (on Boa, Boa's `Context`).
pub use boa_engine::Context;

/// A context's host: owns its event loop and host hooks.
///
/// The event loop is also the context's [`boa_engine::job::JobExecutor`], so
/// `Context::run_jobs` runs it until idle (reporting errors instead of returning them).
#[derive(Debug, Clone)]
pub struct Host {
    event_loop: Rc<EventLoop>,
    options: Rc<HostOptions>,
}

impl Host {
    /// Builds a context with the event loop, host hooks, the host globals, and the streams
    /// globals (`crate::register`) installed.
    ///
    /// Globals, in installation order: boa_runtime's (`console`, `setTimeout`, `setInterval`,
    /// `clearTimeout`, `clearInterval`, `queueMicrotask`, `TextEncoder`, `TextDecoder`, `atob`,
    /// `btoa`), the streams, DOM and HTML interfaces (`MessageChannel`, `MessagePort`,
    /// `MessageEvent`, a `structuredClone`, `TextEncoder` and `TextDecoder` that replace
    /// boa_runtime's), then `self`, `gc()`, `fetch()`, `performance`,
    /// `crypto.getRandomValues`, and `atob`/`btoa` that replace boa_runtime's; with
    /// [`HostOptions::window`], `window`, `postMessage` and `onmessage`.
    ///
    /// The context is one agent: its `MessagePort`s can be entangled with ports of agents on
    /// other threads ([`Host::spawn_agent`], [`port_pair`]).
    pub fn new(options: HostOptions) -> JsResult<(Host, Context)> {
        let event_loop = Rc::new(EventLoop::new());
        let mut ctx = ContextBuilder::new()
            .host_hooks(Rc::clone(&event_loop))
            .job_executor(Rc::clone(&event_loop))
            .build()?;
        crate::html::set_agent(&mut ctx, std::sync::Arc::clone(event_loop.agent()));
        // Mitigates a Boa 0.22 bug (ENGINE_BUGS.md, 1): each caught exception leaks a few VM
        // stack slots, so at Boa's default limit (10,240 values) a loop dies with an uncatchable
        // "maximum stack size" error after about 1,460 catches. The limit is a setting; the
        // stack grows only as it is used.
        ctx.runtime_limits_mut()
            .set_stack_size_limit(HOST_STACK_SIZE_LIMIT);
        ctx.insert_data(Rc::new(options.clone()));
        install_globals(&options, &mut ctx)?;
        let options = Rc::new(options);
        Ok((
            Host {
                event_loop,
                options,
            },
            ctx,
        ))
    }

    /// The host of a context built by [`Host::new`], if `ctx` is one.
    pub fn from_context(ctx: &Context) -> Option<Host> {
        let event_loop = ctx.downcast_job_executor::<EventLoop>()?;
        let options = ctx
            .get_data::<Rc<HostOptions>>()
            .cloned()
            .unwrap_or_default();
        Some(Host {
            event_loop,
            options,
        })
    }

    /// A second realm in this context's agent, with the same globals as the first (the
    /// streams, DOM and HTML interfaces, the host globals, a window if the host makes windows).
    /// Returns it and its global object. Objects of one realm can be handed to the other
    /// directly, and a stream can be transferred into it (`otherGlobal.structuredClone(rs,
    /// { transfer: [rs] })`, or a `MessagePort` whose other end is in it).
    ///
    /// ```
    /// use boa_streams::host::{Host, HostOptions};
    /// use boa_engine::{js_string, Source};
    ///
    /// let (host, mut ctx) = Host::new(HostOptions::default()).unwrap();
    /// let (_realm, global) = host.create_realm(&mut ctx).unwrap();
    /// ctx.global_object().set(js_string!("other"), global, true, &mut ctx).unwrap();
    /// let same = host
    ///     .eval_script(&mut ctx, "realms.js", "other.ReadableStream === ReadableStream")
    ///     .unwrap();
    /// assert_eq!(same.as_boolean(), Some(false));
    /// ```
    pub fn create_realm(
        &self,
        ctx: &mut Context,
    ) -> JsResult<(boa_engine::realm::Realm, boa_engine::JsObject)> {
        let realm = ctx.create_realm()?;
        let previous = ctx.enter_realm(realm.clone());
        let result = install_globals(&self.options, ctx).map(|()| ctx.global_object());
        ctx.enter_realm(previous);
        Ok((realm, result?))
    }

    /// Evaluates a classic script, then performs a microtask checkpoint (also when the script
    /// threw, as HTML's "clean up after running script" does).
    ///
    /// An exception thrown by the script is returned (the caller reports it); exceptions thrown
    /// by microtasks during the checkpoint are reported ([`Host::take_reports`]).
    pub fn eval_script(&self, ctx: &mut Context, name: &str, source: &str) -> JsResult<JsValue> {
        let result = ctx.eval(Source::from_bytes(source).with_path(Path::new(name)));
        self.event_loop.microtask_checkpoint(ctx);
        result
    }

    /// <https://html.spec.whatwg.org/multipage/webappapis.html#perform-a-microtask-checkpoint>:
    /// runs every queued microtask (and those they queue), then reports unhandled rejections.
    pub fn perform_microtask_checkpoint(&self, ctx: &mut Context) {
        self.event_loop.microtask_checkpoint(ctx);
    }

    /// Runs the event loop until `done` returns true (checked after every task / microtask
    /// checkpoint), nothing is left to run, or `deadline` passes.
    ///
    /// Between tasks the loop sleeps until the next timer is due, never past `deadline`.
    pub fn run_until(
        &self,
        ctx: &mut Context,
        deadline: Option<Instant>,
        done: &mut dyn FnMut(&mut Context) -> bool,
    ) -> RunOutcome {
        self.event_loop.run(ctx, deadline, done)
    }

    /// Closes this agent, as a worker's `close()` does: the event loop stops after the current
    /// task and does not run again. (The agent's ports are disentangled when its context is
    /// dropped.)
    pub fn close(&self) {
        self.event_loop.close();
    }

    /// Whether a microtask, task, live timer or async job is queued.
    pub fn has_pending_work(&self) -> bool {
        self.event_loop.has_pending_work()
    }

    /// How many `MessagePort`s this agent holds because they are entangled (or still have
    /// messages to dispatch): a debug count for leak tests. Each transferred stream holds one
    /// until it closes, errors or is canceled.
    pub fn entangled_ports(&self, ctx: &Context) -> usize {
        crate::html::held_ports(ctx)
    }

    /// Takes the reports gathered so far.
    pub fn take_reports(&self) -> Vec<HostReport> {
        self.event_loop.take_reports()
    }

    /// Evaluates a classic script in the current realm, without the microtask checkpoint
    /// [`Host::eval_script`] performs (for a harness that loads several scripts in one task).
    pub fn evaluate(
        &self,
        ctx: &mut Context,
        path: Option<&Path>,
        source: &str,
    ) -> crate::JsResult<crate::Value> {
        let mut src = Source::from_bytes(source);
        if let Some(path) = path {
            src = src.with_path(path);
        }
        boa_engine::Script::parse(src, None, ctx)
            .and_then(|script| script.evaluate(ctx))
            .map(crate::Value::from)
            .map_err(crate::JsError::from)
    }

    /// Defines a function on the current realm's global object (writable, enumerable and
    /// configurable, as a WebIDL operation of the global).
    pub fn define_global_function(
        &self,
        ctx: &mut Context,
        name: &str,
        length: usize,
        f: crate::NativeFunctionPointer,
    ) -> crate::JsResult<()> {
        crate::engine::webidl::define_global_operation(name, length, f, ctx)
    }

    /// The global object of a new realm of this agent, with the same globals (see
    /// [`Host::create_realm`]).
    pub fn new_realm_global(&self, ctx: &mut Context) -> crate::JsResult<crate::Value> {
        let (_, global) = self.create_realm(ctx)?;
        Ok(crate::Value::from(crate::Object::from(global)))
    }

    /// The value an error throws, if it is not an uncatchable engine error.
    pub fn thrown_value(&self, error: crate::JsError, ctx: &mut Context) -> Option<crate::Value> {
        crate::engine::thrown_value(error, ctx).ok()
    }

    /// Whether `value` is a promise that is still pending.
    pub fn is_pending_promise(&self, value: &JsValue) -> bool {
        value
            .as_object()
            .and_then(|o| boa_engine::object::builtins::JsPromise::from_object(o.clone()).ok())
            .is_some_and(|p| {
                matches!(
                    p.state(),
                    boa_engine::builtins::promise::PromiseState::Pending
                )
            })
    }
}

/// Installs the globals of a host realm in the current realm.
fn install_globals(options: &HostOptions, ctx: &mut Context) -> JsResult<()> {
    // The checkpoint that follows a callback run from a task ("clean up after running script").
    crate::engine::set_microtask_checkpoint(ctx, |ctx| {
        if let Some(host) = Host::from_context(ctx) {
            host.perform_microtask_checkpoint(ctx);
        }
    });
    globals::register_runtime(options.console_to_stderr, ctx)?;
    crate::register(ctx)?;
    globals::register_host_globals(ctx)?;
    // The document's base URL for relative URLs (the location, or wptserve's origin), and the
    // fetcher.
    match &options.location {
        Some(location) => {
            if !crate::fetch::urls::set_api_base_url(location, ctx) {
                return Err(JsNativeError::typ()
                    .with_message(format!("the host's location {location:?} is not a URL"))
                    .into());
            }
            globals::register_location(location, ctx)?;
        }
        None => {
            crate::fetch::urls::set_api_base_url(&format!("{}/", globals::FETCH_ORIGIN), ctx);
        }
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
    if options.window {
        crate::html::window::install_window(globals::FETCH_ORIGIN, ctx)?;
    }
    Ok(())
}

/// The message of an uncaught exception, as the host reports it: `ToString(thrown value)`
/// (e.g. `TypeError: foo`), falling back to Boa's display form when that throws.
pub fn error_message(error: impl Into<JsError>, ctx: &mut Context) -> String {
    event_loop::error_message(error.into(), ctx)
}

/// The host's event loop is what [`crate::rust::Ticket::wait`] drives.
impl crate::rust::EventLoop for Host {
    fn run_until_done(&self, ctx: &mut Context, done: &mut dyn FnMut(&mut Context) -> bool) {
        self.run_until(ctx, None, done);
    }
}
