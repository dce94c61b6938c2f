//! The `ReadableStream` class and the abstract operations that work on readable streams and
//! that controllers use to affect their stream.
//!
//! <https://streams.spec.whatwg.org/#rs-class>

use std::cell::Cell;

use crate::engine::{js_string, Cx, JsResult, Object, Slot, Value};
use crate::queue::Chunk;

use super::{
    async_iterator, byob_reader, byte_controller, byte_tee,
    default_controller::{self, CancelAlgorithm, PullAlgorithm, StartAlgorithm},
    default_reader::{self, ReadRequest},
    from, generic_reader, pipe, readable_stream_controller_cancel_steps, tee, ControllerRef,
    ReaderRef,
};
use crate::engine::webidl::new_object;
use crate::engine::{upon_settlement, PromiseResult};
use crate::{
    engine,
    engine::webidl,
    queuing_strategy::{
        extract_high_water_mark, extract_size_algorithm, QueuingStrategy, SizeAlgorithm,
    },
};

/// The values of a stream's [[state]] slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StreamState {
    /// "readable"
    Readable,
    /// "closed"
    Closed,
    /// "errored"
    Errored,
}

traced! {
    data;
    /// <https://streams.spec.whatwg.org/#readablestream>
    #[derive(Debug)]
    pub(crate) struct ReadableStream {
        /// <https://streams.spec.whatwg.org/#readablestream-controller>
        controller: Slot<Option<ControllerRef>>,
        /// <https://streams.spec.whatwg.org/#readablestream-detached>
        pub(crate) detached: Cell<bool>,
        /// <https://streams.spec.whatwg.org/#readablestream-disturbed>
        disturbed: Cell<bool>,
        /// <https://streams.spec.whatwg.org/#readablestream-reader>
        pub(super) reader: Slot<Option<ReaderRef>>,
        /// <https://streams.spec.whatwg.org/#readablestream-state>
        #[unsafe_ignore_trace]
        pub(super) state: Cell<StreamState>,
        /// <https://streams.spec.whatwg.org/#readablestream-storederror>
        stored_error: Slot<Value>,
    }
}

impl ReadableStream {
    /// A stream whose slots are not yet initialized (InitializeReadableStream sets them).
    pub(crate) fn new_uninitialized() -> Self {
        Self {
            controller: Slot::new(None),
            detached: Cell::new(false),
            disturbed: Cell::new(false),
            reader: Slot::new(None),
            state: Cell::new(StreamState::Readable),
            stored_error: Slot::new(Value::undefined()),
        }
    }
}

/// Slot access on a stream object (each access is a short borrow of the object).
pub(crate) trait StreamSlots {
    /// [[state]].
    fn state(&self) -> StreamState;
    /// Sets [[state]].
    fn set_state(&self, state: StreamState);
    /// [[storedError]].
    fn stored_error(&self) -> Value;
    /// [[reader]].
    fn reader(&self) -> Option<ReaderRef>;
    /// Sets [[reader]].
    fn set_reader(&self, reader: Option<ReaderRef>);
    /// [[controller]].
    fn controller(&self) -> Option<ControllerRef>;
    /// [[disturbed]].
    #[allow(dead_code)] // only other standards read it (Fetch's "is disturbed"); none is here
    fn disturbed(&self) -> bool;
    /// Sets [[disturbed]].
    fn set_disturbed(&self, disturbed: bool);
    /// [[Detached]].
    fn detached(&self) -> bool;
}

impl StreamSlots for Object<ReadableStream> {
    fn state(&self) -> StreamState {
        self.borrow().data().state.get()
    }
    fn set_state(&self, state: StreamState) {
        self.borrow().data().state.set(state);
    }
    fn stored_error(&self) -> Value {
        self.borrow().data().stored_error.borrow().clone()
    }
    fn reader(&self) -> Option<ReaderRef> {
        self.borrow().data().reader.borrow().clone()
    }
    fn set_reader(&self, reader: Option<ReaderRef>) {
        *self.borrow().data().reader.borrow_mut() = reader;
    }
    fn controller(&self) -> Option<ControllerRef> {
        self.borrow().data().controller.borrow().clone()
    }
    fn disturbed(&self) -> bool {
        self.borrow().data().disturbed.get()
    }
    fn set_disturbed(&self, disturbed: bool) {
        self.borrow().data().disturbed.set(disturbed);
    }
    fn detached(&self) -> bool {
        self.borrow().data().detached.get()
    }
}

