//! Transferable streams across agents on two threads (`Host::spawn_agent`): a 1 MiB byte stream
//! read back intact, backpressure through the port, cancel and abort reasons in both
//! directions, and an agent that goes away mid-stream.

use std::{
    thread::JoinHandle,
    time::{Duration, Instant},
};

use crate::support::global;
use crate::support::script::{Fixture, TestAction};
use boa_streams::host::{test_api, AgentExit, HostOptions, RunOutcome};

const LIMIT: Duration = Duration::from_secs(60);

/// Runs `agent_js` in a spawned agent and `main_js` here (in a host fixture), each with its
/// side of the port as the global `port`, until the main script sets `globalThis.done`.
/// Returns the main fixture (for its `result`) and the agent's exit.
fn two_agents(main_js: &str, agent_js: &'static str) -> (Fixture, JoinHandle<AgentExit>) {
    let mut fixture = Fixture::host();
    let (host, ctx) = fixture.parts();
    let (port, agent) = host
        .spawn_agent(ctx, HostOptions::default(), move |host, ctx, port| {
            host.set_global(ctx, "port", port)?;
            host.eval_script(ctx, "agent.js", agent_js)?;
            Ok(())
        })
        .expect("spawn");
    host.set_global(ctx, "port", port).expect("port");
    host.eval_script(ctx, "main.js", main_js)
        .expect("main script");
    let outcome = host.run_until(ctx, Some(Instant::now() + LIMIT), &mut |ctx| {
        test_api::global_object(ctx)
            .get("done", ctx)
            .is_ok_and(|v| v.to_boolean())
    });
    assert_eq!(outcome, RunOutcome::Done, "the main script did not finish");
    (fixture, agent)
}

/// Joins the agent's thread, failing the test (instead of hanging) if it does not end.
fn join(agent: JoinHandle<AgentExit>) -> AgentExit {
    let deadline = Instant::now() + LIMIT;
    while !agent.is_finished() {
        assert!(Instant::now() < deadline, "the agent thread did not end");
        std::thread::sleep(Duration::from_millis(5));
    }
    agent.join().expect("the agent thread panicked")
}

/// The byte the 1 MiB stream has at `index`.
fn pattern(index: usize) -> u8 {
    (index.wrapping_mul(31).wrapping_add(index >> 11) & 255) as u8
}

#[test]
fn a_one_mebibyte_byte_stream_crosses_to_another_thread_intact() {
    let main_js = r#"
        const SIZE = 1 << 20, CHUNK = 65536;
        let offset = 0;
        const rs = new ReadableStream({
          type: 'bytes',
          pull(c) {
            if (offset >= SIZE) { c.close(); return; }
            const chunk = new Uint8Array(CHUNK);
            for (let i = 0; i < CHUNK; i++) {
              const n = offset + i;
              chunk[i] = (n * 31 + (n >> 11)) & 255;
            }
            offset += CHUNK;
            c.enqueue(chunk);
          },
        });
        port.onmessage = (e) => {
          globalThis.result = e.data;
          globalThis.done = true;
          port.close();
        };
        port.postMessage(rs, [rs]);
        globalThis.lockedAfterTransfer = rs.locked;
    "#;
    let agent_js = r#"
        port.onmessage = async ({ data: rs }) => {
          const reader = rs.getReader();
          const parts = [];
          let total = 0;
          for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            parts.push(value);
            total += value.byteLength;
          }
          const all = new Uint8Array(total);
          let at = 0;
          for (const part of parts) { all.set(part, at); at += part.byteLength; }
          port.postMessage(all.buffer, [all.buffer]);
        };
    "#;
    let (mut fixture, agent) = two_agents(main_js, agent_js);
    fixture.run([
        // A transferred stream is locked.
        TestAction::assert_eq("lockedAfterTransfer", true),
        TestAction::inspect_context(|ctx| {
            let result = global(ctx, "result");
            assert!(result.is_object(), "an ArrayBuffer came back");
            let bytes = boa_streams::rust::with_chunk_bytes(&result, ctx, <[u8]>::to_vec)
                .expect("a buffer, not detached");
            assert_eq!(bytes.len(), 1 << 20);
            let first_bad = bytes
                .iter()
                .enumerate()
                .find(|(i, b)| **b != pattern(*i))
                .map(|(i, _)| i);
            assert_eq!(first_bad, None, "the bytes differ");
        }),
        TestAction::inspect_host(|host, _| assert!(host.take_reports().is_empty())),
    ]);
    let (_host, ctx) = fixture.into_parts();
    drop(ctx);
    let exit = join(agent);
    assert_eq!(exit.error, None);
    assert!(exit.reports.is_empty(), "{:?}", exit.reports);
}

