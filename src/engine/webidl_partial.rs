//! Members another specification adds to an interface (a `partial interface`), defined once
//! the interface is registered: the File API's `URL.createObjectURL` and `URL.revokeObjectURL`.

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
    let function = webidl::function(ctx, name, length, f);
    super::Object::from(constructor).define_property_or_throw(
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
