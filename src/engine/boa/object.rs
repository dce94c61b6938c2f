//! [`Object`]: a JavaScript object as the spec layer holds it, `Object<T>` when its native data
//! is a `T` (a platform object's slots, an algorithm's state). On Boa it is a
//! `#[repr(transparent)]` newtype of `JsObject<T>` with `#[inline]` methods.
//!
//! Borrow rules: [`Object::borrow`] is a shared borrow of the object (its slots are `Slot`s,
//! borrowed on their own), so it must not be held across a call into JavaScript that could
//! need the object exclusively.
//!
//! Property access runs through the methods here (`get`, `define_property_or_throw`, ...):
//! nothing of Boa's object is reachable through an `Object`.

use std::ops::Deref;

use boa_engine::{
    object::{ErasedObjectData, JsObject, Ref},
    Context, NativeObject,
};
use boa_gc::{custom_trace, Finalize, Trace};

use super::{JsError, JsResult, PropertyDescriptor, PropertyKey, Value};

/// A JavaScript object; `Object<T>` is one whose native data is a `T`.
#[repr(transparent)]
pub struct Object<T: NativeObject = ErasedObjectData>(JsObject<T>);

/// A shared borrow of an object, for reading its native data.
pub struct ObjectRef<'a, T: NativeObject>(Ref<'a, boa_engine::object::Object<T>>);

impl<T: NativeObject> ObjectRef<'_, T> {
    /// The object's native data.
    #[inline]
    pub fn data(&self) -> &T {
        self.0.data()
    }
}

/// A shared borrow of an erased object's native data as a `T`.
pub struct DataRef<'a, T: NativeObject>(Ref<'a, T>);

impl<T: NativeObject> Deref for DataRef<'_, T> {
    type Target = T;
    #[inline]
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: NativeObject> Object<T> {
    /// Borrows the object to read its native data (`object.borrow().data()`).
    #[inline]
    pub fn borrow(&self) -> ObjectRef<'_, T> {
        ObjectRef(self.0.borrow())
    }

    /// The same object, its native data's type forgotten.
    #[inline]
    pub fn upcast(self) -> Object {
        Object(self.0.upcast())
    }

    /// Whether `a` and `b` are the same object.
    #[inline]
    pub fn equals(a: &Self, b: &Self) -> bool {
        JsObject::equals(&a.0, &b.0)
    }

    /// Boa's object (for the engine's own functions).
    #[inline]
    pub(crate) fn js(&self) -> &JsObject<T> {
        &self.0
    }
}

impl Object {
    /// `? Get(object, key)`: may run script (a getter, a proxy trap).
    #[inline]
    pub fn get(&self, key: impl Into<PropertyKey>, ctx: &mut Context) -> JsResult<Value> {
        self.0
            .get(key.into().0, ctx)
            .map(Value::from)
            .map_err(JsError::from)
    }

    /// `? DefinePropertyOrThrow(object, key, desc)`.
    #[inline]
    pub fn define_property_or_throw(
        &self,
        key: impl Into<PropertyKey>,
        desc: impl Into<PropertyDescriptor>,
        ctx: &mut Context,
    ) -> JsResult<bool> {
        self.0
            .define_property_or_throw(key.into().0, desc.into().0, ctx)
            .map_err(JsError::from)
    }

    /// `? CreateDataPropertyOrThrow(object, key, value)`.
    #[inline]
    pub fn create_data_property_or_throw(
        &self,
        key: impl Into<PropertyKey>,
        value: impl Into<Value>,
        ctx: &mut Context,
    ) -> JsResult<bool> {
        self.0
            .create_data_property_or_throw(key.into().0, value.into().into_js(), ctx)
            .map_err(JsError::from)
    }

    /// `? HasOwnProperty(object, key)`.
    #[inline]
    pub fn has_own_property(
        &self,
        key: impl Into<PropertyKey>,
        ctx: &mut Context,
    ) -> JsResult<bool> {
        self.0
            .has_own_property(key.into().0, ctx)
            .map_err(JsError::from)
    }

    /// `? object.[[OwnPropertyKeys]]()`.
    #[inline]
    pub fn own_property_keys(&self, ctx: &mut Context) -> JsResult<Vec<PropertyKey>> {
        self.0
            .own_property_keys(ctx)
            .map(|keys| keys.into_iter().map(PropertyKey).collect())
            .map_err(JsError::from)
    }

    /// `? object.[[GetOwnProperty]](key)`, reduced to what a WebIDL record conversion reads:
    /// `None` when there is no such own property, else whether it is enumerable. A proxy's
    /// `getOwnPropertyDescriptor` trap runs.
    pub fn own_property_enumerable(
        &self,
        key: impl Into<PropertyKey>,
        ctx: &mut Context,
    ) -> JsResult<Option<bool>> {
        let key: boa_engine::JsValue = key.into().0.into();
        let desc = boa_engine::builtins::object::OrdinaryObject::get_own_property_descriptor(
            &boa_engine::JsValue::undefined(),
            &[self.0.clone().into(), key],
            ctx,
        )
        .map_err(JsError::from)?;
        match desc.as_object() {
            // FromPropertyDescriptor made a fresh ordinary object: reading its own data
            // property runs no script.
            Some(desc) => Ok(Some(
                desc.get(boa_engine::js_string!("enumerable"), ctx)
                    .map_err(JsError::from)?
                    .to_boolean(),
            )),
            None => Ok(None),
        }
    }

