//! Bridges between streams and async Rust (the `tokio` feature): `futures::Stream` and tokio's
//! `AsyncRead` as readable streams and back, tokio's `AsyncWrite` and `futures::Sink` as
//! writable streams and back, and pipes as futures.
//!
//! A Rust future or I/O object behind a stream is polled by the stream's own algorithms (its
//! pull, write or close), from the event loop, with a waker that queues the next poll as a
//! task ([`super::wake::Poller`]): nothing is polled ahead of what the stream asks for, and
//! no executor of its own is needed. The other way, a JS stream read or written from async
//! Rust queues its operations on the loop ([`LoopHandle`]) and wakes the Rust task when they
//! settle. Bytes cross as [`bytes::Bytes`].

use std::{
    cell::RefCell,
    collections::VecDeque,
    fmt,
    future::Future,
    io,
    pin::Pin,
    rc::Rc,
    task::{Context as TaskContext, Poll, Waker},
};

use bytes::Bytes;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use crate::engine::{Cx, Object};
use crate::queue::{Chunk, NativeBytes};
use crate::writable::WritableStreamDefaultWriter;

use super::{
    reader::Reader,
    sink::{ByteSink, WritableController, WritableStream},
    source::{ByteController, ByteSource, ReadableController, ReadableStream, Source},
    ticket::{ticket_for_promise, Ticket},
    wake::{LoopHandle, Poller},
    Completer, Completion, StreamError, Value,
};

/// What a bridge tells the Rust side when script cancels or aborts its stream: the reason, as
/// a [`StreamError::Js`].
type OnReason = Box<dyn FnOnce(StreamError, &mut Cx)>;

/// A Rust operation polled by the event loop: the poller registration and the function it
/// runs (held here; the registry holds it weakly).
pub(super) struct Driver {
    poller: Poller,
    _poll: Rc<dyn Fn(&mut Cx)>,
    _clear: Rc<dyn Fn()>,
}

/// What a bridge's state drops when the host shuts down with its operation still waiting.
pub(super) trait ShutDown {
    /// Drops the waiting operation (and the Rust object behind the stream).
    fn shut_down(&self);
}

impl Driver {
    /// Registers `step(state)` to run as a task whenever the driver's waker is woken.
    pub(super) fn new<S: ShutDown + 'static>(
        state: &Rc<S>,
        step: fn(&Rc<S>, &mut Cx),
        ctx: &Cx,
    ) -> Result<Self, StreamError> {
        let weak = Rc::downgrade(state);
        let poll: Rc<dyn Fn(&mut Cx)> = Rc::new(move |ctx: &mut Cx| {
            if let Some(state) = weak.upgrade() {
                step(&state, ctx);
            }
        });
        let weak = Rc::downgrade(state);
        let clear: Rc<dyn Fn()> = Rc::new(move || {
            if let Some(state) = weak.upgrade() {
                state.shut_down();
            }
        });
        let poller = Poller::new(&poll, &clear, ctx)?;
        Ok(Self {
            poller,
            _poll: poll,
            _clear: clear,
        })
    }

    pub(super) fn waker(&self) -> Waker {
        self.poller.waker().clone()
    }

    /// Marks the operation as waiting on the waker.
    pub(super) fn set_waiting(&self, hold: Rc<dyn std::any::Any>) {
        self.poller.set_waiting(hold);
    }
}

/// Takes a cell's value out, and drops it after the borrow ended.
fn clear_cell<T>(cell: &RefCell<Option<T>>) {
    let value = cell.borrow_mut().take();
    drop(value);
}

impl<S> ShutDown for StreamState<S> {
    fn shut_down(&self) {
        clear_cell(&self.pending);
        clear_cell(&self.stream);
        clear_cell(&self.driver);
    }
}

impl<R> ShutDown for ReadState<R> {
    fn shut_down(&self) {
        clear_cell(&self.pending);
        clear_cell(&self.reader);
        clear_cell(&self.driver);
    }
}

impl<W> ShutDown for WriteState<W> {
    fn shut_down(&self) {
        clear_cell(&self.pending);
        clear_cell(&self.writer);
        clear_cell(&self.driver);
    }
}

impl<S> ShutDown for SinkState<S> {
    fn shut_down(&self) {
        clear_cell(&self.pending);
        clear_cell(&self.sink);
        clear_cell(&self.driver);
    }
}

// ---------------------------------------------------------------------------------------------
// futures::Stream → ReadableStream
// ---------------------------------------------------------------------------------------------

/// A value stream of byte chunks fed by a [`futures::Stream`] ([`ReadableStream::from_stream`]).
///
/// The Rust stream is polled only when the readable stream pulls (high-water mark 0: when a
/// read waits, or a pipe's destination wants a chunk). Each item becomes one chunk: a
/// `Uint8Array` for script, the bytes as they are for a Rust reader or a pipe into a Rust
/// sink (no JS object made). The end of the Rust stream closes it; an error item errors it.
/// Canceling drops the Rust stream (and hands the reason to [`StreamSource::on_cancel`]).
pub struct StreamSource<S> {
    state: Rc<StreamState<S>>,
    on_cancel: Option<OnReason>,
}

struct StreamState<S> {
    stream: RefCell<Option<Pin<Box<S>>>>,
    pending: RefCell<Option<(Box<dyn ItemTarget>, Completer)>>,
    driver: RefCell<Option<Driver>>,
}

impl<S> fmt::Debug for StreamSource<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("StreamSource")
    }
}

