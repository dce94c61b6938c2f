//! `ReadableStreamDefaultReader`, read requests, and the default reader abstract operations.
//!
//! <https://streams.spec.whatwg.org/#default-reader-class>

use std::collections::VecDeque;

use crate::engine::{create_iter_result_object, Cx, JsResult, Object, Slot, Trace, Value};
use crate::queue::{Chunk, NativeBytes};

use super::{
    async_iterator::{self, ReadableStreamAsyncIterator},
    default_controller::bytes_chunk_value,
    generic_reader::{
        define_generic_reader, readable_stream_reader_generic_initialize,
        readable_stream_reader_generic_release, GenericReader, GenericReaderSlots,
    },
    pipe::PipeRead,
    readable_stream_controller_pull_steps,
    stream::{
        disturb, is_readable_stream_locked, stream_argument, ReadableStream, StreamSlots,
        StreamState,
    },
    ReaderRef,
};
use crate::{engine, engine::webidl, engine::PromiseCapability};

traced_without_drop! {
/// A read request: <https://streams.spec.whatwg.org/#read-request>. Its chunk, close and error
/// steps are Rust code; only [`ReadRequest::Read`] resolves a promise that script holds.
#[derive(Debug)]
pub(crate) enum ReadRequest {
    /// `ReadableStreamDefaultReader.prototype.read()`: resolves the user's promise with a
    /// `{ value, done }` object.
    Read(PromiseCapability),
    /// The async iterator's "get the next iteration result".
    AsyncIterator(Object<ReadableStreamAsyncIterator>, PromiseCapability),
    /// A read request whose steps another algorithm or specification gives: the tees', a Rust
    /// reader's (<https://streams.spec.whatwg.org/#readablestreamdefaultreader-read-a-chunk>).
    Steps(Box<dyn ReadRequestSteps>),
    /// ReadableStreamPipeTo's read request (made once per chunk, so held as it is, not boxed).
    Pipe(PipeRead),
}
}

/// The chunk, close and error steps of a read request made outside the readers' own methods
/// (ReadableStreamPipeTo's, or another specification's "read a chunk"). They run once: each
/// takes the request.
pub(crate) trait ReadRequestSteps: Trace + std::fmt::Debug {
    /// The chunk steps, given `chunk`.
    fn chunk_steps(self: Box<Self>, chunk: Value, ctx: &mut Cx) -> JsResult<()>;
    /// The close steps.
    fn close_steps(self: Box<Self>, ctx: &mut Cx) -> JsResult<()>;
    /// The error steps, given `e`.
    fn error_steps(self: Box<Self>, e: Value, ctx: &mut Cx) -> JsResult<()>;
    /// Whether the steps take a chunk of Rust bytes as they are ([`Self::bytes_chunk_steps`]),
    /// never handing the chunk to script: for those a byte stream may give a small chunk that
    /// script enqueued as Rust bytes (`readable_byte_stream_controller_enqueue`).
    fn takes_bytes(&self) -> bool {
        false
    }
    /// The chunk steps, given a chunk of Rust bytes (see [`Chunk`]) read from `stream`. The
    /// default gives the chunk steps the `Uint8Array` holding them that script would get
    /// ([`bytes_chunk_value`]).
    fn bytes_chunk_steps(
        self: Box<Self>,
        bytes: NativeBytes,
        stream: &Object<ReadableStream>,
        ctx: &mut Cx,
    ) -> JsResult<()> {
        let chunk = bytes_chunk_value(stream, bytes, ctx)?;
        self.chunk_steps(chunk, ctx)
    }
}

