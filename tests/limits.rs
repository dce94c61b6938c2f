//! The host's limits for untrusted scripts ([`HostOptions::memory_limit`],
//! [`HostOptions::time_limit`], [`HostOptions::loop_iteration_limit`]): each ends a runaway
//! script with an error or a [`HostReport`], and the host stays usable (or closed, cleanly).
//! No test measures time: each sets a limit, runs something that never ends on its own, and
//! asserts how it ended.

use std::time::Duration;

use boa_streams::host::test_api;
use boa_streams::host::{error_message, Host, HostOptions, HostReport, RunOutcome};

/// A string value's text ("" for another value).
fn text(value: &boa_streams::Value) -> String {
    value
        .as_string()
        .map(|s| s.to_std_string_lossy())
        .unwrap_or_default()
}

fn host(options: HostOptions) -> (Host, boa_streams::host::Context) {
    Host::new(options).expect("a host")
}

/// A short time limit, and on Boa (which cannot interrupt running script) a loop limit.
fn runaway_limits() -> HostOptions {
    HostOptions {
        time_limit: Some(Duration::from_millis(200)),
        loop_iteration_limit: Some(100_000),
        ..HostOptions::default()
    }
}

fn is_limit_report(report: &HostReport) -> bool {
    matches!(report, HostReport::LimitExceeded(m) if m.contains("time limit"))
}

/// The host reported that the time limit ran out, and its loop stays closed.
fn assert_closed_by_the_time_limit(host: &Host, ctx: &mut boa_streams::host::Context) {
    let reports = host.take_reports();
    assert!(reports.iter().any(is_limit_report), "{reports:?}");
    assert_eq!(
        host.run_until(ctx, None, &mut |_| false),
        RunOutcome::Closed
    );
}

#[test]
fn an_infinite_loop_ends_with_an_uncatchable_error() {
    let (host, mut ctx) = host(runaway_limits());
    let error = host
        .eval_script(
            &mut ctx,
            "loop.js",
            "let caught = false; try { for (;;) {} } catch { caught = true; }",
        )
        .expect_err("the loop cannot run forever");
    assert!(error.is_uncatchable(), "{}", error_message(error, &mut ctx));
    // `catch` did not run.
    let caught = host.eval_script(&mut ctx, "after.js", "caught").ok();
    assert_ne!(caught.and_then(|v| v.as_boolean()), Some(true));
}

/// QuickJS's interrupt handler ends a loop by time alone (Boa needs its loop limit).
#[cfg(not(feature = "engine-boa"))]
#[test]
fn the_time_limit_interrupts_a_loop_on_quickjs() {
    let (host, mut ctx) = host(HostOptions {
        time_limit: Some(Duration::from_millis(100)),
        ..HostOptions::default()
    });
    let error = host
        .eval_script(&mut ctx, "loop.js", "while (true) {}")
        .expect_err("interrupted");
    assert!(error.is_uncatchable());
    let message = error_message(error, &mut ctx);
    assert!(message.contains("interrupted"), "{message}");
    assert_closed_by_the_time_limit(&host, &mut ctx);
}

#[test]
fn a_loop_in_a_timer_ends_and_the_agent_closes_or_reports() {
    let (host, mut ctx) = host(runaway_limits());
    host.eval_script(
        &mut ctx,
        "timer.js",
        "setTimeout(() => { for (;;) {} }, 0); setTimeout(() => { globalThis.later = 1; }, 1);",
    )
    .expect("the script itself is short");
    let outcome = host.run_until(&mut ctx, None, &mut |_| false);
    let reports = host.take_reports();
    // Boa: the loop limit throws in the timer's task (reported) and the loop goes on; QuickJS:
    // the interrupt ends the task once the time limit ran out, and the agent closes.
    assert!(!reports.is_empty(), "the runaway timer is reported");
    if outcome == RunOutcome::Closed {
        assert!(reports.iter().any(is_limit_report), "{reports:?}");
    } else {
        assert_eq!(outcome, RunOutcome::Idle);
        assert!(
            matches!(&reports[0], HostReport::UncaughtError(_)),
            "{reports:?}"
        );
    }
}

