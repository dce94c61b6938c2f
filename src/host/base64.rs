//! `atob()` and `btoa()` (<https://html.spec.whatwg.org/multipage/webappapis.html#atob>), with
//! the spec's "InvalidCharacterError" `DOMException` (they replace boa_runtime's, which throw a
//! string), over Infra's forgiving-base64 in `crate::fetch::infra`.

use crate::engine::webidl;
use crate::engine::{self, Cx, JsError, JsResult, JsString, Value};
use crate::fetch::infra::{forgiving_base64_decode, forgiving_base64_encode};

/// Installs `atob` and `btoa` on the global object, replacing any earlier ones.
pub(super) fn register(ctx: &mut Cx) -> JsResult<()> {
    for (name, f) in [
        ("atob", atob as engine::NativeFunctionPointer),
        ("btoa", btoa),
    ] {
        // Operations of WindowOrWorkerGlobalScope.
        webidl::define_global_operation(name, 1, f, ctx)?;
    }
    Ok(())
}

/// An "InvalidCharacterError" `DOMException`, thrown.
fn invalid_character_error(ctx: &mut Cx, message: &str) -> JsResult<JsError> {
    let exception = crate::dom::create_dom_exception(ctx, message, "InvalidCharacterError")?;
    Ok(engine::throw_value(exception.into()))
}

/// <https://html.spec.whatwg.org/multipage/webappapis.html#dom-btoa>
fn btoa(_: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    webidl::require_args(args, 1, "Window", "btoa")?;
    // `DOMString data`.
    let data = args[0].to_string(ctx)?;
    // 1. If data contains any code point greater than U+00FF, throw an
    //    "InvalidCharacterError" DOMException.
    // 2. Let byteSequence be the isomorphic encoding of data.
    let Some(bytes) = data
        .iter()
        .map(|unit| u8::try_from(unit).ok())
        .collect::<Option<Vec<u8>>>()
    else {
        return Err(invalid_character_error(
            ctx,
            "Failed to execute 'btoa': the string contains characters outside of the Latin1 range",
        )?);
    };
    // 3. Return the result of running forgiving-base64 encode on byteSequence.
    Ok(JsString::from(forgiving_base64_encode(&bytes)).into())
}

/// <https://html.spec.whatwg.org/multipage/webappapis.html#dom-atob>
fn atob(_: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    webidl::require_args(args, 1, "Window", "atob")?;
    // `DOMString data`.
    let data = args[0].to_string(ctx)?;
    // 1. Let decodedData be the result of running forgiving-base64 decode on data. (A code
    //    unit outside ASCII is never in the base64 alphabet or ASCII whitespace: failure.)
    let decoded = data
        .iter()
        .map(|unit| u8::try_from(unit).ok().filter(u8::is_ascii))
        .collect::<Option<Vec<u8>>>()
        .and_then(|ascii| forgiving_base64_decode(&ascii));
    // 2. If decodedData is failure, then throw an "InvalidCharacterError" DOMException.
    let Some(decoded) = decoded else {
        return Err(invalid_character_error(
            ctx,
            "Failed to execute 'atob': the string to be decoded is not correctly encoded",
        )?);
    };
    // 3. Return decodedData (isomorphic decoded: each byte a code unit of the same value).
    let units: Vec<u16> = decoded.into_iter().map(u16::from).collect();
    Ok(JsString::from(units.as_slice()).into())
}
