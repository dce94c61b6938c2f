//! Rust readers of any `ReadableStream`: one chunk per read, or draining.

use std::{
    cell::RefCell,
    fmt,
    rc::{Rc, Weak},
};

use crate::engine::{self, Cx, JsResult, Object};
use crate::queue::{Chunk, NativeBytes};
use crate::readable::{
    default_reader::{readable_stream_default_reader_release, reader_stream},
    generic_reader::readable_stream_reader_generic_cancel,
    other_specs::{read_a_chunk, ReadRequestSteps},
    stream::{acquire_readable_stream_default_reader, StreamSlots, StreamState},
    ReadableStreamDefaultReader, ReaderRef,
};

use super::{
    source::ReadableStream,
    ticket::{ticket_for_promise, Ticket},
    StreamError, Value,
};

/// What a read request got: the spec's chunk, close and error steps.
enum ReadOutcome {
    /// The chunk steps, given a chunk (Rust bytes stay bytes: see [`Chunk`]).
    Chunk(Chunk),
    /// The close steps.
    Close,
    /// The error steps, given the error.
    Error(Value),
}

traced_without_drop! {
/// A read request made by a Rust reader: its steps are a Rust closure, which never runs user
/// code synchronously (results are delivered from a microtask), and holds no JS value that
/// the request would have to trace; and whether its reader takes chunks of Rust bytes as
/// they are ([`ReadRequestSteps::takes_bytes`]: it wants only their bytes).
struct RustReadRequest<F: FnOnce(ReadOutcome, &mut Cx) + 'static>(
    #[unsafe_ignore_trace] F,
    #[unsafe_ignore_trace] bool,
);
}

impl<F: FnOnce(ReadOutcome, &mut Cx) + 'static> fmt::Debug for RustReadRequest<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("RustReadRequest")
    }
}

impl<F: FnOnce(ReadOutcome, &mut Cx) + 'static> ReadRequestSteps for RustReadRequest<F> {
    fn chunk_steps(self: Box<Self>, chunk: Value, ctx: &mut Cx) -> JsResult<()> {
        (self.0)(ReadOutcome::Chunk(Chunk::Value(chunk)), ctx);
        Ok(())
    }
    fn takes_bytes(&self) -> bool {
        self.1
    }
    fn bytes_chunk_steps(
        self: Box<Self>,
        bytes: NativeBytes,
        _: &Object<crate::readable::ReadableStream>,
        ctx: &mut Cx,
    ) -> JsResult<()> {
        (self.0)(ReadOutcome::Chunk(Chunk::Bytes(bytes)), ctx);
        Ok(())
    }
    fn close_steps(self: Box<Self>, ctx: &mut Cx) -> JsResult<()> {
        (self.0)(ReadOutcome::Close, ctx);
        Ok(())
    }
    fn error_steps(self: Box<Self>, e: Value, ctx: &mut Cx) -> JsResult<()> {
        (self.0)(ReadOutcome::Error(e), ctx);
        Ok(())
    }
}

impl ReadableStream {
    /// A plain reader (a `ReadableStreamDefaultReader` locked to the stream): a `TypeError` if
    /// the stream is locked.
    pub fn reader(&self, ctx: &mut Cx) -> Result<Reader, StreamError> {
        Reader::new(self, ctx)
    }

    /// A draining reader (see [`DrainingReader`]): a `TypeError` if the stream is locked.
    pub fn draining_reader(&self, ctx: &mut Cx) -> Result<DrainingReader, StreamError> {
        DrainingReader::new(self, ctx)
    }
}

/// The result of one read: `Ok(Some(chunk))`, `Ok(None)` once the stream is closed, or the
/// error the stream errored with (a [`StreamError::Js`] holding the JS value).
pub type ReadResult = Result<Option<Value>, StreamError>;

fn read_result(outcome: ReadOutcome, ctx: &mut Cx) -> ReadResult {
    match outcome {
        ReadOutcome::Chunk(chunk) => chunk
            .into_value(ctx)
            .map(Some)
            .map_err(|e| StreamError::from_js_error(e, ctx)),
        ReadOutcome::Close => Ok(None),
        ReadOutcome::Error(e) => Err(StreamError::Js(e)),
    }
}

