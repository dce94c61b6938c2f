//! [`Object`], property descriptors, the containers for internal slots ([`Slot`], [`Shared`])
//! and the typed handles (`JsPromise`, `JsArrayBuffer`, `JsFunction`, `StandardConstructor`,
//! `Realm`).

use std::cell::{Ref, RefCell, RefMut};
use std::ops::Deref;

use super::core::{
    atom, check, check_status, current_ctx, data_of, new_native_object, q, Marker, NativeObject,
    Trace, NULL,
};
use super::{Cx, JsResult, PropertyKey, Value};

/// An object's native data when its type is not known.
#[derive(Debug)]
pub struct ErasedObjectData;

/// A JavaScript object; `Object<T>` is one whose native data is a `T`.
///
/// A typed `Object<T>` made by a downcast keeps a pointer to its `T` (the native data neither
/// moves nor goes away while the object lives, and the handle keeps it alive), so `borrow()`
/// is a load; otherwise the pointer is null and the data is looked up.
pub struct Object<T: NativeObject = ErasedObjectData>(Value, *const T);

impl Trace for ErasedObjectData {
    fn trace(&self, _: &mut Marker) {}
}

/// A shared borrow of an object, for reading its native data.
pub struct ObjectRef<'a, T: NativeObject>(&'a T);

// The Boa backend's borrow is a guard the spec layer ends with `drop`; this one holds no guard,
// but ends the same way.
impl<T: NativeObject> Drop for ObjectRef<'_, T> {
    fn drop(&mut self) {}
}

impl<T: NativeObject> ObjectRef<'_, T> {
    /// The object's native data.
    #[inline]
    pub fn data(&self) -> &T {
        self.0
    }
}

/// A shared borrow of an erased object's native data as a `T`.
pub struct DataRef<'a, T: NativeObject>(&'a T);

impl<T: NativeObject> Deref for DataRef<'_, T> {
    type Target = T;
    #[inline]
    fn deref(&self) -> &T {
        self.0
    }
}

/// The native data every erased object "has" (its data is read only through a downcast).
static ERASED: ErasedObjectData = ErasedObjectData;

impl<T: NativeObject> Object<T> {
    /// Wraps an object value (the caller checked that it is an object holding a `T`).
    #[inline]
    pub(crate) fn from_value_unchecked(value: Value) -> Self {
        Self(value, std::ptr::null())
    }

    /// The object as a value, borrowed.
    #[inline]
    pub(crate) fn as_value(&self) -> &Value {
        &self.0
    }

    /// The object as a value.
    #[inline]
    pub(crate) fn into_value(self) -> Value {
        self.0
    }

    /// The raw value, borrowed.
    #[inline]
    pub(crate) fn raw(&self) -> q::JSValue {
        self.0.raw()
    }

    /// Borrows the object to read its native data (`object.borrow().data()`).
    #[inline]
    pub fn borrow(&self) -> ObjectRef<'_, T> {
        // SAFETY: a non-null pointer was taken from this object's native data (see the type).
        if let Some(data) = unsafe { self.1.as_ref() } {
            return ObjectRef(data);
        }
        if let Some(data) = data_of::<T>(&self.0) {
            return ObjectRef(data);
        }
        // Assert: only `Object<ErasedObjectData>` gets here (a typed `Object<T>` comes from a
        // downcast that checked its data).
        let erased: &dyn std::any::Any = &ERASED;
        match erased.downcast_ref::<T>() {
            Some(data) => ObjectRef(data),
            None => unreachable!("an Object<T> always holds a T"), // Assert: as above.
        }
    }

    /// The same object, its native data's type forgotten.
    #[inline]
    pub fn upcast(self) -> Object {
        Object(self.0, std::ptr::null())
    }

    /// Whether `a` and `b` are the same object.
    #[inline]
    pub fn equals(a: &Self, b: &Self) -> bool {
        // SAFETY: reading pointers.
        unsafe { q::JS_VALUE_GET_PTR(a.raw()) == q::JS_VALUE_GET_PTR(b.raw()) }
    }
}

/// The current context, entered for one operation without a context argument.
fn current_cx() -> Option<Cx> {
    let ctx = current_ctx();
    // SAFETY: the current context is live while it is current.
    (!ctx.is_null()).then(|| unsafe { Cx::enter(ctx) })
}

