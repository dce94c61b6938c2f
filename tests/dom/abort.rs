//! AbortController / AbortSignal: shapes, abort order, any(), timeout(), the Rust API.

use std::cell::RefCell;

use crate::support::dom::{capture_reports, run_dom_actions};
use crate::support::script::TestAction;
use crate::support::{eval_string, evaluate, global, set_global, text};
use boa_streams::dom::{
    add_abort_algorithm, is_abort_signal, new_abort_signal, remove_abort_algorithm, signal_abort,
    signal_is_aborted, signal_reason, AbortAlgorithmHandle,
};
use boa_streams::host::{test_api, Context};
use boa_streams::{JsResult, JsString, Object, Value};

#[test]
fn interface_shapes() {
    run_dom_actions([TestAction::check(
        r#"
        for (const n of ['AbortController', 'AbortSignal'])
          eq(flags(desc(globalThis, n)), 'w-c', n + ' global flags');
        eq(AbortController.length, 0, 'controller length');
        eq(AbortSignal.length, 0, 'signal length');
        eq(AbortSignal.name, 'AbortSignal', 'signal name');
        eq(Object.getPrototypeOf(AbortSignal), EventTarget, 'AbortSignal inherits EventTarget');
        eq(Object.getPrototypeOf(AbortSignal.prototype), EventTarget.prototype, 'prototype chain');
        eq(Object.getPrototypeOf(AbortController.prototype), Object.prototype, 'controller prototype chain');
        accessorShape(AbortController.prototype, 'signal', false);
        operationShape(AbortController.prototype, 'abort', 0);
        accessorShape(AbortSignal.prototype, 'aborted', false);
        accessorShape(AbortSignal.prototype, 'reason', false);
        accessorShape(AbortSignal.prototype, 'onabort', true);
        operationShape(AbortSignal.prototype, 'throwIfAborted', 0);
        operationShape(AbortSignal, 'abort', 0);
        operationShape(AbortSignal, 'timeout', 1);
        operationShape(AbortSignal, 'any', 1);
        const c = new AbortController();
        eq(Object.prototype.toString.call(c), '[object AbortController]', 'controller tag');
        eq(Object.prototype.toString.call(c.signal), '[object AbortSignal]', 'signal tag');
        ok(c.signal instanceof AbortSignal && c.signal instanceof EventTarget, 'instanceof');
        eq(c.signal, c.signal, '[SameObject] signal');
        eq(c.signal.aborted, false, 'not aborted');
        eq(c.signal.reason, undefined, 'no reason');
        eq(c.signal.onabort, null, 'onabort null');
        throws(TypeError, () => new AbortSignal(), 'new AbortSignal');
        throws(TypeError, () => AbortSignal(), 'AbortSignal()');
        throws(TypeError, () => AbortController(), 'AbortController()');
        class Sub extends AbortSignal {}
        throws(TypeError, () => new Sub(), 'subclass of AbortSignal');
        "#,
    )]);
}

#[test]
fn brand_checks() {
    run_dom_actions([TestAction::check(
        r#"
        const fake = Object.create(AbortSignal.prototype);
        const et = new EventTarget();
        for (const name of ['aborted', 'reason', 'onabort']) {
          const get = desc(AbortSignal.prototype, name).get;
          throws(TypeError, () => get.call(fake), name + ' on Object.create');
          throws(TypeError, () => get.call(et), name + ' on EventTarget');
          throws(TypeError, () => get.call(undefined), name + ' on undefined');
        }
        throws(TypeError, () => desc(AbortSignal.prototype, 'onabort').set.call(et, null), 'onabort setter');
        throws(TypeError, () => AbortSignal.prototype.throwIfAborted.call(fake), 'throwIfAborted');
        throws(TypeError, () => AbortController.prototype.abort.call({}), 'controller abort');
        throws(TypeError, () => desc(AbortController.prototype, 'signal').get.call({}), 'controller signal');
        throws(TypeError, () => fake.addEventListener('abort', () => {}), 'EventTarget brand on fake');
        // A signal is an EventTarget for the EventTarget methods.
        const s = new AbortController().signal;
        let hit = 0;
        EventTarget.prototype.addEventListener.call(s, 'custom', () => hit++);
        s.dispatchEvent(new Event('custom'));
        eq(hit, 1, 'EventTarget methods work on signals');
        "#,
    )]);
}

