//! A boa_runtime extension that installs what a [`Registration`] registers (Boa only): how the
//! crate root offers the library as `StreamsExtension` (for an embedder with its own Boa
//! context and event loop) without naming Boa itself, and without the engine calling up into
//! the crate root's `register`.

use std::marker::PhantomData;

use boa_engine::{realm::Realm, Context};

use super::{Cx, JsResult};

/// What an [`Extension`] installs in a realm.
pub trait Registration {
    /// Installs the globals in the current realm.
    fn register(ctx: &mut Cx) -> JsResult<()>;
}

/// A [`boa_runtime::RuntimeExtension`] that runs `R::register` in the realm it is given (the
/// current realm when none is), so it composes with `boa_runtime::register((extension, …),
/// realm, ctx)`.
pub struct Extension<R>(PhantomData<fn() -> R>);

impl<R> Extension<R> {
    /// The extension (a unit value).
    pub const fn new() -> Self {
        Self(PhantomData)
    }
}

impl<R> Clone for Extension<R> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<R> Copy for Extension<R> {}

impl<R> Default for Extension<R> {
    fn default() -> Self {
        Self::new()
    }
}

impl<R> std::fmt::Debug for Extension<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StreamsExtension")
    }
}

impl<R: Registration> boa_runtime::RuntimeExtension for Extension<R> {
    fn register(self, realm: Option<Realm>, ctx: &mut Context) -> boa_engine::JsResult<()> {
        match realm {
            Some(realm) => {
                let previous = ctx.enter_realm(realm);
                let result = R::register(ctx);
                ctx.enter_realm(previous);
                result.map_err(Into::into)
            }
            None => R::register(ctx).map_err(Into::into),
        }
    }
}
