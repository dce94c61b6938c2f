//! WebIDL's sequence and record conversions for string members
//! (<https://webidl.spec.whatwg.org/#es-sequence>, <https://webidl.spec.whatwg.org/#es-record>),
//! and the `@@iterator` lookup a union with a sequence member starts with
//! (<https://webidl.spec.whatwg.org/#es-union>).

use boa_engine::{builtins::object::OrdinaryObject, property::PropertyKey as BoaKey, JsValue};

use super::{Cx, JsResult, JsString, Object, Value};
use crate::engine;
use crate::engine::webidl::to_usv_string;

/// <https://webidl.spec.whatwg.org/#create-sequence-from-iterable>: the values of an iterable,
/// each converted by `convert` (no iterator is closed when a conversion throws: WebIDL closes
/// none).
pub fn create_sequence_from_iterable<T>(
    iterable: &Object,
    method: &Object,
    mut convert: impl FnMut(&Value, &mut Cx) -> JsResult<T>,
    ctx: &mut Cx,
) -> JsResult<Vec<T>> {
    // 1. Let iteratorRecord be ? GetIteratorFromMethod(iterable, method).
    let iterator = method.call(&Value::from(iterable.clone()), &[], ctx)?;
    let Some(iterator) = iterator.as_object() else {
        return Err(engine::throw_type_error("the iterator is not an object"));
    };
    let next = iterator.get(super::js_string!("next"), ctx)?;
    // 2. Initialize i to be 0.
    let mut sequence = Vec::new();
    // 3. Repeat:
    loop {
        // 1. Let next be ? IteratorStepValue(iteratorRecord).
        let result = engine::call(&next, &Value::from(iterator.clone()), &[], ctx)?;
        let Some(result) = result.as_object() else {
            return Err(engine::throw_type_error(
                "the iterator result is not an object",
            ));
        };
        // 2. If next is done, then return an IDL sequence value of type sequence<T> of length
        //    i, where the value of the element at index j is Sj.
        if result.get(super::js_string!("done"), ctx)?.to_boolean() {
            return Ok(sequence);
        }
        let value = result.get(super::js_string!("value"), ctx)?;
        // 3. Initialize Si to the result of converting next to an IDL value of type T.
        sequence.push(convert(&value, ctx)?);
        // 4. Set i to i + 1.
    }
}

/// <https://webidl.spec.whatwg.org/#es-record> for `record<USVString, USVString>`: the
/// enumerable own properties, in [[OwnPropertyKeys]] order (a key seen twice, as a proxy can
/// report, keeps its first place and takes the last value).
pub fn to_usv_string_record(value: &Value, ctx: &mut Cx) -> JsResult<Vec<(JsString, JsString)>> {
    // 1. If V is not an Object, throw a TypeError.
    let Some(object) = value.as_object() else {
        return Err(engine::throw_type_error("a record must be an object"));
    };
    // 2. Let result be a new empty instance of record<K, V>.
    let mut result: Vec<(JsString, JsString)> = Vec::new();
    // 3. Let keys be ? O.[[OwnPropertyKeys]]().
    let keys = object.own_property_keys(ctx)?;
    // 4. For each key of keys:
    for key in keys {
        let key = BoaKey::from(key);
        let key_value: JsValue = match &key {
            BoaKey::String(s) => s.clone().into(),
            BoaKey::Index(i) => boa_engine::JsString::from(i.get().to_string()).into(),
            BoaKey::Symbol(s) => s.clone().into(),
        };
        // 1. Let desc be ? O.[[GetOwnProperty]](key).
        // 2. If desc is not undefined and desc.[[Enumerable]] is true:
        let enumerable = OrdinaryObject::property_is_enumerable(
            &JsValue::from(boa_engine::JsObject::from(object.clone())),
            std::slice::from_ref(&key_value),
            ctx,
        )?;
        if !enumerable.to_boolean() {
            continue;
        }
        // 1. Let typedKey be key converted to an IDL value of type K.
        let typed_key = to_usv_string(&Value::from(key_value), ctx)?;
        // 2. Let value be ? Get(O, key).
        let value = object.get(super::PropertyKey::from(key), ctx)?;
        // 3. Let typedValue be value converted to an IDL value of type V.
        let typed_value = to_usv_string(&value, ctx)?;
        // 4. Set result[typedKey] to typedValue.
        match result.iter_mut().find(|(k, _)| *k == typed_key) {
            Some(entry) => entry.1 = typed_value,
            None => result.push((typed_key, typed_value)),
        }
    }
    // 5. Return result.
    Ok(result)
}
