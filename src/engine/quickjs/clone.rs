//! PENDING (issue 21): the stub bodies, to be replaced by the QuickJS implementation.
#![allow(unused_variables, clippy::needless_pass_by_value)]
use super::*;
pub use crate::engine::kinds::{ObjectKind, Primitive, ViewedBuffer, ERROR_NAMES};

/// Intrinsics this file uses (name, expression), captured per realm.
pub(crate) const INTRINSICS: &[(&str, &str)] = &[];

/// A data block of an `ArrayBuffer`, owned by Rust.
#[derive(Debug)]
pub struct ByteBlock(());

pub fn primitive(value: &Value) -> Option<Primitive> {
    unimplemented!()
}
pub fn primitive_value(primitive: &Primitive) -> Value {
    unimplemented!()
}
pub fn object_kind(object: &Object, ctx: &mut Cx) -> JsResult<ObjectKind> {
    unimplemented!()
}
pub fn map_entries(object: &Object) -> JsResult<Vec<(Value, Value)>> {
    unimplemented!()
}
pub fn set_entries(object: &Object) -> JsResult<Vec<Value>> {
    unimplemented!()
}
pub fn enumerable_own_keys(object: &Object, ctx: &mut Cx) -> JsResult<Vec<PropertyKey>> {
    unimplemented!()
}
pub fn array_length(object: &Object, ctx: &mut Cx) -> JsResult<u32> {
    unimplemented!()
}
pub fn own_data_property(object: &Object, key: &PropertyKey) -> Option<Value> {
    unimplemented!()
}
pub fn own_accessor_getter(object: &Object, key: &PropertyKey) -> Option<Value> {
    unimplemented!()
}
pub fn property_key(string: JsString) -> PropertyKey {
    unimplemented!()
}
pub fn property_key_string(key: &PropertyKey) -> JsString {
    unimplemented!()
}
pub fn new_primitive_wrapper(value: &Primitive, ctx: &mut Cx) -> JsResult<Object> {
    unimplemented!()
}
pub fn new_date(time: f64, ctx: &mut Cx) -> JsResult<Object> {
    unimplemented!()
}
pub fn new_regexp(source: JsString, flags: &str, ctx: &mut Cx) -> JsResult<Object> {
    unimplemented!()
}
pub fn new_array_buffer_from(bytes: ByteBlock, ctx: &mut Cx) -> JsResult<Object> {
    unimplemented!()
}
pub fn new_map(ctx: &mut Cx) -> Object {
    unimplemented!()
}
pub fn map_append(map: &Object, key: Value, value: Value, ctx: &mut Cx) -> JsResult<()> {
    unimplemented!()
}
pub fn new_set(ctx: &mut Cx) -> Object {
    unimplemented!()
}
pub fn set_append(set: &Object, value: Value, ctx: &mut Cx) -> JsResult<()> {
    unimplemented!()
}
pub fn new_error(name: &str, message: Option<JsString>, ctx: &mut Cx) -> JsResult<Object> {
    unimplemented!()
}
pub fn new_array(length: u32, ctx: &mut Cx) -> JsResult<Object> {
    unimplemented!()
}
pub fn new_plain_object(ctx: &mut Cx) -> Object {
    unimplemented!()
}
impl ByteBlock {
    pub fn copy_of(bytes: &[u8]) -> Self {
        unimplemented!()
    }
}
pub fn copy_buffer_bytes(buffer: &JsArrayBuffer) -> Option<ByteBlock> {
    unimplemented!()
}
pub fn detach_array_buffer(buffer: &JsArrayBuffer) -> JsResult<ByteBlock> {
    unimplemented!()
}
pub fn as_array_buffer(object: &Object) -> Option<JsArrayBuffer> {
    unimplemented!()
}
pub fn is_shared_array_buffer(object: &Object) -> bool {
    unimplemented!()
}
pub fn frozen_array(values: Vec<Value>, ctx: &mut Cx) -> JsResult<Object> {
    unimplemented!()
}
