//! `WritableStream`'s transfer steps and transfer-receiving steps
//! (<https://streams.spec.whatwg.org/#ws-transfer>).

use crate::engine::{self, Cx, JsResult, Object};

use super::cross_realm::{
    set_up_cross_realm_transform_readable, set_up_cross_realm_transform_writable,
};
use crate::engine::webidl::new_object;
use crate::html::{
    data_clone_error, message_port,
    serialize::{
        structured_deserialize_with_transfer, structured_serialize_with_transfer,
        SerializedWithTransfer,
    },
};
use crate::readable::pipe::readable_stream_pipe_to;
use crate::writable::{stream::is_writable_stream_locked, WritableStream};

/// [[Detached]].
pub(crate) fn is_detached(stream: &Object<WritableStream>) -> bool {
    stream.borrow().data().detached.get()
}

/// Sets [[Detached]] to true.
pub(crate) fn set_detached(stream: &Object<WritableStream>) {
    stream.borrow().data().detached.set(true);
}

/// "A new WritableStream" in the current realm, with the slots InitializeWritableStream sets
/// (`None` when the interface is not exposed in this realm).
pub(crate) fn new_stream(ctx: &mut Cx) -> Option<Object<WritableStream>> {
    new_object(WritableStream::initialize_writable_stream(), ctx).ok()
}

/// The `WritableStream` transfer steps, given `value`: returns dataHolder.[[port]].
///
/// <https://streams.spec.whatwg.org/#ws-transfer>
pub(crate) fn writable_stream_transfer_steps(
    value: &Object<WritableStream>,
    ctx: &mut Cx,
) -> JsResult<SerializedWithTransfer> {
    // 1. If ! IsWritableStreamLocked(value) is true, throw a "DataCloneError" DOMException.
    if is_writable_stream_locked(value) {
        return Err(data_clone_error(
            ctx,
            "a locked WritableStream cannot be transferred",
        )?);
    }
    // 2. Let port1 be a new MessagePort in the current Realm.
    // 3. Let port2 be a new MessagePort in the current Realm.
    // 4. Entangle port1 and port2.
    let (port1, port2) = message_port::new_entangled_ports(ctx)?;
    // 5. Let readable be a new ReadableStream in the current Realm.
    let Some(readable) = super::readable::new_stream(ctx) else {
        return Err(data_clone_error(
            ctx,
            "ReadableStream is not exposed in this realm",
        )?);
    };
    // 6. Perform ! SetUpCrossRealmTransformReadable(readable, port1).
    set_up_cross_realm_transform_readable(&readable, &port1, ctx)?;
    // 7. Let promise be ! ReadableStreamPipeTo(readable, value, false, false, false).
    let promise = readable_stream_pipe_to(&readable, value, false, false, false, None, ctx)?;
    // 8. Set promise.[[PromiseIsHandled]] to true.
    engine::mark_as_handled(&promise, ctx)?;
    // 9. Set dataHolder.[[port]] to ! StructuredSerializeWithTransfer(port2, « port2 »).
    structured_serialize_with_transfer(&port2.clone().into(), &[port2], ctx)
}

/// The `WritableStream` transfer-receiving steps, given dataHolder.[[port]] and `value`.
///
/// <https://streams.spec.whatwg.org/#ws-transfer>
pub(crate) fn writable_stream_transfer_receiving_steps(
    port: SerializedWithTransfer,
    value: &Object<WritableStream>,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Let deserializedRecord be ! StructuredDeserializeWithTransfer(dataHolder.[[port]], the
    //    current Realm).
    let record = structured_deserialize_with_transfer(port, ctx)?;
    // 2. Let port be deserializedRecord.[[Deserialized]].
    let Some(port) = record
        .value
        .as_object()
        .filter(message_port::is_message_port)
    else {
        return Err(data_clone_error(
            ctx,
            "the transferred stream has no MessagePort",
        )?);
    };
    // 3. Perform ! SetUpCrossRealmTransformWritable(value, port).
    set_up_cross_realm_transform_writable(value, &port, ctx)
}
