//! Readable streams from Rust sources, value and byte.

use crate::engine::{webidl, Cx, JsResult, Object};
use crate::queuing_strategy::SizeAlgorithm;
use crate::readable::{
    byte_controller::{
        self, has_pending_pull_intos, readable_byte_stream_controller_close,
        readable_byte_stream_controller_enqueue, readable_byte_stream_controller_error,
        readable_byte_stream_controller_get_desired_size, readable_byte_stream_controller_respond,
        ByteChunk, DescriptorBuffer, ReadableByteStreamController,
    },
    default_controller::{
        readable_stream_default_controller_can_close_or_enqueue,
        readable_stream_default_controller_close, readable_stream_default_controller_enqueue,
        readable_stream_default_controller_enqueue_chunk, readable_stream_default_controller_error,
        readable_stream_default_controller_get_desired_size,
    },
    other_specs::{self, NativeSource, NativeUnderlyingSource},
    stream::{
        as_stream, is_readable_stream_locked, readable_stream_cancel, StreamSlots, StreamState,
    },
    ReadableStreamDefaultController,
};

use super::{
    sink::WritableStream,
    ticket::{ticket_for_promise, Ticket},
    Callbacks, Completion, StreamError, Value,
};
use crate::engine::PromiseResult;
use crate::queue::{Chunk, NativeBytes};

/// The shared Rust object behind a value stream's pull and cancel algorithms.
type RustSource = Callbacks<dyn Source>;
/// The shared Rust object behind a byte stream's pull and cancel algorithms.
type RustByteSource = Callbacks<dyn ByteSource>;

/// An underlying source written in Rust, for a value stream ([`ReadableStream::from_source`]).
///
/// `pull` is the stream's `[[pullAlgorithm]]`: the controller calls it, as it would a JS
/// source's `pull`, once the stream has started and whenever its queue is below the high-water
/// mark (or a read is waiting), never again before the previous pull has completed. Enqueue
/// with [`ReadableController::enqueue`] (synchronously, or later from a task).
///
/// ```
/// use boa_streams::rust::{Completion, Context, ReadableController, Source, StreamError, Value};
///
/// /// Counts 0, 1, 2, ... up to `end`.
/// struct Counter { next: i32, end: i32 }
///
/// impl Source for Counter {
///     fn pull(&mut self, c: &ReadableController, ctx: &mut Context)
///         -> Result<Completion, StreamError> {
///         if self.next == self.end {
///             c.close(ctx)?;
///         } else {
///             c.enqueue(Value::from(self.next), ctx)?;
///             self.next += 1;
///         }
///         Ok(Completion::Ready)
///     }
/// }
/// ```
pub trait Source: 'static {
    /// Called when the stream wants more data: enqueue, close or error through `controller`.
    /// Return [`Completion::Ready`] when done now, or a [`Completion::later`] completion to
    /// finish from a task; an `Err` errors the stream with that error.
    fn pull(
        &mut self,
        controller: &ReadableController,
        ctx: &mut Cx,
    ) -> Result<Completion, StreamError>;

    /// Called when the consumer cancels the stream, with the reason it gave (`undefined` when
    /// none). The default does nothing.
    fn cancel(&mut self, reason: Value, ctx: &mut Cx) -> Result<Completion, StreamError> {
        let _ = (reason, ctx);
        Ok(Completion::Ready)
    }
}

/// An underlying byte source written in Rust ([`ReadableStream::from_byte_source`]).
///
/// When a read is waiting, [`ByteController::byob_request`] gives the reader's buffer (a BYOB
/// reader's view, or the buffer the stream allocated for a default reader when
/// `auto_allocate_chunk_size` is set): fill it in place with [`ByobRequest::fill`] and
/// [`ByobRequest::respond`]. Otherwise, [`ByteController::enqueue`] copies bytes in.
///
/// ```
/// use boa_streams::rust::{ByteController, ByteSource, Completion, Context, StreamError};
///
/// /// An endless stream of zero bytes, written straight into the readers' buffers.
/// struct Zeros;
///
/// impl ByteSource for Zeros {
///     fn pull(&mut self, c: &ByteController, ctx: &mut Context)
///         -> Result<Completion, StreamError> {
///         if let Some(request) = c.byob_request() {
///             let n = request.fill(|buf| { buf.fill(0); buf.len() }).unwrap_or(0);
///             request.respond(n, ctx)?;
///         }
///         Ok(Completion::Ready)
///     }
/// }
/// ```
pub trait ByteSource: 'static {
    /// Called when the stream wants more bytes (see [`Source::pull`]).
    fn pull(
        &mut self,
        controller: &ByteController,
        ctx: &mut Cx,
    ) -> Result<Completion, StreamError>;

    /// Called when the consumer cancels the stream, with its reason. The default does nothing.
    fn cancel(&mut self, reason: Value, ctx: &mut Cx) -> Result<Completion, StreamError> {
        let _ = (reason, ctx);
        Ok(Completion::Ready)
    }
}

