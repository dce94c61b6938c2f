//! The stub backend: the engine API with no engine behind it. Every type is an empty shell and
//! every function body is `unimplemented!()`; nothing here runs. It exists so that the
//! compiler proves the spec layer reaches no engine item outside this API:
//! `cargo check --no-default-features --features engine-stub` type-checks the whole library
//! (every layer but the host, which is the Boa embedding) against it, and fails on any name
//! the Boa backend has that the API does not.
//!
//! A second backend implements the same items; this file is the checklist of what it must
//! provide (ARCHITECTURE.md, "The engine API").
#![allow(
    unused_variables,
    clippy::missing_const_for_fn,
    clippy::needless_pass_by_value
)]

use std::marker::PhantomData;

use super::{TypedArrayKind, ViewKind, ViewRecord};

// ---------------------------------------------------------------------------------------------
// Traits and macros
// ---------------------------------------------------------------------------------------------

/// Traced by the engine's garbage collector (every type, in the stub).
pub trait Trace {}
impl<T: ?Sized> Trace for T {}

/// What a traced type's collector runs before it frees the value (nothing, in the stub).
pub trait Finalize {}
impl<T: ?Sized> Finalize for T {}

/// Native object data: what an `Object<T>` holds.
pub trait NativeObject: std::any::Any {}
impl<T: std::any::Any> NativeObject for T {}

/// `js_string!`: a string from a literal or an expression, or the empty string.
macro_rules! js_string {
    () => {
        $crate::engine::JsString::default()
    };
    ($text:expr) => {
        $crate::engine::JsString::from($text)
    };
}
pub(crate) use js_string;

// ---------------------------------------------------------------------------------------------
// Types
// ---------------------------------------------------------------------------------------------

/// The execution context (no value of it exists in the stub).
pub struct Cx {
    _private: (),
}

/// A function's native behaviour: `this`, the arguments, the context.
pub type NativeFunctionPointer = fn(&Value, &[Value], &mut Cx) -> JsResult<Value>;

/// A JavaScript value.
#[derive(Clone, Default, PartialEq, Eq, Hash, Debug)]
pub struct Value(());

/// An object's native data when its type is not known.
#[derive(Debug)]
pub struct ErasedObjectData;

/// A JavaScript object, `Object<T>` when its native data is a `T`.
pub struct Object<T: NativeObject = ErasedObjectData>(PhantomData<T>);

impl<T: NativeObject> Clone for Object<T> {
    fn clone(&self) -> Self {
        unimplemented!()
    }
}
impl<T: NativeObject> PartialEq for Object<T> {
    fn eq(&self, _: &Self) -> bool {
        unimplemented!()
    }
}
impl<T: NativeObject> Eq for Object<T> {}
impl<T: NativeObject> std::hash::Hash for Object<T> {
    fn hash<H: std::hash::Hasher>(&self, _: &mut H) {
        unimplemented!()
    }
}
impl<T: NativeObject> std::fmt::Debug for Object<T> {
    fn fmt(&self, _: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        unimplemented!()
    }
}

/// A shared borrow of an object.
pub struct ObjectRef<'a, T: NativeObject>(PhantomData<&'a T>);

/// A shared borrow of an object's native data as a `T`.
pub struct DataRef<'a, T: NativeObject>(PhantomData<&'a T>);

impl<T: NativeObject> std::ops::Deref for DataRef<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        unimplemented!()
    }
}

/// A JavaScript string.
#[derive(Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct JsString(());

impl From<&str> for JsString {
    fn from(_: &str) -> Self {
        unimplemented!()
    }
}
impl From<String> for JsString {
    fn from(_: String) -> Self {
        unimplemented!()
    }
}
impl From<&String> for JsString {
    fn from(_: &String) -> Self {
        unimplemented!()
    }
}
impl From<&[u16]> for JsString {
    fn from(_: &[u16]) -> Self {
        unimplemented!()
    }
}
impl PartialEq<str> for JsString {
    fn eq(&self, _: &str) -> bool {
        unimplemented!()
    }
}
impl PartialEq<&str> for JsString {
    fn eq(&self, _: &&str) -> bool {
        unimplemented!()
    }
}

