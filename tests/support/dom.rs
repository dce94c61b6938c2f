//! The DOM tests' WebIDL shape checks ([`SHAPES`], over the shared `eq`/`ok` of
//! [`HELPERS`](super::script::HELPERS)), their fixture, and the capture of reported listener
//! exceptions.

use boa_engine::Context;

use super::script::{Fixture, TestAction};

/// `desc(o, k)`, `flags(d)` (`wec` for writable, enumerable, configurable), and
/// `accessorShape(proto, name, setter)` / `operationShape(obj, name, length)`, which record
/// through `eq` and `ok` what differs from a WebIDL attribute or operation.
pub const SHAPES: &str = r#"
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

/// A streams fixture with [`SHAPES`].
pub fn fixture() -> Fixture {
    Fixture::streams().with(SHAPES)
}

/// Runs `actions` in a fresh [`fixture`].
pub fn run_dom_actions<'a>(actions: impl IntoIterator<Item = TestAction<'a>>) {
    fixture().run(actions);
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
