//! Rust readers of JS streams: `Reader` and `DrainingReader`, errors seen from Rust.

use boa_streams::rust::{
    uint8_array, with_chunk_bytes, Completion, Context, ReadableController, ReadableStream, Source,
    StreamError,
};

use crate::support::script::{Fixture, TestAction};
use crate::{bytes_of, Api};

#[test]
fn a_js_error_reaches_rust_as_an_inspectable_value() {
    let mut api = Fixture::host();
    let js =
        api.eval("new ReadableStream({ pull(c) { c.error(new RangeError('out of range')); } })");
    let reader = ReadableStream::from_value(&js)
        .unwrap()
        .reader(api.context())
        .unwrap();
    let read = reader.read(api.context());
    let error = api.wait(&read).unwrap().unwrap_err();
    let value = error.js_value().expect("the JS value").clone();
    assert!(value.is_object());
    assert_eq!(error.message(api.context()), "RangeError: out of range");
    api.set("e", value);
    api.run([TestAction::assert_string("e instanceof RangeError", "true")]);
}

#[test]
fn draining_returns_every_queued_chunk_up_to_the_byte_limit() {
    let mut api = Fixture::host();
    let js = api.eval(
        "new ReadableStream({ start(c) { for (let i = 0; i < 10; i++) c.enqueue(new Uint8Array(100).fill(i)); c.close(); } })",
    );
    let reader = ReadableStream::from_value(&js)
        .unwrap()
        .draining_reader(api.context())
        .unwrap();
    let mut batches = Vec::new();
    loop {
        let read = reader.read(350, api.context());
        let drained = api.wait(&read).unwrap().unwrap();
        let firsts: Vec<u8> = drained
            .chunks
            .iter()
            .map(|c| bytes_of(c, api.context())[0])
            .collect();
        batches.push((firsts, drained.done));
        if drained.done {
            break;
        }
    }
    assert_eq!(
        batches,
        [
            (vec![0, 1, 2, 3], false),
            (vec![4, 5, 6, 7], false),
            (vec![8, 9], true)
        ]
    );
    // After the end, a read is an empty done batch.
    let read = reader.read(350, api.context());
    let after = api.wait(&read).unwrap().unwrap();
    assert!(after.chunks.is_empty() && after.done);
}

#[test]
fn draining_pulls_again_while_the_source_enqueues_synchronously() {
    let mut api = Fixture::host();
    // hwm 0, one chunk per pull: the draining read keeps pulling within the checkpoint.
    let js = api.eval(
        r#"
        globalThis.pulls = 0;
        new ReadableStream({ pull(c) { pulls++; c.enqueue('x'.repeat(10)); if (pulls == 50) c.close(); } }, { highWaterMark: 0 })
        "#,
    );
    let reader = ReadableStream::from_value(&js)
        .unwrap()
        .draining_reader(api.context())
        .unwrap();
    let read = reader.read(1 << 20, api.context());
    let first = api.wait(&read).unwrap().unwrap();
    assert_eq!(first.chunks.len(), 50);
    assert!(first.done);

    // A byte limit stops it: 10-byte strings, limit 95 -> 10 chunks per batch.
    let js = api.eval(
        "let n = 0; new ReadableStream({ pull(c) { c.enqueue('y'.repeat(10)); if (++n == 25) c.close(); } }, { highWaterMark: 0 })",
    );
    let reader = ReadableStream::from_value(&js)
        .unwrap()
        .draining_reader(api.context())
        .unwrap();
    let mut sizes = Vec::new();
    loop {
        let read = reader.read(95, api.context());
        let d = api.wait(&read).unwrap().unwrap();
        sizes.push(d.chunks.len());
        if d.done {
            break;
        }
    }
    assert_eq!(sizes, [10, 10, 5]);
    api.run([TestAction::assert_string("String(n)", "25")]);
}

#[test]
fn draining_an_asynchronous_source_returns_what_is_there() {
    let mut api = Fixture::host();
    let js = api.eval(
        r#"
        let i = 0;
        new ReadableStream({
            pull(c) { return new Promise(r => setTimeout(() => { c.enqueue(i++); if (i == 3) c.close(); r(); }, 1)); }
        }, { highWaterMark: 0 })
        "#,
    );
    let reader = ReadableStream::from_value(&js)
        .unwrap()
        .draining_reader(api.context())
        .unwrap();
    let mut batches = Vec::new();
    loop {
        let read = reader.read(1000, api.context());
        let d = api.wait(&read).unwrap().unwrap();
        batches.push(
            d.chunks
                .iter()
                .map(|c| c.as_number().unwrap_or(-1.0))
                .collect::<Vec<_>>(),
        );
        if d.done {
            break;
        }
    }
    let flat: Vec<f64> = batches.concat();
    assert_eq!(flat, [0.0, 1.0, 2.0]);
    assert!(batches.iter().all(|b| b.len() <= 1), "{batches:?}");
}

