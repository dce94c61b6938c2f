//! Readable streams: `ReadableStream`, `ReadableStreamDefaultController`,
//! `ReadableStreamDefaultReader`, readable byte streams (`ReadableByteStreamController`,
//! `ReadableStreamBYOBReader`, `ReadableStreamBYOBRequest`), teeing, `ReadableStream.from`, and
//! async iteration.
//!
//! <https://streams.spec.whatwg.org/#rs>
//!
//! Layout:
//! - [`stream`]: the `ReadableStream` class and the "working with readable streams" and
//!   "interfacing with controllers" abstract operations;
//! - [`default_controller`]: `ReadableStreamDefaultController` and its abstract operations;
//! - [`generic_reader`]: the `ReadableStreamGenericReader` mixin's slots and operations;
//! - [`default_reader`]: `ReadableStreamDefaultReader` and read requests;
//! - [`byte_controller`], [`byob_request`], [`byob_reader`]: readable byte streams, BYOB
//!   requests, BYOB readers with read-into requests (and the stream operations on read-into
//!   requests);
//! - [`tee`], [`byte_tee`], [`from`], [`async_iterator`]: ReadableStreamDefaultTee,
//!   ReadableByteStreamTee, ReadableStreamFromIterable, and the async iterator.
//!
//! How the other stream modules use it:
//! - pipes: a `ReadRequest` variant whose chunk/close/error steps drive the pipe, read with
//!   `default_reader::readable_stream_default_reader_read` (never through JS lookups);
//! - TransformStream: `stream::create_readable_stream` with new
//!   `default_controller::{PullAlgorithm, CancelAlgorithm}` variants and
//!   `StartAlgorithm::Returns(startPromise)`.

pub(crate) mod async_iterator;
pub(crate) mod byob_reader;
pub(crate) mod byob_request;
pub(crate) mod byte_controller;
pub(crate) mod byte_tee;
pub(crate) mod default_controller;
pub(crate) mod default_reader;
pub(crate) mod from;
pub(crate) mod generic_reader;
pub(crate) mod pipe;
pub(crate) mod stream;
pub(crate) mod tee;
pub(crate) mod transfer;

use crate::engine::{traced_without_drop, webidl};
use crate::engine::{Class, Cx, JsPromise, JsResult, Object, Trace, Value};

use crate::engine;

pub(crate) use byob_reader::ReadableStreamBYOBReader;
pub(crate) use byob_request::ReadableStreamBYOBRequest;
pub(crate) use byte_controller::ReadableByteStreamController;
pub(crate) use default_controller::ReadableStreamDefaultController;
pub(crate) use default_reader::ReadableStreamDefaultReader;
pub(crate) use stream::ReadableStream;

traced_without_drop! {
/// A stream's [[controller]]: a default controller or a byte stream controller.
#[derive(Debug, Clone)]
pub(crate) enum ControllerRef {
    /// A `ReadableStreamDefaultController`.
    Default(Object<ReadableStreamDefaultController>),
    /// A `ReadableByteStreamController`.
    Byte(Object<ReadableByteStreamController>),
}
}

traced_without_drop! {
/// A stream's [[reader]]: a default reader or a BYOB reader.
#[derive(Debug, Clone)]
pub(crate) enum ReaderRef {
    /// A `ReadableStreamDefaultReader`.
    Default(Object<ReadableStreamDefaultReader>),
    /// A `ReadableStreamBYOBReader`.
    Byob(Object<ReadableStreamBYOBReader>),
}
}

impl ControllerRef {
    /// The controller if it is a default controller.
    pub(crate) fn as_default(&self) -> Option<Object<ReadableStreamDefaultController>> {
        match self {
            ControllerRef::Default(c) => Some(c.clone()),
            ControllerRef::Byte(_) => None,
        }
    }
}

/// <https://streams.spec.whatwg.org/#abstract-opdef-readablestreamcontroller-cancelsteps>:
/// dispatches to the controller's [[CancelSteps]].
pub(crate) fn readable_stream_controller_cancel_steps(
    controller: &ControllerRef,
    reason: Value,
    ctx: &mut Cx,
) -> JsResult<PromiseResult> {
    match controller {
        ControllerRef::Default(c) => {
            default_controller::readable_stream_default_controller_cancel_steps(c, reason, ctx)
        }
        ControllerRef::Byte(c) => {
            byte_controller::readable_byte_stream_controller_cancel_steps(c, reason, ctx)
        }
    }
}

/// <https://streams.spec.whatwg.org/#abstract-opdef-readablestreamcontroller-pullsteps>:
/// dispatches to the controller's [[PullSteps]].
pub(crate) fn readable_stream_controller_pull_steps(
    controller: &ControllerRef,
    read_request: default_reader::ReadRequest,
    ctx: &mut Cx,
) -> JsResult<()> {
    match controller {
        ControllerRef::Default(c) => {
            default_controller::readable_stream_default_controller_pull_steps(c, read_request, ctx)
        }
        ControllerRef::Byte(c) => {
            byte_controller::readable_byte_stream_controller_pull_steps(c, read_request, ctx)
        }
    }
}

