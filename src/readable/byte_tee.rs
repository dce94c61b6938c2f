//! ReadableByteStreamTee: the branches read the source through Rust read requests and
//! read-into requests, switching between a default and a BYOB reader as the branches ask.
//!
//! <https://streams.spec.whatwg.org/#abstract-opdef-readablebytestreamtee>

use std::cell::Cell;

use crate::engine::{webidl, Cx, JsPromise, JsResult, Object, Shared, Slot, Value};

use super::{
    byob_reader::{
        acquire_readable_stream_byob_reader, readable_stream_byob_reader_read,
        readable_stream_byob_reader_release, ReadIntoRequest, ReadIntoRequestSteps,
    },
    byob_request,
    byte_controller::{
        create_readable_byte_stream, has_pending_pull_intos, readable_byte_stream_controller_close,
        readable_byte_stream_controller_enqueue, readable_byte_stream_controller_error,
        readable_byte_stream_controller_get_byob_request, readable_byte_stream_controller_respond,
        readable_byte_stream_controller_respond_with_new_view, ByteCancelAlgorithm, ByteChunk,
        BytePullAlgorithm, Controller,
    },
    default_controller::StartAlgorithm,
    default_reader::{
        readable_stream_default_reader_read, readable_stream_default_reader_release, ReadRequest,
        ReadRequestSteps,
    },
    generic_reader::{with_slots, GenericReaderSlots},
    other_specs::{NativeSource, NativeUnderlyingSource},
    stream::{acquire_readable_stream_default_reader, readable_stream_cancel, ReadableStream},
    tee::Branch,
    ControllerRef, ReaderRef,
};
use crate::engine::PromiseResult;
use crate::engine::{self, PromiseCapability};

traced! {
    /// The variables ReadableByteStreamTee's algorithms close over.
    #[derive(Debug)]
    pub(crate) struct ByteTeeState {
        stream: Object<ReadableStream>,
        reader: Slot<ReaderRef>,
        reading: Cell<bool>,
        read_again_for_branch1: Cell<bool>,
        read_again_for_branch2: Cell<bool>,
        canceled1: Cell<bool>,
        canceled2: Cell<bool>,
        reason1: Slot<Value>,
        reason2: Slot<Value>,
        branch1: Slot<Option<Object<ReadableStream>>>,
        branch2: Slot<Option<Object<ReadableStream>>>,
        cancel_promise: PromiseCapability,
    }
}

impl ByteTeeState {
    fn controller(&self, branch: Branch) -> Option<Controller> {
        let b = match branch {
            Branch::One => self.branch1.borrow().clone(),
            Branch::Two => self.branch2.borrow().clone(),
        }?;
        match super::stream::StreamSlots::controller(&b)? {
            ControllerRef::Byte(c) => Some(c),
            ControllerRef::Default(_) => None,
        }
    }

    fn canceled(&self, branch: Branch) -> bool {
        match branch {
            Branch::One => self.canceled1.get(),
            Branch::Two => self.canceled2.get(),
        }
    }

    fn reader(&self) -> ReaderRef {
        self.reader.borrow().clone()
    }
}

/// `forBranch2` as the BYOB branch and the other branch.
fn branches(for_branch2: bool) -> (Branch, Branch) {
    if for_branch2 {
        (Branch::Two, Branch::One)
    } else {
        (Branch::One, Branch::Two)
    }
}

/// Runs a `!` operation on a branch: a catchable error is dropped (the spec asserts it cannot
/// happen), an uncatchable one propagates.
fn ignore_catchable(result: JsResult<()>, ctx: &mut Cx) -> JsResult<()> {
    match result {
        Ok(()) => Ok(()),
        Err(e) => engine::thrown_value(e, ctx).map(drop),
    }
}

