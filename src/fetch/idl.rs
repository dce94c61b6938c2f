//! The WebIDL conversions of the Fetch interfaces: `ByteString`, `HeadersInit`
//! (`sequence<sequence<ByteString>> or record<ByteString, ByteString>`), and the iterable
//! protocol steps they use.

use crate::engine::{self, webidl, Cx, JsResult, JsString, Object, Value};

/// <https://webidl.spec.whatwg.org/#es-ByteString>
pub(crate) fn to_byte_string(value: &Value, ctx: &mut Cx) -> JsResult<Vec<u8>> {
    // 1. Let x be ? ToString(V).
    let x = value.to_string(ctx)?;
    byte_string_from(&x)
}

/// Steps 2–3 of the `ByteString` conversion on a string already converted.
pub(crate) fn byte_string_from(x: &JsString) -> JsResult<Vec<u8>> {
    // 2. If the value of any element of x is greater than 255, then throw a TypeError.
    // 3. Return an IDL ByteString value whose length is the length of x, and where the value
    //    of each element is the value of the corresponding element of x.
    x.iter()
        .map(|unit| u8::try_from(unit).ok())
        .collect::<Option<Vec<u8>>>()
        .ok_or_else(|| {
            engine::throw_type_error("The string is not a ByteString (a code unit is above 0xFF)")
        })
}

/// A `HeadersInit` value: the pairs of a sequence (each checked for size by "fill") or the
/// entries of a record.
pub(crate) enum HeadersInit {
    Sequence(Vec<Vec<Vec<u8>>>),
    Record(Vec<(Vec<u8>, Vec<u8>)>),
}

impl HeadersInit {
    /// The items "fill" iterates over.
    pub(crate) fn into_items(self) -> Vec<Vec<Vec<u8>>> {
        match self {
            HeadersInit::Sequence(items) => items,
            HeadersInit::Record(entries) => entries.into_iter().map(|(k, v)| vec![k, v]).collect(),
        }
    }
}

/// Converts a JS value to `(sequence<sequence<ByteString>> or record<ByteString, ByteString>)`
/// (<https://webidl.spec.whatwg.org/#es-union>, step 12: an object with an `@@iterator` method
/// is the sequence; any other object the record).
pub(crate) fn to_headers_init(value: &Value, ctx: &mut Cx) -> JsResult<HeadersInit> {
    let Some(object) = value.as_object() else {
        return Err(engine::throw_type_error(
            "The headers init must be a sequence of pairs or a record",
        ));
    };
    // 12.1. Let method be ? GetMethod(V, %Symbol.iterator%).
    if let Some(method) = webidl::iterator_method(&object, ctx)? {
        // 12.2. If method is not undefined, return the result of creating a sequence of that
        //       type from V and method.
        let items = webidl::create_sequence_from_iterable(
            &object,
            &method,
            |item, ctx| {
                // Each item: sequence<ByteString>.
                let Some(item_object) = item.as_object() else {
                    return Err(engine::throw_type_error(
                        "A header init item must be a sequence",
                    ));
                };
                let Some(method) = webidl::iterator_method(&item_object, ctx)? else {
                    return Err(engine::throw_type_error(
                        "A header init item must be iterable",
                    ));
                };
                webidl::create_sequence_from_iterable(&item_object, &method, to_byte_string, ctx)
            },
            ctx,
        )?;
        return Ok(HeadersInit::Sequence(items));
    }
    // Otherwise the record (<https://webidl.spec.whatwg.org/#es-record>).
    Ok(HeadersInit::Record(to_byte_string_record(&object, ctx)?))
}

/// <https://webidl.spec.whatwg.org/#es-record> for `record<ByteString, ByteString>`.
fn to_byte_string_record(object: &Object, ctx: &mut Cx) -> JsResult<Vec<(Vec<u8>, Vec<u8>)>> {
    // 2. Let result be a new empty instance of record<K, V>.
    let mut result: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
    // 4. Let keys be ? O.[[OwnPropertyKeys]]().
    let keys = object.own_property_keys(ctx)?;
    // 5. For each key of keys:
    for key in keys {
        // 5.1. Let desc be ? O.[[GetOwnProperty]](key).
        // 5.2. If desc is not undefined and desc.[[Enumerable]] is true:
        if object.own_property_enumerable(key.clone(), ctx)? != Some(true) {
            continue;
        }
        // 5.2.1. Let typedKey be key converted to an IDL value of type K.
        let typed_key = to_byte_string(&Value::from(key.clone()), ctx)?;
        // 5.2.2. Let value be ? Get(O, key).
        let value = object.get(key, ctx)?;
        // 5.2.3. Let typedValue be value converted to an IDL value of type V.
        let typed_value = to_byte_string(&value, ctx)?;
        // 5.2.4. Set result[typedKey] to typedValue (typedKey is already there only after a
        //        proxy returned a key twice: the value is replaced in place).
        match result.iter_mut().find(|(k, _)| *k == typed_key) {
            Some(entry) => entry.1 = typed_value,
            None => result.push((typed_key, typed_value)),
        }
    }
    // 6. Return result.
    Ok(result)
}

/// <https://webidl.spec.whatwg.org/#es-unsigned-short> (no extended attribute): ToNumber, then
/// the integer part modulo 2^16.
pub(crate) fn to_unsigned_short(value: &Value, ctx: &mut Cx) -> JsResult<u16> {
    let x = value.to_number(ctx)?;
    if !x.is_finite() || x == 0.0 {
        return Ok(0);
    }
    let x = x.trunc().rem_euclid(65_536.0);
    // invariant: x is an integer in [0, 65535].
    Ok(x as u16)
}