impl Object {
    /// `? Get(object, key)`: may run script (a getter, a proxy trap).
    pub fn get(&self, key: impl Into<PropertyKey>, ctx: &mut Cx) -> JsResult<Value> {
        let atom = atom(ctx, &key.into())?;
        // SAFETY: a live context, object and atom (freed below).
        let raw = unsafe {
            let raw = q::JS_GetProperty(ctx.raw(), self.raw(), atom);
            q::JS_FreeAtom(ctx.raw(), atom);
            raw
        };
        check(ctx, raw)
    }

    /// `? DefinePropertyOrThrow(object, key, desc)`.
    pub fn define_property_or_throw(
        &self,
        key: impl Into<PropertyKey>,
        desc: impl Into<PropertyDescriptor>,
        ctx: &mut Cx,
    ) -> JsResult<bool> {
        let desc = desc.into();
        self.define(&key.into(), &desc, q::JS_PROP_THROW as i32, ctx)
    }

    fn define(
        &self,
        key: &PropertyKey,
        desc: &PropertyDescriptor,
        extra: i32,
        ctx: &mut Cx,
    ) -> JsResult<bool> {
        let atom = atom(ctx, key)?;
        let mut flags = extra;
        let undefined = Value::undefined();
        let value = desc.value.as_ref().unwrap_or(&undefined);
        let getter = desc.get.as_ref().unwrap_or(&undefined);
        let setter = desc.set.as_ref().unwrap_or(&undefined);
        if desc.value.is_some() {
            flags |= q::JS_PROP_HAS_VALUE as i32;
        }
        if desc.get.is_some() {
            flags |= q::JS_PROP_HAS_GET as i32;
        }
        if desc.set.is_some() {
            flags |= q::JS_PROP_HAS_SET as i32;
        }
        for (field, has, bit) in [
            (desc.writable, q::JS_PROP_HAS_WRITABLE, q::JS_PROP_WRITABLE),
            (
                desc.enumerable,
                q::JS_PROP_HAS_ENUMERABLE,
                q::JS_PROP_ENUMERABLE,
            ),
            (
                desc.configurable,
                q::JS_PROP_HAS_CONFIGURABLE,
                q::JS_PROP_CONFIGURABLE,
            ),
        ] {
            if let Some(on) = field {
                flags |= has as i32;
                if on {
                    flags |= bit as i32;
                }
            }
        }
        // SAFETY: a live context and values; JS_DefineProperty does not take ownership.
        let status = unsafe {
            let status = q::JS_DefineProperty(
                ctx.raw(),
                self.raw(),
                atom,
                value.raw(),
                getter.raw(),
                setter.raw(),
                flags,
            );
            q::JS_FreeAtom(ctx.raw(), atom);
            status
        };
        Ok(check_status(ctx, status)? != 0)
    }

    /// `! CreateDataPropertyOrThrow(object, key, value)`.
    pub fn create_data_property_or_throw(
        &self,
        key: impl Into<PropertyKey>,
        value: impl Into<Value>,
        ctx: &mut Cx,
    ) -> JsResult<bool> {
        let desc = PropertyDescriptor::builder()
            .value(value)
            .writable(true)
            .enumerable(true)
            .configurable(true)
            .build();
        self.define(&key.into(), &desc, q::JS_PROP_THROW as i32, ctx)
    }

    /// `? HasOwnProperty(object, key)`.
    pub fn has_own_property(&self, key: impl Into<PropertyKey>, ctx: &mut Cx) -> JsResult<bool> {
        let atom = atom(ctx, &key.into())?;
        // SAFETY: a live context, object and atom; no descriptor is asked for.
        let status = unsafe {
            let s = q::JS_GetOwnProperty(ctx.raw(), std::ptr::null_mut(), self.raw(), atom);
            q::JS_FreeAtom(ctx.raw(), atom);
            s
        };
        Ok(check_status(ctx, status)? != 0)
    }

    /// Whether `key` is an own enumerable property (`None` if it is not an own property):
    /// `[[GetOwnProperty]]`, which may run a proxy trap.
    pub fn own_property_enumerable(
        &self,
        key: impl Into<PropertyKey>,
        ctx: &mut Cx,
    ) -> JsResult<Option<bool>> {
        let atom = atom(ctx, &key.into())?;
        let mut desc = std::mem::MaybeUninit::<q::JSPropertyDescriptor>::zeroed();
        // SAFETY: a live context; the descriptor's values are freed when found.
        let status = unsafe {
            let s = q::JS_GetOwnProperty(ctx.raw(), desc.as_mut_ptr(), self.raw(), atom);
            q::JS_FreeAtom(ctx.raw(), atom);
            s
        };
        if check_status(ctx, status)? == 0 {
            return Ok(None);
        }
        // SAFETY: filled in by a successful JS_GetOwnProperty.
        let desc = unsafe { desc.assume_init() };
        let rt = ctx.rt();
        drop((
            Value::from_raw(rt, desc.value),
            Value::from_raw(rt, desc.getter),
            Value::from_raw(rt, desc.setter),
        ));
        Ok(Some(desc.flags & q::JS_PROP_ENUMERABLE as i32 != 0))
    }

