//! Tests of buffer.rs, clone.rs, encoding.rs and json.rs on a bare runtime. Each test frees its
//! runtime at the end, and QuickJS asserts then that no object is left (a leak check).

use super::runtime::{eval_script, run_gc, Runtime};
use super::*;
use crate::engine::{TypedArrayKind, ViewKind};

fn runtime() -> Runtime {
    Runtime::for_tests().0
}

fn eval(cx: &mut Cx, source: &str) -> Value {
    match eval_script(cx, "test.js", source) {
        Ok(v) => v,
        Err(e) => panic!("{source}: {e}"),
    }
}

fn eval_string(cx: &mut Cx, source: &str) -> String {
    let v = eval(cx, source);
    v.to_string(cx).expect("a string").to_std_string_escaped()
}

fn set_global(cx: &mut Cx, name: &str, value: impl Into<Value>) {
    global_object(cx)
        .create_data_property_or_throw(name, value, cx)
        .expect("define");
}

fn buffer(cx: &mut Cx, source: &str) -> JsArrayBuffer {
    let v = eval(cx, source);
    clone::as_array_buffer(&v.as_object().expect("an object")).expect("an ArrayBuffer")
}

#[test]
fn views_and_buffers() {
    let rt = runtime();
    let mut cx = rt.main_context();
    let view = eval(&mut cx, "new Uint16Array(new ArrayBuffer(16), 4, 3)");
    let record = array_buffer_view(&view, "The view", &mut cx).expect("a view");
    assert_eq!(record.kind, ViewKind::Typed(TypedArrayKind::Uint16));
    assert_eq!((record.byte_offset, record.byte_length), (4, 6));
    assert_eq!(record.element_length(), 3);
    assert_eq!(array_buffer_byte_length(&record.buffer), 16);
    assert!(!is_detached_buffer(&record.buffer));

    let dv = eval(&mut cx, "new DataView(new ArrayBuffer(10), 2, 5)");
    let record = array_buffer_view(&dv, "The view", &mut cx).expect("a view");
    assert_eq!(record.kind, ViewKind::DataView);
    assert_eq!((record.byte_offset, record.byte_length), (2, 5));

    // A detached view: no bytes.
    let detached = eval(
        &mut cx,
        "const d = new Uint8Array(8).subarray(2); d.buffer.transfer(); d",
    );
    let record = array_buffer_view(&detached, "The view", &mut cx).expect("a view");
    assert!(is_detached_buffer(&record.buffer));
    assert_eq!((record.byte_offset, record.byte_length), (0, 0));
    let dv = eval(
        &mut cx,
        "const dd = new DataView(new ArrayBuffer(8), 1); dd.buffer.transfer(); dd",
    );
    let record = array_buffer_view(&dv, "The view", &mut cx).expect("a view");
    assert_eq!((record.byte_offset, record.byte_length), (0, 0));

    // Errors.
    for source in ["({})", "new ArrayBuffer(1)", "1", "[]"] {
        let v = eval(&mut cx, source);
        let e = array_buffer_view(&v, "The view", &mut cx).expect_err("not a view");
        assert_eq!(
            e.to_string(),
            "TypeError: The view must be an ArrayBufferView"
        );
    }
    let shared = eval(&mut cx, "new Uint8Array(new SharedArrayBuffer(4))");
    let e = array_buffer_view(&shared, "The view", &mut cx).expect_err("shared");
    assert_eq!(
        e.to_string(),
        "TypeError: The view must not be backed by a SharedArrayBuffer"
    );

    // Patched getters are never consulted.
    eval(
        &mut cx,
        "globalThis.touched = 0; \
         for (const [o, names] of [[Object.getPrototypeOf(Uint8Array.prototype), ['buffer', 'byteOffset', 'byteLength', 'length']], [DataView.prototype, ['buffer', 'byteOffset', 'byteLength']], [ArrayBuffer.prototype, ['byteLength', 'resizable', 'detached']]]) \
           for (const n of names) Object.defineProperty(o, n, { get() { touched++; return 0; } }); \
         ArrayBuffer.prototype.transfer = ArrayBuffer.prototype.transferToFixedLength = function () { touched++; };",
    );
    let view = eval(&mut cx, "new Uint8Array([1, 2, 3, 4]).subarray(1)");
    let record = array_buffer_view(&view, "v", &mut cx).expect("a view");
    assert_eq!((record.byte_offset, record.byte_length), (1, 3));
    let bytes = buffer_source_copy(&view, false, "v", &mut cx).expect("bytes");
    assert_eq!(bytes, [2, 3, 4]);
    let moved = transfer_array_buffer(&record.buffer, &mut cx).expect("transfer");
    assert!(is_detached_buffer(&record.buffer));
    assert_eq!(array_buffer_byte_length(&moved), 4);
    assert_eq!(eval_string(&mut cx, "touched"), "0");
}

