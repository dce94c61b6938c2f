//! `MessageChannel`, `MessagePort` and `MessageEvent` in one agent, and streams transferred
//! into a second realm.

use crate::support::script::{Fixture, TestAction};
use crate::support::set_global;

const PRELUDE: &str = r#"
    globalThis.tick = (ms = 0) => new Promise(resolve => setTimeout(resolve, ms));
    globalThis.isDataCloneError = (e) => e instanceof DOMException && e.name === 'DataCloneError';
"#;

/// The steps of a port test: `script` run as the body of an async function (its checks
/// recorded by `check`), the event loop run to idle, and no failure (a failed check, a host
/// report, a body that threw or did not run to its end).
fn port_test<'a>(script: &str) -> [TestAction<'a>; 4] {
    [
        TestAction::run(format!(
            "(async () => {{ {script}
 globalThis.completed = true; }})().catch(e => failed.push(`threw: ${{e}}`));"
        )),
        TestAction::run_to_idle(),
        TestAction::assert_no_failures(),
        // The test script ran to its end.
        TestAction::assert("globalThis.completed === true"),
    ]
}

/// A fresh host with [`PRELUDE`] and a second realm's global as `other`.
fn fixture_with_a_second_realm() -> Fixture {
    let mut fixture = Fixture::host().with(PRELUDE);
    fixture.run([TestAction::inspect_host(|host, ctx| {
        let other = host.new_realm_global(ctx).expect("a second realm");
        set_global(ctx, "other", other);
    })]);
    fixture
}

/// Runs [`port_test`] in a fresh host with [`PRELUDE`].
fn assert_port_test(script: &str) {
    Fixture::host().with(PRELUDE).run(port_test(script));
}

#[test]
fn messages_are_tasks_in_order() {
    assert_port_test(
        r#"
        const log = [];
        const { port1, port2 } = new MessageChannel();
        port2.onmessage = e => log.push(`message ${e.data}`);
        port1.postMessage(1);
        port1.postMessage(2);
        Promise.resolve().then(() => log.push('microtask'));
        log.push('sync');
        await tick(10);
        check(JSON.stringify(log) === '["sync","microtask","message 1","message 2"]', `order: ${JSON.stringify(log)}`);
        // Each message is its own task: a microtask queued by the first handler runs before
        // the second message.
        const log2 = [];
        port2.onmessage = e => { log2.push(e.data); Promise.resolve().then(() => log2.push(`after ${e.data}`)); };
        port1.postMessage('a');
        port1.postMessage('b');
        await tick(10);
        check(JSON.stringify(log2) === '["a","after a","b","after b"]', `tasks: ${JSON.stringify(log2)}`);
        port1.close();
        "#,
    );
}

#[test]
fn a_port_queue_starts_disabled() {
    assert_port_test(
        r#"
        const { port1, port2 } = new MessageChannel();
        const got = [];
        port2.addEventListener('message', e => got.push(e.data));
        port1.postMessage('queued');
        await tick(10);
        check(got.length === 0, 'addEventListener does not start the queue');
        port2.start();
        port2.start();
        await tick(10);
        check(got.length === 1 && got[0] === 'queued', `start() delivers what waited: ${got}`);
        port1.close();
        "#,
    );
}

