//! Tests of the WebIDL layer on a bare runtime: interface shapes, construction, brand checks,
//! pair iterators, inheritance and the conversions. Each test frees its runtime at the end
//! (QuickJS asserts that no object is left), so each is also a leak check.

use std::cell::Cell;

use super::runtime::{eval_script, run_gc, Runtime};
use super::*;
use crate::engine::webidl::{
    self, ClassInterface, InterfaceBuilder, InterfaceObject, PairIterable,
};

fn runtime() -> Runtime {
    Runtime::for_tests().0
}

fn eval(cx: &mut Cx, source: &str) -> Value {
    match eval_script(cx, "test.js", source) {
        Ok(v) => v,
        Err(e) => panic!("{source}: {e}"),
    }
}

fn eval_str(cx: &mut Cx, source: &str) -> String {
    let v = eval(cx, source);
    v.to_string(cx).expect("a string").to_std_string_escaped()
}

traced! {
    data;
    struct Thing {
        count: Cell<u32>,
        held: Slot<Vec<Value>>,
    }
}
webidl::interface!(Thing, "Thing");

impl ClassInterface for Thing {
    const LENGTH: usize = 1;

    fn members(b: &mut InterfaceBuilder<'_, '_>) {
        b.static_operation("make", 0, thing_make)
            .operation("bump", 1, thing_bump)
            .attribute("count", thing_get_count, Some(thing_set_count))
            .attribute("readOnly", thing_get_count, None)
            .constant("ONE", 1)
            .pair_iterable::<Thing>();
    }

