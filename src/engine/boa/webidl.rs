//! The WebIDL layer: building interface objects with the shapes that
//! <https://webidl.spec.whatwg.org/#es-interfaces> prescribes, the brand check every member
//! starts with, promise-returning members, and the argument and dictionary conversions the
//! Streams Standard and its DOM dependencies ask for. Algorithms never live here.
//!
//! One builder, [`Interface`], defines every interface's members, whether Boa registers the
//! interface as a global class (the streams interfaces, from `Class::init`) or the interface
//! object is built directly because it inherits from another interface (the DOM ones).

use super::{Cx, JsError, JsResult, NativeFunctionPointer, Object, Value};
use boa_engine::{
    class::{Class, ClassBuilder},
    js_string,
    native_function::NativeFunction,
    object::{
        builtins::JsFunction as BoaFunction, ConstructorBuilder, FunctionObjectBuilder, JsObject,
    },
    property::{Attribute, PropertyDescriptor, PropertyKey},
    realm::Realm,
    symbol::JsSymbol,
    JsString, JsValue, NativeObject,
};

use crate::engine;

pub use super::webidl_iterable::PairIterable;
pub use super::webidl_partial::{define_global_operation, define_static_operation};
pub use super::webidl_sequences::{
    create_sequence_from_iterable, iterator_method, to_usv_string_record,
    usv_string_sequences_from_iterable,
};
pub use super::webidl_strings::to_usv_string;

// ---------------------------------------------------------------------------------------------
// Interfaces and the brand check
// ---------------------------------------------------------------------------------------------

/// A WebIDL interface implemented by objects whose native data is `Self`.
pub trait Interface: NativeObject {
    /// The interface's identifier, as error messages and `@@toStringTag` name it.
    const NAME: &'static str;
}

/// An interface whose objects script creates with `new` (or whose constructor throws), which
/// the engine registers as a global class: the length of its constructor, its members, and its
/// constructor steps. [`interface!`](crate::engine::webidl::interface) declares a type's
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

/// `interface!(Type, "Name")`: `Type`'s objects implement the WebIDL interface `Name`, which
/// `Type`'s [`ClassInterface`] describes; on Boa, this is where it becomes a `Class` (with
/// WebIDL's interface object attributes).
macro_rules! interface {
    ($ty:ty, $name:literal) => {
        impl $crate::engine::webidl::Interface for $ty {
            const NAME: &'static str = $name;
        }

        impl ::boa_engine::class::Class for $ty {
            const NAME: &'static str = $name;
            const LENGTH: usize = <$ty as $crate::engine::webidl::ClassInterface>::LENGTH;
            const ATTRIBUTES: ::boa_engine::property::Attribute =
                $crate::engine::webidl::INTERFACE_OBJECT;

            fn init(
                class: &mut ::boa_engine::class::ClassBuilder<'_>,
            ) -> ::boa_engine::JsResult<()> {
                let mut b = $crate::engine::webidl::InterfaceBuilder::class::<Self>(class);
                <$ty as $crate::engine::webidl::ClassInterface>::members(&mut b);
                Ok(())
            }

            fn data_constructor(
                new_target: &::boa_engine::JsValue,
                args: &[::boa_engine::JsValue],
                ctx: &mut ::boa_engine::Context,
            ) -> ::boa_engine::JsResult<Self> {
                <$ty as $crate::engine::webidl::ClassInterface>::construct(
                    $crate::engine::Value::from_js_ref(new_target),
                    $crate::engine::Value::from_js_slice(args),
                    ctx,
                )
                .map_err(::std::convert::Into::into)
            }

            fn object_constructor(
                this: &::boa_engine::JsObject<Self>,
                args: &[::boa_engine::JsValue],
                ctx: &mut ::boa_engine::Context,
            ) -> ::boa_engine::JsResult<()> {
                let this = $crate::engine::Object::from(this.clone());
                <$ty as $crate::engine::webidl::ClassInterface>::constructed(
                    &this,
                    $crate::engine::Value::from_js_slice(args),
                    ctx,
                )
                .map_err(::std::convert::Into::into)
            }
        }
    };
}
pub(crate) use interface;

