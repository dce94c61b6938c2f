//! Benchmarks of the Rust API (`boa_streams::rust`). Run in release:
//!
//! ```sh
//! cargo run --release --example bench_rust            # or: -- --quick
//! ```
//!
//! 1. **Draining vs plain reads from Rust** of JS-sourced streams, in the shapes workerd measured
//!    for its draining read (chunk size × chunk count: 64 B × 256, 256 B × 100, 4 KiB × 100,
//!    64 KiB × 16), value and byte streams, high-water mark 0 and 16 KiB. The JS source's
//!    `pull` enqueues one fresh `Uint8Array` per call. The Rust consumer writes into a Rust
//!    sink: the plain reader makes one write per chunk (the sink copies it: the chunk is lent),
//!    the draining reader one write per batch (the batch's chunks under 16 KiB copied once into
//!    one run, which the sink takes as it is, as a socket writer takes a frame; larger chunks
//!    lent to the sink as they are); each byte is copied once either way. Reported: µs per iteration (making the stream, reading it
//!    to the end, event loop included) and writes per iteration. `--shape 65536x16` runs one
//!    shape's rows only.
//! 2. **A native pipe**: `pipeTo` from a Rust byte source (filling each 64 KiB auto-allocated
//!    buffer in place from a Rust slice) to a Rust sink (copying each chunk out into a Rust
//!    buffer): no JS runs per chunk. In GB/s, beside a plain `memcpy` loop over the same bytes
//!    in the same 64 KiB chunks, to a `Sink` (JS chunks) and to a `ByteSink` (the native pipe).
//! 3. **A compressed text body**: a Rust byte source of gzip-compressed UTF-8 text (64 KiB reads)
//!    → `DecompressionStream('gzip')` → `TextDecoderStream` → a Rust sink that counts the text's
//!    UTF-16 code units, beside the same flate2 (`GzDecoder`) + encoding_rs (UTF-8 decoder)
//!    work called in a plain Rust loop over the same 64 KiB chunks; and the JS objects the
//!    library makes per chunk on that path (`boa_streams::js_objects_created`).
//! 4. **Draining a Rust source**: a Rust value `Source` that enqueues one 64-byte `Uint8Array`
//!    per pull, 256 chunks, read to the end with the plain `Reader` or the `DrainingReader`.
//!    `--part 4 --reader plain|drain|none` runs one of them once (`none`: only the setup), for
//!    callgrind: the difference of two runs' instruction counts is what the reads cost.
//!
//! `--part 2 --native-bare MIB` runs only part 2's native pipe with neither side touching the
//! bytes, once over MIB MiB, for callgrind (two sizes' difference is the per-chunk cost).

use std::{
    cell::RefCell,
    rc::Rc,
    time::{Duration, Instant},
};

use boa_engine::{object::builtins::JsFunction, Context, JsValue};
use boa_streams::host::{Host, HostOptions};
use boa_streams::rust::{
    with_chunk_bytes, ByteController, ByteSink, ByteSource, Completion, ReadableStream, Sink,
    StreamError, WritableController, WritableStream,
};

/// The draining reader's byte limit.
const DRAIN_LIMIT: usize = 256 * 1024;

/// The draining consumer copies chunks smaller than this into one run (16 KiB, an HTTP/2
/// frame's default size and a TLS record's); larger chunks go to the sink as they are.
const COALESCE_BELOW: usize = 16 * 1024;

const SHAPES: [(usize, usize); 4] = [(64, 256), (256, 100), (4096, 100), (65536, 16)];

const MAKE: &str = r#"
    (function make(size, count, hwm, bytes) {
        let i = 0;
        const source = {
            pull(c) {
                c.enqueue(new Uint8Array(size));
                if (++i === count) c.close();
            },
        };
        if (bytes) {
            source.type = 'bytes';
            return new ReadableStream(source, { highWaterMark: hwm });
        }
        return new ReadableStream(source, new ByteLengthQueuingStrategy({ highWaterMark: hwm }));
    })
"#;

/// The Rust sink of part 1: counts writes and bytes.
#[derive(Default)]
struct CountingSink {
    writes: usize,
    bytes: usize,
    scratch: Vec<u8>,
}

impl CountingSink {
    /// A write of bytes the sink does not own: it copies them (one pass over them, as a real
    /// sink that keeps or sends bytes it was lent would).
    fn write(&mut self, bytes: &[u8]) {
        self.writes += 1;
        self.bytes += bytes.len();
        self.scratch.clear();
        self.scratch.extend_from_slice(bytes);
    }

