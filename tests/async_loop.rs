//! The event loop as a future (the `tokio` feature): the same turns as the blocking loop, so
//! one script logs the same events in both modes; timers on tokio's (pausable) clock; Rust
//! work queued from other tasks and threads wakes the loop.
#![cfg(feature = "tokio")]

use std::{cell::Cell, rc::Rc, time::Duration};

use boa_streams::host::{Context, Host, HostOptions, RunOutcome};
use boa_streams::rust::{LoopHandle, ReadableStream};

/// Tasks, timers (same due time, different due times, nested, cleared, intervals), microtasks,
/// promise chains, streams and a message channel, logging each event in order.
///
/// Every timer is set due after every timer still waiting when it is set, so no delay of the
/// machine can change their order (a later-set timer due earlier could be pushed past an
/// earlier one by a slow turn): the order is the spec's, not the clock's.
const ORDERING_SCRIPT: &str = r#"
globalThis.log = [];
const L = (s) => log.push(s);
L('script start');
setTimeout(() => {
  L('timeout 0 a');
  Promise.resolve().then(() => L('micro in timeout 0 a'));
  queueMicrotask(() => L('queueMicrotask in timeout 0 a'));
}, 0);
setTimeout(() => L('timeout 0 b'), 0);
setTimeout(() => L('timeout 10'), 10);
const cleared = setTimeout(() => L('cleared!'), 5);
clearTimeout(cleared);
setTimeout(() => {
  L('timeout 20');
  // (40, not 10: the 25 ms timer below must come first in real time too, on a loaded
  // machine where the script itself may take a few milliseconds.)
  setTimeout(() => {
    L('nested timeout 40 in 20');
    let n = 0;
    const iv = setInterval(() => {
      L('interval ' + n);
      if (++n === 3) { clearInterval(iv); port1.close(); port2.close(); }
    }, 5);
  }, 40);
}, 20);
Promise.resolve().then(() => L('micro 1')).then(() => L('micro 2'));
queueMicrotask(() => L('queueMicrotask 1'));
(async () => {
  L('async fn start');
  await null;
  L('after await');
  await new Promise((r) => setTimeout(r, 25));
  L('after timer await');
})();
const { port1, port2 } = new MessageChannel();
port2.onmessage = (e) => L('message ' + e.data);
port1.postMessage('one');
port1.postMessage('two');
const rs = new ReadableStream({
  start(c) { L('rs start'); },
  pull(c) { L('rs pull'); c.enqueue('chunk'); if (++this.i === 2) c.close(); },
  i: 0,
}, { highWaterMark: 0 });
(async () => { for await (const c of rs) L('read ' + c); L('read done'); })();
Promise.reject(new Error('handled later')).catch(() => L('caught'));
L('script end');
"#;

fn log_of(host: &Host, ctx: &mut Context) -> String {
    let value = host
        .eval_script(ctx, "log.js", "log.join('\\n')")
        .expect("the log");
    value
        .to_string(ctx)
        .expect("a string")
        .to_std_string_escaped()
}

fn blocking_log() -> String {
    let (host, mut ctx) = Host::new(HostOptions::default()).expect("a host");
    host.eval_script(&mut ctx, "order.js", ORDERING_SCRIPT)
        .expect("the script runs");
    assert_eq!(
        host.run_until(&mut ctx, None, &mut |_| false),
        RunOutcome::Idle
    );
    assert!(host.take_reports().is_empty());
    log_of(&host, &mut ctx)
}

async fn async_log() -> String {
    let (host, mut ctx) = Host::new(HostOptions::default()).expect("a host");
    host.eval_script(&mut ctx, "order.js", ORDERING_SCRIPT)
        .expect("the script runs");
    assert_eq!(host.run(&mut ctx).await, RunOutcome::Idle);
    assert!(host.take_reports().is_empty());
    log_of(&host, &mut ctx)
}

#[test]
fn the_same_script_logs_the_same_events_blocking_and_async() {
    let blocking = blocking_log();
    // Paused time: the async loop's sleeps jump the clock, so the run is deterministic.
    let paused = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .expect("a runtime")
        .block_on(async_log());
    // Real time, on a LocalSet.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a runtime");
    let real = tokio::task::LocalSet::new().block_on(&rt, async_log());
    assert_eq!(paused, blocking);
    assert_eq!(real, blocking);
    // The log holds what the script set out to do, in HTML's order.
    let lines: Vec<&str> = blocking.lines().collect();
    assert_eq!(lines[0], "script start");
    assert!(lines.contains(&"after timer await"));
    assert!(lines.contains(&"read done"));
    assert!(!lines.contains(&"cleared!"));
    assert_eq!(lines.len(), 27, "{blocking}");
}