/// A thrown value or an uncatchable engine error.
#[derive(Clone, Debug)]
pub struct JsError(());

impl std::fmt::Display for JsError {
    fn fmt(&self, _: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        unimplemented!()
    }
}

/// What an operation that can throw returns.
pub type JsResult<T> = Result<T, JsError>;

/// Declares the stub's handle types.
macro_rules! handles {
    ($($(#[$doc:meta])* $name:ident),*) => {$(
        $(#[$doc])*
        #[derive(Clone, Debug)]
        pub struct $name(());
    )*};
}
handles!(
    /// A promise object.
    JsPromise,
    /// An `ArrayBuffer` object.
    JsArrayBuffer,
    /// A function object.
    JsFunction,
    /// A symbol.
    JsSymbol,
    /// An interface object and its prototype.
    StandardConstructor,
    /// A realm.
    Realm
);

/// A property key.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PropertyKey(());

impl From<PropertyKey> for Value {
    fn from(key: PropertyKey) -> Self {
        unimplemented!()
    }
}

/// A property descriptor.
#[derive(Clone, Debug, Default)]
pub struct PropertyDescriptor(());

/// Builds a [`PropertyDescriptor`].
#[derive(Clone, Debug, Default)]
pub struct PropertyDescriptorBuilder(());

impl From<PropertyDescriptorBuilder> for PropertyDescriptor {
    fn from(_: PropertyDescriptorBuilder) -> Self {
        unimplemented!()
    }
}

/// The conversions of the engine's types.
macro_rules! conversions {
    ($($from:ty => $to:ty),* $(,)?) => {$(
        impl From<$from> for $to {
            fn from(_: $from) -> Self {
                unimplemented!()
            }
        }
    )*};
}
conversions!(
    bool => Value, f64 => Value, i32 => Value, u32 => Value, u64 => Value, usize => Value,
    u8 => Value, u16 => Value, () => Value, JsString => Value, JsSymbol => Value,
    JsPromise => Value, JsArrayBuffer => Value, JsFunction => Value,
    JsPromise => Object, JsArrayBuffer => Object, JsFunction => Object,
    JsString => PropertyKey, &str => PropertyKey, JsSymbol => PropertyKey,
);

impl<T: NativeObject> From<Object<T>> for Value {
    fn from(_: Object<T>) -> Self {
        unimplemented!()
    }
}

/// A traced, mutable slot.
#[derive(Debug, Default)]
pub struct Slot<T: Trace + 'static>(PhantomData<T>);

/// A shared borrow of a [`Slot`]'s value.
pub struct SlotRef<'a, T: Trace + 'static>(PhantomData<&'a T>);

/// An exclusive borrow of a [`Slot`]'s value.
pub struct SlotMut<'a, T: Trace + 'static>(PhantomData<&'a mut T>);

impl<T: Trace + 'static> std::ops::Deref for SlotRef<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        unimplemented!()
    }
}
impl<T: Trace + 'static> std::ops::Deref for SlotMut<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        unimplemented!()
    }
}
impl<T: Trace + 'static> std::ops::DerefMut for SlotMut<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        unimplemented!()
    }
}

/// A traced shared pointer.
#[derive(Debug)]
pub struct Shared<T: Trace + 'static>(PhantomData<T>);

impl<T: Trace + 'static> Clone for Shared<T> {
    fn clone(&self) -> Self {
        unimplemented!()
    }
}
impl<T: Trace + 'static> std::ops::Deref for Shared<T> {
    type Target = T;
    fn deref(&self) -> &T {
        unimplemented!()
    }
}

/// A promise made by the engine with its resolving functions.
#[derive(Clone, Debug)]
pub struct PromiseCapability(());

/// A step of a reaction to a promise.
pub type ReactionStep<T> = fn(&T, Value, &mut Cx) -> JsResult<()>;

/// A data block of an `ArrayBuffer`, owned by Rust.
#[derive(Debug)]
pub struct ByteBlock(());

