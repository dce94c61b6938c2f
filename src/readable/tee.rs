//! ReadableStreamDefaultTee: the branches read the source through a Rust read request, so no
//! JS promise or closure is made per chunk.
//!
//! <https://streams.spec.whatwg.org/#abstract-opdef-readablestreamdefaulttee>

use std::cell::Cell;

use crate::engine::{webidl, Cx, JsPromise, JsResult, Object, Shared, Slot, Value};

use super::{
    default_controller::{
        readable_stream_default_controller_close, readable_stream_default_controller_enqueue,
        readable_stream_default_controller_error, CancelAlgorithm, PullAlgorithm,
        ReadableStreamDefaultController, StartAlgorithm,
    },
    default_reader::{
        readable_stream_default_reader_read, ReadRequest, ReadRequestSteps,
        ReadableStreamDefaultReader,
    },
    other_specs::{NativeSource, NativeUnderlyingSource},
    stream::{
        acquire_readable_stream_default_reader, create_readable_stream, readable_stream_cancel,
        ReadableStream, StreamSlots,
    },
};
use crate::engine::{self, PromiseCapability};
use crate::engine::{ignore, PromiseResult};

/// Which branch a cancel algorithm belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Branch {
    /// branch1 (cancel1Algorithm).
    One,
    /// branch2 (cancel2Algorithm).
    Two,
}

traced! {
    /// The variables ReadableStreamDefaultTee's algorithms close over.
    #[derive(Debug)]
    pub(crate) struct TeeState {
        stream: Object<ReadableStream>,
        reader: Object<ReadableStreamDefaultReader>,
        reading: Cell<bool>,
        read_again: Cell<bool>,
        canceled1: Cell<bool>,
        canceled2: Cell<bool>,
        reason1: Slot<Value>,
        reason2: Slot<Value>,
        branch1: Slot<Option<Object<ReadableStream>>>,
        branch2: Slot<Option<Object<ReadableStream>>>,
        cancel_promise: PromiseCapability,
        clone_for_branch2: bool,
    }
}

impl TeeState {
    fn branch_controller(&self, branch: Branch) -> Option<Object<ReadableStreamDefaultController>> {
        let b = match branch {
            Branch::One => self.branch1.borrow().clone(),
            Branch::Two => self.branch2.borrow().clone(),
        }?;
        b.controller().and_then(|c| c.as_default())
    }
}

/// <https://streams.spec.whatwg.org/#abstract-opdef-readablestreamdefaulttee>
pub(crate) fn readable_stream_default_tee(
    stream: &Object<ReadableStream>,
    clone_for_branch2: bool,
    ctx: &mut Cx,
) -> JsResult<(Object<ReadableStream>, Object<ReadableStream>)> {
    // 1. Assert: stream implements ReadableStream.
    // 2. Assert: cloneForBranch2 is a boolean.
    // 3. Let reader be ? AcquireReadableStreamDefaultReader(stream).
    let reader = acquire_readable_stream_default_reader(stream, ctx)?;
    // 4–11. reading, readAgain, canceled1, canceled2 = false; reason1, reason2, branch1,
    //       branch2 = undefined.
    // 12. Let cancelPromise be a new promise.
    let state = Shared::new(TeeState {
        stream: stream.clone(),
        reader: reader.clone(),
        reading: Cell::new(false),
        read_again: Cell::new(false),
        canceled1: Cell::new(false),
        canceled2: Cell::new(false),
        reason1: Slot::new(Value::undefined()),
        reason2: Slot::new(Value::undefined()),
        branch1: Slot::new(None),
        branch2: Slot::new(None),
        cancel_promise: PromiseCapability::new(ctx),
        clone_for_branch2,
    });
    // 13. Let pullAlgorithm be the following steps: (see `pull_algorithm`)
    // 14–15. cancel1Algorithm / cancel2Algorithm: (see `cancel_algorithm`)
    // 16. Let startAlgorithm be an algorithm that returns undefined.
    // 17. Set branch1 to ! CreateReadableStream(startAlgorithm, pullAlgorithm, cancel1Algorithm).
    let branch1 = create_readable_stream(
        StartAlgorithm::ReturnUndefined,
        PullAlgorithm::Native(TeeBranch::source(&state, Branch::One, ctx)),
        CancelAlgorithm::Native(TeeBranch::source(&state, Branch::One, ctx)),
        None,
        None,
        ctx,
    )?;
    *state.branch1.borrow_mut() = Some(branch1.clone());
    // 18. Set branch2 to ! CreateReadableStream(startAlgorithm, pullAlgorithm, cancel2Algorithm).
    let branch2 = create_readable_stream(
        StartAlgorithm::ReturnUndefined,
        PullAlgorithm::Native(TeeBranch::source(&state, Branch::Two, ctx)),
        CancelAlgorithm::Native(TeeBranch::source(&state, Branch::Two, ctx)),
        None,
        None,
        ctx,
    )?;
    *state.branch2.borrow_mut() = Some(branch2.clone());
    // 19. Upon rejection of reader.[[closedPromise]] with reason r,
    if let Some(closed) = reader.borrow().data().generic.closed_promise() {
        engine::react(
            &closed,
            state,
            ignore,
            |state, r, ctx| {
                // 19.1. Perform ! ReadableStreamDefaultControllerError(branch1.[[controller]], r).
                if let Some(c) = state.branch_controller(Branch::One) {
                    readable_stream_default_controller_error(&c, r.clone(), ctx)?;
                }
                // 19.2. Perform ! ReadableStreamDefaultControllerError(branch2.[[controller]], r).
                if let Some(c) = state.branch_controller(Branch::Two) {
                    readable_stream_default_controller_error(&c, r, ctx)?;
                }
                // 19.3. If canceled1 is false or canceled2 is false, resolve cancelPromise with
                //       undefined.
                if !state.canceled1.get() || !state.canceled2.get() {
                    state.cancel_promise.resolve(Value::undefined(), ctx)?;
                }
                Ok(())
            },
            ctx,
        )?;
    }
    // 20. Return « branch1, branch2 ».
    Ok((branch1, branch2))
}

