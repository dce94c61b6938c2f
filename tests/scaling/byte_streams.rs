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

use crate::support::scaling::assert_shape_scales;

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

#[test]
fn one_byte_chunks_into_byob_views_scale_linearly() {
    assert_shape_scales(SHAPES, "smallChunksIntoViews", 5_000);
}

#[test]
fn unawaited_byob_reads_filled_by_one_enqueue_scale_linearly() {
    assert_shape_scales(SHAPES, "unawaitedReads", 10_000);
}

#[test]
fn byte_tee_with_byob_readers_scales_linearly() {
    assert_shape_scales(SHAPES, "teeByob", 5_000);
}