impl<S, B, E> StreamSource<S>
where
    S: futures::Stream<Item = Result<B, E>> + 'static,
    B: Into<Bytes>,
    E: Into<StreamError>,
{
    /// A source polling `stream`.
    pub fn new(stream: S) -> Self {
        Self {
            state: Rc::new(StreamState {
                stream: RefCell::new(Some(Box::pin(stream))),
                pending: RefCell::new(None),
                driver: RefCell::new(None),
            }),
            on_cancel: None,
        }
    }

    /// Calls `f` with the reason when the stream is canceled.
    pub fn on_cancel(mut self, f: impl FnOnce(StreamError, &mut Cx) + 'static) -> Self {
        self.on_cancel = Some(Box::new(f));
        self
    }

    /// What drops the Rust stream (and stops its polling) when called: for an owner that
    /// must stop the source without canceling the stream (an aborted fetch).
    pub(crate) fn dropper(&self) -> Box<dyn FnOnce()> {
        let weak = Rc::downgrade(&self.state);
        Box::new(move || {
            if let Some(state) = weak.upgrade() {
                let stream = state.stream.borrow_mut().take();
                let driver = state.driver.borrow_mut().take();
                drop((stream, driver));
            }
        })
    }

    /// The readable stream of this source (high-water mark 0). A `TypeError` for a context
    /// the host did not make (nothing would poll the Rust stream).
    pub fn into_stream(self, ctx: &mut Cx) -> Result<ReadableStream, StreamError> {
        let driver = Driver::new(&self.state, Self::step, ctx)?;
        *self.state.driver.borrow_mut() = Some(driver);
        ReadableStream::from_source(self, 0.0, ctx)
    }

    /// The readable byte stream of this source (high-water mark 0): each item is enqueued (a
    /// copy, which fills a waiting BYOB read's view), for a body that must be a byte stream.
    pub(crate) fn into_byte_stream(self, ctx: &mut Cx) -> Result<ReadableStream, StreamError> {
        let driver = Driver::new(&self.state, Self::step, ctx)?;
        *self.state.driver.borrow_mut() = Some(driver);
        ReadableStream::from_byte_source(ByteItems(self), 0.0, None, ctx)
    }

    /// Polls the Rust stream once and acts on the item.
    fn attempt(
        state: &StreamState<S>,
        c: &dyn ItemTarget,
        ctx: &mut Cx,
    ) -> Poll<Result<(), StreamError>> {
        let Some(mut stream) = state.stream.borrow_mut().take() else {
            return Poll::Ready(Ok(()));
        };
        let Some(waker) = state.driver.borrow().as_ref().map(Driver::waker) else {
            return Poll::Ready(Ok(()));
        };
        let polled = stream
            .as_mut()
            .poll_next(&mut TaskContext::from_waker(&waker));
        match polled {
            Poll::Pending => {
                *state.stream.borrow_mut() = Some(stream);
                Poll::Pending
            }
            Poll::Ready(Some(Ok(bytes))) => {
                *state.stream.borrow_mut() = Some(stream);
                let bytes: Bytes = bytes.into();
                if bytes.is_empty() {
                    // An empty item is no chunk: ask again.
                    return Self::attempt(state, c, ctx);
                }
                Poll::Ready(c.deliver(bytes, ctx))
            }
            Poll::Ready(Some(Err(error))) => Poll::Ready(Err(error.into())),
            Poll::Ready(None) => Poll::Ready(c.end(ctx)),
        }
    }

    /// A wake-up: polls again for the pull that waits.
    fn step(state: &Rc<StreamState<S>>, ctx: &mut Cx) {
        let Some((c, completer)) = state.pending.borrow_mut().take() else {
            return;
        };
        match Self::attempt(state, &*c, ctx) {
            Poll::Pending => wait_again(
                Rc::clone(state) as Rc<dyn std::any::Any>,
                state.driver.borrow().as_ref(),
                &state.pending,
                (c, completer),
            ),
            Poll::Ready(Ok(())) => completer.complete(ctx),
            Poll::Ready(Err(error)) => completer.fail(error, ctx),
        }
    }

    /// A pull: polls, or waits for a wake-up with `target`.
    fn pull_into(
        &mut self,
        target: Box<dyn ItemTarget>,
        ctx: &mut Cx,
    ) -> Result<Completion, StreamError> {
        match Self::attempt(&self.state, &*target, ctx) {
            Poll::Ready(result) => result.map(|()| Completion::Ready),
            Poll::Pending => {
                let (completion, completer) = Completion::later();
                wait_again(
                    Rc::clone(&self.state) as Rc<dyn std::any::Any>,
                    self.state.driver.borrow().as_ref(),
                    &self.state.pending,
                    (target, completer),
                );
                Ok(completion)
            }
        }
    }

    /// A cancel: drops the Rust stream, and tells the Rust side the reason.
    fn cancel_with(&mut self, reason: Value, ctx: &mut Cx) -> Result<Completion, StreamError> {
        let stream = self.state.stream.borrow_mut().take();
        drop(stream);
        let driver = self.state.driver.borrow_mut().take();
        drop(driver);
        // The operation that waited (its controller and completer) will never finish.
        let pending = self.state.pending.borrow_mut().take();
        drop(pending);
        if let Some(on_cancel) = self.on_cancel.take() {
            on_cancel(StreamError::Js(reason), ctx);
        }
        Ok(Completion::Ready)
    }
}

/// Where a Rust stream's items go: a value stream's controller (Rust bytes, no copy) or a byte
/// stream's (enqueued).
trait ItemTarget {
    fn deliver(&self, bytes: Bytes, ctx: &mut Cx) -> Result<(), StreamError>;
    fn end(&self, ctx: &mut Cx) -> Result<(), StreamError>;
}

impl ItemTarget for ReadableController {
    fn deliver(&self, bytes: Bytes, ctx: &mut Cx) -> Result<(), StreamError> {
        self.enqueue_native(NativeBytes::from_bytes(bytes), ctx)
    }

    fn end(&self, ctx: &mut Cx) -> Result<(), StreamError> {
        self.close(ctx)
    }
}

impl ItemTarget for ByteController {
    fn deliver(&self, bytes: Bytes, ctx: &mut Cx) -> Result<(), StreamError> {
        self.enqueue_native(NativeBytes::from_bytes(bytes), ctx)
    }

    fn end(&self, ctx: &mut Cx) -> Result<(), StreamError> {
        self.close(ctx)
    }
}

/// A [`StreamSource`] as a byte source ([`StreamSource::into_byte_stream`]).
struct ByteItems<S>(StreamSource<S>);

impl<S, B, E> ByteSource for ByteItems<S>
where
    S: futures::Stream<Item = Result<B, E>> + 'static,
    B: Into<Bytes>,
    E: Into<StreamError>,
{
    fn pull(&mut self, c: &ByteController, ctx: &mut Cx) -> Result<Completion, StreamError> {
        self.0.pull_into(Box::new(c.clone()), ctx)
    }

    fn cancel(&mut self, reason: Value, ctx: &mut Cx) -> Result<Completion, StreamError> {
        self.0.cancel_with(reason, ctx)
    }
}

/// Puts a waiting operation back, and marks its driver as waiting; the hub holds `hold` (the
/// operation's state) until the wake-up, so the operation outlives its owner (a writable
/// stream clears its algorithms, dropping its sink, as soon as the close starts).
pub(super) fn wait_again<T>(
    hold: Rc<dyn std::any::Any>,
    driver: Option<&Driver>,
    slot: &RefCell<Option<T>>,
    pending: T,
) {
    *slot.borrow_mut() = Some(pending);
    if let Some(driver) = driver {
        driver.poller.set_waiting(hold);
    }
}

