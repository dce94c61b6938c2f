//! boa_streams installed into an application's own rquickjs runtime (`boa_streams::quickjs`,
//! QuickJS with the `rquickjs` feature): the application makes the `Runtime` and `Context`
//! with rquickjs's safe API, defines its own classes and functions, installs the streams, and
//! drives the loop itself (QuickJS jobs, then our tasks). Every test ends by dropping the
//! application's runtime: QuickJS asserts in `JS_FreeRuntime` that no object is left, so a
//! leak of ours (or an untraced cycle through the application's objects) aborts the test.
#![cfg(all(feature = "rquickjs", not(feature = "engine-boa")))]

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use boa_streams::host::HostReport;
use boa_streams::quickjs::rquickjs::{
    self,
    class::{JsClass, Trace, Tracer, Writable},
    function::This,
    Class, Constructor, Context, Ctx, Function, JsLifetime, Object, Runtime, Value,
};
use boa_streams::quickjs::{self, Clients, InstallOptions};

/// Runs QuickJS's jobs and our tasks until both are idle, sleeping until the next timer when
/// only timers wait; gives up after `limit`.
fn drive(runtime: &Runtime, context: &Context, limit: Duration) {
    let deadline = Instant::now() + limit;
    loop {
        while runtime.execute_pending_job().expect("no job throws") {}
        let ran = context
            .with(|ctx| quickjs::run_pending_tasks(&ctx))
            .expect("installed");
        if ran > 0 || runtime.is_job_pending() {
            continue;
        }
        let Some(at) = context.with(|ctx| quickjs::next_timer_at(&ctx)) else {
            return;
        };
        assert!(Instant::now() < deadline, "the loop did not go idle");
        std::thread::sleep(at.saturating_duration_since(Instant::now()));
    }
}

/// The application's own class: holds one JS value (traced through rquickjs's `Trace`), and
/// counts its finalizations.
struct Holder<'js> {
    held: Option<Value<'js>>,
    drops: Arc<AtomicUsize>,
}

impl Drop for Holder<'_> {
    fn drop(&mut self) {
        self.drops.fetch_add(1, Ordering::SeqCst);
    }
}

impl<'js> Trace<'js> for Holder<'js> {
    fn trace<'a>(&self, tracer: Tracer<'a, 'js>) {
        if let Some(held) = &self.held {
            held.trace(tracer);
        }
    }
}

// SAFETY: `Holder<'js>` with `'js` replaced by `'to` is `Holder<'to>`, its only lifetime.
unsafe impl<'js> JsLifetime<'js> for Holder<'js> {
    type Changed<'to> = Holder<'to>;
}

thread_local! {
    /// The finalization counter the next `Holder` constructor of this thread's test uses.
    static HOLDER_DROPS: RefCell<Arc<AtomicUsize>> = RefCell::new(Arc::new(AtomicUsize::new(0)));
}

impl<'js> rquickjs::IntoJs<'js> for Holder<'js> {
    fn into_js(self, ctx: &Ctx<'js>) -> rquickjs::Result<Value<'js>> {
        Class::instance(ctx.clone(), self).into_js(ctx)
    }
}

impl<'js> JsClass<'js> for Holder<'js> {
    const NAME: &'static str = "Holder";
    type Mutable = Writable;

    fn prototype(ctx: &Ctx<'js>) -> rquickjs::Result<Option<Object<'js>>> {
        let proto = Object::new(ctx.clone())?;
        let hold = Function::new(
            ctx.clone(),
            |this: This<Class<'js, Holder<'js>>>, value: Value<'js>| {
                this.borrow_mut().held = Some(value);
            },
        )?;
        proto.set("hold", hold)?;
        let get = Function::new(ctx.clone(), |this: This<Class<'js, Holder<'js>>>| {
            this.borrow().held.clone()
        })?;
        proto.set("get", get)?;
        Ok(Some(proto))
    }

    fn constructor(ctx: &Ctx<'js>) -> rquickjs::Result<Option<Constructor<'js>>> {
        Constructor::new_class::<Holder<'js>, _, _>(ctx.clone(), || Holder {
            held: None,
            drops: HOLDER_DROPS.with(|d| Arc::clone(&d.borrow())),
        })
        .map(Some)
    }
}

