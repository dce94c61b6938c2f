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

use crate::engine::{webidl, Cx, JsResult, NativeObject, Object};
use crate::html::data_clone_error;
use crate::html::serialize::{
    register_transferable, SerializedWithTransfer, TransferableInterface,
};
use crate::{readable::ReadableStream, transform::TransformStream, writable::WritableStream};

/// A stream interface's transfer steps and transfer-receiving steps, over its own type: what
/// [`interface`] turns into HTML's [`TransferableInterface`] entry.
trait TransferableStream: NativeObject + Sized {
    /// The interface's name.
    const NAME: &'static str;
    /// [[Detached]].
    fn is_detached(this: &Object<Self>) -> bool;
    /// Sets [[Detached]] to true.
    fn set_detached(this: &Object<Self>);
    /// The transfer steps: the data holder's records.
    fn transfer_steps(this: &Object<Self>, ctx: &mut Cx) -> JsResult<Vec<SerializedWithTransfer>>;
    /// "A new" object of the interface in the current realm (`None` when it is not exposed).
    fn new_instance(ctx: &mut Cx) -> Option<Object<Self>>;
    /// The transfer-receiving steps, given the data holder's records.
    fn transfer_receiving_steps(
        records: Vec<SerializedWithTransfer>,
        this: &Object<Self>,
        ctx: &mut Cx,
    ) -> JsResult<()>;
}

/// HTML's entry for the transferable interface `T`.
const fn interface<T: TransferableStream>() -> TransferableInterface {
    fn implements<T: TransferableStream>(object: &Object) -> bool {
        object.is::<T>()
    }
    fn is_detached<T: TransferableStream>(object: &Object) -> bool {
        webidl::downcast::<T>(object).is_ok_and(|o| T::is_detached(&o))
    }
    fn set_detached<T: TransferableStream>(object: &Object) {
        if let Ok(object) = webidl::downcast::<T>(object) {
            T::set_detached(&object);
        }
    }
    fn transfer_steps<T: TransferableStream>(
        object: &Object,
        ctx: &mut Cx,
    ) -> JsResult<Vec<SerializedWithTransfer>> {
        T::transfer_steps(&webidl::downcast::<T>(object)?, ctx)
    }
    fn new_instance<T: TransferableStream>(ctx: &mut Cx) -> Option<Object> {
        T::new_instance(ctx).map(Object::upcast)
    }
    fn transfer_receiving_steps<T: TransferableStream>(
        records: Vec<SerializedWithTransfer>,
        object: &Object,
        ctx: &mut Cx,
    ) -> JsResult<()> {
        T::transfer_receiving_steps(records, &webidl::downcast::<T>(object)?, ctx)
    }
    TransferableInterface {
        name: T::NAME,
        implements: implements::<T>,
        is_detached: is_detached::<T>,
        set_detached: set_detached::<T>,
        transfer_steps: transfer_steps::<T>,
        new_instance: new_instance::<T>,
        transfer_receiving_steps: transfer_receiving_steps::<T>,
    }
}

/// The records of a data holder that holds `N` (a `TransformStream`'s dataHolder.[[readable]]
/// and dataHolder.[[writable]], a `ReadableStream`'s or `WritableStream`'s dataHolder.[[port]]).
fn records<const N: usize>(
    records: Vec<SerializedWithTransfer>,
    ctx: &mut Cx,
) -> JsResult<[SerializedWithTransfer; N]> {
    match records.try_into() {
        Ok(records) => Ok(records),
        Err(_) => Err(data_clone_error(ctx, "the serialized data is malformed")?),
    }
}

/// <https://streams.spec.whatwg.org/#rs-transfer>
impl TransferableStream for ReadableStream {
    const NAME: &'static str = "ReadableStream";
    fn is_detached(this: &Object<Self>) -> bool {
        readable::is_detached(this)
    }
    fn set_detached(this: &Object<Self>) {
        readable::set_detached(this);
    }
    fn transfer_steps(this: &Object<Self>, ctx: &mut Cx) -> JsResult<Vec<SerializedWithTransfer>> {
        Ok(vec![readable::readable_stream_transfer_steps(this, ctx)?])
    }
    fn new_instance(ctx: &mut Cx) -> Option<Object<Self>> {
        readable::new_stream(ctx)
    }
    fn transfer_receiving_steps(
        records: Vec<SerializedWithTransfer>,
        this: &Object<Self>,
        ctx: &mut Cx,
    ) -> JsResult<()> {
        let [port] = self::records(records, ctx)?;
        readable::readable_stream_transfer_receiving_steps(port, this, ctx)
    }
}

/// <https://streams.spec.whatwg.org/#ws-transfer>
impl TransferableStream for WritableStream {
    const NAME: &'static str = "WritableStream";
    fn is_detached(this: &Object<Self>) -> bool {
        writable::is_detached(this)
    }
    fn set_detached(this: &Object<Self>) {
        writable::set_detached(this);
    }
    fn transfer_steps(this: &Object<Self>, ctx: &mut Cx) -> JsResult<Vec<SerializedWithTransfer>> {
        Ok(vec![writable::writable_stream_transfer_steps(this, ctx)?])
    }
    fn new_instance(ctx: &mut Cx) -> Option<Object<Self>> {
        writable::new_stream(ctx)
    }
    fn transfer_receiving_steps(
        records: Vec<SerializedWithTransfer>,
        this: &Object<Self>,
        ctx: &mut Cx,
    ) -> JsResult<()> {
        let [port] = self::records(records, ctx)?;
        writable::writable_stream_transfer_receiving_steps(port, this, ctx)
    }
}

/// <https://streams.spec.whatwg.org/#ts-transfer>
impl TransferableStream for TransformStream {
    const NAME: &'static str = "TransformStream";
    fn is_detached(this: &Object<Self>) -> bool {
        transform::is_detached(this)
    }
    fn set_detached(this: &Object<Self>) {
        transform::set_detached(this);
    }
    fn transfer_steps(this: &Object<Self>, ctx: &mut Cx) -> JsResult<Vec<SerializedWithTransfer>> {
        let (readable, writable) = transform::transform_stream_transfer_steps(this, ctx)?;
        Ok(vec![readable, writable])
    }
    fn new_instance(ctx: &mut Cx) -> Option<Object<Self>> {
        transform::new_stream(ctx)
    }
    fn transfer_receiving_steps(
        records: Vec<SerializedWithTransfer>,
        this: &Object<Self>,
        ctx: &mut Cx,
    ) -> JsResult<()> {
        let [readable, writable] = self::records(records, ctx)?;
        transform::transform_stream_transfer_receiving_steps(readable, writable, this, ctx)
    }
}

static READABLE_STREAM: TransferableInterface = interface::<ReadableStream>();
static WRITABLE_STREAM: TransferableInterface = interface::<WritableStream>();
static TRANSFORM_STREAM: TransferableInterface = interface::<TransformStream>();

/// Makes the three stream interfaces transferable.
pub(crate) fn register(_ctx: &mut Cx) -> JsResult<()> {
    register_transferable(&READABLE_STREAM);
    register_transferable(&WRITABLE_STREAM);
    register_transferable(&TRANSFORM_STREAM);
    Ok(())
}
