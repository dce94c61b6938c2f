//! [`Object`], property descriptors, the containers for internal slots ([`Slot`], [`Shared`])
//! and the typed handles (`JsPromise`, `JsArrayBuffer`, `JsFunction`, `StandardConstructor`,
//! `Realm`).

use std::alloc::Layout;
use std::cell::{Cell, Ref, RefCell, RefMut};
use std::ffi::c_void;
use std::marker::PhantomData;
use std::ops::Deref;
use std::ptr::NonNull;

use super::core::{
    atom, check, check_status, current_ctx, data_of, new_native_object, q, take_exception, GcPass,
    Marker, NativeObject, Trace, NULL,
};
use super::{Cx, JsResult, PropertyKey, Value};
use crate::engine::pool;

/// An object's native data when its type is not known.
#[derive(Debug)]
pub struct ErasedObjectData;

/// A JavaScript object; `Object<T>` is one whose native data is a `T`.
///
/// A typed `Object<T>` made by a downcast keeps a pointer to its `T`, so `borrow()` is a load;
/// otherwise the pointer is null and the data is looked up.
///
/// # Invariant
/// What the `unsafe` blocks below rely on (cited as "`Object`'s invariant"):
/// 1. The value is an object, or `undefined` where making one failed (out of memory: the
///    constructors that cannot report it hand out `Value::undefined()`); the calls below take
///    either (QuickJS checks the tag, and throws or answers "no" for a non-object).
/// 2. The pointer is null, or points to the `T` in the native data of the object the value
///    holds: only [`Object::downcast`] sets it, from `data_of`, and
///    [`Object::from_new_native`], from `new_native_object`; clones copy it along
///    with the value. That data neither moves nor goes away while the object lives, and is
///    only ever shared-borrowed (`Native`'s invariant); the value keeps the object alive.
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

    /// Wraps a new object of our native class and the address of its `T` data (what
    /// `new_native_object` returns: the pair `Object`'s invariant, point 2, describes).
    #[inline]
    pub(crate) fn from_new_native(made: (Value, *const T)) -> Self {
        Self(made.0, made.1)
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
        // SAFETY: the pointer is null or points to the `T` in this object's native data
        // (`Object`'s invariant, point 2), which stays allocated and unchanged while `self.0`
        // keeps the object alive, that is for the borrow of `self` the reference is tied to,
        // and is never borrowed mutably.
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
        a.address() == b.address()
    }

    /// The object's address, which identifies it while it lives (null for the `undefined` a
    /// failed allocation leaves).
    #[inline]
    fn address(&self) -> *mut c_void {
        if !self.0.is_object() {
            return std::ptr::null_mut();
        }
        // SAFETY: an object: QuickJS made the `JSValue` with `JS_MKPTR`, so the pointer member
        // of its payload is initialized (`Value`'s invariant, point 2), and reading it touches
        // nothing else. (Checked first: the payload of a non-object may be partly
        // uninitialized.)
        unsafe { q::JS_VALUE_GET_PTR(self.raw()) }
    }
}

/// A handle on the current context, for one operation without a context argument (`None`
/// outside any entry).
///
/// The caller keeps the handle as a local of that operation and drops it before returning: it
/// then nests inside the `Cx` that made the context current, which outlives the operation.
fn current_cx() -> Option<Cx> {
    let ctx = current_ctx();
    // SAFETY: `Cx::enter`'s contract. A non-null current context is the `raw` of the innermost
    // `Cx` alive on this thread, so it is live, of a runtime set up by `Agent::install`, with
    // its realm state installed (`current_ctx`'s invariant), for as long as that `Cx` lives.
    // The handle is dropped before it (the callers keep it for one operation, above) and is
    // never leaked, so handles nest.
    (!ctx.is_null()).then(|| unsafe { Cx::enter(ctx) })
}

/// Whether `raw`, an object a live `Value` owns a count of, is callable (as
/// [`Object::is_callable`]).
#[inline]
pub(super) fn is_callable_raw(raw: q::JSValue) -> bool {
    let ctx = current_ctx();
    // SAFETY: a non-null current context is live (`current_ctx`'s invariant), of the object's
    // runtime (`Value`'s invariant, point 4); `JS_IsFunction` reads the value's tag, and for an
    // object (alive: a value owns a count of it, the caller's contract) its class and, through
    // the context, the runtime's class table. It runs no script.
    !ctx.is_null() && unsafe { q::JS_IsFunction(ctx, raw) }
}

