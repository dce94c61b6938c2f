//! Event and EventTarget: shapes, brand checks, at-target dispatch, listener options.

use crate::support::dom::{capture_reports, run_dom_actions};
use crate::support::script::TestAction;

#[test]
fn event_interface_shape() {
    run_dom_actions([TestAction::check(
        r#"
        eq(flags(desc(globalThis, 'Event')), 'w-c', 'global flags');
        eq(Event.length, 1, 'length');
        eq(Event.name, 'Event', 'name');
        eq(Object.prototype.toString.call(new Event('x')), '[object Event]', 'tag');
        for (const [n, v] of [['NONE', 0], ['CAPTURING_PHASE', 1], ['AT_TARGET', 2], ['BUBBLING_PHASE', 3]]) {
          eq(desc(Event, n).value, v, n);
          eq(flags(desc(Event, n)), '-e-', n + ' flags');
          eq(desc(Event.prototype, n).value, v, n + ' proto');
        }
        for (const a of ['type', 'target', 'srcElement', 'currentTarget', 'eventPhase', 'bubbles',
                         'cancelable', 'defaultPrevented', 'composed', 'timeStamp'])
          accessorShape(Event.prototype, a, false);
        accessorShape(Event.prototype, 'cancelBubble', true);
        accessorShape(Event.prototype, 'returnValue', true);
        operationShape(Event.prototype, 'composedPath', 0);
        operationShape(Event.prototype, 'stopPropagation', 0);
        operationShape(Event.prototype, 'stopImmediatePropagation', 0);
        operationShape(Event.prototype, 'preventDefault', 0);
        operationShape(Event.prototype, 'initEvent', 1);
        ok(!('isTrusted' in Event.prototype), 'isTrusted not on prototype');
        const e = new Event('x');
        const d = desc(e, 'isTrusted');
        ok(d !== undefined, 'own isTrusted');
        eq(typeof d.get, 'function', 'isTrusted getter');
        eq(d.set, undefined, 'isTrusted setter');
        eq(d.enumerable, true, 'isTrusted enumerable');
        eq(d.configurable, false, 'isTrusted configurable');
        eq(e.isTrusted, false, 'isTrusted value');
        throws(TypeError, () => d.get.call({}), 'isTrusted brand check');
        throws(TypeError, () => new Event(), 'missing type');
        throws(TypeError, () => Event('x'), 'call without new');
        throws(TypeError, () => new Event('x', 5), 'non-dictionary init');
        throws(TypeError, () => Event.prototype.type, 'type on prototype');
        throws(TypeError, () => Event.prototype.preventDefault.call({}), 'preventDefault brand check');
        throws(TypeError, () => desc(Event.prototype, 'cancelBubble').set.call({}, true), 'setter brand check');
        throws(TypeError, () => desc(Event.prototype, 'cancelBubble').set.call(e), 'setter without argument');
        "#,
    )]);
}

