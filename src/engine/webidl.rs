//! WebIDL glue: the shapes of interface members, brand checks, and the conversions the Streams
//! Standard's IDL asks for. Algorithms never live here.
//!
//! <https://webidl.spec.whatwg.org/#es-interfaces>

use boa_engine::{
    class::ClassBuilder,
    native_function::{NativeFunction, NativeFunctionPointer},
    object::{FunctionObjectBuilder, JsObject},
    property::{Attribute, PropertyDescriptor},
    symbol::JsSymbol,
    Context, JsError, JsNativeError, JsResult, JsString, JsValue, NativeObject,
};

use crate::engine;

/// The property attributes WebIDL gives an interface object on the global:
/// `{ [[Writable]]: true, [[Enumerable]]: false, [[Configurable]]: true }`.
pub(crate) const INTERFACE_OBJECT: Attribute = Attribute::WRITABLE.union(Attribute::CONFIGURABLE);

/// Installs an interface object on the global, replacing an earlier registration of the same
/// class, so that registering twice in a realm is harmless.
pub(crate) fn register_interface<T: boa_engine::class::Class>(ctx: &mut Context) -> JsResult<()> {
    if ctx.has_global_class::<T>() {
        ctx.unregister_global_class::<T>()?;
    }
    ctx.register_global_class::<T>()
}

/// Builds a built-in function object with the given `name` and `length`.
pub(crate) fn function(
    ctx: &mut Context,
    name: &str,
    length: usize,
    f: NativeFunctionPointer,
) -> JsObject {
    let realm = ctx.realm().clone();
    FunctionObjectBuilder::new(&realm, NativeFunction::from_fn_ptr(f))
        .name(JsString::from(name))
        .length(length)
        .build()
        .into()
}

/// A regular operation on the interface prototype object:
/// <https://webidl.spec.whatwg.org/#es-operations> (writable, enumerable, configurable).
pub(crate) fn operation(
    class: &mut ClassBuilder<'_>,
    name: &str,
    length: usize,
    f: NativeFunctionPointer,
) {
    let func = function(class.context(), name, length, f);
    class.property_descriptor(
        JsString::from(name),
        PropertyDescriptor::builder()
            .value(func)
            .writable(true)
            .enumerable(true)
            .configurable(true),
    );
}

/// A static operation on the interface object.
pub(crate) fn static_operation(
    class: &mut ClassBuilder<'_>,
    name: &str,
    length: usize,
    f: NativeFunctionPointer,
) {
    let func = function(class.context(), name, length, f);
    class.static_property_descriptor(
        JsString::from(name),
        PropertyDescriptor::builder()
            .value(func)
            .writable(true)
            .enumerable(true)
            .configurable(true),
    );
}

/// A (readonly unless `setter` is given) regular attribute:
/// <https://webidl.spec.whatwg.org/#es-attributes> — an accessor property, enumerable and
/// configurable, whose getter is named `get <name>` (and setter `set <name>`).
pub(crate) fn attribute(
    class: &mut ClassBuilder<'_>,
    name: &str,
    getter: NativeFunctionPointer,
    setter: Option<NativeFunctionPointer>,
) {
    let get = function(class.context(), &format!("get {name}"), 0, getter);
    let set = setter.map(|s| function(class.context(), &format!("set {name}"), 1, s));
    let mut desc = PropertyDescriptor::builder()
        .get(get)
        .enumerable(true)
        .configurable(true);
    desc = match set {
        Some(set) => desc.set(set),
        None => desc.set(JsValue::undefined()),
    };
    class.property_descriptor(JsString::from(name), desc);
}

/// The `@@toStringTag` property of an interface prototype object:
/// <https://webidl.spec.whatwg.org/#es-interface-prototype-object>.
pub(crate) fn to_string_tag(class: &mut ClassBuilder<'_>, name: &str) {
    class.property(
        JsSymbol::to_string_tag(),
        JsString::from(name),
        Attribute::CONFIGURABLE,
    );
}