impl ReadRequest {
    /// The read request's chunk steps, given a [`Chunk`] read from `stream`: Rust bytes reach
    /// steps that take them as they are, and any other request as the `Uint8Array` holding them
    /// that script gets ([`bytes_chunk_value`]).
    pub(crate) fn chunk_steps_for(
        self,
        chunk: Chunk,
        stream: &Object<ReadableStream>,
        ctx: &mut Cx,
    ) -> JsResult<()> {
        match (self, chunk) {
            (ReadRequest::Steps(steps), Chunk::Bytes(bytes)) => {
                steps.bytes_chunk_steps(bytes, stream, ctx)
            }
            (ReadRequest::Pipe(pipe), Chunk::Bytes(bytes)) => pipe.bytes_chunk_steps(bytes, ctx),
            (request, Chunk::Bytes(bytes)) => {
                let chunk = bytes_chunk_value(stream, bytes, ctx)?;
                request.chunk_steps(chunk, ctx)
            }
            (request, Chunk::Value(chunk)) => request.chunk_steps(chunk, ctx),
        }
    }

    /// The read request's chunk steps, given `chunk`.
    pub(crate) fn chunk_steps(self, chunk: Value, ctx: &mut Cx) -> JsResult<()> {
        match self {
            // 1. Resolve promise with «[ "value" → chunk, "done" → false ]».
            ReadRequest::Read(promise) => {
                let result = create_iter_result_object(chunk, false, ctx);
                promise.resolve(result, ctx)
            }
            ReadRequest::AsyncIterator(iterator, promise) => {
                async_iterator::next_chunk_steps(iterator, promise, chunk, ctx)
            }
            ReadRequest::Steps(steps) => steps.chunk_steps(chunk, ctx),
            ReadRequest::Pipe(pipe) => pipe.chunk_steps(chunk, ctx),
        }
    }

    /// The read request's close steps.
    pub(crate) fn close_steps(self, ctx: &mut Cx) -> JsResult<()> {
        match self {
            // 1. Resolve promise with «[ "value" → undefined, "done" → true ]».
            ReadRequest::Read(promise) => {
                let result = create_iter_result_object(Value::undefined(), true, ctx);
                promise.resolve(result, ctx)
            }
            ReadRequest::AsyncIterator(iterator, promise) => {
                async_iterator::next_close_steps(iterator, promise, ctx)
            }
            ReadRequest::Steps(steps) => steps.close_steps(ctx),
            ReadRequest::Pipe(pipe) => pipe.close_steps(ctx),
        }
    }

    /// The read request's error steps, given `e`.
    pub(crate) fn error_steps(self, e: Value, ctx: &mut Cx) -> JsResult<()> {
        match self {
            // 1. Reject promise with e.
            ReadRequest::Read(promise) => promise.reject(e, ctx),
            ReadRequest::AsyncIterator(iterator, promise) => {
                async_iterator::next_error_steps(iterator, promise, e, ctx)
            }
            ReadRequest::Steps(steps) => steps.error_steps(e, ctx),
            ReadRequest::Pipe(pipe) => pipe.error_steps(e, ctx),
        }
    }
}

traced! {
    data;
    /// <https://streams.spec.whatwg.org/#readablestreamdefaultreader>
    #[derive(Debug)]
    pub(crate) struct ReadableStreamDefaultReader {
        /// The `ReadableStreamGenericReader` slots.
        pub(crate) generic: GenericReaderSlots,
        /// <https://streams.spec.whatwg.org/#readablestreamdefaultreader-readrequests>
        read_requests: Slot<VecDeque<ReadRequest>>,
    }
}

impl ReadableStreamDefaultReader {
    /// A reader before SetUpReadableStreamDefaultReader.
    pub(crate) fn new() -> Self {
        Self {
            generic: GenericReaderSlots::new(),
            read_requests: Slot::new(VecDeque::new()),
        }
    }
}

type Reader = Object<ReadableStreamDefaultReader>;

/// Appends to [[readRequests]].
pub(crate) fn push_read_request(reader: &Reader, read_request: ReadRequest) {
    reader
        .borrow()
        .data()
        .read_requests
        .borrow_mut()
        .push_back(read_request);
}

