//! The `TransformStream` interface and the abstract operations on transform streams.
//!
//! <https://streams.spec.whatwg.org/#ts-class>

use crate::engine;
use crate::writable::stream::WritableSlots;
use std::cell::Cell;

use crate::engine::{Cx, JsResult, Object, Slot, Value};

use super::default_controller::{
    set_up_transform_stream_default_controller_from_transformer,
    transform_stream_default_controller_clear_algorithms, TransformStreamDefaultController,
    Transformer,
};
use crate::{
    engine::internal_promise::InternalPromise,
    engine::webidl,
    engine::PromiseCapability,
    queuing_strategy::{
        extract_high_water_mark, extract_size_algorithm, QueuingStrategy, SizeAlgorithm,
    },
    readable::{
        default_controller::{
            readable_stream_default_controller_error, CancelAlgorithm, PullAlgorithm,
            StartAlgorithm as ReadableStartAlgorithm,
        },
        other_specs::NativeSource,
        stream::create_readable_stream,
        ReadableStream,
    },
    writable::{
        default_controller::writable_stream_default_controller_error_if_needed,
        other_specs::NativeSink, stream::create_writable_stream, AbortAlgorithm, CloseAlgorithm,
        StartAlgorithm as WritableStartAlgorithm, WritableStream, WriteAlgorithm,
    },
};

/// A typed handle on a `TransformStream` object.
pub(crate) type Stream = Object<TransformStream>;

traced! {
    data;
    /// <https://streams.spec.whatwg.org/#transformstream>
    #[derive(Debug)]
    pub(crate) struct TransformStream {
        /// <https://streams.spec.whatwg.org/#transformstream-backpressure> (`None` is undefined).
        backpressure: Cell<Option<bool>>,
        /// <https://streams.spec.whatwg.org/#transformstream-backpressurechangepromise>
        backpressure_change_promise: Slot<Option<InternalPromise>>,
        /// <https://streams.spec.whatwg.org/#transformstream-controller>
        controller: Slot<Option<Object<TransformStreamDefaultController>>>,
        /// <https://streams.spec.whatwg.org/#transformstream-detached>
        pub(crate) detached: Cell<bool>,
        /// <https://streams.spec.whatwg.org/#transformstream-readable>
        readable: Slot<Option<Object<ReadableStream>>>,
        /// <https://streams.spec.whatwg.org/#transformstream-writable>
        writable: Slot<Option<Object<WritableStream>>>,
    }
}

impl TransformStream {
    pub(crate) fn new_uninitialized() -> Self {
        Self {
            backpressure: Cell::new(None),
            backpressure_change_promise: Slot::new(None),
            controller: Slot::new(None),
            detached: Cell::new(false),
            readable: Slot::new(None),
            writable: Slot::new(None),
        }
    }
}

/// A transform stream's slots as the algorithms read and set them (each a short borrow of
/// the object): the same idiom as the readable side's `StreamSlots`.
pub(crate) trait TransformSlots {
    /// [[readable]] (set by InitializeTransformStream, before any algorithm can run).
    fn readable(&self) -> Option<Object<ReadableStream>>;
    /// [[writable]].
    fn writable(&self) -> Option<Object<WritableStream>>;
    /// Sets [[readable]] and [[writable]] (the TransformStream transfer-receiving steps;
    /// InitializeTransformStream sets them otherwise).
    fn set_sides(&self, readable: Object<ReadableStream>, writable: Object<WritableStream>);
    /// [[controller]].
    fn controller(&self) -> Option<Object<TransformStreamDefaultController>>;
    /// Sets [[controller]] (SetUpTransformStreamDefaultController step 4).
    fn set_controller(&self, controller: Object<TransformStreamDefaultController>);
    /// [[backpressure]] (`None` is undefined).
    fn backpressure(&self) -> Option<bool>;
    /// [[backpressureChangePromise]].
    fn backpressure_change_promise(&self) -> Option<InternalPromise>;
}