impl Object {
    /// `? Get(object, key)`: may run script (a getter, a proxy trap).
    pub fn get(&self, key: impl Into<PropertyKey>, ctx: &mut Cx) -> JsResult<Value> {
        let atom = atom(ctx, &key.into())?;
        // SAFETY: `ctx`'s context is live (`Cx`'s invariant); the object is a live value of its
        // runtime (`Value`'s invariant), borrowed for the call, and `atom` a live atom we own.
        // A getter or a proxy trap may run script: `ctx` is borrowed mutably, so nothing the
        // caller holds depends on the heap staying as it is. The result is owned, or
        // `JS_EXCEPTION`, as `check` takes it.
        let raw = unsafe { q::JS_GetProperty(ctx.raw(), self.raw(), atom) };
        // SAFETY: `ctx` is live; `atom` is ours (from `atom` above), given back once.
        unsafe { q::JS_FreeAtom(ctx.raw(), atom) };
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
        // SAFETY: `ctx`'s context is live (`Cx`'s invariant); the object, `value`, `getter`
        // and `setter` are live values of its runtime (`Value`'s invariant), borrowed for the
        // call (`JS_DefineProperty` takes `JSValueConst`s and dups what it stores), and `atom`
        // a live atom we own. A proxy trap, or the conversion of an array's new `length`, may
        // run script, with `ctx` borrowed mutably and the descriptor's values owned by `desc`
        // for the whole call.
        let status = unsafe {
            q::JS_DefineProperty(
                ctx.raw(),
                self.raw(),
                atom,
                value.raw(),
                getter.raw(),
                setter.raw(),
                flags,
            )
        };
        // SAFETY: `ctx` is live; `atom` is ours (from `atom` above), given back once.
        unsafe { q::JS_FreeAtom(ctx.raw(), atom) };
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
        // SAFETY: `ctx`'s context is live (`Cx`'s invariant); the object is a live value of its
        // runtime (`Value`'s invariant), borrowed, and `atom` a live atom we own. A null
        // descriptor asks for none: QuickJS writes nothing through it (a proxy's trap result
        // is freed instead). A trap may run script, with `ctx` borrowed mutably.
        let status =
            unsafe { q::JS_GetOwnProperty(ctx.raw(), std::ptr::null_mut(), self.raw(), atom) };
        // SAFETY: `ctx` is live; `atom` is ours (from `atom` above), given back once.
        unsafe { q::JS_FreeAtom(ctx.raw(), atom) };
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
        // SAFETY: `ctx`'s context is live (`Cx`'s invariant); the object is a live value of its
        // runtime (`Value`'s invariant), borrowed, and `atom` a live atom we own. `desc` is
        // valid for writes of one descriptor, which QuickJS fills in only when it finds the
        // property. A proxy's trap may run script, with `ctx` borrowed mutably.
        let status =
            unsafe { q::JS_GetOwnProperty(ctx.raw(), desc.as_mut_ptr(), self.raw(), atom) };
        // SAFETY: `ctx` is live; `atom` is ours (from `atom` above), given back once.
        unsafe { q::JS_FreeAtom(ctx.raw(), atom) };
        if check_status(ctx, status)? == 0 {
            return Ok(None);
        }
        // SAFETY: the descriptor was zeroed, and all-zero bytes are a valid
        // `JSPropertyDescriptor` (flags 0, three `JSValue`s with tag 0, `JS_TAG_INT`, and an
        // initialized payload); QuickJS wrote whole fields over that (all four for a found
        // property, in `JS_GetOwnPropertyInternal2` and a proxy's `js_obj_to_desc`).
        let desc = unsafe { desc.assume_init() };
        let rt = ctx.rt();
        // The three values are owned by us (QuickJS dups what it writes; `undefined` and a
        // zeroed field have no count): `Value::from_raw`'s contract, and dropping the values
        // gives the counts back.
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
        // SAFETY: `ctx`'s context is live (`Cx`'s invariant) and the object a live value of its
        // runtime (`Value`'s invariant), borrowed. `tab` and `len` are valid for QuickJS to
        // write (a table we own on success, null and 0 on failure). A proxy's `ownKeys` trap
        // may run script, with `ctx` borrowed mutably.
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
        for i in 0..len as usize {
            // SAFETY: on success `tab` points to `len` initialized entries that we own until
            // `JS_FreePropertyEnum` below, and `i < len`, so the entry read is in bounds.
            let atom = unsafe { (*tab.add(i)).atom };
            // SAFETY: `ctx` is live (`Cx`'s invariant) and `atom` a live atom (the table holds
            // a count of it), borrowed. The result is an owned string or symbol of `ctx`'s
            // runtime (or `JS_EXCEPTION`, which has no count): `Value::from_raw`'s contract.
            // Converting an atom runs no script.
            let raw = unsafe { q::JS_AtomToValue(ctx.raw(), atom) };
            let value = Value::from_raw(ctx.rt(), raw);
            keys.push(PropertyKey::from_value(&value));
        }
        // SAFETY: `ctx` is live; `tab` and its `len` atoms are ours (the successful
        // `JS_GetOwnPropertyNames` above), given back once, and not read again.
        unsafe { q::JS_FreePropertyEnum(ctx.raw(), tab, len) };
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

    /// Sets the object's [[Prototype]] (`None`: null): whether it was set. (On a proxy this
    /// runs its `setPrototypeOf` trap, and a refusal throws, which may run script too: meant
    /// for objects the layer made.)
    pub fn set_prototype(&self, prototype: Option<Object>) -> bool {
        let Some(mut cx) = current_cx() else {
            return false;
        };
        let proto = prototype.as_ref().map_or(NULL, Object::raw);
        // SAFETY: `cx`'s context is live (`Cx`'s invariant); the object and `proto` (null, or
        // the live object `prototype` holds) are values of its runtime (`Value`'s invariant),
        // borrowed for the call (QuickJS dups the prototype it stores). Script that runs (a
        // trap) finds `cx` entered as the current context, and nothing here borrowed from the
        // heap.
        let status = unsafe { q::JS_SetPrototype(cx.raw(), self.raw(), proto) };
        if status < 0 {
            // The answer is "not set": the pending exception is cleared.
            drop(take_exception(&mut cx));
        }
        status > 0
    }

    /// `? Call(object, this, args)`.
    pub fn call(&self, this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
        super::call::call(&self.0, this, args, ctx)
    }

    /// Whether the object is callable.
    pub fn is_callable(&self) -> bool {
        is_callable_raw(self.raw())
    }

    /// Whether the object is an Array exotic object.
    pub fn is_array(&self) -> bool {
        // SAFETY: `JS_IsArray` reads the tag, and for an object its class id: the value owns a
        // count of it (`Value`'s invariant), so it is allocated.
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
        let (value, _) = new_native_object(ctx, proto.as_ref().map_or(NULL, Object::raw), data);
        Object::from_value_unchecked(value)
    }

    /// A new ordinary object of `ctx`'s realm with a null prototype and no native data.
    pub fn with_null_proto(ctx: &mut Cx) -> Object {
        crate::engine::count_objects(1);
        // SAFETY: `ctx`'s context is live (`Cx`'s invariant); `NULL` has no count. The result
        // is owned, or `JS_EXCEPTION`, as `check` takes it.
        let raw = unsafe { q::JS_NewObjectProto(ctx.raw(), NULL) };
        Object::from_value_unchecked(check(ctx, raw).unwrap_or_default())
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
        (self.address() as usize).hash(state);
    }
}
impl<T: NativeObject> std::fmt::Debug for Object<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Object({:p})", self.address())
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
///
/// # Invariant
/// `ptr` points to the `T` in the native data (a `SharedCell<T>`) of the object `object`
/// holds: `Shared::new` takes it from the new object's data (never null), and clones copy it
/// along with `object`. That data neither moves nor goes away while the object lives, and is
/// only ever shared-borrowed (`Native`'s invariant); `object` keeps the object alive.
pub struct Shared<T: Trace + 'static> {
    object: Value,
    ptr: *const T,
}