/// [[controller]] if it is a default controller (read in place: only the controller is
/// cloned).
pub(crate) fn default_controller_of(
    stream: &Object<ReadableStream>,
) -> Option<Object<super::ReadableStreamDefaultController>> {
    match stream.borrow().data().controller.borrow().as_ref()? {
        ControllerRef::Default(controller) => Some(controller.clone()),
        ControllerRef::Byte(_) => None,
    }
}

/// Sets [[controller]] (SetUpReadableStreamDefaultController step 8).
pub(crate) fn set_controller(stream: &Object<ReadableStream>, controller: ControllerRef) {
    *stream.borrow().data().controller.borrow_mut() = Some(controller);
}

/// The WebIDL conversion of a reader constructor's `ReadableStream stream` argument.
pub(crate) fn stream_argument(args: &[Value], interface: &str) -> JsResult<Object<ReadableStream>> {
    as_stream(&args.first().cloned().unwrap_or_default()).ok_or_else(|| {
        engine::throw_type_error(format!("{interface}'s argument must be a ReadableStream"))
    })
}

/// Converts a JS value to a `JsObject<ReadableStream>` if it is one.
pub(crate) fn as_stream(value: &Value) -> Option<Object<ReadableStream>> {
    value
        .as_object()
        .and_then(|o| o.clone().downcast::<ReadableStream>().ok())
}

impl webidl::ClassInterface for ReadableStream {
    const LENGTH: usize = 0;
    fn members(b: &mut webidl::InterfaceBuilder<'_, '_>) {
        b.static_operation("from", 1, rs_from);
        b.attribute("locked", rs_locked, None);
        b.promise_operation("cancel", 0, rs_cancel);
        b.operation("getReader", 0, rs_get_reader);
        b.operation("pipeThrough", 1, pipe::rs_pipe_through);
        b.promise_operation("pipeTo", 1, pipe::rs_pipe_to);
        b.operation("tee", 0, rs_tee);
        b.async_iterable(0, rs_values);
    }

    fn construct(_: &Value, _: &[Value], _: &mut Cx) -> JsResult<Self> {
        Ok(Self::new_uninitialized())
    }

    /// <https://streams.spec.whatwg.org/#rs-constructor>
    fn constructed(this: &Object<Self>, args: &[Value], ctx: &mut Cx) -> JsResult<()> {
        // WebIDL argument conversion: `optional object underlyingSource`, then
        // `optional QueuingStrategy strategy = {}`.
        let underlying_source = args.first().cloned().unwrap_or_default();
        let underlying_source = if underlying_source.is_undefined() {
            // 1. If underlyingSource is missing, set it to null.
            Value::null()
        } else if underlying_source.is_object() {
            underlying_source
        } else {
            return Err(engine::throw_type_error(
                "The underlying source must be an object if it is given",
            ));
        };
        let strategy = QueuingStrategy::from_js(&args.get(1).cloned().unwrap_or_default(), ctx)?;
        // 2. Let underlyingSourceDict be underlyingSource, converted to an IDL value of type
        //    UnderlyingSource.
        let dict = UnderlyingSource::from_js(&underlying_source, ctx)?;
        // 3. Perform ! InitializeReadableStream(this).
        initialize_readable_stream(this);
        // 4. If underlyingSourceDict["type"] is "bytes":
        if dict.type_bytes {
            // 4.1. If strategy["size"] exists, throw a RangeError exception.
            if strategy.size.is_some() {
                return Err(engine::throw_range_error(
                    "a byte stream's queuing strategy cannot have a size",
                ));
            }
            // 4.2. Let highWaterMark be ? ExtractHighWaterMark(strategy, 0).
            let high_water_mark = extract_high_water_mark(&strategy, 0.0)?;
            // 4.3. Perform ? SetUpReadableByteStreamControllerFromUnderlyingSource(this,
            //      underlyingSource, underlyingSourceDict, highWaterMark).
            return byte_controller::set_up_readable_byte_stream_controller_from_underlying_source(
                this,
                underlying_source,
                dict,
                high_water_mark,
                ctx,
            );
        }
        // 5. Otherwise,
        // 5.1. Assert: underlyingSourceDict["type"] does not exist.
        // 5.2. Let sizeAlgorithm be ! ExtractSizeAlgorithm(strategy).
        let size_algorithm = extract_size_algorithm(&strategy);
        // 5.3. Let highWaterMark be ? ExtractHighWaterMark(strategy, 1).
        let high_water_mark = extract_high_water_mark(&strategy, 1.0)?;
        // 5.4. Perform ? SetUpReadableStreamDefaultControllerFromUnderlyingSource(this,
        //      underlyingSource, underlyingSourceDict, highWaterMark, sizeAlgorithm).
        default_controller::set_up_readable_stream_default_controller_from_underlying_source(
            this,
            underlying_source,
            dict,
            high_water_mark,
            size_algorithm,
            ctx,
        )
    }
}

