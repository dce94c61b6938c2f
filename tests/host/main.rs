//! The host: its event loop, rejection tracking and globals here, and its `Blob` in [`blob`].

#[path = "../support/mod.rs"]
mod support;

mod blob;
mod file_api;
mod rejections;
mod timers;

use std::time::{Duration, Instant};

#[cfg(feature = "engine-boa")]
use boa_engine::{job::NativeAsyncJob, js_string, JsValue};
#[cfg(feature = "engine-boa")]
use boa_streams::host::Host;
use boa_streams::host::{test_api, HostOptions, HostReport, RunOutcome};
use support::script::{run_host_actions, Fixture, TestAction};

#[test]
fn microtasks_drain_before_timers() {
    run_host_actions([
        TestAction::run(
            r"
        setTimeout(() => log.push('timeout'), 0);
        let p = Promise.resolve();
        for (let i = 0; i < 3000; i++) p = p.then(() => {});
        p.then(() => log.push('chain'));
        queueMicrotask(() => log.push('microtask'));
        ",
        ),
        // The checkpoint after the script already ran every microtask.
        TestAction::assert_log("microtask,chain"),
        TestAction::run_to_idle(),
        TestAction::assert_log("microtask,chain,timeout"),
        TestAction::inspect_host(|host, _| assert!(host.take_reports().is_empty())),
    ]);
}

#[test]
fn microtasks_queued_by_a_task_run_before_the_next_task() {
    run_host_actions([
        TestAction::run(
            r"
        setTimeout(() => { log.push('t1'); Promise.resolve().then(() => log.push('m1')); }, 0);
        setTimeout(() => log.push('t2'), 0);
        ",
        ),
        TestAction::run_to_idle(),
        TestAction::assert_log("t1,m1,t2"),
    ]);
}

#[test]
fn throwing_callbacks_are_reported_and_other_jobs_still_run() {
    run_host_actions([
        TestAction::run(
            r"
        queueMicrotask(() => { throw new TypeError('from a microtask'); });
        queueMicrotask(() => log.push('microtask after'));
        setTimeout(() => { throw new RangeError('from a timer'); }, 0);
        setTimeout(() => log.push('timer after'), 0);
        Promise.resolve().then(() => log.push('promise job'));
        ",
        ),
        TestAction::run_to_idle(),
        TestAction::assert_log("microtask after,promise job,timer after"),
        TestAction::inspect_host(|host, _| {
            assert_eq!(
                host.take_reports(),
                [
                    HostReport::UncaughtError("TypeError: from a microtask".into()),
                    HostReport::UncaughtError("RangeError: from a timer".into()),
                ]
            );
            assert!(host.take_reports().is_empty(), "take_reports drains");
        }),
    ]);
}

#[test]
fn non_error_throws_are_reported_by_their_string_form() {
    run_host_actions([
        TestAction::run(
            r"
        queueMicrotask(() => { throw 'a string'; });
        queueMicrotask(() => { throw Symbol('sym'); });
        ",
        ),
        TestAction::inspect_host(|host, _| {
            let reports = host.take_reports();
            assert_eq!(reports.len(), 2);
            assert_eq!(reports[0], HostReport::UncaughtError("a string".into()));
            assert!(matches!(&reports[1], HostReport::UncaughtError(m) if m.contains("sym")));
        }),
    ]);
}

#[test]
fn timers_run_by_delay_then_insertion_order() {
    run_host_actions([
        TestAction::run(
            r"
        setTimeout(() => log.push('c100'), 100);
        setTimeout(() => log.push('a0'), 0);
        setTimeout(() => log.push('x50'), 50);
        setTimeout(() => log.push('b0'), 0);
        setTimeout(() => log.push('d100'), 100);
        setTimeout(() => log.push('neg'), -5);
        ",
        ),
        TestAction::run_to_idle(),
        TestAction::assert_log("a0,b0,neg,x50,c100,d100"),
    ]);
}

/// User + system CPU time of the calling thread, from `/proc/thread-self/stat` (clock ticks,
/// usually 10 ms each); `None` where that file does not exist.
fn thread_cpu_ticks() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
    // Fields after the parenthesized command name: state is field 3, utime 14, stime 15.
    let after_name = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    Some(utime + stime)
}

