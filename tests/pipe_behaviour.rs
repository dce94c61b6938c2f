//! Pipe behaviour the WPT files do not pin down.

mod support;

use support::{context, eval_string};

/// A write queued before the pipe began (by another writer) completing clears the
/// destination's backpressure: the pipe reads again at once, without waiting for its own
/// pending write.
#[test]
fn foreign_writes_completing_wake_the_pipe() {
    let mut ctx = context();
    eval_string(
        &mut ctx,
        r#"
        var log = [], resolvers = {};
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
    );
    // 'u' is in flight, the pipe's first chunk is queued behind it: backpressure.
    let before = eval_string(&mut ctx, "`${pulls} ${log}`");
    assert_eq!(before, "1 write u");
    // 'u' completes: the queue holds one chunk of the pipe, the desired size is 1 again.
    let after = eval_string(&mut ctx, "resolvers.u(); ''");
    assert_eq!(after, "");
    let after = eval_string(&mut ctx, "`${pulls} ${log}`");
    assert_eq!(after, "2 write u,write c1");
}