impl TransformSlots for Stream {
    fn readable(&self) -> Option<Object<ReadableStream>> {
        self.borrow().data().readable.borrow().clone()
    }
    fn writable(&self) -> Option<Object<WritableStream>> {
        self.borrow().data().writable.borrow().clone()
    }
    fn set_sides(&self, readable: Object<ReadableStream>, writable: Object<WritableStream>) {
        let data = self.borrow();
        *data.data().readable.borrow_mut() = Some(readable);
        *data.data().writable.borrow_mut() = Some(writable);
    }
    fn controller(&self) -> Option<Object<TransformStreamDefaultController>> {
        self.borrow().data().controller.borrow().clone()
    }
    fn set_controller(&self, controller: Object<TransformStreamDefaultController>) {
        *self.borrow().data().controller.borrow_mut() = Some(controller);
    }
    fn backpressure(&self) -> Option<bool> {
        self.borrow().data().backpressure.get()
    }
    fn backpressure_change_promise(&self) -> Option<InternalPromise> {
        self.borrow()
            .data()
            .backpressure_change_promise
            .borrow()
            .clone()
    }
}

/// The readable side's default controller.
pub(crate) fn readable_controller(
    stream: &Stream,
) -> Option<Object<crate::readable::ReadableStreamDefaultController>> {
    // (Read in place: one clone, of the controller, rather than of each object on the way.)
    let s = stream.borrow();
    let readable = s.data().readable.borrow();
    crate::readable::stream::default_controller_of(readable.as_ref()?)
}

impl webidl::ClassInterface for TransformStream {
    const LENGTH: usize = 0;
    fn members(b: &mut webidl::InterfaceBuilder<'_, '_>) {
        b.attribute("readable", ts_readable, None);
        b.attribute("writable", ts_writable, None);
    }

    fn construct(_: &Value, _: &[Value], _: &mut Cx) -> JsResult<Self> {
        Ok(Self::new_uninitialized())
    }

    /// <https://streams.spec.whatwg.org/#ts-constructor>
    fn constructed(this: &Object<Self>, args: &[Value], ctx: &mut Cx) -> JsResult<()> {
        // WebIDL argument conversion: `optional object transformer`, then
        // `optional QueuingStrategy writableStrategy = {}`, then
        // `optional QueuingStrategy readableStrategy = {}`.
        let transformer = args.first().cloned().unwrap_or_default();
        if !transformer.is_undefined() && !transformer.is_object() {
            return Err(engine::throw_type_error(
                "The transformer must be an object if it is given",
            ));
        }
        let writable_strategy =
            QueuingStrategy::from_js(&args.get(1).cloned().unwrap_or_default(), ctx)?;
        let readable_strategy =
            QueuingStrategy::from_js(&args.get(2).cloned().unwrap_or_default(), ctx)?;
        // 1. If transformer is missing, set it to null.
        let transformer = if transformer.is_undefined() {
            Value::null()
        } else {
            transformer
        };
        // 2. Let transformerDict be transformer, converted to an IDL value of type Transformer.
        let transformer_dict = Transformer::from_js(&transformer, ctx)?;
        // 3. If transformerDict["readableType"] exists, throw a RangeError exception.
        if transformer_dict.readable_type {
            return Err(engine::throw_range_error(
                "TransformStream does not support a readableType",
            ));
        }
        // 4. If transformerDict["writableType"] exists, throw a RangeError exception.
        if transformer_dict.writable_type {
            return Err(engine::throw_range_error(
                "TransformStream does not support a writableType",
            ));
        }
        // 5. Let readableHighWaterMark be ? ExtractHighWaterMark(readableStrategy, 0).
        let readable_high_water_mark = extract_high_water_mark(&readable_strategy, 0.0)?;
        // 6. Let readableSizeAlgorithm be ! ExtractSizeAlgorithm(readableStrategy).
        let readable_size_algorithm = extract_size_algorithm(&readable_strategy);
        // 7. Let writableHighWaterMark be ? ExtractHighWaterMark(writableStrategy, 1).
        let writable_high_water_mark = extract_high_water_mark(&writable_strategy, 1.0)?;
        // 8. Let writableSizeAlgorithm be ! ExtractSizeAlgorithm(writableStrategy).
        let writable_size_algorithm = extract_size_algorithm(&writable_strategy);
        // 9. Let startPromise be a new promise.
        let start_promise = PromiseCapability::new(ctx);
        // 10. Perform ! InitializeTransformStream(this, startPromise, writableHighWaterMark,
        //     writableSizeAlgorithm, readableHighWaterMark, readableSizeAlgorithm).
        initialize_transform_stream(
            this,
            &start_promise,
            writable_high_water_mark,
            writable_size_algorithm,
            readable_high_water_mark,
            readable_size_algorithm,
            ctx,
        )?;
        // 11. Perform ? SetUpTransformStreamDefaultControllerFromTransformer(this, transformer,
        //     transformerDict).
        let start = transformer_dict.start.clone();
        set_up_transform_stream_default_controller_from_transformer(
            this,
            transformer.clone(),
            transformer_dict,
            ctx,
        )?;
        match start {
            // 12. If transformerDict["start"] exists, then resolve startPromise with the result
            //     of invoking transformerDict["start"] with argument list
            //     « this.[[controller]] » and callback this value transformer.
            Some(start) => {
                let controller: Value = this
                    .controller()
                    .map(|c| c.upcast().into())
                    .unwrap_or_default();
                let result = crate::engine::call_object(&start, &transformer, &[controller], ctx)?;
                start_promise.resolve(result, ctx)
            }
            // 13. Otherwise, resolve startPromise with undefined.
            None => start_promise.resolve(Value::undefined(), ctx),
        }
    }
}