/// Runs `script` (which returns at once but leaves work that never ends) under
/// [`runaway_limits`]: the time limit must stop it between microtasks, report it and close
/// the agent.
fn ends_by_the_time_limit(script: &str) {
    let (host, mut ctx) = host(runaway_limits());
    host.eval_script(&mut ctx, "runaway.js", script)
        .expect("the script returns; its checkpoint is cut short");
    assert_closed_by_the_time_limit(&host, &mut ctx);
}

/// A chain of microtasks that never ends (no loop anywhere): both engines stop it between
/// microtasks once the time limit runs out.
#[test]
fn an_endless_microtask_chain_ends_by_the_time_limit() {
    ends_by_the_time_limit(
        "globalThis.n = 0; function again() { n++; queueMicrotask(again); } again();",
    );
}

/// A source whose `pull` enqueues forever (a high-water mark of Infinity asks for more after
/// every chunk): memory grows until the time limit stops it.
#[test]
fn a_stream_that_enqueues_forever_ends_by_the_time_limit() {
    ends_by_the_time_limit(
        "new ReadableStream({ pull(c) { c.enqueue(new Uint8Array(1024)); } },
                           { highWaterMark: Infinity });",
    );
}

/// QuickJS's memory limit: a stream that enqueues forever fails with a catchable
/// `InternalError: out of memory`; the stream errors, and the host is usable afterwards
/// (the memory comes back once the stream is collected).
#[cfg(not(feature = "engine-boa"))]
#[test]
fn a_stream_that_enqueues_forever_ends_by_the_memory_limit_on_quickjs() {
    let (host, mut ctx) = host(HostOptions {
        memory_limit: Some(32 << 20),
        ..HostOptions::default()
    });
    // In `start` (a loop, synchronous): the constructor throws the error, catchably.
    let caught = host
        .eval_script(
            &mut ctx,
            "start.js",
            "let message = 'none';
             try {
               new ReadableStream({ start(c) { for (;;) c.enqueue(new Uint8Array(65536)); } });
             } catch (e) { message = String(e); }
             message",
        )
        .expect("the error is caught");
    let message = text(&caught);
    assert!(message.contains("out of memory"), "{message}");
    // In `pull` (microtasks): the pull's promise rejects, so the stream errors and stops.
    host.eval_script(
        &mut ctx,
        "pull.js",
        "globalThis.rs = new ReadableStream(
           { pull(c) { c.enqueue(new Uint8Array(65536)); } }, { highWaterMark: Infinity });
         globalThis.result = 'pending';
         rs.getReader().closed.then(() => { result = 'closed'; }, e => { result = String(e); });",
    )
    .expect("the script returns");
    assert_eq!(
        host.run_until(&mut ctx, None, &mut |_| false),
        RunOutcome::Idle
    );
    host.eval_script(&mut ctx, "drop.js", "rs = undefined;")
        .expect("no error");
    test_api::collect_garbage(&mut ctx);
    let result = host
        .eval_script(
            &mut ctx,
            "after.js",
            "[result, new Uint8Array(1 << 20).length].join()",
        )
        .expect("usable again");
    let result = text(&result);
    assert!(
        result.starts_with("InternalError: out of memory,1048576"),
        "{result}"
    );
}

/// Boa 0.22 has no memory limit: the option is accepted and changes nothing.
#[cfg(feature = "engine-boa")]
#[test]
fn the_memory_limit_is_not_enforced_on_boa() {
    let (host, mut ctx) = host(HostOptions {
        memory_limit: Some(1 << 20),
        ..HostOptions::default()
    });
    let length = host
        .eval_script(&mut ctx, "big.js", "new Uint8Array(4 << 20).length")
        .expect("no limit");
    assert_eq!(length.as_number(), Some(f64::from(4 << 20)));
}