    /// A write of a run of bytes handed over (as a socket writer takes a frame): no copy, the
    /// run's bytes having been copied once already, out of the chunks, into it.
    fn take(&mut self, run: Vec<u8>) {
        self.writes += 1;
        self.bytes += run.len();
        drop(run);
    }
}

fn make_stream(
    make: &JsFunction,
    size: usize,
    count: usize,
    hwm: usize,
    bytes: bool,
    ctx: &mut Context,
) -> ReadableStream {
    let args = [
        JsValue::from(size as f64),
        JsValue::from(count as f64),
        JsValue::from(hwm as f64),
        JsValue::from(bytes),
    ];
    let value = make
        .call(&JsValue::undefined(), &args, ctx)
        .expect("make()");
    ReadableStream::from_value(&value.clone().into()).expect("a ReadableStream")
}

fn plain_iteration(
    host: &Host,
    ctx: &mut Context,
    stream: &ReadableStream,
    sink: &mut CountingSink,
) {
    let reader = stream.reader(ctx).expect("a reader");
    while let Some(chunk) = reader
        .read(ctx)
        .wait(host, ctx)
        .expect("a result")
        .expect("a chunk")
    {
        with_chunk_bytes(&chunk, ctx, |b| sink.write(b)).expect("bytes");
    }
}

fn draining_iteration(
    host: &Host,
    ctx: &mut Context,
    stream: &ReadableStream,
    sink: &mut CountingSink,
) {
    let reader = stream.draining_reader(ctx).expect("a reader");
    loop {
        let drained = reader
            .read(DRAIN_LIMIT, ctx)
            .wait(host, ctx)
            .expect("a result")
            .expect("a batch");
        // Small chunks are copied once into a run, which the sink takes as it is (as a socket
        // writer takes a frame); a chunk of a frame's size or more is lent to the sink as it
        // is (copying it into a run first would only add a copy). Each byte is copied once,
        // as the plain consumer's sink copies each chunk.
        let mut run = Vec::new();
        for chunk in &drained.chunks {
            with_chunk_bytes(chunk, ctx, |b| {
                if b.len() < COALESCE_BELOW {
                    run.extend_from_slice(b);
                } else {
                    if !run.is_empty() {
                        sink.take(std::mem::take(&mut run));
                    }
                    sink.write(b);
                }
            })
            .expect("bytes");
        }
        if !run.is_empty() {
            sink.take(run);
        }
        if drained.done {
            break;
        }
    }
}

/// µs per iteration (best of `rounds` rounds of `iterations`) and writes per iteration.
#[allow(clippy::too_many_arguments)]
fn measure(
    host: &Host,
    ctx: &mut Context,
    make: &JsFunction,
    (size, count): (usize, usize),
    hwm: usize,
    bytes: bool,
    draining: bool,
    iterations: usize,
    rounds: usize,
) -> (f64, f64) {
    let mut best = f64::INFINITY;
    let mut writes = 0.0;
    for _ in 0..rounds {
        let mut sink = CountingSink::default();
        let start = Instant::now();
        for _ in 0..iterations {
            let stream = make_stream(make, size, count, hwm, bytes, ctx);
            if draining {
                draining_iteration(host, ctx, &stream, &mut sink);
            } else {
                plain_iteration(host, ctx, &stream, &mut sink);
            }
        }
        let elapsed = start.elapsed().as_secs_f64() * 1e6 / iterations as f64;
        assert_eq!(sink.bytes, size * count * iterations, "every byte arrives");
        best = best.min(elapsed);
        writes = sink.writes as f64 / iterations as f64;
    }
    (best, writes)
}

// ---------------------------------------------------------------------------------------------
// Part 2: a native pipe
// ---------------------------------------------------------------------------------------------

const PIPE_CHUNK: usize = 64 * 1024;

/// Fills each request in place from `data`.
struct SliceSource {
    data: Rc<Vec<u8>>,
    at: usize,
    /// Whether to copy the bytes (false: only the stream's per-chunk cost is measured).
    copy: bool,
}

