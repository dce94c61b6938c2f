//! The `llrt` column of `examples/bench.rs`: the bench's scenarios on LLRT's web streams
//! (`llrt_stream_web` 0.8.1-beta, the crates.io release) in quickjs-ng through rquickjs 0.11.
//!
//! A crate of its own, outside the workspace (the empty `[workspace]` table in its manifest),
//! because LLRT links its own QuickJS through rquickjs 0.11 and our QuickJS backend links
//! another through rquickjs-sys 0.14: the two cannot share a binary. `scripts/bench` builds it
//! into `target/llrt-host`.
//!
//! ```text
//! llrt-host SCENARIOS_JS [--warmup W] [--reps R]
//! ```
//!
//! `SCENARIOS_JS` is the script `examples/bench.rs` writes for every JS runtime: it defines
//! `__scenarios` (key, chunk count, chunk size, expected result, the constructors it needs, and
//! the body as an async function of `(S, N, SIZE)`) and the helpers `__missing` and `__outcome`.
//! Each run gets a fresh runtime and context with LLRT's globals (`llrt_stream_web::init`, which
//! defines `ReadableStream`, `WritableStream`, their readers, writers and controllers, and the
//! queuing strategies; there is no `TransformStream` in this release), evaluates the script
//! (outside the clock), then times the call of the scenario's body and the QuickJS job queue
//! run dry: the same span our own columns time. One line per scenario on stdout, as the bench
//! parses them: `KEY ok T1 T2 ...` (each timed run in nanoseconds), `KEY n/a REASON`, or
//! `KEY error MESSAGE`.

use std::{
    process::ExitCode,
    time::{Duration, Instant},
};

use rquickjs::{CatchResultExt, Context, Ctx, Runtime};

/// What one run came to.
enum Run {
    Timed(Duration),
    NotApplicable(String),
}

/// A caught exception, or the rquickjs error, as one line of text.
fn message<T>(ctx: &Ctx<'_>, result: rquickjs::Result<T>) -> Result<T, String> {
    result
        .catch(ctx)
        .map_err(|e| e.to_string().replace('\n', " "))
}

/// A fresh runtime and context with LLRT's stream globals and the scenario script evaluated.
fn setup(source: &str) -> Result<(Runtime, Context), String> {
    let runtime = Runtime::new().map_err(|e| format!("cannot make a runtime: {e}"))?;
    let context = Context::full(&runtime).map_err(|e| format!("cannot make a context: {e}"))?;
    let loaded = context.with(|ctx| {
        message(&ctx, llrt_stream_web::init(&ctx))?;
        message(&ctx, ctx.eval::<(), _>(source))
    });
    match loaded {
        Ok(()) => Ok((runtime, context)),
        Err(e) => {
            abandon(runtime, context);
            Err(e)
        }
    }
}

/// Ends a run without freeing its runtime. LLRT 0.8.1-beta's streams leave objects that
/// QuickJS's collector cannot free (a reader is enough: `new ReadableStream({}).getReader()`),
/// and `JS_FreeRuntime` asserts that none are left, aborting the process. So a run's runtime
/// is collected once, to free what can be freed, and then forgotten: its memory goes back when
/// the process exits. Nothing of this is inside the timed span.
fn abandon(runtime: Runtime, context: Context) {
    runtime.run_gc();
    std::mem::forget(context);
    std::mem::forget(runtime);
}

/// Runs every pending QuickJS job; an exception a job throws ends the run as an error.
fn drain_jobs(runtime: &Runtime) -> Result<(), String> {
    loop {
        match runtime.execute_pending_job() {
            Ok(true) => {}
            Ok(false) => return Ok(()),
            Err(e) => {
                return Err(e.0.with(|ctx| {
                    let thrown = ctx.catch();
                    let text = thrown
                        .as_exception()
                        .map(|x| x.to_string())
                        .or_else(|| thrown.get::<rquickjs::Coerced<String>>().ok().map(|s| s.0))
                        .unwrap_or_else(|| "an exception".to_owned());
                    format!("a job threw: {}", text.replace('\n', " "))
                }))
            }
        }
    }
}

