//! `structuredClone` (HTML's structured serialization with transfer): round trips of every
//! supported type, identity and cycles, transfer and detach, and the DataCloneError cases.

use crate::support::script::{Fixture, TestAction};

/// `throwsDataCloneError(f, what)`: records `what` in `failed` unless `f()` throws a
/// DataCloneError `DOMException`.
const PRELUDE: &str = r#"
    globalThis.throwsDataCloneError = (f, what) => {
      try { f(); failed.push(`${what}: did not throw`); }
      catch (e) {
        if (!(e instanceof DOMException) || e.name !== 'DataCloneError' || e.code !== 25) {
          failed.push(`${what}: threw ${e && e.name} ${e && e.message}`);
        }
      }
    };
"#;

/// Runs `script` (which records failed checks with `check(cond, what)`) in a fresh host, to
/// idle, and asserts that nothing failed and the host reported nothing.
fn assert_checks(script: &str) {
    Fixture::host().with(PRELUDE).run([
        TestAction::run(script),
        TestAction::run_to_idle(),
        TestAction::assert_no_failures(),
    ]);
}

#[test]
fn values_round_trip() {
    assert_checks(
        r#"
        const date = new Date(1234567);
        const original = {
          u: undefined, n: null, t: true, num: -0, nan: NaN, big: 12345678901234567890n,
          s: 'a\uD800b', arr: [1, , 3], nested: { deep: { deeper: ['x'] } },
          date, re: /a+b/gimsuy, map: new Map([[{ k: 1 }, 'v'], ['k2', [2]]]),
          set: new Set([1, 'two', { three: 3 }]), bool: new Boolean(false), numObj: new Number(7),
          strObj: new String('str'), bigObj: Object(5n),
          err: new RangeError('range!'), plainErr: Object.assign(new Error('e'), { name: 'Custom' }),
          buffer: new Uint8Array([1, 2, 3, 4]).buffer,
          dom: new DOMException('msg', 'NotFoundError'),
        };
        original.arr.extra = 'prop';
        const c = structuredClone(original);
        check(c !== original, 'a new object');
        check(Object.getPrototypeOf(c) === Object.prototype, 'plain object prototype');
        check('u' in c && c.u === undefined && c.n === null && c.t === true, 'primitives');
        check(Object.is(c.num, -0) && Number.isNaN(c.nan) && c.big === 12345678901234567890n, 'numbers');
        check(c.s === 'a\uD800b', 'lone surrogates kept');
        check(Array.isArray(c.arr) && c.arr.length === 3 && !(1 in c.arr) && c.arr[2] === 3 && c.arr.extra === 'prop', 'sparse array with a property');
        check(c.nested.deep.deeper[0] === 'x', 'nesting');
        check(c.date instanceof Date && c.date !== date && c.date.getTime() === 1234567, 'Date');
        check(c.re instanceof RegExp && c.re.source === 'a+b' && c.re.flags === 'gimsuy' && c.re.lastIndex === 0, 'RegExp');
        check(c.map instanceof Map && c.map.size === 2 && c.map.get('k2')[0] === 2 && [...c.map.keys()][0].k === 1, 'Map');
        check(c.set instanceof Set && c.set.has('two') && [...c.set][2].three === 3, 'Set');
        check(c.bool instanceof Boolean && c.bool.valueOf() === false, 'Boolean object');
        check(c.numObj instanceof Number && c.numObj.valueOf() === 7, 'Number object');
        check(c.strObj instanceof String && c.strObj.valueOf() === 'str', 'String object');
        check(typeof c.bigObj === 'object' && c.bigObj.valueOf() === 5n, 'BigInt object');
        check(c.err instanceof RangeError && c.err.message === 'range!' && c.err.name === 'RangeError', 'RangeError');
        check(Object.getPrototypeOf(c.plainErr) === Error.prototype && c.plainErr.message === 'e', 'other error names become Error');
        check(c.buffer instanceof ArrayBuffer && c.buffer.byteLength === 4 && new Uint8Array(c.buffer)[3] === 4, 'ArrayBuffer copied');
        check(original.buffer.byteLength === 4, 'the original buffer is intact');
        check(c.dom instanceof DOMException && c.dom.name === 'NotFoundError' && c.dom.message === 'msg' && c.dom.code === 8, 'DOMException');
        "#,
    );
}

#[test]
fn identity_and_cycles_are_kept() {
    assert_checks(
        r#"
        const shared = { id: 1 };
        const o = { a: shared, b: shared, list: [shared] };
        o.self = o;
        o.list.push(o.list);
        const buffer = new ArrayBuffer(16);
        o.views = [new Uint8Array(buffer, 4, 8), new DataView(buffer, 2, 4), new Float64Array(buffer, 8, 1)];
        const map = new Map();
        map.set(map, map);
        o.map = map;
        const c = structuredClone(o);
        check(c.a === c.b && c.a === c.list[0] && c.a !== shared, 'a shared object stays shared');
        check(c.self === c, 'a cycle through an object');
        check(c.list[1] === c.list, 'a cycle through an array');
        const [u8, dv, f64] = c.views;
        check(u8.buffer === dv.buffer && dv.buffer === f64.buffer && u8.buffer.byteLength === 16, 'views share one cloned buffer');
        check(u8 instanceof Uint8Array && u8.byteOffset === 4 && u8.length === 8, 'typed array offset and length');
        check(dv instanceof DataView && dv.byteOffset === 2 && dv.byteLength === 4, 'DataView offset and length');
        check(f64 instanceof Float64Array && f64.byteOffset === 8 && f64.length === 1, 'Float64Array');
        check(c.map.get(c.map) === c.map, 'a Map that holds itself');
        "#,
    );
}

