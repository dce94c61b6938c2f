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
///
/// AD-HOC: a JSON text is parsed by a parser of our own (`json_text`), which builds the value
/// `%JSON.parse%` would (without a reviver `JSON.parse` runs no script, and its value is
/// determined by the text): Boa 0.22's `JSON.parse` compiles the text as a script and runs it,
/// at about 8 MB/s, and rejects a lone surrogate escape. A text that parser does not take
/// (not JSON, or nested deeper than it goes) is given to `%JSON.parse%`, whose SyntaxError it
/// is.
pub fn json_parse(text: JsString, ctx: &mut Cx) -> JsResult<Value> {
    let parse = intrinsic(ctx, |i| &i.parse)?;
    if let Some(result) = super::json_text::parse(&text.0, ctx) {
        return result.map(Value::from).map_err(JsError::from);
    }
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
