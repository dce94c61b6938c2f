//! `TransformStreamDefaultController`, the transformer algorithms it holds, and the abstract
//! operations of default controllers, default sinks and default sources.
//!
//! <https://streams.spec.whatwg.org/#ts-default-controller-class>

use crate::engine::{Cx, JsResult, Object, Slot, Value};
use crate::queue::{Chunk, NativeBytes, SinkChunk};
use crate::writable::stream::WritableSlots;
use std::rc::Rc;

use super::other_specs::NativeTransform;
use super::stream::{
    readable_controller, transform_stream_error, transform_stream_error_writable_and_unblock_write,
    transform_stream_set_backpressure, transform_stream_unblock_write, Stream, TransformSlots,
};
use crate::{
    engine::internal_promise::InternalPromise,
    engine::webidl,
    engine::{self, upon_settlement, webidl::new_object, PromiseCapability, PromiseResult},
    readable::other_specs::NativeUnderlyingSource,
    readable::{
        default_controller::{
            readable_stream_default_controller_can_close_or_enqueue,
            readable_stream_default_controller_close,
            readable_stream_default_controller_enqueue_chunk,
            readable_stream_default_controller_error,
            readable_stream_default_controller_get_desired_size,
            readable_stream_default_controller_has_backpressure,
        },
        stream::{StreamSlots, StreamState},
    },
    writable::other_specs::NativeUnderlyingSink,
    writable::{
        default_controller::writable_stream_default_controller_error_if_needed, WritableState,
    },
};

/// A typed handle on a `TransformStreamDefaultController` object.
pub(crate) type Controller = Object<TransformStreamDefaultController>;

/// The `Transformer` dictionary, converted:
/// <https://streams.spec.whatwg.org/#dictdef-transformer>.
#[derive(Debug, Default, Clone)]
pub(crate) struct Transformer {
    /// <https://streams.spec.whatwg.org/#dom-transformer-cancel>
    pub(crate) cancel: Option<Object>,
    /// <https://streams.spec.whatwg.org/#dom-transformer-flush>
    pub(crate) flush: Option<Object>,
    /// <https://streams.spec.whatwg.org/#dom-transformer-readabletype> exists.
    pub(crate) readable_type: bool,
    /// <https://streams.spec.whatwg.org/#dom-transformer-start>
    pub(crate) start: Option<Object>,
    /// <https://streams.spec.whatwg.org/#dom-transformer-transform>
    pub(crate) transform: Option<Object>,
    /// <https://streams.spec.whatwg.org/#dom-transformer-writabletype> exists.
    pub(crate) writable_type: bool,
}

impl Transformer {
    /// Converts the transformer object to the dictionary: members in lexicographic order, each
    /// converted as soon as it is read.
    pub(crate) fn from_js(value: &Value, ctx: &mut Cx) -> JsResult<Self> {
        let dict = webidl::dictionary(value, "The transformer")?;
        let dict = dict.as_ref();
        let cancel = webidl::callback(
            webidl::member(dict, "cancel", ctx)?,
            "The transformer's cancel",
        )?;
        let flush = webidl::callback(
            webidl::member(dict, "flush", ctx)?,
            "The transformer's flush",
        )?;
        let readable_type = !webidl::member(dict, "readableType", ctx)?.is_undefined();
        let start = webidl::callback(
            webidl::member(dict, "start", ctx)?,
            "The transformer's start",
        )?;
        let transform = webidl::callback(
            webidl::member(dict, "transform", ctx)?,
            "The transformer's transform",
        )?;
        let writable_type = !webidl::member(dict, "writableType", ctx)?.is_undefined();
        Ok(Self {
            cancel,
            flush,
            readable_type,
            start,
            transform,
            writable_type,
        })
    }
}

traced_without_drop! {
/// A controller's [[transformAlgorithm]].
#[derive(Debug, Clone)]
pub(crate) enum TransformAlgorithm {
    /// The identity transform: TransformStreamDefaultControllerEnqueue(controller, chunk).
    Identity,
    /// Invoke the transformer's `transform` with « chunk, controller ».
    Js {
        transformer: Value,
        transform: Object,
    },
    /// The transformAlgorithm of another standard's transform stream (set up by
    /// [`super::other_specs::set_up_transform_stream`]).
    Native(NativeTransform),
}
}

traced_without_drop! {
/// A controller's [[flushAlgorithm]].
#[derive(Debug, Clone)]
pub(crate) enum FlushAlgorithm {
    /// An algorithm which returns a promise resolved with undefined.
    ResolvedUndefined,
    /// Invoke the transformer's `flush` with « controller ».
    Js {
        transformer: Value,
        flush: Object,
    },
    /// The flushAlgorithm of another standard's transform stream.
    Native(NativeTransform),
}
}

traced_without_drop! {
/// A controller's [[cancelAlgorithm]].
#[derive(Debug, Clone)]
pub(crate) enum CancelAlgorithm {
    /// An algorithm which returns a promise resolved with undefined.
    ResolvedUndefined,
    /// Invoke the transformer's `cancel` with « reason ».
    Js {
        transformer: Value,
        cancel: Object,
    },
    /// The cancelAlgorithm of another standard's transform stream.
    Native(NativeTransform),
}
}