/// The application's runtime and context, with its own `Holder` class and a `rustSink`
/// function that appends to the returned log; boa_streams installed with `options`.
fn app(options: InstallOptions) -> (Runtime, Context, Rc<RefCell<Vec<String>>>) {
    let runtime = Runtime::new().expect("a runtime");
    let context = Context::full(&runtime).expect("a context");
    let log = Rc::new(RefCell::new(Vec::new()));
    context.with(|ctx| {
        Class::<Holder>::define(&ctx.globals()).expect("the app's class");
        let sink_log = Rc::clone(&log);
        let sink = Function::new(ctx.clone(), move |text: String| {
            sink_log.borrow_mut().push(text);
        })
        .expect("the app's function");
        ctx.globals().set("rustSink", sink).expect("a global");
        quickjs::install(&ctx, options).expect("installed");
    });
    (runtime, context, log)
}

fn eval<T: for<'js> rquickjs::FromJs<'js>>(context: &Context, source: &str) -> T {
    context.with(|ctx| {
        ctx.eval::<T, _>(source)
            .map_err(|e| match e {
                rquickjs::Error::Exception => format!("{:?}", ctx.catch()),
                e => e.to_string(),
            })
            .expect("the script runs")
    })
}

#[test]
fn a_js_stream_through_text_decoder_stream_into_the_apps_rust_function() {
    let (runtime, context, log) = app(InstallOptions::default());
    eval::<()>(
        &context,
        r#"
        // "héllo wörld €" in UTF-8, split inside the two-byte "é" and the three-byte "€".
        const bytes = new TextEncoder().encode("héllo wörld €");
        const cuts = [2, 9, bytes.length - 1];
        globalThis.done = false;
        new ReadableStream({
            start(c) {
                let at = 0;
                for (const cut of cuts) { c.enqueue(bytes.slice(at, cut)); at = cut; }
                c.enqueue(bytes.slice(at));
                c.close();
            },
        })
            .pipeThrough(new TextDecoderStream())
            .pipeTo(new WritableStream({ write(chunk) { rustSink(chunk); } }))
            .then(() => { globalThis.done = true; });
        "#,
    );
    drive(&runtime, &context, Duration::from_secs(5));
    assert!(eval::<bool>(&context, "done"));
    let chunks = log.borrow().clone();
    assert_eq!(chunks.concat(), "héllo wörld €");
    // The decoder held the split characters back: no chunk carries U+FFFD.
    assert!(chunks.iter().all(|c| !c.contains('\u{FFFD}')), "{chunks:?}");
    assert_eq!(chunks, ["h", "éllo w", "örld ", "€"]);
    drop(context);
    drop(runtime);
}

#[test]
fn the_apps_classes_ours_and_finalizers_interleave_under_run_gc() {
    let drops = Arc::new(AtomicUsize::new(0));
    HOLDER_DROPS.with(|d| *d.borrow_mut() = Arc::clone(&drops));
    let (runtime, context, log) = app(InstallOptions::default());
    // Cycles through both families of classes: a Holder (the app's) holds a ReadableStream
    // (ours), whose source closes over the Holder; a TransformStream (ours) holds a Holder in
    // its transformer, which holds the TransformStream. A FinalizationRegistry counts our
    // streams as they are collected.
    eval::<()>(
        &context,
        r#"
        globalThis.collected = 0;
        globalThis.registry = new FinalizationRegistry(() => { collected++; });
        globalThis.makeGarbage = (n) => {
            for (let i = 0; i < n; i++) {
                const h = new Holder();
                const rs = new ReadableStream({ pull(c) { c.enqueue(h); } });
                h.hold(rs);
                const h2 = new Holder();
                const ts = new TransformStream({ transform(chunk, c) { c.enqueue(h2); } });
                h2.hold(ts);
                registry.register(rs, 0);
                registry.register(ts, 0);
            }
        };
        // A live pipe whose source and sink involve Holders, kept across collections.
        const keep = new Holder();
        let i = 0;
        globalThis.live = new ReadableStream({
            pull(c) { if (i < 5) c.enqueue(`chunk ${i++} `); else c.close(); },
        }, { highWaterMark: 0 });
        keep.hold(live);
        globalThis.keeper = keep;
        globalThis.liveDone = live
            .pipeThrough(new TransformStream({ transform(chunk, c) { c.enqueue(keeper.get() === live ? chunk : "?"); } }))
            .pipeTo(new WritableStream({ write(chunk) { rustSink(chunk); } }));
        "#,
    );
    for round in 1..=3 {
        eval::<()>(&context, "makeGarbage(50)");
        // Collect in the middle of the pipe: its objects are live and stay so.
        runtime.run_gc();
        while runtime.execute_pending_job().expect("no job throws") {}
        context
            .with(|ctx| quickjs::run_pending_tasks(&ctx))
            .expect("installed");
        runtime.run_gc();
        while runtime.execute_pending_job().expect("no job throws") {}
        assert_eq!(
            drops.load(Ordering::SeqCst),
            round * 100,
            "every garbage Holder finalized after round {round}"
        );
        assert_eq!(eval::<i32>(&context, "collected"), (round * 100) as i32);
    }
    drive(&runtime, &context, Duration::from_secs(5));
    assert_eq!(
        log.borrow().concat(),
        "chunk 0 chunk 1 chunk 2 chunk 3 chunk 4 "
    );
    // The live pipe's objects and the keeper go with the runtime; QuickJS asserts then that
    // nothing is left.
    drop(context);
    drop(runtime);
    assert_eq!(
        drops.load(Ordering::SeqCst),
        301,
        "the keeper finalized too"
    );
}

