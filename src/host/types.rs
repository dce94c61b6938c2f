//! The host's option, report and outcome types, and the port handles agents talk through.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::html::PortCore;

/// How to build a host.
#[derive(Clone, Default)]
pub struct HostOptions {
    /// Root folder that `fetch('/path')` serves files from (the WPT root for the runner):
    /// `http:` and `https:` URLs map to files under it, whatever their host. Ignored when
    /// [`HostOptions::fetcher`] is given.
    pub fetch_root: Option<PathBuf>,
    /// The fetcher behind `fetch()` for URLs other than `data:` and `blob:` (see
    /// [`crate::fetcher`]). Without it and without [`HostOptions::fetch_root`], such a
    /// `fetch()` rejects with a `TypeError`: no network by default.
    pub fetcher: Option<crate::fetcher::SharedFetcher>,
    /// Send every `console` message to stderr. By default `console.error`, `console.warn` and
    /// `console.assert` go to stderr and the other methods to stdout.
    pub console_to_stderr: bool,
    /// Make the global object a window: `window`, `postMessage(message, targetOrigin,
    /// transfer)` posting to itself, `onmessage`, and `EventTarget.prototype` as its prototype
    /// (for the WPT runner's `.window.js` files). The window's origin is the `fetch` origin
    /// (`http://web-platform.test:8000`).
    pub window: bool,
    /// The document's URL: the global gets a `location` object with its components (`href`,
    /// `search`, ...), and it is the API base URL that `fetch()`, `Request` and
    /// `Response.redirect()` resolve relative URLs against (the WPT runner sets it to the test
    /// file's URL under `http://web-platform.test:8000`). Without it, there is no `location`
    /// and the base URL is `http://web-platform.test:8000/`.
    pub location: Option<String>,
    /// The most memory the engine's heap may use, in bytes: past it, an allocation fails and
    /// the operation throws (catchable). QuickJS: `JS_SetMemoryLimit`, the engine's whole heap
    /// (objects, strings, array buffers' bytes, bytecode), not the library's own Rust
    /// allocations (a stream queue's records, about 32 bytes a chunk). Boa 0.22: not
    /// enforced on the engine's heap (Boa has no allocation limit or hook); bound a script
    /// there with [`HostOptions::time_limit`] and [`HostOptions::loop_iteration_limit`]. On
    /// both engines the bytes that bodies and `Blob` streams hold in Rust (chunks no script
    /// has read yet) are bounded by the same number apart from the heap: past it, extracting
    /// a body throws a RangeError and a `Blob`'s stream errors with one.
    pub memory_limit: Option<usize>,
    /// How long one script ([`Host::eval_script`](super::Host::eval_script)) or one turn of
    /// the event loop (a task) may run, its microtask checkpoint included. When it runs out,
    /// the host stops running microtasks, reports [`HostReport::LimitExceeded`] and closes
    /// the agent (as a worker's `close()` does: the loop returns [`RunOutcome::Closed`]).
    /// QuickJS also interrupts running script (its interrupt handler, asked every few
    /// thousand bytecode steps: an uncatchable `InternalError: interrupted`). Boa 0.22 cannot
    /// interrupt running script: there the limit is checked between microtasks and tasks only,
    /// so a loop inside one script, task or microtask needs
    /// [`HostOptions::loop_iteration_limit`].
    pub time_limit: Option<Duration>,
    /// Boa's loop-iteration runtime limit: the loops of one call frame may run this many
    /// iterations in all before an uncatchable `RuntimeLimit` error ends the script. Ignored
    /// on QuickJS, which has no such limit (its interrupt handler enforces
    /// [`HostOptions::time_limit`] inside loops).
    pub loop_iteration_limit: Option<u64>,
    /// GC stress, for testing: a full collection before every task (and script), and after
    /// every this many microtasks (on QuickJS, the collection threshold drops to zero then,
    /// so the collection lands at the next allocation). Also set by the environment variable
    /// `BOA_STREAMS_GC_STRESS=N` when this is `None`.
    pub gc_stress: Option<u32>,
}

impl fmt::Debug for HostOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HostOptions")
            .field("fetch_root", &self.fetch_root)
            .field("fetcher", &self.fetcher.as_ref().map(|_| ".."))
            .field("console_to_stderr", &self.console_to_stderr)
            .field("window", &self.window)
            .field("location", &self.location)
            .field("memory_limit", &self.memory_limit)
            .field("time_limit", &self.time_limit)
            .field("loop_iteration_limit", &self.loop_iteration_limit)
            .field("gc_stress", &self.gc_stress)
            .finish()
    }
}

/// Something the host reports instead of throwing: an error thrown by a job or timer callback,
/// or a promise rejection nobody handled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostReport {
    /// An exception thrown by a task, timer or microtask.
    UncaughtError(String),
    /// A promise rejected with no handler by the end of a microtask checkpoint.
    UnhandledRejection(String),
    /// A limit of [`HostOptions`] ended the agent (the time limit; the message says which).
    LimitExceeded(String),
}

impl fmt::Display for HostReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HostReport::UncaughtError(message) => write!(f, "Uncaught {message}"),
            HostReport::UnhandledRejection(message) => {
                write!(f, "Unhandled promise rejection: {message}")
            }
            HostReport::LimitExceeded(message) => write!(f, "Limit exceeded: {message}"),
        }
    }
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
    /// The agent closed itself (`close()` in a spawned agent, or [`Host::close`]).
    Closed,
}

/// One end of an entangled pair of message ports that no agent owns yet. It can be sent to
/// another thread, and becomes a `MessagePort` with [`Host::adopt_port`].
#[derive(Debug)]
pub struct PortHandle(pub(super) Arc<PortCore>);

/// Two entangled message ports, for two agents (or two realms) to talk through.
pub fn port_pair() -> (PortHandle, PortHandle) {
    let (a, b) = crate::html::port_pair();
    (PortHandle(a), PortHandle(b))
}

/// How a spawned agent ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentExit {
    /// The error its set-up returned (or the host could not be built), as the host reports it.
    pub error: Option<String>,
    /// What its host reported (uncaught errors, unhandled rejections).
    pub reports: Vec<HostReport>,
}
