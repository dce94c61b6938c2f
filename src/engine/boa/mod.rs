//! The Boa backend of the engine contract (`../mod.rs`; the `engine-boa` feature, the default):
//! Boa 0.22's `Context`, its garbage-collected objects and its job queue behind the contract's
//! names. Each type is a `#[repr(transparent)]` newtype of Boa's type of the same role with
//! `#[inline]` methods, so the boundary costs nothing (ARCHITECTURE.md, "The engine contract").
//!
//! This folder is the only code that names a Boa crate (`runtime.rs` is the runtime: the
//! context's job executor and host hooks).

/// Declares a traced type: `traced! { struct S { .. } }` (or an enum) makes `S`'s values
/// traceable by the engine's garbage collector (it marks the JS values `S` holds; a field marked
/// `#[unsafe_ignore_trace]` holds none); `traced! { data; struct S { .. } }` also makes `S`
/// native object data, what an `Object<S>` holds. On Boa this is boa_gc's `Trace` and
/// `Finalize` derives (and `JsData`), emitted here so the spec layer names none of them.
macro_rules! traced {
    (data; $($item:tt)*) => {
        #[derive(::boa_gc::Trace, ::boa_gc::Finalize, ::boa_engine::JsData)]
        $($item)*
    };
    ($($item:tt)*) => {
        #[derive(::boa_gc::Trace, ::boa_gc::Finalize)]
        $($item)*
    };
}

/// Declares a traced type that is plain data: its `Trace` impl marks the JS values it holds,
/// and it has no `Drop` impl, so values can be moved out of it (boa_gc's `unsafe_no_drop`).
///
/// Why `unsafe_no_drop` is sound here: without it the derive adds a `Drop` that only calls
/// `Finalize::finalize` (when the collector allows), and the derived `Finalize` of these types
/// does nothing, so leaving it out loses nothing. What boa_gc's `unsafe` guards against is a
/// hand-written `Drop` that touches a `Gc` while the collector sweeps; no type declared with
/// this macro implements `Drop` (a type that needs one must use `traced!`).
macro_rules! traced_without_drop {
    ($($item:tt)*) => {
        #[derive(::boa_gc::Trace, ::boa_gc::Finalize)]
        #[boa_gc(unsafe_no_drop)]
        $($item)*
    };
}
pub(crate) use traced_without_drop;

// The contract's engine-free items, for the `super::` paths of this backend's files.
pub(crate) use super::kinds;
pub(crate) use super::{TypedArrayKind, ViewKind, ViewRecord};

#[cfg(test)]
mod internal_promise_tests;
pub(crate) mod webidl;
mod webidl_partial;
mod webidl_sequences;

mod buffer;
mod call;
mod callback;
pub mod clone;
pub(crate) mod diff_hook;
mod encoding;
mod error;
mod extension;
mod handle;
mod job;
mod json;
mod object;
mod promise;
mod property;
mod runtime;
mod slot;
mod string;
mod task;
mod value;

pub use buffer::*;
pub(crate) use call::new_closure;
pub use call::*;
pub use callback::*;
pub use encoding::*;
pub use error::*;
pub use extension::{Extension, Registration};
pub use handle::*;
pub use job::*;
pub use json::*;
pub use object::{DataRef, Object, ObjectRef};
pub use promise::*;
pub use property::{PropertyDescriptor, PropertyDescriptorBuilder, PropertyKey};
pub use runtime::{
    clear_kept_objects, collect_garbage, evaluate_script, inspect, is_pending_promise, run_jobs,
    AsyncJobs, Runtime,
};
pub use slot::{AcyclicShared, Shared};
pub(crate) use slot::{SlotCell, SlotCellMut, SlotCellRef};
pub(crate) use string::js_string;
pub use string::{
    string_value_from_latin1, string_value_from_latin1_with, string_value_from_utf16,
    string_value_from_utf8, JsString,
};
pub use task::*;
pub use value::Value;

/// A function's native behaviour: `this`, the arguments, the context.
pub type NativeFunctionPointer = fn(&Value, &[Value], &mut Cx) -> JsResult<Value>;
/// The execution context every operation runs in (realm, job queue, intrinsics): Boa's
/// `Context`, which the embedder holds and passes in.
pub type Cx = boa_engine::Context;

/// Traced by the engine's garbage collector: what a slot, a shared pointer or an object's
/// native data holds. Declared with `traced!`; on Boa, boa_gc's `Trace`.
pub trait Trace: boa_gc::Trace {}
impl<T: boa_gc::Trace + ?Sized> Trace for T {}

/// What the collector runs before it frees a traced value (nothing, for every type declared
/// with `traced!`); on Boa, boa_gc's `Finalize`.
pub trait Finalize: boa_gc::Finalize {}
impl<T: boa_gc::Finalize + ?Sized> Finalize for T {}

/// Native object data: what an `Object<T>` holds (declared with `traced! { data; .. }`); on
/// Boa, a `NativeObject`.
pub trait NativeObject: boa_engine::NativeObject {}
impl<T: boa_engine::NativeObject> NativeObject for T {}
