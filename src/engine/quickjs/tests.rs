//! Tests of the backend's foundation on a bare runtime (no streams globals). Each test frees
//! its runtime at the end, and QuickJS asserts then that no object is left: every test is also
//! a leak check.

use super::call::{new_closure, new_function};
use super::core::q;
use super::runtime::{eval_script, run_gc, Runtime};
use super::*;

traced! {
    data;
    struct Holder {
        held: Slot<Option<Value>>,
    }
}

fn runtime() -> Runtime {
    Runtime::for_tests().0
}

fn eval(cx: &mut Cx, source: &str) -> Value {
    match eval_script(cx, "test.js", source) {
        Ok(v) => v,
        Err(e) => panic!("{source}: {e}"),
    }
}

#[test]
fn evaluates_and_converts() {
    let rt = runtime();
    let mut cx = rt.main_context();
    assert_eq!(eval(&mut cx, "1 + 2").as_number(), Some(3.0));
    let s = eval(&mut cx, "'a\\ud800b'").as_string().expect("a string");
    assert_eq!(s.to_vec(), vec![0x61, 0xd800, 0x62]);
    let back = Value::from(s.clone());
    assert_eq!(back.as_string(), Some(s));
    assert!(eval(&mut cx, "({})").is_object());
    assert!(eval(&mut cx, "null").is_null());
    // A long concatenation is a rope: still a string.
    let rope = eval(&mut cx, "let s = 'x'.repeat(3000); s + s");
    assert!(rope.is_string());
    assert_eq!(rope.as_string().map(|s| s.len()), Some(6000));
}

fn thrower(_: &Value, args: &[Value], _: &mut Cx) -> JsResult<Value> {
    match args.first() {
        Some(v) if v.as_boolean() == Some(true) => Err(throw_range_error("too far")),
        Some(v) => Ok(v.clone()),
        None => Err(throw_type_error("no argument")),
    }
}

#[test]
fn native_functions_throw_spec_errors() {
    let rt = runtime();
    let mut cx = rt.main_context();
    let f = new_function(&mut cx, "thrower", 1, thrower);
    let global = global_object(&cx);
    global
        .create_data_property_or_throw("thrower", f, &mut cx)
        .expect("define");
    let r = eval(
        &mut cx,
        "[thrower.name, thrower.length, thrower(7), (() => { try { thrower(); } catch (e) { return e instanceof TypeError && e.message; } })(), (() => { try { thrower(true); } catch (e) { return e.constructor.name + ':' + e.message; } })()].join()",
    );
    assert_eq!(
        r.as_string().expect("string").to_std_string_escaped(),
        "thrower,1,7,no argument,RangeError:too far"
    );
    let caught = eval_script(&mut cx, "t.js", "throw 5").expect_err("throws");
    assert_eq!(
        thrown_value(caught, &mut cx).expect("value").as_number(),
        Some(5.0)
    );
}

fn get_held(data: &Object<Holder>, _: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    Ok(data
        .borrow()
        .data()
        .held
        .borrow()
        .clone()
        .unwrap_or_default())
}

#[test]
fn cycles_through_native_data_and_closures_are_collected() {
    let rt = runtime();
    let mut cx = rt.main_context();
    for _ in 0..100 {
        // object -> native data -> closure -> captured object: a cycle only tracing can free.
        let holder = Object::from_proto_and_data(
            None,
            Holder {
                held: Slot::new(None),
            },
        )
        .downcast::<Holder>()
        .expect("a Holder");
        let closure = new_closure(&mut cx, "get", 0, holder.clone(), get_held);
        *holder.borrow().data().held.borrow_mut() = Some(closure.into_value());
        // a Shared cycle: shared -> slot -> object whose data holds the shared.
        let shared = Shared::new(Slot::new(None::<Value>));
        let back = Object::from_proto_and_data(None, shared.clone());
        *shared.borrow_mut() = Some(back.into_value());
    }
    run_gc(&mut cx);
    // Freeing the runtime asserts nothing is left.
}