webidl::interface!(ReadableStream, "ReadableStream");

/// The `UnderlyingSource` dictionary, converted:
/// <https://streams.spec.whatwg.org/#dictdef-underlyingsource>.
#[derive(Debug, Default)]
pub(crate) struct UnderlyingSource {
    /// `autoAllocateChunkSize` (byte streams).
    pub(crate) auto_allocate_chunk_size: Option<u64>,
    /// `cancel`.
    pub(crate) cancel: Option<Object>,
    /// `pull`.
    pub(crate) pull: Option<Object>,
    /// `start`.
    pub(crate) start: Option<Object>,
    /// `type` is "bytes".
    pub(crate) type_bytes: bool,
}

impl UnderlyingSource {
    /// Converts the underlying source object to the dictionary: members are read in
    /// lexicographic order, each converted as soon as it is read.
    fn from_js(value: &Value, ctx: &mut Cx) -> JsResult<Self> {
        let dict = webidl::dictionary(value, "The underlying source")?;
        let dict = dict.as_ref();
        let mut out = Self::default();
        let v = webidl::member(dict, "autoAllocateChunkSize", ctx)?;
        if !v.is_undefined() {
            out.auto_allocate_chunk_size =
                Some(webidl::to_enforced_u64(&v, "autoAllocateChunkSize", ctx)?);
        }
        out.cancel = webidl::callback(
            webidl::member(dict, "cancel", ctx)?,
            "The underlying source's cancel",
        )?;
        out.pull = webidl::callback(
            webidl::member(dict, "pull", ctx)?,
            "The underlying source's pull",
        )?;
        out.start = webidl::callback(
            webidl::member(dict, "start", ctx)?,
            "The underlying source's start",
        )?;
        let t = webidl::member(dict, "type", ctx)?;
        if !t.is_undefined() {
            let t = t.to_string(ctx)?;
            if t != js_string!("bytes") {
                return Err(engine::throw_type_error(format!(
                    "'{}' is not a valid ReadableStreamType",
                    t.to_std_string_escaped()
                )));
            }
            out.type_bytes = true;
        }
        Ok(out)
    }
}

/// <https://streams.spec.whatwg.org/#rs-from>
fn rs_from(_: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    // 1. Return ? ReadableStreamFromIterable(asyncIterable).
    let iterable = args.first().cloned().unwrap_or_default();
    Ok(from::readable_stream_from_iterable(iterable, ctx)?
        .upcast()
        .into())
}

/// <https://streams.spec.whatwg.org/#rs-locked>
fn rs_locked(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    let stream = webidl::this::<ReadableStream>(this)?;
    // 1. Return ! IsReadableStreamLocked(this).
    Ok(is_readable_stream_locked(&stream).into())
}

/// <https://streams.spec.whatwg.org/#rs-cancel>
fn rs_cancel(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let stream = webidl::this::<ReadableStream>(this)?;
    let reason = args.first().cloned().unwrap_or_default();
    // 1. If ! IsReadableStreamLocked(this) is true, return a promise rejected with a TypeError.
    if is_readable_stream_locked(&stream) {
        let e = engine::type_error("Cannot cancel a stream that is locked to a reader", ctx);
        return Ok(engine::promise_rejected_with(e, ctx)?.into());
    }
    // 2. Return ! ReadableStreamCancel(this, reason).
    Ok(readable_stream_cancel(&stream, reason, ctx)?.into())
}