#[test]
fn a_blob_read_and_fetch_body_are_tasks_the_app_pumps() {
    let (runtime, context, _log) = app(InstallOptions::default());
    eval::<()>(
        &context,
        r#"
        globalThis.out = [];
        new Blob(["ab", new Uint8Array([99])]).text().then(t => out.push(t));
        new Response("body").text().then(t => out.push(t));
        fetch("data:,hello").then(r => r.text()).then(t => out.push(t));
        "#,
    );
    // Jobs alone do not finish the blob read: it needs our tasks.
    while runtime.execute_pending_job().expect("no job throws") {}
    assert!(context.with(|ctx| quickjs::has_pending_tasks(&ctx)));
    drive(&runtime, &context, Duration::from_secs(5));
    let mut out: Vec<String> = eval(&context, "out");
    out.sort();
    assert_eq!(out, ["abc", "body", "hello"]);
}

#[test]
fn host_globals_are_opt_in_and_timers_come_due() {
    let (runtime, context, _log) = app(InstallOptions::default());
    assert_eq!(
        eval::<String>(
            &context,
            "[typeof setTimeout, typeof console, typeof ReadableStream].join()"
        ),
        "undefined,undefined,function"
    );
    drop(context);
    drop(runtime);

    let options = InstallOptions {
        host_globals: true,
        ..InstallOptions::default()
    };
    let (runtime, context, log) = app(options);
    let start = Instant::now();
    eval::<()>(
        &context,
        "setTimeout(() => rustSink('late'), 40); setTimeout(() => rustSink('early'), 10);",
    );
    let due = context
        .with(|ctx| quickjs::next_timer_at(&ctx))
        .expect("a timer");
    assert!(
        due >= start + Duration::from_millis(10),
        "the 10 ms timer is next"
    );
    assert_eq!(context.with(|ctx| quickjs::run_pending_tasks(&ctx)), Ok(0));
    drive(&runtime, &context, Duration::from_secs(5));
    assert!(start.elapsed() >= Duration::from_millis(40));
    assert_eq!(*log.borrow(), ["early", "late"]);
    assert_eq!(context.with(|ctx| quickjs::next_timer_at(&ctx)), None);
}

