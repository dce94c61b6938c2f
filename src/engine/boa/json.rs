//! `%JSON.parse%` and `%JSON.stringify%` as the realm had them before script ran: what the
//! Fetch Standard's "parse JSON from bytes" and "serialize a JavaScript value to JSON bytes"
//! call, so a patched `JSON` never changes what a body does.

use boa_engine::{JsObject, JsValue};
use boa_gc::{Finalize, Trace};

use super::*;

/// The realm's original `JSON.parse` and `JSON.stringify`.
#[derive(Trace, Finalize, boa_engine::JsData)]
struct JsonIntrinsics {
    parse: JsValue,
    stringify: JsValue,
}

/// Remembers the current realm's `JSON.parse` and `JSON.stringify` (from `register`, before
/// script runs). Reads own data properties: runs no script.
pub fn remember_json_intrinsics(ctx: &mut Cx) {
    let json: JsObject = ctx.intrinsics().objects().json();
    let own = |name| {
        json.borrow()
            .properties()
            .get(&name)
            .and_then(|d| d.value().cloned())
            .unwrap_or_default()
    };
    let parse = own(boa_engine::js_string!("parse").into());
    let stringify = own(boa_engine::js_string!("stringify").into());
    ctx.realm()
        .host_defined_mut()
        .insert(JsonIntrinsics { parse, stringify });
}

fn intrinsic(ctx: &Cx, which: fn(&JsonIntrinsics) -> &JsValue) -> JsResult<JsObject> {
    ctx.realm()
        .host_defined()
        .get::<JsonIntrinsics>()
        .and_then(|i| which(i).as_callable())
        .ok_or_else(|| throw_type_error("JSON is not available in this realm"))
}

/// `? Call(%JSON.parse%, undefined, « text »)`: a `SyntaxError` for text that is not JSON.
/// (`json()` parses a JSON text itself first: `json_text`.)
pub fn json_parse(text: JsString, ctx: &mut Cx) -> JsResult<Value> {
    let parse = intrinsic(ctx, |i| &i.parse)?;
    parse
        .call(
            &JsValue::undefined(),
            &[JsValue::from(boa_engine::JsString::from(text))],
            ctx,
        )
        .map(Value::from)
        .map_err(JsError::from)
}

/// `? Call(%JSON.stringify%, undefined, « value »)`: `None` when the result is `undefined`.
pub fn json_stringify(value: Value, ctx: &mut Cx) -> JsResult<Option<JsString>> {
    let stringify = intrinsic(ctx, |i| &i.stringify)?;
    let result = stringify
        .call(&JsValue::undefined(), &[value.into()], ctx)
        .map_err(JsError::from)?;
    Ok(result.as_string().map(|s| JsString::from(s.clone())))
}

/// A member name of a JSON text, made once for every member that has it (`json_text`).
pub struct JsonName(boa_engine::property::PropertyKey);

impl JsonName {
    /// The name `text`.
    pub fn from_str(text: &str, _ctx: &mut Cx) -> JsResult<Self> {
        Ok(Self(boa_engine::JsString::from(text).into()))
    }

    /// The name of the code units `units` (a lone surrogate included).
    pub fn from_utf16(units: &[u16], _ctx: &mut Cx) -> JsResult<Self> {
        Ok(Self(boa_engine::JsString::from(units).into()))
    }

    /// The same name.
    pub fn duplicate(&self) -> Self {
        Self(self.0.clone())
    }
}

/// A new object of a JSON text's parse: `OrdinaryObjectCreate(%Object.prototype%)`, of the
/// realm's shared shapes (as an object literal's: members add shape transitions, not a table
/// of their own).
pub fn json_object(ctx: &mut Cx) -> JsResult<Object> {
    let object = boa_engine::object::ObjectInitializer::with_native_data(
        boa_engine::builtins::object::OrdinaryObject,
        ctx,
    )
    .build();
    Ok(Object::from(object))
}

/// `CreateDataProperty(object, name, value)` on an object of [`json_object`]: on this new,
/// extensible ordinary object, whose every property is such a data property, it adds the
/// property, or for a repeated name replaces the value in place. Inserted as is (no
/// descriptor validation to run).
pub fn json_member(object: &Object, name: &JsonName, value: Value, _ctx: &mut Cx) -> JsResult<()> {
    object.js().insert_property(
        name.0.clone(),
        boa_engine::property::PropertyDescriptor::builder()
            .value(value.into_js())
            .writable(true)
            .enumerable(true)
            .configurable(true),
    );
    Ok(())
}