impl ByteSource for SliceSource {
    fn pull(&mut self, c: &ByteController, ctx: &mut Context) -> Result<Completion, StreamError> {
        if self.at == self.data.len() {
            c.close(ctx)?;
            return Ok(Completion::Ready);
        }
        if let Some(request) = c.byob_request() {
            let (data, at, copy) = (&self.data, self.at, self.copy);
            let n = request
                .fill(|buf| {
                    let n = buf.len().min(data.len() - at);
                    if copy {
                        buf[..n].copy_from_slice(&data[at..at + n]);
                    }
                    n
                })
                .unwrap_or(0);
            self.at += n;
            request.respond(n, ctx)?;
        }
        Ok(Completion::Ready)
    }
}

/// Copies each chunk into `out`.
struct CopySink {
    out: Rc<RefCell<Vec<u8>>>,
    at: usize,
    copy: bool,
}

impl Sink for CopySink {
    fn write(
        &mut self,
        chunk: boa_streams::rust::Value,
        _: &WritableController,
        ctx: &mut Context,
    ) -> Result<Completion, StreamError> {
        let mut out = self.out.borrow_mut();
        let (at, copy) = (self.at, self.copy);
        let n = with_chunk_bytes(&chunk, ctx, |b| {
            if copy {
                out[at..at + b.len()].copy_from_slice(b);
            }
            b.len()
        })
        .ok_or_else(|| StreamError::type_error("bytes only"))?;
        self.at += n;
        Ok(Completion::Ready)
    }
}

/// Copies each chunk's bytes into `out` (a `ByteSink`: a pipe from a Rust byte source hands it
/// the bytes with no JS object, in the pipe's recycled buffers).
struct CopyByteSink {
    out: Rc<RefCell<Vec<u8>>>,
    at: usize,
    copy: bool,
}

impl ByteSink for CopyByteSink {
    fn write(
        &mut self,
        bytes: &[u8],
        _: &WritableController,
        _: &mut Context,
    ) -> Result<Completion, StreamError> {
        if self.copy {
            self.out.borrow_mut()[self.at..self.at + bytes.len()].copy_from_slice(bytes);
        }
        self.at += bytes.len();
        Ok(Completion::Ready)
    }
}

/// How a pipe's chunks reach the Rust sink.
#[derive(Clone, Copy)]
enum Route {
    /// `source.pipeTo(sink)`.
    Direct,
    /// Through an identity `TransformStream`: `source.pipeTo(ts.writable)` and
    /// `ts.readable.pipeTo(sink)`.
    Identity,
    /// `source.pipeTo(moved)`, where `moved` is the sink transferred with `structuredClone`: its
    /// port carries each chunk to the pipe the transfer made from a cross-realm readable into
    /// the sink.
    Transferred,
}

/// A function of script.
fn script_fn(host: &Host, ctx: &mut Context, source: &str) -> JsFunction {
    let f = host
        .eval_script(ctx, "route.js", source)
        .expect("the script runs");
    f.as_object()
        .and_then(|o| JsFunction::from_object(o.into()))
        .expect("a function")
}

#[allow(clippy::too_many_arguments)]
fn pipe_once(
    host: &Host,
    ctx: &mut Context,
    data: &Rc<Vec<u8>>,
    out: &Rc<RefCell<Vec<u8>>>,
    copy: bool,
    byte_sink: bool,
    route: Route,
) -> Duration {
    let start = Instant::now();
    let source = ReadableStream::from_byte_source(
        SliceSource {
            data: data.clone(),
            at: 0,
            copy,
        },
        0.0,
        Some(PIPE_CHUNK),
        ctx,
    )
    .expect("a byte stream");
    let sink = if byte_sink {
        WritableStream::from_byte_sink(
            CopyByteSink {
                out: out.clone(),
                at: 0,
                copy,
            },
            1.0,
            ctx,
        )
    } else {
        WritableStream::from_sink(
            CopySink {
                out: out.clone(),
                at: 0,
                copy,
            },
            1.0,
            ctx,
        )
    }
    .expect("a writable stream");
    let finish = |ticket: boa_streams::rust::Ticket<Result<(), StreamError>>, ctx: &mut Context| {
        ticket
            .wait(host, ctx)
            .expect("the pipe settles")
            .expect("the pipe succeeds");
    };
    match route {
        Route::Direct => finish(source.pipe_to(&sink, ctx), ctx),
        Route::Identity => {
            let make = script_fn(
                host,
                ctx,
                "() => { const ts = new TransformStream(); return [ts.readable, ts.writable]; }",
            );
            let ends = make
                .call(&JsValue::undefined(), &[], ctx)
                .expect("a transform");
            let ends = ends.as_object().expect("an array").clone();
            let readable = ends.get(0, ctx).expect("readable");
            let writable = ends.get(1, ctx).expect("writable");
            let readable = ReadableStream::from_value(&readable.into()).expect("a readable");
            let writable = WritableStream::from_value(&writable.into()).expect("a writable");
            let first = source.pipe_to(&writable, ctx);
            let second = readable.pipe_to(&sink, ctx);
            finish(first, ctx);
            finish(second, ctx);
        }
        Route::Transferred => {
            let transfer = script_fn(host, ctx, "(w) => structuredClone(w, { transfer: [w] })");
            let moved = transfer
                .call(&JsValue::undefined(), &[sink.to_value().into()], ctx)
                .expect("the transfer");
            let moved = WritableStream::from_value(&moved.into()).expect("a writable");
            finish(source.pipe_to(&moved, ctx), ctx);
            // The pipe from the cross-realm readable into the sink ends with the `close`
            // message.
            host.run_until(ctx, None, &mut |_| false);
        }
    }
    start.elapsed()
}

