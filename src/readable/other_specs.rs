//! Readable streams for other specifications (<https://streams.spec.whatwg.org/#other-specs-rs>):
//! the one door through which the stream's clients come in. TransformStream's readable side,
//! the cross-realm transform, `Blob.prototype.stream()`, the pipe, and the Rust API set up,
//! feed and read streams here; the controllers and readers name none of them.
//!
//! A client's pull and cancel algorithms are a [`NativeSource`] (an object holding the
//! client's state and two functions of it), and its read request's steps are a
//! [`ReadRequestSteps`] value.

use crate::engine::{
    self, clone::ByteBlock, webidl, Cx, JsResult, NativeObject, Object, PromiseResult, Shared,
    Slot, Value,
};
use crate::queue::NativeBytes;
use crate::queuing_strategy::SizeAlgorithm;

use super::{
    byob_request,
    byte_controller::{self, ByteCancelAlgorithm, ByteChunk, BytePullAlgorithm},
    default_controller::{self, CancelAlgorithm, PullAlgorithm, StartAlgorithm},
    default_reader::readable_stream_default_reader_read,
    stream::{create_readable_stream, initialize_readable_stream, ReadableStream, StreamSlots},
    ControllerRef, ReadableStreamDefaultReader,
};

pub(crate) use super::default_reader::{ReadRequest, ReadRequestSteps};

/// The pull and cancel algorithms of a stream another specification sets up, as functions of
/// the object that holds their state (`Self`). The algorithms may return a promise (a
/// [`PromiseResult`]); a thrown exception is a promise rejected with it (the wrappers of "set
/// up" steps 2–3, which the controllers apply to every algorithm's completion).
pub(crate) trait NativeUnderlyingSource: NativeObject + Sized {
    /// The pullAlgorithm; `controller` is the stream's [[controller]].
    fn pull(this: &Object<Self>, controller: Value, ctx: &mut Cx) -> JsResult<PromiseResult>;

    /// The cancelAlgorithm, given `reason`.
    fn cancel(this: &Object<Self>, reason: Value, ctx: &mut Cx) -> JsResult<PromiseResult>;

    /// Whether a byte source fills the pending reads' buffers from Rust only (it never asks
    /// the controller for its byobRequest's view), so that a native read may give it a Rust
    /// buffer that no script sees.
    const FILLS_IN_RUST: bool = false;
}

type PullFn = fn(&Object, Value, &mut Cx) -> JsResult<PromiseResult>;
type CancelFn = fn(&Object, Value, &mut Cx) -> JsResult<PromiseResult>;

traced_without_drop! {
/// A [`NativeUnderlyingSource`]'s object with its two algorithms: what the `Native` variants
/// of the controllers' pull and cancel algorithm enums hold. The functions are monomorphized
/// for the object's type, so dispatch is one function-pointer call and the core names no
/// client.
#[derive(Clone)]
pub(crate) struct NativeSource {
    object: Object,
    #[unsafe_ignore_trace]
    pull: PullFn,
    #[unsafe_ignore_trace]
    cancel: CancelFn,
    /// [`NativeUnderlyingSource::FILLS_IN_RUST`].
    fills_in_rust: bool,
}
}

impl std::fmt::Debug for NativeSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NativeSource").finish_non_exhaustive()
    }
}

impl NativeSource {
    /// The algorithms of `object`.
    pub(crate) fn new<T: NativeUnderlyingSource>(object: &Object<T>) -> Self {
        Self {
            object: object.clone().upcast(),
            pull: |object, controller, ctx| {
                T::pull(&webidl::downcast::<T>(object)?, controller, ctx)
            },
            cancel: |object, reason, ctx| T::cancel(&webidl::downcast::<T>(object)?, reason, ctx),
            fills_in_rust: T::FILLS_IN_RUST,
        }
    }

    /// [`NativeUnderlyingSource::FILLS_IN_RUST`] of the source.
    pub(crate) fn fills_in_rust(&self) -> bool {
        self.fills_in_rust
    }

