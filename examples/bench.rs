//! Per-chunk cost of the native streams against a JavaScript Streams polyfill on the same engine.
//!
//! ```text
//! scripts/bench                                   # installs the polyfill if missing, then runs this
//! cargo run --release --example bench [-- --polyfill PATH_TO_JS] [--quick]
//! ```
//!
//! Every workload is one piece of JavaScript, run once with the native constructors and once with
//! the polyfill's (passed in as `S`), each time in a fresh [`Host`] context with the event loop
//! driving the promises. The time covers evaluating the workload and running the loop until idle
//! (the polyfill is loaded before the clock starts); the best of three runs is kept. Each run
//! checks the chunk count and sum the script computed.
//!
//! The polyfill is the ponyfill build of the npm package `web-streams-polyfill` (v4), a UMD
//! script that defines `globalThis.WebStreamsPolyfill` and leaves the native globals alone. It is
//! read at run time only (default path: `target/bench-polyfill/node_modules/web-streams-polyfill/
//! dist/ponyfill.js`); without it the bench prints the native numbers alone.

use std::{
    path::PathBuf,
    process::ExitCode,
    time::{Duration, Instant},
};

use boa_engine::{js_string, Context};
use boa_streams::host::{error_message, Host, HostOptions};

/// One benchmark: the body of `async (S, N) => { ... }`, which returns `[count, sum]`.
struct Workload {
    name: &'static str,
    /// Chunks per run (chunk `i` is the number `i`, for `i` in `0..n`).
    n: u64,
    /// How many times each chunk reaches the consumer (2 for tee).
    copies: u64,
    body: &'static str,
}

const WORKLOADS: &[Workload] = &[
    Workload {
        name: "enqueue in start(), default reader",
        n: 100_000,
        copies: 1,
        body: r#"
            const rs = new S.ReadableStream({
                start(c) { for (let i = 0; i < N; i++) c.enqueue(i); c.close(); }
            });
            const reader = rs.getReader();
            let count = 0, sum = 0;
            for (;;) {
                const { value, done } = await reader.read();
                if (done) break;
                count++; sum += value;
            }
            return [count, sum];
        "#,
    },
    Workload {
        name: "pull source, for await",
        n: 100_000,
        copies: 1,
        body: r#"
            let i = 0;
            const rs = new S.ReadableStream({
                pull(c) { if (i < N) c.enqueue(i++); else c.close(); }
            });
            let count = 0, sum = 0;
            for await (const value of rs) { count++; sum += value; }
            return [count, sum];
        "#,
    },
    Workload {
        name: "writer.write() x N, sync sink",
        n: 100_000,
        copies: 1,
        body: r#"
            let count = 0, sum = 0;
            const ws = new S.WritableStream({ write(chunk) { count++; sum += chunk; } });
            const writer = ws.getWriter();
            for (let i = 0; i < N; i++) writer.write(i);
            await writer.close();
            return [count, sum];
        "#,
    },
    Workload {
        name: "pipeTo",
        n: 100_000,
        copies: 1,
        body: r#"
            let i = 0, count = 0, sum = 0;
            const rs = new S.ReadableStream({
                pull(c) { if (i < N) c.enqueue(i++); else c.close(); }
            });
            const ws = new S.WritableStream({ write(chunk) { count++; sum += chunk; } });
            await rs.pipeTo(ws);
            return [count, sum];
        "#,
    },
    Workload {
        name: "pipeThrough identity TransformStream",
        n: 100_000,
        copies: 1,
        body: r#"
            let i = 0;
            const rs = new S.ReadableStream({
                pull(c) { if (i < N) c.enqueue(i++); else c.close(); }
            });
            const reader = rs.pipeThrough(new S.TransformStream()).getReader();
            let count = 0, sum = 0;
            for (;;) {
                const { value, done } = await reader.read();
                if (done) break;
                count++; sum += value;
            }
            return [count, sum];
        "#,
    },
    Workload {
        name: "tee, both branches read",
        n: 100_000,
        copies: 2,
        body: r#"
            let i = 0;
            const rs = new S.ReadableStream({
                pull(c) { if (i < N) c.enqueue(i++); else c.close(); }
            });
            const [a, b] = rs.tee();
            let count = 0, sum = 0;
            async function drain(branch) {
                const reader = branch.getReader();
                for (;;) {
                    const { value, done } = await reader.read();
                    if (done) break;
                    count++; sum += value;
                }
            }
            await Promise.all([drain(a), drain(b)]);
            return [count, sum];
        "#,
    },
];

/// Where the constructors come from.
enum Impl<'a> {
    Native,
    /// The polyfill's source text.
    Polyfill(&'a str),
}

