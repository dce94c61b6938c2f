//! The DOM tests' fixture (with the WebIDL shape checks,
//! [`WEBIDL_SHAPES`](super::script::WEBIDL_SHAPES)), and the capture of reported listener
//! exceptions.

use boa_engine::Context;

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
    let error = boa_engine::JsError::from(error);
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
