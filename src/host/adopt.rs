//! The host of an application's own rquickjs runtime (QuickJS, feature `rquickjs`): the same
//! event loop, installed into a runtime and context the application made, which the
//! application drives itself. The public face is `boa_streams::quickjs`.
//!
//! Microtasks are QuickJS jobs, so the application's `execute_pending_job`/`idle()` runs them.
//! Tasks (HTML's task queue: blob reads, fetch bodies, `MessagePort` messages, queued
//! callbacks) and timers are this host's: [`Host::run_pending_tasks`] runs those ready, and
//! [`Host::next_timer_due`] says when the next timer is due.

use std::{cell::Cell, rc::Rc, sync::Arc, time::Instant};

use super::event_loop::EventLoop;
use super::{console, globals, Host, HostInner, HostLink, HostOptions};
use crate::engine::{self, Cx, JsResult, Runtime, RuntimeHost};

/// What [`Host::adopt`] installs into an application's context (`boa_streams::quickjs`
/// re-exports it as `InstallOptions`).
#[derive(Clone)]
pub struct AdoptOptions {
    /// The clients of the streams to install beside them (default: all of them).
    pub clients: crate::Clients,
    /// Also install the host globals the library's own host has: `console`, `setTimeout`,
    /// `setInterval`, `clearTimeout`, `clearInterval`, `queueMicrotask`, `self`, `gc()`,
    /// `performance`, `crypto.getRandomValues`, `atob`, `btoa` (default: no; an application
    /// usually has its own).
    pub host_globals: bool,
    /// The fetcher behind `fetch()` for URLs other than `data:` and `blob:` (without one,
    /// there is no network).
    pub fetcher: Option<crate::fetcher::SharedFetcher>,
    /// The API base URL relative URLs resolve against (`fetch('a.txt')`, `new Request('a')`);
    /// default `http://localhost/`.
    pub base_url: Option<String>,
    /// Set QuickJS's promise rejection tracker to the host's (unhandled rejections then come
    /// back from `take_reports`). It replaces a tracker set through rquickjs's
    /// `Runtime::set_host_promise_rejection_tracker` (default: no, the application's stays).
    pub track_rejections: bool,
    /// With `host_globals`: every `console` message goes to stderr.
    pub console_to_stderr: bool,
}

impl Default for AdoptOptions {
    fn default() -> Self {
        Self {
            clients: crate::Clients::ALL,
            host_globals: false,
            fetcher: None,
            base_url: None,
            track_rejections: false,
            console_to_stderr: false,
        }
    }
}

impl std::fmt::Debug for AdoptOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AdoptOptions")
            .field("clients", &self.clients)
            .field("host_globals", &self.host_globals)
            .field("fetcher", &self.fetcher.as_ref().map(|_| ".."))
            .field("base_url", &self.base_url)
            .field("track_rejections", &self.track_rejections)
            .field("console_to_stderr", &self.console_to_stderr)
            .finish()
    }
}

/// The host of an adopted runtime, as its agent's data: a strong link (the application's
/// runtime keeps the host; its teardown drops the agent's data, and the host with it).
#[derive(Clone)]
struct HostKeep(Host);

/// The default API base URL of an adopted realm.
const DEFAULT_BASE_URL: &str = "http://localhost/";

impl Host {
    /// Installs the streams (and the DOM and HTML interfaces they need, the clients
    /// `options.clients` names and, with `options.host_globals`, the host globals) into
    /// `ctx`, an application's rquickjs context. The first context of a runtime installs the
    /// agent (our classes, the event loop); a further context of the same runtime becomes a
    /// realm of that agent. The application's runtime keeps the host: it is dropped with the
    /// runtime, before QuickJS frees it.
    ///
    /// Fails (with a `TypeError`) when boa_streams is already installed in `ctx`.
    pub fn adopt(ctx: &engine::AdoptedCtx<'_>, options: AdoptOptions) -> JsResult<Host> {
        // The options first: a refused install changes nothing.
        options.clients.check()?;
        if let Some(base) = &options.base_url {
            if ::url::Url::parse(base).is_err() {
                return Err(engine::throw_type_error(format!(
                    "the base URL {base:?} is not a URL"
                )));
            }
        }
        if engine::adopted_cx(ctx).is_some() {
            return Err(engine::throw_type_error(
                "boa_streams is already installed in this context",
            ));
        }
        if let Some(HostKeep(host)) = engine::adopted_agent_data::<HostKeep>(ctx) {
            let mut cx = host.0.runtime.adopt_context(ctx)?;
            install_adopted_realm(&options, &mut cx)?;
            return Ok(host);
        }
        let agent = crate::html::Agent::new();
        let event_loop = Rc::new(EventLoop::new(Arc::clone(&agent)));
        let (runtime, mut cx) = Runtime::adopt(
            ctx,
            Rc::clone(&event_loop) as Rc<dyn RuntimeHost>,
            options.track_rejections,
        )?;
        crate::html::set_agent(&mut cx, Arc::clone(&agent));
        // The Rust operations' wake hub, as on a host's own runtime: what waits when the
        // application drops the runtime is dropped first.
        let wake = crate::rust::wake::install(&mut cx, Arc::new(move || agent.wake()));
        console::set_up(options.console_to_stderr, &mut cx);
        let host = Host(Rc::new(HostInner {
            wake,
            event_loop,
            runtime,
            options: HostOptions {
                fetcher: options.fetcher.clone(),
                console_to_stderr: options.console_to_stderr,
                // An application's own runtime keeps its own limits (rquickjs's
                // `Runtime::set_memory_limit`, `set_interrupt_handler`).
                ..HostOptions::default()
            },
            gc_stress: false,
            deadline: Cell::new(None),
            limit_exceeded: Cell::new(false),
        }));
        engine::set_agent_data(&mut cx, HostLink(Rc::downgrade(&host.0)));
        engine::set_agent_data(&mut cx, HostKeep(host.clone()));
        engine::set_microtask_checkpoint(&mut cx, |ctx| {
            if let Some(host) = Host::from_context(ctx) {
                host.perform_microtask_checkpoint(ctx);
            }
        });
        install_adopted_realm(&options, &mut cx)?;
        Ok(host)
    }

