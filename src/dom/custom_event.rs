//! `CustomEvent` (<https://dom.spec.whatwg.org/#interface-customevent>): an `Event` with a
//! `detail`, kept in the event's extension slot.

use crate::engine::webidl::{self, InterfaceObject};
use crate::engine::{self, Cx, JsResult, Object, Slot, StandardConstructor, Value};

use super::event::{flags, new_event_object_with, with_event};

const INTERFACE: &str = "CustomEvent";

traced! {
    /// A `CustomEvent`'s slots: its `detail` (changed by `initCustomEvent()`).
    struct CustomEventSlots {
        detail: Slot<Value>,
    }
}

traced! {
    data;
    /// The per-realm `CustomEvent` interface object.
    struct CustomEventRealm {
        custom_event: StandardConstructor,
    }
}

/// Builds `CustomEvent` (inheriting from `event`), defines it on the global object and keeps
/// it in the realm.
pub(super) fn register(event: &StandardConstructor, ctx: &mut Cx) -> JsResult<()> {
    let mut iface = InterfaceObject::new(ctx, INTERFACE, 1, construct);
    iface
        .members()
        .attribute("detail", get_detail, None)
        .operation("initCustomEvent", 1, init_custom_event);
    let custom_event = iface.build(Some(event.prototype()), Some(event.constructor()));
    webidl::define_global(INTERFACE, &custom_event, ctx)?;
    engine::set_realm_data(ctx, CustomEventRealm { custom_event });
    Ok(())
}

fn custom_event_prototype(ctx: &mut Cx) -> JsResult<Object> {
    engine::with_realm_data::<CustomEventRealm, Object>(ctx, |r| r.custom_event.prototype())
        .ok_or_else(|| engine::throw_type_error("CustomEvent is not registered in this realm"))
}

/// `new CustomEvent(type, eventInitDict = {})`
fn construct(new_target: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    webidl::require_new(new_target, INTERFACE)?;
    webidl::require_args(args, 1, INTERFACE, "constructor")?;
    let event_type = args[0].to_string(ctx)?;
    let init = webidl::arg(args, 1);
    // CustomEventInit : EventInit: the inherited members first, then `any detail = null`.
    let event_init = super::convert_event_init(&init, ctx)?;
    let dict = webidl::dictionary(&init, "The CustomEvent init")?;
    let detail = webidl::member(dict.as_ref(), "detail", ctx)?;
    let detail = if detail.is_undefined() {
        Value::null()
    } else {
        detail
    };
    let proto = webidl::prototype_from_new_target(new_target, custom_event_prototype, ctx)?;
    let slots = CustomEventSlots {
        detail: Slot::new(detail),
    };
    let event = new_event_object_with(proto, event_type, &event_init, Some(Box::new(slots)), ctx)?;
    Ok(event.into())
}

/// The brand check of `CustomEvent`'s members, then `f` on the slots.
fn with_custom<R>(this: &Value, f: impl FnOnce(&CustomEventSlots) -> R) -> JsResult<R> {
    let implements = |o: &Object| {
        with_event(o, |e| {
            super::extension_of::<CustomEventSlots>(&e.extension).is_some()
        })
        .unwrap_or(false)
    };
    let event = webidl::this_implementing(this, INTERFACE, implements)?;
    with_event(&event, |e| {
        super::extension_of::<CustomEventSlots>(&e.extension).map(f)
    })
    .flatten()
    .ok_or_else(|| engine::throw_type_error("not a CustomEvent"))
}

/// <https://dom.spec.whatwg.org/#dom-customevent-detail>
fn get_detail(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    with_custom(this, |c| c.detail.borrow().clone())
}

/// <https://dom.spec.whatwg.org/#dom-customevent-initcustomevent>
fn init_custom_event(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    with_custom(this, |_| ())?;
    // Arguments, in order: `DOMString type`, `optional boolean bubbles = false`,
    // `optional boolean cancelable = false`, `optional any detail = null`.
    webidl::require_args(args, 1, INTERFACE, "initCustomEvent")?;
    let event_type = args[0].to_string(ctx)?;
    let bubbles = webidl::arg(args, 1).to_boolean();
    let cancelable = webidl::arg(args, 2).to_boolean();
    let detail = match args.get(3) {
        Some(v) if !v.is_undefined() => v.clone(),
        _ => Value::null(),
    };
    let event = webidl::this_implementing(this, INTERFACE, |_| true)?;
    with_event(&event, |e| {
        // 1. If this's dispatch flag is set, then return.
        if e.has(flags::DISPATCH) {
            return;
        }
        // 2. Initialize this with type, bubbles, and cancelable.
        e.initialize(event_type, bubbles, cancelable);
        // 3. Set this's detail attribute to detail.
        if let Some(slots) = super::extension_of::<CustomEventSlots>(&e.extension) {
            *slots.detail.borrow_mut() = detail;
        }
    });
    Ok(Value::undefined())
}
