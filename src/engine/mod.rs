//! The engine boundary: the one place that names Boa. The spec layer (queues, strategies,
//! readable, writable and transform streams, the Encoding and Compression streams, the DOM
//! pieces) uses only the names declared here, so a second engine is a second implementation
//! of this module. See ARCHITECTURE.md, "The engine API".
//!
//! Two backends implement it: Boa (the `engine-boa` feature, the default) and a stub whose
//! bodies are all `unimplemented!()` (`stub.rs`, without `engine-boa`), against which
//! `cargo check --no-default-features --features engine-stub` proves that the spec layer
//! reaches nothing of Boa's. `kinds.rs` and `promise_result.rs` are shared: they hold only
//! the engine's own types.
//!
//! Everything here is written so that internal plumbing is unobservable from JavaScript: no
//! lookup of `then`, `constructor` or `Symbol.species` that the spec does not itself perform,
//! and no dependence on patched globals or prototypes.

/// Every item inside is the Boa backend's: compiled with the `engine-boa` feature only.
macro_rules! boa_backend {
    ($($item:item)*) => {$(
        #[cfg(feature = "engine-boa")]
        $item
    )*};
}

boa_backend! {
    pub(crate) mod internal_promise;
    pub(crate) mod webidl;
    mod webidl_iterable;
    mod webidl_partial;
    mod webidl_sequences;
    mod webidl_strings;

    // The names every layer uses that are not types of the engine's own modules below: the
    // native function signature, the context (the embedder's, an alias on Boa) and the traits
    // of traced values.

    /// A function's native behaviour: `this`, the arguments, the context.
    pub type NativeFunctionPointer = fn(&Value, &[Value], &mut Cx) -> JsResult<Value>;
    /// The execution context every operation runs in (realm, job queue, intrinsics).
    pub type Cx = boa_engine::Context;

    /// Script source text, for the unit tests that evaluate JavaScript.
    #[cfg(test)]
    pub use boa_engine::Source;
    /// Traced by the engine's garbage collector: what a slot, a shared pointer or an object's
    /// native data holds. Declared with [`traced!`]; on Boa, boa_gc's `Trace`.
    pub trait Trace: boa_gc::Trace {}
    impl<T: boa_gc::Trace + ?Sized> Trace for T {}

    /// What the collector runs before it frees a traced value (nothing, for every type declared
    /// with [`traced!`]); on Boa, boa_gc's `Finalize`.
    pub trait Finalize: boa_gc::Finalize {}
    impl<T: boa_gc::Finalize + ?Sized> Finalize for T {}

    /// Native object data: what an `Object<T>` holds (declared with `traced! { data; .. }`); on
    /// Boa, a `NativeObject`.
    pub trait NativeObject: boa_engine::NativeObject {}
    impl<T: boa_engine::NativeObject> NativeObject for T {}
}

/// Declares a traced type: `traced! { struct S { .. } }` (or an enum) makes `S`'s values
/// traceable by the engine's garbage collector (it marks the JS values `S` holds; a field marked
/// `#[unsafe_ignore_trace]` holds none); `traced! { data; struct S { .. } }` also makes `S`
/// native object data, what an `Object<S>` holds. On Boa this is boa_gc's `Trace` and
/// `Finalize` derives (and `JsData`), emitted here so the spec layer names none of them.
#[cfg(feature = "engine-boa")]
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
/// and it has no `Drop` impl, so values can be moved out of it (boa_gc's `unsafe_no_drop`;
/// sound because `Finalize` does nothing for these types).
#[cfg(feature = "engine-boa")]
macro_rules! traced_without_drop {
    ($($item:tt)*) => {
        #[derive(::boa_gc::Trace, ::boa_gc::Finalize)]
        #[boa_gc(unsafe_no_drop)]
        $($item)*
    };
}
#[cfg(feature = "engine-boa")]
pub(crate) use traced_without_drop;

// The QuickJS backend's `traced!`: the `Trace` derive of `boa_streams_derive`.
#[cfg(all(feature = "engine-quickjs", not(feature = "engine-boa")))]
macro_rules! traced {
    (data; $($item:tt)*) => {
        #[derive(::boa_streams_derive::Trace)]
        $($item)*
    };
    ($($item:tt)*) => {
        #[derive(::boa_streams_derive::Trace)]
        $($item)*
    };
}

/// As `traced!` (QuickJS frees nothing in a `Finalize`, so values move out freely).
#[cfg(all(feature = "engine-quickjs", not(feature = "engine-boa")))]
macro_rules! traced_without_drop {
    ($($item:tt)*) => {
        #[derive(::boa_streams_derive::Trace)]
        $($item)*
    };
}
#[cfg(all(feature = "engine-quickjs", not(feature = "engine-boa")))]
pub(crate) use traced_without_drop;

