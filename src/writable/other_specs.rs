//! Writable streams for other specifications (<https://streams.spec.whatwg.org/#other-specs-ws>):
//! the door through which TransformStream's writable side, the cross-realm transform and the
//! Rust API's sinks come in. The controller names none of them: a client's write, close and
//! abort algorithms are a [`NativeSink`], an object holding the client's state and three
//! functions of it.

use std::rc::Rc;

use crate::engine::{self, webidl, Cx, JsResult, NativeObject, Object, PromiseResult, Value};
use crate::queue::NativeBytes;
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

    /// Whether the sink takes chunks of Rust bytes ([`NativeUnderlyingSink::write_bytes`]) now,
    /// so that a native pipe's chunks reach it without a JS object.
    fn takes_bytes(this: &Object<Self>) -> bool {
        let _ = this;
        false
    }

    /// The writeAlgorithm, given a chunk of Rust bytes that no script sees (called only when
    /// [`NativeUnderlyingSink::takes_bytes`] is true). The default gives `write` a
    /// `Uint8Array` holding them.
    fn write_bytes(
        this: &Object<Self>,
        bytes: Rc<NativeBytes>,
        controller: Value,
        ctx: &mut Cx,
    ) -> JsResult<PromiseResult> {
        let chunk = engine::new_uint8_array(bytes.as_slice(), ctx)?;
        Self::write(this, chunk, controller, ctx)
    }
}

type WriteFn = fn(&Object, Value, Value, &mut Cx) -> JsResult<PromiseResult>;
type WriteBytesFn = fn(&Object, Rc<NativeBytes>, Value, &mut Cx) -> JsResult<PromiseResult>;
type TakesBytesFn = fn(&Object) -> bool;
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
    /// The writeAlgorithm for Rust bytes.
    #[unsafe_ignore_trace]
    write_bytes: WriteBytesFn,
    /// Whether the sink takes Rust bytes now.
    #[unsafe_ignore_trace]
    takes_bytes: TakesBytesFn,
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
            write_bytes: |object, bytes, controller, ctx| {
                T::write_bytes(&webidl::downcast::<T>(object)?, bytes, controller, ctx)
            },
            takes_bytes: |object| {
                webidl::downcast::<T>(object).is_ok_and(|object| T::takes_bytes(&object))
            },
        }
    }

    /// Whether the sink takes chunks of Rust bytes now.
    pub(crate) fn takes_bytes(&self) -> bool {
        (self.takes_bytes)(&self.object)
    }

    /// Performs the writeAlgorithm, passing a chunk of Rust bytes (a `Uint8Array` holding them
    /// for a sink that does not take bytes).
    pub(crate) fn write_bytes(
        &self,
        bytes: Rc<NativeBytes>,
        controller: Value,
        ctx: &mut Cx,
    ) -> JsResult<PromiseResult> {
        let result = if self.takes_bytes() {
            (self.write_bytes)(&self.object, bytes, controller, ctx)
        } else {
            engine::new_uint8_array(bytes.as_slice(), ctx)
                .and_then(|chunk| (self.write)(&self.object, chunk, controller, ctx))
        };
        PromiseResult::from_algorithm(result, ctx)
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
