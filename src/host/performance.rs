//! `performance` (High Resolution Time, <https://w3c.github.io/hr-time/>): `now()`,
//! `timeOrigin` and `toJSON()` on a `Performance` object, measured from the moment the host
//! globals were installed (the global object's time origin). Written on the engine API alone.

use std::time::{Instant, SystemTime, UNIX_EPOCH};

use crate::engine::{
    self, webidl, Cx, JsResult, JsString, JsSymbol, Object, PropertyDescriptor, Value,
};

traced! {
    data;
    /// The realm's time origin: a monotonic instant, and the same moment as milliseconds since
    /// the Unix epoch (`timeOrigin`).
    struct TimeOrigin {
        // Not traced: an `Instant` holds no `Gc` nor JS value, so skipping it leaves nothing
        // unmarked (the derive's `Trace` stays exact on either engine).
        #[unsafe_ignore_trace]
        instant: Instant,
        unix_ms: f64,
    }
}

/// <https://w3c.github.io/hr-time/#dfn-coarsen-time>: the host is treated as cross-origin
/// isolated, so times are coarsened to 5 microseconds.
fn coarsen(ms: f64) -> f64 {
    const RESOLUTION_MS: f64 = 0.005;
    (ms / RESOLUTION_MS).floor() * RESOLUTION_MS
}

fn origin(ctx: &Cx) -> (Instant, f64) {
    engine::with_realm_data::<TimeOrigin, _>(ctx, |o| (o.instant, o.unix_ms))
        .unwrap_or_else(|| (Instant::now(), 0.0))
}

/// <https://w3c.github.io/hr-time/#dom-performance-now>: the current high resolution time
/// relative to the time origin.
fn now(_: &Value, _: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let (instant, _) = origin(ctx);
    Ok(Value::from(coarsen(
        instant.elapsed().as_secs_f64() * 1000.0,
    )))
}

/// <https://w3c.github.io/hr-time/#dom-performance-timeorigin>
fn time_origin(_: &Value, _: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    Ok(Value::from(origin(ctx).1))
}

/// <https://w3c.github.io/hr-time/#dom-performance-tojson>: the default toJSON steps.
fn to_json(_: &Value, _: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let json = engine::clone::new_plain_object(ctx);
    json.create_data_property_or_throw("timeOrigin", origin(ctx).1, ctx)?;
    Ok(json.into())
}

fn property(value: impl Into<Value>) -> PropertyDescriptor {
    PropertyDescriptor::builder()
        .value(value)
        .writable(true)
        .enumerable(true)
        .configurable(true)
        .build()
}

/// Installs `performance` on the current realm's global object (its time origin is now).
pub(super) fn register(ctx: &mut Cx) -> JsResult<()> {
    engine::set_realm_data(
        ctx,
        TimeOrigin {
            instant: Instant::now(),
            unix_ms: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map(|d| d.as_secs_f64() * 1000.0)
                .unwrap_or(0.0),
        },
    );
    // Operations and attributes live on the prototype, as WebIDL puts them.
    let prototype = engine::clone::new_plain_object(ctx);
    let now = webidl::function(ctx, "now", 0, now);
    prototype.define_property_or_throw("now", property(now), ctx)?;
    let to_json = webidl::function(ctx, "toJSON", 0, to_json);
    prototype.define_property_or_throw("toJSON", property(to_json), ctx)?;
    let getter = webidl::function(ctx, "get timeOrigin", 0, time_origin);
    prototype.define_property_or_throw(
        "timeOrigin",
        PropertyDescriptor::builder()
            .get(getter)
            .enumerable(true)
            .configurable(true),
        ctx,
    )?;
    prototype.define_property_or_throw(
        JsSymbol::to_string_tag(),
        PropertyDescriptor::builder()
            .value(JsString::from("Performance"))
            .writable(false)
            .enumerable(false)
            .configurable(true),
        ctx,
    )?;
    let performance = Object::with_null_proto(ctx);
    performance.set_prototype(Some(prototype));
    // A [Replaceable] attribute of the global in HR-Time; a writable data property here.
    engine::global_object(ctx).define_property_or_throw(
        "performance",
        property(performance),
        ctx,
    )?;
    Ok(())
}