impl TransformAlgorithm {
    /// Whether the algorithm takes chunks of Rust bytes as they are (the identity transform,
    /// and a native transformer that takes bytes).
    fn takes_bytes(&self) -> bool {
        match self {
            TransformAlgorithm::Identity => true,
            TransformAlgorithm::Js { .. } => false,
            TransformAlgorithm::Native(transformer) => transformer.takes_bytes(),
        }
    }

    /// Performs the algorithm for `controller`, passing `chunk` (Rust bytes become a
    /// `Uint8Array` for a JS transformer).
    pub(crate) fn perform(
        self,
        controller: &Controller,
        chunk: SinkChunk,
        ctx: &mut Cx,
    ) -> JsResult<PromiseResult> {
        let outcome = match self {
            TransformAlgorithm::Identity => transform_stream_default_controller_enqueue_chunk(
                controller,
                chunk.into_chunk(),
                ctx,
            ),
            TransformAlgorithm::Js {
                transformer,
                transform,
            } => {
                let chunk = chunk.into_value(ctx)?;
                let args = [chunk, controller.clone().upcast().into()];
                return PromiseResult::from_callback(
                    engine::call_object(&transform, &transformer, &args, ctx),
                    ctx,
                );
            }
            TransformAlgorithm::Native(transformer) => {
                return match chunk {
                    SinkChunk::Value(chunk) => transformer.transform(controller, chunk, ctx),
                    SinkChunk::Bytes(bytes) => {
                        transformer.transform_bytes(controller, bytes.as_slice(), ctx)
                    }
                };
            }
        };
        match outcome {
            Ok(()) => Ok(PromiseResult::undefined()),
            Err(error) => Ok(PromiseResult::Rejected(engine::thrown_value(error, ctx)?)),
        }
    }
}

impl FlushAlgorithm {
    /// Performs the algorithm for `controller`.
    pub(crate) fn perform(self, controller: &Controller, ctx: &mut Cx) -> JsResult<PromiseResult> {
        match self {
            FlushAlgorithm::ResolvedUndefined => Ok(PromiseResult::undefined()),
            FlushAlgorithm::Js { transformer, flush } => {
                let args = [controller.clone().upcast().into()];
                PromiseResult::from_callback(
                    engine::call_object(&flush, &transformer, &args, ctx),
                    ctx,
                )
            }
            FlushAlgorithm::Native(transformer) => transformer.flush(controller, ctx),
        }
    }
}

impl CancelAlgorithm {
    /// Performs the algorithm, passing `reason`.
    pub(crate) fn perform(self, reason: Value, ctx: &mut Cx) -> JsResult<PromiseResult> {
        match self {
            CancelAlgorithm::ResolvedUndefined => Ok(PromiseResult::undefined()),
            CancelAlgorithm::Js {
                transformer,
                cancel,
            } => PromiseResult::from_callback(
                engine::call_object(&cancel, &transformer, &[reason], ctx),
                ctx,
            ),
            CancelAlgorithm::Native(transformer) => transformer.cancel(reason, ctx),
        }
    }
}

traced! {
    data;
    /// <https://streams.spec.whatwg.org/#transformstreamdefaultcontroller>
    #[derive(Debug)]
    pub(crate) struct TransformStreamDefaultController {
        /// <https://streams.spec.whatwg.org/#transformstreamdefaultcontroller-cancelalgorithm>
        cancel_algorithm: Slot<Option<CancelAlgorithm>>,
        /// <https://streams.spec.whatwg.org/#transformstreamdefaultcontroller-finishpromise>
        finish_promise: Slot<Option<PromiseCapability>>,
        /// <https://streams.spec.whatwg.org/#transformstreamdefaultcontroller-flushalgorithm>
        flush_algorithm: Slot<Option<FlushAlgorithm>>,
        /// <https://streams.spec.whatwg.org/#transformstreamdefaultcontroller-stream>
        stream: Stream,
        /// <https://streams.spec.whatwg.org/#transformstreamdefaultcontroller-transformalgorithm>
        transform_algorithm: Slot<Option<TransformAlgorithm>>,
    }
}

/// controller.[[stream]].
fn stream_of(controller: &Controller) -> Stream {
    controller.borrow().data().stream.clone()
}

fn finish_promise(controller: &Controller) -> Option<PromiseCapability> {
    controller.borrow().data().finish_promise.borrow().clone()
}

fn set_finish_promise(controller: &Controller, promise: PromiseCapability) {
    *controller.borrow().data().finish_promise.borrow_mut() = Some(promise);
}

impl webidl::ClassInterface for TransformStreamDefaultController {
    const LENGTH: usize = 0;
    fn members(b: &mut webidl::InterfaceBuilder<'_, '_>) {
        b.attribute("desiredSize", desired_size, None);
        b.operation("enqueue", 0, enqueue);
        b.operation("error", 0, error);
        b.operation("terminate", 0, terminate);
    }

