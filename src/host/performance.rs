//! `performance` (High Resolution Time, <https://w3c.github.io/hr-time/>): `now()`,
//! `timeOrigin` and `toJSON()` on a `Performance` object, measured from the moment the host
//! globals were installed (the global object's time origin).

use std::time::{Instant, SystemTime, UNIX_EPOCH};

use boa_engine::{
    js_string,
    native_function::NativeFunction,
    object::{FunctionObjectBuilder, JsObject, ObjectInitializer},
    property::Attribute,
    symbol::JsSymbol,
    Context, JsResult, JsValue,
};
use boa_gc::{Finalize, Trace};

/// The time origin: a monotonic instant, and the same moment as milliseconds since the Unix
/// epoch (`timeOrigin`).
#[derive(Debug, Clone, Trace, Finalize)]
struct TimeOrigin {
    instant: Instant,
    unix_ms: f64,
}

/// <https://w3c.github.io/hr-time/#dfn-coarsen-time>: the host is treated as cross-origin
/// isolated, so times are coarsened to 5 microseconds.
fn coarsen(ms: f64) -> f64 {
    const RESOLUTION_MS: f64 = 0.005;
    (ms / RESOLUTION_MS).floor() * RESOLUTION_MS
}

/// Installs `performance` on the global object.
pub(super) fn register(ctx: &mut Context) -> JsResult<()> {
    let origin = TimeOrigin {
        instant: Instant::now(),
        unix_ms: SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs_f64() * 1000.0)
            .unwrap_or(0.0),
    };
    let realm = ctx.realm().clone();
    // <https://w3c.github.io/hr-time/#dom-performance-now>: the current high resolution time
    // relative to the time origin.
    let now = NativeFunction::from_copy_closure_with_captures(
        |_, _, origin: &TimeOrigin, _| {
            let elapsed = origin.instant.elapsed().as_secs_f64() * 1000.0;
            Ok(JsValue::from(coarsen(elapsed)))
        },
        origin.clone(),
    );
    let now = FunctionObjectBuilder::new(&realm, now)
        .name(js_string!("now"))
        .length(0)
        .build();
    // <https://w3c.github.io/hr-time/#dom-performance-timeorigin>
    let time_origin = NativeFunction::from_copy_closure_with_captures(
        |_, _, origin: &TimeOrigin, _| Ok(JsValue::from(origin.unix_ms)),
        origin.clone(),
    );
    let time_origin = FunctionObjectBuilder::new(&realm, time_origin)
        .name(js_string!("get timeOrigin"))
        .length(0)
        .build();
    // <https://w3c.github.io/hr-time/#dom-performance-tojson>: the default toJSON steps.
    let to_json = NativeFunction::from_copy_closure_with_captures(
        |_, _, origin: &TimeOrigin, ctx| {
            let json = ObjectInitializer::new(ctx)
                .property(js_string!("timeOrigin"), origin.unix_ms, Attribute::all())
                .build();
            Ok(json.into())
        },
        origin,
    );
    let to_json = FunctionObjectBuilder::new(&realm, to_json)
        .name(js_string!("toJSON"))
        .length(0)
        .build();

    // Operations and attributes live on the prototype, as WebIDL puts them.
    let prototype: JsObject = ObjectInitializer::new(ctx)
        .property(js_string!("now"), now, Attribute::all())
        .property(js_string!("toJSON"), to_json, Attribute::all())
        .accessor(
            js_string!("timeOrigin"),
            Some(time_origin),
            None,
            Attribute::ENUMERABLE | Attribute::CONFIGURABLE,
        )
        .property(
            JsSymbol::to_string_tag(),
            js_string!("Performance"),
            Attribute::CONFIGURABLE,
        )
        .build();
    let performance = JsObject::with_null_proto();
    performance.set_prototype(Some(prototype));
    // A [Replaceable] attribute of the global in HR-Time; a writable data property here.
    ctx.register_global_property(
        js_string!("performance"),
        performance,
        Attribute::WRITABLE | Attribute::ENUMERABLE | Attribute::CONFIGURABLE,
    )
}
