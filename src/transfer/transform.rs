//! `TransformStream`'s transfer steps and transfer-receiving steps
//! (<https://streams.spec.whatwg.org/#ts-transfer>).

use crate::engine::{Cx, JsResult, Object};

use crate::html::{
    data_clone_error,
    serialize::{
        structured_deserialize_with_transfer, structured_serialize_with_transfer,
        SerializedWithTransfer,
    },
};
use crate::transform::stream::{TransformSlots, TransformStream};
use crate::{
    readable::{stream::is_readable_stream_locked, ReadableStream},
    writable::{stream::is_writable_stream_locked, WritableStream},
};

/// [[Detached]].
pub(crate) fn is_detached(stream: &Object<TransformStream>) -> bool {
    stream.borrow().data().detached.get()
}

/// Sets [[Detached]] to true.
pub(crate) fn set_detached(stream: &Object<TransformStream>) {
    stream.borrow().data().detached.set(true);
}

/// "A new TransformStream" in the current realm (`None` when the interface is not exposed in
/// this realm).
pub(crate) fn new_stream(ctx: &mut Cx) -> Option<Object<TransformStream>> {
    crate::engine::webidl::new_object(TransformStream::new_uninitialized(), ctx).ok()
}

/// The `TransformStream` transfer steps, given `value`: returns dataHolder.[[readable]] and
/// dataHolder.[[writable]].
///
/// <https://streams.spec.whatwg.org/#ts-transfer>
pub(crate) fn transform_stream_transfer_steps(
    value: &Object<TransformStream>,
    ctx: &mut Cx,
) -> JsResult<(SerializedWithTransfer, SerializedWithTransfer)> {
    // 1. Let readable be value.[[readable]].
    // 2. Let writable be value.[[writable]].
    let (Some(readable), Some(writable)) = (value.readable(), value.writable()) else {
        return Err(data_clone_error(ctx, "the TransformStream has no sides")?);
    };
    // 3. If ! IsReadableStreamLocked(readable) is true, throw a "DataCloneError" DOMException.
    if is_readable_stream_locked(&readable) {
        return Err(data_clone_error(
            ctx,
            "a TransformStream whose readable side is locked cannot be transferred",
        )?);
    }
    // 4. If ! IsWritableStreamLocked(writable) is true, throw a "DataCloneError" DOMException.
    if is_writable_stream_locked(&writable) {
        return Err(data_clone_error(
            ctx,
            "a TransformStream whose writable side is locked cannot be transferred",
        )?);
    }
    // 5. Set dataHolder.[[readable]] to ! StructuredSerializeWithTransfer(readable,
    //    « readable »).
    let readable_object: Object = readable.upcast();
    let readable_record = structured_serialize_with_transfer(
        &readable_object.clone().into(),
        &[readable_object],
        ctx,
    )?;
    // 6. Set dataHolder.[[writable]] to ! StructuredSerializeWithTransfer(writable,
    //    « writable »).
    let writable_object: Object = writable.upcast();
    let writable_record = structured_serialize_with_transfer(
        &writable_object.clone().into(),
        &[writable_object],
        ctx,
    )?;
    Ok((readable_record, writable_record))
}

/// The `TransformStream` transfer-receiving steps, given dataHolder.[[readable]],
/// dataHolder.[[writable]] and `value`.
///
/// <https://streams.spec.whatwg.org/#ts-transfer>
pub(crate) fn transform_stream_transfer_receiving_steps(
    readable: SerializedWithTransfer,
    writable: SerializedWithTransfer,
    value: &Object<TransformStream>,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Let readableRecord be ! StructuredDeserializeWithTransfer(dataHolder.[[readable]], the
    //    current Realm).
    let readable = structured_deserialize_with_transfer(readable, ctx)?.value;
    // 2. Let writableRecord be ! StructuredDeserializeWithTransfer(dataHolder.[[writable]], the
    //    current Realm).
    let writable = structured_deserialize_with_transfer(writable, ctx)?.value;
    let readable = readable
        .as_object()
        .and_then(|o| o.downcast::<ReadableStream>().ok());
    let writable = writable
        .as_object()
        .and_then(|o| o.downcast::<WritableStream>().ok());
    let (Some(readable), Some(writable)) = (readable, writable) else {
        return Err(data_clone_error(
            ctx,
            "the transferred TransformStream has no sides",
        )?);
    };
    // 3. Set value.[[readable]] to readableRecord.[[Deserialized]].
    // 4. Set value.[[writable]] to writableRecord.[[Deserialized]].
    value.set_sides(readable, writable);
    // 5. Set value.[[backpressure]], value.[[backpressureChangePromise]], and
    //    value.[[controller]] to undefined. (A new TransformStream has them undefined.)
    Ok(())
}
