//! `ReadableStreamBYOBReader`, read-into requests, the BYOB reader abstract operations, and the
//! stream operations that work on read-into requests.
//!
//! <https://streams.spec.whatwg.org/#byob-reader-class>

use std::collections::VecDeque;

use crate::engine::{create_iter_result_object, Cx, JsResult, Object, Slot, Trace, Value};

use crate::queue::NativeBytes;

use super::{
    byte_controller::{
        readable_byte_stream_controller_pull_into,
        readable_byte_stream_controller_pull_into_native, FilledChunk,
    },
    generic_reader::{
        define_generic_reader, readable_stream_reader_generic_initialize,
        readable_stream_reader_generic_release, GenericReader, GenericReaderSlots,
    },
    stream::{
        is_readable_stream_locked, stream_argument, ReadableStream, StreamSlots, StreamState,
    },
    ControllerRef, ReaderRef,
};
use crate::engine::webidl::new_object;
use crate::{
    engine::webidl,
    engine::{self, PromiseCapability, ViewKind, ViewRecord},
};

traced_without_drop! {
/// A read-into request: <https://streams.spec.whatwg.org/#read-into-request>. Only
/// [`ReadIntoRequest::Read`] resolves a promise that script holds.
#[derive(Debug)]
pub(crate) enum ReadIntoRequest {
    /// `ReadableStreamBYOBReader.prototype.read(view)`.
    Read(PromiseCapability),
    /// A read-into request whose steps another algorithm gives (ReadableByteStreamTee's
    /// pullWithBYOBReader).
    Steps(Box<dyn ReadIntoRequestSteps>),
}
}

/// The chunk, close and error steps of a read-into request made outside the BYOB reader's own
/// `read()`. They run once: each takes the request.
pub(crate) trait ReadIntoRequestSteps: Trace + std::fmt::Debug {
    /// The chunk steps, given `chunk`.
    fn chunk_steps(self: Box<Self>, chunk: Value, ctx: &mut Cx) -> JsResult<()>;
    /// The close steps, given `chunk` (a view or undefined).
    fn close_steps(self: Box<Self>, chunk: Value, ctx: &mut Cx) -> JsResult<()>;
    /// The error steps, given `e`.
    fn error_steps(self: Box<Self>, e: Value, ctx: &mut Cx) -> JsResult<()>;
    /// The chunk steps of a native read, given its filled Rust bytes. The default gives the
    /// chunk steps a `Uint8Array` holding them.
    fn bytes_chunk_steps(self: Box<Self>, bytes: NativeBytes, ctx: &mut Cx) -> JsResult<()> {
        let chunk = engine::new_uint8_array(bytes.as_slice(), ctx)?;
        self.chunk_steps(chunk, ctx)
    }
    /// The close steps of a native read, given its filled Rust bytes (none: the stream
    /// closed). The default gives the close steps a `Uint8Array` holding them.
    fn bytes_close_steps(self: Box<Self>, bytes: NativeBytes, ctx: &mut Cx) -> JsResult<()> {
        let chunk = engine::new_uint8_array(bytes.as_slice(), ctx)?;
        self.close_steps(chunk, ctx)
    }
}

impl ReadIntoRequest {
    /// <https://streams.spec.whatwg.org/#read-into-request-chunk-steps>, given `chunk`.
    pub(crate) fn chunk_steps(self, chunk: Value, ctx: &mut Cx) -> JsResult<()> {
        match self {
            // 1. Resolve promise with «[ "value" → chunk, "done" → false ]».
            ReadIntoRequest::Read(promise) => {
                let result = create_iter_result_object(chunk, false, ctx);
                promise.resolve(result, ctx)
            }
            ReadIntoRequest::Steps(steps) => steps.chunk_steps(chunk, ctx),
        }
    }

    /// <https://streams.spec.whatwg.org/#read-into-request-close-steps>, given `chunk` (a view
    /// or undefined).
    pub(crate) fn close_steps(self, chunk: Value, ctx: &mut Cx) -> JsResult<()> {
        match self {
            // 1. Resolve promise with «[ "value" → chunk, "done" → true ]».
            ReadIntoRequest::Read(promise) => {
                let result = create_iter_result_object(chunk, true, ctx);
                promise.resolve(result, ctx)
            }
            ReadIntoRequest::Steps(steps) => steps.close_steps(chunk, ctx),
        }
    }

