//! The WebIDL layer on QuickJS: interface objects and prototypes with the property shapes of
//! <https://webidl.spec.whatwg.org/#es-interfaces>, the brand check every member starts with,
//! promise-returning members, and the argument and dictionary conversions. The same semantics
//! as the Boa backend's `webidl.rs` (its `Class` registration becomes [`register_interface`],
//! which keeps the interface object and prototype in the realm's state).
//!
//! The pair iterators are in `webidl_iterable.rs`, the sequence, record and string conversions
//! and the operations added after an interface exists in `webidl_sequences.rs`.

use std::marker::PhantomData;

use super::call::{new_closure, new_constructor, new_function};
use super::core::{check, new_native_object, q, take_exception, Marker, Trace};
use super::{
    global_object, promise_rejected_with, throw_type_error, thrown_value, Cx, JsError, JsFunction,
    JsResult, JsString, JsSymbol, NativeFunctionPointer, NativeObject, Object, PropertyDescriptor,
    PropertyKey, StandardConstructor, Value,
};

pub use super::webidl_iterable::PairIterable;
pub use super::webidl_sequences::{
    create_sequence_from_iterable, define_global_operation, define_static_operation,
    iterator_method, to_usv_string, to_usv_string_record, usv_string_sequences_from_iterable,
};

/// Intrinsics this file uses (name, expression), captured per realm.
pub(crate) const INTRINSICS: &[(&str, &str)] = &[(
    "IteratorPrototype",
    "Object.getPrototypeOf(Object.getPrototypeOf([][Symbol.iterator]()))",
)];

// ---------------------------------------------------------------------------------------------
// Interfaces and the brand check
// ---------------------------------------------------------------------------------------------

/// A WebIDL interface implemented by objects whose native data is `Self`.
pub trait Interface: NativeObject {
    /// The interface's identifier, as error messages and `@@toStringTag` name it.
    const NAME: &'static str;
}

/// An interface whose objects script creates with `new` (or whose constructor throws),
/// registered per realm with [`register_interface`]: the length of its constructor, its
/// members, and its constructor steps.
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

/// `interface!(Type, "Name")`: `Type`'s objects implement the WebIDL interface `Name`.
macro_rules! interface {
    ($ty:ty, $name:literal) => {
        impl $crate::engine::webidl::Interface for $ty {
            const NAME: &'static str = $name;
        }
    };
}
pub(crate) use interface;

/// The brand check every operation and attribute of interface `T` starts with
/// (<https://webidl.spec.whatwg.org/#dfn-create-operation-function>).
pub fn this<T: Interface>(this: &Value) -> JsResult<Object<T>> {
    this.as_object()
        .and_then(|o| o.downcast::<T>().ok())
        .ok_or_else(|| does_not_implement(T::NAME))
}

/// The brand check for an interface whose objects may carry another interface's native data:
/// `this` must be an object for which `implements` holds.
pub fn this_implementing(
    this: &Value,
    interface: &str,
    implements: impl FnOnce(&Object) -> bool,
) -> JsResult<Object> {
    match this.as_object() {
        Some(o) if implements(&o) => Ok(o),
        _ => Err(does_not_implement(interface)),
    }
}

/// The TypeError of a failed brand check.
fn does_not_implement(interface: &str) -> JsError {
    throw_type_error(format!(
        "'this' is not an object that implements interface {interface}"
    ))
}

/// An exception thrown by a promise-returning member becomes a rejected promise; uncatchable
/// engine errors still propagate.
pub fn rejected_promise(error: JsError, ctx: &mut Cx) -> JsResult<Value> {
    let reason = thrown_value(error, ctx)?;
    Ok(promise_rejected_with(reason, ctx)?.into())
}

/// A native function pointer as closure data (it holds no JS value).
#[derive(Clone, Copy)]
struct Steps(NativeFunctionPointer);

impl Trace for Steps {
    fn trace(&self, _: &mut Marker) {}
}