#[test]
fn properties_and_keys() {
    let rt = runtime();
    let mut cx = rt.main_context();
    let o = eval(&mut cx, "({b: 1, a: 2, [Symbol.iterator]: 3, 0: 4})")
        .as_object()
        .expect("object");
    let keys: Vec<String> = o
        .own_property_keys(&mut cx)
        .expect("keys")
        .into_iter()
        .map(|k| match k {
            PropertyKey::String(s) => s.to_std_string_escaped(),
            PropertyKey::Symbol(_) => "@@".into(),
        })
        .collect();
    assert_eq!(keys, ["0", "b", "a", "@@"]);
    assert_eq!(o.get("a", &mut cx).expect("get").as_number(), Some(2.0));
    assert_eq!(o.has_own_property("b", &mut cx).ok(), Some(true));
    assert_eq!(o.own_property_enumerable("zz", &mut cx).ok(), Some(None));
    assert_eq!(
        o.get(JsSymbol::iterator(), &mut cx)
            .expect("get")
            .as_number(),
        Some(3.0)
    );
}

#[test]
fn the_global_object_carries_adopted_native_data() {
    let rt = runtime();
    let mut cx = rt.main_context();
    let holder = Object::from_proto_and_data(
        None,
        Holder {
            held: Slot::new(None),
        },
    );
    super::runtime::adopt_global_data(&mut cx, holder);
    assert!(global_object(&cx).is::<Holder>());
    let this = eval(&mut cx, "globalThis").as_object().expect("an object");
    assert!(this.is::<Holder>());
    assert!(!eval(&mut cx, "({})")
        .as_object()
        .expect("an object")
        .is::<Holder>());
}

/// A string longer than QuickJS can hold (2^30 - 1 code units) is QuickJS's RangeError, not
/// `undefined` (the string maker from UTF-16 units; the ASCII maker checks the same way,
/// after a scan of its whole input, too slow for a debug test). The units are a zero-filled
/// allocation, which stays unmapped (calloc): QuickJS checks the length before it reads them,
/// so the test costs address space, not memory.
#[test]
fn strings_past_the_length_limit_are_range_errors() {
    let rt = runtime();
    let mut cx = rt.main_context();
    let too_long = 1 << 30;
    let is_range_error = |result: JsResult<Value>, cx: &mut Cx| match result {
        Ok(v) => panic!(
            "a string of {} units was made",
            v.as_string().map_or(0, |s| s.len())
        ),
        Err(e) => {
            let thrown = thrown_value(e, cx).expect("the error's value");
            let name = thrown
                .as_object()
                .expect("an error object")
                .get("name", cx)
                .expect("its name");
            assert_eq!(
                name.as_string().map(|s| s.to_vec()),
                Some("RangeError".encode_utf16().collect())
            );
        }
    };
    let units = vec![0u16; too_long];
    let result = string_value_from_utf16(&units, &mut cx);
    is_range_error(result, &mut cx);
    drop(units);
    // A short one is made.
    assert!(string_value_from_utf16(&[0x61; 16], &mut cx).is_ok());
}

/// `with_code_units` lends a string's units: an 8-bit string's widened, a wide string's in
/// place, anything else's after ToString, whose error it returns.
#[test]
fn code_units_of_values() {
    let rt = runtime();
    let mut cx = rt.main_context();
    let units = |v: &Value, cx: &mut Cx| {
        v.with_code_units(cx, |u| match u {
            crate::engine::CodeUnits::Utf16(u) => u.to_vec(),
            crate::engine::CodeUnits::Latin1(b) => b.iter().map(|&b| u16::from(b)).collect(),
        })
    };
    let cases: [(&str, &[u16]); 4] = [
        ("'caf\\u00e9'", &[0x63, 0x61, 0x66, 0xE9]),
        // A lone surrogate is kept as the unit it is.
        ("'\\u6c34\\ud83d'", &[0x6C34, 0xD83D]),
        ("12.5", &[0x31, 0x32, 0x2E, 0x35]),
        ("({ toString() { return 'x' + 'y'; } })", &[0x78, 0x79]),
    ];
    for (source, want) in cases {
        let v = eval(&mut cx, source);
        assert_eq!(units(&v, &mut cx).expect("converted"), want, "{source}");
    }
    let throws = eval(&mut cx, "({ toString() { throw new TypeError('no'); } })");
    let error = units(&throws, &mut cx).expect_err("ToString threw");
    let thrown = thrown_value(error, &mut cx).expect("the error's value");
    let message = thrown
        .as_object()
        .expect("an error object")
        .get("message", &mut cx)
        .expect("its message");
    assert_eq!(
        message.as_string().map(|s| s.to_vec()),
        Some(vec![0x6E, 0x6F])
    );
}

