//! `ReadableByteStreamController` and the byte stream controller abstract operations.
//!
//! <https://streams.spec.whatwg.org/#rbs-controller-class>
//!
//! Bytes move once: a chunk's buffer is transferred (detached, zero-copy) into the queue, and
//! filling a BYOB view copies each queued chunk's bytes with one slice copy, straight from the
//! queued buffer's data block into the destination's. The queue keeps its total in bytes
//! ([[queueTotalSize]]), so the fill loop never rescans the queue.

use std::{
    cell::{Cell, RefCell},
    collections::VecDeque,
    rc::Rc,
};

use crate::queue::{Chunk, NativeBytes};

use crate::engine::{Cx, JsArrayBuffer, JsError, JsResult, Object, Slot, TypedArrayKind, Value};

use super::{
    byob_reader::{
        readable_stream_fulfill_read_into_request, readable_stream_get_num_read_into_requests,
        readable_stream_has_byob_reader, ReadIntoRequest,
    },
    byob_request::{self, ReadableStreamBYOBRequest},
    default_controller::StartAlgorithm,
    default_reader::{self, ReadRequest},
    other_specs::NativeSource,
    stream::{
        initialize_readable_stream, readable_stream_add_read_request, readable_stream_close,
        readable_stream_error, readable_stream_fulfill_read_request,
        readable_stream_get_num_read_requests, readable_stream_has_default_reader, set_controller,
        ReadableStream, StreamSlots, StreamState, UnderlyingSource,
    },
    ControllerRef, ReaderRef,
};
use crate::engine::webidl::new_object;
use crate::engine::{upon_settlement, PromiseResult};
use crate::{
    engine::webidl,
    engine::{self, ViewKind, ViewRecord},
};

traced_without_drop! {
/// A byte stream controller's [[pullAlgorithm]].
#[derive(Debug, Clone)]
pub(crate) enum BytePullAlgorithm {
    /// An algorithm that returns a promise resolved with undefined.
    ResolvedUndefined,
    /// Invoke the underlying byte source's `pull` with the controller, `this` = the source.
    Js {
        /// The underlying source object.
        source: Value,
        /// Its `pull` method.
        pull: Object,
    },
    /// Another specification's pullAlgorithm
    /// (<https://streams.spec.whatwg.org/#readablestream-set-up-with-byte-reading-support>), or
    /// ReadableByteStreamTee's pull1Algorithm / pull2Algorithm.
    Native(NativeSource),
}
}

traced_without_drop! {
/// A byte stream controller's [[cancelAlgorithm]].
#[derive(Debug, Clone)]
pub(crate) enum ByteCancelAlgorithm {
    /// An algorithm that returns a promise resolved with undefined.
    ResolvedUndefined,
    /// Invoke the underlying byte source's `cancel` with the reason, `this` = the source.
    Js {
        /// The underlying source object.
        source: Value,
        /// Its `cancel` method.
        cancel: Object,
    },
    /// Another specification's cancelAlgorithm, or ReadableByteStreamTee's cancel1Algorithm /
    /// cancel2Algorithm.
    Native(NativeSource),
}
}

impl BytePullAlgorithm {
    /// Performs the algorithm for `controller`.
    pub(crate) fn perform(self, controller: Value, ctx: &mut Cx) -> JsResult<PromiseResult> {
        match self {
            BytePullAlgorithm::ResolvedUndefined => Ok(PromiseResult::undefined()),
            BytePullAlgorithm::Js { source, pull } => {
                let r = crate::engine::call_object(&pull, &source, &[controller], ctx);
                PromiseResult::from_callback(r, ctx)
            }
            BytePullAlgorithm::Native(source) => source.pull(controller, ctx),
        }
    }
}

impl ByteCancelAlgorithm {
    /// Performs the algorithm, passing `reason`.
    pub(crate) fn perform(self, reason: Value, ctx: &mut Cx) -> JsResult<PromiseResult> {
        match self {
            ByteCancelAlgorithm::ResolvedUndefined => Ok(PromiseResult::undefined()),
            ByteCancelAlgorithm::Js { source, cancel } => {
                let r = crate::engine::call_object(&cancel, &source, &[reason], ctx);
                PromiseResult::from_callback(r, ctx)
            }
            ByteCancelAlgorithm::Native(source) => source.cancel(reason, ctx),
        }
    }
}

/// A pull-into descriptor's reader type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ReaderType {
    /// "default"
    Default,
    /// "byob"
    Byob,
    /// "none" (the reader that made the request was released)
    None,
}

