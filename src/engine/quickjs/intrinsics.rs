//! A realm's captured intrinsics: the built-ins the backend calls, each evaluated once when the
//! realm is set up (before any script runs, so a patched global never reaches them) and kept in
//! a table indexed by [`Intrinsic`], a typed index as LLRT's primordials are a typed struct. A
//! per-chunk path (a buffer getter, `Promise.prototype.then`) reads a slot, with no lookup by
//! name.

/// Declares [`Intrinsic`]: one variant per slot, with its name (for errors) and the
/// backend-internal source text that yields it (never user input).
macro_rules! intrinsics {
    ($($(#[$doc:meta])* $variant:ident = $name:literal => $source:expr;)*) => {
        /// One captured intrinsic: its slot in the realm's table ([`RealmState::intrinsic`]).
        ///
        /// [`RealmState::intrinsic`]: super::core::RealmState::intrinsic
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub(crate) enum Intrinsic {
            $($(#[$doc])* $variant,)*
        }

        impl Intrinsic {
            /// Every intrinsic, in slot order.
            pub(crate) const ALL: &'static [Intrinsic] = &[$(Intrinsic::$variant),*];
            /// Each slot's name and source text, in slot order.
            const TABLE: &'static [(&'static str, &'static str)] = &[$(($name, $source)),*];

            /// Its name, as errors give it.
            pub(crate) fn name(self) -> &'static str {
                Self::TABLE[self as usize].0
            }

            /// The source text evaluated to capture it.
            pub(crate) fn source(self) -> &'static str {
                Self::TABLE[self as usize].1
            }
        }
    };
}

intrinsics! {
    // The well-known symbols and objects the interfaces and errors use.
    SymbolIterator = "Symbol.iterator" => "Symbol.iterator";
    SymbolAsyncIterator = "Symbol.asyncIterator" => "Symbol.asyncIterator";
    SymbolToStringTag = "Symbol.toStringTag" => "Symbol.toStringTag";
    ErrorPrototype = "Error.prototype" => "Error.prototype";
    ObjectPrototype = "Object.prototype" => "Object.prototype";
    AsyncIteratorPrototype = "AsyncIteratorPrototype"
        => "Object.getPrototypeOf(Object.getPrototypeOf((async function*(){}).prototype))";
    // The view getters that C has no call for (per-chunk paths), JSON, and the samples whose class ids
    // `buffer::class_ids` reads once per runtime.
    ArrayBufferPrototypeTransferToFixedLength = "ArrayBuffer.prototype.transferToFixedLength"
        => "ArrayBuffer.prototype.transferToFixedLength";
    TypedArrayPrototypeByteOffset = "TypedArray.prototype.byteOffset"
        => concat!(
            "Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), ",
            "'byteOffset').get",
        );
    TypedArrayPrototypeByteLength = "TypedArray.prototype.byteLength"
        => concat!(
            "Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), ",
            "'byteLength').get",
        );
    DataView = "DataView" => "DataView";
    DataViewPrototypeByteOffset = "DataView.prototype.byteOffset"
        => "Object.getOwnPropertyDescriptor(DataView.prototype, 'byteOffset').get";
    DataViewPrototypeByteLength = "DataView.prototype.byteLength"
        => "Object.getOwnPropertyDescriptor(DataView.prototype, 'byteLength').get";
    JSONParse = "JSON.parse" => "JSON.parse";
    JSONStringify = "JSON.stringify" => "JSON.stringify";
    SampleSharedArrayBuffer = "sample.SharedArrayBuffer"
        => "typeof SharedArrayBuffer === 'function' ? new SharedArrayBuffer(0) : undefined";
    SampleBoolean = "sample.Boolean" => "new Boolean(false)";
    SampleNumber = "sample.Number" => "new Number(0)";
    SampleString = "sample.String" => "new String('')";
    SampleSymbol = "sample.Symbol" => "Object(Symbol())";
    SampleBigInt = "sample.BigInt" => "Object(0n)";
    SampleObject = "sample.Object" => "({})";
    // Structured serialization: the wrapper-object, date, RegExp, Map and Set built-ins, and the
    // error constructors.
    BooleanPrototypeValueOf = "Boolean.prototype.valueOf" => "Boolean.prototype.valueOf";
    NumberPrototypeValueOf = "Number.prototype.valueOf" => "Number.prototype.valueOf";
    StringPrototypeValueOf = "String.prototype.valueOf" => "String.prototype.valueOf";
    BigIntPrototypeValueOf = "BigInt.prototype.valueOf" => "BigInt.prototype.valueOf";
    BigInt = "BigInt" => "BigInt";
    DatePrototypeGetTime = "Date.prototype.getTime" => "Date.prototype.getTime";
    RegExp = "RegExp" => "RegExp";
    RegExpPrototypeSource = "RegExp.prototype.source"
        => "Object.getOwnPropertyDescriptor(RegExp.prototype, 'source').get";
    RegExpPrototypeHasIndices = "RegExp.prototype.hasIndices"
        => "Object.getOwnPropertyDescriptor(RegExp.prototype, 'hasIndices').get";
    RegExpPrototypeGlobal = "RegExp.prototype.global"
        => "Object.getOwnPropertyDescriptor(RegExp.prototype, 'global').get";
    RegExpPrototypeIgnoreCase = "RegExp.prototype.ignoreCase"
        => "Object.getOwnPropertyDescriptor(RegExp.prototype, 'ignoreCase').get";
    RegExpPrototypeMultiline = "RegExp.prototype.multiline"
        => "Object.getOwnPropertyDescriptor(RegExp.prototype, 'multiline').get";
    RegExpPrototypeDotAll = "RegExp.prototype.dotAll"
        => "Object.getOwnPropertyDescriptor(RegExp.prototype, 'dotAll').get";
    RegExpPrototypeUnicode = "RegExp.prototype.unicode"
        => "Object.getOwnPropertyDescriptor(RegExp.prototype, 'unicode').get";
    RegExpPrototypeUnicodeSets = "RegExp.prototype.unicodeSets"
        => "(Object.getOwnPropertyDescriptor(RegExp.prototype, 'unicodeSets') || {}).get";
    RegExpPrototypeSticky = "RegExp.prototype.sticky"
        => "Object.getOwnPropertyDescriptor(RegExp.prototype, 'sticky').get";
    Map = "Map" => "Map";
    MapPrototypeEntries = "Map.prototype.entries" => "Map.prototype.entries";
    MapIteratorPrototypeNext = "MapIteratorPrototype.next"
        => "Object.getPrototypeOf(new Map().entries()).next";
    MapPrototypeSet = "Map.prototype.set" => "Map.prototype.set";
    Set = "Set" => "Set";
    SetPrototypeValues = "Set.prototype.values" => "Set.prototype.values";
    SetIteratorPrototypeNext = "SetIteratorPrototype.next"
        => "Object.getPrototypeOf(new Set().values()).next";
    SetPrototypeAdd = "Set.prototype.add" => "Set.prototype.add";
    Error = "Error" => "Error";
    EvalError = "EvalError" => "EvalError";
    RangeError = "RangeError" => "RangeError";
    ReferenceError = "ReferenceError" => "ReferenceError";
    SyntaxError = "SyntaxError" => "SyntaxError";
    TypeError = "TypeError" => "TypeError";
    URIError = "URIError" => "URIError";
    // Promises (per-chunk paths).
    Promise = "Promise" => "Promise";
    PromisePrototype = "Promise.prototype" => "Promise.prototype";
    PromisePrototypeThen = "Promise.prototype.then" => "Promise.prototype.then";
    PromiseResolve = "Promise.resolve" => "Promise.resolve";
    SymbolSpecies = "Symbol.species" => "Symbol.species";
    PromiseSpeciesGetter = "Promise[@@species] getter"
        => "Object.getOwnPropertyDescriptor(Promise, Symbol.species).get";
    // WebIDL iterators.
    IteratorPrototype = "IteratorPrototype"
        => "Object.getPrototypeOf(Object.getPrototypeOf([][Symbol.iterator]()))";
}