impl<T: Trace + 'static> Shared<T> {
    /// A shared pointer to `value` (in the current context's runtime).
    pub fn new(value: T) -> Self {
        // A JS object of our class (what QuickJS's collector traces through).
        crate::engine::count_objects(1);
        let ctx = current_ctx();
        let (object, cell) = new_native_object(ctx, NULL, SharedCell(value));
        // `cell` is the address of the `SharedCell<T>` in the new object's native data
        // (`new_native_object`'s result), so its field is the `T` `Shared`'s invariant names.
        // SAFETY: `cell` points to live data that `object` keeps alive; taking a field's
        // address reads nothing.
        let ptr: *const T = unsafe { &raw const (*cell).0 };
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
        // SAFETY: `ptr` points to the `T` in the native data of the object `self.object` keeps
        // alive (`Shared`'s invariant): allocated, unchanged and never borrowed mutably for as
        // long as the borrow of `self` the reference is tied to.
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

/// A traced shared pointer outside the QuickJS heap, for state that is never part of a cycle
/// made only of such pointers (a cycle through it passes through a QuickJS object): an `Rc`,
/// whose node takes part in the cycle collector's passes ([`GcPass`]) as follows.
///
/// - **First pass** (`gc_decref`): each visit from a traced holder (an object's native data,
///   or another node being traced) counts. The visit that makes the count equal to the `Rc`'s
///   strong count, which means that every holder is traced, traces the value once: its
///   children lose the counts the node holds, as an object's would. A node with a holder the
///   collector does not see (a Rust local, a queued microtask, an exclusively borrowed slot) never
///   gets there, and acts as a root: what it holds stays alive, as anything Rust holds does.
/// - **Second and third passes**: the first visit to a node whose value was traced in the first
///   pass traces it again, so its children get their counts back (rescued if the visit comes from
///   a live holder, restored for freeing otherwise). Every holder visited in the first pass is
///   visited in one of these, so each traced node is restored exactly once.
///
/// So a cycle through a QuickJS object and nodes is collected as if the nodes were part of that
/// object. A cycle of nodes alone would never be: `new`'s callers keep to the rule above
/// (ARCHITECTURE.md, "The QuickJS backend").
///
/// The node is counted as an `Rc` would be (strong references only), and its block comes from
/// the thread's pool of small blocks (`engine/pool.rs`): internal promises are made and dropped several
/// times a chunk, and a pooled block costs a fraction of a `malloc` and a `free`.
///
/// # Invariant
/// The pointer points to a live `Node<T>` in a block [`pool::take`] returned for its layout,
/// whose `count` is the number of `AcyclicShared` values pointing to it (at least this one). The
/// last one to drop drops the node and gives the block back. Like `Rc`, it is neither `Send`
/// nor `Sync` (a raw pointer's marker), so the count is only ever touched on one thread.
pub struct AcyclicShared<T: Trace + 'static>(NonNull<Node<T>>, PhantomData<Node<T>>);

/// An [`AcyclicShared`]'s allocation: the value and the node's state in the current collection.
struct Node<T> {
    /// The number of `AcyclicShared` values pointing here.
    count: Cell<usize>,
    /// The collection the state below belongs to (older state is stale: reset on first visit).
    epoch: Cell<u32>,
    /// Visits from traced holders in the first pass.
    visits: Cell<u32>,
    /// Whether the value was traced in the first pass, and whether it was again since.
    traced: Cell<(bool, bool)>,
    value: T,
}

#[cfg(debug_assertions)]
thread_local! {
    /// The nodes alive on this thread (debug builds): see [`assert_no_nodes_left`].
    static LIVE_NODES: Cell<usize> = const { Cell::new(0) };
}

/// Debug builds: once no runtime of this thread has its agent, no node may be left. A node
/// that outlives every runtime is a ring of nodes (which no collector frees: the rule above
/// forbids one) or a node a holder leaked; QuickJS's own check at `JS_FreeRuntime` sees
/// neither when the ring holds no QuickJS object. Call it after freeing a runtime.
pub(crate) fn assert_no_nodes_left() {
    #[cfg(debug_assertions)]
    if !super::core::any_agent() && !std::thread::panicking() {
        let left = LIVE_NODES.with(Cell::get);
        assert_eq!(
            left, 0,
            "AcyclicShared nodes left when the thread's last runtime is freed (a ring of nodes, \
             or a leaked holder)"
        );
    }
}

impl<T> Drop for Node<T> {
    #[inline]
    fn drop(&mut self) {
        #[cfg(debug_assertions)]
        LIVE_NODES.with(|n| n.set(n.get() - 1));
    }
}

impl<T: Trace + 'static> AcyclicShared<T> {
    /// A shared pointer to `value` (no QuickJS object is made).
    #[inline]
    pub fn new(value: T) -> Self {
        #[cfg(debug_assertions)]
        LIVE_NODES.with(|n| n.set(n.get() + 1));
        let node = Node {
            count: Cell::new(1),
            epoch: Cell::new(0),
            visits: Cell::new(0),
            traced: Cell::new((false, false)),
            value,
        };
        let layout = Layout::new::<Node<T>>();
        // (`Node` has a count, so its size is never zero, as `pool::take` requires.)
        let Some(block) = pool::take(layout) else {
            std::alloc::handle_alloc_error(layout);
        };
        let block = block.cast::<Node<T>>();
        // SAFETY: the block is fresh (no one else uses it), sized and aligned for a
        // `Node<T>` (`pool::take`'s promise for the layout): writing moves the node in, and from
        // here the invariant holds with a count of one.
        unsafe { block.as_ptr().write(node) };
        Self(block, PhantomData)
    }

    /// The node.
    #[inline(always)]
    fn node(&self) -> &Node<T> {
        // SAFETY: the node is live while any `AcyclicShared` to it is (the invariant), and
        // only shared references to it are ever made.
        unsafe { self.0.as_ref() }
    }

    /// Whether this is the only pointer to its value (no clone of it is alive anywhere), so
    /// that no one else can see a change made through it.
    #[inline]
    pub fn is_unique(&self) -> bool {
        self.node().count.get() == 1
    }

    /// Whether `a` and `b` point to the same value (the contract's, as `Shared::ptr_eq`; only
    /// tests use it now).
    #[inline]
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn ptr_eq(a: &Self, b: &Self) -> bool {
        a.0 == b.0
    }
}