#[tokio::test(start_paused = true)]
async fn timers_run_on_tokios_paused_clock() {
    let (host, mut ctx) = Host::new(HostOptions::default()).expect("a host");
    host.eval_script(
        &mut ctx,
        "t.js",
        "globalThis.fired = 0; setTimeout(() => fired = 1, 3_600_000);",
    )
    .expect("the script runs");
    let start = tokio::time::Instant::now();
    assert_eq!(host.run(&mut ctx).await, RunOutcome::Idle);
    // An hour of the paused clock passed, to the millisecond: the timer slept on it.
    assert_eq!(start.elapsed(), Duration::from_secs(3600));
    let fired = host.eval_script(&mut ctx, "f.js", "fired").expect("fired");
    assert_eq!(fired.as_number(), Some(1.0));
}

#[tokio::test(start_paused = true)]
async fn run_until_async_stops_when_the_condition_holds() {
    let (host, mut ctx) = Host::new(HostOptions::default()).expect("a host");
    host.eval_script(
        &mut ctx,
        "t.js",
        "globalThis.n = 0; setInterval(() => n++, 1000);",
    )
    .expect("the script runs");
    let count = |ctx: &mut Context| {
        boa_streams::host::test_api::evaluate(ctx, "n")
            .expect("n")
            .as_number()
            .unwrap_or(0.0)
    };
    let outcome = host
        .run_until_async(&mut ctx, |ctx| count(ctx) >= 5.0)
        .await;
    assert_eq!(outcome, RunOutcome::Done);
    assert_eq!(count(&mut ctx), 5.0);
}

#[test]
fn work_queued_from_another_thread_wakes_the_loop() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a runtime");
    tokio::task::LocalSet::new().block_on(&rt, async {
        let (host, mut ctx) = Host::new(HostOptions::default()).expect("a host");
        let handle = LoopHandle::new(&ctx).expect("a handle");
        let keep_alive = handle.keep_alive();
        let remote = handle.remote();
        let ran = Rc::new(Cell::new(0));
        // From a local task: a closure with no context, then the keep-alive dropped.
        let local_ran = Rc::clone(&ran);
        let local = handle.clone();
        tokio::task::spawn_local(async move {
            tokio::task::yield_now().await;
            local.queue(move |ctx| {
                local_ran.set(local_ran.get() + 1);
                boa_streams::host::test_api::evaluate(ctx, "globalThis.fromLocal = true")
                    .expect("runs");
            });
        });
        // From another thread: the loop waits (it is kept alive) until the closure arrives.
        let thread = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(20));
            remote.queue(|ctx| {
                boa_streams::host::test_api::evaluate(ctx, "globalThis.fromThread = true")
                    .expect("runs");
            });
            drop(keep_alive);
        });
        assert_eq!(host.run(&mut ctx).await, RunOutcome::Idle);
        thread.join().expect("the thread");
        assert_eq!(ran.get(), 1);
        let both = host
            .eval_script(&mut ctx, "c.js", "fromLocal && fromThread")
            .expect("both ran");
        assert_eq!(both.as_boolean(), Some(true));
    });
}

#[test]
fn complete_drives_the_loop_until_a_ticket_arrives() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .expect("a runtime");
    rt.block_on(async {
        let (host, mut ctx) = Host::new(HostOptions::default()).expect("a host");
        let js = host
            .eval_script(
                &mut ctx,
                "s.js",
                "new ReadableStream({ pull(c) { return new Promise(r => setTimeout(() => { c.enqueue(42); r(); }, 50)); } })",
            )
            .expect("a stream");
        let reader = ReadableStream::from_value(&js)
            .expect("a stream")
            .reader(&mut ctx)
            .expect("a reader");
        let ticket = reader.read(&mut ctx);
        let chunk = host.complete(&mut ctx, ticket).await.expect("the read");
        assert_eq!(chunk.expect("no error").expect("a chunk").as_number(), Some(42.0));
    });
}
