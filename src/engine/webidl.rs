//! The WebIDL layer, engine-free: the interface traits every interface implements, the brand
//! check every member starts with, promise-returning members, and the argument, dictionary and
//! sequence conversions the Streams Standard and its dependencies ask for. Algorithms never
//! live here.
//!
//! The backend's WebIDL module (`boa/webidl.rs`, `quickjs/webidl.rs`) builds interface
//! objects with the shapes <https://webidl.spec.whatwg.org/#es-interfaces> prescribes (one
//! builder, [`InterfaceBuilder`], for every interface's members), registers them, and makes
//! the functions and objects of the interfaces; its items are re-exported here by name.

use super::{
    promise_rejected_with, throw_type_error, thrown_value, Cx, JsError, JsResult, JsString,
    JsSymbol, NativeObject, Object, Value,
};

// The backend's half of the layer.
use super::backend_webidl::MemberTarget;
#[allow(unused_imports)]
pub(crate) use super::backend_webidl::{
    construct_interface, create_sequence_from_iterable, define_global, define_static_operation,
    function, interface, internal_object, new_object, object_with_prototype, register_interface,
    to_usv_string_record, InterfaceObject,
};
use super::{global_object, NativeFunctionPointer, PropertyDescriptor, PropertyKey};

/// A WebIDL interface implemented by objects whose native data is `Self`.
pub trait Interface: NativeObject {
    /// The interface's identifier, as error messages and `@@toStringTag` name it.
    const NAME: &'static str;
}

/// An interface whose objects script creates with `new` (or whose constructor throws), which
/// the engine registers as a global class: the length of its constructor, its members, and its
/// constructor steps. [`interface!`](webidl::interface) declares a type's
/// interface name and registers it with the engine.
pub trait ClassInterface: Interface + Sized {
    /// The constructor's `length`.
    const LENGTH: usize;

    /// Defines the members on the interface prototype object (and the interface object).
    fn members(b: &mut InterfaceBuilder<'_, '_>);

    /// The constructor steps that come before the object exists: its native data, from the
    /// arguments (`new_target` is NewTarget).
    fn construct(new_target: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Self>;

    /// The constructor steps that need the object itself (none by default).
    fn constructed(this: &Object<Self>, args: &[Value], ctx: &mut Cx) -> JsResult<()> {
        let _ = (this, args, ctx);
        Ok(())
    }
}

/// An interface with a pair iterator: its list of value pairs to iterate over, read one pair at
/// a time, so that an iteration sees the list as it is at each step (it may change between
/// steps).
pub trait PairIterable: ClassInterface {
    /// The pair at `index` of `this`'s current list of value pairs to iterate over, as JS values
    /// (key, value); `None` past its end. Runs no script.
    fn value_pair(this: &Object<Self>, index: usize) -> Option<(Value, Value)>;
}

// ---------------------------------------------------------------------------------------------
// The builder
// ---------------------------------------------------------------------------------------------

/// Builds an interface's members: regular and static operations, attributes and constants,
/// with the property shapes of <https://webidl.spec.whatwg.org/#es-interfaces>, and its
/// `@@toStringTag`. The backend's [`MemberTarget`] is what the properties are defined on (the
/// interface prototype object and the interface object) and what makes their functions.
pub struct InterfaceBuilder<'b, 'ctx> {
    pub(crate) target: MemberTarget<'b, 'ctx>,
}

impl InterfaceBuilder<'_, '_> {
    /// Defines a property of the interface prototype object.
    pub(crate) fn define(&mut self, key: impl Into<PropertyKey>, desc: PropertyDescriptor) {
        self.target.define(key.into(), desc);
    }

    /// Defines a property of the interface object.
    fn define_static(&mut self, key: impl Into<PropertyKey>, desc: PropertyDescriptor) {
        self.target.define_static(key.into(), desc);
    }

    /// <https://webidl.spec.whatwg.org/#es-operations>: a regular operation on the prototype
    /// (writable, enumerable, configurable).
    pub fn operation(&mut self, name: &str, length: usize, f: NativeFunctionPointer) -> &mut Self {
        let function = self.target.function(name, length, f);
        self.define(name, operation_property(function));
        self
    }

