//! An application that owns its Boa `Context` and job executor, with its own class and Rust
//! function, installs the streams into it and drives them (`cargo run --example boa_app`; Boa
//! build). README.md, "Embedding into your Boa context", explains each step.
//!
//! What our code hands the executor, and what the executor must do with each:
//! - `Job::PromiseJob`: microtasks (promise reactions, the streams' internal jobs): run them
//!   all, including those they queue, after each task (a microtask checkpoint);
//! - `Job::GenericJob`: HTML tasks (`Blob` reads, `fetch()` bodies, `MessagePort` messages,
//!   each in its realm): run one at a time, oldest first, a checkpoint after each;
//! - `Job::TimeoutJob`: timers (none of ours unless the application uses `queue_timer`
//!   users such as its own `setTimeout`): run once due, a checkpoint after each.
//!
//! Boa's own `SimpleJobExecutor` (the default of `Context::default()`) does all three in
//! `Context::run_jobs`; this executor writes them out to show the contract.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, VecDeque};
use std::rc::Rc;
use std::time::{Duration, Instant};

use boa_engine::class::{Class, ClassBuilder};
use boa_engine::job::{GenericJob, Job, JobExecutor, PromiseJob, TimeoutJob};
use boa_engine::{
    js_string, Context, JsData, JsNativeError, JsResult, JsValue, NativeFunction, Source,
};
use boa_gc::{Finalize, Trace};

/// The application's executor: a microtask queue, a task queue and timers.
#[derive(Default)]
struct AppExecutor {
    microtasks: RefCell<VecDeque<PromiseJob>>,
    tasks: RefCell<VecDeque<GenericJob>>,
    timers: RefCell<BTreeMap<(Instant, u64), TimeoutJob>>,
    timer_seq: Cell<u64>,
}

impl AppExecutor {
    /// A microtask checkpoint: every microtask, including those queued meanwhile.
    fn checkpoint(&self, ctx: &mut Context) -> JsResult<()> {
        loop {
            let job = self.microtasks.borrow_mut().pop_front();
            let Some(job) = job else { return Ok(()) };
            job.call(ctx)?;
        }
    }
}

impl JobExecutor for AppExecutor {
    fn enqueue_job(self: Rc<Self>, job: Job, _ctx: &mut Context) {
        match job {
            Job::PromiseJob(job) => self.microtasks.borrow_mut().push_back(job),
            Job::GenericJob(job) => self.tasks.borrow_mut().push_back(job),
            Job::TimeoutJob(job) => {
                let due = Instant::now() + Duration::from_millis(job.timeout().as_millis());
                let seq = self.timer_seq.get();
                self.timer_seq.set(seq + 1);
                self.timers.borrow_mut().insert((due, seq), job);
            }
            // (This application queues no async or interval jobs.)
            _ => {}
        }
    }

    fn run_jobs(self: Rc<Self>, ctx: &mut Context) -> JsResult<()> {
        loop {
            self.checkpoint(ctx)?;
            let task = self.tasks.borrow_mut().pop_front();
            if let Some(task) = task {
                task.call(ctx)?;
                continue;
            }
            let next = self.timers.borrow().keys().next().copied();
            let Some(key) = next else { return Ok(()) };
            std::thread::sleep(key.0.saturating_duration_since(Instant::now()));
            let timer = self.timers.borrow_mut().remove(&key);
            if let Some(timer) = timer.filter(|t| !t.cancelled()) {
                timer.call(ctx)?;
            }
        }
    }
}

/// The application's own class: collects the strings given to `add`.
#[derive(Debug, Default, Trace, Finalize, JsData)]
struct Collector {
    #[unsafe_ignore_trace]
    chunks: RefCell<Vec<String>>,
}

impl Class for Collector {
    const NAME: &'static str = "Collector";

    fn data_constructor(_: &JsValue, _: &[JsValue], _: &mut Context) -> JsResult<Self> {
        Ok(Collector::default())
    }

    fn init(class: &mut ClassBuilder<'_>) -> JsResult<()> {
        class.method(
            js_string!("add"),
            1,
            NativeFunction::from_fn_ptr(|this, args, ctx| {
                let text = args.first().cloned().unwrap_or_default().to_string(ctx)?;
                let not_a_collector = || JsNativeError::typ().with_message("not a Collector");
                let object = this.as_object().ok_or_else(not_a_collector)?;
                let collector = object
                    .downcast_ref::<Collector>()
                    .ok_or_else(not_a_collector)?;
                collector
                    .chunks
                    .borrow_mut()
                    .push(text.to_std_string_escaped());
                Ok(JsValue::undefined())
            }),
        );
        Ok(())
    }
}

thread_local! {
    /// What the application's Rust function `rustSink` received.
    static SINK: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

fn main() -> JsResult<()> {
    let executor = Rc::new(AppExecutor::default());
    let mut ctx = Context::builder().job_executor(executor).build()?;

    // The application's own class and function.
    ctx.register_global_class::<Collector>()?;
    ctx.register_global_callable(
        js_string!("rustSink"),
        1,
        NativeFunction::from_fn_ptr(|_, args, ctx| {
            let text = args.first().cloned().unwrap_or_default().to_string(ctx)?;
            SINK.with(|s| s.borrow_mut().push(text.to_std_string_escaped()));
            Ok(JsValue::undefined())
        }),
    )?;

    // The streams, the DOM and HTML pieces they need, and the clients (Encoding, ...).
    boa_streams::register(&mut ctx)?;

    ctx.eval(Source::from_bytes(
        r#"
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
        // A blob read: its chunks come as tasks (GenericJob).
        new Blob(["from a ", "blob"]).text().then(rustSink);
        "#,
    ))?;
    // Drive everything: microtasks, tasks, timers.
    ctx.run_jobs()?;

    let done = ctx.eval(Source::from_bytes("done"))?;
    let received = SINK.with(|s| s.borrow().clone());
    println!("rustSink received {received:?}");
    assert_eq!(done.as_boolean(), Some(true), "the pipe finished");
    assert!(received.contains(&"from a blob".to_owned()));
    let text: String = received
        .iter()
        .filter(|s| *s != "from a blob")
        .cloned()
        .collect();
    assert_eq!(text, "héllo wörld €");
    assert!(!text.contains('\u{FFFD}'));
    // The application's own object saw the same chunks.
    let collector = ctx.eval(Source::from_bytes("collector"))?;
    let collected = collector.as_object().and_then(|o| {
        o.downcast_ref::<Collector>()
            .map(|c| c.chunks.borrow().concat())
    });
    assert_eq!(collected.as_deref(), Some("héllo wörld €"));
    Ok(())
}