#[test]
fn transfer_detaches_and_moves() {
    assert_checks(
        r#"
        const buffer = new Uint8Array([9, 8, 7]).buffer;
        const view = new Uint8Array(buffer, 1);
        const c = structuredClone({ buffer, view }, { transfer: [buffer] });
        check(buffer.byteLength === 0 && view.length === 0, 'the original is detached');
        check(c.buffer.byteLength === 3 && c.view.buffer === c.buffer && c.view[0] === 8, 'the clone has the bytes, shared with its view');
        const b2 = new ArrayBuffer(4);
        const moved = structuredClone(b2, { transfer: [b2] });
        check(moved !== b2 && moved.byteLength === 4, 'transferring the value itself');
        const b3 = new ArrayBuffer(1);
        structuredClone(null, { transfer: [b3] });
        check(b3.byteLength === 0, 'listed in transfer but not in the value: still detached');
        const iterable = { *[Symbol.iterator]() { yield b4; } };
        const b4 = new ArrayBuffer(2);
        structuredClone(b4, { transfer: iterable });
        check(b4.byteLength === 0, 'transfer is any iterable');
        "#,
    );
}

#[test]
fn data_clone_errors() {
    assert_checks(
        r#"
        throwsDataCloneError(() => structuredClone(() => {}), 'a function');
        throwsDataCloneError(() => structuredClone({ f() {} }), 'a method in an object');
        throwsDataCloneError(() => structuredClone(Symbol('s')), 'a symbol');
        throwsDataCloneError(() => structuredClone({ s: Symbol.iterator }), 'a nested symbol');
        throwsDataCloneError(() => structuredClone(new Proxy({}, {})), 'a proxy');
        throwsDataCloneError(() => structuredClone(new WeakMap()), 'a WeakMap');
        throwsDataCloneError(() => structuredClone(Promise.resolve()), 'a promise');
        throwsDataCloneError(() => structuredClone(new ReadableStream()), 'a stream not in the transfer list');
        throwsDataCloneError(() => structuredClone(new MessageChannel().port1), 'a port not in the transfer list');
        throwsDataCloneError(() => structuredClone(new AbortController().signal), 'a platform object');
        throwsDataCloneError(() => structuredClone(new SharedArrayBuffer(4)), 'a SharedArrayBuffer');
        const b = new ArrayBuffer(1);
        throwsDataCloneError(() => structuredClone(b, { transfer: [b, b] }), 'a duplicate transfer entry');
        check(b.byteLength === 1, 'nothing was detached by the failed transfer');
        structuredClone(b, { transfer: [b] });
        throwsDataCloneError(() => structuredClone(b, { transfer: [b] }), 'a detached buffer in the transfer list');
        throwsDataCloneError(() => structuredClone(b), 'a detached buffer in the value');
        throwsDataCloneError(() => structuredClone(null, { transfer: [{}] }), 'a plain object in the transfer list');
        const rs = new ReadableStream();
        rs.getReader();
        throwsDataCloneError(() => structuredClone(rs, { transfer: [rs] }), 'a locked ReadableStream');
        const ws = new WritableStream();
        ws.getWriter();
        throwsDataCloneError(() => structuredClone(ws, { transfer: [ws] }), 'a locked WritableStream');
        const rs2 = new ReadableStream();
        structuredClone(rs2, { transfer: [rs2] });
        throwsDataCloneError(() => structuredClone(rs2, { transfer: [rs2] }), 'a transferred (detached) stream');
        const { port1 } = new MessageChannel();
        port1.close();
        throwsDataCloneError(() => structuredClone(port1, { transfer: [port1] }), 'a closed port');
        // A getter runs during serialization, and its exception propagates as is.
        try {
          structuredClone({ get x() { throw new RangeError('from a getter'); } });
          failed.push('the getter exception did not propagate');
        } catch (e) { check(e instanceof RangeError && e.message === 'from a getter', 'the getter exception'); }
        // Errors before any transfer leave the transfer list untouched.
        const b5 = new ArrayBuffer(1);
        throwsDataCloneError(() => structuredClone({ f: () => 1, b5 }, { transfer: [b5] }), 'an uncloneable value with a transfer list');
        check(b5.byteLength === 1, 'a failed serialization detaches nothing');
        try { structuredClone(1, { transfer: 5 }); failed.push('transfer 5 did not throw'); }
        catch (e) { check(e instanceof TypeError, 'a non-iterable transfer is a TypeError'); }
        try { structuredClone(); failed.push('no argument did not throw'); }
        catch (e) { check(e instanceof TypeError, 'structuredClone() needs an argument'); }
        "#,
    );
}

#[test]
fn structured_clone_ignores_patched_globals() {
    assert_checks(
        r#"
        const desc = Object.getOwnPropertyDescriptor(globalThis, 'structuredClone');
        check(desc.enumerable && desc.writable && desc.configurable, 'a WebIDL operation');
        check(structuredClone.length === 1 && structuredClone.name === 'structuredClone', 'length and name');
        const value = { m: new Map([[1, 2]]), d: new Date(7), s: new Set([3]), e: new TypeError('t') };
        globalThis.Map = globalThis.Date = globalThis.Set = globalThis.TypeError = function () {
          failed.push('a patched constructor ran');
        };
        Object.defineProperty(Object.prototype, 'then', { get() { failed.push('then was read'); } });
        const c = structuredClone(value);
        check(c.m.get(1) === 2 && c.d.getTime() === 7 && c.s.has(3) && c.e.message === 't', 'cloned with the intrinsics');
        "#,
    );
}
