//! HTML's "clean up after running script" (<https://html.spec.whatwg.org/#clean-up-after-running-script>)
//! after a callback the spec layer calls: when the JavaScript execution context stack is empty
//! again, the host performs a microtask checkpoint (so the microtasks a listener queued run
//! before the next listener, or the next event of the same task, is called).

use std::ffi::c_int;

use super::core::q;
use super::Cx;

/// The host's "perform a microtask checkpoint".
#[derive(Clone, Copy)]
struct MicrotaskCheckpoint(fn(&mut Cx));

/// Sets the function that performs a microtask checkpoint (the host's event loop's). Without
/// one, [`clean_up_after_running_script`] does nothing.
pub fn set_microtask_checkpoint(ctx: &mut Cx, checkpoint: fn(&mut Cx)) {
    ctx.agent().set_data(MicrotaskCheckpoint(checkpoint));
}

/// <https://html.spec.whatwg.org/#clean-up-after-running-script> step 3: if the JavaScript
/// execution context stack is now empty, perform a microtask checkpoint.
pub fn clean_up_after_running_script(ctx: &mut Cx) {
    if !script_stack_is_empty(ctx) {
        return;
    }
    let checkpoint = ctx.agent().data::<MicrotaskCheckpoint>().copied();
    if let Some(MicrotaskCheckpoint(checkpoint)) = checkpoint {
        checkpoint(ctx);
    }
}

/// How many stack frames [`script_stack_is_empty`] looks at.
const FRAMES_LOOKED_AT: c_int = 16;

/// Whether no script is running: none of the innermost [`FRAMES_LOOKED_AT`] frames of the
/// runtime's stack is a bytecode function's.
///
/// QuickJS has no public "is the stack empty" query. `JS_GetScriptOrModuleName(ctx, n)` names
/// the script of the `n`th frame from the top, and gives no atom both past the bottom of the
/// stack and for a frame of a native function; so the stack counts as empty when the top
/// frames are all missing or native. (Our own functions push no frame at all; a built-in's
/// does.) What this misses: a stack of only built-in frames with no script under them (Rust
/// calling a built-in that calls back into Rust), counted as empty, and a script under more
/// than [`FRAMES_LOOKED_AT`] built-in frames; neither happens in the host's event loop, where a
/// callback runs either from a task (no frame) or under the script that dispatched it.
fn script_stack_is_empty(ctx: &mut Cx) -> bool {
    for level in 0..FRAMES_LOOKED_AT {
        // SAFETY: `ctx`'s context is live (`Cx`'s invariant); the call walks the runtime's
        // current stack frames (any `level` is fine: past the bottom it returns no atom) and
        // returns a counted atom (`JS_DupAtom`) or `JS_ATOM_NULL`.
        let atom = unsafe { q::JS_GetScriptOrModuleName(ctx.raw(), level) };
        if atom != 0 {
            // SAFETY: `ctx` is live; `atom` is the count just taken, given back once.
            unsafe { q::JS_FreeAtom(ctx.raw(), atom) };
            return false;
        }
    }
    true
}
