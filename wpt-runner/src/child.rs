//! The child mode (`wpt-runner --child FILE`): runs one test file in a fresh host and context
//! and writes the results to stdout in a line protocol the parent reads.
//!
//! Protocol: every line the parent reads starts with [`PREFIX`]; other stdout lines (a stray
//! `console.log`) are ignored. Fields are tab-separated and escaped with
//! [`crate::escape::proto_escape`]; optional messages use [`crate::escape::proto_opt`].
//! - `LOADERROR <script> <message>`: a script threw (or could not be read) while loading;
//! - `RESULT <status> <name> <message?>`: a subtest finished (written at once, so the parent
//!   keeps what finished before a crash);
//! - `COMPLETE <harness status> <message?> <how>`: testharness completed (`how` is `done`,
//!   `forced` after `timeout()`, or `stuck` when it did not complete even then);
//! - `SUBTEST <status> <name> <message?>`: after `COMPLETE`, the full, final list;
//! - `END`: the child is about to exit normally.
//!
//! Load order, all in one task and without a microtask checkpoint in between: testharness.js,
//! the reporter, the `script=` files, the test file. Each is its own classic script
//! (`Script::parse` + `evaluate`, which run no jobs), so one that throws does not stop the next,
//! and testharness (which, in a shell, takes the page as loaded at the first promise job) sees
//! every test defined before the event loop starts. `Host::eval_script` is not used for this
//! because it checkpoints microtasks after each script.
//!
//! A script that throws while loading is reported as `LOADERROR`, and `done()` is called as
//! testharness's own error handler would in a browser (a shell global has no `error` event).
//!
//! A `.window.js` file runs with a window-like global (the host's `window` option: `window ===
//! self`, `postMessage(message, targetOrigin, transfer)` posting a `MessageEvent` to the window
//! itself as a task) and, after testharness.js (so testharness still picks its shell
//! environment), a `document` stand-in: `document.createElement('iframe')` makes an iframe
//! whose `contentWindow`, once `document.body.appendChild` inserted it, is the global of a new
//! realm of the same agent (with all the same globals), and whose `remove()` takes it out of
//! the document again (the realm's objects keep working).

use std::{
    cell::RefCell,
    io::Write,
    path::{Path, PathBuf},
    time::{Duration, Instant},
};

use boa_streams::host::{Context, Host, HostOptions, HostReport};
use boa_streams::{JsError, JsResult, Value};

use crate::escape::{proto_escape, proto_opt};
use crate::meta::{parse_meta, resolve_script};

/// Marks the protocol lines on the child's stdout.
pub const PREFIX: &str = "##wpt## ";

/// Seconds a file may run before `timeout()` is forced (times the multiplier).
pub const NORMAL_TIMEOUT: f64 = 10.0;
/// The same for `// META: timeout=long`.
pub const LONG_TIMEOUT: f64 = 60.0;
/// Seconds the child keeps running the loop after forcing `timeout()`.
pub const AFTER_TIMEOUT_GRACE: f64 = 2.0;

/// Evaluated right after testharness.js, as its own script.
const REPORTER: &str = r"
add_result_callback(function (test) {
  __wpt_result(test.name, test.status, test.message);
});
add_completion_callback(function (tests, harness_status) {
  __wpt_report(tests, harness_status);
});
";

/// Evaluated after the reporter in `.window.js` files: the `document` stand-in.
const WINDOW_PRELUDE: &str = r"
(() => {
  const newWindow = __wpt_new_window;
  delete globalThis.__wpt_new_window;
  const windows = new WeakMap();
  class HTMLIFrameElement {
    constructor() { this.src = ''; this.style = {}; this.onload = null; }
    get contentWindow() { return windows.get(this) ?? null; }
    remove() { windows.delete(this); }
  }
  const body = {
    appendChild(node) {
      if (node instanceof HTMLIFrameElement && !windows.has(node)) {
        windows.set(node, newWindow());
        // The about:blank document loads in a later task.
        setTimeout(() => { if (typeof node.onload === 'function') node.onload(); }, 0);
      }
      return node;
    },
  };
  globalThis.document = {
    body,
    createElement(name) {
      if (String(name).toLowerCase() === 'iframe') return new HTMLIFrameElement();
      throw new DOMException(`the document stand-in makes only iframes, not <${name}>`, 'NotSupportedError');
    },
  };
})();
";