    /// Performs the pullAlgorithm for `controller`.
    pub(crate) fn pull(&self, controller: Value, ctx: &mut Cx) -> JsResult<PromiseResult> {
        let result = (self.pull)(&self.object, controller, ctx);
        PromiseResult::from_algorithm(result, ctx)
    }

    /// Performs the cancelAlgorithm, passing `reason`.
    pub(crate) fn cancel(&self, reason: Value, ctx: &mut Cx) -> JsResult<PromiseResult> {
        let result = (self.cancel)(&self.object, reason, ctx);
        PromiseResult::from_algorithm(result, ctx)
    }
}

/// <https://streams.spec.whatwg.org/#readablestream-set-up>, on a new `ReadableStream` of the
/// current realm: `source`'s algorithms (none: both return a promise resolved with
/// undefined), `high_water_mark` (the spec's default is 1) and `size_algorithm` (default:
/// one per chunk).
pub(crate) fn set_up(
    source: Option<NativeSource>,
    high_water_mark: f64,
    size_algorithm: SizeAlgorithm,
    ctx: &mut Cx,
) -> JsResult<Object<ReadableStream>> {
    // 1. Let startAlgorithm be an algorithm that returns undefined.
    // 2.–3. pullAlgorithmWrapper, cancelAlgorithmWrapper (where the algorithms are performed).
    let (pull, cancel) = match source {
        Some(source) => (
            PullAlgorithm::Native(source.clone()),
            CancelAlgorithm::Native(source),
        ),
        None => (
            PullAlgorithm::ResolvedUndefined,
            CancelAlgorithm::ResolvedUndefined,
        ),
    };
    // 4. If sizeAlgorithm was not given, then set it to an algorithm that returns 1.
    // 5. Perform ! InitializeReadableStream(stream).
    // 6. Let controller be a new ReadableStreamDefaultController.
    // 7. Perform ! SetUpReadableStreamDefaultController(stream, controller, startAlgorithm,
    //    pullAlgorithmWrapper, cancelAlgorithmWrapper, highWaterMark, sizeAlgorithm).
    create_readable_stream(
        StartAlgorithm::ReturnUndefined,
        pull,
        cancel,
        Some(high_water_mark),
        Some(size_algorithm),
        ctx,
    )
}

/// <https://streams.spec.whatwg.org/#readablestream-set-up-with-byte-reading-support>, on a
/// new `ReadableStream` of the current realm (the spec's default high-water mark is 0).
///
/// AD-HOC: `auto_allocate_chunk_size` is SetUpReadableByteStreamController's last argument,
/// which the spec's operation passes as undefined; the Rust API lets a byte source ask for it.
pub(crate) fn set_up_with_byte_reading_support(
    source: Option<NativeSource>,
    high_water_mark: f64,
    auto_allocate_chunk_size: Option<u64>,
    ctx: &mut Cx,
) -> JsResult<Object<ReadableStream>> {
    let stream = webidl::new_object(ReadableStream::new_uninitialized(), ctx)?;
    // 1. Let startAlgorithm be an algorithm that returns undefined.
    // 2.–3. pullAlgorithmWrapper, cancelAlgorithmWrapper.
    let (pull, cancel) = match source {
        Some(source) => (
            BytePullAlgorithm::Native(source.clone()),
            ByteCancelAlgorithm::Native(source),
        ),
        None => (
            BytePullAlgorithm::ResolvedUndefined,
            ByteCancelAlgorithm::ResolvedUndefined,
        ),
    };
    // 4. Perform ! InitializeReadableStream(stream).
    initialize_readable_stream(&stream);
    // 5. Let controller be a new ReadableByteStreamController.
    let controller = byte_controller::new_controller(&stream, ctx)?;
    // 6. Perform ! SetUpReadableByteStreamController(stream, controller, startAlgorithm,
    //    pullAlgorithmWrapper, cancelAlgorithmWrapper, highWaterMark, undefined).
    byte_controller::set_up_readable_byte_stream_controller(
        &stream,
        &controller,
        StartAlgorithm::ReturnUndefined,
        pull,
        cancel,
        high_water_mark,
        auto_allocate_chunk_size,
        ctx,
    )?;
    Ok(stream)
}

