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
//! Slots live in the objects' native data as `Cell`/`Slot` fields; every access is a short
//! borrow that ends before any call into JavaScript (sink callbacks, the size algorithm, promise
//! resolution, abort algorithms). Objects are handled as typed `JsObject<T>` handles, so slot
//! access needs no downcast that could fail.
//!
//! What the layers above use: `other_specs` ("set up" with a `NativeSink`: TransformStream's
//! writable side, the cross-realm transform, the Rust API's sinks); for TransformStream and
//! pipeTo, `stream::create_writable_stream`, `stream::acquire_writable_stream_default_writer`,
//! `default_writer::writable_stream_default_writer_write_request` with a [`WriteRequest`]
//! (`WriteRequest::Internal` reports the settling to Rust, so the pipe loop needs no promise
//! per chunk), `default_writer::writable_stream_default_writer_close_with_error_propagation`,
//! `..._release`, `..._get_desired_size`, `default_writer::ready_promise` / `closed_promise`,
//! `stream::writable_stream_abort`, the slots through `stream::WritableSlots`, and
//! `default_controller::writable_stream_default_controller_error_if_needed`.

pub(crate) mod default_controller;
pub(crate) mod default_writer;
pub(crate) mod other_specs;
pub(crate) mod stream;

use crate::engine::{Cx, JsResult, Object, Value};

use crate::engine::PromiseCapability;

pub(crate) use default_controller::{
    AbortAlgorithm, CloseAlgorithm, StartAlgorithm, WritableStreamDefaultController, WriteAlgorithm,
};
pub(crate) use default_writer::WritableStreamDefaultWriter;
pub use stream::queue_capacities;
pub(crate) use stream::WritableStream;

traced! {
    /// An entry of a stream's [[writeRequests]] list (and of [[inFlightWriteRequest]]): what to
    /// settle once the underlying sink has processed the chunk.
    ///
    /// The spec's write requests are promises; `writer.write()` hands that promise to script.
    /// Callers that do not need a JS promise per chunk (the pipe loop) use an internal one.
    #[derive(Debug)]
    pub(crate) enum WriteRequest {
        /// The promise returned by `writer.write()`.
        Promise(PromiseCapability),
        /// A write whose promise no script holds and whose outcome its maker does not look at
        /// (ReadableStreamPipeTo's): its settling, whatever the outcome, is reported to the
        /// maker ([`InternalWrite`]).
        Internal(InternalWrite),
    }
}

traced_without_drop! {
    /// [`WriteRequest::Internal`]: the maker's object, the write's number, and what to do with
    /// them once the write request settles.
    #[derive(Debug)]
    pub(crate) struct InternalWrite {
        object: Object,
        #[unsafe_ignore_trace]
        number: u64,
        #[unsafe_ignore_trace]
        settled: fn(&Object, u64, &mut Cx),
    }
}

impl InternalWrite {
    /// A write request whose settling calls `settled` with `object` and `number`.
    pub(crate) fn new(object: Object, number: u64, settled: fn(&Object, u64, &mut Cx)) -> Self {
        Self {
            object,
            number,
            settled,
        }
    }

    /// The write request settled (fulfilled or rejected).
    fn settled(&self, ctx: &mut Cx) {
        (self.settled)(&self.object, self.number, ctx);
    }
}

impl WriteRequest {
    /// [=Resolve=] the write request with undefined.
    pub(crate) fn resolve(&self, ctx: &mut Cx) -> JsResult<()> {
        match self {
            WriteRequest::Promise(capability) => capability.resolve(Value::undefined(), ctx),
            WriteRequest::Internal(write) => {
                write.settled(ctx);
                Ok(())
            }
        }
    }

    /// [=Reject=] the write request with `reason`.
    pub(crate) fn reject(&self, reason: Value, ctx: &mut Cx) -> JsResult<()> {
        match self {
            WriteRequest::Promise(capability) => capability.reject(reason, ctx),
            WriteRequest::Internal(write) => {
                write.settled(ctx);
                Ok(())
            }
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
    pub(crate) fn new_abort_signal(ctx: &mut Cx) -> JsResult<Object> {
        crate::dom::new_abort_signal(ctx)
    }

    /// <https://dom.spec.whatwg.org/#abortcontroller-signal-abort>: signal abort on the
    /// controller, i.e. on its signal.
    pub(crate) fn signal_abort(signal: &Object, reason: Value, ctx: &mut Cx) -> JsResult<()> {
        crate::dom::signal_abort(signal, reason, ctx)
    }
}

/// Installs the writable stream interfaces in the current realm (replacing them if they were
/// installed before).
pub(crate) fn register(ctx: &mut Cx) -> JsResult<()> {
    crate::engine::webidl::register_interface::<WritableStream>(ctx)?;
    crate::engine::webidl::register_interface::<WritableStreamDefaultWriter>(ctx)?;
    crate::engine::webidl::register_interface::<WritableStreamDefaultController>(ctx)?;
    Ok(())
}