#[test]
fn message_events() {
    assert_port_test(
        r#"
        const { port1, port2 } = new MessageChannel();
        const data = { deep: [1] };
        const event = await new Promise(resolve => { port2.onmessage = resolve; port1.postMessage(data); });
        check(event instanceof MessageEvent && event instanceof Event, 'a MessageEvent');
        check(event.type === 'message' && event.isTrusted === true && !event.bubbles && !event.cancelable, 'type and flags');
        check(event.data !== data && event.data.deep[0] === 1, 'the data is a clone');
        check(event.origin === '' && event.lastEventId === '' && event.source === null, 'origin, lastEventId, source');
        check(Array.isArray(event.ports) && event.ports.length === 0 && Object.isFrozen(event.ports), 'ports: a frozen array');
        check(event.ports === event.ports, 'the same ports array each time');
        // The handler resolved the promise, and this continuation ran in the microtask
        // checkpoint that follows the handler (the dispatch came from a task): still inside
        // the dispatch, so currentTarget is still the port.
        check(event.target === port2 && event.currentTarget === port2, 'target');
        check(typeof port2.onmessage === 'function' && port2.onmessageerror === null && port2.onclose === null, 'event handlers');
        const made = new MessageEvent('message', { data: 5, origin: 'o', lastEventId: 'id', ports: [port1] });
        check(made.data === 5 && made.origin === 'o' && made.lastEventId === 'id' && made.ports[0] === port1 && !made.isTrusted, 'the constructor');
        check(new MessageEvent('x').data === null, 'data defaults to null');
        try { new MessageEvent('x', { ports: [{}] }); failed.push('ports of non-ports'); } catch (e) { check(e instanceof TypeError, 'ports must be MessagePorts'); }
        try { new MessagePort(); failed.push('new MessagePort()'); } catch (e) { check(e instanceof TypeError, 'MessagePort has no constructor'); }
        try { MessageChannel(); failed.push('MessageChannel()'); } catch (e) { check(e instanceof TypeError, 'MessageChannel needs new'); }
        check(Object.getPrototypeOf(MessagePort.prototype) === EventTarget.prototype, 'MessagePort inherits EventTarget');
        check(Object.prototype.toString.call(port1) === '[object MessagePort]', 'toStringTag');
        port1.close();
        "#,
    );
}

#[test]
fn ports_transfer_close_and_data_clone_errors() {
    assert_port_test(
        r#"
        const a = new MessageChannel(), b = new MessageChannel();
        // A port sent in a message keeps talking to its entangled port.
        const received = await new Promise(resolve => {
          a.port2.onmessage = resolve;
          a.port1.postMessage({ hello: 'port' }, [b.port1]);
        });
        check(received.ports.length === 1 && received.ports[0] instanceof MessagePort && received.ports[0] !== b.port1, 'a new port arrives');
        const moved = received.ports[0];
        const echo = await new Promise(resolve => { b.port2.onmessage = e => resolve(e.data); moved.postMessage('through the moved port'); });
        check(echo === 'through the moved port', 'the moved port is entangled with the other end');
        const back = await new Promise(resolve => { moved.onmessage = e => resolve(e.data); b.port2.postMessage('back'); });
        check(back === 'back', 'and hears it');
        let heard = false;
        b.port1.onmessage = () => { heard = true; };
        b.port2.postMessage('not for the shipped port');
        await tick(10);
        check(!heard, 'the shipped port hears nothing');
        // The transfer options dictionary.
        const buffer = new ArrayBuffer(8);
        const withBuffer = await new Promise(resolve => { a.port2.onmessage = resolve; a.port1.postMessage(buffer, { transfer: [buffer] }); });
        check(buffer.byteLength === 0 && withBuffer.data.byteLength === 8, 'postMessage(message, { transfer })');
        // DataCloneErrors.
        try { a.port1.postMessage(a.port1, [a.port1]); failed.push('through itself'); } catch (e) { check(isDataCloneError(e), 'a port cannot be posted through itself'); }
        try { a.port1.postMessage(() => 1); failed.push('a function'); } catch (e) { check(isDataCloneError(e), 'a function is a DataCloneError'); }
        try { a.port1.postMessage(1, 2); failed.push('transfer 2'); } catch (e) { check(e instanceof TypeError, 'a primitive second argument is a TypeError'); }
        // Posting the target port makes the message doomed: it is never delivered.
        const c = new MessageChannel();
        let doomed = false;
        c.port2.onmessage = () => { doomed = true; };
        c.port1.postMessage('lost', [c.port2]);
        await tick(10);
        check(!doomed, 'a doomed message is not delivered');
        // close(): the entangled port gets a close event; later messages go nowhere.
        const d = new MessageChannel();
        let messages = 0;
        const closed = new Promise(resolve => { d.port2.onclose = resolve; });
        d.port2.onmessage = () => { messages++; };
        d.port1.postMessage('before');
        d.port1.close();
        d.port1.postMessage('after');
        const closeEvent = await closed;
        check(closeEvent.type === 'close' && !(closeEvent instanceof MessageEvent), 'a close event');
        check(messages === 1, `the message posted before close arrived first: ${messages}`);
        try { structuredClone(d.port1, { transfer: [d.port1] }); failed.push('closed port transferred'); } catch (e) { check(isDataCloneError(e), 'a closed port is detached'); }
        a.port1.close(); b.port2.close(); moved.close(); c.port1.close(); d.port2.close();
        "#,
    );
}