/// The brand check every operation and attribute of interface `T` starts with
/// (<https://webidl.spec.whatwg.org/#dfn-create-operation-function>, "If thisValue does not
/// implement the interface, throw a TypeError").
pub fn this<T: Interface>(this: &Value) -> JsResult<Object<T>> {
    this.as_object()
        .and_then(|o| o.clone().downcast::<T>().ok())
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
fn does_not_implement(interface: &str) -> JsError {
    engine::throw_type_error(format!(
        "'this' is not an object that implements interface {interface}"
    ))
}

/// An exception thrown by a promise-returning operation or attribute becomes a rejected promise
/// (<https://webidl.spec.whatwg.org/#es-operations>, "If an exception was thrown ... and the
/// return type is a promise type"). Uncatchable engine errors still propagate.
pub fn rejected_promise(error: JsError, ctx: &mut Cx) -> JsResult<Value> {
    let reason = engine::thrown_value(error, ctx)?;
    Ok(engine::promise_rejected_with(reason, ctx)?.into())
}

/// The behaviour of a promise-returning member: `f`'s thrown exception becomes a rejected
/// promise.
fn returning_promise(f: NativeFunctionPointer) -> NativeFunction {
    NativeFunction::from_copy_closure(move |this, args, ctx| {
        match f(Value::from_js_ref(this), Value::from_js_slice(args), ctx) {
            Ok(value) => Ok(value.into_js()),
            Err(error) => rejected_promise(error, ctx)
                .map(Value::into_js)
                .map_err(Into::into),
        }
    })
}

/// A function's native behaviour as Boa's: the engine's `this` and arguments are Boa's under
/// another name (`#[repr(transparent)]`), so this only re-types them.
fn native(f: NativeFunctionPointer) -> NativeFunction {
    NativeFunction::from_copy_closure(move |this, args, ctx| {
        f(Value::from_js_ref(this), Value::from_js_slice(args), ctx)
            .map(Value::into_js)
            .map_err(Into::into)
    })
}

// ---------------------------------------------------------------------------------------------
// The builder
// ---------------------------------------------------------------------------------------------

/// The property attributes WebIDL gives an interface object on the global:
/// `{ [[Writable]]: true, [[Enumerable]]: false, [[Configurable]]: true }`.
pub const INTERFACE_OBJECT: Attribute = Attribute::WRITABLE.union(Attribute::CONFIGURABLE);

/// What an [`Interface`] builder defines its members on.
pub(super) enum Target<'b, 'ctx> {
    /// A class Boa registers as a global (`Class::init`).
    Class(&'b mut ClassBuilder<'ctx>),
    /// An interface object built directly.
    Constructor(&'b mut ConstructorBuilder<'ctx>),
}

/// Builds an interface's members: regular and static operations, attributes and constants,
/// with the property shapes of <https://webidl.spec.whatwg.org/#es-interfaces>, and its
/// `@@toStringTag`.
pub struct InterfaceBuilder<'b, 'ctx> {
    pub(super) target: Target<'b, 'ctx>,
    realm: Realm,
}

impl<'b, 'ctx> InterfaceBuilder<'b, 'ctx> {
    /// The members of a class registered with [`register_interface`], from its `Class::init`.
    pub fn class<T: Class>(class: &'b mut ClassBuilder<'ctx>) -> Self {
        let realm = class.context().realm().clone();
        let mut builder = Self {
            target: Target::Class(class),
            realm,
        };
        builder.define_to_string_tag(T::NAME);
        builder
    }

    pub(super) fn define(
        &mut self,
        key: impl Into<PropertyKey>,
        desc: impl Into<PropertyDescriptor>,
    ) {
        match &mut self.target {
            Target::Class(c) => {
                c.property_descriptor(key, desc);
            }
            Target::Constructor(c) => {
                c.property_descriptor(key, desc);
            }
        }
    }

    fn define_static(&mut self, key: impl Into<PropertyKey>, desc: impl Into<PropertyDescriptor>) {
        match &mut self.target {
            Target::Class(c) => {
                c.static_property_descriptor(key, desc);
            }
            Target::Constructor(c) => {
                c.static_property_descriptor(key, desc);
            }
        }
    }

    pub(super) fn function(&self, name: JsString, length: usize, f: NativeFunction) -> JsObject {
        built_in_function(&self.realm, name, length, f).into()
    }

    /// <https://webidl.spec.whatwg.org/#es-operations>: a regular operation on the prototype
    /// (writable, enumerable, configurable).
    pub fn operation(&mut self, name: &str, length: usize, f: NativeFunctionPointer) -> &mut Self {
        self.operation_with(name, length, native(f))
    }

    /// A regular operation whose return type is a promise type: an exception it throws is
    /// returned as a rejected promise.
    pub fn promise_operation(
        &mut self,
        name: &str,
        length: usize,
        f: NativeFunctionPointer,
    ) -> &mut Self {
        self.operation_with(name, length, returning_promise(f))
    }

    fn operation_with(&mut self, name: &str, length: usize, f: NativeFunction) -> &mut Self {
        let function = self.function(JsString::from(name), length, f);
        self.define(JsString::from(name), operation_property(function));
        self
    }

    /// <https://webidl.spec.whatwg.org/#es-asynchronous-iterable>: the `values` operation of an
    /// `async_iterable` declaration, which is also the prototype's `@@asyncIterator` (the same
    /// function object; `@@asyncIterator` is not enumerable).
    pub fn async_iterable(&mut self, length: usize, values: NativeFunctionPointer) -> &mut Self {
        let function = self.function(JsString::from("values"), length, native(values));
        self.define(
            JsString::from("values"),
            operation_property(function.clone()),
        );
        let desc = PropertyDescriptor::builder()
            .value(function)
            .writable(true)
            .enumerable(false)
            .configurable(true);
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
        let function = self.function(JsString::from(name), length, native(f));
        self.define_static(JsString::from(name), operation_property(function));
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
        self.attribute_with(name, native(getter), setter)
    }

    /// A read-only attribute whose type is a promise type: an exception its getter throws is
    /// returned as a rejected promise.
    pub fn promise_attribute(&mut self, name: &str, getter: NativeFunctionPointer) -> &mut Self {
        self.attribute_with(name, returning_promise(getter), None)
    }

    fn attribute_with(
        &mut self,
        name: &str,
        getter: NativeFunction,
        setter: Option<NativeFunctionPointer>,
    ) -> &mut Self {
        let get = self.function(JsString::from(format!("get {name}")), 0, getter);
        let set =
            setter.map(|s| self.function(JsString::from(format!("set {name}")), 1, native(s)));
        let desc = PropertyDescriptor::builder()
            .get(get)
            .set(set.map_or_else(JsValue::undefined, JsValue::from))
            .enumerable(true)
            .configurable(true);
        self.define(JsString::from(name), desc);
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
            .configurable(false);
        self.define_static(JsString::from(name), desc.clone());
        self.define(JsString::from(name), desc);
        self
    }

    /// The `@@toStringTag` property of an interface prototype object:
    /// <https://webidl.spec.whatwg.org/#es-interface-prototype-object>.
    fn define_to_string_tag(&mut self, name: &str) {
        let desc = PropertyDescriptor::builder()
            .value(JsString::from(name))
            .writable(false)
            .enumerable(false)
            .configurable(true);
        self.define(JsSymbol::to_string_tag(), desc);
    }
}

/// An interface object built directly (not registered as a class), for interfaces that
/// inherit from another: its members are defined through [`Self::members`], then
/// [`Self::build`] sets up inheritance.
pub struct InterfaceObject<'ctx> {
    builder: ConstructorBuilder<'ctx>,
    realm: Realm,
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
        let realm = ctx.realm().clone();
        let mut builder = ConstructorBuilder::new(ctx, native(constructor));
        builder.name(name).length(length);
        let mut interface = Self { builder, realm };
        interface.members().define_to_string_tag(name);
        interface
    }

    /// The builder of the interface's members.
    pub fn members(&mut self) -> InterfaceBuilder<'_, 'ctx> {
        InterfaceBuilder {
            target: Target::Constructor(&mut self.builder),
            realm: self.realm.clone(),
        }
    }

    /// Finishes the interface object and sets up inheritance: the prototype's [[Prototype]] is
    /// `proto_parent` (default %Object.prototype%), the interface object's [[Prototype]] is
    /// `ctor_parent` (default %Function.prototype%).
    pub fn build(
        mut self,
        proto_parent: Option<Object>,
        ctor_parent: Option<Object>,
    ) -> super::StandardConstructor {
        if let Some(parent) = proto_parent {
            self.builder.inherit(JsObject::from(parent));
        }
        if let Some(parent) = ctor_parent {
            self.builder.custom_prototype(JsObject::from(parent));
        }
        super::StandardConstructor(self.builder.build())
    }
}

