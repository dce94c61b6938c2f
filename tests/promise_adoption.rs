//! Promises that user callbacks return, adopted as WebIDL's "a promise resolved with" says:
//! `start`, `pull`, `write`, `close`, `transform` and `flush` may return a promise, which the
//! streams adopt (read its `then`, call it in a later job, react to the outcome).
//!
//! Where that promise is untouched (a plain promise with the original `then` and species
//! lookups), the streams adopt it with a Rust promise instead of a JS one; where it is not,
//! through a real JS promise. Both must give the same jobs in the same order. Each scenario
//! here runs twice, once with plain promises and once with promises that carry an own
//! `constructor` data property holding `Promise` (the same lookups' results, but no longer
//! untouched, so the JS path runs), interleaved with a counter of microtask ticks, and the two
//! logs must be equal (and show that the scenario ran). Then the lookups the spec makes at the
//! thenable job's time must still be made when script decorates `Promise` in between.

mod support;

use support::script::{Fixture, TestAction};

/// The shared prelude: `log`, a tick counter that logs `t0`, `t1`, ... one microtask apart for
/// `n` ticks, and `p(value)`, a resolved promise made plain or touched.
fn prelude(touched: bool) -> String {
    format!(
        "const log = [];
         function ticks(n) {{
           let i = 0;
           const step = () => {{ log.push('t' + i); if (++i < n) queueMicrotask(step); }};
           queueMicrotask(step);
         }}
         const TOUCHED = {touched};
         function mark(promise) {{
           if (TOUCHED) Object.defineProperty(promise, 'constructor', {{
             value: Promise, writable: true, configurable: true }});
           return promise;
         }}
         function p(value) {{ return mark(Promise.resolve(value)); }}
         function rejected(reason) {{
           const promise = mark(Promise.reject(reason));
           return promise;
         }}"
    )
}

/// Runs `scenario` after the prelude, plain and touched, and asserts both logs are equal and
/// hold `expect` (a fragment showing that the scenario did what it tests).
fn same_jobs(scenario: &str, expect: &str) {
    let mut logs = Vec::new();
    for touched in [false, true] {
        let mut fixture = Fixture::host();
        fixture.run([
            TestAction::run(prelude(touched)),
            TestAction::run(scenario),
            TestAction::run_to_idle(),
        ]);
        logs.push(fixture.eval_string("log.join(' ')"));
    }
    assert_eq!(
        logs[0], logs[1],
        "plain (left) and touched (right) promises"
    );
    assert!(logs[0].contains(expect), "{expect:?} not in {}", logs[0]);
}

#[test]
fn pull_promises() {
    same_jobs(
        "let n = 0;
         const rs = new ReadableStream({
           pull(c) { log.push('pull' + n); c.enqueue(n); if (++n === 3) c.close(); return p(n); },
         }, { highWaterMark: 0 });
         const reader = rs.getReader();
         ticks(30);
         (async () => {
           for (;;) {
             const { value, done } = await reader.read();
             log.push(done ? 'done' : 'read' + value);
             if (done) break;
           }
         })();",
        "read2",
    );
}

#[test]
fn rejected_pull_and_start_promises() {
    same_jobs(
        "const rs = new ReadableStream({
           start() { log.push('start'); return p('started'); },
           pull() { log.push('pull'); return rejected(new Error('no')); },
         });
         ticks(20);
         rs.getReader().read().then(
           () => log.push('read'),
           (e) => log.push('error ' + e.message));",
        "error no",
    );
}

#[test]
fn sink_promises() {
    same_jobs(
        "const ws = new WritableStream({
           start() { return p(); },
           write(chunk) { log.push('write' + chunk); return p(chunk); },
           close() { log.push('close'); return p(); },
         });
         const writer = ws.getWriter();
         ticks(30);
         writer.write(1).then(() => log.push('wrote1'));
         writer.write(2).then(() => log.push('wrote2'));
         writer.close().then(() => log.push('closed'));",
        "closed",
    );
}

#[test]
fn transformer_promises() {
    same_jobs(
        "const ts = new TransformStream({
           transform(chunk, c) { log.push('transform' + chunk); c.enqueue(chunk * 2); return p(); },
           flush() { log.push('flush'); return p(); },
         });
         ticks(40);
         const writer = ts.writable.getWriter();
         writer.write(1); writer.write(2); writer.close();
         (async () => {
           for await (const chunk of ts.readable) log.push('got' + chunk);
           log.push('end');
         })();",
        "end",
    );
}

#[test]
fn a_promise_fulfilled_with_a_thenable_has_its_then_called() {
    same_jobs(
        "let n = 0;
         const thenable = { get then() { log.push('get then');
           return (resolve) => { log.push('then called'); resolve(); }; } };
         const rs = new ReadableStream({
           pull(c) { c.enqueue(n); if (++n === 2) c.close(); return p(thenable); },
         }, { highWaterMark: 0 });
         ticks(20);
         (async () => { for await (const x of rs) log.push('read' + x); log.push('end'); })();",
        "then called",
    );
}

/// The thenable job's `then` call runs SpeciesConstructor when the job runs: script that
/// decorates `Promise.prototype.constructor` after the callback returned, before the job, is
/// seen then, for plain promises too.
#[test]
fn species_lookups_at_the_job_are_made_when_decorated() {
    let mut fixture = Fixture::host();
    fixture.run([
        TestAction::run(prelude(false)),
        TestAction::run(
            "const rs = new ReadableStream({
               pull(c) {
                 queueMicrotask(() => {
                   Object.defineProperty(Promise.prototype, 'constructor', {
                     get() { log.push('constructor read'); return Promise; },
                     configurable: true });
                 });
                 c.enqueue(1);
                 c.close();
                 return p();
               },
             }, { highWaterMark: 0 });
             rs.getReader().read().then(() => log.push('read'));",
        ),
        TestAction::run_to_idle(),
    ]);
    let log = fixture.eval_string("log.join(' ')");
    assert!(log.contains("constructor read"), "{log}");
    assert!(log.contains("read"), "{log}");
}
