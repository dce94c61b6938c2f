//! PENDING (issue 21): the stub bodies, to be replaced by the QuickJS implementation.
#![allow(unused_variables, clippy::needless_pass_by_value)]
use super::core::Trace;
use super::*;
use std::marker::PhantomData;

/// Intrinsics this file uses (name, expression), captured per realm.
pub(crate) const INTRINSICS: &[(&str, &str)] = &[];

pub(crate) fn construct_interface<T: ClassInterface>(
    args: &[Value],
    ctx: &mut Cx,
) -> JsResult<Object<T>> {
    unimplemented!()
}

/// A WebIDL interface implemented by objects whose native data is `Self`.
pub trait Interface: NativeObject {
    /// The interface's identifier.
    const NAME: &'static str;
}

/// An interface whose objects script creates with `new`.
pub trait ClassInterface: Interface + Sized {
    /// The constructor's `length`.
    const LENGTH: usize;

    /// Defines the members.
    fn members(b: &mut InterfaceBuilder<'_, '_>);

    /// The constructor steps before the object exists.
    fn construct(new_target: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Self>;

    /// The constructor steps that need the object.
    fn constructed(this: &Object<Self>, args: &[Value], ctx: &mut Cx) -> JsResult<()> {
        unimplemented!()
    }
}

/// `interface!(Type, "Name")`.
macro_rules! interface {
    ($ty:ty, $name:literal) => {
        impl $crate::engine::webidl::Interface for $ty {
            const NAME: &'static str = $name;
        }
    };
}
pub(crate) use interface;

/// Builds an interface's members.
pub struct InterfaceBuilder<'b, 'ctx>(PhantomData<(&'b (), &'ctx ())>);

/// An interface object built directly.
pub struct InterfaceObject<'ctx>(PhantomData<&'ctx ()>);
pub fn this<T: Interface>(this: &Value) -> JsResult<Object<T>> {
    unimplemented!()
}
pub fn this_implementing(
    this: &Value,
    interface: &str,
    implements: impl FnOnce(&Object) -> bool,
) -> JsResult<Object> {
    unimplemented!()
}
pub fn rejected_promise(error: JsError, ctx: &mut Cx) -> JsResult<Value> {
    unimplemented!()
}
impl<'b, 'ctx> InterfaceBuilder<'b, 'ctx> {
    pub fn operation(&mut self, name: &str, length: usize, f: NativeFunctionPointer) -> &mut Self {
        unimplemented!()
    }
    pub fn promise_operation(
        &mut self,
        name: &str,
        length: usize,
        f: NativeFunctionPointer,
    ) -> &mut Self {
        unimplemented!()
    }
    pub fn async_iterable(&mut self, length: usize, values: NativeFunctionPointer) -> &mut Self {
        unimplemented!()
    }
    pub fn static_operation(
        &mut self,
        name: &str,
        length: usize,
        f: NativeFunctionPointer,
    ) -> &mut Self {
        unimplemented!()
    }
    pub fn attribute(
        &mut self,
        name: &str,
        getter: NativeFunctionPointer,
        setter: Option<NativeFunctionPointer>,
    ) -> &mut Self {
        unimplemented!()
    }
    pub fn promise_attribute(&mut self, name: &str, getter: NativeFunctionPointer) -> &mut Self {
        unimplemented!()
    }
    pub fn constant(&mut self, name: &str, value: u16) -> &mut Self {
        unimplemented!()
    }
}
impl<'ctx> InterfaceObject<'ctx> {
    pub fn new(
        ctx: &'ctx mut Cx,
        name: &'static str,
        length: usize,
        constructor: NativeFunctionPointer,
    ) -> Self {
        unimplemented!()
    }
    pub fn members(&mut self) -> InterfaceBuilder<'_, 'ctx> {
        unimplemented!()
    }
    pub fn build(
        self,
        proto_parent: Option<Object>,
        ctor_parent: Option<Object>,
    ) -> super::StandardConstructor {
        unimplemented!()
    }
}
pub fn register_interface<T: ClassInterface>(ctx: &mut Cx) -> JsResult<()> {
    unimplemented!()
}
pub fn define_global(
    name: &'static str,
    class: &super::StandardConstructor,
    ctx: &mut Cx,
) -> JsResult<()> {
    unimplemented!()
}
pub fn function(
    ctx: &mut Cx,
    name: &str,
    length: usize,
    f: NativeFunctionPointer,
) -> super::JsFunction {
    unimplemented!()
}
pub fn require_new(new_target: &Value, interface: &str) -> JsResult<()> {
    unimplemented!()
}
pub fn illegal_constructor(interface: &str) -> JsError {
    unimplemented!()
}
pub fn prototype_from_new_target(
    new_target: &Value,
    fallback: impl FnOnce(&mut Cx) -> JsResult<Object>,
    ctx: &mut Cx,
) -> JsResult<Object> {
    unimplemented!()
}
pub fn require_args(
    args: &[Value],
    required: usize,
    interface: &str,
    member: &str,
) -> JsResult<()> {
    unimplemented!()
}
pub fn arg(args: &[Value], n: usize) -> Value {
    unimplemented!()
}
pub fn dictionary(value: &Value, what: &str) -> JsResult<Option<Object>> {
    unimplemented!()
}
pub fn member(dict: Option<&Object>, key: &str, ctx: &mut Cx) -> JsResult<Value> {
    unimplemented!()
}
pub fn to_unrestricted_double(value: &Value, ctx: &mut Cx) -> JsResult<f64> {
    unimplemented!()
}
pub fn to_enforced_u64(value: &Value, what: &str, ctx: &mut Cx) -> JsResult<u64> {
    unimplemented!()
}
pub fn callback(value: Value, what: &str) -> JsResult<Option<Object>> {
    unimplemented!()
}
pub fn to_usv_string(value: &Value, ctx: &mut Cx) -> JsResult<JsString> {
    unimplemented!()
}
pub(crate) fn new_object<T: ClassInterface>(data: T, ctx: &mut Cx) -> JsResult<Object<T>> {
    unimplemented!()
}
pub(crate) fn internal_object<T: NativeObject>(data: T, ctx: &Cx) -> Object<T> {
    unimplemented!()
}
pub(crate) fn object_with_prototype<T: NativeObject>(
    prototype: Option<Object>,
    data: T,
    ctx: &Cx,
) -> Object<T> {
    unimplemented!()
}
pub(crate) fn downcast<T: NativeObject>(object: &Object) -> JsResult<Object<T>> {
    unimplemented!()
}

