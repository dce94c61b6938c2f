//! The cross-realm transforms that transferred streams are made of
//! (<https://streams.spec.whatwg.org/#transferrable-streams>): a writable side in one realm and
//! a readable side in another, joined by an entangled pair of `MessagePort`s.
//!
//! The handlers the spec adds to the port's `message` and `messageerror` events are Rust (a
//! `message_port::PortHandler`); the port is never exposed to script, so no event object is
//! made per message. The source and sink algorithms come in through the streams' "other
//! specifications" API ([`CrossRealmSource`] and [`CrossRealmSink`] are native underlying
//! sources and sinks).
//!
//! AD-HOC: the spec has no handler for the port's `close` event (HTML fires it when the
//! entangled port is disentangled). Every normal end of a cross-realm stream posts a `close` or
//! `error` message before it disentangles, so a `close` event on a stream that is still open
//! means the other side went away without a word (its agent ended, or its port was collected):
//! the stream errors with a `TypeError` instead of waiting forever.

use crate::engine::internal_promise::InternalPromise;
use crate::engine::{
    self, upon_settlement, webidl, Cx, JsResult, Object, PromiseResult, Slot, Value,
};
use crate::queue::{Chunk, NativeBytes, SinkChunk};
use crate::writable::stream::WritableSlots;
use std::rc::Rc;

use crate::html::{
    data_clone_error,
    message_port::{self, PortHandler},
    serialize::{self, Record, SerializedWithTransfer},
};
use crate::{
    queuing_strategy::SizeAlgorithm,
    readable::{
        default_controller::{
            self as rs_controller, CancelAlgorithm, PullAlgorithm, StartAlgorithm,
        },
        other_specs::{NativeSource, NativeUnderlyingSource},
        stream::initialize_readable_stream,
        ReadableStream, ReadableStreamDefaultController,
    },
    writable::{
        default_controller::{
            self as ws_controller, AbortAlgorithm, CloseAlgorithm, StartAlgorithm as WsStart,
            WriteAlgorithm,
        },
        other_specs::{NativeSink, NativeUnderlyingSink},
        WritableStream, WritableStreamDefaultController,
    },
};

/// The side of a cross-realm transform whose port's events a handler gets.
enum Side {
    /// The readable side's handlers (SetUpCrossRealmTransformReadable steps 3-4).
    Readable(Object<ReadableStreamDefaultController>),
    /// The writable side's handlers (SetUpCrossRealmTransformWritable steps 4-5).
    Writable(Object<CrossRealmSink>),
}

impl Side {
    /// The side a port handler's data is.
    fn of(data: &Object) -> Option<Self> {
        if let Ok(controller) = data.clone().downcast::<ReadableStreamDefaultController>() {
            return Some(Side::Readable(controller));
        }
        data.clone()
            .downcast::<CrossRealmSink>()
            .ok()
            .map(Side::Writable)
    }

    /// The handlers of the port's events, for this side.
    fn port_handler(&self) -> PortHandler {
        let data = match self {
            Side::Readable(controller) => controller.clone().upcast(),
            Side::Writable(sink) => sink.clone().upcast(),
        };
        PortHandler::new(
            data,
            |data, port, message, ctx| match Side::of(data) {
                Some(side) => handle_message(&side, port, message, ctx),
                None => Ok(()),
            },
            |data, ctx| match Side::of(data) {
                Some(side) => handle_close(&side, ctx),
                None => Ok(()),
            },
        )
    }
}

traced! {
    data;
    /// The readable side's underlying source: its port.
    pub(crate) struct CrossRealmSource {
        port: Object,
    }
}

impl NativeUnderlyingSource for CrossRealmSource {
    fn pull(this: &Object<Self>, _: Value, ctx: &mut Cx) -> JsResult<PromiseResult> {
        let port = this.borrow().data().port.clone();
        cross_realm_pull(&port, ctx)
    }

    fn cancel(this: &Object<Self>, reason: Value, ctx: &mut Cx) -> JsResult<PromiseResult> {
        let port = this.borrow().data().port.clone();
        cross_realm_cancel(&port, reason, ctx)
    }
}