    /// `? object.[[OwnPropertyKeys]]()`: strings (indices first) then symbols.
    pub fn own_property_keys(&self, ctx: &mut Cx) -> JsResult<Vec<PropertyKey>> {
        let mut tab: *mut q::JSPropertyEnum = std::ptr::null_mut();
        let mut len: u32 = 0;
        // SAFETY: a live context; the table is freed below.
        let status = unsafe {
            q::JS_GetOwnPropertyNames(
                ctx.raw(),
                &mut tab,
                &mut len,
                self.raw(),
                (q::JS_GPN_STRING_MASK | q::JS_GPN_SYMBOL_MASK) as i32,
            )
        };
        check_status(ctx, status)?;
        let mut keys = Vec::with_capacity(len as usize);
        // SAFETY: `tab` has `len` entries until freed.
        unsafe {
            for i in 0..len as usize {
                let atom = (*tab.add(i)).atom;
                let value = Value::from_raw(ctx.rt(), q::JS_AtomToValue(ctx.raw(), atom));
                keys.push(PropertyKey::from_value(&value));
            }
            q::JS_FreePropertyEnum(ctx.raw(), tab, len);
        }
        Ok(keys)
    }

    /// Defines an own property directly (on an object script has not seen): whether it was
    /// defined.
    pub fn insert_property(
        &self,
        key: impl Into<PropertyKey>,
        desc: impl Into<PropertyDescriptor>,
    ) -> bool {
        let Some(mut cx) = current_cx() else {
            return false;
        };
        let desc = desc.into();
        self.define(&key.into(), &desc, 0, &mut cx).unwrap_or(false)
    }

    /// Sets the object's [[Prototype]] (`None`: null): whether it was set.
    pub fn set_prototype(&self, prototype: Option<Object>) -> bool {
        let Some(cx) = current_cx() else {
            return false;
        };
        let proto = prototype.as_ref().map_or(NULL, Object::raw);
        // SAFETY: a live context and values.
        let status = unsafe { q::JS_SetPrototype(cx.raw(), self.raw(), proto) };
        if status < 0 {
            // SAFETY: clear the pending exception; the answer is "not set".
            drop(Value::from_raw(cx.rt(), unsafe {
                q::JS_GetException(cx.raw())
            }));
        }
        status > 0
    }

    /// `? Call(object, this, args)`.
    pub fn call(&self, this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
        super::call::call(&self.0, this, args, ctx)
    }

    /// Whether the object is callable.
    pub fn is_callable(&self) -> bool {
        let ctx = current_ctx();
        // SAFETY: a live context when one is current.
        !ctx.is_null() && unsafe { q::JS_IsFunction(ctx, self.raw()) }
    }

    /// Whether the object is an Array exotic object.
    pub fn is_array(&self) -> bool {
        // SAFETY: reading the class.
        unsafe { q::JS_IsArray(self.raw()) }
    }

    /// A new ordinary object with `prototype` (`None`: null) and native `data`.
    pub fn from_proto_and_data<U: NativeObject>(
        prototype: impl Into<Option<Object>>,
        data: U,
    ) -> Object {
        crate::engine::count_objects(1);
        let proto = prototype.into();
        let ctx = current_ctx();
        let value = new_native_object(ctx, proto.as_ref().map_or(NULL, Object::raw), data);
        Object::from_value_unchecked(value)
    }

    /// A new ordinary object with a null prototype and no native data.
    pub fn with_null_proto() -> Object {
        crate::engine::count_objects(1);
        let ctx = current_ctx();
        // SAFETY: the current context is live.
        let raw = unsafe { q::JS_NewObjectProto(ctx, NULL) };
        // SAFETY: as above.
        let rt = unsafe { q::JS_GetRuntime(ctx) };
        Object::from_value_unchecked(Value::from_raw(rt, raw))
    }