#[test]
fn an_uncloneable_chunk_errors_both_sides_of_a_transferred_writable() {
    assert_port_test(
        r#"
        let abortReason;
        const ws = new WritableStream({ abort(r) { abortReason = r; } });
        const moved = structuredClone(ws, { transfer: [ws] });
        const writer = moved.getWriter();
        let writeError;
        await writer.write(() => 'a function').catch(e => { writeError = e; });
        check(isDataCloneError(writeError), `the write rejects with a DataCloneError: ${writeError}`);
        await tick(10);
        check(isDataCloneError(abortReason), `the original sink is aborted with it: ${abortReason}`);
        let closedError;
        await writer.closed.catch(e => { closedError = e; });
        check(closedError === writeError, 'the transferred side is errored with it');
        "#,
    );
}

#[test]
fn streams_transfer_into_a_second_realm() {
    let mut fixture = fixture_with_a_second_realm();
    fixture.run(port_test(
        r#"
        check(other.ReadableStream !== ReadableStream && other.MessageChannel !== MessageChannel, 'its own interfaces');
        // structuredClone of the other realm deserializes there.
        const rs = new ReadableStream({ start(c) { c.enqueue({ n: 1 }); c.enqueue('two'); c.close(); } });
        const moved = other.structuredClone(rs, { transfer: [rs] });
        check(moved instanceof other.ReadableStream && !(moved instanceof ReadableStream), 'a ReadableStream of the other realm');
        check(rs.locked, 'the original is locked (piped into the cross-realm writable)');
        const reader = other.ReadableStream.prototype.getReader.call(moved);
        const first = await reader.read();
        check(first.value.n === 1 && first.value instanceof other.Object && !(first.value instanceof Object), 'chunks are deserialized in the other realm');
        check((await reader.read()).value === 'two' && (await reader.read()).done, 'then the rest, then done');
        // A writable the other realm writes into, ending here.
        const chunks = [];
        const ws = new WritableStream({ write(c) { chunks.push(c); } });
        const ch = new other.MessageChannel();
        const event = await new Promise(resolve => { ch.port2.onmessage = resolve; ch.port1.postMessage(ws, [ws]); });
        check(event.data instanceof other.WritableStream, 'a WritableStream arrives in the other realm');
        const writer = event.data.getWriter();
        await writer.write('x');
        await writer.close();
        await tick(10);
        check(chunks.length === 1 && chunks[0] === 'x', `the chunk reached the original sink: ${chunks}`);
        // A TransformStream: both sides move.
        const ts = new TransformStream({ transform(c, ctl) { ctl.enqueue(c * 2); } });
        const movedTs = other.structuredClone(ts, { transfer: [ts] });
        check(movedTs instanceof other.TransformStream, 'a TransformStream of the other realm');
        const w = movedTs.writable.getWriter();
        w.write(21);
        w.close();
        const r = movedTs.readable.getReader();
        check((await r.read()).value === 42, 'through the original transformer and back');
        ch.port1.close();
        "#,
    ));
    fixture.run([TestAction::inspect_host(|host, ctx| {
        assert_eq!(
            host.entangled_ports(ctx),
            0,
            "the finished streams hold no port"
        );
    })]);
}