#[test]
fn transfer_keeps_the_bytes_and_detaches() {
    let rt = runtime();
    let mut cx = rt.main_context();
    let b = buffer(
        &mut cx,
        "globalThis.b = new Uint8Array([9, 8, 7]).buffer; b",
    );
    assert!(can_transfer_array_buffer(&b));
    let moved = transfer_array_buffer(&b, &mut cx).expect("transfer");
    assert!(is_detached_buffer(&b));
    assert!(!can_transfer_array_buffer(&b));
    assert_eq!(array_buffer_byte_length(&b), 0);
    set_global(&mut cx, "moved", moved.clone());
    assert_eq!(
        eval_string(&mut cx, "[...new Uint8Array(moved)].join()"),
        "9,8,7"
    );
    assert!(transfer_array_buffer(&b, &mut cx).is_err());
    // A resizable buffer becomes a fixed-length one.
    let r = buffer(&mut cx, "new ArrayBuffer(4, { maxByteLength: 8 })");
    let fixed = transfer_array_buffer(&r, &mut cx).expect("transfer");
    set_global(&mut cx, "fixed", fixed);
    assert_eq!(
        eval_string(&mut cx, "fixed.resizable + ':' + fixed.byteLength"),
        "false:4"
    );
    // An immutable buffer cannot be transferred.
    let i = buffer(&mut cx, "new ArrayBuffer(4).transferToImmutable()");
    assert!(!can_transfer_array_buffer(&i));
}

#[test]
fn clones_copies_and_construction() {
    let rt = runtime();
    let mut cx = rt.main_context();
    let src = buffer(&mut cx, "new Uint8Array([1, 2, 3, 4, 5]).buffer");
    let c = clone_array_buffer(&src, 1, 3, &mut cx).expect("clone");
    set_global(&mut cx, "c", c);
    assert_eq!(
        eval_string(&mut cx, "[...new Uint8Array(c)].join()"),
        "2,3,4"
    );
    let e = clone_array_buffer(&src, 4, 2, &mut cx).expect_err("out of range");
    assert!(e.to_string().starts_with("RangeError"));

    let view = eval(&mut cx, "new Uint8Array([1, 2, 3, 4, 5]).subarray(2)");
    let record = array_buffer_view(&view, "v", &mut cx).expect("view");
    let u8 = clone_as_uint8_array(&record, &mut cx).expect("clone");
    set_global(&mut cx, "u", u8);
    assert_eq!(
        eval_string(
            &mut cx,
            "u.constructor.name + ':' + [...u].join() + ':' + u.byteOffset"
        ),
        "Uint8Array:3,4,5:0"
    );

    let b = new_array_buffer(16, &mut cx).expect("buffer");
    assert_eq!(array_buffer_byte_length(&b), 16);
    for (kind, name) in [
        (ViewKind::Typed(TypedArrayKind::Float64), "Float64Array:1:8"),
        (ViewKind::Typed(TypedArrayKind::Int16), "Int16Array:1:8"),
        (
            ViewKind::Typed(TypedArrayKind::Uint8Clamped),
            "Uint8ClampedArray:1:8",
        ),
        (ViewKind::DataView, "DataView:1:8"),
    ] {
        let v = construct_view(kind, &b, 8, 1, &mut cx).expect("view");
        set_global(&mut cx, "v", v);
        assert_eq!(
            eval_string(
                &mut cx,
                "v.constructor.name + ':' + (v.length ?? v.byteLength) + ':' + v.byteOffset"
            ),
            name
        );
    }
    assert!(new_array_buffer(u64::MAX, &mut cx).is_err());

    let to = buffer(&mut cx, "globalThis.to = new ArrayBuffer(6); to");
    let from = buffer(&mut cx, "new Uint8Array([1, 2, 3]).buffer");
    assert!(can_copy_data_block_bytes(&to, 2, &from, 1, 2));
    assert!(!can_copy_data_block_bytes(&to, 5, &from, 1, 2));
    assert!(!can_copy_data_block_bytes(&to, 0, &to, 1, 2));
    assert!(copy_data_block_bytes(&to, 2, &from, 1, 2));
    assert!(!copy_data_block_bytes(&to, 5, &from, 0, 3));
    assert_eq!(
        eval_string(&mut cx, "[...new Uint8Array(to)].join()"),
        "0,0,2,3,0,0"
    );
    assert_eq!(
        with_array_buffer_bytes_mut(&to, 4, 2, |b| {
            b.copy_from_slice(&[7, 7]);
            b.len()
        }),
        Some(2)
    );
    assert_eq!(with_array_buffer_bytes_mut(&to, 5, 2, |b| b.len()), None);
    assert_eq!(
        eval_string(&mut cx, "[...new Uint8Array(to)].join()"),
        "0,0,2,3,7,7"
    );
    assert!(same_buffer(&to, &to.clone()));
    assert!(!same_buffer(&to, &from));

    let u = new_uint8_array(&[5, 6], &mut cx).expect("array");
    set_global(&mut cx, "n", u);
    assert_eq!(
        eval_string(&mut cx, "n.constructor.name + [...n]"),
        "Uint8Array5,6"
    );
}

