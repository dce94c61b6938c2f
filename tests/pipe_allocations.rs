//! The pipe loop creates no JS object per chunk: `boa_streams::pipe_js_objects_created()`
//! counts the promises, functions and other JS objects the pipe steps create, and piping 100
//! or 10 000 chunks must cost the same.

mod support;

use support::{context, eval, eval_string};

/// Pipes `n` chunks from a pull source to a counting sink (through an identity
/// `TransformStream` when `through` is set) and returns the JS objects the pipe steps created.
fn pipe(n: u32, through: bool) -> u64 {
    let mut ctx = context();
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
    eval(&mut ctx, &script);
    let created = boa_streams::pipe_js_objects_created() - before;
    let check = eval_string(&mut ctx, "`${done} ${next} ${bad}`");
    assert_eq!(check, format!("true {n} 0"), "done next bad");
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
