//! Helpers for tests of the library (its integration tests first), the same on both engines:
//! script evaluation with and without running the jobs, an exception's message, the global
//! object, a global function, and a full garbage collection.

use super::Context;
use crate::engine;
use crate::{JsError, JsResult, NativeFunctionPointer, Object, Value};

/// Evaluates `source` as a classic script in the current realm, without running any job.
pub fn evaluate(ctx: &mut Context, source: &str) -> JsResult<Value> {
    engine::evaluate_script(ctx, None, source)
}

/// Evaluates `source` as a classic script in the current realm, then runs the context's jobs
/// until none is left (a host's context: its event loop until idle, errors reported there; on
/// Boa, a plain context: its own job queue). An exception comes back as its message
/// ([`error_text`]).
pub fn run_script(ctx: &mut Context, source: &str) -> Result<Value, String> {
    let value = engine::evaluate_script(ctx, None, source).map_err(|e| error_text(e, ctx))?;
    engine::run_jobs(ctx).map_err(|e| error_text(e, ctx))?;
    Ok(value)
}

/// The message of an exception, as the host reports it: `ToString(thrown value)`.
pub fn error_text(error: JsError, ctx: &mut Context) -> String {
    super::error_message(error, ctx)
}

/// The current realm's global object.
pub fn global_object(ctx: &mut Context) -> Object {
    engine::global_object(ctx)
}

/// Defines a function on the current realm's global object (writable, enumerable and
/// configurable, as a WebIDL operation of the global).
pub fn define_global_function(
    ctx: &mut Context,
    name: &str,
    length: usize,
    f: NativeFunctionPointer,
) -> JsResult<()> {
    engine::webidl::define_global_operation(name, length, f, ctx)
}

/// The bytes held in Rust on behalf of engine objects on this thread (chunks of Rust bytes in
/// streams' queues), which count toward a collection: see
/// [`crate::engine::COLLECT_AFTER_EXTERNAL_BYTES`].
pub fn external_bytes_held() -> usize {
    engine::external_bytes_held()
}

/// Collects all garbage, after releasing the objects `WeakRef`s keep alive for the current job.
pub fn collect_garbage(ctx: &mut Context) {
    engine::clear_kept_objects(ctx);
    engine::collect_garbage(ctx);
}

impl super::Host {
    /// The global object of a new realm of this agent that has only the DOM and HTML interfaces
    /// (`EventTarget`, `DOMException`, `MessageChannel`, `MessagePort`, `structuredClone`, ...)
    /// and none of the streams: a realm where a transferred stream's interface is not exposed.
    pub fn new_bare_realm_global(&self, ctx: &mut Context) -> JsResult<Value> {
        let realm = self.0.runtime.new_realm(ctx)?;
        engine::in_realm(ctx, &realm, |ctx| {
            crate::dom::register(ctx)?;
            crate::html::register(ctx)?;
            Ok(Value::from(engine::global_object(ctx)))
        })
    }
}
