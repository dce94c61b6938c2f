//! The URL Standard's API: `URL` and `URLSearchParams`, their WebIDL shapes, the link between a
//! URL and its query object (the update steps, and the setters that reparse the query), the
//! constructor's union conversion, and iteration while the list changes; and the host's
//! `location` with `fetch` resolving relative URLs against it.

#[path = "../support/mod.rs"]
mod support;

use boa_streams::host::HostOptions;
use support::script::{run_test_actions, Fixture, TestAction, WEBIDL_SHAPES};

#[test]
fn shapes_follow_webidl() {
    Fixture::streams()
        .with(WEBIDL_SHAPES)
        .run([TestAction::check(
            r#"
        const U = URL.prototype, P = URLSearchParams.prototype;
        eq(URL.length, 1, 'URL.length');
        eq(URLSearchParams.length, 0, 'URLSearchParams.length');
        for (const a of ['href', 'protocol', 'username', 'password', 'host', 'hostname', 'port',
                         'pathname', 'search', 'hash']) accessorShape(U, a, true);
        for (const a of ['origin', 'searchParams']) accessorShape(U, a, false);
        operationShape(U, 'toJSON', 0);
        operationShape(U, 'toString', 0);
        operationShape(URL, 'parse', 1);
        operationShape(URL, 'canParse', 1);
        operationShape(URL, 'createObjectURL', 1);
        operationShape(URL, 'revokeObjectURL', 1);
        eq(U[Symbol.toStringTag], 'URL', 'URL tag');
        accessorShape(P, 'size', false);
        for (const [n, l] of [['append', 2], ['delete', 1], ['get', 1], ['getAll', 1], ['has', 1],
                              ['set', 2], ['sort', 0], ['toString', 0], ['entries', 0],
                              ['keys', 0], ['values', 0], ['forEach', 1]]) operationShape(P, n, l);
        eq(P[Symbol.iterator], P.entries, '@@iterator is entries');
        eq(flags(desc(P, Symbol.iterator)), 'w-c', '@@iterator flags');
        const it = new URLSearchParams('a=1').keys();
        const ip = Object.getPrototypeOf(it);
        eq(Object.getPrototypeOf(ip), Object.getPrototypeOf(Object.getPrototypeOf([].keys())),
           'the iterator prototype inherits from %IteratorPrototype%');
        eq(ip[Symbol.toStringTag], 'URLSearchParams Iterator', 'iterator tag');
        eq(flags(desc(ip, Symbol.toStringTag)), '--c', 'iterator tag flags');
        operationShape(ip, 'next', 0);
        eq(Object.prototype.toString.call(it), '[object URLSearchParams Iterator]', 'class string');
        eq(Object.getPrototypeOf(new URLSearchParams().entries()), ip, 'one prototype per realm');
        throws(TypeError, () => URL('http://a'), 'URL without new');
        throws(TypeError, () => new URL(), 'URL without arguments');
        throws(TypeError, () => P.get.call({}, 'a'), 'brand check');
        throws(TypeError, () => ip.next.call({}), 'next brand check');
        throws(TypeError, () => P.forEach.call(new URLSearchParams(), 1), 'forEach callback');
        "#,
        )]);
}

#[test]
fn url_parsing_and_statics() {
    run_test_actions([TestAction::check(
        r#"
        const u = new URL('../c?x=1#f', 'http://user:pw@EXAMPLE.com:8080/a/b');
        eq(u.href, 'http://user:pw@example.com:8080/c?x=1#f', 'href');
        eq(u.origin, 'http://example.com:8080', 'origin');
        eq(u.protocol, 'http:', 'protocol');
        eq(u.username + '/' + u.password, 'user/pw', 'credentials');
        eq(u.host, 'example.com:8080', 'host');
        eq(u.hostname, 'example.com', 'hostname');
        eq(u.port, '8080', 'port');
        eq(u.pathname, '/c', 'pathname');
        eq(u.search, '?x=1', 'search');
        eq(u.hash, '#f', 'hash');
        eq(String(u), u.href, 'stringifier');
        eq(JSON.stringify({u}), '{\"u\":\"http://user:pw@example.com:8080/c?x=1#f\"}', 'toJSON');
        throws(TypeError, () => new URL('nope'), 'no base');
        throws(TypeError, () => new URL('/a', 'nope'), 'bad base');
        eq(new URL('http://a/', undefined).href, 'http://a/', 'undefined base is no base');
        eq(URL.canParse('/a', 'http://b'), true, 'canParse');
        eq(URL.canParse('/a'), false, 'canParse without base');
        eq(URL.parse('/a'), null, 'parse failure is null');
        const p = URL.parse('/a?q=1', 'http://b');
        ok(p instanceof URL, 'parse gives a URL');
        eq(p.searchParams.get('q'), '1', 'parse initializes the query object');
        eq(new URL('http://h/\uD800').pathname, '/%EF%BF%BD', 'a lone surrogate is U+FFFD');
        eq(new URL('http://xn--nxasmq6b.com/').hostname, 'xn--nxasmq6b.com', 'punycode host');
        eq(new URL('http://ÉXAMPLE.com/').hostname, 'xn--xample-9ua.com', 'IDNA');
        "#,
    )]);
}

