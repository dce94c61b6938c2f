//! The engine's handles to JavaScript things that are not plain objects to the spec layer:
//! promises ([`JsPromise`]), array buffers ([`JsArrayBuffer`]), function objects
//! ([`JsFunction`]), symbols ([`JsSymbol`]), an interface's constructor and prototype
//! ([`StandardConstructor`]) and realms ([`Realm`]). On Boa each is a `#[repr(transparent)]`
//! newtype of Boa's type of the same role, with `#[inline]` methods; nothing of Boa's type is
//! reachable through it. Each is a traced GC handle: holding one in a traced slot keeps its
//! target alive, and cloning one clones the handle, not the thing.

use boa_gc::{custom_trace, Finalize, Trace};

use super::{Object, Value};

/// Declares a handle: a `#[repr(transparent)]` newtype of a Boa type (`.0` is for the engine's
/// own modules only), cloned and traced as the Boa type is, converting to and from it.
macro_rules! handle {
    ($(#[$doc:meta])* $name:ident($boa:ty)) => {
        $(#[$doc])*
        #[repr(transparent)]
        #[derive(Clone)]
        pub struct $name(pub(in crate::engine) $boa);

        impl std::fmt::Debug for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                self.0.fmt(f)
            }
        }

        impl Finalize for $name {}

        // SAFETY: boa_gc's `Trace` contract is that `trace` marks every `Gc` the value holds
        // (and `trace_non_roots` / `run_finalizer` visit the same ones). The newtype's one
        // field is the wrapped handle `$boa`, which is `Trace` itself, and `custom_trace!`
        // makes each of the three methods call the field's, so the newtype visits exactly the
        // `Gc`s the handle does.
        unsafe impl Trace for $name {
            custom_trace!(this, mark, mark(&this.0));
        }

        impl From<$boa> for $name {
            #[inline]
            fn from(handle: $boa) -> Self {
                Self(handle)
            }
        }

        impl From<$name> for $boa {
            #[inline]
            fn from(handle: $name) -> Self {
                handle.0
            }
        }
    };
}

handle!(
    /// A promise object (one with a [[PromiseState]] slot).
    JsPromise(boa_engine::object::builtins::JsPromise)
);
handle!(
    /// An `ArrayBuffer` object.
    JsArrayBuffer(boa_engine::object::builtins::JsArrayBuffer)
);
handle!(
    /// A function object.
    JsFunction(boa_engine::object::builtins::JsFunction)
);
handle!(
    /// A symbol.
    JsSymbol(boa_engine::JsSymbol)
);
handle!(
    /// An interface object and its interface prototype object, as a realm holds them.
    StandardConstructor(boa_engine::context::intrinsics::StandardConstructor)
);
handle!(
    /// A realm: its intrinsics and global object.
    Realm(boa_engine::realm::Realm)
);

impl From<JsSymbol> for boa_engine::property::PropertyKey {
    #[inline]
    fn from(symbol: JsSymbol) -> Self {
        symbol.0.into()
    }
}

/// The objects these handles are.
macro_rules! object_handle {
    ($($name:ident),*) => {$(
        impl From<$name> for Object {
            #[inline]
            fn from(handle: $name) -> Self {
                Object::from_js(handle.0)
            }
        }

        impl From<$name> for boa_engine::JsValue {
            #[inline]
            fn from(handle: $name) -> Self {
                handle.0.into()
            }
        }

        impl From<$name> for Value {
            #[inline]
            fn from(handle: $name) -> Self {
                Value::from(boa_engine::JsValue::from(handle.0))
            }
        }
    )*};
}
object_handle!(JsPromise, JsArrayBuffer, JsFunction);

impl From<JsSymbol> for Value {
    #[inline]
    fn from(symbol: JsSymbol) -> Self {
        Value::from(boa_engine::JsValue::from(symbol.0))
    }
}

impl JsSymbol {
    /// The well-known symbol `@@iterator`.
    #[inline]
    pub fn iterator() -> Self {
        Self(boa_engine::JsSymbol::iterator())
    }

    /// The well-known symbol `@@asyncIterator`.
    #[inline]
    pub fn async_iterator() -> Self {
        Self(boa_engine::JsSymbol::async_iterator())
    }

    /// The well-known symbol `@@toStringTag`.
    #[inline]
    pub fn to_string_tag() -> Self {
        Self(boa_engine::JsSymbol::to_string_tag())
    }
}

impl JsPromise {
    /// <https://tc39.es/ecma262/#sec-promise-resolve>: PromiseResolve(%Promise%, value) (a
    /// promise of %Promise% is returned as it is; anything else is wrapped in a new promise,
    /// which reads a thenable's `then`).
    #[inline]
    pub fn resolve(value: Value, ctx: &mut super::Cx) -> super::JsResult<Self> {
        boa_engine::object::builtins::JsPromise::resolve(value.into_js(), ctx)
            .map(Self)
            .map_err(super::JsError::from)
    }
}

impl StandardConstructor {
    /// The interface object (the constructor).
    #[inline]
    pub fn constructor(&self) -> Object {
        Object::from_js(self.0.constructor())
    }

    /// The interface prototype object.
    #[inline]
    pub fn prototype(&self) -> Object {
        Object::from_js(self.0.prototype())
    }
}
