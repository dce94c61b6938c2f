//! WebIDL's string conversions beyond `DOMString` (which is `Value::to_string`).

use super::{Cx, JsResult, JsString, Value};

/// <https://webidl.spec.whatwg.org/#es-USVString>: ToString, then every lone surrogate
/// (a code unit of U+D800 to U+DFFF that is not half of a pair) becomes U+FFFD
/// (<https://webidl.spec.whatwg.org/#dfn-obtain-unicode>). May run script (ToString).
pub fn to_usv_string(value: &Value, ctx: &mut Cx) -> JsResult<JsString> {
    // 1. Let string be the result of converting V to a DOMString.
    let string = value.to_string(ctx)?;
    // 2. Return an IDL USVString value that is the result of converting string to a sequence
    //    of scalar values.
    let well_formed = char::decode_utf16(string.iter()).all(|c| c.is_ok());
    if well_formed {
        return Ok(string);
    }
    let units: Vec<u16> = char::decode_utf16(string.iter())
        .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
        .flat_map(|c| {
            let mut buf = [0u16; 2];
            let len = c.encode_utf16(&mut buf).len();
            buf.into_iter().take(len)
        })
        .collect();
    Ok(JsString::from(&units[..]))
}
