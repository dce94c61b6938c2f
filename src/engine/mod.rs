//! The engine contract: every name the rest of the library may use to reach a JavaScript
//! engine, declared once, here. The spec layer (queues, strategies, the stream modules, the
//! other standards' clients, the DOM and HTML pieces) and the host use only these names, so an
//! engine is a backend folder that provides each of them with the same semantics
//! (ARCHITECTURE.md, "The engine contract").
//!
//! - `boa/`: Boa 0.22 (the `engine-boa` feature, the default).
//! - `quickjs/`: quickjs-ng 0.16 through rquickjs's raw bindings (`engine-quickjs`, without
//!   `engine-boa`).
//! - Beside them, the engine-free code written over the contract's own names: plain data
//!   (`kinds.rs`), the promise vocabulary of the stream modules (`promise_result.rs`), and the
//!   runtime interface's host side (`runtime.rs`: what a runtime asks of the host).
//!
//! The contract is the list of re-exports below, by name (no glob): a backend that lacks an
//! item fails to compile here, whichever layer happens to use it. The items' signatures are
//! held to each other by the library compiling on both backends (CI builds and tests both),
//! and the list with signatures is an insta snapshot (`tests/engine_boundary.rs`).
//!
//! Everything here is written so that internal plumbing is unobservable from JavaScript: no
//! lookup of `then`, `constructor` or `Symbol.species` that the spec does not itself perform,
//! and no dependence on patched globals or prototypes.

#[cfg(not(any(feature = "engine-boa", feature = "engine-quickjs")))]
compile_error!(
    "boa_streams needs an engine: the `engine-boa` (default) or `engine-quickjs` feature"
);

// The backend of this build (`engine-boa` wins when both features are on). Its macros
// (`traced!`, `interface!`, `js_string!`) are in scope in every module declared after `engine`.
#[cfg(feature = "engine-boa")]
#[macro_use]
mod boa;
#[cfg(feature = "engine-boa")]
use boa as backend;

#[cfg(all(feature = "engine-quickjs", not(feature = "engine-boa")))]
#[macro_use]
mod quickjs;
/// A boa_runtime extension over a registration (Boa only: how the crate root offers the library
/// to an embedder's own Boa context).
#[cfg(feature = "engine-boa")]
pub use boa::{Extension, Registration};
#[cfg(all(feature = "engine-quickjs", not(feature = "engine-boa")))]
use quickjs as backend;
/// What QuickJS's `Trace` derive (`traced!`) expands to: the collector's marking context.
#[cfg(all(feature = "engine-quickjs", not(feature = "engine-boa")))]
pub use quickjs::Marker;
/// Adopting an application's rquickjs runtime (QuickJS with the `rquickjs` feature): its
/// context type, and a handle on a context boa_streams is installed in (`Runtime::adopt` and
/// `Runtime::adopt_context` set them up).
#[cfg(all(feature = "rquickjs", not(feature = "engine-boa")))]
pub use quickjs::{
    adopted_agent_data, adopted_cx, value_from_adopted, value_to_adopted, AdoptedCtx,
};

// ---- The contract ----
// (Some names are used only inside signatures, never spelled out by a layer: they are still
// the contract, hence the `allow`.)

// Values, objects, strings, handles, errors, properties (ARCHITECTURE.md, "Types").
pub(crate) use backend::js_string;
#[allow(unused_imports)]
pub use backend::{
    DataRef, JsArrayBuffer, JsError, JsFunction, JsPromise, JsResult, JsString, JsSymbol, Object,
    ObjectRef, PropertyDescriptor, PropertyDescriptorBuilder, PropertyKey, Realm,
    StandardConstructor, Value,
};

// The execution context, native functions, and the traits and containers of traced values.
pub(crate) use backend::traced_without_drop;
#[allow(unused_imports)]
pub use backend::{
    AcyclicShared, Cx, Finalize, NativeFunctionPointer, NativeObject, Shared, Trace,
};

// WebIDL glue, structured-clone reads and internal promises, as modules.
pub use backend::clone;
/// The backend's half of the WebIDL layer (its `interface!` expands to paths in it).
pub(crate) use backend::webidl as backend_webidl;