#[test]
fn event_construction() {
    run_dom_actions([TestAction::check(
        r#"
        let e = new Event('hello');
        eq(e.type, 'hello', 'type');
        eq(e.target, null, 'target');
        eq(e.srcElement, null, 'srcElement');
        eq(e.currentTarget, null, 'currentTarget');
        eq(e.eventPhase, 0, 'eventPhase');
        eq(e.bubbles, false, 'bubbles');
        eq(e.cancelable, false, 'cancelable');
        eq(e.composed, false, 'composed');
        eq(e.defaultPrevented, false, 'defaultPrevented');
        eq(e.returnValue, true, 'returnValue');
        eq(e.cancelBubble, false, 'cancelBubble');
        eq(typeof e.timeStamp, 'number', 'timeStamp');
        ok(e.timeStamp >= 0, 'timeStamp >= 0');
        eq(e.composedPath().length, 0, 'composedPath');
        const order = [];
        e = new Event(1, { get composed() { order.push('composed'); return 1; },
                           get cancelable() { order.push('cancelable'); return 'y'; },
                           get bubbles() { order.push('bubbles'); return {}; } });
        eq(e.type, '1', 'ToString type');
        eq(order.join(), 'bubbles,cancelable,composed', 'dictionary member order');
        ok(e.bubbles && e.cancelable && e.composed, 'init values');
        e = new Event('x', null);
        eq(e.bubbles, false, 'null init');
        e = new Event('x', { cancelable: true });
        e.preventDefault();
        eq(e.defaultPrevented, true, 'preventDefault');
        eq(e.returnValue, false, 'returnValue after preventDefault');
        e = new Event('x');
        e.preventDefault();
        eq(e.defaultPrevented, false, 'not cancelable');
        e = new Event('x', { cancelable: true });
        e.returnValue = false;
        eq(e.defaultPrevented, true, 'returnValue = false cancels');
        e.cancelBubble = true;
        eq(e.cancelBubble, true, 'cancelBubble');
        e.cancelBubble = false;
        eq(e.cancelBubble, true, 'cancelBubble cannot be unset');
        e.initEvent('y', true, true);
        eq(e.type, 'y', 'initEvent type');
        eq(e.bubbles, true, 'initEvent bubbles');
        eq(e.cancelBubble, false, 'initEvent clears stop propagation');
        eq(e.defaultPrevented, false, 'initEvent clears canceled');
        class MyEvent extends Event { constructor() { super('mine'); this.extra = 1; } }
        const m = new MyEvent();
        ok(m instanceof MyEvent && m instanceof Event, 'subclass');
        eq(m.type, 'mine', 'subclass type');
        ok(Object.prototype.hasOwnProperty.call(m, 'isTrusted'), 'subclass isTrusted');
        "#,
    )]);
}

#[test]
fn event_target_shape() {
    run_dom_actions([TestAction::check(
        r#"
        eq(flags(desc(globalThis, 'EventTarget')), 'w-c', 'global flags');
        eq(EventTarget.length, 0, 'length');
        eq(Object.prototype.toString.call(new EventTarget()), '[object EventTarget]', 'tag');
        operationShape(EventTarget.prototype, 'addEventListener', 2);
        operationShape(EventTarget.prototype, 'removeEventListener', 2);
        operationShape(EventTarget.prototype, 'dispatchEvent', 1);
        throws(TypeError, () => EventTarget(), 'call without new');
        const t = new EventTarget();
        throws(TypeError, () => EventTarget.prototype.addEventListener.call({}, 'x', () => {}), 'add brand');
        throws(TypeError, () => EventTarget.prototype.removeEventListener.call({}, 'x', () => {}), 'remove brand');
        throws(TypeError, () => EventTarget.prototype.dispatchEvent.call({}, new Event('x')), 'dispatch brand');
        throws(TypeError, () => t.addEventListener('x'), 'add too few args');
        throws(TypeError, () => t.addEventListener('x', 'notcallable'), 'add primitive callback');
        throws(TypeError, () => t.dispatchEvent({ type: 'x' }), 'dispatch non-event');
        throws(TypeError, () => t.dispatchEvent(), 'dispatch no args');
        throws(TypeError, () => t.addEventListener('x', () => {}, { signal: null }), 'null signal');
        throws(TypeError, () => t.addEventListener('x', () => {}, { signal: {} }), 'bogus signal');
        t.addEventListener('x', null);
        t.addEventListener('x', undefined);
        eq(t.dispatchEvent(new Event('x')), true, 'dispatch without listeners');
        class MyTarget extends EventTarget {}
        const mt = new MyTarget();
        let hit = 0;
        mt.addEventListener('x', () => hit++);
        mt.dispatchEvent(new Event('x'));
        eq(hit, 1, 'subclass dispatch');
        "#,
    )]);
}

