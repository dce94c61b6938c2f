//! The one test idiom: a list of [`TestAction`]s run in order against a [`Fixture`] (a streams
//! `Context`, or a `Host` and its `Context`), in the style of Boa's own `TestAction` lists.
//!
//! ```ignore
//! run_test_actions([
//!     TestAction::run("const rs = new ReadableStream(); log.push(rs.locked);"),
//!     TestAction::assert_log("false"),
//!     TestAction::assert_eq("rs.locked", false),
//!     TestAction::assert_throws("rs.getReader({ mode: 'x' })", "TypeError: ..."),
//!     TestAction::inspect_context(|ctx| { /* the Rust side */ }),
//! ]);
//! ```
//!
//! Every fixture starts with [`HELPERS`] installed: the `log` array that scripts push to and
//! [`TestAction::assert_log`] reads back, and the `check`/`eq`/`ok`/`throws` assertions that
//! record into `failed`, which [`TestAction::assert_no_failures`] (or [`TestAction::check`])
//! asserts empty. The other script helpers that tests share are here too: [`BYTE_HELPERS`]
//! and [`WEBIDL_SHAPES`], added to a fixture with [`Fixture::with`].

use boa_streams::host::{test_api, Context, Host, HostOptions, RunOutcome};
use boa_streams::Value;
use std::path::Path;
use std::time::{Duration, Instant};

/// The script helpers every fixture installs (as configurable global properties, so a script
/// may still declare its own):
///
/// - `log`: an array that scripts push what happened to; [`TestAction::assert_log`] compares
///   its string form (`String(log)`, the items joined by commas);
/// - `failed`: what went wrong, recorded by `check(cond, what)` and `ok(cond, what)` (`what`
///   when `cond` is falsy), `eq(a, b, what)` (when `!Object.is(a, b)`) and
///   `throws(C, f, what)` (when `f()` does not throw an instance of `C`).
pub const HELPERS: &str = r#"
globalThis.log = [];
globalThis.failed = [];
globalThis.check = (cond, what) => { if (!cond) failed.push(what); };
globalThis.ok = check;
globalThis.eq = (a, b, what) => { if (!Object.is(a, b)) failed.push(what + ': ' + String(a) + ' !== ' + String(b)); };
globalThis.throws = (C, f, what) => {
  try { f(); failed.push(what + ': did not throw'); }
  catch (e) { if (!(e instanceof C)) failed.push(what + ': wrong error ' + e); }
};
"#;

/// Script helpers for tests of byte chunks: `ascii(s)`, a `Uint8Array` of the string's char
/// codes, and `concat(arrays)`, the `Uint8Array`s joined into one.
pub const BYTE_HELPERS: &str = r#"
globalThis.ascii = (s) => Uint8Array.from(s, c => c.charCodeAt(0));
globalThis.concat = (arrays) => {
  const total = arrays.reduce((n, a) => n + a.length, 0);
  const out = new Uint8Array(total);
  let offset = 0;
  for (const a of arrays) { out.set(a, offset); offset += a.length; }
  return out;
};
"#;

/// `desc(o, k)`, `flags(d)` (`wec` for writable, enumerable, configurable), and
/// `accessorShape(proto, name, setter)` / `operationShape(obj, name, length)`, which record
/// through the `eq` and `ok` of [`HELPERS`] what differs from a WebIDL attribute or operation.
pub const WEBIDL_SHAPES: &str = r#"
function desc(o, k) { return Object.getOwnPropertyDescriptor(o, k); }
function flags(d) { return (d.writable ? 'w' : '-') + (d.enumerable ? 'e' : '-') + (d.configurable ? 'c' : '-'); }
function accessorShape(proto, name, setter) {
  const d = desc(proto, name);
  ok(d !== undefined, name + ' exists');
  if (!d) return;
  eq(typeof d.get, 'function', name + ' getter');
  eq(d.get.name, 'get ' + name, name + ' getter name');
  eq(d.get.length, 0, name + ' getter length');
  eq(typeof d.set, setter ? 'function' : 'undefined', name + ' setter');
  if (setter) { eq(d.set.name, 'set ' + name, name + ' setter name'); eq(d.set.length, 1, name + ' setter length'); }
  eq(d.enumerable, true, name + ' enumerable');
  eq(d.configurable, true, name + ' configurable');
}
function operationShape(obj, name, length) {
  const d = desc(obj, name);
  ok(d !== undefined, name + ' exists');
  if (!d) return;
  eq(flags(d), 'wec', name + ' flags');
  eq(d.value.name, name, name + ' name');
  eq(d.value.length, length, name + ' length');
}
"#;

