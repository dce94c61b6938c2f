//! `MessageEvent` (<https://html.spec.whatwg.org/multipage/comms.html#the-messageevent-interface>).

use crate::engine::clone;
use crate::engine::webidl::{self, InterfaceObject};
use crate::engine::{Cx, JsResult, JsString, Object, StandardConstructor, Value};

use super::{prototype, sequence_of_objects, Iface};
use crate::dom;

const INTERFACE: &str = "MessageEvent";

traced! {
    /// A `MessageEvent`'s attributes (kept in the event's slots).
    pub(crate) struct MessageEventSlots {
        data: Value,
        origin: JsString,
        last_event_id: JsString,
        source: Option<Object>,
        /// The `FrozenArray<MessagePort>` (the same array object on every get).
        ports: Object,
    }
}

pub(super) fn build_interface(event: &StandardConstructor, ctx: &mut Cx) -> StandardConstructor {
    let mut iface = InterfaceObject::new(ctx, INTERFACE, 1, construct);
    iface
        .members()
        .attribute("data", get_data, None)
        .attribute("origin", get_origin, None)
        .attribute("lastEventId", get_last_event_id, None)
        .attribute("source", get_source, None)
        .attribute("ports", get_ports, None);
    iface.build(Some(event.prototype()), Some(event.constructor()))
}

/// A trusted `MessageEvent` in the current realm, as "fire an event named `event_type` ... using
/// MessageEvent" makes it: origin and lastEventId empty, source null.
pub(crate) fn new_message_event(
    ctx: &mut Cx,
    event_type: &str,
    data: Value,
    ports: Vec<Value>,
) -> JsResult<Object> {
    new_message_event_from(ctx, event_type, data, JsString::default(), None, ports)
}

/// A trusted `MessageEvent` with the given origin and source (a window's posted message).
pub(crate) fn new_message_event_from(
    ctx: &mut Cx,
    event_type: &str,
    data: Value,
    origin: JsString,
    source: Option<Object>,
    ports: Vec<Value>,
) -> JsResult<Object> {
    let proto = prototype(Iface::Event, ctx)?;
    let ports = clone::frozen_array(ports, ctx)?;
    let slots = MessageEventSlots {
        data,
        origin,
        last_event_id: JsString::default(),
        source,
        ports,
    };
    dom::new_event_object_with(
        proto,
        JsString::from(event_type),
        &dom::EventInit {
            bubbles: false,
            cancelable: false,
            composed: false,
            trusted: true,
        },
        Some(Box::new(slots)),
        ctx,
    )
}

/// `new MessageEvent(type, eventInitDict = {})`
fn construct(new_target: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    webidl::require_new(new_target, INTERFACE)?;
    webidl::require_args(args, 1, INTERFACE, "constructor")?;
    let event_type = args[0].to_string(ctx)?;
    let init = webidl::arg(args, 1);
    // MessageEventInit : EventInit: the inherited members first, then data, lastEventId,
    // origin, ports, source (lexicographic order).
    let event_init = dom::convert_event_init(&init, ctx)?;
    let dict = init.as_object();
    let member = |name: &str, ctx: &mut Cx| -> JsResult<Value> {
        match &dict {
            Some(d) => d.get(JsString::from(name), ctx),
            None => Ok(Value::undefined()),
        }
    };
    let data = member("data", ctx)?;
    let data = if data.is_undefined() {
        Value::null()
    } else {
        data
    };
    let last_event_id = match member("lastEventId", ctx)? {
        v if v.is_undefined() => JsString::default(),
        v => v.to_string(ctx)?,
    };
    let origin = match member("origin", ctx)? {
        v if v.is_undefined() => JsString::default(),
        v => v.to_string(ctx)?,
    };
    let ports = match member("ports", ctx)? {
        v if v.is_undefined() => Vec::new(),
        v => sequence_of_objects(&v, "Failed to construct 'MessageEvent': member ports", ctx)?,
    };
    if ports
        .iter()
        .any(|p| !super::message_port::is_message_port(p))
    {
        return Err(crate::engine::throw_type_error(
            "Failed to construct 'MessageEvent': member ports is not a sequence of MessagePort",
        ));
    }
    let source =
        match member("source", ctx)? {
            v if v.is_null_or_undefined() => None,
            v => match v.as_object() {
                Some(o) if super::message_port::is_message_port(&o) || dom::is_event_target(&v) => {
                    Some(o)
                }
                _ => return Err(crate::engine::throw_type_error(
                    "Failed to construct 'MessageEvent': member source is not a MessageEventSource",
                )),
            },
        };
    let proto =
        webidl::prototype_from_new_target(new_target, |ctx| prototype(Iface::Event, ctx), ctx)?;
    let ports = clone::frozen_array(ports.into_iter().map(Value::from).collect(), ctx)?;
    let slots = MessageEventSlots {
        data,
        origin,
        last_event_id,
        source,
        ports,
    };
    let event =
        dom::new_event_object_with(proto, event_type, &event_init, Some(Box::new(slots)), ctx)?;
    Ok(event.into())
}

/// The brand check of `MessageEvent`'s attributes (an `Event` whose slots carry a message),
/// then `f` on the slots.
fn with_message<R>(this: &Value, f: impl FnOnce(&MessageEventSlots) -> R) -> JsResult<R> {
    let event = webidl::this_implementing(this, INTERFACE, |o| {
        dom::with_event(o, |e| {
            dom::extension_of::<MessageEventSlots>(&e.extension).is_some()
        })
        .unwrap_or(false)
    })?;
    dom::with_event(&event, |e| {
        dom::extension_of::<MessageEventSlots>(&e.extension).map(f)
    })
    .flatten()
    .ok_or_else(|| crate::engine::throw_type_error("not a MessageEvent"))
}

fn get_data(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    with_message(this, |m| m.data.clone())
}

fn get_origin(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    with_message(this, |m| m.origin.clone().into())
}

fn get_last_event_id(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    with_message(this, |m| m.last_event_id.clone().into())
}

fn get_source(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    with_message(this, |m| m.source.clone().map_or(Value::null(), Into::into))
}

fn get_ports(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    with_message(this, |m| m.ports.clone().into())
}