    /// The chunk steps (or, when `done`, the close steps) given a filled pull-into descriptor's
    /// chunk: a view, or a native read's Rust bytes (a `Uint8Array` holding them for a request
    /// that is not native).
    pub(crate) fn filled_steps(self, chunk: FilledChunk, done: bool, ctx: &mut Cx) -> JsResult<()> {
        let (request, chunk) = match (self, chunk) {
            (ReadIntoRequest::Steps(steps), FilledChunk::Bytes(bytes)) => {
                return if done {
                    steps.bytes_close_steps(bytes, ctx)
                } else {
                    steps.bytes_chunk_steps(bytes, ctx)
                };
            }
            (request, FilledChunk::View(view)) => (request, Value::from(view)),
            (request, FilledChunk::Bytes(bytes)) => {
                (request, engine::new_uint8_array(bytes.as_slice(), ctx)?)
            }
        };
        if done {
            request.close_steps(chunk, ctx)
        } else {
            request.chunk_steps(chunk, ctx)
        }
    }

    /// <https://streams.spec.whatwg.org/#read-into-request-error-steps>, given `e`.
    pub(crate) fn error_steps(self, e: Value, ctx: &mut Cx) -> JsResult<()> {
        match self {
            // 1. Reject promise with e.
            ReadIntoRequest::Read(promise) => promise.reject(e, ctx),
            ReadIntoRequest::Steps(steps) => steps.error_steps(e, ctx),
        }
    }
}

traced! {
    data;
    /// <https://streams.spec.whatwg.org/#readablestreambyobreader>
    #[derive(Debug)]
    pub(crate) struct ReadableStreamBYOBReader {
        /// The `ReadableStreamGenericReader` slots.
        pub(crate) generic: GenericReaderSlots,
        /// <https://streams.spec.whatwg.org/#readablestreambyobreader-readintorequests>
        read_into_requests: Slot<VecDeque<ReadIntoRequest>>,
    }
}

impl ReadableStreamBYOBReader {
    /// A reader before SetUpReadableStreamBYOBReader.
    fn new() -> Self {
        Self {
            generic: GenericReaderSlots::new(),
            read_into_requests: Slot::new(VecDeque::new()),
        }
    }
}

pub(crate) type Reader = Object<ReadableStreamBYOBReader>;

/// [[stream]] of a BYOB reader.
pub(crate) fn reader_stream(reader: &Reader) -> Option<Object<ReadableStream>> {
    reader.borrow().data().generic.stream()
}

/// Sets [[readIntoRequests]] to a new empty list, returning the old one.
pub(crate) fn take_read_into_requests(reader: &Reader) -> VecDeque<ReadIntoRequest> {
    std::mem::take(&mut *reader.borrow().data().read_into_requests.borrow_mut())
}

/// [[readIntoRequests]]'s size.
pub(crate) fn num_read_into_requests(reader: &Reader) -> usize {
    reader.borrow().data().read_into_requests.borrow().len()
}

impl webidl::ClassInterface for ReadableStreamBYOBReader {
    const LENGTH: usize = 1;
    fn members(b: &mut webidl::InterfaceBuilder<'_, '_>) {
        b.promise_operation("read", 1, read);
        b.operation("releaseLock", 0, release_lock);
        define_generic_reader::<Self>(b);
    }

    fn construct(_: &Value, args: &[Value], _: &mut Cx) -> JsResult<Self> {
        // WebIDL conversion of the `ReadableStream stream` argument.
        stream_argument(args, <Self as webidl::Interface>::NAME)?;
        Ok(Self::new())
    }

    /// <https://streams.spec.whatwg.org/#byob-reader-constructor>
    fn constructed(this: &Object<Self>, args: &[Value], ctx: &mut Cx) -> JsResult<()> {
        let stream = stream_argument(args, <Self as webidl::Interface>::NAME)?;
        // 1. Perform ? SetUpReadableStreamBYOBReader(this, stream).
        set_up_readable_stream_byob_reader(this, &stream, ctx)
    }
}

webidl::interface!(ReadableStreamBYOBReader, "ReadableStreamBYOBReader");

impl GenericReader for ReadableStreamBYOBReader {
    fn generic(&self) -> &GenericReaderSlots {
        &self.generic
    }

    fn reader_ref(this: Object<Self>) -> ReaderRef {
        ReaderRef::Byob(this)
    }
}