#[test]
fn a_second_context_of_the_runtime_is_a_second_realm() {
    let (runtime, context, log) = app(InstallOptions::default());
    let second = Context::full(&runtime).expect("a second context");
    // The first realm's stream and the app's function, handed to the second context.
    let (stream, sink) = context.with(|ctx| {
        let stream: Value = ctx
            .eval("new ReadableStream({ start(c) { c.enqueue('from one'); c.close(); } })")
            .expect("a stream");
        let sink: Function = ctx.globals().get("rustSink").expect("the app's function");
        (
            rquickjs::Persistent::save(&ctx, stream),
            rquickjs::Persistent::save(&ctx, sink),
        )
    });
    second.with(|ctx| {
        quickjs::install(&ctx, InstallOptions::default()).expect("installed");
        ctx.globals()
            .set("fromOne", stream.restore(&ctx).expect("same runtime"))
            .expect("a global");
        ctx.globals()
            .set("rustSink", sink.restore(&ctx).expect("same runtime"))
            .expect("a global");
    });
    let seen: String = eval(
        &second,
        r#"
        const other = fromOne instanceof ReadableStream;
        const reader = ReadableStream.prototype.getReader.call(fromOne);
        reader.read().then(({ value }) => rustSink(value));
        `${other}`
        "#,
    );
    // Another realm's interface objects; the same agent's brand checks and loop.
    assert_eq!(seen, "false");
    drive(&runtime, &context, Duration::from_secs(5));
    assert_eq!(*log.borrow(), ["from one"]);
}

#[test]
fn misuse_is_an_error_not_a_panic() {
    let runtime = Runtime::new().expect("a runtime");
    let context = Context::full(&runtime).expect("a context");
    context.with(|ctx| {
        assert!(!quickjs::is_installed(&ctx));
        assert_eq!(
            quickjs::run_pending_tasks(&ctx),
            Err(quickjs::Error::NotInstalled)
        );
        assert_eq!(quickjs::next_timer_at(&ctx), None);
        let object: Value = ctx.eval("({})").expect("an object");
        assert_eq!(
            quickjs::from_rquickjs(&object).err(),
            Some(quickjs::Error::NotInstalled)
        );
        let fetch_alone = InstallOptions {
            clients: Clients {
                url: false,
                ..Clients::ALL
            },
            ..InstallOptions::default()
        };
        let error = quickjs::install(&ctx, fetch_alone).expect_err("fetch needs url");
        assert!(error.to_string().contains("URL"), "{error}");
    });
    // A refused install changed nothing: the next one installs.
    context.with(|ctx| {
        assert!(!quickjs::is_installed(&ctx));
        let bad_base = InstallOptions {
            base_url: Some("not a url".into()),
            ..InstallOptions::default()
        };
        let error = quickjs::install(&ctx, bad_base).expect_err("not a URL");
        assert!(error.to_string().contains("not a URL"), "{error}");
        quickjs::install(&ctx, InstallOptions::default()).expect("installed");
        assert!(quickjs::is_installed(&ctx));
        let again = quickjs::install(&ctx, InstallOptions::default()).expect_err("twice");
        assert!(again.to_string().contains("already installed"), "{again}");
    });
    // A context of an installed runtime that boa_streams was not installed in, whose opaque
    // the application uses itself, is not taken for one of ours (nor installed into).
    let other = Context::full(&runtime).expect("a context");
    other.with(|ctx| {
        let mut mine = 7u64;
        // SAFETY: `ctx` is live; the opaque is only stored (and cleared below), never freed.
        unsafe {
            rquickjs::qjs::JS_SetContextOpaque(ctx.as_raw().as_ptr(), (&raw mut mine).cast())
        };
        assert!(!quickjs::is_installed(&ctx));
        assert_eq!(
            quickjs::run_pending_tasks(&ctx),
            Err(quickjs::Error::NotInstalled)
        );
        let error = quickjs::install(&ctx, InstallOptions::default()).expect_err("opaque in use");
        assert!(error.to_string().contains("opaque"), "{error}");
        // SAFETY: as above.
        unsafe { rquickjs::qjs::JS_SetContextOpaque(ctx.as_raw().as_ptr(), std::ptr::null_mut()) };
    });
    drop(other);
}

#[test]
fn clients_can_be_left_out() {
    let options = InstallOptions {
        clients: Clients::NONE,
        ..InstallOptions::default()
    };
    let (_runtime, context, _log) = app(options);
    assert_eq!(
        eval::<String>(
            &context,
            "[typeof ReadableStream, typeof AbortController, typeof TextDecoderStream, \
             typeof CompressionStream, typeof URL, typeof Blob, typeof fetch].join()"
        ),
        "function,function,undefined,undefined,undefined,undefined,undefined"
    );
}

