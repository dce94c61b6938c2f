//! Transform streams: `TransformStream` and `TransformStreamDefaultController`.
//!
//! <https://streams.spec.whatwg.org/#ts-class>
//!
//! - [`stream`]: the `TransformStream` interface and "Working with transform streams";
//! - [`default_controller`]: `TransformStreamDefaultController`, the transformer algorithms, and
//!   the "Default controllers", "Default sinks" and "Default sources" abstract operations.
//!
//! The readable and writable sides are ordinary streams made by CreateReadableStream and
//! CreateWritableStream, whose native source and sink is the `TransformStream` itself (it
//! implements `NativeUnderlyingSource` and `NativeUnderlyingSink`, in `default_controller`): the
//! readable and writable modules do not know this one. Internal promises ([[backpressureChangePromise]],
//! [[finishPromise]]) are never handed to script.

pub(crate) mod default_controller;
pub(crate) mod other_specs;
pub(crate) mod stream;

use crate::engine::{Cx, JsResult};

pub(crate) use default_controller::TransformStreamDefaultController;
pub(crate) use stream::TransformStream;

/// Installs the transform stream interfaces in the current realm (replacing them if they were
/// installed before).
pub(crate) fn register(ctx: &mut Cx) -> JsResult<()> {
    crate::engine::webidl::register_interface::<TransformStream>(ctx)?;
    crate::engine::webidl::register_interface::<TransformStreamDefaultController>(ctx)?;
    Ok(())
}