traced! {
    data;
    /// The writable side's state: its port, controller and backpressurePromise.
    pub(crate) struct CrossRealmSink {
        port: Object,
        controller: Slot<Option<Object<WritableStreamDefaultController>>>,
        /// backpressurePromise (`None` is undefined); never reaches script.
        backpressure_promise: Slot<Option<InternalPromise>>,
    }
}

impl std::fmt::Debug for CrossRealmSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CrossRealmSink")
    }
}

impl CrossRealmSink {
    fn controller(&self) -> Option<Object<WritableStreamDefaultController>> {
        self.controller.borrow().clone()
    }

    /// If backpressurePromise is not undefined: resolve it with undefined, and set it to
    /// undefined.
    fn release_backpressure(&self, ctx: &mut Cx) -> JsResult<()> {
        let promise = self.backpressure_promise.borrow_mut().take();
        match promise {
            Some(promise) => promise.resolve(Value::undefined(), ctx),
            None => Ok(()),
        }
    }
}

/// The error a cross-realm stream gets when the other side goes away without a word.
fn gone_error(ctx: &mut Cx) -> Value {
    engine::type_error(
        "the other side of the transferred stream went away (its MessagePort was disentangled)",
        ctx,
    )
}

/// <https://streams.spec.whatwg.org/#abstract-opdef-crossrealmtransformsenderror>
pub(crate) fn cross_realm_transform_send_error(port: &Object, error: Value, ctx: &mut Cx) {
    // 1. Perform PackAndPostMessage(port, "error", error), discarding the result.
    let _ = pack_and_post_message(port, "error", &error, ctx);
}

/// <https://streams.spec.whatwg.org/#abstract-opdef-packandpostmessage>
pub(crate) fn pack_and_post_message(
    port: &Object,
    kind: &str,
    value: &Value,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Let message be OrdinaryObjectCreate(null).
    // 2. Perform ! CreateDataProperty(message, "type", type).
    // 3. Perform ! CreateDataProperty(message, "value", value).
    // 5. Let options be «[ "transfer" → « » ]».
    // 6. Run the message port post message steps providing targetPort, message, and options:
    //    they serialize message with an empty transfer list. message has no prototype and two
    //    data properties, so its serialization is the record built here around the
    //    serialization of value (which is where script can run, and errors come from).
    let serialized = serialize::serialize_cross_realm_message(kind, value, ctx)?;
    post_message_record(port, serialized, ctx);
    Ok(())
}

/// PackAndPostMessage's steps after serializing the message.
fn post_message_record(port: &Object, serialized: Record, ctx: &mut Cx) {
    // 4. Let targetPort be the port with which port is entangled, if any; otherwise null.
    //    (The remaining post message steps: with a null targetPort, return.)
    if let Some(target) = message_port::entangled_core(port) {
        message_port::post_serialized(&target, SerializedWithTransfer::plain(serialized), ctx);
    }
}

/// <https://streams.spec.whatwg.org/#abstract-opdef-packandpostmessagehandlingerror>
pub(crate) fn pack_and_post_message_handling_error(
    port: &Object,
    kind: &str,
    value: &Value,
    ctx: &mut Cx,
) -> JsResult<Result<(), Value>> {
    // 1. Let result be PackAndPostMessage(port, type, value).
    match pack_and_post_message(port, kind, value, ctx) {
        Ok(()) => Ok(Ok(())),
        // 2. If result is an abrupt completion,
        Err(error) => {
            let error = engine::thrown_value(error, ctx)?;
            // 2.1. Perform ! CrossRealmTransformSendError(port, result.[[Value]]).
            cross_realm_transform_send_error(port, error.clone(), ctx);
            // 3. Return result as a completion record.
            Ok(Err(error))
        }
    }
}

