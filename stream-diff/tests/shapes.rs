//! Regression tests for the divergence shapes of issue 18 (programs nobody here wrote): each
//! shape as a small program, its native event log as the spec decides it (the deciding step
//! is quoted beside it), and, where the reference bundle is present, the class the divergence
//! from the stock reference gets once the reference's departure is corrected.

use stream_diff::{
    diff::{Class, Verdict},
    load_reference,
    side::{self, Limits, ReferenceSource, SideKind},
    Runner,
};

fn native_events(script: &str) -> Vec<String> {
    let none = ReferenceSource {
        install: String::new(),
        bundle: String::new(),
        bundle_name: String::new(),
    };
    let result = side::run_fresh(SideKind::Native, &none, script, Limits::default());
    assert_eq!(result.outcome, side::Outcome::Idle, "{:?}", result.events);
    result.events
}

/// The class of `script`'s divergence from the reference (None: the bundle is not here).
fn class_against_reference(script: &str) -> Option<Verdict> {
    let Ok(reference) = load_reference(None) else {
        eprintln!("the reference bundle is not here: class not checked");
        return None;
    };
    let mut runner = Runner::new(reference, Limits::default(), false).expect("runner");
    Some(runner.verdict(script))
}

fn check(script: &str, expected_native: &[&str], expected: Verdict) {
    assert_eq!(native_events(script), expected_native, "native log");
    if let Some(verdict) = class_against_reference(script) {
        assert_eq!(verdict, expected, "class against the reference");
    }
}

/// Shape 1: a TransformStream's readable side cancelled while a write waits on the
/// backpressure change that a read has just released. TransformStreamDefaultSourceCancelAlgorithm
/// clears the algorithms ("is called once the stream is closed or errored and the algorithms
/// will not be executed any more"), yet the write's reaction to [[backpressureChangePromise]]
/// then performs [[transformAlgorithm]]. A cleared algorithm is performed as one returning a
/// promise resolved with undefined, so the pending write resolves (WPT
/// transform-streams/backpressure.any.js: "cancelling the readable should cause a pending
/// write to resolve"), and the cancel reaction errors the writable side with the reason
/// ("Perform ! WritableStreamDefaultControllerErrorIfNeeded(writable.[[controller]],
/// reason)"). The reference calls undefined: its write, then its writable side, fail with a
/// TypeError.
#[test]
fn transform_write_pending_on_backpressure_when_the_readable_is_cancelled() {
    let script = r#"
        const ts = new TransformStream({ transform(c, ctl) { ctl.enqueue(c); } });
        const reader = ts.readable.getReader();
        const writer = ts.writable.getWriter();
        soon(3, 'go', () => {
          watch('write', writer.write('a'));
          watch('read', reader.read());
          watch('cancel', reader.cancel(err('x')));
          watch('closed', writer.closed);
        });
    "#;
    check(
        script,
        &[
            "read fulfilled {value: undefined, done: true}",
            "cancel fulfilled undefined",
            "write fulfilled undefined",
            "closed rejected Error(sd:x)",
        ],
        Verdict::Diverged(Class::ReferenceClearedAlgorithm),
    );
    // With a transformer.cancel that settles a microtask later, the cancel still fulfills:
    // the writable side is errored with the reason, not with a TypeError.
    let delayed = r#"
        const ts = new TransformStream({
          transform(c, ctl) { ctl.enqueue(c); },
          cancel(r) { log('cancel', r); return afterMicrotask(() => {}); },
        });
        const reader = ts.readable.getReader();
        const writer = ts.writable.getWriter();
        soon(3, 'go', () => {
          watch('write', writer.write('a'));
          watch('read', reader.read());
          watch('cancel', reader.cancel(err('x')));
          watch('closed', writer.closed);
        });
    "#;
    check(
        delayed,
        &[
            "\"cancel\" Error(sd:x)",
            "read fulfilled {value: undefined, done: true}",
            "write fulfilled undefined",
            "closed rejected Error(sd:x)",
            "cancel fulfilled undefined",
        ],
        Verdict::Diverged(Class::ReferenceClearedAlgorithm),
    );
}