#[test]
fn abort_basics() {
    run_dom_actions([TestAction::check(
        r#"
        let c = new AbortController();
        c.abort();
        eq(c.signal.aborted, true, 'aborted');
        ok(c.signal.reason instanceof DOMException, 'default reason is a DOMException');
        eq(c.signal.reason.name, 'AbortError', 'default reason name');
        eq(c.signal.reason.code, 20, 'default reason code');
        const first = c.signal.reason;
        c.abort(new Error('later'));
        eq(c.signal.reason, first, 'second abort ignored');

        for (const reason of [null, 0, '', false, new Error('x'), Symbol('s')]) {
          c = new AbortController();
          c.abort(reason);
          eq(c.signal.reason, reason, 'reason identity: ' + String(reason));
          let thrown;
          try { c.signal.throwIfAborted(); } catch (e) { thrown = e; }
          eq(thrown, reason, 'throwIfAborted throws the reason');
        }
        c = new AbortController();
        c.abort(undefined);
        eq(c.signal.reason.name, 'AbortError', 'undefined reason');
        c = new AbortController();
        eq(c.signal.throwIfAborted(), undefined, 'throwIfAborted when not aborted');

        let s = AbortSignal.abort();
        ok(s instanceof AbortSignal, 'AbortSignal.abort() result');
        eq(s.aborted, true, 'AbortSignal.abort() aborted');
        eq(s.reason.name, 'AbortError', 'AbortSignal.abort() reason');
        ok(AbortSignal.abort() !== AbortSignal.abort(), '[NewObject]');
        const r = {};
        eq(AbortSignal.abort(r).reason, r, 'AbortSignal.abort(reason)');
        eq(AbortSignal.abort(undefined).reason.name, 'AbortError', 'AbortSignal.abort(undefined)');
        "#,
    )]);
}

#[test]
fn abort_event() {
    run_dom_actions([TestAction::check(
        r#"
        const c = new AbortController();
        const s = c.signal;
        const log = [];
        let seen;
        s.addEventListener('abort', e => {
          seen = e;
          log.push('listener1');
          eq(s.aborted, true, 'aborted during event');
          eq(e.type, 'abort', 'type');
          eq(e.target, s, 'target');
          eq(e.currentTarget, s, 'currentTarget');
          eq(e.isTrusted, true, 'isTrusted');
          eq(e.bubbles, false, 'bubbles');
          eq(e.cancelable, false, 'cancelable');
          ok(e instanceof Event, 'instanceof Event');
        });
        function handler(e) { log.push('onabort'); eq(this, s, 'onabort this'); }
        s.onabort = handler;
        eq(s.onabort, handler, 'onabort getter');
        s.addEventListener('abort', () => log.push('once'), { once: true });
        s.addEventListener('abort', () => log.push('listener2'));
        c.abort();
        log.push('after');
        eq(log.join(), 'listener1,onabort,once,listener2,after', 'synchronous, in registration order');
        ok(seen instanceof Event, 'event seen');
        c.abort();
        eq(log.join(), 'listener1,onabort,once,listener2,after', 'fires once');

        // onabort keeps its position when reassigned; null removes it.
        const c2 = new AbortController();
        const log2 = [];
        c2.signal.onabort = () => log2.push('h1');
        c2.signal.addEventListener('abort', () => log2.push('l'));
        c2.signal.onabort = () => log2.push('h2');
        c2.abort();
        eq(log2.join(), 'h2,l', 'handler keeps its position');
        const c3 = new AbortController();
        const log3 = [];
        c3.signal.onabort = () => log3.push('h');
        c3.signal.onabort = null;
        eq(c3.signal.onabort, null, 'null handler');
        c3.signal.addEventListener('abort', () => log3.push('l'));
        c3.signal.onabort = 5;
        eq(c3.signal.onabort, null, 'primitive becomes null');
        const obj = {};
        c3.signal.onabort = obj;
        eq(c3.signal.onabort, obj, 'non-callable object kept');
        c3.abort();
        eq(log3.join(), 'l', 'removed/non-callable handlers do not run');

        // addEventListener's signal option removes the listener on abort.
        const target = new EventTarget();
        const ac = new AbortController();
        const log4 = [];
        target.addEventListener('x', () => log4.push('x'), { signal: ac.signal });
        target.dispatchEvent(new Event('x'));
        ac.abort();
        target.dispatchEvent(new Event('x'));
        eq(log4.join(), 'x', 'listener removed by signal');
        target.addEventListener('x', () => log4.push('y'), { signal: ac.signal });
        target.dispatchEvent(new Event('x'));
        eq(log4.join(), 'x', 'aborted signal: listener not added');
        target.addEventListener('x', () => log4.push('z'), { signal: AbortSignal.abort() });
        target.dispatchEvent(new Event('x'));
        eq(log4.join(), 'x', 'AbortSignal.abort() signal: listener not added');
        "#,
    )]);
}

