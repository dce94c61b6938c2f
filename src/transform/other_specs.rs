//! Transform streams for other specifications: "set up" with Rust algorithms, and the
//! `GenericTransformStream` mixin that `TextEncoderStream`, `TextDecoderStream`,
//! `CompressionStream` and `DecompressionStream` include.
//!
//! <https://streams.spec.whatwg.org/#other-specs-ts>

use crate::engine::{traced_without_drop, webidl, Cx, JsResult, NativeObject, Object, Value};

use super::{
    default_controller::{
        set_up_transform_stream_default_controller, CancelAlgorithm, Controller, FlushAlgorithm,
        TransformAlgorithm,
    },
    stream::{initialize_transform_stream, readable, writable, Stream},
    TransformStream,
};
use crate::{
    engine::webidl::new_object,
    engine::{self, PromiseCapability},
    queuing_strategy::SizeAlgorithm,
};

/// An object of another standard whose transform stream is set up with Rust algorithms (the
/// Encoding Standard's `TextEncoderStream` and `TextDecoderStream`, the Compression Standard's
/// `CompressionStream` and `DecompressionStream`): its transformAlgorithm and flushAlgorithm,
/// given the object whose state they use.
pub(crate) trait NativeTransformer: NativeObject + Sized {
    /// The transformAlgorithm, given `chunk`; `controller` is the transform's [[controller]],
    /// which "enqueue" uses.
    fn transform(
        this: &Object<Self>,
        controller: &Controller,
        chunk: Value,
        ctx: &mut Cx,
    ) -> JsResult<()>;

    /// The flushAlgorithm.
    fn flush(this: &Object<Self>, controller: &Controller, ctx: &mut Cx) -> JsResult<()>;
}

traced_without_drop! {
/// A [`NativeTransformer`]'s object with its two algorithms: what the `Native` variants of the
/// transform and flush algorithm enums hold. The algorithms are monomorphized functions, so
/// the core names no client and dispatch is a plain function-pointer call.
#[derive(Clone)]
pub(crate) struct NativeTransform {
    object: Object,
    #[unsafe_ignore_trace]
    transform: fn(&Object, &Controller, Value, &mut Cx) -> JsResult<()>,
    #[unsafe_ignore_trace]
    flush: fn(&Object, &Controller, &mut Cx) -> JsResult<()>,
}
}

impl std::fmt::Debug for NativeTransform {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NativeTransform").finish_non_exhaustive()
    }
}

impl NativeTransform {
    /// The algorithms of `object`.
    pub(crate) fn new<T: NativeTransformer>(object: &Object<T>) -> Self {
        Self {
            object: object.clone().upcast(),
            transform: |object, controller, chunk, ctx| match object.clone().downcast::<T>() {
                Ok(object) => T::transform(&object, controller, chunk, ctx),
                // invariant: `new` stored an Object<T>; unreachable, but not worth a panic.
                Err(_) => Err(engine::throw_type_error("not a native transformer")),
            },
            flush: |object, controller, ctx| match object.clone().downcast::<T>() {
                Ok(object) => T::flush(&object, controller, ctx),
                Err(_) => Err(engine::throw_type_error("not a native transformer")),
            },
        }
    }

    /// Performs the transformAlgorithm.
    pub(crate) fn transform(
        &self,
        controller: &Controller,
        chunk: Value,
        ctx: &mut Cx,
    ) -> JsResult<()> {
        (self.transform)(&self.object, controller, chunk, ctx)
    }

    /// Sets up `stream` with these algorithms and no cancelAlgorithm: the "set up" step of the
    /// constructors of `TextEncoderStream`, `TextDecoderStream`, `CompressionStream` and
    /// `DecompressionStream`.
    pub(crate) fn set_up(self, stream: &Stream, ctx: &mut Cx) -> JsResult<()> {
        set_up_transform_stream(
            stream,
            TransformAlgorithm::Native(self.clone()),
            FlushAlgorithm::Native(self),
            CancelAlgorithm::ResolvedUndefined,
            ctx,
        )
    }

    /// Performs the flushAlgorithm.
    pub(crate) fn flush(&self, controller: &Controller, ctx: &mut Cx) -> JsResult<()> {
        (self.flush)(&self.object, controller, ctx)
    }
}