/// Where the actions run: a streams `Context` (each script followed by running the jobs until
/// none is left; on Boa a plain context, on QuickJS a host's whose reports are dropped), or a
/// `Host` and its `Context` (each script followed by the host's microtask checkpoint;
/// [`TestAction::run_to_idle`] runs its event loop).
pub struct Fixture {
    // The context first: it is dropped before the host (on QuickJS the host owns the runtime).
    ctx: Context,
    host: Option<Host>,
    /// A streams fixture (scripts run the jobs to idle; the host's reports are not failures).
    streams: bool,
}

impl Fixture {
    /// A fresh streams fixture with [`HELPERS`]: on Boa a plain
    /// [`context`](super::context), on QuickJS a host's context.
    pub fn streams() -> Self {
        #[cfg(feature = "engine-boa")]
        let fixture = Self {
            ctx: super::context(),
            host: None,
            streams: true,
        };
        #[cfg(not(feature = "engine-boa"))]
        let fixture = {
            let (host, ctx) = Host::new(HostOptions::default()).expect("a fresh host builds");
            Self {
                ctx,
                host: Some(host),
                streams: true,
            }
        };
        fixture.with(HELPERS)
    }

    /// `ctx` (a plain Boa context, which must have the streams globals) with [`HELPERS`].
    #[cfg(feature = "engine-boa")]
    pub fn from_context(ctx: Context) -> Self {
        Self {
            ctx,
            host: None,
            streams: true,
        }
        .with(HELPERS)
    }

    /// A fresh host with the default options, and [`HELPERS`].
    pub fn host() -> Self {
        Self::host_with(HostOptions::default())
    }

    /// A fresh host with `options`, and [`HELPERS`].
    pub fn host_with(options: HostOptions) -> Self {
        let (host, ctx) = Host::new(options).expect("a fresh host builds");
        Self {
            ctx,
            host: Some(host),
            streams: false,
        }
        .with(HELPERS)
    }

    /// The fixture with `prelude` (helpers one file shares) evaluated.
    pub fn with(mut self, prelude: &str) -> Self {
        self.eval(prelude);
        self
    }