impl<S, B, E> Source for StreamSource<S>
where
    S: futures::Stream<Item = Result<B, E>> + 'static,
    B: Into<Bytes>,
    E: Into<StreamError>,
{
    fn pull(&mut self, c: &ReadableController, ctx: &mut Cx) -> Result<Completion, StreamError> {
        self.pull_into(Box::new(c.clone()), ctx)
    }

    fn cancel(&mut self, reason: Value, ctx: &mut Cx) -> Result<Completion, StreamError> {
        self.cancel_with(reason, ctx)
    }
}

// ---------------------------------------------------------------------------------------------
// AsyncRead → ReadableStream (a byte stream)
// ---------------------------------------------------------------------------------------------

/// A readable byte stream fed by a tokio [`AsyncRead`] ([`ReadableStream::from_async_read`]).
///
/// Each pull polls one read straight into the waiting read's buffer: a BYOB reader's view, or
/// the `chunk_size` buffer the stream allocates for a default reader (no intermediate copy).
/// High-water mark 0: the reader is polled only when a read waits. End of file closes the
/// stream; an I/O error errors it with a `TypeError` carrying its message; canceling drops
/// the reader (and hands the reason to [`AsyncReadSource::on_cancel`]).
pub struct AsyncReadSource<R> {
    state: Rc<ReadState<R>>,
    chunk_size: usize,
    on_cancel: Option<OnReason>,
}

struct ReadState<R> {
    reader: RefCell<Option<Pin<Box<R>>>>,
    pending: RefCell<Option<(ByteController, Completer)>>,
    driver: RefCell<Option<Driver>>,
    chunk_size: usize,
}

impl<R> fmt::Debug for AsyncReadSource<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AsyncReadSource")
            .field("chunk_size", &self.chunk_size)
            .finish_non_exhaustive()
    }
}

impl<R: AsyncRead + 'static> AsyncReadSource<R> {
    /// A source reading `reader` in chunks of up to `chunk_size` bytes (at least 1) for
    /// default readers.
    pub fn new(reader: R, chunk_size: usize) -> Self {
        let chunk_size = chunk_size.max(1);
        Self {
            state: Rc::new(ReadState {
                reader: RefCell::new(Some(Box::pin(reader))),
                pending: RefCell::new(None),
                driver: RefCell::new(None),
                chunk_size,
            }),
            chunk_size,
            on_cancel: None,
        }
    }

    /// Calls `f` with the reason when the stream is canceled.
    pub fn on_cancel(mut self, f: impl FnOnce(StreamError, &mut Cx) + 'static) -> Self {
        self.on_cancel = Some(Box::new(f));
        self
    }

    /// What drops the reader (and stops its polling) when called (see
    /// [`StreamSource::dropper`]).
    pub(crate) fn dropper(&self) -> Box<dyn FnOnce()> {
        let weak = Rc::downgrade(&self.state);
        Box::new(move || {
            if let Some(state) = weak.upgrade() {
                let reader = state.reader.borrow_mut().take();
                let driver = state.driver.borrow_mut().take();
                drop((reader, driver));
            }
        })
    }

    /// The readable byte stream of this source (high-water mark 0, `autoAllocateChunkSize` =
    /// the chunk size).
    pub fn into_stream(self, ctx: &mut Cx) -> Result<ReadableStream, StreamError> {
        let driver = Driver::new(&self.state, Self::step, ctx)?;
        *self.state.driver.borrow_mut() = Some(driver);
        let chunk_size = self.chunk_size;
        ReadableStream::from_byte_source(self, 0.0, Some(chunk_size), ctx)
    }

    /// Polls one read into the waiting read's buffer (or a buffer of its own when none
    /// waits) and answers the request.
    fn attempt(
        state: &ReadState<R>,
        c: &ByteController,
        ctx: &mut Cx,
    ) -> Poll<Result<(), StreamError>> {
        let Some(mut reader) = state.reader.borrow_mut().take() else {
            return Poll::Ready(Ok(()));
        };
        let Some(waker) = state.driver.borrow().as_ref().map(Driver::waker) else {
            return Poll::Ready(Ok(()));
        };
        let mut task_cx = TaskContext::from_waker(&waker);
        let mut poll_into = |buf: &mut [u8]| {
            let mut read_buf = ReadBuf::new(buf);
            match reader.as_mut().poll_read(&mut task_cx, &mut read_buf) {
                Poll::Ready(Ok(())) => Poll::Ready(Ok(read_buf.filled().len())),
                Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
                Poll::Pending => Poll::Pending,
            }
        };
        let request = c.byob_request();
        let (polled, own) = match &request {
            Some(request) => match request.fill(&mut poll_into) {
                Some(polled) => (polled, None),
                // Answered meanwhile (the stream was canceled or closed): nothing to do.
                None => (Poll::Ready(Ok(0)), None),
            },
            None => {
                // Pulled ahead of any read: one chunk into a buffer of our own, copied in.
                let mut buf = vec![0; state.chunk_size];
                let polled = poll_into(&mut buf);
                (polled, Some(buf))
            }
        };
        let n = match polled {
            Poll::Pending => {
                *state.reader.borrow_mut() = Some(reader);
                return Poll::Pending;
            }
            Poll::Ready(Err(error)) => return Poll::Ready(Err(StreamError::Io(error))),
            Poll::Ready(Ok(n)) => n,
        };
        if n == 0 {
            // End of file: the reader is dropped.
            drop(reader);
            return Poll::Ready(c.close(ctx));
        }
        *state.reader.borrow_mut() = Some(reader);
        Poll::Ready(match (request, own) {
            (Some(request), _) => request.respond(n, ctx),
            (None, Some(buf)) => c.enqueue(&buf[..n], ctx),
            (None, None) => Ok(()),
        })
    }

    /// A wake-up: polls again for the pull that waits.
    fn step(state: &Rc<ReadState<R>>, ctx: &mut Cx) {
        let Some((c, completer)) = state.pending.borrow_mut().take() else {
            return;
        };
        match Self::attempt(state, &c, ctx) {
            Poll::Pending => wait_again(
                Rc::clone(state) as Rc<dyn std::any::Any>,
                state.driver.borrow().as_ref(),
                &state.pending,
                (c, completer),
            ),
            Poll::Ready(Ok(())) => completer.complete(ctx),
            Poll::Ready(Err(error)) => completer.fail(error, ctx),
        }
    }
}