/// <https://streams.spec.whatwg.org/#byob-reader-read>
fn read(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let reader = webidl::this::<ReadableStreamBYOBReader>(this)?;
    // WebIDL: `ArrayBufferView view`, `optional ReadableStreamBYOBReaderReadOptions options = {}`
    // with `[EnforceRange] unsigned long long min = 1`.
    let view = match engine::array_buffer_view(
        &args.first().cloned().unwrap_or_default(),
        "The view",
        ctx,
    ) {
        Ok(view) => view,
        Err(e) => return webidl::rejected_promise(e, ctx),
    };
    let min = match read_options_min(&args.get(1).cloned().unwrap_or_default(), ctx) {
        Ok(min) => min,
        Err(e) => return webidl::rejected_promise(e, ctx),
    };
    let reject_type = |message: &str, ctx: &mut Cx| -> JsResult<Value> {
        let e = engine::type_error(message, ctx);
        Ok(engine::promise_rejected_with(e, ctx)?.into())
    };
    let reject_range = |message: &str, ctx: &mut Cx| -> JsResult<Value> {
        let e = engine::range_error(message, ctx);
        Ok(engine::promise_rejected_with(e, ctx)?.into())
    };
    // 1. If view.[[ByteLength]] is 0, return a promise rejected with a TypeError exception.
    if view.byte_length == 0 {
        return reject_type("The view must not be empty", ctx);
    }
    // 2. If view.[[ViewedArrayBuffer]].[[ByteLength]] is 0, return a promise rejected with a
    //    TypeError exception.
    if engine::array_buffer_byte_length(&view.buffer) == 0 {
        return reject_type("The view's buffer must not be empty", ctx);
    }
    // 3. If ! IsDetachedBuffer(view.[[ViewedArrayBuffer]]) is true, return a promise rejected
    //    with a TypeError exception.
    if engine::is_detached_buffer(&view.buffer) {
        return reject_type("The view's buffer has been detached", ctx);
    }
    // 4. If options["min"] is 0, return a promise rejected with a TypeError exception.
    if min == 0 {
        return reject_type("min must be greater than 0", ctx);
    }
    match view.kind {
        // 5. If view has a [[TypedArrayName]] internal slot,
        //    5.1. If options["min"] > view.[[ArrayLength]], return a promise rejected with a
        //         RangeError exception.
        ViewKind::Typed(_) => {
            if min > view.element_length() {
                return reject_range("min is larger than the view's length", ctx);
            }
        }
        // 6. Otherwise (i.e., it is a DataView),
        //    6.1. If options["min"] > view.[[ByteLength]], return a promise rejected with a
        //         RangeError exception.
        ViewKind::DataView => {
            if min > view.byte_length {
                return reject_range("min is larger than the view's byteLength", ctx);
            }
        }
    }
    // 7. If this.[[stream]] is undefined, return a promise rejected with a TypeError exception.
    if reader_stream(&reader).is_none() {
        return reject_type("The reader is not attached to a stream", ctx);
    }
    // 8. Let promise be a new promise.
    let promise = PromiseCapability::new(ctx);
    let result = promise.promise().clone();
    // 9. Let readIntoRequest be a new read-into request with the chunk, close and error steps
    //    above.
    // 10. Perform ! ReadableStreamBYOBReaderRead(this, view, options["min"], readIntoRequest).
    readable_stream_byob_reader_read(&reader, &view, min, ReadIntoRequest::Read(promise), ctx)?;
    // 11. Return promise.
    Ok(result.into())
}

/// Converts the `ReadableStreamBYOBReaderReadOptions` dictionary and returns its `min`.
fn read_options_min(options: &Value, ctx: &mut Cx) -> JsResult<u64> {
    let dict = webidl::dictionary(options, "The read() options")?;
    let min = webidl::member(dict.as_ref(), "min", ctx)?;
    if min.is_undefined() {
        return Ok(1);
    }
    webidl::to_enforced_u64(&min, "min", ctx)
}

/// <https://streams.spec.whatwg.org/#byob-reader-release-lock>
fn release_lock(this: &Value, _: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let reader = webidl::this::<ReadableStreamBYOBReader>(this)?;
    // 1. If this.[[stream]] is undefined, return.
    if reader_stream(&reader).is_none() {
        return Ok(Value::undefined());
    }
    // 2. Perform ! ReadableStreamBYOBReaderRelease(this).
    readable_stream_byob_reader_release(&reader, ctx)?;
    Ok(Value::undefined())
}

