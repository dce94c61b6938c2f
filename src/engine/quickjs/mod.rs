//! The QuickJS backend of the engine contract (`../mod.rs`; the `engine-quickjs` feature,
//! without `engine-boa`): quickjs-ng through rquickjs's raw bindings (`rquickjs-sys`). The same
//! items as the Boa backend (`../boa/`), with the same observable semantics.
//!
//! How it maps the API onto QuickJS:
//! - **Values** own one reference count of a `JSValue` (a `Value` is `Clone` by
//!   `JS_DupValueRT`, and frees its reference on drop). A `Value` carries its runtime, so one
//!   thread may hold several runtimes.
//! - **Native data** (`Object<T>`) lives in objects of one class of ours whose opaque is a
//!   boxed `dyn` value; its `gc_mark` hook traces the data (the `Trace` derive), so the cycle
//!   collector sees every JS value native data holds. A [`Shared`] is such an object too:
//!   QuickJS's cycle collector must see each reference exactly once. An [`AcyclicShared`] (the
//!   internal promises) is an `Rc` that takes part in the collector's passes by counting its
//!   traced holders (see there).
//! - **Functions** made from Rust are objects of a second class of ours with a `call` hook; a
//!   closure's captured data is traced the same way.
//! - **Strings** are Rust-owned UTF-16 ([`JsString`]), converted at the boundary.
//! - **The context** ([`Cx`]) is a handle on a `JSContext` (a realm); the agent's state (its
//!   data, the host that holds its tasks and timers, class ids) is in a per-thread side table
//!   keyed by the `JSRuntime` (the runtime's opaque belongs to whoever made the runtime:
//!   rquickjs keeps its own state there, `adopt.rs`), a realm's hangs off the context's
//!   opaque. The innermost entered context is also kept in a thread-local, for the API's few
//!   operations that take no context (`Object::from_proto_and_data`, `Shared::new`).

// The `traced!` of this backend: the `Trace` derive of `boa_streams_derive`.
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
macro_rules! traced_without_drop {
    ($($item:tt)*) => {
        #[derive(::boa_streams_derive::Trace)]
        $($item)*
    };
}
pub(crate) use traced_without_drop;

mod core;
mod intrinsics;

pub use self::core::{Cx, Finalize, Marker, NativeObject, Trace};

mod call;
mod error;
mod object;
mod string;
mod task;
mod value;

#[cfg(all(feature = "rquickjs", not(feature = "engine-boa")))]
mod adopt;
mod buffer;
#[cfg(test)]
mod buffer_tests;
mod callback;
pub mod clone;
pub(crate) mod diff_hook;
mod encoding;
mod job;
mod json;
#[cfg(target_os = "linux")]
mod malloc;
mod promise;
#[cfg(test)]
mod promise_tests;
mod runtime;
#[cfg(all(feature = "rquickjs", not(feature = "engine-boa")))]
pub use adopt::{adopted_agent_data, adopted_cx, value_from_adopted, value_to_adopted, AdoptedCtx};
pub(crate) mod webidl;
mod webidl_sequences;

// What the unit tests below reach through `use super::*`.
#[cfg(test)]
use crate::engine::{
    can_copy_data_block_bytes, clone_as_uint8_array, promise_rejected_with, promise_resolved_with,
    Slot,
};

#[cfg(test)]
mod tests;
#[cfg(test)]
mod webidl_tests;

pub use buffer::*;
pub(crate) use call::new_closure;
pub use call::*;
pub use callback::*;
pub use encoding::*;
pub use error::*;
pub use job::*;
pub use json::*;
pub use object::*;
pub(crate) use object::{SlotCell, SlotCellMut, SlotCellRef};
pub use promise::*;
pub use runtime::{
    clear_kept_objects, collect_garbage, evaluate_script, inspect, is_pending_promise, run_jobs,
    AsyncJobs, Runtime,
};
pub(crate) use string::js_string;
pub use string::*;
pub use task::*;
pub use value::Value;

/// A function's native behaviour: `this`, the arguments, the context.
pub type NativeFunctionPointer = fn(&Value, &[Value], &mut Cx) -> JsResult<Value>;