/// <https://streams.spec.whatwg.org/#readablestream-close>
pub(crate) fn close(stream: &Object<ReadableStream>, ctx: &mut Cx) -> JsResult<()> {
    match stream.controller() {
        // 1. If stream.[[controller]] implements ReadableByteStreamController,
        Some(ControllerRef::Byte(controller)) => {
            // 1.1. Perform ! ReadableByteStreamControllerClose(stream.[[controller]]).
            byte_controller::readable_byte_stream_controller_close(&controller, ctx)?;
            // 1.2. If stream.[[controller]].[[pendingPullIntos]] is not empty, perform !
            //      ReadableByteStreamControllerRespond(stream.[[controller]], 0).
            if byte_controller::has_pending_pull_intos(&controller) {
                byte_controller::readable_byte_stream_controller_respond(&controller, 0, ctx)?;
            }
            Ok(())
        }
        // 2. Otherwise, perform ! ReadableStreamDefaultControllerClose(stream.[[controller]]).
        Some(ControllerRef::Default(controller)) => {
            default_controller::readable_stream_default_controller_close(&controller, ctx)
        }
        None => Ok(()),
    }
}

/// <https://streams.spec.whatwg.org/#readablestream-error>
pub(crate) fn error(stream: &Object<ReadableStream>, e: Value, ctx: &mut Cx) -> JsResult<()> {
    match stream.controller() {
        // 1. If stream.[[controller]] implements ReadableByteStreamController, then perform !
        //    ReadableByteStreamControllerError(stream.[[controller]], e).
        Some(ControllerRef::Byte(controller)) => {
            byte_controller::readable_byte_stream_controller_error(&controller, e, ctx)
        }
        // 2. Otherwise, perform ! ReadableStreamDefaultControllerError(stream.[[controller]], e).
        Some(ControllerRef::Default(controller)) => {
            default_controller::readable_stream_default_controller_error(&controller, e, ctx)
        }
        None => Ok(()),
    }
}

/// <https://streams.spec.whatwg.org/#readablestream-enqueue>
pub(crate) fn enqueue(stream: &Object<ReadableStream>, chunk: Value, ctx: &mut Cx) -> JsResult<()> {
    match stream.controller() {
        // 1. If stream.[[controller]] implements ReadableStreamDefaultController,
        //    1.1. Perform ! ReadableStreamDefaultControllerEnqueue(stream.[[controller]], chunk).
        Some(ControllerRef::Default(controller)) => {
            default_controller::readable_stream_default_controller_enqueue(&controller, chunk, ctx)
        }
        // 2. Otherwise,
        //    2.1. Assert: stream.[[controller]] implements ReadableByteStreamController.
        Some(ControllerRef::Byte(controller)) => {
            // 2.2. Assert: chunk is an ArrayBufferView.
            let chunk = engine::array_buffer_view(&chunk, "The chunk", ctx)?;
            // 2.3. Let byobView be the current BYOB request view for stream.
            // 2.4. If byobView is non-null, and chunk.[[ViewedArrayBuffer]] is
            //      byobView.[[ViewedArrayBuffer]], then:
            let byob_view = current_byob_request_view(stream, ctx)?;
            if byob_view.is_some_and(|view| engine::same_buffer(&view.buffer, &chunk.buffer)) {
                // 2.4.1.–2.4.2. Assert: the chunk is within the view (the caller's promise).
                // 2.4.3. Perform ? ReadableByteStreamControllerRespond(stream.[[controller]],
                //        chunk.[[ByteLength]]).
                byte_controller::readable_byte_stream_controller_respond(
                    &controller,
                    chunk.byte_length,
                    ctx,
                )
            } else {
                // 2.5. Otherwise, perform ? ReadableByteStreamControllerEnqueue(
                //      stream.[[controller]], chunk).
                byte_controller::readable_byte_stream_controller_enqueue(
                    &controller,
                    ByteChunk::View(&chunk),
                    ctx,
                )
            }
        }
        None => Ok(()),
    }
}

