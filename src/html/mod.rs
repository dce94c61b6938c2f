//! The parts of the HTML Standard that transferable streams depend on: structured
//! serialization with transfer (`structuredClone`), channel messaging (`MessageChannel`,
//! `MessagePort`, `MessageEvent`), and a window's `postMessage`.
//!
//! - `serialize`: StructuredSerializeWithTransfer / StructuredDeserializeWithTransfer, into a
//!   record that owns no JS value, so it can cross threads;
//! - `port`: the thread-safe port message queues and entanglement, and each agent's inbox;
//! - `message_port`: the `MessagePort` and `MessageChannel` interfaces, and the tasks that
//!   dispatch messages;
//! - `message_event`: `MessageEvent`;
//! - `window`: the window-like global (`window`, `postMessage(message, targetOrigin,
//!   transfer)`) that the WPT runner's `.window.js` files get.
//!
//! HTML names no stream: the Streams Standard's transferable interfaces come in through
//! `serialize::register_transferable`, and its cross-realm transforms handle their ports' events
//! through `message_port::PortHandler` (both in `crate::transfer`).

pub(crate) mod message_event;
pub(crate) mod message_port;
pub(crate) mod port;
pub(crate) mod serialize;
pub(crate) mod window;

use std::sync::Arc;

use crate::engine::webidl;
use crate::engine::{
    js_string, Cx, JsError, JsResult, JsSymbol, Object, StandardConstructor, Value,
};

pub use port::{live_port_queues, Agent, PortCore};

/// Installs `MessageChannel`, `MessagePort`, `MessageEvent` and `structuredClone` in the current
/// realm (after `crate::dom::register`), and gives the context its agent state if it has none.
pub(crate) fn register(ctx: &mut Cx) -> JsResult<()> {
    if crate::engine::agent_data::<message_port::AgentState>(ctx).is_none() {
        crate::engine::set_agent_data(ctx, message_port::AgentState::new(Agent::new()));
    }
    let (event, event_target) = crate::dom::event_interfaces(ctx)?;
    let message_event = message_event::build_interface(&event, ctx);
    let message_port = message_port::build_port_interface(&event_target, ctx);
    let message_channel = message_port::build_channel_interface(ctx);
    for (name, class) in [
        ("MessageChannel", &message_channel),
        ("MessagePort", &message_port),
        ("MessageEvent", &message_event),
    ] {
        webidl::define_global(name, class, ctx)?;
    }
    crate::engine::set_realm_data(
        ctx,
        HtmlRealm {
            message_channel,
            message_port,
            message_event,
        },
    );
    // `structuredClone(value, options)`: a WebIDL operation of WindowOrWorkerGlobalScope
    // (writable, enumerable, configurable), replacing any earlier one.
    webidl::define_global_operation("structuredClone", 1, structured_clone_operation, ctx)?;
    Ok(())
}

traced! {
    data;
    /// The per-realm interface objects.
    struct HtmlRealm {
        message_channel: StandardConstructor,
        message_port: StandardConstructor,
        message_event: StandardConstructor,
    }
}

#[derive(Clone, Copy)]
enum Iface {
    Channel,
    Port,
    Event,
}

fn with_realm<R>(ctx: &Cx, f: impl FnOnce(&HtmlRealm) -> R) -> JsResult<R> {
    match crate::engine::with_realm_data::<HtmlRealm, R>(ctx, f) {
        Some(result) => Ok(result),
        None => Err(crate::engine::throw_type_error(
            "MessageChannel and MessagePort are not registered in this realm",
        )),
    }
}

fn prototype(iface: Iface, ctx: &Cx) -> JsResult<Object> {
    with_realm(ctx, |r| {
        match iface {
            Iface::Channel => &r.message_channel,
            Iface::Port => &r.message_port,
            Iface::Event => &r.message_event,
        }
        .prototype()
    })
}

/// A "DataCloneError" `DOMException` in the current realm, as a thrown error.
pub(crate) fn data_clone_error(ctx: &mut Cx, message: &str) -> JsResult<JsError> {
    let exception = crate::dom::create_dom_exception(ctx, message, "DataCloneError")?;
    Ok(crate::engine::throw_value(exception.into()))
}

