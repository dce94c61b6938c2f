//! Transferable streams (<https://streams.spec.whatwg.org/#transferrable-streams>): the
//! transfer steps and transfer-receiving steps of `ReadableStream`, `WritableStream` and
//! `TransformStream`, and the cross-realm transforms they are made of.
//!
//! This layer sits above the three stream modules and below their other clients. HTML's
//! structured serialization knows the stream interfaces only through the
//! [`TransferableInterface`] entries [`register`] adds; the cross-realm transforms reach the
//! streams through the "other specifications" API and their ports through
//! `message_port::PortHandler`.

pub(crate) mod cross_realm;
pub(crate) mod readable;
pub(crate) mod transform;
pub(crate) mod writable;

use crate::engine::{Cx, JsResult, Object};
use crate::html::data_clone_error;
use crate::html::serialize::{
    register_transferable, SerializedWithTransfer, TransferableInterface,
};
use crate::{readable::ReadableStream, transform::TransformStream, writable::WritableStream};

/// The records of a data holder that has one (dataHolder.[[port]]).
fn one_record(
    mut records: Vec<SerializedWithTransfer>,
    ctx: &mut Cx,
) -> JsResult<SerializedWithTransfer> {
    match (records.pop(), records.is_empty()) {
        (Some(record), true) => Ok(record),
        _ => Err(data_clone_error(ctx, "the serialized data is malformed")?),
    }
}

/// `object` as an object of the interface the serializer found it implements.
fn typed<T: crate::engine::NativeObject>(object: &Object, ctx: &mut Cx) -> JsResult<Object<T>> {
    match object.clone().downcast::<T>() {
        Ok(object) => Ok(object),
        Err(_) => Err(data_clone_error(ctx, "the object is not of its interface")?),
    }
}

/// `ReadableStream` is transferable (<https://streams.spec.whatwg.org/#rs-transfer>).
static READABLE_STREAM: TransferableInterface = TransferableInterface {
    name: "ReadableStream",
    implements: |object| object.is::<ReadableStream>(),
    is_detached: |object| {
        object
            .clone()
            .downcast::<ReadableStream>()
            .is_ok_and(|s| readable::is_detached(&s))
    },
    set_detached: |object| {
        if let Ok(stream) = object.clone().downcast::<ReadableStream>() {
            readable::set_detached(&stream);
        }
    },
    transfer_steps: |object, ctx| {
        let stream = typed::<ReadableStream>(object, ctx)?;
        Ok(vec![readable::readable_stream_transfer_steps(
            &stream, ctx,
        )?])
    },
    new_instance: |ctx| readable::new_stream(ctx).map(Object::upcast),
    transfer_receiving_steps: |records, value, ctx| {
        let port = one_record(records, ctx)?;
        let value = typed::<ReadableStream>(value, ctx)?;
        readable::readable_stream_transfer_receiving_steps(port, &value, ctx)
    },
};

/// `WritableStream` is transferable (<https://streams.spec.whatwg.org/#ws-transfer>).
static WRITABLE_STREAM: TransferableInterface = TransferableInterface {
    name: "WritableStream",
    implements: |object| object.is::<WritableStream>(),
    is_detached: |object| {
        object
            .clone()
            .downcast::<WritableStream>()
            .is_ok_and(|s| writable::is_detached(&s))
    },
    set_detached: |object| {
        if let Ok(stream) = object.clone().downcast::<WritableStream>() {
            writable::set_detached(&stream);
        }
    },
    transfer_steps: |object, ctx| {
        let stream = typed::<WritableStream>(object, ctx)?;
        Ok(vec![writable::writable_stream_transfer_steps(
            &stream, ctx,
        )?])
    },
    new_instance: |ctx| writable::new_stream(ctx).map(Object::upcast),
    transfer_receiving_steps: |records, value, ctx| {
        let port = one_record(records, ctx)?;
        let value = typed::<WritableStream>(value, ctx)?;
        writable::writable_stream_transfer_receiving_steps(port, &value, ctx)
    },
};

/// `TransformStream` is transferable (<https://streams.spec.whatwg.org/#ts-transfer>).
static TRANSFORM_STREAM: TransferableInterface = TransferableInterface {
    name: "TransformStream",
    implements: |object| object.is::<TransformStream>(),
    is_detached: |object| {
        object
            .clone()
            .downcast::<TransformStream>()
            .is_ok_and(|s| transform::is_detached(&s))
    },
    set_detached: |object| {
        if let Ok(stream) = object.clone().downcast::<TransformStream>() {
            transform::set_detached(&stream);
        }
    },
    transfer_steps: |object, ctx| {
        let stream = typed::<TransformStream>(object, ctx)?;
        let (readable, writable) = transform::transform_stream_transfer_steps(&stream, ctx)?;
        Ok(vec![readable, writable])
    },
    new_instance: |ctx| transform::new_stream(ctx).map(Object::upcast),
    transfer_receiving_steps: |mut records, value, ctx| {
        let value = typed::<TransformStream>(value, ctx)?;
        let (Some(writable), Some(readable), true) =
            (records.pop(), records.pop(), records.is_empty())
        else {
            return Err(data_clone_error(ctx, "the serialized data is malformed")?);
        };
        transform::transform_stream_transfer_receiving_steps(readable, writable, &value, ctx)
    },
};

/// Makes the three stream interfaces transferable.
pub(crate) fn register(_ctx: &mut Cx) -> JsResult<()> {
    register_transferable(&READABLE_STREAM);
    register_transferable(&WRITABLE_STREAM);
    register_transferable(&TRANSFORM_STREAM);
    Ok(())
}