impl<R: AsyncRead + 'static> ByteSource for AsyncReadSource<R> {
    fn pull(&mut self, c: &ByteController, ctx: &mut Cx) -> Result<Completion, StreamError> {
        match Self::attempt(&self.state, c, ctx) {
            Poll::Ready(result) => result.map(|()| Completion::Ready),
            Poll::Pending => {
                let (completion, completer) = Completion::later();
                wait_again(
                    Rc::clone(&self.state) as Rc<dyn std::any::Any>,
                    self.state.driver.borrow().as_ref(),
                    &self.state.pending,
                    (c.clone(), completer),
                );
                Ok(completion)
            }
        }
    }

    fn cancel(&mut self, reason: Value, ctx: &mut Cx) -> Result<Completion, StreamError> {
        let reader = self.state.reader.borrow_mut().take();
        drop(reader);
        let driver = self.state.driver.borrow_mut().take();
        drop(driver);
        // The operation that waited (its controller and completer) will never finish.
        let pending = self.state.pending.borrow_mut().take();
        drop(pending);
        if let Some(on_cancel) = self.on_cancel.take() {
            on_cancel(StreamError::Js(reason), ctx);
        }
        Ok(Completion::Ready)
    }
}

impl ReadableStream {
    /// A readable stream of the byte chunks `stream` yields (see [`StreamSource`]).
    ///
    /// ```
    /// use boa_streams::host::{Host, HostOptions};
    /// use boa_streams::rust::{ReadableStream, StreamError};
    /// let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    /// rt.block_on(async {
    ///     let (host, mut ctx) = Host::new(HostOptions::default()).unwrap();
    ///     let items = futures::stream::iter([Ok::<_, StreamError>("ab"), Ok("c")]);
    ///     let stream = ReadableStream::from_stream(items, &mut ctx).unwrap();
    ///     host.set_global(&mut ctx, "rs", stream).unwrap();
    ///     host.eval_script(&mut ctx, "t.js", "new Response(rs).text().then(t => globalThis.t = t)").unwrap();
    ///     host.run(&mut ctx).await;
    ///     let t = host.eval_script(&mut ctx, "t.js", "t").unwrap();
    ///     assert_eq!(t.to_string(&mut ctx).unwrap().to_std_string_escaped(), "abc");
    /// });
    /// ```
    pub fn from_stream<S, B, E>(stream: S, ctx: &mut Cx) -> Result<Self, StreamError>
    where
        S: futures::Stream<Item = Result<B, E>> + 'static,
        B: Into<Bytes>,
        E: Into<StreamError>,
    {
        StreamSource::new(stream).into_stream(ctx)
    }

    /// A readable byte stream reading `reader` (see [`AsyncReadSource`]).
    pub fn from_async_read<R: AsyncRead + 'static>(
        reader: R,
        chunk_size: usize,
        ctx: &mut Cx,
    ) -> Result<Self, StreamError> {
        AsyncReadSource::new(reader, chunk_size).into_stream(ctx)
    }

    /// This stream as a [`futures::Stream`] of byte chunks (see [`IntoStream`]): a `TypeError`
    /// if the stream is locked.
    pub fn into_stream(self, ctx: &mut Cx) -> Result<IntoStream, StreamError> {
        IntoStream::new(&self, ctx)
    }

    /// This stream as a tokio [`AsyncRead`] (see [`IntoAsyncRead`]): a `TypeError` if the
    /// stream is locked.
    pub fn into_async_read(self, ctx: &mut Cx) -> Result<IntoAsyncRead, StreamError> {
        Ok(IntoAsyncRead {
            stream: IntoStream::new(&self, ctx)?,
            leftover: Bytes::new(),
        })
    }

    /// `stream.pipeTo(destination, options)` (ReadableStreamPipeTo, run natively) as a
    /// future: `Ok` once the pipe finished normally, `Err` with the error that stopped it.
    /// Abort it with [`PipeOptions::abort`]'s handle.
    pub fn pipe_to_with_options(
        &self,
        destination: &WritableStream,
        options: PipeOptions,
        ctx: &mut Cx,
    ) -> Ticket<Result<(), StreamError>> {
        let signal = options.abort.map(|handle| handle.signal);
        self.pipe_to_with(
            destination,
            options.prevent_close,
            options.prevent_abort,
            options.prevent_cancel,
            signal,
            ctx,
        )
    }
}

// ---------------------------------------------------------------------------------------------
// ReadableStream → futures::Stream / AsyncRead
// ---------------------------------------------------------------------------------------------

/// A `ReadableStream` read from async Rust ([`ReadableStream::into_stream`]): a
/// [`futures::Stream`] of its chunks as [`Bytes`] (chunks must be `ArrayBuffer`s or views, or
/// Rust bytes; any other chunk is a `TypeError` item).
///
/// Each `poll_next` that finds no chunk queues one read on the event loop (which must be
/// running: [`crate::host::Host::run`]); the stream's reader is locked to it. Dropping it
/// before the end cancels the stream with an `AbortError` `DOMException`; call
/// [`IntoStream::release`] to unlock the stream instead.
pub struct IntoStream {
    handle: LoopHandle,
    shared: Rc<RefCell<ReadShared>>,
}

#[derive(Default)]
struct ReadShared {
    reader: Option<Rc<Reader>>,
    in_flight: bool,
    arrived: Option<Result<Option<Bytes>, StreamError>>,
    waker: Option<Waker>,
    done: bool,
}

impl fmt::Debug for IntoStream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("IntoStream")
    }
}

impl IntoStream {
    fn new(stream: &ReadableStream, ctx: &mut Cx) -> Result<Self, StreamError> {
        let handle = LoopHandle::new(ctx)?;
        let reader = stream.reader(ctx)?;
        Ok(Self {
            handle,
            shared: Rc::new(RefCell::new(ReadShared {
                reader: Some(Rc::new(reader)),
                ..ReadShared::default()
            })),
        })
    }

    /// Releases the reader's lock (from a task): the stream stays as it is, unread chunks
    /// included.
    pub fn release(self) {
        let reader = {
            let mut shared = self.shared.borrow_mut();
            shared.done = true;
            shared.reader.take()
        };
        if let Some(reader) = reader {
            self.handle.queue(move |ctx| reader.release_lock(ctx));
        }
    }
}