#[test]
fn waiting_for_a_timer_sleeps_instead_of_spinning() {
    let mut fixture = Fixture::host();
    // Measured from before the timer is set: it cannot fire sooner than 300 ms after this.
    let start = Instant::now();
    fixture.run([TestAction::run(
        "var fired = false; setTimeout(() => { fired = true; }, 300);",
    )]);
    let cpu_before = thread_cpu_ticks();
    fixture.run_to_idle();
    let wall = start.elapsed();
    let cpu_after = thread_cpu_ticks();
    fixture.run([TestAction::assert("fired")]);
    assert!(wall >= Duration::from_millis(300), "fired early: {wall:?}");
    if let (Some(before), Some(after)) = (cpu_before, cpu_after) {
        // A busy wait would burn ~30 ticks; sleeping burns ~0.
        assert!(
            after - before < 10,
            "the loop spun: {} ticks",
            after - before
        );
    }
}

#[test]
fn clear_timeout_cancels_and_does_not_keep_the_loop_alive() {
    run_host_actions([
        TestAction::run(
            r"
        const a = setTimeout(() => log.push('a'), 0);
        const long = setTimeout(() => log.push('long'), 60000);
        setTimeout(() => log.push('b'), 0);
        setTimeout(() => clearTimeout(c), 0);
        var c = setTimeout(() => log.push('c'), 0);
        clearTimeout(a);
        clearTimeout(long);
        clearTimeout(12345); clearTimeout(0); clearTimeout(-1); clearTimeout('x');
        ",
        ),
        TestAction::inspect(|fixture| {
            let start = Instant::now();
            fixture.run_to_idle();
            assert!(start.elapsed() < Duration::from_secs(5));
        }),
        TestAction::assert_log("b"),
        TestAction::inspect_host(|host, _| assert!(!host.has_pending_work())),
    ]);
}

#[test]
fn set_interval_repeats_until_cleared() {
    run_host_actions([
        TestAction::run(
            r"
        var count = 0;
        var id = setInterval(() => {
            count++;
            if (count === 2) throw new Error('interval keeps going');
            if (count === 4) clearInterval(id);
        }, 5);
        ",
        ),
        TestAction::run_to_idle(),
        TestAction::assert_string("String(count)", "4"),
        TestAction::inspect_host(|host, _| {
            assert_eq!(
                host.take_reports(),
                [HostReport::UncaughtError(
                    "Error: interval keeps going".into()
                )]
            );
        }),
    ]);
}

#[test]
fn clear_interval_from_another_timer() {
    let mut fixture = Fixture::host();
    fixture.run([
        TestAction::run(
            r"
        var ticks = 0;
        var id = setInterval(() => { ticks++; }, 1);
        setTimeout(() => clearInterval(id), 50);
        ",
        ),
        TestAction::run_to_idle(),
    ]);
    let ticks: f64 = fixture.eval_string("String(ticks)").parse().unwrap();
    // At least once; how often depends on scheduling (the exact count is tested above).
    assert!(ticks >= 1.0, "interval ran {ticks} times");
}

#[test]
fn unhandled_rejections_are_reported_after_the_checkpoint() {
    run_host_actions([
        TestAction::run(
            r"
        Promise.reject(new TypeError('foo'));
        const handledLater = Promise.reject(new Error('handled in the same checkpoint'));
        Promise.resolve().then(() => Promise.resolve()).then(() => handledLater.catch(() => {}));
        const handledNow = Promise.reject(new Error('handled at once'));
        handledNow.then(null, () => {});
        new Promise((_, reject) => setTimeout(() => reject(42), 0));
        ",
        ),
        TestAction::inspect_host(|host, _| {
            assert_eq!(
                host.take_reports(),
                [HostReport::UnhandledRejection("TypeError: foo".into())]
            );
        }),
        TestAction::run_to_idle(),
        TestAction::inspect_host(|host, _| {
            assert_eq!(
                host.take_reports(),
                [HostReport::UnhandledRejection("42".into())]
            );
        }),
    ]);
}

#[test]
fn a_rejection_handled_in_a_later_task_is_still_reported() {
    run_host_actions([
        TestAction::run(
            r"
        var p = Promise.reject(new Error('late'));
        setTimeout(() => p.catch(() => {}), 0);
        ",
        ),
        TestAction::run_to_idle(),
        TestAction::inspect_host(|host, _| {
            assert_eq!(
                host.take_reports(),
                [HostReport::UnhandledRejection("Error: late".into())]
            );
        }),
    ]);
}