/// Bodies and `Blob` streams queue Rust bytes no script sees, and an unread stream that became
/// garbage holds them until the engine collects it, which neither engine's collector would do
/// for bytes it does not see. They count toward a forced collection
/// (`engine::COLLECT_AFTER_EXTERNAL_BYTES`, 16 MiB): 100 unread 1 MiB bodies, then 100 unread
/// streams of a 1 MiB `Blob`, never hold more than that budget (and a chunk) at once.
#[test]
fn unread_streams_of_rust_bytes_are_collected_as_their_bytes_add_up() {
    const MIB: usize = 1 << 20;
    let (host, mut ctx) = host(HostOptions::default());
    let base = test_api::external_bytes_held();
    let held = || test_api::external_bytes_held().saturating_sub(base);
    // A body kept alive holds its bytes, counted.
    host.eval_script(
        &mut ctx,
        "kept",
        "globalThis.kept = new Response(new Uint8Array(1 << 20));",
    )
    .expect("the script runs");
    assert!(held() >= MIB, "a kept body counts {} bytes", held());
    let mut peak = 0;
    for round in 0..100 {
        // (The `body` getter makes the stream, which then holds the bytes.)
        host.eval_script(
            &mut ctx,
            "bodies",
            "new Response(new Uint8Array(1 << 20)).body;",
        )
        .expect("the script runs");
        // (A task between scripts: the loop's turn is one of the two places that collect.)
        host.eval_script(&mut ctx, "tick", "setTimeout(() => {}, 0);")
            .expect("the script runs");
        host.run_until(&mut ctx, None, &mut |_| false);
        peak = peak.max(held());
        assert!(held() <= 18 * MIB, "round {round}: {} bytes held", held());
    }
    assert!(
        peak >= 8 * MIB,
        "unread bodies were counted (peak {peak} bytes)"
    );
    let script = "const blob = new Blob([new Uint8Array(1 << 20)]); \
                  for (let i = 0; i < 100; i++) blob.stream();";
    host.eval_script(&mut ctx, "streams", script)
        .expect("the script runs");
    host.run_until(&mut ctx, None, &mut |_| false);
    assert!(
        held() <= 18 * MIB,
        "{} bytes held by unread Blob streams",
        held()
    );
    assert!(host.take_reports().is_empty());
}

/// A body made from bytes and dropped at once holds nothing once it is garbage, even within one
/// synchronous loop that never lets a microtask run: under a 64 MiB limit on the bytes held,
/// 300 bodies of 1 MiB made one after another (300 MiB in all) never reach it. (Its stream is
/// made only when something asks for it, so no start microtask keeps a stream and its bytes
/// alive; on Boa the bytes counted force a collection every 16 MiB.)
#[test]
fn bodies_made_and_dropped_in_one_synchronous_loop_do_not_add_up() {
    let (host, mut ctx) = host(HostOptions {
        memory_limit: Some(64 << 20),
        ..HostOptions::default()
    });
    let script = "
        const bytes = new Uint8Array(1 << 20);
        let made = 0, error = 'none';
        try {
            for (let i = 0; i < 300; i++) {
                new Response(bytes);
                new Request('http://example.test/', { method: 'POST', body: bytes });
                made++;
            }
        } catch (e) { error = e.constructor.name + ': ' + e.message; }
        [error, made].join()";
    let result = host
        .eval_script(&mut ctx, "loop.js", script)
        .expect("the script runs");
    assert_eq!(text(&result), "none,300");
    // A body kept and read still has all its bytes.
    let script = "
        globalThis.read = 'pending';
        const kept = new Response(new Uint8Array(3 << 20).fill(7));
        kept.arrayBuffer().then((b) => {
            read = b.byteLength + ':' + new Uint8Array(b).every((x) => x === 7);
        });";
    host.eval_script(&mut ctx, "kept.js", script)
        .expect("the script runs");
    host.run_until(&mut ctx, None, &mut |_| false);
    let read = host
        .eval_script(&mut ctx, "read.js", "read")
        .expect("a value");
    assert_eq!(text(&read), "3145728:true");
}

