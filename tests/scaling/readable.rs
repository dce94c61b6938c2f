//! Scaling of the readable stream read paths: each shape is timed at n and 8n chunks, every chunk
//! is index-checked, and the ratio time(8n) / time(n) must stay within 4× the linear multiple
//! (≤ 32). The test asserts a ratio, never a time, so it holds in debug and release builds.
//!
//! Shapes (driven from JS, in one `Context`, through the real read path):
//! - (a) 8n = 160k chunks enqueued up front, then read back;
//! - (b) 8n = 160k pending reads, then 160k enqueues fulfilling them;
//! - (c) 8n = 80k chunks read through both branches of a tee.

use crate::support::scaling::assert_shape_scales;

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

#[test]
fn prebuffered_chunks_read_back_scale_linearly() {
    assert_shape_scales(SHAPES, "prebuffered", 20_000);
}

#[test]
fn pending_reads_then_enqueues_scale_linearly() {
    assert_shape_scales(SHAPES, "pendingReads", 20_000);
}

#[test]
fn tee_branches_scale_linearly() {
    assert_shape_scales(SHAPES, "teeBoth", 10_000);
}
