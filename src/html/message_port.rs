//! `MessageChannel` and `MessagePort`
//! (<https://html.spec.whatwg.org/multipage/web-messaging.html#channel-messaging>), and the
//! agent state that delivers their messages as tasks.
//!
//! A `MessagePort` object is an `EventTarget` whose slots ([`PortSlots`]) hold its
//! [`PortCore`]: the port message queue and the entanglement, shared with other threads. Posting
//! serializes the message and appends it to the entangled port's queue; each queue entry is then
//! dispatched by one task of the receiving port's event loop. When the receiving port lives in
//! this agent, the task is queued at once; when it lives in another agent, that agent's inbox
//! gets the port's id and its event loop queues the task ([`deliver_remote_messages`]).
//!
//! Garbage collection: a port is entangled until it is closed, shipped, or disentangled by the
//! streams' cross-realm transform; while it is entangled (or has entries left to dispatch) the
//! agent state holds it strongly, which is HTML's "as if the relevant global object had a strong
//! reference" option. Closing or finishing a stream releases it.

use std::{
    cell::{Cell, RefCell},
    collections::HashMap,
    sync::Arc,
};

use crate::engine::webidl::{self, InterfaceObject};
use crate::engine::{
    js_string, Cx, JsResult, JsString, Object, Realm, Slot, StandardConstructor, Value,
};

use super::{
    data_clone_error, message_event,
    port::{Agent, Delivery, Envelope, PortCore},
    prototype,
    serialize::{
        structured_deserialize_with_transfer, structured_serialize_with_transfer,
        SerializedWithTransfer,
    },
    structured_serialize_options, transfer_argument, Iface,
};
use crate::dom;

const PORT: &str = "MessagePort";
const CHANNEL: &str = "MessageChannel";

traced! {
    /// A `MessagePort` object's slots.
    pub(crate) struct PortSlots {
        /// The port's core (queue and entanglement); `None` once the port is closed or shipped.
        #[unsafe_ignore_trace]
        core: RefCell<Option<Arc<PortCore>>>,
        /// [[Detached]].
        detached: Cell<bool>,
        /// <https://html.spec.whatwg.org/multipage/web-messaging.html#has-been-shipped>
        shipped: Cell<bool>,
        /// The port's relevant realm (where its tasks run and its messages are deserialized).
        realm: Realm,
        /// The handlers another specification adds in place of script's listeners (the Streams
        /// Standard's cross-realm transforms, whose ports script never sees).
        handler: Slot<Option<PortHandler>>,
    }
}

traced! {
    /// Handlers another specification adds to a port's `message`, `messageerror` and `close`
    /// events: opaque data and two functions of it, so no event object is made per message.
    #[derive(Clone)]
    pub(crate) struct PortHandler {
        data: Object,
        /// The `message` event's handler (and the `messageerror` event's, which it runs when the
        /// data cannot be deserialized), given the data, the port and the message.
        #[unsafe_ignore_trace]
        on_message: fn(&Object, &Object, SerializedWithTransfer, &mut Cx) -> JsResult<()>,
        /// The `close` event's handler, given the data.
        #[unsafe_ignore_trace]
        on_close: fn(&Object, &mut Cx) -> JsResult<()>,
    }
}

impl PortHandler {
    /// Handlers of `data`.
    pub(crate) fn new(
        data: Object,
        on_message: fn(&Object, &Object, SerializedWithTransfer, &mut Cx) -> JsResult<()>,
        on_close: fn(&Object, &mut Cx) -> JsResult<()>,
    ) -> Self {
        Self {
            data,
            on_message,
            on_close,
        }
    }
}

fn with_port<R>(object: &Object, f: impl FnOnce(&PortSlots) -> R) -> Option<R> {
    dom::with_target(object, |t| {
        dom::extension_of::<PortSlots>(&t.extension).map(f)
    })
    .flatten()
}

/// Whether `object` is a `MessagePort`.
pub(crate) fn is_message_port(object: &Object) -> bool {
    with_port(object, |_| ()).is_some()
}