#[test]
fn buffer_sources() {
    let rt = runtime();
    let mut cx = rt.main_context();
    for (source, bytes) in [
        ("new Uint8Array([1, 2, 3])", vec![1, 2, 3]),
        ("new Uint8Array([1, 2, 3]).buffer", vec![1, 2, 3]),
        (
            "new DataView(new Uint8Array([1, 2, 3]).buffer, 1)",
            vec![2, 3],
        ),
        ("new Uint16Array([0x102]).subarray(0, 1)", vec![2, 1]),
        (
            "const x = new Uint8Array(3); x.buffer.transfer(); x",
            vec![],
        ),
    ] {
        let v = eval(&mut cx, source);
        assert!(is_buffer_source_object(&v), "{source}");
        assert_eq!(
            buffer_source_copy(&v, false, "c", &mut cx).expect(source),
            bytes
        );
        assert_eq!(
            buffer_source_byte_length(&v, &mut cx),
            Some(bytes.len()),
            "{source}"
        );
        assert_eq!(
            with_buffer_source_bytes(&v, &mut cx, <[u8]>::to_vec),
            Some(bytes)
        );
    }
    let shared = eval(
        &mut cx,
        "const s = new Uint8Array(new SharedArrayBuffer(2)); s[1] = 4; s",
    );
    assert!(is_buffer_source_object(&shared));
    let e = buffer_source_copy(&shared, false, "The chunk", &mut cx).expect_err("shared");
    assert_eq!(
        e.to_string(),
        "TypeError: The chunk must be an ArrayBuffer or an ArrayBufferView not backed by a SharedArrayBuffer"
    );
    assert_eq!(
        buffer_source_copy(&shared, true, "c", &mut cx).expect("shared"),
        [0, 4]
    );
    assert_eq!(
        uint8_array_bytes(&shared, &mut cx, <[u8]>::to_vec),
        Some(vec![0, 4])
    );
    for source in [
        "new ArrayBuffer(2, { maxByteLength: 4 })",
        "new Uint8Array(new ArrayBuffer(2, { maxByteLength: 4 }))",
    ] {
        let v = eval(&mut cx, source);
        let e = check_buffer_source(&v, true, "c", &mut cx).expect_err(source);
        assert_eq!(
            e.to_string(),
            "TypeError: c must not be backed by a resizable ArrayBuffer"
        );
    }
    for source in ["({})", "'x'", "[1]"] {
        let v = eval(&mut cx, source);
        assert!(!is_buffer_source_object(&v));
        assert!(check_buffer_source(&v, true, "c", &mut cx).is_err());
        assert_eq!(buffer_source_byte_length(&v, &mut cx), None);
    }
    let clamped = eval(&mut cx, "new Uint8ClampedArray(2)");
    assert_eq!(uint8_array_bytes(&clamped, &mut cx, <[u8]>::len), None);
    let u8 = eval(&mut cx, "new Uint8Array([3, 4])");
    assert_eq!(
        uint8_array_bytes(&u8, &mut cx, <[u8]>::to_vec),
        Some(vec![3, 4])
    );
}

#[test]
fn encode_into_writes_in_place() {
    let rt = runtime();
    let mut cx = rt.main_context();
    let target = eval(
        &mut cx,
        "globalThis.t = new Uint8Array(6).subarray(1, 4); t",
    );
    let r = with_uint8_array_bytes_mut(&target, "dest", &mut cx, |b| {
        b.copy_from_slice(&[1, 2, 3]);
        (b.len(), 3)
    })
    .expect("written");
    assert_eq!(r, 3);
    assert_eq!(
        eval_string(&mut cx, "[...new Uint8Array(t.buffer)].join()"),
        "0,1,2,3,0,0"
    );
    let shared = eval(
        &mut cx,
        "globalThis.s = new Uint8Array(new SharedArrayBuffer(4)); s",
    );
    with_uint8_array_bytes_mut(&shared, "dest", &mut cx, |b| {
        b.copy_from_slice(&[9, 9, 9, 9]);
        ((), 2)
    })
    .expect("written");
    assert_eq!(eval_string(&mut cx, "[...s].join()"), "9,9,0,0");
    let detached = eval(
        &mut cx,
        "const z = new Uint8Array(2); z.buffer.transfer(); z",
    );
    let n = with_uint8_array_bytes_mut(&detached, "dest", &mut cx, |b| (b.len(), 0)).expect("ok");
    assert_eq!(n, 0);
    for source in [
        "new Int8Array(2)",
        "new Uint8ClampedArray(2)",
        "new ArrayBuffer(2)",
        "({})",
    ] {
        let v = eval(&mut cx, source);
        let e = with_uint8_array_bytes_mut(&v, "dest", &mut cx, |_| ((), 0)).expect_err(source);
        assert_eq!(e.to_string(), "TypeError: dest must be a Uint8Array");
    }
}

