//! Transform streams for other specifications: "set up" with Rust algorithms, and the
//! `GenericTransformStream` mixin that `TextEncoderStream`, `TextDecoderStream`,
//! `CompressionStream` and `DecompressionStream` include.
//!
//! <https://streams.spec.whatwg.org/#other-specs-ts>

use crate::engine::{webidl, Cx, JsResult, NativeObject, Object, PromiseResult, Value};
use crate::readable::ReadableStream;

use super::{
    default_controller::{
        set_up_transform_stream_default_controller, CancelAlgorithm, Controller, FlushAlgorithm,
        TransformAlgorithm,
    },
    stream::{initialize_transform_stream, Stream, TransformSlots},
    TransformStream,
};
use crate::{
    engine::webidl::new_object, engine::PromiseCapability, queuing_strategy::SizeAlgorithm,
};

/// An object of another standard whose transform stream is set up with Rust algorithms (the
/// Encoding Standard's `TextEncoderStream` and `TextDecoderStream`, the Compression Standard's
/// `CompressionStream` and `DecompressionStream`, a Rust API transformer): its
/// transformAlgorithm, flushAlgorithm and cancelAlgorithm, given the object whose state they
/// use. Each may return a promise (a [`PromiseResult`]); a thrown exception is a promise
/// rejected with it (the wrappers of "set up" steps 5–7).
pub(crate) trait NativeTransformer: NativeObject + Sized {
    /// The transformAlgorithm, given `chunk`; `controller` is the transform's [[controller]],
    /// which "enqueue" uses.
    fn transform(
        this: &Object<Self>,
        controller: &Controller,
        chunk: Value,
        ctx: &mut Cx,
    ) -> JsResult<PromiseResult>;

    /// The flushAlgorithm.
    fn flush(this: &Object<Self>, controller: &Controller, ctx: &mut Cx)
        -> JsResult<PromiseResult>;

    /// The cancelAlgorithm, given `reason` (none given: a promise resolved with undefined).
    fn cancel(this: &Object<Self>, reason: Value, ctx: &mut Cx) -> JsResult<PromiseResult> {
        let _ = (this, reason, ctx);
        Ok(PromiseResult::undefined())
    }

    /// Whether the transformAlgorithm takes chunks of Rust bytes
    /// ([`NativeTransformer::transform_bytes`]), so that a native pipe's chunks reach it
    /// without a JS object.
    const TAKES_BYTES: bool = false;

    /// The transformAlgorithm, given a chunk of Rust bytes that no script sees (called only
    /// when [`NativeTransformer::TAKES_BYTES`] is true; it must do what `transform` does with a
    /// `Uint8Array` holding them). The default gives `transform` that `Uint8Array`.
    fn transform_bytes(
        this: &Object<Self>,
        controller: &Controller,
        bytes: &[u8],
        ctx: &mut Cx,
    ) -> JsResult<PromiseResult> {
        let chunk = crate::engine::new_uint8_array(bytes, ctx)?;
        Self::transform(this, controller, chunk, ctx)
    }
}

type TransformFn = fn(&Object, &Controller, Value, &mut Cx) -> JsResult<PromiseResult>;
type FlushFn = fn(&Object, &Controller, &mut Cx) -> JsResult<PromiseResult>;
type CancelFn = fn(&Object, Value, &mut Cx) -> JsResult<PromiseResult>;
type TransformBytesFn = fn(&Object, &Controller, &[u8], &mut Cx) -> JsResult<PromiseResult>;

traced_without_drop! {
/// A [`NativeTransformer`]'s object with its three algorithms: what the `Native` variants of
/// the transform, flush and cancel algorithm enums hold. The algorithms are monomorphized
/// functions, so the core names no client and dispatch is a plain function-pointer call.
#[derive(Clone)]
pub(crate) struct NativeTransform {
    object: Object,
    #[unsafe_ignore_trace]
    transform: TransformFn,
    #[unsafe_ignore_trace]
    flush: FlushFn,
    #[unsafe_ignore_trace]
    cancel: CancelFn,
    /// The transformAlgorithm for Rust bytes, when the transformer takes them.
    #[unsafe_ignore_trace]
    transform_bytes: Option<TransformBytesFn>,
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
            transform: |object, controller, chunk, ctx| {
                T::transform(&webidl::downcast::<T>(object)?, controller, chunk, ctx)
            },
            flush: |object, controller, ctx| {
                T::flush(&webidl::downcast::<T>(object)?, controller, ctx)
            },
            cancel: |object, reason, ctx| T::cancel(&webidl::downcast::<T>(object)?, reason, ctx),
            transform_bytes: if T::TAKES_BYTES {
                Some(|object, controller, bytes, ctx| {
                    T::transform_bytes(&webidl::downcast::<T>(object)?, controller, bytes, ctx)
                })
            } else {
                None
            },
        }
    }

    /// Whether the transformAlgorithm takes chunks of Rust bytes.
    pub(crate) fn takes_bytes(&self) -> bool {
        self.transform_bytes.is_some()
    }

    /// Performs the transformAlgorithm wrapper, passing a chunk of Rust bytes (a `Uint8Array`
    /// holding them for a transformer that does not take bytes).
    pub(crate) fn transform_bytes(
        &self,
        controller: &Controller,
        bytes: &[u8],
        ctx: &mut Cx,
    ) -> JsResult<PromiseResult> {
        let result = match self.transform_bytes {
            Some(transform_bytes) => transform_bytes(&self.object, controller, bytes, ctx),
            None => crate::engine::new_uint8_array(bytes, ctx)
                .and_then(|chunk| (self.transform)(&self.object, controller, chunk, ctx)),
        };
        PromiseResult::from_algorithm(result, ctx)
    }

    /// Performs the transformAlgorithm wrapper.
    pub(crate) fn transform(
        &self,
        controller: &Controller,
        chunk: Value,
        ctx: &mut Cx,
    ) -> JsResult<PromiseResult> {
        let result = (self.transform)(&self.object, controller, chunk, ctx);
        PromiseResult::from_algorithm(result, ctx)
    }

    /// Performs the flushAlgorithm wrapper.
    pub(crate) fn flush(&self, controller: &Controller, ctx: &mut Cx) -> JsResult<PromiseResult> {
        let result = (self.flush)(&self.object, controller, ctx);
        PromiseResult::from_algorithm(result, ctx)
    }

    /// Performs the cancelAlgorithm wrapper.
    pub(crate) fn cancel(&self, reason: Value, ctx: &mut Cx) -> JsResult<PromiseResult> {
        let result = (self.cancel)(&self.object, reason, ctx);
        PromiseResult::from_algorithm(result, ctx)
    }

    /// <https://streams.spec.whatwg.org/#transformstream-set-up> with these algorithms: the
    /// "set up" step of the constructors of `TextEncoderStream`, `TextDecoderStream`,
    /// `CompressionStream` and `DecompressionStream`, and of a Rust API transform.
    pub(crate) fn set_up(self, stream: &Stream, ctx: &mut Cx) -> JsResult<()> {
        set_up_transform_stream(
            stream,
            TransformAlgorithm::Native(self.clone()),
            FlushAlgorithm::Native(self.clone()),
            CancelAlgorithm::Native(self),
            ctx,
        )
    }
}