/// The behaviour of a promise-returning member: the steps' thrown exception becomes a rejected
/// promise.
fn returning_promise(steps: &Steps, this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    match (steps.0)(this, args, ctx) {
        Ok(value) => Ok(value),
        Err(error) => rejected_promise(error, ctx),
    }
}

// ---------------------------------------------------------------------------------------------
// The builder
// ---------------------------------------------------------------------------------------------

/// Builds an interface's members on its interface object and interface prototype object, with
/// the property shapes of <https://webidl.spec.whatwg.org/#es-interfaces>.
pub struct InterfaceBuilder<'b, 'ctx> {
    pub(super) ctx: &'b mut Cx,
    constructor: Object,
    prototype: Object,
    _ctx: PhantomData<&'ctx ()>,
}

impl InterfaceBuilder<'_, '_> {
    /// Defines a property of the interface prototype object (a new object: nothing observes
    /// it, and only running out of memory can fail).
    pub(super) fn define(&mut self, key: impl Into<PropertyKey>, desc: PropertyDescriptor) {
        let _ = self.prototype.define_property_or_throw(key, desc, self.ctx);
    }

    /// Defines a property of the interface object.
    fn define_static(&mut self, key: impl Into<PropertyKey>, desc: PropertyDescriptor) {
        let _ = self
            .constructor
            .define_property_or_throw(key, desc, self.ctx);
    }

    /// <https://webidl.spec.whatwg.org/#es-operations>: a regular operation on the prototype
    /// (writable, enumerable, configurable).
    pub fn operation(&mut self, name: &str, length: usize, f: NativeFunctionPointer) -> &mut Self {
        let function = new_function(self.ctx, name, length, f);
        self.define(name, operation_property(function.into_value()));
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
        let function = new_closure(self.ctx, name, length, Steps(f), returning_promise);
        self.define(name, operation_property(function.into_value()));
        self
    }

    /// <https://webidl.spec.whatwg.org/#es-asynchronous-iterable>: the `values` operation,
    /// which is also the prototype's `@@asyncIterator` (the same function object, not
    /// enumerable).
    pub fn async_iterable(&mut self, length: usize, values: NativeFunctionPointer) -> &mut Self {
        let function = new_function(self.ctx, "values", length, values).into_value();
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
        let function = new_function(self.ctx, name, length, f);
        self.define_static(name, operation_property(function.into_value()));
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
        let get = new_function(self.ctx, &format!("get {name}"), 0, getter);
        self.attribute_with(name, get, setter)
    }

    /// A read-only attribute whose type is a promise type: an exception its getter throws is
    /// returned as a rejected promise.
    pub fn promise_attribute(&mut self, name: &str, getter: NativeFunctionPointer) -> &mut Self {
        let get = new_closure(
            self.ctx,
            &format!("get {name}"),
            0,
            Steps(getter),
            returning_promise,
        );
        self.attribute_with(name, get, None)
    }