    /// A regular operation whose return type is a promise type: an exception it throws is
    /// returned as a rejected promise.
    pub fn promise_operation(
        &mut self,
        name: &str,
        length: usize,
        f: NativeFunctionPointer,
    ) -> &mut Self {
        let function = self.target.promise_function(name, length, f);
        self.define(name, operation_property(function));
        self
    }

    /// <https://webidl.spec.whatwg.org/#es-asynchronous-iterable>: the `values` operation of an
    /// `async_iterable` declaration, which is also the prototype's `@@asyncIterator` (the same
    /// function object; `@@asyncIterator` is not enumerable).
    pub fn async_iterable(&mut self, length: usize, values: NativeFunctionPointer) -> &mut Self {
        let function = self.target.function("values", length, values);
        self.define("values", operation_property(function.clone()));
        let desc = PropertyDescriptor::builder()
            .value(function)
            .writable(true)
            .enumerable(false)
            .configurable(true)
            .build();
        self.define(JsSymbol::async_iterator(), desc);
        self
    }

    /// A static operation on the interface object.
    pub fn static_operation(
        &mut self,
        name: &str,
        length: usize,
        f: NativeFunctionPointer,
    ) -> &mut Self {
        let function = self.target.function(name, length, f);
        self.define_static(name, operation_property(function));
        self
    }

    /// <https://webidl.spec.whatwg.org/#es-attributes>: a regular attribute on the prototype,
    /// an accessor (enumerable, configurable) with getter `get name` and, unless read only,
    /// setter `set name` (length 1).
    pub fn attribute(
        &mut self,
        name: &str,
        getter: NativeFunctionPointer,
        setter: Option<NativeFunctionPointer>,
    ) -> &mut Self {
        let get = self.target.function(&format!("get {name}"), 0, getter);
        self.attribute_with(name, get, setter)
    }

    /// A read-only attribute whose type is a promise type: an exception its getter throws is
    /// returned as a rejected promise.
    pub fn promise_attribute(&mut self, name: &str, getter: NativeFunctionPointer) -> &mut Self {
        let get = self
            .target
            .promise_function(&format!("get {name}"), 0, getter);
        self.attribute_with(name, get, None)
    }

    fn attribute_with(
        &mut self,
        name: &str,
        get: Object,
        setter: Option<NativeFunctionPointer>,
    ) -> &mut Self {
        let set = setter.map(|s| self.target.function(&format!("set {name}"), 1, s));
        let desc = PropertyDescriptor::builder()
            .get(get)
            .set(set.map_or_else(Value::undefined, Value::from))
            .enumerable(true)
            .configurable(true)
            .build();
        self.define(name, desc);
        self
    }

    /// <https://webidl.spec.whatwg.org/#es-constants>: on both the interface object and the
    /// interface prototype object, { [[Writable]]: false, [[Enumerable]]: true,
    /// [[Configurable]]: false }.
    pub fn constant(&mut self, name: &str, value: u16) -> &mut Self {
        let desc = PropertyDescriptor::builder()
            .value(i32::from(value))
            .writable(false)
            .enumerable(true)
            .configurable(false)
            .build();
        self.define_static(name, desc.clone());
        self.define(name, desc);
        self
    }