/// PackAndPostMessageHandlingError(port, "chunk", chunk) for a chunk the writable side's sink
/// was given. Rust bytes are serialized as the `Uint8Array` holding them would be, with no JS
/// object made: that serialization runs no script and cannot fail.
fn pack_and_post_chunk_handling_error(
    port: &Object,
    chunk: &SinkChunk,
    ctx: &mut Cx,
) -> JsResult<Result<(), Value>> {
    match chunk {
        SinkChunk::Value(chunk) => pack_and_post_message_handling_error(port, "chunk", chunk, ctx),
        SinkChunk::Bytes(bytes) => {
            let serialized =
                serialize::serialize_cross_realm_bytes_message("chunk", bytes.as_slice());
            post_message_record(port, serialized, ctx);
            Ok(Ok(()))
        }
    }
}

/// The `type` and the deserialized `value` of a message a cross-realm transform received, or
/// `None` when the data is not an object with a string `type` (data from an untrusted realm:
/// the spec asserts, and encourages handling the failure).
///
/// A `chunk` whose value is a `Uint8Array` over the whole of its buffer comes as Rust bytes
/// ([`Chunk::Bytes`]): a reader that takes bytes gets them with no JS object, and any other
/// gets the `Uint8Array` deserialization would have made, made when it reads (deserializing
/// it runs no script, so nothing else can tell).
fn unpack(message: SerializedWithTransfer, ctx: &mut Cx) -> JsResult<Option<(String, Chunk)>> {
    // 1. Let data be the data of the message.
    // 2. Assert: data is an Object.
    // 3. Let type be ! Get(data, "type").
    // 4. Let value be ! Get(data, "value").
    // 5. Assert: type is a String.
    let SerializedWithTransfer {
        serialized,
        holders,
    } = message;
    if !holders.is_empty() {
        return Ok(None);
    }
    let Record::Object(properties) = serialized else {
        return Ok(None);
    };
    let mut kind = None;
    let mut value = None;
    for (key, record) in properties {
        match (String::from_utf16_lossy(&key).as_str(), record) {
            ("type", Record::String(s)) => kind = Some(String::from_utf16_lossy(&s)),
            ("value", record) => value = Some(record),
            _ => {}
        }
    }
    let Some(kind) = kind else {
        return Ok(None);
    };
    // The message object is object record 0; its value's records follow.
    let value = match value {
        Some(record) if kind == "chunk" => match serialize::whole_uint8_array_bytes(record) {
            Ok(bytes) => Chunk::Bytes(NativeBytes::from_vec(bytes)),
            Err(record) => Chunk::Value(serialize::structured_deserialize_after(record, 1, ctx)?),
        },
        Some(record) => Chunk::Value(serialize::structured_deserialize_after(record, 1, ctx)?),
        None => Chunk::Value(Value::undefined()),
    };
    Ok(Some((kind, value)))
}

/// Runs the handler of a `message` event (or of the `messageerror` event, when the data cannot
/// be deserialized) of a cross-realm transform's port.
fn handle_message(
    handler: &Side,
    port: &Object,
    message: SerializedWithTransfer,
    ctx: &mut Cx,
) -> JsResult<()> {
    let unpacked = match unpack(message, ctx) {
        Ok(unpacked) => unpacked,
        Err(error) if error.is_uncatchable() => return Err(error),
        Err(_) => return handle_message_error(handler, port, ctx),
    };
    let Some((kind, chunk)) = unpacked else {
        return Ok(());
    };
    if let (Side::Readable(controller), "chunk") = (handler, kind.as_str()) {
        // 6. If type is "chunk",
        // 6.1. Perform ! ReadableStreamDefaultControllerEnqueue(controller, value).
        return rs_controller::readable_stream_default_controller_enqueue_chunk(
            controller, chunk, ctx,
        );
    }
    // Only a "chunk" message's value can be Rust bytes.
    let value = chunk.into_value(ctx)?;
    match handler {
        Side::Readable(controller) => match kind.as_str() {
            // 7. Otherwise, if type is "close",
            "close" => {
                // 7.1. Perform ! ReadableStreamDefaultControllerClose(controller).
                rs_controller::readable_stream_default_controller_close(controller, ctx)?;
                // 7.2. Disentangle port.
                message_port::disentangle(port, ctx);
                Ok(())
            }
            // 8. Otherwise, if type is "error",
            "error" => {
                // 8.1. Perform ! ReadableStreamDefaultControllerError(controller, value).
                rs_controller::readable_stream_default_controller_error(controller, value, ctx)?;
                // 8.2. Disentangle port.
                message_port::disentangle(port, ctx);
                Ok(())
            }
            _ => Ok(()),
        },
        Side::Writable(sink) => match kind.as_str() {
            // 6. If type is "pull",
            // 6.1. If backpressurePromise is not undefined, resolve it with undefined and set
            //       it to undefined.
            "pull" => sink.borrow().data().release_backpressure(ctx),
            // 7. Otherwise, if type is "error",
            "error" => {
                // 7.1. Perform ! WritableStreamDefaultControllerErrorIfNeeded(controller, value).
                if let Some(controller) = sink.borrow().data().controller() {
                    ws_controller::writable_stream_default_controller_error_if_needed(
                        &controller,
                        value,
                        ctx,
                    )?;
                }
                // 7.2. If backpressurePromise is not undefined, resolve it with undefined and
                //      set it to undefined.
                sink.borrow().data().release_backpressure(ctx)
            }
            _ => Ok(()),
        },
    }
}

