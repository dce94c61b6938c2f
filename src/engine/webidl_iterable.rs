//! WebIDL's pair iterators (<https://webidl.spec.whatwg.org/#es-iterable>, for an
//! `iterable<K, V>` declaration): the `entries`, `keys`, `values`, `forEach` and `@@iterator`
//! members of the interface prototype, the default iterator objects, and the interface's
//! iterator prototype object (<https://webidl.spec.whatwg.org/#es-iterator-prototype-object>),
//! whose [[Prototype]] is %Iterator.prototype%. Engine-free: written over the contract.

use std::cell::Cell;

use super::webidl::{arg, function, object_with_prototype, InterfaceBuilder, PairIterable};
use super::{
    call, create_array_from_list, create_iter_result_object, iterator_prototype, new_closure,
    throw_type_error, Cx, JsError, JsResult, JsString, JsSymbol, Object, PropertyDescriptor, Value,
};

/// A default iterator object's kind: <https://webidl.spec.whatwg.org/#default-iterator-object>.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Key,
    Value,
    KeyValue,
}

traced! {
data;
/// A default iterator object: its target, kind and index.
struct DefaultIterator {
    target: Object,
    // Not traced: a fieldless enum and an integer hold no JS value, so skipping them leaves
    // nothing unmarked (the derive's trace stays exact).
    #[unsafe_ignore_trace]
    kind: Kind,
    #[unsafe_ignore_trace]
    index: Cell<usize>,
}
}

traced! {
/// What `entries`, `keys` and `values` close over: the iterator prototype and their kind.
struct Maker {
    prototype: Object,
    // Not traced: a fieldless enum holds no JS value.
    #[unsafe_ignore_trace]
    kind: Kind,
}
}

impl InterfaceBuilder<'_, '_> {
    /// Defines the members of a pair iterator (`iterable<K, V>`) on the interface prototype:
    /// `entries`, `keys`, `values`, `forEach` (enumerable operations) and `@@iterator` (the
    /// same function object as `entries`, not enumerable), with the interface's iterator
    /// prototype object ("`Name` Iterator"), made here, in the interface's realm.
    pub fn pair_iterable<T: PairIterable>(&mut self) -> &mut Self {
        let ctx = self.target.context();
        let prototype = iterator_prototype_object::<T>(ctx);
        let make = |name: &str, kind: Kind, ctx: &mut Cx| {
            let data = Maker {
                prototype: prototype.clone(),
                kind,
            };
            new_closure(ctx, name, 0, data, create_default_iterator::<T>)
        };
        let entries = make("entries", Kind::KeyValue, ctx);
        let keys = make("keys", Kind::Key, ctx);
        let values = make("values", Kind::Value, ctx);
        let for_each = Object::from(function(ctx, "forEach", 1, for_each::<T>));
        let operation = |f: &Object| {
            PropertyDescriptor::builder()
                .value(f.clone())
                .writable(true)
                .enumerable(true)
                .configurable(true)
                .build()
        };
        self.define("entries", operation(&entries));
        self.define("keys", operation(&keys));
        self.define("values", operation(&values));
        self.define("forEach", operation(&for_each));
        self.define(
            JsSymbol::iterator(),
            PropertyDescriptor::builder()
                .value(entries)
                .writable(true)
                .enumerable(false)
                .configurable(true)
                .build(),
        );
        self
    }
}

/// <https://webidl.spec.whatwg.org/#es-iterator-prototype-object>: an object whose
/// [[Prototype]] is %Iterator.prototype%, with `next` and a `@@toStringTag` of "`Name`
/// Iterator".
fn iterator_prototype_object<T: PairIterable>(ctx: &mut Cx) -> Object {
    let parent = iterator_prototype(ctx);
    let prototype = Object::with_null_proto(ctx);
    prototype.set_prototype(Some(parent));
    let next = Object::from(function(ctx, "next", 0, next::<T>));
    prototype.insert_property(
        "next",
        PropertyDescriptor::builder()
            .value(next)
            .writable(true)
            .enumerable(true)
            .configurable(true),
    );
    prototype.insert_property(
        JsSymbol::to_string_tag(),
        PropertyDescriptor::builder()
            .value(JsString::from(format!("{} Iterator", T::NAME)))
            .writable(false)
            .enumerable(false)
            .configurable(true),
    );
    prototype
}