fn operation_property(function: JsObject) -> PropertyDescriptor {
    PropertyDescriptor::builder()
        .value(function)
        .writable(true)
        .enumerable(true)
        .configurable(true)
        .build()
}

/// Installs a class's interface object on the global, replacing an earlier registration of the
/// same class, so that registering twice in a realm is harmless.
pub fn register_interface<T: Class>(ctx: &mut Cx) -> JsResult<()> {
    if ctx.has_global_class::<T>() {
        ctx.unregister_global_class::<T>()?;
    }
    ctx.register_global_class::<T>().map_err(JsError::from)
}

/// Defines an interface object built with [`InterfaceBuilder::constructor`] on the global
/// object: { [[Writable]]: true, [[Enumerable]]: false, [[Configurable]]: true }.
pub fn define_global(
    name: &'static str,
    class: &super::StandardConstructor,
    ctx: &mut Cx,
) -> JsResult<()> {
    let global = ctx.global_object();
    global.define_property_or_throw(
        JsString::from(name),
        PropertyDescriptor::builder()
            .value(class.0.constructor())
            .writable(true)
            .enumerable(false)
            .configurable(true),
        ctx,
    )?;
    Ok(())
}

/// A built-in function object (not a constructor) with the given `name` and `length`, for
/// members outside an interface (a shared `[LegacyUnforgeable]` getter, a mixin's method).
pub fn function(
    ctx: &mut Cx,
    name: &str,
    length: usize,
    f: NativeFunctionPointer,
) -> super::JsFunction {
    crate::engine::count_objects(1);
    let realm = ctx.realm().clone();
    super::JsFunction(built_in_function(
        &realm,
        JsString::from(name),
        length,
        native(f),
    ))
}