/// <https://streams.spec.whatwg.org/#readablestream-enqueue> of a new `Uint8Array` holding
/// `bytes` (that no script holds), without making the view where the stream is set up with byte
/// reading support: see [`ByteChunk::Bytes`].
pub(crate) fn enqueue_bytes(
    stream: &Object<ReadableStream>,
    bytes: Vec<u8>,
    ctx: &mut Cx,
) -> JsResult<()> {
    enqueue_native_bytes(stream, NativeBytes::from_vec(bytes), ctx)
}

/// [`enqueue_bytes`] of the bytes of `range` of `bytes`, immutable bytes the caller shares (a
/// `Blob`'s, a body's source): they are not copied unless script reads them (an empty chunk if
/// the range is not within them).
pub(crate) fn enqueue_shared_bytes(
    stream: &Object<ReadableStream>,
    bytes: std::sync::Arc<[u8]>,
    range: std::ops::Range<usize>,
    ctx: &mut Cx,
) -> JsResult<()> {
    enqueue_native_bytes(stream, NativeBytes::shared(bytes, range), ctx)
}

/// [`enqueue_bytes`] of Rust bytes, owned or shared.
///
/// (Those bytes count toward a collection while the stream holds them: this is where native
/// sources add them, so a collection is forced here first once they have grown enough, see
/// [`engine::collect_if_external_bytes_grew`]; and past the agent's memory limit, see
/// [`engine::check_external_bytes_limit`], the enqueue throws a RangeError, as making the
/// chunk's `ArrayBuffer` would.)
fn enqueue_native_bytes(
    stream: &Object<ReadableStream>,
    bytes: NativeBytes,
    ctx: &mut Cx,
) -> JsResult<()> {
    engine::collect_if_external_bytes_grew(ctx);
    engine::check_external_bytes_limit(ctx)?;
    match stream.controller() {
        // 2. Otherwise, 2.1. Assert: stream.[[controller]] implements
        //    ReadableByteStreamController.
        Some(ControllerRef::Byte(controller)) => {
            // 2.3.–2.4. The current BYOB request view's buffer is never a new chunk's buffer.
            //    (AD-HOC: the view is not asked for, since asking makes the BYOB request
            //    object, which then only the enqueue's step 8.3 invalidates.)
            // 2.5. Perform ? ReadableByteStreamControllerEnqueue(stream.[[controller]], chunk).
            byte_controller::readable_byte_stream_controller_enqueue(
                &controller,
                ByteChunk::Bytes(bytes),
                ctx,
            )
        }
        // (A value stream gets the view.)
        Some(ControllerRef::Default(_)) => {
            let chunk = engine::new_uint8_array(bytes.as_slice(), ctx)?;
            enqueue(stream, chunk, ctx)
        }
        None => Ok(()),
    }
}

/// <https://streams.spec.whatwg.org/#readablestream-current-byob-request-view>
pub(crate) fn current_byob_request_view(
    stream: &Object<ReadableStream>,
    ctx: &mut Cx,
) -> JsResult<Option<engine::ViewRecord>> {
    // 1. Assert: stream.[[controller]] implements ReadableByteStreamController.
    let Some(ControllerRef::Byte(controller)) = stream.controller() else {
        debug_assert!(
            false,
            "Assert: the controller is a ReadableByteStreamController"
        );
        return Ok(None);
    };
    // 2. Let byobRequest be ! ReadableByteStreamControllerGetBYOBRequest(stream.[[controller]]).
    // 3. If byobRequest is null, then return null.
    let Some(request) =
        byte_controller::readable_byte_stream_controller_get_byob_request(&controller, ctx)?
    else {
        return Ok(None);
    };
    // 4. Return byobRequest.[[view]].
    match byob_request::view(&request) {
        Some(view) => Ok(Some(engine::array_buffer_view(
            &view.into(),
            "The view",
            ctx,
        )?)),
        None => Ok(None),
    }
}