traced! {
    data;
    /// A Rust value source as the readable stream's native underlying source: an object no
    /// script can reach, holding the shared source.
    struct SourceObject(#[unsafe_ignore_trace] RustSource);
}

impl NativeUnderlyingSource for SourceObject {
    fn pull(this: &Object<Self>, controller: Value, ctx: &mut Cx) -> JsResult<PromiseResult> {
        let source = this.borrow().data().0.clone();
        perform_pull(&source, controller, ctx)
    }

    fn cancel(this: &Object<Self>, reason: Value, ctx: &mut Cx) -> JsResult<PromiseResult> {
        let source = this.borrow().data().0.clone();
        perform_cancel(&source, reason, ctx)
    }
}

traced! {
    data;
    /// A Rust byte source as the readable byte stream's native underlying source.
    struct ByteSourceObject(#[unsafe_ignore_trace] RustByteSource);
}

impl NativeUnderlyingSource for ByteSourceObject {
    // A `ByteSource` sees the controller only through `ByteController`, which fills requests
    // in place and never makes a view.
    const FILLS_IN_RUST: bool = true;

    fn pull(this: &Object<Self>, controller: Value, ctx: &mut Cx) -> JsResult<PromiseResult> {
        let source = this.borrow().data().0.clone();
        perform_byte_pull(&source, controller, ctx)
    }

    fn cancel(this: &Object<Self>, reason: Value, ctx: &mut Cx) -> JsResult<PromiseResult> {
        let source = this.borrow().data().0.clone();
        perform_byte_cancel(&source, reason, ctx)
    }
}

/// The [[pullAlgorithm]] of a Rust value source.
fn perform_pull(source: &RustSource, controller: Value, ctx: &mut Cx) -> JsResult<PromiseResult> {
    let Some(controller) = controller
        .as_object()
        .and_then(|o| o.clone().downcast::<ReadableStreamDefaultController>().ok())
    else {
        return Ok(PromiseResult::undefined());
    };
    let controller = ReadableController(controller);
    source.perform(ctx, move |source, ctx| source.pull(&controller, ctx))
}

/// The [[cancelAlgorithm]] of a Rust value source.
fn perform_cancel(source: &RustSource, reason: Value, ctx: &mut Cx) -> JsResult<PromiseResult> {
    source.perform(ctx, move |source, ctx| source.cancel(reason, ctx))
}

/// The [[pullAlgorithm]] of a Rust byte source.
fn perform_byte_pull(
    source: &RustByteSource,
    controller: Value,
    ctx: &mut Cx,
) -> JsResult<PromiseResult> {
    let Some(controller) = controller
        .as_object()
        .and_then(|o| o.clone().downcast::<ReadableByteStreamController>().ok())
    else {
        return Ok(PromiseResult::undefined());
    };
    let controller = ByteController(controller);
    source.perform(ctx, move |source, ctx| source.pull(&controller, ctx))
}

/// The [[cancelAlgorithm]] of a Rust byte source.
fn perform_byte_cancel(
    source: &RustByteSource,
    reason: Value,
    ctx: &mut Cx,
) -> JsResult<PromiseResult> {
    source.perform(ctx, move |source, ctx| source.cancel(reason, ctx))
}

fn js_err(ctx: &mut Cx) -> impl FnOnce(crate::engine::JsError) -> StreamError + '_ {
    move |e| StreamError::from_js_error(e, ctx)
}

/// A value stream's controller (its `ReadableStreamDefaultController`), as a Rust source sees
/// it. Clone it to keep it (in a task that enqueues later).
#[derive(Debug, Clone)]
pub struct ReadableController(Object<ReadableStreamDefaultController>);

impl ReadableController {
    /// Enqueues `chunk` (`controller.enqueue(chunk)`): a `TypeError` when the stream is closed,
    /// closing or errored.
    pub fn enqueue(&self, chunk: Value, ctx: &mut Cx) -> Result<(), StreamError> {
        if !readable_stream_default_controller_can_close_or_enqueue(&self.0) {
            return Err(StreamError::type_error(
                "The stream is not in a state that permits enqueue",
            ));
        }
        readable_stream_default_controller_enqueue(&self.0, chunk, ctx).map_err(js_err(ctx))
    }

    /// Enqueues a copy of `bytes` as one chunk, as [`ReadableController::enqueue`] would a
    /// `Uint8Array` holding them, but with no JS object made for it until script reads it: a
    /// Rust reader ([`crate::rust::DrainingReader::read_bytes`]) or a pipe to a Rust byte sink
    /// gets the bytes as they are. A `TypeError` when the stream is closed, closing or errored.
    pub fn enqueue_bytes(&self, bytes: &[u8], ctx: &mut Cx) -> Result<(), StreamError> {
        if !readable_stream_default_controller_can_close_or_enqueue(&self.0) {
            return Err(StreamError::type_error(
                "The stream is not in a state that permits enqueue",
            ));
        }
        let chunk = Chunk::Bytes(NativeBytes::from_vec(bytes.to_vec()));
        readable_stream_default_controller_enqueue_chunk(&self.0, chunk, ctx).map_err(js_err(ctx))
    }

    /// Enqueues Rust bytes as one chunk, without a copy (see
    /// [`ReadableController::enqueue_bytes`]).
    #[cfg_attr(not(feature = "tokio"), allow(dead_code))]
    pub(crate) fn enqueue_native(
        &self,
        bytes: NativeBytes,
        ctx: &mut Cx,
    ) -> Result<(), StreamError> {
        if !readable_stream_default_controller_can_close_or_enqueue(&self.0) {
            return Err(StreamError::type_error(
                "The stream is not in a state that permits enqueue",
            ));
        }
        readable_stream_default_controller_enqueue_chunk(&self.0, Chunk::Bytes(bytes), ctx)
            .map_err(js_err(ctx))
    }

    /// Closes the stream once the queued chunks are read (`controller.close()`): a `TypeError`
    /// when it is already closed, closing or errored.
    pub fn close(&self, ctx: &mut Cx) -> Result<(), StreamError> {
        if !readable_stream_default_controller_can_close_or_enqueue(&self.0) {
            return Err(StreamError::type_error(
                "The stream is not in a state that permits close",
            ));
        }
        readable_stream_default_controller_close(&self.0, ctx).map_err(js_err(ctx))
    }

    /// Errors the stream with `error` (`controller.error(e)`; nothing when it is not readable).
    pub fn error(&self, error: StreamError, ctx: &mut Cx) {
        let e = error.into_js(ctx);
        let _ = readable_stream_default_controller_error(&self.0, e, ctx);
    }

    /// `controller.desiredSize`: the high-water mark minus the queued size (`None` once errored).
    pub fn desired_size(&self) -> Option<f64> {
        readable_stream_default_controller_get_desired_size(&self.0)
    }
}

/// A byte stream's controller (its `ReadableByteStreamController`), as a Rust byte source sees
/// it.
#[derive(Debug, Clone)]
pub struct ByteController(Object<ReadableByteStreamController>);

impl ByteController {
    /// The buffer of the read waiting at the head of the queue (the spec's
    /// `controller.byobRequest`), if any: fill it in place.
    pub fn byob_request(&self) -> Option<ByobRequest> {
        let (buffer, _, _) = byte_controller::first_pull_into_region(&self.0)?;
        Some(ByobRequest {
            controller: self.0.clone(),
            buffer,
        })
    }

    /// Enqueues a copy of `bytes` as one chunk (`controller.enqueue(new Uint8Array(bytes))`): a
    /// `TypeError` when `bytes` is empty or the stream is closed, closing or errored.
    pub fn enqueue(&self, bytes: &[u8], ctx: &mut Cx) -> Result<(), StreamError> {
        self.enqueue_native(NativeBytes::from_vec(bytes.to_vec()), ctx)
    }

    /// Enqueues Rust bytes as one chunk, without a copy (see [`ByteController::enqueue`]): no JS
    /// object is made for it until script reads it (`ByteChunk::Bytes`).
    #[cfg_attr(not(feature = "tokio"), allow(dead_code))]
    pub(crate) fn enqueue_native(
        &self,
        bytes: NativeBytes,
        ctx: &mut Cx,
    ) -> Result<(), StreamError> {
        if bytes.len() == 0 {
            return Err(StreamError::type_error("The chunk must not be empty"));
        }
        self.check_readable("enqueue")?;
        readable_byte_stream_controller_enqueue(&self.0, ByteChunk::Bytes(bytes), ctx)
            .map_err(js_err(ctx))
    }

    /// Closes the stream (`controller.close()`, then `byobRequest.respond(0)` for a BYOB read
    /// still waiting, as a JS byte source does): a `TypeError` when it is already closed,
    /// closing or errored.
    pub fn close(&self, ctx: &mut Cx) -> Result<(), StreamError> {
        self.check_readable("close")?;
        readable_byte_stream_controller_close(&self.0, ctx).map_err(js_err(ctx))?;
        if self.stream_state() == Some(StreamState::Closed) && has_pending_pull_intos(&self.0) {
            readable_byte_stream_controller_respond(&self.0, 0, ctx).map_err(js_err(ctx))?;
        }
        Ok(())
    }

    /// Errors the stream with `error` (`controller.error(e)`).
    pub fn error(&self, error: StreamError, ctx: &mut Cx) {
        let e = error.into_js(ctx);
        let _ = readable_byte_stream_controller_error(&self.0, e, ctx);
    }

    /// `controller.desiredSize`.
    pub fn desired_size(&self) -> Option<f64> {
        readable_byte_stream_controller_get_desired_size(&self.0)
    }

    fn stream_state(&self) -> Option<StreamState> {
        byte_controller::controller_stream(&self.0).map(|s| s.state())
    }

    fn check_readable(&self, what: &str) -> Result<(), StreamError> {
        if byte_controller::close_requested_of(&self.0)
            || self.stream_state() != Some(StreamState::Readable)
        {
            return Err(StreamError::type_error(format!(
                "The stream is not in a state that permits {what}"
            )));
        }
        Ok(())
    }
}

/// The buffer of a waiting read (a BYOB reader's view, or a default reader's auto-allocated
/// buffer): the bytes not yet filled, writable in place.
#[derive(Debug)]
pub struct ByobRequest {
    controller: Object<ReadableByteStreamController>,
    buffer: DescriptorBuffer,
}

impl ByobRequest {
    /// The region, if this request is still the one at the head of the queue.
    fn region(&self) -> Option<(DescriptorBuffer, u64, u64)> {
        let (buffer, offset, len) = byte_controller::first_pull_into_region(&self.controller)?;
        buffer.same(&self.buffer).then_some((buffer, offset, len))
    }

    /// How many bytes the request can take (0 once it has been answered).
    pub fn len(&self) -> usize {
        self.region()
            .and_then(|(_, _, len)| usize::try_from(len).ok())
            .unwrap_or(0)
    }

    /// Whether the request can take no bytes (it has been answered).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Runs `f` on the request's unfilled bytes, in the reader's own buffer (no intermediate
    /// copy), and returns what `f` returns; `None` if the request was answered meanwhile. Then
    /// call [`ByobRequest::respond`] with the number of bytes written. `f` gets no context, so it
    /// cannot run script while the buffer is borrowed.
    pub fn fill<R>(&self, f: impl FnOnce(&mut [u8]) -> R) -> Option<R> {
        let (buffer, offset, len) = self.region()?;
        buffer.with_bytes_mut(offset, len, f)
    }

    /// `byobRequest.respond(bytesWritten)`: hands the first `bytes_written` bytes to the
    /// reader. A `TypeError` when `bytes_written` is 0 while the stream is readable or the
    /// request was answered already, a `RangeError` when it exceeds [`ByobRequest::len`].
    pub fn respond(self, bytes_written: usize, ctx: &mut Cx) -> Result<(), StreamError> {
        if self.region().is_none() {
            return Err(StreamError::type_error(
                "The BYOB request has already been answered",
            ));
        }
        let n = u64::try_from(bytes_written).unwrap_or(u64::MAX);
        readable_byte_stream_controller_respond(&self.controller, n, ctx).map_err(js_err(ctx))
    }
}

/// A handle on a `ReadableStream` object: one made from a Rust source, or any stream script
/// made ([`ReadableStream::from_value`]). Cloning clones the handle, not the stream.
///
/// ```
/// use boa_streams::host::{Host, HostOptions};
/// use boa_streams::rust::ReadableStream;
/// let (host, mut ctx) = Host::new(HostOptions::default()).unwrap();
/// let js = host.eval_script(&mut ctx, "s.js", "new ReadableStream()").unwrap().into();
/// let stream = ReadableStream::from_value(&js).unwrap();
/// assert!(!stream.is_locked());
/// assert!(ReadableStream::from_value(&boa_streams::rust::Value::from(1)).is_none());
/// ```
#[derive(Debug, Clone)]
pub struct ReadableStream(pub(crate) Object<crate::readable::ReadableStream>);

fn check_high_water_mark(hwm: f64) -> Result<f64, StreamError> {
    if hwm.is_nan() || hwm < 0.0 {
        return Err(StreamError::range_error(
            "The high-water mark must be a non-negative number",
        ));
    }
    Ok(hwm)
}

impl ReadableStream {
    /// A value stream whose underlying source is `source` (CreateReadableStream with Rust pull
    /// and cancel algorithms): `high_water_mark` chunks are pulled ahead of the reads (each
    /// chunk counts 1). A `RangeError` for a negative or NaN `high_water_mark`.
    ///
    /// See the [module example](crate::rust).
    pub fn from_source(
        source: impl Source,
        high_water_mark: f64,
        ctx: &mut Cx,
    ) -> Result<Self, StreamError> {
        let hwm = check_high_water_mark(high_water_mark)?;
        let shared: RustSource = Callbacks::new(Box::new(source), ctx);
        let source = webidl::internal_object(SourceObject(shared), ctx);
        let stream = other_specs::set_up(
            Some(NativeSource::new(&source)),
            hwm,
            SizeAlgorithm::One,
            ctx,
        )
        .map_err(js_err(ctx))?;
        Ok(Self(stream))
    }

    /// A readable byte stream whose underlying byte source is `source`
    /// (SetUpReadableByteStreamController with Rust pull and cancel algorithms).
    /// `high_water_mark` is in bytes. With `auto_allocate_chunk_size`, a default reader's read
    /// allocates a buffer of that size for the source to fill ([`ByteController::byob_request`]
    /// then always has a request when a read waits). A `RangeError` for a bad high-water mark,
    /// a `TypeError` for a zero chunk size.
    ///
    /// ```
    /// use boa_streams::host::{Host, HostOptions};
    /// use boa_streams::rust::{ByteController, ByteSource, Completion, Context, ReadableStream, StreamError};
    ///
    /// struct Once(bool);
    /// impl ByteSource for Once {
    ///     fn pull(&mut self, c: &ByteController, ctx: &mut Context) -> Result<Completion, StreamError> {
    ///         if std::mem::replace(&mut self.0, true) {
    ///             c.close(ctx)?;
    ///         } else if let Some(req) = c.byob_request() {
    ///             let n = req.fill(|buf| { buf[..2].copy_from_slice(b"hi"); 2 }).unwrap_or(0);
    ///             req.respond(n, &mut *ctx)?;
    ///         }
    ///         Ok(Completion::Ready)
    ///     }
    /// }
    ///
    /// let (host, mut ctx) = Host::new(HostOptions::default()).unwrap();
    /// let stream = ReadableStream::from_byte_source(Once(false), 0.0, Some(1024), &mut ctx).unwrap();
    /// let reader = stream.reader(&mut ctx).unwrap();
    /// let chunk = reader.read(&mut ctx).wait(&host, &mut ctx).unwrap().unwrap().unwrap();
    /// let bytes = boa_streams::rust::with_chunk_bytes(&chunk, &mut ctx, |b| b.to_vec()).unwrap();
    /// assert_eq!(bytes, b"hi");
    /// ```
    pub fn from_byte_source(
        source: impl ByteSource,
        high_water_mark: f64,
        auto_allocate_chunk_size: Option<usize>,
        ctx: &mut Cx,
    ) -> Result<Self, StreamError> {
        let hwm = check_high_water_mark(high_water_mark)?;
        if auto_allocate_chunk_size == Some(0) {
            return Err(StreamError::type_error(
                "autoAllocateChunkSize must be greater than 0",
            ));
        }
        let shared: RustByteSource = Callbacks::new(Box::new(source), ctx);
        let source = webidl::internal_object(ByteSourceObject(shared), ctx);
        let stream = other_specs::set_up_with_byte_reading_support(
            Some(NativeSource::new(&source)),
            hwm,
            auto_allocate_chunk_size.map(|n| n as u64),
            ctx,
        )
        .map_err(js_err(ctx))?;
        Ok(Self(stream))
    }

    /// The stream behind a JS value, if it is a `ReadableStream` (the brand check script's
    /// `ReadableStream.prototype` methods make).
    pub fn from_value(value: &Value) -> Option<Self> {
        as_stream(value).map(Self)
    }

    /// The `ReadableStream` object, to hand to script.
    pub fn to_value(&self) -> Value {
        self.0.clone().upcast().into()
    }

    /// `stream.locked`.
    pub fn is_locked(&self) -> bool {
        is_readable_stream_locked(&self.0)
    }

    /// `stream.cancel(reason)`: settles once the source's cancel has completed.
    pub fn cancel(&self, reason: Value, ctx: &mut Cx) -> Ticket<Result<(), StreamError>> {
        if self.is_locked() {
            let (ticket, fill) = Ticket::new();
            fill(Err(StreamError::type_error(
                "Cannot cancel a stream that is locked to a reader",
            )));
            return ticket;
        }
        match readable_stream_cancel(&self.0, reason, ctx) {
            Ok(promise) => ticket_for_promise(&promise, ctx),
            Err(e) => {
                let (ticket, fill) = Ticket::new();
                fill(Err(StreamError::from_js_error(e, ctx)));
                ticket
            }
        }
    }

    /// `stream.pipeTo(destination)` with the default options (the spec's ReadableStreamPipeTo,
    /// run natively: no JS runs per chunk unless the streams' own algorithms are JS). Settles
    /// when the pipe has finished: `Ok` once the destination closed, `Err` with the error
    /// that stopped it.
    pub fn pipe_to(
        &self,
        destination: &WritableStream,
        ctx: &mut Cx,
    ) -> Ticket<Result<(), StreamError>> {
        self.pipe_to_with(destination, false, false, false, None, ctx)
    }

    /// ReadableStreamPipeTo with its options, after `pipeTo`'s lock checks.
    pub(crate) fn pipe_to_with(
        &self,
        destination: &WritableStream,
        prevent_close: bool,
        prevent_abort: bool,
        prevent_cancel: bool,
        signal: Option<Object>,
        ctx: &mut Cx,
    ) -> Ticket<Result<(), StreamError>> {
        let error = if self.is_locked() {
            Some("Cannot pipe a locked stream")
        } else if destination.is_locked() {
            Some("Cannot pipe to a locked stream")
        } else {
            None
        };
        if let Some(message) = error {
            let (ticket, fill) = Ticket::new();
            fill(Err(StreamError::type_error(message)));
            return ticket;
        }
        match crate::readable::pipe::readable_stream_pipe_to(
            &self.0,
            &destination.0,
            prevent_close,
            prevent_abort,
            prevent_cancel,
            signal,
            ctx,
        ) {
            Ok(promise) => ticket_for_promise(&promise, ctx),
            Err(e) => {
                let (ticket, fill) = Ticket::new();
                fill(Err(StreamError::from_js_error(e, ctx)));
                ticket
            }
        }
    }
}

impl From<ReadableStream> for Value {
    fn from(stream: ReadableStream) -> Value {
        stream.to_value()
    }
}