traced! {
    /// A pull-into descriptor's buffer: an `ArrayBuffer`, or (for a native read, see
    /// [`readable_byte_stream_controller_pull_into_native`]) bytes in Rust that stand for an
    /// `ArrayBuffer` no script can reach. Copies of a descriptor share the Rust bytes; the
    /// read's commit takes them (the transfer that detaches the buffer).
    #[derive(Debug, Clone)]
    pub(crate) enum DescriptorBuffer {
        /// An `ArrayBuffer`.
        Js(JsArrayBuffer),
        /// Rust bytes (`None` once detached).
        Native(#[unsafe_ignore_trace] Rc<RefCell<Option<NativeBytes>>>),
    }
}

impl DescriptorBuffer {
    /// ! IsDetachedBuffer(buffer).
    fn is_detached(&self) -> bool {
        match self {
            DescriptorBuffer::Js(buffer) => engine::is_detached_buffer(buffer),
            DescriptorBuffer::Native(bytes) => bytes.borrow().is_none(),
        }
    }

    /// ! CanTransferArrayBuffer(buffer).
    fn can_transfer(&self) -> bool {
        match self {
            DescriptorBuffer::Js(buffer) => engine::can_transfer_array_buffer(buffer),
            DescriptorBuffer::Native(bytes) => bytes.borrow().is_some(),
        }
    }

    /// ! TransferArrayBuffer(buffer), where the result stays the descriptor's buffer. Rust
    /// bytes have no view that the transfer must detach, so they stay as they are.
    fn transfer(&self, ctx: &mut Cx) -> JsResult<DescriptorBuffer> {
        match self {
            DescriptorBuffer::Js(buffer) => {
                engine::transfer_array_buffer(buffer, ctx).map(DescriptorBuffer::Js)
            }
            DescriptorBuffer::Native(_) => Ok(self.clone()),
        }
    }

    /// CloneArrayBuffer(buffer, byteOffset, byteLength, %ArrayBuffer%): an `ArrayBuffer`
    /// holding a copy of the range.
    fn clone_range(
        &self,
        byte_offset: u64,
        byte_length: u64,
        ctx: &mut Cx,
    ) -> JsResult<JsArrayBuffer> {
        match self {
            DescriptorBuffer::Js(buffer) => {
                engine::clone_array_buffer(buffer, byte_offset, byte_length, ctx)
            }
            DescriptorBuffer::Native(bytes) => {
                let bytes = bytes.borrow();
                let range = bytes
                    .as_ref()
                    .and_then(|bytes| byte_range(bytes.as_slice(), byte_offset, byte_length));
                match range {
                    Some(source) => engine::new_array_buffer_holding(source, ctx),
                    None => Err(engine::throw_type_error("Cannot clone a detached buffer")),
                }
            }
        }
    }

    /// Whether `self` and `other` are the same buffer.
    pub(crate) fn same(&self, other: &DescriptorBuffer) -> bool {
        match (self, other) {
            (DescriptorBuffer::Js(a), DescriptorBuffer::Js(b)) => engine::same_buffer(a, b),
            (DescriptorBuffer::Native(a), DescriptorBuffer::Native(b)) => Rc::ptr_eq(a, b),
            _ => false,
        }
    }

    /// Runs `f` on bytes `offset..offset + len` of the buffer (`None` if detached or out of
    /// range). `f` must not run script.
    pub(crate) fn with_bytes_mut<R>(
        &self,
        offset: u64,
        len: u64,
        f: impl FnOnce(&mut [u8]) -> R,
    ) -> Option<R> {
        match self {
            DescriptorBuffer::Js(buffer) => {
                engine::with_array_buffer_bytes_mut(buffer, offset, len, f)
            }
            DescriptorBuffer::Native(bytes) => {
                let mut bytes = bytes.borrow_mut();
                let start = usize::try_from(offset).ok()?;
                let end = start.checked_add(usize::try_from(len).ok()?)?;
                bytes.as_mut()?.as_mut_slice().get_mut(start..end).map(f)
            }
        }
    }

    /// The `ArrayBuffer` this buffer is in script's terms: Rust bytes become a new
    /// `ArrayBuffer` holding a copy (for the paths where script could see the buffer).
    fn to_js(&self, ctx: &mut Cx) -> JsResult<JsArrayBuffer> {
        match self {
            DescriptorBuffer::Js(buffer) => Ok(buffer.clone()),
            DescriptorBuffer::Native(bytes) => {
                let len = bytes.borrow().as_ref().map_or(0, |b| b.len() as u64);
                self.clone_range(0, len, ctx)
            }
        }
    }
}

/// A filled pull-into descriptor's chunk: the view
/// ReadableByteStreamControllerConvertPullIntoDescriptor makes, or, for a native read, the
/// Rust bytes it stands for.
#[derive(Debug)]
pub(crate) enum FilledChunk {
    /// A view on the transferred buffer.
    View(Object),
    /// The bytes filled (a native read's chunk).
    Bytes(NativeBytes),
}

traced! {
    /// <https://streams.spec.whatwg.org/#pull-into-descriptor>
    #[derive(Debug, Clone)]
    pub(crate) struct PullIntoDescriptor {
        /// <https://streams.spec.whatwg.org/#pull-into-descriptor-buffer>
        pub(crate) buffer: DescriptorBuffer,
        /// <https://streams.spec.whatwg.org/#pull-into-descriptor-buffer-byte-length>
        buffer_byte_length: u64,
        /// <https://streams.spec.whatwg.org/#pull-into-descriptor-byte-offset>
        byte_offset: u64,
        /// <https://streams.spec.whatwg.org/#pull-into-descriptor-byte-length>
        byte_length: u64,
        /// <https://streams.spec.whatwg.org/#pull-into-descriptor-bytes-filled>
        bytes_filled: u64,
        /// <https://streams.spec.whatwg.org/#pull-into-descriptor-minimum-fill>
        minimum_fill: u64,
        /// <https://streams.spec.whatwg.org/#pull-into-descriptor-element-size>
        element_size: u64,
        /// <https://streams.spec.whatwg.org/#pull-into-descriptor-view-constructor>
        #[unsafe_ignore_trace]
        view_constructor: ViewKind,
        /// <https://streams.spec.whatwg.org/#pull-into-descriptor-reader-type>
        #[unsafe_ignore_trace]
        reader_type: ReaderType,
    }
}

traced_without_drop! {
    /// A readable byte stream queue entry's buffer: an `ArrayBuffer`, or Rust bytes that stand
    /// for the transferred buffer of a chunk no script could reach
    /// ([`ByteChunk::Bytes`]). They become an `ArrayBuffer` only when a view on them is handed
    /// to script.
    #[derive(Debug)]
    enum EntryBuffer {
        /// An `ArrayBuffer`.
        Js(JsArrayBuffer),
        /// The bytes of an `ArrayBuffer` not made yet (the whole buffer: an entry's byte offset
        /// and length are within them).
        Native(#[unsafe_ignore_trace] NativeBytes),
    }
}

/// The chunk given to ReadableByteStreamControllerEnqueue.
#[derive(Debug)]
pub(crate) enum ByteChunk<'a> {
    /// An `ArrayBufferView`.
    View(&'a ViewRecord),
    /// AD-HOC: Rust bytes standing for a new `Uint8Array` over a new `ArrayBuffer` holding
    /// exactly them, made by a native source (a `Blob`'s stream, a body extracted from bytes, a
    /// fetched body, a request body from hyper, a Rust byte source) and enqueued at once, so no
    /// script ever holds the view or its buffer. (While queued they count toward a collection,
    /// see `engine::ExternalBytes`: an unread stream holds them until the engine collects it.)
    /// The enqueue transfers that buffer (step 7), so nothing can observe the original; the
    /// transferred one is made only when script is handed a view on it (the same bytes, byte
    /// length and offset as the spec's), and a Rust reader takes the bytes as they are, so the
    /// chunks make no JS object on their way from a native source to a native sink. The late
    /// buffer is made in the realm current at the read rather than at the enqueue; the native
    /// sources enqueue in their stream's relevant realm, so the two differ only for a read
    /// from another realm's script.
    Bytes(NativeBytes),
}

traced_without_drop! {
    /// <https://streams.spec.whatwg.org/#readable-byte-stream-queue-entry>
    #[derive(Debug)]
    struct QueueEntry {
        /// <https://streams.spec.whatwg.org/#readable-byte-stream-queue-entry-buffer>
        buffer: EntryBuffer,
        /// <https://streams.spec.whatwg.org/#readable-byte-stream-queue-entry-byte-offset>
        byte_offset: u64,
        /// <https://streams.spec.whatwg.org/#readable-byte-stream-queue-entry-byte-length>
        byte_length: u64,
    }
}

traced! {
    data;
    /// <https://streams.spec.whatwg.org/#readablebytestreamcontroller>
    #[derive(Debug)]
    pub(crate) struct ReadableByteStreamController {
        /// <https://streams.spec.whatwg.org/#readablebytestreamcontroller-autoallocatechunksize>
        auto_allocate_chunk_size: Cell<Option<u64>>,
        /// <https://streams.spec.whatwg.org/#readablebytestreamcontroller-byobrequest>
        byob_request: Slot<Option<Object<ReadableStreamBYOBRequest>>>,
        /// <https://streams.spec.whatwg.org/#readablebytestreamcontroller-cancelalgorithm>
        cancel_algorithm: Slot<Option<ByteCancelAlgorithm>>,
        /// <https://streams.spec.whatwg.org/#readablebytestreamcontroller-closerequested>
        close_requested: Cell<bool>,
        /// <https://streams.spec.whatwg.org/#readablebytestreamcontroller-pullagain>
        pull_again: Cell<bool>,
        /// <https://streams.spec.whatwg.org/#readablebytestreamcontroller-pullalgorithm>
        pull_algorithm: Slot<Option<BytePullAlgorithm>>,
        /// <https://streams.spec.whatwg.org/#readablebytestreamcontroller-pulling>
        pulling: Cell<bool>,
        /// <https://streams.spec.whatwg.org/#readablebytestreamcontroller-pendingpullintos>
        pending_pull_intos: Slot<VecDeque<PullIntoDescriptor>>,
        /// <https://streams.spec.whatwg.org/#readablebytestreamcontroller-queue>
        queue: Slot<VecDeque<QueueEntry>>,
        /// <https://streams.spec.whatwg.org/#readablebytestreamcontroller-queuetotalsize>
        queue_total_size: Cell<u64>,
        /// <https://streams.spec.whatwg.org/#readablebytestreamcontroller-started>
        started: Cell<bool>,
        /// <https://streams.spec.whatwg.org/#readablebytestreamcontroller-strategyhwm>
        strategy_hwm: Cell<f64>,
        /// <https://streams.spec.whatwg.org/#readablebytestreamcontroller-stream>
        stream: Object<ReadableStream>,
    }
}

pub(crate) type Controller = Object<ReadableByteStreamController>;

/// "A new ReadableByteStreamController" for `stream` (its [[stream]] is set here rather than in
/// SetUpReadableByteStreamController step 3: the slot is immutable afterwards).
pub(crate) fn new_controller(
    stream: &Object<ReadableStream>,
    ctx: &mut Cx,
) -> JsResult<Controller> {
    new_object(
        ReadableByteStreamController {
            auto_allocate_chunk_size: Cell::new(None),
            byob_request: Slot::new(None),
            cancel_algorithm: Slot::new(None),
            close_requested: Cell::new(false),
            pull_again: Cell::new(false),
            pull_algorithm: Slot::new(None),
            pulling: Cell::new(false),
            pending_pull_intos: Slot::new(VecDeque::new()),
            queue: Slot::new(VecDeque::new()),
            queue_total_size: Cell::new(0),
            started: Cell::new(false),
            strategy_hwm: Cell::new(0.0),
            stream: stream.clone(),
        },
        ctx,
    )
}

fn stream_of(controller: &Controller) -> Object<ReadableStream> {
    controller.borrow().data().stream.clone()
}

fn queue_total_size(controller: &Controller) -> u64 {
    controller.borrow().data().queue_total_size.get()
}

fn close_requested(controller: &Controller) -> bool {
    controller.borrow().data().close_requested.get()
}

/// Whether [[pendingPullIntos]] is not empty.
pub(crate) fn has_pending_pull_intos(controller: &Controller) -> bool {
    !controller
        .borrow()
        .data()
        .pending_pull_intos
        .borrow()
        .is_empty()
}

/// A copy of [[pendingPullIntos]][0] (buffers are shared object handles).
fn first_pending_pull_into(controller: &Controller) -> Option<PullIntoDescriptor> {
    controller
        .borrow()
        .data()
        .pending_pull_intos
        .borrow()
        .front()
        .cloned()
}

/// The unfilled region of [[pendingPullIntos]][0] (its buffer, the byte offset of its first
/// unfilled byte, and how many bytes are left), for a Rust byte source to fill in place.
pub(crate) fn first_pull_into_region(
    controller: &Controller,
) -> Option<(DescriptorBuffer, u64, u64)> {
    let data = controller.borrow();
    let pending = data.data().pending_pull_intos.borrow();
    pending.front().map(|first| {
        (
            first.buffer.clone(),
            first.byte_offset + first.bytes_filled,
            first.byte_length.saturating_sub(first.bytes_filled),
        )
    })
}

/// The buffer size of a native read from this controller's source
/// ([`readable_byte_stream_controller_pull_into_native`]): its [[autoAllocateChunkSize]], when
/// its pull algorithm is a source that fills buffers from Rust only; `None` otherwise.
pub(crate) fn native_read_size(controller: &Controller) -> Option<u64> {
    let data = controller.borrow();
    let c = data.data();
    let fills_in_rust = matches!(
        &*c.pull_algorithm.borrow(),
        Some(BytePullAlgorithm::Native(source)) if source.fills_in_rust()
    );
    if fills_in_rust {
        c.auto_allocate_chunk_size.get()
    } else {
        None
    }
}

/// controller.[[stream]].
pub(crate) fn controller_stream(controller: &Controller) -> Option<Object<ReadableStream>> {
    Some(stream_of(controller))
}

/// controller.[[closeRequested]].
pub(crate) fn close_requested_of(controller: &Controller) -> bool {
    close_requested(controller)
}

/// Runs `f` on [[pendingPullIntos]][0], if any. `f` must not run script.
fn with_first_pending_pull_into<R>(
    controller: &Controller,
    f: impl FnOnce(&mut PullIntoDescriptor) -> R,
) -> Option<R> {
    let data = controller.borrow();
    let mut pending = data.data().pending_pull_intos.borrow_mut();
    pending.front_mut().map(f)
}

/// Sets the byte stream's [[byobRequest]] slot (used by [`byob_request`] only through the
/// abstract operations).
fn set_byob_request(controller: &Controller, request: Option<Object<ReadableStreamBYOBRequest>>) {
    *controller.borrow().data().byob_request.borrow_mut() = request;
}

impl webidl::ClassInterface for ReadableByteStreamController {
    const LENGTH: usize = 0;
    fn members(b: &mut webidl::InterfaceBuilder<'_, '_>) {
        b.attribute("byobRequest", get_byob_request, None);
        b.attribute("desiredSize", desired_size, None);
        b.operation("close", 0, close);
        b.operation("enqueue", 1, enqueue);
        b.operation("error", 0, error);
    }

    fn construct(_: &Value, _: &[Value], _: &mut Cx) -> JsResult<Self> {
        Err(webidl::illegal_constructor(
            <Self as webidl::Interface>::NAME,
        ))
    }
}

webidl::interface!(ReadableByteStreamController, "ReadableByteStreamController");

/// <https://streams.spec.whatwg.org/#rbs-controller-byob-request>
fn get_byob_request(this: &Value, _: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let controller = webidl::this::<ReadableByteStreamController>(this)?;
    // 1. Return ! ReadableByteStreamControllerGetBYOBRequest(this).
    Ok(
        match readable_byte_stream_controller_get_byob_request(&controller, ctx)? {
            Some(request) => request.upcast().into(),
            None => Value::null(),
        },
    )
}

/// <https://streams.spec.whatwg.org/#rbs-controller-desired-size>
fn desired_size(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    let controller = webidl::this::<ReadableByteStreamController>(this)?;
    // 1. Return ! ReadableByteStreamControllerGetDesiredSize(this).
    Ok(
        match readable_byte_stream_controller_get_desired_size(&controller) {
            Some(size) => Value::from(size),
            None => Value::null(),
        },
    )
}

/// <https://streams.spec.whatwg.org/#rbs-controller-close>
fn close(this: &Value, _: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let controller = webidl::this::<ReadableByteStreamController>(this)?;
    // 1. If this.[[closeRequested]] is true, throw a TypeError exception.
    if close_requested(&controller) {
        return Err(engine::throw_type_error("The stream is already closing"));
    }
    // 2. If this.[[stream]].[[state]] is not "readable", throw a TypeError exception.
    if stream_of(&controller).state() != StreamState::Readable {
        return Err(engine::throw_type_error("The stream is not readable"));
    }
    // 3. Perform ? ReadableByteStreamControllerClose(this).
    readable_byte_stream_controller_close(&controller, ctx)?;
    Ok(Value::undefined())
}

/// <https://streams.spec.whatwg.org/#rbs-controller-enqueue>
fn enqueue(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let controller = webidl::this::<ReadableByteStreamController>(this)?;
    let chunk =
        engine::array_buffer_view(&args.first().cloned().unwrap_or_default(), "The chunk", ctx)?;
    // 1. If chunk.[[ByteLength]] is 0, throw a TypeError exception.
    if chunk.byte_length == 0 {
        return Err(engine::throw_type_error("The chunk must not be empty"));
    }
    // 2. If chunk.[[ViewedArrayBuffer]].[[ByteLength]] is 0, throw a TypeError exception.
    if engine::array_buffer_byte_length(&chunk.buffer) == 0 {
        return Err(engine::throw_type_error(
            "The chunk's buffer must not be empty or detached",
        ));
    }
    // 3. If this.[[closeRequested]] is true, throw a TypeError exception.
    if close_requested(&controller) {
        return Err(engine::throw_type_error("The stream is closing"));
    }
    // 4. If this.[[stream]].[[state]] is not "readable", throw a TypeError exception.
    if stream_of(&controller).state() != StreamState::Readable {
        return Err(engine::throw_type_error("The stream is not readable"));
    }
    // (The chunk's bytes count toward the host's collection: see `engine::note_chunk_bytes`.)
    engine::note_consumed_bytes(usize::try_from(chunk.byte_length).unwrap_or(usize::MAX));
    // 5. Return ? ReadableByteStreamControllerEnqueue(this, chunk).
    readable_byte_stream_controller_enqueue(&controller, ByteChunk::View(&chunk), ctx)?;
    Ok(Value::undefined())
}

/// <https://streams.spec.whatwg.org/#rbs-controller-error>
fn error(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let controller = webidl::this::<ReadableByteStreamController>(this)?;
    let e = args.first().cloned().unwrap_or_default();
    // 1. Perform ! ReadableByteStreamControllerError(this, e).
    readable_byte_stream_controller_error(&controller, e, ctx)?;
    Ok(Value::undefined())
}

/// <https://streams.spec.whatwg.org/#rbs-controller-private-cancel>
pub(crate) fn readable_byte_stream_controller_cancel_steps(
    controller: &Controller,
    reason: Value,
    ctx: &mut Cx,
) -> JsResult<PromiseResult> {
    // 1. Perform ! ReadableByteStreamControllerClearPendingPullIntos(this).
    readable_byte_stream_controller_clear_pending_pull_intos(controller);
    // 2. Perform ! ResetQueue(this).
    reset_queue(controller);
    // 3. Let result be the result of performing this.[[cancelAlgorithm]], passing in reason.
    let algorithm = controller.borrow().data().cancel_algorithm.borrow().clone();
    let result = match algorithm {
        Some(algorithm) => algorithm.perform(reason, ctx)?,
        None => PromiseResult::undefined(),
    };
    // 4. Perform ! ReadableByteStreamControllerClearAlgorithms(this).
    readable_byte_stream_controller_clear_algorithms(controller);
    // 5. Return result.
    Ok(result)
}

/// ResetQueue for a byte stream controller: [[queue]] empty, [[queueTotalSize]] 0.
fn reset_queue(controller: &Controller) {
    let data = controller.borrow();
    let c = data.data();
    *c.queue.borrow_mut() = VecDeque::new();
    c.queue_total_size.set(0);
}

/// <https://streams.spec.whatwg.org/#rbs-controller-private-pull>
pub(crate) fn readable_byte_stream_controller_pull_steps(
    controller: &Controller,
    read_request: ReadRequest,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Let stream be this.[[stream]].
    let stream = stream_of(controller);
    // 2. Assert: ! ReadableStreamHasDefaultReader(stream) is true.
    // 3. If this.[[queueTotalSize]] > 0,
    if queue_total_size(controller) > 0 {
        // 3.1. Assert: ! ReadableStreamGetNumReadRequests(stream) is 0.
        // 3.2. Perform ! ReadableByteStreamControllerFillReadRequestFromQueue(this, readRequest).
        // 3.3. Return.
        return readable_byte_stream_controller_fill_read_request_from_queue(
            controller,
            read_request,
            ctx,
        );
    }
    // 4. Let autoAllocateChunkSize be this.[[autoAllocateChunkSize]].
    // 5. If autoAllocateChunkSize is not undefined,
    if let Some(size) = controller.borrow().data().auto_allocate_chunk_size.get() {
        // 5.1. Let buffer be Construct(%ArrayBuffer%, « autoAllocateChunkSize »).
        let buffer = match engine::new_array_buffer(size, ctx) {
            Ok(buffer) => buffer,
            // 5.2. If buffer is an abrupt completion,
            Err(error) => {
                // 5.2.1. Perform readRequest's error steps, given buffer.[[Value]].
                // 5.2.2. Return.
                let e = engine::thrown_value(error, ctx)?;
                return read_request.error_steps(e, ctx);
            }
        };
        // 5.3. Let pullIntoDescriptor be a new pull-into descriptor with buffer
        //      buffer.[[Value]], buffer byte length autoAllocateChunkSize, byte offset 0, byte
        //      length autoAllocateChunkSize, bytes filled 0, minimum fill 1, element size 1,
        //      view constructor %Uint8Array%, and reader type "default".
        let descriptor = PullIntoDescriptor {
            buffer: DescriptorBuffer::Js(buffer),
            buffer_byte_length: size,
            byte_offset: 0,
            byte_length: size,
            bytes_filled: 0,
            minimum_fill: 1,
            element_size: 1,
            view_constructor: ViewKind::Typed(TypedArrayKind::Uint8),
            reader_type: ReaderType::Default,
        };
        // 5.4. Append pullIntoDescriptor to this.[[pendingPullIntos]].
        controller
            .borrow()
            .data()
            .pending_pull_intos
            .borrow_mut()
            .push_back(descriptor);
    }
    // 6. Perform ! ReadableStreamAddReadRequest(stream, readRequest).
    readable_stream_add_read_request(&stream, read_request);
    // 7. Perform ! ReadableByteStreamControllerCallPullIfNeeded(this).
    readable_byte_stream_controller_call_pull_if_needed(controller, ctx)
}

/// <https://streams.spec.whatwg.org/#abstract-opdef-readablebytestreamcontroller-releasesteps>
pub(crate) fn readable_byte_stream_controller_release_steps(controller: &Controller) {
    let data = controller.borrow();
    let mut pending = data.data().pending_pull_intos.borrow_mut();
    // 1. If this.[[pendingPullIntos]] is not empty,
    if let Some(first) = pending.front_mut() {
        // 1.1. Let firstPendingPullInto be this.[[pendingPullIntos]][0].
        // 1.2. Set firstPendingPullInto's reader type to "none".
        first.reader_type = ReaderType::None;
        // 1.3. Set this.[[pendingPullIntos]] to the list « firstPendingPullInto ».
        pending.truncate(1);
    }
}

/// <https://streams.spec.whatwg.org/#readable-byte-stream-controller-call-pull-if-needed>
pub(crate) fn readable_byte_stream_controller_call_pull_if_needed(
    controller: &Controller,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Let shouldPull be ! ReadableByteStreamControllerShouldCallPull(controller).
    // 2. If shouldPull is false, return.
    if !readable_byte_stream_controller_should_call_pull(controller) {
        return Ok(());
    }
    {
        let data = controller.borrow();
        let c = data.data();
        // 3. If controller.[[pulling]] is true,
        if c.pulling.get() {
            // 3.1. Set controller.[[pullAgain]] to true.
            c.pull_again.set(true);
            // 3.2. Return.
            return Ok(());
        }
        // 4. Assert: controller.[[pullAgain]] is false.
        debug_assert!(!c.pull_again.get());
        // 5. Set controller.[[pulling]] to true.
        c.pulling.set(true);
    }
    // 6. Let pullPromise be the result of performing controller.[[pullAlgorithm]].
    let algorithm = controller.borrow().data().pull_algorithm.borrow().clone();
    let pull_promise = match algorithm {
        Some(algorithm) => algorithm.perform(controller.clone().upcast().into(), ctx)?,
        None => PromiseResult::undefined(),
    };
    upon_settlement(
        pull_promise,
        controller.clone(),
        // 7. Upon fulfillment of pullPromise,
        |controller, _, ctx| {
            let pull_again = {
                let data = controller.borrow();
                let c = data.data();
                // 7.1. Set controller.[[pulling]] to false.
                c.pulling.set(false);
                // 7.2. If controller.[[pullAgain]] is true,
                // 7.2.1. Set controller.[[pullAgain]] to false.
                c.pull_again.replace(false)
            };
            if pull_again {
                // 7.2.2. Perform ! ReadableByteStreamControllerCallPullIfNeeded(controller).
                readable_byte_stream_controller_call_pull_if_needed(controller, ctx)?;
            }
            Ok(())
        },
        // 8. Upon rejection of pullPromise with reason e,
        |controller, e, ctx| {
            // 8.1. Perform ! ReadableByteStreamControllerError(controller, e).
            readable_byte_stream_controller_error(controller, e, ctx)
        },
        ctx,
    )
}

/// <https://streams.spec.whatwg.org/#readable-byte-stream-controller-clear-algorithms>
pub(crate) fn readable_byte_stream_controller_clear_algorithms(controller: &Controller) {
    let data = controller.borrow();
    let c = data.data();
    // 1. Set controller.[[pullAlgorithm]] to undefined.
    *c.pull_algorithm.borrow_mut() = None;
    // 2. Set controller.[[cancelAlgorithm]] to undefined.
    *c.cancel_algorithm.borrow_mut() = None;
}

/// <https://streams.spec.whatwg.org/#readable-byte-stream-controller-clear-pending-pull-intos>
pub(crate) fn readable_byte_stream_controller_clear_pending_pull_intos(controller: &Controller) {
    // 1. Perform ! ReadableByteStreamControllerInvalidateBYOBRequest(controller).
    readable_byte_stream_controller_invalidate_byob_request(controller);
    // 2. Set controller.[[pendingPullIntos]] to a new empty list.
    *controller.borrow().data().pending_pull_intos.borrow_mut() = VecDeque::new();
}

/// <https://streams.spec.whatwg.org/#readable-byte-stream-controller-close>
pub(crate) fn readable_byte_stream_controller_close(
    controller: &Controller,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Let stream be controller.[[stream]].
    let stream = stream_of(controller);
    // 2. If controller.[[closeRequested]] is true or stream.[[state]] is not "readable", return.
    if close_requested(controller) || stream.state() != StreamState::Readable {
        return Ok(());
    }
    // 3. If controller.[[queueTotalSize]] > 0,
    if queue_total_size(controller) > 0 {
        // 3.1. Set controller.[[closeRequested]] to true.
        controller.borrow().data().close_requested.set(true);
        // 3.2. Return.
        return Ok(());
    }
    // 4. If controller.[[pendingPullIntos]] is not empty,
    // 4.1. Let firstPendingPullInto be controller.[[pendingPullIntos]][0].
    if let Some(first) = first_pending_pull_into(controller) {
        // 4.2. If the remainder after dividing firstPendingPullInto's bytes filled by
        //      firstPendingPullInto's element size is not 0,
        if first.bytes_filled % first.element_size != 0 {
            // 4.2.1. Let e be a new TypeError exception.
            let e = engine::type_error(
                "The stream cannot close with a partially filled element pending",
                ctx,
            );
            // 4.2.2. Perform ! ReadableByteStreamControllerError(controller, e).
            readable_byte_stream_controller_error(controller, e.clone(), ctx)?;
            // 4.2.3. Throw e.
            return Err(crate::engine::throw_value(e));
        }
    }
    // 5. Perform ! ReadableByteStreamControllerClearAlgorithms(controller).
    readable_byte_stream_controller_clear_algorithms(controller);
    // 6. Perform ! ReadableStreamClose(stream).
    readable_stream_close(&stream, ctx)
}

/// <https://streams.spec.whatwg.org/#readable-byte-stream-controller-commit-pull-into-descriptor>
pub(crate) fn readable_byte_stream_controller_commit_pull_into_descriptor(
    stream: &Object<ReadableStream>,
    pull_into_descriptor: &PullIntoDescriptor,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Assert: stream.[[state]] is not "errored".
    // 2. Assert: pullIntoDescriptor.reader type is not "none".
    // 3. Let done be false.
    // 4. If stream.[[state]] is "closed",
    //    4.1. Assert: bytes filled is a multiple of element size.
    //    4.2. Set done to true.
    let done = stream.state() == StreamState::Closed;
    // 6. If pullIntoDescriptor's reader type is "default",
    if pull_into_descriptor.reader_type == ReaderType::Default {
        if let Some(bytes) = filled_bytes_for_a_bytes_request(stream, pull_into_descriptor)? {
            // AD-HOC: the read request it fulfills takes Rust bytes, so no script can reach
            // filledView or its buffer: the descriptor's buffer is detached, as step 5's
            // TransferArrayBuffer detaches it, and the bytes filled go on as Rust bytes,
            // without the two objects (a small buffer only, as in the enqueue).
            return readable_stream_fulfill_read_request(stream, Chunk::Bytes(bytes), done, ctx);
        }
        // 5. Let filledView be ! ReadableByteStreamControllerConvertPullIntoDescriptor(
        //    pullIntoDescriptor).
        let filled_view = readable_byte_stream_controller_convert_pull_into_descriptor(
            pull_into_descriptor,
            ctx,
        )?;
        // 6.1. Perform ! ReadableStreamFulfillReadRequest(stream, filledView, done).
        readable_stream_fulfill_read_request(stream, Chunk::Value(filled_view.into()), done, ctx)
    } else {
        // 5. (A native read's chunk is its Rust bytes: see `convert_filled`.)
        let filled = convert_filled(pull_into_descriptor, ctx)?;
        // 7. Otherwise,
        // 7.1. Assert: pullIntoDescriptor's reader type is "byob".
        // 7.2. Perform ! ReadableStreamFulfillReadIntoRequest(stream, filledView, done).
        readable_stream_fulfill_read_into_request(stream, filled, done, ctx)
    }
}

/// For a default reader's pull-into descriptor whose buffer is small ([`SMALL_CHUNK_BUFFER`])
/// and whose read request takes Rust bytes: its buffer detached (`? TransferArrayBuffer`'s
/// detaching, and its errors) and the bytes filled, copied. `None` (nothing done) otherwise.
fn filled_bytes_for_a_bytes_request(
    stream: &Object<ReadableStream>,
    pull_into_descriptor: &PullIntoDescriptor,
) -> JsResult<Option<NativeBytes>> {
    let DescriptorBuffer::Js(buffer) = &pull_into_descriptor.buffer else {
        return Ok(None);
    };
    if !first_read_request_takes_bytes(stream)
        || pull_into_descriptor.element_size != 1
        || engine::array_buffer_byte_length(buffer) > SMALL_CHUNK_BUFFER
    {
        return Ok(None);
    }
    detach_keeping(
        buffer,
        pull_into_descriptor.byte_offset,
        pull_into_descriptor.bytes_filled,
    )
    .map(Some)
}

/// `buffer` detached (`? DetachArrayBuffer`, with its TypeErrors), and its bytes from
/// `offset`, `length` of them, as Rust bytes (none where the range is outside them): the
/// detached block itself when the range is all of it (no copy on QuickJS, whose detach already
/// copied), a copy of the range otherwise.
fn detach_keeping(buffer: &JsArrayBuffer, offset: u64, length: u64) -> JsResult<NativeBytes> {
    let block = engine::clone::detach_array_buffer(buffer)?;
    let start = usize::try_from(offset).unwrap_or(usize::MAX);
    let length = usize::try_from(length).unwrap_or(usize::MAX);
    if start == 0 && length == block.len() {
        return Ok(NativeBytes::from_vec(block.into_vec()));
    }
    let bytes = block
        .as_slice()
        .get(start..start.saturating_add(length))
        .unwrap_or_default();
    Ok(NativeBytes::from_vec(bytes.to_vec()))
}

/// ReadableByteStreamControllerConvertPullIntoDescriptor for a read-into request: a native
/// read's Rust bytes, shortened to the bytes filled (the transfer detaches the descriptor's
/// buffer: its copies see it taken), or the view.
fn convert_filled(
    pull_into_descriptor: &PullIntoDescriptor,
    ctx: &mut Cx,
) -> JsResult<FilledChunk> {
    if let DescriptorBuffer::Native(bytes) = &pull_into_descriptor.buffer {
        if pull_into_descriptor.byte_offset == 0 {
            if let Some(mut bytes) = bytes.borrow_mut().take() {
                // Assert: bytes filled ≤ byte length, and element size is 1 (a Uint8Array).
                bytes.truncate(usize::try_from(pull_into_descriptor.bytes_filled).unwrap_or(0));
                return Ok(FilledChunk::Bytes(bytes));
            }
        }
    }
    readable_byte_stream_controller_convert_pull_into_descriptor(pull_into_descriptor, ctx)
        .map(FilledChunk::View)
}

/// <https://streams.spec.whatwg.org/#readable-byte-stream-controller-convert-pull-into-descriptor>
pub(crate) fn readable_byte_stream_controller_convert_pull_into_descriptor(
    pull_into_descriptor: &PullIntoDescriptor,
    ctx: &mut Cx,
) -> JsResult<Object> {
    // 1. Let bytesFilled be pullIntoDescriptor's bytes filled.
    let bytes_filled = pull_into_descriptor.bytes_filled;
    // 2. Let elementSize be pullIntoDescriptor's element size.
    let element_size = pull_into_descriptor.element_size;
    // 3. Assert: bytesFilled ≤ pullIntoDescriptor's byte length.
    // 4. Assert: the remainder after dividing bytesFilled by elementSize is 0.
    debug_assert!(bytes_filled <= pull_into_descriptor.byte_length);
    debug_assert_eq!(bytes_filled % element_size, 0);
    // 5. Let buffer be ! TransferArrayBuffer(pullIntoDescriptor's buffer). (Rust bytes that
    //    reach here, which only a reader other than the native one can make happen, become an
    //    `ArrayBuffer` holding them.)
    let buffer = match &pull_into_descriptor.buffer {
        DescriptorBuffer::Js(buffer) => engine::transfer_array_buffer(buffer, ctx)?,
        native => {
            let buffer = native.to_js(ctx)?;
            if let DescriptorBuffer::Native(bytes) = native {
                bytes.borrow_mut().take();
            }
            buffer
        }
    };
    // 6. Return ! Construct(pullIntoDescriptor's view constructor, « buffer, pullIntoDescriptor's
    //    byte offset, bytesFilled ÷ elementSize »).
    engine::construct_view(
        pull_into_descriptor.view_constructor,
        &buffer,
        pull_into_descriptor.byte_offset,
        bytes_filled / element_size,
        ctx,
    )
}

/// The largest buffer whose chunk [`readable_byte_stream_controller_enqueue`] may hand to a
/// read request as Rust bytes (a copy) instead of a transferred buffer and a view (two
/// objects).
const SMALL_CHUNK_BUFFER: u64 = 4096;

/// Whether `chunk`, enqueued now, goes straight to a read request that takes Rust bytes (steps
/// 8 and 9 of [`readable_byte_stream_controller_enqueue`] reach 9.3 with that request first),
/// and its buffer is small ([`SMALL_CHUNK_BUFFER`]).
fn goes_to_a_bytes_request(
    controller: &Controller,
    stream: &Object<ReadableStream>,
    chunk: &ViewRecord,
) -> bool {
    engine::array_buffer_byte_length(&chunk.buffer) <= SMALL_CHUNK_BUFFER
        && !has_pending_pull_intos(controller)
        && controller.borrow().data().queue.borrow().is_empty()
        && first_read_request_takes_bytes(stream)
}

/// Whether `stream` has a default reader whose first read request takes Rust bytes
/// ([`default_reader::first_read_request_takes_bytes`]).
fn first_read_request_takes_bytes(stream: &Object<ReadableStream>) -> bool {
    match stream.reader() {
        Some(ReaderRef::Default(reader)) => default_reader::first_read_request_takes_bytes(&reader),
        _ => false,
    }
}

/// <https://streams.spec.whatwg.org/#readable-byte-stream-controller-enqueue>
pub(crate) fn readable_byte_stream_controller_enqueue(
    controller: &Controller,
    chunk: ByteChunk<'_>,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Let stream be controller.[[stream]].
    let stream = stream_of(controller);
    // 2. If controller.[[closeRequested]] is true or stream.[[state]] is not "readable", return.
    if close_requested(controller) || stream.state() != StreamState::Readable {
        return Ok(());
    }
    // 3. Let buffer be chunk.[[ViewedArrayBuffer]].
    // 4. Let byteOffset be chunk.[[ByteOffset]].
    // 5. Let byteLength be chunk.[[ByteLength]].
    // 6. If ! IsDetachedBuffer(buffer) is true, throw a TypeError exception.
    // 7. Let transferredBuffer be ? TransferArrayBuffer(buffer).
    //    (Rust bytes: a buffer no script holds, never detached, whose transfer is the bytes
    //    themselves.)
    let (transferred_buffer, byte_offset, byte_length) = match chunk {
        ByteChunk::View(chunk) => {
            if engine::is_detached_buffer(&chunk.buffer) {
                return Err(engine::throw_type_error("The chunk's buffer is detached"));
            }
            if goes_to_a_bytes_request(controller, &stream, chunk) {
                // AD-HOC: the chunk goes straight to a read request that takes Rust bytes
                // (step 9.3: no pull-into is pending, the queue is empty and a read request
                // waits), so no script can reach transferredBuffer or the view step 9.3.3
                // makes: the buffer is detached, as TransferArrayBuffer detaches it (with the
                // same TypeError for a buffer that cannot be), and its bytes go on as Rust
                // bytes, without the two objects. Only for a small buffer, whose copy costs
                // less than those objects.
                let bytes = detach_keeping(&chunk.buffer, chunk.byte_offset, chunk.byte_length)?;
                let length = bytes.len() as u64;
                (EntryBuffer::Native(bytes), 0, length)
            } else {
                let transferred = engine::transfer_array_buffer(&chunk.buffer, ctx)?;
                (
                    EntryBuffer::Js(transferred),
                    chunk.byte_offset,
                    chunk.byte_length,
                )
            }
        }
        ByteChunk::Bytes(bytes) => {
            let length = bytes.len() as u64;
            (EntryBuffer::Native(bytes), 0, length)
        }
    };
    // 8. If controller.[[pendingPullIntos]] is not empty,
    // 8.1. Let firstPendingPullInto be controller.[[pendingPullIntos]][0].
    if let Some(first) = first_pending_pull_into(controller) {
        // 8.2. If ! IsDetachedBuffer(firstPendingPullInto's buffer) is true, throw a TypeError.
        if first.buffer.is_detached() {
            return Err(engine::throw_type_error(
                "The pending BYOB request's buffer has been detached",
            ));
        }
        // 8.3. Perform ! ReadableByteStreamControllerInvalidateBYOBRequest(controller).
        readable_byte_stream_controller_invalidate_byob_request(controller);
        // 8.4. Set firstPendingPullInto's buffer to ! TransferArrayBuffer(firstPendingPullInto's
        //      buffer).
        let transferred = first.buffer.transfer(ctx)?;
        let first = with_first_pending_pull_into(controller, |first| {
            first.buffer = transferred;
            first.clone()
        });
        // 8.5. If firstPendingPullInto's reader type is "none", perform ?
        //      ReadableByteStreamControllerEnqueueDetachedPullIntoToQueue(controller,
        //      firstPendingPullInto).
        if let Some(first) = first.filter(|f| f.reader_type == ReaderType::None) {
            readable_byte_stream_controller_enqueue_detached_pull_into_to_queue(
                controller, &first, ctx,
            )?;
        }
    }
    // 9. If ! ReadableStreamHasDefaultReader(stream) is true,
    if readable_stream_has_default_reader(&stream) {
        // 9.1. Perform ! ReadableByteStreamControllerProcessReadRequestsUsingQueue(controller).
        readable_byte_stream_controller_process_read_requests_using_queue(controller, ctx)?;
        // 9.2. If ! ReadableStreamGetNumReadRequests(stream) is 0,
        if readable_stream_get_num_read_requests(&stream) == 0 {
            // 9.2.1. Assert: controller.[[pendingPullIntos]] is empty.
            // 9.2.2. Perform ! ReadableByteStreamControllerEnqueueChunkToQueue(controller,
            //        transferredBuffer, byteOffset, byteLength).
            readable_byte_stream_controller_enqueue_chunk_to_queue(
                controller,
                transferred_buffer,
                byte_offset,
                byte_length,
            );
        } else {
            // 9.3. Otherwise,
            // 9.3.1. Assert: controller.[[queue]] is empty.
            // 9.3.2. If controller.[[pendingPullIntos]] is not empty,
            if has_pending_pull_intos(controller) {
                // 9.3.2.1. Assert: controller.[[pendingPullIntos]][0]'s reader type is "default".
                // 9.3.2.2. Perform ! ReadableByteStreamControllerShiftPendingPullInto(controller).
                readable_byte_stream_controller_shift_pending_pull_into(controller);
            }
            // 9.3.3. Let transferredView be ! Construct(%Uint8Array%, « transferredBuffer,
            //        byteOffset, byteLength »).
            //        (Rust bytes go to the read request as they are: a read by script makes
            //        the view over a new buffer of exactly them, in the current realm, which is
            //        this view.)
            let transferred_view = match transferred_buffer {
                EntryBuffer::Js(buffer) => Chunk::Value(
                    engine::construct_view(
                        ViewKind::Typed(TypedArrayKind::Uint8),
                        &buffer,
                        byte_offset,
                        byte_length,
                        ctx,
                    )?
                    .into(),
                ),
                EntryBuffer::Native(bytes) => Chunk::Bytes(bytes),
            };
            // 9.3.4. Perform ! ReadableStreamFulfillReadRequest(stream, transferredView, false).
            readable_stream_fulfill_read_request(&stream, transferred_view, false, ctx)?;
        }
    } else if readable_stream_has_byob_reader(&stream) {
        // 10. Otherwise, if ! ReadableStreamHasBYOBReader(stream) is true,
        // 10.1. Perform ! ReadableByteStreamControllerEnqueueChunkToQueue(controller,
        //       transferredBuffer, byteOffset, byteLength).
        readable_byte_stream_controller_enqueue_chunk_to_queue(
            controller,
            transferred_buffer,
            byte_offset,
            byte_length,
        );
        // 10.2. Let filledPullIntos be the result of performing !
        //       ReadableByteStreamControllerProcessPullIntoDescriptorsUsingQueue(controller).
        let filled_pull_intos =
            readable_byte_stream_controller_process_pull_into_descriptors_using_queue(controller)?;
        // 10.3. For each filledPullInto of filledPullIntos,
        for filled_pull_into in &filled_pull_intos {
            // 10.3.1. Perform ! ReadableByteStreamControllerCommitPullIntoDescriptor(stream,
            //         filledPullInto).
            readable_byte_stream_controller_commit_pull_into_descriptor(
                &stream,
                filled_pull_into,
                ctx,
            )?;
        }
    } else {
        // 11. Otherwise,
        // 11.1. Assert: ! IsReadableStreamLocked(stream) is false.
        // 11.2. Perform ! ReadableByteStreamControllerEnqueueChunkToQueue(controller,
        //       transferredBuffer, byteOffset, byteLength).
        readable_byte_stream_controller_enqueue_chunk_to_queue(
            controller,
            transferred_buffer,
            byte_offset,
            byte_length,
        );
    }
    // 12. Perform ! ReadableByteStreamControllerCallPullIfNeeded(controller).
    readable_byte_stream_controller_call_pull_if_needed(controller, ctx)
}

/// <https://streams.spec.whatwg.org/#readable-byte-stream-controller-enqueue-chunk-to-queue>
fn readable_byte_stream_controller_enqueue_chunk_to_queue(
    controller: &Controller,
    buffer: EntryBuffer,
    byte_offset: u64,
    byte_length: u64,
) {
    let data = controller.borrow();
    let c = data.data();
    // 1. Append a new readable byte stream queue entry with buffer buffer, byte offset
    //    byteOffset, and byte length byteLength to controller.[[queue]].
    c.queue.borrow_mut().push_back(QueueEntry {
        buffer,
        byte_offset,
        byte_length,
    });
    // 2. Set controller.[[queueTotalSize]] to controller.[[queueTotalSize]] + byteLength.
    c.queue_total_size
        .set(c.queue_total_size.get().saturating_add(byte_length));
}

/// <https://streams.spec.whatwg.org/#abstract-opdef-readablebytestreamcontrollerenqueueclonedchunktoqueue>
pub(crate) fn readable_byte_stream_controller_enqueue_cloned_chunk_to_queue(
    controller: &Controller,
    buffer: &DescriptorBuffer,
    byte_offset: u64,
    byte_length: u64,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Let cloneResult be CloneArrayBuffer(buffer, byteOffset, byteLength, %ArrayBuffer%).
    match buffer.clone_range(byte_offset, byte_length, ctx) {
        // 2. If cloneResult is an abrupt completion,
        Err(error) => {
            let e = engine::thrown_value(error, ctx)?;
            // 2.1. Perform ! ReadableByteStreamControllerError(controller, cloneResult.[[Value]]).
            readable_byte_stream_controller_error(controller, e.clone(), ctx)?;
            // 2.2. Return cloneResult.
            Err(crate::engine::throw_value(e))
        }
        // 3. Perform ! ReadableByteStreamControllerEnqueueChunkToQueue(controller,
        //    cloneResult.[[Value]], 0, byteLength).
        Ok(clone) => {
            readable_byte_stream_controller_enqueue_chunk_to_queue(
                controller,
                EntryBuffer::Js(clone),
                0,
                byte_length,
            );
            Ok(())
        }
    }
}

/// <https://streams.spec.whatwg.org/#abstract-opdef-readablebytestreamcontrollerenqueuedetachedpullintotoqueue>
pub(crate) fn readable_byte_stream_controller_enqueue_detached_pull_into_to_queue(
    controller: &Controller,
    pull_into_descriptor: &PullIntoDescriptor,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Assert: pullIntoDescriptor's reader type is "none".
    debug_assert_eq!(pull_into_descriptor.reader_type, ReaderType::None);
    // 2. If pullIntoDescriptor's bytes filled > 0, perform ?
    //    ReadableByteStreamControllerEnqueueClonedChunkToQueue(controller, pullIntoDescriptor's
    //    buffer, pullIntoDescriptor's byte offset, pullIntoDescriptor's bytes filled).
    if pull_into_descriptor.bytes_filled > 0 {
        readable_byte_stream_controller_enqueue_cloned_chunk_to_queue(
            controller,
            &pull_into_descriptor.buffer,
            pull_into_descriptor.byte_offset,
            pull_into_descriptor.bytes_filled,
            ctx,
        )?;
    }
    // 3. Perform ! ReadableByteStreamControllerShiftPendingPullInto(controller).
    readable_byte_stream_controller_shift_pending_pull_into(controller);
    Ok(())
}

/// <https://streams.spec.whatwg.org/#readable-byte-stream-controller-error>
pub(crate) fn readable_byte_stream_controller_error(
    controller: &Controller,
    e: Value,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Let stream be controller.[[stream]].
    let stream = stream_of(controller);
    // 2. If stream.[[state]] is not "readable", return.
    if stream.state() != StreamState::Readable {
        return Ok(());
    }
    // 3. Perform ! ReadableByteStreamControllerClearPendingPullIntos(controller).
    readable_byte_stream_controller_clear_pending_pull_intos(controller);
    // 4. Perform ! ResetQueue(controller).
    reset_queue(controller);
    // 5. Perform ! ReadableByteStreamControllerClearAlgorithms(controller).
    readable_byte_stream_controller_clear_algorithms(controller);
    // 6. Perform ! ReadableStreamError(stream, e).
    readable_stream_error(&stream, e, ctx)
}

/// <https://streams.spec.whatwg.org/#readable-byte-stream-controller-fill-head-pull-into-descriptor>
pub(crate) fn readable_byte_stream_controller_fill_head_pull_into_descriptor(
    size: u64,
    pull_into_descriptor: &mut PullIntoDescriptor,
) {
    // 1. Assert: either controller.[[pendingPullIntos]] is empty, or
    //    controller.[[pendingPullIntos]][0] is pullIntoDescriptor.
    // 2. Assert: controller.[[byobRequest]] is null.
    // 3. Set pullIntoDescriptor's bytes filled to bytes filled + size.
    pull_into_descriptor.bytes_filled += size;
}

/// <https://streams.spec.whatwg.org/#readable-byte-stream-controller-fill-pull-into-descriptor-from-queue>
///
/// Runs no script; each queue entry costs one slice copy, and the loop is bounded by the bytes
/// to copy (computed from [[queueTotalSize]]), never by a rescan of the queue.
pub(crate) fn readable_byte_stream_controller_fill_pull_into_descriptor_from_queue(
    controller: &ReadableByteStreamController,
    pull_into_descriptor: &mut PullIntoDescriptor,
) -> JsResult<bool> {
    let d = pull_into_descriptor;
    // 1. Let maxBytesToCopy be min(controller.[[queueTotalSize]], pullIntoDescriptor's byte
    //    length − pullIntoDescriptor's bytes filled).
    let max_bytes_to_copy = controller
        .queue_total_size
        .get()
        .min(d.byte_length.saturating_sub(d.bytes_filled));
    // 2. Let maxBytesFilled be pullIntoDescriptor's bytes filled + maxBytesToCopy.
    let max_bytes_filled = d.bytes_filled + max_bytes_to_copy;
    // 3. Let totalBytesToCopyRemaining be maxBytesToCopy.
    let mut total_bytes_to_copy_remaining = max_bytes_to_copy;
    // 4. Let ready be false.
    let mut ready = false;
    // 5. Assert: ! IsDetachedBuffer(pullIntoDescriptor's buffer) is false.
    // 6. Assert: pullIntoDescriptor's bytes filled < pullIntoDescriptor's minimum fill.
    // 7. Let remainderBytes be the remainder after dividing maxBytesFilled by
    //    pullIntoDescriptor's element size.
    let remainder_bytes = max_bytes_filled % d.element_size;
    // 8. Let maxAlignedBytes be maxBytesFilled − remainderBytes.
    let max_aligned_bytes = max_bytes_filled - remainder_bytes;
    // 9. If maxAlignedBytes ≥ pullIntoDescriptor's minimum fill,
    if max_aligned_bytes >= d.minimum_fill {
        // 9.1. Set totalBytesToCopyRemaining to maxAlignedBytes − pullIntoDescriptor's bytes
        //      filled.
        total_bytes_to_copy_remaining = max_aligned_bytes.saturating_sub(d.bytes_filled);
        // 9.2. Set ready to true.
        ready = true;
    }
    // 10. Let queue be controller.[[queue]].
    let mut queue = controller.queue.borrow_mut();
    // 11. While totalBytesToCopyRemaining > 0,
    while total_bytes_to_copy_remaining > 0 {
        // 11.1. Let headOfQueue be queue[0].
        let Some(head_of_queue) = queue.front_mut() else {
            // [[queueTotalSize]] counts the queued bytes, so the queue cannot run dry here.
            break;
        };
        // 11.2. Let bytesToCopy be min(totalBytesToCopyRemaining, headOfQueue's byte length).
        let bytes_to_copy = total_bytes_to_copy_remaining.min(head_of_queue.byte_length);
        // 11.3. Let destStart be pullIntoDescriptor's byte offset + pullIntoDescriptor's bytes
        //       filled.
        let dest_start = d.byte_offset + d.bytes_filled;
        // 11.4. Let descriptorBuffer be pullIntoDescriptor's buffer.
        // 11.5. Let queueBuffer be headOfQueue's buffer.
        // 11.6. Let queueByteOffset be headOfQueue's byte offset.
        // 11.7. Assert: ! CanCopyDataBlockBytes(descriptorBuffer, destStart, queueBuffer,
        //       queueByteOffset, bytesToCopy) is true. (Checked: the copy below refuses, and
        //       the stream gets a TypeError instead of touching invalid memory.)
        // 11.8. Perform ! CopyDataBlockBytes(descriptorBuffer.[[ArrayBufferData]], destStart,
        //       queueBuffer.[[ArrayBufferData]], queueByteOffset, bytesToCopy).
        let copied = match (&d.buffer, &head_of_queue.buffer) {
            (DescriptorBuffer::Js(buffer), EntryBuffer::Js(queue_buffer)) => {
                engine::copy_data_block_bytes(
                    buffer,
                    dest_start,
                    queue_buffer,
                    head_of_queue.byte_offset,
                    bytes_to_copy,
                )
            }
            (descriptor, EntryBuffer::Js(queue_buffer)) => engine::with_array_buffer_bytes_mut(
                queue_buffer,
                head_of_queue.byte_offset,
                bytes_to_copy,
                |source| {
                    descriptor.with_bytes_mut(dest_start, bytes_to_copy, |dest| {
                        dest.copy_from_slice(source);
                    })
                },
            )
            .flatten()
            .is_some(),
            (descriptor, EntryBuffer::Native(bytes)) => {
                byte_range(bytes.as_slice(), head_of_queue.byte_offset, bytes_to_copy)
                    .and_then(|source| {
                        descriptor.with_bytes_mut(dest_start, bytes_to_copy, |dest| {
                            dest.copy_from_slice(source);
                        })
                    })
                    .is_some()
            }
        };
        if !copied {
            return Err(engine::throw_type_error(
                "Cannot copy the queued bytes into the pull-into descriptor's buffer",
            ));
        }
        // 11.9. If headOfQueue's byte length is bytesToCopy,
        if head_of_queue.byte_length == bytes_to_copy {
            // 11.9.1. Remove queue[0].
            queue.pop_front();
        } else {
            // 11.10. Otherwise,
            // 11.10.1. Set headOfQueue's byte offset to byte offset + bytesToCopy.
            head_of_queue.byte_offset += bytes_to_copy;
            // 11.10.2. Set headOfQueue's byte length to byte length − bytesToCopy.
            head_of_queue.byte_length -= bytes_to_copy;
        }
        // 11.11. Set controller.[[queueTotalSize]] to [[queueTotalSize]] − bytesToCopy.
        controller.queue_total_size.set(
            controller
                .queue_total_size
                .get()
                .saturating_sub(bytes_to_copy),
        );
        // 11.12. Perform ! ReadableByteStreamControllerFillHeadPullIntoDescriptor(controller,
        //        bytesToCopy, pullIntoDescriptor).
        readable_byte_stream_controller_fill_head_pull_into_descriptor(bytes_to_copy, d);
        // 11.13. Set totalBytesToCopyRemaining to totalBytesToCopyRemaining − bytesToCopy.
        total_bytes_to_copy_remaining -= bytes_to_copy;
    }
    crate::queue::give_back_memory(&mut *queue);
    // 12. If ready is false,
    //     12.1. Assert: controller.[[queueTotalSize]] is 0.
    //     12.2. Assert: pullIntoDescriptor's bytes filled > 0.
    //     12.3. Assert: pullIntoDescriptor's bytes filled < pullIntoDescriptor's minimum fill.
    // 13. Return ready.
    Ok(ready)
}

/// <https://streams.spec.whatwg.org/#abstract-opdef-readablebytestreamcontrollerfillreadrequestfromqueue>
pub(crate) fn readable_byte_stream_controller_fill_read_request_from_queue(
    controller: &Controller,
    read_request: ReadRequest,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Assert: controller.[[queueTotalSize]] > 0.
    // 2. Let entry be controller.[[queue]][0].
    // 3. Remove entry from controller.[[queue]].
    // 4. Set controller.[[queueTotalSize]] to [[queueTotalSize]] − entry's byte length.
    let entry = {
        let data = controller.borrow();
        let c = data.data();
        let mut queue = c.queue.borrow_mut();
        let entry = queue.pop_front();
        crate::queue::give_back_memory(&mut *queue);
        if let Some(entry) = &entry {
            c.queue_total_size
                .set(c.queue_total_size.get().saturating_sub(entry.byte_length));
        }
        entry
    };
    let Some(entry) = entry else {
        return Ok(());
    };
    // 5. Perform ! ReadableByteStreamControllerHandleQueueDrain(controller).
    readable_byte_stream_controller_handle_queue_drain(controller, ctx)?;
    // 6. Let view be ! Construct(%Uint8Array%, « entry's buffer, entry's byte offset, entry's
    //    byte length »).
    let buffer = match entry.buffer {
        EntryBuffer::Js(buffer) => buffer,
        // Rust bytes that are the whole entry go to the read request as they are (see
        // ByteChunk::Bytes; script's read makes this view of them).
        EntryBuffer::Native(bytes)
            if entry.byte_offset == 0 && entry.byte_length == bytes.len() as u64 =>
        {
            let stream = stream_of(controller);
            // 7. Perform readRequest's chunk steps, given view.
            return read_request.chunk_steps_for(Chunk::Bytes(bytes), &stream, ctx);
        }
        // The rest of an entry a BYOB read took part of: the view is on the whole buffer.
        EntryBuffer::Native(bytes) => engine::new_array_buffer_holding(bytes.as_slice(), ctx)?,
    };
    let view = engine::construct_view(
        ViewKind::Typed(TypedArrayKind::Uint8),
        &buffer,
        entry.byte_offset,
        entry.byte_length,
        ctx,
    )?;
    // 7. Perform readRequest's chunk steps, given view.
    read_request.chunk_steps(view.into(), ctx)
}

/// Bytes `offset..offset + len` of `bytes` (`None` when out of range).
fn byte_range(bytes: &[u8], offset: u64, len: u64) -> Option<&[u8]> {
    let start = usize::try_from(offset).ok()?;
    bytes.get(start..start.checked_add(usize::try_from(len).ok()?)?)
}

/// <https://streams.spec.whatwg.org/#abstract-opdef-readablebytestreamcontrollergetbyobrequest>
pub(crate) fn readable_byte_stream_controller_get_byob_request(
    controller: &Controller,
    ctx: &mut Cx,
) -> JsResult<Option<Object<ReadableStreamBYOBRequest>>> {
    // 1. If controller.[[byobRequest]] is null and controller.[[pendingPullIntos]] is not empty,
    let existing = controller.borrow().data().byob_request.borrow().clone();
    if existing.is_none() {
        if let Some(first) = first_pending_pull_into(controller) {
            // 1.1. Let firstDescriptor be controller.[[pendingPullIntos]][0].
            // 1.2. Let view be ! Construct(%Uint8Array%, « firstDescriptor's buffer,
            //      firstDescriptor's byte offset + firstDescriptor's bytes filled,
            //      firstDescriptor's byte length − firstDescriptor's bytes filled »).
            //      (Rust bytes become the `ArrayBuffer` script sees, for good.)
            let buffer = match &first.buffer {
                DescriptorBuffer::Js(buffer) => buffer.clone(),
                native => {
                    let buffer = native.to_js(ctx)?;
                    let js = DescriptorBuffer::Js(buffer.clone());
                    with_first_pending_pull_into(controller, |first| first.buffer = js);
                    buffer
                }
            };
            let view = engine::construct_view(
                ViewKind::Typed(TypedArrayKind::Uint8),
                &buffer,
                first.byte_offset + first.bytes_filled,
                first.byte_length.saturating_sub(first.bytes_filled),
                ctx,
            )?;
            // 1.3. Let byobRequest be a new ReadableStreamBYOBRequest.
            // 1.4. Set byobRequest.[[controller]] to controller.
            // 1.5. Set byobRequest.[[view]] to view.
            let byob_request = byob_request::new_request(controller.clone(), view, ctx)?;
            // 1.6. Set controller.[[byobRequest]] to byobRequest.
            set_byob_request(controller, Some(byob_request.clone()));
            return Ok(Some(byob_request));
        }
    }
    // 2. Return controller.[[byobRequest]].
    Ok(existing)
}

/// <https://streams.spec.whatwg.org/#readable-byte-stream-controller-get-desired-size>
pub(crate) fn readable_byte_stream_controller_get_desired_size(
    controller: &Controller,
) -> Option<f64> {
    let data = controller.borrow();
    let c = data.data();
    // 1. Let state be controller.[[stream]].[[state]].
    match c.stream.state() {
        // 2. If state is "errored", return null.
        StreamState::Errored => None,
        // 3. If state is "closed", return 0.
        StreamState::Closed => Some(0.0),
        // 4. Return controller.[[strategyHWM]] − controller.[[queueTotalSize]].
        #[allow(clippy::cast_precision_loss)] // byte counts stay far below 2^53
        StreamState::Readable => Some(c.strategy_hwm.get() - c.queue_total_size.get() as f64),
    }
}

/// <https://streams.spec.whatwg.org/#readable-byte-stream-controller-handle-queue-drain>
pub(crate) fn readable_byte_stream_controller_handle_queue_drain(
    controller: &Controller,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Assert: controller.[[stream]].[[state]] is "readable".
    // 2. If controller.[[queueTotalSize]] is 0 and controller.[[closeRequested]] is true,
    if queue_total_size(controller) == 0 && close_requested(controller) {
        // 2.1. Perform ! ReadableByteStreamControllerClearAlgorithms(controller).
        readable_byte_stream_controller_clear_algorithms(controller);
        // 2.2. Perform ! ReadableStreamClose(controller.[[stream]]).
        readable_stream_close(&stream_of(controller), ctx)
    } else {
        // 3. Otherwise,
        // 3.1. Perform ! ReadableByteStreamControllerCallPullIfNeeded(controller).
        readable_byte_stream_controller_call_pull_if_needed(controller, ctx)
    }
}

/// <https://streams.spec.whatwg.org/#readable-byte-stream-controller-invalidate-byob-request>
pub(crate) fn readable_byte_stream_controller_invalidate_byob_request(controller: &Controller) {
    // 1. If controller.[[byobRequest]] is null, return.
    // 4. Set controller.[[byobRequest]] to null.
    let request = controller.borrow().data().byob_request.borrow_mut().take();
    if let Some(request) = request {
        // 2. Set controller.[[byobRequest]].[[controller]] to undefined.
        // 3. Set controller.[[byobRequest]].[[view]] to null.
        byob_request::invalidate(&request);
    }
}

/// <https://streams.spec.whatwg.org/#readable-byte-stream-controller-process-pull-into-descriptors-using-queue>
pub(crate) fn readable_byte_stream_controller_process_pull_into_descriptors_using_queue(
    controller: &Controller,
) -> JsResult<Vec<PullIntoDescriptor>> {
    // 1. Assert: controller.[[closeRequested]] is false.
    // 2. Let filledPullIntos be a new empty list.
    let mut filled_pull_intos = Vec::new();
    let data = controller.borrow();
    let c = data.data();
    let mut pending = c.pending_pull_intos.borrow_mut();
    // 3. While controller.[[pendingPullIntos]] is not empty,
    // 3.2. Let pullIntoDescriptor be controller.[[pendingPullIntos]][0].
    while let Some(pull_into_descriptor) = pending.front_mut() {
        // 3.1. If controller.[[queueTotalSize]] is 0, then break.
        if c.queue_total_size.get() == 0 {
            break;
        }
        // 3.3. If ! ReadableByteStreamControllerFillPullIntoDescriptorFromQueue(controller,
        //      pullIntoDescriptor) is true,
        if readable_byte_stream_controller_fill_pull_into_descriptor_from_queue(
            c,
            pull_into_descriptor,
        )? {
            // 3.3.1. Perform ! ReadableByteStreamControllerShiftPendingPullInto(controller).
            // 3.3.2. Append pullIntoDescriptor to filledPullIntos.
            // (ShiftPendingPullInto on the list borrowed here: [[byobRequest]] is null.)
            if let Some(descriptor) = pending.pop_front() {
                filled_pull_intos.push(descriptor);
            }
        }
    }
    crate::queue::give_back_memory(&mut *pending);
    // 4. Return filledPullIntos.
    Ok(filled_pull_intos)
}

/// <https://streams.spec.whatwg.org/#abstract-opdef-readablebytestreamcontrollerprocessreadrequestsusingqueue>
pub(crate) fn readable_byte_stream_controller_process_read_requests_using_queue(
    controller: &Controller,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Let reader be controller.[[stream]].[[reader]].
    // 2. Assert: reader implements ReadableStreamDefaultReader.
    let Some(ReaderRef::Default(reader)) = stream_of(controller).reader() else {
        // Not a debug_assert: a `then` getter that script put on Object.prototype runs while an
        // earlier read resolves, and may release the reader before this step.
        return Ok(());
    };
    // 3. While reader.[[readRequests]] is not empty,
    while default_reader::num_read_requests(&reader) > 0 {
        // 3.1. If controller.[[queueTotalSize]] is 0, return.
        if queue_total_size(controller) == 0 {
            return Ok(());
        }
        // 3.2. Let readRequest be reader.[[readRequests]][0].
        // 3.3. Remove readRequest from reader.[[readRequests]].
        let Some(read_request) = default_reader::shift_read_request(&reader) else {
            return Ok(());
        };
        // 3.4. Perform ! ReadableByteStreamControllerFillReadRequestFromQueue(controller,
        //      readRequest).
        readable_byte_stream_controller_fill_read_request_from_queue(
            controller,
            read_request,
            ctx,
        )?;
    }
    Ok(())
}

/// <https://streams.spec.whatwg.org/#readable-byte-stream-controller-pull-into>
pub(crate) fn readable_byte_stream_controller_pull_into(
    controller: &Controller,
    view: &ViewRecord,
    min: u64,
    read_into_request: ReadIntoRequest,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Let stream be controller.[[stream]]. (See `pull_into_with_descriptor`.)
    // 2. Let elementSize be 1.
    // 3. Let ctor be %DataView%.
    // 4. If view has a [[TypedArrayName]] internal slot (i.e., it is not a DataView),
    //    4.1. Set elementSize to the element size specified in the typed array constructors
    //         table for view.[[TypedArrayName]].
    //    4.2. Set ctor to the constructor specified in the typed array constructors table for
    //         view.[[TypedArrayName]].
    let element_size = view.kind.element_size();
    let ctor = view.kind;
    // 5. Let minimumFill be min × elementSize.
    let minimum_fill = min.saturating_mul(element_size);
    // 6. Assert: minimumFill ≥ 0 and minimumFill ≤ view.[[ByteLength]].
    // 7. Assert: the remainder after dividing minimumFill by elementSize is 0.
    // 8. Let byteOffset be view.[[ByteOffset]].
    let byte_offset = view.byte_offset;
    // 9. Let byteLength be view.[[ByteLength]].
    let byte_length = view.byte_length;
    // 10. Let bufferResult be TransferArrayBuffer(view.[[ViewedArrayBuffer]]).
    let buffer = match engine::transfer_array_buffer(&view.buffer, ctx) {
        Ok(buffer) => buffer,
        // 11. If bufferResult is an abrupt completion,
        Err(error) => {
            // 11.1. Perform readIntoRequest's error steps, given bufferResult.[[Value]].
            // 11.2. Return.
            let e = engine::thrown_value(error, ctx)?;
            return read_into_request.error_steps(e, ctx);
        }
    };
    // 12. Let buffer be bufferResult.[[Value]].
    // 13. Let pullIntoDescriptor be a new pull-into descriptor with buffer buffer, buffer byte
    //     length buffer.[[ArrayBufferByteLength]], byte offset byteOffset, byte length
    //     byteLength, bytes filled 0, minimum fill minimumFill, element size elementSize, view
    //     constructor ctor, and reader type "byob".
    let pull_into_descriptor = PullIntoDescriptor {
        buffer_byte_length: engine::array_buffer_byte_length(&buffer),
        buffer: DescriptorBuffer::Js(buffer),
        byte_offset,
        byte_length,
        bytes_filled: 0,
        minimum_fill,
        element_size,
        view_constructor: ctor,
        reader_type: ReaderType::Byob,
    };
    pull_into_with_descriptor(controller, pull_into_descriptor, read_into_request, ctx)
}

/// ReadableByteStreamControllerPullInto for a native read: a Rust reader's read into a Rust
/// buffer, `bytes`, as a BYOB read of `new Uint8Array(bytes.length)` would be (min 1). The
/// buffer stands for a view that no script sees, so the steps that would make a JS object for
/// it do not: the transfer moves the Rust bytes, and the filled chunk reaches the read-into
/// request's steps as those bytes ([`ReadIntoRequest::bytes_chunk_steps`]). Only a reader that
/// the user agent may choose (ReadableStreamPipeTo step 8) makes such reads, and only from a
/// source that fills buffers from Rust (its controller's byobRequest is never asked for a
/// view); a path that would show the buffer to script makes it an `ArrayBuffer` first.
pub(crate) fn readable_byte_stream_controller_pull_into_native(
    controller: &Controller,
    bytes: NativeBytes,
    read_into_request: ReadIntoRequest,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 2.–4. elementSize is 1 and ctor is %Uint8Array%.
    // 5. Let minimumFill be min × elementSize (min is 1).
    // 8.–9. byteOffset is 0 and byteLength is the buffer's length.
    let byte_length = bytes.len() as u64;
    // 10.–12. bufferResult is the Rust bytes themselves (nothing to detach).
    // 13. Let pullIntoDescriptor be a new pull-into descriptor.
    let pull_into_descriptor = PullIntoDescriptor {
        buffer: DescriptorBuffer::Native(Rc::new(RefCell::new(Some(bytes)))),
        buffer_byte_length: byte_length,
        byte_offset: 0,
        byte_length,
        bytes_filled: 0,
        minimum_fill: 1,
        element_size: 1,
        view_constructor: ViewKind::Typed(TypedArrayKind::Uint8),
        reader_type: ReaderType::Byob,
    };
    pull_into_with_descriptor(controller, pull_into_descriptor, read_into_request, ctx)
}

/// ReadableByteStreamControllerPullInto from step 14 on, given pullIntoDescriptor.
fn pull_into_with_descriptor(
    controller: &Controller,
    mut pull_into_descriptor: PullIntoDescriptor,
    read_into_request: ReadIntoRequest,
    ctx: &mut Cx,
) -> JsResult<()> {
    let stream = stream_of(controller);
    let ctor = pull_into_descriptor.view_constructor;
    // 14. If controller.[[pendingPullIntos]] is not empty,
    if has_pending_pull_intos(controller) {
        // 14.1. Append pullIntoDescriptor to controller.[[pendingPullIntos]].
        controller
            .borrow()
            .data()
            .pending_pull_intos
            .borrow_mut()
            .push_back(pull_into_descriptor);
        // 14.2. Perform ! ReadableStreamAddReadIntoRequest(stream, readIntoRequest).
        super::byob_reader::readable_stream_add_read_into_request(&stream, read_into_request);
        // 14.3. Return.
        return Ok(());
    }
    // 15. If stream.[[state]] is "closed",
    if stream.state() == StreamState::Closed {
        // 15.1. Let emptyView be ! Construct(ctor, « pullIntoDescriptor's buffer,
        //       pullIntoDescriptor's byte offset, 0 »).
        let empty_view = match &pull_into_descriptor.buffer {
            DescriptorBuffer::Js(buffer) => FilledChunk::View(engine::construct_view(
                ctor,
                buffer,
                pull_into_descriptor.byte_offset,
                0,
                ctx,
            )?),
            DescriptorBuffer::Native(_) => convert_filled(&pull_into_descriptor, ctx)?,
        };
        // 15.2. Perform readIntoRequest's close steps, given emptyView.
        // 15.3. Return.
        return read_into_request.filled_steps(empty_view, true, ctx);
    }
    // 16. If controller.[[queueTotalSize]] > 0,
    if queue_total_size(controller) > 0 {
        // 16.1. If ! ReadableByteStreamControllerFillPullIntoDescriptorFromQueue(controller,
        //       pullIntoDescriptor) is true,
        let ready = readable_byte_stream_controller_fill_pull_into_descriptor_from_queue(
            controller.borrow().data(),
            &mut pull_into_descriptor,
        )?;
        if ready {
            // 16.1.1. Let filledView be ! ReadableByteStreamControllerConvertPullIntoDescriptor(
            //         pullIntoDescriptor).
            let filled_view = convert_filled(&pull_into_descriptor, ctx)?;
            // 16.1.2. Perform ! ReadableByteStreamControllerHandleQueueDrain(controller).
            readable_byte_stream_controller_handle_queue_drain(controller, ctx)?;
            // 16.1.3. Perform readIntoRequest's chunk steps, given filledView.
            // 16.1.4. Return.
            return read_into_request.filled_steps(filled_view, false, ctx);
        }
        // 16.2. If controller.[[closeRequested]] is true,
        if close_requested(controller) {
            // 16.2.1. Let e be a TypeError exception.
            let e = engine::type_error(
                "The stream closed with a partially filled element pending",
                ctx,
            );
            // 16.2.2. Perform ! ReadableByteStreamControllerError(controller, e).
            readable_byte_stream_controller_error(controller, e.clone(), ctx)?;
            // 16.2.3. Perform readIntoRequest's error steps, given e.
            // 16.2.4. Return.
            return read_into_request.error_steps(e, ctx);
        }
    }
    // 17. Append pullIntoDescriptor to controller.[[pendingPullIntos]].
    controller
        .borrow()
        .data()
        .pending_pull_intos
        .borrow_mut()
        .push_back(pull_into_descriptor);
    // 18. Perform ! ReadableStreamAddReadIntoRequest(stream, readIntoRequest).
    super::byob_reader::readable_stream_add_read_into_request(&stream, read_into_request);
    // 19. Perform ! ReadableByteStreamControllerCallPullIfNeeded(controller).
    readable_byte_stream_controller_call_pull_if_needed(controller, ctx)
}

/// <https://streams.spec.whatwg.org/#readable-byte-stream-controller-respond>
pub(crate) fn readable_byte_stream_controller_respond(
    controller: &Controller,
    bytes_written: u64,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Assert: controller.[[pendingPullIntos]] is not empty.
    // 2. Let firstDescriptor be controller.[[pendingPullIntos]][0].
    let Some(first_descriptor) = first_pending_pull_into(controller) else {
        return Err(engine::throw_type_error(
            "There is no pending BYOB request to respond to",
        ));
    };
    // 3. Let state be controller.[[stream]].[[state]].
    // 4. If state is "closed",
    if stream_of(controller).state() == StreamState::Closed {
        // 4.1. If bytesWritten is not 0, throw a TypeError exception.
        if bytes_written != 0 {
            return Err(engine::throw_type_error(
                "bytesWritten must be 0 when the stream is closed",
            ));
        }
    } else {
        // 5. Otherwise,
        // 5.1. Assert: state is "readable".
        // 5.2. If bytesWritten is 0, throw a TypeError exception.
        if bytes_written == 0 {
            return Err(engine::throw_type_error(
                "bytesWritten must be greater than 0 when the stream is readable",
            ));
        }
        // 5.3. If firstDescriptor's bytes filled + bytesWritten > firstDescriptor's byte
        //      length, throw a RangeError exception.
        if first_descriptor.bytes_filled.saturating_add(bytes_written)
            > first_descriptor.byte_length
        {
            return Err(engine::throw_range_error(
                "bytesWritten is larger than the BYOB request's view",
            ));
        }
    }
    // 6. Set firstDescriptor's buffer to ! TransferArrayBuffer(firstDescriptor's buffer).
    let transferred = first_descriptor.buffer.transfer(ctx)?;
    with_first_pending_pull_into(controller, |first| first.buffer = transferred);
    // 7. Perform ? ReadableByteStreamControllerRespondInternal(controller, bytesWritten).
    readable_byte_stream_controller_respond_internal(controller, bytes_written, ctx)
}

/// <https://streams.spec.whatwg.org/#readable-byte-stream-controller-respond-in-closed-state>
pub(crate) fn readable_byte_stream_controller_respond_in_closed_state(
    controller: &Controller,
    first_descriptor: &PullIntoDescriptor,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Assert: the remainder after dividing firstDescriptor's bytes filled by
    //    firstDescriptor's element size is 0.
    // 2. If firstDescriptor's reader type is "none", perform !
    //    ReadableByteStreamControllerShiftPendingPullInto(controller).
    if first_descriptor.reader_type == ReaderType::None {
        readable_byte_stream_controller_shift_pending_pull_into(controller);
    }
    // 3. Let stream be controller.[[stream]].
    let stream = stream_of(controller);
    // 4. If ! ReadableStreamHasBYOBReader(stream) is true,
    if readable_stream_has_byob_reader(&stream) {
        // 4.1. Let filledPullIntos be a new empty list.
        let mut filled_pull_intos = Vec::new();
        // 4.2. While filledPullIntos's size < ! ReadableStreamGetNumReadIntoRequests(stream),
        let wanted = readable_stream_get_num_read_into_requests(&stream);
        while filled_pull_intos.len() < wanted {
            // 4.2.1. Let pullIntoDescriptor be !
            //        ReadableByteStreamControllerShiftPendingPullInto(controller).
            let Some(pull_into_descriptor) =
                readable_byte_stream_controller_shift_pending_pull_into(controller)
            else {
                break;
            };
            // 4.2.2. Append pullIntoDescriptor to filledPullIntos.
            filled_pull_intos.push(pull_into_descriptor);
        }
        // 4.3. For each filledPullInto of filledPullIntos,
        for filled_pull_into in &filled_pull_intos {
            // 4.3.1. Perform ! ReadableByteStreamControllerCommitPullIntoDescriptor(stream,
            //        filledPullInto).
            readable_byte_stream_controller_commit_pull_into_descriptor(
                &stream,
                filled_pull_into,
                ctx,
            )?;
        }
    }
    Ok(())
}

/// <https://streams.spec.whatwg.org/#readable-byte-stream-controller-respond-in-readable-state>
pub(crate) fn readable_byte_stream_controller_respond_in_readable_state(
    controller: &Controller,
    bytes_written: u64,
    ctx: &mut Cx,
) -> JsResult<()> {
    // pullIntoDescriptor is controller.[[pendingPullIntos]][0] (RespondInternal's
    // firstDescriptor).
    // 1. Assert: pullIntoDescriptor's bytes filled + bytesWritten ≤ pullIntoDescriptor's byte
    //    length.
    // 2. Perform ! ReadableByteStreamControllerFillHeadPullIntoDescriptor(controller,
    //    bytesWritten, pullIntoDescriptor).
    let Some(pull_into_descriptor) = with_first_pending_pull_into(controller, |d| {
        readable_byte_stream_controller_fill_head_pull_into_descriptor(bytes_written, d);
        d.clone()
    }) else {
        return Ok(());
    };
    let stream = stream_of(controller);
    // 3. If pullIntoDescriptor's reader type is "none",
    if pull_into_descriptor.reader_type == ReaderType::None {
        // 3.1. Perform ? ReadableByteStreamControllerEnqueueDetachedPullIntoToQueue(controller,
        //      pullIntoDescriptor).
        readable_byte_stream_controller_enqueue_detached_pull_into_to_queue(
            controller,
            &pull_into_descriptor,
            ctx,
        )?;
        // 3.2. Let filledPullIntos be the result of performing !
        //      ReadableByteStreamControllerProcessPullIntoDescriptorsUsingQueue(controller).
        let filled_pull_intos =
            readable_byte_stream_controller_process_pull_into_descriptors_using_queue(controller)?;
        // 3.3. For each filledPullInto of filledPullIntos,
        for filled_pull_into in &filled_pull_intos {
            // 3.3.1. Perform ! ReadableByteStreamControllerCommitPullIntoDescriptor(
            //        controller.[[stream]], filledPullInto).
            readable_byte_stream_controller_commit_pull_into_descriptor(
                &stream,
                filled_pull_into,
                ctx,
            )?;
        }
        // 3.4. Return.
        return Ok(());
    }
    // 4. If pullIntoDescriptor's bytes filled < pullIntoDescriptor's minimum fill, return.
    if pull_into_descriptor.bytes_filled < pull_into_descriptor.minimum_fill {
        return Ok(());
    }
    // 5. Perform ! ReadableByteStreamControllerShiftPendingPullInto(controller).
    let Some(mut pull_into_descriptor) =
        readable_byte_stream_controller_shift_pending_pull_into(controller)
    else {
        return Ok(());
    };
    // 6. Let remainderSize be the remainder after dividing pullIntoDescriptor's bytes filled by
    //    pullIntoDescriptor's element size.
    let remainder_size = pull_into_descriptor.bytes_filled % pull_into_descriptor.element_size;
    // 7. If remainderSize > 0,
    if remainder_size > 0 {
        // 7.1. Let end be pullIntoDescriptor's byte offset + pullIntoDescriptor's bytes filled.
        let end = pull_into_descriptor.byte_offset + pull_into_descriptor.bytes_filled;
        // 7.2. Perform ? ReadableByteStreamControllerEnqueueClonedChunkToQueue(controller,
        //      pullIntoDescriptor's buffer, end − remainderSize, remainderSize).
        readable_byte_stream_controller_enqueue_cloned_chunk_to_queue(
            controller,
            &pull_into_descriptor.buffer,
            end - remainder_size,
            remainder_size,
            ctx,
        )?;
    }
    // 8. Set pullIntoDescriptor's bytes filled to bytes filled − remainderSize.
    pull_into_descriptor.bytes_filled -= remainder_size;
    // 9. Let filledPullIntos be the result of performing !
    //    ReadableByteStreamControllerProcessPullIntoDescriptorsUsingQueue(controller).
    let filled_pull_intos =
        readable_byte_stream_controller_process_pull_into_descriptors_using_queue(controller)?;
    // 10. Perform ! ReadableByteStreamControllerCommitPullIntoDescriptor(controller.[[stream]],
    //     pullIntoDescriptor).
    readable_byte_stream_controller_commit_pull_into_descriptor(
        &stream,
        &pull_into_descriptor,
        ctx,
    )?;
    // 11. For each filledPullInto of filledPullIntos,
    for filled_pull_into in &filled_pull_intos {
        // 11.1. Perform ! ReadableByteStreamControllerCommitPullIntoDescriptor(
        //       controller.[[stream]], filledPullInto).
        readable_byte_stream_controller_commit_pull_into_descriptor(
            &stream,
            filled_pull_into,
            ctx,
        )?;
    }
    Ok(())
}

/// <https://streams.spec.whatwg.org/#readable-byte-stream-controller-respond-internal>
pub(crate) fn readable_byte_stream_controller_respond_internal(
    controller: &Controller,
    bytes_written: u64,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Let firstDescriptor be controller.[[pendingPullIntos]][0].
    let Some(first_descriptor) = first_pending_pull_into(controller) else {
        return Ok(());
    };
    // 2. Assert: ! CanTransferArrayBuffer(firstDescriptor's buffer) is true.
    debug_assert!(first_descriptor.buffer.can_transfer());
    // 3. Perform ! ReadableByteStreamControllerInvalidateBYOBRequest(controller).
    readable_byte_stream_controller_invalidate_byob_request(controller);
    // 4. Let state be controller.[[stream]].[[state]].
    // 5. If state is "closed",
    if stream_of(controller).state() == StreamState::Closed {
        // 5.1. Assert: bytesWritten is 0.
        // 5.2. Perform ! ReadableByteStreamControllerRespondInClosedState(controller,
        //      firstDescriptor).
        readable_byte_stream_controller_respond_in_closed_state(
            controller,
            &first_descriptor,
            ctx,
        )?;
    } else {
        // 6. Otherwise,
        // 6.1. Assert: state is "readable".
        // 6.2. Assert: bytesWritten > 0.
        // 6.3. Perform ? ReadableByteStreamControllerRespondInReadableState(controller,
        //      bytesWritten, firstDescriptor).
        readable_byte_stream_controller_respond_in_readable_state(controller, bytes_written, ctx)?;
    }
    // 7. Perform ! ReadableByteStreamControllerCallPullIfNeeded(controller).
    readable_byte_stream_controller_call_pull_if_needed(controller, ctx)
}

/// <https://streams.spec.whatwg.org/#readable-byte-stream-controller-respond-with-new-view>
pub(crate) fn readable_byte_stream_controller_respond_with_new_view(
    controller: &Controller,
    view: &ViewRecord,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Assert: controller.[[pendingPullIntos]] is not empty.
    // 2. Assert: ! IsDetachedBuffer(view.[[ViewedArrayBuffer]]) is false.
    // 3. Let firstDescriptor be controller.[[pendingPullIntos]][0].
    let Some(first_descriptor) = first_pending_pull_into(controller) else {
        return Err(engine::throw_type_error(
            "There is no pending BYOB request to respond to",
        ));
    };
    let range_error = |message: &str| -> JsError { engine::throw_range_error(message.to_owned()) };
    // 4. Let state be controller.[[stream]].[[state]].
    // 5. If state is "closed",
    if stream_of(controller).state() == StreamState::Closed {
        // 5.1. If view.[[ByteLength]] is not 0, throw a TypeError exception.
        if view.byte_length != 0 {
            return Err(engine::throw_type_error(
                "The view must be empty when the stream is closed",
            ));
        }
    } else {
        // 6. Otherwise,
        // 6.1. Assert: state is "readable".
        // 6.2. If view.[[ByteLength]] is 0, throw a TypeError exception.
        if view.byte_length == 0 {
            return Err(engine::throw_type_error(
                "The view must not be empty when the stream is readable",
            ));
        }
    }
    // 7. If firstDescriptor's byte offset + firstDescriptor's bytes filled is not
    //    view.[[ByteOffset]], throw a RangeError exception.
    if first_descriptor.byte_offset + first_descriptor.bytes_filled != view.byte_offset {
        return Err(range_error(
            "The view's byteOffset does not match the BYOB request's",
        ));
    }
    // 8. If firstDescriptor's buffer byte length is not
    //    view.[[ViewedArrayBuffer]].[[ByteLength]], throw a RangeError exception.
    if first_descriptor.buffer_byte_length != engine::array_buffer_byte_length(&view.buffer) {
        return Err(range_error(
            "The view's buffer length does not match the BYOB request's",
        ));
    }
    // 9. If firstDescriptor's bytes filled + view.[[ByteLength]] > firstDescriptor's byte
    //    length, throw a RangeError exception.
    if first_descriptor.bytes_filled + view.byte_length > first_descriptor.byte_length {
        return Err(range_error("The view is larger than the BYOB request's"));
    }
    // 10. Let viewByteLength be view.[[ByteLength]].
    let view_byte_length = view.byte_length;
    // 11. Set firstDescriptor's buffer to ? TransferArrayBuffer(view.[[ViewedArrayBuffer]]).
    let transferred = DescriptorBuffer::Js(engine::transfer_array_buffer(&view.buffer, ctx)?);
    with_first_pending_pull_into(controller, |first| first.buffer = transferred);
    // 12. Perform ? ReadableByteStreamControllerRespondInternal(controller, viewByteLength).
    readable_byte_stream_controller_respond_internal(controller, view_byte_length, ctx)
}

/// <https://streams.spec.whatwg.org/#readable-byte-stream-controller-shift-pending-pull-into>
pub(crate) fn readable_byte_stream_controller_shift_pending_pull_into(
    controller: &Controller,
) -> Option<PullIntoDescriptor> {
    // 1. Assert: controller.[[byobRequest]] is null.
    // 2. Let descriptor be controller.[[pendingPullIntos]][0].
    // 3. Remove descriptor from controller.[[pendingPullIntos]].
    // 4. Return descriptor.
    let data = controller.borrow();
    let mut pending = data.data().pending_pull_intos.borrow_mut();
    let descriptor = pending.pop_front();
    crate::queue::give_back_memory(&mut *pending);
    descriptor
}

/// <https://streams.spec.whatwg.org/#readable-byte-stream-controller-should-call-pull>
pub(crate) fn readable_byte_stream_controller_should_call_pull(controller: &Controller) -> bool {
    // 1. Let stream be controller.[[stream]].
    let stream = stream_of(controller);
    // 2. If stream.[[state]] is not "readable", return false.
    if stream.state() != StreamState::Readable {
        return false;
    }
    {
        let data = controller.borrow();
        let c = data.data();
        // 3. If controller.[[closeRequested]] is true, return false.
        // 4. If controller.[[started]] is false, return false.
        if c.close_requested.get() || !c.started.get() {
            return false;
        }
    }
    // 5. If ! ReadableStreamHasDefaultReader(stream) is true and !
    //    ReadableStreamGetNumReadRequests(stream) > 0, return true.
    if readable_stream_has_default_reader(&stream)
        && readable_stream_get_num_read_requests(&stream) > 0
    {
        return true;
    }
    // 6. If ! ReadableStreamHasBYOBReader(stream) is true and !
    //    ReadableStreamGetNumReadIntoRequests(stream) > 0, return true.
    if readable_stream_has_byob_reader(&stream)
        && readable_stream_get_num_read_into_requests(&stream) > 0
    {
        return true;
    }
    // 7. Let desiredSize be ! ReadableByteStreamControllerGetDesiredSize(controller).
    // 8. Assert: desiredSize is not null.
    // 9. If desiredSize > 0, return true.
    // 10. Return false.
    readable_byte_stream_controller_get_desired_size(controller).is_some_and(|d| d > 0.0)
}

/// <https://streams.spec.whatwg.org/#set-up-readable-byte-stream-controller>
#[allow(clippy::too_many_arguments)] // the spec's signature
pub(crate) fn set_up_readable_byte_stream_controller(
    stream: &Object<ReadableStream>,
    controller: &Controller,
    start_algorithm: StartAlgorithm,
    pull_algorithm: BytePullAlgorithm,
    cancel_algorithm: ByteCancelAlgorithm,
    high_water_mark: f64,
    auto_allocate_chunk_size: Option<u64>,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Assert: stream.[[controller]] is undefined.
    debug_assert!(stream.controller().is_none());
    {
        let data = controller.borrow();
        let c = data.data();
        // 2. If autoAllocateChunkSize is not undefined, assert it is a positive integer.
        // 3. Set controller.[[stream]] to stream. (Done by `new_controller`.)
        // 4. Set controller.[[pullAgain]] and controller.[[pulling]] to false.
        c.pull_again.set(false);
        c.pulling.set(false);
        // 5. Set controller.[[byobRequest]] to null.
        *c.byob_request.borrow_mut() = None;
    }
    // 6. Perform ! ResetQueue(controller).
    reset_queue(controller);
    {
        let data = controller.borrow();
        let c = data.data();
        // 7. Set controller.[[closeRequested]] and controller.[[started]] to false.
        c.close_requested.set(false);
        c.started.set(false);
        // 8. Set controller.[[strategyHWM]] to highWaterMark.
        c.strategy_hwm.set(high_water_mark);
        // 9. Set controller.[[pullAlgorithm]] to pullAlgorithm.
        *c.pull_algorithm.borrow_mut() = Some(pull_algorithm);
        // 10. Set controller.[[cancelAlgorithm]] to cancelAlgorithm.
        *c.cancel_algorithm.borrow_mut() = Some(cancel_algorithm);
        // 11. Set controller.[[autoAllocateChunkSize]] to autoAllocateChunkSize.
        c.auto_allocate_chunk_size.set(auto_allocate_chunk_size);
        // 12. Set controller.[[pendingPullIntos]] to a new empty list.
        *c.pending_pull_intos.borrow_mut() = VecDeque::new();
    }
    // 13. Set stream.[[controller]] to controller.
    set_controller(stream, ControllerRef::Byte(controller.clone()));
    // 14. Let startResult be the result of performing startAlgorithm.
    let start_result = start_algorithm.perform(controller.clone().upcast().into(), ctx)?;
    // 15. Let startPromise be a promise resolved with startResult.
    let start_promise = PromiseResult::resolved_with(start_result, ctx)?;
    upon_settlement(
        start_promise,
        controller.clone(),
        // 16. Upon fulfillment of startPromise,
        |controller, _, ctx| {
            {
                let data = controller.borrow();
                let c = data.data();
                // 16.1. Set controller.[[started]] to true.
                c.started.set(true);
                // 16.2. Assert: controller.[[pulling]] is false.
                // 16.3. Assert: controller.[[pullAgain]] is false.
                debug_assert!(!c.pulling.get());
                debug_assert!(!c.pull_again.get());
            }
            // 16.4. Perform ! ReadableByteStreamControllerCallPullIfNeeded(controller).
            readable_byte_stream_controller_call_pull_if_needed(controller, ctx)
        },
        // 17. Upon rejection of startPromise with reason r,
        |controller, r, ctx| {
            // 17.1. Perform ! ReadableByteStreamControllerError(controller, r).
            readable_byte_stream_controller_error(controller, r, ctx)
        },
        ctx,
    )
}

/// <https://streams.spec.whatwg.org/#set-up-readable-byte-stream-controller-from-underlying-source>
pub(crate) fn set_up_readable_byte_stream_controller_from_underlying_source(
    stream: &Object<ReadableStream>,
    underlying_source: Value,
    underlying_source_dict: UnderlyingSource,
    high_water_mark: f64,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Let controller be a new ReadableByteStreamController.
    let controller = new_controller(stream, ctx)?;
    // 2. Let startAlgorithm be an algorithm that returns undefined.
    // 5. If underlyingSourceDict["start"] exists, then set startAlgorithm to an algorithm which
    //    returns the result of invoking underlyingSourceDict["start"] with argument list
    //    « controller » and callback this value underlyingSource.
    let start_algorithm = match underlying_source_dict.start {
        Some(start) => StartAlgorithm::Js {
            underlying: underlying_source.clone(),
            start,
        },
        None => StartAlgorithm::ReturnUndefined,
    };
    // 3. Let pullAlgorithm be an algorithm that returns a promise resolved with undefined.
    // 6. If underlyingSourceDict["pull"] exists, then set pullAlgorithm to an algorithm which
    //    returns the result of invoking underlyingSourceDict["pull"] with argument list
    //    « controller » and callback this value underlyingSource.
    let pull_algorithm = match underlying_source_dict.pull {
        Some(pull) => BytePullAlgorithm::Js {
            source: underlying_source.clone(),
            pull,
        },
        None => BytePullAlgorithm::ResolvedUndefined,
    };
    // 4. Let cancelAlgorithm be an algorithm that returns a promise resolved with undefined.
    // 7. If underlyingSourceDict["cancel"] exists, then set cancelAlgorithm to an algorithm
    //    which takes an argument reason and returns the result of invoking
    //    underlyingSourceDict["cancel"] with argument list « reason » and callback this value
    //    underlyingSource.
    let cancel_algorithm = match underlying_source_dict.cancel {
        Some(cancel) => ByteCancelAlgorithm::Js {
            source: underlying_source,
            cancel,
        },
        None => ByteCancelAlgorithm::ResolvedUndefined,
    };
    // 8. Let autoAllocateChunkSize be underlyingSourceDict["autoAllocateChunkSize"], if it
    //    exists, or undefined otherwise.
    let auto_allocate_chunk_size = underlying_source_dict.auto_allocate_chunk_size;
    // 9. If autoAllocateChunkSize is 0, then throw a TypeError exception.
    if auto_allocate_chunk_size == Some(0) {
        return Err(engine::throw_type_error(
            "autoAllocateChunkSize must be greater than 0",
        ));
    }
    // 10. Perform ? SetUpReadableByteStreamController(stream, controller, startAlgorithm,
    //     pullAlgorithm, cancelAlgorithm, highWaterMark, autoAllocateChunkSize).
    set_up_readable_byte_stream_controller(
        stream,
        &controller,
        start_algorithm,
        pull_algorithm,
        cancel_algorithm,
        high_water_mark,
        auto_allocate_chunk_size,
        ctx,
    )
}

/// <https://streams.spec.whatwg.org/#abstract-opdef-createreadablebytestream>
pub(crate) fn create_readable_byte_stream(
    start_algorithm: StartAlgorithm,
    pull_algorithm: BytePullAlgorithm,
    cancel_algorithm: ByteCancelAlgorithm,
    ctx: &mut Cx,
) -> JsResult<Object<ReadableStream>> {
    // 1. Let stream be a new ReadableStream.
    let stream = new_object(ReadableStream::new_uninitialized(), ctx)?;
    // 2. Perform ! InitializeReadableStream(stream).
    initialize_readable_stream(&stream);
    // 3. Let controller be a new ReadableByteStreamController.
    let controller = new_controller(&stream, ctx)?;
    // 4. Perform ? SetUpReadableByteStreamController(stream, controller, startAlgorithm,
    //    pullAlgorithm, cancelAlgorithm, 0, undefined).
    set_up_readable_byte_stream_controller(
        &stream,
        &controller,
        start_algorithm,
        pull_algorithm,
        cancel_algorithm,
        0.0,
        None,
        ctx,
    )?;
    // 5. Return stream.
    Ok(stream)
}