    fn construct(_: &Value, _: &[Value], _: &mut Cx) -> JsResult<Self> {
        Err(webidl::illegal_constructor(
            <Self as webidl::Interface>::NAME,
        ))
    }
}

webidl::interface!(
    TransformStreamDefaultController,
    "TransformStreamDefaultController"
);

/// <https://streams.spec.whatwg.org/#ts-default-controller-desired-size>
fn desired_size(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    let controller = webidl::this::<TransformStreamDefaultController>(this)?;
    // 1. Let readableController be this.[[stream]].[[readable]].[[controller]].
    // 2. Return ! ReadableStreamDefaultControllerGetDesiredSize(readableController).
    let size = readable_controller(&stream_of(&controller))
        .and_then(|rc| readable_stream_default_controller_get_desired_size(&rc));
    Ok(size.map_or_else(Value::null, Value::from))
}

/// <https://streams.spec.whatwg.org/#ts-default-controller-enqueue>
fn enqueue(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let controller = webidl::this::<TransformStreamDefaultController>(this)?;
    let chunk = args.first().cloned().unwrap_or_default();
    // (A buffer chunk script made counts toward the host's collection: see
    // `engine::note_chunk_bytes`.)
    engine::note_chunk_bytes(&chunk, ctx);
    // 1. Perform ? TransformStreamDefaultControllerEnqueue(this, chunk).
    transform_stream_default_controller_enqueue(&controller, chunk, ctx)?;
    Ok(Value::undefined())
}

/// <https://streams.spec.whatwg.org/#ts-default-controller-error>
fn error(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let controller = webidl::this::<TransformStreamDefaultController>(this)?;
    let e = args.first().cloned().unwrap_or_default();
    // 1. Perform ? TransformStreamDefaultControllerError(this, e).
    transform_stream_default_controller_error(&controller, e, ctx)?;
    Ok(Value::undefined())
}

/// <https://streams.spec.whatwg.org/#ts-default-controller-terminate>
fn terminate(this: &Value, _: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let controller = webidl::this::<TransformStreamDefaultController>(this)?;
    // 1. Perform ? TransformStreamDefaultControllerTerminate(this).
    transform_stream_default_controller_terminate(&controller, ctx)?;
    Ok(Value::undefined())
}

/// <https://streams.spec.whatwg.org/#set-up-transform-stream-default-controller>
///
/// The controller object is created here (the spec's caller creates it just before), since its
/// [[stream]] slot is immutable.
pub(crate) fn set_up_transform_stream_default_controller(
    stream: &Stream,
    transform_algorithm: TransformAlgorithm,
    flush_algorithm: FlushAlgorithm,
    cancel_algorithm: CancelAlgorithm,
    ctx: &mut Cx,
) -> JsResult<Controller> {
    // 1. Assert: stream implements TransformStream.
    // 2. Assert: stream.[[controller]] is undefined.
    // 3. Set controller.[[stream]] to stream.
    // 5. Set controller.[[transformAlgorithm]] to transformAlgorithm.
    // 6. Set controller.[[flushAlgorithm]] to flushAlgorithm.
    // 7. Set controller.[[cancelAlgorithm]] to cancelAlgorithm.
    let controller = new_object(
        TransformStreamDefaultController {
            cancel_algorithm: Slot::new(Some(cancel_algorithm)),
            finish_promise: Slot::new(None),
            flush_algorithm: Slot::new(Some(flush_algorithm)),
            stream: stream.clone(),
            transform_algorithm: Slot::new(Some(transform_algorithm)),
        },
        ctx,
    )?;
    // 4. Set stream.[[controller]] to controller.
    stream.set_controller(controller.clone());
    Ok(controller)
}

/// <https://streams.spec.whatwg.org/#set-up-transform-stream-default-controller-from-transformer>
pub(crate) fn set_up_transform_stream_default_controller_from_transformer(
    stream: &Stream,
    transformer: Value,
    transformer_dict: Transformer,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Let controller be a new TransformStreamDefaultController.
    //    (Created by SetUpTransformStreamDefaultController.)
    // 2. Let transformAlgorithm be the following steps, taking a chunk argument:
    // 2.1. Let result be TransformStreamDefaultControllerEnqueue(controller, chunk).
    // 2.2. If result is an abrupt completion, return a promise rejected with result.[[Value]].
    // 2.3. Otherwise, return a promise resolved with undefined.
    // 5. If transformerDict["transform"] exists, set transformAlgorithm to an algorithm which
    //    takes an argument chunk and returns the result of invoking
    //    transformerDict["transform"] with argument list « chunk, controller » and callback
    //    this value transformer.
    let transform_algorithm = match transformer_dict.transform {
        Some(transform) => TransformAlgorithm::Js {
            transformer: transformer.clone(),
            transform,
        },
        None => TransformAlgorithm::Identity,
    };
    // 3. Let flushAlgorithm be an algorithm which returns a promise resolved with undefined.
    // 6. If transformerDict["flush"] exists, set flushAlgorithm to an algorithm which returns
    //    the result of invoking transformerDict["flush"] with argument list « controller » and
    //    callback this value transformer.
    let flush_algorithm = match transformer_dict.flush {
        Some(flush) => FlushAlgorithm::Js {
            transformer: transformer.clone(),
            flush,
        },
        None => FlushAlgorithm::ResolvedUndefined,
    };
    // 4. Let cancelAlgorithm be an algorithm which returns a promise resolved with undefined.
    // 7. If transformerDict["cancel"] exists, set cancelAlgorithm to an algorithm which takes an
    //    argument reason and returns the result of invoking transformerDict["cancel"] with
    //    argument list « reason » and callback this value transformer.
    let cancel_algorithm = match transformer_dict.cancel {
        Some(cancel) => CancelAlgorithm::Js {
            transformer,
            cancel,
        },
        None => CancelAlgorithm::ResolvedUndefined,
    };
    // 8. Perform ! SetUpTransformStreamDefaultController(stream, controller,
    //    transformAlgorithm, flushAlgorithm, cancelAlgorithm).
    set_up_transform_stream_default_controller(
        stream,
        transform_algorithm,
        flush_algorithm,
        cancel_algorithm,
        ctx,
    )?;
    Ok(())
}