/// Shape 2: `ReadableStream.from(asyncGenerator)` whose first `next()` throws. The pull
/// algorithm reacts to the next value's promise, and "if nextPromise was rejected with reason
/// r, perform ! ReadableStreamDefaultControllerError(stream.[[controller]], r)" in that same
/// reaction. Job by job: (1) the start promise's reaction pulls, and `next()` runs and throws;
/// (2) the thenable job adopting next()'s rejected promise (WebIDL "a promise resolved with");
/// (3) its rejection reaches that promise; (4) the rejection passes through "get the next
/// value"'s fulfillment-only reaction; (5) the pull algorithm's reaction errors the stream,
/// before the statement queued in job 5. Reads made in jobs 3 and 4 are still pending and
/// reject with the first; every rejection is reported in job 6, before the statement queued
/// there. (The stock reference errors earlier; its async-sequence correction, reacting only
/// through the pull promise, one job later.)
#[test]
fn from_async_generator_whose_next_throws_errors_in_the_pull_reaction() {
    let script = r#"
        const rs = ReadableStream.from((async function* () { log('next'); throw err('g'); })());
        const r = rs.getReader();
        watch('closed', r.closed);
        watch('read1', r.read());
        soon(3, 'third', () => { log('third'); watch('read2', r.read()); });
        soon(4, 'fourth', () => { log('fourth'); watch('read3', r.read()); });
        soon(5, 'fifth', () => { log('fifth'); watch('read4', r.read()); });
        soon(6, 'sixth', () => log('sixth'));
    "#;
    check(
        script,
        &[
            "\"next\"",
            "\"third\"",
            "\"fourth\"",
            "\"fifth\"",
            "closed rejected Error(sd:g)",
            "read1 rejected Error(sd:g)",
            "read2 rejected Error(sd:g)",
            "read3 rejected Error(sd:g)",
            "read4 rejected Error(sd:g)",
            "\"sixth\"",
        ],
        Verdict::Diverged(Class::ReferenceAsyncSequenceTiming),
    );
}

/// Shape 3: a pipe whose chunk arrived inside the source's `enqueue()` (so it is written a
/// microtask later: WPT piping/general-addition.any.js, "enqueue() must not synchronously call
/// write algorithm") and which shuts down before that microtask, its destination errored. The
/// shutdown writes chunks read but not yet written only "if dest.[[state]] is "writable" and !
/// WritableStreamCloseQueuedOrInFlight(dest) is false"; otherwise "the user agent ... must only
/// perform writes of already-read chunks, as described below": the chunk is never written.
/// (The reference writes inside enqueue(); corrected to write a microtask later, it must also
/// drop the chunk here, or it writes through the writer the pipe has released.)
#[test]
fn a_pipe_drops_a_chunk_read_inside_enqueue_when_it_shuts_down_with_the_destination_errored() {
    let script = r#"
        let c;
        const rs = new ReadableStream({ start(ctl) { c = ctl; } });
        let sinkController;
        const ws = new WritableStream({
          start(ctl) { sinkController = ctl; },
          write(chunk) { log('write', chunk); },
        }, { highWaterMark: 4, size: traced('size', () => 1) });
        const ac = new AbortController();
        watch('pipe', rs.pipeTo(ws, { preventCancel: true, preventAbort: true, signal: ac.signal }));
        soon(5, 'go', () => {
          enq(c, 'a');
          sinkController.error(err('dest'));
          ac.abort(err('abort'));
        });
    "#;
    check(
        script,
        &["enqueue(\"a\")", "pipe rejected Error(sd:abort)"],
        Verdict::Diverged(Class::ReferenceSyncWriteInEnqueue),
    );
    // With the destination still writable at shutdown, the chunk read inside enqueue() is
    // written by the shutdown itself, before the close it waits for.
    let writable = r#"
        let c;
        const rs = new ReadableStream({ start(ctl) { c = ctl; } });
        const ws = new WritableStream({
          write(chunk) { log('write', chunk); },
          close() { log('close'); },
        }, { highWaterMark: 4, size: traced('size', () => 1) });
        watch('pipe', rs.pipeTo(ws));
        soon(5, 'go', () => {
          enq(c, 'a');
          c.close();
        });
    "#;
    let events = native_events(writable);
    let size = events.iter().position(|e| e == "size(\"a\")");
    let close = events.iter().position(|e| e == "\"close\"");
    assert!(
        matches!((size, close), (Some(s), Some(c)) if s < c),
        "the chunk is written before the close: {events:?}"
    );
    assert!(events.contains(&"\"write\" \"a\"".to_owned()), "{events:?}");
}

