//! Scaling of the readable stream read paths: each shape is timed at n and 8n chunks, every chunk
//! is index-checked, and the ratio time(8n) / time(n) must stay within 4× the linear multiple
//! (≤ 32). The test asserts a ratio, never a time, so it holds in debug and release builds.
//!
//! Shapes (driven from JS, in one `Context`, through the real read path):
//! - (a) 8n = 160k chunks enqueued up front, then read back;
//! - (b) 8n = 160k pending reads, then 160k enqueues fulfilling them;
//! - (c) 8n = 80k chunks read through both branches of a tee.

use std::time::{Duration, Instant};

use boa_engine::{js_string, Context, JsValue, Source};

const LIMIT: f64 = 32.0;

fn context() -> Context {
    let mut ctx = Context::default();
    boa_streams::register(&mut ctx).expect("register the streams globals");
    ctx.eval(Source::from_bytes(SHAPES))
        .expect("define the shapes");
    ctx
}

const SHAPES: &str = r#"
globalThis.prebuffered = async (n) => {
  const rs = new ReadableStream({
    start(c) {
      for (let i = 0; i < n; i++) c.enqueue(i);
      c.close();
    }
  });
  const reader = rs.getReader();
  for (let i = 0; i < n; i++) {
    const { value, done } = await reader.read();
    if (done || value !== i) throw new Error(`prebuffered: chunk ${i} was ${value}`);
  }
  const last = await reader.read();
  if (!last.done) throw new Error('prebuffered: not done');
  return n;
};

globalThis.pendingReads = async (n) => {
  let controller;
  const rs = new ReadableStream({ start(c) { controller = c; } });
  const reader = rs.getReader();
  let seen = 0;
  const checks = [];
  for (let i = 0; i < n; i++) {
    checks.push(reader.read().then(({ value, done }) => {
      if (done || value !== i) throw new Error(`pendingReads: read ${i} got ${value}`);
      seen++;
    }));
  }
  for (let i = 0; i < n; i++) controller.enqueue(i);
  await Promise.all(checks);
  if (seen !== n) throw new Error('pendingReads: missing reads');
  return n;
};

globalThis.teeBoth = async (n) => {
  const rs = new ReadableStream({
    start(c) {
      for (let i = 0; i < n; i++) c.enqueue(i);
      c.close();
    }
  });
  const [b1, b2] = rs.tee();
  const drain = async (branch, name) => {
    const reader = branch.getReader();
    for (let i = 0; i < n; i++) {
      const { value, done } = await reader.read();
      if (done || value !== i) throw new Error(`${name}: chunk ${i} was ${value}`);
    }
    if (!(await reader.read()).done) throw new Error(`${name}: not done`);
  };
  await Promise.all([drain(b1, 'branch1'), drain(b2, 'branch2')]);
  return n;
};
"#;

/// Runs `shape(n)` to completion and returns how long it took.
fn time_shape(ctx: &mut Context, shape: &str, n: u32) -> Duration {
    ctx.global_object()
        .set(js_string!("__result"), JsValue::undefined(), false, ctx)
        .expect("reset the result");
    let script = format!(
        "{shape}({n}).then(v => {{ globalThis.__result = v; }}, e => {{ globalThis.__result = String(e); }});"
    );
    boa_engine::gc::force_collect();
    let start = Instant::now();
    ctx.eval(Source::from_bytes(&script))
        .expect("start the shape");
    ctx.run_jobs().expect("run the shape");
    let elapsed = start.elapsed();
    let result = ctx
        .global_object()
        .get(js_string!("__result"), ctx)
        .expect("read the result");
    assert_eq!(
        result,
        JsValue::from(n),
        "{shape}({n}) did not complete: {}",
        result.display()
    );
    elapsed
}

/// The best of `runs` timings (noise only ever adds time).
fn best(ctx: &mut Context, shape: &str, n: u32, runs: usize) -> Duration {
    (0..runs)
        .map(|_| time_shape(ctx, shape, n))
        .min()
        .unwrap_or_default()
}

fn check(shape: &str, n: u32) {
    let mut ctx = context();
    // Warm up (first-time shape and inline-cache work, heap growth).
    time_shape(&mut ctx, shape, n);
    let small = best(&mut ctx, shape, n, 3);
    let large = best(&mut ctx, shape, 8 * n, 2);
    let ratio = large.as_secs_f64() / small.as_secs_f64().max(1e-9);
    println!(
        "{shape}: n={n} {small:?}, 8n={} {large:?}, ratio {ratio:.2}",
        8 * n
    );
    assert!(
        ratio <= LIMIT,
        "{shape}: time(8n)/time(n) = {ratio:.2} > {LIMIT} (n: {small:?}, 8n: {large:?})"
    );
}

#[test]
fn prebuffered_chunks_read_back_scale_linearly() {
    check("prebuffered", 20_000);
}

#[test]
fn pending_reads_then_enqueues_scale_linearly() {
    check("pendingReads", 20_000);
}

#[test]
fn tee_branches_scale_linearly() {
    check("teeBoth", 10_000);
}