#[test]
fn setters() {
    run_test_actions([TestAction::check(
        r#"
        const u = new URL('http://example.com/p?q#h');
        u.protocol = 'https';
        eq(u.href, 'https://example.com/p?q#h', 'protocol');
        u.protocol = 'mailto:';
        eq(u.protocol, 'https:', 'a special scheme cannot become a non-special one');
        u.username = 'me'; u.password = 's:e';
        eq(u.href, 'https://me:s%3Ae@example.com/p?q#h', 'credentials');
        u.host = 'other.org:81';
        eq(u.host, 'other.org:81', 'host');
        u.hostname = 'third.net';
        eq(u.host, 'third.net:81', 'hostname keeps the port');
        u.port = '443';
        eq(u.port, '', 'the default port is null');
        u.port = '8443x';
        eq(u.port, '8443', 'port stops at a non-digit');
        u.pathname = 'a b';
        eq(u.pathname, '/a%20b', 'pathname');
        u.hash = '';
        eq(u.href, 'https://me:s%3Ae@third.net:8443/a%20b?q', 'empty hash');
        throws(TypeError, () => { u.href = 'relative'; }, 'href setter rejects failure');
        eq(u.pathname, '/a%20b', 'unchanged after a failed href');
        const opaque = new URL('data:space ?query');
        opaque.search = '';
        eq(opaque.href, 'data:space', 'an opaque path loses its trailing spaces');
        const m = new URL('mailto:x@y');
        m.host = 'z'; m.pathname = '/p';
        eq(m.href, 'mailto:x@y', 'an opaque path ignores host and pathname');
        "#,
    )]);
}

#[test]
fn url_and_search_params_stay_in_step() {
    run_test_actions([TestAction::check(
        r#"
        const u = new URL('http://h/?a=1&b=2&a=3#frag');
        const p = u.searchParams;
        eq(u.searchParams, p, 'SameObject');
        eq(p.getAll('a').join(), '1,3', 'initialized from the query');
        p.append('c', 'x y');
        eq(u.href, 'http://h/?a=1&b=2&a=3&c=x+y#frag', 'append updates the URL');
        p.delete('a');
        eq(u.search, '?b=2&c=x+y', 'delete');
        p.set('b', '~');
        eq(u.search, '?b=%7E&c=x+y', 'set serializes with the urlencoded set');
        p.delete('b'); p.delete('c');
        eq(u.href, 'http://h/#frag', 'an empty list makes the query null');
        u.search = '?z=1&z=2';
        eq(p.getAll('z').join(), '1,2', 'search setter reparses');
        eq(p.size, 2, 'size');
        u.search = '';
        eq(p.size, 0, 'empty search empties the list');
        u.href = 'http://k/?m=%20';
        eq(p.get('m'), ' ', 'href setter reparses');
        u.href = 'http://k/';
        eq(p.size, 0, 'href without query empties the list');
        u.search = 'a=%zz&b';
        eq(u.search, '?a=%zz&b', 'the search setter keeps the input');
        p.sort();
        eq(u.search, '?a=%25zz&b=', 'a list change reserializes');
        const detached = new URLSearchParams('x=1');
        detached.append('y', '2');
        eq(detached.toString(), 'x=1&y=2', 'a query object without a URL');
        "#,
    )]);
}