/// Patched builtins (the broadened generator's `patch_builtin`): `ReadableStream.from()` of an
/// async iterable whose `next()` returns a promise. "Get the next value" makes "a promise
/// resolved with" it: the resolution reads `then` (the original), and the
/// NewPromiseResolveThenableJob calls it a job later, when SpeciesConstructor reads
/// `constructor`. A getter patched onto `Promise.prototype.constructor` in between is called
/// (once). The stock reference's `await` reads nothing; the spec-exact corrected one agrees.
#[test]
fn from_adopts_a_promise_with_the_species_lookup_made_in_the_thenable_job() {
    let script = r#"
        const rs = ReadableStream.from({ [Symbol.asyncIterator]() {
          return { next() { return resolved({ value: 1, done: false }); } };
        } });
        const r = rs.getReader();
        watch('read', r.read());
        soon(1, 'patch', () => {
          Object.defineProperty(Promise.prototype, 'constructor',
            { get() { log('constructor get'); return Promise; }, configurable: true });
        });
    "#;
    check(
        script,
        &[
            "\"constructor get\"",
            "read fulfilled {value: 1, done: false}",
        ],
        Verdict::Diverged(Class::ReferenceAsyncSequenceTiming),
    );
}

/// Patched builtins: a pipe aborted through its signal while `Object.prototype.then` is a
/// function. The abort action is "getting a promise to wait for all" of the actions, a promise
/// internal to the pipe: WPT piping/then-interception.any.js ("piping should not be
/// observable"). boa_streams resolves it with undefined, so `then` is never called; the stock
/// reference resolves it with the results array and calls the patched `then`, which the
/// promise-lookups correction removes.
#[test]
fn a_pipe_aborted_by_its_signal_does_not_call_a_patched_object_then() {
    let script = r#"
        Object.defineProperty(Object.prototype, 'then', {
          value(r) { log('Object.prototype.then called'); r(undefined); },
          configurable: true, writable: true,
        });
        const ac = new AbortController();
        const rs = new ReadableStream({ cancel(r) { log('cancel', r); } });
        const ws = new WritableStream({ abort(r) { log('abort', r); } });
        watch('pipe', rs.pipeTo(ws, { signal: ac.signal }));
        soon(3, 'abort', () => ac.abort(err('stop')));
    "#;
    check(
        script,
        &[
            "\"abort\" Error(sd:stop)",
            "\"cancel\" Error(sd:stop)",
            "pipe rejected Error(sd:stop)",
        ],
        Verdict::Diverged(Class::ReferencePromiseLookups),
    );
}

/// Patched builtins: a read through a `ReadableStreamDefaultReader` while
/// `Promise.prototype.constructor` is a getter. Reacting to the pull promise (WebIDL "react to a
/// promise": PerformPromiseThen) reads nothing, so the getter is never called by the stream;
/// the stock reference reacts with `Promise.prototype.then`, whose SpeciesConstructor calls it.
#[test]
fn reactions_read_no_patched_promise_constructor() {
    let script = r#"
        const rs = new ReadableStream({ pull(c) { c.enqueue('a'); } });
        const r = rs.getReader();
        soon(2, 'patch', () => {
          Object.defineProperty(Promise.prototype, 'constructor',
            { get() { log('constructor get'); return Promise; }, configurable: true });
        });
        later(1, 'read', () => { r.read(); });
        later(2, 'end', () => log('end'));
    "#;
    check(
        script,
        &["\"end\""],
        Verdict::Diverged(Class::ReferencePromiseLookups),
    );
}

