//! DOMException: shapes, codes, brand checks, and the Rust constructor.

use crate::support::dom::run_dom_actions;
use crate::support::script::{Fixture, TestAction, WEBIDL_SHAPES};
use crate::support::set_global;

#[test]
fn interface_object_shape() {
    run_dom_actions([TestAction::check(
        r#"
        eq(flags(desc(globalThis, 'DOMException')), 'w-c', 'global flags');
        eq(DOMException.length, 0, 'length');
        eq(DOMException.name, 'DOMException', 'name');
        eq(flags(desc(DOMException, 'prototype')), '---', 'prototype flags');
        eq(Object.getPrototypeOf(DOMException), Function.prototype, 'ctor proto');
        eq(Object.getPrototypeOf(DOMException.prototype), Error.prototype, 'proto proto');
        eq(DOMException.prototype.constructor, DOMException, 'constructor');
        eq(Object.prototype.toString.call(new DOMException()), '[object DOMException]', 'toString');
        eq(Object.prototype.toString.call(DOMException.prototype), '[object DOMException]', 'proto toString');
        const tag = desc(DOMException.prototype, Symbol.toStringTag);
        eq(flags(tag), '--c', 'toStringTag flags');
        accessorShape(DOMException.prototype, 'name', false);
        accessorShape(DOMException.prototype, 'message', false);
        accessorShape(DOMException.prototype, 'code', false);
        ok(!Object.prototype.hasOwnProperty.call(new DOMException(), 'name'), 'no own name');
        ok(!Object.prototype.hasOwnProperty.call(new DOMException(), 'message'), 'no own message');
        throws(TypeError, () => DOMException(), 'call without new');
        "#,
    )]);
}

#[test]
fn constants() {
    run_dom_actions([TestAction::check(
        r#"
        const names = ['INDEX_SIZE_ERR', 'DOMSTRING_SIZE_ERR', 'HIERARCHY_REQUEST_ERR',
          'WRONG_DOCUMENT_ERR', 'INVALID_CHARACTER_ERR', 'NO_DATA_ALLOWED_ERR',
          'NO_MODIFICATION_ALLOWED_ERR', 'NOT_FOUND_ERR', 'NOT_SUPPORTED_ERR',
          'INUSE_ATTRIBUTE_ERR', 'INVALID_STATE_ERR', 'SYNTAX_ERR', 'INVALID_MODIFICATION_ERR',
          'NAMESPACE_ERR', 'INVALID_ACCESS_ERR', 'VALIDATION_ERR', 'TYPE_MISMATCH_ERR',
          'SECURITY_ERR', 'NETWORK_ERR', 'ABORT_ERR', 'URL_MISMATCH_ERR', 'QUOTA_EXCEEDED_ERR',
          'TIMEOUT_ERR', 'INVALID_NODE_TYPE_ERR', 'DATA_CLONE_ERR'];
        names.forEach((n, i) => {
          for (const o of [DOMException, DOMException.prototype]) {
            const d = desc(o, n);
            ok(d !== undefined, n + ' defined');
            if (d) { eq(d.value, i + 1, n + ' value'); eq(flags(d), '-e-', n + ' flags'); }
          }
          eq(new DOMException()[n], i + 1, n + ' on instance');
        });
        "#,
    )]);
}

#[test]
fn construction_and_codes() {
    run_dom_actions([TestAction::check(
        r#"
        let e = new DOMException();
        eq(e.name, 'Error', 'default name');
        eq(e.message, '', 'default message');
        eq(e.code, 0, 'default code');
        ok(e instanceof DOMException, 'instanceof DOMException');
        ok(e instanceof Error, 'instanceof Error');
        e = new DOMException(undefined, undefined);
        eq(e.name, 'Error', 'undefined name');
        eq(e.message, '', 'undefined message');
        e = new DOMException(null, null);
        eq(e.message, 'null', 'null message');
        eq(e.name, 'null', 'null name');
        e = new DOMException({ toString() { return 'm'; } }, 'AbortError');
        eq(e.message, 'm', 'ToString message');
        throws(TypeError, () => new DOMException(Symbol()), 'symbol message');
        const table = { IndexSizeError: 1, HierarchyRequestError: 3, WrongDocumentError: 4,
          InvalidCharacterError: 5, NoModificationAllowedError: 7, NotFoundError: 8,
          NotSupportedError: 9, InUseAttributeError: 10, InvalidStateError: 11, SyntaxError: 12,
          InvalidModificationError: 13, NamespaceError: 14, InvalidAccessError: 15,
          TypeMismatchError: 17, SecurityError: 18, NetworkError: 19, AbortError: 20,
          URLMismatchError: 21, QuotaExceededError: 22, TimeoutError: 23,
          InvalidNodeTypeError: 24, DataCloneError: 25, EncodingError: 0, NotReadableError: 0,
          UnknownError: 0, ConstraintError: 0, DataError: 0, OperationError: 0,
          NotAllowedError: 0, ValidationError: 0, Foo: 0, abortError: 0, '': 0 };
        for (const [name, code] of Object.entries(table)) {
          const x = new DOMException('msg', name);
          eq(x.name, name, 'name ' + name);
          eq(x.code, code, 'code ' + name);
        }
        eq(Error.prototype.toString.call(new DOMException('boom', 'AbortError')), 'AbortError: boom', 'Error toString');
        class Sub extends DOMException { constructor() { super('s', 'TimeoutError'); } }
        const s = new Sub();
        ok(s instanceof Sub && s instanceof DOMException, 'subclass');
        eq(s.code, 23, 'subclass code');
        eq(Object.prototype.toString.call(s), '[object DOMException]', 'subclass tag');
        "#,
    )]);
}

