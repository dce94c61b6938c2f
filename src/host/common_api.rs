//! Host methods written on the engine API alone, the same on the Boa and the QuickJS host
//! (this file is a module of each).

use super::{Context, Host};
use crate::engine::{global_object, PropertyDescriptor};

impl Host {
    /// Defines `name` on the current realm's global object as a writable, enumerable and
    /// configurable data property holding `value` (what `globalThis[name] = value` makes of a
    /// new name).
    pub fn set_global(
        &self,
        ctx: &mut Context,
        name: &str,
        value: impl Into<crate::Value>,
    ) -> crate::JsResult<()> {
        global_object(ctx).define_property_or_throw(
            name,
            PropertyDescriptor::builder()
                .value(value.into())
                .writable(true)
                .enumerable(true)
                .configurable(true),
            ctx,
        )?;
        Ok(())
    }
}