    fn attribute_with(
        &mut self,
        name: &str,
        get: Object,
        setter: Option<NativeFunctionPointer>,
    ) -> &mut Self {
        let set = setter.map(|s| new_function(self.ctx, &format!("set {name}"), 1, s));
        let desc = PropertyDescriptor::builder()
            .get(get.into_value())
            .set(set.map_or_else(Value::undefined, Object::into_value))
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
    fn define_to_string_tag(&mut self, name: &str) {
        let tag = super::core::new_string(self.ctx, name);
        let desc = PropertyDescriptor::builder()
            .value(tag)
            .writable(false)
            .enumerable(false)
            .configurable(true)
            .build();
        self.define(JsSymbol::to_string_tag(), desc);
    }
}

/// An operation's property: writable, enumerable, configurable.
fn operation_property(function: Value) -> PropertyDescriptor {
    PropertyDescriptor::builder()
        .value(function)
        .writable(true)
        .enumerable(true)
        .configurable(true)
        .build()
}

/// A new ordinary object of the current realm (its [[Prototype]] %Object.prototype%).
fn new_plain_object(ctx: &mut Cx) -> JsResult<Object> {
    // SAFETY: a live context; the new object is ours.
    let raw = unsafe { q::JS_NewObject(ctx.raw()) };
    Ok(Object::from_value_unchecked(check(ctx, raw)?))
}

/// The interface object's `prototype` property { W:false, E:false, C:false }, defined right
/// after its `length` and `name` (<https://webidl.spec.whatwg.org/#create-an-interface-object>:
/// before the constants and static members).
fn define_prototype_property(
    constructor: &Object,
    prototype: &Object,
    ctx: &mut Cx,
) -> JsResult<()> {
    constructor.define_property_or_throw(
        "prototype",
        PropertyDescriptor::builder()
            .value(prototype.as_value().clone())
            .writable(false)
            .enumerable(false)
            .configurable(false),
        ctx,
    )?;
    Ok(())
}

/// The interface prototype object's `constructor` property { W:true, E:false, C:true },
/// defined after its members.
fn define_constructor_property(
    constructor: &Object,
    prototype: &Object,
    ctx: &mut Cx,
) -> JsResult<()> {
    prototype.define_property_or_throw(
        "constructor",
        PropertyDescriptor::builder()
            .value(constructor.as_value().clone())
            .writable(true)
            .enumerable(false)
            .configurable(true),
        ctx,
    )?;
    Ok(())
}

/// An interface object built directly (not registered per type), for interfaces that inherit
/// from another: its members are defined through [`Self::members`], then [`Self::build`] sets
/// up inheritance.
pub struct InterfaceObject<'ctx> {
    ctx: &'ctx mut Cx,
    constructor: Object,
    prototype: Object,
}

impl<'ctx> InterfaceObject<'ctx> {
    /// An interface object named `name` whose [[Call]] and [[Construct]] run `constructor`
    /// (its `this` is NewTarget, or `undefined` on [[Call]]), with the given `length`.
    pub fn new(
        ctx: &'ctx mut Cx,
        name: &'static str,
        length: usize,
        constructor: NativeFunctionPointer,
    ) -> Self {
        let function = new_constructor(ctx, name, length, constructor);
        let prototype = new_plain_object(ctx).unwrap_or_else(|_| Object::with_null_proto());
        let _ = define_prototype_property(&function, &prototype, ctx);
        let mut interface = Self {
            ctx,
            constructor: function,
            prototype,
        };
        interface.members().define_to_string_tag(name);
        interface
    }

    /// The builder of the interface's members.
    pub fn members(&mut self) -> InterfaceBuilder<'_, 'ctx> {
        InterfaceBuilder {
            ctx: &mut *self.ctx,
            constructor: self.constructor.clone(),
            prototype: self.prototype.clone(),
            _ctx: PhantomData,
        }
    }

    /// Finishes the interface object and sets up inheritance: the prototype's [[Prototype]] is
    /// `proto_parent` (default %Object.prototype%), the interface object's [[Prototype]] is
    /// `ctor_parent` (default %Function.prototype%).
    pub fn build(
        self,
        proto_parent: Option<Object>,
        ctor_parent: Option<Object>,
    ) -> StandardConstructor {
        if let Some(parent) = proto_parent {
            self.prototype.set_prototype(Some(parent));
        }
        if let Some(parent) = ctor_parent {
            self.constructor.set_prototype(Some(parent));
        }
        let _ = define_constructor_property(&self.constructor, &self.prototype, self.ctx);
        StandardConstructor {
            constructor: self.constructor,
            prototype: self.prototype,
        }
    }
}

/// The interface object and prototype of `T` in a realm (its realm state, keyed by `T`).
struct Registered<T>(StandardConstructor, PhantomData<fn() -> T>);

/// `T`'s interface object and prototype in the current realm.
pub(super) fn registered<T: ClassInterface>(ctx: &Cx) -> JsResult<StandardConstructor> {
    ctx.realm_state()
        .with_data::<Registered<T>, _>(|r| r.0.clone())
        .ok_or_else(|| throw_type_error(format!("{} is not registered in this realm", T::NAME)))
}

