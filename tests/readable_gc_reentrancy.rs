//! Readable streams under the garbage collector and under re-entrant user callbacks.
//!
//! - Streams, controllers, readers, tee branches, async iterators and pending read promises form
//!   cycles; once script drops them they must be collected (every JS value held in a slot is
//!   traced, so the cycles are visible to the collector).
//! - User callbacks (start, pull, cancel, size, and getters on the source and strategy
//!   dictionaries) may call any method of the same stream: no Rust borrow is held across a call
//!   into JS, so nothing panics and the spec's results come out.

mod support;

use support::eval;
use support::script::{run_test_actions, TestAction};

#[test]
fn dropped_stream_cycles_are_collected() {
    run_test_actions([
        TestAction::run(
            r#"
        globalThis.refs = [];
        (function () {
          for (let i = 0; i < 200; i++) {
            // A stream with a reader and a pending read (stream <-> controller <-> reader <-> promise).
            const rs = new ReadableStream({ pull() {} });
            const reader = rs.getReader();
            reader.read();
            refs.push(new WeakRef(rs));
            refs.push(new WeakRef(reader));
            // A tee whose branches both hold the tee state, which holds the source stream.
            const [b1, b2] = new ReadableStream({ start(c) { c.enqueue(i); } }).tee();
            b1.getReader().read();
            refs.push(new WeakRef(b1));
            refs.push(new WeakRef(b2));
            // An async iterator with an ongoing next().
            const it = new ReadableStream()[Symbol.asyncIterator]();
            it.next();
            refs.push(new WeakRef(it));
            // ReadableStream.from over a never-ending iterator.
            const from = ReadableStream.from({ [Symbol.iterator]() { return { next() { return { value: 1, done: false }; } }; } });
            from.getReader().read();
            refs.push(new WeakRef(from));
          }
        })();
        "#,
        ),
        TestAction::assert_collected("stream objects survived a collection"),
    ]);
}

#[test]
fn callbacks_may_reenter_the_same_stream() {
    run_test_actions([
        TestAction::run(
            r#"
        globalThis.failures = [];
        const check = (name, f) => { try { f(); } catch (e) { log.push(`${name}: ${e && e.name}`); } };

        // Getters on the source and strategy dictionaries touching the stream-to-be and others.
        let captured;
        const other = new ReadableStream();
        const strategy = {
          get highWaterMark() { check('hwm getter', () => other.getReader().releaseLock()); return 2; },
          get size() { return (chunk) => { if (chunk === 'a') check('size', () => captured.enqueue('from size')); check('size desiredSize', () => captured.desiredSize); return 1; }; },
        };
        const source = {
          get start() {
            return (c) => {
              captured = c;
              c.enqueue('a');
              check('start error+enqueue', () => { c.enqueue('b'); });
            };
          },
          get pull() {
            return (c) => {
              c.enqueue('pulled');
              check('pull close', () => c.close());
              check('pull enqueue after close', () => c.enqueue('x'));
            };
          },
          get cancel() { return (reason) => { check('cancel reenter', () => rs.cancel('again')); log.push('cancel ' + reason); }; },
        };
        const rs = new ReadableStream(source, strategy);
        globalThis.rs = rs;
        (async () => {
          const reader = rs.getReader();
          const chunks = [];
          for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            chunks.push(value);
          }
          log.push('chunks ' + chunks.join(','));
        })().catch(e => failures.push(String(e)));

        // A size() that errors the stream while the chunk is being sized, and one that cancels it.
        let c2;
        const rs2 = new ReadableStream({ start(c) { c2 = c; } }, { size() { c2.error(new Error('boom')); return 1; } });
        check('enqueue with erroring size', () => c2.enqueue('z'));
        rs2.getReader().closed.catch(e => log.push('rs2 ' + e.message));

        let c3;
        const rs3 = new ReadableStream({ start(c) { c3 = c; }, cancel() { c3.close === undefined; } }, { size() { rs3.cancel('in size'); return 1; } });
        check('enqueue with cancelling size', () => c3.enqueue('y'));

        // Reader methods called from inside read resolution (then getter on Object.prototype).
        const rs4 = new ReadableStream({ start(c) { c.enqueue(1); c.enqueue(2); c.close(); } });
        const r4 = rs4.getReader();
        Object.defineProperty(Object.prototype, 'then', {
          configurable: true,
          get() { delete Object.prototype.then; r4.read(); r4.releaseLock(); return undefined; },
        });
        r4.read().then(r => log.push('rs4 first ' + r.value));

        // Async iterator return() while a next() is in flight, tee of a stream being cancelled.
        const it = new ReadableStream({ pull(c) { c.enqueue(1); } }).values();
        it.next(); it.return('stop').then(r => log.push('return done ' + r.done));
        const [t1, t2] = new ReadableStream({ cancel(r) { log.push('tee cancel ' + r.length); } }).tee();
        t1.cancel('x'); t2.cancel('y');
        "#,
        ),
        TestAction::assert_eq("failures.length", 0),
        TestAction::inspect_context(|ctx| {
            let log = eval(ctx, "log.join('\\n')");
            let log = log
                .as_string()
                .map(|s| s.to_std_string_escaped())
                .unwrap_or_default();
            for expected in [
                "chunks from size,a,b,pulled",
                "rs2 boom",
                "rs4 first 1",
                "return done true",
                "tee cancel 2",
            ] {
                assert!(
                    log.contains(expected),
                    "missing {expected:?} in log:\n{log}"
                );
            }
        }),
    ]);
}