traced! {
    data;
    /// A branch's underlying source: the tee's pullAlgorithm and the branch's cancel1Algorithm or
    /// cancel2Algorithm.
    struct TeeBranch {
        state: Shared<TeeState>,
        #[unsafe_ignore_trace]
        branch: Branch,
    }
}

impl TeeBranch {
    /// The algorithms of `branch`, as the native source the branch stream is made with.
    fn source(state: &Shared<TeeState>, branch: Branch, ctx: &mut Cx) -> NativeSource {
        let this = TeeBranch {
            state: state.clone(),
            branch,
        };
        NativeSource::new(&webidl::internal_object(this, ctx))
    }
}

impl NativeUnderlyingSource for TeeBranch {
    fn pull(this: &Object<Self>, _: Value, ctx: &mut Cx) -> JsResult<PromiseResult> {
        let state = this.borrow().data().state.clone();
        pull_algorithm(&state, ctx)
    }

    fn cancel(this: &Object<Self>, reason: Value, ctx: &mut Cx) -> JsResult<PromiseResult> {
        let (state, branch) = {
            let this = this.borrow();
            (this.data().state.clone(), this.data().branch)
        };
        Ok(PromiseResult::Promise(cancel_algorithm(
            &state, branch, reason, ctx,
        )?))
    }
}

traced_without_drop! {
/// The read request of the pullAlgorithm.
#[derive(Debug)]
struct TeeRead(Shared<TeeState>);
}

impl ReadRequestSteps for TeeRead {
    fn chunk_steps(self: Box<Self>, chunk: Value, ctx: &mut Cx) -> JsResult<()> {
        chunk_steps(self.0, chunk, ctx)
    }
    fn close_steps(self: Box<Self>, ctx: &mut Cx) -> JsResult<()> {
        close_steps(&self.0, ctx)
    }
    fn error_steps(self: Box<Self>, _: Value, _: &mut Cx) -> JsResult<()> {
        error_steps(&self.0);
        Ok(())
    }
}

/// ReadableStreamDefaultTee's pullAlgorithm.
fn pull_algorithm(state: &Shared<TeeState>, ctx: &mut Cx) -> JsResult<PromiseResult> {
    // 1. If reading is true,
    if state.reading.get() {
        // 1.1. Set readAgain to true.
        state.read_again.set(true);
        // 1.2. Return a promise resolved with undefined.
        return Ok(PromiseResult::undefined());
    }
    // 2. Set reading to true.
    state.reading.set(true);
    // 3. Let readRequest be a read request with the chunk, close and error steps below.
    // 4. Perform ! ReadableStreamDefaultReaderRead(reader, readRequest).
    let read_request = ReadRequest::Steps(Box::new(TeeRead(state.clone())));
    readable_stream_default_reader_read(&state.reader, read_request, ctx)?;
    // 5. Return a promise resolved with undefined.
    Ok(PromiseResult::undefined())
}