/// `with_code_units` reads a flat string's characters where QuickJS keeps them, as QuickJS's
/// own `JS_ToCStringLenUTF16` gives them: 8-bit strings as Latin-1 bytes and wide ones as
/// UTF-16, whole strings and slices (a slice of a slice is one of the first's parent), short
/// and long, atoms (a property name) and the empty string; a rope is flattened.
#[test]
fn code_units_are_read_where_quickjs_keeps_them() {
    let rt = runtime();
    let mut cx = rt.main_context();
    let cases = [
        ("'caf\\u00e9'", false),
        ("'\\u6c34\\ud83d'", true),
        ("''", false),
        ("Object.keys({ someName: 1 })[0]", false),
        ("'ab\\u00ffc'.repeat(1000)", false),
        ("'ab\\u00ffc'.repeat(1000).slice(7, 3001)", false),
        (
            "'ab\\u00ffc'.repeat(1000).slice(5).slice(1999, 3990)",
            false,
        ),
        ("'a\\u0100'.repeat(1000).slice(3, 1800)", true),
        (
            "'a\\u0100\\udc00'.repeat(1000).slice(1).slice(1, 2990)",
            true,
        ),
        ("'a\\u0100'.repeat(1000).slice(0, 9)", true),
        (
            "globalThis.r = 'x'.repeat(3000); r + 'y\\u00e9'.repeat(900) + r",
            false,
        ),
    ];
    for (source, wide) in cases {
        let v = eval(&mut cx, source);
        assert!(v.is_string(), "{source}");
        let theirs = JsString::with_units_of_string_value(&v, <[u16]>::to_vec);
        let ours = v
            .with_code_units(&mut cx, |u| match u {
                crate::engine::CodeUnits::Utf16(u) => (true, u.to_vec()),
                crate::engine::CodeUnits::Latin1(b) => {
                    (false, b.iter().map(|&b| u16::from(b)).collect())
                }
            })
            .expect("a string");
        assert_eq!(ours.1, theirs, "{source}");
        // A rope (the last case) is lent as the wide copy QuickJS flattens it to. (In place on
        // a little-endian 64-bit target only: elsewhere every string goes through the copy.)
        let rope = source.starts_with("globalThis.r");
        let in_place = cfg!(all(target_endian = "little", target_pointer_width = "64"));
        assert_eq!(
            ours.0,
            wide || rope || !in_place,
            "{source}: where the units were read"
        );
    }
}

/// `value::ref_count` finds the count QuickJS itself keeps: for every kind of counted value
/// (small objects and strings from the allocator's arenas, large ones from blocks of their
/// own, ropes, symbols, BigInts, functions, arrays), `JS_DupValueRT` raises what it reads by
/// one and `JS_FreeValueRT` lowers it by one, and a clone and a drop of a `Value` do the same
/// as seen by QuickJS: the value survives exactly as many frees as counts were taken.
#[test]
fn reference_counts_are_where_quickjs_keeps_them() {
    let rt = runtime();
    let mut cx = rt.main_context();
    let sources = [
        "({ a: 1 })",
        "'a short string ' + Math.random()",
        "'x'.repeat(100000) + Math.random()",
        "let r = 'y'.repeat(3000); r + r + Math.random()",
        "Symbol('s')",
        "123456789012345678901234567890n * BigInt(Date.now())",
        "(function f(a, b) { return a + b; })",
        "Array.from({ length: 10000 }, (_, i) => i)",
        "new Uint8Array(1 << 20)",
        "new Promise(() => {})",
    ];
    for source in sources {
        let value = eval(&mut cx, source);
        let raw = value.raw();
        // SAFETY: reads the tag field only.
        assert!(unsafe { q::JS_VALUE_HAS_REF_COUNT(raw) }, "{source}");
        // SAFETY: `value` owns a count of `raw` for the whole test, so it is live; the reads
        // and QuickJS's own count calls below are balanced, leaving the count as it was.
        unsafe {
            let count = super::value::ref_count(raw);
            let before = *count;
            assert!(before >= 1, "{source}: count {before}");
            let dup = q::JS_DupValueRT(cx.rt(), raw);
            assert_eq!(*count, before + 1, "{source}: JS_DupValueRT");
            let clone = value.clone();
            assert_eq!(*count, before + 2, "{source}: Value::clone");
            q::JS_FreeValueRT(cx.rt(), dup);
            assert_eq!(*count, before + 1, "{source}: JS_FreeValueRT");
            drop(clone);
            assert_eq!(*count, before, "{source}: dropping a clone");
        }
    }
}