fn memcpy_once(data: &[u8], out: &mut [u8]) -> Duration {
    let start = Instant::now();
    for (src, dst) in data.chunks(PIPE_CHUNK).zip(out.chunks_mut(PIPE_CHUNK)) {
        dst.copy_from_slice(std::hint::black_box(src));
    }
    std::hint::black_box(&out);
    start.elapsed()
}

/// The copies the pipe makes, without the stream: source → a 64 KiB buffer → destination.
fn two_copies_once(data: &[u8], out: &mut [u8]) -> Duration {
    let mut bounce = vec![0u8; PIPE_CHUNK];
    let start = Instant::now();
    for (src, dst) in data.chunks(PIPE_CHUNK).zip(out.chunks_mut(PIPE_CHUNK)) {
        bounce[..src.len()].copy_from_slice(std::hint::black_box(src));
        dst.copy_from_slice(std::hint::black_box(&bounce[..src.len()]));
    }
    std::hint::black_box(&out);
    start.elapsed()
}

// ---------------------------------------------------------------------------------------------
// Part 3: a compressed text body through DecompressionStream and TextDecoderStream
// ---------------------------------------------------------------------------------------------

/// UTF-8 text with some two- and three-byte characters, pseudo-random words (compresses about
/// 3:1 with gzip).
fn text(len: usize) -> String {
    const WORDS: [&str; 12] = [
        "stream",
        "chunk",
        "pipe",
        "écrire",
        "lire",
        "queue",
        "füllen",
        "bytes",
        "データ",
        "reader",
        "writer",
        "transform",
    ];
    let mut out = String::with_capacity(len + 16);
    let mut x: u32 = 0x2545_f491;
    while out.len() < len {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        out.push_str(WORDS[(x % 12) as usize]);
        out.push(if x.is_multiple_of(7) { '\n' } else { ' ' });
    }
    out
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(bytes).expect("in memory");
    encoder.finish().expect("in memory")
}

/// The plain loop: flate2's gzip decoder and encoding_rs's UTF-8 decoder (to UTF-16, as
/// `TextDecoderStream` decodes for a JS string) over the same 64 KiB chunks, into buffers it
/// reuses; returns the UTF-16 length of the text (what the pipeline's sink counts).
#[inline(never)]
fn plain_decode_once(compressed: &[u8]) -> (Duration, usize) {
    use std::io::Write;
    let start = Instant::now();
    let mut inflater = flate2::write::GzDecoder::new(Vec::new());
    let mut decoder = encoding_rs::UTF_8.new_decoder_without_bom_handling();
    let mut text: Vec<u16> = Vec::new();
    let mut units = 0;
    let mut decode = |bytes: &[u8], last: bool| {
        text.resize(decoder.max_utf16_buffer_length(bytes.len()).unwrap_or(0), 0);
        let (_, _, written, _) = decoder.decode_to_utf16(bytes, &mut text, last);
        std::hint::black_box(&text[..written]);
        written
    };
    for chunk in compressed.chunks(PIPE_CHUNK) {
        inflater.write_all(chunk).expect("valid gzip");
        units += decode(inflater.get_ref(), false);
        inflater.get_mut().clear();
    }
    let rest = inflater.finish().expect("valid gzip");
    units += decode(&rest, true);
    (start.elapsed(), units)
}

