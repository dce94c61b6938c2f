//! `ReadableStream.from(async_sequence<any>)`: WebIDL's conversion to an async sequence, "open
//! an async sequence", "get the next value" and "close an async iterator" (whatwg/streams
//! 2999707).

mod support;

use support::host::{eval_string, run_script};

/// Evaluates `source` (which fills the global `log`), runs to idle, and returns `log` joined
/// by spaces.
fn run(source: &str) -> String {
    let (host, mut ctx) = run_script(&format!("var log = [];\n{source}"));
    eval_string(&host, &mut ctx, "log.join(' ')")
}

#[test]
fn primitives_strings_included_are_type_errors() {
    assert_eq!(
        run(
            "for (const v of ['ab', '', 1, true, null, undefined, Symbol('s'), 10n]) {
               try { ReadableStream.from(v); log.push('accepted'); }
               catch (e) { log.push(e.constructor.name); }
             }"
        ),
        "TypeError TypeError TypeError TypeError TypeError TypeError TypeError TypeError"
    );
    // A String object is an object with @@iterator: it is iterated.
    assert_eq!(
        run("(async () => {
               for await (const c of ReadableStream.from(new String('ab'))) log.push(c);
             })();"),
        "a b"
    );
}

#[test]
fn async_iterator_method_is_looked_up_before_the_sync_one() {
    assert_eq!(
        run("const o = {
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
             try { ReadableStream.from({}); } catch (e) { log.push(e.name); }"),
        "get @@asyncIterator get @@iterator async TypeError TypeError"
    );
}

#[test]
fn a_sync_iterable_is_opened_through_async_from_sync_and_its_values_awaited() {
    assert_eq!(
        run("(async () => {
               const r = ReadableStream.from([Promise.resolve('p'), 'v']).getReader();
               log.push((await r.read()).value, (await r.read()).value, (await r.read()).done);
             })();"),
        "p v true"
    );
}

/// "Get the next value" resolves its derived promise with the iterator result's value, so a
/// thenable value is adopted before it is enqueued (the reference implementation's webidl2js
/// emulation enqueues the thenable itself).
#[test]
fn a_thenable_value_is_adopted_before_it_is_enqueued() {
    assert_eq!(
        run("const it = { [Symbol.asyncIterator]() {
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
             })();"),
        "then1 v1 then2 v2"
    );
}

#[test]
fn cancel_closes_the_iterator_with_the_reason() {
    assert_eq!(
        run("const it = { [Symbol.asyncIterator]() { return {
               next() { return { value: 1, done: false }; },
               return(reason) { log.push('return:' + reason); return {}; },
             }; } };
             const rs = ReadableStream.from(it);
             rs.cancel('why').then(v => log.push('cancelled:' + v));
             const bad = { [Symbol.asyncIterator]() { return {
               next() { return { value: 1, done: false }; },
               return() { return 1; },
             }; } };
             ReadableStream.from(bad).cancel().catch(e => log.push(e.name));"),
        "return:why cancelled:undefined TypeError"
    );
}
