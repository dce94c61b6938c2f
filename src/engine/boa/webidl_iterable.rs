//! WebIDL's pair iterators (<https://webidl.spec.whatwg.org/#es-iterable>, for an
//! `iterable<K, V>` declaration): the `entries`, `keys`, `values`, `forEach` and `@@iterator`
//! members of the interface prototype, the default iterator objects, and the interface's
//! iterator prototype object (<https://webidl.spec.whatwg.org/#es-iterator-prototype-object>),
//! whose [[Prototype]] is %Iterator.prototype%.

use std::cell::Cell;

use boa_engine::{
    js_string, native_function::NativeFunction, object::JsObject, property::PropertyDescriptor,
    symbol::JsSymbol, JsData, JsString as BoaString, JsValue,
};
use boa_gc::{Finalize, Trace};

use super::webidl::{ClassInterface, InterfaceBuilder, Target};
use super::{Cx, JsResult, Object, Value};
use crate::engine;

/// An interface with a pair iterator: its list of value pairs to iterate over, read one pair at
/// a time, so that an iteration sees the list as it is at each step (it may change between
/// steps).
pub trait PairIterable: ClassInterface {
    /// The pair at `index` of `this`'s current list of value pairs to iterate over, as JS values
    /// (key, value); `None` past its end. Runs no script.
    fn value_pair(this: &Object<Self>, index: usize) -> Option<(Value, Value)>;
}

/// A default iterator object's kind: <https://webidl.spec.whatwg.org/#default-iterator-object>.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Key,
    Value,
    KeyValue,
}

/// A default iterator object: its target, kind and index.
#[derive(Debug, Trace, Finalize, JsData)]
struct DefaultIterator {
    target: JsObject,
    // Not traced: a fieldless enum and an integer hold no `Gc`, so skipping them leaves
    // nothing unmarked (the derive's `Trace` stays exact).
    #[unsafe_ignore_trace]
    kind: Kind,
    #[unsafe_ignore_trace]
    index: Cell<usize>,
}

impl InterfaceBuilder<'_, '_> {
    /// Defines the members of a pair iterator (`iterable<K, V>`) on the interface prototype:
    /// `entries`, `keys`, `values`, `forEach` (enumerable operations) and `@@iterator` (the
    /// same function object as `entries`, not enumerable), with the interface's iterator
    /// prototype object ("`Name` Iterator"), made here, in the interface's realm.
    pub fn pair_iterable<T: PairIterable>(&mut self) -> &mut Self {
        let Target::Class(class) = &mut self.target else {
            debug_assert!(
                false,
                "pair_iterable is for interfaces registered as classes"
            );
            return self;
        };
        let prototype = iterator_prototype::<T>(class.context());
        let make = |kind: Kind| {
            NativeFunction::from_copy_closure_with_captures(
                move |this, _, prototype: &JsObject, ctx| {
                    create_default_iterator::<T>(Value::from_js_ref(this), prototype, kind, ctx)
                        .map(Value::into_js)
                        .map_err(Into::into)
                },
                prototype.clone(),
            )
        };
        let entries = self.function(BoaString::from("entries"), 0, make(Kind::KeyValue));
        let keys = self.function(BoaString::from("keys"), 0, make(Kind::Key));
        let values = self.function(BoaString::from("values"), 0, make(Kind::Value));
        let for_each = self.function(
            BoaString::from("forEach"),
            1,
            NativeFunction::from_fn_ptr(|this, args, ctx| {
                for_each::<T>(Value::from_js_ref(this), Value::from_js_slice(args), ctx)
                    .map(Value::into_js)
                    .map_err(Into::into)
            }),
        );
        let operation = |f: &JsObject| {
            PropertyDescriptor::builder()
                .value(f.clone())
                .writable(true)
                .enumerable(true)
                .configurable(true)
        };
        self.define(js_string!("entries"), operation(&entries));
        self.define(js_string!("keys"), operation(&keys));
        self.define(js_string!("values"), operation(&values));
        self.define(js_string!("forEach"), operation(&for_each));
        self.define(
            JsSymbol::iterator(),
            PropertyDescriptor::builder()
                .value(entries)
                .writable(true)
                .enumerable(false)
                .configurable(true),
        );
        self
    }
}

