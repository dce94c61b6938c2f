//! The DOM tests' fixture (with the WebIDL shape checks,
//! [`WEBIDL_SHAPES`](super::script::WEBIDL_SHAPES)), and the capture of reported listener
//! exceptions.

use boa_streams::host::{test_api, Context};
use boa_streams::{JsResult, JsString, Value};

use super::script::{Fixture, TestAction, WEBIDL_SHAPES};

/// A streams fixture with [`WEBIDL_SHAPES`].
pub fn fixture() -> Fixture {
    Fixture::streams().with(WEBIDL_SHAPES)
}

/// Runs `actions` in a fresh [`fixture`].
pub fn run_dom_actions<'a>(actions: impl IntoIterator<Item = TestAction<'a>>) {
    fixture().run(actions);
}

thread_local! {
    static REPORTS: std::cell::RefCell<Vec<String>> = const { std::cell::RefCell::new(Vec::new()) };
}

fn record_report(ctx: &mut Context, error: boa_streams::JsError) {
    let text = test_api::error_text(error, ctx);
    REPORTS.with(|r| r.borrow_mut().push(text));
}

/// `takeReports()`: the reports so far, as an array of strings.
fn take_reports(_: &Value, _: &[Value], ctx: &mut Context) -> JsResult<Value> {
    let reports = REPORTS.with(|r| std::mem::take(&mut *r.borrow_mut()));
    let items: Vec<Value> = reports
        .into_iter()
        .map(|s| Value::from(JsString::from(s)))
        .collect();
    let array_of = test_api::evaluate(ctx, "(...items) => items")?;
    let array_of = array_of.as_object().expect("a function");
    array_of.call(&Value::undefined(), &items, ctx)
}

/// Routes reported listener exceptions to a list that script reads with `takeReports()`
/// (an array of the reported values, as strings).
pub fn capture_reports(ctx: &mut Context) {
    boa_streams::dom::set_error_reporter(ctx, record_report);
    test_api::define_global_function(ctx, "takeReports", 0, take_reports).expect("takeReports");
}