/// One run of scenario `index`: its time, or why it does not apply here.
fn run(source: &str, index: usize) -> Result<Run, String> {
    let (runtime, context) = setup(source)?;
    let result = timed_run(&runtime, &context, index);
    abandon(runtime, context);
    result
}

/// The body of [`run`], in a runtime and context made by [`setup`].
fn timed_run(runtime: &Runtime, context: &Context, index: usize) -> Result<Run, String> {
    let missing: String = context.with(|ctx| {
        message(
            &ctx,
            ctx.eval(format!("__missing(__scenarios[{index}], globalThis)")),
        )
    })?;
    if !missing.is_empty() {
        return Ok(Run::NotApplicable(missing));
    }
    let start_run = format!(
        "globalThis.__bench = {{ outcome: undefined }};
         (() => {{
             const s = __scenarios[{index}];
             s.fn(globalThis, s.n, s.size).then(
                 r => {{ __bench.outcome = __outcome(s, r); }},
                 e => {{ __bench.outcome = 'error the workload rejected: ' + String(e); }});
         }})();"
    );

    let start = Instant::now();
    context.with(|ctx| message(&ctx, ctx.eval::<(), _>(start_run)))?;
    drain_jobs(runtime)?;
    let elapsed = start.elapsed();

    let outcome: Option<String> = context.with(|ctx| message(&ctx, ctx.eval("__bench.outcome")))?;
    match outcome.as_deref() {
        Some("ok") => Ok(Run::Timed(elapsed)),
        Some(o) if o.starts_with("n/a") => Ok(Run::NotApplicable(o[3..].trim().to_owned())),
        Some(o) => Err(o.strip_prefix("error ").unwrap_or(o).to_owned()),
        None => Err("the workload never settled (nothing left to run)".to_owned()),
    }
}

/// Warm-up then timed runs of one scenario, as the line the bench parses (without the key).
fn measure(source: &str, index: usize, warmup: usize, reps: usize) -> String {
    let mut times = Vec::new();
    for rep in 0..warmup + reps {
        match run(source, index) {
            Ok(Run::Timed(t)) if rep >= warmup => times.push(t.as_nanos().to_string()),
            Ok(Run::Timed(_)) => {}
            Ok(Run::NotApplicable(reason)) => return format!("n/a {reason}"),
            Err(e) => return format!("error {e}"),
        }
    }
    format!("ok {}", times.join(" "))
}

fn main() -> ExitCode {
    let usage = "usage: llrt-host SCENARIOS_JS [--warmup W] [--reps R]";
    let mut file = None;
    let (mut warmup, mut reps) = (1usize, 5usize);
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let slot = match arg.as_str() {
            "--warmup" => &mut warmup,
            "--reps" => &mut reps,
            _ if file.is_none() && !arg.starts_with('-') => {
                file = Some(arg);
                continue;
            }
            _ => {
                eprintln!("{usage}");
                return ExitCode::from(2);
            }
        };
        match args.next().and_then(|v| v.parse().ok()) {
            Some(v) => *slot = v,
            None => {
                eprintln!("{arg} needs a number\n{usage}");
                return ExitCode::from(2);
            }
        }
    }
    let Some(file) = file else {
        eprintln!("{usage}");
        return ExitCode::from(2);
    };
    let source = match std::fs::read_to_string(&file) {
        Ok(source) => source,
        Err(e) => {
            eprintln!("cannot read {file}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let keys = setup(&source).and_then(|(runtime, context)| {
        let keys = context.with(|ctx| {
            message(
                &ctx,
                ctx.eval::<Vec<String>, _>("__scenarios.map(s => s.key)"),
            )
        });
        abandon(runtime, context);
        keys
    });
    let keys = match keys {
        Ok(keys) => keys,
        Err(e) => {
            eprintln!("cannot load {file}: {e}");
            return ExitCode::FAILURE;
        }
    };
    for (index, key) in keys.iter().enumerate() {
        println!("{key} {}", measure(&source, index, warmup, reps.max(1)));
    }
    ExitCode::SUCCESS
}