/// Counts the UTF-16 code units of the string chunks written.
struct TextCount(Rc<std::cell::Cell<usize>>);

impl Sink for TextCount {
    fn write(
        &mut self,
        chunk: boa_streams::rust::Value,
        _: &WritableController,
        _: &mut Context,
    ) -> Result<Completion, StreamError> {
        let units = chunk
            .as_string()
            .map(|s| s.len())
            .ok_or_else(|| StreamError::type_error("strings only"))?;
        self.0.set(self.0.get() + units);
        Ok(Completion::Ready)
    }
}

const DECODE: &str = r#"
    (function decode(body) {
        return body.pipeThrough(new DecompressionStream('gzip')).pipeThrough(new TextDecoderStream());
    })
"#;

/// The pipeline; returns its time, the UTF-16 length it counted, and the JS objects the library
/// made while it ran.
#[inline(never)]
fn pipeline_once(
    host: &Host,
    ctx: &mut Context,
    decode: &JsFunction,
    compressed: &Rc<Vec<u8>>,
) -> (Duration, usize, u64) {
    let objects = boa_streams::js_objects_created();
    let start = Instant::now();
    let body = ReadableStream::from_byte_source(
        SliceSource {
            data: compressed.clone(),
            at: 0,
            copy: true,
        },
        0.0,
        Some(PIPE_CHUNK),
        ctx,
    )
    .expect("a byte stream");
    let text = decode
        .call(&JsValue::undefined(), &[body.to_value().into()], ctx)
        .expect("decode()");
    let text = ReadableStream::from_value(&text.into()).expect("a readable stream");
    let count = Rc::new(std::cell::Cell::new(0));
    let sink = WritableStream::from_sink(TextCount(count.clone()), 1.0, ctx).expect("a sink");
    text.pipe_to(&sink, ctx)
        .wait(host, ctx)
        .expect("the pipe settles")
        .expect("the pipe succeeds");
    let elapsed = start.elapsed();
    (
        elapsed,
        count.get(),
        boa_streams::js_objects_created() - objects,
    )
}

// ---------------------------------------------------------------------------------------------
// Part 4: draining a Rust source
// ---------------------------------------------------------------------------------------------

/// A Rust value source: one 64-byte chunk per pull, `left` of them: a `Uint8Array`, or Rust
/// bytes (`enqueue_bytes`) when `native`.
struct Small {
    left: usize,
    native: bool,
}

impl boa_streams::rust::Source for Small {
    fn pull(
        &mut self,
        c: &boa_streams::rust::ReadableController,
        ctx: &mut Context,
    ) -> Result<Completion, StreamError> {
        if self.left == 0 {
            c.close(ctx)?;
        } else {
            self.left -= 1;
            if self.native {
                c.enqueue_bytes(&[7; 64], ctx)?;
            } else {
                c.enqueue(boa_streams::rust::uint8_array(&[7; 64], ctx)?, ctx)?;
            }
        }
        Ok(Completion::Ready)
    }
}

/// Reads 256 × 64 B from a Rust source to the end (plain or draining; the chunks are Rust bytes
/// when `native`); returns the bytes read.
#[inline(never)]
fn read_rust_source(
    host: &Host,
    ctx: &mut Context,
    draining: bool,
    native: bool,
    hwm: f64,
) -> usize {
    let source = Small { left: 256, native };
    let stream = ReadableStream::from_source(source, hwm, ctx).expect("a stream");
    let mut sink = CountingSink::default();
    if draining {
        draining_iteration(host, ctx, &stream, &mut sink);
    } else {
        plain_iteration(host, ctx, &stream, &mut sink);
    }
    sink.bytes
}

/// The process's minor page faults so far (Linux; 0 elsewhere).
fn minor_faults() -> u64 {
    std::fs::read_to_string("/proc/self/stat")
        .ok()
        .and_then(|s| {
            let after = s.rsplit_once(')')?.1;
            after.split_whitespace().nth(7)?.parse().ok()
        })
        .unwrap_or(0)
}

fn gbps(bytes: usize, d: Duration) -> f64 {
    bytes as f64 / d.as_secs_f64() / 1e9
}