/// The [[Call]] and [[Construct]] of a registered interface's object: Boa's `Class::construct`
/// (the prototype from NewTarget first, then the constructor steps).
fn class_constructor<T: ClassInterface>(
    new_target: &Value,
    args: &[Value],
    ctx: &mut Cx,
) -> JsResult<Value> {
    if new_target.is_undefined() {
        return Err(throw_type_error(format!(
            "cannot call constructor of native class `{}` without new",
            T::NAME
        )));
    }
    let prototype =
        prototype_from_new_target(new_target, |ctx| Ok(registered::<T>(ctx)?.prototype), ctx)?;
    let data = T::construct(new_target, args, ctx)?;
    let object = new_object_raw(Some(&prototype), data, ctx)?;
    T::constructed(&object, args, ctx)?;
    Ok(object.into_value())
}

/// Installs `T`'s interface object on the global of the current realm and keeps it (with its
/// prototype) in the realm's state, replacing an earlier registration of the same interface.
pub fn register_interface<T: ClassInterface>(ctx: &mut Cx) -> JsResult<()> {
    let constructor = new_constructor(ctx, T::NAME, T::LENGTH, class_constructor::<T>);
    let prototype = new_plain_object(ctx)?;
    define_prototype_property(&constructor, &prototype, ctx)?;
    {
        let mut builder = InterfaceBuilder {
            ctx: &mut *ctx,
            constructor: constructor.clone(),
            prototype: prototype.clone(),
            _ctx: PhantomData,
        };
        builder.define_to_string_tag(T::NAME);
        T::members(&mut builder);
    }
    define_constructor_property(&constructor, &prototype, ctx)?;
    let class = StandardConstructor {
        constructor,
        prototype,
    };
    define_global(T::NAME, &class, ctx)?;
    ctx.realm_state()
        .set_data(Registered::<T>(class, PhantomData));
    Ok(())
}

/// Defines an interface object on the global object: { [[Writable]]: true,
/// [[Enumerable]]: false, [[Configurable]]: true }.
pub fn define_global(
    name: &'static str,
    class: &StandardConstructor,
    ctx: &mut Cx,
) -> JsResult<()> {
    let global = global_object(ctx);
    global.define_property_or_throw(
        name,
        PropertyDescriptor::builder()
            .value(class.constructor.as_value().clone())
            .writable(true)
            .enumerable(false)
            .configurable(true),
        ctx,
    )?;
    Ok(())
}

/// A built-in function object (not a constructor) with the given `name` and `length`, for
/// members outside an interface.
pub fn function(ctx: &mut Cx, name: &str, length: usize, f: NativeFunctionPointer) -> JsFunction {
    crate::engine::count_objects(1);
    JsFunction(new_function(ctx, name, length, f))
}

// ---------------------------------------------------------------------------------------------
// Constructors and arguments
// ---------------------------------------------------------------------------------------------

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