/// <https://streams.spec.whatwg.org/#transform-stream-default-controller-clear-algorithms>
pub(crate) fn transform_stream_default_controller_clear_algorithms(controller: &Controller) {
    let c = controller.borrow();
    let data = c.data();
    // 1. Set controller.[[transformAlgorithm]] to undefined.
    *data.transform_algorithm.borrow_mut() = None;
    // 2. Set controller.[[flushAlgorithm]] to undefined.
    *data.flush_algorithm.borrow_mut() = None;
    // 3. Set controller.[[cancelAlgorithm]] to undefined.
    *data.cancel_algorithm.borrow_mut() = None;
}

/// <https://streams.spec.whatwg.org/#transform-stream-default-controller-enqueue>
pub(crate) fn transform_stream_default_controller_enqueue(
    controller: &Controller,
    chunk: Value,
    ctx: &mut Cx,
) -> JsResult<()> {
    transform_stream_default_controller_enqueue_chunk(controller, Chunk::Value(chunk), ctx)
}

/// TransformStreamDefaultControllerEnqueue given a [`Chunk`]: a native transformer's output of
/// Rust bytes, which stays Rust bytes in the readable side's queue until a reader that is not
/// Rust makes it a `Uint8Array`.
pub(crate) fn transform_stream_default_controller_enqueue_chunk(
    controller: &Controller,
    chunk: Chunk,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Let stream be controller.[[stream]].
    let stream = stream_of(controller);
    // 2. Let readableController be stream.[[readable]].[[controller]].
    let Some(readable_controller) = readable_controller(&stream) else {
        return Err(engine::throw_type_error(
            "The readable side has no controller",
        ));
    };
    // 3. If ! ReadableStreamDefaultControllerCanCloseOrEnqueue(readableController) is false,
    //    throw a TypeError exception.
    if !readable_stream_default_controller_can_close_or_enqueue(&readable_controller) {
        return Err(engine::throw_type_error(
            "The readable side is not in a state that permits enqueue",
        ));
    }
    // 4. Let enqueueResult be ReadableStreamDefaultControllerEnqueue(readableController, chunk).
    let enqueue_result =
        readable_stream_default_controller_enqueue_chunk(&readable_controller, chunk, ctx);
    // 5. If enqueueResult is an abrupt completion,
    if let Err(error) = enqueue_result {
        let e = engine::thrown_value(error, ctx)?;
        // 5.1. Perform ! TransformStreamErrorWritableAndUnblockWrite(stream,
        //      enqueueResult.[[Value]]).
        transform_stream_error_writable_and_unblock_write(&stream, e, ctx)?;
        // 5.2. Throw stream.[[readable]].[[storedError]].
        let stored = stream
            .readable()
            .map(|r| r.stored_error())
            .unwrap_or_default();
        return Err(crate::engine::throw_value(stored));
    }
    // 6. Let backpressure be ! ReadableStreamDefaultControllerHasBackpressure(readableController).
    let has_backpressure =
        readable_stream_default_controller_has_backpressure(&readable_controller);
    // 7. If backpressure is not stream.[[backpressure]],
    if Some(has_backpressure) != stream.backpressure() {
        // 7.1. Assert: backpressure is true.
        debug_assert!(has_backpressure);
        // 7.2. Perform ! TransformStreamSetBackpressure(stream, true).
        transform_stream_set_backpressure(&stream, true, ctx)?;
    }
    Ok(())
}

/// <https://streams.spec.whatwg.org/#transform-stream-default-controller-error>
pub(crate) fn transform_stream_default_controller_error(
    controller: &Controller,
    e: Value,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Perform ! TransformStreamError(controller.[[stream]], e).
    transform_stream_error(&stream_of(controller), e, ctx)
}

