//! Internal promise steps observe nothing: marking a promise as handled and reacting to a
//! promise the streams hold read no property that script can intercept.
//!
//! Every scenario below takes each promise the streams hand out (closed, ready, read, write,
//! cancel, close, abort, pipeTo results, async iterator results) and traps it, in three ways:
//! own accessors for `then` and `constructor` on the promise itself; the promise made
//! non-extensible while `Promise.prototype.then`, `Promise.prototype.constructor` and
//! `Promise[Symbol.species]` are logging getters; and those global traps alone, with the global
//! `Promise` replaced by a logging proxy. Then it drives the streams through the paths that
//! mark those promises as handled and react to them (release, cancel, error, abort, pipe,
//! tee, chained async iteration) and checks that no trap ran and the scenario finished.
//!
//! What the spec itself makes observable stays out of the count: resolving a promise with
//! another promise reads `then` and calls it, and `then` runs SpeciesConstructor. The spec does
//! that in places (tee's "resolve cancelPromise with cancelResult", `from()`'s "a promise
//! resolved with nextResult", a transform stream's sink write under backpressure, WebIDL's
//! chained `next()`), so in the global-trap variants `Promise.prototype.then` is a wrapper and
//! `constructor` / `@@species` reads made inside a `then` call are not logged. User callbacks
//! return non-promises.

mod support;

use boa_streams::host::HostReport;
use support::script::{Fixture, TestAction};

/// Defines `push` (to the shared `log`, without a method call), `trap(promise, name)` and
/// `finish()`; installs the global traps when asked.
fn prelude(variant: Variant) -> String {
    let trap = match variant {
        Variant::OwnAccessors => {
            "function trap(p, name) {
               traps++;
               defineProperty(p, 'then', { get() { push(name + '.then'); return originalThen; } });
               defineProperty(p, 'constructor', { get() { push(name + '.constructor'); return OriginalPromise; } });
               return p;
             }"
        }
        Variant::NonExtensible => {
            "function trap(p, name) { traps++; preventExtensions(p); return p; }"
        }
        Variant::GlobalOnly => "function trap(p, name) { traps++; return p; }",
    };
    let globals = match variant {
        Variant::OwnAccessors => "",
        Variant::NonExtensible | Variant::GlobalOnly => {
            "let depth = 0;
             const wrappedThen = function (...args) {
               depth++;
               try { return originalThen.apply(this, args); } finally { depth--; }
             };
             defineProperty(OriginalPromise.prototype, 'then', {
               get() { return wrappedThen; }, configurable: true });
             defineProperty(OriginalPromise.prototype, 'constructor', {
               get() { if (depth === 0) push('Promise.prototype.constructor'); return OriginalPromise; },
               configurable: true });
             defineProperty(OriginalPromise, Symbol.species, {
               get() { if (depth === 0) push('Promise[@@species]'); return OriginalPromise; },
               configurable: true });"
        }
    };
    let replace_global = match variant {
        Variant::GlobalOnly => {
            "globalThis.Promise = new Proxy(OriginalPromise, {
               get(target, key) { push('Promise.' + String(key)); return target[key]; },
               construct(target, args) { push('new Promise'); return new target(...args); },
             });"
        }
        _ => "",
    };
    format!(
        "var traps = 0; var finished = false;
         const push = (entry) => log[log.length] = entry;
         const defineProperty = Object.defineProperty;
         const preventExtensions = Object.preventExtensions;
         const OriginalPromise = Promise;
         const originalThen = Promise.prototype.then;
         function finish() {{ finished = true; }}
         function later(f) {{ setTimeout(f, 0); }}
         {trap}
         {globals}
         {replace_global}"
    )
}

#[derive(Debug, Clone, Copy)]
enum Variant {
    OwnAccessors,
    NonExtensible,
    GlobalOnly,
}

const VARIANTS: [Variant; 3] = [
    Variant::OwnAccessors,
    Variant::NonExtensible,
    Variant::GlobalOnly,
];

