//! Readable streams beyond what the WPT files pin down:
//!
//! - `ReadableStream.from(async_sequence<any>)`: WebIDL's conversion to an async sequence, "open
//!   an async sequence", "get the next value" and "close an async iterator" (whatwg/streams
//!   2999707);
//! - readable streams under the garbage collector: streams, controllers, readers, tee branches,
//!   async iterators and pending read promises form cycles; once script drops them they must be
//!   collected (every JS value held in a slot is traced, so the cycles are visible to the
//!   collector);
//! - re-entrant user callbacks: start, pull, cancel, size, and getters on the source and
//!   strategy dictionaries may call any method of the same stream: no Rust borrow is held
//!   across a call into JS, so nothing panics and the spec's results come out.
//!
//! Readable byte streams have their own file, `byte_streams.rs`.

mod support;

use support::eval;
use support::script::{run_test_actions, Fixture, TestAction};

/// Evaluates `source` (which fills the shared `log`) in a host, runs to idle, and returns `log`
/// joined by spaces.
fn run(source: &str) -> String {
    let mut fixture = Fixture::host();
    fixture.run([TestAction::run(source), TestAction::run_to_idle()]);
    fixture.eval_string("log.join(' ')")
}

/// Evaluates `source` (which fills the shared `log`) in a host, runs to idle, and asserts that
/// `log` joined by spaces is `expected`.
fn assert_log_of(source: &str, expected: &str) {
    Fixture::host().run([
        TestAction::run(source),
        TestAction::run_to_idle(),
        TestAction::assert_string("log.join(' ')", expected),
    ]);
}

#[test]
fn primitives_strings_included_are_type_errors() {
    assert_log_of(
        "for (const v of ['ab', '', 1, true, null, undefined, Symbol('s'), 10n]) {
               try { ReadableStream.from(v); log.push('accepted'); }
               catch (e) { log.push(e.constructor.name); }
             }",
        "TypeError TypeError TypeError TypeError TypeError TypeError TypeError TypeError",
    );
    // A String object is an object with @@iterator: it is iterated.
    assert_log_of(
        "(async () => {
               for await (const c of ReadableStream.from(new String('ab'))) log.push(c);
             })();",
        "a b",
    );
}

#[test]
fn async_iterator_method_is_looked_up_before_the_sync_one() {
    assert_log_of(
        "const o = {
               get [Symbol.asyncIterator]() { log.push('get @@asyncIterator'); return undefined; },
               get [Symbol.iterator]() { log.push('get @@iterator'); return function* () { yield 1; }; },
             };
             ReadableStream.from(o);
             const both = {
               get [Symbol.asyncIterator]() { log.push('async'); return async function* () {}; },
               get [Symbol.iterator]() { log.push('sync'); return function* () {}; },
             };
             ReadableStream.from(both);
             try { ReadableStream.from({ [Symbol.asyncIterator]: 1 }); } catch (e) { log.push(e.name); }
             try { ReadableStream.from({}); } catch (e) { log.push(e.name); }",
        "get @@asyncIterator get @@iterator async TypeError TypeError",
    );
}

#[test]
fn a_sync_iterable_is_opened_through_async_from_sync_and_its_values_awaited() {
    assert_log_of(
        "(async () => {
               const r = ReadableStream.from([Promise.resolve('p'), 'v']).getReader();
               log.push((await r.read()).value, (await r.read()).value, (await r.read()).done);
             })();",
        "p v true",
    );
}

/// "Get the next value" resolves its derived promise with the iterator result's value, so a
/// thenable value is adopted before it is enqueued (the reference implementation's webidl2js
/// emulation enqueues the thenable itself).
#[test]
fn a_thenable_value_is_adopted_before_it_is_enqueued() {
    assert_log_of(
        "const it = { [Symbol.asyncIterator]() {
               let i = 0;
               return { next() {
                 i++;
                 return i < 3
                   ? { value: { then(resolve) { log.push('then' + i); resolve('v' + i); } }, done: false }
                   : { done: true };
               } };
             } };
             (async () => {
               const r = ReadableStream.from(it).getReader();
               for (;;) { const { value, done } = await r.read(); if (done) break; log.push(value); }
             })();",
        "then1 v1 then2 v2",
    );
}

