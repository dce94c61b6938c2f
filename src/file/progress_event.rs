//! `ProgressEvent` (<https://xhr.spec.whatwg.org/#interface-progressevent>), the event
//! `FileReader` fires (<https://w3c.github.io/FileAPI/#fire-a-progress-event>).

use crate::dom;
use crate::engine::webidl::{self, InterfaceObject};
use crate::engine::{Cx, JsResult, JsString, Object, StandardConstructor, Value};

use super::{prototype, Iface};

const INTERFACE: &str = "ProgressEvent";

traced! {
    /// A `ProgressEvent`'s attributes (kept in the event's extension slot).
    struct ProgressEventSlots {
        #[unsafe_ignore_trace]
        length_computable: bool,
        #[unsafe_ignore_trace]
        loaded: f64,
        #[unsafe_ignore_trace]
        total: f64,
    }
}

pub(super) fn build_interface(event: &StandardConstructor, ctx: &mut Cx) -> StandardConstructor {
    let mut iface = InterfaceObject::new(ctx, INTERFACE, 1, construct);
    iface
        .members()
        .attribute("lengthComputable", get_length_computable, None)
        .attribute("loaded", get_loaded, None)
        .attribute("total", get_total, None);
    iface.build(Some(event.prototype()), Some(event.constructor()))
}

/// `new ProgressEvent(type, eventInitDict = {})`
fn construct(new_target: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    webidl::require_new(new_target, INTERFACE)?;
    webidl::require_args(args, 1, INTERFACE, "constructor")?;
    let event_type = args[0].to_string(ctx)?;
    let init = webidl::arg(args, 1);
    // ProgressEventInit : EventInit: the inherited members first, then lengthComputable,
    // loaded, total (lexicographic order).
    let event_init = dom::convert_event_init(&init, ctx)?;
    let dict = webidl::dictionary(&init, "The ProgressEvent init")?;
    let length_computable = webidl::member(dict.as_ref(), "lengthComputable", ctx)?.to_boolean();
    // `double loaded = 0`, `double total = 0` (doubles since whatwg/xhr#394).
    let loaded = double_member(
        &webidl::member(dict.as_ref(), "loaded", ctx)?,
        "loaded",
        ctx,
    )?;
    let total = double_member(&webidl::member(dict.as_ref(), "total", ctx)?, "total", ctx)?;
    let proto = webidl::prototype_from_new_target(
        new_target,
        |ctx| prototype(Iface::ProgressEvent, ctx),
        ctx,
    )?;
    let slots = ProgressEventSlots {
        length_computable,
        loaded,
        total,
    };
    let event =
        dom::new_event_object_with(proto, event_type, &event_init, Some(Box::new(slots)), ctx)?;
    Ok(event.into())
}

/// A `double` dictionary member with default 0 (<https://webidl.spec.whatwg.org/#es-double>):
/// ToNumber, and a TypeError for NaN or an infinity.
fn double_member(value: &Value, member: &str, ctx: &mut Cx) -> JsResult<f64> {
    if value.is_undefined() {
        return Ok(0.0);
    }
    let x = value.to_number(ctx)?;
    if !x.is_finite() {
        return Err(crate::engine::throw_type_error(format!(
            "Failed to construct 'ProgressEvent': member {member} is not a finite number"
        )));
    }
    Ok(x)
}

/// <https://w3c.github.io/FileAPI/#fire-a-progress-event>: a trusted `ProgressEvent` named `e`
/// (not bubbling, not cancelable) with `loaded`/`total` as given (`lengthComputable` when
/// `total` is known), ready to dispatch.
pub(super) fn new_progress_event(
    ctx: &mut Cx,
    e: &str,
    loaded: f64,
    total: Option<f64>,
) -> JsResult<Object> {
    let proto = prototype(Iface::ProgressEvent, ctx)?;
    let slots = ProgressEventSlots {
        length_computable: total.is_some(),
        loaded,
        total: total.unwrap_or(0.0),
    };
    dom::new_event_object_with(
        proto,
        JsString::from(e),
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

/// The brand check of `ProgressEvent`'s attributes, then `f` on the slots.
fn with_progress<R>(this: &Value, f: impl FnOnce(&ProgressEventSlots) -> R) -> JsResult<R> {
    let implements = |o: &Object| {
        dom::with_event(o, |e| {
            dom::extension_of::<ProgressEventSlots>(&e.extension).is_some()
        })
        .unwrap_or(false)
    };
    let event = webidl::this_implementing(this, INTERFACE, implements)?;
    dom::with_event(&event, |e| {
        dom::extension_of::<ProgressEventSlots>(&e.extension).map(f)
    })
    .flatten()
    .ok_or_else(|| crate::engine::throw_type_error("not a ProgressEvent"))
}

fn get_length_computable(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    with_progress(this, |p| p.length_computable.into())
}

fn get_loaded(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    with_progress(this, |p| p.loaded.into())
}

fn get_total(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    with_progress(this, |p| p.total.into())
}