/// <https://streams.spec.whatwg.org/#acquire-readable-stream-byob-reader>
pub(crate) fn acquire_readable_stream_byob_reader(
    stream: &Object<ReadableStream>,
    ctx: &mut Cx,
) -> JsResult<Reader> {
    // 1. Let reader be a new ReadableStreamBYOBReader.
    let reader = new_object(ReadableStreamBYOBReader::new(), ctx)?;
    // 2. Perform ? SetUpReadableStreamBYOBReader(reader, stream).
    set_up_readable_stream_byob_reader(&reader, stream, ctx)?;
    // 3. Return reader.
    Ok(reader)
}

/// <https://streams.spec.whatwg.org/#set-up-readable-stream-byob-reader>
pub(crate) fn set_up_readable_stream_byob_reader(
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
    // 2. If stream.[[controller]] does not implement ReadableByteStreamController, throw a
    //    TypeError exception.
    if !matches!(stream.controller(), Some(ControllerRef::Byte(_))) {
        return Err(engine::throw_type_error(
            "A BYOB reader needs a readable byte stream (type: 'bytes')",
        ));
    }
    // 3. Perform ! ReadableStreamReaderGenericInitialize(reader, stream).
    readable_stream_reader_generic_initialize(&ReaderRef::Byob(reader.clone()), stream, ctx)?;
    // 4. Set reader.[[readIntoRequests]] to a new empty list.
    reader
        .borrow()
        .data()
        .read_into_requests
        .borrow_mut()
        .clear();
    Ok(())
}

/// <https://streams.spec.whatwg.org/#abstract-opdef-readablestreambyobreadererrorreadintorequests>
pub(crate) fn readable_stream_byob_reader_error_read_into_requests(
    reader: &Reader,
    e: Value,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Let readIntoRequests be reader.[[readIntoRequests]].
    // 2. Set reader.[[readIntoRequests]] to a new empty list.
    let read_into_requests = take_read_into_requests(reader);
    // 3. For each readIntoRequest of readIntoRequests, perform readIntoRequest's error steps,
    //    given e.
    for read_into_request in read_into_requests {
        read_into_request.error_steps(e.clone(), ctx)?;
    }
    Ok(())
}

/// <https://streams.spec.whatwg.org/#readable-stream-byob-reader-read>
pub(crate) fn readable_stream_byob_reader_read(
    reader: &Reader,
    view: &ViewRecord,
    min: u64,
    read_into_request: ReadIntoRequest,
    ctx: &mut Cx,
) -> JsResult<()> {
    byob_reader_read(
        reader,
        read_into_request,
        ctx,
        |controller, request, ctx| {
            readable_byte_stream_controller_pull_into(controller, view, min, request, ctx)
        },
    )
}

/// ReadableStreamBYOBReaderRead for a native read into the Rust buffer `bytes` (see
/// [`readable_byte_stream_controller_pull_into_native`]), with min 1.
pub(crate) fn readable_stream_byob_reader_read_native(
    reader: &Reader,
    bytes: NativeBytes,
    read_into_request: ReadIntoRequest,
    ctx: &mut Cx,
) -> JsResult<()> {
    byob_reader_read(
        reader,
        read_into_request,
        ctx,
        |controller, request, ctx| {
            readable_byte_stream_controller_pull_into_native(controller, bytes, request, ctx)
        },
    )
}

/// The steps of ReadableStreamBYOBReaderRead, with step 5's
/// ReadableByteStreamControllerPullInto given as `pull_into`.
fn byob_reader_read(
    reader: &Reader,
    read_into_request: ReadIntoRequest,
    ctx: &mut Cx,
    pull_into: impl FnOnce(
        &super::byte_controller::Controller,
        ReadIntoRequest,
        &mut Cx,
    ) -> JsResult<()>,
) -> JsResult<()> {
    // 1. Let stream be reader.[[stream]].
    // 2. Assert: stream is not undefined.
    let Some(stream) = reader_stream(reader) else {
        debug_assert!(false, "Assert: stream is not undefined");
        let e = engine::type_error("The reader is not attached to a stream", ctx);
        return read_into_request.error_steps(e, ctx);
    };
    // 3. Set stream.[[disturbed]] to true.
    stream.set_disturbed(true);
    // 4. If stream.[[state]] is "errored", perform readIntoRequest's error steps given
    //    stream.[[storedError]].
    if stream.state() == StreamState::Errored {
        return read_into_request.error_steps(stream.stored_error(), ctx);
    }
    // 5. Otherwise, perform ! ReadableByteStreamControllerPullInto(stream.[[controller]], view,
    //    min, readIntoRequest).
    match stream.controller() {
        Some(ControllerRef::Byte(controller)) => pull_into(&controller, read_into_request, ctx),
        _ => Ok(()),
    }
}

