//! <https://dom.spec.whatwg.org/#interface-eventtarget>, with at-target-only dispatch (there is no
//! node tree: no target here has a parent), and the event handler attributes of
//! <https://html.spec.whatwg.org/#event-handler-attributes> that `AbortSignal.onabort` needs.

use crate::engine;
use std::cell::Cell;

use crate::engine::webidl::{self, InterfaceObject};
use crate::engine::{
    js_string, Cx, JsResult, JsString, Object, Shared, Slot, StandardConstructor, Value,
};

use super::{
    abort::{self, AbortSignalState},
    create_dom_exception,
    event::{flags, phase, with_event},
    prototype, report_exception, Iface,
};

const INTERFACE: &str = "EventTarget";

traced! {
    data;
    /// An `EventTarget` object's internal state (also used by `AbortSignal` and `MessagePort`, which
    /// inherit from `EventTarget`: `signal` / `extension` is `Some` for those).
    pub(crate) struct EventTarget {
        /// <https://dom.spec.whatwg.org/#eventtarget-event-listener-list>
        listeners: Slot<Vec<Shared<Listener>>>,
        /// <https://html.spec.whatwg.org/#event-handler-map>
        handlers: Slot<Vec<EventHandler>>,
        pub(crate) signal: Option<AbortSignalState>,
        /// The slots of an interface of another specification that inherits from `EventTarget`
        /// (HTML's `MessagePort`).
        pub(crate) extension: Option<Box<dyn super::Extension>>,
    }
}

impl EventTarget {
    pub(crate) fn new(signal: Option<AbortSignalState>) -> Self {
        Self {
            listeners: Slot::new(Vec::new()),
            handlers: Slot::new(Vec::new()),
            signal,
            extension: None,
        }
    }

    /// The state of an object whose interface (of another specification) inherits from
    /// `EventTarget` and keeps `slots` here.
    pub(crate) fn new_extended(slots: impl super::Extension) -> Self {
        Self {
            listeners: Slot::new(Vec::new()),
            handlers: Slot::new(Vec::new()),
            signal: None,
            extension: Some(Box::new(slots)),
        }
    }

    /// Whether some listener for `event_type` is registered.
    pub(crate) fn has_listeners_for(&self, event_type: &JsString) -> bool {
        self.listeners
            .borrow()
            .iter()
            .any(|l| &l.event_type == event_type)
    }
}

/// Runs `f` on the event target data of `object`, if it is an `EventTarget` (a short borrow:
/// `f` must not call into JS).
pub(crate) fn with_target<R>(object: &Object, f: impl FnOnce(&EventTarget) -> R) -> Option<R> {
    let target = object.downcast_ref::<EventTarget>()?;
    Some(f(&target))
}

/// Whether `value` is an `EventTarget` object (including `AbortSignal`s).
pub fn is_event_target(value: &Value) -> bool {
    value.as_object().is_some_and(|o| o.is::<EventTarget>())
}

traced! {
    /// <https://dom.spec.whatwg.org/#concept-event-listener>
    pub(crate) struct Listener {
        event_type: JsString,
        callback: ListenerCallback,
        capture: bool,
        passive: bool,
        once: bool,
        removed: Cell<bool>,
    }
}

traced! {
    /// A listener's callback: a script object (`EventListener` callback interface), or the event
    /// handler processing algorithm of the target's event handler for the listener's type.
    enum ListenerCallback {
        Object(Object),
        EventHandler,
    }
}

impl ListenerCallback {
    fn same(&self, other: &Self) -> bool {
        match (self, other) {
            (Self::Object(a), Self::Object(b)) => Object::equals(a, b),
            (Self::EventHandler, Self::EventHandler) => true,
            _ => false,
        }
    }
}

traced! {
    /// <https://html.spec.whatwg.org/#event-handlers>: keyed by the event type (the handler's name
    /// without `on`).
    struct EventHandler {
        event_type: JsString,
        value: Option<Object>,
        listener: Option<Shared<Listener>>,
    }
}