/// The port's core, unless it is closed or shipped.
pub(crate) fn core(port: &Object) -> Option<Arc<PortCore>> {
    with_port(port, |p| p.core.borrow().clone()).flatten()
}

/// [[Detached]].
pub(crate) fn is_detached(port: &Object) -> bool {
    with_port(port, |p| p.detached.get()).unwrap_or(true)
}

/// Sets [[Detached]] to true.
pub(crate) fn set_detached(port: &Object) {
    with_port(port, |p| p.detached.set(true));
}

/// Adds another specification's handlers to `port`'s events.
pub(crate) fn set_handler(port: &Object, handler: PortHandler) {
    with_port(port, |p| *p.handler.borrow_mut() = Some(handler));
}

fn handler(port: &Object) -> Option<PortHandler> {
    with_port(port, |p| p.handler.borrow().clone()).flatten()
}

fn realm_of(port: &Object) -> Option<Realm> {
    with_port(port, |p| p.realm.clone())
}

// ---------------------------------------------------------------------------------------------
// The agent state: the ports this agent holds entangled, and its inbox.
// ---------------------------------------------------------------------------------------------

/// Per agent (one per context): its [`Agent`] and the ports it holds strongly.
pub(crate) struct AgentState {
    agent: Arc<Agent>,
    ports: RefCell<HashMap<u64, (Object, Arc<PortCore>)>>,
}

impl AgentState {
    pub(crate) fn new(agent: Arc<Agent>) -> Self {
        Self {
            agent,
            ports: RefCell::new(HashMap::new()),
        }
    }
}

impl Drop for AgentState {
    /// The agent goes away (its context is dropped): its ports are disentangled, so the ports
    /// entangled with them (in other agents) get their `close` event.
    fn drop(&mut self) {
        let ports = std::mem::take(self.ports.get_mut());
        for (_, (object, core)) in ports {
            drop(object);
            if let Some((other, Delivery::To(agent))) = core.disentangle() {
                agent.notify(other.id());
            }
        }
    }
}

/// The agent of this context.
pub(crate) fn agent(ctx: &Cx) -> Option<Arc<Agent>> {
    crate::engine::agent_data::<AgentState>(ctx).map(|s| Arc::clone(&s.agent))
}

fn register_port(ctx: &Cx, port: &Object, core: &Arc<PortCore>) {
    if let Some(state) = crate::engine::agent_data::<AgentState>(ctx) {
        state
            .ports
            .borrow_mut()
            .insert(core.id(), (port.clone(), Arc::clone(core)));
    }
}

fn unregister_port(ctx: &Cx, id: u64) {
    let removed =
        crate::engine::agent_data::<AgentState>(ctx).and_then(|s| s.ports.borrow_mut().remove(&id));
    drop(removed);
}

fn registered_port(ctx: &Cx, id: u64) -> Option<Object> {
    crate::engine::agent_data::<AgentState>(ctx)
        .and_then(|s| s.ports.borrow().get(&id).map(|(o, _)| o.clone()))
}

/// Releases the strong reference once the port can receive nothing more and has nothing left to
/// dispatch.
fn release_if_done(ctx: &Cx, port: &Object) {
    if let Some(core) = core(port) {
        if !core.is_entangled() && core.nothing_to_dispatch() {
            unregister_port(ctx, core.id());
        }
    }
}

/// Queues the task that dispatches the next entry of `port`'s queue.
fn queue_port_task(ctx: &mut Cx, port: Object) {
    let Some(realm) = realm_of(&port) else {
        return;
    };
    crate::engine::queue_task_in(ctx, realm, move |ctx| run_port_task(&port, ctx));
}

/// Dispatches an entry that was added to `core`'s queue: a task now if the port lives in this
/// agent, else a note in its agent's inbox.
pub(crate) fn deliver(ctx: &mut Cx, core: &Arc<PortCore>, delivery: Delivery) {
    let Delivery::To(agent) = delivery else {
        return;
    };
    let local = crate::engine::agent_data::<AgentState>(ctx).is_some_and(|s| s.agent.same(&agent));
    match local.then(|| registered_port(ctx, core.id())).flatten() {
        Some(port) => queue_port_task(ctx, port),
        None => agent.notify(core.id()),
    }
}