#[test]
fn draining_byte_streams_and_errors() {
    let mut api = Fixture::host();
    let js = api.eval(
        r#"
        let k = 0;
        new ReadableStream({
            type: 'bytes',
            pull(c) { c.enqueue(new Uint8Array(64).fill(k++)); if (k == 8) c.error(new TypeError('cut')); }
        })
        "#,
    );
    let reader = ReadableStream::from_value(&js)
        .unwrap()
        .draining_reader(api.context())
        .unwrap();
    // The chunks before the error come first; the next read reports the error.
    let read = reader.read(1 << 20, api.context());
    let d = api.wait(&read).unwrap();
    match d {
        Ok(d) => {
            assert!(!d.chunks.is_empty() && !d.done);
            let read = reader.read(1 << 20, api.context());
            let again = api.wait(&read).unwrap();
            assert_eq!(again.unwrap_err().message(api.context()), "TypeError: cut");
        }
        Err(e) => panic!("first read failed: {}", e.message(api.context())),
    }

    // Two reads at once: the second is a TypeError.
    let js = api.eval("new ReadableStream()");
    let reader = ReadableStream::from_value(&js)
        .unwrap()
        .draining_reader(api.context())
        .unwrap();
    let _pending = reader.read(10, api.context());
    let read = reader.read(10, api.context());
    let second = api.wait(&read).unwrap();
    assert!(matches!(second, Err(StreamError::TypeError(_))));
}

#[test]
fn a_rust_value_stream_of_bytes_drained_into_a_vec() {
    struct Chunks(u8);
    impl Source for Chunks {
        fn pull(
            &mut self,
            c: &ReadableController,
            ctx: &mut Context,
        ) -> Result<Completion, StreamError> {
            for _ in 0..4 {
                if self.0 == 20 {
                    c.close(ctx)?;
                    break;
                }
                c.enqueue(uint8_array(&[self.0; 3], ctx)?, ctx)?;
                self.0 += 1;
            }
            Ok(Completion::Ready)
        }
    }
    let mut api = Fixture::host();
    let stream = ReadableStream::from_source(Chunks(0), 0.0, api.context()).unwrap();
    let reader = stream.draining_reader(api.context()).unwrap();
    let mut out = Vec::new();
    let mut calls = 0;
    loop {
        let read = reader.read(1 << 16, api.context());
        let d = api.wait(&read).unwrap().unwrap();
        calls += 1;
        for c in &d.chunks {
            with_chunk_bytes(c, api.context(), |b| out.extend_from_slice(b));
        }
        if d.done {
            break;
        }
    }
    assert_eq!(out.len(), 60);
    assert_eq!(calls, 1);
}

/// Small chunks that script enqueues into a byte stream reach a draining reader as their views'
/// bytes exactly (offsets and lengths inside their buffers, small buffers and large), whether
/// it gathers bytes or hands out chunks, and each enqueued buffer is detached by the enqueue.
#[test]
fn draining_small_byte_chunks_gives_exactly_their_bytes() {
    let source = r#"
        globalThis.detached = [];
        globalThis.want = [];
        let k = 0;
        const sizes = [1, 63, 700, 4096, 5000, 3];
        new ReadableStream({ type: 'bytes', pull(c) {
            if (k === sizes.length) { c.close(); return; }
            const n = sizes[k];
            const buffer = new ArrayBuffer(n + 5);
            const all = new Uint8Array(buffer);
            for (let i = 0; i < all.length; i++) all[i] = (i * 13 + k) & 255;
            const view = new Uint8Array(buffer, 2 + (k & 1), n);
            want.push(...view);
            k++;
            c.enqueue(view);
            detached.push(buffer.byteLength === 0);
        } })
    "#;
    // A fresh host with the stream, and a draining reader of it.
    let drained = || {
        let mut api = Fixture::host();
        let js = api.eval(source);
        let reader = ReadableStream::from_value(&js)
            .unwrap()
            .draining_reader(api.context())
            .unwrap();
        (api, reader)
    };
    // Gathered as bytes.
    let (mut api, reader) = drained();
    let mut got = Vec::new();
    loop {
        let read = reader.read_bytes(1 << 20, api.context());
        let d = api.wait(&read).unwrap().unwrap();
        got.extend_from_slice(&d.bytes);
        if d.done {
            break;
        }
    }
    let want: Vec<u8> = api
        .eval_string("want.join()")
        .split(',')
        .map(|b| b.parse().unwrap())
        .collect();
    assert_eq!(got, want);
    api.run([TestAction::assert_string(
        "detached.join()",
        "true,true,true,true,true,true",
    )]);
    // Handed out as chunks: each a Uint8Array of exactly the view's bytes.
    let (mut api, reader) = drained();
    let mut got = Vec::new();
    let mut lengths = Vec::new();
    loop {
        let read = reader.read(1 << 20, api.context());
        let d = api.wait(&read).unwrap().unwrap();
        for c in &d.chunks {
            with_chunk_bytes(c, api.context(), |b| {
                lengths.push(b.len());
                got.extend_from_slice(b);
            });
        }
        if d.done {
            break;
        }
    }
    assert_eq!(lengths, [1, 63, 700, 4096, 5000, 3]);
    assert_eq!(got, want);
}
