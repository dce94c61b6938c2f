//! Helpers for tests of the library (its integration tests first), with the same signatures on
//! both engines (`src/host/quickjs/test_api.rs` is the QuickJS twin): script evaluation with
//! and without running the jobs, an exception's message, the global object, a global function,
//! and a full garbage collection.

use boa_engine::{Context, Source};

use crate::{JsError, JsResult, NativeFunctionPointer, Object, Value};

/// Evaluates `source` as a classic script in the current realm, without running any job.
pub fn evaluate(ctx: &mut Context, source: &str) -> JsResult<Value> {
    ctx.eval(Source::from_bytes(source))
        .map(Value::from)
        .map_err(JsError::from)
}

/// Evaluates `source` as a classic script in the current realm, then runs the context's jobs
/// until none is left (a host's context: its event loop until idle; a plain context: its job
/// queue). An exception comes back as its message ([`error_text`]).
pub fn run_script(ctx: &mut Context, source: &str) -> Result<Value, String> {
    let value = ctx
        .eval(Source::from_bytes(source))
        .map_err(|e| super::error_message(e, ctx))?;
    ctx.run_jobs().map_err(|e| super::error_message(e, ctx))?;
    Ok(value.into())
}

/// The message of an exception, as the host reports it: `ToString(thrown value)`.
pub fn error_text(error: JsError, ctx: &mut Context) -> String {
    super::error_message(boa_engine::JsError::from(error), ctx)
}

/// The current realm's global object.
pub fn global_object(ctx: &mut Context) -> Object {
    Object::from(ctx.global_object())
}

/// Defines a function on the current realm's global object (writable, enumerable and
/// configurable, as a WebIDL operation of the global).
pub fn define_global_function(
    ctx: &mut Context,
    name: &str,
    length: usize,
    f: NativeFunctionPointer,
) -> JsResult<()> {
    crate::engine::webidl::define_global_operation(name, length, f, ctx)
}

/// Collects all garbage, after releasing the objects `WeakRef`s keep alive for the current job.
pub fn collect_garbage(ctx: &mut Context) {
    ctx.clear_kept_objects();
    boa_gc::force_collect();
}

impl super::Host {
    /// The global object of a new realm of this agent that has only the DOM and HTML interfaces
    /// (`EventTarget`, `DOMException`, `MessageChannel`, `MessagePort`, `structuredClone`, ...)
    /// and none of the streams: a realm where a transferred stream's interface is not exposed.
    pub fn new_bare_realm_global(&self, ctx: &mut Context) -> JsResult<Value> {
        let realm = ctx.create_realm()?;
        let previous = ctx.enter_realm(realm);
        let result = crate::dom::register(ctx)
            .and_then(|()| crate::html::register(ctx))
            .map(|()| Value::from(Object::from(ctx.global_object())));
        ctx.enter_realm(previous);
        result
    }
}