/// <https://webidl.spec.whatwg.org/#es-iterator-prototype-object>: an object whose
/// [[Prototype]] is %Iterator.prototype%, with `next` and a `@@toStringTag` of "`Name`
/// Iterator".
fn iterator_prototype<T: PairIterable>(ctx: &mut Cx) -> JsObject {
    let parent = ctx.intrinsics().constructors().iterator().prototype();
    let prototype = JsObject::with_object_proto(ctx.intrinsics());
    prototype.set_prototype(Some(parent));
    let realm = ctx.realm().clone();
    let next = boa_engine::object::FunctionObjectBuilder::new(
        &realm,
        NativeFunction::from_fn_ptr(|this, _, ctx| {
            next::<T>(Value::from_js_ref(this), ctx)
                .map(Value::into_js)
                .map_err(Into::into)
        }),
    )
    .name(js_string!("next"))
    .length(0)
    .constructor(false)
    .build();
    prototype.insert_property(
        js_string!("next"),
        PropertyDescriptor::builder()
            .value(next)
            .writable(true)
            .enumerable(true)
            .configurable(true),
    );
    prototype.insert_property(
        JsSymbol::to_string_tag(),
        PropertyDescriptor::builder()
            .value(BoaString::from(format!("{} Iterator", T::NAME)))
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
    this: &Value,
    prototype: &JsObject,
    kind: Kind,
    ctx: &mut Cx,
) -> JsResult<Value> {
    let target = this_implementing::<T>(this, ctx)?;
    // Let iterator be a newly created default iterator object for the interface with
    // idlObject as its target, kind as its kind, and index set to 0.
    let iterator = JsObject::from_proto_and_data(
        Some(prototype.clone()),
        DefaultIterator {
            target: JsObject::from(target.upcast()),
            kind,
            index: Cell::new(0),
        },
    );
    Ok(JsValue::from(iterator).into())
}

/// `%Name IteratorPrototype%.next()`: <https://webidl.spec.whatwg.org/#es-iterator-prototype-object>.
fn next<T: PairIterable>(this: &Value, ctx: &mut Cx) -> JsResult<Value> {
    // 3. Let object be ? ToObject(thisValue).
    let object = JsObject::from(this.to_object(ctx)?);
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
    let target = Object::from(target);
    // 6.-9. Let index be object's index, kind its kind, values the target's value pairs to
    //       iterate over, len its size.
    // 10. If index is greater than or equal to len, then return
    //     CreateIterResultObject(undefined, true).
    let Some((key, value)) = T::value_pair(&target, index) else {
        return Ok(engine::create_iter_result_object(
            Value::undefined(),
            true,
            ctx,
        ));
    };
    // 11. Let pair be the entry in values at index index.
    // 12. Set object's index to index + 1.
    if let Some(iterator) = object.downcast_ref::<DefaultIterator>() {
        iterator.index.set(index + 1);
    }
    // 13. Return the iterator result for pair and kind.
    let result = match kind {
        Kind::Key => key,
        Kind::Value => value,
        Kind::KeyValue => engine::create_array_from_list([key, value], ctx).into(),
    };
    Ok(engine::create_iter_result_object(result, false, ctx))
}

fn not_an_iterator<T: PairIterable>() -> engine::JsError {
    engine::throw_type_error(format!("'this' is not a {} Iterator object", T::NAME))
}

/// The `forEach` operation of a pair iterator:
/// <https://webidl.spec.whatwg.org/#es-forEach>.
fn for_each<T: PairIterable>(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    // 1.-3. Let jsValue be ? ToObject(this value); it must implement the interface.
    let target = this_implementing::<T>(this, ctx)?;
    // 4. Let idlCallback be callback, converted to a Function.
    let callback = super::webidl::arg(args, 0);
    if !callback.is_callable() {
        return Err(engine::throw_type_error(format!(
            "Failed to execute 'forEach' on '{}': parameter 1 is not of type 'Function'",
            T::NAME
        )));
    }
    let this_arg = super::webidl::arg(args, 1);
    let js_value = Value::from(target.clone().upcast());
    // 5.-6. Let pairs be idlObject's list of value pairs to iterate over.
    // 7. Let i be 0.
    let mut i = 0;
    // 8. While i < pairs's size:
    //    1. Let pair be pairs[i].
    while let Some((key, value)) = T::value_pair(&target, i) {
        // 2. Invoke idlCallback with « pair's value, pair's key, idlObject » and with thisArg
        //    as the callback this value.
        engine::call(&callback, &this_arg, &[value, key, js_value.clone()], ctx)?;
        // 3. Set pairs to idlObject's current list of value pairs to iterate over.
        // 4. Set i to i + 1.
        i += 1;
    }
    Ok(Value::undefined())
}