/// Queues the tasks for the entries other agents (threads) added to this agent's ports' queues.
/// The host's event loop calls this before it picks each task.
pub(crate) fn deliver_remote_messages(ctx: &mut Cx) {
    let Some(agent) = agent(ctx) else {
        return;
    };
    for id in agent.take_ready() {
        if let Some(port) = registered_port(ctx, id) {
            queue_port_task(ctx, port);
        }
    }
}

/// Whether a message can still arrive from another agent: some enabled port here is entangled
/// with a port in another agent or in transit. The event loop waits for messages while this
/// holds.
pub(crate) fn may_receive_remote_messages(ctx: &Cx) -> bool {
    let Some(state) = crate::engine::agent_data::<AgentState>(ctx) else {
        return false;
    };
    let cores: Vec<Arc<PortCore>> = state
        .ports
        .borrow()
        .values()
        .map(|(_, c)| Arc::clone(c))
        .collect();
    cores
        .iter()
        .any(|c| c.may_receive_from_elsewhere(&state.agent))
}

/// How many ports this agent holds strongly (entangled, or with entries left to dispatch).
pub(crate) fn held_ports(ctx: &Cx) -> usize {
    crate::engine::agent_data::<AgentState>(ctx).map_or(0, |s| s.ports.borrow().len())
}

// ---------------------------------------------------------------------------------------------
// Creating, entangling, enabling, disentangling
// ---------------------------------------------------------------------------------------------

/// A new `MessagePort` in the current realm holding `core` (a new port, or a received one).
fn new_port_object(core: Arc<PortCore>, shipped: bool, ctx: &mut Cx) -> JsResult<Object> {
    let proto = prototype(Iface::Port, ctx)?;
    let Some(agent) = agent(ctx) else {
        return Err(crate::engine::throw_type_error(
            "MessagePort is not registered in this context",
        ));
    };
    core.adopt(agent);
    let slots = PortSlots {
        core: RefCell::new(Some(Arc::clone(&core))),
        detached: Cell::new(false),
        shipped: Cell::new(shipped),
        realm: crate::engine::current_realm(ctx),
        handler: Slot::new(None),
    };
    let port = Object::from_proto_and_data(proto, dom::EventTarget::new_extended(slots));
    if core.is_entangled() {
        register_port(ctx, &port, &core);
    }
    Ok(port)
}

/// Two new `MessagePort`s in the current realm, entangled.
pub(crate) fn new_entangled_ports(ctx: &mut Cx) -> JsResult<(Object, Object)> {
    let (a, b) = PortCore::new_pair();
    Ok((
        new_port_object(a, false, ctx)?,
        new_port_object(b, false, ctx)?,
    ))
}

/// A new `MessagePort` in the current realm for a core made in Rust (one end of a port pair
/// that connects two agents).
pub(crate) fn adopt_core(core: Arc<PortCore>, ctx: &mut Cx) -> JsResult<Object> {
    new_port_object(core, true, ctx)
}

/// Enables `port`'s port message queue, if it is not already enabled.
pub(crate) fn enable(port: &Object, ctx: &mut Cx) {
    let Some(core) = core(port) else {
        return;
    };
    let waiting = core.enable();
    for _ in 0..waiting {
        queue_port_task(ctx, port.clone());
    }
}

/// Disentangles `port` (if entangled): the entangled port gets a `close` event.
pub(crate) fn disentangle(port: &Object, ctx: &mut Cx) {
    let Some(core) = core(port) else {
        return;
    };
    if let Some((other, delivery)) = core.disentangle() {
        deliver(ctx, &other, delivery);
    }
    release_if_done(ctx, port);
}

/// The core of the port `port` is entangled with, if any.
pub(crate) fn entangled_core(port: &Object) -> Option<Arc<PortCore>> {
    core(port).and_then(|c| c.peer())
}

// ---------------------------------------------------------------------------------------------
// Posting and dispatching
// ---------------------------------------------------------------------------------------------

