//! <https://dom.spec.whatwg.org/#interface-event>

use crate::engine;
use std::cell::Cell;

use crate::engine::webidl::{self, InterfaceObject};
use crate::engine::{
    js_string, Cx, JsFunction, JsResult, JsString, Object, PropertyDescriptor, Slot,
    StandardConstructor, Value,
};

use super::{prototype, with_realm, Iface};

const INTERFACE: &str = "Event";

/// Event flags (<https://dom.spec.whatwg.org/#stop-propagation-flag> and following), plus the
/// boolean attributes fixed at initialization.
pub(crate) mod flags {
    pub(crate) const STOP_PROPAGATION: u16 = 1 << 0;
    pub(crate) const STOP_IMMEDIATE_PROPAGATION: u16 = 1 << 1;
    pub(crate) const CANCELED: u16 = 1 << 2;
    pub(crate) const IN_PASSIVE_LISTENER: u16 = 1 << 3;
    pub(crate) const COMPOSED: u16 = 1 << 4;
    pub(crate) const INITIALIZED: u16 = 1 << 5;
    pub(crate) const DISPATCH: u16 = 1 << 6;
    pub(crate) const BUBBLES: u16 = 1 << 7;
    pub(crate) const CANCELABLE: u16 = 1 << 8;
    pub(crate) const TRUSTED: u16 = 1 << 9;
    /// The event's path is non-empty (set during dispatch).
    pub(crate) const HAS_PATH: u16 = 1 << 10;
}

/// The `eventPhase` values.
pub(crate) mod phase {
    pub(crate) const NONE: u16 = 0;
    pub(crate) const CAPTURING_PHASE: u16 = 1;
    pub(crate) const AT_TARGET: u16 = 2;
    pub(crate) const BUBBLING_PHASE: u16 = 3;
}

traced! {
    data;
    /// An `Event` object's internal state.
    pub(crate) struct Event {
        event_type: Slot<JsString>,
        target: Slot<Option<Object>>,
        current_target: Slot<Option<Object>>,
        phase: Cell<u16>,
        flags: Cell<u16>,
        time_stamp: f64,
        /// The slots of an interface of another specification that inherits from `Event` (HTML's
        /// `MessageEvent`).
        pub(crate) extension: Option<Box<dyn super::Extension>>,
    }
}

impl Event {
    pub(crate) fn event_type(&self) -> JsString {
        self.event_type.borrow().clone()
    }

    pub(crate) fn has(&self, flag: u16) -> bool {
        self.flags.get() & flag != 0
    }

    pub(crate) fn set(&self, flag: u16) {
        self.flags.set(self.flags.get() | flag);
    }

    pub(crate) fn unset(&self, flag: u16) {
        self.flags.set(self.flags.get() & !flag);
    }

    pub(crate) fn set_phase(&self, phase: u16) {
        self.phase.set(phase);
    }

    pub(crate) fn set_target(&self, target: Option<Object>) {
        *self.target.borrow_mut() = target;
    }

    pub(crate) fn set_current_target(&self, target: Option<Object>) {
        *self.current_target.borrow_mut() = target;
    }

    /// <https://dom.spec.whatwg.org/#set-the-canceled-flag>
    pub(crate) fn set_canceled_flag(&self) {
        if self.has(flags::CANCELABLE) && !self.has(flags::IN_PASSIVE_LISTENER) {
            self.set(flags::CANCELED);
        }
    }

    /// <https://dom.spec.whatwg.org/#concept-event-initialize>
    pub(super) fn initialize(&self, event_type: JsString, bubbles: bool, cancelable: bool) {
        use flags::*;
        let mut f = self.flags.get() | INITIALIZED;
        f &= !(STOP_PROPAGATION | STOP_IMMEDIATE_PROPAGATION | CANCELED | TRUSTED);
        f &= !(BUBBLES | CANCELABLE);
        if bubbles {
            f |= BUBBLES;
        }
        if cancelable {
            f |= CANCELABLE;
        }
        self.flags.set(f);
        *self.target.borrow_mut() = None;
        *self.event_type.borrow_mut() = event_type;
    }
}

/// Runs `f` on the event data of `object`, if it is an `Event` (a short borrow: `f` must not
/// call into JS).
pub(crate) fn with_event<R>(object: &Object, f: impl FnOnce(&Event) -> R) -> Option<R> {
    let event = object.downcast_ref::<Event>()?;
    Some(f(&event))
}

/// Whether `value` is an `Event` object.
pub fn is_event(value: &Value) -> bool {
    value.as_object().is_some_and(|o| o.is::<Event>())
}

/// The initial values of a new event.
pub(crate) struct EventInit {
    pub(crate) bubbles: bool,
    pub(crate) cancelable: bool,
    pub(crate) composed: bool,
    pub(crate) trusted: bool,
}