#[test]
fn brand_checks() {
    run_dom_actions([TestAction::check(
        r#"
        for (const name of ['name', 'message', 'code']) {
          const get = desc(DOMException.prototype, name).get;
          throws(TypeError, () => get.call({}), name + ' on plain object');
          throws(TypeError, () => get.call(new Error('x')), name + ' on Error');
          throws(TypeError, () => get.call(undefined), name + ' on undefined');
          throws(TypeError, () => DOMException.prototype[name], name + ' on prototype');
          throws(TypeError, () => Object.create(DOMException.prototype)[name], name + ' on Object.create');
        }
        "#,
    )]);
}

#[test]
fn rust_constructor() {
    run_dom_actions([
        TestAction::inspect_context(|ctx| {
            let e = boa_streams::dom::create_dom_exception(ctx, "it timed out", "TimeoutError")
                .expect("create");
            assert!(boa_streams::dom::is_dom_exception(&e.clone().into()));
            assert_eq!(
                boa_streams::dom::dom_exception_name(&e.clone().into())
                    .map(|name| name.to_std_string_escaped()),
                Some("TimeoutError".to_owned())
            );
            set_global(ctx, "fromRust", e);
        }),
        TestAction::check(
            r#"
        ok(fromRust instanceof DOMException, 'instanceof');
        eq(fromRust.name, 'TimeoutError', 'name');
        eq(fromRust.message, 'it timed out', 'message');
        eq(fromRust.code, 23, 'code');
        // Patching the global does not affect Rust-created exceptions.
        const Orig = DOMException;
        globalThis.DOMException = function () {};
        "#,
        ),
        TestAction::inspect_context(|ctx| {
            let e = boa_streams::dom::create_dom_exception(ctx, "", "AbortError").expect("create");
            set_global(ctx, "fromRust2", e);
        }),
        TestAction::check(
            r#"
        ok(fromRust2 instanceof Orig, 'uses the realm prototype');
        eq(fromRust2.code, 20, 'code');
        "#,
        ),
    ]);
}

#[test]
fn register_replaces_existing_globals() {
    // A fixture has the streams globals already: they are overwritten, then registered again.
    Fixture::streams().with(WEBIDL_SHAPES).run([
        TestAction::run(
            "globalThis.DOMException = 1; globalThis.AbortSignal = 2; globalThis.EventTarget = 3;",
        ),
        TestAction::inspect_context(|ctx| {
            boa_streams::register(ctx).expect("register");
        }),
        TestAction::check(
            r#"
        eq(typeof DOMException, 'function', 'DOMException');
        eq(typeof AbortSignal, 'function', 'AbortSignal');
        eq(typeof EventTarget, 'function', 'EventTarget');
        for (const n of ['DOMException', 'Event', 'EventTarget', 'AbortController', 'AbortSignal'])
          eq(flags(desc(globalThis, n)), 'w-c', n + ' global flags');
        "#,
        ),
        // Registering twice works too.
        TestAction::inspect_context(|ctx| {
            boa_streams::register(ctx).expect("register again");
        }),
        TestAction::check(
            r#"
        eq(new AbortController().signal instanceof AbortSignal, true, 'after re-register');
        eq(new DOMException('a', 'AbortError').code, 20, 'DOMException after re-register');
        "#,
        ),
    ]);
}

#[test]
fn stack() {
    run_dom_actions([TestAction::assert_string(
        r#"
        function makeIt() { return new DOMException('m', 'AbortError'); }
        const e = makeIt();
        const d = Object.getOwnPropertyDescriptor(e, 'stack');
        JSON.stringify({ type: typeof e.stack, w: d && d.writable, e: d && d.enumerable, c: d && d.configurable,
                         mentions: String(e.stack).includes('makeIt') })
        "#,
        r#"{"type":"string","w":true,"e":false,"c":true,"mentions":true}"#,
    )]);
}

