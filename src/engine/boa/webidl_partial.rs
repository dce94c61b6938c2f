//! The members another specification adds to an interface after it exists (a `partial
//! interface`: the File API's `URL.createObjectURL` and `URL.revokeObjectURL`), on Boa: the
//! interface object is the registered class's.

use boa_engine::class::Class;

use super::{Cx, JsResult, NativeFunctionPointer};
use crate::engine;
use crate::engine::webidl::define_operation;

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
