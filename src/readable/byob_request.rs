//! `ReadableStreamBYOBRequest`.
//!
//! <https://streams.spec.whatwg.org/#rs-byob-request-class>

use crate::engine::{Cx, JsResult, Object, Slot, Value};

use super::byte_controller::{
    readable_byte_stream_controller_respond, readable_byte_stream_controller_respond_with_new_view,
    ReadableByteStreamController,
};
use crate::engine::webidl::new_object;
use crate::{engine, engine::webidl};

traced! {
    data;
    /// <https://streams.spec.whatwg.org/#readablestreambyobrequest>
    #[derive(Debug)]
    pub(crate) struct ReadableStreamBYOBRequest {
        /// <https://streams.spec.whatwg.org/#readablestreambyobrequest-controller>
        controller: Slot<Option<Object<ReadableByteStreamController>>>,
        /// <https://streams.spec.whatwg.org/#readablestreambyobrequest-view>
        view: Slot<Option<Object>>,
    }
}

/// "A new ReadableStreamBYOBRequest" with its [[controller]] and [[view]] set
/// (ReadableByteStreamControllerGetBYOBRequest steps 1.3–1.5).
pub(crate) fn new_request(
    controller: Object<ReadableByteStreamController>,
    view: Object,
    ctx: &mut Cx,
) -> JsResult<Object<ReadableStreamBYOBRequest>> {
    new_object(
        ReadableStreamBYOBRequest {
            controller: Slot::new(Some(controller)),
            view: Slot::new(Some(view)),
        },
        ctx,
    )
}

/// ReadableByteStreamControllerInvalidateBYOBRequest steps 2–3: [[controller]] to undefined,
/// [[view]] to null.
pub(crate) fn invalidate(request: &Object<ReadableStreamBYOBRequest>) {
    let data = request.borrow();
    *data.data().controller.borrow_mut() = None;
    *data.data().view.borrow_mut() = None;
}

/// The request's [[view]].
pub(crate) fn view(request: &Object<ReadableStreamBYOBRequest>) -> Option<Object> {
    request.borrow().data().view.borrow().clone()
}

impl webidl::ClassInterface for ReadableStreamBYOBRequest {
    const LENGTH: usize = 0;
    fn members(b: &mut webidl::InterfaceBuilder<'_, '_>) {
        b.attribute("view", get_view, None);
        b.operation("respond", 1, respond);
        b.operation("respondWithNewView", 1, respond_with_new_view);
    }

    fn construct(_: &Value, _: &[Value], _: &mut Cx) -> JsResult<Self> {
        Err(webidl::illegal_constructor(
            <Self as webidl::Interface>::NAME,
        ))
    }
}

webidl::interface!(ReadableStreamBYOBRequest, "ReadableStreamBYOBRequest");

/// <https://streams.spec.whatwg.org/#rs-byob-request-view>
fn get_view(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    let request = webidl::this::<ReadableStreamBYOBRequest>(this)?;
    // 1. Return this.[[view]].
    Ok(view(&request).map_or_else(Value::null, Value::from))
}

/// <https://streams.spec.whatwg.org/#rs-byob-request-respond>
fn respond(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let request = webidl::this::<ReadableStreamBYOBRequest>(this)?;
    let bytes_written = webidl::to_enforced_u64(
        &args.first().cloned().unwrap_or_default(),
        "bytesWritten",
        ctx,
    )?;
    // 1. If this.[[controller]] is undefined, throw a TypeError exception.
    let controller = request.borrow().data().controller.borrow().clone();
    let Some(controller) = controller else {
        return Err(engine::throw_type_error(
            "The BYOB request has already been responded to or invalidated",
        ));
    };
    // 2. If ! IsDetachedBuffer(this.[[view]].[[ArrayBuffer]]) is true, throw a TypeError.
    if let Some(view) = view(&request) {
        let view = engine::array_buffer_view(&view.into(), "The BYOB request's view", ctx)?;
        if engine::is_detached_buffer(&view.buffer) {
            return Err(engine::throw_type_error(
                "The BYOB request's buffer has been detached",
            ));
        }
        // 3. Assert: this.[[view]].[[ByteLength]] > 0.
        // 4. Assert: this.[[view]].[[ViewedArrayBuffer]].[[ByteLength]] > 0.
    }
    // 5. Perform ? ReadableByteStreamControllerRespond(this.[[controller]], bytesWritten).
    readable_byte_stream_controller_respond(&controller, bytes_written, ctx)?;
    Ok(Value::undefined())
}

/// <https://streams.spec.whatwg.org/#rs-byob-request-respond-with-new-view>
fn respond_with_new_view(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let request = webidl::this::<ReadableStreamBYOBRequest>(this)?;
    let view =
        engine::array_buffer_view(&args.first().cloned().unwrap_or_default(), "The view", ctx)?;
    // 1. If this.[[controller]] is undefined, throw a TypeError exception.
    let controller = request.borrow().data().controller.borrow().clone();
    let Some(controller) = controller else {
        return Err(engine::throw_type_error(
            "The BYOB request has already been responded to or invalidated",
        ));
    };
    // 2. If ! IsDetachedBuffer(view.[[ViewedArrayBuffer]]) is true, throw a TypeError.
    if engine::is_detached_buffer(&view.buffer) {
        return Err(engine::throw_type_error(
            "The view's buffer has been detached",
        ));
    }
    // 3. Return ? ReadableByteStreamControllerRespondWithNewView(this.[[controller]], view).
    readable_byte_stream_controller_respond_with_new_view(&controller, &view, ctx)?;
    Ok(Value::undefined())
}
