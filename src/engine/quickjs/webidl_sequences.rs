//! WebIDL's sequence and record conversions for string members
//! (<https://webidl.spec.whatwg.org/#es-sequence>, <https://webidl.spec.whatwg.org/#es-record>),
//! the `@@iterator` lookup a union with a sequence member starts with, the USVString
//! conversion, and the operations defined after an interface or the global object exists (a
//! `partial interface`'s static operations, the global object's operations). As the Boa
//! backend's `webidl_sequences.rs`, `webidl_strings.rs` and `webidl_partial.rs`.

use super::webidl::{self, ClassInterface};
use super::{
    call, global_object, throw_type_error, Cx, JsResult, JsString, JsSymbol, NativeFunctionPointer,
    Object, PropertyDescriptor, Value,
};

// ---------------------------------------------------------------------------------------------
// Sequences and records
// ---------------------------------------------------------------------------------------------

/// `? GetMethod(object, @@iterator)`: the method, `None` when it is undefined or null, a
/// TypeError when it is not callable.
pub fn iterator_method(object: &Object, ctx: &mut Cx) -> JsResult<Option<Object>> {
    let method = object.get(JsSymbol::iterator(), ctx)?;
    if method.is_null_or_undefined() {
        return Ok(None);
    }
    match method.as_callable() {
        Some(method) => Ok(Some(method)),
        None => Err(throw_type_error(
            "the value's @@iterator property is not a function",
        )),
    }
}

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

/// <https://webidl.spec.whatwg.org/#es-sequence> for `sequence<USVString>`.
fn to_usv_string_sequence(value: &Value, ctx: &mut Cx) -> JsResult<Vec<JsString>> {
    // 1. If V is not an Object, throw a TypeError.
    let Some(object) = value.as_object() else {
        return Err(throw_type_error(
            "a sequence member is not an iterable object",
        ));
    };
    // 2. Let method be ? GetMethod(V, @@iterator).
    // 3. If method is undefined, throw a TypeError.
    let Some(method) = iterator_method(&object, ctx)? else {
        return Err(throw_type_error(
            "a sequence member is not an iterable object",
        ));
    };
    // 4. Return the result of creating a sequence from V and method.
    create_sequence_from_iterable(&object, &method, to_usv_string, ctx)
}

/// The `sequence<sequence<USVString>>` member of a union, from `iterable` and the `@@iterator`
/// `method` the union conversion found.
pub fn usv_string_sequences_from_iterable(
    iterable: &Object,
    method: &Object,
    ctx: &mut Cx,
) -> JsResult<Vec<Vec<JsString>>> {
    create_sequence_from_iterable(iterable, method, to_usv_string_sequence, ctx)
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

/// <https://webidl.spec.whatwg.org/#es-USVString>: ToString, then every lone surrogate becomes
/// U+FFFD (<https://webidl.spec.whatwg.org/#dfn-obtain-unicode>). May run script (ToString).
pub fn to_usv_string(value: &Value, ctx: &mut Cx) -> JsResult<JsString> {
    // 1. Let string be the result of converting V to a DOMString.
    let string = value.to_string(ctx)?;
    // 2. Return the result of converting string to a sequence of scalar values.
    if char::decode_utf16(string.iter()).all(|c| c.is_ok()) {
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

/// Defines a regular operation of the current realm's global object, replacing any earlier
/// property of that name.
pub fn define_global_operation(
    name: &str,
    length: usize,
    f: NativeFunctionPointer,
    ctx: &mut Cx,
) -> JsResult<()> {
    let global = global_object(ctx);
    define_operation(&global, name, length, f, ctx)
}

/// An operation's property (a built-in function `name` of `length`; writable, enumerable,
/// configurable) on `target`.
fn define_operation(
    target: &Object,
    name: &str,
    length: usize,
    f: NativeFunctionPointer,
    ctx: &mut Cx,
) -> JsResult<()> {
    let function = webidl::function(ctx, name, length, f);
    target.define_property_or_throw(
        name,
        PropertyDescriptor::builder()
            .value(function)
            .writable(true)
            .enumerable(true)
            .configurable(true),
        ctx,
    )?;
    Ok(())
}