    /// Runs `actions` in order; the first that fails panics with what went wrong.
    pub fn run<'a>(&mut self, actions: impl IntoIterator<Item = TestAction<'a>>) {
        for (i, action) in actions.into_iter().enumerate() {
            self.step(i, action.0);
        }
    }

    /// The context.
    pub fn context(&mut self) -> &mut Context {
        &mut self.ctx
    }

    /// The host (panics for a plain streams fixture; on QuickJS every fixture has one).
    pub fn host_ref(&self) -> &Host {
        self.host.as_ref().expect("a host fixture")
    }

    /// The host and the context (panics for a plain streams fixture).
    pub fn parts(&mut self) -> (&Host, &mut Context) {
        (self.host.as_ref().expect("a host fixture"), &mut self.ctx)
    }

    /// The host and the context, taken apart (the host is `None` for a plain streams fixture),
    /// for a test that drops them at different times (on QuickJS, drop the context first).
    pub fn into_parts(self) -> (Option<Host>, Context) {
        (self.host, self.ctx)
    }

    /// Evaluates `src` and drains the microtasks (a host fixture: the host's checkpoint; a
    /// streams fixture: all the jobs); a thrown error comes back as its message
    /// (`TypeError: ...`).
    pub fn try_eval(&mut self, src: &str) -> Result<Value, String> {
        let ctx = &mut self.ctx;
        match &self.host {
            Some(host) if !self.streams => {
                let result = host.evaluate(ctx, Some(Path::new("test.js")), src);
                host.perform_microtask_checkpoint(ctx);
                result.map_err(|e| test_api::error_text(e, ctx))
            }
            _ => super::try_eval(ctx, src),
        }
    }

    /// [`Fixture::try_eval`] of a script that must not throw.
    pub fn eval(&mut self, src: &str) -> Value {
        self.try_eval(src)
            .unwrap_or_else(|e| panic!("script threw: {e}\n--- script ---\n{src}"))
    }

    /// [`Fixture::eval`], and the value's string form.
    pub fn eval_string(&mut self, src: &str) -> String {
        let value = self.eval(src);
        super::text(&value, &mut self.ctx)
    }

    /// Runs the host's event loop until nothing is left to run (at most 10 s); for a plain
    /// streams fixture, drains the job queue.
    pub fn run_to_idle(&mut self) {
        match &self.host {
            Some(host) if !self.streams => {
                let outcome = host.run_until(
                    &mut self.ctx,
                    Some(Instant::now() + Duration::from_secs(10)),
                    &mut |_| false,
                );
                assert_eq!(outcome, RunOutcome::Idle);
            }
            _ => {
                super::eval(&mut self.ctx, "");
            }
        }
    }

    /// What went wrong so far, drained: the host's reports (uncaught errors, unhandled
    /// rejections) and the failed checks of [`HELPERS`].
    pub fn take_failures(&mut self) -> Vec<String> {
        let reports: Vec<String> = match &self.host {
            Some(host) => host
                .take_reports()
                .iter()
                .map(ToString::to_string)
                .collect(),
            None => Vec::new(),
        };
        // A streams fixture reports nothing (on QuickJS its host's reports are dropped).
        let mut out = if self.streams { Vec::new() } else { reports };
        // The items joined by U+0001 (which no failure message holds).
        let count = self.eval_string("String(failed.length)");
        let failed = self.eval_string("failed.splice(0).map(String).join('\\u0001')");
        if count != "0" {
            out.extend(failed.split('\u{1}').map(str::to_owned));
        }
        out
    }

    fn step(&mut self, index: usize, step: Step<'_>) {
        match step {
            Step::Run(src) => {
                self.eval(&src);
            }
            Step::RunToIdle => self.run_to_idle(),
            Step::Check(src) => {
                self.eval(&src);
                let failures = self.take_failures();
                assert!(
                    failures.is_empty(),
                    "action {index}: failures:\n{}",
                    failures.join("\n")
                );
            }
            Step::AssertNoFailures => {
                let failures = self.take_failures();
                assert!(
                    failures.is_empty(),
                    "action {index}: failures:\n{}",
                    failures.join("\n")
                );
            }
            Step::AssertEq { expr, expected } => {
                let value = self.eval(&expr);
                assert!(
                    super::same_value(&value, &expected),
                    "action {index}: `{expr}` is {value:?} (expected {expected:?})"
                );
            }
            Step::AssertString { expr, expected } => {
                let value = self.eval_string(&expr);
                assert_eq!(
                    value, expected,
                    "action {index}: the string form of `{expr}`"
                );
            }
            Step::Assert(expr) => {
                let value = self.eval(&expr);
                assert_eq!(
                    value.as_boolean(),
                    Some(true),
                    "action {index}: `{expr}` is {value:?}"
                );
            }
            Step::AssertThrows { src, expected } => match self.try_eval(&src) {
                Ok(value) => {
                    panic!("action {index}: `{src}` did not throw (it returned {value:?})")
                }
                Err(message) => assert_eq!(message, expected, "action {index}: what `{src}` threw"),
            },
            Step::AssertAsync { body, expected } => {
                self.eval(&super::async_script(&body));
                if !self.streams {
                    self.run_to_idle();
                }
                let got = super::async_result(&mut self.ctx);
                assert_eq!(got, expected, "action {index}: the async body\n{body}");
            }
            Step::AssertCollected(what) => {
                let alive = super::survivors(&mut self.ctx);
                assert_eq!(alive.as_number(), Some(0.0), "action {index}: {what}");
            }
            Step::Inspect(f) => f(self),
        }
    }
}

/// One step of a test: build a list of these and hand it to [`run_test_actions`],
/// [`run_host_actions`] or [`Fixture::run`].
pub struct TestAction<'a>(Step<'a>);

