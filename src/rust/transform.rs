//! Transform streams from Rust transformers.

use crate::engine::{webidl, Cx, JsResult, Object};
use crate::transform::{
    default_controller::{
        transform_stream_default_controller_enqueue, transform_stream_default_controller_error,
        transform_stream_default_controller_terminate, Controller,
    },
    other_specs::{new_transform_stream, NativeTransform, NativeTransformer},
    stream::TransformSlots,
};

use super::{
    sink::WritableStream, source::ReadableStream, Callbacks, Completion, StreamError, Value,
};
use crate::engine::PromiseResult;

/// The shared Rust object behind a transform stream's transform, flush and cancel algorithms.
type RustTransformer = Callbacks<dyn Transformer>;

/// A transformer written in Rust ([`TransformStream::from_transformer`]).
///
/// ```
/// use boa_streams::rust::{Completion, Context, StreamError, TransformController, Transformer, Value};
///
/// /// Upper-cases string chunks.
/// struct Upper;
///
/// impl Transformer for Upper {
///     fn transform(&mut self, chunk: Value, c: &TransformController, ctx: &mut Context)
///         -> Result<Completion, StreamError> {
///         let text = chunk.to_string(ctx).map_err(|_| StreamError::type_error("not text"))?;
///         let upper = text.to_std_string_escaped().to_uppercase();
///         c.enqueue(Value::from(boa_streams::rust::js_string(&upper)), ctx)?;
///         Ok(Completion::Ready)
///     }
/// }
/// ```
pub trait Transformer: 'static {
    /// Transforms one chunk written to the writable side: enqueue any number of chunks on the
    /// readable side through `controller`. An `Err` errors both sides.
    fn transform(
        &mut self,
        chunk: Value,
        controller: &TransformController,
        ctx: &mut Cx,
    ) -> Result<Completion, StreamError>;

    /// Called once the writable side is closed, before the readable side closes: enqueue what
    /// is left. The default does nothing.
    fn flush(
        &mut self,
        controller: &TransformController,
        ctx: &mut Cx,
    ) -> Result<Completion, StreamError> {
        let _ = (controller, ctx);
        Ok(Completion::Ready)
    }

    /// Called when the readable side is cancelled or the writable side aborted, with the
    /// reason. The default does nothing.
    fn cancel(&mut self, reason: Value, ctx: &mut Cx) -> Result<Completion, StreamError> {
        let _ = (reason, ctx);
        Ok(Completion::Ready)
    }
}