/// <https://streams.spec.whatwg.org/#readablestreamdefaultreader-read-a-chunk>: perform !
/// ReadableStreamDefaultReaderRead(reader, readRequest), with a client's read request steps.
pub(crate) fn read_a_chunk(
    reader: &Object<ReadableStreamDefaultReader>,
    steps: Box<dyn ReadRequestSteps>,
    ctx: &mut Cx,
) -> JsResult<()> {
    readable_stream_default_reader_read(reader, ReadRequest::Steps(steps), ctx)
}

/// <https://streams.spec.whatwg.org/#readablestream-get-a-reader>: ?
/// AcquireReadableStreamDefaultReader(stream) (a `TypeError` if the stream is locked).
pub(crate) fn get_a_reader(
    stream: &Object<ReadableStream>,
    ctx: &mut Cx,
) -> JsResult<Object<ReadableStreamDefaultReader>> {
    super::stream::acquire_readable_stream_default_reader(stream, ctx)
}

/// The success and failure steps of "read all bytes": they run once, and each takes the steps.
pub(crate) trait ReadAllBytesSteps: crate::engine::Trace + std::fmt::Debug {
    /// The successSteps, given the bytes read ([`ByteSequence::into_block`] makes them a block
    /// an `ArrayBuffer` can adopt as is).
    fn success_steps(self: Box<Self>, bytes: ByteSequence, ctx: &mut Cx) -> JsResult<()>;
    /// The failureSteps, given the error.
    fn failure_steps(self: Box<Self>, e: Value, ctx: &mut Cx) -> JsResult<()>;
}

traced! {
/// The state of one "read all bytes": the reader, the bytes so far, the caller's steps, and
/// the trampoline that keeps the read-loop's recursion off the Rust stack.
#[derive(Debug)]
struct ReadAllBytes {
    reader: Object<ReadableStreamDefaultReader>,
    #[unsafe_ignore_trace]
    bytes: std::cell::RefCell<ByteSequence>,
    steps: Slot<Option<Box<dyn ReadAllBytesSteps>>>,
    /// A read is in progress on the Rust stack (inside [`read_loop`]'s call).
    #[unsafe_ignore_trace]
    reading: std::cell::Cell<bool>,
    /// A chunk arrived synchronously during that read: the loop reads again.
    #[unsafe_ignore_trace]
    again: std::cell::Cell<bool>,
}
}

/// The read-loop's chunk steps' step 3: read-loop given reader, bytes, successSteps, and
/// failureSteps. (A chunk delivered while the loop's own read is on the stack only flags it:
/// the loop reads again when that read returns, so the recursion is a loop.)
fn read_loop_again(state: &Shared<ReadAllBytes>, ctx: &mut Cx) -> JsResult<()> {
    if state.reading.get() {
        state.again.set(true);
        Ok(())
    } else {
        read_loop(state, ctx)
    }
}

traced_without_drop! {
/// The read request of the read-loop.
#[derive(Debug)]
struct ReadLoopRequest(Shared<ReadAllBytes>);
}

impl ReadRequestSteps for ReadLoopRequest {
    fn chunk_steps(self: Box<Self>, chunk: Value, ctx: &mut Cx) -> JsResult<()> {
        let state = self.0;
        // 1. If chunk is not a Uint8Array object, call failureSteps with a TypeError and abort
        //    these steps.
        let is_uint8_array = engine::uint8_array_bytes(&chunk, ctx, |bytes| {
            state.bytes.borrow_mut().push(bytes);
            bytes.len()
        });
        if let Some(consumed) = is_uint8_array {
            engine::note_consumed_bytes(consumed);
        }
        if is_uint8_array.is_none() {
            let error = engine::type_error("The chunk read is not a Uint8Array", ctx);
            return match state.steps.borrow_mut().take() {
                Some(steps) => steps.failure_steps(error, ctx),
                None => Ok(()),
            };
        }
        // 2. Append the bytes represented by chunk to bytes (done above).
        read_loop_again(&state, ctx)
    }