#[test]
fn search_params_constructor_conversions() {
    run_test_actions([TestAction::check(
        r#"
        eq(new URLSearchParams('?a=b').toString(), 'a=b', 'a leading ? is removed');
        eq(new URLSearchParams('??a=b').toString(), '%3Fa=b', 'only one ?');
        eq(new URLSearchParams(undefined).size, 0, 'undefined is the default');
        eq(new URLSearchParams(null).toString(), 'null=', 'null is a string');
        eq(new URLSearchParams([['a', 'b'], new Set(['c', 'd'])]).toString(), 'a=b&c=d',
           'a sequence of iterables');
        throws(TypeError, () => new URLSearchParams([['a']]), 'a pair of one');
        throws(TypeError, () => new URLSearchParams([['a', 'b', 'c']]), 'a pair of three');
        throws(TypeError, () => new URLSearchParams([1]), 'a pair that is not iterable');
        eq(new URLSearchParams({b: 1, a: '\uD800', 1: 'x'}).toString(), '1=x&b=1&a=%EF%BF%BD',
           'a record, in own-key order, with USVString values');
        const hidden = {};
        Object.defineProperty(hidden, 'h', {value: 1, enumerable: false});
        Object.defineProperty(hidden, Symbol('h'), {value: 1, enumerable: false});
        eq(new URLSearchParams(hidden).size, 0, 'non-enumerable keys are skipped');
        throws(TypeError, () => new URLSearchParams({[Symbol('s')]: 1}),
               'an enumerable symbol key cannot be a USVString');
        throws(TypeError, () => new URLSearchParams({[Symbol.iterator]: 1}), 'a non-callable @@iterator');
        const order = [];
        const proxy = new Proxy({a: 1, b: 2}, {
          ownKeys(t) { order.push('ownKeys'); return Reflect.ownKeys(t); },
          getOwnPropertyDescriptor(t, k) { order.push('gopd ' + String(k)); return Reflect.getOwnPropertyDescriptor(t, k); },
          get(t, k) { order.push('get ' + String(k)); return Reflect.get(t, k); },
        });
        eq(new URLSearchParams(proxy).toString(), 'a=1&b=2', 'a proxy record');
        eq(order.join(), 'get Symbol(Symbol.iterator),ownKeys,gopd a,get a,gopd b,get b',
           'record conversion order');
        const params = new URLSearchParams(new URLSearchParams('x=1&y=2'));
        eq(params.toString(), 'x=1&y=2', 'another URLSearchParams is a sequence of pairs');
        "#,
    )]);
}

#[test]
fn search_params_methods() {
    run_test_actions([TestAction::check(
        r#"
        const p = new URLSearchParams('a=1&b=2&a=3&c');
        eq(p.get('a'), '1', 'get');
        eq(p.get('z'), null, 'get of a missing name');
        eq(p.has('a', '3'), true, 'has with value');
        eq(p.has('a', '4'), false, 'has with another value');
        eq(p.has('c', undefined), true, 'has with undefined value');
        p.delete('a', '1');
        eq(p.toString(), 'b=2&a=3&c=', 'delete with value');
        p.delete('a', undefined);
        eq(p.toString(), 'b=2&c=', 'delete with undefined value deletes all');
        p.append('b', '4'); p.append('b', '5');
        p.set('b', '9');
        eq(p.toString(), 'b=9&c=', 'set keeps the first and removes the others');
        const s = new URLSearchParams([['\uFFFD', '1'], ['\uD83D\uDE00', '2'], ['z', '3'], ['a', '4'], ['z', '0']]);
        s.sort();
        eq([...s.keys()].join(), 'a,z,z,\uD83D\uDE00,\uFFFD', 'sort by code units, stable');
        eq([...s.values()].join(), '4,3,0,2,1', 'stable values');
        throws(TypeError, () => p.append('x'), 'append needs two arguments');
        throws(TypeError, () => p.get(), 'get needs one argument');
        eq(p.get({toString() { return 'c'; }}), '', 'names are converted');
        "#,
    )]);
}