webidl::interface!(TransformStream, "TransformStream");

/// <https://streams.spec.whatwg.org/#ts-readable>
fn ts_readable(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    let stream = webidl::this::<TransformStream>(this)?;
    // 1. Return this.[[readable]].
    Ok(stream
        .readable()
        .map(|r| r.upcast().into())
        .unwrap_or_default())
}

/// <https://streams.spec.whatwg.org/#ts-writable>
fn ts_writable(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    let stream = webidl::this::<TransformStream>(this)?;
    // 1. Return this.[[writable]].
    Ok(stream
        .writable()
        .map(|w| w.upcast().into())
        .unwrap_or_default())
}

/// <https://streams.spec.whatwg.org/#initialize-transform-stream>
#[allow(clippy::too_many_arguments)] // the spec's signature
pub(crate) fn initialize_transform_stream(
    stream: &Stream,
    start_promise: &PromiseCapability,
    writable_high_water_mark: f64,
    writable_size_algorithm: SizeAlgorithm,
    readable_high_water_mark: f64,
    readable_size_algorithm: SizeAlgorithm,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Let startAlgorithm be an algorithm that returns startPromise.
    let start_value: Value = start_promise.promise().clone().into();
    // 2. Let writeAlgorithm be the following steps, taking a chunk argument:
    // 2.1. Return ! TransformStreamDefaultSinkWriteAlgorithm(stream, chunk).
    // 3. Let abortAlgorithm be the following steps, taking a reason argument:
    // 3.1. Return ! TransformStreamDefaultSinkAbortAlgorithm(stream, reason).
    // 4. Let closeAlgorithm be the following steps:
    // 4.1. Return ! TransformStreamDefaultSinkCloseAlgorithm(stream).
    // 5. Set stream.[[writable]] to ! CreateWritableStream(startAlgorithm, writeAlgorithm,
    //    closeAlgorithm, abortAlgorithm, writableHighWaterMark, writableSizeAlgorithm).
    let writable = create_writable_stream(
        WritableStartAlgorithm::Returns(start_value.clone()),
        WriteAlgorithm::Native(NativeSink::new(stream)),
        CloseAlgorithm::Native(NativeSink::new(stream)),
        AbortAlgorithm::Native(NativeSink::new(stream)),
        writable_high_water_mark,
        writable_size_algorithm,
        ctx,
    )?;
    *stream.borrow().data().writable.borrow_mut() = Some(writable);
    // 6. Let pullAlgorithm be the following steps:
    // 6.1. Return ! TransformStreamDefaultSourcePullAlgorithm(stream).
    // 7. Let cancelAlgorithm be the following steps, taking a reason argument:
    // 7.1. Return ! TransformStreamDefaultSourceCancelAlgorithm(stream, reason).
    // 8. Set stream.[[readable]] to ! CreateReadableStream(startAlgorithm, pullAlgorithm,
    //    cancelAlgorithm, readableHighWaterMark, readableSizeAlgorithm).
    let readable = create_readable_stream(
        ReadableStartAlgorithm::Returns(start_value),
        PullAlgorithm::Native(NativeSource::new(stream)),
        CancelAlgorithm::Native(NativeSource::new(stream)),
        Some(readable_high_water_mark),
        Some(readable_size_algorithm),
        ctx,
    )?;
    *stream.borrow().data().readable.borrow_mut() = Some(readable);
    // 9. Set stream.[[backpressure]] and stream.[[backpressureChangePromise]] to undefined.
    {
        let s = stream.borrow();
        s.data().backpressure.set(None);
        *s.data().backpressure_change_promise.borrow_mut() = None;
    }
    // 10. Perform ! TransformStreamSetBackpressure(stream, true).
    transform_stream_set_backpressure(stream, true, ctx)?;
    // 11. Set stream.[[controller]] to undefined.
    *stream.borrow().data().controller.borrow_mut() = None;
    Ok(())
}