/// `QuotaExceededError` (<https://webidl.spec.whatwg.org/#quotaexceedederror>): a
/// `DOMException`-derived interface, its constructor's checks, its getters' brand checks.
#[test]
fn quota_exceeded_error() {
    run_dom_actions([TestAction::check(
        r#"
        eq(flags(desc(globalThis, 'QuotaExceededError')), 'w-c', 'global flags');
        eq(QuotaExceededError.length, 0, 'length');
        eq(Object.getPrototypeOf(QuotaExceededError), DOMException, 'ctor proto');
        eq(Object.getPrototypeOf(QuotaExceededError.prototype), DOMException.prototype, 'proto proto');
        accessorShape(QuotaExceededError.prototype, 'quota', false);
        accessorShape(QuotaExceededError.prototype, 'requested', false);
        let e = new QuotaExceededError();
        eq(e.name, 'QuotaExceededError', 'name');
        eq(e.message, '', 'message');
        eq(e.code, 22, 'legacy code');
        eq(e.quota, null, 'quota null');
        eq(e.requested, null, 'requested null');
        ok(e instanceof DOMException && e instanceof Error, 'a DOMException');
        eq(Object.prototype.toString.call(e), '[object QuotaExceededError]', 'toString');
        e = new QuotaExceededError('m', { quota: 10, requested: 12 });
        eq(e.message + e.quota + ',' + e.requested, 'm10,12', 'options');
        eq(new QuotaExceededError('m', { requested: 0 }).requested, 0, 'requested alone');
        eq(new QuotaExceededError('m', { quota: 5, requested: 5 }).quota, 5, 'equal is fine');
        throws(RangeError, () => new QuotaExceededError('m', { quota: -1 }), 'negative quota');
        throws(RangeError, () => new QuotaExceededError('m', { requested: -1 }), 'negative requested');
        throws(RangeError, () => new QuotaExceededError('m', { quota: 10, requested: 9 }), 'requested < quota');
        throws(TypeError, () => new QuotaExceededError('m', { quota: NaN }), 'double, not unrestricted');
        throws(TypeError, () => new QuotaExceededError('m', 1), 'options not a dictionary');
        throws(TypeError, () => QuotaExceededError(), 'call without new');
        // The conversions run in order: the message, then quota, then requested; the range
        // checks after them all.
        const seen = [];
        throws(RangeError, () => new QuotaExceededError({ toString() { seen.push('message'); return 'x'; } },
          { get quota() { seen.push('quota'); return -1; }, get requested() { seen.push('requested'); return 1; } }),
          'range after conversions');
        eq(seen.join(), 'message,quota,requested', 'conversion order');
        // Brand checks: a plain DOMException is not a QuotaExceededError, but the DOMException
        // getters take a QuotaExceededError.
        const get = (n) => Object.getOwnPropertyDescriptor(QuotaExceededError.prototype, n).get;
        throws(TypeError, () => get('quota').call(new DOMException('m', 'QuotaExceededError')), 'quota brand');
        throws(TypeError, () => get('requested').call({}), 'requested brand');
        eq(Object.getOwnPropertyDescriptor(DOMException.prototype, 'name').get.call(e), 'QuotaExceededError', 'DOMException getter');
        class Sub extends QuotaExceededError {}
        const s = new Sub('s', { quota: 1 });
        ok(s instanceof Sub && s.quota === 1, 'subclass');
        "#,
    )]);
}

/// A `QuotaExceededError` is serializable (its quota and requested cross with it, WebIDL's
/// serialization steps), and `crypto.getRandomValues()` throws one (WebCrypto step 2).
#[test]
fn quota_exceeded_errors_clone_and_getrandomvalues_throws_one() {
    let mut f = Fixture::host();
    let out = f.eval_string(
        r"
        const e = structuredClone(new QuotaExceededError('m', { quota: 3, requested: 4 }));
        const plain = structuredClone(new DOMException('p', 'QuotaExceededError'));
        let thrown;
        try { crypto.getRandomValues(new Uint8Array(65537)); } catch (x) { thrown = x; }
        [e instanceof QuotaExceededError, e.message, e.quota, e.requested, e.code,
         plain instanceof QuotaExceededError, plain.name, plain.code,
         thrown instanceof QuotaExceededError, thrown.quota, thrown.requested, thrown.code].join()
        ",
    );
    assert_eq!(out, "true,m,3,4,22,false,QuotaExceededError,22,true,,,22");
}