/// <https://streams.spec.whatwg.org/#abstract-opdef-readablebytestreamtee>
pub(crate) fn readable_byte_stream_tee(
    stream: &Object<ReadableStream>,
    ctx: &mut Cx,
) -> JsResult<(Object<ReadableStream>, Object<ReadableStream>)> {
    // 1. Assert: stream implements ReadableStream.
    // 2. Assert: stream.[[controller]] implements ReadableByteStreamController.
    // 3. Let reader be ? AcquireReadableStreamDefaultReader(stream).
    let reader = acquire_readable_stream_default_reader(stream, ctx)?;
    // 4–12. reading, readAgainForBranch1, readAgainForBranch2, canceled1, canceled2 = false;
    //       reason1, reason2, branch1, branch2 = undefined.
    // 13. Let cancelPromise be a new promise.
    let state = Shared::new(ByteTeeState {
        stream: stream.clone(),
        reader: Slot::new(ReaderRef::Default(reader)),
        reading: Cell::new(false),
        read_again_for_branch1: Cell::new(false),
        read_again_for_branch2: Cell::new(false),
        canceled1: Cell::new(false),
        canceled2: Cell::new(false),
        reason1: Slot::new(Value::undefined()),
        reason2: Slot::new(Value::undefined()),
        branch1: Slot::new(None),
        branch2: Slot::new(None),
        cancel_promise: PromiseCapability::new(ctx),
    });
    // 14. forwardReaderError: see `forward_reader_error`.
    // 15. pullWithDefaultReader: see `pull_with_default_reader`.
    // 16. pullWithBYOBReader: see `pull_with_byob_reader`.
    // 17–18. pull1Algorithm / pull2Algorithm: see `pull_algorithm`.
    // 19–20. cancel1Algorithm / cancel2Algorithm: see `cancel_algorithm`.
    // 21. Let startAlgorithm be an algorithm that returns undefined.
    // 22. Set branch1 to ! CreateReadableByteStream(startAlgorithm, pull1Algorithm,
    //     cancel1Algorithm).
    let branch1 = create_readable_byte_stream(
        StartAlgorithm::ReturnUndefined,
        BytePullAlgorithm::Native(ByteTeeBranch::source(&state, Branch::One, ctx)),
        ByteCancelAlgorithm::Native(ByteTeeBranch::source(&state, Branch::One, ctx)),
        ctx,
    )?;
    *state.branch1.borrow_mut() = Some(branch1.clone());
    // 23. Set branch2 to ! CreateReadableByteStream(startAlgorithm, pull2Algorithm,
    //     cancel2Algorithm).
    let branch2 = create_readable_byte_stream(
        StartAlgorithm::ReturnUndefined,
        BytePullAlgorithm::Native(ByteTeeBranch::source(&state, Branch::Two, ctx)),
        ByteCancelAlgorithm::Native(ByteTeeBranch::source(&state, Branch::Two, ctx)),
        ctx,
    )?;
    *state.branch2.borrow_mut() = Some(branch2.clone());
    // 24. Perform forwardReaderError, given reader.
    forward_reader_error(&state, state.reader(), ctx)?;
    // 25. Return « branch1, branch2 ».
    Ok((branch1, branch2))
}

/// ReadableByteStreamTee's forwardReaderError, given `this_reader`.
fn forward_reader_error(
    state: &Shared<ByteTeeState>,
    this_reader: ReaderRef,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Upon rejection of thisReader.[[closedPromise]] with reason r,
    let Some(closed) = with_slots(&this_reader, GenericReaderSlots::closed_promise) else {
        return Ok(());
    };
    engine::react(
        &closed,
        (state.clone(), this_reader),
        engine::ignore,
        |(state, this_reader), r, ctx| {
            // 1.1. If thisReader is not reader, return.
            if !same_reader(this_reader, &state.reader()) {
                return Ok(());
            }
            // 1.2. Perform ! ReadableByteStreamControllerError(branch1.[[controller]], r).
            if let Some(c) = state.controller(Branch::One) {
                readable_byte_stream_controller_error(&c, r.clone(), ctx)?;
            }
            // 1.3. Perform ! ReadableByteStreamControllerError(branch2.[[controller]], r).
            if let Some(c) = state.controller(Branch::Two) {
                readable_byte_stream_controller_error(&c, r, ctx)?;
            }
            // 1.4. If canceled1 is false or canceled2 is false, resolve cancelPromise with
            //      undefined.
            if !state.canceled1.get() || !state.canceled2.get() {
                state.cancel_promise.resolve(Value::undefined(), ctx)?;
            }
            Ok(())
        },
        ctx,
    )
}

fn same_reader(a: &ReaderRef, b: &ReaderRef) -> bool {
    match (a, b) {
        (ReaderRef::Default(a), ReaderRef::Default(b)) => Object::equals(a, b),
        (ReaderRef::Byob(a), ReaderRef::Byob(b)) => Object::equals(a, b),
        _ => false,
    }
}