/// Creates an initialized event object with prototype `proto` (<https://dom.spec.whatwg.org/#inner-event-creation-steps>),
/// including its own `[LegacyUnforgeable]` `isTrusted` property.
pub(crate) fn new_event_object(
    proto: Object,
    event_type: JsString,
    init: &EventInit,
    ctx: &mut Cx,
) -> JsResult<Object> {
    new_event_object_with(proto, event_type, init, None, ctx)
}

/// [`new_event_object`] for an interface that inherits from `Event` and keeps its own slots in
/// the event (`MessageEvent`).
pub(crate) fn new_event_object_with(
    proto: Object,
    event_type: JsString,
    init: &EventInit,
    extension: Option<Box<dyn super::Extension>>,
    ctx: &mut Cx,
) -> JsResult<Object> {
    let (getter, time_stamp) = with_realm(ctx, |r| {
        let elapsed = engine::clock_nanos(ctx).saturating_sub(r.time_origin);
        // Coarsened to 100 µs, as HR-Time does for contexts that are not cross-origin isolated.
        let coarse = (elapsed / 100_000) as f64 / 10.0;
        (r.is_trusted_getter.clone(), coarse)
    })?;
    let mut f = flags::INITIALIZED;
    for (on, flag) in [
        (init.bubbles, flags::BUBBLES),
        (init.cancelable, flags::CANCELABLE),
        (init.composed, flags::COMPOSED),
        (init.trusted, flags::TRUSTED),
    ] {
        if on {
            f |= flag;
        }
    }
    let event = Object::from_proto_and_data(
        proto,
        Event {
            event_type: Slot::new(event_type),
            target: Slot::new(None),
            current_target: Slot::new(None),
            phase: Cell::new(phase::NONE),
            flags: Cell::new(f),
            time_stamp,
            extension,
        },
    );
    event.insert_property(
        js_string!("isTrusted"),
        PropertyDescriptor::builder()
            .get(getter)
            .set(Value::undefined())
            .enumerable(true)
            .configurable(false),
    );
    Ok(event)
}

/// Creates an `Event` of the given type in the current realm, as the DOM's "fire an event"
/// does: initialized, not bubbling, not cancelable, `isTrusted` true.
pub fn create_event(ctx: &mut Cx, event_type: &str) -> JsResult<Object> {
    let proto = prototype(Iface::Event, ctx)?;
    new_event_object(
        proto,
        JsString::from(event_type),
        &EventInit {
            bubbles: false,
            cancelable: false,
            composed: false,
            trusted: true,
        },
        ctx,
    )
}

/// The shared getter of the `[LegacyUnforgeable]` `isTrusted` attribute.
pub(super) fn is_trusted_getter(ctx: &mut Cx) -> JsFunction {
    webidl::function(ctx, "get isTrusted", 0, get_is_trusted)
}

pub(super) fn build_interface(ctx: &mut Cx) -> StandardConstructor {
    let mut iface = InterfaceObject::new(ctx, INTERFACE, 1, construct);
    iface
        .members()
        .attribute("type", get_type, None)
        .attribute("target", get_target, None)
        .attribute("srcElement", get_src_element, None)
        .attribute("currentTarget", get_current_target, None)
        .operation("composedPath", 0, composed_path)
        .constant("NONE", phase::NONE)
        .constant("CAPTURING_PHASE", phase::CAPTURING_PHASE)
        .constant("AT_TARGET", phase::AT_TARGET)
        .constant("BUBBLING_PHASE", phase::BUBBLING_PHASE)
        .attribute("eventPhase", get_event_phase, None)
        .operation("stopPropagation", 0, stop_propagation)
        .attribute("cancelBubble", get_cancel_bubble, Some(set_cancel_bubble))
        .operation("stopImmediatePropagation", 0, stop_immediate_propagation)
        .attribute("bubbles", get_bubbles, None)
        .attribute("cancelable", get_cancelable, None)
        .attribute("returnValue", get_return_value, Some(set_return_value))
        .operation("preventDefault", 0, prevent_default)
        .attribute("defaultPrevented", get_default_prevented, None)
        .attribute("composed", get_composed, None)
        .attribute("timeStamp", get_time_stamp, None)
        .operation("initEvent", 1, init_event);
    iface.build(None, None)
}

/// `new Event(type, eventInitDict = {})`
fn construct(new_target: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    webidl::require_new(new_target, INTERFACE)?;
    webidl::require_args(args, 1, INTERFACE, "constructor")?;
    let event_type = args[0].to_string(ctx)?;
    let init = convert_event_init(&webidl::arg(args, 1), ctx)?;
    let proto =
        webidl::prototype_from_new_target(new_target, |ctx| prototype(Iface::Event, ctx), ctx)?;
    Ok(new_event_object(proto, event_type, &init, ctx)?.into())
}

