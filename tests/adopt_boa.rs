//! boa_streams in an application's own Boa `Context` (Boa build): `boa_streams::register` on
//! a context the application built, whose job executor (here Boa's default
//! `SimpleJobExecutor`) runs our microtasks (`PromiseJob`), tasks (`GenericJob`) and timers.
//! `examples/boa_app.rs` does the same with an executor of the application's own.
#![cfg(feature = "engine-boa")]

use boa_engine::{Context, Source};

fn eval_string(ctx: &mut Context, source: &str) -> String {
    let value = ctx
        .eval(Source::from_bytes(source))
        .expect("the script runs");
    value
        .to_string(ctx)
        .expect("a string")
        .to_std_string_escaped()
}

#[test]
fn boas_default_executor_runs_our_tasks_microtasks_and_port_messages() {
    let mut ctx = Context::default();
    boa_streams::register(&mut ctx).expect("registered");
    eval_string(
        &mut ctx,
        r#"
        globalThis.out = [];
        // Tasks: a blob read, a data: fetch body, a port message (with a transferred stream).
        new Blob(["a", "b"]).text().then(t => out.push(t));
        fetch("data:,hi").then(r => r.text()).then(t => out.push(t));
        const { port1, port2 } = new MessageChannel();
        port2.onmessage = async ({ data }) => {
            const { value } = await data.getReader().read();
            out.push(value);
        };
        const rs = new ReadableStream({ start(c) { c.enqueue("msg"); } });
        port1.postMessage(rs, [rs]);
        // Microtasks: a pipe through a decoder.
        new ReadableStream({ start(c) { c.enqueue(new Uint8Array([0xE2, 0x82])); c.enqueue(new Uint8Array([0xAC])); c.close(); } })
            .pipeThrough(new TextDecoderStream())
            .pipeTo(new WritableStream({ write(chunk) { out.push(chunk); } }));
        "done"
        "#,
    );
    // Nothing has run yet: everything waits in the executor.
    assert_eq!(eval_string(&mut ctx, "out.length"), "0");
    ctx.run_jobs().expect("no job throws");
    assert_eq!(eval_string(&mut ctx, "out.sort().join()"), "ab,hi,msg,€");
}
