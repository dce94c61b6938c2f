//! Property keys and property descriptors, as the spec layer passes them to [`Object`]'s
//! property operations. On Boa they are `#[repr(transparent)]` newtypes of Boa's.

use super::{JsString, JsSymbol, Value};

/// A property key: a string (array indices included) or a symbol.
#[repr(transparent)]
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PropertyKey(pub(in crate::engine) boa_engine::property::PropertyKey);

impl From<JsString> for PropertyKey {
    #[inline]
    fn from(string: JsString) -> Self {
        Self(string.0.into())
    }
}

impl From<&str> for PropertyKey {
    #[inline]
    fn from(string: &str) -> Self {
        Self(boa_engine::JsString::from(string).into())
    }
}

impl From<JsSymbol> for PropertyKey {
    #[inline]
    fn from(symbol: JsSymbol) -> Self {
        Self(symbol.0.into())
    }
}

impl From<boa_engine::JsString> for PropertyKey {
    #[inline]
    fn from(string: boa_engine::JsString) -> Self {
        Self(string.into())
    }
}

impl From<boa_engine::JsSymbol> for PropertyKey {
    #[inline]
    fn from(symbol: boa_engine::JsSymbol) -> Self {
        Self(symbol.into())
    }
}

impl From<boa_engine::property::PropertyKey> for PropertyKey {
    #[inline]
    fn from(key: boa_engine::property::PropertyKey) -> Self {
        Self(key)
    }
}

impl From<PropertyKey> for boa_engine::property::PropertyKey {
    #[inline]
    fn from(key: PropertyKey) -> Self {
        key.0
    }
}

/// A property descriptor (<https://tc39.es/ecma262/#sec-property-descriptor-specification-type>):
/// the fields it has, each possibly absent.
#[derive(Clone, Debug, Default)]
pub struct PropertyDescriptor(pub(in crate::engine) boa_engine::property::PropertyDescriptor);

/// Builds a [`PropertyDescriptor`] field by field (`PropertyDescriptor::builder()`); a builder
/// converts into the descriptor it has built.
#[derive(Clone, Debug, Default)]
pub struct PropertyDescriptorBuilder(boa_engine::property::PropertyDescriptorBuilder);

impl PropertyDescriptor {
    /// A builder of a descriptor with no fields.
    #[inline]
    pub fn builder() -> PropertyDescriptorBuilder {
        PropertyDescriptorBuilder(boa_engine::property::PropertyDescriptor::builder())
    }
}

impl PropertyDescriptorBuilder {
    /// [[Value]].
    #[inline]
    pub fn value(self, value: impl Into<Value>) -> Self {
        Self(self.0.value(value.into().into_js()))
    }

    /// [[Get]]: a function object, or `undefined`.
    #[inline]
    pub fn get(self, getter: impl Into<Value>) -> Self {
        Self(self.0.get(getter.into().into_js()))
    }

    /// [[Set]]: a function object, or `undefined`.
    #[inline]
    pub fn set(self, setter: impl Into<Value>) -> Self {
        Self(self.0.set(setter.into().into_js()))
    }

    /// [[Writable]].
    #[inline]
    pub fn writable(self, writable: bool) -> Self {
        Self(self.0.writable(writable))
    }

    /// [[Enumerable]].
    #[inline]
    pub fn enumerable(self, enumerable: bool) -> Self {
        Self(self.0.enumerable(enumerable))
    }

    /// [[Configurable]].
    #[inline]
    pub fn configurable(self, configurable: bool) -> Self {
        Self(self.0.configurable(configurable))
    }

    /// The descriptor.
    #[inline]
    pub fn build(self) -> PropertyDescriptor {
        PropertyDescriptor(self.0.build())
    }
}

impl From<PropertyDescriptorBuilder> for PropertyDescriptor {
    #[inline]
    fn from(builder: PropertyDescriptorBuilder) -> Self {
        builder.build()
    }
}

impl From<PropertyDescriptor> for boa_engine::property::PropertyDescriptor {
    #[inline]
    fn from(desc: PropertyDescriptor) -> Self {
        desc.0
    }
}

/// A key as the value it is (a string or a symbol; an index as its string), for a conversion
/// that reads it (a WebIDL record's key).
impl From<PropertyKey> for Value {
    #[inline]
    fn from(key: PropertyKey) -> Self {
        boa_engine::JsValue::from(key.0).into()
    }
}