// The stub of `src/engine/buffer.rs`.
pub fn array_buffer_view(value: &Value, what: &str, ctx: &mut Cx) -> JsResult<ViewRecord> {
    unimplemented!()
}
pub fn is_detached_buffer(buffer: &JsArrayBuffer) -> bool {
    unimplemented!()
}
pub fn array_buffer_byte_length(buffer: &JsArrayBuffer) -> u64 {
    unimplemented!()
}
pub fn can_transfer_array_buffer(buffer: &JsArrayBuffer) -> bool {
    unimplemented!()
}
pub fn transfer_array_buffer(buffer: &JsArrayBuffer, ctx: &mut Cx) -> JsResult<JsArrayBuffer> {
    unimplemented!()
}
pub fn clone_array_buffer(
    buffer: &JsArrayBuffer,
    byte_offset: u64,
    byte_length: u64,
    ctx: &mut Cx,
) -> JsResult<JsArrayBuffer> {
    unimplemented!()
}
pub fn clone_as_uint8_array(view: &ViewRecord, ctx: &mut Cx) -> JsResult<Object> {
    unimplemented!()
}
pub fn construct_view(
    kind: ViewKind,
    buffer: &JsArrayBuffer,
    byte_offset: u64,
    length: u64,
    ctx: &mut Cx,
) -> JsResult<Object> {
    unimplemented!()
}
pub fn can_copy_data_block_bytes(
    to_buffer: &JsArrayBuffer,
    to_index: u64,
    from_buffer: &JsArrayBuffer,
    from_index: u64,
    count: u64,
) -> bool {
    unimplemented!()
}
pub fn copy_data_block_bytes(
    to_buffer: &JsArrayBuffer,
    to_index: u64,
    from_buffer: &JsArrayBuffer,
    from_index: u64,
    count: u64,
) -> bool {
    unimplemented!()
}
pub fn new_array_buffer(byte_length: u64, ctx: &mut Cx) -> JsResult<JsArrayBuffer> {
    unimplemented!()
}
pub fn buffer_source_copy(
    value: &Value,
    allow_shared: bool,
    what: &str,
    ctx: &mut Cx,
) -> JsResult<Vec<u8>> {
    unimplemented!()
}
pub fn check_buffer_source(
    value: &Value,
    allow_shared: bool,
    what: &str,
    ctx: &mut Cx,
) -> JsResult<()> {
    unimplemented!()
}
pub fn is_buffer_source_object(value: &Value) -> bool {
    unimplemented!()
}
pub fn new_uint8_array(bytes: &[u8], ctx: &mut Cx) -> JsResult<Value> {
    unimplemented!()
}
pub fn uint8_array_bytes<R>(value: &Value, ctx: &mut Cx, f: impl FnOnce(&[u8]) -> R) -> Option<R> {
    unimplemented!()
}
pub fn with_buffer_source_bytes<R>(
    value: &Value,
    ctx: &mut Cx,
    f: impl FnOnce(&[u8]) -> R,
) -> Option<R> {
    unimplemented!()
}
pub fn buffer_source_byte_length(value: &Value, ctx: &mut Cx) -> Option<usize> {
    unimplemented!()
}
pub fn with_array_buffer_bytes_mut<R>(
    buffer: &JsArrayBuffer,
    offset: u64,
    len: u64,
    f: impl FnOnce(&mut [u8]) -> R,
) -> Option<R> {
    unimplemented!()
}
pub fn same_buffer(a: &JsArrayBuffer, b: &JsArrayBuffer) -> bool {
    unimplemented!()
}
pub fn with_uint8_array_bytes_mut<R>(
    value: &Value,
    what: &str,
    ctx: &mut Cx,
    f: impl FnOnce(&mut [u8]) -> (R, usize),
) -> JsResult<R> {
    unimplemented!()
}