#[test]
fn run_until_stops_when_done_or_at_the_deadline() {
    run_host_actions([
        TestAction::run(
            r"
        var finished = false;
        setTimeout(() => { finished = true; }, 10);
        setTimeout(() => {}, 60000);
        ",
        ),
        TestAction::inspect_host(|host, ctx| {
            let start = Instant::now();
            let outcome = host.run_until(ctx, Some(start + Duration::from_secs(30)), &mut |ctx| {
                test_api::global_object(ctx)
                    .get("finished", ctx)
                    .is_ok_and(|v| v.to_boolean())
            });
            assert_eq!(outcome, RunOutcome::Done);
            assert!(start.elapsed() < Duration::from_secs(5));

            let start = Instant::now();
            let outcome =
                host.run_until(ctx, Some(start + Duration::from_millis(100)), &mut |_| {
                    false
                });
            assert_eq!(outcome, RunOutcome::DeadlineReached);
            let elapsed = start.elapsed();
            assert!(elapsed >= Duration::from_millis(100));
            assert!(
                elapsed < Duration::from_secs(5),
                "slept past the deadline: {elapsed:?}"
            );
            assert!(host.has_pending_work());
        }),
    ]);
}

#[test]
fn done_is_checked_after_each_task() {
    run_host_actions([
        TestAction::run(
            r"
        var n = 0;
        setTimeout(() => { n++; }, 0);
        setTimeout(() => { n++; }, 0);
        setTimeout(() => { n++; }, 0);
        ",
        ),
        TestAction::inspect_host(|host, ctx| {
            let outcome = host.run_until(ctx, None, &mut |ctx| {
                test_api::global_object(ctx)
                    .get("n", ctx)
                    .is_ok_and(|v| v.as_number() == Some(1.0))
            });
            assert_eq!(outcome, RunOutcome::Done);
        }),
        TestAction::assert_string("String(n)", "1"),
        TestAction::run_to_idle(),
        TestAction::assert_string("String(n)", "3"),
    ]);
}

#[test]
fn script_errors_are_returned_and_microtasks_still_run() {
    run_host_actions([
        TestAction::assert_throws(
            "var ran = false; queueMicrotask(() => { ran = true; }); throw new TypeError('script');",
            "TypeError: script",
        ),
        TestAction::assert("ran"),
        TestAction::inspect_host(|host, ctx| {
            assert!(host.take_reports().is_empty());
            assert!(host.eval_script(ctx, "syntax.js", "let let = ;").is_err());
        }),
    ]);
}

// Boa only: Boa's job executor API (`Context::run_jobs`, `enqueue_job`, async jobs).
#[cfg(feature = "engine-boa")]
#[test]
fn context_run_jobs_uses_the_host_loop() {
    run_host_actions([
        TestAction::run(
            "setTimeout(() => { log.push('t'); throw new Error('x'); }, 0); setTimeout(() => log.push('u'), 1);",
        ),
        TestAction::inspect_context(|ctx| {
            ctx.run_jobs().expect("errors are reported, not returned");
        }),
        TestAction::assert_log("t,u"),
        TestAction::inspect_host(|host, ctx| {
            assert_eq!(host.take_reports().len(), 1);
            let same = Host::from_context(ctx).expect("a host-built context");
            assert!(!same.has_pending_work());
        }),
    ]);
}

// Boa only: Boa's job executor API (`Context::run_jobs`, `enqueue_job`, async jobs).
#[cfg(feature = "engine-boa")]
#[test]
fn async_jobs_are_polled() {
    run_host_actions([
        TestAction::inspect_context(|ctx| {
            ctx.enqueue_job(
                NativeAsyncJob::new(async |ctx| {
                    let ctx = &mut ctx.borrow_mut();
                    ctx.global_object()
                        .set(js_string!("asyncRan"), true, false, ctx)?;
                    Ok(JsValue::undefined())
                })
                .into(),
            );
        }),
        TestAction::run_to_idle(),
        TestAction::assert("asyncRan"),
        TestAction::inspect_host(|host, _| assert!(host.take_reports().is_empty())),
    ]);
}

