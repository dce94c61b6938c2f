//! The job queue: microtasks that run Rust code, on the engine's own job queue (the FIFO that
//! holds promise reaction jobs, so they interleave exactly as HTML's microtask queue would),
//! and tasks for the host's event loop.

use std::cell::RefCell;
use std::ffi::c_int;

use super::core::{
    data_of, new_native_object, q, take_exception, throw, Marker, Trace, NULL, UNDEFINED,
};
use super::{current_realm, queue_task_in, Cx, JsResult, Value};

/// A microtask's Rust closure, run once.
type Microtask = Box<dyn FnOnce(&mut Cx) -> JsResult<()>>;

/// The native data of the object a queued microtask's job entry holds: the closure, until the
/// job takes it.
struct MicrotaskCell(RefCell<Option<Microtask>>);

impl Trace for MicrotaskCell {
    /// Reports nothing: the values the closure captured stay counted as referenced from
    /// outside the object graph, so they are roots until the closure has run or is dropped.
    /// That is sound (nothing is freed early), and no cycle can hide behind it for long: the
    /// only reference to this object is the job entry's, released once the job has run.
    fn trace(&self, _: &mut Marker) {}
}

/// The `JSJobFunc` of a microtask: `argv[0]` is its [`MicrotaskCell`] object.
unsafe extern "C" fn run_microtask(
    ctx: *mut q::JSContext,
    argc: c_int,
    argv: *mut q::JSValue,
) -> q::JSValue {
    let mut cx = Cx::enter(ctx);
    if argc < 1 || argv.is_null() {
        return UNDEFINED;
    }
    let cell = Value::dup_raw(cx.rt(), *argv);
    let job = data_of::<MicrotaskCell>(&cell).and_then(|c| c.0.borrow_mut().take());
    drop(cell);
    let Some(job) = job else {
        return UNDEFINED;
    };
    match job(&mut cx) {
        Ok(()) => UNDEFINED,
        Err(error) => throw(&mut cx, error),
    }
}

/// Queues a microtask that runs Rust code (HTML "queue a microtask") in the current realm, on
/// the engine's job queue. Values captured by the closure are roots until it runs.
pub fn queue_microtask(ctx: &mut Cx, job: impl FnOnce(&mut Cx) -> JsResult<()> + 'static) {
    let job: Microtask = Box::new(job);
    let cell = new_native_object(ctx.raw(), NULL, MicrotaskCell(RefCell::new(Some(job))));
    let mut argv = [cell.raw()];
    // SAFETY: a live context; JS_EnqueueJob takes its own reference to the argument.
    let status = unsafe { q::JS_EnqueueJob(ctx.raw(), Some(run_microtask), 1, argv.as_mut_ptr()) };
    if status < 0 {
        // Out of memory: the job is dropped with the object.
        drop(take_exception(ctx));
    }
}

/// Queues a task (HTML "queue a global task") on the host's event loop that runs Rust code in
/// the current realm. Values captured by the closure are roots until it runs.
pub fn queue_task(ctx: &mut Cx, job: impl FnOnce(&mut Cx) -> JsResult<()> + 'static) {
    let realm = current_realm(ctx);
    queue_task_in(ctx, realm, job);
}