/// Converts an `EventInit` dictionary: members in lexicographic order.
pub(crate) fn convert_event_init(value: &Value, ctx: &mut Cx) -> JsResult<EventInit> {
    let untrusted = |bubbles, cancelable, composed| EventInit {
        bubbles,
        cancelable,
        composed,
        trusted: false,
    };
    if value.is_null_or_undefined() {
        return Ok(untrusted(false, false, false));
    }
    let Some(dict) = value.as_object() else {
        return Err(engine::throw_type_error(
            "Failed to construct 'Event': The provided value is not of type 'EventInit'",
        ));
    };
    let bubbles = dict.get(js_string!("bubbles"), ctx)?.to_boolean();
    let cancelable = dict.get(js_string!("cancelable"), ctx)?.to_boolean();
    let composed = dict.get(js_string!("composed"), ctx)?.to_boolean();
    Ok(untrusted(bubbles, cancelable, composed))
}

/// The brand check, then `f` on this's event data (a short borrow: `f` must not call into JS).
fn this_event<R>(this: &Value, f: impl FnOnce(&Event) -> R) -> JsResult<R> {
    Ok(f(webidl::this::<Event>(this)?.borrow().data()))
}

impl webidl::Interface for Event {
    const NAME: &'static str = INTERFACE;
}

fn get_type(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    this_event(this, |e| e.event_type().into())
}

fn get_target(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    this_event(this, |e| {
        e.target.borrow().clone().map_or(Value::null(), Into::into)
    })
}

fn get_src_element(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    this_event(this, |e| {
        e.target.borrow().clone().map_or(Value::null(), Into::into)
    })
}

fn get_current_target(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    this_event(this, |e| {
        e.current_target
            .borrow()
            .clone()
            .map_or(Value::null(), Into::into)
    })
}

/// <https://dom.spec.whatwg.org/#dom-event-composedpath>: with at-target-only dispatch, the
/// path is the current target while dispatching and empty otherwise.
fn composed_path(this: &Value, _: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let current = this_event(this, |e| {
        if e.has(flags::HAS_PATH) {
            e.current_target.borrow().clone()
        } else {
            None
        }
    })?;
    Ok(crate::engine::create_array_from_list(current.map(Value::from), ctx).into())
}

fn get_event_phase(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    this_event(this, |e| i32::from(e.phase.get()).into())
}

fn stop_propagation(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    this_event(this, |e| e.set(flags::STOP_PROPAGATION))?;
    Ok(Value::undefined())
}

fn get_cancel_bubble(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    this_event(this, |e| e.has(flags::STOP_PROPAGATION).into())
}

fn set_cancel_bubble(this: &Value, args: &[Value], _: &mut Cx) -> JsResult<Value> {
    webidl::require_args(args, 1, INTERFACE, "cancelBubble")?;
    let value = args[0].to_boolean();
    this_event(this, |e| {
        if value {
            e.set(flags::STOP_PROPAGATION);
        }
    })?;
    Ok(Value::undefined())
}

fn stop_immediate_propagation(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    this_event(this, |e| {
        e.set(flags::STOP_PROPAGATION | flags::STOP_IMMEDIATE_PROPAGATION);
    })?;
    Ok(Value::undefined())
}

fn get_bubbles(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    this_event(this, |e| e.has(flags::BUBBLES).into())
}

fn get_cancelable(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    this_event(this, |e| e.has(flags::CANCELABLE).into())
}

fn get_return_value(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    this_event(this, |e| (!e.has(flags::CANCELED)).into())
}

fn set_return_value(this: &Value, args: &[Value], _: &mut Cx) -> JsResult<Value> {
    webidl::require_args(args, 1, INTERFACE, "returnValue")?;
    let value = args[0].to_boolean();
    this_event(this, |e| {
        if !value {
            e.set_canceled_flag();
        }
    })?;
    Ok(Value::undefined())
}

fn prevent_default(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    this_event(this, Event::set_canceled_flag)?;
    Ok(Value::undefined())
}

fn get_default_prevented(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    this_event(this, |e| e.has(flags::CANCELED).into())
}

fn get_composed(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    this_event(this, |e| e.has(flags::COMPOSED).into())
}

fn get_is_trusted(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    this_event(this, |e| e.has(flags::TRUSTED).into())
}

fn get_time_stamp(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    this_event(this, |e| e.time_stamp.into())
}

/// <https://dom.spec.whatwg.org/#dom-event-initevent>
fn init_event(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    this_event(this, |_| ())?;
    webidl::require_args(args, 1, INTERFACE, "initEvent")?;
    let event_type = args[0].to_string(ctx)?;
    let bubbles = webidl::arg(args, 1).to_boolean();
    let cancelable = webidl::arg(args, 2).to_boolean();
    this_event(this, |e| {
        if !e.has(flags::DISPATCH) {
            e.initialize(event_type, bubbles, cancelable);
        }
    })?;
    Ok(Value::undefined())
}