#[test]
fn reentrancy() {
    run_dom_actions([
        TestAction::inspect_context(capture_reports),
        TestAction::check(
            r#"
        const c = new AbortController();
        const log = [];
        function other() { log.push('other'); }
        c.signal.addEventListener('abort', () => {
          log.push('first');
          c.abort('again');
          c.signal.removeEventListener('abort', other);
          c.signal.addEventListener('abort', () => log.push('added'));
          c.signal.onabort = () => log.push('handler');
        });
        c.signal.addEventListener('abort', other);
        c.signal.addEventListener('abort', () => { throw new Error('listener error'); });
        c.signal.addEventListener('abort', () => log.push('last'));
        c.abort('reason');
        eq(log.join(), 'first,last', 'reentrant abort/remove/add');
        eq(c.signal.reason, 'reason', 'first reason kept');
        const reports = takeReports();
        eq(reports.length, 1, 'one report');
        eq(reports[0], 'Error: listener error', 'report');

        // A listener of one signal aborting another, and dispatching on the signal.
        const a = new AbortController(), b = new AbortController();
        const order = [];
        a.signal.onabort = () => { order.push('a'); b.abort(); b.abort(); a.abort(); };
        b.signal.onabort = () => { order.push('b'); a.signal.dispatchEvent(new Event('abort')); };
        a.abort();
        eq(order.join(), 'a,b,a', 'nested aborts and dispatches');
        "#,
        ),
    ]);
}

#[test]
fn any() {
    run_dom_actions([TestAction::check(
        r#"
        const a = new AbortController(), b = new AbortController();
        const any = AbortSignal.any([a.signal, b.signal]);
        ok(any instanceof AbortSignal, 'instance');
        eq(any.aborted, false, 'not aborted');
        const log = [];
        a.signal.onabort = () => log.push('a');
        b.signal.onabort = () => log.push('b');
        any.onabort = e => { log.push('any'); eq(any.reason, 'why', 'reason set before event'); };
        b.abort('why');
        eq(any.aborted, true, 'aborted');
        eq(any.reason, 'why', 'reason identity');
        eq(log.join(), 'b,any', 'source event first, then dependent');
        a.abort('later');
        eq(any.reason, 'why', 'first reason kept');
        eq(log.join(), 'b,any,a', 'dependent not aborted twice');

        // Already aborted input.
        const aborted = AbortSignal.abort('pre');
        const r = AbortSignal.any([new AbortController().signal, aborted]);
        eq(r.aborted, true, 'already aborted');
        eq(r.reason, 'pre', 'takes the reason');

        // Empty and iterables.
        eq(AbortSignal.any([]).aborted, false, 'empty');
        const c = new AbortController();
        const fromSet = AbortSignal.any(new Set([c.signal, c.signal]));
        c.abort(1);
        eq(fromSet.reason, 1, 'any(Set)');
        throws(TypeError, () => AbortSignal.any(), 'no argument');
        throws(TypeError, () => AbortSignal.any(5), 'not iterable');
        throws(TypeError, () => AbortSignal.any({}), 'object without iterator');
        throws(TypeError, () => AbortSignal.any([{}]), 'non-signal element');
        throws(TypeError, () => AbortSignal.any([Object.create(AbortSignal.prototype)]), 'fake signal element');

        // any() of a dependent signal links to its sources.
        const s1 = new AbortController(), s2 = new AbortController();
        const dep = AbortSignal.any([s1.signal]);
        const dep2 = AbortSignal.any([dep, s2.signal]);
        const order = [];
        dep.onabort = () => order.push('dep');
        dep2.onabort = () => order.push('dep2');
        s1.abort('s1');
        eq(dep2.reason, 's1', 'nested any');
        eq(order.join(), 'dep,dep2', 'dependents in creation order');

        // Dependents are aborted with reasons set before any event runs.
        const base = new AbortController();
        const d1 = AbortSignal.any([base.signal]);
        const d2 = AbortSignal.any([base.signal]);
        let seen;
        base.signal.onabort = () => { seen = [d1.aborted, d2.aborted, String(d2.reason)]; };
        base.abort('x');
        eq(seen.join(), 'true,true,x', 'dependent reasons set first');
        "#,
    )]);
}