/// The handler of the port's `messageerror` event.
fn handle_message_error(handler: &Side, port: &Object, ctx: &mut Cx) -> JsResult<()> {
    // 1. Let error be a new "DataCloneError" DOMException.
    let error = engine::thrown_value(
        data_clone_error(
            ctx,
            "a message of a transferred stream could not be deserialized",
        )?,
        ctx,
    )?;
    // 2. Perform ! CrossRealmTransformSendError(port, error).
    cross_realm_transform_send_error(port, error.clone(), ctx);
    match handler {
        // 3. Perform ! ReadableStreamDefaultControllerError(controller, error).
        Side::Readable(controller) => {
            rs_controller::readable_stream_default_controller_error(controller, error, ctx)?;
        }
        // 3. Perform ! WritableStreamDefaultControllerErrorIfNeeded(controller, error).
        Side::Writable(sink) => {
            if let Some(controller) = sink.borrow().data().controller() {
                ws_controller::writable_stream_default_controller_error_if_needed(
                    &controller,
                    error,
                    ctx,
                )?;
            }
        }
    }
    // 4. Disentangle port.
    message_port::disentangle(port, ctx);
    Ok(())
}

/// The port's `close` event: the other side went away (see the module documentation).
fn handle_close(handler: &Side, ctx: &mut Cx) -> JsResult<()> {
    match handler {
        Side::Readable(controller) => {
            if rs_controller::readable_stream_default_controller_can_close_or_enqueue(controller) {
                let error = gone_error(ctx);
                rs_controller::readable_stream_default_controller_error(controller, error, ctx)?;
            }
            Ok(())
        }
        Side::Writable(sink) => {
            if let Some(controller) = sink.borrow().data().controller() {
                let error = gone_error(ctx);
                ws_controller::writable_stream_default_controller_error_if_needed(
                    &controller,
                    error,
                    ctx,
                )?;
            }
            sink.borrow().data().release_backpressure(ctx)
        }
    }
}

/// <https://streams.spec.whatwg.org/#abstract-opdef-setupcrossrealmtransformreadable>
pub(crate) fn set_up_cross_realm_transform_readable(
    stream: &Object<ReadableStream>,
    port: &Object,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Perform ! InitializeReadableStream(stream).
    initialize_readable_stream(stream);
    // 2. Let controller be a new ReadableStreamDefaultController.
    let controller = rs_controller::new_controller(stream, ctx)?;
    // 3. Add a handler for port's message event (handle_message).
    // 4. Add a handler for port's messageerror event (handle_message_error).
    message_port::set_handler(port, Side::Readable(controller.clone()).port_handler());
    // 5. Enable port's port message queue.
    message_port::enable(port, ctx);
    // 6. Let startAlgorithm be an algorithm that returns undefined.
    // 7. Let pullAlgorithm be the following steps: (cross_realm_pull)
    // 8. Let cancelAlgorithm be the following steps, taking a reason argument:
    //    (cross_realm_cancel)
    // 9. Let sizeAlgorithm be an algorithm that returns 1.
    // 10. Perform ! SetUpReadableStreamDefaultController(stream, controller, startAlgorithm,
    //     pullAlgorithm, cancelAlgorithm, 0, sizeAlgorithm).
    let source = webidl::internal_object(CrossRealmSource { port: port.clone() }, ctx);
    let source = NativeSource::new(&source);
    rs_controller::set_up_readable_stream_default_controller(
        stream,
        &controller,
        StartAlgorithm::ReturnUndefined,
        PullAlgorithm::Native(source.clone()),
        CancelAlgorithm::Native(source),
        0.0,
        SizeAlgorithm::One,
        ctx,
    )
}