/// <https://streams.spec.whatwg.org/#transform-stream-default-controller-perform-transform>
pub(crate) fn transform_stream_default_controller_perform_transform(
    controller: &Controller,
    chunk: SinkChunk,
    ctx: &mut Cx,
) -> JsResult<PromiseResult> {
    // 1. Let transformPromise be the result of performing controller.[[transformAlgorithm]],
    //    passing chunk.
    let algorithm = controller
        .borrow()
        .data()
        .transform_algorithm
        .borrow()
        .clone();
    let transform_promise = match algorithm {
        Some(algorithm) => algorithm.perform(controller, chunk, ctx)?,
        // AD-HOC: the algorithm was cleared. TransformStreamDefaultControllerClearAlgorithms is
        // called once "the algorithms will not be executed any more", yet a write that waited
        // on [[backpressureChangePromise]] reaches this step after the readable side was
        // cancelled (TransformStreamUnblockWrite resolves that promise, or a read released it
        // just before the cancel). The spec then performs undefined. A cleared algorithm is
        // performed as one returning a promise resolved with undefined, as for the cleared
        // cancel and flush algorithms, so the pending write resolves: WPT
        // transform-streams/backpressure.any.js, "cancelling the readable should cause a
        // pending write to resolve".
        None => PromiseResult::Fulfilled(Value::undefined()),
    };
    // 2. Return the result of reacting to transformPromise with the following rejection steps
    //    given the argument r:
    // (Fulfilled already with a non-object: the result is a promise the reaction's job, queued
    // now, fulfills with the same value. Every caller hands it on to be reacted to or adopted
    // at once: see `PromiseResult::FulfilledByQueuedJob`.)
    let transform_promise = match transform_promise {
        PromiseResult::Fulfilled(value) if !value.is_object() => {
            return Ok(PromiseResult::FulfilledByQueuedJob(value));
        }
        other => other,
    };
    let result = InternalPromise::new();
    upon_settlement(
        transform_promise,
        (controller.clone(), result.clone()),
        |(_, result), value, ctx| result.resolve(value, ctx),
        |(controller, result), r, ctx| {
            // 2.1. Perform ! TransformStreamError(controller.[[stream]], r).
            transform_stream_error(&stream_of(controller), r.clone(), ctx)?;
            // 2.2. Throw r.
            result.reject(r, ctx);
            Ok(())
        },
        ctx,
    )?;
    Ok(PromiseResult::Internal(result))
}

/// <https://streams.spec.whatwg.org/#transform-stream-default-controller-terminate>
pub(crate) fn transform_stream_default_controller_terminate(
    controller: &Controller,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Let stream be controller.[[stream]].
    let stream = stream_of(controller);
    // 2. Let readableController be stream.[[readable]].[[controller]].
    // 3. Perform ! ReadableStreamDefaultControllerClose(readableController).
    if let Some(readable_controller) = readable_controller(&stream) {
        readable_stream_default_controller_close(&readable_controller, ctx)?;
    }
    // 4. Let error be a TypeError exception indicating that the stream has been terminated.
    let error = engine::type_error("The transform stream has been terminated", ctx);
    // 5. Perform ! TransformStreamErrorWritableAndUnblockWrite(stream, error).
    transform_stream_error_writable_and_unblock_write(&stream, error, ctx)
}

/// Resolves `promise` with an algorithm's result, which the spec has as a promise: adopting it
/// takes the same jobs as adopting a promise (a settled result is adopted as a settled promise).
fn resolve_with_result(
    promise: &InternalPromise,
    result: PromiseResult,
    ctx: &mut Cx,
) -> JsResult<()> {
    match result {
        PromiseResult::Promise(p) => promise.resolve(p.into(), ctx)?,
        PromiseResult::Internal(p) => promise.resolve_with_internal(p, ctx),
        PromiseResult::Fulfilled(v) => {
            let settled = InternalPromise::new();
            settled.resolve(v, ctx)?;
            promise.resolve_with_internal(settled, ctx);
        }
        PromiseResult::Rejected(r) => {
            let settled = InternalPromise::new();
            settled.reject(r, ctx);
            promise.resolve_with_internal(settled, ctx);
        }
        PromiseResult::FulfilledByQueuedJob(v) => {
            // The promise, made: the job that fulfills it is queued now.
            let fulfilled_later = InternalPromise::new();
            let fulfills = fulfilled_later.clone();
            engine::queue_microtask(ctx, move |ctx| fulfills.resolve(v, ctx));
            promise.resolve_with_internal(fulfilled_later, ctx);
        }
    }
    Ok(())
}

/// TransformStream's writable side: InitializeTransformStream's writeAlgorithm, closeAlgorithm
/// and abortAlgorithm (steps 2–4), through the writable streams' "other specifications" door.
impl NativeUnderlyingSink for super::TransformStream {
    fn write(stream: &Stream, chunk: Value, _: Value, ctx: &mut Cx) -> JsResult<PromiseResult> {
        // 1. Return ! TransformStreamDefaultSinkWriteAlgorithm(stream, chunk).
        transform_stream_default_sink_write_algorithm(stream, SinkChunk::Value(chunk), ctx)
    }