#[test]
fn unhandled_rejections_are_reported_when_asked_for() {
    let options = InstallOptions {
        track_rejections: true,
        ..InstallOptions::default()
    };
    let (runtime, context, _log) = app(options);
    eval::<()>(
        &context,
        "new ReadableStream({ pull() { throw new TypeError('boom'); } }).getReader().read();",
    );
    drive(&runtime, &context, Duration::from_secs(5));
    let reports = context.with(|ctx| quickjs::take_reports(&ctx));
    assert_eq!(
        reports,
        [HostReport::UnhandledRejection("TypeError: boom".into())]
    );
}

#[test]
fn the_rust_api_reads_a_stream_of_the_apps_context() {
    use boa_streams::rust::{with_chunk_bytes, ReadableStream};
    let (_runtime, context, _log) = app(InstallOptions::default());
    let bytes = context.with(|ctx| {
        let js: Value = ctx
            .eval("new Blob(['from ', 'the app']).stream()")
            .expect("a stream");
        let value = quickjs::from_rquickjs(&js).expect("installed");
        quickjs::with_context(&ctx, |host, cx| {
            let stream = ReadableStream::from_value(&value).expect("a ReadableStream");
            let reader = stream.reader(cx).expect("a reader");
            let mut bytes = Vec::new();
            while let Some(chunk) = reader
                .read(cx)
                .wait(host, cx)
                .expect("not idle")
                .expect("no error")
            {
                with_chunk_bytes(&chunk, cx, |b| bytes.extend_from_slice(b)).expect("bytes");
            }
            bytes
        })
        .expect("installed")
    });
    assert_eq!(bytes, b"from the app");
}

#[test]
fn run_tasks_bounds_a_call_when_tasks_keep_coming() {
    let (_runtime, context, _log) = app(InstallOptions::default());
    // A port ping-pong: every message is a task that posts the next one, forever.
    eval::<()>(
        &context,
        r#"
        globalThis.count = 0;
        const { port1, port2 } = new MessageChannel();
        port2.onmessage = () => { count++; port1.postMessage(0); };
        port1.postMessage(0);
        globalThis.stop = () => { port2.onmessage = null; port1.close(); };
        "#,
    );
    for round in 1..=3 {
        assert_eq!(context.with(|ctx| quickjs::run_tasks(&ctx, 10)), Ok(10));
        assert_eq!(eval::<i32>(&context, "count"), 10 * round);
    }
    eval::<()>(&context, "stop()");
    context
        .with(|ctx| quickjs::run_pending_tasks(&ctx))
        .expect("installed");
    assert!(!context.with(|ctx| quickjs::has_pending_tasks(&ctx)));
}

#[test]
fn dropping_the_apps_runtime_mid_flight_frees_everything() {
    let options = InstallOptions {
        host_globals: true,
        track_rejections: true,
        ..InstallOptions::default()
    };
    let (runtime, context, log) = app(options);
    // Work of every kind left undone: a timer, blob reads and a pipe waiting on tasks,
    // microtasks queued, a port with a message in flight, a promise rejected unhandled.
    eval::<()>(
        &context,
        r#"
        setTimeout(() => rustSink("never"), 60_000);
        new Blob(["x".repeat(200_000)]).stream()
            .pipeThrough(new TextDecoderStream())
            .pipeTo(new WritableStream({ write(c) { rustSink(c.slice(0, 1)); } }));
        const { port1, port2 } = new MessageChannel();
        port2.onmessage = () => rustSink("message");
        const rs = new ReadableStream();
        port1.postMessage(rs, [rs]);
        Promise.resolve().then(() => rustSink("microtask"));
        Promise.reject(new Error("unhandled"));
        "#,
    );
    // One round: a few tasks run, most of the work is still queued.
    context
        .with(|ctx| quickjs::run_tasks(&ctx, 1))
        .expect("installed");
    assert!(context.with(|ctx| quickjs::has_pending_tasks(&ctx)));
    assert!(context.with(|ctx| quickjs::next_timer_at(&ctx)).is_some());
    assert!(log.borrow().contains(&"microtask".to_owned()));
    // The application drops its context, then its runtime: our teardown runs in between
    // (rquickjs's userdata), and QuickJS's `JS_FreeRuntime` finds nothing left.
    drop(context);
    drop(runtime);
    assert!(!log.borrow().contains(&"never".to_owned()));
}