    /// Defines an own property directly, on an object the caller just made (no script runs,
    /// no check): how built-in objects get their properties.
    #[inline]
    pub fn insert_property(
        &self,
        key: impl Into<PropertyKey>,
        desc: impl Into<PropertyDescriptor>,
    ) -> bool {
        self.0.insert_property(key.into().0, desc.into().0)
    }

    /// Sets [[Prototype]] (an ordinary object's [[SetPrototypeOf]]; `false` if it may not
    /// change).
    #[inline]
    pub fn set_prototype(&self, prototype: Option<Object>) -> bool {
        self.0.set_prototype(prototype.map(|p| p.0))
    }

    /// `? Call(object, this, args)`: the object's [[Call]] (a TypeError if it has none).
    #[inline]
    pub fn call(&self, this: &Value, args: &[Value], ctx: &mut Context) -> JsResult<Value> {
        self.0
            .call(this.js(), Value::as_js_slice(args), ctx)
            .map(Value::from)
            .map_err(JsError::from)
    }

    /// IsCallable(object).
    #[inline]
    pub fn is_callable(&self) -> bool {
        self.0.is_callable()
    }

    /// IsArray(object), for an object that is not a proxy.
    #[inline]
    pub fn is_array(&self) -> bool {
        self.0.is_array()
    }

    /// The object one of Boa's typed wrappers (`JsArrayBuffer`, `JsPromise`, ...) wraps.
    #[inline]
    pub(crate) fn from_js(object: impl Into<JsObject>) -> Object {
        Object(object.into())
    }

    /// An ordinary object with `prototype` and the native data `data` (the object is erased:
    /// `downcast` gives it its type back).
    #[inline]
    pub fn from_proto_and_data<U: NativeObject>(
        prototype: impl Into<Option<Object>>,
        data: U,
    ) -> Object {
        crate::engine::count_objects(1);
        Object(JsObject::from_proto_and_data(
            prototype.into().map(|p| p.0),
            data,
        ))
    }

    /// An ordinary object of `ctx`'s realm with a null prototype and no native data.
    #[inline]
    pub fn with_null_proto(_ctx: &mut super::Cx) -> Object {
        crate::engine::count_objects(1);
        Object(JsObject::with_null_proto())
    }

    /// The same object as an `Object<U>`, if its native data is a `U`.
    #[inline]
    pub fn downcast<U: NativeObject>(self) -> Result<Object<U>, Self> {
        self.0.downcast::<U>().map(Object).map_err(Object)
    }

    /// Borrows the object's native data as a `U`, if it is one.
    #[inline]
    pub fn downcast_ref<U: NativeObject>(&self) -> Option<DataRef<'_, U>> {
        self.0.downcast_ref::<U>().map(DataRef)
    }

    /// Whether the object's native data is a `U`.
    #[inline]
    pub fn is<U: NativeObject>(&self) -> bool {
        self.0.is::<U>()
    }
}

impl<T: NativeObject> Clone for Object<T> {
    #[inline]
    fn clone(&self) -> Self {
        Self(self.0.clone())
    }
}

impl<T: NativeObject> PartialEq for Object<T> {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}

impl<T: NativeObject> Eq for Object<T> {}

impl<T: NativeObject> std::hash::Hash for Object<T> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.hash(state);
    }
}

impl<T: NativeObject> std::fmt::Debug for Object<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl<T: NativeObject> Finalize for Object<T> {}

// SAFETY: boa_gc's `Trace` contract is that `trace` marks every `Gc` the value holds (and
// `trace_non_roots` / `run_finalizer` visit the same ones). The newtype's one field is Boa's
// `JsObject<T>`, which is `Trace` itself (it marks the object's `Gc`), and `custom_trace!`
// makes each of the three methods call the field's, so the newtype visits exactly the `Gc`
// the `JsObject` does; its `Finalize` (run first by `run_finalizer`) is empty.
unsafe impl<T: NativeObject> Trace for Object<T> {
    custom_trace!(this, mark, mark(&this.0));
}

impl<T: NativeObject> From<JsObject<T>> for Object<T> {
    #[inline]
    fn from(object: JsObject<T>) -> Self {
        Self(object)
    }
}

impl<T: NativeObject> From<Object<T>> for JsObject<T> {
    #[inline]
    fn from(object: Object<T>) -> Self {
        object.0
    }
}

/// The objects Boa's typed wrappers wrap.
macro_rules! from_typed_wrapper {
    ($($wrapper:ty),*) => {$(
        impl From<$wrapper> for Object {
            #[inline]
            fn from(object: $wrapper) -> Self {
                Object(object.into())
            }
        }
    )*};
}
from_typed_wrapper!(
    boa_engine::object::builtins::JsArrayBuffer,
    boa_engine::object::builtins::JsFunction,
    boa_engine::object::builtins::JsPromise,
    boa_engine::object::builtins::JsArray
);
