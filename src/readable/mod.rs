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
//! How the rest uses it: through [`other_specs`] ("set up" with a `NativeSource`, enqueue,
//! close, error, "read a chunk" with `ReadRequestSteps`), which the tees, from(), the pipe,
//! TransformStream (`stream::create_readable_stream` with its native source and
//! `StartAlgorithm::Returns(startPromise)`), the cross-realm transform, Blob and the Rust API
//! use; the controllers and readers name none of them.

pub(crate) mod async_iterator;
pub(crate) mod byob_reader;
pub(crate) mod byob_request;
pub(crate) mod byte_controller;
pub(crate) mod byte_tee;
pub(crate) mod default_controller;
pub(crate) mod default_reader;
pub(crate) mod from;
pub(crate) mod generic_reader;
pub(crate) mod other_specs;
pub(crate) mod pipe;
pub(crate) mod stream;
pub(crate) mod tee;

use crate::engine::webidl;
use crate::engine::{Cx, JsResult, Object, PromiseResult, Value};

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