/// The bytes of a chunk (a copy: the chunk's buffer stays the stream's).
fn chunk_bytes(chunk: Chunk, ctx: &mut Cx) -> Result<Bytes, StreamError> {
    match chunk {
        Chunk::Bytes(bytes) => Ok(Bytes::copy_from_slice(bytes.as_slice())),
        Chunk::Value(value) => super::with_chunk_bytes(&value, ctx, Bytes::copy_from_slice)
            .ok_or_else(|| {
                StreamError::type_error("The chunk must be an ArrayBuffer or an ArrayBufferView")
            }),
    }
}

/// State a Rust future polls and a callback on the loop fills: a read's result arrives, and
/// the future is woken to take it.
pub(crate) trait Arrival {
    /// What arrives.
    type Result;
    /// Stores `result` (the read is no longer in flight); the waker to wake, if one waits.
    fn arrive(&mut self, result: Self::Result) -> Option<Waker>;
}

/// Hands `result` to the state behind `weak` (gone: dropped) and wakes its poller.
pub(crate) fn deliver<A: Arrival>(weak: &std::rc::Weak<RefCell<A>>, result: A::Result) {
    let Some(shared) = weak.upgrade() else {
        return;
    };
    let waker = shared.borrow_mut().arrive(result);
    if let Some(waker) = waker {
        waker.wake();
    }
}

impl Arrival for ReadShared {
    type Result = Result<Option<Bytes>, StreamError>;

    fn arrive(&mut self, result: Self::Result) -> Option<Waker> {
        self.in_flight = false;
        self.arrived = Some(result);
        self.waker.take()
    }
}

impl futures::Stream for IntoStream {
    type Item = Result<Bytes, StreamError>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Option<Self::Item>> {
        let mut shared = self.shared.borrow_mut();
        if let Some(result) = shared.arrived.take() {
            return Poll::Ready(match result {
                Ok(Some(bytes)) => Some(Ok(bytes)),
                Ok(None) => {
                    shared.done = true;
                    None
                }
                Err(error) => {
                    shared.done = true;
                    Some(Err(error))
                }
            });
        }
        if shared.done {
            return Poll::Ready(None);
        }
        shared.waker = Some(cx.waker().clone());
        if !shared.in_flight {
            shared.in_flight = true;
            let Some(reader) = shared.reader.clone() else {
                return Poll::Ready(None);
            };
            let weak = Rc::downgrade(&self.shared);
            self.handle.queue(move |ctx| {
                reader.read_chunk_with(ctx, move |outcome, ctx| {
                    let result =
                        outcome.and_then(|chunk| chunk.map(|c| chunk_bytes(c, ctx)).transpose());
                    deliver(&weak, result);
                });
            });
        }
        Poll::Pending
    }
}

impl Drop for IntoStream {
    fn drop(&mut self) {
        let reader = {
            let mut shared = self.shared.borrow_mut();
            if shared.done {
                None
            } else {
                shared.reader.take()
            }
        };
        if let Some(reader) = reader {
            self.handle.queue(move |ctx| {
                let reason = StreamError::dom_exception(
                    "AbortError",
                    "the Rust consumer dropped the stream",
                )
                .into_js(ctx);
                drop(reader.cancel(reason, ctx));
            });
        }
    }
}

/// A `ReadableStream` read as a tokio [`AsyncRead`] ([`ReadableStream::into_async_read`]): the
/// bytes of its chunks in order (see [`IntoStream`]; a chunk larger than the caller's buffer
/// is handed out over several reads). Dropping it before the end cancels the stream.
#[derive(Debug)]
pub struct IntoAsyncRead {
    stream: IntoStream,
    leftover: Bytes,
}

impl AsyncRead for IntoAsyncRead {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        if buf.remaining() == 0 {
            return Poll::Ready(Ok(()));
        }
        while self.leftover.is_empty() {
            match futures::Stream::poll_next(Pin::new(&mut self.stream), cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(None) => return Poll::Ready(Ok(())),
                Poll::Ready(Some(Err(error))) => {
                    return Poll::Ready(Err(io::Error::other(error.to_string())))
                }
                Poll::Ready(Some(Ok(bytes))) => self.leftover = bytes,
            }
        }
        let n = self.leftover.len().min(buf.remaining());
        let chunk = self.leftover.split_to(n);
        buf.put_slice(&chunk);
        Poll::Ready(Ok(()))
    }
}

// ---------------------------------------------------------------------------------------------
// AsyncWrite / futures::Sink → WritableStream
// ---------------------------------------------------------------------------------------------

/// What a Rust writer has left to do for the operation that waits.
enum WriteOp {
    /// Write these bytes from this offset on.
    Write(Vec<u8>, usize),
    /// Flush, then shut down (close).
    Flush,
    Shutdown,
}

/// A writable stream whose sink is a tokio [`AsyncWrite`]
/// ([`WritableStream::from_async_write`]).
///
/// Each write is written from the chunk's own bytes while the writer accepts them; only the
/// part it does not take at once is copied, to finish from later wake-ups. The stream's
/// high-water mark (1 chunk) and the writer's readiness make the backpressure. Closing flushes
/// and shuts the writer down; aborting drops it (and hands the reason to
/// [`AsyncWriteSink::on_abort`]); an I/O error errors the stream with a `TypeError`.
pub struct AsyncWriteSink<W> {
    state: Rc<WriteState<W>>,
    on_abort: Option<OnReason>,
}

struct WriteState<W> {
    writer: RefCell<Option<Pin<Box<W>>>>,
    pending: RefCell<Option<(WriteOp, Completer)>>,
    driver: RefCell<Option<Driver>>,
}

impl<W> fmt::Debug for AsyncWriteSink<W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("AsyncWriteSink")
    }
}