pub(super) fn build_interface(ctx: &mut Cx) -> StandardConstructor {
    let mut iface = InterfaceObject::new(ctx, INTERFACE, 0, construct);
    iface
        .members()
        .operation("addEventListener", 2, add_event_listener_op)
        .operation("removeEventListener", 2, remove_event_listener_op)
        .operation("dispatchEvent", 1, dispatch_event_op);
    iface.build(None, None)
}

/// `new EventTarget()`
fn construct(new_target: &Value, _: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    webidl::require_new(new_target, INTERFACE)?;
    let proto = webidl::prototype_from_new_target(
        new_target,
        |ctx| prototype(Iface::EventTarget, ctx),
        ctx,
    )?;
    Ok(Object::from_proto_and_data(proto, EventTarget::new(None)).into())
}

/// The `this` of an `EventTarget` operation: WebIDL takes the realm's global object when it is
/// null or undefined (a bare `addEventListener(...)` call on a window), then brand-checks.
fn this_target(this: &Value, ctx: &Cx) -> JsResult<Object> {
    if this.is_null_or_undefined() {
        return Ok(webidl::this::<EventTarget>(&engine::global_object(ctx).into())?.upcast());
    }
    Ok(webidl::this::<EventTarget>(this)?.upcast())
}

impl webidl::Interface for EventTarget {
    const NAME: &'static str = INTERFACE;
}

/// Converts an `EventListener?` argument: `null`/`undefined` is null, any other object is kept,
/// primitives throw.
fn convert_callback(value: &Value, member: &str) -> JsResult<Option<Object>> {
    if value.is_null_or_undefined() {
        return Ok(None);
    }
    value.as_object().map(Some).ok_or_else(|| {
        engine::throw_type_error(format!(
            "Failed to execute '{member}' on 'EventTarget': parameter 2 is not of type 'Object'"
        ))
    })
}

/// <https://dom.spec.whatwg.org/#concept-flatten-options>, for
/// `(EventListenerOptions or boolean)`.
fn flatten_options(options: &Value, ctx: &mut Cx) -> JsResult<bool> {
    if options.is_null_or_undefined() {
        return Ok(false);
    }
    match options.as_object() {
        Some(dict) => Ok(dict.get(js_string!("capture"), ctx)?.to_boolean()),
        None => Ok(options.to_boolean()),
    }
}

/// The result of <https://dom.spec.whatwg.org/#event-flatten-more>.
struct FlatOptions {
    capture: bool,
    passive: Option<bool>,
    once: bool,
    signal: Option<Object>,
}

/// <https://dom.spec.whatwg.org/#event-flatten-more>, for
/// `(AddEventListenerOptions or boolean)`: dictionary members are read in WebIDL order
/// (`capture`, then `once`, `passive`, `signal`).
fn flatten_more_options(options: &Value, ctx: &mut Cx) -> JsResult<FlatOptions> {
    let mut flat = FlatOptions {
        capture: false,
        passive: None,
        once: false,
        signal: None,
    };
    if options.is_null_or_undefined() {
        return Ok(flat);
    }
    let Some(dict) = options.as_object() else {
        flat.capture = options.to_boolean();
        return Ok(flat);
    };
    flat.capture = dict.get(js_string!("capture"), ctx)?.to_boolean();
    flat.once = dict.get(js_string!("once"), ctx)?.to_boolean();
    let passive = dict.get(js_string!("passive"), ctx)?;
    if !passive.is_undefined() {
        flat.passive = Some(passive.to_boolean());
    }
    let signal = dict.get(js_string!("signal"), ctx)?;
    if !signal.is_undefined() {
        match signal.as_object().filter(abort::is_signal_object) {
            Some(signal) => flat.signal = Some(signal),
            None => {
                return Err(engine::throw_type_error(
                    "Failed to execute 'addEventListener' on 'EventTarget': member signal is not of type 'AbortSignal'",
                ))
            }
        }
    }
    Ok(flat)
}