/// "Read a chunk" from `reader` with a Rust read request whose steps are `f`.
fn read_into(
    reader: &Object<ReadableStreamDefaultReader>,
    f: impl FnOnce(ReadOutcome, &mut Cx) + 'static,
    takes_bytes: bool,
    ctx: &mut Cx,
) {
    // Only an uncatchable engine error (a runtime limit) can come out of the read itself.
    let _ = read_a_chunk(reader, Box::new(RustReadRequest(f, takes_bytes)), ctx);
}

fn acquire(
    stream: &ReadableStream,
    ctx: &mut Cx,
) -> Result<Object<ReadableStreamDefaultReader>, StreamError> {
    acquire_readable_stream_default_reader(&stream.0, ctx)
        .map_err(|e| StreamError::from_js_error(e, ctx))
}

fn cancel_reader(
    reader: &Object<ReadableStreamDefaultReader>,
    reason: Value,
    ctx: &mut Cx,
) -> Ticket<Result<(), StreamError>> {
    if reader_stream(reader).is_none() {
        let (ticket, fill) = Ticket::new();
        fill(Err(StreamError::type_error("The reader has been released")));
        return ticket;
    }
    match readable_stream_reader_generic_cancel(&ReaderRef::Default(reader.clone()), reason, ctx) {
        Ok(promise) => ticket_for_promise(&promise, ctx),
        Err(e) => {
            let (ticket, fill) = Ticket::new();
            fill(Err(StreamError::from_js_error(e, ctx)));
            ticket
        }
    }
}

fn release_reader(reader: &Object<ReadableStreamDefaultReader>, ctx: &mut Cx) {
    if reader_stream(reader).is_some() {
        let _ = readable_stream_default_reader_release(reader, ctx);
    }
}

/// A plain reader: one chunk per read, as `reader.read()` in script (a
/// `ReadableStreamDefaultReader` whose read requests are Rust). Works on any `ReadableStream`.
///
/// ```
/// use boa_streams::host::{Host, HostOptions};
/// use boa_streams::rust::ReadableStream;
/// let (host, mut ctx) = Host::new(HostOptions::default()).unwrap();
/// let js = host.eval_script(&mut ctx, "s.js", r#"
///     new ReadableStream({ start(c) { c.enqueue('a'); c.enqueue('b'); c.close(); } })
/// "#).unwrap().into();
/// let reader = ReadableStream::from_value(&js).unwrap().reader(&mut ctx).unwrap();
/// let mut seen = Vec::new();
/// while let Some(chunk) = reader.read(&mut ctx).wait(&host, &mut ctx).unwrap().unwrap() {
///     seen.push(chunk.to_string(&mut ctx).unwrap().to_std_string_escaped());
/// }
/// assert_eq!(seen, ["a", "b"]);
/// ```
#[derive(Debug)]
pub struct Reader {
    reader: Object<ReadableStreamDefaultReader>,
}

impl Reader {
    pub(crate) fn new(stream: &ReadableStream, ctx: &mut Cx) -> Result<Self, StreamError> {
        Ok(Self {
            reader: acquire(stream, ctx)?,
        })
    }

    /// Reads one chunk; `callback` gets the result from a microtask (never synchronously).
    pub fn read_with(&self, ctx: &mut Cx, callback: impl FnOnce(ReadResult, &mut Cx) + 'static) {
        read_into(
            &self.reader,
            move |outcome: ReadOutcome, ctx: &mut Cx| {
                engine::queue_microtask(ctx, move |ctx| {
                    let result = read_result(outcome, ctx);
                    callback(result, ctx);
                    Ok(())
                });
            },
            false,
            ctx,
        );
    }

    /// `reader.releaseLock()` through a shared reader.
    #[cfg_attr(not(feature = "tokio"), allow(dead_code))]
    pub(crate) fn release_lock(&self, ctx: &mut Cx) {
        release_reader(&self.reader, ctx);
    }