    /// The object as an `Object<U>`, if its native data is a `U`.
    pub fn downcast<U: NativeObject>(self) -> Result<Object<U>, Self> {
        match data_of::<U>(&self.0).map(std::ptr::from_ref) {
            Some(data) => Ok(Object(self.0, data)),
            None => Err(self),
        }
    }

    /// Borrows the native data as a `U`, if it is one.
    pub fn downcast_ref<U: NativeObject>(&self) -> Option<DataRef<'_, U>> {
        data_of::<U>(&self.0).map(DataRef)
    }

    /// Whether the native data is a `U`.
    pub fn is<U: NativeObject>(&self) -> bool {
        data_of::<U>(&self.0).is_some()
    }
}

impl<T: NativeObject> Clone for Object<T> {
    #[inline]
    fn clone(&self) -> Self {
        Self(self.0.clone(), self.1)
    }
}
impl<T: NativeObject> PartialEq for Object<T> {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        Self::equals(self, other)
    }
}
impl<T: NativeObject> Eq for Object<T> {}
impl<T: NativeObject> std::hash::Hash for Object<T> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        // SAFETY: reading a pointer.
        (unsafe { q::JS_VALUE_GET_PTR(self.raw()) } as usize).hash(state);
    }
}
impl<T: NativeObject> std::fmt::Debug for Object<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // SAFETY: reading a pointer.
        write!(f, "Object({:p})", unsafe {
            q::JS_VALUE_GET_PTR(self.raw())
        })
    }
}
impl<T: NativeObject> Trace for Object<T> {
    #[inline]
    fn trace(&self, m: &mut Marker) {
        self.0.trace(m);
    }
}

// ---------------------------------------------------------------------------------------------
// Property descriptors
// ---------------------------------------------------------------------------------------------

/// A property descriptor (any field may be absent).
#[derive(Clone, Debug, Default)]
pub struct PropertyDescriptor {
    pub(crate) value: Option<Value>,
    pub(crate) get: Option<Value>,
    pub(crate) set: Option<Value>,
    pub(crate) writable: Option<bool>,
    pub(crate) enumerable: Option<bool>,
    pub(crate) configurable: Option<bool>,
}

/// Builds a [`PropertyDescriptor`].
#[derive(Clone, Debug, Default)]
pub struct PropertyDescriptorBuilder(PropertyDescriptor);

impl PropertyDescriptor {
    /// A builder with no field set.
    pub fn builder() -> PropertyDescriptorBuilder {
        PropertyDescriptorBuilder::default()
    }
}

impl PropertyDescriptorBuilder {
    /// [[Value]].
    pub fn value(mut self, value: impl Into<Value>) -> Self {
        self.0.value = Some(value.into());
        self
    }
    /// [[Get]].
    pub fn get(mut self, getter: impl Into<Value>) -> Self {
        self.0.get = Some(getter.into());
        self
    }
    /// [[Set]].
    pub fn set(mut self, setter: impl Into<Value>) -> Self {
        self.0.set = Some(setter.into());
        self
    }
    /// [[Writable]].
    pub fn writable(mut self, writable: bool) -> Self {
        self.0.writable = Some(writable);
        self
    }
    /// [[Enumerable]].
    pub fn enumerable(mut self, enumerable: bool) -> Self {
        self.0.enumerable = Some(enumerable);
        self
    }
    /// [[Configurable]].
    pub fn configurable(mut self, configurable: bool) -> Self {
        self.0.configurable = Some(configurable);
        self
    }
    /// The descriptor.
    pub fn build(self) -> PropertyDescriptor {
        self.0
    }
}

impl From<PropertyDescriptorBuilder> for PropertyDescriptor {
    fn from(b: PropertyDescriptorBuilder) -> Self {
        b.0
    }
}

// ---------------------------------------------------------------------------------------------
// Slots
// ---------------------------------------------------------------------------------------------

/// The cell behind the contract's `Slot` (`../slot.rs`): a `RefCell`, which the collector
/// traces through the `Trace` impl in `core.rs`.
pub(crate) type SlotCell<T> = RefCell<T>;
pub(crate) type SlotCellRef<'a, T> = Ref<'a, T>;
pub(crate) type SlotCellMut<'a, T> = RefMut<'a, T>;