impl<W: AsyncWrite + 'static> AsyncWriteSink<W> {
    /// A sink writing to `writer`.
    pub fn new(writer: W) -> Self {
        Self {
            state: Rc::new(WriteState {
                writer: RefCell::new(Some(Box::pin(writer))),
                pending: RefCell::new(None),
                driver: RefCell::new(None),
            }),
            on_abort: None,
        }
    }

    /// Calls `f` with the reason when the stream is aborted.
    pub fn on_abort(mut self, f: impl FnOnce(StreamError, &mut Cx) + 'static) -> Self {
        self.on_abort = Some(Box::new(f));
        self
    }

    /// The writable stream of this sink (high-water mark 1 chunk).
    pub fn into_stream(self, ctx: &mut Cx) -> Result<WritableStream, StreamError> {
        let driver = Driver::new(&self.state, Self::step, ctx)?;
        *self.state.driver.borrow_mut() = Some(driver);
        WritableStream::from_byte_sink(self, 1.0, ctx)
    }

    /// Makes progress on `op`: `Ready` once it is done.
    fn progress(
        state: &WriteState<W>,
        op: &mut WriteOp,
        bytes: Option<&[u8]>,
    ) -> Poll<io::Result<()>> {
        let mut guard = state.writer.borrow_mut();
        let Some(writer) = guard.as_mut() else {
            return Poll::Ready(Err(io::Error::new(
                io::ErrorKind::BrokenPipe,
                "the writer is gone",
            )));
        };
        let Some(waker) = state.driver.borrow().as_ref().map(Driver::waker) else {
            return Poll::Ready(Err(io::Error::new(
                io::ErrorKind::BrokenPipe,
                "the writer is gone",
            )));
        };
        let mut cx = TaskContext::from_waker(&waker);
        loop {
            match op {
                WriteOp::Write(buf, offset) => {
                    let data = bytes.unwrap_or(buf.as_slice());
                    if *offset >= data.len() {
                        return Poll::Ready(Ok(()));
                    }
                    match writer.as_mut().poll_write(&mut cx, &data[*offset..]) {
                        Poll::Ready(Ok(0)) => {
                            return Poll::Ready(Err(io::ErrorKind::WriteZero.into()))
                        }
                        Poll::Ready(Ok(n)) => *offset += n,
                        Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                        Poll::Pending => return Poll::Pending,
                    }
                }
                WriteOp::Flush => match writer.as_mut().poll_flush(&mut cx) {
                    Poll::Ready(Ok(())) => *op = WriteOp::Shutdown,
                    other => return other,
                },
                WriteOp::Shutdown => return writer.as_mut().poll_shutdown(&mut cx),
            }
        }
    }

    /// Starts `op` (writing from `bytes` when given, copying what is left if it must wait).
    fn start(&self, mut op: WriteOp, bytes: Option<&[u8]>) -> Result<Completion, StreamError> {
        match Self::progress(&self.state, &mut op, bytes) {
            Poll::Ready(result) => result.map(|()| Completion::Ready).map_err(StreamError::Io),
            Poll::Pending => {
                if let (WriteOp::Write(buf, offset), Some(bytes)) = (&mut op, bytes) {
                    *buf = bytes[*offset..].to_vec();
                    *offset = 0;
                }
                let (completion, completer) = Completion::later();
                wait_again(
                    Rc::clone(&self.state) as Rc<dyn std::any::Any>,
                    self.state.driver.borrow().as_ref(),
                    &self.state.pending,
                    (op, completer),
                );
                Ok(completion)
            }
        }
    }

    /// A wake-up: makes progress on the operation that waits.
    fn step(state: &Rc<WriteState<W>>, ctx: &mut Cx) {
        let Some((mut op, completer)) = state.pending.borrow_mut().take() else {
            return;
        };
        match Self::progress(state, &mut op, None) {
            Poll::Pending => wait_again(
                Rc::clone(state) as Rc<dyn std::any::Any>,
                state.driver.borrow().as_ref(),
                &state.pending,
                (op, completer),
            ),
            Poll::Ready(Ok(())) => completer.complete(ctx),
            Poll::Ready(Err(error)) => completer.fail(StreamError::Io(error), ctx),
        }
    }
}

impl<W: AsyncWrite + 'static> ByteSink for AsyncWriteSink<W> {
    fn write(
        &mut self,
        bytes: &[u8],
        _: &WritableController,
        _: &mut Cx,
    ) -> Result<Completion, StreamError> {
        self.start(WriteOp::Write(Vec::new(), 0), Some(bytes))
    }

    fn close(&mut self, _: &mut Cx) -> Result<Completion, StreamError> {
        self.start(WriteOp::Flush, None)
    }

    fn abort(&mut self, reason: Value, ctx: &mut Cx) -> Result<Completion, StreamError> {
        let writer = self.state.writer.borrow_mut().take();
        drop(writer);
        let driver = self.state.driver.borrow_mut().take();
        drop(driver);
        // The operation that waited (its controller and completer) will never finish.
        let pending = self.state.pending.borrow_mut().take();
        drop(pending);
        if let Some(on_abort) = self.on_abort.take() {
            on_abort(StreamError::Js(reason), ctx);
        }
        Ok(Completion::Ready)
    }
}

/// A writable stream whose sink is a [`futures::Sink`] of [`Bytes`]
/// ([`WritableStream::from_futures_sink`]): each write waits for `poll_ready`, then
/// `start_send`s the chunk's bytes; closing waits for `poll_close`; aborting drops the sink.
/// A sink error errors the stream.
pub struct FuturesSink<S> {
    state: Rc<SinkState<S>>,
    on_abort: Option<OnReason>,
}

enum SinkOp {
    Send(Bytes),
    Close,
}

struct SinkState<S> {
    sink: RefCell<Option<Pin<Box<S>>>>,
    pending: RefCell<Option<(SinkOp, Completer)>>,
    driver: RefCell<Option<Driver>>,
}

impl<S> fmt::Debug for FuturesSink<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("FuturesSink")
    }
}

