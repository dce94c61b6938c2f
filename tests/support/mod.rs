//! Helpers shared by the integration tests, declared with `mod support;` (or, in a directory
//! test, `#[path = "../support/mod.rs"] mod support;`).
//!
//! Everything here is written on the library's public API (`boa_streams::host`, with its
//! `test_api`, and `boa_streams::{Value, Object, JsString, ...}`), so the same tests run on both
//! engines: `cargo test` (Boa) and `cargo test --no-default-features --features engine-quickjs
//! --tests` (QuickJS, where every host's drop is also a leak check).
//!
//! - [`script`]: the one test idiom, a list of `TestAction`s run in order against a `Fixture`
//!   (a streams context, or a `Host` and its `Context`) that has the shared script helpers
//!   (`log`, and `check`/`eq`/`ok`/`throws` recording into `failed`), and the other script
//!   helpers tests share (`BYTE_HELPERS`, `WEBIDL_SHAPES`);
//! - here: a plain Boa `Context` with the streams globals (Boa only), script evaluation with
//!   and without running the jobs (a thrown error becomes the panic's message), globals read
//!   back and set, an async body run to its result, and the count of collected `WeakRef`s, for
//!   the Rust side of a test (inside an `inspect_context` step, or a harness);
//! - [`scaling`]: the scaling harness (time a workload at n and k·n, assert the ratio);
//! - [`dom`]: the DOM tests' fixture and the error-report capture;
//! - [`rust_files`]: the `.rs` files under a folder.

// Each test binary compiles this whole module and uses only part of it, so the rest would
// warn as dead code there.
#![allow(dead_code)]

pub mod dom;
pub mod scaling;
pub mod script;

use std::fs;
use std::path::{Path, PathBuf};

use boa_streams::host::{test_api, Context};
use boa_streams::Value;

/// A fresh Boa `Context` with the streams globals registered (a plain context, without a host:
/// on QuickJS a context lives in a host's runtime, so the streams fixture is a host there).
#[cfg(feature = "engine-boa")]
pub fn context() -> Context {
    let mut ctx = Context::default();
    boa_streams::register(&mut ctx).expect("register the streams globals");
    ctx
}

/// Evaluates `src` and runs the jobs until none is left; a thrown error comes back as its
/// message (`TypeError: ...`).
pub fn try_eval(ctx: &mut Context, src: &str) -> Result<Value, String> {
    test_api::run_script(ctx, src)
}

/// Evaluates `src`, which must not throw, without running any job.
pub fn evaluate(ctx: &mut Context, src: &str) -> Value {
    test_api::evaluate(ctx, src).unwrap_or_else(|e| {
        let message = test_api::error_text(e, ctx);
        panic!("script threw: {message}")
    })
}

/// Evaluates `src`, which must not throw, and runs the jobs until none is left.
pub fn eval(ctx: &mut Context, src: &str) -> Value {
    try_eval(ctx, src).unwrap_or_else(|e| panic!("script threw: {e}"))
}

/// [`eval`], and the value's string form.
pub fn eval_string(ctx: &mut Context, src: &str) -> String {
    let value = eval(ctx, src);
    text(&value, ctx)
}

/// The string form of `value` (`ToString`, which must not throw).
pub fn text(value: &(impl Clone + Into<Value>), ctx: &mut Context) -> String {
    value
        .clone()
        .into()
        .to_string(ctx)
        .expect("a string")
        .to_std_string_escaped()
}

/// Whether two values are the same (numbers by value, whatever their representation).
pub fn same_value(a: &Value, b: &Value) -> bool {
    match (a.as_number(), b.as_number()) {
        (Some(x), Some(y)) => x == y || (x.is_nan() && y.is_nan()),
        _ => a == b,
    }
}

/// The global `name`.
pub fn global(ctx: &mut Context, name: &str) -> Value {
    test_api::global_object(ctx)
        .get(name, ctx)
        .expect("read a global")
}

/// The string form of the global `name`.
pub fn global_string(ctx: &mut Context, name: &str) -> String {
    let value = global(ctx, name);
    text(&value, ctx)
}

/// Sets the global `name` to `value` (an ordinary assignment, `globalThis[name] = value`).
pub fn set_global(ctx: &mut Context, name: &str, value: impl Into<Value>) {
    let setter = test_api::evaluate(ctx, "(name, value) => { globalThis[name] = value; }")
        .expect("the setter");
    let setter = setter.as_object().expect("a function");
    setter
        .call(
            &Value::undefined(),
            &[Value::from(boa_streams::JsString::from(name)), value.into()],
            ctx,
        )
        .expect("a global property");
}

/// Runs `body` as the body of an async function and returns what it resolves to, as a string
/// (or `"rejected: <name>: <message>"`).
pub fn run_async(ctx: &mut Context, body: &str) -> String {
    eval(ctx, &async_script(body));
    async_result(ctx)
}

/// The script behind [`run_async`]: `body` as the body of an async function whose outcome is
/// stored in the global `result` as a string.
pub fn async_script(body: &str) -> String {
    format!(
        "globalThis.result = undefined;
         (async () => {{ {body} }})().then(
           v => {{ globalThis.result = String(v); }},
           e => {{ globalThis.result = 'rejected: ' + (e && e.name) + ': ' + (e && e.message); }});"
    )
}

/// The outcome [`async_script`] stored (panics if the body did not settle).
pub fn async_result(ctx: &mut Context) -> String {
    let value = global(ctx, "result");
    value
        .as_string()
        .map(|s| s.to_std_string_escaped())
        .unwrap_or_else(|| panic!("the async body did not settle: {value:?}"))
}

/// Collects garbage (after clearing the objects `WeakRef`s keep alive for the current job) and
/// returns how many of the `WeakRef`s in the global array `refs` still reach their object.
pub fn survivors(ctx: &mut Context) -> Value {
    test_api::collect_garbage(ctx);
    eval(ctx, "refs.filter(r => r.deref() !== undefined).length")
}

/// The crate root (where `Cargo.toml`, `src/` and `spec/` are).
pub fn crate_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Appends every `.rs` file under `dir` (recursively, in name order) to `out`.
pub fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}
