//! WritableStream behaviour that the WPT files do not pin down from the outside: which
//! rejections stay visible to the host's unhandled-rejection tracking, re-entrancy from sink
//! callbacks, and garbage collection while requests are pending.

mod support;

use boa_streams::host::HostReport;
use support::script::{run_host_actions, Fixture, TestAction};

/// Runs `source` to idle and returns the unhandled rejections the host reported.
fn unhandled(source: &str) -> Vec<String> {
    let mut fixture = Fixture::host();
    fixture.run([TestAction::run(source), TestAction::run_to_idle()]);
    fixture
        .host_ref()
        .take_reports()
        .into_iter()
        .map(|report| match report {
            HostReport::UnhandledRejection(message) => message,
            other => panic!("{other}"),
        })
        .collect()
}

#[test]
fn promises_the_spec_marks_handled_are_not_reported() {
    // writer.closed and writer.ready of an aborted stream.
    assert_eq!(
        unhandled(
            "const ws = new WritableStream();
             const w = ws.getWriter();
             w.abort(new Error('a'));"
        ),
        Vec::<String>::new()
    );
    // controller.error() during start, then a writer on the errored stream.
    assert_eq!(
        unhandled(
            "const ws = new WritableStream({ start(c) { c.error(new Error('e')); } });
             const w = ws.getWriter();
             Promise.resolve().then(() => ws.getWriter);"
        ),
        Vec::<String>::new()
    );
    // releaseLock() replaces both promises with rejected, handled ones.
    assert_eq!(
        unhandled(
            "const ws = new WritableStream();
             const w = ws.getWriter();
             w.releaseLock();
             ws.getWriter().releaseLock();"
        ),
        Vec::<String>::new()
    );
    // A writer acquired while the stream is erroring, which then becomes errored.
    assert_eq!(
        unhandled(
            "let release;
             const ws = new WritableStream({ write() { return new Promise(r => release = r); } });
             const w1 = ws.getWriter();
             w1.write('x');
             Promise.resolve().then(() => {
               w1.abort(new Error('stop')).catch(() => {});
               w1.releaseLock();
               ws.getWriter();
               release();
             });"
        ),
        Vec::<String>::new()
    );
}

#[test]
fn rejections_the_spec_leaves_visible_are_reported() {
    // A write() promise nobody handles.
    let reports = unhandled(
        "const ws = new WritableStream({ start(c) { c.error(new Error('boom')); } });
         ws.getWriter().write('chunk');",
    );
    assert_eq!(reports.len(), 1, "{reports:?}");
    assert!(reports[0].contains("boom"), "{reports:?}");
    // A close() promise nobody handles, on an errored stream.
    let reports = unhandled(
        "const ws = new WritableStream({ close() { throw new Error('sink close'); } });
         ws.getWriter().close();",
    );
    assert_eq!(reports.len(), 1, "{reports:?}");
    assert!(reports[0].contains("sink close"), "{reports:?}");
    // An abort() promise rejected by the sink's abort().
    let reports = unhandled(
        "const ws = new WritableStream({ abort() { throw new Error('sink abort'); } });
         ws.abort('why');",
    );
    assert_eq!(reports.len(), 1, "{reports:?}");
    assert!(reports[0].contains("sink abort"), "{reports:?}");
}

#[test]
fn sink_callbacks_may_reenter_every_method() {
    run_host_actions([
        TestAction::run(
            r"
        var writer;
        var ws = new WritableStream({
          start(c) {
            log.push('start ' + ws);  // the stream object is not yet assigned
          },
          write(chunk, c) {
            log.push('write ' + chunk + ' ' + writer.desiredSize);
            if (chunk === 1) writer.write(3).then(() => log.push('w3'), e => log.push('w3 ' + e.name));
            if (chunk === 2) {
              writer.releaseLock();
              writer = ws.getWriter();
              writer.close().then(() => log.push('closed'));
              c.error(new Error('ignored?'));
            }
          },
          close() { log.push('sink close'); },
        }, { highWaterMark: 2, size(chunk) { log.push('size ' + chunk); return 1; } });
        writer = ws.getWriter();
        writer.write(1);
        writer.write(2);
        ",
        ),
        TestAction::run_to_idle(),
        // write(1) queues chunk 3 (desiredSize stays 0 while write 2 is in flight: 2 − 2);
        // controller.error() in write(2) errors the stream (still "writable" with a close
        // queued), so write 3 rejects and the sink's close is never called.
        TestAction::assert_string(
            "log.join(' | ')",
            "start undefined | size 1 | size 2 | write 1 0 | size 3 | write 2 0 | w3 Error",
        ),
        TestAction::inspect_host(|host, _| {
            let reports = host.take_reports();
            assert!(
                reports
                    .iter()
                    .all(|r| matches!(r, HostReport::UnhandledRejection(_))),
                "{reports:?}"
            );
        }),
    ]);
}