    /// Reads one chunk as the stream holds it (Rust bytes stay bytes); `callback` gets it
    /// from the read request's steps (it must run no script).
    #[cfg_attr(not(feature = "tokio"), allow(dead_code))]
    pub(crate) fn read_chunk_with(
        &self,
        ctx: &mut Cx,
        callback: impl FnOnce(Result<Option<Chunk>, StreamError>, &mut Cx) + 'static,
    ) {
        read_into(
            &self.reader,
            move |outcome: ReadOutcome, ctx: &mut Cx| {
                callback(
                    match outcome {
                        ReadOutcome::Chunk(chunk) => Ok(Some(chunk)),
                        ReadOutcome::Close => Ok(None),
                        ReadOutcome::Error(e) => Err(StreamError::Js(e)),
                    },
                    ctx,
                );
            },
            // (Its one caller wants only the bytes: `IntoStream`.)
            true,
            ctx,
        );
    }

    /// Reads one chunk; the [`Ticket`] gets the result.
    pub fn read(&self, ctx: &mut Cx) -> Ticket<ReadResult> {
        let (ticket, fill) = Ticket::new();
        self.read_with(ctx, move |result, _| fill(result));
        ticket
    }

    /// `reader.cancel(reason)`.
    pub fn cancel(&self, reason: Value, ctx: &mut Cx) -> Ticket<Result<(), StreamError>> {
        cancel_reader(&self.reader, reason, ctx)
    }

    /// `reader.releaseLock()`: reads still waiting fail with a `TypeError`.
    pub fn release(self, ctx: &mut Cx) {
        release_reader(&self.reader, ctx);
    }
}

/// What a draining read returns: every chunk that was available, in order, and whether the
/// stream has closed (no chunk will follow).
#[derive(Debug, Default)]
pub struct Drained {
    /// The chunks, in stream order.
    pub chunks: Vec<Value>,
    /// Whether the stream closed after the last of them.
    pub done: bool,
}

/// What a draining read of bytes returns ([`DrainingReader::read_bytes`]): the bytes of every
/// chunk that was available, concatenated, and whether the stream has closed.
#[derive(Debug, Default)]
pub struct DrainedBytes {
    /// The chunks' bytes, in stream order.
    pub bytes: Vec<u8>,
    /// How many chunks they came in.
    pub chunks: usize,
    /// Whether the stream closed after the last of them.
    pub done: bool,
}

/// What a draining read of frames returns ([`DrainingReader::read_frames_with`]).
#[cfg(feature = "tokio")]
#[derive(Debug, Default)]
pub(crate) struct DrainedFrames {
    /// The chunks' bytes, in stream order (none empty).
    pub(crate) frames: Vec<bytes::Bytes>,
    /// Whether the stream closed after the last of them.
    pub(crate) done: bool,
}

/// The size from which a chunk of Rust bytes goes out as a frame of its own rather than be
/// copied into a run with its neighbours ([`DrainingReader::read_frames_with`]): below it a
/// copy costs less than a frame (its write, and in a chunked body its chunk's head).
#[cfg(feature = "tokio")]
pub(crate) const OWN_FRAME: usize = 4096;

/// What a draining read gathers as its chunks arrive: the chunks themselves
/// ([`DrainingReader::read_with`]), their bytes copied into one run
/// ([`DrainingReader::read_bytes_with`]), or [`Frames`].
trait Gathering: 'static {
    /// Takes a chunk that arrived into the batch; its size toward the byte limit `limit` (see
    /// [`chunk_size`]), or a `TypeError` for a read of bytes given a chunk that is not bytes. A
    /// JS chunk's bytes are copied now, in the one engine call that also measures them.
    fn take(&mut self, chunk: Chunk, limit: usize, ctx: &mut Cx) -> Result<usize, StreamError>;
    /// Whether the batch takes bytes: a byte stream's small chunk may then reach it as Rust
    /// bytes (a batch of values would only make a JS value of them again).
    const TAKES_BYTES: bool = true;
}

impl Gathering for Vec<Chunk> {
    const TAKES_BYTES: bool = false;

    fn take(&mut self, chunk: Chunk, _: usize, ctx: &mut Cx) -> Result<usize, StreamError> {
        let size = chunk_size(&chunk, ctx);
        self.push(chunk);
        Ok(size)
    }
}

impl Gathering for Vec<u8> {
    fn take(&mut self, chunk: Chunk, limit: usize, ctx: &mut Cx) -> Result<usize, StreamError> {
        copy_into(self, chunk, limit, ctx)
    }
}