// The stub of `src/engine/call.rs`.
pub fn call(function: &Value, this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    unimplemented!()
}
pub fn call_object(
    function: &Object,
    this: &Value,
    args: &[Value],
    ctx: &mut Cx,
) -> JsResult<Value> {
    unimplemented!()
}
pub fn create_iter_result_object(value: Value, done: bool, ctx: &mut Cx) -> Value {
    unimplemented!()
}
pub fn create_array_from_list(values: impl IntoIterator<Item = Value>, ctx: &mut Cx) -> Object {
    unimplemented!()
}

/// The stub of `src/engine/clone.rs`.
pub mod clone {
    pub use super::super::kinds::{ObjectKind, Primitive, ViewedBuffer, ERROR_NAMES};
    pub use super::ByteBlock;
    use super::*;
    pub fn primitive(value: &Value) -> Option<Primitive> {
        unimplemented!()
    }
    pub fn primitive_value(primitive: &Primitive) -> Value {
        unimplemented!()
    }
    pub fn object_kind(object: &Object, ctx: &mut Cx) -> JsResult<ObjectKind> {
        unimplemented!()
    }
    pub fn map_entries(object: &Object) -> JsResult<Vec<(Value, Value)>> {
        unimplemented!()
    }
    pub fn set_entries(object: &Object) -> JsResult<Vec<Value>> {
        unimplemented!()
    }
    pub fn enumerable_own_keys(object: &Object, ctx: &mut Cx) -> JsResult<Vec<PropertyKey>> {
        unimplemented!()
    }
    pub fn array_length(object: &Object, ctx: &mut Cx) -> JsResult<u32> {
        unimplemented!()
    }
    pub fn own_data_property(object: &Object, key: &PropertyKey) -> Option<Value> {
        unimplemented!()
    }
    pub fn own_accessor_getter(object: &Object, key: &PropertyKey) -> Option<Value> {
        unimplemented!()
    }
    pub fn property_key(string: JsString) -> PropertyKey {
        unimplemented!()
    }
    pub fn property_key_string(key: &PropertyKey) -> JsString {
        unimplemented!()
    }
    pub fn new_primitive_wrapper(value: &Primitive, ctx: &mut Cx) -> JsResult<Object> {
        unimplemented!()
    }
    pub fn new_date(time: f64, ctx: &mut Cx) -> JsResult<Object> {
        unimplemented!()
    }
    pub fn new_regexp(source: JsString, flags: &str, ctx: &mut Cx) -> JsResult<Object> {
        unimplemented!()
    }
    pub fn new_array_buffer_from(bytes: ByteBlock, ctx: &mut Cx) -> JsResult<Object> {
        unimplemented!()
    }
    pub fn new_map(ctx: &mut Cx) -> Object {
        unimplemented!()
    }
    pub fn map_append(map: &Object, key: Value, value: Value, ctx: &mut Cx) -> JsResult<()> {
        unimplemented!()
    }
    pub fn new_set(ctx: &mut Cx) -> Object {
        unimplemented!()
    }
    pub fn set_append(set: &Object, value: Value, ctx: &mut Cx) -> JsResult<()> {
        unimplemented!()
    }
    pub fn new_error(name: &str, message: Option<JsString>, ctx: &mut Cx) -> JsResult<Object> {
        unimplemented!()
    }
    pub fn new_array(length: u32, ctx: &mut Cx) -> JsResult<Object> {
        unimplemented!()
    }
    pub fn new_plain_object(ctx: &mut Cx) -> Object {
        unimplemented!()
    }
    impl ByteBlock {
        pub fn copy_of(bytes: &[u8]) -> Self {
            unimplemented!()
        }
        pub fn as_slice(&self) -> &[u8] {
            unimplemented!()
        }
        pub fn into_vec(self) -> Vec<u8> {
            unimplemented!()
        }
    }
    pub fn copy_buffer_bytes(buffer: &JsArrayBuffer) -> Option<ByteBlock> {
        unimplemented!()
    }
    pub fn detach_array_buffer(buffer: &JsArrayBuffer) -> JsResult<ByteBlock> {
        unimplemented!()
    }
    pub fn as_array_buffer(object: &Object) -> Option<JsArrayBuffer> {
        unimplemented!()
    }
    pub fn is_shared_array_buffer(object: &Object) -> bool {
        unimplemented!()
    }
    pub fn frozen_array(values: Vec<Value>, ctx: &mut Cx) -> JsResult<Object> {
        unimplemented!()
    }
}