#[test]
fn json() {
    let rt = runtime();
    let mut cx = rt.main_context();
    remember_json_intrinsics(&mut cx);
    eval(&mut cx, "JSON.parse = JSON.stringify = () => { throw 1; }");
    let v = json_parse(JsString::from("{\"a\": [1, \"\\ud83d\"]}"), &mut cx).expect("parsed");
    set_global(&mut cx, "v", v.clone());
    assert_eq!(eval_string(&mut cx, "v.a[0] + ':' + v.a[1].length"), "1:1");
    let s = json_stringify(v, &mut cx).expect("ok").expect("a string");
    assert_eq!(s.to_std_string_escaped(), "{\"a\":[1,\"\\ud83d\"]}");
    assert!(json_stringify(Value::undefined(), &mut cx)
        .expect("ok")
        .is_none());
    let e = json_parse(JsString::from("{"), &mut cx).expect_err("not JSON");
    let e = thrown_value(e, &mut cx).expect("a value");
    set_global(&mut cx, "e", e);
    assert_eq!(eval_string(&mut cx, "e instanceof SyntaxError"), "true");
}

fn kind_name(kind: &clone::ObjectKind) -> String {
    let debug = format!("{kind:?}");
    debug
        .split(['(', ' ', '{'])
        .next()
        .unwrap_or("")
        .to_string()
}

