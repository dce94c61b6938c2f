//! Operations defined after an interface or the global object exists: the members another
//! specification adds to an interface (a `partial interface`: the File API's
//! `URL.createObjectURL` and `URL.revokeObjectURL`), and the operations of the global object
//! (`structuredClone`, `fetch`, `atob`, `btoa`).

use boa_engine::class::Class;

use super::{webidl, Cx, JsResult, NativeFunctionPointer, PropertyDescriptor};
use crate::engine;

/// Defines a static operation (<https://webidl.spec.whatwg.org/#es-operations>: writable,
/// enumerable, configurable) named `name` on `T`'s interface object of the current realm.
pub fn define_static_operation<T: Class>(
    name: &str,
    length: usize,
    f: NativeFunctionPointer,
    ctx: &mut Cx,
) -> JsResult<()> {
    let constructor = ctx
        .get_global_class::<T>()
        .ok_or_else(|| {
            engine::throw_type_error(format!("{} is not registered in this realm", T::NAME))
        })?
        .constructor();
    define_operation(&super::Object::from(constructor), name, length, f, ctx)
}

/// Defines a regular operation of the current realm's global object (`WindowOrWorkerGlobalScope`
/// and the like), replacing any earlier property of that name.
pub fn define_global_operation(
    name: &str,
    length: usize,
    f: NativeFunctionPointer,
    ctx: &mut Cx,
) -> JsResult<()> {
    let global = engine::global_object(ctx);
    define_operation(&global, name, length, f, ctx)
}

/// An operation's property (<https://webidl.spec.whatwg.org/#es-operations>: a built-in function
/// `name` of `length`; writable, enumerable, configurable) on `target`.
fn define_operation(
    target: &super::Object,
    name: &str,
    length: usize,
    f: NativeFunctionPointer,
    ctx: &mut Cx,
) -> JsResult<()> {
    let function = webidl::function(ctx, name, length, f);
    target.define_property_or_throw(
        engine::JsString::from(name),
        PropertyDescriptor::builder()
            .value(function)
            .writable(true)
            .enumerable(true)
            .configurable(true),
        ctx,
    )?;
    Ok(())
}