/// An async iterator's `next()` whose read is settled inside ReadableStreamDefaultReaderRead
/// (here a `pull()` that closes the stream and queues microtasks of its own). WebIDL's `next()`
/// reacts to the promise "get the next iteration result" returns only after that returns
/// (PerformPromiseThen on a settled promise queues its job then), so the jobs `pull()` queued
/// run first and `next()`'s promise settles a job later than for a read settled after it
/// returned. (Found by the generator: a for-await loop over a closing byte stream.)
#[test]
fn next_reacts_to_a_read_settled_inside_the_read_after_the_read() {
    let script = r#"
        let n = 0;
        const rs = new ReadableStream({
          start(c) { return afterMicrotask(() => { c.enqueue(1); c.enqueue(2); }); },
          pull(c) {
            if (++n > 1) return;
            log('pull'); c.close();
            for (let i = 1; i <= 3; i++) soon(i, 't' + i, () => log('tick' + i));
          },
        }, { highWaterMark: 0 });
        const it = rs.values();
        watch('n1', it.next());
        soon(3, 'n2', () => watch('n2', it.next()));
        soon(9, 'n3', () => { log('n3'); watch('n3', it.next()); });
    "#;
    check(
        script,
        &[
            "n1 fulfilled {value: 1, done: false}",
            "n2 fulfilled {value: 2, done: false}",
            "\"n3\"",
            "\"pull\"",
            "\"tick1\"",
            "\"tick2\"",
            "n3 fulfilled {value: undefined, done: true}",
            "\"tick3\"",
        ],
        Verdict::Same,
    );
}

/// Shape 2, a `next()` that throws: "get the next value" returns "a promise rejected with" the
/// exception when the call is an abrupt completion (no reaction of its own), so the pull
/// algorithm's reaction errors the stream one job after the pull, not two (as a rejected
/// promise `next()` returns, or a result that is not an object, which pass through the
/// fulfillment steps' reaction first).
#[test]
fn from_whose_next_throws_errors_in_the_first_job() {
    let script = r#"
        const rs = ReadableStream.from({ [Symbol.asyncIterator]() {
          return { next() { log('next'); throw err('n'); } };
        } });
        const r = rs.getReader();
        watch('closed', r.closed);
        watch('read', r.read());
        for (let i = 1; i <= 4; i++) soon(i, 't' + i, () => log('tick' + i));
    "#;
    check(
        script,
        &[
            "\"next\"",
            "\"tick1\"",
            "\"tick2\"",
            "closed rejected Error(sd:n)",
            "read rejected Error(sd:n)",
            "\"tick3\"",
            "\"tick4\"",
        ],
        Verdict::Diverged(Class::ReferenceAsyncSequenceTiming),
    );
}

/// Shape 4: a byte stream teed, one branch piped through a TransformStream whose readable side
/// is cancelled while a write waits on the backpressure change (shape 1's situation), the other
/// branch cancelled. `enqueue()` throws "if this.[[stream]].[[state]] is not "readable"", so
/// it accepts chunks until the cancel reaches the source: the pending write resolves (WPT
/// transform-streams/backpressure.any.js), the writable side errors with the reason, the pipe
/// cancels its source, and the tee's composite cancel reaches the byte stream only then. The
/// reference's write instead performs the cleared [[transformAlgorithm]], rejects with a
/// TypeError, and the cancel reaches the source two enqueues earlier: with that corrected, it
/// agrees.
#[test]
fn a_byte_stream_accepts_chunks_until_a_cancel_through_tee_and_pipe_through_reaches_it() {
    let script = r#"
        let c;
        const rs = new ReadableStream({
          type: 'bytes',
          start(ctl) { c = ctl; ctl.enqueue(new Uint8Array([9])); },
          cancel(r) { log('source cancel', r); },
        });
        const [a, b] = rs.tee();
        const ts = new TransformStream({
          transform(ch, tc) { log('transform', ch); tc.enqueue(ch); },
          cancel(r) { log('ts cancel', r); },
        }, { highWaterMark: 1 }, { highWaterMark: 0 });
        const out = a.pipeThrough(ts);
        watch('b.cancel', b.cancel(err('b')));
        const r = out.getReader();
        soon(3, 'read', () => watch('r1', r.read()));
        soon(3, 'cancel', () => watch('out.cancel', r.cancel(err('x'))));
        for (let i = 5; i < 9; i++) soon(i, 'enq' + i, () => { enq(c, new Uint8Array([i])); });
    "#;
    check(
        script,
        &[
            "\"ts cancel\" Error(sd:x)",
            "r1 fulfilled {value: undefined, done: true}",
            "enqueue(Uint8Array[5]@0/1)",
            "out.cancel fulfilled undefined",
            "enqueue(Uint8Array[6]@0/1)",
            "enqueue(Uint8Array[7]@0/1)",
            "\"source cancel\" [Error(sd:x), Error(sd:b)]",
            "enqueue(Uint8Array[8]@0/1)",
            "enq8 threw TypeError",
            "b.cancel fulfilled undefined",
        ],
        Verdict::Diverged(Class::ReferenceClearedAlgorithm),
    );
}