/// Frames ([`DrainingReader::read_frames_with`]): Rust chunks of [`OWN_FRAME`] bytes or more
/// as they are, the bytes of the other chunks copied as they arrive into the run after the
/// last such frame.
#[cfg(feature = "tokio")]
#[derive(Default)]
struct Frames {
    frames: Vec<bytes::Bytes>,
    run: Vec<u8>,
}

#[cfg(feature = "tokio")]
impl Gathering for Frames {
    fn take(&mut self, chunk: Chunk, limit: usize, ctx: &mut Cx) -> Result<usize, StreamError> {
        match chunk {
            Chunk::Bytes(bytes) if bytes.len() >= OWN_FRAME => {
                let size = bytes.len();
                if !self.run.is_empty() {
                    let run = finished_run(std::mem::take(&mut self.run));
                    self.frames.push(bytes::Bytes::from(run));
                }
                self.frames.push(bytes.into_bytes());
                Ok(size)
            }
            chunk => copy_into(&mut self.run, chunk, limit, ctx),
        }
    }
}

/// A batch as the draining loop hands it out: what it gathered, of how many chunks, and whether
/// the stream closed after them.
struct Batch<G> {
    gathered: G,
    chunks: usize,
    done: bool,
}

/// A draining read in progress, type-erased: what it gathers and whom it hands the batch to.
trait Gather {
    /// [`Gathering::take`].
    fn take(&mut self, chunk: Chunk, limit: usize, ctx: &mut Cx) -> Result<usize, StreamError>;
    /// Hands the batch (`Ok((chunks, done))`) or an error to the read's callback, from a
    /// microtask.
    fn hand_out(self: Box<Self>, result: Result<(usize, bool), StreamError>, ctx: &mut Cx);
}

/// A read's gathering and its callback (what [`Gather`] erases).
struct Pending<G, F> {
    gathered: G,
    callback: F,
}

impl<G, F> Gather for Pending<G, F>
where
    G: Gathering,
    F: FnOnce(Result<Batch<G>, StreamError>, &mut Cx) + 'static,
{
    fn take(&mut self, chunk: Chunk, limit: usize, ctx: &mut Cx) -> Result<usize, StreamError> {
        self.gathered.take(chunk, limit, ctx)
    }

    fn hand_out(self: Box<Self>, result: Result<(usize, bool), StreamError>, ctx: &mut Cx) {
        let Pending { gathered, callback } = *self;
        let batch = result.map(|(chunks, done)| Batch {
            gathered,
            chunks,
            done,
        });
        engine::queue_microtask(ctx, move |ctx| {
            callback(batch, ctx);
            Ok(())
        });
    }
}

/// The most bytes a run reserves at its first chunk (below the read's byte limit, a run
/// grows): one allocation for a whole read of the usual sizes, and no more held than that.
const RUN_RESERVE: usize = 64 * 1024;

struct Waiter {
    read: Box<dyn Gather>,
    /// [`Gathering::TAKES_BYTES`] of the read's batch.
    takes_bytes: bool,
    /// How many chunks arrived.
    chunks: usize,
    bytes: usize,
    limit: usize,
    /// Whether the last pending read already had its microtask to complete in.
    yielded: bool,
}

/// Appends the bytes of `chunk` to `run`: their count, or a `TypeError` when the chunk is not
/// an `ArrayBuffer` or a view. An empty run reserves up to `limit` (at most [`RUN_RESERVE`]).
fn copy_into(
    run: &mut Vec<u8>,
    chunk: Chunk,
    limit: usize,
    ctx: &mut Cx,
) -> Result<usize, StreamError> {
    let append = |run: &mut Vec<u8>, bytes: &[u8]| {
        if run.capacity() == 0 {
            run.reserve(bytes.len().max(limit.min(RUN_RESERVE)));
        }
        run.extend_from_slice(bytes);
        bytes.len()
    };
    match chunk {
        Chunk::Bytes(bytes) => Ok(append(run, bytes.as_slice())),
        Chunk::Value(value) => {
            let consumed = super::with_chunk_bytes(&value, ctx, |bytes| append(run, bytes))
                .ok_or_else(|| {
                    StreamError::type_error(
                        "The chunk must be an ArrayBuffer or an ArrayBufferView",
                    )
                })?;
            engine::note_consumed_bytes(consumed);
            Ok(consumed)
        }
    }
}

