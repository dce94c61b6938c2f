//! Unit tests of the engine-free internal promises (`../internal_promise.rs`) on Boa.

use boa_engine::{js_string, Context, Source};

use crate::engine::internal_promise::InternalPromise;
use crate::engine::{self, Value};

fn log(ctx: &mut Context) -> String {
    ctx.eval(Source::from_bytes("log.join(' ')"))
        .expect("log")
        .to_string(ctx)
        .expect("string")
        .to_std_string_escaped()
}

fn push(ctx: &mut Context, entry: &str) {
    let log = Value::from(
        ctx.global_object()
            .get(js_string!("log"), ctx)
            .expect("log"),
    );
    let push = log
        .as_object()
        .expect("array")
        .get(js_string!("push"), ctx)
        .expect("push");
    engine::call(&push, &log, &[js_string!(entry).into()], ctx).expect("push");
}

/// Reactions run in the same jobs as reactions to a JS promise settled at the same point.
#[test]
fn reactions_keep_the_job_order_of_js_promises() {
    let mut ctx = Context::default();
    ctx.eval(Source::from_bytes(
        "var log = []; var js = Promise.resolve(); js.then(() => log.push('js1'));",
    ))
    .expect("script");
    let internal = InternalPromise::new();
    internal.react(
        (),
        |(), _, ctx| {
            push(ctx, "internal");
            Ok(())
        },
        |(), _, _| Ok(()),
        &mut ctx,
    );
    internal
        .resolve(Value::undefined(), &mut ctx)
        .expect("resolve");
    // Settled twice: ignored.
    internal.reject(Value::undefined(), &mut ctx);
    ctx.eval(Source::from_bytes("js.then(() => log.push('js2'));"))
        .expect("script");
    ctx.run_jobs().expect("jobs");
    assert_eq!(log(&mut ctx), "js1 internal js2");
}

/// Resolving with a thenable calls its `then` in a later job, as a promise would.
#[test]
fn thenables_are_adopted_in_a_later_job() {
    let mut ctx = Context::default();
    let thenable = ctx
        .eval(Source::from_bytes(
            "var log = []; ({ then(resolve) { log.push('then'); resolve('v'); } })",
        ))
        .expect("script");
    let internal = InternalPromise::new();
    internal.react(
        (),
        |(), value, ctx| {
            let value = value.to_string(ctx)?.to_std_string_escaped();
            push(ctx, &format!("fulfilled:{value}"));
            Ok(())
        },
        |(), _, _| Ok(()),
        &mut ctx,
    );
    internal
        .resolve(thenable.into(), &mut ctx)
        .expect("resolve");
    push(&mut ctx, "sync");
    ctx.run_jobs().expect("jobs");
    assert_eq!(log(&mut ctx), "sync then fulfilled:v");
}