    fn construct(_: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Self> {
        webidl::require_args(args, 1, "Thing", "constructor")?;
        let start = webidl::to_enforced_u64(&args[0], "start", ctx)?;
        Ok(Self {
            count: Cell::new(u32::try_from(start).unwrap_or(u32::MAX)),
            held: Slot::new(Vec::new()),
        })
    }

    fn constructed(this: &Object<Self>, args: &[Value], _: &mut Cx) -> JsResult<()> {
        // Hold the object itself and the arguments: a cycle through native data.
        let data = this.borrow();
        let mut held = data.data().held.borrow_mut();
        held.push(this.clone().upcast().into_value());
        held.extend(args.iter().cloned());
        Ok(())
    }
}

impl PairIterable for Thing {
    fn value_pair(this: &Object<Self>, index: usize) -> Option<(Value, Value)> {
        let n = this.borrow().data().count.get() as usize;
        (index < n).then(|| (Value::from(index), Value::from(index * 10)))
    }
}

fn thing_make(_: &Value, _: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let object = webidl::new_object(
        Thing {
            count: Cell::new(2),
            held: Slot::new(Vec::new()),
        },
        ctx,
    )?;
    Ok(object.into_value())
}

fn thing_bump(this: &Value, args: &[Value], _: &mut Cx) -> JsResult<Value> {
    let this = webidl::this::<Thing>(this)?;
    let by = webidl::arg(args, 0).as_number().unwrap_or(1.0);
    let data = this.borrow();
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    data.data().count.set(data.data().count.get() + by as u32);
    Ok(Value::from(data.data().count.get()))
}

fn thing_get_count(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    Ok(Value::from(
        webidl::this::<Thing>(this)?.borrow().data().count.get(),
    ))
}

fn thing_set_count(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let n = webidl::to_enforced_u64(&webidl::arg(args, 0), "count", ctx)?;
    let this = webidl::this::<Thing>(this)?;
    this.borrow()
        .data()
        .count
        .set(u32::try_from(n).unwrap_or(u32::MAX));
    Ok(Value::undefined())
}

#[test]
fn registered_interface_shapes() {
    let rt = runtime();
    let mut cx = rt.main_context();
    webidl::register_interface::<Thing>(&mut cx).expect("register");
    let shape = eval_str(
        &mut cx,
        r#"
        const d = (o, k) => { const x = Object.getOwnPropertyDescriptor(o, k); return x ? [('value' in x) ? 'v' : 'a', x.writable, x.enumerable, x.configurable].join('/') : 'none'; };
        const g = Object.getOwnPropertyDescriptor(globalThis, 'Thing');
        const c = Object.getOwnPropertyDescriptor(Thing.prototype, 'count');
        const r = Object.getOwnPropertyDescriptor(Thing.prototype, 'readOnly');
        [
          Thing.name, Thing.length, g.writable, g.enumerable, g.configurable,
          d(Thing, 'prototype'), d(Thing.prototype, 'constructor'), Thing.prototype.constructor === Thing,
          d(Thing.prototype, 'bump'), Thing.prototype.bump.name, Thing.prototype.bump.length,
          c.get.name, c.get.length, c.set.name, c.set.length, c.enumerable, c.configurable, r.set,
          d(Thing, 'ONE'), d(Thing.prototype, 'ONE'), Thing.ONE,
          d(Thing, 'make'), Thing.make.name,
          Object.prototype.toString.call(Thing.prototype), d(Thing.prototype, Symbol.toStringTag),
          Object.getPrototypeOf(Thing) === Function.prototype,
          Object.getPrototypeOf(Thing.prototype) === Object.prototype,
          'prototype' in Thing.prototype.bump, d(Thing.prototype, Symbol.iterator),
          Thing.prototype[Symbol.iterator] === Thing.prototype.entries,
          d(Thing.prototype, 'forEach'), Thing.prototype.forEach.length,
        ].join()
        "#,
    );
    assert_eq!(
        shape,
        "Thing,1,true,false,true,\
         v/false/false/false,v/true/false/true,true,\
         v/true/true/true,bump,1,\
         get count,0,set count,1,true,true,,\
         v/false/true/false,v/false/true/false,1,\
         v/true/true/true,make,\
         [object Thing],v/false/false/true,\
         true,true,false,v/true/false/true,true,v/true/true/true,1"
    );
}

#[test]
fn construction_brand_checks_and_errors() {
    let rt = runtime();
    let mut cx = rt.main_context();
    webidl::register_interface::<Thing>(&mut cx).expect("register");
    let out = eval_str(
        &mut cx,
        r#"
        const err = f => { try { f(); return 'no error'; } catch (e) { return e.constructor.name + ': ' + e.message; } };
        const t = new Thing(3);
        class Sub extends Thing { extra() { return 'x'; } }
        const s = new Sub(1);
        [
          t instanceof Thing, t.count, t.bump(2), t.count, (t.count = 7, t.count), t.readOnly,
          err(() => Thing(1)),
          err(() => new Thing()),
          err(() => new Thing(-1)),
          err(() => new Thing(Infinity)),
          err(() => Thing.prototype.bump.call({})),
          err(() => Object.getOwnPropertyDescriptor(Thing.prototype, 'count').get.call(5)),
          err(() => new Thing.prototype.bump()),
          s instanceof Sub, s instanceof Thing, s.extra(), s.count,
          Thing.make().count, Object.getPrototypeOf(Thing.make()) === Thing.prototype,
        ].join('|')
        "#,
    );
    assert_eq!(
        out,
        "true|3|5|5|7|7|\
         TypeError: cannot call constructor of native class `Thing` without new|\
         TypeError: Failed to execute 'constructor' on 'Thing': 1 argument required, but only 0 present|\
         TypeError: start is out of range|\
         TypeError: start must be a finite number|\
         TypeError: 'this' is not an object that implements interface Thing|\
         TypeError: 'this' is not an object that implements interface Thing|\
         TypeError: not a constructor|\
         true|true|x|1|2|true"
    );
    // construct_interface runs the constructor steps with the interface as NewTarget.
    let made =
        webidl::construct_interface::<Thing>(&[Value::from(4)], &mut cx).expect("constructed");
    assert_eq!(made.borrow().data().count.get(), 4);
    let failed = webidl::construct_interface::<Thing>(&[], &mut cx);
    assert!(failed.is_err());
    drop((made, failed));
    run_gc(&mut cx);
}

#[test]
fn pair_iterators() {
    let rt = runtime();
    let mut cx = rt.main_context();
    webidl::register_interface::<Thing>(&mut cx).expect("register");
    let out = eval_str(
        &mut cx,
        r#"
        const err = f => { try { f(); return 'no error'; } catch (e) { return e.constructor.name + ': ' + e.message; } };
        const t = new Thing(3);
        const seen = [];
        t.forEach(function (v, k, o) { seen.push(k + ':' + v + ':' + (o === t) + ':' + this.tag); }, { tag: 'T' });
        const it = t.keys();
        const proto = Object.getPrototypeOf(it);
        const iterProto = Object.getPrototypeOf(Object.getPrototypeOf([][Symbol.iterator]()));
        [
          JSON.stringify([...t]), JSON.stringify([...t.keys()]), JSON.stringify([...t.values()]),
          seen.join(' '),
          Object.prototype.toString.call(it), Object.getPrototypeOf(proto) === iterProto,
          Object.getPrototypeOf(t.entries()) === proto,
          proto.next.name, proto.next.length,
          err(() => proto.next.call({})),
          err(() => t.forEach(5)),
          err(() => Thing.prototype.entries.call({})),
          JSON.stringify(it.next()), JSON.stringify(it.next()), JSON.stringify(it.next()),
          JSON.stringify(it.next()),
        ].join('|')
        "#,
    );
    assert_eq!(
        out,
        "[[0,0],[1,10],[2,20]]|[0,1,2]|[0,10,20]|\
         0:0:true:T 1:10:true:T 2:20:true:T|\
         [object Thing Iterator]|true|true|next|0|\
         TypeError: 'this' is not a Thing Iterator object|\
         TypeError: Failed to execute 'forEach' on 'Thing': parameter 1 is not of type 'Function'|\
         TypeError: 'this' is not an object that implements interface Thing|\
         {\"value\":0,\"done\":false}|{\"value\":1,\"done\":false}|{\"value\":2,\"done\":false}|\
         {\"done\":true}"
    );
    run_gc(&mut cx);
}

traced! {
    data;
    struct Base {
        tag: u32,
    }
}

fn construct_base(new_target: &Value, _: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    webidl::require_new(new_target, "Base")?;
    let proto = webidl::prototype_from_new_target(
        new_target,
        |_| Err(throw_type_error("no fallback")),
        ctx,
    )?;
    Ok(webidl::object_with_prototype(Some(proto), Base { tag: 1 }, ctx).into_value())
}

fn construct_derived(new_target: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    Err(webidl::illegal_constructor(&format!(
        "Derived{}",
        if new_target.is_undefined() { "()" } else { "" }
    )))
}

fn base_tag(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    let this = webidl::this_implementing(this, "Base", |o| o.is::<Base>())?;
    let tag = this.downcast_ref::<Base>().map_or(0, |b| b.tag);
    Ok(Value::from(tag))
}

#[test]
fn interface_objects_and_inheritance() {
    let rt = runtime();
    let mut cx = rt.main_context();
    let mut base = InterfaceObject::new(&mut cx, "Base", 0, construct_base);
    base.members()
        .attribute("tag", base_tag, None)
        .constant("TWO", 2);
    let base = base.build(None, None);
    let mut derived = InterfaceObject::new(&mut cx, "Derived", 2, construct_derived);
    derived.members().operation("tagged", 0, base_tag);
    let derived = derived.build(Some(base.prototype()), Some(base.constructor()));
    webidl::define_global("Base", &base, &mut cx).expect("define");
    webidl::define_global("Derived", &derived, &mut cx).expect("define");
    let out = eval_str(
        &mut cx,
        r#"
        const err = f => { try { f(); return 'no error'; } catch (e) { return e.constructor.name + ': ' + e.message; } };
        const b = new Base();
        [
          b.tag, Base.TWO, Derived.TWO, Derived.length, Derived.name,
          Object.getPrototypeOf(Derived) === Base, Object.getPrototypeOf(Derived.prototype) === Base.prototype,
          Object.prototype.toString.call(Derived.prototype), Derived.prototype.constructor === Derived,
          err(() => Base()), err(() => new Derived()), err(() => Derived()),
          err(() => Derived.prototype.tagged.call(1)),
          Derived.prototype.tagged.call(b),
          Object.getOwnPropertyDescriptor(globalThis, 'Derived').enumerable,
        ].join('|')
        "#,
    );
    assert_eq!(
        out,
        "1|2|2|2|Derived|true|true|[object Derived]|true|\
         TypeError: Failed to construct 'Base': Please use the 'new' operator|\
         TypeError: Illegal constructor: Derived cannot be constructed|\
         TypeError: Illegal constructor: Derived() cannot be constructed|\
         TypeError: 'this' is not an object that implements interface Base|1|false"
    );
    drop((base, derived));
    run_gc(&mut cx);
}

#[test]
fn conversions() {
    let rt = runtime();
    let mut cx = rt.main_context();
    let s = |cx: &mut Cx, v: &JsString| {
        let _ = cx;
        v.to_std_string_escaped()
    };
    // USVString: lone surrogates become U+FFFD, pairs stay.
    let v = eval(&mut cx, "'a\\ud800b\\ud83d\\ude00\\udc00'");
    let usv = webidl::to_usv_string(&v, &mut cx).expect("usv");
    assert_eq!(
        usv.to_vec(),
        vec![0x61, 0xfffd, 0x62, 0xd83d, 0xde00, 0xfffd]
    );
    // Records: enumerable own string keys in order; a symbol key throws.
    let v = eval(
        &mut cx,
        "const o = {b: 'x', a: 1, 2: 'two'}; Object.defineProperty(o, 'hidden', {value: 1}); o",
    );
    let record = webidl::to_usv_string_record(&v, &mut cx).expect("record");
    let pairs: Vec<String> = record
        .iter()
        .map(|(k, v)| format!("{}={}", s(&mut cx, k), s(&mut cx, v)))
        .collect();
    assert_eq!(pairs, ["2=two", "b=x", "a=1"]);
    let v = eval(&mut cx, "({[Symbol.iterator]: 1})");
    assert!(webidl::to_usv_string_record(&v, &mut cx).is_err());
    assert!(webidl::to_usv_string_record(&Value::from(1), &mut cx).is_err());
    // Sequences: next is read once, values converted in order.
    let v = eval(
        &mut cx,
        r#"globalThis.log = []; ({ [Symbol.iterator]() { log.push('iter'); let i = 0;
            return { get next() { log.push('next'); return () => (i < 2 ? { value: [i++, 'v'], done: false } : { done: true }); } }; } })"#,
    );
    let object = v.as_object().expect("object");
    let method = webidl::iterator_method(&object, &mut cx)
        .expect("method")
        .expect("some");
    let seqs = webidl::usv_string_sequences_from_iterable(&object, &method, &mut cx).expect("seqs");
    let flat: Vec<Vec<String>> = seqs
        .iter()
        .map(|s| s.iter().map(JsString::to_std_string_escaped).collect())
        .collect();
    assert_eq!(flat, [["0", "v"], ["1", "v"]]);
    assert_eq!(eval_str(&mut cx, "log.join()"), "iter,next");
    let plain = eval(&mut cx, "({})").as_object().expect("object");
    assert!(webidl::iterator_method(&plain, &mut cx)
        .expect("ok")
        .is_none());
    let bad = eval(&mut cx, "({[Symbol.iterator]: 1})")
        .as_object()
        .expect("object");
    assert!(webidl::iterator_method(&bad, &mut cx).is_err());
    let sum = webidl::create_sequence_from_iterable(
        &eval(&mut cx, "[1, 2, 3]").as_object().expect("array"),
        &eval(&mut cx, "Array.prototype[Symbol.iterator]")
            .as_object()
            .expect("fn"),
        |v, cx| v.to_number(cx),
        &mut cx,
    )
    .expect("sequence");
    assert_eq!(sum, [1.0, 2.0, 3.0]);
    // Enforced u64.
    for (src, ok) in [
        ("0", Some(0)),
        ("1.9", Some(1)),
        ("-0.5", Some(0)),
        ("9007199254740991", Some(9_007_199_254_740_991)),
        ("9007199254740992", None),
        ("-1", None),
        ("NaN", None),
        ("'12'", Some(12)),
    ] {
        let v = eval(&mut cx, src);
        assert_eq!(webidl::to_enforced_u64(&v, "x", &mut cx).ok(), ok, "{src}");
    }
    // Dictionaries, members and callbacks.
    assert!(webidl::dictionary(&Value::null(), "d")
        .expect("ok")
        .is_none());
    assert!(webidl::dictionary(&Value::from(1), "d").is_err());
    let dict = webidl::dictionary(&eval(&mut cx, "({k: 5})"), "d").expect("ok");
    assert_eq!(
        webidl::member(dict.as_ref(), "k", &mut cx)
            .expect("get")
            .as_number(),
        Some(5.0)
    );
    assert!(webidl::member(None, "k", &mut cx)
        .expect("ok")
        .is_undefined());
    assert!(webidl::callback(Value::undefined(), "c")
        .expect("ok")
        .is_none());
    assert!(webidl::callback(Value::from(1), "c").is_err());
    assert!(webidl::callback(eval(&mut cx, "() => 1"), "c")
        .expect("ok")
        .is_some());
}