    /// The host installed in `ctx` and a handle on `ctx` (to be dropped before `ctx`), if
    /// boa_streams is installed there ([`Host::adopt`]).
    pub fn of_adopted(ctx: &engine::AdoptedCtx<'_>) -> Option<(Host, Cx)> {
        let cx = engine::adopted_cx(ctx)?;
        let host = Host::from_context(&cx)?;
        Some((host, cx))
    }

    /// Runs the tasks that are ready: a microtask checkpoint, then each queued task, each
    /// timer due by the time of the call and each message other agents posted, in the event
    /// loop's order, each followed by a microtask checkpoint, until none is ready (tasks these
    /// queue run too, when ready), or until `limit` tasks ran. Returns how many tasks ran.
    /// What an application that drives its own loop calls, with its own jobs, until it returns
    /// 0 and no job is pending.
    pub fn run_pending_tasks(&self, ctx: &mut Cx, limit: Option<usize>) -> usize {
        let now = Instant::now();
        let mut ran = 0;
        self.perform_microtask_checkpoint(ctx);
        while limit.is_none_or(|limit| ran < limit) {
            crate::html::deliver_remote_messages(ctx);
            let Some(task) = self.0.event_loop.next_task(now) else {
                break;
            };
            if let Err(error) = task(ctx) {
                self.0.event_loop.report_error(error, ctx);
            }
            self.perform_microtask_checkpoint(ctx);
            ran += 1;
        }
        ran
    }

    /// When the next live timer is due (`None`: no timer). A due time in the past means a task
    /// is ready.
    pub fn next_timer_due(&self) -> Option<Instant> {
        self.0.event_loop.next_timer_due()
    }

    /// Whether a task, live timer or message from another agent is waiting (microtasks aside:
    /// they are the runtime's jobs).
    pub fn has_pending_tasks(&self) -> bool {
        self.0.event_loop.has_pending_tasks() || self.0.event_loop.agent().has_ready()
    }
}

/// Installs an adopted realm's globals in the current realm: the host globals if asked for,
/// the streams with the chosen clients, the blob URL origin, the base URL and the fetcher.
fn install_adopted_realm(options: &AdoptOptions, ctx: &mut Cx) -> JsResult<()> {
    if options.host_globals {
        globals::install_host_globals(ctx)?;
    }
    crate::register_with(ctx, options.clients)?;
    if options.host_globals {
        globals::install_after_streams(ctx)?;
    }
    let base = options.base_url.as_deref().unwrap_or(DEFAULT_BASE_URL);
    if options.clients.fetch || options.clients.file {
        if let Ok(url) = url_origin(base) {
            crate::file::set_blob_url_origin(ctx, &url);
        }
    }
    if options.clients.fetch {
        if !crate::fetch::urls::set_api_base_url(base, ctx) {
            return Err(engine::throw_type_error(format!(
                "the base URL {base:?} is not a URL"
            )));
        }
        if let Some(fetcher) = &options.fetcher {
            crate::fetcher::set_fetcher(fetcher.clone(), ctx);
        }
    }
    Ok(())
}

/// The ASCII serialization of `base`'s origin.
fn url_origin(base: &str) -> Result<String, ()> {
    let url = ::url::Url::parse(base).map_err(|_| ())?;
    Ok(url.origin().ascii_serialization())
}