    fn takes_bytes(&self) -> bool {
        true
    }

    // Rust bytes are a `Uint8Array` chunk as script would get it (step 1 holds): their bytes
    // are appended as they are.
    fn bytes_chunk_steps(
        self: Box<Self>,
        bytes: NativeBytes,
        _: &Object<ReadableStream>,
        ctx: &mut Cx,
    ) -> JsResult<()> {
        let state = self.0;
        // 2. Append the bytes represented by chunk to bytes.
        // (Rust bytes are no garbage of the engine's: unlike a JS chunk's, they are not counted
        // as consumed, as `rust::reader::copy_into` does not count them.)
        state.bytes.borrow_mut().push(bytes.as_slice());
        read_loop_again(&state, ctx)
    }

    fn close_steps(self: Box<Self>, ctx: &mut Cx) -> JsResult<()> {
        // 1. Call successSteps with bytes.
        let bytes = std::mem::take(&mut *self.0.bytes.borrow_mut());
        let steps = self.0.steps.borrow_mut().take();
        match steps {
            Some(steps) => steps.success_steps(bytes, ctx),
            None => Ok(()),
        }
    }

    fn error_steps(self: Box<Self>, e: Value, ctx: &mut Cx) -> JsResult<()> {
        // 1. Call failureSteps with e.
        let steps = self.0.steps.borrow_mut().take();
        match steps {
            Some(steps) => steps.failure_steps(e, ctx),
            None => Ok(()),
        }
    }
}

/// The byte sequence "read all bytes" appends each chunk to and gives its successSteps, kept as
/// the chunks' copies in
/// parts of at least [`ByteSequence::PART`] bytes and copied once into a block of the exact
/// length at the end (growing one block by doubling copied a large body about twice and
/// faulted in every fresh block it outgrew page by page). A body that fits one part of its
/// own length, such as one chunk of [`ByteSequence::PART`] or more, is that part, not copied.
#[derive(Default)]
pub(crate) struct ByteSequence {
    /// The chunks' bytes, in order.
    parts: Vec<Vec<u8>>,
}

impl std::fmt::Debug for ByteSequence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ByteSequence({} bytes)", self.len())
    }
}

impl ByteSequence {
    /// The smallest part: small chunks share one.
    const PART: usize = 64 * 1024;

    /// How many bytes.
    pub(crate) fn len(&self) -> usize {
        self.parts.iter().map(Vec::len).sum()
    }

    /// The bytes, in parts in order (none when there are none): what a consumer that does not
    /// need them in one block reads, without [`ByteSequence::into_block`]'s copy.
    pub(crate) fn parts(&self) -> impl Iterator<Item = &[u8]> {
        self.parts.iter().map(Vec::as_slice)
    }

    /// Appends a copy of `bytes`.
    fn push(&mut self, bytes: &[u8]) {
        if let Some(last) = self.parts.last_mut() {
            if last.capacity() - last.len() >= bytes.len() {
                last.extend_from_slice(bytes);
                return;
            }
        }
        let mut part = Vec::with_capacity(bytes.len().max(Self::PART));
        part.extend_from_slice(bytes);
        self.parts.push(part);
    }

    /// The bytes as one block of exactly their length.
    pub(crate) fn into_block(mut self) -> ByteBlock {
        if let [part] = self.parts.as_slice() {
            if part.len() == part.capacity() {
                return ByteBlock::from_vec(self.parts.pop().unwrap_or_default());
            }
        }
        let mut block = ByteBlock::with_capacity(self.len());
        for part in &self.parts {
            block.extend_from_slice(part);
        }
        block
    }
}

