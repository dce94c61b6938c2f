//! PENDING (issue 21): the stub bodies, to be replaced by the QuickJS implementation.
#![allow(unused_variables, clippy::needless_pass_by_value)]
use super::*;
/// A promise no script can reach.
#[derive(Clone, Debug)]
pub(crate) struct InternalPromise(());
impl super::Trace for InternalPromise {
    fn trace(&self, _: &mut super::Marker) {}
}
impl InternalPromise {
    pub(crate) fn outcome(&self) -> Option<Result<Value, Value>> {
        unimplemented!()
    }
    pub(crate) fn ptr_eq(&self, other: &Self) -> bool {
        unimplemented!()
    }
    pub(crate) fn fulfilled(value: Value) -> Self {
        unimplemented!()
    }
    pub(crate) fn new() -> Self {
        unimplemented!()
    }
    pub(crate) fn react<T: Trace + 'static>(
        &self,
        data: T,
        on_fulfilled: ReactionStep<T>,
        on_rejected: ReactionStep<T>,
        ctx: &mut Cx,
    ) {
        unimplemented!()
    }
    pub(crate) fn resolve(&self, value: Value, ctx: &mut Cx) -> JsResult<()> {
        unimplemented!()
    }
    pub(crate) fn thenable_job(&self, thenable: Value, then: Object, ctx: &mut Cx) -> JsResult<()> {
        unimplemented!()
    }
    pub(crate) fn resolve_with_internal(&self, inner: InternalPromise, ctx: &mut Cx) {
        unimplemented!()
    }
    pub(crate) fn reject(&self, reason: Value, ctx: &mut Cx) {
        unimplemented!()
    }
}