/// Removes and returns [[readRequests]][0].
pub(crate) fn shift_read_request(reader: &Reader) -> Option<ReadRequest> {
    let data = reader.borrow();
    let mut requests = data.data().read_requests.borrow_mut();
    let request = requests.pop_front();
    crate::queue::give_back_memory(&mut *requests);
    request
}

/// Sets [[readRequests]] to a new empty list, returning the old one.
pub(crate) fn take_read_requests(reader: &Reader) -> VecDeque<ReadRequest> {
    std::mem::take(&mut *reader.borrow().data().read_requests.borrow_mut())
}

/// [[readRequests]]'s size.
pub(crate) fn num_read_requests(reader: &Reader) -> usize {
    reader.borrow().data().read_requests.borrow().len()
}

/// Whether the first of a default reader's read requests takes a chunk of Rust bytes as they
/// are ([`ReadRequestSteps::takes_bytes`]).
pub(crate) fn first_read_request_takes_bytes(reader: &Reader) -> bool {
    matches!(
        reader.borrow().data().read_requests.borrow().front(),
        Some(ReadRequest::Steps(steps)) if steps.takes_bytes()
    )
}

/// [[stream]] of a default reader.
pub(crate) fn reader_stream(reader: &Reader) -> Option<Object<ReadableStream>> {
    reader.borrow().data().generic.stream()
}

impl webidl::ClassInterface for ReadableStreamDefaultReader {
    const LENGTH: usize = 1;
    fn members(b: &mut webidl::InterfaceBuilder<'_, '_>) {
        b.promise_operation("read", 0, read);
        b.operation("releaseLock", 0, release_lock);
        define_generic_reader::<Self>(b);
    }

    fn construct(_: &Value, args: &[Value], _: &mut Cx) -> JsResult<Self> {
        // WebIDL conversion of the `ReadableStream stream` argument.
        stream_argument(args, <Self as webidl::Interface>::NAME)?;
        Ok(Self::new())
    }

    /// <https://streams.spec.whatwg.org/#default-reader-constructor>
    fn constructed(this: &Object<Self>, args: &[Value], ctx: &mut Cx) -> JsResult<()> {
        let stream = stream_argument(args, <Self as webidl::Interface>::NAME)?;
        // 1. Perform ? SetUpReadableStreamDefaultReader(this, stream).
        set_up_readable_stream_default_reader(this, &stream, ctx)
    }
}

webidl::interface!(ReadableStreamDefaultReader, "ReadableStreamDefaultReader");

impl GenericReader for ReadableStreamDefaultReader {
    fn generic(&self) -> &GenericReaderSlots {
        &self.generic
    }

    fn reader_ref(this: Object<Self>) -> ReaderRef {
        ReaderRef::Default(this)
    }
}

/// <https://streams.spec.whatwg.org/#default-reader-read>
fn read(this: &Value, _: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let reader = webidl::this::<ReadableStreamDefaultReader>(this)?;
    // 1. If this.[[stream]] is undefined, return a promise rejected with a TypeError exception.
    if reader_stream(&reader).is_none() {
        let e = engine::type_error("The reader is not attached to a stream", ctx);
        return Ok(engine::promise_rejected_with(e, ctx)?.into());
    }
    // 2. Let promise be a new promise.
    let promise = PromiseCapability::new(ctx);
    let result = promise.promise().clone();
    // 3. Let readRequest be a new read request with the chunk, close and error steps above.
    // 4. Perform ! ReadableStreamDefaultReaderRead(this, readRequest).
    readable_stream_default_reader_read(&reader, ReadRequest::Read(promise), ctx)?;
    // 5. Return promise.
    Ok(result.into())
}

