//! The host's public API is the same on both engines: this file is one embedding, compiled and
//! run unchanged by `cargo test` (Boa) and by `cargo test --no-default-features --features
//! engine-quickjs` (QuickJS). Each binding is written with its type, so a signature that
//! differs between the engines fails to compile on one of them.

use std::path::Path;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use boa_streams::host::{
    self, port_pair, test_api, AgentExit, Context, Host, HostOptions, HostReport, PortHandle,
    RunOutcome,
};
use boa_streams::{JsError, JsResult, JsString, Object, Realm, Value};

/// A native function of the embedder: `double(x)`.
fn double(_: &Value, args: &[Value], ctx: &mut Context) -> JsResult<Value> {
    let x = args.first().cloned().unwrap_or_default().to_number(ctx)?;
    Ok(Value::from(x * 2.0))
}

/// The global `name`.
fn global(host: &Host, ctx: &mut Context, name: &str) -> Value {
    host.evaluate(ctx, None, name).expect("a global")
}

#[test]
fn one_embedding_builds_and_runs_on_either_engine() {
    // `register` has one signature: the engine's context, the library's result.
    let _register: fn(&mut Context) -> JsResult<()> = boa_streams::register;

    let (host, mut ctx): (Host, Context) = Host::new(HostOptions::default()).expect("a host");
    let same: Option<Host> = Host::from_context(&ctx);
    assert!(same.is_some(), "a host's context knows its host");

    // Scripts: `eval_script` (then a checkpoint) and `evaluate` both give the library's Value.
    let defined: JsResult<()> = host.define_global_function(&mut ctx, "double", 1, double);
    defined.expect("a global function");
    let value: Value = host
        .eval_script(&mut ctx, "main.js", "double(21)")
        .expect("no exception");
    assert_eq!(value.as_number(), Some(42.0));
    let value: Value = host
        .evaluate(
            &mut ctx,
            Some(Path::new("evaluate.js")),
            "typeof ReadableStream",
        )
        .expect("no exception");
    assert_eq!(
        value.as_string().map(|s| s.to_std_string_escaped()),
        Some("function".to_owned())
    );
    host.set_global(&mut ctx, "fromRust", JsString::from("set by Rust"))
        .expect("a global");

    // Errors: the thrown value, and the host's message for it.
    let error: JsError = host
        .eval_script(&mut ctx, "throws.js", "throw new TypeError('boom')")
        .expect_err("it throws");
    let message: String = host::error_message(error.clone(), &mut ctx);
    assert_eq!(message, "TypeError: boom");
    let thrown: Option<Value> = host.thrown_value(error, &mut ctx);
    assert!(thrown.is_some_and(|v| v.is_object()));

    // Realms: a second one with the same globals.
    let (_realm, global_object): (Realm, Object) = host.create_realm(&mut ctx).expect("a realm");
    host.set_global(&mut ctx, "other", global_object)
        .expect("a global");
    let another: Value = host.new_realm_global(&mut ctx).expect("a realm");
    assert!(another.is_object());
    let separate = host
        .eval_script(
            &mut ctx,
            "realms.js",
            "other.ReadableStream !== ReadableStream",
        )
        .expect("no exception");
    assert_eq!(separate.as_boolean(), Some(true));

    // The event loop: a pending promise, timers, rejections, the checkpoint.
    let pending: Value = host
        .eval_script(
            &mut ctx,
            "loop.js",
            "var order = [];
             setTimeout(() => order.push('timer'), 5);
             queueMicrotask(() => order.push('microtask'));
             Promise.reject(new Error('nobody handles this'));
             new Promise(resolve => setTimeout(resolve, 10))",
        )
        .expect("no exception");
    assert!(host.is_pending_promise(&pending));
    assert!(host.has_pending_work());
    host.perform_microtask_checkpoint(&mut ctx);
    let reports: Vec<HostReport> = host.take_reports();
    assert_eq!(
        reports,
        [HostReport::UnhandledRejection(
            "Error: nobody handles this".to_owned()
        )]
    );
    let outcome: RunOutcome = host.run_until(
        &mut ctx,
        Some(Instant::now() + Duration::from_secs(10)),
        &mut |_| false,
    );
    assert_eq!(outcome, RunOutcome::Idle);
    assert!(!host.is_pending_promise(&pending));
    let order = global(&host, &mut ctx, "order.join()");
    assert_eq!(
        order.as_string().map(|s| s.to_std_string_escaped()),
        Some("microtask,timer".to_owned())
    );

    // Agents: a port pair, and an agent on another thread that echoes doubled numbers.
    let (here, there): (PortHandle, PortHandle) = port_pair();
    let _adopted: Object = host.adopt_port(&mut ctx, here).expect("a port");
    drop(there);
    let spawned: JsResult<(Object, JoinHandle<AgentExit>)> =
        host.spawn_agent(&mut ctx, HostOptions::default(), |host, ctx, port| {
            host.set_global(ctx, "port", port)?;
            host.eval_script(
                ctx,
                "agent.js",
                "port.onmessage = e => { port.postMessage(e.data * 2); close(); };",
            )?;
            Ok(())
        });
    let (port, agent) = spawned.expect("an agent");
    host.set_global(&mut ctx, "port", port).expect("a global");
    host.eval_script(
        &mut ctx,
        "main.js",
        "port.onmessage = e => { globalThis.answer = e.data; port.close(); }; port.postMessage(21);",
    )
    .expect("no exception");
    assert!(host.entangled_ports(&ctx) > 0);
    let outcome = host.run_until(
        &mut ctx,
        Some(Instant::now() + Duration::from_secs(10)),
        &mut |ctx| {
            test_api::global_object(ctx)
                .get("answer", ctx)
                .is_ok_and(|v| !v.is_undefined())
        },
    );
    assert_eq!(outcome, RunOutcome::Done);
    assert_eq!(global(&host, &mut ctx, "answer").as_number(), Some(42.0));
    let exit: AgentExit = agent.join().expect("the agent's thread");
    assert_eq!(exit.error, None);
    assert_eq!(exit.reports, []);

    // Closing: the loop stops at once.
    host.close();
    assert_eq!(
        host.run_until(&mut ctx, None, &mut |_| false),
        RunOutcome::Closed
    );

    // The context before the host (on QuickJS the host owns the runtime).
    drop(pending);
    drop(ctx);
}