// Array buffers, views and buffer sources (`buffer.rs`).
#[allow(unused_imports)]
pub use backend::{
    array_buffer_byte_length, array_buffer_view, buffer_source_byte_length, buffer_source_copy,
    can_transfer_array_buffer, check_buffer_source, clone_array_buffer, construct_view,
    copy_data_block_bytes, is_buffer_source_object, is_detached_buffer, new_array_buffer,
    new_uint8_array, note_chunk_bytes, note_consumed_bytes, same_buffer, transfer_array_buffer,
    uint8_array_bytes, with_array_buffer_bytes_mut, with_buffer_source_bytes,
    with_uint8_array_bytes_mut,
};

// Calls, errors, JSON (`call.rs`, `error.rs`, `json.rs`).
pub(crate) use backend::new_closure;
#[allow(unused_imports)]
pub use backend::{
    call, call_object, create_array_from_list, create_iter_result_object, get_script_property,
    iterator_complete, iterator_value, json_member, json_object, json_parse, json_stringify,
    range_error, remember_json_intrinsics, throw_range_error, throw_type_error, throw_value,
    thrown_value, type_error, value_message, JsonName,
};
#[allow(unused_imports)]
pub use backend::{
    string_value_from_latin1, string_value_from_latin1_with, string_value_from_utf16,
    string_value_from_utf8,
};

// Promises (`promise.rs`).
#[allow(unused_imports)]
pub use backend::{
    fresh_promise_then_is_intrinsic, get_then, is_marked_as_handled, is_promise, mark_as_handled,
    original_promise_then, react, remember_promise_intrinsics, run_deferred_reactions,
    species_lookup_is_intrinsic, species_lookups_of_fresh_promise, untouched_promise,
    PromiseCapability, ReactionStep,
};

// Jobs, tasks, realms and agents, the clock (`job.rs`, `task.rs`, `callback.rs`).
#[allow(unused_imports)]
pub use backend::{
    agent_data, async_iterator_prototype, clean_up_after_running_script, clock_nanos,
    current_realm, error_prototype, global_object, in_realm, iterator_prototype, queue_microtask,
    queue_task, queue_task_in, queue_timer, set_agent_data, set_microtask_checkpoint,
    set_realm_data, with_realm_data,
};

// The runtime (`runtime.rs`): an agent (`Runtime`: the engine's runtime and its main realm,
// new realms, the microtask queue, and what bounds or stresses it: `set_deadline`,
// `set_memory_limit`, `set_loop_iteration_limit`, `set_gc_stress`, each enforced as far as its
// engine can, which it says), script evaluation, async jobs, collection; and, in the
// engine-free `runtime.rs` beside the backends, what a runtime asks of the host that embeds it.
#[allow(unused_imports)]
pub use backend::{
    clear_kept_objects, collect_garbage, evaluate_script, inspect, is_pending_promise, run_jobs,
    AsyncJobs, Runtime,
};
#[allow(unused_imports)]
pub use runtime::{RejectionOperation, RuntimeHost, Task, TimerCanceled};

// What a differential tester's host needs beyond running scripts (`diff_hook.rs`).
pub(crate) use backend::diff_hook::{
    perform_promise_then, set_interrupt, set_runtime_limits, uncatchable_error,
};

// ---- Engine-free code over the contract ----

mod buffer;
pub(crate) mod huge_pages;
mod slot;
#[allow(unused_imports)]
pub use buffer::{
    can_copy_data_block_bytes, check_external_bytes_limit, clone_as_uint8_array,
    collect_if_external_bytes_grew, external_bytes_held, new_array_buffer_holding,
    set_external_bytes_limit, ExternalBytes, COLLECT_AFTER_EXTERNAL_BYTES,
};
#[allow(unused_imports)]
pub use slot::{Slot, SlotMut, SlotRef};
pub(crate) mod internal_promise;
pub(crate) mod json_text;
pub(crate) mod kinds;
pub(crate) mod pool;
mod promise_result;
mod runtime;
pub(crate) mod webidl;
mod webidl_iterable;
pub use kinds::{CodeUnits, TypedArrayKind, ViewKind, ViewRecord};
pub(crate) use promise_result::*;
pub use promise_result::{promise_rejected_with, promise_resolved_with};

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