impl<T: Trace + 'static> Clone for AcyclicShared<T> {
    #[inline]
    fn clone(&self) -> Self {
        let count = &self.node().count;
        // As `Rc`, abort rather than wrap (which takes `usize::MAX` clones leaked).
        let Some(more) = count.get().checked_add(1) else {
            std::process::abort();
        };
        count.set(more);
        Self(self.0, PhantomData)
    }
}

impl<T: Trace + 'static> AcyclicShared<T> {
    /// Drops the node and gives its block back (the last `AcyclicShared` to it is dropping),
    /// out of line, so that dropping one of several stays a decrement where it is inlined.
    ///
    /// # Safety
    /// `self` was the last `AcyclicShared` to the node (its count just reached 0), and is not
    /// used afterwards.
    #[inline(never)]
    unsafe fn drop_node(&mut self) {
        // SAFETY: the last `AcyclicShared` to the node (the contract, per the invariant's
        // count), so nothing else reads it: it is dropped once, then its block, which
        // `pool::take` returned for this layout in `new`, goes back.
        unsafe {
            self.0.as_ptr().drop_in_place();
            pool::give_back(self.0.cast(), Layout::new::<Node<T>>());
        }
    }
}

impl<T: Trace + 'static> Drop for AcyclicShared<T> {
    #[inline(always)]
    fn drop(&mut self) {
        let count = &self.node().count;
        let left = count.get() - 1;
        count.set(left);
        if left == 0 {
            // SAFETY: this was the last `AcyclicShared` to the node (the count just reached 0),
            // being dropped.
            unsafe { self.drop_node() };
        }
    }
}