/// <https://streams.spec.whatwg.org/#rs-get-reader>
fn rs_get_reader(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let stream = webidl::this::<ReadableStream>(this)?;
    // ReadableStreamGetReaderOptions: `ReadableStreamReaderMode mode`.
    let options = webidl::dictionary(
        &args.first().cloned().unwrap_or_default(),
        "The getReader() options",
    )?;
    let mode = webidl::member(options.as_ref(), "mode", ctx)?;
    let byob = if mode.is_undefined() {
        false
    } else {
        let mode = mode.to_string(ctx)?;
        if mode != js_string!("byob") {
            return Err(engine::throw_type_error(format!(
                "'{}' is not a valid ReadableStreamReaderMode",
                mode.to_std_string_escaped()
            )));
        }
        true
    };
    // 1. If options["mode"] does not exist, return ? AcquireReadableStreamDefaultReader(this).
    if !byob {
        return Ok(acquire_readable_stream_default_reader(&stream, ctx)?
            .upcast()
            .into());
    }
    // 2. Assert: options["mode"] is "byob".
    // 3. Return ? AcquireReadableStreamBYOBReader(this).
    Ok(
        byob_reader::acquire_readable_stream_byob_reader(&stream, ctx)?
            .upcast()
            .into(),
    )
}

/// <https://streams.spec.whatwg.org/#rs-tee>
fn rs_tee(this: &Value, _: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let stream = webidl::this::<ReadableStream>(this)?;
    // 1. Return ? ReadableStreamTee(this, false).
    let (branch1, branch2) = readable_stream_tee(&stream, false, ctx)?;
    Ok(crate::engine::create_array_from_list(
        [Value::from(branch1.upcast()), Value::from(branch2.upcast())],
        ctx,
    )
    .into())
}

/// `values(options)` and `[Symbol.asyncIterator]`: creates the default asynchronous iterator
/// object and runs <https://streams.spec.whatwg.org/#rs-get-iterator>.
fn rs_values(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let stream = webidl::this::<ReadableStream>(this)?;
    // ReadableStreamIteratorOptions: `boolean preventCancel = false`.
    let options = webidl::dictionary(
        &args.first().cloned().unwrap_or_default(),
        "The iterator options",
    )?;
    let prevent_cancel = webidl::member(options.as_ref(), "preventCancel", ctx)?.to_boolean();
    Ok(async_iterator::create(&stream, prevent_cancel, ctx)?.into())
}

/// <https://streams.spec.whatwg.org/#acquire-readable-stream-reader>
pub(crate) fn acquire_readable_stream_default_reader(
    stream: &Object<ReadableStream>,
    ctx: &mut Cx,
) -> JsResult<Object<default_reader::ReadableStreamDefaultReader>> {
    // 1. Let reader be a new ReadableStreamDefaultReader.
    let reader = new_object(default_reader::ReadableStreamDefaultReader::new(), ctx)?;
    // 2. Perform ? SetUpReadableStreamDefaultReader(reader, stream).
    default_reader::set_up_readable_stream_default_reader(&reader, stream, ctx)?;
    // 3. Return reader.
    Ok(reader)
}

