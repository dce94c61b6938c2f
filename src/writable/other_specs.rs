//! Writable streams for other specifications (<https://streams.spec.whatwg.org/#other-specs-ws>):
//! the door through which TransformStream's writable side, the cross-realm transform and the
//! Rust API's sinks come in. The controller names none of them: a client's write, close and
//! abort algorithms are a [`NativeSink`], an object holding the client's state and three
//! functions of it.

use crate::engine::{webidl, Cx, JsResult, NativeObject, Object, PromiseResult, Value};
use crate::queuing_strategy::SizeAlgorithm;

use super::{
    default_controller::{
        set_up_writable_stream_default_controller, AbortAlgorithm, CloseAlgorithm, StartAlgorithm,
        WriteAlgorithm,
    },
    stream::WritableStream,
};
use crate::engine::webidl::new_object;

/// The write, close and abort algorithms of a stream another specification sets up, as
/// functions of the object that holds their state (`Self`). Each may return a promise (a
/// [`PromiseResult`]); a thrown exception is a promise rejected with it.
pub(crate) trait NativeUnderlyingSink: NativeObject + Sized {
    /// The writeAlgorithm, given `chunk`; `controller` is the stream's [[controller]].
    fn write(
        this: &Object<Self>,
        chunk: Value,
        controller: Value,
        ctx: &mut Cx,
    ) -> JsResult<PromiseResult>;

    /// The closeAlgorithm.
    fn close(this: &Object<Self>, ctx: &mut Cx) -> JsResult<PromiseResult>;

    /// The abortAlgorithm, given `reason`.
    fn abort(this: &Object<Self>, reason: Value, ctx: &mut Cx) -> JsResult<PromiseResult>;
}

type WriteFn = fn(&Object, Value, Value, &mut Cx) -> JsResult<PromiseResult>;
type CloseFn = fn(&Object, &mut Cx) -> JsResult<PromiseResult>;
type AbortFn = fn(&Object, Value, &mut Cx) -> JsResult<PromiseResult>;

traced_without_drop! {
/// A [`NativeUnderlyingSink`]'s object with its three algorithms: what the `Native` variants
/// of the controller's algorithm enums hold (dispatch is one function-pointer call).
#[derive(Clone)]
pub(crate) struct NativeSink {
    object: Object,
    #[unsafe_ignore_trace]
    write: WriteFn,
    #[unsafe_ignore_trace]
    close: CloseFn,
    #[unsafe_ignore_trace]
    abort: AbortFn,
}
}

impl std::fmt::Debug for NativeSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NativeSink").finish_non_exhaustive()
    }
}

impl NativeSink {
    /// The algorithms of `object`.
    pub(crate) fn new<T: NativeUnderlyingSink>(object: &Object<T>) -> Self {
        Self {
            object: object.clone().upcast(),
            write: |object, chunk, controller, ctx| {
                T::write(&webidl::downcast::<T>(object)?, chunk, controller, ctx)
            },
            close: |object, ctx| T::close(&webidl::downcast::<T>(object)?, ctx),
            abort: |object, reason, ctx| T::abort(&webidl::downcast::<T>(object)?, reason, ctx),
        }
    }

    /// Performs the writeAlgorithm, passing `chunk` (and `controller`).
    pub(crate) fn write(
        &self,
        chunk: Value,
        controller: Value,
        ctx: &mut Cx,
    ) -> JsResult<PromiseResult> {
        let result = (self.write)(&self.object, chunk, controller, ctx);
        PromiseResult::from_algorithm(result, ctx)
    }

    /// Performs the closeAlgorithm.
    pub(crate) fn close(&self, ctx: &mut Cx) -> JsResult<PromiseResult> {
        let result = (self.close)(&self.object, ctx);
        PromiseResult::from_algorithm(result, ctx)
    }

    /// Performs the abortAlgorithm, passing `reason`.
    pub(crate) fn abort(&self, reason: Value, ctx: &mut Cx) -> JsResult<PromiseResult> {
        let result = (self.abort)(&self.object, reason, ctx);
        PromiseResult::from_algorithm(result, ctx)
    }
}

/// <https://streams.spec.whatwg.org/#writablestream-set-up>, on `stream`, a new
/// `WritableStream` whose slots are not set up yet ([`new_writable_stream`]): `sink`'s
/// algorithms, `high_water_mark` (the spec's default is 1) and `size_algorithm` (default: one
/// per chunk).
pub(crate) fn set_up(
    stream: &Object<WritableStream>,
    sink: NativeSink,
    high_water_mark: f64,
    size_algorithm: SizeAlgorithm,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Let startAlgorithm be an algorithm that returns undefined.
    // 2.–3. closeAlgorithmWrapper, abortAlgorithmWrapper (where the algorithms are performed).
    // 4. If sizeAlgorithm was not given, then set it to an algorithm that returns 1.
    // 5. Perform ! InitializeWritableStream(stream). (`stream` was made with those slots.)
    // 6. Let controller be a new WritableStreamDefaultController.
    // 7. Perform ! SetUpWritableStreamDefaultController(stream, controller, startAlgorithm,
    //    writeAlgorithm, closeAlgorithmWrapper, abortAlgorithmWrapper, highWaterMark,
    //    sizeAlgorithm).
    set_up_writable_stream_default_controller(
        stream,
        StartAlgorithm::ReturnUndefined,
        WriteAlgorithm::Native(sink.clone()),
        CloseAlgorithm::Native(sink.clone()),
        AbortAlgorithm::Native(sink),
        high_water_mark,
        size_algorithm,
        ctx,
    )
}

/// "A new `WritableStream`" for another specification: an object of the current realm, its
/// slots as InitializeWritableStream leaves them, and no controller until [`set_up`].
pub(crate) fn new_writable_stream(ctx: &mut Cx) -> JsResult<Object<WritableStream>> {
    new_object(WritableStream::initialize_writable_stream(), ctx)
}