#[test]
fn dispatch_basics() {
    run_dom_actions([TestAction::check(
        r#"
        const t = new EventTarget();
        const log = [];
        let e = new Event('ping', { cancelable: true });
        function f(ev) {
          log.push('f');
          eq(this, t, 'function this is currentTarget');
          eq(ev, e, 'event argument');
          eq(ev.target, t, 'target');
          eq(ev.currentTarget, t, 'currentTarget');
          eq(ev.eventPhase, Event.AT_TARGET, 'eventPhase');
          const path = ev.composedPath();
          eq(path.length, 1, 'composedPath length');
          eq(path[0], t, 'composedPath target');
        }
        const obj = { handleEvent(ev) { log.push('obj'); eq(this, obj, 'handleEvent this'); } };
        t.addEventListener('ping', f);
        t.addEventListener('ping', f); // duplicate ignored
        t.addEventListener('ping', obj);
        t.addEventListener('ping', () => log.push('capture'), true);
        t.addEventListener('other', () => log.push('other'));
        eq(t.dispatchEvent(e), true, 'not canceled');
        eq(log.join(), 'capture,f,obj', 'order: capture first, then registration order');
        eq(e.eventPhase, 0, 'phase reset');
        eq(e.currentTarget, null, 'currentTarget reset');
        eq(e.target, t, 'target kept');
        eq(e.composedPath().length, 0, 'path cleared');
        eq(e.isTrusted, false, 'dispatchEvent events are untrusted');

        // Re-dispatch is allowed after dispatch ends.
        log.length = 0;
        t.dispatchEvent(e);
        eq(log.join(), 'capture,f,obj', 'redispatch');

        // removeEventListener matches type, callback and capture.
        log.length = 0;
        t.removeEventListener('ping', f, true);
        t.removeEventListener('ping', obj, { capture: false });
        t.dispatchEvent(e = new Event('ping'));
        eq(log.join(), 'capture,f', 'after remove');
        t.removeEventListener('ping', f, false);
        t.removeEventListener('ping', null);
        log.length = 0;
        t.dispatchEvent(e = new Event('ping'));
        eq(log.join(), 'capture', 'after second remove');

        // Canceling.
        const c = new EventTarget();
        c.addEventListener('x', ev => ev.preventDefault());
        eq(c.dispatchEvent(new Event('x', { cancelable: true })), false, 'canceled');
        eq(c.dispatchEvent(new Event('x')), true, 'not cancelable');
        const p = new EventTarget();
        p.addEventListener('x', ev => { ev.preventDefault(); eq(ev.defaultPrevented, false, 'passive'); }, { passive: true });
        eq(p.dispatchEvent(new Event('x', { cancelable: true })), true, 'passive cannot cancel');
        "#,
    )]);
}

#[test]
fn listener_options_and_propagation() {
    run_dom_actions([TestAction::check(
        r#"
        const t = new EventTarget();
        const log = [];
        t.addEventListener('x', () => log.push('once'), { once: true });
        t.dispatchEvent(new Event('x'));
        t.dispatchEvent(new Event('x'));
        eq(log.join(), 'once', 'once');

        // Options are read in WebIDL order.
        const order = [];
        const opts = {};
        for (const k of ['signal', 'passive', 'once', 'capture'])
          Object.defineProperty(opts, k, { get() { order.push(k); return undefined; } });
        t.addEventListener('y', () => {}, opts);
        eq(order.join(), 'capture,once,passive,signal', 'option order');
        order.length = 0;
        t.removeEventListener('y', () => {}, opts);
        eq(order.join(), 'capture', 'remove reads only capture');

        // stopImmediatePropagation stops the remaining listeners.
        log.length = 0;
        const s = new EventTarget();
        s.addEventListener('x', ev => { log.push('a'); ev.stopImmediatePropagation(); });
        s.addEventListener('x', () => log.push('b'));
        s.dispatchEvent(new Event('x'));
        eq(log.join(), 'a', 'stopImmediatePropagation');

        // stopPropagation in a capturing listener skips the non-capturing ones at target.
        log.length = 0;
        const sp = new EventTarget();
        sp.addEventListener('x', ev => { log.push('cap'); ev.stopPropagation(); }, true);
        sp.addEventListener('x', () => log.push('bub'));
        const ev = new Event('x');
        sp.dispatchEvent(ev);
        eq(log.join(), 'cap', 'stopPropagation');
        eq(ev.cancelBubble, false, 'stop propagation flag reset after dispatch');

        // Listeners added during dispatch do not run; removed ones do not run.
        log.length = 0;
        const r = new EventTarget();
        function late() { log.push('late'); }
        function second() { log.push('second'); }
        r.addEventListener('x', () => { log.push('first'); r.addEventListener('x', late); r.removeEventListener('x', second); });
        r.addEventListener('x', second);
        r.dispatchEvent(new Event('x'));
        eq(log.join(), 'first', 'added/removed during dispatch');
        log.length = 0;
        r.dispatchEvent(new Event('x'));
        eq(log.join(), 'first,late', 'added listener runs next time');

        // Dispatching an event that is being dispatched throws InvalidStateError.
        const d = new EventTarget();
        let inner;
        d.addEventListener('x', ev => {
          try { d.dispatchEvent(ev); } catch (e) { inner = e; }
        });
        d.dispatchEvent(new Event('x'));
        ok(inner instanceof DOMException, 'InvalidStateError is a DOMException');
        eq(inner && inner.name, 'InvalidStateError', 'InvalidStateError name');
        eq(inner && inner.code, 11, 'InvalidStateError code');

        // handleEvent is looked up on every call.
        log.length = 0;
        const h = { handleEvent() { log.push('h1'); this.handleEvent = () => log.push('h2'); } };
        const ht = new EventTarget();
        ht.addEventListener('x', h);
        ht.dispatchEvent(new Event('x'));
        ht.dispatchEvent(new Event('x'));
        eq(log.join(), 'h1,h2', 'handleEvent lookup');
        "#,
    )]);
}

