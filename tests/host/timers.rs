//! The host's timers and `console`, one implementation over the engine contract on both
//! engines: HTML's timer initialization steps and the Console Standard's namespace shape.

use super::support::script::{run_host_actions, TestAction};

/// A string handler runs as a classic script; a function runs with the global object as its
/// `this` and the extra arguments; a negative timeout is 0; timers due together run in the
/// order they were set; a timer that clears itself, or an interval cleared in its own
/// callback, runs once; ids are positive and distinct, and clearing an unknown id does nothing.
#[test]
fn timers_follow_the_timer_initialization_steps() {
    run_host_actions([
        TestAction::run(
            r#"
        var order = [];
        setTimeout("order.push('string handler')", 0);
        setTimeout(function () { 'use strict'; order.push('this ' + (this === globalThis)); }, -5);
        setTimeout((a, b) => order.push('arguments ' + a + b), 0, 1, 2);
        const once = setInterval(() => { order.push('interval'); clearInterval(once); }, 0);
        const itself = setTimeout(() => { clearTimeout(itself); order.push('cleared itself'); }, 0);
        const ids = [setTimeout(() => order.push('cleared: not run')), setTimeout(() => {})];
        clearTimeout(ids[0]); clearTimeout(0); clearTimeout(123456); clearTimeout('x');
        order.push('ids ' + (ids[0] > 0 && ids[1] > ids[0]));
        "#,
        ),
        TestAction::run_to_idle(),
        TestAction::assert_string(
            "order.join()",
            "ids true,string handler,this true,arguments 12,interval,cleared itself",
        ),
        TestAction::inspect_host(|host, _| assert_eq!(host.take_reports(), [])),
    ]);
}

/// The timers and `queueMicrotask` are WebIDL operations of the global (writable, enumerable,
/// configurable); `console` is a namespace (a non-enumerable global whose class string is
/// "console") whose members are operations; a non-function microtask callback is a TypeError.
#[test]
fn timers_and_console_have_webidl_shapes() {
    run_host_actions([
        TestAction::assert_string(
            r"
        const shape = (object, name) => {
            const p = Object.getOwnPropertyDescriptor(object, name);
            return `${name}:${+p.writable}${+p.enumerable}${+p.configurable}:${p.value.length}`;
        };
        [shape(globalThis, 'setTimeout'), shape(globalThis, 'setInterval'),
         shape(globalThis, 'clearTimeout'), shape(globalThis, 'clearInterval'),
         shape(globalThis, 'queueMicrotask'), shape(console, 'log'), shape(console, 'timeEnd'),
         Object.getOwnPropertyDescriptor(globalThis, 'console').enumerable,
         Object.prototype.toString.call(console)].join(' ')
        ",
            "setTimeout:111:1 setInterval:111:1 clearTimeout:111:0 clearInterval:111:0 \
             queueMicrotask:111:1 log:111:0 timeEnd:111:0 false [object console]",
        ),
        TestAction::assert_throws(
            "queueMicrotask(1)",
            "TypeError: queueMicrotask: argument 1 is not a function",
        ),
        TestAction::run(
            r"
        console.log('%s is %d years (%i), %f%% %o %c', 'Ada', 36.6, '12px', '2.5e1x', {}, 'color: red', 'and more');
        console.count(); console.count('x'); console.countReset('x'); console.countReset('missing');
        console.time('t'); console.timeLog('t', 'logged'); console.timeEnd('t'); console.timeEnd('t');
        console.group('g'); console.groupCollapsed(); console.groupEnd(); console.groupEnd(); console.groupEnd();
        console.assert(true); console.assert(false, 'failed %s', 'here'); console.dir({ a: 1 });
        console.table([1]); console.trace('where'); console.clear(); console.exception('e');
        ",
        ),
        TestAction::inspect_host(|host, _| assert_eq!(host.take_reports(), [])),
    ]);
}
