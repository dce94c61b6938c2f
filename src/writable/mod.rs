//! Writable streams: `WritableStream`, `WritableStreamDefaultWriter` and
//! `WritableStreamDefaultController`.
//!
//! <https://streams.spec.whatwg.org/#ws>
//!
//! - `stream`: the `WritableStream` interface and the abstract operations that work on a stream
//!   ("Working with writable streams", "Interfacing with controllers");
//! - `default_writer`: the writer interface and its abstract operations ("Writers");
//! - `default_controller`: the controller interface, the sink algorithms and the abstract
//!   operations of "Default controllers".
//!
//! Slots live in the objects' native data as `Cell`/`GcRefCell` fields; every access is a short
//! borrow that ends before any call into JavaScript (sink callbacks, the size algorithm, promise
//! resolution, abort algorithms). Objects are handled as typed `JsObject<T>` handles, so slot
//! access needs no downcast that could fail.
//!
//! Rust API for TransformStream and pipeTo (#5): `stream::create_writable_stream` with the
//! algorithm enums of `default_controller` (add a variant for the transform sink algorithms);
//! `stream::acquire_writable_stream_default_writer`;
//! `default_writer::writable_stream_default_writer_write_request` with a [`WriteRequest`]
//! (add a variant with Rust completion steps so the pipe loop needs no JS promise per chunk);
//! `default_writer::writable_stream_default_writer_close_with_error_propagation`,
//! `..._release`, `..._get_desired_size`, `default_writer::ready_promise` / `closed_promise`
//! (react to them with [`react`] or `engine::react`); `stream::writable_stream_abort`,
//! `stream::state`, `stream::stored_error`;
//! `default_controller::writable_stream_default_controller_error_if_needed`.

pub(crate) mod default_controller;
pub(crate) mod default_writer;
pub(crate) mod stream;

use boa_engine::{
    builtins::promise::PromiseState, object::builtins::JsPromise, Context, JsObject, JsResult,
    JsValue,
};
use boa_gc::{Finalize, Trace};

use crate::engine::{self, PromiseCapability};

#[allow(unused_imports)] // the Rust-level API used by TransformStream and pipeTo (#5)
pub(crate) use default_controller::{
    AbortAlgorithm, CloseAlgorithm, StartAlgorithm, WritableStreamDefaultController, WriteAlgorithm,
};
#[allow(unused_imports)] // the Rust-level API used by TransformStream and pipeTo (#5)
pub(crate) use default_writer::WritableStreamDefaultWriter;
#[allow(unused_imports)] // the Rust-level API used by TransformStream and pipeTo (#5)
pub(crate) use stream::WritableStream;

/// An entry of a stream's [[writeRequests]] list (and of [[inFlightWriteRequest]]): what to
/// settle once the underlying sink has processed the chunk.
///
/// The spec's write requests are promises; `writer.write()` hands that promise to script. Rust
/// callers that do not need a JS promise per chunk (the pipe loop) add their own variant here.
#[derive(Debug, Trace, Finalize)]
pub(crate) enum WriteRequest {
    /// The promise returned by `writer.write()`.
    Promise(PromiseCapability),
}

impl WriteRequest {
    /// [=Resolve=] the write request with undefined.
    pub(crate) fn resolve(&self, ctx: &mut Context) -> JsResult<()> {
        match self {
            WriteRequest::Promise(capability) => capability.resolve(JsValue::undefined(), ctx),
        }
    }

    /// [=Reject=] the write request with `reason`.
    pub(crate) fn reject(&self, reason: JsValue, ctx: &mut Context) -> JsResult<()> {
        match self {
            WriteRequest::Promise(capability) => capability.reject(reason, ctx),
        }
    }
}

/// What a promise-returning algorithm (a sink callback, the start algorithm) produced, kept as
/// close to Rust as the spec allows: a promise only when the result is an object (which may be
/// a thenable, so resolving a promise with it is observable and must happen), otherwise the
/// value or reason itself.
///
/// "A promise resolved with" a non-object, or "a promise rejected with" a reason, that nobody
/// else can see, followed by "upon fulfillment/rejection", is observably the same as queueing
/// the reaction as a microtask right away: PerformPromiseThen on a settled promise enqueues
/// the reaction job at once. Skipping the promise saves three objects and a `then` per call
/// (the common case: a synchronous sink returning undefined).
///
/// A transient value (never stored in a GC object), so its JS values are rooted while it lives.
#[derive(Debug)]
pub(crate) enum AlgorithmResult {
    /// The algorithm returned a value that is not an object.
    Fulfilled(JsValue),
    /// The algorithm threw (or returned a promise rejected with) this reason.
    Rejected(JsValue),
    /// A promise for the result.
    Promise(JsPromise),
}