/// The tee read request's chunk steps, given `chunk`.
fn chunk_steps(state: Shared<TeeState>, chunk: Value, ctx: &mut Cx) -> JsResult<()> {
    // 1. Queue a microtask to perform the following steps:
    engine::queue_microtask(ctx, move |ctx| {
        // 1.1. Set readAgain to false.
        state.read_again.set(false);
        // 1.2. Let chunk1 and chunk2 be chunk.
        let chunk1 = chunk.clone();
        let mut chunk2 = chunk;
        // 1.3. If canceled2 is false and cloneForBranch2 is true, (other specifications pass
        //      true; ReadableStream.prototype.tee() passes false)
        if !state.canceled2.get() && state.clone_for_branch2 {
            // 1.3.1. Let cloneResult be StructuredClone(chunk2).
            match crate::html::serialize::structured_clone(&chunk2, ctx) {
                Ok(clone) => {
                    // 1.3.3. Otherwise, set chunk2 to cloneResult.[[Value]].
                    chunk2 = clone;
                }
                // 1.3.2. If cloneResult is an abrupt completion,
                Err(error) => {
                    let e = engine::thrown_value(error, ctx)?;
                    // 1.3.2.1-2. Perform ! ReadableStreamDefaultControllerError(
                    //            branchN.[[controller]], cloneResult.[[Value]]).
                    for branch in [Branch::One, Branch::Two] {
                        if let Some(c) = state.branch_controller(branch) {
                            readable_stream_default_controller_error(&c, e.clone(), ctx)?;
                        }
                    }
                    // 1.3.2.3. Resolve cancelPromise with ! ReadableStreamCancel(stream,
                    //          cloneResult.[[Value]]).
                    let cancel_result = readable_stream_cancel(&state.stream, e, ctx)?;
                    state.cancel_promise.resolve(cancel_result.into(), ctx)?;
                    // 1.3.2.4. Return.
                    return Ok(());
                }
            }
        }
        // 1.4. If canceled1 is false, perform ! ReadableStreamDefaultControllerEnqueue(
        //      branch1.[[controller]], chunk1).
        if !state.canceled1.get() {
            if let Some(c) = state.branch_controller(Branch::One) {
                enqueue_ignoring_size_errors(&c, chunk1, ctx)?;
            }
        }
        // 1.5. If canceled2 is false, perform ! ReadableStreamDefaultControllerEnqueue(
        //      branch2.[[controller]], chunk2).
        if !state.canceled2.get() {
            if let Some(c) = state.branch_controller(Branch::Two) {
                enqueue_ignoring_size_errors(&c, chunk2, ctx)?;
            }
        }
        // 1.6. Set reading to false.
        state.reading.set(false);
        // 1.7. If readAgain is true, perform pullAlgorithm.
        if state.read_again.get() {
            pull_algorithm(&state, ctx)?;
        }
        Ok(())
    });
    Ok(())
}

/// `! ReadableStreamDefaultControllerEnqueue` on a branch: branches have the default size
/// algorithm, so only uncatchable errors can come back.
fn enqueue_ignoring_size_errors(
    controller: &Object<ReadableStreamDefaultController>,
    chunk: Value,
    ctx: &mut Cx,
) -> JsResult<()> {
    match readable_stream_default_controller_enqueue(controller, chunk, ctx) {
        Ok(()) => Ok(()),
        Err(e) => engine::thrown_value(e, ctx).map(drop),
    }
}

/// The tee read request's close steps.
fn close_steps(state: &Shared<TeeState>, ctx: &mut Cx) -> JsResult<()> {
    // 1. Set reading to false.
    state.reading.set(false);
    // 2. If canceled1 is false, perform ! ReadableStreamDefaultControllerClose(branch1.[[controller]]).
    if !state.canceled1.get() {
        if let Some(c) = state.branch_controller(Branch::One) {
            readable_stream_default_controller_close(&c, ctx)?;
        }
    }
    // 3. If canceled2 is false, perform ! ReadableStreamDefaultControllerClose(branch2.[[controller]]).
    if !state.canceled2.get() {
        if let Some(c) = state.branch_controller(Branch::Two) {
            readable_stream_default_controller_close(&c, ctx)?;
        }
    }
    // 4. If canceled1 is false or canceled2 is false, resolve cancelPromise with undefined.
    if !state.canceled1.get() || !state.canceled2.get() {
        state.cancel_promise.resolve(Value::undefined(), ctx)?;
    }
    Ok(())
}

/// The tee read request's error steps.
fn error_steps(state: &Shared<TeeState>) {
    // 1. Set reading to false.
    state.reading.set(false);
}

/// ReadableStreamDefaultTee's cancel1Algorithm and cancel2Algorithm, given `reason`.
fn cancel_algorithm(
    state: &Shared<TeeState>,
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
