//! GC stress ([`HostOptions::gc_stress`], or `BOA_STREAMS_GC_STRESS=N`): the host collects
//! before every task and after every N microtasks, and streams behave the same under it.

use boa_streams::host::{Host, HostOptions, RunOutcome};

fn stressed() -> (Host, boa_streams::host::Context) {
    Host::new(HostOptions {
        gc_stress: Some(1),
        ..HostOptions::default()
    })
    .expect("a host")
}

fn global_text(host: &Host, ctx: &mut boa_streams::host::Context, name: &str) -> String {
    let value = host.eval_script(ctx, "read.js", name).expect("readable");
    value
        .as_string()
        .map(|s| s.to_std_string_lossy())
        .unwrap_or_default()
}

/// The stress collects: an object only a `WeakRef` holds is gone after the next task.
#[test]
fn a_collection_runs_before_every_task() {
    let (host, mut ctx) = stressed();
    host.eval_script(
        &mut ctx,
        "weak.js",
        "globalThis.weak = new WeakRef({}); globalThis.seen = 'pending';
         setTimeout(() => { seen = String(weak.deref()); }, 0);",
    )
    .expect("no error");
    assert_eq!(
        host.run_until(&mut ctx, None, &mut |_| false),
        RunOutcome::Idle
    );
    assert_eq!(global_text(&host, &mut ctx, "seen"), "undefined");
}

/// A pipe through a transform, read to the end, with a collection after every microtask: what
/// only the streams' internal slots hold (the transformer, the pipe's state, the pending
/// reads) survives.
#[test]
fn a_pipe_runs_to_the_end_under_stress() {
    let (host, mut ctx) = stressed();
    host.eval_script(
        &mut ctx,
        "pipe.js",
        "globalThis.out = 'pending';
         const chunks = [];
         new ReadableStream({
           start(c) { this.n = 0; },
           pull(c) { if (this.n < 20) c.enqueue(this.n++); else c.close(); },
         })
           .pipeThrough(new TransformStream({ transform(x, c) { c.enqueue(x * 2); } }))
           .pipeTo(new WritableStream({
             write(x) { return new Promise(r => setTimeout(() => { chunks.push(x); r(); }, 0)); },
           }))
           .then(() => { out = chunks.join(); }, e => { out = 'error ' + e; });",
    )
    .expect("no error");
    assert_eq!(
        host.run_until(&mut ctx, None, &mut |_| false),
        RunOutcome::Idle
    );
    let expected: Vec<String> = (0..20).map(|n| (n * 2).to_string()).collect();
    assert_eq!(global_text(&host, &mut ctx, "out"), expected.join(","));
    assert!(host.take_reports().is_empty());
}