/// Declares that `$ty` includes `GenericTransformStream` (its `$slot` field is the mixin's
/// [[transform]]) and is a [`NativeTransformer`] whose algorithms are `$transform` and `$flush`.
macro_rules! native_transform_stream {
    ($ty:ty, slot: $slot:ident, transform: $transform:path, flush: $flush:path) => {
        impl $crate::transform::other_specs::GenericTransformStream for $ty {
            fn transform(
                &self,
            ) -> Option<$crate::engine::Object<$crate::transform::TransformStream>> {
                self.$slot.borrow().clone()
            }
        }

        impl $crate::transform::other_specs::NativeTransformer for $ty {
            fn transform(
                this: &$crate::engine::Object<Self>,
                controller: &$crate::transform::default_controller::Controller,
                chunk: $crate::engine::Value,
                ctx: &mut $crate::engine::Cx,
            ) -> $crate::engine::JsResult<()> {
                $transform(this, controller, chunk, ctx)
            }

            fn flush(
                this: &$crate::engine::Object<Self>,
                controller: &$crate::transform::default_controller::Controller,
                ctx: &mut $crate::engine::Cx,
            ) -> $crate::engine::JsResult<()> {
                $flush(this, controller, ctx)
            }
        }
    };
}
pub(crate) use native_transform_stream;

/// `new TransformStream` for another standard: a `TransformStream` object of the current realm
/// whose slots are not initialized yet ([`set_up_transform_stream`] does that).
pub(crate) fn new_transform_stream(ctx: &mut Cx) -> JsResult<Stream> {
    new_object(TransformStream::new_uninitialized(), ctx)
}

/// <https://streams.spec.whatwg.org/#transformstream-set-up>
///
/// The algorithms are Rust values: a [`NativeTransformer`]'s (with no cancelAlgorithm), or a
/// Rust API transformer's. The wrappers of steps 5–7 are where `perform transform` and the sink
/// close algorithm run them: a thrown exception becomes a rejected promise, anything else a
/// promise resolved with undefined (the Rust algorithms never return a promise).
pub(crate) fn set_up_transform_stream(
    stream: &Stream,
    transform_algorithm: TransformAlgorithm,
    flush_algorithm: FlushAlgorithm,
    cancel_algorithm: CancelAlgorithm,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Let writableHighWaterMark be 1.
    // 2. Let writableSizeAlgorithm be an algorithm that returns 1.
    // 3. Let readableHighWaterMark be 0.
    // 4. Let readableSizeAlgorithm be an algorithm that returns 1.
    // 5.–7. transformAlgorithmWrapper, flushAlgorithmWrapper, cancelAlgorithmWrapper.
    // 8. Let startPromise be a promise resolved with undefined.
    let start_promise = PromiseCapability::new(ctx);
    start_promise.resolve(Value::undefined(), ctx)?;
    // 9. Perform ! InitializeTransformStream(stream, startPromise, writableHighWaterMark,
    //    writableSizeAlgorithm, readableHighWaterMark, readableSizeAlgorithm).
    initialize_transform_stream(
        stream,
        &start_promise,
        1.0,
        SizeAlgorithm::One,
        0.0,
        SizeAlgorithm::One,
        ctx,
    )?;
    // 10. Let controller be a new TransformStreamDefaultController.
    // 11. Perform ! SetUpTransformStreamDefaultController(stream, controller,
    //     transformAlgorithmWrapper, flushAlgorithmWrapper, cancelAlgorithmWrapper).
    set_up_transform_stream_default_controller(
        stream,
        transform_algorithm,
        flush_algorithm,
        cancel_algorithm,
        ctx,
    )?;
    Ok(())
}

/// An interface that includes the `GenericTransformStream` mixin
/// (<https://streams.spec.whatwg.org/#generictransformstream>).
pub(crate) trait GenericTransformStream: webidl::Interface {
    /// <https://streams.spec.whatwg.org/#generictransformstream-transform>
    fn transform(&self) -> Option<Stream>;
}

/// Defines the mixin's members on `T`'s interface prototype.
pub(crate) fn define_generic_transform_stream<T: GenericTransformStream>(
    b: &mut webidl::InterfaceBuilder<'_, '_>,
) {
    b.attribute("readable", generic_transform_stream_readable::<T>, None);
    b.attribute("writable", generic_transform_stream_writable::<T>, None);
}

/// <https://streams.spec.whatwg.org/#dom-generictransformstream-readable>
fn generic_transform_stream_readable<T: GenericTransformStream>(
    this: &Value,
    _: &[Value],
    _: &mut Cx,
) -> JsResult<Value> {
    let transform = webidl::this::<T>(this)?.borrow().data().transform();
    // Return this's transform.[[readable]].
    Ok(transform
        .and_then(|t| readable(&t))
        .map(|r| r.upcast().into())
        .unwrap_or_default())
}

/// <https://streams.spec.whatwg.org/#dom-generictransformstream-writable>
fn generic_transform_stream_writable<T: GenericTransformStream>(
    this: &Value,
    _: &[Value],
    _: &mut Cx,
) -> JsResult<Value> {
    let transform = webidl::this::<T>(this)?.borrow().data().transform();
    // Return this's transform.[[writable]].
    Ok(transform
        .and_then(|t| writable(&t))
        .map(|w| w.upcast().into())
        .unwrap_or_default())
}