#[test]
fn cancel_closes_the_iterator_with_the_reason() {
    assert_log_of(
        "const it = { [Symbol.asyncIterator]() { return {
               next() { return { value: 1, done: false }; },
               return(reason) { log.push('return:' + reason); return {}; },
             }; } };
             const rs = ReadableStream.from(it);
             rs.cancel('why').then(v => log.push('cancelled:' + v));
             const bad = { [Symbol.asyncIterator]() { return {
               next() { return { value: 1, done: false }; },
               return() { return 1; },
             }; } };
             ReadableStream.from(bad).cancel().catch(e => log.push(e.name));",
        "return:why cancelled:undefined TypeError",
    );
}

/// A from(sync iterable) pull whose promises nobody can see runs on Rust promises; where
/// script replaced `Promise.prototype.then` (with a wrapper that behaves the same), the JS
/// promises of AsyncFromSyncIterator are used. Both must give the same jobs in the same order:
/// the ticks at which each read settles, and every `then` lookup an `Object.prototype.then`
/// getter sees (on the iterator results, twice per value, and on the read results).
#[test]
fn sync_iterable_pulls_take_the_same_jobs_with_and_without_script_seeing_the_promises() {
    let script = |patch_then: bool| {
        format!(
            "var ticks = 0, wrapperCalls = 0;
             if ({patch_then}) {{
               const original = Promise.prototype.then;
               Promise.prototype.then = function (f, r) {{ wrapperCalls++; return original.call(this, f, r); }};
             }}
             Object.defineProperty(Object.prototype, 'then', {{
               get() {{
                 if ('done' in this) log.push(`then@${{ticks}}:${{String(this.value)}}/${{this.done}}`);
                 return undefined;
               }},
               configurable: true,
             }});
             const loop = () => {{ ticks++; if (ticks < 200) queueMicrotask(loop); }};
             queueMicrotask(loop);
             const thenable = {{ then(resolve) {{ log.push(`thenable@${{ticks}}`); resolve('t'); }} }};
             const r = ReadableStream.from(['a', {{ k: 1 }}, thenable, 'z']).getReader();
             for (let i = 0; i < 5; i++) {{
               r.read().then(v => log.push(`read@${{ticks}}:${{String(v.value)}}/${{v.done}}`));
             }}
             const rejecting = {{
               i: 0,
               [Symbol.iterator]() {{ return this; }},
               next() {{
                 this.i++;
                 return this.i === 1
                   ? {{ value: {{ then(_, reject) {{ log.push(`reject@${{ticks}}`); reject('bad'); }} }}, done: false }}
                   : {{ value: 'never', done: false }};
               }},
               return() {{ log.push(`return@${{ticks}}`); return {{}}; }},
             }};
             ReadableStream.from(rejecting).getReader().read()
               .then(null, e => log.push(`error@${{ticks}}:${{e}}`));
             queueMicrotask(() => {{ if (wrapperCalls > 0) log.push('wrapped'); }});"
        )
    };
    let fast = run(&script(false));
    let slow = run(&script(true));
    assert!(fast.contains("read@"), "{fast}");
    assert!(fast.contains("then@"), "{fast}");
    assert!(
        fast.contains("return@") && fast.contains("error@"),
        "{fast}"
    );
    assert!(slow.contains("wrapped"), "{slow}");
    assert!(!fast.contains("wrapped"), "{fast}");
    assert_eq!(fast, slow.replace(" wrapped", "").replace("wrapped ", ""));
}

