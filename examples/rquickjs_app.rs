//! An application that owns its rquickjs `Runtime` and `Context`, with its own class and Rust
//! function, installs the streams into them and drives the loop itself
//! (`cargo run --no-default-features --features rquickjs --example rquickjs_app`). README.md,
//! "Embedding into your rquickjs runtime", explains each step.
//!
//! The application calls, in its loop:
//! - `runtime.execute_pending_job()` until it returns false: QuickJS's jobs, which include our
//!   microtasks (promise reactions, the streams' internal jobs);
//! - `boa_streams::quickjs::run_pending_tasks(&ctx)`: our tasks (`Blob` reads, `fetch()`
//!   bodies, port messages, timers once due), each followed by a microtask checkpoint;
//! - when both have nothing left, `boa_streams::quickjs::next_timer_at(&ctx)`: sleep until
//!   then, or stop when it is `None`.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Instant;

use boa_streams::quickjs::rquickjs::{
    self,
    class::{JsClass, Trace, Tracer, Writable},
    function::This,
    CatchResultExt, Class, Constructor, Context, Ctx, Function, IntoJs, JsLifetime, Object,
    Runtime, Value,
};
use boa_streams::quickjs::{self, InstallOptions};

/// The application's own class: collects the strings given to `add`.
#[derive(Default)]
struct Collector {
    chunks: Vec<String>,
}

impl<'js> Trace<'js> for Collector {
    fn trace<'a>(&self, _: Tracer<'a, 'js>) {}
}

// SAFETY: `Collector` has no lifetime, so it is its own `Changed<'to>`.
unsafe impl<'js> JsLifetime<'js> for Collector {
    type Changed<'to> = Collector;
}

impl<'js> IntoJs<'js> for Collector {
    fn into_js(self, ctx: &Ctx<'js>) -> rquickjs::Result<Value<'js>> {
        Class::instance(ctx.clone(), self).into_js(ctx)
    }
}

impl<'js> JsClass<'js> for Collector {
    const NAME: &'static str = "Collector";
    type Mutable = Writable;

    fn prototype(ctx: &Ctx<'js>) -> rquickjs::Result<Option<Object<'js>>> {
        let proto = Object::new(ctx.clone())?;
        let add = Function::new(
            ctx.clone(),
            |this: This<Class<'js, Collector>>, text: String| {
                this.borrow_mut().chunks.push(text);
            },
        )?;
        proto.set("add", add)?;
        Ok(Some(proto))
    }

    fn constructor(ctx: &Ctx<'js>) -> rquickjs::Result<Option<Constructor<'js>>> {
        Constructor::new_class::<Collector, _, _>(ctx.clone(), Collector::default).map(Some)
    }
}

const SCRIPT: &str = r#"
    globalThis.collector = new Collector();
    // "héllo wörld €" in UTF-8, cut inside "é" and "€".
    const bytes = new TextEncoder().encode("héllo wörld €");
    globalThis.done = false;
    new ReadableStream({
        start(c) {
            c.enqueue(bytes.slice(0, 2));
            c.enqueue(bytes.slice(2, bytes.length - 1));
            c.enqueue(bytes.slice(bytes.length - 1));
            c.close();
        },
    })
        .pipeThrough(new TextDecoderStream())
        .pipeTo(new WritableStream({ write(chunk) { collector.add(chunk); rustSink(chunk); } }))
        .then(() => { globalThis.done = true; });
    // A blob read: its chunks come as our tasks.
    new Blob(["from a ", "blob"]).text().then(rustSink);
"#;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let runtime = Runtime::new()?;
    let context = Context::full(&runtime)?;
    let received = Rc::new(RefCell::new(Vec::<String>::new()));

    context.with(|ctx| -> Result<(), Box<dyn std::error::Error>> {
        // The application's own class and function.
        Class::<Collector>::define(&ctx.globals())?;
        let sink = Rc::clone(&received);
        let rust_sink = Function::new(ctx.clone(), move |text: String| {
            sink.borrow_mut().push(text);
        })?;
        ctx.globals().set("rustSink", rust_sink)?;
        // The streams, the DOM and HTML pieces they need, and every client; no host globals
        // (no `setTimeout` or `console`: the application has its own, or none).
        quickjs::install(&ctx, InstallOptions::default())?;
        ctx.eval::<(), _>(SCRIPT)
            .catch(&ctx)
            .map_err(|e| e.to_string())?;
        Ok(())
    })?;

    // The application's loop.
    loop {
        while runtime
            .execute_pending_job()
            .map_err(|e| format!("{e:?}"))?
        {}
        let ran = context.with(|ctx| quickjs::run_pending_tasks(&ctx))?;
        if ran > 0 || runtime.is_job_pending() {
            continue;
        }
        match context.with(|ctx| quickjs::next_timer_at(&ctx)) {
            Some(at) => std::thread::sleep(at.saturating_duration_since(Instant::now())),
            None => break,
        }
    }

    let (done, collected) = context.with(|ctx| -> rquickjs::Result<(bool, String)> {
        let done: bool = ctx.globals().get("done")?;
        let collector: Class<Collector> = ctx.globals().get("collector")?;
        let collected = collector.borrow().chunks.concat();
        Ok((done, collected))
    })?;
    let received = received.borrow().clone();
    println!("rustSink received {received:?}");
    assert!(done, "the pipe finished");
    assert!(received.contains(&"from a blob".to_owned()));
    let text: String = received
        .iter()
        .filter(|s| *s != "from a blob")
        .cloned()
        .collect();
    assert_eq!(text, "héllo wörld €");
    assert!(!text.contains('\u{FFFD}'));
    assert_eq!(collected, "héllo wörld €");
    // Dropping the context, then the runtime, tears boa_streams down before QuickJS frees the
    // runtime (which asserts that no object is left).
    drop(context);
    drop(runtime);
    Ok(())
}