fn main() {
    // Body-sized buffers reuse freed heap instead of fresh mappings (see the function).
    boa_streams::host::keep_freed_memory_mapped();
    let args: Vec<String> = std::env::args().collect();
    let quick = args.iter().any(|a| a == "--quick");
    // `--part N` runs part N only (for callgrind).
    let only: Option<u32> = args
        .iter()
        .position(|a| a == "--part")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse().ok());
    let want = |n: u32| only.is_none_or(|o| o == n);
    // `--shape SIZExCOUNT` (e.g. `65536x16`) runs part 1's rows of that shape only.
    let shape: Option<(usize, usize)> = args
        .iter()
        .position(|a| a == "--shape")
        .and_then(|i| args.get(i + 1))
        .and_then(|s| s.split_once('x'))
        .and_then(|(size, count)| Some((size.parse().ok()?, count.parse().ok()?)));
    let rounds = if quick { 2 } else { 5 };
    let (host, mut ctx) = Host::new(HostOptions::default()).expect("a host");
    let make = host
        .eval_script(&mut ctx, "make.js", MAKE)
        .expect("make()")
        .as_object()
        .and_then(|o| JsFunction::from_object(o.into()))
        .expect("a function");

    if want(1) {
        println!("## Draining vs plain reads from Rust (JS pull source, one chunk per pull)");
        println!();
        println!(
        "Draining byte limit {} KiB. µs per iteration (best of 3 rounds); writes per iteration into the Rust sink.",
        DRAIN_LIMIT / 1024
    );
        println!();
        println!("| stream | shape | hwm | plain µs | draining µs | plain / draining | plain writes | draining writes |");
        println!("|---|---|---:|---:|---:|---:|---:|---:|");
        for bytes in [false, true] {
            for &(size, count) in SHAPES.iter().filter(|&&s| shape.is_none_or(|t| t == s)) {
                for hwm in [0, 16 * 1024] {
                    let total = size * count;
                    let iterations = if quick {
                        5
                    } else {
                        (4_000_000 / total).clamp(20, 400)
                    };
                    // Warm-up.
                    measure(
                        &host,
                        &mut ctx,
                        &make,
                        (size, count),
                        hwm,
                        bytes,
                        false,
                        2,
                        1,
                    );
                    measure(
                        &host,
                        &mut ctx,
                        &make,
                        (size, count),
                        hwm,
                        bytes,
                        true,
                        2,
                        1,
                    );
                    let (plain, plain_writes) = measure(
                        &host,
                        &mut ctx,
                        &make,
                        (size, count),
                        hwm,
                        bytes,
                        false,
                        iterations,
                        3,
                    );
                    let (drain, drain_writes) = measure(
                        &host,
                        &mut ctx,
                        &make,
                        (size, count),
                        hwm,
                        bytes,
                        true,
                        iterations,
                        3,
                    );
                    let shape = if size >= 1024 {
                        format!("{} KiB × {count}", size / 1024)
                    } else {
                        format!("{size} B × {count}")
                    };
                    let kind = if bytes { "byte" } else { "value" };
                    let hwm = if hwm == 0 {
                        "0".to_owned()
                    } else {
                        format!("{} KiB", hwm / 1024)
                    };
                    println!(
                    "| {kind} | {shape} | {hwm} | {plain:.1} | {drain:.1} | {:.2}x | {plain_writes:.0} | {drain_writes:.0} |",
                    plain / drain
                );
                }
            }
        }
    }

    // `--native-bare MIB` runs only the native pipe with neither side touching the bytes, once,
    // over MIB MiB (for callgrind: the difference of two sizes is the per-chunk cost).
    if let Some(mib) = args
        .iter()
        .position(|a| a == "--native-bare")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse::<usize>().ok())
    {
        let data: Rc<Vec<u8>> = Rc::new(vec![0; mib << 20]);
        let out = Rc::new(RefCell::new(vec![0u8; mib << 20]));
        pipe_once(&host, &mut ctx, &data, &out, false, true, Route::Direct);
        return;
    }
    let pipe_figures = if want(2) {
        println!();
        println!("## pipeTo from a Rust byte source to a Rust sink, 64 KiB chunks");
        println!();
        let total: usize = if quick { 16 << 20 } else { 64 << 20 };
        let data: Rc<Vec<u8>> = Rc::new((0..total).map(|i| (i % 251) as u8).collect());
        let out = Rc::new(RefCell::new(vec![0u8; total]));
        let mut best_pipe = Duration::MAX;
        let mut best_bare = Duration::MAX;
        let mut best_memcpy = Duration::MAX;
        let mut best_two = Duration::MAX;
        let mut best_native = Duration::MAX;
        let mut best_native_bare = Duration::MAX;
        let mut best_identity = Duration::MAX;
        let mut best_transferred = Duration::MAX;
        for _ in 0..rounds {
            out.borrow_mut().fill(0);
            best_pipe = best_pipe.min(pipe_once(
                &host,
                &mut ctx,
                &data,
                &out,
                true,
                false,
                Route::Direct,
            ));
            assert!(out.borrow()[..] == data[..], "the pipe copies every byte");
            best_bare = best_bare.min(pipe_once(
                &host,
                &mut ctx,
                &data,
                &out,
                false,
                false,
                Route::Direct,
            ));
            out.borrow_mut().fill(0);
            best_native = best_native.min(pipe_once(
                &host,
                &mut ctx,
                &data,
                &out,
                true,
                true,
                Route::Direct,
            ));
            assert!(
                out.borrow()[..] == data[..],
                "the native pipe copies every byte"
            );
            best_native_bare = best_native_bare.min(pipe_once(
                &host,
                &mut ctx,
                &data,
                &out,
                false,
                true,
                Route::Direct,
            ));
            for (route, best) in [
                (Route::Identity, &mut best_identity),
                (Route::Transferred, &mut best_transferred),
            ] {
                out.borrow_mut().fill(0);
                *best = (*best).min(pipe_once(&host, &mut ctx, &data, &out, true, true, route));
                assert!(out.borrow()[..] == data[..], "the route copies every byte");
            }
            best_memcpy = best_memcpy.min(memcpy_once(&data, &mut out.borrow_mut()));
            best_two = best_two.min(two_copies_once(&data, &mut out.borrow_mut()));
        }
        let pipe = gbps(total, best_pipe);
        let memcpy = gbps(total, best_memcpy);
        println!("{} MiB, best of {rounds}:", total >> 20);
        println!();
        println!("| | GB/s | µs per 64 KiB chunk |");
        println!("|---|---:|---:|");
        let per_chunk = |d: Duration| d.as_secs_f64() * 1e6 / (total / PIPE_CHUNK) as f64;
        println!(
            "| memcpy loop (source → destination) | {memcpy:.2} | {:.2} |",
            per_chunk(best_memcpy)
        );
        println!(
        "| the pipe's two copies without a stream (source → 64 KiB buffer → destination) | {:.2} | {:.2} |",
        gbps(total, best_two),
        per_chunk(best_two)
    );
        println!(
            "| pipeTo (Rust source fills in place → Rust sink copies out) | {pipe:.2} | {:.2} |",
            per_chunk(best_pipe)
        );
        println!(
            "| pipeTo, neither side touching the bytes (the stream's own cost) | {:.2} | {:.2} |",
            gbps(total, best_bare),
            per_chunk(best_bare)
        );
        let native = gbps(total, best_native);
        println!(
        "| pipeTo to a `ByteSink` (native pipe: BYOB reads into recycled Rust buffers, no JS object per chunk; source fills in place → sink copies out) | {native:.2} | {:.2} |",
        per_chunk(best_native)
    );
        println!(
            "| the native pipe, neither side touching the bytes | {:.2} | {:.2} |",
            gbps(total, best_native_bare),
            per_chunk(best_native_bare)
        );
        println!(
            "| the native pipe through an identity `TransformStream` (two native pipes; each chunk passes on in the buffer the source filled) | {:.2} | {:.2} |",
            gbps(total, best_identity),
            per_chunk(best_identity)
        );
        println!(
            "| the native pipe into a transferred `ByteSink` (its port carries each chunk as Rust bytes: one copy into the message, one out of it) | {:.2} | {:.2} |",
            gbps(total, best_transferred),
            per_chunk(best_transferred)
        );
        println!();
        println!("memcpy / pipeTo: {:.2}x", memcpy / pipe);
        Some((memcpy, native, gbps(total, best_two)))
    } else {
        None
    };

    if want(3) {
        println!();
        println!(
        "## A gzip-compressed text body: Rust byte source → DecompressionStream → TextDecoderStream → Rust sink"
    );
        println!();
        let text_len: usize = if quick { 4 << 20 } else { 32 << 20 };
        let plain_text = text(text_len);
        let compressed = Rc::new(gzip(plain_text.as_bytes()));
        let expected_units = plain_text.encode_utf16().count();
        drop(plain_text);
        let decode = host
            .eval_script(&mut ctx, "decode.js", DECODE)
            .expect("decode()")
            .as_object()
            .and_then(|o| JsFunction::from_object(o.into()))
            .expect("a function");
        let mut best_plain = Duration::MAX;
        let mut best_pipeline = Duration::MAX;
        let mut objects = Vec::new();
        let (mut plain_faults, mut pipeline_faults) = (0, 0);
        for _ in 0..rounds {
            let faults = minor_faults();
            let (d, units) = plain_decode_once(&compressed);
            plain_faults += minor_faults() - faults;
            assert_eq!(units, expected_units, "the plain loop decodes everything");
            best_plain = best_plain.min(d);
            let faults = minor_faults();
            let (d, units, made) = pipeline_once(&host, &mut ctx, &decode, &compressed);
            pipeline_faults += minor_faults() - faults;
            assert_eq!(units, expected_units, "the pipeline decodes everything");
            best_pipeline = best_pipeline.min(d);
            objects.push(made);
        }
        let chunks = compressed.len().div_ceil(PIPE_CHUNK);
        println!(
            "{} MiB of text, {} KiB compressed, {chunks} chunks of 64 KiB; best of {rounds}:",
            text_len >> 20,
            compressed.len() >> 10
        );
        println!();
        println!("| | ms | MB/s of text |");
        println!("|---|---:|---:|");
        let mbps = |d: Duration| text_len as f64 / d.as_secs_f64() / 1e6;
        println!(
            "| plain loop: flate2 `GzDecoder` + encoding_rs UTF-8 decoder | {:.2} | {:.0} |",
            best_plain.as_secs_f64() * 1e3,
            mbps(best_plain)
        );
        println!(
        "| the pipeline (Rust source → DecompressionStream → TextDecoderStream → Rust sink) | {:.2} | {:.0} |",
        best_pipeline.as_secs_f64() * 1e3,
        mbps(best_pipeline)
    );
        println!();
        println!(
        "pipeline / plain loop: {:.2}x (target ≤ 1.15x); JS objects made per compressed chunk: {:.1} ({} in all, per run: {objects:?})",
        best_pipeline.as_secs_f64() / best_plain.as_secs_f64(),
        objects[0] as f64 / chunks as f64,
        objects[0],
    );
        println!(
            "minor page faults per run: plain loop {}, pipeline {}",
            plain_faults / rounds as u64,
            pipeline_faults / rounds as u64
        );
    }
    if want(4) {
        let reader = args
            .iter()
            .position(|a| a == "--reader")
            .and_then(|i| args.get(i + 1))
            .map(String::as_str);
        let native = args.iter().any(|a| a == "--bytes");
        match reader {
            Some("plain") => {
                assert_eq!(
                    read_rust_source(&host, &mut ctx, false, native, 0.0),
                    256 * 64
                );
            }
            Some("drain") => {
                assert_eq!(
                    read_rust_source(&host, &mut ctx, true, native, 0.0),
                    256 * 64
                );
            }
            Some(_) => {}
            None => {
                println!();
                println!("## Draining a Rust source: 256 × 64 B, one chunk per pull");
                println!();
                println!("| chunks | hwm (chunks) | plain µs | draining µs | plain / draining |");
                println!("|---|---:|---:|---:|---:|");
                for native in [false, true] {
                    for hwm in [0.0, 256.0] {
                        let mut best = [f64::INFINITY; 2];
                        for _ in 0..rounds * 20 {
                            for (i, draining) in [false, true].into_iter().enumerate() {
                                let start = Instant::now();
                                read_rust_source(&host, &mut ctx, draining, native, hwm);
                                best[i] = best[i].min(start.elapsed().as_secs_f64() * 1e6);
                            }
                        }
                        let kind = if native {
                            "Rust bytes (`enqueue_bytes`; drained with `read_bytes`)"
                        } else {
                            "`Uint8Array`"
                        };
                        println!(
                            "| {kind} | {hwm} | {:.1} | {:.1} | {:.2}x |",
                            best[0],
                            best[1],
                            best[0] / best[1]
                        );
                    }
                }
            }
        }
    }
    if let Some((memcpy, native, two)) = pipe_figures {
        println!();
        println!(
            "native pipe: {:.2}x memcpy throughput (target ≥ 0.8x), {:.2}x the two copies without a stream",
            native / memcpy,
            native / two
        );
    }
}