/// Runs `workload` with `n` chunks in a fresh context; returns the time of the workload alone.
fn run_once(workload: &Workload, n: u64, imp: &Impl<'_>) -> Result<Duration, String> {
    let (host, mut ctx) =
        Host::new(HostOptions::default()).map_err(|e| format!("cannot build a host: {e}"))?;
    let setup = match imp {
        Impl::Native => {
            "globalThis.__S = { ReadableStream, WritableStream, TransformStream };".to_string()
        }
        Impl::Polyfill(source) => {
            eval(&host, &mut ctx, "polyfill.js", source)?;
            "if (typeof WebStreamsPolyfill !== 'object') throw new Error('no WebStreamsPolyfill');
             if (WebStreamsPolyfill.ReadableStream === globalThis.ReadableStream)
                 throw new Error('the polyfill replaced the native ReadableStream');
             globalThis.__S = WebStreamsPolyfill;"
                .to_string()
        }
    };
    eval(&host, &mut ctx, "setup.js", &setup)?;
    let script = format!(
        "globalThis.__bench = {{ result: undefined, error: undefined }};
         (async (S, N) => {{ {body} }})(__S, {n}).then(
             r => {{ __bench.result = r.join(':'); }},
             e => {{ __bench.error = String(e); }});",
        body = workload.body,
    );

    let start = Instant::now();
    eval(&host, &mut ctx, "workload.js", &script)?;
    host.run_until(&mut ctx, None, &mut |_| false);
    let elapsed = start.elapsed();

    let reports = host.take_reports();
    if !reports.is_empty() {
        let reports: Vec<String> = reports.iter().map(ToString::to_string).collect();
        return Err(reports.join("; "));
    }
    let read = |ctx: &mut Context, key| -> Result<String, String> {
        let run = ctx
            .global_object()
            .get(js_string!("__bench"), ctx)
            .map_err(|e| error_message(e, ctx))?;
        let value = run
            .as_object()
            .ok_or("no __bench object")?
            .get(key, ctx)
            .map_err(|e| error_message(e, ctx))?;
        Ok(if value.is_undefined() {
            String::new()
        } else {
            value
                .to_string(ctx)
                .map_err(|e| error_message(e, ctx))?
                .to_std_string_escaped()
        })
    };
    let error = read(&mut ctx, js_string!("error"))?;
    if !error.is_empty() {
        return Err(format!("the workload rejected: {error}"));
    }
    let result = read(&mut ctx, js_string!("result"))?;
    // Chunks 0..n, each read `copies` times: sum = copies * n(n-1)/2 (exact in a double here).
    let expected = format!(
        "{}:{}",
        workload.copies * n,
        workload.copies * n * n.saturating_sub(1) / 2
    );
    if result != expected {
        return Err(format!(
            "wrong result: got {result:?}, expected {expected:?}"
        ));
    }
    Ok(elapsed)
}

fn eval(host: &Host, ctx: &mut Context, name: &str, source: &str) -> Result<(), String> {
    host.eval_script(ctx, name, source)
        .map(drop)
        .map_err(|e| format!("{name} threw: {}", error_message(e, ctx)))
}

/// Best of `reps` runs, in nanoseconds per chunk.
fn measure(workload: &Workload, n: u64, imp: &Impl<'_>, reps: u32) -> Result<f64, String> {
    let mut best = Duration::MAX;
    for _ in 0..reps {
        best = best.min(run_once(workload, n, imp)?);
    }
    Ok(best.as_nanos() as f64 / (n * workload.copies) as f64)
}

fn main() -> ExitCode {
    let mut polyfill_path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("target/bench-polyfill/node_modules/web-streams-polyfill/dist/ponyfill.js");
    let mut quick = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--quick" => quick = true,
            "--polyfill" => match args.next() {
                Some(path) => polyfill_path = PathBuf::from(path),
                None => {
                    eprintln!("--polyfill needs a path");
                    return ExitCode::from(2);
                }
            },
            _ => {
                eprintln!("usage: bench [--polyfill PATH_TO_JS] [--quick]");
                return ExitCode::from(2);
            }
        }
    }
    if cfg!(debug_assertions) {
        eprintln!("note: a debug build; run with --release for meaningful numbers");
    }

    let polyfill = match std::fs::read_to_string(&polyfill_path) {
        Ok(source) => {
            println!("polyfill: {}", polyfill_path.display());
            Some(source)
        }
        Err(error) => {
            println!(
                "note: no polyfill at {} ({error}); native numbers only. \
                 scripts/bench installs it.",
                polyfill_path.display()
            );
            None
        }
    };

    let reps = 3;
    println!(
        "best of {reps} runs, ns per chunk{}",
        if quick { " (--quick: N / 10)" } else { "" }
    );
    println!();
    println!("| workload | N | native | polyfill | polyfill / native |");
    println!("|---|---:|---:|---:|---:|");
    let mut failed = false;
    for workload in WORKLOADS {
        let n = if quick { workload.n / 10 } else { workload.n };
        let native = measure(workload, n, &Impl::Native, reps);
        let poly = polyfill
            .as_deref()
            .map(|source| measure(workload, n, &Impl::Polyfill(source), reps));
        let cell = |r: &Result<f64, String>| match r {
            Ok(ns) => format!("{ns:.0}"),
            Err(_) => "error".to_string(),
        };
        let ratio = match (&native, &poly) {
            (Ok(a), Some(Ok(b))) => format!("{:.1}x", b / a),
            _ => "-".to_string(),
        };
        let poly_cell = poly.as_ref().map_or("-".to_string(), cell);
        println!(
            "| {} | {n} | {} | {poly_cell} | {ratio} |",
            workload.name,
            cell(&native)
        );
        for (label, result) in [("native", Some(&native)), ("polyfill", poly.as_ref())] {
            if let Some(Err(error)) = result {
                eprintln!("  {} ({label}): {error}", workload.name);
                failed = true;
            }
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