/// `addEventListener(type, callback, options = {})`
fn add_event_listener_op(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let target = this_target(this, ctx)?;
    webidl::require_args(args, 2, INTERFACE, "addEventListener")?;
    let event_type = args[0].to_string(ctx)?;
    let callback = convert_callback(&args[1], "addEventListener")?;
    let options = flatten_more_options(&webidl::arg(args, 2), ctx)?;
    if let Some(signal) = &options.signal {
        if abort::signal_is_aborted(signal) {
            return Ok(Value::undefined());
        }
    }
    let Some(callback) = callback else {
        return Ok(Value::undefined());
    };
    let listener = Shared::new(Listener {
        event_type,
        callback: ListenerCallback::Object(callback),
        capture: options.capture,
        // The default passive value is false for targets that are not nodes.
        passive: options.passive.unwrap_or(false),
        once: options.once,
        removed: Cell::new(false),
    });
    add_event_listener(&target, listener, options.signal.as_ref());
    Ok(Value::undefined())
}

/// <https://dom.spec.whatwg.org/#add-an-event-listener> (steps after the callback and signal
/// checks).
fn add_event_listener(target: &Object, listener: Shared<Listener>, signal: Option<&Object>) {
    with_target(target, |t| {
        let mut listeners = t.listeners.borrow_mut();
        let duplicate = listeners.iter().any(|l| {
            l.event_type == listener.event_type
                && l.callback.same(&listener.callback)
                && l.capture == listener.capture
        });
        if !duplicate {
            listeners.push(listener.clone());
        }
    });
    if let Some(signal) = signal {
        abort::add_remove_listener_algorithm(signal, target.clone(), listener);
    }
}

/// <https://dom.spec.whatwg.org/#remove-an-event-listener>
pub(crate) fn remove_event_listener(target: &Object, listener: &Shared<Listener>) {
    listener.removed.set(true);
    with_target(target, |t| {
        t.listeners
            .borrow_mut()
            .retain(|l| !Shared::ptr_eq(l, listener));
    });
}

/// `removeEventListener(type, callback, options = {})`
fn remove_event_listener_op(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let target = this_target(this, ctx)?;
    webidl::require_args(args, 2, INTERFACE, "removeEventListener")?;
    let event_type = args[0].to_string(ctx)?;
    let callback = convert_callback(&args[1], "removeEventListener")?;
    let capture = flatten_options(&webidl::arg(args, 2), ctx)?;
    let Some(callback) = callback else {
        return Ok(Value::undefined());
    };
    let callback = ListenerCallback::Object(callback);
    let found = with_target(&target, |t| {
        t.listeners
            .borrow()
            .iter()
            .find(|l| {
                l.event_type == event_type && l.callback.same(&callback) && l.capture == capture
            })
            .cloned()
    })
    .flatten();
    if let Some(listener) = found {
        remove_event_listener(&target, &listener);
    }
    Ok(Value::undefined())
}

/// `dispatchEvent(event)`
fn dispatch_event_op(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let target = this_target(this, ctx)?;
    webidl::require_args(args, 1, INTERFACE, "dispatchEvent")?;
    let Some(event) = args[0]
        .as_object()
        .filter(|o| o.is::<super::event::Event>())
    else {
        return Err(engine::throw_type_error(
            "Failed to execute 'dispatchEvent' on 'EventTarget': parameter 1 is not of type 'Event'",
        ));
    };
    let invalid = with_event(&event, |e| {
        if e.has(flags::DISPATCH) || !e.has(flags::INITIALIZED) {
            true
        } else {
            e.unset(flags::TRUSTED);
            false
        }
    })
    .unwrap_or(true);
    if invalid {
        return Err(invalid_state_error(ctx)?);
    }
    Ok(dispatch(&target, &event, ctx)?.into())
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    Capturing,
    Bubbling,
}

/// Dispatches `event` (e.g. from [`super::create_event`]) at `target`, as the DOM's "dispatch"
/// (<https://dom.spec.whatwg.org/#concept-event-dispatch>) does for a target without parent.
///
/// Exceptions thrown by listeners are reported ([`report_exception`]), not propagated; only
/// uncatchable engine errors (runtime limits) are returned. Returns false if the event was
/// canceled. Throws a TypeError if `target` is not an `EventTarget` or `event` not an `Event`,
/// and an "InvalidStateError" `DOMException` if the event is being dispatched or was not
/// initialized.
pub fn dispatch_event(target: &Object, event: &Object, ctx: &mut Cx) -> JsResult<bool> {
    if !target.is::<EventTarget>() {
        return Err(engine::throw_type_error(
            "dispatch target is not an EventTarget",
        ));
    }
    match with_event(event, |e| {
        e.has(flags::DISPATCH) || !e.has(flags::INITIALIZED)
    }) {
        None => Err(engine::throw_type_error("dispatched value is not an Event")),
        Some(true) => Err(invalid_state_error(ctx)?),
        Some(false) => dispatch(target, event, ctx),
    }
}