/// The same for async iterables: a generator's promises, an iterator's own `Promise.resolve`
/// results, and a promise with an own `then` (which always takes the JS path): the reads and the
/// `then` lookups on their results take the same jobs whether or not script wrapped
/// `Promise.prototype.then`.
#[test]
fn async_iterable_pulls_take_the_same_jobs_with_and_without_script_seeing_the_promises() {
    let script = |patch_then: bool| {
        format!(
            "var ticks = 0, wrapperCalls = 0;
             const original = Promise.prototype.then;
             if ({patch_then}) {{
               Promise.prototype.then = function (f, r) {{ wrapperCalls++; return original.call(this, f, r); }};
             }}
             Object.defineProperty(Object.prototype, 'then', {{
               get() {{
                 if ('done' in this) log.push(`then@${{ticks}}:${{String(this.value)}}/${{this.done}}`);
                 return undefined;
               }},
               configurable: true,
             }});
             const loop = () => {{ ticks++; if (ticks < 300) queueMicrotask(loop); }};
             queueMicrotask(loop);
             async function* gen() {{ yield 'g1'; yield {{ then(r) {{ log.push(`thenable@${{ticks}}`); r('g2'); }} }}; }}
             let i = 0;
             const own = {{
               [Symbol.asyncIterator]() {{ return this; }},
               next() {{
                 i++;
                 if (i === 1) return Promise.resolve({{ value: 'o1', done: false }});
                 if (i === 2) {{
                   const p = Promise.resolve({{ value: 'o2', done: false }});
                   p.then = function (f, r) {{ log.push(`own then@${{ticks}}`); return original.call(this, f, r); }};
                   return p;
                 }}
                 return Promise.resolve({{ value: undefined, done: true }});
               }},
             }};
             for (const [name, iterable] of [['gen', gen()], ['own', own]]) {{
               const r = ReadableStream.from(iterable).getReader();
               for (let k = 0; k < 4; k++) {{
                 r.read().then(v => log.push(`${{name}}@${{ticks}}:${{String(v.value)}}/${{v.done}}`));
               }}
             }}
             queueMicrotask(() => {{ if (wrapperCalls > 0) log.push('wrapped'); }});"
        )
    };
    let fast = run(&script(false));
    let slow = run(&script(true));
    assert!(fast.contains("gen@") && fast.contains("own@"), "{fast}");
    assert!(fast.contains("own then@"), "{fast}");
    assert!(
        slow.contains("wrapped") && !fast.contains("wrapped"),
        "{fast}\n{slow}"
    );
    assert_eq!(fast, slow.replace(" wrapped", "").replace("wrapped ", ""));
}

#[test]
fn dropped_stream_cycles_are_collected() {
    run_test_actions([
        TestAction::run(
            r#"
        globalThis.refs = [];
        (function () {
          for (let i = 0; i < 200; i++) {
            // A stream with a reader and a pending read (stream <-> controller <-> reader <-> promise).
            const rs = new ReadableStream({ pull() {} });
            const reader = rs.getReader();
            reader.read();
            refs.push(new WeakRef(rs));
            refs.push(new WeakRef(reader));
            // A tee whose branches both hold the tee state, which holds the source stream.
            const [b1, b2] = new ReadableStream({ start(c) { c.enqueue(i); } }).tee();
            b1.getReader().read();
            refs.push(new WeakRef(b1));
            refs.push(new WeakRef(b2));
            // An async iterator with an ongoing next().
            const it = new ReadableStream()[Symbol.asyncIterator]();
            it.next();
            refs.push(new WeakRef(it));
            // ReadableStream.from over a never-ending iterator.
            const from = ReadableStream.from({ [Symbol.iterator]() { return { next() { return { value: 1, done: false }; } }; } });
            from.getReader().read();
            refs.push(new WeakRef(from));
          }
        })();
        "#,
        ),
        TestAction::assert_collected("stream objects survived a collection"),
    ]);
}