/// <https://streams.spec.whatwg.org/#abstract-opdef-readablestreambyobreaderrelease>
pub(crate) fn readable_stream_byob_reader_release(reader: &Reader, ctx: &mut Cx) -> JsResult<()> {
    // 1. Perform ! ReadableStreamReaderGenericRelease(reader).
    readable_stream_reader_generic_release(&ReaderRef::Byob(reader.clone()), ctx)?;
    // 2. Let e be a new TypeError exception.
    let e = engine::type_error("The reader's lock was released", ctx);
    // 3. Perform ! ReadableStreamBYOBReaderErrorReadIntoRequests(reader, e).
    readable_stream_byob_reader_error_read_into_requests(reader, e, ctx)
}

/// <https://streams.spec.whatwg.org/#readable-stream-add-read-into-request>
pub(crate) fn readable_stream_add_read_into_request(
    stream: &Object<ReadableStream>,
    read_request: ReadIntoRequest,
) {
    // 1. Assert: stream.[[reader]] implements ReadableStreamBYOBReader.
    // 2. Assert: stream.[[state]] is "readable" or "closed".
    // 3. Append readRequest to stream.[[reader]].[[readIntoRequests]].
    if let Some(ReaderRef::Byob(reader)) = stream.reader() {
        reader
            .borrow()
            .data()
            .read_into_requests
            .borrow_mut()
            .push_back(read_request);
    }
}

/// <https://streams.spec.whatwg.org/#readable-stream-fulfill-read-into-request>
pub(crate) fn readable_stream_fulfill_read_into_request(
    stream: &Object<ReadableStream>,
    chunk: FilledChunk,
    done: bool,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Assert: ! ReadableStreamHasBYOBReader(stream) is true.
    // 2. Let reader be stream.[[reader]].
    let Some(ReaderRef::Byob(reader)) = stream.reader() else {
        // Not a debug_assert: a `then` getter that script put on Object.prototype runs while an
        // earlier read resolves, and may release the reader before this step.
        return Ok(());
    };
    // 3. Assert: reader.[[readIntoRequests]] is not empty.
    // 4. Let readIntoRequest be reader.[[readIntoRequests]][0].
    // 5. Remove readIntoRequest from reader.[[readIntoRequests]].
    let read_into_request = {
        let data = reader.borrow();
        let mut requests = data.data().read_into_requests.borrow_mut();
        let request = requests.pop_front();
        crate::queue::give_back_memory(&mut *requests);
        request
    };
    let Some(read_into_request) = read_into_request else {
        return Ok(());
    };
    // 6. If done is true, perform readIntoRequest's close steps, given chunk.
    // 7. Otherwise, perform readIntoRequest's chunk steps, given chunk.
    read_into_request.filled_steps(chunk, done, ctx)
}

/// <https://streams.spec.whatwg.org/#readable-stream-get-num-read-into-requests>
pub(crate) fn readable_stream_get_num_read_into_requests(stream: &Object<ReadableStream>) -> usize {
    // 1. Assert: ! ReadableStreamHasBYOBReader(stream) is true.
    // 2. Return stream.[[reader]].[[readIntoRequests]]'s size.
    super::stream::with_reader(stream, |reader| match reader {
        Some(ReaderRef::Byob(reader)) => num_read_into_requests(reader),
        _ => 0,
    })
}

/// <https://streams.spec.whatwg.org/#readable-stream-has-byob-reader>
pub(crate) fn readable_stream_has_byob_reader(stream: &Object<ReadableStream>) -> bool {
    // 1. Let reader be stream.[[reader]].
    // 2. If reader is undefined, return false.
    // 3. If reader implements ReadableStreamBYOBReader, return true.
    // 4. Return false.
    super::stream::with_reader(stream, |reader| matches!(reader, Some(ReaderRef::Byob(_))))
}