/// The brand check every operation and attribute starts with: `this` must implement the
/// interface, else a TypeError.
pub(crate) fn this_object<T: NativeObject>(this: &JsValue, interface: &str) -> JsResult<JsObject> {
    match this.as_object() {
        Some(o) if o.is::<T>() => Ok(o.clone()),
        _ => Err(JsNativeError::typ()
            .with_message(format!("'this' is not a {interface} object"))
            .into()),
    }
}

/// Like [`this_object`] for a promise-returning operation: a failed brand check gives a
/// rejected promise, as WebIDL requires for operations that return promises.
pub(crate) fn this_object_or_reject<T: NativeObject>(
    this: &JsValue,
    interface: &str,
    ctx: &mut Context,
) -> JsResult<Result<JsObject, JsValue>> {
    match this_object::<T>(this, interface) {
        Ok(o) => Ok(Ok(o)),
        Err(e) => Ok(Err(rejected_promise(e, ctx)?)),
    }
}

/// An exception thrown by a promise-returning operation becomes a rejected promise
/// (<https://webidl.spec.whatwg.org/#es-operations>, step "If an exception was thrown ... and
/// the return type is a promise type"). Uncatchable engine errors still propagate.
pub(crate) fn rejected_promise(error: JsError, ctx: &mut Context) -> JsResult<JsValue> {
    let reason = engine::thrown_value(error, ctx)?;
    Ok(engine::promise_rejected_with(reason, ctx)?.into())
}

/// Converts a JS value to an IDL dictionary's backing object:
/// <https://webidl.spec.whatwg.org/#es-dictionary>. `undefined` and `null` give an empty
/// dictionary (`None`); any other non-object is a TypeError.
pub(crate) fn dictionary(value: &JsValue, what: &str) -> JsResult<Option<JsObject>> {
    if value.is_null_or_undefined() {
        return Ok(None);
    }
    match value.as_object() {
        Some(o) => Ok(Some(o.clone())),
        None => Err(JsNativeError::typ()
            .with_message(format!("{what} must be an object"))
            .into()),
    }
}

/// Reads one dictionary member (`Get`); `undefined` for an empty dictionary.
pub(crate) fn member(dict: Option<&JsObject>, key: &str, ctx: &mut Context) -> JsResult<JsValue> {
    match dict {
        Some(o) => o.get(JsString::from(key), ctx),
        None => Ok(JsValue::undefined()),
    }
}

/// <https://webidl.spec.whatwg.org/#es-unrestricted-double>
pub(crate) fn to_unrestricted_double(value: &JsValue, ctx: &mut Context) -> JsResult<f64> {
    value.to_number(ctx)
}

/// <https://webidl.spec.whatwg.org/#es-unsigned-long-long> with `[EnforceRange]`.
pub(crate) fn to_enforced_u64(value: &JsValue, what: &str, ctx: &mut Context) -> JsResult<u64> {
    let x = value.to_number(ctx)?;
    if !x.is_finite() {
        return Err(JsNativeError::typ()
            .with_message(format!("{what} must be a finite number"))
            .into());
    }
    let x = x.trunc();
    if !(0.0..=9_007_199_254_740_991.0).contains(&x) {
        return Err(JsNativeError::typ()
            .with_message(format!("{what} is out of range"))
            .into());
    }
    // invariant: x is an integer in [0, 2^53 - 1], exactly representable in u64.
    Ok(x as u64)
}

/// A callback function dictionary member (<https://webidl.spec.whatwg.org/#es-callback-function>):
/// absent when `undefined`, else it must be callable.
pub(crate) fn callback(value: JsValue, what: &str) -> JsResult<Option<JsObject>> {
    if value.is_undefined() {
        return Ok(None);
    }
    match value.as_callable() {
        Some(f) => Ok(Some(f.clone())),
        None => Err(JsNativeError::typ()
            .with_message(format!("{what} must be a function"))
            .into()),
    }
}

/// The TypeError for calling a constructor that is not constructible from script.
pub(crate) fn illegal_constructor(interface: &str) -> boa_engine::JsError {
    JsNativeError::typ()
        .with_message(format!(
            "Illegal constructor: {interface} cannot be constructed"
        ))
        .into()
}