/// A run as handed out: what it reserved and did not fill is given back (a shrink in place).
fn finished_run(mut run: Vec<u8>) -> Vec<u8> {
    if run.len() < run.capacity() / 2 {
        run.shrink_to_fit();
    }
    run
}

#[derive(Default)]
struct DrainState {
    /// A read request of ours is in the stream's list.
    outstanding: bool,
    /// What that request got, not yet handed out.
    arrived: Option<ReadOutcome>,
    /// The draining read waiting for that request.
    waiting: Option<Waiter>,
    /// A draining read is in progress.
    busy: bool,
}

struct DrainInner {
    reader: Object<ReadableStreamDefaultReader>,
    state: RefCell<DrainState>,
}

/// A draining reader (the "draining read" of workerd): each read returns every chunk available
/// now, up to a byte limit, in one batch.
///
/// A read takes the chunks already queued, and while the queue is empty issues one more read,
/// which calls the source's `pull`: as long as that pull enqueues synchronously (within the
/// current microtask checkpoint), the chunks join the batch. It stops at the byte limit
/// (`ArrayBuffer`/view chunks count their byte length, strings their length, other values 1;
/// a batch always holds at least one chunk), when the source answers asynchronously, or when
/// the stream closes or errors. These are the spec's reads (the spec's read requests, the
/// controller's own pull scheduling): any `ReadableStream` works, JS-backed included, and the
/// source sees exactly the pulls it would see from a JS reader.
///
/// A read that found the queue empty may be left waiting in the stream when the batch is
/// handed out: what it gets opens the next batch. Keep the reader alive while a read is in
/// progress (dropping it drops the callback).
///
/// ```
/// use boa_streams::host::{Host, HostOptions};
/// use boa_streams::rust::ReadableStream;
/// let (host, mut ctx) = Host::new(HostOptions::default()).unwrap();
/// let js = host.eval_script(&mut ctx, "s.js", r#"
///     let i = 0;
///     new ReadableStream({ pull(c) { c.enqueue(new Uint8Array(64)); if (++i == 10) c.close(); } })
/// "#).unwrap().into();
/// let reader = ReadableStream::from_value(&js).unwrap().draining_reader(&mut ctx).unwrap();
/// let drained = reader.read(1 << 20, &mut ctx).wait(&host, &mut ctx).unwrap().unwrap();
/// assert_eq!(drained.chunks.len(), 10); // all ten in one read
/// ```
pub struct DrainingReader {
    inner: Rc<DrainInner>,
}

impl fmt::Debug for DrainingReader {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("DrainingReader")
    }
}

fn chunk_size(chunk: &Chunk, ctx: &mut Cx) -> usize {
    let chunk = match chunk {
        Chunk::Bytes(bytes) => return bytes.len(),
        Chunk::Value(value) => value,
    };
    if let Some(len) = engine::buffer_source_byte_length(chunk, ctx) {
        return len;
    }
    match chunk.as_string() {
        Some(s) => s.len(),
        None => 1,
    }
}

impl DrainingReader {
    pub(crate) fn new(stream: &ReadableStream, ctx: &mut Cx) -> Result<Self, StreamError> {
        Ok(Self {
            inner: Rc::new(DrainInner {
                reader: acquire(stream, ctx)?,
                state: RefCell::new(DrainState::default()),
            }),
        })
    }

    /// Reads every chunk available now, up to `byte_limit` bytes; `callback` gets the batch
    /// from a microtask. A read while another is in progress fails with a `TypeError`; a read
    /// after the stream closed returns an empty, `done` batch.
    pub fn read_with(
        &self,
        byte_limit: usize,
        ctx: &mut Cx,
        callback: impl FnOnce(Result<Drained, StreamError>, &mut Cx) + 'static,
    ) {
        self.drain(byte_limit, Vec::<Chunk>::new(), ctx, move |batch, ctx| {
            let result = batch.and_then(|Batch { gathered, done, .. }| {
                let chunks = gathered
                    .into_iter()
                    .map(|chunk| chunk.into_value(ctx))
                    .collect::<JsResult<Vec<Value>>>()
                    .map_err(|e| StreamError::from_js_error(e, ctx))?;
                Ok(Drained { chunks, done })
            });
            callback(result, ctx);
        });
    }