/// <https://streams.spec.whatwg.org/#readablestreamdefaultreader-read-all-bytes>
pub(crate) fn read_all_bytes(
    reader: &Object<ReadableStreamDefaultReader>,
    steps: Box<dyn ReadAllBytesSteps>,
    ctx: &mut Cx,
) -> JsResult<()> {
    // Read-loop given reader, a new byte sequence, successSteps, and failureSteps.
    let state = Shared::new(ReadAllBytes {
        reader: reader.clone(),
        bytes: std::cell::RefCell::new(ByteSequence::default()),
        steps: Slot::new(Some(steps)),
        reading: std::cell::Cell::new(false),
        again: std::cell::Cell::new(false),
    });
    read_loop(&state, ctx)
}

/// <https://streams.spec.whatwg.org/#read-loop>, as a loop: each turn performs !
/// ReadableStreamDefaultReaderRead(reader, readRequest); a chunk that arrives during that call
/// asks for another turn instead of recursing.
fn read_loop(state: &Shared<ReadAllBytes>, ctx: &mut Cx) -> JsResult<()> {
    loop {
        state.again.set(false);
        state.reading.set(true);
        let request = ReadRequest::Steps(Box::new(ReadLoopRequest(state.clone())));
        let result = readable_stream_default_reader_read(&state.reader, request, ctx);
        state.reading.set(false);
        result?;
        if !state.again.get() {
            return Ok(());
        }
    }
}

/// <https://streams.spec.whatwg.org/#readablestream-cancel>: ! ReadableStreamCancel(stream,
/// reason), a promise.
pub(crate) fn cancel(
    stream: &Object<ReadableStream>,
    reason: Value,
    ctx: &mut Cx,
) -> JsResult<engine::JsPromise> {
    super::stream::readable_stream_cancel(stream, reason, ctx)
}

/// <https://streams.spec.whatwg.org/#readablestream-tee>: ? ReadableStreamTee(stream, true).
pub(crate) fn tee(
    stream: &Object<ReadableStream>,
    ctx: &mut Cx,
) -> JsResult<(Object<ReadableStream>, Object<ReadableStream>)> {
    super::stream::readable_stream_tee(stream, true, ctx)
}

/// <https://streams.spec.whatwg.org/#readablestream-readable>
pub(crate) fn is_readable(stream: &Object<ReadableStream>) -> bool {
    stream.state() == super::stream::StreamState::Readable
}

/// <https://streams.spec.whatwg.org/#readablestream-locked>
pub(crate) fn is_locked(stream: &Object<ReadableStream>) -> bool {
    super::stream::is_readable_stream_locked(stream)
}

/// <https://streams.spec.whatwg.org/#is-readable-stream-disturbed>
pub(crate) fn is_disturbed(stream: &Object<ReadableStream>) -> bool {
    stream.disturbed()
}

#[cfg(test)]
mod read_bytes_tests {
    use super::ByteSequence;

    /// Chunks of every size relative to a part, empty ones included: small ones share a part,
    /// and the block holds every byte once, in order, with no spare room.
    #[test]
    fn the_chunks_are_joined_in_order_into_one_exact_block() {
        let mut read = ByteSequence::default();
        let mut want = Vec::new();
        for (i, len) in [0, 1, 100, 70_000, 3, 65_536, 65_535, 1]
            .into_iter()
            .enumerate()
        {
            let chunk: Vec<u8> = (0..len).map(|j| (i * 31 + j) as u8).collect();
            read.push(&chunk);
            want.extend_from_slice(&chunk);
        }
        // [0, 1, 100] share the first part; 70,000 gets its own; 3 starts a part that 65,536
        // does not fit in; 65,535 starts one that the last byte fills.
        assert_eq!(read.parts.len(), 5);
        assert_eq!(read.len(), want.len());
        let block = read.into_block();
        assert_eq!(block.len(), want.len());
        assert_eq!(block.as_slice(), &want[..]);
    }
}