/// Runs `scenario` after the prelude of `variant`; returns (log, traps installed, finished).
fn run(variant: Variant, scenario: &str) -> (String, i32, bool) {
    let mut fixture = Fixture::host();
    fixture.run([
        TestAction::run(format!("{}\n{scenario}", prelude(variant))),
        TestAction::run_to_idle(),
        TestAction::inspect_host(|host, _| {
            for report in host.take_reports() {
                if let HostReport::UncaughtError(message) = report {
                    panic!("{variant:?}: uncaught error: {message}");
                }
            }
        }),
    ]);
    let log = fixture.eval_string("log.join(', ')");
    let traps = fixture
        .eval_string("String(traps)")
        .parse()
        .expect("a count");
    let finished = fixture.eval_string("String(finished)") == "true";
    (log, traps, finished)
}

/// Asserts that `scenario` traps at least `min_traps` promises, finishes, and logs nothing, in
/// every variant.
fn assert_unobserved(scenario: &str, min_traps: i32) {
    for variant in VARIANTS {
        let (log, traps, finished) = run(variant, scenario);
        assert_eq!(
            log, "",
            "{variant:?}: internal steps read a trapped property"
        );
        assert!(
            traps >= min_traps,
            "{variant:?}: only {traps} promises trapped"
        );
        assert!(finished, "{variant:?}: the scenario did not finish");
    }
}

/// The simplest case: releasing a reader marks its closed promise as handled.
#[test]
fn release_lock_marks_closed_as_handled_unobservably() {
    assert_unobserved(
        "const r = new ReadableStream().getReader();
         trap(r.closed, 'closed');
         r.releaseLock();
         finish();",
        1,
    );
}

#[test]
fn default_reader_promises() {
    assert_unobserved(
        "let c;
         const rs = new ReadableStream({ start(x) { c = x; } });
         const r = rs.getReader();
         trap(r.closed, 'closed');
         trap(r.read(), 'read1');
         const pending = trap(r.read(), 'read2');
         c.enqueue('a');
         later(() => {
           r.releaseLock();                     // rejects read2 and closed, marks them handled
           const r2 = rs.getReader();
           trap(r2.closed, 'closed2');
           trap(r2.cancel('why'), 'cancel');
           later(finish);
         });",
        5,
    );
}

#[test]
fn errored_stream_promises() {
    assert_unobserved(
        "let c;
         const rs = new ReadableStream({ start(x) { c = x; } });
         const r = rs.getReader();
         trap(r.closed, 'closed');
         trap(r.read(), 'read');
         c.error(new Error('boom'));
         later(() => { r.releaseLock(); later(finish); });",
        2,
    );
}

#[test]
fn writer_promises() {
    assert_unobserved(
        "const ws = new WritableStream({ write() {}, close() {} }, { highWaterMark: 1 });
         const w = ws.getWriter();
         trap(w.closed, 'closed');
         trap(w.ready, 'ready');
         trap(w.write('a'), 'write1');
         trap(w.write('b'), 'write2');
         later(() => {
           trap(w.ready, 'ready2');
           trap(w.close(), 'close');
           later(() => {
             const ws2 = new WritableStream();
             const w2 = ws2.getWriter();
             trap(w2.closed, 'closed2');
             trap(w2.ready, 'ready3');
             trap(w2.write('x'), 'write3');
             trap(w2.abort(new Error('stop')), 'abort');
             later(() => {
               const ws3 = new WritableStream();
               const w3 = ws3.getWriter();
               trap(w3.closed, 'closed3');
               trap(w3.ready, 'ready4');
               w3.releaseLock();
               later(finish);
             });
           });
         });",
        12,
    );
}

#[test]
fn pipe_promises() {
    assert_unobserved(
        "let i = 0;
         const rs = new ReadableStream({ pull(c) { if (i < 3) c.enqueue(i++); else c.close(); } });
         const ws = new WritableStream({ write() {} });
         trap(rs.pipeTo(ws), 'pipeTo');
         const controller = new AbortController();
         const rs2 = new ReadableStream();
         const ws2 = new WritableStream();
         trap(rs2.pipeTo(ws2, { signal: controller.signal }), 'pipeTo2');
         const out = new ReadableStream({ start(c) { c.enqueue(1); c.close(); } })
           .pipeThrough(new TransformStream());
         const r = out.getReader();
         trap(r.read(), 'read');
         trap(r.closed, 'closed');
         later(() => { controller.abort(new Error('abort')); later(() => later(finish)); });",
        4,
    );
}

