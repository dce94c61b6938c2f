//! `TextEncoder`: <https://encoding.spec.whatwg.org/#interface-textencoder>.

use crate::engine::{self, clone, js_string, webidl, Cx, JsResult, JsString, PropertyKey, Value};

traced! {
    data;
    /// <https://encoding.spec.whatwg.org/#textencoder>: it has no state (its encoder is
    /// UTF-8's, which keeps none).
    #[derive(Debug)]
    pub(crate) struct TextEncoder {}
}

impl webidl::ClassInterface for TextEncoder {
    const LENGTH: usize = 0;
    fn members(b: &mut webidl::InterfaceBuilder<'_, '_>) {
        // TextEncoderCommon
        b.attribute("encoding", get_encoding, None);
        b.operation("encode", 0, encode);
        b.operation("encodeInto", 2, encode_into);
    }

    /// <https://encoding.spec.whatwg.org/#dom-textencoder>: "The new TextEncoder() constructor
    /// steps are to do nothing."
    fn construct(_: &Value, _: &[Value], _: &mut Cx) -> JsResult<Self> {
        Ok(Self {})
    }
}

webidl::interface!(TextEncoder, "TextEncoder");

/// <https://encoding.spec.whatwg.org/#dom-textencoder-encoding>
fn get_encoding(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    webidl::this::<TextEncoder>(this)?;
    // Return "utf-8".
    Ok(js_string!("utf-8").into())
}

/// UTF-8's encoder handler for one scalar value: its bytes (it never returns error).
fn utf8_bytes(c: char, buf: &mut [u8; 4]) -> &[u8] {
    c.encode_utf8(buf).as_bytes()
}

/// <https://encoding.spec.whatwg.org/#dom-textencoder-encode>
fn encode(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    webidl::this::<TextEncoder>(this)?;
    // WebIDL: `optional USVString input = ""`.
    // AD-HOC: converted to a DOMString only: the UTF-8 encoding below replaces each lone
    // surrogate with U+FFFD, which is what the USVString conversion would have done first.
    // (Its code units are read where the engine keeps them, not copied into a `JsString`.)
    let input = webidl::arg(args, 0);
    let input = if input.is_undefined() {
        Value::from(JsString::from(""))
    } else {
        input
    };
    // 1. Convert input to an I/O queue of scalar values.
    // 2. Let output be the I/O queue of bytes « end-of-queue ».
    // 3. While true:
    //    1. Let item be the result of reading from input.
    //    2. Let result be the result of processing an item with item, an instance of the
    //       UTF-8 encoder, input, output, and "fatal".
    //    3. Assert: result is not an error.
    //    4. If result is finished, then convert output into a byte sequence and return a
    //       Uint8Array object wrapping an ArrayBuffer containing output.
    //    (The whole string at once: the streams' encoder with nothing pending is this loop, a
    //    high surrogate left pending at the end being a lone one, U+FFFD.)
    let pending = std::cell::Cell::new(None);
    super::encoder::with_encoded_buffer(|output| {
        input.with_code_units(ctx, |units| {
            super::encoder::encode_code_units_into(&pending, units, output);
        })?;
        super::encoder::flush_pending(&pending, output);
        engine::new_uint8_array(output.bytes(), ctx)
    })
}

/// <https://encoding.spec.whatwg.org/#dom-textencoder-encodeinto>
fn encode_into(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    webidl::this::<TextEncoder>(this)?;
    // WebIDL: `USVString source`, then `[AllowShared] Uint8Array destination`.
    webidl::require_args(args, 2, "TextEncoder", "encodeInto")?;
    let source = webidl::to_usv_string(&webidl::arg(args, 0), ctx)?;
    let destination = webidl::arg(args, 1);
    let (read, written) =
        engine::with_uint8_array_bytes_mut(&destination, "The destination", ctx, |bytes| {
            let (read, written) = encode_into_bytes(&source, bytes);
            ((read, written), written)
        })?;
    // 7. Return «[ "read" → read, "written" → written ]» (a TextEncoderEncodeIntoResult
    //    dictionary: a new object with its members in order).
    let result = clone::new_plain_object(ctx);
    // Counts of UTF-16 code units and of bytes: far below 2^53.
    #[allow(clippy::cast_precision_loss)]
    let (read, written) = (read as f64, written as f64);
    result.create_data_property_or_throw(PropertyKey::from("read"), read, ctx)?;
    result.create_data_property_or_throw(PropertyKey::from("written"), written, ctx)?;
    Ok(result.into())
}

/// The loop of <https://encoding.spec.whatwg.org/#dom-textencoder-encodeinto> (steps 1–6):
/// encodes the scalar values of `source` (a USVString) into `destination` until one does not
/// fit, and returns (read, written): the UTF-16 code units taken and the bytes written.
pub(crate) fn encode_into_bytes(source: &JsString, destination: &mut [u8]) -> (usize, usize) {
    // 1. Let read be 0.
    let mut read = 0;
    // 2. Let written be 0.
    let mut written = 0;
    // 3. Let encoder be an instance of the UTF-8 encoder.
    // 4. Let unused be the I/O queue of scalar values « end-of-queue ».
    // 5. Convert source to an I/O queue of scalar values.
    let mut buf = [0u8; 4];
    // 6. While true:
    //    1. Let item be the result of reading from source.
    for item in char::decode_utf16(source.iter()) {
        let item = item.unwrap_or(char::REPLACEMENT_CHARACTER);
        //    2. Let result be the result of running encoder's handler on unused and item.
        let result = utf8_bytes(item, &mut buf);
        //    4.1. If destination's byte length − written is greater than or equal to the
        //         number of bytes in result, then:
        let Some(target) = destination.get_mut(written..written + result.len()) else {
            //    4.2. Otherwise, break.
            break;
        };
        //         1. If item is greater than U+FFFF, then increment read by 2.
        //         2. Otherwise, increment read by 1.
        read += item.len_utf16();
        //         3. Write the bytes in result into destination, with startingOffset set to
        //            written.
        target.copy_from_slice(result);
        //         4. Increment written by the number of bytes in result.
        written += result.len();
    }
    //    3. If result is finished, then break.
    (read, written)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn into(source: &str, len: usize) -> (usize, usize, Vec<u8>) {
        let mut dest = vec![0u8; len];
        let (read, written) = encode_into_bytes(&JsString::from(source), &mut dest);
        (read, written, dest)
    }

    #[test]
    fn encode_into_never_writes_a_partial_sequence() {
        assert_eq!(
            into("h\u{e9}llo", 8),
            (5, 6, vec![0x68, 0xC3, 0xA9, 0x6C, 0x6C, 0x6F, 0, 0])
        );
        // U+00E9 needs two bytes; one is left.
        assert_eq!(into("h\u{e9}", 2), (1, 1, vec![0x68, 0]));
        // A pair counts two code units.
        assert_eq!(
            into("\u{1F499}a", 5),
            (3, 5, vec![0xF0, 0x9F, 0x92, 0x99, 0x61])
        );
        assert_eq!(into("\u{1F499}", 3), (0, 0, vec![0, 0, 0]));
        assert_eq!(into("abc", 0), (0, 0, vec![]));
    }
}