/// <https://streams.spec.whatwg.org/#create-readable-stream>
pub(crate) fn create_readable_stream(
    start_algorithm: StartAlgorithm,
    pull_algorithm: PullAlgorithm,
    cancel_algorithm: CancelAlgorithm,
    high_water_mark: Option<f64>,
    size_algorithm: Option<SizeAlgorithm>,
    ctx: &mut Cx,
) -> JsResult<Object<ReadableStream>> {
    // 1. If highWaterMark was not passed, set it to 1.
    let high_water_mark = high_water_mark.unwrap_or(1.0);
    // 2. If sizeAlgorithm was not passed, set it to an algorithm that returns 1.
    let size_algorithm = size_algorithm.unwrap_or(SizeAlgorithm::One);
    // 3. Assert: ! IsNonNegativeNumber(highWaterMark) is true.
    debug_assert!(crate::queue::is_non_negative_number(high_water_mark));
    // 4. Let stream be a new ReadableStream.
    let stream = new_object(ReadableStream::new_uninitialized(), ctx)?;
    // 5. Perform ! InitializeReadableStream(stream).
    initialize_readable_stream(&stream);
    // 6. Let controller be a new ReadableStreamDefaultController.
    let controller = default_controller::new_controller(&stream, ctx)?;
    // 7. Perform ? SetUpReadableStreamDefaultController(stream, controller, startAlgorithm,
    //    pullAlgorithm, cancelAlgorithm, highWaterMark, sizeAlgorithm).
    default_controller::set_up_readable_stream_default_controller(
        &stream,
        &controller,
        start_algorithm,
        pull_algorithm,
        cancel_algorithm,
        high_water_mark,
        size_algorithm,
        ctx,
    )?;
    // 8. Return stream.
    Ok(stream)
}

/// <https://streams.spec.whatwg.org/#initialize-readable-stream>
pub(crate) fn initialize_readable_stream(stream: &Object<ReadableStream>) {
    // 1. Set stream.[[state]] to "readable".
    stream.set_state(StreamState::Readable);
    // 2. Set stream.[[reader]] and stream.[[storedError]] to undefined.
    stream.set_reader(None);
    *stream.borrow().data().stored_error.borrow_mut() = Value::undefined();
    // 3. Set stream.[[disturbed]] to false.
    stream.set_disturbed(false);
}

/// <https://streams.spec.whatwg.org/#is-readable-stream-locked>
pub(crate) fn is_readable_stream_locked(stream: &Object<ReadableStream>) -> bool {
    // 1. If stream.[[reader]] is undefined, return false.
    // 2. Return true.
    stream.borrow().data().reader.borrow().is_some()
}

/// <https://streams.spec.whatwg.org/#readable-stream-tee>
pub(crate) fn readable_stream_tee(
    stream: &Object<ReadableStream>,
    clone_for_branch2: bool,
    ctx: &mut Cx,
) -> JsResult<(Object<ReadableStream>, Object<ReadableStream>)> {
    // 1. Assert: stream implements ReadableStream.
    // 2. Assert: cloneForBranch2 is a boolean.
    // 3. If stream.[[controller]] implements ReadableByteStreamController, return ?
    //    ReadableByteStreamTee(stream).
    if let Some(ControllerRef::Byte(_)) = stream.controller() {
        return byte_tee::readable_byte_stream_tee(stream, ctx);
    }
    // 4. Return ? ReadableStreamDefaultTee(stream, cloneForBranch2).
    tee::readable_stream_default_tee(stream, clone_for_branch2, ctx)
}

/// Step "Set stream.[[disturbed]] to true" of the readers' reads, with what they read next in the
/// same borrow: [[state]], and [[controller]] when the state is "readable".
pub(super) fn disturb(stream: &Object<ReadableStream>) -> (StreamState, Option<ControllerRef>) {
    let data = stream.borrow();
    let s = data.data();
    s.disturbed.set(true);
    let state = s.state.get();
    let controller = match state {
        StreamState::Readable => s.controller.borrow().clone(),
        _ => None,
    };
    (state, controller)
}

/// <https://streams.spec.whatwg.org/#readable-stream-add-read-request>
pub(crate) fn readable_stream_add_read_request(
    stream: &Object<ReadableStream>,
    read_request: ReadRequest,
) {
    // 1. Assert: stream.[[reader]] implements ReadableStreamDefaultReader.
    // 2. Assert: stream.[[state]] is "readable".
    debug_assert_eq!(stream.state(), StreamState::Readable);
    // 3. Append readRequest to stream.[[reader]].[[readRequests]]. (In place: pushing runs no
    //    script.)
    let data = stream.borrow();
    let reader = data.data().reader.borrow();
    if let Some(ReaderRef::Default(reader)) = &*reader {
        default_reader::push_read_request(reader, read_request);
    }
}

