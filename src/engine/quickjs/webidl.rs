//! The WebIDL layer on QuickJS: interface objects and prototypes with the property shapes of
//! <https://webidl.spec.whatwg.org/#es-interfaces>, the brand check every member starts with,
//! promise-returning members, and the argument and dictionary conversions. The same semantics
//! as the Boa backend's `webidl.rs` (its `Class` registration becomes [`register_interface`],
//! which keeps the interface object and prototype in the realm's state).
//!
//! The pair iterators are in `webidl_iterable.rs`, the sequence, record and string conversions
//! and the operations added after an interface exists in `webidl_sequences.rs`.

// The engine-free half of the layer (`../webidl.rs`).
use crate::engine::webidl::{
    prototype_from_new_target, rejected_promise, ClassInterface, InterfaceBuilder,
};

use std::marker::PhantomData;

use super::call::{new_closure, new_constructor, new_function};
use super::core::{check, new_native_object, q, take_exception, Marker, Trace};
use super::{
    global_object, throw_type_error, Cx, JsFunction, JsResult, NativeFunctionPointer, NativeObject,
    Object, PropertyDescriptor, PropertyKey, StandardConstructor, Value,
};

pub use super::webidl_sequences::{
    create_sequence_from_iterable, define_static_operation, to_usv_string_record,
};

// ---------------------------------------------------------------------------------------------
// Interfaces and the brand check
// ---------------------------------------------------------------------------------------------

/// `interface!(Type, "Name")`: `Type`'s objects implement the WebIDL interface `Name`.
macro_rules! interface {
    ($ty:ty, $name:literal) => {
        impl $crate::engine::webidl::Interface for $ty {
            const NAME: &'static str = $name;
        }
    };
}
pub(crate) use interface;

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

/// The backend side of [`InterfaceBuilder`]: the context, and the interface object and
/// interface prototype object the members are defined on.
pub(crate) struct MemberTarget<'b, 'ctx> {
    pub(super) ctx: &'b mut Cx,
    constructor: Object,
    prototype: Object,
    _ctx: PhantomData<&'ctx ()>,
}

impl MemberTarget<'_, '_> {
    /// The context the interface is being built in.
    pub(crate) fn context(&mut self) -> &mut Cx {
        self.ctx
    }

    /// Defines a property of the interface prototype object (a new object: nothing observes
    /// it, and only running out of memory can fail).
    pub(crate) fn define(&mut self, key: PropertyKey, desc: PropertyDescriptor) {
        let _ = self.prototype.define_property_or_throw(key, desc, self.ctx);
    }

    /// Defines a property of the interface object.
    pub(crate) fn define_static(&mut self, key: PropertyKey, desc: PropertyDescriptor) {
        let _ = self
            .constructor
            .define_property_or_throw(key, desc, self.ctx);
    }

    /// A built-in function of the current realm running `f`.
    pub(crate) fn function(
        &mut self,
        name: &str,
        length: usize,
        f: NativeFunctionPointer,
    ) -> Object {
        new_function(self.ctx, name, length, f)
    }

    /// A built-in function of the current realm running `f`, whose thrown exception is
    /// returned as a rejected promise.
    pub(crate) fn promise_function(
        &mut self,
        name: &str,
        length: usize,
        f: NativeFunctionPointer,
    ) -> Object {
        new_closure(self.ctx, name, length, Steps(f), returning_promise)
    }
}

/// A new ordinary object of the current realm (its [[Prototype]] %Object.prototype%).
fn new_plain_object(ctx: &mut Cx) -> JsResult<Object> {
    // SAFETY: `ctx`'s context is live (`Cx`'s invariant). The result is owned, or
    // `JS_EXCEPTION`, as `check` takes it.
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
        let prototype = new_plain_object(ctx).unwrap_or_else(|_| Object::with_null_proto(ctx));
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
            target: MemberTarget {
                ctx: &mut *self.ctx,
                constructor: self.constructor.clone(),
                prototype: self.prototype.clone(),
                _ctx: PhantomData,
            },
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
    // AD-HOC: `new T(...)` of this realm's own interface object takes its prototype without
    // the Get: that object's `prototype` is a non-writable, non-configurable data property
    // (`define_prototype_property`), so the Get can only give the prototype registered with
    // it. Any other NewTarget (a subclass, another realm's interface object) is read.
    let own = registered::<T>(ctx)
        .ok()
        .filter(|r| new_target.as_object().is_some_and(|t| t == r.constructor));
    let prototype = match own {
        Some(registered) => registered.prototype,
        None => {
            prototype_from_new_target(new_target, |ctx| Ok(registered::<T>(ctx)?.prototype), ctx)?
        }
    };
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
            target: MemberTarget {
                ctx: &mut *ctx,
                constructor: constructor.clone(),
                prototype: prototype.clone(),
                _ctx: PhantomData,
            },
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

// ---------------------------------------------------------------------------------------------
// Conversions
// ---------------------------------------------------------------------------------------------

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
    let made = new_native_object(ctx.raw(), proto, data);
    if !made.0.is_object() {
        return Err(take_exception(ctx));
    }
    Ok(Object::from_new_native(made))
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
    // QuickJS reads `argc` values from the buffer: a count it cannot take is an error, not a
    // longer read.
    let Ok(argc) = std::ffi::c_int::try_from(raw_args.len()) else {
        return Err(super::throw_range_error("too many arguments"));
    };
    // SAFETY: `ctx`'s context is live (`Cx`'s invariant); the interface object and the
    // arguments are live values of its runtime (`Value`'s invariant), borrowed for the call:
    // `args` is borrowed for the whole call, so the copies in `raw_args` stay valid, and
    // `raw_args` holds exactly `argc` of them. `JS_CallConstructor` passes
    // `JS_CALL_FLAG_COPY_ARGV`, so the buffer is only read, and takes no count. The
    // constructor's steps may run script, with `ctx` borrowed mutably. The result is owned, or
    // `JS_EXCEPTION`, as `check` takes it.
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
    Object::from_new_native(new_native_object(ctx.raw(), proto, data))
}