/// The "InvalidStateError" thrown when dispatching an event that cannot be dispatched.
fn invalid_state_error(ctx: &mut Cx) -> JsResult<crate::engine::JsError> {
    let exception = create_dom_exception(
        ctx,
        "The event is already being dispatched or was not initialized",
        "InvalidStateError",
    )?;
    Ok(crate::engine::throw_value(exception.into()))
}

/// <https://dom.spec.whatwg.org/#concept-event-dispatch> for a target without parent: the path
/// is the target alone, so listeners run at target (capturing ones first).
///
/// Exceptions thrown by listeners are reported ([`report_exception`]), not propagated; only
/// uncatchable engine errors (runtime limits) are returned, after the event's state is reset.
/// Returns false if the event was canceled.
///
/// `event` must be an initialized `Event` object that is not being dispatched.
pub(crate) fn dispatch(target: &Object, event: &Object, ctx: &mut Cx) -> JsResult<bool> {
    with_event(event, |e| e.set(flags::DISPATCH | flags::HAS_PATH));
    let mut result = Ok(());
    for phase in [Phase::Capturing, Phase::Bubbling] {
        with_event(event, |e| e.set_phase(phase::AT_TARGET));
        result = invoke(target, event, phase, ctx);
        if result.is_err() {
            break;
        }
    }
    let canceled = with_event(event, |e| {
        e.set_phase(phase::NONE);
        e.set_current_target(None);
        e.unset(
            flags::HAS_PATH
                | flags::DISPATCH
                | flags::STOP_PROPAGATION
                | flags::STOP_IMMEDIATE_PROPAGATION,
        );
        e.has(flags::CANCELED)
    })
    .unwrap_or(false);
    result.map(|()| !canceled)
}

/// <https://dom.spec.whatwg.org/#concept-event-listener-invoke>
fn invoke(target: &Object, event: &Object, phase: Phase, ctx: &mut Cx) -> JsResult<()> {
    let stopped = with_event(event, |e| {
        e.set_target(Some(target.clone()));
        if e.has(flags::STOP_PROPAGATION) {
            return true;
        }
        e.set_current_target(Some(target.clone()));
        false
    })
    .unwrap_or(true);
    if stopped {
        return Ok(());
    }
    let listeners = with_target(target, |t| t.listeners.borrow().clone()).unwrap_or_default();
    inner_invoke(target, event, &listeners, phase, ctx).map(drop)
}

/// <https://dom.spec.whatwg.org/#concept-event-listener-inner-invoke>
fn inner_invoke(
    target: &Object,
    event: &Object,
    listeners: &[Shared<Listener>],
    phase: Phase,
    ctx: &mut Cx,
) -> JsResult<bool> {
    let Some(event_type) = with_event(event, |e| e.event_type()) else {
        return Ok(false);
    };
    let mut found = false;
    for listener in listeners {
        if listener.removed.get() || listener.event_type != event_type {
            continue;
        }
        found = true;
        if (phase == Phase::Capturing) != listener.capture {
            continue;
        }
        if listener.once {
            remove_event_listener(target, listener);
        }
        if listener.passive {
            with_event(event, |e| e.set(flags::IN_PASSIVE_LISTENER));
        }
        let outcome = call_listener(target, event, listener, ctx);
        // Calling a user object's operation ends with "clean up after running script": a
        // microtask checkpoint once no script is running (a dispatch from a task).
        engine::clean_up_after_running_script(ctx);
        with_event(event, |e| e.unset(flags::IN_PASSIVE_LISTENER));
        if let Err(error) = outcome {
            if error.is_uncatchable() {
                return Err(error);
            }
            report_exception(ctx, error);
        }
        if with_event(event, |e| e.has(flags::STOP_IMMEDIATE_PROPAGATION)).unwrap_or(true) {
            break;
        }
    }
    Ok(found)
}

