//! Scaling of the readable byte stream BYOB paths: each shape is timed at n and 8n, every byte
//! is checked, and the ratio time(8n) / time(n) must stay within 4× the linear multiple (≤ 32).
//! The test asserts a ratio, never a time, so it holds in debug and release builds.
//!
//! Shapes (driven from JS, in one `Context`, through the real read paths):
//! - (a) 8n = 40k one-byte chunks queued up front, read back into 64-byte BYOB views (each read
//!   drains 64 queue entries: one slice copy per entry);
//! - (b) 8n = 80k unawaited one-byte BYOB reads, all filled by a single 80k-byte enqueue (the
//!   fill loop must use [[queueTotalSize]], never rescan the queue);
//! - (c) 8n = 40k one-byte chunks read through both branches of a byte stream tee with BYOB
//!   readers.

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
globalThis.smallChunksIntoViews = async (n) => {
  const rs = new ReadableStream({
    type: 'bytes',
    start(c) {
      for (let i = 0; i < n; i++) c.enqueue(new Uint8Array([i & 255]));
      c.close();
    }
  });
  const reader = rs.getReader({ mode: 'byob' });
  let buffer = new ArrayBuffer(64);
  let seen = 0;
  for (;;) {
    const { value, done } = await reader.read(new Uint8Array(buffer));
    if (done) break;
    if (value.byteLength !== Math.min(64, n - seen)) {
      throw new Error(`smallChunksIntoViews: read of ${value.byteLength} bytes at ${seen}`);
    }
    for (let k = 0; k < value.length; k++, seen++) {
      if (value[k] !== (seen & 255)) throw new Error(`smallChunksIntoViews: byte ${seen}`);
    }
    buffer = value.buffer;
  }
  if (seen !== n) throw new Error(`smallChunksIntoViews: ${seen} of ${n} bytes`);
  return n;
};

globalThis.unawaitedReads = async (n) => {
  let controller;
  const rs = new ReadableStream({ type: 'bytes', start(c) { controller = c; } });
  const reader = rs.getReader({ mode: 'byob' });
  let seen = 0;
  const checks = [];
  for (let i = 0; i < n; i++) {
    checks.push(reader.read(new Uint8Array(1)).then(({ value, done }) => {
      if (done || value.length !== 1 || value[0] !== (i & 255)) {
        throw new Error(`unawaitedReads: read ${i} got ${value && value[0]}`);
      }
      seen++;
    }));
  }
  const bytes = new Uint8Array(n);
  for (let i = 0; i < n; i++) bytes[i] = i & 255;
  controller.enqueue(bytes);
  if (controller.byobRequest !== null) throw new Error('unawaitedReads: reads left pending');
  await Promise.all(checks);
  if (seen !== n) throw new Error('unawaitedReads: missing reads');
  return n;
};

globalThis.teeByob = async (n) => {
  const rs = new ReadableStream({
    type: 'bytes',
    start(c) {
      for (let i = 0; i < n; i++) c.enqueue(new Uint8Array([i & 255]));
      c.close();
    }
  });
  const [b1, b2] = rs.tee();
  const drain = async (branch, name) => {
    const reader = branch.getReader({ mode: 'byob' });
    let buffer = new ArrayBuffer(64);
    let seen = 0;
    for (;;) {
      const { value, done } = await reader.read(new Uint8Array(buffer));
      if (done) break;
      for (let k = 0; k < value.length; k++, seen++) {
        if (value[k] !== (seen & 255)) throw new Error(`${name}: byte ${seen}`);
      }
      buffer = value.buffer;
    }
    if (seen !== n) throw new Error(`${name}: ${seen} of ${n} bytes`);
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
fn one_byte_chunks_into_byob_views_scale_linearly() {
    check("smallChunksIntoViews", 5_000);
}

#[test]
fn unawaited_byob_reads_filled_by_one_enqueue_scale_linearly() {
    check("unawaitedReads", 10_000);
}

#[test]
fn byte_tee_with_byob_readers_scales_linearly() {
    check("teeByob", 5_000);
}