#[test]
fn object_kinds() {
    let rt = runtime();
    let mut cx = rt.main_context();
    for (source, expected) in [
        ("new Boolean(true)", "Boolean(true)"),
        ("new Number(2.5)", "Number(2.5)"),
        (
            "Object(12345678901234567890n)",
            "BigInt(\"12345678901234567890\")",
        ),
        ("new String('ab')", "String(\"ab\")"),
        ("Object(Symbol())", "Symbol"),
        ("new Date(5)", "Date(5.0)"),
        (
            "/a+b/gimsuy",
            "RegExp { source: \"a+b\", flags: \"gimsuy\" }",
        ),
        ("/[a]/dv", "RegExp { source: \"[a]\", flags: \"dv\" }"),
        ("new SharedArrayBuffer(1)", "SharedArrayBuffer"),
        ("new Map", "Map"),
        ("new Set", "Set"),
        ("new RangeError('x')", "Error"),
        ("[1, 2]", "Array"),
        ("() => 1", "Callable"),
        ("({a: 1})", "Ordinary"),
        ("Object.create(null)", "Ordinary"),
        ("new Proxy({}, {})", "Other"),
        ("Promise.resolve()", "Other"),
        ("new WeakMap", "Other"),
        ("(function () { return arguments; })()", "Other"),
    ] {
        let o = eval(&mut cx, source).as_object().expect("an object");
        let kind = clone::object_kind(&o, &mut cx).expect(source);
        assert_eq!(format!("{kind:?}"), expected, "{source}");
    }
    let o = eval(&mut cx, "new ArrayBuffer(3)")
        .as_object()
        .expect("object");
    assert_eq!(
        kind_name(&clone::object_kind(&o, &mut cx).expect("kind")),
        "ArrayBuffer"
    );
    let o = eval(&mut cx, "new Int32Array(new ArrayBuffer(16), 4, 2)")
        .as_object()
        .expect("o");
    match clone::object_kind(&o, &mut cx).expect("kind") {
        clone::ObjectKind::View {
            kind,
            buffer,
            byte_offset,
            array_length,
            out_of_bounds,
        } => {
            assert!(!out_of_bounds);
            assert_eq!(kind, ViewKind::Typed(TypedArrayKind::Int32));
            assert!(matches!(buffer, clone::ViewedBuffer::Buffer(_)));
            assert_eq!((byte_offset, array_length), (4, 2));
        }
        other => panic!("{other:?}"),
    }
    let o = eval(&mut cx, "new DataView(new SharedArrayBuffer(16), 3)")
        .as_object()
        .expect("o");
    match clone::object_kind(&o, &mut cx).expect("kind") {
        clone::ObjectKind::View {
            kind,
            buffer,
            byte_offset,
            array_length,
            out_of_bounds,
        } => {
            assert!(!out_of_bounds);
            assert_eq!(kind, ViewKind::DataView);
            assert!(matches!(buffer, clone::ViewedBuffer::Shared));
            assert_eq!((byte_offset, array_length), (3, 13));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn serialization_helpers() {
    let rt = runtime();
    let mut cx = rt.main_context();
    // Patched built-ins are never consulted.
    eval(
        &mut cx,
        "globalThis.m = new Map([[1, 'a'], [{}, 2]]); m.delete(1); \
         globalThis.st = new Set(['x', 'y']); \
         globalThis.touched = 0; \
         const bump = function () { touched++; return 'patched'; }; \
         globalThis.saved = ['flags', 'source', 'global'].map(n => [n, Object.getOwnPropertyDescriptor(RegExp.prototype, n)]); \
         const mapIteratorPrototype = Object.getPrototypeOf(new Map().entries()); \
         const setIteratorPrototype = Object.getPrototypeOf(new Set().values()); \
         Map.prototype.entries = Map.prototype.forEach = Map.prototype.set = Set.prototype.values = Set.prototype.add = bump; \
         mapIteratorPrototype.next = setIteratorPrototype.next = bump; \
         Map.prototype[Symbol.iterator] = Set.prototype[Symbol.iterator] = bump; \
         Date.prototype.getTime = Date.prototype.valueOf = bump; \
         Boolean.prototype.valueOf = Number.prototype.valueOf = String.prototype.valueOf = BigInt.prototype.valueOf = bump; \
         Object.defineProperty(RegExp.prototype, 'flags', { get: bump }); \
         Object.defineProperty(RegExp.prototype, 'source', { get: bump }); \
         Object.defineProperty(RegExp.prototype, 'global', { get: bump }); \
         Object.defineProperty(Array.prototype, '0', { set: bump, get: bump }); \
         0",
    );
    let m = eval(&mut cx, "m").as_object().expect("map");
    let entries = clone::map_entries(&m).expect("entries");
    assert_eq!(entries.len(), 1);
    assert!(entries[0].0.is_object());
    assert_eq!(entries[0].1.as_number(), Some(2.0));
    let st = eval(&mut cx, "st").as_object().expect("set");
    let values = clone::set_entries(&st).expect("values");
    assert_eq!(values.len(), 2);
    assert_eq!(
        values[1].as_string().map(|s| s.to_std_string_escaped()),
        Some("y".into())
    );
    assert_eq!(eval_string(&mut cx, "touched"), "0");
    for source in [
        "new Date(7)",
        "/x/g",
        "new Boolean(true)",
        "new String('q')",
        "Object(3n)",
    ] {
        let o = eval(&mut cx, source).as_object().expect("object");
        clone::object_kind(&o, &mut cx).expect(source);
        assert_eq!(eval_string(&mut cx, "touched"), "0", "{source}");
    }
    let map = clone::new_map(&mut cx);
    clone::map_append(&map, Value::from(1), Value::from(2), &mut cx).expect("set");
    let set = clone::new_set(&mut cx);
    clone::set_append(&set, Value::from(3), &mut cx).expect("add");
    set_global(&mut cx, "nm", map);
    set_global(&mut cx, "ns", set);
    let arr = clone::new_array(3, &mut cx).expect("array");
    set_global(&mut cx, "na", arr);
    let frozen =
        clone::frozen_array(vec![Value::from(1), Value::from(2)], &mut cx).expect("frozen");
    set_global(&mut cx, "fa", frozen);
    assert_eq!(eval_string(&mut cx, "touched"), "0");
    assert_eq!(
        eval_string(
            &mut cx,
            "delete Map.prototype.entries; delete Map.prototype[Symbol.iterator]; \
             [nm.size, ns.size, na.length, Object.isFrozen(fa), fa.length, Array.isArray(fa)].join()"
        ),
        "1,1,3,true,2,true"
    );

    // Deserialization.
    let date = clone::new_date(1234.0, &mut cx).expect("date");
    let re = clone::new_regexp(JsString::from("a/b"), "gi", &mut cx).expect("regexp");
    let err = clone::new_error("TypeError", Some(JsString::from("boom")), &mut cx).expect("e");
    let err2 = clone::new_error("Nope", None, &mut cx).expect("e");
    let big = clone::new_primitive_wrapper(
        &clone::Primitive::BigInt("123456789012345678901".into()),
        &mut cx,
    )
    .expect("wrapper");
    let num = clone::new_primitive_wrapper(&clone::Primitive::Number(4.0), &mut cx).expect("n");
    let plain = clone::new_plain_object(&mut cx);
    for (name, value) in [
        ("d", date),
        ("re", re),
        ("er", err),
        ("er2", err2),
        ("big", big),
        ("num", num),
        ("pl", plain),
    ] {
        set_global(&mut cx, name, value);
    }
    assert_eq!(
        eval_string(
            &mut cx,
            "for (const [n, d] of saved) Object.defineProperty(RegExp.prototype, n, d); \
             [Date.prototype.toISOString.call(d), RegExp.prototype.toString.call(re), er instanceof TypeError, er.message, \
              er2.constructor === Error, Object.hasOwn(er2, 'message'), typeof big, BigInt.prototype.toString.call(big), \
              typeof num, Object.getPrototypeOf(pl) === Object.prototype].join()"
        ),
        "1970-01-01T00:00:01.234Z,/a\\/b/gi,true,boom,true,false,object,123456789012345678901,object,true"
    );

    // Primitives.
    let p = clone::primitive(&eval(&mut cx, "-(2n ** 70n)")).expect("primitive");
    assert_eq!(format!("{p:?}"), "BigInt(\"-1180591620717411303424\")");
    let v = clone::primitive_value(&p);
    set_global(&mut cx, "pv", v);
    assert_eq!(eval_string(&mut cx, "pv === -(2n ** 70n)"), "true");
    let long = eval(&mut cx, "'x'.repeat(3000) + 'y'.repeat(3000)");
    match clone::primitive(&long) {
        Some(clone::Primitive::String(s)) => assert_eq!(s.len(), 6000),
        other => panic!("{other:?}"),
    }
    assert!(clone::primitive(&eval(&mut cx, "({})")).is_none());
    assert!(matches!(
        clone::primitive(&eval(&mut cx, "Symbol()")),
        Some(clone::Primitive::Symbol)
    ));

    // Own properties, read directly.
    let o = eval(
        &mut cx,
        "const o = { b: 1, a: 2 }; Object.defineProperty(o, 'h', { value: 3, enumerable: false }); \
         Object.defineProperty(o, 'g', { get() { return 4; }, enumerable: true }); o[Symbol()] = 5; o",
    )
    .as_object()
    .expect("object");
    let keys: Vec<String> = clone::enumerable_own_keys(&o, &mut cx)
        .expect("keys")
        .iter()
        .map(|k| clone::property_key_string(k).to_std_string_escaped())
        .collect();
    assert_eq!(keys, ["b", "a", "g"]);
    let key = clone::property_key(JsString::from("a"));
    assert_eq!(
        clone::own_data_property(&o, &key).and_then(|v| v.as_number()),
        Some(2.0)
    );
    let g = clone::property_key(JsString::from("g"));
    assert!(clone::own_data_property(&o, &g).is_none());
    assert!(clone::own_accessor_getter(&o, &g).is_some_and(|v| v.is_callable()));
    assert!(clone::own_accessor_getter(&o, &key).is_none());
    let arr = eval(&mut cx, "[1, , 3, 4]").as_object().expect("array");
    assert_eq!(clone::array_length(&arr, &mut cx).expect("length"), 4);
    run_gc(&mut cx);
}

#[test]
fn byte_blocks() {
    let rt = runtime();
    let mut cx = rt.main_context();
    let b = buffer(
        &mut cx,
        "globalThis.b = new Uint8Array([1, 2, 3]).buffer; b",
    );
    let copy = clone::copy_buffer_bytes(&b).expect("a copy");
    assert_eq!(format!("{copy:?}"), "ByteBlock(3 bytes)");
    let block = clone::detach_array_buffer(&b).expect("detached");
    assert!(is_detached_buffer(&b));
    assert!(clone::copy_buffer_bytes(&b).is_none());
    assert!(clone::detach_array_buffer(&b).is_err());
    // A buffer over a Rust-owned block: readable, transferable (to other lengths too), and
    // freed by its realloc function (the runtime's end checks nothing leaks).
    let nb = clone::new_array_buffer_from(block, &mut cx).expect("buffer");
    set_global(&mut cx, "nb", nb.clone());
    assert_eq!(
        eval_string(&mut cx, "[...new Uint8Array(nb)].join()"),
        "1,2,3"
    );
    assert_eq!(
        eval_string(
            &mut cx,
            "const t = nb.transfer(5); [nb.detached, ...new Uint8Array(t)].join()"
        ),
        "true,1,2,3,0,0"
    );
    assert_eq!(
        eval_string(
            &mut cx,
            "const t2 = t.transfer(1); [...new Uint8Array(t2)].join()"
        ),
        "1"
    );
    let nb2 = clone::new_array_buffer_from(clone::ByteBlock::copy_of(&[4, 5]), &mut cx).expect("b");
    let nb2 = clone::as_array_buffer(&nb2).expect("an ArrayBuffer");
    let moved = transfer_array_buffer(&nb2, &mut cx).expect("transfer");
    assert_eq!(array_buffer_byte_length(&moved), 2);
    let detached_block = clone::detach_array_buffer(&moved).expect("detach");
    assert_eq!(format!("{detached_block:?}"), "ByteBlock(2 bytes)");
    let empty = clone::new_array_buffer_from(clone::ByteBlock::copy_of(&[]), &mut cx).expect("b");
    assert_eq!(
        array_buffer_byte_length(&clone::as_array_buffer(&empty).expect("ab")),
        0
    );
    // Dropped without ever reaching script.
    drop(clone::new_array_buffer_from(
        clone::ByteBlock::copy_of(&[1; 100]),
        &mut cx,
    ));
    let sab = eval(&mut cx, "new SharedArrayBuffer(2)")
        .as_object()
        .expect("o");
    assert!(clone::is_shared_array_buffer(&sab));
    assert!(clone::as_array_buffer(&sab).is_none());
    let immutable = buffer(&mut cx, "new ArrayBuffer(2).transferToImmutable()");
    assert!(clone::detach_array_buffer(&immutable).is_err());
    assert_eq!(
        with_array_buffer_bytes_mut(&immutable, 0, 1, |b| b.len()),
        None
    );
}

#[test]
fn probes_throw_nothing() {
    // A thrown error runs `Error.prepareStackTrace` even when cleared: the probes of detached
    // and out-of-bounds views must not throw.
    let rt = runtime();
    let mut cx = rt.main_context();
    eval(
        &mut cx,
        "globalThis.touched = 0; Error.prepareStackTrace = () => { touched++; return ''; };",
    );
    for source in [
        "const a = new Uint8Array(4); a.buffer.transfer(); a",
        "const b = new DataView(new ArrayBuffer(4)); b.buffer.transfer(); b",
        "const c = new ArrayBuffer(4); c.transfer(); c",
        "const r = new ArrayBuffer(8, { maxByteLength: 8 }); const d = new Uint8Array(r, 4, 4); r.resize(2); d",
        "const r2 = new ArrayBuffer(8, { maxByteLength: 16 }); const e = new Uint8Array(r2, 2); r2.resize(12); e",
    ] {
        let v = eval(&mut cx, source);
        let _ = buffer_source_byte_length(&v, &mut cx);
        let _ = is_buffer_source_object(&v);
        if let Ok(record) = array_buffer_view(&v, "v", &mut cx) {
            let _ = is_detached_buffer(&record.buffer);
            let _ = array_buffer_byte_length(&record.buffer);
            let _ = clone::copy_buffer_bytes(&record.buffer);
        }
        if let Some(o) = v.as_object() {
            let _ = clone::object_kind(&o, &mut cx);
        }
        assert_eq!(eval_string(&mut cx, "touched"), "0", "{source}");
    }
    // A length-tracking view's slots follow its resizable buffer; as an IDL ArrayBufferView
    // (no [AllowResizable]) such a view is a TypeError.
    let e = eval(&mut cx, "e");
    let slots = super::buffer::view_slots(&mut cx, &e).expect("a view");
    assert!(slots.resizable);
    assert_eq!((slots.byte_offset, slots.byte_length), (2, 10));
    assert!(array_buffer_view(&e, "v", &mut cx).is_err());
    let d = eval(&mut cx, "d");
    let slots = super::buffer::view_slots(&mut cx, &d).expect("a view");
    assert_eq!((slots.byte_offset, slots.byte_length), (0, 0));
    assert_eq!(eval_string(&mut cx, "touched"), "0");
}

#[test]
fn ropes_are_strings() {
    // A long concatenation is a rope (`Value::is_string` says false for it).
    let rt = runtime();
    let mut cx = rt.main_context();
    let long = eval(&mut cx, "'x'.repeat(3000) + 'y'.repeat(3000)");
    set_global(&mut cx, "long", long);
    let s = json_stringify(eval(&mut cx, "({ long })"), &mut cx)
        .expect("ok")
        .expect("string");
    assert_eq!(s.len(), 6000 + 11);
}

/// The buffer and view state read from QuickJS's structures (`RawArrayBuffer`,
/// `RawTypedArray`) is what the built-in getters report, for every kind of buffer and view and
/// every state a buffer can be in: the check that their layout is this QuickJS's.
#[test]
fn raw_slots_match_the_getters() {
    let rt = runtime();
    let mut cx = rt.main_context();
    let buffers = [
        "new ArrayBuffer(16)",
        "new ArrayBuffer(0)",
        "new ArrayBuffer(8, { maxByteLength: 64 })",
        "(() => { const b = new ArrayBuffer(8); b.transfer(); return b; })()",
        "(() => { const b = new ArrayBuffer(8, { maxByteLength: 16 }); b.transfer(); return b; })()",
        "new ArrayBuffer(4).transferToImmutable()",
        "new SharedArrayBuffer(8)",
        // (A growable `SharedArrayBuffer` needs allocator hooks this runtime does not set.)
    ];
    for source in buffers {
        let buffer = eval(&mut cx, source);
        set_global(&mut cx, "b", buffer.clone());
        let shared = eval(&mut cx, "b instanceof SharedArrayBuffer").to_boolean();
        let (detached, resizable) = if shared {
            (false, eval(&mut cx, "b.growable").to_boolean())
        } else {
            let detached = eval(&mut cx, "b.detached").to_boolean();
            (detached, eval(&mut cx, "b.resizable").to_boolean())
        };
        assert_eq!(buffer::is_detached(&mut cx, &buffer), detached, "{source}");
        assert_eq!(
            buffer::is_resizable(&mut cx, &buffer),
            resizable,
            "{source}"
        );
    }
    let views = [
        "new Uint8Array(16)",
        "new Uint8Array(new ArrayBuffer(32), 8, 4)",
        "new Float64Array(new ArrayBuffer(64), 16)",
        "new BigInt64Array(3)",
        "new Uint16Array(new ArrayBuffer(8, { maxByteLength: 64 }))",
        "new DataView(new ArrayBuffer(10), 2, 5)",
        "new DataView(new ArrayBuffer(10, { maxByteLength: 20 }), 4)",
        "new Int32Array(new SharedArrayBuffer(16))",
        "(() => { const v = new Uint8Array(8); v.buffer.transfer(); return v; })()",
        "(() => { const d = new DataView(new ArrayBuffer(8)); d.buffer.transfer(); return d; })()",
        "(() => { const b = new ArrayBuffer(16, { maxByteLength: 16 }); const v = new Uint8Array(b, 8, 8); b.resize(4); return v; })()",
        "(() => { const b = new ArrayBuffer(16, { maxByteLength: 16 }); const v = new Uint8Array(b, 8, 8); b.resize(12); return v; })()",
        "(() => { const b = new ArrayBuffer(16, { maxByteLength: 32 }); const v = new Uint16Array(b, 8); b.resize(13); return v; })()",
        "(() => { const b = new ArrayBuffer(16, { maxByteLength: 32 }); const v = new Uint16Array(b, 8); b.resize(4); return v; })()",
        "(() => { const b = new ArrayBuffer(16, { maxByteLength: 32 }); const v = new Uint8Array(b, 16); return v; })()",
        "(() => { const b = new ArrayBuffer(16, { maxByteLength: 32 }); const d = new DataView(b, 4, 8); b.resize(10); return d; })()",
        "(() => { const b = new ArrayBuffer(16, { maxByteLength: 32 }); const d = new DataView(b, 4); b.resize(24); return d; })()",
    ];
    for source in views {
        let view = eval(&mut cx, source);
        set_global(&mut cx, "v", view.clone());
        let expected = eval(&mut cx, "v.buffer");
        let slots = buffer::view_slots(&mut cx, &view).expect("a view");
        assert!(slots.buffer == expected, "{source}: the buffer");
        set_global(&mut cx, "b", slots.buffer.clone());
        let shared = eval(&mut cx, "b instanceof SharedArrayBuffer").to_boolean();
        let resizable = eval(&mut cx, if shared { "b.growable" } else { "b.resizable" });
        assert_eq!(
            slots.resizable,
            resizable.to_boolean(),
            "{source}: resizable"
        );
        // IsArrayBufferViewOutOfBounds as script sees it: a typed array's `keys()` validates
        // it (ValidateTypedArray), a `DataView`'s `byteLength` getter throws.
        let out_of_bounds = eval(
            &mut cx,
            "(() => { try { v instanceof DataView ? v.byteLength : v.keys(); return false; }
                      catch { return true; } })()",
        )
        .to_boolean();
        assert_eq!(
            slots.out_of_bounds, out_of_bounds,
            "{source}: out of bounds"
        );
        if !out_of_bounds {
            let offset = eval(&mut cx, "v.byteOffset").as_number();
            let length = eval(&mut cx, "v.byteLength").as_number();
            assert_eq!(Some(slots.byte_offset as f64), offset, "{source}: offset");
            assert_eq!(Some(slots.byte_length as f64), length, "{source}: length");
        }
        // The short path to a typed array's bytes, where it applies, finds the bytes the
        // general path finds: the same start (the block `JS_GetArrayBuffer` returns, which
        // `RawArrayBuffer::data` reads) and length.
        let general = buffer::buffer_data(&mut cx, &slots.buffer)
            .filter(|_| !slots.out_of_bounds)
            .map(|(data, _)| {
                // SAFETY: in bounds (not out of bounds, checked), so within the block.
                let start = unsafe { data.add(slots.byte_offset as usize) };
                (start.cast_const(), slots.byte_length as usize)
            });
        let short = buffer::fixed_view_bytes(&cx, &view).map(|(buffer, start, len)| {
            assert!(buffer == slots.buffer, "{source}: the short path's buffer");
            (start, len)
        });
        let fixed = source.starts_with("new Uint8Array(")
            || source.starts_with("new Float64Array(")
            || source.starts_with("new BigInt64Array(");
        if fixed {
            assert!(short.is_some(), "{source}: takes the short path");
        }
        if short.is_some() {
            assert_eq!(short, general, "{source}: the short path's bytes");
        }
    }
    drop(cx);
    drop(rt);
}

/// A large block freed by its `ArrayBuffer` is the next large block of about its size
/// (`clone.rs`'s spare): the same memory, with none of the old bytes showing, not in the new
/// buffer's bytes nor in the zeroed tail a `transfer` to a longer length adds.
#[test]
fn a_freed_large_block_is_reused_without_its_bytes() {
    use clone::{new_array_buffer_from, ByteBlock};
    let rt = runtime();
    let mut cx = rt.main_context();
    const MIB: usize = 1 << 20;
    // A block of `len` bytes of `byte` (from the spare when one fits), made the buffer of the
    // global `name`; its data's address.
    let adopt = |cx: &mut Cx, name: &str, len: usize, byte: u8| {
        let mut block = ByteBlock::with_capacity(len);
        let data = block.as_slice().as_ptr();
        block.extend_from_slice(&vec![byte; len]);
        let buffer = new_array_buffer_from(block, cx).expect("a buffer");
        set_global(cx, name, buffer);
        data
    };
    let first = adopt(&mut cx, "first", 8 * MIB, 0xAB);
    // Detaching frees the block (QuickJS calls the buffer's realloc function with size 0).
    eval(&mut cx, "first.transfer(0); first = undefined;");
    let second = adopt(&mut cx, "second", 7 * MIB, 0x01);
    assert_eq!(second, first, "the spare is reused");
    let seen = eval_string(
        &mut cx,
        "const grown = new Uint8Array(second.transfer(8 * 1048576)); \
         const counts = [0, 0, 0]; \
         for (let i = 0; i < grown.length; i++) counts[grown[i] === 1 ? 1 : grown[i] === 0 ? 0 : 2]++; \
         counts.join()",
    );
    assert_eq!(seen, format!("{},{},0", MIB, 7 * MIB));
    // A block much smaller than the spare does not take it (8 MiB for 5: more than a
    // quarter to spare); one that fits does.
    eval(&mut cx, "second = undefined;");
    let again = adopt(&mut cx, "again", 8 * MIB, 0x02);
    eval(&mut cx, "again.transfer(0); again = undefined;");
    let small = ByteBlock::with_capacity(5 * MIB);
    assert_ne!(
        small.as_slice().as_ptr(),
        again,
        "too large a spare is left"
    );
    let fits = ByteBlock::with_capacity(7 * MIB);
    assert_eq!(fits.as_slice().as_ptr(), again, "and taken when one fits");
}