/// <https://streams.spec.whatwg.org/#abstract-opdef-readablestreamcontroller-releasesteps>:
/// dispatches to the controller's [[ReleaseSteps]].
pub(crate) fn readable_stream_controller_release_steps(controller: &ControllerRef) {
    match controller {
        ControllerRef::Default(c) => {
            default_controller::readable_stream_default_controller_release_steps(c)
        }
        ControllerRef::Byte(c) => byte_controller::readable_byte_stream_controller_release_steps(c),
    }
}

traced_without_drop! {
/// The result of a promise-returning algorithm. Results that are already settled stay unboxed,
/// so internal plumbing does not allocate a JS promise just to react to it: reacting to a
/// settled result queues the reaction as a microtask, exactly when PerformPromiseThen on an
/// already-settled promise would queue its reaction job.
#[derive(Debug, Clone)]
pub(crate) enum PromiseResult {
    /// A promise fulfilled with this value (it is never a thenable object).
    Fulfilled(Value),
    /// A promise rejected with this reason.
    Rejected(Value),
    /// Any JS promise.
    Promise(JsPromise),
    /// A promise that never reaches script (a transform stream's internal promises).
    Internal(crate::engine::internal_promise::InternalPromise),
}
}

impl PromiseResult {
    /// "A promise resolved with undefined".
    pub(crate) fn undefined() -> Self {
        PromiseResult::Fulfilled(Value::undefined())
    }

    /// "A promise resolved with `value`": objects go through a real promise (resolving reads
    /// `then`), everything else is fulfilled at once.
    pub(crate) fn resolved_with(value: Value, ctx: &mut Cx) -> JsResult<Self> {
        if value.is_object() {
            Ok(PromiseResult::Promise(engine::promise_resolved_with(
                value, ctx,
            )?))
        } else {
            Ok(PromiseResult::Fulfilled(value))
        }
    }

    /// The result of invoking a callback whose return type is a promise type: a thrown
    /// exception becomes a rejected promise, a returned value a promise resolved with it.
    pub(crate) fn from_callback(result: JsResult<Value>, ctx: &mut Cx) -> JsResult<Self> {
        match result {
            Ok(value) => Self::resolved_with(value, ctx),
            Err(error) => Ok(PromiseResult::Rejected(engine::thrown_value(error, ctx)?)),
        }
    }
}

/// <https://webidl.spec.whatwg.org/#upon-fulfillment> and
/// <https://webidl.spec.whatwg.org/#upon-rejection> for a [`PromiseResult`].
pub(crate) fn upon_settlement<T: Trace + 'static>(
    result: PromiseResult,
    data: T,
    on_fulfilled: engine::ReactionStep<T>,
    on_rejected: engine::ReactionStep<T>,
    ctx: &mut Cx,
) -> JsResult<()> {
    match result {
        PromiseResult::Fulfilled(value) => {
            engine::queue_microtask(ctx, move |ctx| on_fulfilled(&data, value, ctx));
            Ok(())
        }
        PromiseResult::Rejected(reason) => {
            engine::queue_microtask(ctx, move |ctx| on_rejected(&data, reason, ctx));
            Ok(())
        }
        PromiseResult::Promise(promise) => {
            engine::react(&promise, data, on_fulfilled, on_rejected, ctx)
        }
        PromiseResult::Internal(promise) => {
            promise.react(data, on_fulfilled, on_rejected, ctx);
            Ok(())
        }
    }
}

/// A reaction step that does nothing.
pub(crate) fn ignore<T>(_: &T, _: Value, _: &mut Cx) -> JsResult<()> {
    Ok(())
}

/// "A new `T`" created from Rust in the current realm (readers, controllers, and streams made by
/// the abstract operations).
pub(crate) fn new_object<T: Class>(data: T, ctx: &mut Cx) -> JsResult<Object<T>> {
    let prototype = ctx
        .get_global_class::<T>()
        .ok_or_else(|| {
            engine::throw_type_error(format!("{} is not registered in this realm", T::NAME))
        })?
        .prototype();
    Ok(Object::new(ctx.root_shape(), prototype, data))
}

/// Installs the readable stream interfaces in the current realm.
pub(crate) fn register(ctx: &mut Cx) -> JsResult<()> {
    webidl::register_interface::<ReadableStream>(ctx)?;
    webidl::register_interface::<ReadableStreamDefaultReader>(ctx)?;
    webidl::register_interface::<ReadableStreamDefaultController>(ctx)?;
    webidl::register_interface::<ReadableStreamBYOBReader>(ctx)?;
    webidl::register_interface::<ReadableByteStreamController>(ctx)?;
    webidl::register_interface::<ReadableStreamBYOBRequest>(ctx)?;
    async_iterator::register(ctx)?;
    Ok(())
}