thread_local! {
    /// The child's host (one per process), for the native callbacks.
    static HOST: RefCell<Option<std::rc::Rc<Host>>> = const { RefCell::new(None) };
    /// What the completion callback delivered.
    static STATE: RefCell<ChildState> = RefCell::new(ChildState::default());
}

/// `__wpt_new_window()`: the global of a new realm in this agent.
fn wpt_new_window(_: &Value, _: &[Value], ctx: &mut Context) -> JsResult<Value> {
    let host = HOST.with(|h| h.borrow().clone());
    match host {
        Some(host) => host.new_realm_global(ctx),
        None => Ok(Value::undefined()),
    }
}

/// One subtest as reported by testharness.
#[derive(Debug, Clone)]
struct Reported {
    name: String,
    status: i32,
    message: Option<String>,
}

/// What the completion callback delivered.
#[derive(Debug, Default)]
struct Completion {
    status: i32,
    message: Option<String>,
    tests: Vec<Reported>,
}

/// Filled by the native callbacks.
#[derive(Debug, Default)]
struct ChildState {
    completion: Option<Completion>,
}

fn emit(line: &str) {
    let mut out = std::io::stdout().lock();
    // A closed stdout means the parent is gone; nothing useful to do about it.
    let _ = writeln!(out, "{PREFIX}{line}");
    let _ = out.flush();
}

/// A JS value as an optional Rust string: `null`/`undefined` are none.
fn opt_string(v: &Value, ctx: &mut Context) -> Option<String> {
    if v.is_null_or_undefined() {
        return None;
    }
    if let Some(s) = v.as_string() {
        return Some(s.to_std_string_lossy());
    }
    Some(
        v.to_string(ctx)
            .map(|s| s.to_std_string_lossy())
            .unwrap_or_else(|_| v.to_string_for_display()),
    )
}

fn get(obj: &Value, key: &str, ctx: &mut Context) -> Value {
    obj.as_object()
        .and_then(|o| o.get(key, ctx).ok())
        .unwrap_or_default()
}

fn to_i32(v: &Value) -> i32 {
    v.as_number().map_or(-1, |n| n as i32)
}

/// `__wpt_result(name, status, message)`: writes a `RESULT` line at once.
fn wpt_result(_: &Value, args: &[Value], ctx: &mut Context) -> JsResult<Value> {
    let arg = |i: usize| args.get(i).cloned().unwrap_or_default();
    let name = opt_string(&arg(0), ctx).unwrap_or_default();
    let status = to_i32(&arg(1));
    let message = opt_string(&arg(2), ctx);
    emit(&format!(
        "RESULT\t{status}\t{}\t{}",
        proto_escape(&name),
        proto_opt(message.as_deref())
    ));
    Ok(Value::undefined())
}

/// `__wpt_report(tests, harness_status)`: stores the completion in the context data.
fn wpt_report(_: &Value, args: &[Value], ctx: &mut Context) -> JsResult<Value> {
    let tests = args.first().cloned().unwrap_or_default();
    let status = args.get(1).cloned().unwrap_or_default();
    let mut completion = Completion {
        status: to_i32(&get(&status, "status", ctx)),
        message: opt_string(&get(&status, "message", ctx), ctx),
        tests: Vec::new(),
    };
    let len = to_i32(&get(&tests, "length", ctx)).max(0);
    for i in 0..len {
        let test = get(&tests, &i.to_string(), ctx);
        let name = get(&test, "name", ctx);
        let status = get(&test, "status", ctx);
        let message = get(&test, "message", ctx);
        completion.tests.push(Reported {
            name: opt_string(&name, ctx).unwrap_or_default(),
            status: to_i32(&status),
            message: opt_string(&message, ctx),
        });
    }
    STATE.with(|s| s.borrow_mut().completion = Some(completion));
    Ok(Value::undefined())
}

fn completed(_: &mut Context) -> bool {
    STATE.with(|s| s.borrow().completion.is_some())
}