#[test]
fn tee_promises() {
    assert_unobserved(
        "let c;
         const [a, b] = new ReadableStream({ start(x) { c = x; } }).tee();
         const ra = a.getReader();
         const rb = b.getReader();
         trap(ra.closed, 'closedA');
         trap(rb.closed, 'closedB');
         trap(ra.read(), 'readA');
         trap(rb.read(), 'readB');
         c.enqueue('x');
         later(() => {
           trap(ra.cancel('a'), 'cancelA');
           trap(rb.cancel('b'), 'cancelB');
           later(finish);
         });",
        6,
    );
}

#[test]
fn async_iterator_promises() {
    // Own accessors: next() is called while the previous next() is pending, so the iterator
    // reacts to the trapped promise it handed out.
    let (log, traps, finished) = run(
        Variant::OwnAccessors,
        "let i = 0;
         const rs = new ReadableStream({ pull(c) { if (i < 2) c.enqueue(i++); else c.close(); } });
         const it = rs.values();
         trap(it.next(), 'next1');
         trap(it.next(), 'next2');
         trap(it.next(), 'next3');
         trap(it.return('done'), 'return');
         later(() => later(finish));",
    );
    assert_eq!(log, "");
    assert_eq!(traps, 4);
    assert!(finished);
    // Every variant: one next() at a time.
    assert_unobserved(
        "let c;
         const rs = new ReadableStream({ start(x) { c = x; } });
         const it = rs.values({ preventCancel: true });
         trap(it.next(), 'next1');
         c.enqueue('a');
         later(() => {
           trap(it.next(), 'next2');
           c.error(new Error('e'));
           later(() => { trap(it.return(), 'return'); later(finish); });
         });",
        3,
    );
}

#[test]
fn from_and_transform_promises() {
    assert_unobserved(
        "const r = ReadableStream.from(['a', 'b']).getReader();
         trap(r.read(), 'read1');
         trap(r.read(), 'read2');
         trap(r.read(), 'read3');
         trap(r.closed, 'closed');
         const ts = new TransformStream({ transform(chunk, c) { c.enqueue(chunk); } });
         const w = ts.writable.getWriter();
         const tr = ts.readable.getReader();
         trap(w.write('t'), 'write');
         trap(tr.read(), 'tread');
         later(() => {
           trap(w.abort(new Error('x')), 'abort');
           trap(tr.closed, 'tclosed');
           later(finish);
         });",
        8,
    );
}

#[test]
fn byte_stream_promises() {
    assert_unobserved(
        "let c;
         const rs = new ReadableStream({ type: 'bytes', start(x) { c = x; } });
         const r = rs.getReader({ mode: 'byob' });
         trap(r.closed, 'closed');
         trap(r.read(new Uint8Array(4)), 'read');
         later(() => {
           c.byobRequest.view[0] = 7;
           c.byobRequest.respond(1);
           later(() => {
             trap(r.read(new Uint8Array(2)), 'read2');
             r.releaseLock();
             later(finish);
           });
         });",
        3,
    );
}

/// The traps do fire when script itself goes through them, so the tests above can fail.
#[test]
fn the_traps_are_live() {
    let (log, _, _) = run(
        Variant::OwnAccessors,
        "const p = trap(new ReadableStream().getReader().closed, 'closed');
         p.then; p.constructor; finish();",
    );
    assert_eq!(log, "closed.then, closed.constructor");
    let (log, _, _) = run(Variant::GlobalOnly, "Promise.resolve; finish();");
    assert_eq!(log, "Promise.resolve");
    let (log, _, _) = run(
        Variant::NonExtensible,
        "OriginalPromise.prototype.constructor; finish();",
    );
    assert_eq!(log, "Promise.prototype.constructor");
}
