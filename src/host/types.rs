//! The host's option, report and outcome types, and the port handles agents talk through.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

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
}

impl fmt::Debug for HostOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HostOptions")
            .field("fetch_root", &self.fetch_root)
            .field("fetcher", &self.fetcher.as_ref().map(|_| ".."))
            .field("console_to_stderr", &self.console_to_stderr)
            .field("window", &self.window)
            .field("location", &self.location)
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
}

impl fmt::Display for HostReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HostReport::UncaughtError(message) => write!(f, "Uncaught {message}"),
            HostReport::UnhandledRejection(message) => {
                write!(f, "Unhandled promise rejection: {message}")
            }
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
