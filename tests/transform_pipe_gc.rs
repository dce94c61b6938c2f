//! Transform streams and pipes under the garbage collector and under re-entrant callbacks.
//!
//! - A transform stream (stream <-> controller <-> both sides, the backpressure promise, a
//!   write waiting for it) and a stalled pipe (its state object, held by the read request, the
//!   reactions to the closed promises and the signal's abort algorithm) form cycles; once script
//!   drops them they must be collected.
//! - Transformer callbacks may call any method of the same stream without a Rust panic.

mod support;

use support::eval_string;
use support::script::{run_test_actions, TestAction};

#[test]
fn dropped_transform_streams_and_pipes_are_collected() {
    run_test_actions([
        TestAction::run(
            r#"
        globalThis.refs = [];
        // A control: a strongly held transform stream with a pending write must survive.
        globalThis.kept = new TransformStream();
        kept.writable.getWriter().write(0);
        globalThis.keptRef = new WeakRef(kept.readable);
        (function () {
          for (let i = 0; i < 100; i++) {
            // A write waiting for the readable side to be read (backpressure).
            const ts = new TransformStream({ transform(chunk, c) { c.enqueue(chunk); } });
            ts.writable.getWriter().write(i);
            refs.push(new WeakRef(ts), new WeakRef(ts.readable), new WeakRef(ts.writable));
            // A pipe stalled on a source that never produces, with a signal.
            const rs = new ReadableStream();
            const ws = new WritableStream();
            const ac = new AbortController();
            rs.pipeTo(ws, { signal: ac.signal });
            refs.push(new WeakRef(rs), new WeakRef(ws), new WeakRef(ac));
            // A pipe through a transform stream, stalled on its unread readable side.
            const src = new ReadableStream({ start(c) { c.enqueue(1); c.enqueue(2); } });
            const out = src.pipeThrough(new TransformStream());
            refs.push(new WeakRef(src), new WeakRef(out));
          }
        })();
        "#,
        ),
        TestAction::assert_collected("objects survived a collection"),
        // The control: a reachable stream was not collected.
        TestAction::assert("keptRef.deref() === kept.readable"),
    ]);
}

#[test]
fn transformer_callbacks_may_reenter_the_same_stream() {
    run_test_actions([
        TestAction::run(
            r#"
        const check = (name, f) => { try { f(); } catch (e) { log.push(`${name}: ${e && e.name}`); } };
        let ts;
        ts = new TransformStream({
          start(c) { check('start', () => { c.enqueue('s'); ts && ts.readable.cancel(); }); },
          transform(chunk, c) {
            check('transform enqueue', () => c.enqueue(chunk));
            check('transform abort', () => ts.writable.abort('x'));
            check('transform terminate', () => c.terminate());
            check('transform error', () => c.error('e'));
          },
          flush(c) { check('flush', () => c.terminate()); },
          cancel(r) { check('cancel', () => ts.readable.cancel(r)); },
        }, { size() { check('wsize', () => ts.writable.getWriter()); return 1; } },
           { size() { check('rsize', () => ts.readable.getReader()); return 1; } });
        const w = ts.writable.getWriter();
        w.write('a').catch(() => {});
        w.write('b').catch(() => {});
        w.close().catch(() => {});
        ts.readable.getReader().read();
        "#,
        ),
        TestAction::inspect_context(|ctx| {
            let log = eval_string(ctx, "log.join(', ')");
            // Only TypeErrors from locked or closed streams; no Rust panic reached this point.
            assert!(
                log.split(", ")
                    .filter(|e| !e.is_empty())
                    .all(|e| e.ends_with("TypeError")),
                "{log}"
            );
        }),
    ]);
}