    /// A transform whose transformAlgorithm takes Rust bytes (the identity transform, a
    /// native transformer that takes bytes) takes a native pipe's chunks as they are.
    fn takes_bytes(stream: &Stream) -> bool {
        stream.controller().is_some_and(|controller| {
            controller
                .borrow()
                .data()
                .transform_algorithm
                .borrow()
                .as_ref()
                .is_some_and(TransformAlgorithm::takes_bytes)
        })
    }

    fn write_bytes(
        stream: &Stream,
        bytes: Rc<NativeBytes>,
        _: Value,
        ctx: &mut Cx,
    ) -> JsResult<PromiseResult> {
        // 1. Return ! TransformStreamDefaultSinkWriteAlgorithm(stream, chunk).
        transform_stream_default_sink_write_algorithm(stream, SinkChunk::Bytes(bytes), ctx)
    }

    fn close(stream: &Stream, ctx: &mut Cx) -> JsResult<PromiseResult> {
        // 1. Return ! TransformStreamDefaultSinkCloseAlgorithm(stream).
        transform_stream_default_sink_close_algorithm(stream, ctx)
    }

    fn abort(stream: &Stream, reason: Value, ctx: &mut Cx) -> JsResult<PromiseResult> {
        // 1. Return ! TransformStreamDefaultSinkAbortAlgorithm(stream, reason).
        transform_stream_default_sink_abort_algorithm(stream, reason, ctx)
    }
}

/// TransformStream's readable side: InitializeTransformStream's pullAlgorithm and
/// cancelAlgorithm (steps 6–7).
impl NativeUnderlyingSource for super::TransformStream {
    fn pull(stream: &Stream, _: Value, ctx: &mut Cx) -> JsResult<PromiseResult> {
        // 1. Return ! TransformStreamDefaultSourcePullAlgorithm(stream).
        transform_stream_default_source_pull_algorithm(stream, ctx)
    }

    fn cancel(stream: &Stream, reason: Value, ctx: &mut Cx) -> JsResult<PromiseResult> {
        // 1. Return ! TransformStreamDefaultSourceCancelAlgorithm(stream, reason).
        transform_stream_default_source_cancel_algorithm(stream, reason, ctx)
    }
}

/// <https://streams.spec.whatwg.org/#transform-stream-default-sink-write-algorithm>
/// (`chunk` is a JS value, or a native pipe's Rust bytes where the transformAlgorithm takes
/// them).
pub(crate) fn transform_stream_default_sink_write_algorithm(
    stream: &Stream,
    chunk: SinkChunk,
    ctx: &mut Cx,
) -> JsResult<PromiseResult> {
    // 1. Assert: stream.[[writable]].[[state]] is "writable".
    // 2. Let controller be stream.[[controller]].
    let Some(controller) = stream.controller() else {
        debug_assert!(
            false,
            "Assert: stream.[[writable]].[[state]] is \"writable\""
        );
        return Ok(PromiseResult::undefined());
    };
    // 3. If stream.[[backpressure]] is true,
    if stream.backpressure() == Some(true) {
        // 3.1. Let backpressureChangePromise be stream.[[backpressureChangePromise]].
        // 3.2. Assert: backpressureChangePromise is not undefined.
        let Some(backpressure_change_promise) = stream.backpressure_change_promise() else {
            debug_assert!(false, "Assert: backpressureChangePromise is not undefined");
            return transform_stream_default_controller_perform_transform(&controller, chunk, ctx);
        };
        // 3.3. Return the result of reacting to backpressureChangePromise with the following
        //      fulfillment steps:
        let result = InternalPromise::new();
        upon_settlement(
            PromiseResult::Internal(backpressure_change_promise),
            // (The chunk is taken out when the transform runs, so that Rust bytes reach it
            // unshared: see `SinkChunk::into_chunk`.)
            (
                stream.clone(),
                controller,
                Slot::new(Some(chunk)),
                result.clone(),
            ),
            |(stream, controller, chunk, result), _, ctx| {
                // 3.3.1. Let writable be stream.[[writable]].
                let Some(writable) = stream.writable() else {
                    return Ok(());
                };
                // 3.3.2. Let state be writable.[[state]].
                // 3.3.3. If state is "erroring", throw writable.[[storedError]].
                if writable.state() == WritableState::Erroring {
                    result.reject(writable.stored_error(), ctx);
                    return Ok(());
                }
                // 3.3.4. Assert: state is "writable".
                // 3.3.5. Return ! TransformStreamDefaultControllerPerformTransform(controller,
                //        chunk).
                // Assert: the chunk is still here (a reaction's fulfillment steps run once).
                let Some(chunk) = chunk.borrow_mut().take() else {
                    debug_assert!(false, "the chunk was taken already");
                    return Ok(());
                };
                let promise =
                    transform_stream_default_controller_perform_transform(controller, chunk, ctx)?;
                resolve_with_result(result, promise, ctx)
            },
            |(.., result), r, ctx| {
                result.reject(r, ctx);
                Ok(())
            },
            ctx,
        )?;
        return Ok(PromiseResult::Internal(result));
    }
    // 4. Return ! TransformStreamDefaultControllerPerformTransform(controller, chunk).
    transform_stream_default_controller_perform_transform(&controller, chunk, ctx)
}

