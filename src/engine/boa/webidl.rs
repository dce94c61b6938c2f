//! The WebIDL layer: building interface objects with the shapes that
//! <https://webidl.spec.whatwg.org/#es-interfaces> prescribes, the brand check every member
//! starts with, promise-returning members, and the argument and dictionary conversions the
//! Streams Standard and its DOM dependencies ask for. Algorithms never live here.
//!
//! One builder, [`Interface`], defines every interface's members, whether Boa registers the
//! interface as a global class (the streams interfaces, from `Class::init`) or the interface
//! object is built directly because it inherits from another interface (the DOM ones).

// The engine-free half of the layer (`../webidl.rs`).
use crate::engine::webidl::{rejected_promise, InterfaceBuilder};

use super::{Cx, JsError, JsResult, NativeFunctionPointer, Object, Value};
use boa_engine::{
    class::{Class, ClassBuilder},
    native_function::NativeFunction,
    object::{
        builtins::JsFunction as BoaFunction, ConstructorBuilder, FunctionObjectBuilder, JsObject,
    },
    property::{Attribute, PropertyDescriptor},
    realm::Realm,
    JsString, JsValue,
};

use crate::engine;

pub use super::webidl_partial::define_static_operation;
pub use super::webidl_sequences::{create_sequence_from_iterable, to_usv_string_record};

// ---------------------------------------------------------------------------------------------
// Interfaces and the brand check
// ---------------------------------------------------------------------------------------------

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
                $crate::engine::backend_webidl::INTERFACE_OBJECT;

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

/// What an interface's members are defined on: a class Boa registers as a global
/// (`Class::init`), or an interface object built directly.
pub(super) enum Target<'b, 'ctx> {
    Class(&'b mut ClassBuilder<'ctx>),
    Constructor(&'b mut ConstructorBuilder<'ctx>),
}

/// The backend side of [`InterfaceBuilder`]: Boa's class or constructor builder, and the realm
/// its functions are made in.
pub(crate) struct MemberTarget<'b, 'ctx> {
    pub(super) target: Target<'b, 'ctx>,
    realm: Realm,
}

impl<'b, 'ctx> InterfaceBuilder<'b, 'ctx> {
    /// The members of a class registered with [`register_interface`], from its `Class::init`.
    pub fn class<T: Class>(class: &'b mut ClassBuilder<'ctx>) -> Self {
        let realm = class.context().realm().clone();
        let mut builder = Self {
            target: MemberTarget {
                target: Target::Class(class),
                realm,
            },
        };
        builder.define_to_string_tag(T::NAME);
        builder
    }
}

impl MemberTarget<'_, '_> {
    /// The context the interface is being built in (its realm is the interface's).
    pub(crate) fn context(&mut self) -> &mut Cx {
        match &mut self.target {
            Target::Class(c) => c.context(),
            Target::Constructor(c) => c.context(),
        }
    }

    /// Defines a property of the interface prototype object.
    pub(crate) fn define(
        &mut self,
        key: crate::engine::PropertyKey,
        desc: crate::engine::PropertyDescriptor,
    ) {
        match &mut self.target {
            Target::Class(c) => {
                c.property_descriptor(key.0, desc.0);
            }
            Target::Constructor(c) => {
                c.property_descriptor(key.0, desc.0);
            }
        }
    }

    /// Defines a property of the interface object.
    pub(crate) fn define_static(
        &mut self,
        key: crate::engine::PropertyKey,
        desc: crate::engine::PropertyDescriptor,
    ) {
        match &mut self.target {
            Target::Class(c) => {
                c.static_property_descriptor(key.0, desc.0);
            }
            Target::Constructor(c) => {
                c.static_property_descriptor(key.0, desc.0);
            }
        }
    }

    pub(super) fn native_function(
        &self,
        name: JsString,
        length: usize,
        f: NativeFunction,
    ) -> JsObject {
        built_in_function(&self.realm, name, length, f).into()
    }

    /// A built-in function of the interface's realm running `f`.
    pub(crate) fn function(
        &mut self,
        name: &str,
        length: usize,
        f: NativeFunctionPointer,
    ) -> Object {
        self.native_function(JsString::from(name), length, native(f))
            .into()
    }

    /// A built-in function of the interface's realm running `f`, whose thrown exception is
    /// returned as a rejected promise.
    pub(crate) fn promise_function(
        &mut self,
        name: &str,
        length: usize,
        f: NativeFunctionPointer,
    ) -> Object {
        self.native_function(JsString::from(name), length, returning_promise(f))
            .into()
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
            target: MemberTarget {
                target: Target::Constructor(&mut self.builder),
                realm: self.realm.clone(),
            },
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

// ---------------------------------------------------------------------------------------------
// Conversions
// ---------------------------------------------------------------------------------------------

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