impl<T: Trace + 'static> Deref for AcyclicShared<T> {
    type Target = T;
    #[inline]
    fn deref(&self) -> &T {
        &self.node().value
    }
}

impl<T: Trace + std::fmt::Debug + 'static> std::fmt::Debug for AcyclicShared<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("AcyclicShared").field(&**self).finish()
    }
}

impl<T: Trace + 'static> Trace for AcyclicShared<T> {
    fn trace(&self, m: &mut Marker) {
        let node = self.node();
        if node.epoch.get() != m.epoch {
            node.epoch.set(m.epoch);
            node.visits.set(0);
            node.traced.set((false, false));
        }
        match m.pass {
            GcPass::Decref => {
                let visits = node.visits.get().saturating_add(1);
                node.visits.set(visits);
                if visits as usize == node.count.get() {
                    node.traced.set((true, false));
                    node.value.trace(m);
                }
            }
            GcPass::Scan | GcPass::Restore => {
                if node.traced.get() == (true, false) {
                    node.traced.set((true, true));
                    node.value.trace(m);
                }
            }
        }
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
///
/// # Invariant
/// The realm owns one reference count of the live context it holds (taken by `Realm::of`,
/// the only constructor; the field is only read elsewhere), given back on drop. Like a
/// `Value`, it holds a raw pointer, so it is neither `Send` nor `Sync` and stays on the
/// runtime's thread, and the backend drops every realm it keeps before `JS_FreeRuntime`
/// (`Value`'s invariant, point 3, which the host keeps for both).
pub struct Realm(pub(crate) *mut q::JSContext);

impl Realm {
    /// A new reference to `ctx`, a live context of this backend (a `Cx`'s, or one a `Realm`
    /// holds: every caller passes one of these).
    pub(crate) fn of(ctx: *mut q::JSContext) -> Self {
        // SAFETY: `ctx` is live (this function's contract above); `JS_DupContext` increments
        // its reference count, which the new `Realm` owns (`Realm`'s invariant).
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
        // SAFETY: the realm owns one count of the live context `self.0` (`Realm`'s invariant),
        // given back once: `self` is being dropped. This runs on the runtime's thread, before
        // `JS_FreeRuntime`; should it be the last count, QuickJS frees the context then.
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