/// Performs controller.[[cancelAlgorithm]], passing `reason`.
fn perform_cancel_algorithm(
    controller: &Controller,
    reason: Value,
    ctx: &mut Cx,
) -> JsResult<PromiseResult> {
    let algorithm = controller.borrow().data().cancel_algorithm.borrow().clone();
    match algorithm {
        Some(algorithm) => algorithm.perform(reason, ctx),
        None => Ok(PromiseResult::undefined()),
    }
}

/// <https://streams.spec.whatwg.org/#transform-stream-default-sink-abort-algorithm>
pub(crate) fn transform_stream_default_sink_abort_algorithm(
    stream: &Stream,
    reason: Value,
    ctx: &mut Cx,
) -> JsResult<PromiseResult> {
    // 1. Let controller be stream.[[controller]].
    let Some(controller) = stream.controller() else {
        return Ok(PromiseResult::undefined());
    };
    // 2. If controller.[[finishPromise]] is not undefined, return controller.[[finishPromise]].
    if let Some(finish) = finish_promise(&controller) {
        return Ok(PromiseResult::Promise(finish.promise().clone()));
    }
    // 3. Let readable be stream.[[readable]].
    // 4. Let controller.[[finishPromise]] be a new promise.
    let finish = PromiseCapability::new(ctx);
    set_finish_promise(&controller, finish.clone());
    // 5. Let cancelPromise be the result of performing controller.[[cancelAlgorithm]], passing
    //    reason.
    let cancel_promise = perform_cancel_algorithm(&controller, reason.clone(), ctx)?;
    // 6. Perform ! TransformStreamDefaultControllerClearAlgorithms(controller).
    transform_stream_default_controller_clear_algorithms(&controller);
    // 7. React to cancelPromise:
    upon_settlement(
        cancel_promise,
        (stream.clone(), finish.clone(), reason),
        // 7.1. If cancelPromise was fulfilled, then:
        |(stream, finish, reason), _, ctx| {
            let Some(readable) = stream.readable() else {
                return Ok(());
            };
            // 7.1.1. If readable.[[state]] is "errored", reject controller.[[finishPromise]]
            //        with readable.[[storedError]].
            if readable.state() == StreamState::Errored {
                return finish.reject(readable.stored_error(), ctx);
            }
            // 7.1.2. Otherwise:
            // 7.1.2.1. Perform ! ReadableStreamDefaultControllerError(readable.[[controller]],
            //          reason).
            if let Some(rc) = readable_controller(stream) {
                readable_stream_default_controller_error(&rc, reason.clone(), ctx)?;
            }
            // 7.1.2.2. Resolve controller.[[finishPromise]] with undefined.
            finish.resolve(Value::undefined(), ctx)
        },
        // 7.2. If cancelPromise was rejected with reason r, then:
        |(stream, finish, _), r, ctx| {
            // 7.2.1. Perform ! ReadableStreamDefaultControllerError(readable.[[controller]], r).
            if let Some(rc) = readable_controller(stream) {
                readable_stream_default_controller_error(&rc, r.clone(), ctx)?;
            }
            // 7.2.2. Reject controller.[[finishPromise]] with r.
            finish.reject(r, ctx)
        },
        ctx,
    )?;
    // 8. Return controller.[[finishPromise]].
    Ok(PromiseResult::Promise(finish.promise().clone()))
}

/// <https://streams.spec.whatwg.org/#transform-stream-default-sink-close-algorithm>
pub(crate) fn transform_stream_default_sink_close_algorithm(
    stream: &Stream,
    ctx: &mut Cx,
) -> JsResult<PromiseResult> {
    // 1. Let controller be stream.[[controller]].
    let Some(controller) = stream.controller() else {
        return Ok(PromiseResult::undefined());
    };
    // 2. If controller.[[finishPromise]] is not undefined, return controller.[[finishPromise]].
    if let Some(finish) = finish_promise(&controller) {
        return Ok(PromiseResult::Promise(finish.promise().clone()));
    }
    // 3. Let readable be stream.[[readable]].
    // 4. Let controller.[[finishPromise]] be a new promise.
    let finish = PromiseCapability::new(ctx);
    set_finish_promise(&controller, finish.clone());
    // 5. Let flushPromise be the result of performing controller.[[flushAlgorithm]].
    let algorithm = controller.borrow().data().flush_algorithm.borrow().clone();
    let flush_promise = match algorithm {
        Some(algorithm) => algorithm.perform(&controller, ctx)?,
        None => PromiseResult::undefined(),
    };
    // 6. Perform ! TransformStreamDefaultControllerClearAlgorithms(controller).
    transform_stream_default_controller_clear_algorithms(&controller);
    // 7. React to flushPromise:
    upon_settlement(
        flush_promise,
        (stream.clone(), finish.clone()),
        // 7.1. If flushPromise was fulfilled, then:
        |(stream, finish), _, ctx| {
            let Some(readable) = stream.readable() else {
                return Ok(());
            };
            // 7.1.1. If readable.[[state]] is "errored", reject controller.[[finishPromise]]
            //        with readable.[[storedError]].
            if readable.state() == StreamState::Errored {
                return finish.reject(readable.stored_error(), ctx);
            }
            // 7.1.2. Otherwise:
            // 7.1.2.1. Perform ! ReadableStreamDefaultControllerClose(readable.[[controller]]).
            if let Some(rc) = readable_controller(stream) {
                readable_stream_default_controller_close(&rc, ctx)?;
            }
            // 7.1.2.2. Resolve controller.[[finishPromise]] with undefined.
            finish.resolve(Value::undefined(), ctx)
        },
        // 7.2. If flushPromise was rejected with reason r, then:
        |(stream, finish), r, ctx| {
            // 7.2.1. Perform ! ReadableStreamDefaultControllerError(readable.[[controller]], r).
            if let Some(rc) = readable_controller(stream) {
                readable_stream_default_controller_error(&rc, r.clone(), ctx)?;
            }
            // 7.2.2. Reject controller.[[finishPromise]] with r.
            finish.reject(r, ctx)
        },
        ctx,
    )?;
    // 8. Return controller.[[finishPromise]].
    Ok(PromiseResult::Promise(finish.promise().clone()))
}