/// <https://streams.spec.whatwg.org/#readable-stream-cancel>
pub(crate) fn readable_stream_cancel(
    stream: &Object<ReadableStream>,
    reason: Value,
    ctx: &mut Cx,
) -> JsResult<crate::engine::JsPromise> {
    // 1. Set stream.[[disturbed]] to true.
    stream.set_disturbed(true);
    match stream.state() {
        // 2. If stream.[[state]] is "closed", return a promise resolved with undefined.
        StreamState::Closed => return engine::promise_resolved_with(Value::undefined(), ctx),
        // 3. If stream.[[state]] is "errored", return a promise rejected with
        //    stream.[[storedError]].
        StreamState::Errored => return engine::promise_rejected_with(stream.stored_error(), ctx),
        StreamState::Readable => {}
    }
    // 4. Perform ! ReadableStreamClose(stream).
    readable_stream_close(stream, ctx)?;
    // 5. Let reader be stream.[[reader]].
    // 6. If reader is not undefined and reader implements ReadableStreamBYOBReader,
    if let Some(ReaderRef::Byob(reader)) = stream.reader() {
        // 6.1. Let readIntoRequests be reader.[[readIntoRequests]].
        // 6.2. Set reader.[[readIntoRequests]] to an empty list.
        let read_into_requests = byob_reader::take_read_into_requests(&reader);
        // 6.3. For each readIntoRequest of readIntoRequests, perform readIntoRequest's close
        //      steps, given undefined.
        for read_into_request in read_into_requests {
            read_into_request.close_steps(Value::undefined(), ctx)?;
        }
    }
    // 7. Let sourceCancelPromise be ! stream.[[controller]].[[CancelSteps]](reason).
    let source_cancel = match stream.controller() {
        Some(controller) => readable_stream_controller_cancel_steps(&controller, reason, ctx)?,
        None => PromiseResult::undefined(),
    };
    // 8. Return the result of reacting to sourceCancelPromise with a fulfillment step that
    //    returns undefined.
    let result = engine::PromiseCapability::new(ctx);
    upon_settlement(
        source_cancel,
        result.clone(),
        |result, _, ctx| result.resolve(Value::undefined(), ctx),
        |result, reason, ctx| result.reject(reason, ctx),
        ctx,
    )?;
    Ok(result.promise().clone())
}

/// <https://streams.spec.whatwg.org/#readable-stream-close>
pub(crate) fn readable_stream_close(stream: &Object<ReadableStream>, ctx: &mut Cx) -> JsResult<()> {
    // 1. Assert: stream.[[state]] is "readable".
    debug_assert_eq!(stream.state(), StreamState::Readable);
    // 2. Set stream.[[state]] to "closed".
    stream.set_state(StreamState::Closed);
    // 3. Let reader be stream.[[reader]].
    // 4. If reader is undefined, return.
    let Some(reader) = stream.reader() else {
        return Ok(());
    };
    // 5. Resolve reader.[[closedPromise]] with undefined.
    generic_reader::resolve_closed_promise(&reader, ctx)?;
    // 6. If reader implements ReadableStreamDefaultReader,
    if let ReaderRef::Default(reader) = reader {
        // 6.1. Let readRequests be reader.[[readRequests]].
        // 6.2. Set reader.[[readRequests]] to an empty list.
        let read_requests = default_reader::take_read_requests(&reader);
        // 6.3. For each readRequest of readRequests, perform readRequest's close steps.
        for read_request in read_requests {
            read_request.close_steps(ctx)?;
        }
    }
    Ok(())
}

/// <https://streams.spec.whatwg.org/#readable-stream-error>
pub(crate) fn readable_stream_error(
    stream: &Object<ReadableStream>,
    e: Value,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Assert: stream.[[state]] is "readable".
    debug_assert_eq!(stream.state(), StreamState::Readable);
    // 2. Set stream.[[state]] to "errored".
    stream.set_state(StreamState::Errored);
    // 3. Set stream.[[storedError]] to e.
    *stream.borrow().data().stored_error.borrow_mut() = e.clone();
    // 4. Let reader be stream.[[reader]].
    // 5. If reader is undefined, return.
    let Some(reader) = stream.reader() else {
        return Ok(());
    };
    // 6. Reject reader.[[closedPromise]] with e.
    // 7. Set reader.[[closedPromise]].[[PromiseIsHandled]] to true.
    generic_reader::reject_closed_promise(&reader, e.clone(), ctx)?;
    match reader {
        // 8. If reader implements ReadableStreamDefaultReader,
        //    perform ! ReadableStreamDefaultReaderErrorReadRequests(reader, e).
        ReaderRef::Default(reader) => {
            default_reader::readable_stream_default_reader_error_read_requests(&reader, e, ctx)
        }
        // 9. Otherwise,
        // 9.1. Assert: reader implements ReadableStreamBYOBReader.
        // 9.2. Perform ! ReadableStreamBYOBReaderErrorReadIntoRequests(reader, e).
        ReaderRef::Byob(reader) => {
            byob_reader::readable_stream_byob_reader_error_read_into_requests(&reader, e, ctx)
        }
    }
}