/// <https://streams.spec.whatwg.org/#transform-stream-error>
pub(crate) fn transform_stream_error(stream: &Stream, e: Value, ctx: &mut Cx) -> JsResult<()> {
    // 1. Perform ! ReadableStreamDefaultControllerError(stream.[[readable]].[[controller]], e).
    if let Some(readable_controller) = readable_controller(stream) {
        readable_stream_default_controller_error(&readable_controller, e.clone(), ctx)?;
    }
    // 2. Perform ! TransformStreamErrorWritableAndUnblockWrite(stream, e).
    transform_stream_error_writable_and_unblock_write(stream, e, ctx)
}

/// <https://streams.spec.whatwg.org/#transform-stream-error-writable-and-unblock-write>
pub(crate) fn transform_stream_error_writable_and_unblock_write(
    stream: &Stream,
    e: Value,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Perform ! TransformStreamDefaultControllerClearAlgorithms(stream.[[controller]]).
    if let Some(controller) = stream.controller() {
        transform_stream_default_controller_clear_algorithms(&controller);
    }
    // 2. Perform ! WritableStreamDefaultControllerErrorIfNeeded(stream.[[writable]].[[controller]],
    //    e).
    if let Some(writable_controller) = stream.writable().and_then(|w| w.controller()) {
        writable_stream_default_controller_error_if_needed(&writable_controller, e, ctx)?;
    }
    // 3. Perform ! TransformStreamUnblockWrite(stream).
    transform_stream_unblock_write(stream, ctx)
}

/// <https://streams.spec.whatwg.org/#transform-stream-set-backpressure>
pub(crate) fn transform_stream_set_backpressure(
    stream: &Stream,
    backpressure: bool,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Assert: stream.[[backpressure]] is not backpressure.
    debug_assert_ne!(stream.backpressure(), Some(backpressure));
    let s = stream.borrow();
    let renewed = {
        let slot = s.data().backpressure_change_promise.borrow();
        match slot.as_ref() {
            Some(promise) => {
                // 2. If stream.[[backpressureChangePromise]] is not undefined, resolve
                //    stream.[[backpressureChangePromise]] with undefined. (Where it is: settling
                //    an internal promise with a non-object only queues its reactions' jobs,
                //    which runs no script.)
                promise.resolve(Value::undefined(), ctx)?;
                // 3. Set stream.[[backpressureChangePromise]] to a new promise (the one it
                //    holds, made new in place where no one can tell: `InternalPromise::renew`).
                promise.renew()
            }
            None => false,
        }
    };
    if !renewed {
        *s.data().backpressure_change_promise.borrow_mut() = Some(InternalPromise::new());
    }
    // 4. Set stream.[[backpressure]] to backpressure.
    s.data().backpressure.set(Some(backpressure));
    Ok(())
}

/// <https://streams.spec.whatwg.org/#transform-stream-unblock-write>
pub(crate) fn transform_stream_unblock_write(stream: &Stream, ctx: &mut Cx) -> JsResult<()> {
    // 1. If stream.[[backpressure]] is true, perform ! TransformStreamSetBackpressure(stream,
    //    false).
    if stream.backpressure() == Some(true) {
        transform_stream_set_backpressure(stream, false, ctx)?;
    }
    Ok(())
}