/// <https://webidl.spec.whatwg.org/#call-a-user-objects-operation> with `handleEvent`, or the
/// event handler processing algorithm.
fn call_listener(
    target: &Object,
    event: &Object,
    listener: &Listener,
    ctx: &mut Cx,
) -> JsResult<()> {
    let args = [Value::from(event.clone())];
    match &listener.callback {
        ListenerCallback::Object(callback) => {
            if callback.is_callable() {
                crate::engine::call_object(callback, &target.clone().into(), &args, ctx)?;
            } else {
                let handle_event = callback.get(js_string!("handleEvent"), ctx)?;
                let Some(handle_event) = handle_event.as_callable() else {
                    return Err(engine::throw_type_error(
                        "The listener's handleEvent property is not callable",
                    ));
                };
                crate::engine::call_object(&handle_event, &callback.clone().into(), &args, ctx)?;
            }
            Ok(())
        }
        ListenerCallback::EventHandler => {
            process_event_handler(target, event, &listener.event_type, &args, ctx)
        }
    }
}

/// <https://html.spec.whatwg.org/#the-event-handler-processing-algorithm>
fn process_event_handler(
    target: &Object,
    event: &Object,
    event_type: &JsString,
    args: &[Value],
    ctx: &mut Cx,
) -> JsResult<()> {
    let Some(callback) = event_handler_value(target, event_type) else {
        return Ok(());
    };
    // [LegacyTreatNonObjectAsNull]: a non-callable object is invoked as returning undefined.
    if !callback.is_callable() {
        return Ok(());
    }
    let result = crate::engine::call_object(&callback, &target.clone().into(), args, ctx)?;
    if result.as_boolean() == Some(false) {
        with_event(event, super::event::Event::set_canceled_flag);
    }
    Ok(())
}

/// <https://html.spec.whatwg.org/#getting-the-current-value-of-the-event-handler>
pub(crate) fn event_handler_value(target: &Object, event_type: &JsString) -> Option<Object> {
    with_target(target, |t| {
        t.handlers
            .borrow()
            .iter()
            .find(|h| &h.event_type == event_type)
            .and_then(|h| h.value.clone())
    })
    .flatten()
}

/// <https://html.spec.whatwg.org/#event-handler-idl-attributes> setter: `None` deactivates the
/// handler, `Some` sets its value and activates it (keeping its listener's position).
pub(crate) fn set_event_handler(target: &Object, event_type: JsString, value: Option<Object>) {
    let Some(value) = value else {
        // Deactivate an event handler.
        let listener = with_target(target, |t| {
            t.handlers
                .borrow_mut()
                .iter_mut()
                .find(|h| h.event_type == event_type)
                .and_then(|h| {
                    h.value = None;
                    h.listener.take()
                })
        })
        .flatten();
        if let Some(listener) = listener {
            remove_event_listener(target, &listener);
        }
        return;
    };
    // Set the value, then activate the event handler.
    let needs_listener = with_target(target, |t| {
        let mut handlers = t.handlers.borrow_mut();
        match handlers.iter_mut().find(|h| h.event_type == event_type) {
            Some(handler) => {
                handler.value = Some(value);
                handler.listener.is_none()
            }
            None => {
                handlers.push(EventHandler {
                    event_type: event_type.clone(),
                    value: Some(value),
                    listener: None,
                });
                true
            }
        }
    })
    .unwrap_or(false);
    if !needs_listener {
        return;
    }
    let listener = Shared::new(Listener {
        event_type: event_type.clone(),
        callback: ListenerCallback::EventHandler,
        capture: false,
        passive: false,
        once: false,
        removed: Cell::new(false),
    });
    add_event_listener(target, listener.clone(), None);
    with_target(target, |t| {
        if let Some(handler) = t
            .handlers
            .borrow_mut()
            .iter_mut()
            .find(|h| h.event_type == event_type)
        {
            handler.listener = Some(listener);
        }
    });
}
