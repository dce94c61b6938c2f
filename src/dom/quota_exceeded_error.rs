//! `QuotaExceededError` (<https://webidl.spec.whatwg.org/#quotaexceedederror>), the
//! `DOMException`-derived interface that carries a quota and the amount requested. Its objects
//! are `DOMException` objects (the same internal state, so `DOMException`'s members and brand
//! checks apply) whose extra slots are set.

use crate::engine::webidl::{self, InterfaceObject};
use crate::engine::{self, js_string, Cx, JsResult, JsString, Object, StandardConstructor, Value};

use super::exception::{new_quota_exceeded_error_with, quota_exceeded_error_slots, Quota};
use super::{prototype, Iface};

/// A `QuotaExceededErrorOptions` member: a `double`, present unless `undefined`.
fn double_member(dict: Option<&Object>, key: &str, ctx: &mut Cx) -> JsResult<Option<f64>> {
    let value = webidl::member(dict, key, ctx)?;
    if value.is_undefined() {
        return Ok(None);
    }
    let what = format!("The QuotaExceededError options' {key}");
    webidl::to_double(&value, &what, ctx).map(Some)
}

const INTERFACE: &str = "QuotaExceededError";

/// Builds `QuotaExceededError`, inheriting from `dom_exception` (its prototype's [[Prototype]]
/// is `DOMException.prototype`, its interface object's is `DOMException`).
pub(super) fn build_interface(
    dom_exception: &StandardConstructor,
    ctx: &mut Cx,
) -> StandardConstructor {
    let mut iface = InterfaceObject::new(ctx, INTERFACE, 0, construct);
    iface
        .members()
        .attribute("quota", get_quota, None)
        .attribute("requested", get_requested, None);
    iface.build(
        Some(dom_exception.prototype()),
        Some(dom_exception.constructor()),
    )
}

fn quota_exceeded_error_prototype(ctx: &mut Cx) -> JsResult<Object> {
    prototype(Iface::QuotaExceededError, ctx)
}

/// A new `QuotaExceededError` of the current realm with `message`, `quota` and `requested`
/// (what "throw a QuotaExceededError" makes, with both null unless a spec gives them, and
/// what deserialization makes).
pub(crate) fn new_quota_exceeded_error(
    message: JsString,
    quota: Quota,
    ctx: &mut Cx,
) -> JsResult<Object> {
    let proto = quota_exceeded_error_prototype(ctx)?;
    new_quota_exceeded_error_with(proto, message, quota, ctx)
}

/// `new QuotaExceededError(message = "", options = {})`:
/// <https://webidl.spec.whatwg.org/#dom-quotaexceedederror-quotaexceedederror>
fn construct(new_target: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    webidl::require_new(new_target, INTERFACE)?;
    // The arguments' conversions, in order: the message, then the dictionary's members in
    // lexicographic order.
    let message = match args.first() {
        Some(v) if !v.is_undefined() => v.to_string(ctx)?,
        _ => js_string!(),
    };
    let options = webidl::arg(args, 1);
    let dict = webidl::dictionary(&options, "The QuotaExceededError options")?;
    let quota = double_member(dict.as_ref(), "quota", ctx)?;
    let requested = double_member(dict.as_ref(), "requested", ctx)?;
    // 1. Set this's name to "QuotaExceededError". 2. Set this's message to message.
    // 3. If options["quota"] is present: if it is less than 0, throw a RangeError; set this's
    //    quota to it.
    if quota.is_some_and(|q| q < 0.0) {
        return Err(engine::throw_range_error(
            "The QuotaExceededError options' quota must not be negative",
        ));
    }
    // 4. The same for options["requested"] and this's requested.
    if requested.is_some_and(|r| r < 0.0) {
        return Err(engine::throw_range_error(
            "The QuotaExceededError options' requested must not be negative",
        ));
    }
    // 5. If this's quota and requested are both not null and requested is less than quota,
    //    throw a RangeError.
    if let (Some(q), Some(r)) = (quota, requested) {
        if r < q {
            return Err(engine::throw_range_error(
                "The QuotaExceededError options' requested must not be less than its quota",
            ));
        }
    }
    let proto = webidl::prototype_from_new_target(new_target, quota_exceeded_error_prototype, ctx)?;
    let exception = new_quota_exceeded_error_with(proto, message, Quota { quota, requested }, ctx)?;
    Ok(exception.into())
}

/// The brand check of `QuotaExceededError`'s members, then its slots.
fn this_slots(this: &Value) -> JsResult<Quota> {
    quota_exceeded_error_slots(this).ok_or_else(|| webidl::does_not_implement(INTERFACE))
}

fn nullable(x: Option<f64>) -> Value {
    x.map_or_else(Value::null, Value::from)
}

/// The `quota` getter: this's quota.
fn get_quota(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    Ok(nullable(this_slots(this)?.quota))
}

/// The `requested` getter: this's requested.
fn get_requested(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    Ok(nullable(this_slots(this)?.requested))
}