/// Declares that `$ty` includes `GenericTransformStream` (its `$slot` field is the mixin's
/// [[transform]]) and is a [`NativeTransformer`] whose algorithms are `$transform` and `$flush`.
macro_rules! native_transform_stream {
    ($ty:ty, slot: $slot:ident, transform: $transform:path, flush: $flush:path, bytes: $bytes:path) => {
        $crate::transform::other_specs::native_transform_stream!(@impl $ty, $slot, $transform, $flush,
            const TAKES_BYTES: bool = true;
            fn transform_bytes(
                this: &$crate::engine::Object<Self>,
                controller: &$crate::transform::default_controller::Controller,
                bytes: &[u8],
                ctx: &mut $crate::engine::Cx,
            ) -> $crate::engine::JsResult<$crate::engine::PromiseResult> {
                $bytes(this, controller, bytes, ctx)
                    .map(|()| $crate::engine::PromiseResult::undefined())
            }
        );
    };
    ($ty:ty, slot: $slot:ident, transform: $transform:path, flush: $flush:path) => {
        $crate::transform::other_specs::native_transform_stream!(@impl $ty, $slot, $transform, $flush,);
    };
    (@impl $ty:ty, $slot:ident, $transform:path, $flush:path, $($bytes_items:tt)*) => {
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
            ) -> $crate::engine::JsResult<$crate::engine::PromiseResult> {
                $transform(this, controller, chunk, ctx)
                    .map(|()| $crate::engine::PromiseResult::undefined())
            }

            fn flush(
                this: &$crate::engine::Object<Self>,
                controller: &$crate::transform::default_controller::Controller,
                ctx: &mut $crate::engine::Cx,
            ) -> $crate::engine::JsResult<$crate::engine::PromiseResult> {
                $flush(this, controller, ctx).map(|()| $crate::engine::PromiseResult::undefined())
            }

            $($bytes_items)*
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
/// The algorithms are Rust values (a [`NativeTransform`]'s). The wrappers of steps 5–7 are
/// [`NativeTransform`]'s methods: a thrown exception becomes a rejected promise.
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
        .and_then(|t| t.readable())
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
        .and_then(|t| t.writable())
        .map(|w| w.upcast().into())
        .unwrap_or_default())
}

/// <https://streams.spec.whatwg.org/#create-an-identity-transformstream>
pub(crate) fn create_an_identity_transform_stream(ctx: &mut Cx) -> JsResult<Stream> {
    // 1. Let transform be a new TransformStream.
    let transform = new_transform_stream(ctx)?;
    // 2. Set up transform with transformAlgorithm set to an algorithm which, given chunk,
    //    enqueues chunk in transform.
    set_up_transform_stream(
        &transform,
        TransformAlgorithm::Identity,
        FlushAlgorithm::ResolvedUndefined,
        CancelAlgorithm::ResolvedUndefined,
        ctx,
    )?;
    // 3. Return transform.
    Ok(transform)
}

/// <https://streams.spec.whatwg.org/#readablestream-create-a-proxy>: a new `ReadableStream`
/// that pulls from `stream`, which becomes locked and disturbed at once. (It lives here, not
/// in `readable`, because it is made of a transform stream.)
pub(crate) fn create_a_proxy(
    stream: &Object<ReadableStream>,
    ctx: &mut Cx,
) -> JsResult<Object<ReadableStream>> {
    // 1. Let identityTransform be the result of creating an identity TransformStream.
    let identity = create_an_identity_transform_stream(ctx)?;
    let (Some(readable), Some(writable)) = (identity.readable(), identity.writable()) else {
        return Err(crate::engine::throw_type_error(
            "The identity transform stream has no sides",
        ));
    };
    // 2. Return the result of stream piped through identityTransform:
    //    1.–3. (asserts; signalArg is undefined)
    //    4. Let promise be ! ReadableStreamPipeTo(readable, transform.[[writable]], false,
    //       false, false, signalArg).
    let promise = crate::readable::pipe::readable_stream_pipe_to(
        stream, &writable, false, false, false, None, ctx,
    )?;
    //    5. Set promise.[[PromiseIsHandled]] to true.
    crate::engine::mark_as_handled(&promise, ctx)?;
    //    6. Return transform.[[readable]].
    Ok(readable)
}