#[test]
fn iteration_sees_the_list_change() {
    run_test_actions([TestAction::check(
        r#"
        const p = new URLSearchParams('a=1&b=2&c=3');
        const it = p.entries();
        let r = it.next();
        eq(JSON.stringify(r), '{\"value\":[\"a\",\"1\"],\"done\":false}', 'first entry');
        p.delete('a');
        r = it.next();
        eq(r.value.join(), 'c,3', 'index 1 after a deletion is the old third pair');
        r = it.next();
        eq(r.done, true, 'done');
        eq(r.value, undefined, 'no value when done');
        p.append('d', '4');
        r = it.next();
        eq(r.value && r.value.join(), 'd,4', 'a finished iterator sees an appended pair');
        const seen = [];
        const q = new URLSearchParams('x=1&y=2');
        q.forEach(function (value, key, object) {
          seen.push(key + '=' + value);
          eq(object, q, 'forEach passes the object');
          eq(this.t, 1, 'forEach passes thisArg');
          if (key === 'x') q.append('z', '3');
        }, {t: 1});
        eq(seen.join(), 'x=1,y=2,z=3', 'forEach sees appended pairs');
        const out = [];
        const u = new URL('http://h/?k=1');
        for (const [k, v] of u.searchParams) {
          out.push(k + v);
          if (out.length < 3) u.search = '?k=' + (out.length + 1) + '&j=0';
        }
        eq(out.join(), 'k1,j0', 'for-of over a reparsed list');
        eq([...new URLSearchParams('a=1&a=2')].map(e => e.join(':')).join(), 'a:1,a:2', 'spread');
        "#,
    )]);
}

#[test]
fn host_location_is_the_base_for_fetch() {
    let root = std::env::temp_dir().join(format!("boa-streams-url-{}", std::process::id()));
    std::fs::create_dir_all(root.join("dir/resources")).unwrap();
    std::fs::write(
        root.join("dir/resources/data.json"),
        r#"["\ud83d", "\uDE00x", 1.5e1]"#,
    )
    .unwrap();
    std::fs::write(
        root.join("dir/resources/nested.json"),
        r#" {"a": {"b": [true, false, null, -0.5e-1, "\n\u00e9\/"]}, "c": "\udfff", "a": 2} "#,
    )
    .unwrap();
    std::fs::write(root.join("dir/resources/bad.json"), r#"["\ud800",]"#).unwrap();
    Fixture::host_with(HostOptions {
        fetch_root: Some(root.clone()),
        location: Some("http://web-platform.test:8000/dir/test.any.js?x=1".into()),
        ..HostOptions::default()
    })
    .run([
        TestAction::assert_string(
            "location.href",
            "http://web-platform.test:8000/dir/test.any.js?x=1",
        ),
        TestAction::assert_string("location.search", "?x=1"),
        TestAction::assert_string("location.pathname", "/dir/test.any.js"),
        TestAction::assert_string(
            "String(location)",
            "http://web-platform.test:8000/dir/test.any.js?x=1",
        ),
        TestAction::assert_async(
            r#"
            const r = await fetch('resources/data.json');
            const v = await r.json();
            return [r.url, v.length, v[0].length, v[0].charCodeAt(0).toString(16),
                    v[1].charCodeAt(0).toString(16), v[2]].join();
            "#,
            "http://web-platform.test:8000/dir/resources/data.json,3,1,d83d,de00,15",
        ),
        // The fallback parser is JSON.parse's grammar: nesting, escapes, numbers, a repeated
        // key keeping its first place with the last value; a syntax error still rejects.
        TestAction::assert_async(
            r#"
            const v = await (await fetch('resources/nested.json')).json();
            const bad = await (await fetch('resources/bad.json')).json().then(
                () => 'parsed', e => e.name);
            return [JSON.stringify(Object.keys(v)), v.a, v.c.charCodeAt(0).toString(16),
                    v.c.length, bad].join(' ');
            "#,
            r#"["a","c"] 2 dfff 1 SyntaxError"#,
        ),
    ]);
    let _ = std::fs::remove_dir_all(root);
}

#[test]
fn a_url_and_its_query_object_are_collected() {
    run_test_actions([
        TestAction::run(
            r#"
        globalThis.refs = [];
        (() => {
          for (let i = 0; i < 50; i++) {
            const u = new URL('http://h/?a=' + i);
            const p = u.searchParams;
            const it = p.entries();
            it.next();
            refs.push(new WeakRef(u), new WeakRef(p), new WeakRef(it));
          }
        })();
        "#,
        ),
        TestAction::assert_collected("URL objects survived a collection"),
    ]);
}

#[test]
fn the_file_apis_partial_url_interface() {
    run_test_actions([TestAction::check(
        r#"
        const url = URL.createObjectURL(new Blob(['x']));
        ok(url.startsWith('blob:'), 'a blob: URL');
        const parsed = new URL(url);
        eq(parsed.protocol, 'blob:', 'it parses');
        eq(parsed.origin, url.slice(5, url.lastIndexOf('/')), 'its origin is its path\'s');
        eq(URL.revokeObjectURL(url), undefined, 'revoke');
        throws(TypeError, () => URL.createObjectURL('x'), 'not a Blob');
        "#,
    )]);
}