#[test]
fn a_slow_reader_holds_the_writers_desired_size_across_the_port() {
    // The agent's sink holds its first write until the main thread says "release"; until then
    // nothing more can cross: the cross-realm writable here sends a chunk only after the other
    // side pulled, and the other side pulls only when its pipe can write.
    let agent_js = r#"
        const received = [];
        let release;
        const gate = new Promise(r => { release = r; });
        let released = false;
        const ws = new WritableStream({
          write(chunk) {
            received.push(chunk);
            if (received.length === 1) port.postMessage({ got: chunk });
            return released ? undefined : gate;
          },
          close() { port.postMessage({ closed: received }); },
        }, { highWaterMark: 1 });
        port.onmessage = (e) => {
          if (e.data === 'release') {
            port.postMessage({ before: received.length });
            released = true;
            release();
          }
        };
        port.postMessage({ ws }, [ws]);
    "#;
    let main_js = r#"
        const log = [];
        let writer;
        port.onmessage = (e) => {
          const d = e.data;
          if (d.ws) {
            writer = d.ws.getWriter();
            log.push(['start', writer.desiredSize]);
            for (const c of ['a', 'b', 'c']) writer.write(c);
            log.push(['queued', writer.desiredSize]);
          } else if (d.got) {
            log.push(['got', d.got, writer.desiredSize]);
            setTimeout(() => {
              log.push(['still', writer.desiredSize]);
              port.postMessage('release');
            }, 50);
          } else if ('before' in d) {
            log.push(['before', d.before]);
            writer.close();
          } else if (d.closed) {
            log.push(['closed', d.closed, writer.desiredSize]);
            globalThis.result = JSON.stringify(log);
            globalThis.done = true;
            port.close();
          }
        };
    "#;
    let (mut fixture, agent) = two_agents(main_js, agent_js);
    fixture.run([TestAction::assert_string(
        "result",
        r#"[["start",1],["queued",-2],["got","a",-1],["still",-1],["before",1],["closed",["a","b","c"],0]]"#,
    )]);
    let (_host, ctx) = fixture.into_parts();
    drop(ctx);
    assert_eq!(join(agent).error, None);
}

#[test]
fn cancel_and_abort_reasons_cross_in_both_directions() {
    let agent_js = r#"
        // Streams made here, canceled or aborted on the main thread.
        const rs2 = new ReadableStream({
          cancel(reason) {
            port.postMessage({ case: 'rs2 canceled here', name: reason.name, message: reason.message, isRangeError: reason instanceof RangeError });
          },
        });
        const ws4 = new WritableStream({
          abort(reason) {
            port.postMessage({ case: 'ws4 aborted here', name: reason.name, message: reason.message, isDOMException: reason instanceof DOMException });
          },
        });
        port.postMessage({ rs2, ws4 }, [rs2, ws4]);
        port.onmessage = async ({ data }) => {
          // Streams made on the main thread, canceled or aborted here.
          const cancel = await data.rs1.cancel({ code: 42, nested: [1, 2] });
          const abort = await data.ws3.abort(new TypeError('nope'));
          port.postMessage({ case: 'settled here', cancel, abort });
        };
    "#;
    let main_js = r#"
        const log = {};
        const finish = () => {
          if (Object.keys(log).length === 5) {
            globalThis.result = JSON.stringify(Object.fromEntries(Object.entries(log).sort()));
            globalThis.done = true;
            port.close();
          }
        };
        const rs1 = new ReadableStream({
          cancel(reason) {
            log.rs1 = { code: reason.code, nested: reason.nested };
            finish();
          },
        });
        const ws3 = new WritableStream({
          abort(reason) {
            log.ws3 = { name: reason.name, message: reason.message, isTypeError: reason instanceof TypeError };
            finish();
          },
        });
        port.postMessage({ rs1, ws3 }, [rs1, ws3]);
        port.onmessage = async ({ data }) => {
          if (data.rs2) {
            await data.rs2.cancel(new RangeError('halt'));
            await data.ws4.abort(new DOMException('stop it', 'AbortError'));
            return;
          }
          log[data.case] = data;
          finish();
        };
    "#;
    let (mut fixture, agent) = two_agents(main_js, agent_js);
    let result = fixture.eval_string("result");
    for expected in [
        r#""rs1":{"code":42,"nested":[1,2]}"#,
        r#""ws3":{"name":"TypeError","message":"nope","isTypeError":true}"#,
        r#""rs2 canceled here":{"case":"rs2 canceled here","name":"RangeError","message":"halt","isRangeError":true}"#,
        r#""ws4 aborted here":{"case":"ws4 aborted here","name":"AbortError","message":"stop it","isDOMException":true}"#,
        r#""settled here":{"case":"settled here"}"#,
    ] {
        assert!(
            result.contains(expected),
            "{expected} missing from {result}"
        );
    }
    let (_host, ctx) = fixture.into_parts();
    drop(ctx);
    assert_eq!(join(agent).error, None);
}

