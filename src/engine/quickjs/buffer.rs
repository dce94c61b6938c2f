//! PENDING (issue 21): the stub bodies, to be replaced by the QuickJS implementation.
#![allow(unused_variables, clippy::needless_pass_by_value)]
use super::core::Trace;
use super::*;
use crate::engine::{TypedArrayKind, ViewKind, ViewRecord};

/// Intrinsics this file uses (name, expression), captured per realm.
pub(crate) const INTRINSICS: &[(&str, &str)] = &[];

pub fn array_buffer_view(value: &Value, what: &str, ctx: &mut Cx) -> JsResult<ViewRecord> {
    unimplemented!()
}
pub fn is_detached_buffer(buffer: &JsArrayBuffer) -> bool {
    unimplemented!()
}
pub fn array_buffer_byte_length(buffer: &JsArrayBuffer) -> u64 {
    unimplemented!()
}
pub fn can_transfer_array_buffer(buffer: &JsArrayBuffer) -> bool {
    unimplemented!()
}
pub fn transfer_array_buffer(buffer: &JsArrayBuffer, ctx: &mut Cx) -> JsResult<JsArrayBuffer> {
    unimplemented!()
}
pub fn clone_array_buffer(
    buffer: &JsArrayBuffer,
    byte_offset: u64,
    byte_length: u64,
    ctx: &mut Cx,
) -> JsResult<JsArrayBuffer> {
    unimplemented!()
}
pub fn clone_as_uint8_array(view: &ViewRecord, ctx: &mut Cx) -> JsResult<Object> {
    unimplemented!()
}
pub fn construct_view(
    kind: ViewKind,
    buffer: &JsArrayBuffer,
    byte_offset: u64,
    length: u64,
    ctx: &mut Cx,
) -> JsResult<Object> {
    unimplemented!()
}
pub fn can_copy_data_block_bytes(
    to_buffer: &JsArrayBuffer,
    to_index: u64,
    from_buffer: &JsArrayBuffer,
    from_index: u64,
    count: u64,
) -> bool {
    unimplemented!()
}
pub fn copy_data_block_bytes(
    to_buffer: &JsArrayBuffer,
    to_index: u64,
    from_buffer: &JsArrayBuffer,
    from_index: u64,
    count: u64,
) -> bool {
    unimplemented!()
}
pub fn new_array_buffer(byte_length: u64, ctx: &mut Cx) -> JsResult<JsArrayBuffer> {
    unimplemented!()
}
pub fn buffer_source_copy(
    value: &Value,
    allow_shared: bool,
    what: &str,
    ctx: &mut Cx,
) -> JsResult<Vec<u8>> {
    unimplemented!()
}
pub fn check_buffer_source(
    value: &Value,
    allow_shared: bool,
    what: &str,
    ctx: &mut Cx,
) -> JsResult<()> {
    unimplemented!()
}
pub fn is_buffer_source_object(value: &Value) -> bool {
    unimplemented!()
}
pub fn new_uint8_array(bytes: &[u8], ctx: &mut Cx) -> JsResult<Value> {
    unimplemented!()
}
pub fn uint8_array_bytes<R>(value: &Value, ctx: &mut Cx, f: impl FnOnce(&[u8]) -> R) -> Option<R> {
    unimplemented!()
}
pub fn with_buffer_source_bytes<R>(
    value: &Value,
    ctx: &mut Cx,
    f: impl FnOnce(&[u8]) -> R,
) -> Option<R> {
    unimplemented!()
}
pub fn buffer_source_byte_length(value: &Value, ctx: &mut Cx) -> Option<usize> {
    unimplemented!()
}
pub fn with_array_buffer_bytes_mut<R>(
    buffer: &JsArrayBuffer,
    offset: u64,
    len: u64,
    f: impl FnOnce(&mut [u8]) -> R,
) -> Option<R> {
    unimplemented!()
}
pub fn same_buffer(a: &JsArrayBuffer, b: &JsArrayBuffer) -> bool {
    unimplemented!()
}
pub fn with_uint8_array_bytes_mut<R>(
    value: &Value,
    what: &str,
    ctx: &mut Cx,
    f: impl FnOnce(&mut [u8]) -> (R, usize),
) -> JsResult<R> {
    unimplemented!()
}