// The stub of `src/engine/error.rs`.
impl JsError {
    pub fn is_uncatchable(&self) -> bool {
        unimplemented!()
    }
}
pub fn thrown_value(error: JsError, ctx: &mut Cx) -> JsResult<Value> {
    unimplemented!()
}
pub fn type_error(message: &str, ctx: &mut Cx) -> Value {
    unimplemented!()
}
pub fn range_error(message: &str, ctx: &mut Cx) -> Value {
    unimplemented!()
}
pub fn throw_type_error(message: impl Into<String>) -> JsError {
    unimplemented!()
}
pub fn throw_range_error(message: impl Into<String>) -> JsError {
    unimplemented!()
}
pub fn value_message(value: &Value, ctx: &mut Cx) -> String {
    unimplemented!()
}
pub fn throw_value(value: Value) -> JsError {
    unimplemented!()
}

// The stub of `src/engine/handle.rs`.
impl JsSymbol {
    pub fn iterator() -> Self {
        unimplemented!()
    }
    pub fn async_iterator() -> Self {
        unimplemented!()
    }
    pub fn to_string_tag() -> Self {
        unimplemented!()
    }
}
impl JsPromise {
    pub fn resolve(value: Value, ctx: &mut Cx) -> super::JsResult<Self> {
        unimplemented!()
    }
}
impl StandardConstructor {
    pub fn constructor(&self) -> Object {
        unimplemented!()
    }
    pub fn prototype(&self) -> Object {
        unimplemented!()
    }
}

/// The stub of `src/engine/internal_promise.rs`.
pub(crate) mod internal_promise {
    use super::*;
    /// A promise no script can reach.
    #[derive(Clone, Debug)]
    pub(crate) struct InternalPromise(());
    impl InternalPromise {
        pub(crate) fn outcome(&self) -> Option<Result<Value, Value>> {
            unimplemented!()
        }
        pub(crate) fn ptr_eq(&self, other: &Self) -> bool {
            unimplemented!()
        }
        pub(crate) fn fulfilled(value: Value) -> Self {
            unimplemented!()
        }
        pub(crate) fn new() -> Self {
            unimplemented!()
        }
        pub(crate) fn react<T: Trace + 'static>(
            &self,
            data: T,
            on_fulfilled: ReactionStep<T>,
            on_rejected: ReactionStep<T>,
            ctx: &mut Cx,
        ) {
            unimplemented!()
        }
        pub(crate) fn resolve(&self, value: Value, ctx: &mut Cx) -> JsResult<()> {
            unimplemented!()
        }
        pub(crate) fn thenable_job(
            &self,
            thenable: Value,
            then: Object,
            ctx: &mut Cx,
        ) -> JsResult<()> {
            unimplemented!()
        }
        pub(crate) fn resolve_with_internal(&self, inner: InternalPromise, ctx: &mut Cx) {
            unimplemented!()
        }
        pub(crate) fn reject(&self, reason: Value, ctx: &mut Cx) {
            unimplemented!()
        }
    }
}

// The stub of `src/engine/callback.rs`.
pub fn set_microtask_checkpoint(ctx: &mut Cx, checkpoint: fn(&mut Cx)) {
    unimplemented!()
}
pub fn clean_up_after_running_script(ctx: &mut Cx) {
    unimplemented!()
}

// The stub of `src/engine/job.rs`.
pub fn queue_microtask(ctx: &mut Cx, job: impl FnOnce(&mut Cx) -> JsResult<()> + 'static) {
    unimplemented!()
}
pub fn queue_task(ctx: &mut Cx, job: impl FnOnce(&mut Cx) -> JsResult<()> + 'static) {
    unimplemented!()
}

// The stub of `src/engine/kinds.rs`.

// The stub of `src/engine/mod.rs`.