impl<S, E> FuturesSink<S>
where
    S: futures::Sink<Bytes, Error = E> + 'static,
    E: Into<StreamError>,
{
    /// A writable-stream sink over `sink`.
    pub fn new(sink: S) -> Self {
        Self {
            state: Rc::new(SinkState {
                sink: RefCell::new(Some(Box::pin(sink))),
                pending: RefCell::new(None),
                driver: RefCell::new(None),
            }),
            on_abort: None,
        }
    }

    /// Calls `f` with the reason when the stream is aborted.
    pub fn on_abort(mut self, f: impl FnOnce(StreamError, &mut Cx) + 'static) -> Self {
        self.on_abort = Some(Box::new(f));
        self
    }

    /// The writable stream of this sink (high-water mark 1 chunk).
    pub fn into_stream(self, ctx: &mut Cx) -> Result<WritableStream, StreamError> {
        let driver = Driver::new(&self.state, Self::step, ctx)?;
        *self.state.driver.borrow_mut() = Some(driver);
        WritableStream::from_byte_sink(self, 1.0, ctx)
    }

    fn progress(state: &SinkState<S>, op: &mut Option<SinkOp>) -> Poll<Result<(), StreamError>> {
        let mut guard = state.sink.borrow_mut();
        let Some(sink) = guard.as_mut() else {
            return Poll::Ready(Err(StreamError::type_error("the sink is gone")));
        };
        let Some(waker) = state.driver.borrow().as_ref().map(Driver::waker) else {
            return Poll::Ready(Err(StreamError::type_error("the sink is gone")));
        };
        let mut cx = TaskContext::from_waker(&waker);
        match op {
            Some(SinkOp::Send(_)) => match sink.as_mut().poll_ready(&mut cx) {
                Poll::Pending => Poll::Pending,
                Poll::Ready(Err(e)) => Poll::Ready(Err(e.into())),
                Poll::Ready(Ok(())) => {
                    let Some(SinkOp::Send(bytes)) = op.take() else {
                        return Poll::Ready(Ok(()));
                    };
                    Poll::Ready(sink.as_mut().start_send(bytes).map_err(Into::into))
                }
            },
            Some(SinkOp::Close) => sink.as_mut().poll_close(&mut cx).map_err(Into::into),
            None => Poll::Ready(Ok(())),
        }
    }

    fn start(&self, op: SinkOp) -> Result<Completion, StreamError> {
        let mut op = Some(op);
        match Self::progress(&self.state, &mut op) {
            Poll::Ready(result) => result.map(|()| Completion::Ready),
            Poll::Pending => {
                let (completion, completer) = Completion::later();
                if let Some(op) = op {
                    wait_again(
                        Rc::clone(&self.state) as Rc<dyn std::any::Any>,
                        self.state.driver.borrow().as_ref(),
                        &self.state.pending,
                        (op, completer),
                    );
                }
                Ok(completion)
            }
        }
    }

    fn step(state: &Rc<SinkState<S>>, ctx: &mut Cx) {
        let Some((op, completer)) = state.pending.borrow_mut().take() else {
            return;
        };
        let mut op = Some(op);
        match Self::progress(state, &mut op) {
            Poll::Pending => {
                if let Some(op) = op {
                    wait_again(
                        Rc::clone(state) as Rc<dyn std::any::Any>,
                        state.driver.borrow().as_ref(),
                        &state.pending,
                        (op, completer),
                    );
                }
            }
            Poll::Ready(Ok(())) => completer.complete(ctx),
            Poll::Ready(Err(error)) => completer.fail(error, ctx),
        }
    }
}

impl<S, E> ByteSink for FuturesSink<S>
where
    S: futures::Sink<Bytes, Error = E> + 'static,
    E: Into<StreamError>,
{
    fn write(
        &mut self,
        bytes: &[u8],
        _: &WritableController,
        _: &mut Cx,
    ) -> Result<Completion, StreamError> {
        self.start(SinkOp::Send(Bytes::copy_from_slice(bytes)))
    }

    fn close(&mut self, _: &mut Cx) -> Result<Completion, StreamError> {
        self.start(SinkOp::Close)
    }

    fn abort(&mut self, reason: Value, ctx: &mut Cx) -> Result<Completion, StreamError> {
        let sink = self.state.sink.borrow_mut().take();
        drop(sink);
        let driver = self.state.driver.borrow_mut().take();
        drop(driver);
        // The operation that waited (its controller and completer) will never finish.
        let pending = self.state.pending.borrow_mut().take();
        drop(pending);
        if let Some(on_abort) = self.on_abort.take() {
            on_abort(StreamError::Js(reason), ctx);
        }
        Ok(Completion::Ready)
    }
}

impl WritableStream {
    /// A writable stream writing to `writer` (see [`AsyncWriteSink`]).
    pub fn from_async_write<W: AsyncWrite + 'static>(
        writer: W,
        ctx: &mut Cx,
    ) -> Result<Self, StreamError> {
        AsyncWriteSink::new(writer).into_stream(ctx)
    }

    /// A writable stream sending to `sink` (see [`FuturesSink`]). (`from_sink` is the Rust
    /// [`super::Sink`] trait's.)
    pub fn from_futures_sink<S, E>(sink: S, ctx: &mut Cx) -> Result<Self, StreamError>
    where
        S: futures::Sink<Bytes, Error = E> + 'static,
        E: Into<StreamError>,
    {
        FuturesSink::new(sink).into_stream(ctx)
    }

    /// This stream as a [`futures::Sink`] of [`Bytes`] (see [`IntoSink`]): a `TypeError` if
    /// the stream is locked.
    pub fn into_sink(self, ctx: &mut Cx) -> Result<IntoSink, StreamError> {
        IntoSink::new(&self, ctx)
    }
}

// ---------------------------------------------------------------------------------------------
// WritableStream → futures::Sink
// ---------------------------------------------------------------------------------------------

/// A `WritableStream` written from async Rust ([`WritableStream::into_sink`]): a
/// [`futures::Sink`] of [`Bytes`], each written as one chunk (Rust bytes for a Rust sink, a
/// `Uint8Array` for script's).
///
/// `poll_ready` holds the producer back while the stream's desired size is not positive and a
/// write is still in flight (its backpressure); `poll_flush` waits for every write;
/// `poll_close` closes the stream and waits for it. The writer is locked to it; dropping it
/// releases the lock. Operations run on the event loop, which must be running.
pub struct IntoSink {
    handle: LoopHandle,
    shared: Rc<RefCell<SinkShared>>,
}

#[derive(Default)]
struct SinkShared {
    writer: Option<Object<WritableStreamDefaultWriter>>,
    /// Writes queued on the loop, not yet started.
    queued: usize,
    /// The desired size after the last write started.
    desired: Option<f64>,
    /// Writes started and not settled, oldest first.
    in_flight: VecDeque<Ticket<Result<(), StreamError>>>,
    close: Option<Ticket<Result<(), StreamError>>>,
    closing: bool,
    error: Option<StreamError>,
    waker: Option<Waker>,
}

impl fmt::Debug for IntoSink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("IntoSink")
    }
}

impl IntoSink {
    fn new(stream: &WritableStream, ctx: &mut Cx) -> Result<Self, StreamError> {
        let handle = LoopHandle::new(ctx)?;
        let writer =
            crate::writable::stream::acquire_writable_stream_default_writer(&stream.0, ctx)
                .map_err(|e| StreamError::from_js_error(e, ctx))?;
        let desired =
            crate::writable::default_writer::writable_stream_default_writer_get_desired_size(
                &writer,
            );
        Ok(Self {
            handle,
            shared: Rc::new(RefCell::new(SinkShared {
                writer: Some(writer),
                desired,
                ..SinkShared::default()
            })),
        })
    }