/// Adds an already serialized message to `target`'s port message queue (the last step of the
/// message port post message steps).
pub(crate) fn post_serialized(
    target: &Arc<PortCore>,
    message: SerializedWithTransfer,
    ctx: &mut Cx,
) {
    message.for_each_port(&mut |core| core.carried_by(target));
    let delivery = target.push(Envelope::Message(message));
    deliver(ctx, target, delivery);
}

/// <https://html.spec.whatwg.org/multipage/web-messaging.html#message-port-post-message-steps>
pub(crate) fn message_port_post_message_steps(
    port: &Object,
    target: Option<Arc<PortCore>>,
    message: &Value,
    transfer: &[Object],
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. Let transfer be options["transfer"].
    // 2. If transfer contains this MessagePort, then throw a "DataCloneError" DOMException.
    if transfer.iter().any(|t| Object::equals(t, port)) {
        return Err(data_clone_error(
            ctx,
            "a MessagePort cannot be posted through itself",
        )?);
    }
    // 3. Let doomed be false.
    // 4. If targetPort is not null and transfer contains targetPort, then set doomed to true.
    let doomed = target.as_ref().is_some_and(|target| {
        transfer
            .iter()
            .filter_map(core)
            .any(|c| Arc::ptr_eq(&c, target))
    });
    // 5. Let serializeWithTransferResult be StructuredSerializeWithTransfer(message, transfer).
    //    Rethrow any exceptions.
    let serialized = structured_serialize_with_transfer(message, transfer, ctx)?;
    // 6. If targetPort is null, or if doomed is true, then return.
    let Some(target) = target.filter(|_| !doomed) else {
        return Ok(());
    };
    // 7. Add a task that runs the following steps to the port message queue of targetPort.
    post_serialized(&target, serialized, ctx);
    Ok(())
}

/// The task that dispatches the first entry of `port`'s queue (step 7 of the message port post
/// message steps, or the `close` event of the disentangle steps).
fn run_port_task(port: &Object, ctx: &mut Cx) -> JsResult<()> {
    let Some(core) = core(port) else {
        return Ok(());
    };
    let Some(entry) = core.pop() else {
        return Ok(());
    };
    let handler = handler(port);
    let result = match (entry, handler) {
        (Envelope::Message(message), Some(handler)) => {
            (handler.on_message)(&handler.data, port, message, ctx)
        }
        (Envelope::Message(message), None) => fire_message(port, message, ctx),
        (Envelope::Close, Some(handler)) => (handler.on_close)(&handler.data, ctx),
        (Envelope::Close, None) => {
            let event = dom::create_event(ctx, "close")?;
            dom::dispatch(port, &event, ctx).map(drop)
        }
    };
    release_if_done(ctx, port);
    result
}

/// Steps 7.1-7.6 of the message port post message steps for a port script listens to.
fn fire_message(port: &Object, message: SerializedWithTransfer, ctx: &mut Cx) -> JsResult<()> {
    // 7.1. Let finalTargetPort be the MessagePort in whose port message queue the task now is.
    // 7.2. Let targetRealm be finalTargetPort's relevant realm.
    // 7.3. Let deserializeRecord be StructuredDeserializeWithTransfer(
    //      serializeWithTransferResult, targetRealm).
    // 7.4. If this throws an exception, catch it, fire an event named messageerror at
    //      finalTargetPort, using MessageEvent, and then return.
    let record = match structured_deserialize_with_transfer(message, ctx) {
        Ok(record) => record,
        Err(error) if error.is_uncatchable() => return Err(error),
        Err(_) => {
            let event =
                message_event::new_message_event(ctx, "messageerror", Value::null(), Vec::new())?;
            return dom::dispatch(port, &event, ctx).map(drop);
        }
    };
    // 7.5. Let messageClone be deserializeRecord.[[Deserialized]].
    // 7.6. Let newPorts be a new frozen array containing all MessagePort objects in
    //      deserializeRecord.[[TransferredValues]], if any, maintaining their relative order.
    let ports: Vec<Value> = record
        .transferred
        .into_iter()
        .filter(|v| v.as_object().is_some_and(|o| is_message_port(&o)))
        .collect();
    // 7.7. Fire an event named message at finalTargetPort, using MessageEvent, with the data
    //      attribute initialized to messageClone and the ports attribute initialized to newPorts.
    let event = message_event::new_message_event(ctx, "message", record.value, ports)?;
    dom::dispatch(port, &event, ctx).map(drop)
}

