//! The engine boundary: the one place that names Boa. The spec layer (queues, strategies,
//! readable, writable and transform streams, the Encoding and Compression streams, the DOM
//! pieces) uses only the names declared here, so a second engine is a second implementation
//! of this module. See ARCHITECTURE.md, "The engine API".
//!
//! Everything here is written so that internal plumbing is unobservable from JavaScript: no
//! lookup of `then`, `constructor` or `Symbol.species` that the spec does not itself perform,
//! and no dependence on patched globals or prototypes.

pub(crate) mod internal_promise;
pub(crate) mod webidl;

// ---------------------------------------------------------------------------------------------
// Names: the types and items the spec layer uses, under engine-neutral names where Boa's are
// Boa-specific. Static re-exports and type aliases only: no runtime cost.
// ---------------------------------------------------------------------------------------------

/// A function's native behaviour: `this`, the arguments, the context.
pub type NativeFunctionPointer = fn(&Value, &[Value], &mut Cx) -> JsResult<Value>;
/// The execution context every operation runs in (realm, job queue, intrinsics).
pub type Cx = boa_engine::Context;

/// Script source text, for the unit tests that evaluate JavaScript.
#[cfg(test)]
pub use boa_engine::Source;
pub use boa_engine::{
    builtins::typed_array::TypedArrayKind,
    js_string,
    property::{PropertyDescriptor, PropertyKey},
    JsError, JsResult, JsString, NativeObject,
};
pub use boa_gc::{Finalize, Trace};

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
/// and it has no `Drop` impl, so values can be moved out of it (boa_gc's `unsafe_no_drop`;
/// sound because `Finalize` does nothing for these types).
macro_rules! traced_without_drop {
    ($($item:tt)*) => {
        #[derive($crate::engine::Trace, $crate::engine::Finalize)]
        #[boa_gc(unsafe_no_drop)]
        $($item)*
    };
}
pub(crate) use traced_without_drop;

mod buffer;
mod call;
pub mod clone;
mod error;
mod handle;
mod job;
mod object;
mod promise;
mod promise_result;
mod slot;
mod task;
mod value;

pub use buffer::*;
pub use call::*;
pub use error::*;
pub use handle::*;
pub use job::*;
pub use object::Object;
pub use promise::*;
pub(crate) use promise_result::*;
pub use slot::{Shared, Slot};
pub use task::*;
pub use value::Value;