// The stub of `src/engine/object.rs`.
impl<T: NativeObject> ObjectRef<'_, T> {
    pub fn data(&self) -> &T {
        unimplemented!()
    }
}
impl<T: NativeObject> Object<T> {
    pub fn borrow(&self) -> ObjectRef<'_, T> {
        unimplemented!()
    }
    pub fn upcast(self) -> Object {
        unimplemented!()
    }
    pub fn equals(a: &Self, b: &Self) -> bool {
        unimplemented!()
    }
}
impl Object {
    pub fn get(&self, key: impl Into<PropertyKey>, ctx: &mut Cx) -> JsResult<Value> {
        unimplemented!()
    }
    pub fn define_property_or_throw(
        &self,
        key: impl Into<PropertyKey>,
        desc: impl Into<PropertyDescriptor>,
        ctx: &mut Cx,
    ) -> JsResult<bool> {
        unimplemented!()
    }
    pub fn create_data_property_or_throw(
        &self,
        key: impl Into<PropertyKey>,
        value: impl Into<Value>,
        ctx: &mut Cx,
    ) -> JsResult<bool> {
        unimplemented!()
    }
    pub fn has_own_property(&self, key: impl Into<PropertyKey>, ctx: &mut Cx) -> JsResult<bool> {
        unimplemented!()
    }
    pub fn own_property_enumerable(
        &self,
        key: impl Into<PropertyKey>,
        ctx: &mut Cx,
    ) -> JsResult<Option<bool>> {
        unimplemented!()
    }
    pub fn own_property_keys(&self, ctx: &mut Cx) -> JsResult<Vec<PropertyKey>> {
        unimplemented!()
    }
    pub fn insert_property(
        &self,
        key: impl Into<PropertyKey>,
        desc: impl Into<PropertyDescriptor>,
    ) -> bool {
        unimplemented!()
    }
    pub fn set_prototype(&self, prototype: Option<Object>) -> bool {
        unimplemented!()
    }
    pub fn call(&self, this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
        unimplemented!()
    }
    pub fn is_callable(&self) -> bool {
        unimplemented!()
    }
    pub fn is_array(&self) -> bool {
        unimplemented!()
    }
    pub fn from_proto_and_data<U: NativeObject>(
        prototype: impl Into<Option<Object>>,
        data: U,
    ) -> Object {
        unimplemented!()
    }
    pub fn with_null_proto() -> Object {
        unimplemented!()
    }
    pub fn downcast<U: NativeObject>(self) -> Result<Object<U>, Self> {
        unimplemented!()
    }
    pub fn downcast_ref<U: NativeObject>(&self) -> Option<DataRef<'_, U>> {
        unimplemented!()
    }
    pub fn is<U: NativeObject>(&self) -> bool {
        unimplemented!()
    }
}