// ---------------------------------------------------------------------------------------------
// Transfer
// ---------------------------------------------------------------------------------------------

/// The `MessagePort` transfer steps
/// (<https://html.spec.whatwg.org/multipage/web-messaging.html#message-ports>): the data holder
/// takes the port message queue and the entanglement (both in the core).
pub(crate) fn message_port_transfer_steps(port: &Object, ctx: &mut Cx) -> JsResult<Arc<PortCore>> {
    let Some(core) = with_port(port, |p| p.core.borrow_mut().take()).flatten() else {
        return Err(data_clone_error(ctx, "the MessagePort is detached")?);
    };
    // 1. Set dataHolder.[[PortMessageQueue]] to value's port message queue.
    // 2. If value is entangled with another port remotePort, then set value's has been shipped
    //    flag to true and dataHolder.[[RemotePort]] to remotePort.
    // 3. Otherwise, set dataHolder.[[RemotePort]] to null.
    with_port(port, |p| p.shipped.set(true));
    core.release();
    unregister_port(ctx, core.id());
    Ok(core)
}

/// The `MessagePort` transfer-receiving steps: a new port in the current realm adopts the core.
pub(crate) fn message_port_transfer_receiving_steps(
    core: Arc<PortCore>,
    ctx: &mut Cx,
) -> JsResult<Object> {
    if super::with_realm(ctx, |_| ()).is_err() {
        return Err(data_clone_error(
            ctx,
            "MessagePort is not exposed in this realm",
        )?);
    }
    // 1. Set value's has been shipped flag to true.
    // 2. Move all the tasks that are to fire message events in dataHolder.[[PortMessageQueue]]
    //    to the port message queue of value, if any, leaving value's port message queue in its
    //    initial disabled state.
    // 3. If dataHolder.[[RemotePort]] is not null, then entangle dataHolder.[[RemotePort]] and
    //    value.
    new_port_object(core, true, ctx)
}

// ---------------------------------------------------------------------------------------------
// The MessagePort interface
// ---------------------------------------------------------------------------------------------

pub(super) fn build_port_interface(
    event_target: &StandardConstructor,
    ctx: &mut Cx,
) -> StandardConstructor {
    let mut iface = InterfaceObject::new(ctx, PORT, 0, construct_port);
    iface
        .members()
        .operation("postMessage", 1, post_message)
        .operation("start", 0, start)
        .operation("close", 0, close)
        .attribute("onclose", get_onclose, Some(set_onclose))
        .attribute("onmessage", get_onmessage, Some(set_onmessage))
        .attribute(
            "onmessageerror",
            get_onmessageerror,
            Some(set_onmessageerror),
        );
    iface.build(
        Some(event_target.prototype()),
        Some(event_target.constructor()),
    )
}

fn construct_port(_: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    Err(crate::engine::throw_type_error(
        "Failed to construct 'MessagePort': Illegal constructor",
    ))
}

fn this_port(this: &Value) -> JsResult<Object> {
    webidl::this_implementing(this, PORT, is_message_port)
}

/// `postMessage(message, transfer)` / `postMessage(message, options = {})`
fn post_message(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let port = this_port(this)?;
    webidl::require_args(args, 1, PORT, "postMessage")?;
    let message = args[0].clone();
    let transfer = match transfer_argument(&webidl::arg(args, 1), ctx)? {
        Some(transfer) => transfer,
        None => structured_serialize_options(&webidl::arg(args, 1), PORT, ctx)?,
    };
    // Run the message port post message steps providing this, targetPort (the port with which
    // this is entangled, if any; otherwise null), message and options.
    let target = entangled_core(&port);
    message_port_post_message_steps(&port, target, &message, &transfer, ctx)?;
    Ok(Value::undefined())
}

