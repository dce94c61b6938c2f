//! PENDING (issue 21): the stub bodies, to be replaced by the QuickJS implementation.
#![allow(unused_variables, clippy::needless_pass_by_value)]
use super::core::Trace;
use super::*;

/// Intrinsics this file uses (name, expression), captured per realm.
pub(crate) const INTRINSICS: &[(&str, &str)] = &[];

/// A promise made by the engine with its resolving functions.
#[derive(Clone, Debug)]
pub struct PromiseCapability(());
impl Trace for PromiseCapability {
    fn trace(&self, _: &mut super::Marker) {}
}

/// A step of a reaction to a promise.
pub type ReactionStep<T> = fn(&T, Value, &mut Cx) -> JsResult<()>;

impl JsPromise {
    pub fn resolve(value: Value, ctx: &mut Cx) -> JsResult<Self> {
        unimplemented!()
    }
}
impl PromiseCapability {
    pub fn new(ctx: &mut Cx) -> Self {
        unimplemented!()
    }
    pub fn react<T: Trace + 'static>(
        &self,
        data: T,
        on_fulfilled: ReactionStep<T>,
        on_rejected: ReactionStep<T>,
        ctx: &mut Cx,
    ) -> JsResult<()> {
        unimplemented!()
    }
    pub fn promise(&self) -> &JsPromise {
        unimplemented!()
    }
    pub fn resolve(&self, value: Value, ctx: &mut Cx) -> JsResult<()> {
        unimplemented!()
    }
    pub fn reject(&self, reason: Value, ctx: &mut Cx) -> JsResult<()> {
        unimplemented!()
    }
    pub fn is_pending(&self) -> bool {
        unimplemented!()
    }
}
pub fn promise_resolved_with(value: Value, ctx: &mut Cx) -> JsResult<JsPromise> {
    unimplemented!()
}
pub fn promise_rejected_with(reason: Value, ctx: &mut Cx) -> JsResult<JsPromise> {
    unimplemented!()
}
pub fn mark_as_handled(promise: &JsPromise, ctx: &mut Cx) -> JsResult<()> {
    unimplemented!()
}
pub fn is_marked_as_handled(promise: &Object, ctx: &mut Cx) -> bool {
    unimplemented!()
}
pub fn react<T: Trace + 'static>(
    promise: &JsPromise,
    data: T,
    on_fulfilled: ReactionStep<T>,
    on_rejected: ReactionStep<T>,
    ctx: &mut Cx,
) -> JsResult<()> {
    unimplemented!()
}
pub fn run_deferred_reactions(ctx: &mut Cx) {
    unimplemented!()
}
pub fn remember_promise_intrinsics(ctx: &mut Cx) {
    unimplemented!()
}
pub fn fresh_promise_then_is_intrinsic(ctx: &mut Cx) -> bool {
    unimplemented!()
}
pub fn original_promise_then(ctx: &mut Cx) -> Option<Object> {
    unimplemented!()
}
pub fn species_lookup_is_intrinsic(promise: Option<&JsPromise>, ctx: &mut Cx) -> bool {
    unimplemented!()
}
pub fn species_lookups_of_fresh_promise(ctx: &mut Cx) -> JsResult<()> {
    unimplemented!()
}
pub fn is_promise(value: &Value) -> bool {
    unimplemented!()
}
pub fn untouched_promise(value: &Value, ctx: &mut Cx) -> Option<JsPromise> {
    unimplemented!()
}