#[test]
fn callbacks_may_reenter_the_same_stream() {
    run_test_actions([
        TestAction::run(
            r#"
        globalThis.failures = [];
        const check = (name, f) => { try { f(); } catch (e) { log.push(`${name}: ${e && e.name}`); } };

        // Getters on the source and strategy dictionaries touching the stream-to-be and others.
        let captured;
        const other = new ReadableStream();
        const strategy = {
          get highWaterMark() { check('hwm getter', () => other.getReader().releaseLock()); return 2; },
          get size() { return (chunk) => { if (chunk === 'a') check('size', () => captured.enqueue('from size')); check('size desiredSize', () => captured.desiredSize); return 1; }; },
        };
        const source = {
          get start() {
            return (c) => {
              captured = c;
              c.enqueue('a');
              check('start error+enqueue', () => { c.enqueue('b'); });
            };
          },
          get pull() {
            return (c) => {
              c.enqueue('pulled');
              check('pull close', () => c.close());
              check('pull enqueue after close', () => c.enqueue('x'));
            };
          },
          get cancel() { return (reason) => { check('cancel reenter', () => rs.cancel('again')); log.push('cancel ' + reason); }; },
        };
        const rs = new ReadableStream(source, strategy);
        globalThis.rs = rs;
        (async () => {
          const reader = rs.getReader();
          const chunks = [];
          for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            chunks.push(value);
          }
          log.push('chunks ' + chunks.join(','));
        })().catch(e => failures.push(String(e)));

        // A size() that errors the stream while the chunk is being sized, and one that cancels it.
        let c2;
        const rs2 = new ReadableStream({ start(c) { c2 = c; } }, { size() { c2.error(new Error('boom')); return 1; } });
        check('enqueue with erroring size', () => c2.enqueue('z'));
        rs2.getReader().closed.catch(e => log.push('rs2 ' + e.message));

        let c3;
        const rs3 = new ReadableStream({ start(c) { c3 = c; }, cancel() { c3.close === undefined; } }, { size() { rs3.cancel('in size'); return 1; } });
        check('enqueue with cancelling size', () => c3.enqueue('y'));

        // Reader methods called from inside read resolution (then getter on Object.prototype).
        const rs4 = new ReadableStream({ start(c) { c.enqueue(1); c.enqueue(2); c.close(); } });
        const r4 = rs4.getReader();
        Object.defineProperty(Object.prototype, 'then', {
          configurable: true,
          get() { delete Object.prototype.then; r4.read(); r4.releaseLock(); return undefined; },
        });
        r4.read().then(r => log.push('rs4 first ' + r.value));

        // Async iterator return() while a next() is in flight, tee of a stream being cancelled.
        const it = new ReadableStream({ pull(c) { c.enqueue(1); } }).values();
        it.next(); it.return('stop').then(r => log.push('return done ' + r.done));
        const [t1, t2] = new ReadableStream({ cancel(r) { log.push('tee cancel ' + r.length); } }).tee();
        t1.cancel('x'); t2.cancel('y');
        "#,
        ),
        TestAction::assert_eq("failures.length", 0),
        TestAction::inspect_context(|ctx| {
            let log = eval(ctx, "log.join('\\n')");
            let log = log
                .as_string()
                .map(|s| s.to_std_string_escaped())
                .unwrap_or_default();
            for expected in [
                "chunks from size,a,b,pulled",
                "rs2 boom",
                "rs4 first 1",
                "return done true",
                "tee cancel 2",
            ] {
                assert!(
                    log.contains(expected),
                    "missing {expected:?} in log:\n{log}"
                );
            }
        }),
    ]);
}

/// An interface object's [[Construct]] takes its prototype from NewTarget
/// (GetPrototypeFromConstructor): its own `prototype` when NewTarget is the interface object
/// itself, a subclass's, a constructor's whose `prototype` is an object (read through a proxy,
/// once), and the current realm's interface prototype when NewTarget's `prototype` is not an
/// object.
#[test]
fn constructors_take_the_prototype_from_new_target() {
    run_test_actions([TestAction::assert_string(
        r"(() => {
            const out = [];
            for (const C of [ReadableStream, WritableStream, TransformStream, Response, Request, Headers, URL, Blob, TextEncoder]) {
              const arg = C === Request || C === URL ? ['http://a/'] : [];
              const plain = new C(...arg);
              class Sub extends C {}
              const sub = new Sub(...arg);
              let reads = 0;
              const proto = Object.create(C.prototype);
              const F = new Proxy(function () {}, {
                get(target, key) { if (key === 'prototype') { reads++; return proto; } return Reflect.get(target, key); },
              });
              const viaGetter = Reflect.construct(C, arg, F);
              function G() {}
              G.prototype = 7;
              const fallback = Reflect.construct(C, arg, G);
              out.push(Object.getPrototypeOf(plain) === C.prototype &&
                Object.getPrototypeOf(sub) === Sub.prototype && sub instanceof C &&
                Object.getPrototypeOf(viaGetter) === proto && reads === 1 &&
                Object.getPrototypeOf(fallback) === C.prototype);
            }
            return out.join();
        })()",
        "true,true,true,true,true,true,true,true,true",
    )]);
}