/// A traced shared pointer: an object of our native class (never an `Rc`, so that the cycle
/// collector sees each holder's reference once).
pub struct Shared<T: Trace + 'static> {
    object: Value,
    /// The value inside the object's native data: it neither moves nor goes away while the
    /// object lives, and `object` keeps the object alive.
    ptr: *const T,
}

impl<T: Trace + 'static> Shared<T> {
    /// A shared pointer to `value` (in the current context's runtime).
    pub fn new(value: T) -> Self {
        // A JS object of our class (what QuickJS's collector traces through).
        crate::engine::count_objects(1);
        let ctx = current_ctx();
        let object = new_native_object(ctx, NULL, SharedCell(value));
        // Assert: `object` is a new object of our native class holding a `SharedCell<T>`
        // (`new_native_object` never returns without one).
        let ptr = data_of::<SharedCell<T>>(&object).map_or(std::ptr::null(), |cell| &cell.0);
        Self { object, ptr }
    }
    /// Whether `a` and `b` point to the same value.
    pub fn ptr_eq(a: &Self, b: &Self) -> bool {
        std::ptr::eq(a.ptr, b.ptr)
    }
}

/// What a [`Shared`]'s object holds.
struct SharedCell<T: Trace + 'static>(T);
impl<T: Trace + 'static> Trace for SharedCell<T> {
    fn trace(&self, m: &mut Marker) {
        self.0.trace(m);
    }
}

impl<T: Trace + 'static> Clone for Shared<T> {
    fn clone(&self) -> Self {
        Self {
            object: self.object.clone(),
            ptr: self.ptr,
        }
    }
}
impl<T: Trace + 'static> Deref for Shared<T> {
    type Target = T;
    #[inline]
    fn deref(&self) -> &T {
        // Assert: `ptr` is not null (see `Shared::new`); it points into the native data of the
        // object `self.object` keeps alive, which only the object's finalizer drops.
        // SAFETY: as asserted.
        unsafe { &*self.ptr }
    }
}
impl<T: Trace + std::fmt::Debug + 'static> std::fmt::Debug for Shared<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Shared").field(&**self).finish()
    }
}
impl<T: Trace + 'static> Trace for Shared<T> {
    fn trace(&self, m: &mut Marker) {
        self.object.trace(m);
    }
}

// ---------------------------------------------------------------------------------------------
// Typed handles
// ---------------------------------------------------------------------------------------------

macro_rules! handles {
    ($($(#[$doc:meta])* $name:ident),*) => {$(
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq, Eq, Hash)]
        pub struct $name(pub(crate) Object);

        impl Trace for $name {
            fn trace(&self, m: &mut Marker) {
                self.0.trace(m);
            }
        }
        impl From<$name> for Value {
            fn from(h: $name) -> Self {
                h.0.into_value()
            }
        }
        impl From<$name> for Object {
            fn from(h: $name) -> Self {
                h.0
            }
        }
    )*};
}
handles!(
    /// A promise object.
    JsPromise,
    /// An `ArrayBuffer` object.
    JsArrayBuffer,
    /// A function object.
    JsFunction
);

/// An interface object and its prototype.
#[derive(Clone, Debug)]
pub struct StandardConstructor {
    pub(crate) constructor: Object,
    pub(crate) prototype: Object,
}

impl StandardConstructor {
    /// The interface object.
    pub fn constructor(&self) -> Object {
        self.constructor.clone()
    }
    /// The interface prototype object.
    pub fn prototype(&self) -> Object {
        self.prototype.clone()
    }
}

impl Trace for StandardConstructor {
    fn trace(&self, m: &mut Marker) {
        self.constructor.trace(m);
        self.prototype.trace(m);
    }
}

/// A realm: a reference to a QuickJS context.
pub struct Realm(pub(crate) *mut q::JSContext);

impl Realm {
    /// A new reference to `ctx`.
    pub(crate) fn of(ctx: *mut q::JSContext) -> Self {
        // SAFETY: a live context; the reference is released on drop.
        Self(unsafe { q::JS_DupContext(ctx) })
    }
}
impl Clone for Realm {
    fn clone(&self) -> Self {
        Self::of(self.0)
    }
}
impl Drop for Realm {
    fn drop(&mut self) {
        // SAFETY: we hold one reference.
        unsafe { q::JS_FreeContext(self.0) }
    }
}
impl PartialEq for Realm {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}
impl std::fmt::Debug for Realm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Realm({:p})", self.0)
    }
}
impl Trace for Realm {
    fn trace(&self, m: &mut Marker) {
        m.mark_context(self.0);
    }
}
