//! Helpers for tests of the library (its integration tests first), with the same signatures on
//! both engines (`src/host/test_api.rs` is the Boa twin): script evaluation with and without
//! running the jobs, an exception's message, the global object, a global function, and a full
//! garbage collection.

use crate::engine::quickjs_host as qh;
use crate::{JsError, JsResult, NativeFunctionPointer, Object, Value};

use super::Context;

/// Evaluates `source` as a classic script in the current realm, without running any job.
pub fn evaluate(ctx: &mut Context, source: &str) -> JsResult<Value> {
    qh::eval_script(ctx, "<script>", source)
}

/// Evaluates `source` as a classic script in the current realm, then runs the agent's jobs
/// until none is left (microtask checkpoints, tasks and timers, as the host's event loop runs
/// them until idle). An exception comes back as its message ([`error_text`]).
pub fn run_script(ctx: &mut Context, source: &str) -> Result<Value, String> {
    let value = qh::eval_script(ctx, "<script>", source).map_err(|e| error_text(e, ctx))?;
    loop {
        super::perform_checkpoint(ctx);
        match qh::next_task(ctx) {
            qh::Next::Task(task) => {
                if let Err(error) = qh::run_task(ctx, task) {
                    super::report_uncaught(error, ctx);
                }
            }
            qh::Next::Wait(nanos) => std::thread::sleep(std::time::Duration::from_nanos(
                u64::try_from(nanos).unwrap_or(u64::MAX),
            )),
            qh::Next::Idle => return Ok(value),
        }
    }
}

/// The message of an exception, as the host reports it: `ToString(thrown value)`.
pub fn error_text(error: JsError, ctx: &mut Context) -> String {
    super::error_message(error, ctx)
}

/// The current realm's global object.
pub fn global_object(ctx: &mut Context) -> Object {
    crate::engine::global_object(ctx)
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

/// Collects all garbage (QuickJS's cycle collection; its `WeakRef`s keep nothing alive).
pub fn collect_garbage(ctx: &mut Context) {
    qh::run_gc(ctx);
}

impl super::Host {
    /// How many `MessagePort`s this agent holds because they are entangled (or still have
    /// messages to dispatch): a debug count for leak tests (as the Boa host's).
    pub fn entangled_ports(&self, ctx: &Context) -> usize {
        crate::html::held_ports(ctx)
    }

    /// The global object of a new realm of this agent that has only the DOM and HTML
    /// interfaces (as the Boa host's).
    pub fn new_bare_realm_global(&self, ctx: &mut Context) -> JsResult<Value> {
        let realm = self.runtime.new_realm()?;
        ctx.in_realm(realm.0, |ctx| {
            let object_prototype = qh::object_prototype(ctx);
            qh::adopt_global_data(ctx, crate::dom::new_event_target_global(object_prototype));
            crate::dom::register(ctx)?;
            crate::html::register(ctx)?;
            Ok(crate::engine::global_object(ctx).into())
        })
    }
}
