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
//! resolution, abort algorithms).

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

/// [=Upon fulfillment=] / [=upon rejection=] of `promise`, from Rust: [`engine::react`], with a
/// fast path for a promise that is already fulfilled (the usual case for a synchronous sink):
/// PerformPromiseThen would enqueue the reaction job right away, so the step is queued as a
/// microtask right away, without allocating reaction functions and a derived promise.
pub(crate) fn react<T: Trace + 'static>(
    promise: &JsPromise,
    data: T,
    on_fulfilled: engine::ReactionStep<T>,
    on_rejected: engine::ReactionStep<T>,
    ctx: &mut Context,
) -> JsResult<()> {
    if let PromiseState::Fulfilled(value) = promise.state() {
        engine::queue_microtask(ctx, move |ctx| on_fulfilled(&data, value, ctx));
        return Ok(());
    }
    engine::react(promise, data, on_fulfilled, on_rejected, ctx)
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
