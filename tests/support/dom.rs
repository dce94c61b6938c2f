//! The DOM tests' assertion prelude (`eq`, `ok`, `throws`, the WebIDL shape checks), run by
//! [`check`], and the capture of reported listener exceptions.

use boa_engine::Context;

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

/// A streams [`context`](super::context) with [`PRELUDE`] evaluated.
pub fn context() -> Context {
    super::context_with(PRELUDE)
}

/// Evaluates `src` (which must not throw), drains the job queue, and asserts that no `eq`,
/// `ok` or `throws` of the prelude failed since the last check.
pub fn check(ctx: &mut Context, src: &str) {
    super::eval(ctx, src);
    let fails = super::eval_string(ctx, "__fails.splice(0).join('\\n')");
    assert!(fails.is_empty(), "failures:\n{fails}");
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
