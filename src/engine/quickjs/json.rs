//! PENDING (issue 21): the stub bodies, to be replaced by the QuickJS implementation.
#![allow(unused_variables, clippy::needless_pass_by_value)]
use super::*;

pub fn remember_json_intrinsics(ctx: &mut Cx) {
    unimplemented!()
}
pub fn json_parse(text: JsString, ctx: &mut Cx) -> JsResult<Value> {
    unimplemented!()
}
pub fn json_stringify(value: Value, ctx: &mut Cx) -> JsResult<Option<JsString>> {
    unimplemented!()
}