#[test]
fn partial_and_global_operations() {
    let rt = runtime();
    let mut cx = rt.main_context();
    assert!(webidl::define_static_operation::<Thing>("later", 0, thing_make, &mut cx).is_err());
    webidl::register_interface::<Thing>(&mut cx).expect("register");
    // A second registration replaces the first.
    webidl::register_interface::<Thing>(&mut cx).expect("register again");
    webidl::define_static_operation::<Thing>("later", 0, thing_make, &mut cx).expect("static");
    webidl::define_global_operation("makeThing", 0, thing_make, &mut cx).expect("global");
    let f = webidl::function(&mut cx, "free", 2, thing_bump);
    global_object(&cx)
        .create_data_property_or_throw("free", f, &mut cx)
        .expect("define");
    let out = eval_str(
        &mut cx,
        r#"
        const d = (o, k) => { const x = Object.getOwnPropertyDescriptor(o, k); return [x.writable, x.enumerable, x.configurable].join('/'); };
        [
          Thing.later().count, makeThing() instanceof Thing, d(Thing, 'later'), d(globalThis, 'makeThing'),
          makeThing.name, free.name, free.length, 'prototype' in free,
          Object.getPrototypeOf(Thing.later()) === Thing.prototype,
        ].join('|')
        "#,
    );
    assert_eq!(
        out,
        "2|true|true/true/true|true/true/true|makeThing|free|2|false|true"
    );
    let internal = webidl::internal_object(Base { tag: 3 }, &cx);
    let erased = internal.clone().upcast();
    assert_eq!(
        webidl::downcast::<Base>(&erased)
            .expect("a Base")
            .borrow()
            .data()
            .tag,
        3
    );
    assert!(webidl::downcast::<Thing>(&erased).is_err());
    drop((internal, erased));
    run_gc(&mut cx);
}