/// SetUpCrossRealmTransformReadable's pullAlgorithm.
fn cross_realm_pull(port: &Object, ctx: &mut Cx) -> JsResult<PromiseResult> {
    // 7.1. Perform ! PackAndPostMessage(port, "pull", undefined).
    pack_and_post_message(port, "pull", &Value::undefined(), ctx)?;
    // 7.2. Return a promise resolved with undefined.
    Ok(PromiseResult::undefined())
}

/// SetUpCrossRealmTransformReadable's cancelAlgorithm, and SetUpCrossRealmTransformWritable's
/// abortAlgorithm (the same steps).
fn cross_realm_cancel(port: &Object, reason: Value, ctx: &mut Cx) -> JsResult<PromiseResult> {
    // 1. Let result be PackAndPostMessageHandlingError(port, "error", reason).
    let result = pack_and_post_message_handling_error(port, "error", &reason, ctx)?;
    // 2. Disentangle port.
    message_port::disentangle(port, ctx);
    match result {
        // 3. If result is an abrupt completion, return a promise rejected with
        //    result.[[Value]].
        Err(error) => Ok(PromiseResult::Rejected(error)),
        // 4. Otherwise, return a promise resolved with undefined.
        Ok(()) => Ok(PromiseResult::undefined()),
    }
}