/// <https://streams.spec.whatwg.org/#default-reader-release-lock>
fn release_lock(this: &Value, _: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let reader = webidl::this::<ReadableStreamDefaultReader>(this)?;
    // 1. If this.[[stream]] is undefined, return.
    if reader_stream(&reader).is_none() {
        return Ok(Value::undefined());
    }
    // 2. Perform ! ReadableStreamDefaultReaderRelease(this).
    readable_stream_default_reader_release(&reader, ctx)?;
    Ok(Value::undefined())
}

/// <https://streams.spec.whatwg.org/#abstract-opdef-readablestreamdefaultreadererrorreadrequests>
pub(crate) fn readable_stream_default_reader_error_read_requests(
    reader: &Reader,
    e: Value,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Let readRequests be reader.[[readRequests]].
    // 2. Set reader.[[readRequests]] to a new empty list.
    let read_requests = take_read_requests(reader);
    // 3. For each readRequest of readRequests, perform readRequest's error steps, given e.
    for read_request in read_requests {
        read_request.error_steps(e.clone(), ctx)?;
    }
    Ok(())
}

/// <https://streams.spec.whatwg.org/#readable-stream-default-reader-read>
pub(crate) fn readable_stream_default_reader_read(
    reader: &Reader,
    read_request: ReadRequest,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Let stream be reader.[[stream]].
    // 2. Assert: stream is not undefined.
    // 3. Set stream.[[disturbed]] to true. (Read in place, per chunk, with the state and the
    //    controller.)
    let Some((state, controller)) = reader.borrow().data().generic.with_stream(disturb) else {
        debug_assert!(false, "Assert: stream is not undefined");
        let e = engine::type_error("The reader is not attached to a stream", ctx);
        return read_request.error_steps(e, ctx);
    };
    match state {
        // 4. If stream.[[state]] is "closed", perform readRequest's close steps.
        StreamState::Closed => read_request.close_steps(ctx),
        // 5. Otherwise, if stream.[[state]] is "errored", perform readRequest's error steps
        //    given stream.[[storedError]].
        StreamState::Errored => {
            let e = reader_stream(reader)
                .map(|s| s.stored_error())
                .unwrap_or_default();
            read_request.error_steps(e, ctx)
        }
        // 6. Otherwise,
        StreamState::Readable => {
            // 6.1. Assert: stream.[[state]] is "readable".
            // 6.2. Perform ! stream.[[controller]].[[PullSteps]](readRequest).
            match controller {
                Some(controller) => {
                    readable_stream_controller_pull_steps(&controller, read_request, ctx)
                }
                None => Ok(()),
            }
        }
    }
}

/// <https://streams.spec.whatwg.org/#abstract-opdef-readablestreamdefaultreaderrelease>
pub(crate) fn readable_stream_default_reader_release(
    reader: &Reader,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Perform ! ReadableStreamReaderGenericRelease(reader).
    readable_stream_reader_generic_release(&ReaderRef::Default(reader.clone()), ctx)?;
    // 2. Let e be a new TypeError exception.
    let e = engine::type_error("The reader's lock was released", ctx);
    // 3. Perform ! ReadableStreamDefaultReaderErrorReadRequests(reader, e).
    readable_stream_default_reader_error_read_requests(reader, e, ctx)
}

/// <https://streams.spec.whatwg.org/#set-up-readable-stream-default-reader>
pub(crate) fn set_up_readable_stream_default_reader(
    reader: &Reader,
    stream: &Object<ReadableStream>,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. If ! IsReadableStreamLocked(stream) is true, throw a TypeError exception.
    if is_readable_stream_locked(stream) {
        return Err(engine::throw_type_error(
            "The stream is already locked to a reader",
        ));
    }
    // 2. Perform ! ReadableStreamReaderGenericInitialize(reader, stream).
    readable_stream_reader_generic_initialize(&ReaderRef::Default(reader.clone()), stream, ctx)?;
    // 3. Set reader.[[readRequests]] to a new empty list.
    reader.borrow().data().read_requests.borrow_mut().clear();
    Ok(())
}
