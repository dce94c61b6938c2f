//! Nothing leaks after 10,000 transferred streams: every port message queue is released, and the
//! agent holds no port once the streams are done. (Its own test binary: the port counter is
//! process-wide.)

mod support;

use std::time::Instant;

use boa_streams::host::RunOutcome;
use support::script::{Fixture, TestAction};

#[test]
fn ten_thousand_transferred_streams_release_their_ports() {
    let before = boa_streams::live_port_queues();
    let mut fixture = Fixture::host();
    fixture.run([TestAction::run(
        r#"
        globalThis.total = 0;
        globalThis.finished = 0;
        const N = 10000;
        // Readable, writable and transform streams, each transferred once and then used to the
        // end (so its cross-realm ports are disentangled).
        (async () => {
          for (let i = 0; i < N; i++) {
            switch (i % 3) {
              case 0: {
                const rs = new ReadableStream({ start(c) { c.enqueue(i); c.close(); } });
                const moved = structuredClone(rs, { transfer: [rs] });
                const reader = moved.getReader();
                const { value } = await reader.read();
                total += value;
                await reader.closed;
                break;
              }
              case 1: {
                let got;
                const ws = new WritableStream({ write(chunk) { got = chunk; } });
                const moved = structuredClone(ws, { transfer: [ws] });
                const writer = moved.getWriter();
                await writer.write(i);
                await writer.close();
                // The original sink gets the chunk once the pipe inside this realm delivered it.
                await new Promise(resolve => setTimeout(resolve, 0));
                total += got ?? 0;
                break;
              }
              default: {
                const ts = new TransformStream();
                const moved = structuredClone(ts, { transfer: [ts] });
                const writer = moved.writable.getWriter();
                const reader = moved.readable.getReader();
                writer.write(i);
                writer.close();
                const { value } = await reader.read();
                total += value;
                await reader.closed;
                break;
              }
            }
            finished++;
          }
        })();
        "#,
    )]);
    let total: f64 = (0..10_000u32).map(f64::from).sum();
    fixture.run([
        TestAction::inspect_host(|host, ctx| {
            let started = Instant::now();
            let outcome = host.run_until(ctx, None, &mut |_| false);
            eprintln!("10,000 transfers in {:?}", started.elapsed());
            assert_eq!(outcome, RunOutcome::Idle);
        }),
        TestAction::assert_no_failures(),
        TestAction::assert("finished === 10000"),
        TestAction::assert(format!("total === {total}")),
        // No port is held by the agent any more, and after a collection none is alive.
        TestAction::inspect_host(|host, ctx| assert_eq!(host.entangled_ports(ctx), 0)),
    ]);
    boa_streams::host::test_api::collect_garbage(fixture.context());
    assert_eq!(boa_streams::live_port_queues(), before);
    drop(fixture);
}