    /// Reads every chunk available now, up to `byte_limit` bytes, as one run of bytes (the
    /// chunks concatenated, as a sink that coalesces writes wants them); `callback` gets it
    /// from a microtask. Chunks must be `ArrayBuffer`s or views (any other chunk fails the
    /// read with a `TypeError`, after which the stream's remaining chunks can still be read).
    /// Chunks a Rust source enqueued as bytes ([`crate::rust::ReadableController::enqueue_bytes`])
    /// are copied straight from Rust, with no JS object made for them.
    pub fn read_bytes_with(
        &self,
        byte_limit: usize,
        ctx: &mut Cx,
        callback: impl FnOnce(Result<DrainedBytes, StreamError>, &mut Cx) + 'static,
    ) {
        self.drain(byte_limit, Vec::<u8>::new(), ctx, move |batch, ctx| {
            let result = batch.map(
                |Batch {
                     gathered,
                     chunks,
                     done,
                 }| DrainedBytes {
                    bytes: finished_run(gathered),
                    chunks,
                    done,
                },
            );
            callback(result, ctx);
        });
    }

    /// A draining read of bytes (as [`DrainingReader::read_bytes_with`]) for a writer of
    /// frames (a socket's): the batch's bytes as a few `Bytes`, in stream order. Rust bytes of
    /// a chunk of at least [`OWN_FRAME`] bytes (a socket's read, a shared body source) go as
    /// they are, without a copy; the other chunks between them are copied into one run.
    #[cfg(feature = "tokio")]
    pub(crate) fn read_frames_with(
        &self,
        byte_limit: usize,
        ctx: &mut Cx,
        callback: impl FnOnce(Result<DrainedFrames, StreamError>, &mut Cx) + 'static,
    ) {
        self.drain(byte_limit, Frames::default(), ctx, move |batch, ctx| {
            let result = batch.map(|Batch { gathered, done, .. }| {
                let Frames { mut frames, run } = gathered;
                if !run.is_empty() {
                    frames.push(bytes::Bytes::from(finished_run(run)));
                }
                DrainedFrames { frames, done }
            });
            callback(result, ctx);
        });
    }

    /// Reads every chunk available now as one run of bytes (see
    /// [`DrainingReader::read_bytes_with`]); the [`Ticket`] gets it.
    pub fn read_bytes(
        &self,
        byte_limit: usize,
        ctx: &mut Cx,
    ) -> Ticket<Result<DrainedBytes, StreamError>> {
        let (ticket, fill) = Ticket::new();
        self.read_bytes_with(byte_limit, ctx, move |result, _| fill(result));
        ticket
    }

    /// The draining read: `callback` gets the batch from a microtask.
    fn drain<G: Gathering>(
        &self,
        byte_limit: usize,
        gathered: G,
        ctx: &mut Cx,
        callback: impl FnOnce(Result<Batch<G>, StreamError>, &mut Cx) + 'static,
    ) {
        let read = Box::new(Pending { gathered, callback });
        let busy = std::mem::replace(&mut self.inner.state.borrow_mut().busy, true);
        if busy {
            let error = StreamError::type_error("A draining read is already in progress");
            read.hand_out(Err(error), ctx);
            return;
        }
        let waiter = Waiter {
            read,
            takes_bytes: G::TAKES_BYTES,
            chunks: 0,
            bytes: 0,
            limit: byte_limit.max(1),
            yielded: false,
        };
        step(&self.inner, waiter, ctx);
    }

    /// Reads every chunk available now, up to `byte_limit` bytes; the [`Ticket`] gets the batch.
    pub fn read(&self, byte_limit: usize, ctx: &mut Cx) -> Ticket<Result<Drained, StreamError>> {
        let (ticket, fill) = Ticket::new();
        self.read_with(byte_limit, ctx, move |result, _| fill(result));
        ticket
    }

    /// `reader.cancel(reason)`.
    pub fn cancel(&self, reason: Value, ctx: &mut Cx) -> Ticket<Result<(), StreamError>> {
        cancel_reader(&self.inner.reader, reason, ctx)
    }