/// ReadableByteStreamTee's pullWithDefaultReader.
fn pull_with_default_reader(state: &Shared<ByteTeeState>, ctx: &mut Cx) -> JsResult<()> {
    // 1. If reader implements ReadableStreamBYOBReader,
    if let ReaderRef::Byob(reader) = state.reader() {
        // 1.1. Assert: reader.[[readIntoRequests]] is empty.
        // 1.2. Perform ! ReadableStreamBYOBReaderRelease(reader).
        readable_stream_byob_reader_release(&reader, ctx)?;
        // 1.3. Set reader to ! AcquireReadableStreamDefaultReader(stream).
        let reader = acquire_readable_stream_default_reader(&state.stream, ctx)?;
        *state.reader.borrow_mut() = ReaderRef::Default(reader);
        // 1.4. Perform forwardReaderError, given reader.
        forward_reader_error(state, state.reader(), ctx)?;
    }
    // 2. Let readRequest be a read request with the chunk, close and error steps below.
    // 3. Perform ! ReadableStreamDefaultReaderRead(reader, readRequest).
    if let ReaderRef::Default(reader) = state.reader() {
        let read_request = ReadRequest::Steps(Box::new(ByteTeeRead(state.clone())));
        readable_stream_default_reader_read(&reader, read_request, ctx)?;
    }
    Ok(())
}

traced! {
    data;
    /// A branch's underlying byte source: pull1Algorithm or pull2Algorithm, and cancel1Algorithm
    /// or cancel2Algorithm.
    struct ByteTeeBranch {
        state: Shared<ByteTeeState>,
        #[unsafe_ignore_trace]
        branch: Branch,
    }
}

impl ByteTeeBranch {
    /// The algorithms of `branch`, as the native source the branch stream is made with.
    fn source(state: &Shared<ByteTeeState>, branch: Branch, ctx: &mut Cx) -> NativeSource {
        let this = ByteTeeBranch {
            state: state.clone(),
            branch,
        };
        NativeSource::new(&webidl::internal_object(this, ctx))
    }

    fn parts(this: &Object<Self>) -> (Shared<ByteTeeState>, Branch) {
        let this = this.borrow();
        (this.data().state.clone(), this.data().branch)
    }
}

impl NativeUnderlyingSource for ByteTeeBranch {
    fn pull(this: &Object<Self>, _: Value, ctx: &mut Cx) -> JsResult<PromiseResult> {
        let (state, branch) = Self::parts(this);
        pull_algorithm(&state, branch, ctx)
    }

    fn cancel(this: &Object<Self>, reason: Value, ctx: &mut Cx) -> JsResult<PromiseResult> {
        let (state, branch) = Self::parts(this);
        Ok(PromiseResult::Promise(cancel_algorithm(
            &state, branch, reason, ctx,
        )?))
    }
}

traced_without_drop! {
/// pullWithDefaultReader's read request.
#[derive(Debug)]
struct ByteTeeRead(Shared<ByteTeeState>);
}

impl ReadRequestSteps for ByteTeeRead {
    fn chunk_steps(self: Box<Self>, chunk: Value, ctx: &mut Cx) -> JsResult<()> {
        default_chunk_steps(self.0, chunk, ctx);
        Ok(())
    }
    fn close_steps(self: Box<Self>, ctx: &mut Cx) -> JsResult<()> {
        default_close_steps(&self.0, ctx)
    }
    fn error_steps(self: Box<Self>, _: Value, _: &mut Cx) -> JsResult<()> {
        error_steps(&self.0);
        Ok(())
    }
}