    /// Polls the writes in flight; `Ready` once none is left (or one failed).
    fn poll_settled(&self, cx: &mut TaskContext<'_>, all: bool) -> Poll<Result<(), StreamError>> {
        let mut shared = self.shared.borrow_mut();
        shared.waker = Some(cx.waker().clone());
        if let Some(error) = shared.error.take() {
            return Poll::Ready(Err(error));
        }
        while let Some(front) = shared.in_flight.front_mut() {
            match Pin::new(front).poll(cx) {
                Poll::Ready(Ok(())) => {
                    shared.in_flight.pop_front();
                }
                Poll::Ready(Err(error)) => {
                    shared.in_flight.pop_front();
                    return Poll::Ready(Err(error));
                }
                Poll::Pending => break,
            }
        }
        let ready = if all {
            shared.queued == 0 && shared.in_flight.is_empty()
        } else {
            shared.queued == 0
                && (shared.in_flight.is_empty() || shared.desired.is_some_and(|d| d > 0.0))
        };
        if ready {
            Poll::Ready(Ok(()))
        } else {
            Poll::Pending
        }
    }
}

impl futures::Sink<Bytes> for IntoSink {
    type Error = StreamError;

    fn poll_ready(self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Result<(), StreamError>> {
        self.poll_settled(cx, false)
    }

    fn start_send(self: Pin<&mut Self>, item: Bytes) -> Result<(), StreamError> {
        let writer = {
            let mut shared = self.shared.borrow_mut();
            shared.queued += 1;
            shared.writer.clone()
        };
        let Some(writer) = writer else {
            return Err(StreamError::type_error("The sink is closed"));
        };
        let weak = Rc::downgrade(&self.shared);
        self.handle.queue(move |ctx| {
            let chunk = Chunk::Bytes(NativeBytes::from_bytes(item));
            let promise = crate::engine::PromiseCapability::new(ctx);
            let written =
                crate::writable::default_writer::writable_stream_default_writer_write_request(
                    &writer,
                    chunk,
                    crate::writable::WriteRequest::Promise(promise.clone()),
                    ctx,
                );
            let ticket = match written {
                Ok(()) => ticket_for_promise(promise.promise(), ctx),
                Err(e) => {
                    let (ticket, fill) = Ticket::new();
                    fill(Err(StreamError::from_js_error(e, ctx)));
                    ticket
                }
            };
            let desired =
                crate::writable::default_writer::writable_stream_default_writer_get_desired_size(
                    &writer,
                );
            if let Some(shared) = weak.upgrade() {
                let waker = {
                    let mut shared = shared.borrow_mut();
                    shared.queued -= 1;
                    shared.desired = desired;
                    shared.in_flight.push_back(ticket);
                    shared.waker.take()
                };
                if let Some(waker) = waker {
                    waker.wake();
                }
            }
        });
        Ok(())
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Result<(), StreamError>> {
        self.poll_settled(cx, true)
    }

    fn poll_close(self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Result<(), StreamError>> {
        // Every write first, then close.
        match self.poll_settled(cx, true) {
            Poll::Ready(Ok(())) => {}
            other => return other,
        }
        let mut shared = self.shared.borrow_mut();
        if let Some(ticket) = shared.close.as_mut() {
            let result = std::task::ready!(Pin::new(ticket).poll(cx));
            shared.writer = None;
            return Poll::Ready(result);
        }
        if shared.closing {
            return Poll::Pending;
        }
        let Some(writer) = shared.writer.clone() else {
            return Poll::Ready(Ok(()));
        };
        shared.closing = true;
        drop(shared);
        let weak = Rc::downgrade(&self.shared);
        self.handle.queue(move |ctx| {
            let ticket = match crate::writable::default_writer::writable_stream_default_writer_close(&writer, ctx) {
                Ok(promise) => ticket_for_promise(&promise, ctx),
                Err(e) => {
                    let (ticket, fill) = Ticket::new();
                    fill(Err(StreamError::from_js_error(e, ctx)));
                    ticket
                }
            };
            if let Some(shared) = weak.upgrade() {
                let waker = {
                    let mut shared = shared.borrow_mut();
                    shared.close = Some(ticket);
                    shared.waker.take()
                };
                if let Some(waker) = waker {
                    waker.wake();
                }
            }
        });
        Poll::Pending
    }
}

impl Drop for IntoSink {
    fn drop(&mut self) {
        let writer = self.shared.borrow_mut().writer.take();
        if let Some(writer) = writer {
            self.handle.queue(move |ctx| {
                let _ = crate::writable::default_writer::writable_stream_default_writer_release(
                    &writer, ctx,
                );
            });
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Pipe options and the abort handle
// ---------------------------------------------------------------------------------------------

/// `pipeTo`'s options, for [`ReadableStream::pipe_to_with_options`].
#[derive(Debug, Default)]
pub struct PipeOptions {
    /// `preventClose`: leave the destination open when the source closes.
    pub prevent_close: bool,
    /// `preventAbort`: leave the destination as it is when the source errors.
    pub prevent_abort: bool,
    /// `preventCancel`: leave the source as it is when the destination errors.
    pub prevent_cancel: bool,
    /// `signal`: an abort handle's signal.
    pub abort: Option<AbortHandle>,
}

/// An `AbortSignal` whose controller Rust holds: what [`PipeOptions::abort`] takes. Aborting
/// it (now, with a context, or from async Rust through the loop) aborts the pipe.
#[derive(Debug, Clone)]
pub struct AbortHandle {
    signal: crate::engine::Object,
}

impl AbortHandle {
    /// A new, not yet aborted signal.
    pub fn new(ctx: &mut Cx) -> Result<Self, StreamError> {
        let signal =
            crate::dom::new_abort_signal(ctx).map_err(|e| StreamError::from_js_error(e, ctx))?;
        Ok(Self { signal })
    }

    /// The `AbortSignal` object, to hand to script.
    pub fn signal(&self) -> Value {
        self.signal.clone().into()
    }

    /// Signals abort with `reason` (an `AbortError` `DOMException` when `None`).
    pub fn abort(&self, reason: Option<StreamError>, ctx: &mut Cx) {
        let reason = match reason {
            Some(reason) => reason.into_js(ctx),
            None => StreamError::dom_exception("AbortError", "signal is aborted without reason")
                .into_js(ctx),
        };
        let _ = crate::dom::signal_abort(&self.signal, reason, ctx);
    }

    /// Signals abort from async Rust: queued on the event loop of `handle`.
    pub fn abort_later(&self, reason: Option<StreamError>, handle: &LoopHandle) {
        let this = self.clone();
        handle.queue(move |ctx| this.abort(reason, ctx));
    }
}