#[test]
fn dead_buffers_are_collected_once_enough_buffer_data_is_allocated() {
    // Boa's collector counts its own allocations, not an ArrayBuffer's data block: the host
    // collects once 16 MiB of buffer data have been allocated by the built-ins (here
    // TextEncoder), without script calling gc(). QuickJS frees the buffer by its count.
    let (host, mut ctx) = Host::new(HostOptions::default()).expect("a host");
    host.eval_script(
        &mut ctx,
        "make.js",
        "globalThis.ref = new WeakRef(new TextEncoder().encode('dead'));",
    )
    .expect("runs");
    host.run_until(&mut ctx, None, &mut |_| false);
    host.eval_script(
        &mut ctx,
        "churn.js",
        "{ const big = 'x'.repeat(1 << 20); const e = new TextEncoder(); for (let i = 0; i < 17; i++) e.encode(big); }",
    )
    .expect("runs");
    host.run_until(&mut ctx, None, &mut |_| false);
    let alive = host
        .eval_script(&mut ctx, "check.js", "ref.deref() !== undefined")
        .expect("runs");
    assert_eq!(
        alive.as_boolean(),
        Some(false),
        "the dead buffer was collected"
    );
}

/// An embedder may drop its hosts in any order: with the first host (made before the second)
/// and its context gone, the second still makes a stream from Rust and reads it. (On QuickJS
/// dropping the first context used to leave no context current while the second was alive,
/// and the next internal object panicked.)
#[test]
fn a_host_works_after_an_earlier_host_is_dropped() {
    use boa_streams::rust::{
        with_chunk_bytes, Completion, ReadableController, ReadableStream, Source, StreamError,
    };
    struct Once(bool);
    impl Source for Once {
        fn pull(
            &mut self,
            c: &ReadableController,
            ctx: &mut Context,
        ) -> Result<Completion, StreamError> {
            if std::mem::replace(&mut self.0, true) {
                c.close(ctx)?;
            } else {
                c.enqueue_bytes(b"hi", ctx)?;
            }
            Ok(Completion::Ready)
        }
    }
    let (first, first_ctx) = Host::new(HostOptions::default()).expect("a host");
    let (second, mut ctx) = Host::new(HostOptions::default()).expect("a host");
    drop(first_ctx);
    drop(first);
    let stream = ReadableStream::from_source(Once(false), 0.0, &mut ctx).expect("a stream");
    let reader = stream.reader(&mut ctx).expect("a reader");
    let chunk = reader
        .read(&mut ctx)
        .wait(&second, &mut ctx)
        .expect("a result")
        .expect("a chunk")
        .expect("a chunk before the end");
    let bytes = with_chunk_bytes(&chunk, &mut ctx, <[u8]>::to_vec).expect("bytes");
    assert_eq!(bytes, b"hi");
    drop(chunk);
    drop(reader);
    drop(stream);
}