/// <https://streams.spec.whatwg.org/#transform-stream-default-source-cancel>
pub(crate) fn transform_stream_default_source_cancel_algorithm(
    stream: &Stream,
    reason: Value,
    ctx: &mut Cx,
) -> JsResult<PromiseResult> {
    // 1. Let controller be stream.[[controller]].
    let Some(controller) = stream.controller() else {
        return Ok(PromiseResult::undefined());
    };
    // 2. If controller.[[finishPromise]] is not undefined, return controller.[[finishPromise]].
    if let Some(finish) = finish_promise(&controller) {
        return Ok(PromiseResult::Promise(finish.promise().clone()));
    }
    // 3. Let writable be stream.[[writable]].
    // 4. Let controller.[[finishPromise]] be a new promise.
    let finish = PromiseCapability::new(ctx);
    set_finish_promise(&controller, finish.clone());
    // 5. Let cancelPromise be the result of performing controller.[[cancelAlgorithm]], passing
    //    reason.
    let cancel_promise = perform_cancel_algorithm(&controller, reason.clone(), ctx)?;
    // 6. Perform ! TransformStreamDefaultControllerClearAlgorithms(controller).
    transform_stream_default_controller_clear_algorithms(&controller);
    // 7. React to cancelPromise:
    upon_settlement(
        cancel_promise,
        (stream.clone(), finish.clone(), reason),
        // 7.1. If cancelPromise was fulfilled, then:
        |(stream, finish, reason), _, ctx| {
            let Some(writable) = stream.writable() else {
                return Ok(());
            };
            // 7.1.1. If writable.[[state]] is "errored", reject controller.[[finishPromise]]
            //        with writable.[[storedError]].
            if writable.state() == WritableState::Errored {
                return finish.reject(writable.stored_error(), ctx);
            }
            // 7.1.2. Otherwise:
            // 7.1.2.1. Perform ! WritableStreamDefaultControllerErrorIfNeeded(
            //          writable.[[controller]], reason).
            if let Some(wc) = writable.controller() {
                writable_stream_default_controller_error_if_needed(&wc, reason.clone(), ctx)?;
            }
            // 7.1.2.2. Perform ! TransformStreamUnblockWrite(stream).
            transform_stream_unblock_write(stream, ctx)?;
            // 7.1.2.3. Resolve controller.[[finishPromise]] with undefined.
            finish.resolve(Value::undefined(), ctx)
        },
        // 7.2. If cancelPromise was rejected with reason r, then:
        |(stream, finish, _), r, ctx| {
            // 7.2.1. Perform ! WritableStreamDefaultControllerErrorIfNeeded(
            //        writable.[[controller]], r).
            if let Some(wc) = stream.writable().and_then(|w| w.controller()) {
                writable_stream_default_controller_error_if_needed(&wc, r.clone(), ctx)?;
            }
            // 7.2.2. Perform ! TransformStreamUnblockWrite(stream).
            transform_stream_unblock_write(stream, ctx)?;
            // 7.2.3. Reject controller.[[finishPromise]] with r.
            finish.reject(r, ctx)
        },
        ctx,
    )?;
    // 8. Return controller.[[finishPromise]].
    Ok(PromiseResult::Promise(finish.promise().clone()))
}

/// <https://streams.spec.whatwg.org/#transform-stream-default-source-pull>
pub(crate) fn transform_stream_default_source_pull_algorithm(
    stream: &Stream,
    ctx: &mut Cx,
) -> JsResult<PromiseResult> {
    // 1. Assert: stream.[[backpressure]] is true.
    // 2. Assert: stream.[[backpressureChangePromise]] is not undefined.
    // 3. Perform ! TransformStreamSetBackpressure(stream, false).
    transform_stream_set_backpressure(stream, false, ctx)?;
    // 4. Return stream.[[backpressureChangePromise]].
    Ok(match stream.backpressure_change_promise() {
        Some(promise) => PromiseResult::Internal(promise),
        None => PromiseResult::undefined(),
    })
}