// The stub of `src/engine/webidl_partial.rs`.
pub fn define_global_operation(
    name: &str,
    length: usize,
    f: NativeFunctionPointer,
    ctx: &mut Cx,
) -> JsResult<()> {
    unimplemented!()
}
pub fn define_static_operation<T: ClassInterface>(
    name: &str,
    length: usize,
    f: NativeFunctionPointer,
    ctx: &mut Cx,
) -> JsResult<()> {
    unimplemented!()
}

// The stub of `src/engine/webidl_sequences.rs`.
pub fn iterator_method(object: &Object, ctx: &mut Cx) -> JsResult<Option<Object>> {
    unimplemented!()
}
pub fn create_sequence_from_iterable<T>(
    iterable: &Object,
    method: &Object,
    convert: impl FnMut(&Value, &mut Cx) -> JsResult<T>,
    ctx: &mut Cx,
) -> JsResult<Vec<T>> {
    unimplemented!()
}
pub fn usv_string_sequences_from_iterable(
    iterable: &Object,
    method: &Object,
    ctx: &mut Cx,
) -> JsResult<Vec<Vec<JsString>>> {
    unimplemented!()
}
pub fn to_usv_string_record(value: &Value, ctx: &mut Cx) -> JsResult<Vec<(JsString, JsString)>> {
    unimplemented!()
}

// The stub of `src/engine/webidl_iterable.rs`.
/// An interface with a pair iterator.
pub trait PairIterable: ClassInterface {
    /// The pair at `index` of the current list of value pairs to iterate over.
    fn value_pair(this: &Object<Self>, index: usize) -> Option<(Value, Value)>;
}
impl<'b, 'ctx> InterfaceBuilder<'b, 'ctx> {
    pub fn pair_iterable<T: PairIterable>(&mut self) -> &mut Self {
        unimplemented!()
    }
}