/// A readable one-line description of a thrown value: `Name: message` for error objects.
fn error_message(host: &Host, err: JsError, ctx: &mut Context) -> String {
    let fallback = err.to_string();
    match host.thrown_value(err, ctx).ok_or(()) {
        Ok(value) if value.is_object() => {
            let name = opt_string(&get(&value, "name", ctx), ctx);
            let message = opt_string(&get(&value, "message", ctx), ctx);
            match (name, message) {
                (Some(n), Some(m)) if !m.is_empty() => format!("{n}: {m}"),
                (Some(n), _) => n,
                (None, Some(m)) => m,
                (None, None) => fallback,
            }
        }
        Ok(value) => opt_string(&value, ctx).unwrap_or(fallback),
        Err(_) => fallback,
    }
}

fn evaluate(
    host: &Host,
    ctx: &mut Context,
    path: Option<&Path>,
    source: &str,
) -> Result<(), String> {
    let result = host.evaluate(ctx, path, source);
    result.map(|_| ()).map_err(|e| error_message(host, e, ctx))
}

fn print_reports(host: &Host) {
    for report in host.take_reports() {
        match report {
            HostReport::UncaughtError(m) => eprintln!("uncaught error: {m}"),
            HostReport::UnhandledRejection(m) => eprintln!("unhandled rejection: {m}"),
            HostReport::LimitExceeded(m) => eprintln!("limit exceeded: {m}"),
        }
    }
}

/// Runs one test file; returns the process exit code.
pub fn run(root: &Path, file: &Path, multiplier: f64) -> i32 {
    let source = match std::fs::read_to_string(file) {
        Ok(s) => s,
        Err(e) => {
            emit(&format!(
                "LOADERROR\t{}\t{}",
                proto_escape(&file.display().to_string()),
                proto_escape(&e.to_string())
            ));
            emit(&format!(
                "COMPLETE\t1\t{}\tdone",
                proto_opt(Some("cannot read the test file"))
            ));
            emit("END");
            return 0;
        }
    };
    let meta = parse_meta(&source);
    let window = crate::meta::is_window_test(&file.to_string_lossy());
    // The document's URL, as the WPT server would serve the file (no query, no fragment): the
    // host makes it `self.location` (subset-tests.js reads `location.search`, empty: a file's
    // `// META: variant=` subsets run as one file; testharness names an untitled test after
    // `location.pathname`) and the base URL of `fetch("resources/x.json")`.
    let location = file.strip_prefix(root).ok().map(|relative| {
        let path: Vec<String> = relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        format!("http://web-platform.test:8000/{}", path.join("/"))
    });
    let options = HostOptions {
        fetch_root: Some(root.to_path_buf()),
        console_to_stderr: true,
        window,
        location,
        ..HostOptions::default()
    };
    let (host, mut ctx) = match Host::new(options) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("cannot create the host: {e}");
            return 3;
        }
    };
    let host = std::rc::Rc::new(host);
    HOST.with(|h| *h.borrow_mut() = Some(std::rc::Rc::clone(&host)));
    let code = run_in(
        root, file, multiplier, &source, window, &meta, &host, &mut ctx,
    );
    HOST.with(|h| h.borrow_mut().take());
    STATE.with(|s| s.borrow_mut().completion.take());
    drop(ctx);
    code
}

