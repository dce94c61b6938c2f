//! PENDING (issue 21): the stub bodies, to be replaced by the QuickJS implementation.
#![allow(unused_variables, clippy::needless_pass_by_value)]
use super::*;
pub fn set_microtask_checkpoint(ctx: &mut Cx, checkpoint: fn(&mut Cx)) {
    unimplemented!()
}
pub fn clean_up_after_running_script(ctx: &mut Cx) {
    unimplemented!()
}