#[test]
fn an_agent_that_goes_away_mid_stream_errors_the_readable_it_was_reading() {
    // The agent reads one chunk of an endless stream and closes itself: its context is dropped,
    // its ports are disentangled, and the side here (the cross-realm writable the original
    // stream is piped into) errors, which cancels the original stream.
    let main_js = r#"
        let n = 0;
        const rs = new ReadableStream({
          pull(c) { c.enqueue(n++); },
          cancel(reason) {
            globalThis.result = `${reason.name}: ${reason.message}`;
            globalThis.done = true;
          },
        });
        port.postMessage(rs, [rs]);
    "#;
    let agent_js = r#"
        port.onmessage = async ({ data: rs }) => {
          const { value } = await rs.getReader().read();
          if (value === 0) close();
        };
    "#;
    let (mut fixture, agent) = two_agents(main_js, agent_js);
    fixture.run([TestAction::assert_string(
        "result",
        "TypeError: the other side of the transferred stream went away (its MessagePort was disentangled)",
    )]);
    let (_host, ctx) = fixture.into_parts();
    drop(ctx);
    assert_eq!(join(agent).error, None);
}

#[test]
fn an_agent_that_goes_away_mid_stream_errors_the_writable_it_was_writing() {
    // The writing side goes away: the readable here (piped into the original writable) errors,
    // which aborts the original writable.
    let main_js = r#"
        const ws = new WritableStream({
          abort(reason) {
            globalThis.result = `${reason.name}: ${reason.message}`;
            globalThis.done = true;
          },
        });
        port.postMessage(ws, [ws]);
    "#;
    let agent_js = r#"
        port.onmessage = async ({ data: ws }) => {
          const writer = ws.getWriter();
          await writer.write('first');
          close();
        };
    "#;
    let (mut fixture, agent) = two_agents(main_js, agent_js);
    fixture.run([TestAction::assert_string(
        "result",
        "TypeError: the other side of the transferred stream went away (its MessagePort was disentangled)",
    )]);
    let (_host, ctx) = fixture.into_parts();
    drop(ctx);
    assert_eq!(join(agent).error, None);
}

#[test]
fn an_event_loop_waits_without_spinning_and_returns_once_nothing_can_arrive() {
    // The agent answers after 200 ms; meanwhile this thread waits on its inbox. Then the agent
    // closes its port, nothing can arrive any more, and `run_until` returns idle by itself.
    let mut fixture = Fixture::host();
    let (host, ctx) = fixture.parts();
    let (port, agent) = host
        .spawn_agent(ctx, HostOptions::default(), |host, ctx, port| {
            host.set_global(ctx, "port", port)?;
            host.eval_script(
                ctx,
                "agent.js",
                "setTimeout(() => { port.postMessage('late'); port.close(); }, 200);",
            )?;
            Ok(())
        })
        .expect("spawn");
    host.set_global(ctx, "port", port).expect("port");
    host.eval_script(
        ctx,
        "main.js",
        "port.onmessage = e => { globalThis.got = e.data; }; port.onclose = () => { globalThis.closed = true; };",
    )
    .unwrap();
    let started = Instant::now();
    let cpu_before = cpu_time();
    let outcome = host.run_until(ctx, Some(Instant::now() + LIMIT), &mut |_| false);
    let waited = started.elapsed();
    assert_eq!(outcome, RunOutcome::Idle);
    assert!(
        waited >= Duration::from_millis(150),
        "returned after {waited:?}"
    );
    fixture.run([
        TestAction::assert_string("got", "late"),
        // The close event fired.
        TestAction::assert_eq("closed", true),
    ]);
    if let (Some(before), Some(after)) = (cpu_before, cpu_time()) {
        // Blocking, not spinning: far less CPU than wall time (generous for a shared machine).
        assert!(
            after - before < waited / 2,
            "{:?} of CPU in {waited:?}",
            after - before
        );
    }
    assert_eq!(join(agent).error, None);
}

/// This thread's CPU time, where the platform reports it (Linux).
fn cpu_time() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    Some(Duration::from_millis(ticks * 10))
}