#[test]
fn pending_requests_survive_garbage_collection() {
    run_host_actions([
        TestAction::run(
            r"
        var resolveWrite;
        (() => {
          const ws = new WritableStream({
            write(chunk) { gc(); return new Promise(r => { resolveWrite = r; }); },
            close() { log.push('sink close'); },
            abort(r) { log.push('abort ' + r); },
          }, { highWaterMark: 0 });
          const w = ws.getWriter();
          for (let i = 0; i < 100; i++) w.write({ i }).then(() => log.push('w' + i));
          w.close().then(() => log.push('closed'));
        })();
        gc();
        ",
        ),
        TestAction::run_to_idle(),
        TestAction::run("gc(); resolveWrite();"),
        TestAction::inspect(|fixture| {
            for _ in 0..200 {
                fixture.run_to_idle();
                fixture.eval("gc(); resolveWrite();");
            }
        }),
        TestAction::assert_string(
            "log.length + ' ' + log[0] + ' ' + log.slice(-3).join(' ')",
            "102 w0 sink close w99 closed",
        ),
    ]);
}

#[test]
fn interface_shapes() {
    run_host_actions([TestAction::assert_string(
        r"
        const out = [];
        for (const name of ['WritableStream', 'WritableStreamDefaultWriter', 'WritableStreamDefaultController']) {
          const d = Object.getOwnPropertyDescriptor(globalThis, name);
          out.push(name + ' ' + d.writable + d.enumerable + d.configurable + ' ' + globalThis[name].length);
          const proto = globalThis[name].prototype;
          for (const key of Object.getOwnPropertyNames(proto)) {
            if (key === 'constructor') continue;
            const p = Object.getOwnPropertyDescriptor(proto, key);
            out.push('  ' + key + (p.get ? ' get:' + p.get.name : ' ' + p.value.length) + ' ' + p.enumerable + p.configurable);
          }
        }
        out.join('\n')
        ",
        "WritableStream truefalsetrue 0
  locked get:get locked truetrue
  abort 0 truetrue
  close 0 truetrue
  getWriter 0 truetrue
WritableStreamDefaultWriter truefalsetrue 1
  closed get:get closed truetrue
  desiredSize get:get desiredSize truetrue
  ready get:get ready truetrue
  abort 0 truetrue
  close 0 truetrue
  releaseLock 0 truetrue
  write 0 truetrue
WritableStreamDefaultController truefalsetrue 0
  signal get:get signal truetrue
  error 0 truetrue",
    )]);
}

/// [[writeRequests]] and the controller's queue give their memory back as they drain: 100,000
/// writes wait for the sink's start, and once they are written neither keeps room for more
/// than 64 entries.
#[test]
fn write_requests_give_memory_back_as_they_drain() {
    let mut fixture = Fixture::host();
    fixture.run([TestAction::run(
        "var ws = new WritableStream({ start() { return new Promise(r => { globalThis.go = r; }); }, write() {} });
         var w = ws.getWriter();
         for (let i = 0; i < 100000; i++) w.write(i);",
    )]);
    let ws = support::global(fixture.context(), "ws");
    let (len, capacity, _) = boa_streams::writable_queue_capacities(&ws).expect("a WritableStream");
    assert_eq!(len, 100_000);
    assert!(capacity >= 100_000);
    fixture.run([TestAction::run("go()"), TestAction::run_to_idle()]);
    let (len, capacity, queue) =
        boa_streams::writable_queue_capacities(&ws).expect("a WritableStream");
    assert_eq!(len, 0);
    assert!(capacity <= 64, "capacity {capacity} kept");
    assert!(queue <= 64, "queue capacity {queue} kept");
    assert_eq!(
        boa_streams::writable_queue_capacities(&support::global(fixture.context(), "w")),
        None,
        "a writer is no WritableStream"
    );
}