/// The part of [`run`] that runs with the host (which must outlive every value).
#[allow(clippy::too_many_arguments)]
fn run_in(
    root: &Path,
    file: &Path,
    multiplier: f64,
    source: &str,
    window: bool,
    meta: &crate::meta::Meta,
    host: &Host,
    ctx: &mut Context,
) -> i32 {
    for (name, f) in [
        (
            "__wpt_result",
            wpt_result as boa_streams::NativeFunctionPointer,
        ),
        ("__wpt_report", wpt_report),
        ("__wpt_new_window", wpt_new_window),
    ] {
        if let Err(e) = host.define_global_function(ctx, name, 2, f) {
            eprintln!("cannot register {name}: {e}");
            return 3;
        }
    }

    // testharness.js and the reporter first: without them nothing can be reported.
    let harness = root.join("resources/testharness.js");
    let mut essential_error = None;
    match std::fs::read_to_string(&harness) {
        Ok(src) => {
            if let Err(m) = evaluate(host, ctx, Some(&harness), &src) {
                essential_error = Some(format!("testharness.js threw: {m}"));
            }
        }
        Err(e) => essential_error = Some(format!("cannot read {}: {e}", harness.display())),
    }
    if essential_error.is_none() {
        if let Err(m) = evaluate(host, ctx, None, REPORTER) {
            essential_error = Some(format!("the reporter script threw: {m}"));
        }
    }
    if essential_error.is_none() {
        // wptserve's `.any.js` wrappers define `self.GLOBAL`, which tests read to tell the
        // kind of global they run in: a window for `.window.js` files, otherwise a global
        // that is not a window (no `document`), as a dedicated worker's is.
        let global = format!(
            "self.GLOBAL = {{ isWindow: () => {window}, isWorker: () => {}, \
             isShadowRealm: () => false }};",
            !window
        );
        if let Err(m) = evaluate(host, ctx, None, &global) {
            essential_error = Some(format!("the GLOBAL stand-in threw: {m}"));
        }
        let prelude = if window {
            WINDOW_PRELUDE
        } else {
            "delete globalThis.__wpt_new_window;"
        };
        if let Err(m) = evaluate(host, ctx, None, prelude) {
            essential_error = Some(format!("the window stand-in threw: {m}"));
        }
    }
    if let Some(message) = essential_error {
        emit(&format!("LOADERROR\t<harness>\t{}", proto_escape(&message)));
        emit(&format!("COMPLETE\t1\t{}\tdone", proto_opt(Some(&message))));
        emit("END");
        return 0;
    }

    // The META scripts, then the test file.
    let mut scripts: Vec<(String, PathBuf)> = meta
        .scripts
        .iter()
        .map(|s| (s.clone(), resolve_script(root, file, s)))
        .collect();
    scripts.push((
        file.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        file.to_path_buf(),
    ));
    for (label, path) in &scripts {
        let result = if path == file {
            evaluate(host, ctx, Some(path), source)
        } else {
            match std::fs::read_to_string(path) {
                Ok(src) => evaluate(host, ctx, Some(path), &src),
                Err(e) => Err(format!("cannot read {}: {e}", path.display())),
            }
        };
        if let Err(message) = result {
            emit(&format!(
                "LOADERROR\t{}\t{}",
                proto_escape(label),
                proto_escape(&message)
            ));
            // In a browser, testharness's `error` event handler records the harness error and
            // calls `done()`; a shell global has no such event, so do the `done()` part here
            // (the parent turns the LOADERROR into the harness status and message).
            if let Err(m) = evaluate(host, ctx, None, "done();") {
                eprintln!("done() threw: {m}");
            }
        }
    }

    // The event loop, with the time limit.
    let base = if meta.long_timeout {
        LONG_TIMEOUT
    } else {
        NORMAL_TIMEOUT
    };
    let limit = Duration::from_secs_f64(base * multiplier);
    let deadline = Instant::now() + limit;
    host.run_until(ctx, Some(deadline), &mut completed);
    print_reports(host);
    let mut how = "done";
    if !completed(ctx) {
        // Idle (nothing left that could complete it) or out of time: force completion the way
        // testharness's own `timeout()` does (remaining tests TIMEOUT / NOTRUN).
        how = "forced";
        if let Err(m) = evaluate(host, ctx, None, "timeout();") {
            eprintln!("timeout() threw: {m}");
        }
        let grace = Duration::from_secs_f64(AFTER_TIMEOUT_GRACE * multiplier.max(0.05));
        host.run_until(ctx, Some(Instant::now() + grace), &mut completed);
        print_reports(host);
    }

    let completion = STATE.with(|s| s.borrow_mut().completion.take());
    match completion {
        Some(c) => {
            emit(&format!(
                "COMPLETE\t{}\t{}\t{how}",
                c.status,
                proto_opt(c.message.as_deref())
            ));
            for t in &c.tests {
                emit(&format!(
                    "SUBTEST\t{}\t{}\t{}",
                    t.status,
                    proto_escape(&t.name),
                    proto_opt(t.message.as_deref())
                ));
            }
        }
        None => emit(&format!(
            "COMPLETE\t2\t{}\tstuck",
            proto_opt(Some("testharness did not complete, even after timeout()"))
        )),
    }
    emit("END");
    0
}