traced_without_drop! {
/// pullWithBYOBReader's read-into request (`true`: forBranch2).
#[derive(Debug)]
struct ByteTeeReadInto(Shared<ByteTeeState>, #[unsafe_ignore_trace] bool);
}

impl ReadIntoRequestSteps for ByteTeeReadInto {
    fn chunk_steps(self: Box<Self>, chunk: Value, ctx: &mut Cx) -> JsResult<()> {
        byob_chunk_steps(self.0, self.1, chunk, ctx);
        Ok(())
    }
    fn close_steps(self: Box<Self>, chunk: Value, ctx: &mut Cx) -> JsResult<()> {
        byob_close_steps(&self.0, self.1, chunk, ctx)
    }
    fn error_steps(self: Box<Self>, _: Value, _: &mut Cx) -> JsResult<()> {
        error_steps(&self.0);
        Ok(())
    }
}

/// The chunk steps of pullWithDefaultReader's read request, given `chunk`.
fn default_chunk_steps(state: Shared<ByteTeeState>, chunk: Value, ctx: &mut Cx) {
    // 1. Queue a microtask to perform the following steps:
    engine::queue_microtask(ctx, move |ctx| {
        // 1.1. Set readAgainForBranch1 to false.
        state.read_again_for_branch1.set(false);
        // 1.2. Set readAgainForBranch2 to false.
        state.read_again_for_branch2.set(false);
        // 1.3. Let chunk1 and chunk2 be chunk.
        let Ok(chunk1) = engine::array_buffer_view(&chunk, "The chunk", ctx) else {
            return Ok(());
        };
        let mut chunk2 = chunk1.clone();
        // 1.4. If canceled1 is false and canceled2 is false,
        if !state.canceled1.get() && !state.canceled2.get() {
            // 1.4.1. Let cloneResult be CloneAsUint8Array(chunk).
            match engine::clone_as_uint8_array(&chunk1, ctx) {
                // 1.4.2. If cloneResult is an abrupt completion,
                Err(error) => {
                    let e = engine::thrown_value(error, ctx)?;
                    return clone_failed(&state, Branch::One, Branch::Two, e, ctx);
                }
                // 1.4.3. Otherwise, set chunk2 to cloneResult.[[Value]].
                Ok(clone) => {
                    chunk2 = engine::array_buffer_view(&clone.into(), "The clone", ctx)?;
                }
            }
        }
        // 1.5. If canceled1 is false, perform ! ReadableByteStreamControllerEnqueue(
        //      branch1.[[controller]], chunk1).
        if !state.canceled1.get() {
            if let Some(c) = state.controller(Branch::One) {
                let r = readable_byte_stream_controller_enqueue(&c, ByteChunk::View(&chunk1), ctx);
                ignore_catchable(r, ctx)?;
            }
        }
        // 1.6. If canceled2 is false, perform ! ReadableByteStreamControllerEnqueue(
        //      branch2.[[controller]], chunk2).
        if !state.canceled2.get() {
            if let Some(c) = state.controller(Branch::Two) {
                let r = readable_byte_stream_controller_enqueue(&c, ByteChunk::View(&chunk2), ctx);
                ignore_catchable(r, ctx)?;
            }
        }
        // 1.7. Set reading to false.
        state.reading.set(false);
        // 1.8. If readAgainForBranch1 is true, perform pull1Algorithm.
        // 1.9. Otherwise, if readAgainForBranch2 is true, perform pull2Algorithm.
        read_again(&state, ctx)
    });
}

/// The cloneResult abrupt-completion steps shared by both read paths.
fn clone_failed(
    state: &Shared<ByteTeeState>,
    first: Branch,
    second: Branch,
    e: Value,
    ctx: &mut Cx,
) -> JsResult<()> {
    // Perform ! ReadableByteStreamControllerError(<first>.[[controller]], cloneResult.[[Value]]).
    if let Some(c) = state.controller(first) {
        readable_byte_stream_controller_error(&c, e.clone(), ctx)?;
    }
    // Perform ! ReadableByteStreamControllerError(<second>.[[controller]], cloneResult.[[Value]]).
    if let Some(c) = state.controller(second) {
        readable_byte_stream_controller_error(&c, e.clone(), ctx)?;
    }
    // Resolve cancelPromise with ! ReadableStreamCancel(stream, cloneResult.[[Value]]).
    let cancel_result = readable_stream_cancel(&state.stream, e, ctx)?;
    state.cancel_promise.resolve(cancel_result.into(), ctx)?;
    // Return.
    Ok(())
}

/// "If readAgainForBranch1 is true, perform pull1Algorithm. Otherwise, if readAgainForBranch2
/// is true, perform pull2Algorithm."
fn read_again(state: &Shared<ByteTeeState>, ctx: &mut Cx) -> JsResult<()> {
    if state.read_again_for_branch1.get() {
        pull_algorithm(state, Branch::One, ctx).map(drop)
    } else if state.read_again_for_branch2.get() {
        pull_algorithm(state, Branch::Two, ctx).map(drop)
    } else {
        Ok(())
    }
}

/// The close steps of pullWithDefaultReader's read request.
fn default_close_steps(state: &Shared<ByteTeeState>, ctx: &mut Cx) -> JsResult<()> {
    // 1. Set reading to false.
    state.reading.set(false);
    // 2. If canceled1 is false, perform ! ReadableByteStreamControllerClose(branch1.[[controller]]).
    // 3. If canceled2 is false, perform ! ReadableByteStreamControllerClose(branch2.[[controller]]).
    for branch in [Branch::One, Branch::Two] {
        if !state.canceled(branch) {
            if let Some(c) = state.controller(branch) {
                let r = readable_byte_stream_controller_close(&c, ctx);
                ignore_catchable(r, ctx)?;
            }
        }
    }
    // 4. If branch1.[[controller]].[[pendingPullIntos]] is not empty, perform !
    //    ReadableByteStreamControllerRespond(branch1.[[controller]], 0).
    // 5. If branch2.[[controller]].[[pendingPullIntos]] is not empty, perform !
    //    ReadableByteStreamControllerRespond(branch2.[[controller]], 0).
    for branch in [Branch::One, Branch::Two] {
        if let Some(c) = state.controller(branch) {
            if has_pending_pull_intos(&c) {
                let r = readable_byte_stream_controller_respond(&c, 0, ctx);
                ignore_catchable(r, ctx)?;
            }
        }
    }
    // 6. If canceled1 is false or canceled2 is false, resolve cancelPromise with undefined.
    if !state.canceled1.get() || !state.canceled2.get() {
        state.cancel_promise.resolve(Value::undefined(), ctx)?;
    }
    Ok(())
}

/// The error steps of both read requests: set reading to false.
fn error_steps(state: &Shared<ByteTeeState>) {
    // 1. Set reading to false.
    state.reading.set(false);
}

/// ReadableByteStreamTee's pullWithBYOBReader, given `view` and `for_branch2`.
fn pull_with_byob_reader(
    state: &Shared<ByteTeeState>,
    view: Object,
    for_branch2: bool,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. If reader implements ReadableStreamDefaultReader,
    if let ReaderRef::Default(reader) = state.reader() {
        // 1.1. Assert: reader.[[readRequests]] is empty.
        // 1.2. Perform ! ReadableStreamDefaultReaderRelease(reader).
        readable_stream_default_reader_release(&reader, ctx)?;
        // 1.3. Set reader to ! AcquireReadableStreamBYOBReader(stream).
        let reader = acquire_readable_stream_byob_reader(&state.stream, ctx)?;
        *state.reader.borrow_mut() = ReaderRef::Byob(reader);
        // 1.4. Perform forwardReaderError, given reader.
        forward_reader_error(state, state.reader(), ctx)?;
    }
    // 2. Let byobBranch be branch2 if forBranch2 is true, and branch1 otherwise.
    // 3. Let otherBranch be branch2 if forBranch2 is false, and branch1 otherwise.
    // 4. Let readIntoRequest be a read-into request with the chunk, close and error steps below.
    // 5. Perform ! ReadableStreamBYOBReaderRead(reader, view, 1, readIntoRequest).
    if let ReaderRef::Byob(reader) = state.reader() {
        let view = engine::array_buffer_view(&view.into(), "The BYOB request's view", ctx)?;
        readable_stream_byob_reader_read(
            &reader,
            &view,
            1,
            ReadIntoRequest::Steps(Box::new(ByteTeeReadInto(state.clone(), for_branch2))),
            ctx,
        )?;
    }
    Ok(())
}

/// The chunk steps of pullWithBYOBReader's read-into request, given `chunk`.
fn byob_chunk_steps(state: Shared<ByteTeeState>, for_branch2: bool, chunk: Value, ctx: &mut Cx) {
    // 1. Queue a microtask to perform the following steps:
    engine::queue_microtask(ctx, move |ctx| {
        let (byob_branch, other_branch) = branches(for_branch2);
        // 1.1. Set readAgainForBranch1 to false.
        state.read_again_for_branch1.set(false);
        // 1.2. Set readAgainForBranch2 to false.
        state.read_again_for_branch2.set(false);
        // 1.3. Let byobCanceled be canceled2 if forBranch2 is true, and canceled1 otherwise.
        let byob_canceled = state.canceled(byob_branch);
        // 1.4. Let otherCanceled be canceled2 if forBranch2 is false, and canceled1 otherwise.
        let other_canceled = state.canceled(other_branch);
        let Ok(chunk) = engine::array_buffer_view(&chunk, "The chunk", ctx) else {
            return Ok(());
        };
        // 1.5. If otherCanceled is false,
        if !other_canceled {
            // 1.5.1. Let cloneResult be CloneAsUint8Array(chunk).
            let cloned_chunk = match engine::clone_as_uint8_array(&chunk, ctx) {
                // 1.5.2. If cloneResult is an abrupt completion,
                Err(error) => {
                    let e = engine::thrown_value(error, ctx)?;
                    return clone_failed(&state, byob_branch, other_branch, e, ctx);
                }
                // 1.5.3. Otherwise, let clonedChunk be cloneResult.[[Value]].
                Ok(clone) => engine::array_buffer_view(&clone.into(), "The clone", ctx)?,
            };
            // 1.5.4. If byobCanceled is false, perform !
            //        ReadableByteStreamControllerRespondWithNewView(byobBranch.[[controller]],
            //        chunk).
            if !byob_canceled {
                if let Some(c) = state.controller(byob_branch) {
                    let r = readable_byte_stream_controller_respond_with_new_view(&c, &chunk, ctx);
                    ignore_catchable(r, ctx)?;
                }
            }
            // 1.5.5. Perform ! ReadableByteStreamControllerEnqueue(otherBranch.[[controller]],
            //        clonedChunk).
            if let Some(c) = state.controller(other_branch) {
                let r = readable_byte_stream_controller_enqueue(
                    &c,
                    ByteChunk::View(&cloned_chunk),
                    ctx,
                );
                ignore_catchable(r, ctx)?;
            }
        } else if !byob_canceled {
            // 1.6. Otherwise, if byobCanceled is false, perform !
            //      ReadableByteStreamControllerRespondWithNewView(byobBranch.[[controller]],
            //      chunk).
            if let Some(c) = state.controller(byob_branch) {
                let r = readable_byte_stream_controller_respond_with_new_view(&c, &chunk, ctx);
                ignore_catchable(r, ctx)?;
            }
        }
        // 1.7. Set reading to false.
        state.reading.set(false);
        // 1.8. If readAgainForBranch1 is true, perform pull1Algorithm.
        // 1.9. Otherwise, if readAgainForBranch2 is true, perform pull2Algorithm.
        read_again(&state, ctx)
    });
}

/// The close steps of pullWithBYOBReader's read-into request, given `chunk`.
fn byob_close_steps(
    state: &Shared<ByteTeeState>,
    for_branch2: bool,
    chunk: Value,
    ctx: &mut Cx,
) -> JsResult<()> {
    let (byob_branch, other_branch) = branches(for_branch2);
    // 1. Set reading to false.
    state.reading.set(false);
    // 2. Let byobCanceled be canceled2 if forBranch2 is true, and canceled1 otherwise.
    let byob_canceled = state.canceled(byob_branch);
    // 3. Let otherCanceled be canceled2 if forBranch2 is false, and canceled1 otherwise.
    let other_canceled = state.canceled(other_branch);
    // 4. If byobCanceled is false, perform ! ReadableByteStreamControllerClose(
    //    byobBranch.[[controller]]).
    if !byob_canceled {
        if let Some(c) = state.controller(byob_branch) {
            let r = readable_byte_stream_controller_close(&c, ctx);
            ignore_catchable(r, ctx)?;
        }
    }
    // 5. If otherCanceled is false, perform ! ReadableByteStreamControllerClose(
    //    otherBranch.[[controller]]).
    if !other_canceled {
        if let Some(c) = state.controller(other_branch) {
            let r = readable_byte_stream_controller_close(&c, ctx);
            ignore_catchable(r, ctx)?;
        }
    }
    // 6. If chunk is not undefined,
    if !chunk.is_undefined() {
        // 6.1. Assert: chunk.[[ByteLength]] is 0.
        // 6.2. If byobCanceled is false, perform !
        //      ReadableByteStreamControllerRespondWithNewView(byobBranch.[[controller]], chunk).
        if !byob_canceled {
            if let Some(c) = state.controller(byob_branch) {
                let chunk = engine::array_buffer_view(&chunk, "The chunk", ctx)?;
                let r = readable_byte_stream_controller_respond_with_new_view(&c, &chunk, ctx);
                ignore_catchable(r, ctx)?;
            }
        }
        // 6.3. If otherCanceled is false and otherBranch.[[controller]].[[pendingPullIntos]] is
        //      not empty, perform ! ReadableByteStreamControllerRespond(otherBranch.[[controller]],
        //      0).
        if !other_canceled {
            if let Some(c) = state.controller(other_branch) {
                if has_pending_pull_intos(&c) {
                    let r = readable_byte_stream_controller_respond(&c, 0, ctx);
                    ignore_catchable(r, ctx)?;
                }
            }
        }
    }
    // 7. If byobCanceled is false or otherCanceled is false, resolve cancelPromise with
    //    undefined.
    if !byob_canceled || !other_canceled {
        state.cancel_promise.resolve(Value::undefined(), ctx)?;
    }
    Ok(())
}

/// ReadableByteStreamTee's pull1Algorithm and pull2Algorithm.
fn pull_algorithm(
    state: &Shared<ByteTeeState>,
    branch: Branch,
    ctx: &mut Cx,
) -> JsResult<PromiseResult> {
    // 1. If reading is true,
    if state.reading.get() {
        // 1.1. Set readAgainForBranch1 (resp. readAgainForBranch2) to true.
        match branch {
            Branch::One => state.read_again_for_branch1.set(true),
            Branch::Two => state.read_again_for_branch2.set(true),
        }
        // 1.2. Return a promise resolved with undefined.
        return Ok(PromiseResult::undefined());
    }
    // 2. Set reading to true.
    state.reading.set(true);
    // 3. Let byobRequest be ! ReadableByteStreamControllerGetBYOBRequest(
    //    branch1.[[controller]]) (resp. branch2).
    let byob_request = match state.controller(branch) {
        Some(c) => readable_byte_stream_controller_get_byob_request(&c, ctx)?,
        None => None,
    };
    match byob_request.and_then(|r| byob_request::view(&r)) {
        // 4. If byobRequest is null, perform pullWithDefaultReader.
        None => pull_with_default_reader(state, ctx)?,
        // 5. Otherwise, perform pullWithBYOBReader, given byobRequest.[[view]] and false
        //    (resp. true).
        Some(view) => pull_with_byob_reader(state, view, branch == Branch::Two, ctx)?,
    }
    // 6. Return a promise resolved with undefined.
    Ok(PromiseResult::undefined())
}

/// ReadableByteStreamTee's cancel1Algorithm and cancel2Algorithm, given `reason`.
fn cancel_algorithm(
    state: &Shared<ByteTeeState>,
    branch: Branch,
    reason: Value,
    ctx: &mut Cx,
) -> JsResult<JsPromise> {
    let other_canceled = match branch {
        Branch::One => {
            // 1. Set canceled1 to true.
            state.canceled1.set(true);
            // 2. Set reason1 to reason.
            *state.reason1.borrow_mut() = reason;
            state.canceled2.get()
        }
        Branch::Two => {
            // 1. Set canceled2 to true.
            state.canceled2.set(true);
            // 2. Set reason2 to reason.
            *state.reason2.borrow_mut() = reason;
            state.canceled1.get()
        }
    };
    // 3. If canceled2 (resp. canceled1) is true,
    if other_canceled {
        // 3.1. Let compositeReason be ! CreateArrayFromList(« reason1, reason2 »).
        let reason1 = state.reason1.borrow().clone();
        let reason2 = state.reason2.borrow().clone();
        let composite_reason = crate::engine::create_array_from_list([reason1, reason2], ctx);
        // 3.2. Let cancelResult be ! ReadableStreamCancel(stream, compositeReason).
        let cancel_result = readable_stream_cancel(&state.stream, composite_reason.into(), ctx)?;
        // 3.3. Resolve cancelPromise with cancelResult.
        state.cancel_promise.resolve(cancel_result.into(), ctx)?;
    }
    // 4. Return cancelPromise.
    Ok(state.cancel_promise.promise().clone())
}