traced! {
    data;
    /// A Rust transformer as the transform stream's native transformer: an object no script can
    /// reach, holding the shared transformer.
    struct TransformerObject(#[unsafe_ignore_trace] RustTransformer);
}

impl NativeTransformer for TransformerObject {
    fn transform(
        this: &Object<Self>,
        controller: &Controller,
        chunk: Value,
        ctx: &mut Cx,
    ) -> JsResult<PromiseResult> {
        let transformer = this.borrow().data().0.clone();
        perform_transform(&transformer, controller, chunk, ctx)
    }

    fn flush(
        this: &Object<Self>,
        controller: &Controller,
        ctx: &mut Cx,
    ) -> JsResult<PromiseResult> {
        let transformer = this.borrow().data().0.clone();
        perform_flush(&transformer, controller, ctx)
    }

    fn cancel(this: &Object<Self>, reason: Value, ctx: &mut Cx) -> JsResult<PromiseResult> {
        let transformer = this.borrow().data().0.clone();
        perform_transform_cancel(&transformer, reason, ctx)
    }
}

/// The [[transformAlgorithm]] of a Rust transformer.
fn perform_transform(
    transformer: &RustTransformer,
    controller: &Controller,
    chunk: Value,
    ctx: &mut Cx,
) -> JsResult<PromiseResult> {
    let controller = TransformController(controller.clone());
    transformer.perform(ctx, move |t, ctx| t.transform(chunk, &controller, ctx))
}

/// The [[flushAlgorithm]] of a Rust transformer.
fn perform_flush(
    transformer: &RustTransformer,
    controller: &Controller,
    ctx: &mut Cx,
) -> JsResult<PromiseResult> {
    let controller = TransformController(controller.clone());
    transformer.perform(ctx, move |t, ctx| t.flush(&controller, ctx))
}

/// The [[cancelAlgorithm]] of a Rust transformer.
fn perform_transform_cancel(
    transformer: &RustTransformer,
    reason: Value,
    ctx: &mut Cx,
) -> JsResult<PromiseResult> {
    transformer.perform(ctx, move |t, ctx| t.cancel(reason, ctx))
}

/// A transform stream's controller (its `TransformStreamDefaultController`), as a Rust
/// transformer sees it.
#[derive(Debug, Clone)]
pub struct TransformController(Controller);

impl TransformController {
    /// `controller.enqueue(chunk)`: a `TypeError` when the readable side cannot take chunks.
    pub fn enqueue(&self, chunk: Value, ctx: &mut Cx) -> Result<(), StreamError> {
        transform_stream_default_controller_enqueue(&self.0, chunk, ctx)
            .map_err(|e| StreamError::from_js_error(e, ctx))
    }

    /// `controller.error(e)`: errors both sides.
    pub fn error(&self, error: StreamError, ctx: &mut Cx) {
        let e = error.into_js(ctx);
        let _ = transform_stream_default_controller_error(&self.0, e, ctx);
    }

    /// `controller.terminate()`: closes the readable side and errors the writable side.
    pub fn terminate(&self, ctx: &mut Cx) -> Result<(), StreamError> {
        transform_stream_default_controller_terminate(&self.0, ctx)
            .map_err(|e| StreamError::from_js_error(e, ctx))
    }
}

/// A handle on a `TransformStream` object whose transformer is Rust.
///
/// ```
/// use boa_streams::host::{Host, HostOptions};
/// use boa_streams::rust::{Completion, Context, StreamError, TransformController, TransformStream, Transformer, Value};
///
/// struct Double;
/// impl Transformer for Double {
///     fn transform(&mut self, chunk: Value, c: &TransformController, ctx: &mut Context)
///         -> Result<Completion, StreamError> {
///         let n = chunk.as_number().ok_or_else(|| StreamError::type_error("not a number"))?;
///         c.enqueue(Value::from(n * 2.0), ctx)?;
///         Ok(Completion::Ready)
///     }
/// }
///
/// let (host, mut ctx) = Host::new(HostOptions::default()).unwrap();
/// let t = TransformStream::from_transformer(Double, &mut ctx).unwrap();
/// let global = ctx.global_object();
/// global.set(boa_streams::rust::js_string("double"), t.to_value(), false, &mut ctx).unwrap();
/// let out = host.eval_script(&mut ctx, "main.js", r#"
///     globalThis.out = [];
///     ReadableStream.from([1, 2, 3]).pipeThrough(double)
///         .pipeTo(new WritableStream({ write(n) { out.push(n) } }));
/// "#).unwrap();
/// host.run_until(&mut ctx, None, &mut |_| false);
/// let out = host.eval_script(&mut ctx, "check.js", "out.join()").unwrap();
/// assert_eq!(out.to_string(&mut ctx).unwrap().to_std_string_escaped(), "2,4,6");
/// ```
#[derive(Debug, Clone)]
pub struct TransformStream(Object<crate::transform::TransformStream>);

impl TransformStream {
    /// A transform stream whose transformer is `transformer`: the spec's "set up" for other
    /// specifications (writable high-water mark 1, readable high-water mark 0, each chunk
    /// counting 1) with Rust transform, flush and cancel algorithms.
    pub fn from_transformer(
        transformer: impl Transformer,
        ctx: &mut Cx,
    ) -> Result<Self, StreamError> {
        let js_err = |e, ctx: &mut Cx| StreamError::from_js_error(e, ctx);
        let shared: RustTransformer = Callbacks::new(Box::new(transformer), ctx);
        let transformer = webidl::internal_object(TransformerObject(shared), ctx);
        let stream = new_transform_stream(ctx).map_err(|e| js_err(e, ctx))?;
        NativeTransform::new(&transformer)
            .set_up(&stream, ctx)
            .map_err(|e| js_err(e, ctx))?;
        Ok(Self(stream))
    }

    /// The `TransformStream` object, to hand to script.
    pub fn to_value(&self) -> Value {
        self.0.clone().upcast().into()
    }

    /// `transform.readable`.
    pub fn readable(&self) -> Option<ReadableStream> {
        self.0.readable().map(ReadableStream)
    }

    /// `transform.writable`.
    pub fn writable(&self) -> Option<WritableStream> {
        self.0.writable().map(WritableStream)
    }
}

impl From<TransformStream> for Value {
    fn from(stream: TransformStream) -> Value {
        stream.to_value()
    }
}
