//! Pipe behaviour the WPT files do not pin down, and the pipe loop's allocations: it creates no
//! JS object per chunk (`boa_streams::pipe_js_objects_created()` counts the promises, functions
//! and other JS objects the pipe steps create, per thread), so piping 100 or 10 000 chunks must
//! cost the same.

mod support;

use support::script::{run_test_actions, Fixture, TestAction};

/// A write queued before the pipe began (by another writer) completing clears the
/// destination's backpressure: the pipe reads again at once, without waiting for its own
/// pending write.
#[test]
fn foreign_writes_completing_wake_the_pipe() {
    run_test_actions([
        TestAction::run(
            r#"
        var resolvers = {};
        var ws = new WritableStream({
            write(chunk) { log.push('write ' + chunk); return new Promise(r => { resolvers[chunk] = r; }); }
        }, { highWaterMark: 2 });
        var w = ws.getWriter();
        w.write('u');
        w.releaseLock();
        var pulls = 0;
        var rs = new ReadableStream({ pull(c) { pulls++; c.enqueue('c' + pulls); } }, { highWaterMark: 0 });
        rs.pipeTo(ws);
        "#,
        ),
        // 'u' is in flight, the pipe's first chunk is queued behind it: backpressure.
        TestAction::assert_string("`${pulls} ${log}`", "1 write u"),
        // 'u' completes: the queue holds one chunk of the pipe, the desired size is 1 again.
        TestAction::assert_string("resolvers.u(); ''", ""),
        TestAction::assert_string("`${pulls} ${log}`", "2 write u,write c1"),
    ]);
}

/// Pipes `n` chunks from a pull source to a counting sink (through an identity
/// `TransformStream` when `through` is set) and returns the JS objects the pipe steps created.
fn pipe(n: u32, through: bool) -> u64 {
    let mut fixture = Fixture::streams();
    let script = format!(
        r#"
        var N = {n}, i = 0, next = 0, bad = 0, done = false;
        var rs = new ReadableStream({{
            pull(c) {{ if (i < N) c.enqueue(i++); else c.close(); }}
        }});
        var ws = new WritableStream({{
            write(chunk) {{ if (chunk !== next) bad++; next++; }}
        }});
        var src = {through} ? rs.pipeThrough(new TransformStream()) : rs;
        src.pipeTo(ws).then(() => {{ done = true; }});
        "#
    );
    let before = boa_streams::pipe_js_objects_created();
    fixture.eval(&script);
    let created = boa_streams::pipe_js_objects_created() - before;
    // done, next, bad
    fixture.run([TestAction::assert_string(
        "`${done} ${next} ${bad}`",
        format!("true {n} 0"),
    )]);
    created
}

#[test]
fn pipe_to_creates_nothing_per_chunk() {
    let small = pipe(100, false);
    let large = pipe(10_000, false);
    eprintln!("pipeTo: {small} JS objects for 100 chunks, {large} for 10 000");
    assert_eq!(
        small, large,
        "the pipe's JS objects must not grow with the chunks"
    );
    assert!(small <= 32, "{small} JS objects for one pipe");
}

#[test]
fn pipe_through_creates_nothing_per_chunk() {
    let small = pipe(100, true);
    let large = pipe(10_000, true);
    eprintln!("pipeThrough + pipeTo: {small} JS objects for 100 chunks, {large} for 10 000");
    assert_eq!(
        small, large,
        "the pipes' JS objects must not grow with the chunks"
    );
}