// The stub of `src/engine/promise.rs`.
impl PromiseCapability {
    pub fn new(ctx: &mut Cx) -> Self {
        unimplemented!()
    }
    pub fn react<T: Trace + 'static>(
        &self,
        data: T,
        on_fulfilled: ReactionStep<T>,
        on_rejected: ReactionStep<T>,
        ctx: &mut Cx,
    ) -> JsResult<()> {
        unimplemented!()
    }
    pub fn promise(&self) -> &JsPromise {
        unimplemented!()
    }
    pub fn resolve(&self, value: Value, ctx: &mut Cx) -> JsResult<()> {
        unimplemented!()
    }
    pub fn reject(&self, reason: Value, ctx: &mut Cx) -> JsResult<()> {
        unimplemented!()
    }
    pub fn is_pending(&self) -> bool {
        unimplemented!()
    }
}
pub fn promise_resolved_with(value: Value, ctx: &mut Cx) -> JsResult<JsPromise> {
    unimplemented!()
}
pub fn promise_rejected_with(reason: Value, ctx: &mut Cx) -> JsResult<JsPromise> {
    unimplemented!()
}
pub fn mark_as_handled(promise: &JsPromise, ctx: &mut Cx) -> JsResult<()> {
    unimplemented!()
}
pub fn is_marked_as_handled(promise: &Object, ctx: &mut Cx) -> bool {
    unimplemented!()
}
pub fn react<T: Trace + 'static>(
    promise: &JsPromise,
    data: T,
    on_fulfilled: ReactionStep<T>,
    on_rejected: ReactionStep<T>,
    ctx: &mut Cx,
) -> JsResult<()> {
    unimplemented!()
}
pub fn run_deferred_reactions(ctx: &mut Cx) {
    unimplemented!()
}
pub fn remember_promise_intrinsics(ctx: &mut Cx) {
    unimplemented!()
}
pub fn fresh_promise_then_is_intrinsic(ctx: &mut Cx) -> bool {
    unimplemented!()
}
pub fn original_promise_then(ctx: &mut Cx) -> Option<Object> {
    unimplemented!()
}
pub fn species_lookup_is_intrinsic(promise: Option<&JsPromise>, ctx: &mut Cx) -> bool {
    unimplemented!()
}
pub fn species_lookups_of_fresh_promise(ctx: &mut Cx) -> JsResult<()> {
    unimplemented!()
}
pub fn is_promise(value: &Value) -> bool {
    unimplemented!()
}
pub fn untouched_promise(value: &Value, ctx: &mut Cx) -> Option<JsPromise> {
    unimplemented!()
}

// The stub of `src/engine/promise_result.rs`.

// The stub of `src/engine/property.rs`.
impl PropertyDescriptor {
    pub fn builder() -> PropertyDescriptorBuilder {
        unimplemented!()
    }
}
impl PropertyDescriptorBuilder {
    pub fn value(self, value: impl Into<Value>) -> Self {
        unimplemented!()
    }
    pub fn get(self, getter: impl Into<Value>) -> Self {
        unimplemented!()
    }
    pub fn set(self, setter: impl Into<Value>) -> Self {
        unimplemented!()
    }
    pub fn writable(self, writable: bool) -> Self {
        unimplemented!()
    }
    pub fn enumerable(self, enumerable: bool) -> Self {
        unimplemented!()
    }
    pub fn configurable(self, configurable: bool) -> Self {
        unimplemented!()
    }
    pub fn build(self) -> PropertyDescriptor {
        unimplemented!()
    }
}

// The stub of `src/engine/slot.rs`.
impl<T: Trace + 'static> Slot<T> {
    pub fn new(value: T) -> Self {
        unimplemented!()
    }
    pub fn borrow(&self) -> SlotRef<'_, T> {
        unimplemented!()
    }
    pub fn borrow_mut(&self) -> SlotMut<'_, T> {
        unimplemented!()
    }
}
impl<T: Trace + 'static> Shared<T> {
    pub fn new(value: T) -> Self {
        unimplemented!()
    }
    pub fn ptr_eq(a: &Self, b: &Self) -> bool {
        unimplemented!()
    }
}

// The stub of `src/engine/string.rs`.
impl JsString {
    pub fn iter(&self) -> impl Iterator<Item = u16> + '_ {
        std::iter::empty()
    }
    pub fn to_vec(&self) -> Vec<u16> {
        unimplemented!()
    }
    pub fn len(&self) -> usize {
        unimplemented!()
    }
    pub fn is_empty(&self) -> bool {
        unimplemented!()
    }
    pub fn to_std_string(&self) -> Result<String, std::string::FromUtf16Error> {
        unimplemented!()
    }
    pub fn to_std_string_escaped(&self) -> String {
        unimplemented!()
    }
    pub fn to_std_string_lossy(&self) -> String {
        unimplemented!()
    }
}