#[test]
fn host_globals_have_webidl_like_shapes() {
    run_host_actions([
        TestAction::assert_string(
            r"
        const d = (name) => {
            const p = Object.getOwnPropertyDescriptor(globalThis, name);
            return `${name}:${p.writable}${p.enumerable}${p.configurable}:${typeof p.value}`;
        };
        [d('self'), d('gc'), d('fetch'), String(self === globalThis), String(fetch.length),
         typeof console.log, typeof setTimeout, typeof queueMicrotask, typeof structuredClone,
         typeof TextEncoder, typeof atob].join(' ')
        ",
            "self:truefalsetrue:object gc:truefalsetrue:function fetch:truetruetrue:function \
             true 1 function function function function function function",
        ),
        TestAction::run("gc(); gc();"),
    ]);
}

/// A fresh, empty folder under the system temp dir.
fn temp_root(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "boa_streams_host_{name}_{}_{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("interfaces")).unwrap();
    dir
}

#[test]
fn fetch_serves_files_under_the_root() {
    let root = temp_root("fetch");
    std::fs::write(
        root.join("interfaces/streams.idl"),
        "\u{FEFF}interface X {};\n",
    )
    .unwrap();
    std::fs::write(root.join("data.json"), r#"{"a": [1, 2]}"#).unwrap();
    std::fs::write(root.join("bytes.bin"), [0u8, 1, 255]).unwrap();
    Fixture::host_with(HostOptions {
        fetch_root: Some(root.clone()),
        ..HostOptions::default()
    })
    .run([
        TestAction::run(
            r"
        var out = {};
        fetch('/interfaces/streams.idl').then(r => {
            out.meta = [r.ok, r.status, r.url].join();
            return r.text();
        }).then(text => { out.idl = text; });
        fetch('interfaces/streams.idl?x=1#frag').then(r => r.text()).then(t => { out.relative = t; });
        fetch('/data.json').then(r => r.json()).then(j => { out.json = j.a.join('+'); });
        fetch('/bytes.bin').then(r => r.arrayBuffer()).then(b => { out.buffer = [...new Uint8Array(b)].join(); });
        fetch('/bytes.bin').then(r => r.bytes()).then(b => { out.bytes = b.constructor.name + b.length; });
        fetch('/missing.txt').then(r => { out.missing = [r.ok, r.status].join(); });
        // The URL parser drops a `..` above the root: `/../outside` is `/outside`, served from
        // under the root (missing there: a 404), never from outside it.
        fetch('/../outside').then(r => { out.escape = r.status; }, e => { out.escape = e.name; });
        fetch('/data.json').then(async r => {
            await r.text();
            try { await r.text(); out.reuse = 'no error'; } catch (e) { out.reuse = e.name; }
        });
        ",
        ),
        TestAction::run_to_idle(),
        TestAction::assert_string(
            "[out.meta, out.idl, out.relative, out.json, out.buffer, out.bytes, out.missing, out.escape, out.reuse].join('|')",
            "true,200,http://web-platform.test:8000/interfaces/streams.idl|interface X {};\n|\
             interface X {};\n|1+2|0,1,255|Uint8Array3|false,404|404|TypeError",
        ),
        TestAction::inspect_host(|host, _| assert!(host.take_reports().is_empty())),
    ]);
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn fetch_without_a_root_rejects_with_a_type_error() {
    run_host_actions([
        TestAction::run(
            "var result; fetch('/x').then(() => { result = 'resolved'; }, e => { result = e instanceof TypeError; });",
        ),
        TestAction::run_to_idle(),
        TestAction::assert_string("String(result)", "true"),
    ]);
}

#[test]
fn idlharness_style_fetch_works() {
    let root = temp_root("idl");
    std::fs::write(
        root.join("interfaces/streams.idl"),
        "[Exposed=*] interface ReadableStream {};",
    )
    .unwrap();
    Fixture::host_with(HostOptions {
        fetch_root: Some(root.clone()),
        console_to_stderr: true,
        ..HostOptions::default()
    })
    .run([
        TestAction::run(
            r"
        console.log('console_to_stderr: log'); console.error('console_to_stderr: error');
        console.group('group'); console.info('indented'); console.groupEnd();
        var idl; fetch('/interfaces/streams.idl').then(r => r.text()).then(t => { idl = t; });
        ",
        ),
        TestAction::run_to_idle(),
        TestAction::assert_string("idl", "[Exposed=*] interface ReadableStream {};"),
    ]);
    let _ = std::fs::remove_dir_all(&root);
}

// Boa only: Boa's job executor API (`Context::run_jobs`, `enqueue_job`, async jobs).
#[cfg(feature = "engine-boa")]
#[test]
fn async_jobs_can_wait_for_timers() {
    let mut fixture = Fixture::host();
    fixture.run([TestAction::run(
        "var order = []; var gate = new Promise(r => setTimeout(() => { order.push('timer'); r(); }, 20));",
    )]);
    let gate = fixture.eval("gate");
    let gate = JsValue::from(gate).as_promise().expect("a promise");
    fixture.context().enqueue_job(
        NativeAsyncJob::new(async move |ctx| {
            // Resolved by a timer task that the loop runs while this future is pending.
            let future = gate.into_js_future(&mut ctx.borrow_mut())?;
            future.await?;
            let ctx = &mut ctx.borrow_mut();
            ctx.eval(boa_engine::Source::from_bytes("order.push('async')"))?;
            Ok(JsValue::undefined())
        })
        .into(),
    );
    fixture.run([
        TestAction::run_to_idle(),
        TestAction::assert_string("order.join()", "timer,async"),
        TestAction::inspect_host(|host, _| assert!(host.take_reports().is_empty())),
    ]);
}

#[test]
fn performance_now_is_monotonic_and_measures_elapsed_time() {
    // Taken before the host exists, so that it bounds the time since the host's creation
    // from above whatever the creation itself costs (a collection may run inside it).
    let started = Instant::now();
    let mut fixture = Fixture::host();
    fixture.run([TestAction::assert_string(
        "const a = performance.now();
         const until = Date.now() + 30;
         while (Date.now() < until) {}
         const b = performance.now();
         [typeof a, a >= 0, b - a >= 29, b - a < 10000,
          Math.abs(b / 0.005 - Math.round(b / 0.005)) < 1e-6,
          Object.prototype.toString.call(performance),
          Math.abs(performance.timeOrigin - (Date.now() - performance.now())) < 50,
          JSON.stringify(performance) === JSON.stringify({ timeOrigin: performance.timeOrigin })].join()",
        "number,true,true,true,true,[object Performance],true,true",
    )]);
    // now() counts from the host's creation, not from some earlier moment.
    let now: f64 = fixture
        .eval_string("String(performance.now())")
        .parse()
        .expect("a number");
    assert!(now <= started.elapsed().as_secs_f64() * 1000.0 + 1.0);
}

/// ENGINE_BUGS.md, 1 and 2: the host's stack size limit lets a loop catch far more exceptions
/// than Boa 0.22's default (about 1,460), before and after an `await`.
#[test]
fn many_caught_exceptions_fit_in_the_hosts_stack_limit() {
    run_host_actions([
        TestAction::run(
            r"
            function t(d) { if (d > 1) return t(d - 1); throw new RangeError('x'); }
            var caught = 0, after = 'pending';
            for (let i = 0; i < 20000; i++) { try { t(1); } catch (e) { caught++; } }
            (async () => {
                await 0;
                let n = 0;
                for (let i = 0; i < 20000; i++) { try { t(1); } catch (e) { n++; } }
                return n;
            })().then(n => { after = n; });
            ",
        ),
        TestAction::run_to_idle(),
        TestAction::assert_string("caught + ' ' + after", "20000 20000"),
    ]);
}

// Boa only: boa_runtime's extension API, for an embedder's own Boa context.
#[cfg(feature = "engine-boa")]
#[test]
fn streams_extension_composes_with_boa_runtime() {
    use boa_runtime::RuntimeExtension as _;
    let mut ctx = boa_engine::Context::default();
    boa_runtime::register(boa_streams::StreamsExtension, None, &mut ctx).expect("registered");
    let realm = ctx.create_realm().expect("a realm");
    boa_streams::StreamsExtension::default()
        .register(Some(realm.clone()), &mut ctx)
        .expect("registered in the second realm");
    let types = |ctx: &mut boa_engine::Context| {
        ctx.eval(boa_engine::Source::from_bytes(
            "[typeof ReadableStream, typeof structuredClone, typeof setTimeout].join()",
        ))
        .expect("no exception")
        .as_string()
        .map(|s| s.to_std_string_escaped())
    };
    assert_eq!(
        types(&mut ctx).as_deref(),
        Some("function,function,function")
    );
    let previous = ctx.enter_realm(realm);
    // The second realm has the streams, and none of boa_runtime's globals.
    assert_eq!(
        types(&mut ctx).as_deref(),
        Some("function,function,undefined")
    );
    ctx.enter_realm(previous);
    assert_eq!(
        format!("{:?}", boa_streams::StreamsExtension),
        "StreamsExtension"
    );
}
