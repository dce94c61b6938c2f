//! WebIDL's sequence and record conversions (<https://webidl.spec.whatwg.org/#es-sequence>,
//! <https://webidl.spec.whatwg.org/#es-record>) as QuickJS runs them, and a `partial
//! interface`'s static operations on the interface object registered here. As the Boa
//! backend's `webidl_sequences.rs` and `webidl_partial.rs`.

use super::webidl;
use super::{call, throw_type_error, Cx, JsResult, JsString, NativeFunctionPointer, Object, Value};
use crate::engine::webidl::{define_operation, to_usv_string, ClassInterface};

// ---------------------------------------------------------------------------------------------
// Sequences and records
// ---------------------------------------------------------------------------------------------

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
    let iterator = method.call(iterable.as_value(), &[], ctx)?;
    let Some(iterator) = iterator.as_object() else {
        return Err(throw_type_error("the iterator is not an object"));
    };
    let next = iterator.get("next", ctx)?;
    // 2. Initialize i to be 0.
    let mut sequence = Vec::new();
    // 3. Repeat:
    loop {
        // 1. Let next be ? IteratorStepValue(iteratorRecord).
        let result = call(&next, iterator.as_value(), &[], ctx)?;
        let Some(result) = result.as_object() else {
            return Err(throw_type_error("the iterator result is not an object"));
        };
        // 2. If next is done, then return the sequence of the values so far.
        if result.get("done", ctx)?.to_boolean() {
            return Ok(sequence);
        }
        let value = result.get("value", ctx)?;
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
        return Err(throw_type_error("a record must be an object"));
    };
    // 2. Let result be a new empty instance of record<K, V>.
    let mut result: Vec<(JsString, JsString)> = Vec::new();
    // 3. Let keys be ? O.[[OwnPropertyKeys]]().
    let keys = object.own_property_keys(ctx)?;
    // 4. For each key of keys:
    for key in keys {
        // 1. Let desc be ? O.[[GetOwnProperty]](key).
        // 2. If desc is not undefined and desc.[[Enumerable]] is true:
        if object.own_property_enumerable(key.clone(), ctx)? != Some(true) {
            continue;
        }
        // 1. Let typedKey be key converted to an IDL value of type K (a symbol throws).
        let key_value = key.to_value(ctx);
        let typed_key = to_usv_string(&key_value, ctx)?;
        // 2. Let value be ? Get(O, key).
        let value = object.get(key, ctx)?;
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

// ---------------------------------------------------------------------------------------------
// Strings
// ---------------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------------
// Operations added later
// ---------------------------------------------------------------------------------------------

/// Defines a static operation (writable, enumerable, configurable) named `name` on `T`'s
/// interface object of the current realm.
pub fn define_static_operation<T: ClassInterface>(
    name: &str,
    length: usize,
    f: NativeFunctionPointer,
    ctx: &mut Cx,
) -> JsResult<()> {
    let constructor = webidl::registered::<T>(ctx)?.constructor;
    define_operation(&constructor, name, length, f, ctx)
}