/// GetPrototypeFromConstructor as WebIDL's "internally create a new object implementing the
/// interface" uses it: `Get(newTarget, "prototype")`, falling back to `fallback` (the
/// interface prototype object of the current realm).
pub fn prototype_from_new_target(
    new_target: &Value,
    fallback: impl FnOnce(&mut Cx) -> JsResult<Object>,
    ctx: &mut Cx,
) -> JsResult<Object> {
    if let Some(new_target) = new_target.as_object() {
        if let Some(proto) = new_target.get("prototype", ctx)?.as_object() {
            return Ok(proto);
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

// ---------------------------------------------------------------------------------------------
// Conversions
// ---------------------------------------------------------------------------------------------

/// Converts a JS value to an IDL dictionary's backing object: `undefined` and `null` give an
/// empty dictionary (`None`); any other non-object is a TypeError.
pub fn dictionary(value: &Value, what: &str) -> JsResult<Option<Object>> {
    if value.is_null_or_undefined() {
        return Ok(None);
    }
    match value.as_object() {
        Some(o) => Ok(Some(o)),
        None => Err(throw_type_error(format!("{what} must be an object"))),
    }
}

/// Reads one dictionary member (`Get`); `undefined` for an empty dictionary.
pub fn member(dict: Option<&Object>, key: &str, ctx: &mut Cx) -> JsResult<Value> {
    match dict {
        Some(o) => o.get(JsString::from(key), ctx),
        None => Ok(Value::undefined()),
    }
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
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    Ok(x as u64)
}

/// A callback function dictionary member: absent when `undefined`, else it must be callable.
pub fn callback(value: Value, what: &str) -> JsResult<Option<Object>> {
    if value.is_undefined() {
        return Ok(None);
    }
    match value.as_callable() {
        Some(f) => Ok(Some(f)),
        None => Err(throw_type_error(format!("{what} must be a function"))),
    }
}

// ---------------------------------------------------------------------------------------------
// Objects made from Rust
// ---------------------------------------------------------------------------------------------

/// A new object of our native class with `prototype` (`None`: null) holding `data`; the
/// pending exception if it could not be made (out of memory).
fn new_object_raw<T: NativeObject>(
    prototype: Option<&Object>,
    data: T,
    ctx: &mut Cx,
) -> JsResult<Object<T>> {
    let proto = prototype.map_or(super::core::NULL, Object::raw);
    let value = new_native_object(ctx.raw(), proto, data);
    if !value.is_object() {
        return Err(take_exception(ctx));
    }
    Ok(Object::from_value_unchecked(value))
}

/// "A new `T`" created from Rust in the current realm.
pub(crate) fn new_object<T: ClassInterface>(data: T, ctx: &mut Cx) -> JsResult<Object<T>> {
    let prototype = registered::<T>(ctx)?.prototype;
    new_object_raw(Some(&prototype), data, ctx)
}

/// Invokes the initial value of `T`'s interface object (the current realm's) as a constructor
/// with `args` (NewTarget is the interface object itself).
pub(crate) fn construct_interface<T: ClassInterface>(
    args: &[Value],
    ctx: &mut Cx,
) -> JsResult<Object<T>> {
    let constructor = registered::<T>(ctx)?.constructor;
    let mut raw_args: Vec<q::JSValue> = args.iter().map(Value::raw).collect();
    let argc = std::ffi::c_int::try_from(raw_args.len()).unwrap_or(std::ffi::c_int::MAX);
    // SAFETY: a live context and values; JS_CallConstructor does not take ownership of its
    // arguments, and returns an owned value or JS_EXCEPTION.
    let raw =
        unsafe { q::JS_CallConstructor(ctx.raw(), constructor.raw(), argc, raw_args.as_mut_ptr()) };
    let object = check(ctx, raw)?;
    object
        .as_object()
        .and_then(|o| o.downcast::<T>().ok())
        .ok_or_else(|| throw_type_error(format!("{} did not construct one", T::NAME)))
}

/// An object no script can reach, holding `data` (a null [[Prototype]]).
pub(crate) fn internal_object<T: NativeObject>(data: T, ctx: &Cx) -> Object<T> {
    object_with_prototype(None, data, ctx)
}

/// An ordinary object with `prototype` as its [[Prototype]] and `data` as its native data.
pub(crate) fn object_with_prototype<T: NativeObject>(
    prototype: Option<Object>,
    data: T,
    ctx: &Cx,
) -> Object<T> {
    let proto = prototype.as_ref().map_or(super::core::NULL, Object::raw);
    Object::from_value_unchecked(new_native_object(ctx.raw(), proto, data))
}

/// `object` as the `Object<T>` it was made as; a mismatch is a TypeError, not a panic.
pub(crate) fn downcast<T: NativeObject>(object: &Object) -> JsResult<Object<T>> {
    object
        .clone()
        .downcast::<T>()
        .map_err(|_| throw_type_error("an internal object is not of its type"))
}