/// `string_value_from_latin1_with` makes QuickJS's 8-bit kind of string (through its object
/// reader, `string.rs`), equal to and behaving as the string QuickJS makes of the same text as
/// a value, a property key and in its string operations; a fill that gives up gives `None`,
/// and one that writes nothing the empty string.
#[test]
fn latin1_characters_become_an_8bit_string() {
    let rt = runtime();
    let mut cx = rt.main_context();
    let long = "caf\u{e9} ".repeat(70_000);
    for text in [
        "plain",
        "h\u{e9}llo w\u{f6}rld \u{ff}\u{80}",
        "\u{e9}",
        &long,
    ] {
        let chars: Vec<u8> = text.chars().map(|c| c as u8).collect();
        let ours = string_value_from_latin1_with(
            chars.len() + 5,
            |room| {
                room[..chars.len()].copy_from_slice(&chars);
                Some(chars.len())
            },
            &mut cx,
        )
        .expect("made")
        .expect("taken");
        // SAFETY: `ours` is a live string for the block (owned above); the first 32-bit word
        // of quickjs.c's `JSString` holds `len` (31 bits) and `is_wide_char` (the top bit).
        let word = unsafe { q::JS_VALUE_GET_PTR(ours.raw()).cast::<u32>().read() };
        assert_eq!(word, chars.len() as u32, "{text:.20}: 8-bit, its length");
        // SAFETY: `cx`'s context is live; the text is valid UTF-8 of its length, copied.
        let raw = unsafe { q::JS_NewStringLen(cx.raw(), text.as_ptr().cast(), text.len() as _) };
        let theirs = super::core::check(&mut cx, raw).expect("QuickJS's string");
        assert!(ours == theirs, "{text:.20}");
        let global = global_object(&cx);
        global
            .create_data_property_or_throw("ours", ours, &mut cx)
            .expect("set");
        global
            .create_data_property_or_throw("theirs", theirs, &mut cx)
            .expect("set");
        let checks = eval(
            &mut cx,
            "{ const o = { [ours]: 1 }; [ours === theirs, o[theirs] === 1, \
             (ours + '\\u0100' + ours).slice(ours.length + 1) === theirs, \
             ours.charCodeAt(ours.length - 1) === theirs.charCodeAt(theirs.length - 1), \
             JSON.parse(JSON.stringify(ours)) === theirs, new Set([ours, theirs]).size === 1, \
             ours.toUpperCase() === theirs.toUpperCase(), \
             Symbol.for(ours) === Symbol.for(theirs)].join() }",
        );
        assert_eq!(
            checks
                .as_string()
                .map(|s| String::from_utf16_lossy(&s.to_vec())),
            Some("true,true,true,true,true,true,true,true".to_owned()),
            "{text:.20}"
        );
    }
    let given_up = string_value_from_latin1_with(4, |_| None, &mut cx).expect("no error");
    assert!(given_up.is_none());
    let empty = string_value_from_latin1_with(4, |_| Some(0), &mut cx)
        .expect("no error")
        .expect("the empty string");
    assert_eq!(empty.as_string().map(|s| s.len()), Some(0));
}

/// The allocator of the runtimes the backend makes (`malloc.rs`) advises QuickJS's large blocks
/// to use huge pages: the 16 MiB string of `'x'.repeat(...)` lies in a mapping the kernel
/// reports as advised, where that can be told (Linux with transparent huge pages on "madvise"
/// or "always").
#[cfg(target_os = "linux")]
#[test]
fn large_engine_blocks_are_advised_for_huge_pages() {
    // (A runtime an application made with rquickjs, which the tests use once more under
    // BOA_STREAMS_QUICKJS_ADOPT, keeps the application's allocator.)
    if std::env::var_os("BOA_STREAMS_QUICKJS_ADOPT").is_some() {
        return;
    }
    let rt = runtime();
    let mut cx = rt.main_context();
    let big = eval(&mut cx, "'x'.repeat(16 << 20)");
    assert!(big.is_string());
    // The first whole 2 MiB page of the string's block (the advice covers whole ones).
    // SAFETY: reads the pointer field of a live counted value (owned above).
    let addr = unsafe { q::JS_VALUE_GET_PTR(big.raw()) } as usize;
    let page = addr.next_multiple_of(2 << 20);
    if let Some(advised) = crate::engine::huge_pages::advised_for_huge_pages(page) {
        assert!(
            advised,
            "QuickJS's 16 MiB block is not advised for huge pages"
        );
    }
}
