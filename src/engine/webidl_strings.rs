//! WebIDL's string conversions beyond `DOMString` (which is `Value::to_string`):
//! <https://webidl.spec.whatwg.org/#es-USVString>.

use super::{Cx, JsResult, JsString, Value};

/// <https://webidl.spec.whatwg.org/#es-USVString>: ToString, then every lone surrogate
/// replaced by U+FFFD (the string's scalar values).
pub fn to_usv_string(value: &Value, ctx: &mut Cx) -> JsResult<JsString> {
    // 1. Let string be the result of converting V to a DOMString.
    let string = value.to_string(ctx)?;
    // 2. Return an IDL USVString value that is the result of converting string to a sequence
    //    of scalar values.
    let units = string.to_vec();
    if !units.iter().any(|&u| (0xD800..=0xDFFF).contains(&u)) {
        return Ok(string);
    }
    let scalars: Vec<u16> = char::decode_utf16(units.iter().copied())
        .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
        .flat_map(|c| {
            let mut buffer = [0u16; 2];
            c.encode_utf16(&mut buffer).to_vec()
        })
        .collect();
    Ok(JsString::from(scalars.as_slice()))
}