    /// The `@@toStringTag` property of an interface prototype object:
    /// <https://webidl.spec.whatwg.org/#es-interface-prototype-object>.
    pub(crate) fn define_to_string_tag(&mut self, name: &str) {
        let desc = PropertyDescriptor::builder()
            .value(JsString::from(name))
            .writable(false)
            .enumerable(false)
            .configurable(true)
            .build();
        self.define(JsSymbol::to_string_tag(), desc);
    }
}

/// An operation's property: writable, enumerable, configurable.
fn operation_property(function: Object) -> PropertyDescriptor {
    PropertyDescriptor::builder()
        .value(function)
        .writable(true)
        .enumerable(true)
        .configurable(true)
        .build()
}

/// The brand check every operation and attribute of interface `T` starts with
/// (<https://webidl.spec.whatwg.org/#dfn-create-operation-function>, "If thisValue does not
/// implement the interface, throw a TypeError").
pub fn this<T: Interface>(this: &Value) -> JsResult<Object<T>> {
    this.as_object()
        .and_then(|o| o.downcast::<T>().ok())
        .ok_or_else(|| does_not_implement(T::NAME))
}

/// The brand check for an interface whose objects may carry another interface's native data
/// (an interface that others inherit from): `this` must be an object for which `implements`
/// holds.
pub fn this_implementing(
    this: &Value,
    interface: &str,
    implements: impl FnOnce(&Object) -> bool,
) -> JsResult<Object> {
    match this.as_object() {
        Some(o) if implements(&o.clone()) => Ok(o),
        _ => Err(does_not_implement(interface)),
    }
}

/// The TypeError of a failed brand check.
pub(crate) fn does_not_implement(interface: &str) -> JsError {
    throw_type_error(format!(
        "'this' is not an object that implements interface {interface}"
    ))
}

/// An exception thrown by a promise-returning operation or attribute becomes a rejected promise
/// (<https://webidl.spec.whatwg.org/#es-operations>, "If an exception was thrown ... and the
/// return type is a promise type"). Uncatchable engine errors still propagate.
pub fn rejected_promise(error: JsError, ctx: &mut Cx) -> JsResult<Value> {
    let reason = thrown_value(error, ctx)?;
    Ok(promise_rejected_with(reason, ctx)?.into())
}

/// The [[Call]] of an interface object was used without `new`.
pub fn require_new(new_target: &Value, interface: &str) -> JsResult<()> {
    if new_target.is_undefined() {
        return Err(throw_type_error(format!(
            "Failed to construct '{interface}': Please use the 'new' operator"
        )));
    }
    Ok(())
}

/// The TypeError for calling a constructor that is not constructible from script.
pub fn illegal_constructor(interface: &str) -> JsError {
    throw_type_error(format!(
        "Illegal constructor: {interface} cannot be constructed"
    ))
}

/// <https://tc39.es/ecma262/#sec-getprototypefromconstructor>, as used by WebIDL's "internally
/// create a new object implementing the interface": `Get(newTarget, "prototype")`, falling back
/// to the interface prototype object of the current realm.
///
/// AD-HOC: GetFunctionRealm is not public in Boa, so the fallback uses the current realm (on
/// both engines, for one behaviour).
pub fn prototype_from_new_target(
    new_target: &Value,
    fallback: impl FnOnce(&mut Cx) -> JsResult<Object>,
    ctx: &mut Cx,
) -> JsResult<Object> {
    if let Some(new_target) = new_target.as_object() {
        if let Some(proto) = new_target.get("prototype", ctx)?.as_object() {
            return Ok(proto.clone());
        }
    }
    fallback(ctx)
}

/// <https://webidl.spec.whatwg.org/#dfn-overload-resolution-algorithm>: too few arguments.
pub fn require_args(
    args: &[Value],
    required: usize,
    interface: &str,
    member: &str,
) -> JsResult<()> {
    if args.len() < required {
        return Err(throw_type_error(format!(
            "Failed to execute '{member}' on '{interface}': {required} argument{} required, but only {} present",
            if required == 1 { "" } else { "s" },
            args.len()
        )));
    }
    Ok(())
}

/// The `n`th argument, or `undefined`.
pub fn arg(args: &[Value], n: usize) -> Value {
    args.get(n).cloned().unwrap_or_default()
}

/// Converts a JS value to an IDL dictionary's backing object:
/// <https://webidl.spec.whatwg.org/#es-dictionary>. `undefined` and `null` give an empty
/// dictionary (`None`); any other non-object is a TypeError.
pub fn dictionary(value: &Value, what: &str) -> JsResult<Option<Object>> {
    if value.is_null_or_undefined() {
        return Ok(None);
    }
    match value.as_object() {
        Some(o) => Ok(Some(o.clone())),
        None => Err(throw_type_error(format!("{what} must be an object"))),
    }
}

/// Reads one dictionary member (`Get`); `undefined` for an empty dictionary.
pub fn member(dict: Option<&Object>, key: &str, ctx: &mut Cx) -> JsResult<Value> {
    match dict {
        Some(o) => crate::engine::get_script_property(o, key, ctx),
        None => Ok(Value::undefined()),
    }
}

/// <https://webidl.spec.whatwg.org/#es-double>: ToNumber, then a TypeError if the result is
/// NaN or an infinity (`what` names the value in it).
pub fn to_double(value: &Value, what: &str, ctx: &mut Cx) -> JsResult<f64> {
    let x = value.to_number(ctx)?;
    if !x.is_finite() {
        return Err(throw_type_error(format!("{what} must be a finite number")));
    }
    Ok(x)
}

/// <https://webidl.spec.whatwg.org/#es-unrestricted-double>
pub fn to_unrestricted_double(value: &Value, ctx: &mut Cx) -> JsResult<f64> {
    value.to_number(ctx)
}

/// <https://webidl.spec.whatwg.org/#es-unsigned-long-long> with `[EnforceRange]`.
pub fn to_enforced_u64(value: &Value, what: &str, ctx: &mut Cx) -> JsResult<u64> {
    let x = value.to_number(ctx)?;
    if !x.is_finite() {
        return Err(throw_type_error(format!("{what} must be a finite number")));
    }
    let x = x.trunc();
    if !(0.0..=9_007_199_254_740_991.0).contains(&x) {
        return Err(throw_type_error(format!("{what} is out of range")));
    }
    // invariant: x is an integer in [0, 2^53 - 1], exactly representable in u64.
    Ok(x as u64)
}

/// A callback function dictionary member (<https://webidl.spec.whatwg.org/#es-callback-function>):
/// absent when `undefined`, else it must be callable.
pub fn callback(value: Value, what: &str) -> JsResult<Option<Object>> {
    if value.is_undefined() {
        return Ok(None);
    }
    match value.as_callable() {
        Some(f) => Ok(Some(f.clone())),
        None => Err(throw_type_error(format!("{what} must be a function"))),
    }
}

/// `object` as the `Object<T>` it was made as: the object a native algorithm or handler holds
/// (stored upcast next to functions monomorphized for `T`). A mismatch cannot happen; should
/// it, the result is a `TypeError`, not a panic.
pub(crate) fn downcast<T: NativeObject>(object: &Object) -> JsResult<Object<T>> {
    object
        .clone()
        .downcast::<T>()
        .map_err(|_| throw_type_error("an internal object is not of its type"))
}

// ---------------------------------------------------------------------------------------------
// Sequences
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
/// `method` the union conversion found: <https://webidl.spec.whatwg.org/#es-union> (step
/// "If types includes a sequence type").
pub fn usv_string_sequences_from_iterable(
    iterable: &Object,
    method: &Object,
    ctx: &mut Cx,
) -> JsResult<Vec<Vec<JsString>>> {
    create_sequence_from_iterable(iterable, method, to_usv_string_sequence, ctx)
}
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

// ---------------------------------------------------------------------------------------------
// Operations added later
// ---------------------------------------------------------------------------------------------

/// Defines a regular operation of the current realm's global object (`WindowOrWorkerGlobalScope`
/// and the like), replacing any earlier property of that name.
pub fn define_global_operation(
    name: &str,
    length: usize,
    f: NativeFunctionPointer,
    ctx: &mut Cx,
) -> JsResult<()> {
    let global = global_object(ctx);
    define_operation(&global, name, length, f, ctx)
}

/// An operation's property (<https://webidl.spec.whatwg.org/#es-operations>: a built-in function
/// `name` of `length`; writable, enumerable, configurable) on `target`.
pub(crate) fn define_operation(
    target: &Object,
    name: &str,
    length: usize,
    f: NativeFunctionPointer,
    ctx: &mut Cx,
) -> JsResult<()> {
    let function = function(ctx, name, length, f);
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