/// `start()`: enable this's port message queue, if it is not already enabled.
fn start(this: &Value, _: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let port = this_port(this)?;
    enable(&port, ctx);
    Ok(Value::undefined())
}

/// `close()`
fn close(this: &Value, _: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let port = this_port(this)?;
    // 1. Set this's [[Detached]] internal slot value to true.
    set_detached(&port);
    // 2. If this is entangled, disentangle it.
    let Some(core) = with_port(&port, |p| p.core.borrow_mut().take()).flatten() else {
        return Ok(Value::undefined());
    };
    if let Some((other, delivery)) = core.disentangle() {
        deliver(ctx, &other, delivery);
    }
    // A closed port dispatches nothing more.
    core.clear();
    unregister_port(ctx, core.id());
    Ok(Value::undefined())
}

fn get_handler(this: &Value, event_type: JsString) -> JsResult<Value> {
    let port = this_port(this)?;
    Ok(dom::event_handler_value(&port, &event_type).map_or(Value::null(), Into::into))
}

fn set_handler_attribute(
    this: &Value,
    args: &[Value],
    member: &str,
    event_type: JsString,
) -> JsResult<Object> {
    webidl::require_args(args, 1, PORT, member)?;
    let port = this_port(this)?;
    // EventHandler is a [LegacyTreatNonObjectAsNull] callback function: non-objects are null.
    dom::set_event_handler(&port, event_type, args[0].as_object());
    Ok(port)
}

fn get_onmessage(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    get_handler(this, js_string!("message"))
}

/// Setting `onmessage` also enables the port message queue, as if `start()` had been called.
fn set_onmessage(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let port = set_handler_attribute(this, args, "onmessage", js_string!("message"))?;
    enable(&port, ctx);
    Ok(Value::undefined())
}

fn get_onmessageerror(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    get_handler(this, js_string!("messageerror"))
}

fn set_onmessageerror(this: &Value, args: &[Value], _: &mut Cx) -> JsResult<Value> {
    set_handler_attribute(this, args, "onmessageerror", js_string!("messageerror"))?;
    Ok(Value::undefined())
}

fn get_onclose(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    get_handler(this, js_string!("close"))
}

fn set_onclose(this: &Value, args: &[Value], _: &mut Cx) -> JsResult<Value> {
    set_handler_attribute(this, args, "onclose", js_string!("close"))?;
    Ok(Value::undefined())
}

// ---------------------------------------------------------------------------------------------
// The MessageChannel interface
// ---------------------------------------------------------------------------------------------

traced! {
    data;
    /// A `MessageChannel` object's slots.
    pub(crate) struct MessageChannel {
        port1: Object,
        port2: Object,
    }
}

pub(super) fn build_channel_interface(ctx: &mut Cx) -> StandardConstructor {
    let mut iface = InterfaceObject::new(ctx, CHANNEL, 0, construct_channel);
    iface
        .members()
        .attribute("port1", get_port1, None)
        .attribute("port2", get_port2, None);
    iface.build(None, None)
}

/// `new MessageChannel()`
fn construct_channel(new_target: &Value, _: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    webidl::require_new(new_target, CHANNEL)?;
    let proto =
        webidl::prototype_from_new_target(new_target, |ctx| prototype(Iface::Channel, ctx), ctx)?;
    // 1. Set this's port 1 to a new MessagePort in this's relevant realm.
    // 2. Set this's port 2 to a new MessagePort in this's relevant realm.
    // 3. Entangle this's port 1 and this's port 2.
    let (port1, port2) = new_entangled_ports(ctx)?;
    Ok(Object::from_proto_and_data(proto, MessageChannel { port1, port2 }).into())
}

impl webidl::Interface for MessageChannel {
    const NAME: &'static str = CHANNEL;
}

fn this_channel(this: &Value) -> JsResult<(Object, Object)> {
    let channel = webidl::this::<MessageChannel>(this)?;
    let data = channel.borrow();
    Ok((data.data().port1.clone(), data.data().port2.clone()))
}

fn get_port1(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    Ok(this_channel(this)?.0.into())
}

fn get_port2(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    Ok(this_channel(this)?.1.into())
}