#[test]
fn timeout() {
    run_dom_actions([
        TestAction::check(
            r#"
        throws(TypeError, () => AbortSignal.timeout(), 'no argument');
        throws(TypeError, () => AbortSignal.timeout(-1), 'negative');
        throws(TypeError, () => AbortSignal.timeout(NaN), 'NaN');
        throws(TypeError, () => AbortSignal.timeout(Infinity), 'Infinity');
        throws(TypeError, () => AbortSignal.timeout(2 ** 53), 'too large');
        var timed = AbortSignal.timeout(5);
        var zero = AbortSignal.timeout(-0.5);
        var timeoutLog = [];
        timed.onabort = e => timeoutLog.push(e.type);
        eq(timed.aborted, false, 'not aborted synchronously');
        eq(zero.aborted, false, 'zero not aborted synchronously');
        "#,
        ),
        // `check` ran the jobs (Boa's default executor waits for the timers).
        TestAction::check(
            r#"
        eq(timed.aborted, true, 'aborted after the timer');
        ok(timed.reason instanceof DOMException, 'reason is a DOMException');
        eq(timed.reason.name, 'TimeoutError', 'TimeoutError');
        eq(timed.reason.code, 23, 'code');
        eq(timeoutLog.join(), 'abort', 'abort event fired');
        eq(zero.aborted, true, 'zero timeout aborted');
        "#,
        ),
    ]);
}

// ----- Rust API -----

/// `array.push(item)`.
fn push(array: &Object, item: &str, ctx: &mut Context) -> JsResult<()> {
    let push = array.get("push", ctx)?;
    let push = push.as_object().expect("Array.prototype.push");
    push.call(
        &Value::from(array.clone()),
        &[Value::from(JsString::from(item))],
        ctx,
    )?;
    Ok(())
}

fn log_step(data: &Object, ctx: &mut Context) -> JsResult<()> {
    // `data` is a JS array: record that the algorithm ran, and whether listeners already ran.
    push(data, "algorithm", ctx)
}

thread_local! {
    static TO_REMOVE: RefCell<Option<(Object, AbortAlgorithmHandle)>> = const { RefCell::new(None) };
}

fn removing_step(data: &Object, ctx: &mut Context) -> JsResult<()> {
    push(data, "remover", ctx)?;
    if let Some((signal, handle)) = TO_REMOVE.with(|t| t.borrow_mut().take()) {
        remove_abort_algorithm(&signal, handle);
        // Aborting again from an algorithm is a no-op.
        signal_abort(&signal, JsString::from("ignored").into(), ctx)?;
    }
    Ok(())
}

/// The shared `log` array, which the abort algorithms of these tests push to.
fn shared_log(ctx: &mut Context) -> Object {
    global(ctx, "log").as_object().expect("the shared log")
}

/// The global `sig`, the signal these tests made in Rust.
fn sig(ctx: &mut Context) -> Object {
    global(ctx, "sig").as_object().expect("the signal")
}

#[test]
fn rust_algorithms_run_before_listeners() {
    run_dom_actions([
        TestAction::inspect_context(|ctx| {
            let signal = new_abort_signal(ctx).expect("signal");
            assert!(is_abort_signal(&signal.clone().into()));
            assert!(!is_abort_signal(&boa_streams::Value::undefined()));
            assert!(!signal_is_aborted(&signal));
            assert!(signal_reason(&signal).is_undefined());
            set_global(ctx, "sig", signal.clone());
            let log_object = shared_log(ctx);
            let removed = add_abort_algorithm(&signal, log_object.clone(), log_step);
            remove_abort_algorithm(&signal, removed);
            let _remover = add_abort_algorithm(&signal, log_object.clone(), removing_step);
            let _kept = add_abort_algorithm(&signal, log_object.clone(), log_step);
            let later = add_abort_algorithm(&signal, log_object, log_step);
            TO_REMOVE.with(|t| *t.borrow_mut() = Some((signal.clone(), later)));
        }),
        TestAction::run("sig.addEventListener('abort', () => log.push('listener:' + sig.reason));"),
        TestAction::inspect_context(|ctx| {
            let signal = sig(ctx);
            test_api::collect_garbage(ctx);
            signal_abort(&signal, JsString::from("why").into(), ctx).expect("abort");
            assert!(signal_is_aborted(&signal));
        }),
        TestAction::assert_log("remover,algorithm,listener:why"),
        // Algorithms added after abort never run.
        TestAction::inspect_context(|ctx| {
            let signal = sig(ctx);
            let _ = add_abort_algorithm(&signal, shared_log(ctx), log_step);
            signal_abort(&signal, boa_streams::Value::undefined(), ctx).expect("abort again");
        }),
        TestAction::assert_log("remover,algorithm,listener:why"),
        TestAction::inspect_context(|ctx| {
            let signal = sig(ctx);
            assert_eq!(text(&signal_reason(&signal), ctx), "why");
        }),
    ]);
}

