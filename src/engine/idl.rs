//! Small WebIDL helpers used by the DOM interfaces: building interface objects with the shapes
//! that <https://webidl.spec.whatwg.org/#es-interfaces> prescribes, argument checks, and errors.

use boa_engine::{
    context::intrinsics::StandardConstructor,
    js_string,
    native_function::{NativeFunction, NativeFunctionPointer},
    object::{builtins::JsFunction, ConstructorBuilder, FunctionObjectBuilder},
    property::{Attribute, PropertyDescriptor},
    realm::Realm,
    Context, JsError, JsNativeError, JsObject, JsResult, JsString, JsSymbol, JsValue,
};

/// A TypeError as thrown by WebIDL bindings.
pub(crate) fn type_error(message: impl Into<String>) -> JsError {
    JsNativeError::typ().with_message(message.into()).into()
}

/// The TypeError thrown when `this` does not implement the interface.
pub(crate) fn illegal_invocation(interface: &str, member: &str) -> JsError {
    type_error(format!(
        "'{member}' called on an object that does not implement interface {interface}"
    ))
}

/// <https://webidl.spec.whatwg.org/#dfn-overload-resolution-algorithm>: too few arguments.
pub(crate) fn require_args(
    args: &[JsValue],
    required: usize,
    interface: &str,
    member: &str,
) -> JsResult<()> {
    if args.len() < required {
        return Err(type_error(format!(
            "Failed to execute '{member}' on '{interface}': {required} argument{} required, but only {} present",
            if required == 1 { "" } else { "s" },
            args.len()
        )));
    }
    Ok(())
}

/// The `n`th argument, or `undefined`.
pub(crate) fn arg(args: &[JsValue], n: usize) -> JsValue {
    args.get(n).cloned().unwrap_or_default()
}

/// Builds a native function object with the given `name` and `length`.
pub(crate) fn function(
    realm: &Realm,
    name: JsString,
    length: usize,
    f: NativeFunctionPointer,
) -> JsFunction {
    FunctionObjectBuilder::new(realm, NativeFunction::from_fn_ptr(f))
        .name(name)
        .length(length)
        .constructor(false)
        .build()
}

/// The [[Call]] of an interface object was used without `new`.
pub(crate) fn require_new(new_target: &JsValue, interface: &str) -> JsResult<()> {
    if new_target.is_undefined() {
        return Err(type_error(format!(
            "Failed to construct '{interface}': Please use the 'new' operator"
        )));
    }
    Ok(())
}

/// <https://tc39.es/ecma262/#sec-getprototypefromconstructor>, as used by WebIDL's "internally
/// create a new object implementing the interface": `Get(newTarget, "prototype")`, falling back
/// to the interface prototype object of the current realm.
///
/// (GetFunctionRealm is not public in Boa; the fallback uses the current realm.)
pub(crate) fn prototype_from_new_target(
    new_target: &JsValue,
    fallback: impl FnOnce(&mut Context) -> JsResult<JsObject>,
    ctx: &mut Context,
) -> JsResult<JsObject> {
    if let Some(new_target) = new_target.as_object() {
        if let Some(proto) = new_target.get(js_string!("prototype"), ctx)?.as_object() {
            return Ok(proto.clone());
        }
    }
    fallback(ctx)
}

/// Builder for an interface object and its interface prototype object.
pub(crate) struct Interface<'ctx> {
    builder: ConstructorBuilder<'ctx>,
    realm: Realm,
    name: &'static str,
}

impl<'ctx> Interface<'ctx> {
    /// Starts an interface whose interface object runs `constructor` (`this` is NewTarget, or
    /// `undefined` on [[Call]]) and has the given `length`.
    pub(crate) fn new(
        ctx: &'ctx mut Context,
        name: &'static str,
        length: usize,
        constructor: NativeFunctionPointer,
    ) -> Self {
        let realm = ctx.realm().clone();
        let mut builder = ConstructorBuilder::new(ctx, NativeFunction::from_fn_ptr(constructor));
        builder.name(name).length(length);
        Self {
            builder,
            realm,
            name,
        }
    }

    /// <https://webidl.spec.whatwg.org/#es-operations>: a regular operation on the prototype.
    pub(crate) fn operation(
        &mut self,
        name: &'static str,
        length: usize,
        f: NativeFunctionPointer,
    ) -> &mut Self {
        let function = function(&self.realm, JsString::from(name), length, f);
        self.builder.property_descriptor(
            JsString::from(name),
            PropertyDescriptor::builder()
                .value(function)
                .writable(true)
                .enumerable(true)
                .configurable(true),
        );
        self
    }

    /// A static operation on the interface object.
    pub(crate) fn static_operation(
        &mut self,
        name: &'static str,
        length: usize,
        f: NativeFunctionPointer,
    ) -> &mut Self {
        let function = function(&self.realm, JsString::from(name), length, f);
        self.builder.static_property_descriptor(
            JsString::from(name),
            PropertyDescriptor::builder()
                .value(function)
                .writable(true)
                .enumerable(true)
                .configurable(true),
        );
        self
    }

    /// <https://webidl.spec.whatwg.org/#es-attributes>: a regular attribute on the prototype,
    /// with getter `get name` and, unless read only, setter `set name` (length 1).
    pub(crate) fn attribute(
        &mut self,
        name: &'static str,
        getter: NativeFunctionPointer,
        setter: Option<NativeFunctionPointer>,
    ) -> &mut Self {
        let get = function(
            &self.realm,
            JsString::from(format!("get {name}")),
            0,
            getter,
        );
        let set =
            setter.map(|s| function(&self.realm, JsString::from(format!("set {name}")), 1, s));
        self.builder.accessor(
            JsString::from(name),
            Some(get),
            set,
            Attribute::ENUMERABLE | Attribute::CONFIGURABLE,
        );
        self
    }

    /// <https://webidl.spec.whatwg.org/#es-constants>: on both the interface object and the
    /// interface prototype object, { [[Writable]]: false, [[Enumerable]]: true,
    /// [[Configurable]]: false }.
    pub(crate) fn constant(&mut self, name: &'static str, value: u16) -> &mut Self {
        let attribute = Attribute::ENUMERABLE;
        self.builder
            .static_property(JsString::from(name), i32::from(value), attribute)
            .property(JsString::from(name), i32::from(value), attribute);
        self
    }

    /// Finishes the interface: adds `@@toStringTag` and sets up inheritance (the prototype's
    /// [[Prototype]] is `proto_parent`, default %Object.prototype%; the interface object's
    /// [[Prototype]] is `ctor_parent`, default %Function.prototype%).
    pub(crate) fn build(
        mut self,
        proto_parent: Option<JsObject>,
        ctor_parent: Option<JsObject>,
    ) -> StandardConstructor {
        self.builder.property(
            JsSymbol::to_string_tag(),
            JsString::from(self.name),
            Attribute::CONFIGURABLE,
        );
        if let Some(parent) = proto_parent {
            self.builder.inherit(parent);
        }
        if let Some(parent) = ctor_parent {
            self.builder.custom_prototype(parent);
        }
        self.builder.build()
    }
}

/// Defines an interface object on the global object: { [[Writable]]: true,
/// [[Enumerable]]: false, [[Configurable]]: true }.
pub(crate) fn define_global(
    name: &'static str,
    class: &StandardConstructor,
    ctx: &mut Context,
) -> JsResult<()> {
    let global = ctx.global_object();
    global.define_property_or_throw(
        JsString::from(name),
        PropertyDescriptor::builder()
            .value(class.constructor())
            .writable(true)
            .enumerable(false)
            .configurable(true),
        ctx,
    )?;
    Ok(())
}