/// Issue 39, shape 3: a pipe aborted through its signal, with an `abort` listener added before
/// `pipeTo`. DOM's "run the abort steps" runs every abort algorithm ("for each algorithm of
/// signal's abort algorithms: run algorithm"), then fires `abort`; ReadableStreamPipeTo adds
/// its abort algorithm to the signal, and with the destination not writable, "shutdown with an
/// action" cancels the source at once. The reference adds it as an `abort` listener, after the
/// script's.
#[test]
fn a_pipes_abort_algorithm_runs_before_earlier_abort_listeners() {
    let script = r#"
        const rs = new ReadableStream({ cancel(r) { log('source cancel', r); } });
        const ws = new WritableStream({ start(c) { c.error(err('dest')); } });
        const ac = new AbortController();
        ac.signal.addEventListener('abort', () => log('listener'));
        watch('pipe', rs.pipeTo(ws, { signal: ac.signal }));
        ac.abort(err('why'));
        log('after abort');
    "#;
    check(
        script,
        &[
            "\"source cancel\" Error(sd:why)",
            "\"listener\"",
            "\"after abort\"",
            "pipe rejected Error(sd:why)",
        ],
        Verdict::Diverged(Class::ReferenceAbortAlgorithmAsListener),
    );
}

/// Issue 39, shape 1: WebIDL's ArrayBufferView conversion without [AllowResizable] throws a
/// TypeError for a view on a resizable buffer ("If the conversion is not to an IDL type
/// associated with the [AllowResizable] extended attribute, and IsFixedLengthArrayBuffer(
/// V.[[ViewedArrayBuffer]]) is false, then throw a TypeError"); `enqueue(ArrayBufferView)` and
/// the BYOB `read(ArrayBufferView view)` have none. The reference agrees.
#[test]
fn views_on_resizable_buffers_are_type_errors() {
    let script = r#"
        let c;
        new ReadableStream({ type: 'bytes', start(ctrl) { c = ctrl; } });
        try { c.enqueue(new Uint8Array(new ArrayBuffer(8, { maxByteLength: 16 }))); log('accepted'); }
        catch (e) { log('enqueue threw', e); }
        const reader = new ReadableStream({ type: 'bytes' }).getReader({ mode: 'byob' });
        watch('read', reader.read(new Uint8Array(new ArrayBuffer(8, { maxByteLength: 16 }))));
    "#;
    check(
        script,
        &["\"enqueue threw\" TypeError", "read rejected TypeError"],
        Verdict::Same,
    );
}

/// Issue 39, shape 2: a sink's `write()` (no tracing wrapper) whose nested function throws.
/// The write's promise is rejected ("a promise rejected with" the exception) and the script
/// around `writer.write()` goes on. On Boa 0.22 that needed the backend's call trampoline
/// (ENGINE_BUGS.md 6).
#[test]
fn a_nested_throw_in_a_sink_leaves_the_calling_expression_intact() {
    let script = r#"
        function thrower() { throw err('thr'); }
        const w = new WritableStream({ write() { thrower(); } }).getWriter();
        later(1, 'write', () => { log('typeof', typeof w.write('a')); log('after'); });
    "#;
    check(
        script,
        &[
            "\"typeof\" \"object\"",
            "\"after\"",
            "report unhandled Error(sd:thr)",
        ],
        Verdict::Same,
    );
}