#[test]
fn listener_exceptions_are_reported() {
    run_dom_actions([
        TestAction::inspect_context(capture_reports),
        TestAction::check(
            r#"
        const t = new EventTarget();
        const log = [];
        t.addEventListener('x', () => { log.push('a'); throw new Error('boom'); });
        t.addEventListener('x', {});
        t.addEventListener('x', { handleEvent: 5 });
        t.addEventListener('x', () => { log.push('b'); throw 'plain'; });
        t.addEventListener('x', () => log.push('c'));
        eq(t.dispatchEvent(new Event('x')), true, 'dispatch returns normally');
        eq(log.join(), 'a,b,c', 'all listeners ran');
        const reports = takeReports();
        eq(reports.length, 4, 'four reports');
        eq(reports[0], 'Error: boom', 'first report');
        ok(reports[1].startsWith('TypeError'), 'missing handleEvent is a TypeError: ' + reports[1]);
        ok(reports[2].startsWith('TypeError'), 'non-callable handleEvent is a TypeError: ' + reports[2]);
        eq(reports[3], 'plain', 'thrown primitive');
        "#,
        ),
    ]);
}

#[test]
fn rust_event_api() {
    use crate::support::{evaluate, set_global};
    use boa_streams::dom::{create_event, dispatch_event, is_event, is_event_target};
    use boa_streams::Object;

    run_dom_actions([
        TestAction::inspect_context(|ctx| {
            let target = evaluate(
                ctx,
                "var t = new EventTarget(); var got = []; \
                 t.addEventListener('ready', e => got.push(e.type + ':' + e.isTrusted + ':' + e.cancelable)); t",
            );
            let target: Object = target.as_object().expect("object");
            assert!(is_event_target(&target.clone().into()));
            let event = create_event(ctx, "ready").expect("event");
            assert!(is_event(&event.clone().into()));
            assert!(dispatch_event(&target, &event, ctx).expect("dispatch"));
            // The same event can be dispatched again once dispatch is over.
            assert!(dispatch_event(&target, &event, ctx).expect("dispatch"));
            assert!(dispatch_event(&Object::with_null_proto(ctx), &event, ctx).is_err());
            assert!(dispatch_event(&target, &Object::with_null_proto(ctx), ctx).is_err());
            set_global(ctx, "ev", event);
        }),
        TestAction::check(
            r#"
        eq(got.join(), 'ready:true:false,ready:true:false', 'listener saw trusted event');
        eq(ev.eventPhase, 0, 'phase reset');
        ok(Object.prototype.hasOwnProperty.call(ev, 'isTrusted'), 'own isTrusted');
        "#,
        ),
    ]);
}