enum Step<'a> {
    Run(String),
    RunToIdle,
    Check(String),
    AssertNoFailures,
    AssertEq { expr: String, expected: Value },
    AssertString { expr: String, expected: String },
    Assert(String),
    AssertThrows { src: String, expected: String },
    AssertAsync { body: String, expected: String },
    AssertCollected(String),
    Inspect(Box<dyn FnOnce(&mut Fixture) + 'a>),
}

impl<'a> TestAction<'a> {
    /// Evaluates `src`, which must not throw, and drains the microtasks.
    pub fn run(src: impl Into<String>) -> Self {
        Self(Step::Run(src.into()))
    }

    /// Runs the host's event loop to idle (a plain streams fixture drains its job queue).
    pub fn run_to_idle() -> Self {
        Self(Step::RunToIdle)
    }

    /// Evaluates `src` (which must not throw), then asserts no failures:
    /// [`TestAction::assert_no_failures`].
    pub fn check(src: impl Into<String>) -> Self {
        Self(Step::Check(src.into()))
    }

    /// Asserts that no `check`/`eq`/`ok`/`throws` of [`HELPERS`] failed and that the host
    /// reported nothing since the last such assertion.
    pub fn assert_no_failures() -> Self {
        Self(Step::AssertNoFailures)
    }

    /// Asserts that `expr` evaluates to `expected` (`Value` equality; numbers by value).
    pub fn assert_eq(expr: impl Into<String>, expected: impl Into<Value>) -> Self {
        Self(Step::AssertEq {
            expr: expr.into(),
            expected: expected.into(),
        })
    }

    /// Asserts that the string form of what `expr` evaluates to is `expected`.
    pub fn assert_string(expr: impl Into<String>, expected: impl Into<String>) -> Self {
        Self(Step::AssertString {
            expr: expr.into(),
            expected: expected.into(),
        })
    }

    /// Asserts that `String(log)` (the log's items joined by commas) is `expected`.
    pub fn assert_log(expected: impl Into<String>) -> Self {
        Self::assert_string("String(log)", expected)
    }

    /// Asserts that `expr` evaluates to `true`.
    pub fn assert(expr: impl Into<String>) -> Self {
        Self(Step::Assert(expr.into()))
    }

    /// Asserts that `src` throws, and that the thrown error's message is `expected`
    /// (`TypeError: ...`, as `boa_streams::host::error_message` gives it).
    pub fn assert_throws(src: impl Into<String>, expected: impl Into<String>) -> Self {
        Self(Step::AssertThrows {
            src: src.into(),
            expected: expected.into(),
        })
    }

    /// Runs `body` as the body of an async function and asserts what it resolves to, as a
    /// string, or `rejected: <name>: <message>` (see [`super::run_async`]).
    pub fn assert_async(body: impl Into<String>, expected: impl Into<String>) -> Self {
        Self(Step::AssertAsync {
            body: body.into(),
            expected: expected.into(),
        })
    }

    /// Collects garbage and asserts that none of the `WeakRef`s in the global array `refs`
    /// still reaches its object (see [`super::survivors`]); `what` is the failure's message.
    pub fn assert_collected(what: impl Into<String>) -> Self {
        Self(Step::AssertCollected(what.into()))
    }

    /// Runs `f` with the context (the Rust side of a test).
    pub fn inspect_context(f: impl FnOnce(&mut Context) + 'a) -> Self {
        Self(Step::Inspect(Box::new(move |fixture| f(fixture.context()))))
    }

    /// Runs `f` with the host and its context (a host fixture only).
    pub fn inspect_host(f: impl FnOnce(&Host, &mut Context) + 'a) -> Self {
        Self(Step::Inspect(Box::new(move |fixture| {
            let (host, ctx) = fixture.parts();
            f(host, ctx);
        })))
    }

    /// Runs `f` with the whole fixture.
    pub fn inspect(f: impl FnOnce(&mut Fixture) + 'a) -> Self {
        Self(Step::Inspect(Box::new(f)))
    }
}

/// Runs `actions` in a fresh streams fixture ([`Fixture::streams`]).
pub fn run_test_actions<'a>(actions: impl IntoIterator<Item = TestAction<'a>>) {
    Fixture::streams().run(actions);
}

/// Runs `actions` in a fresh host fixture ([`Fixture::host`]).
pub fn run_host_actions<'a>(actions: impl IntoIterator<Item = TestAction<'a>>) {
    Fixture::host().run(actions);
}