thread_local! {
    static OBJECTS_CREATED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Counts `n` JS objects that the engine API creates for the library's own code.
#[inline]
pub(crate) fn count_objects(n: u64) {
    OBJECTS_CREATED.with(|c| c.set(c.get().wrapping_add(n)));
}

/// The number of JS objects that the library's own code has asked the engine to create on this
/// thread so far: native objects (every interface object and internal object), array buffers
/// and views, promises with their resolving functions, reaction and other native functions,
/// iterator results and arrays, and on QuickJS the object behind each shared cell (its
/// collector traces only through objects). Objects that script creates, and objects the engine
/// creates inside its own builtins, are not counted. A test reads it before and after some work
/// to show what that work costs in objects.
pub fn js_objects_created() -> u64 {
    OBJECTS_CREATED.with(std::cell::Cell::get)
}

#[cfg(all(feature = "engine-quickjs", not(feature = "engine-boa")))]
mod quickjs;
/// The engine side of the QuickJS host.
#[cfg(all(feature = "engine-quickjs", not(feature = "engine-boa")))]
pub(crate) use quickjs::host as quickjs_host;
#[cfg(all(feature = "engine-quickjs", not(feature = "engine-boa")))]
pub(crate) use quickjs::js_string;
#[cfg(all(feature = "engine-quickjs", not(feature = "engine-boa")))]
pub use quickjs::*;

// The stub backend's `traced!`: the item without the attributes Boa's derives read.
/// `traced! { .. }` / `traced! { data; .. }`: the item, without the tracing attributes the
/// Boa backend's derives read.
#[cfg(not(any(feature = "engine-boa", feature = "engine-quickjs")))]
macro_rules! traced {
    (data; $($item:tt)*) => { $crate::engine::strip_trace_attributes! { [] [] $($item)* } };
    ($($item:tt)*) => { $crate::engine::strip_trace_attributes! { [] [] $($item)* } };
}

/// As `traced!`.
#[cfg(not(any(feature = "engine-boa", feature = "engine-quickjs")))]
macro_rules! traced_without_drop {
    ($($item:tt)*) => { $crate::engine::strip_trace_attributes! { [] [] $($item)* } };
}
#[cfg(not(any(feature = "engine-boa", feature = "engine-quickjs")))]
pub(crate) use traced_without_drop;

/// Removes `#[unsafe_ignore_trace]` and `#[boa_gc(..)]` at any depth of an item: a token
/// muncher with an explicit stack of the groups it is inside (`[out] [stack] input`).
#[cfg(not(any(feature = "engine-boa", feature = "engine-quickjs")))]
macro_rules! strip_trace_attributes {
    ([$($o:tt)*] [$($s:tt)*] # [unsafe_ignore_trace] $($r:tt)*) => {
        $crate::engine::strip_trace_attributes! { [$($o)*] [$($s)*] $($r)* }
    };
    ([$($o:tt)*] [$($s:tt)*] # [boa_gc $($a:tt)*] $($r:tt)*) => {
        $crate::engine::strip_trace_attributes! { [$($o)*] [$($s)*] $($r)* }
    };
    ([$($o:tt)*] [$($s:tt)*] { $($g:tt)* } $($r:tt)*) => {
        $crate::engine::strip_trace_attributes! { [] [[brace [$($o)*] [$($r)*]] $($s)*] $($g)* }
    };
    ([$($o:tt)*] [$($s:tt)*] ( $($g:tt)* ) $($r:tt)*) => {
        $crate::engine::strip_trace_attributes! { [] [[paren [$($o)*] [$($r)*]] $($s)*] $($g)* }
    };
    ([$($o:tt)*] [$($s:tt)*] $t:tt $($r:tt)*) => {
        $crate::engine::strip_trace_attributes! { [$($o)* $t] [$($s)*] $($r)* }
    };
    ([$($o:tt)*] [[brace [$($oo:tt)*] [$($or:tt)*]] $($s:tt)*]) => {
        $crate::engine::strip_trace_attributes! { [$($oo)* { $($o)* }] [$($s)*] $($or)* }
    };
    ([$($o:tt)*] [[paren [$($oo:tt)*] [$($or:tt)*]] $($s:tt)*]) => {
        $crate::engine::strip_trace_attributes! { [$($oo)* ( $($o)* )] [$($s)*] $($or)* }
    };
    ([$($o:tt)*] []) => { $($o)* };
}
#[cfg(not(any(feature = "engine-boa", feature = "engine-quickjs")))]
pub(crate) use strip_trace_attributes;

#[cfg(not(any(feature = "engine-boa", feature = "engine-quickjs")))]
mod stub;
#[cfg(not(any(feature = "engine-boa", feature = "engine-quickjs")))]
pub use stub::*;

boa_backend! {
    mod buffer;
    mod call;
    mod callback;
    mod encoding;
    pub mod clone;
    mod error;
    mod handle;
    mod job;
    mod json;
    mod json_fallback;
    mod object;
    mod promise;
    mod property;
    mod slot;
    mod string;
    mod task;
    mod value;

    pub use buffer::*;
    pub use call::*;
    pub use callback::*;
    pub use encoding::*;
    pub use error::*;
    pub use handle::*;
    pub use job::*;
    pub use json::*;
    pub use object::Object;
    pub use promise::*;
    pub use property::{PropertyDescriptor, PropertyKey};
    pub use slot::{Shared, Slot};
    pub use string::JsString;
    pub use task::*;
    pub use value::Value;
}

// (Outside `boa_backend!`: a macro-expanded re-export of a macro is ambiguous beside the glob
// imports of the backend's modules.)
#[cfg(feature = "engine-boa")]
pub(crate) use string::js_string;

// Shared by the backends: plain data and the promise vocabulary, made of the API's own types.
mod kinds;
mod promise_result;
pub use kinds::{TypedArrayKind, ViewKind, ViewRecord};
pub(crate) use promise_result::*;