/// <https://webidl.spec.whatwg.org/#dfn-create-operation-function>'s function object: a
/// built-in function of `realm`, not a constructor, with `name` and `length`.
fn built_in_function(
    realm: &Realm,
    name: JsString,
    length: usize,
    f: NativeFunction,
) -> BoaFunction {
    FunctionObjectBuilder::new(realm, f)
        .name(name)
        .length(length)
        .constructor(false)
        .build()
}

// ---------------------------------------------------------------------------------------------
// Constructors and arguments
// ---------------------------------------------------------------------------------------------

/// The [[Call]] of an interface object was used without `new`.
pub fn require_new(new_target: &Value, interface: &str) -> JsResult<()> {
    if new_target.is_undefined() {
        return Err(engine::throw_type_error(format!(
            "Failed to construct '{interface}': Please use the 'new' operator"
        )));
    }
    Ok(())
}

/// The TypeError for calling a constructor that is not constructible from script.
pub fn illegal_constructor(interface: &str) -> JsError {
    engine::throw_type_error(format!(
        "Illegal constructor: {interface} cannot be constructed"
    ))
}

/// <https://tc39.es/ecma262/#sec-getprototypefromconstructor>, as used by WebIDL's "internally
/// create a new object implementing the interface": `Get(newTarget, "prototype")`, falling back
/// to the interface prototype object of the current realm.
///
/// (GetFunctionRealm is not public in Boa; the fallback uses the current realm.)
pub fn prototype_from_new_target(
    new_target: &Value,
    fallback: impl FnOnce(&mut Cx) -> JsResult<Object>,
    ctx: &mut Cx,
) -> JsResult<Object> {
    if let Some(new_target) = new_target.as_object() {
        if let Some(proto) = new_target.get(js_string!("prototype"), ctx)?.as_object() {
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
        return Err(engine::throw_type_error(format!(
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

/// Converts a JS value to an IDL dictionary's backing object:
/// <https://webidl.spec.whatwg.org/#es-dictionary>. `undefined` and `null` give an empty
/// dictionary (`None`); any other non-object is a TypeError.
pub fn dictionary(value: &Value, what: &str) -> JsResult<Option<Object>> {
    if value.is_null_or_undefined() {
        return Ok(None);
    }
    match value.as_object() {
        Some(o) => Ok(Some(o.clone())),
        None => Err(engine::throw_type_error(format!(
            "{what} must be an object"
        ))),
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
        return Err(engine::throw_type_error(format!(
            "{what} must be a finite number"
        )));
    }
    let x = x.trunc();
    if !(0.0..=9_007_199_254_740_991.0).contains(&x) {
        return Err(engine::throw_type_error(format!("{what} is out of range")));
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
        None => Err(engine::throw_type_error(format!(
            "{what} must be a function"
        ))),
    }
}

/// "A new `T`" created from Rust in the current realm (readers, controllers, and streams made by
/// the abstract operations).
pub(crate) fn new_object<T: Class>(data: T, ctx: &mut super::Cx) -> JsResult<super::Object<T>> {
    let prototype = ctx
        .get_global_class::<T>()
        .ok_or_else(|| {
            engine::throw_type_error(format!("{} is not registered in this realm", T::NAME))
        })?
        .prototype();
    Ok(JsObject::new(ctx.root_shape(), prototype, data).into())
}

/// Invokes the initial value of `T`'s interface object (the current realm's) as a constructor
/// with `args`: what "invoking the initial value of `Request` as constructor" does (the
/// constructor's steps run, no `new.target` but the interface itself).
pub(crate) fn construct_interface<T: Class>(
    args: &[Value],
    ctx: &mut super::Cx,
) -> JsResult<super::Object<T>> {
    let constructor = ctx
        .get_global_class::<T>()
        .ok_or_else(|| {
            engine::throw_type_error(format!("{} is not registered in this realm", T::NAME))
        })?
        .constructor();
    let args: Vec<JsValue> = args.iter().cloned().map(Into::into).collect();
    let object = constructor.construct(&args, None, ctx)?;
    object
        .downcast::<T>()
        .map(Into::into)
        .map_err(|_| engine::throw_type_error(format!("{} did not construct one", T::NAME)))
}

/// An object no script can reach, holding `data`: the record a spec algorithm keeps in its
/// closures (a pipe's state, another specification's underlying source or sink), when the
/// stream slots that hold it need a traced handle to it.
pub(crate) fn internal_object<T: super::NativeObject>(
    data: T,
    ctx: &super::Cx,
) -> super::Object<T> {
    object_with_prototype(None, data, ctx)
}

/// An ordinary object with `prototype` as its [[Prototype]] and `data` as its native data (an
/// object whose interface is not a class: the async iterator, whose prototype is
/// %ReadableStreamAsyncIteratorPrototype%).
pub(crate) fn object_with_prototype<T: super::NativeObject>(
    prototype: Option<super::Object>,
    data: T,
    ctx: &super::Cx,
) -> super::Object<T> {
    JsObject::new(ctx.root_shape(), prototype.map(JsObject::from), data).into()
}

/// `object` as the `Object<T>` it was made as: the object a native algorithm or handler holds
/// (stored upcast next to functions monomorphized for `T`). A mismatch cannot happen; should
/// it, the result is a `TypeError`, not a panic.
pub(crate) fn downcast<T: super::NativeObject>(
    object: &super::Object,
) -> JsResult<super::Object<T>> {
    object
        .clone()
        .downcast::<T>()
        .map_err(|_| engine::throw_type_error("an internal object is not of its type"))
}
