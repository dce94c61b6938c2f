//! HTML's "clean up after running script" (<https://html.spec.whatwg.org/#clean-up-after-running-script>)
//! after a callback the spec layer calls: when the JavaScript execution context stack is empty
//! again, the host performs a microtask checkpoint (so the microtasks a listener queued run
//! before the next listener, or the next event of the same task, is called).

use super::Cx;

/// The host's "perform a microtask checkpoint".
#[derive(Clone, Copy)]
struct MicrotaskCheckpoint(fn(&mut Cx));

/// Sets the function that performs a microtask checkpoint (the host's event loop's). Without
/// one, [`clean_up_after_running_script`] does nothing.
pub fn set_microtask_checkpoint(ctx: &mut Cx, checkpoint: fn(&mut Cx)) {
    super::set_agent_data(ctx, MicrotaskCheckpoint(checkpoint));
}

/// <https://html.spec.whatwg.org/#clean-up-after-running-script> step 3: if the JavaScript
/// execution context stack is now empty, perform a microtask checkpoint.
pub fn clean_up_after_running_script(ctx: &mut Cx) {
    if ctx.stack_trace().next().is_some() {
        return;
    }
    if let Some(MicrotaskCheckpoint(checkpoint)) =
        super::agent_data::<MicrotaskCheckpoint>(ctx).copied()
    {
        checkpoint(ctx);
    }
}
