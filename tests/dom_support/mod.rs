//! Shared helpers for the DOM integration tests.
#![allow(dead_code)]

use boa_engine::{Context, Source};

pub const PRELUDE: &str = r#"
var __fails = [];
function eq(a, b, m) { if (!Object.is(a, b)) __fails.push(m + ': ' + String(a) + ' !== ' + String(b)); }
function ok(c, m) { if (!c) __fails.push(m); }
function throws(C, f, m) {
  try { f(); __fails.push(m + ': did not throw'); }
  catch (e) { if (!(e instanceof C)) __fails.push(m + ': wrong error ' + e); }
}
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

pub fn context() -> Context {
    let mut ctx = Context::default();
    boa_streams::register(&mut ctx).expect("register");
    ctx.eval(Source::from_bytes(PRELUDE)).expect("prelude");
    ctx
}

pub fn check(ctx: &mut Context, src: &str) {
    if let Err(e) = ctx.eval(Source::from_bytes(src)) {
        panic!("script threw: {e}");
    }
    ctx.run_jobs().expect("jobs");
    let fails = ctx
        .eval(Source::from_bytes("__fails.splice(0).join('\\n')"))
        .expect("fails")
        .to_string(ctx)
        .expect("string")
        .to_std_string_escaped();
    assert!(fails.is_empty(), "failures:\n{fails}");
}

/// Evaluates `src` (after draining jobs) and returns its value as a string.
pub fn eval_string(ctx: &mut Context, src: &str) -> String {
    let value = match ctx.eval(Source::from_bytes(src)) {
        Ok(v) => v,
        Err(e) => panic!("script threw: {e}"),
    };
    ctx.run_jobs().expect("jobs");
    value
        .to_string(ctx)
        .expect("string")
        .to_std_string_escaped()
}

thread_local! {
    static REPORTS: std::cell::RefCell<Vec<String>> = const { std::cell::RefCell::new(Vec::new()) };
}

fn record_report(ctx: &mut Context, error: boa_engine::JsError) {
    let text = match error.into_opaque(ctx) {
        Ok(value) => value
            .to_string(ctx)
            .map(|s| s.to_std_string_escaped())
            .unwrap_or_else(|_| "<unprintable>".into()),
        Err(e) => format!("engine error: {e}"),
    };
    REPORTS.with(|r| r.borrow_mut().push(text));
}

/// Routes reported listener exceptions to a list that script reads with `takeReports()`
/// (an array of the reported values, as strings).
pub fn capture_reports(ctx: &mut Context) {
    boa_streams::dom::set_error_reporter(ctx, record_report);
    ctx.register_global_builtin_callable(
        boa_engine::js_string!("takeReports"),
        0,
        boa_engine::NativeFunction::from_fn_ptr(|_, _, ctx| {
            let reports = REPORTS.with(|r| std::mem::take(&mut *r.borrow_mut()));
            let values = reports
                .into_iter()
                .map(|s| boa_engine::JsValue::from(boa_engine::JsString::from(s)));
            Ok(boa_engine::object::builtins::JsArray::from_iter(values, ctx).into())
        }),
    )
    .expect("takeReports");
}