/// `ToObject(this)` and the check that it implements `T`.
fn this_implementing<T: PairIterable>(this: &Value, ctx: &mut Cx) -> JsResult<Object<T>> {
    // 1. Let object be ? ToObject(this value).
    let object = this.to_object(ctx)?;
    // 2. (The security check of a platform object: none here.)
    // 3. If object does not implement the interface, throw a TypeError.
    super::webidl::this::<T>(&Value::from(object))
}

/// The `entries`, `keys` and `values` operations of a pair iterator
/// (<https://webidl.spec.whatwg.org/#es-iterable-entries>): a new default iterator object for
/// `this`, with index 0.
fn create_default_iterator<T: PairIterable>(
    maker: &Maker,
    this: &Value,
    _: &[Value],
    ctx: &mut Cx,
) -> JsResult<Value> {
    let target = this_implementing::<T>(this, ctx)?;
    let data = DefaultIterator {
        target: target.upcast(),
        kind: maker.kind,
        index: Cell::new(0),
    };
    let iterator = object_with_prototype(Some(maker.prototype.clone()), data, ctx);
    Ok(Value::from(iterator.upcast()))
}

/// `%Name IteratorPrototype%.next()`: <https://webidl.spec.whatwg.org/#es-iterator-prototype-object>.
fn next<T: PairIterable>(this: &Value, _: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    // 3. Let object be ? ToObject(thisValue).
    let object = this.to_object(ctx)?;
    // 5. If object is not a default iterator object for interface, then throw a TypeError.
    let state = object
        .downcast_ref::<DefaultIterator>()
        .map(|i| (i.target.clone(), i.kind, i.index.get()));
    let Some((target, kind, index)) = state else {
        return Err(not_an_iterator::<T>());
    };
    let Ok(target) = target.downcast::<T>() else {
        return Err(not_an_iterator::<T>());
    };
    // 6.-10. If index is past the end of the current list of value pairs, return
    //        CreateIterResultObject(undefined, true).
    let Some((key, value)) = T::value_pair(&target, index) else {
        return Ok(create_iter_result_object(Value::undefined(), true, ctx));
    };
    // 11.-12. Let pair be the entry at index; set object's index to index + 1.
    if let Some(iterator) = object.downcast_ref::<DefaultIterator>() {
        iterator.index.set(index + 1);
    }
    // 13. Return the iterator result for pair and kind.
    let result = match kind {
        Kind::Key => key,
        Kind::Value => value,
        Kind::KeyValue => Value::from(create_array_from_list([key, value], ctx)),
    };
    Ok(create_iter_result_object(result, false, ctx))
}

fn not_an_iterator<T: PairIterable>() -> JsError {
    throw_type_error(format!("'this' is not a {} Iterator object", T::NAME))
}

/// The `forEach` operation of a pair iterator: <https://webidl.spec.whatwg.org/#es-forEach>.
fn for_each<T: PairIterable>(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    // 1.-3. Let jsValue be ? ToObject(this value); it must implement the interface.
    let target = this_implementing::<T>(this, ctx)?;
    // 4. Let idlCallback be callback, converted to a Function.
    let callback = arg(args, 0);
    if !callback.is_callable() {
        return Err(throw_type_error(format!(
            "Failed to execute 'forEach' on '{}': parameter 1 is not of type 'Function'",
            T::NAME
        )));
    }
    let this_arg = arg(args, 1);
    let js_value = Value::from(target.clone().upcast());
    // 5.-7. Let pairs be idlObject's list of value pairs to iterate over; let i be 0.
    let mut i = 0;
    // 8. While i < pairs's size: invoke idlCallback with « value, key, idlObject » and
    //    thisArg, then read the current list again.
    while let Some((key, value)) = T::value_pair(&target, i) {
        call(&callback, &this_arg, &[value, key, js_value.clone()], ctx)?;
        i += 1;
    }
    Ok(Value::undefined())
}
