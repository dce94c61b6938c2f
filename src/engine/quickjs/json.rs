//! `%JSON.parse%` and `%JSON.stringify%` as the realm had them before script ran (captured with
//! the realm's intrinsics, see `buffer::INTRINSICS`): what the Fetch Standard's "parse JSON
//! from bytes" and "serialize a JavaScript value to JSON bytes" call, so a patched `JSON`
//! never changes what a body does.

use super::buffer::call_intrinsic;
use super::core::q;
use super::intrinsics::Intrinsic;
use super::*;

/// Remembers the current realm's `JSON.parse` and `JSON.stringify`: nothing to do on QuickJS,
/// where every realm captures them when it is set up, before any script runs.
pub fn remember_json_intrinsics(ctx: &mut Cx) {
    let _ = ctx;
}

/// `? Call(%JSON.parse%, undefined, « text »)`: a `SyntaxError` for text that is not JSON.
pub fn json_parse(text: JsString, ctx: &mut Cx) -> JsResult<Value> {
    let text = text.try_to_value_in(ctx)?;
    call_intrinsic(ctx, Intrinsic::JSONParse, &Value::undefined(), &[text])
}

/// `? Call(%JSON.stringify%, undefined, « value »)`: `None` when the result is `undefined`.
pub fn json_stringify(value: Value, ctx: &mut Cx) -> JsResult<Option<JsString>> {
    let result = call_intrinsic(ctx, Intrinsic::JSONStringify, &Value::undefined(), &[value])?;
    // SAFETY: `JS_IsString` reads the tag field only (it counts a rope as a string too).
    let is_string = unsafe { q::JS_IsString(result.raw()) };
    Ok(is_string.then(|| JsString::from_string_value(&result)))
}