// The stub of `src/engine/task.rs`.
pub fn current_realm(ctx: &Cx) -> Realm {
    unimplemented!()
}
pub fn in_realm<R>(ctx: &mut Cx, realm: &Realm, f: impl FnOnce(&mut Cx) -> R) -> R {
    unimplemented!()
}
pub fn queue_task_in(
    ctx: &mut Cx,
    realm: Realm,
    job: impl FnOnce(&mut Cx) -> JsResult<()> + 'static,
) {
    unimplemented!()
}
pub fn queue_timer(
    ctx: &mut Cx,
    milliseconds: u64,
    job: impl FnOnce(&mut Cx) -> JsResult<()> + 'static,
) {
    unimplemented!()
}
pub fn global_object(ctx: &Cx) -> Object {
    unimplemented!()
}
pub fn set_realm_data<T: NativeObject>(ctx: &Cx, data: T) {
    unimplemented!()
}
pub fn with_realm_data<T: NativeObject, R>(ctx: &Cx, f: impl FnOnce(&T) -> R) -> Option<R> {
    unimplemented!()
}
pub fn set_agent_data<T: std::any::Any>(ctx: &mut Cx, data: T) {
    unimplemented!()
}
pub fn agent_data<T: std::any::Any>(ctx: &Cx) -> Option<&T> {
    unimplemented!()
}
pub fn error_prototype(ctx: &Cx) -> Object {
    unimplemented!()
}
pub fn async_iterator_prototype(ctx: &Cx) -> Object {
    unimplemented!()
}
pub fn clock_nanos(ctx: &Cx) -> u128 {
    unimplemented!()
}

// The stub of `src/engine/value.rs`.
impl Value {
    pub const fn undefined() -> Self {
        unimplemented!()
    }
    pub const fn null() -> Self {
        unimplemented!()
    }
    pub fn is_undefined(&self) -> bool {
        unimplemented!()
    }
    pub fn is_null(&self) -> bool {
        unimplemented!()
    }
    pub fn is_null_or_undefined(&self) -> bool {
        unimplemented!()
    }
    pub fn is_object(&self) -> bool {
        unimplemented!()
    }
    pub fn as_object(&self) -> Option<Object> {
        unimplemented!()
    }
    pub fn as_callable(&self) -> Option<Object> {
        unimplemented!()
    }
    pub fn is_callable(&self) -> bool {
        unimplemented!()
    }
    pub fn is_string(&self) -> bool {
        unimplemented!()
    }
    pub fn as_string(&self) -> Option<JsString> {
        unimplemented!()
    }
    pub fn as_boolean(&self) -> Option<bool> {
        unimplemented!()
    }
    pub fn as_number(&self) -> Option<f64> {
        unimplemented!()
    }
    pub fn to_boolean(&self) -> bool {
        unimplemented!()
    }
    pub fn to_string(&self, ctx: &mut Cx) -> JsResult<JsString> {
        unimplemented!()
    }
    pub fn to_number(&self, ctx: &mut Cx) -> JsResult<f64> {
        unimplemented!()
    }
    pub fn to_object(&self, ctx: &mut Cx) -> JsResult<Object> {
        unimplemented!()
    }
    pub fn to_string_for_display(&self) -> String {
        unimplemented!()
    }
}

/// The stub of `src/engine/webidl.rs`.
pub(crate) mod webidl {
    pub(crate) fn construct_interface<T: ClassInterface>(
        args: &[Value],
        ctx: &mut Cx,
    ) -> JsResult<Object<T>> {
        unimplemented!()
    }
    use super::*;
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
        pub fn operation(
            &mut self,
            name: &str,
            length: usize,
            f: NativeFunctionPointer,
        ) -> &mut Self {
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
        pub fn async_iterable(
            &mut self,
            length: usize,
            values: NativeFunctionPointer,
        ) -> &mut Self {
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
        pub fn promise_attribute(
            &mut self,
            name: &str,
            getter: NativeFunctionPointer,
        ) -> &mut Self {
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
    pub fn to_usv_string_record(
        value: &Value,
        ctx: &mut Cx,
    ) -> JsResult<Vec<(JsString, JsString)>> {
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
}

pub fn remember_json_intrinsics(ctx: &mut Cx) {
    unimplemented!()
}
pub fn json_parse(text: JsString, ctx: &mut Cx) -> JsResult<Value> {
    unimplemented!()
}
pub fn json_stringify(value: Value, ctx: &mut Cx) -> JsResult<Option<JsString>> {
    unimplemented!()
}