    /// `reader.releaseLock()`: a read still waiting in the stream fails (its chunk, if one
    /// comes, stays in the stream).
    pub fn release(self, ctx: &mut Cx) {
        release_reader(&self.inner.reader, ctx);
    }
}

/// Hands the batch gathered so far (`Ok(done)`, `done` once the stream has closed) or an
/// error to the caller, from a microtask.
fn finish(inner: &DrainInner, waiter: Waiter, result: Result<bool, StreamError>, ctx: &mut Cx) {
    inner.state.borrow_mut().busy = false;
    let chunks = waiter.chunks;
    waiter.read.hand_out(result.map(|done| (chunks, done)), ctx);
}

/// Issues one read request of ours; what it gets lands in `state.arrived` (synchronously when
/// a chunk was queued or the source enqueued during the pull the read triggered).
fn issue_read(inner: &Rc<DrainInner>, takes_bytes: bool, ctx: &mut Cx) {
    inner.state.borrow_mut().outstanding = true;
    let weak: Weak<DrainInner> = Rc::downgrade(inner);
    read_into(
        &inner.reader,
        move |outcome: ReadOutcome, ctx: &mut Cx| {
            let Some(inner) = weak.upgrade() else {
                return;
            };
            let waiter = {
                let mut state = inner.state.borrow_mut();
                state.arrived = Some(outcome);
                state.waiting.take()
            };
            if let Some(waiter) = waiter {
                engine::queue_microtask(ctx, move |ctx| {
                    step(&inner, waiter, ctx);
                    Ok(())
                });
            }
        },
        takes_bytes,
        ctx,
    );
}

/// The draining loop (see [`DrainingReader`]).
fn step(inner: &Rc<DrainInner>, mut waiter: Waiter, ctx: &mut Cx) {
    loop {
        let (outstanding, arrived) = {
            let mut state = inner.state.borrow_mut();
            let arrived = state.arrived.take();
            if arrived.is_some() {
                state.outstanding = false;
            }
            (state.outstanding, arrived)
        };
        match arrived {
            Some(ReadOutcome::Chunk(chunk)) => match waiter.read.take(chunk, waiter.limit, ctx) {
                Ok(size) => {
                    waiter.bytes = waiter.bytes.saturating_add(size);
                    waiter.chunks += 1;
                    waiter.yielded = false;
                }
                // A read of bytes given a chunk that is not bytes fails (the stream's
                // remaining chunks can still be read).
                Err(error) => return finish(inner, waiter, Err(error), ctx),
            },
            Some(ReadOutcome::Close) => {
                return finish(inner, waiter, Ok(true), ctx);
            }
            Some(ReadOutcome::Error(e)) => {
                if waiter.chunks == 0 {
                    return finish(inner, waiter, Err(StreamError::Js(e)), ctx);
                }
                // Hand out what came before the error; the next read reports it.
                inner.state.borrow_mut().arrived = Some(ReadOutcome::Error(e));
                return finish(inner, waiter, Ok(false), ctx);
            }
            None if outstanding => {
                if waiter.chunks == 0 {
                    // Nothing yet: the request resumes the read when it gets something.
                    inner.state.borrow_mut().waiting = Some(waiter);
                    return;
                }
                if waiter.yielded {
                    // The source did not answer within the checkpoint: hand out the batch;
                    // the waiting request opens the next one.
                    return finish(inner, waiter, Ok(false), ctx);
                }
                // Give the pull the read triggered (or the one the controller scheduled
                // after the previous pull settles) one microtask to enqueue.
                waiter.yielded = true;
                let inner = Rc::clone(inner);
                engine::queue_microtask(ctx, move |ctx| {
                    step(&inner, waiter, ctx);
                    Ok(())
                });
                return;
            }
            None => {}
        }
        if waiter.bytes >= waiter.limit {
            // A stream that closed with the batch's last chunk (a source that closes right
            // after its last enqueue) ends with the batch: the read that would follow could
            // only find the close.
            let closed =
                reader_stream(&inner.reader).is_some_and(|s| s.state() == StreamState::Closed);
            return finish(inner, waiter, Ok(closed), ctx);
        }
        issue_read(inner, waiter.takes_bytes, ctx);
    }
}