/// Converts `value` to a WebIDL `sequence<object>` by iterating it with `method`
/// (<https://webidl.spec.whatwg.org/#create-sequence-from-iterable>).
fn sequence_with_method(
    object: &Object,
    method: &Object,
    what: &str,
    ctx: &mut Cx,
) -> JsResult<Vec<Object>> {
    let iterator = crate::engine::call_object(method, &object.clone().into(), &[], ctx)?;
    let Some(iterator) = iterator.as_object() else {
        return Err(crate::engine::throw_type_error(format!(
            "{what}: the iterator is not an object"
        )));
    };
    let next = iterator.get(js_string!("next"), ctx)?;
    let Some(next) = next.as_callable() else {
        return Err(crate::engine::throw_type_error(format!(
            "{what}: the iterator has no next()"
        )));
    };
    let mut items = Vec::new();
    loop {
        let result = crate::engine::call_object(&next, &iterator.clone().into(), &[], ctx)?;
        let Some(result) = result.as_object() else {
            return Err(crate::engine::throw_type_error(format!(
                "{what}: an iterator result is not an object"
            )));
        };
        if result.get(js_string!("done"), ctx)?.to_boolean() {
            return Ok(items);
        }
        let item = result.get(js_string!("value"), ctx)?;
        match item.as_object() {
            Some(item) => items.push(item),
            None => {
                return Err(crate::engine::throw_type_error(format!(
                    "{what}: an element is not an object"
                )))
            }
        }
    }
}

/// `sequence<object>` conversion of `value`.
pub(crate) fn sequence_of_objects(
    value: &Value,
    what: &str,
    ctx: &mut Cx,
) -> JsResult<Vec<Object>> {
    let Some(object) = value.as_object() else {
        return Err(crate::engine::throw_type_error(format!(
            "{what} is not iterable"
        )));
    };
    let method = object.get(JsSymbol::iterator(), ctx)?;
    match method.as_callable() {
        Some(method) => sequence_with_method(&object, &method, what, ctx),
        None => Err(crate::engine::throw_type_error(format!(
            "{what} is not iterable"
        ))),
    }
}

/// Overload resolution between `(any message, sequence<object> transfer)` and
/// `(any message, optional Options options = {})` on the second argument: an object whose
/// `@@iterator` is not undefined is the sequence (converted here); anything else is the
/// dictionary (`None`).
pub(crate) fn transfer_argument(value: &Value, ctx: &mut Cx) -> JsResult<Option<Vec<Object>>> {
    let Some(object) = value.as_object() else {
        return Ok(None);
    };
    // GetMethod(V, @@iterator).
    let method = object.get(JsSymbol::iterator(), ctx)?;
    if method.is_null_or_undefined() {
        return Ok(None);
    }
    let Some(method) = method.as_callable() else {
        return Err(crate::engine::throw_type_error(
            "@@iterator is not callable",
        ));
    };
    sequence_with_method(&object, &method, "The transfer list", ctx).map(Some)
}

/// The `transfer` member of a `StructuredSerializeOptions` dictionary (default: empty).
pub(crate) fn structured_serialize_options(
    value: &Value,
    interface: &str,
    ctx: &mut Cx,
) -> JsResult<Vec<Object>> {
    if value.is_null_or_undefined() {
        return Ok(Vec::new());
    }
    let Some(dict) = value.as_object() else {
        return Err(crate::engine::throw_type_error(format!(
            "Failed to execute 'postMessage' on '{interface}': the options are not an object"
        )));
    };
    let transfer = dict.get(js_string!("transfer"), ctx)?;
    if transfer.is_undefined() {
        return Ok(Vec::new());
    }
    sequence_of_objects(&transfer, "The transfer member", ctx)
}

/// <https://html.spec.whatwg.org/multipage/structured-data.html#dom-structuredclone>
fn structured_clone_operation(_: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    webidl::require_args(args, 1, "Window", "structuredClone")?;
    let transfer = structured_serialize_options(&webidl::arg(args, 1), "Window", ctx)?;
    // 1. Let serialized be ? StructuredSerializeWithTransfer(value, options["transfer"]).
    let serialized = serialize::structured_serialize_with_transfer(&args[0], &transfer, ctx)?;
    // 2. Let deserializeRecord be ? StructuredDeserializeWithTransfer(serialized, this's
    //    relevant realm).
    let record = serialize::structured_deserialize_with_transfer(serialized, ctx)?;
    // 3. Return deserializeRecord.[[Deserialized]].
    Ok(record.value)
}

// ---------------------------------------------------------------------------------------------
// For the host: agents, and ports that connect two agents.
// ---------------------------------------------------------------------------------------------

/// Gives a context (before [`register`] runs) the agent its host waits on.
pub(crate) fn set_agent(ctx: &mut Cx, agent: Arc<Agent>) {
    crate::engine::set_agent_data(ctx, message_port::AgentState::new(agent));
}

/// Two entangled port cores, not yet owned by any agent: each becomes a `MessagePort` with
/// [`adopt_port`], in whichever agent (thread) it is sent to.
pub fn port_pair() -> (Arc<PortCore>, Arc<PortCore>) {
    PortCore::new_outside_pair()
}

/// A new `MessagePort` in the current realm for a core from [`port_pair`].
pub(crate) fn adopt_port(core: Arc<PortCore>, ctx: &mut Cx) -> JsResult<Object> {
    message_port::adopt_core(core, ctx)
}

pub(crate) use message_port::{deliver_remote_messages, held_ports, may_receive_remote_messages};