/// <https://streams.spec.whatwg.org/#abstract-opdef-setupcrossrealmtransformwritable>
pub(crate) fn set_up_cross_realm_transform_writable(
    stream: &Object<WritableStream>,
    port: &Object,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Perform ! InitializeWritableStream(stream). (`stream` was made with the slots
    //    InitializeWritableStream sets.)
    // 2. Let controller be a new WritableStreamDefaultController. (Made by
    //    SetUpWritableStreamDefaultController, below.)
    // 3. Let backpressurePromise be a new promise.
    let sink = webidl::internal_object(
        CrossRealmSink {
            port: port.clone(),
            controller: Slot::new(None),
            backpressure_promise: Slot::new(Some(InternalPromise::new())),
        },
        ctx,
    );
    // 4. Add a handler for port's message event (handle_message).
    // 5. Add a handler for port's messageerror event (handle_message_error).
    message_port::set_handler(port, Side::Writable(sink.clone()).port_handler());
    // 6. Enable port's port message queue.
    message_port::enable(port, ctx);
    // 7. Let startAlgorithm be an algorithm that returns undefined.
    // 8. Let writeAlgorithm be the following steps, taking a chunk argument: (cross_realm_write)
    // 9. Let closeAlgorithm be the following steps: (cross_realm_close)
    // 10. Let abortAlgorithm be the following steps, taking a reason argument:
    //     (cross_realm_cancel)
    // 11. Let sizeAlgorithm be an algorithm that returns 1.
    // 12. Perform ! SetUpWritableStreamDefaultController(stream, controller, startAlgorithm,
    //     writeAlgorithm, closeAlgorithm, abortAlgorithm, 1, sizeAlgorithm).
    ws_controller::set_up_writable_stream_default_controller(
        stream,
        WsStart::ReturnUndefined,
        WriteAlgorithm::Native(NativeSink::new(&sink)),
        CloseAlgorithm::Native(NativeSink::new(&sink)),
        AbortAlgorithm::Native(NativeSink::new(&sink)),
        1.0,
        SizeAlgorithm::One,
        ctx,
    )?;
    *sink.borrow().data().controller.borrow_mut() = stream.controller();
    Ok(())
}

impl NativeUnderlyingSink for CrossRealmSink {
    fn write(this: &Object<Self>, chunk: Value, _: Value, ctx: &mut Cx) -> JsResult<PromiseResult> {
        cross_realm_write(this, SinkChunk::Value(chunk), ctx)
    }

    /// Rust bytes go to the other side as the `Uint8Array` holding them would (see
    /// [`pack_and_post_chunk_handling_error`]).
    fn takes_bytes(_: &Object<Self>) -> bool {
        true
    }

    fn write_bytes(
        this: &Object<Self>,
        bytes: Rc<NativeBytes>,
        _: Value,
        ctx: &mut Cx,
    ) -> JsResult<PromiseResult> {
        cross_realm_write(this, SinkChunk::Bytes(bytes), ctx)
    }

    fn close(this: &Object<Self>, ctx: &mut Cx) -> JsResult<PromiseResult> {
        cross_realm_close(this, ctx)
    }

    fn abort(this: &Object<Self>, reason: Value, ctx: &mut Cx) -> JsResult<PromiseResult> {
        let port = this.borrow().data().port.clone();
        // SetUpCrossRealmTransformWritable's abortAlgorithm: the cancelAlgorithm's steps.
        cross_realm_cancel(&port, reason, ctx)
    }
}

/// SetUpCrossRealmTransformWritable's writeAlgorithm.
fn cross_realm_write(
    sink: &Object<CrossRealmSink>,
    chunk: SinkChunk,
    ctx: &mut Cx,
) -> JsResult<PromiseResult> {
    // 8.1. If backpressurePromise is undefined, set backpressurePromise to a promise resolved
    //      with undefined.
    let backpressure = sink
        .borrow()
        .data()
        .backpressure_promise
        .borrow_mut()
        .get_or_insert_with(|| InternalPromise::fulfilled(Value::undefined()))
        .clone();
    // 8.2. Return the result of reacting to backpressurePromise with the following fulfillment
    //      steps:
    let result = InternalPromise::new();
    upon_settlement(
        PromiseResult::Internal(backpressure),
        (sink.clone(), chunk, result.clone()),
        |(sink, chunk, result), _, ctx| {
            // 8.2.1. Set backpressurePromise to a new promise.
            let port = {
                let sink = sink.borrow();
                *sink.data().backpressure_promise.borrow_mut() = Some(InternalPromise::new());
                sink.data().port.clone()
            };
            // 8.2.2. Let result be PackAndPostMessageHandlingError(port, "chunk", chunk).
            match pack_and_post_chunk_handling_error(&port, chunk, ctx)? {
                // 8.2.3. If result is an abrupt completion,
                Err(error) => {
                    // 8.2.3.1. Disentangle port.
                    message_port::disentangle(&port, ctx);
                    // 8.2.3.2. Return a promise rejected with result.[[Value]].
                    result.reject(error, ctx);
                }
                // 8.2.4. Otherwise, return a promise resolved with undefined.
                Ok(()) => result.resolve(Value::undefined(), ctx)?,
            }
            Ok(())
        },
        |(.., result), reason, ctx| {
            result.reject(reason, ctx);
            Ok(())
        },
        ctx,
    )?;
    Ok(PromiseResult::Internal(result))
}

/// SetUpCrossRealmTransformWritable's closeAlgorithm.
fn cross_realm_close(sink: &Object<CrossRealmSink>, ctx: &mut Cx) -> JsResult<PromiseResult> {
    let port = sink.borrow().data().port.clone();
    // 9.1. Perform ! PackAndPostMessage(port, "close", undefined).
    pack_and_post_message(&port, "close", &Value::undefined(), ctx)?;
    // 9.2. Disentangle port.
    message_port::disentangle(&port, ctx);
    // 9.3. Return a promise resolved with undefined.
    Ok(PromiseResult::undefined())
}