/// Buffers a JS source enqueues and a JS reader drops are collected while the reading goes on,
/// not only once the collector gets to them by its own count of objects (Boa weighs a buffer by
/// its object, not its data, so 64 MiB of dead 1 MiB buffers would wait for it): a
/// `FinalizationRegistry` sees at least half of 64 such buffers go before the last is read.
#[test]
fn buffers_enqueued_by_script_and_dropped_are_collected_as_they_add_up() {
    let (host, mut ctx) = host(HostOptions::default());
    let script = "
        globalThis.result = 'pending';
        let finalized = 0;
        const registry = new FinalizationRegistry(() => { finalized++; });
        let made = 0;
        const stream = new ReadableStream({
            pull(c) {
                const chunk = new Uint8Array(1 << 20);
                registry.register(chunk, made);
                c.enqueue(chunk);
                if (++made === 64) c.close();
            },
        });
        (async () => {
            const reader = stream.getReader();
            let read = 0, seenBeforeLast = 0;
            for (;;) {
                const { done, value } = await reader.read();
                if (done) break;
                if (++read === 64) seenBeforeLast = finalized;
                // Let a queued cleanup job run between reads.
                await new Promise((resolve) => setTimeout(resolve, 0));
            }
            result = read + ':' + seenBeforeLast;
        })();";
    host.eval_script(&mut ctx, "buffers.js", script)
        .expect("the script runs");
    host.run_until(&mut ctx, None, &mut |_| false);
    let result = host
        .eval_script(&mut ctx, "result.js", "result")
        .expect("a value");
    let result = text(&result);
    let (read, seen) = result.split_once(':').expect("two parts");
    assert_eq!(read, "64", "{result}");
    let seen: u32 = seen.parse().expect("a count");
    assert!(
        seen >= 32,
        "only {seen} of 63 dropped buffers were collected while reading"
    );
}

/// The bytes bodies and `Blob` streams hold in Rust are outside the engine's heap, so the
/// memory limit bounds them apart from it, on both engines: past it, a body's extraction
/// throws a RangeError (catchably), and a `Blob`'s stream errors with one, as making their
/// `ArrayBuffer`s would. Dropping what holds them makes room again.
#[test]
fn the_memory_limit_bounds_the_bytes_bodies_and_blob_streams_hold() {
    let (host, mut ctx) = host(HostOptions {
        memory_limit: Some(64 << 20),
        ..HostOptions::default()
    });
    let script = "
        globalThis.big = new Uint8Array(8 << 20);
        globalThis.kept = [];
        let error = 'none';
        try {
            for (let i = 0; i < 100; i++) kept.push(new Response(big));
        } catch (e) { error = e.constructor.name; }
        [error, kept.length].join()";
    let result = host
        .eval_script(&mut ctx, "bodies.js", script)
        .expect("caught");
    let result = text(&result);
    let (error, count) = result.split_once(',').expect("two parts");
    let count: usize = count.parse().expect("a count");
    assert_eq!(error, "RangeError", "{result}");
    assert!((4..=8).contains(&count), "{result}");
    // Room again once they are dropped: a Blob's streams, their chunks all queued before
    // any read, up to the limit; past it they error.
    let script = "
        kept = [];
        const blob = new Blob([big]);
        globalThis.streams = Array.from({ length: 12 }, () => blob.stream());";
    host.eval_script(&mut ctx, "streams.js", script)
        .expect("runs");
    host.run_until(&mut ctx, None, &mut |_| false);
    let script = "
        globalThis.outcome = 'pending';
        Promise.all(streams.map(async (stream) => {
            const reader = stream.getReader();
            try {
                let n = 0;
                for (;;) { const { done, value } = await reader.read(); if (done) return n; n += value.length; }
            } catch (e) { return e.constructor.name; }
        })).then((ends) => { outcome = ends.join(); });";
    host.eval_script(&mut ctx, "reads.js", script)
        .expect("runs");
    host.run_until(&mut ctx, None, &mut |_| false);
    let outcome = host
        .eval_script(&mut ctx, "outcome.js", "outcome")
        .expect("an outcome");
    let outcome = text(&outcome);
    let ends: Vec<&str> = outcome.split(',').collect();
    assert_eq!(ends.len(), 12, "{outcome}");
    let whole = ends.iter().filter(|end| **end == "8388608").count();
    let errored = ends.iter().filter(|end| **end == "RangeError").count();
    assert_eq!(whole + errored, 12, "{outcome}");
    assert!(whole >= 4 && errored >= 1, "{outcome}");
    assert!(host.take_reports().is_empty());
}