impl AlgorithmResult {
    /// "A promise resolved with undefined".
    pub(crate) fn undefined() -> Self {
        AlgorithmResult::Fulfilled(JsValue::undefined())
    }

    /// "A promise resolved with" `value`.
    pub(crate) fn resolved_with(value: JsValue, ctx: &mut Context) -> JsResult<Self> {
        if value.is_object() {
            Ok(AlgorithmResult::Promise(engine::promise_resolved_with(
                value, ctx,
            )?))
        } else {
            Ok(AlgorithmResult::Fulfilled(value))
        }
    }

    /// <https://webidl.spec.whatwg.org/#invoke-a-callback-function> for a callback whose return
    /// type is `Promise<undefined>`: a thrown exception becomes a rejection.
    pub(crate) fn invoke(
        callback: &JsObject,
        this: &JsValue,
        args: &[JsValue],
        ctx: &mut Context,
    ) -> JsResult<Self> {
        match callback.call(this, args, ctx) {
            Ok(value) => Self::resolved_with(value, ctx),
            Err(error) => Ok(AlgorithmResult::Rejected(engine::thrown_value(error, ctx)?)),
        }
    }

    /// The result as a JS promise (for callers that hand it to script).
    #[allow(dead_code)] // used by TransformStream (#5)
    pub(crate) fn into_promise(self, ctx: &mut Context) -> JsResult<JsPromise> {
        match self {
            AlgorithmResult::Fulfilled(value) => engine::promise_resolved_with(value, ctx),
            AlgorithmResult::Rejected(reason) => engine::promise_rejected_with(reason, ctx),
            AlgorithmResult::Promise(promise) => Ok(promise),
        }
    }
}

/// [=Upon fulfillment=] / [=upon rejection=] of an algorithm's result, from Rust:
/// [`engine::react`] for a promise; a microtask right away for a result known now (see
/// [`AlgorithmResult`]), and likewise for a promise that is already fulfilled.
pub(crate) fn react<T: Trace + 'static>(
    result: AlgorithmResult,
    data: T,
    on_fulfilled: engine::ReactionStep<T>,
    on_rejected: engine::ReactionStep<T>,
    ctx: &mut Context,
) -> JsResult<()> {
    match result {
        AlgorithmResult::Fulfilled(value) => {
            engine::queue_microtask(ctx, move |ctx| on_fulfilled(&data, value, ctx));
            Ok(())
        }
        AlgorithmResult::Rejected(reason) => {
            engine::queue_microtask(ctx, move |ctx| on_rejected(&data, reason, ctx));
            Ok(())
        }
        AlgorithmResult::Promise(promise) => {
            if let PromiseState::Fulfilled(value) = promise.state() {
                engine::queue_microtask(ctx, move |ctx| on_fulfilled(&data, value, ctx));
                return Ok(());
            }
            engine::react(&promise, data, on_fulfilled, on_rejected, ctx)
        }
    }
}

/// The values of a stream's [[state]] slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WritableState {
    /// "writable"
    Writable,
    /// "closed"
    Closed,
    /// "erroring"
    Erroring,
    /// "errored"
    Errored,
}

/// The controller's [[abortController]]: only its signal is ever observable, so the signal is
/// what is kept. These two functions are the only place that knows how signals are made.
mod abort_signal {
    use super::*;

    /// The signal of "a new `AbortController`".
    pub(crate) fn new_abort_signal(ctx: &mut Context) -> JsResult<JsObject> {
        crate::dom::new_abort_signal(ctx)
    }

    /// <https://dom.spec.whatwg.org/#abortcontroller-signal-abort>: signal abort on the
    /// controller, i.e. on its signal.
    pub(crate) fn signal_abort(
        signal: &JsObject,
        reason: JsValue,
        ctx: &mut Context,
    ) -> JsResult<()> {
        crate::dom::signal_abort(signal, reason, ctx)
    }
}

/// Installs the writable stream interfaces in the current realm (replacing them if they were
/// installed before).
pub(crate) fn register(ctx: &mut Context) -> JsResult<()> {
    crate::webidl::register_interface::<WritableStream>(ctx)?;
    crate::webidl::register_interface::<WritableStreamDefaultWriter>(ctx)?;
    crate::webidl::register_interface::<WritableStreamDefaultController>(ctx)?;
    Ok(())
}
