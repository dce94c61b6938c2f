//! PENDING (issue 21): the stub bodies, to be replaced by the QuickJS implementation.
#![allow(unused_variables, clippy::needless_pass_by_value)]
use super::*;
pub fn queue_microtask(ctx: &mut Cx, job: impl FnOnce(&mut Cx) -> JsResult<()> + 'static) {
    unimplemented!()
}
pub fn queue_task(ctx: &mut Cx, job: impl FnOnce(&mut Cx) -> JsResult<()> + 'static) {
    unimplemented!()
}