#[test]
fn rust_signal_abort_default_reason_and_dependents() {
    run_dom_actions([
        TestAction::inspect_context(|ctx| {
            let signal = new_abort_signal(ctx).expect("signal");
            set_global(ctx, "sig", signal);
        }),
        TestAction::run(
            "var dep = AbortSignal.any([sig]); var seen = []; dep.onabort = () => seen.push(dep.reason === sig.reason);",
        ),
        TestAction::inspect_context(|ctx| {
            let signal = sig(ctx);
            signal_abort(&signal, boa_streams::Value::undefined(), ctx).expect("abort");
        }),
        TestAction::assert_string(
            "[sig.reason instanceof DOMException, sig.reason.name, dep.aborted, seen.join()].join()",
            "true,AbortError,true,true",
        ),
        // Not a signal: everything is a no-op.
        TestAction::inspect_context(|ctx| {
            let plain = Object::with_null_proto(ctx);
            assert!(!signal_is_aborted(&plain));
            let h = add_abort_algorithm(&plain, plain.clone(), log_step);
            remove_abort_algorithm(&plain, h);
            signal_abort(&plain, boa_streams::Value::undefined(), ctx).expect("no-op");
        }),
    ]);
}

#[test]
fn gc_with_pending_listeners_and_algorithms() {
    run_dom_actions([
        TestAction::inspect_context(|ctx| {
            let signal = new_abort_signal(ctx).expect("signal");
            let data = evaluate(ctx, "[]").as_object().expect("an array");
            add_abort_algorithm(&signal, data.clone(), log_step);
            set_global(ctx, "sig", signal.clone());
            evaluate(
                ctx,
                r#"
        var hits = 0;
        for (let i = 0; i < 200; i++) {
          const c = new AbortController();
          AbortSignal.any([c.signal, sig]).addEventListener('abort', () => hits++);
          const t = new EventTarget();
          t.addEventListener('x', () => {}, { signal: sig });
        }
        "#,
            );
            drop(data);
            test_api::collect_garbage(ctx);
            signal_abort(&signal, boa_streams::Value::undefined(), ctx).expect("abort");
            test_api::collect_garbage(ctx);
        }),
        TestAction::assert_string("hits", "200"),
        TestAction::assert_string("String(sig.aborted)", "true"),
    ]);
}

fn failing_step(_: &Object, ctx: &mut Context) -> JsResult<()> {
    test_api::evaluate(ctx, "throw new TypeError('algorithm failed')").map(drop)
}

#[test]
fn errors_from_algorithms_and_engine_limits() {
    run_dom_actions([
        TestAction::inspect_context(capture_reports),
        TestAction::inspect_context(|ctx| {
            let signal = new_abort_signal(ctx).expect("signal");
            let log = shared_log(ctx);
            add_abort_algorithm(&signal, log.clone(), failing_step);
            add_abort_algorithm(&signal, log, log_step);
            set_global(ctx, "sig", signal);
        }),
        TestAction::run("sig.addEventListener('abort', () => log.push('listener'));"),
        TestAction::inspect_context(|ctx| {
            let signal = sig(ctx);
            let result = signal_abort(&signal, boa_streams::Value::undefined(), ctx);
            assert!(result.is_err(), "the algorithm's error is returned");
        }),
        TestAction::assert_log("algorithm,listener"),
        // A listener that hits the recursion limit: no panic, the state is reset.
        TestAction::inspect_context(|ctx| {
            let result = test_api::evaluate(
                ctx,
                r#"
        var c = new AbortController();
        var events = [];
        c.signal.addEventListener('abort', e => { events.push(e); (function r() { r(); })(); });
        c.signal.addEventListener('abort', () => events.push('second'));
        try { c.abort(); } catch (e) {}
        "#,
            );
            let _ = result;
            let _ = test_api::run_script(ctx, "");
            let state = eval_string(
                ctx,
                "String([c.signal.aborted, events.length > 0 && events[0].eventPhase, takeReports().length])",
            );
            println!("state after recursion limit: {state}");
            assert!(state.starts_with("true,0,"), "{state}");
        }),
    ]);
}