/// <https://streams.spec.whatwg.org/#readable-stream-fulfill-read-request>
pub(crate) fn readable_stream_fulfill_read_request(
    stream: &Object<ReadableStream>,
    chunk: Chunk,
    done: bool,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Assert: ! ReadableStreamHasDefaultReader(stream) is true.
    // 2. Let reader be stream.[[reader]].
    // 3. Assert: reader.[[readRequests]] is not empty.
    // 4. Let readRequest be reader.[[readRequests]][0].
    // 5. Remove readRequest from reader.[[readRequests]].
    // (Read in place, per chunk: the borrows end before the steps below run script.)
    let read_request = {
        let data = stream.borrow();
        let reader = data.data().reader.borrow();
        match &*reader {
            Some(ReaderRef::Default(reader)) => default_reader::shift_read_request(reader),
            _ => None,
        }
    };
    let Some(read_request) = read_request else {
        // Not a debug_assert: a `then` getter that script put on Object.prototype runs while an
        // earlier read resolves, and may release the reader (or take its requests) before
        // this step.
        return Ok(());
    };
    // 6. If done is true, perform readRequest's close steps.
    if done {
        read_request.close_steps(ctx)
    } else {
        // 7. Otherwise, perform readRequest's chunk steps, given chunk.
        read_request.chunk_steps_for(chunk, stream, ctx)
    }
}

/// ! IsReadableStreamLocked(stream) is true and ! ReadableStreamGetNumReadRequests(stream) > 0:
/// the condition ReadableStreamDefaultControllerEnqueue and ShouldCallPull test per chunk, read
/// with one borrow of the stream and no handle cloned.
pub(crate) fn readable_stream_has_waiting_read_request(stream: &Object<ReadableStream>) -> bool {
    let data = stream.borrow();
    let reader = data.data().reader.borrow();
    matches!(&*reader, Some(ReaderRef::Default(reader)) if default_reader::num_read_requests(reader) > 0)
}

/// <https://streams.spec.whatwg.org/#readable-stream-get-num-read-requests>
pub(crate) fn readable_stream_get_num_read_requests(stream: &Object<ReadableStream>) -> usize {
    // 1. Assert: ! ReadableStreamHasDefaultReader(stream) is true.
    // 2. Return stream.[[reader]].[[readRequests]]'s size.
    with_reader(stream, |reader| match reader {
        Some(ReaderRef::Default(reader)) => default_reader::num_read_requests(reader),
        _ => 0,
    })
}

/// Runs `f` on stream.[[reader]], read in place (no handle cloned): for the per-chunk checks of
/// the reader's kind and request count. `f` must not run script or set [[reader]].
pub(crate) fn with_reader<R>(
    stream: &Object<ReadableStream>,
    f: impl FnOnce(Option<&ReaderRef>) -> R,
) -> R {
    let data = stream.borrow();
    let reader = data.data().reader.borrow();
    f(reader.as_ref())
}

/// <https://streams.spec.whatwg.org/#readable-stream-has-default-reader>
pub(crate) fn readable_stream_has_default_reader(stream: &Object<ReadableStream>) -> bool {
    // 1. Let reader be stream.[[reader]].
    // 2. If reader is undefined, return false.
    // 3. If reader implements ReadableStreamDefaultReader, return true.
    // 4. Return false.
    with_reader(stream, |reader| {
        matches!(reader, Some(ReaderRef::Default(_)))
    })
}
