//! The engine side of the host's stream-diff additions (`src/host/quickjs/diff_api.rs`):
//! QuickJS's interrupt handler, its uncatchable errors, and a native PerformPromiseThen. Raw
//! FFI stays in this folder; the host calls these.

use std::cell::Cell;
use std::ffi::{c_int, c_void};

use super::core::{check, check_status, q, Cx, NULL};
use super::{is_promise, throw_type_error, JsError, JsResult, Value};

thread_local! {
    /// What the interrupt handler asks (one runtime per thread in the hosts that use it).
    static STOP: Cell<Option<fn() -> bool>> = const { Cell::new(None) };
}

/// QuickJS's interrupt handler: called every few thousand bytecode steps; nonzero makes the
/// running script throw an uncatchable `InternalError: interrupted`.
unsafe extern "C" fn interrupt(_rt: *mut q::JSRuntime, _opaque: *mut c_void) -> c_int {
    let Some(stop) = STOP.with(Cell::get) else {
        return 0;
    };
    // A panic must not unwind into C: it stops the script instead.
    c_int::from(std::panic::catch_unwind(stop).unwrap_or(true))
}

/// Makes running script stop with an uncatchable error once `stop` returns true (asked every
/// few thousand bytecode steps); `None` removes the handler.
pub(crate) fn set_interrupt(cx: &Cx, stop: Option<fn() -> bool>) {
    STOP.with(|s| s.set(stop));
    let handler: q::JSInterruptHandler = stop.map(|_| interrupt as _);
    // SAFETY: a live runtime; the handler reads only the thread-local above.
    unsafe { q::JS_SetInterruptHandler(cx.rt(), handler, std::ptr::null_mut()) };
}

/// A new uncatchable `InternalError` with `message` (script's `catch` and `finally` do not run
/// for it; it ends the script, a job or a task as QuickJS's own interrupt does).
pub(crate) fn uncatchable_error(cx: &mut Cx, message: &str) -> JsError {
    let text = std::ffi::CString::new(message).unwrap_or_default();
    // SAFETY: a live context; "%s" with one NUL-terminated string argument.
    let raw = unsafe { q::JS_NewInternalError(cx.raw(), c"%s".as_ptr(), text.as_ptr()) };
    match check(cx, raw) {
        Ok(error) => {
            // SAFETY: a live context and an error object.
            unsafe { q::JS_SetUncatchableError(cx.raw(), error.raw()) };
            JsError::from_thrown(error)
        }
        Err(error) => error,
    }
}

/// PerformPromiseThen(promise, onFulfilled, onRejected, ! NewPromiseCapability(%Promise%)):
/// the captured `Promise.prototype.then` called on the promise with its prototype set to null
/// for the call, so its SpeciesConstructor finds no `constructor` and takes %Promise% without
/// an observable lookup; a promise that is not extensible or has an own `constructor` gets the
/// plain call. A TypeError if `promise` is not a promise.
pub(crate) fn perform_promise_then(
    promise: &Value,
    on_fulfilled: &Value,
    on_rejected: &Value,
    cx: &mut Cx,
) -> JsResult<Value> {
    if !is_promise(promise) {
        return Err(throw_type_error("__sdPerformPromiseThen: not a promise"));
    }
    let then = cx.realm_state().intrinsic("Promise.prototype.then");
    let args = [on_fulfilled.clone(), on_rejected.clone()];
    // SAFETY: a live context and an object (a promise is not a proxy: no trap runs).
    let extensible = check_status(cx, unsafe { q::JS_IsExtensible(cx.raw(), promise.raw()) })?;
    let own_constructor = match promise.as_object() {
        Some(object) => object.has_own_property("constructor", cx)?,
        None => false,
    };
    if extensible == 0 || own_constructor {
        return super::call(&then, promise, &args, cx);
    }
    // SAFETY: a live context; JS_GetPrototype returns a new reference (null for none).
    let proto = check(cx, unsafe { q::JS_GetPrototype(cx.raw(), promise.raw()) })?;
    // SAFETY: a live context; an extensible ordinary object's prototype can be set.
    check_status(cx, unsafe {
        q::JS_SetPrototype(cx.raw(), promise.raw(), NULL)
    })?;
    let result = super::call(&then, promise, &args, cx);
    // SAFETY: as above; the prototype was this object's own.
    let restored = check_status(cx, unsafe {
        q::JS_SetPrototype(cx.raw(), promise.raw(), proto.raw())
    });
    let result = result?;
    restored?;
    Ok(result)
}