#[test]
fn a_stream_posted_to_a_port_nobody_starts_does_not_keep_the_loop_waiting() {
    // The stream's own port waits in port2's disabled queue: nothing can arrive from another
    // agent, so the event loop returns idle (the harness asserts `RunOutcome::Idle`).
    assert_port_test(
        r#"
        const { port1, port2 } = new MessageChannel();
        const rs = new ReadableStream();
        port1.postMessage(rs, [rs]);
        check(rs.locked, 'the stream was transferred');
        "#,
    );
}

/// A transferred stream's whole-buffer `Uint8Array` chunks, which it holds as Rust bytes, become
/// `Uint8Array`s of the stream's realm, where the spec deserializes them (the port's realm),
/// whichever realm's `read` takes them.
#[test]
fn bytes_chunks_belong_to_the_realm_of_their_stream() {
    let mut fixture = fixture_with_a_second_realm();
    fixture.run([
        TestAction::run(
            r#"
        var read = ReadableStreamDefaultReader.prototype.read;
        var rs = new ReadableStream({ start(c) { c.enqueue(new Uint8Array([1, 2])); c.close(); } });
        var reader = other.ReadableStream.prototype.getReader.call(other.structuredClone(rs, { transfer: [rs] }));
        var rs2 = new ReadableStream({ start(c) { globalThis.c2 = c; } });
        var reader2 = other.ReadableStream.prototype.getReader.call(other.structuredClone(rs2, { transfer: [rs2] }));
        var seen = [];
        // A read that pulled a chunk and was released before it came: the chunk waits in
        // the queue.
        var rs3 = new ReadableStream({ start(c) { c.enqueue(new Uint8Array([4, 5, 6])); } });
        var moved3 = other.structuredClone(rs3, { transfer: [rs3] });
        var reader3 = other.ReadableStream.prototype.getReader.call(moved3);
        "#,
        ),
        TestAction::run_to_idle(),
        TestAction::run("reader3.read().catch(() => {}); reader3.releaseLock();"),
        TestAction::run_to_idle(),
        // From a script of this realm, this realm's read() of the other realm's streams: chunks
        // a waiting read gets (in the port's task), and one that waited in the queue.
        TestAction::run(
            r#"
        var describe = v => `${v instanceof Uint8Array ? 'this' : v instanceof other.Uint8Array ? 'other' : '?'}:${v.buffer instanceof other.ArrayBuffer ? 'other' : 'this'}:${v}`;
        read.call(reader).then(r => seen.push(describe(r.value)));
        read.call(reader2).then(r => seen.push(describe(r.value)));
        c2.enqueue(new Uint8Array([3]));
        read.call(ReadableStream.prototype.getReader.call(moved3)).then(r => seen.push(describe(r.value)));
        "#,
        ),
        TestAction::run_to_idle(),
        TestAction::assert_string("seen.join(' ')", "other:other:4,5,6 other:other:1,2 other:other:3"),
    ]);
}

/// A message whose deserialization fails in the receiving realm fires `messageerror` there, with
/// `data` null and a `MessageEvent` of that realm, and the next message is still delivered
/// (here: a realm with `MessagePort` but without `ReadableStream` receives a stream).
#[test]
fn a_message_that_cannot_be_deserialized_fires_messageerror() {
    let mut fixture = Fixture::host().with(PRELUDE);
    fixture.run([TestAction::inspect_host(|host, ctx| {
        let bare = host.new_bare_realm_global(ctx).expect("a bare realm");
        set_global(ctx, "bare", bare);
    })]);
    fixture.run(port_test(
        r#"
        check(typeof bare.MessageChannel === 'function' && bare.ReadableStream === undefined, 'a bare realm');
        const log = [];
        const ch = new MessageChannel();
        const port2 = bare.structuredClone(ch.port2, { transfer: [ch.port2] });
        port2.onmessage = () => log.push('message');
        port2.onmessageerror = e => log.push(`messageerror ${e.data} ${e instanceof bare.MessageEvent}`);
        const rs = new ReadableStream();
        ch.port1.postMessage(rs, [rs]);
        ch.port1.postMessage('fine');
        await tick(10);
        check(JSON.stringify(log) === '["messageerror null true","message"]', JSON.stringify(log));
        "#,
    ));
}
