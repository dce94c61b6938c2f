//! The File API beyond `Blob` (`src/file/`): `File`, `FileReader` (event order, results,
//! abort), `Blob`/`File` in `structuredClone` and across agents, the blob URL store; and the
//! small DOM and HTML pieces beside them: `CustomEvent`, `atob`/`btoa`.

use crate::support::script::{run_host_actions, TestAction};
use boa_streams::host::{test_api, Context};

fn assert_async(body: &str, expected: &str) {
    run_host_actions([
        TestAction::assert_async(body, expected),
        TestAction::assert_no_failures(),
    ]);
}

#[test]
fn file_is_a_blob_with_a_name_and_last_modified() {
    assert_async(
        r"
        const f = new File(['ab', new Uint8Array([0x63])], 'n\ud800.txt',
                           { type: 'Text/Plain', lastModified: 42 });
        eq(f instanceof File, true, 'instanceof File');
        eq(f instanceof Blob, true, 'instanceof Blob');
        eq(({}) instanceof File, false, '({}) instanceof File');
        eq(new Blob([]) instanceof File, false, 'a Blob is no File');
        eq(Object.getPrototypeOf(File.prototype), Blob.prototype, 'File.prototype chain');
        eq(Object.getPrototypeOf(File), Blob, 'File inherits from Blob');
        eq(File.length, 2, 'File.length');
        eq(Object.prototype.toString.call(f), '[object File]', 'toStringTag');
        throws(TypeError, () => new File(['a']), 'fileName is required');
        throws(TypeError, () => File([], 'a'), 'needs new');
        throws(TypeError, () => Object.getOwnPropertyDescriptor(File.prototype, 'name').get.call(new Blob()), 'name brand check');
        const before = Date.now();
        const now = new File([], 'x').lastModified;
        ok(now >= before && now <= Date.now(), 'lastModified defaults to now');
        const sliced = f.slice(1);
        eq(sliced instanceof File, false, 'slice() gives a Blob');
        return [f.name, f.lastModified, f.size, f.type, await f.text(), await sliced.text(),
                new TextDecoder().decode(await f.bytes())].join('|');
    ",
        "n\u{fffd}.txt|42|3|text/plain|abc|bc|abc",
    );
}

#[test]
fn file_reader_fires_its_events_in_order() {
    assert_async(
        r"
        const states = [];
        const read = (blob) => new Promise((resolve) => {
            const fr = new FileReader();
            const seen = [];
            for (const e of ['loadstart', 'progress', 'load', 'abort', 'error', 'loadend']) {
                fr.addEventListener(e, (ev) => {
                    seen.push(e + ':' + fr.readyState + ':' + ev.loaded + '/' + ev.total);
                    if (e === 'loadend') resolve(seen.join(' '));
                });
            }
            fr.readAsText(blob);
            states.push(fr.readyState);
        });
        const full = await read(new Blob(['abc']));
        const empty = await read(new Blob([]));
        return [states.join(','), full, empty].join('|');
    ",
        "1,1|loadstart:1:0/3 progress:1:3/3 load:2:3/3 loadend:2:3/3\
         |loadstart:1:0/0 load:2:0/0 loadend:2:0/0",
    );
}

#[test]
fn file_reader_packages_the_bytes_each_way() {
    assert_async(
        r"
        const read = (method, blob, ...args) => new Promise((resolve) => {
            const fr = new FileReader();
            fr.onload = () => resolve(fr.result);
            fr[method](blob, ...args);
        });
        const utf16 = new Blob([new Uint8Array([0x00, 0x68, 0x00, 0x69])]);
        const latin = new Blob([new Uint8Array([0xe9])], { type: 'text/plain;charset=latin1' });
        const buffer = await read('readAsArrayBuffer', new Blob(['xyz']));
        return [
            await read('readAsText', new Blob(['\u00e9'])),
            await read('readAsText', utf16, 'utf-16be'),
            await read('readAsText', latin),
            await read('readAsText', new Blob([new Uint8Array([0xef, 0xbb, 0xbf, 0x41])])),
            await read('readAsDataURL', new Blob(['TEST'], { type: 'text/plain' })),
            await read('readAsDataURL', new Blob([])),
            JSON.stringify(await read('readAsBinaryString', new Blob([new Uint8Array([0x41, 0xff])]))),
            buffer instanceof ArrayBuffer ? Array.from(new Uint8Array(buffer)).join(',') : 'no',
        ].join('|');
    ",
        "\u{e9}|hi|\u{e9}|A|data:text/plain;base64,VEVTVA==|data:application/octet-stream;base64,\
         |\"A\u{ff}\"|120,121,122",
    );
}

#[test]
fn file_reader_abort_and_a_second_read_while_loading() {
    assert_async(
        r"
        const fr = new FileReader();
        eq(fr.readyState, FileReader.EMPTY, 'EMPTY');
        eq(FileReader.prototype.DONE, 2, 'DONE on the prototype');
        eq(fr.result, null, 'result starts null');
        eq(fr.error, null, 'error starts null');
        const events = [];
        for (const e of ['loadstart', 'progress', 'load', 'abort', 'error', 'loadend'])
            fr.addEventListener(e, () => events.push(e + fr.readyState));
        fr.readAsText(new Blob(['abc']));
        let name = 'none';
        try { fr.readAsArrayBuffer(new Blob(['x'])); } catch (e) { name = e.name; }
        fr.abort();
        const afterAbort = events.join(',');
        fr.abort();
        throws(TypeError, () => fr.readAsText('not a blob'), 'a Blob argument');
        // Nothing of the aborted read happens later.
        await new Promise((r) => setTimeout(r, 10));
        // The reader can read again once aborted.
        const again = await new Promise((resolve) => {
            fr.onloadend = () => resolve(fr.result);
            fr.readAsText(new Blob(['next']));
        });
        return [name, afterAbort, events.join(','), again].join('|');
    ",
        "InvalidStateError|abort2,loadend2|abort2,loadend2,loadstart1,progress1,load2,loadend2|next",
    );
}

#[test]
fn file_reader_handlers_are_event_handler_attributes() {
    assert_async(
        r"
        const fr = new FileReader();
        eq(fr instanceof EventTarget, true, 'an EventTarget');
        eq(fr.onload, null, 'onload starts null');
        const f = () => {};
        fr.onload = f;
        eq(fr.onload, f, 'onload keeps the function');
        fr.onload = 5;
        eq(fr.onload, null, 'a non-object is null');
        const got = await new Promise((resolve) => {
            fr.onloadend = (e) => resolve([e instanceof ProgressEvent, e.type, e.isTrusted,
                                           e.lengthComputable].join(','));
            fr.readAsArrayBuffer(new Blob(['a']));
        });
        const pe = new ProgressEvent('x', { loaded: 2, total: 5.5, lengthComputable: true });
        throws(TypeError, () => new ProgressEvent('x', { loaded: NaN }), 'loaded is a restricted double');
        return [got, pe.loaded, pe.total, pe.lengthComputable, pe instanceof Event].join('|');
    ",
        "true,loadend,true,true|2|5.5|true|true",
    );
}

#[test]
fn structured_clone_copies_blobs_and_files() {
    assert_async(
        r"
        const blob = new Blob(['hello'], { type: 'text/x' });
        const file = new File(['f'], 'a.txt', { lastModified: 7 });
        const clone = structuredClone({ blob, again: blob, file });
        eq(clone.blob instanceof Blob, true, 'a Blob');
        ok(clone.blob !== blob, 'a new object');
        eq(clone.again, clone.blob, 'identity is kept');
        eq(clone.file instanceof File, true, 'a File');
        const port = new MessageChannel();
        const posted = await new Promise((resolve) => {
            port.port2.onmessage = (e) => resolve(e.data);
            port.port1.postMessage(file);
        });
        return [clone.blob.type, clone.blob.size, await clone.blob.text(),
                clone.file.name, clone.file.lastModified, await clone.file.text(),
                posted.name, await posted.text()].join('|');
    ",
        "text/x|5|hello|a.txt|7|f|a.txt|f",
    );
}

#[test]
fn blobs_cross_to_an_agent_on_another_thread() {
    use crate::support::script::Fixture;
    use boa_streams::host::{HostOptions, RunOutcome};
    use std::time::{Duration, Instant};
    let mut fixture = Fixture::host();
    let (host, ctx) = fixture.parts();
    let agent_js = r"
        port.onmessage = async (e) => {
            const { blob, file } = e.data;
            const text = await blob.text();
            port.postMessage({ echo: new Blob([text.toUpperCase()], { type: blob.type }),
                               name: file.name, fileText: await file.text(),
                               isFile: file instanceof File });
            port.close();
            close();
        };
    ";
    let (port, agent) = host
        .spawn_agent(ctx, HostOptions::default(), move |host, ctx, port| {
            host.set_global(ctx, "port", port)?;
            host.eval_script(ctx, "agent.js", agent_js)?;
            Ok(())
        })
        .expect("spawn");
    host.set_global(ctx, "port", port).expect("port");
    host.eval_script(
        ctx,
        "main.js",
        r"
        port.onmessage = async (e) => {
            globalThis.result = [e.data.echo.type, await e.data.echo.text(), e.data.name,
                                 e.data.fileText, e.data.isFile].join('|');
            port.close();
            globalThis.done = true;
        };
        port.postMessage({ blob: new Blob(['across'], { type: 'text/a' }),
                           file: new File(['bytes'], 'f.bin') });
        ",
    )
    .expect("main script");
    let outcome = host.run_until(
        ctx,
        Some(Instant::now() + Duration::from_secs(60)),
        &mut |ctx| {
            test_api::global_object(ctx)
                .get("done", ctx)
                .is_ok_and(|v| v.to_boolean())
        },
    );
    assert_eq!(outcome, RunOutcome::Done, "the main script did not finish");
    assert_eq!(
        fixture.eval_string("result"),
        "text/a|ACROSS|f.bin|bytes|true"
    );
    let exit = agent.join().expect("the agent thread panicked");
    assert_eq!(exit.error, None);
}

/// Installs the File API's `createObjectURL`/`revokeObjectURL` native functions as globals
/// (the `URL` interface installs them as its static operations).
fn install_object_url_functions(ctx: &mut Context) {
    test_api::define_global_function(
        ctx,
        "createObjectURL",
        1,
        boa_streams::file::create_object_url_operation,
    )
    .expect("createObjectURL");
    test_api::define_global_function(
        ctx,
        "revokeObjectURL",
        1,
        boa_streams::file::revoke_object_url_operation,
    )
    .expect("revokeObjectURL");
}

#[test]
fn the_blob_url_store_resolves_until_revoked() {
    use boa_streams::file::{create_object_url, resolve_blob_url, revoke_object_url};
    let url = create_object_url(b"bytes"[..].into(), "text/plain".into(), "https://a.test");
    assert!(url.starts_with("blob:https://a.test/"), "{url}");
    assert_eq!(url.len(), "blob:https://a.test/".len() + 36);
    let entry = resolve_blob_url(&format!("{url}#fragment")).expect("resolves");
    assert_eq!(&*entry.bytes, b"bytes");
    assert_eq!(entry.mime_type, "text/plain");
    assert!(!revoke_object_url(&url, "https://b.test"), "another origin");
    assert!(
        !revoke_object_url(&format!("{url}#f"), "https://a.test"),
        "with a fragment"
    );
    assert!(resolve_blob_url(&url).is_some());
    assert!(revoke_object_url(&url, "https://a.test"));
    assert!(resolve_blob_url(&url).is_none());
    assert!(resolve_blob_url("https://a.test/x").is_none());

    // From script, through the native functions `URL` will install.
    let mut captured = String::new();
    run_host_actions([
        TestAction::inspect_context(install_object_url_functions),
        TestAction::run(
            "globalThis.u = createObjectURL(new File(['js'], 'n', { type: 'a/b' }));\
             globalThis.u2 = createObjectURL(new Blob());",
        ),
        TestAction::assert("u.startsWith('blob:http://web-platform.test:8000/') && u !== u2"),
        TestAction::assert_throws("createObjectURL('x')", "TypeError: Failed to execute 'createObjectURL' on 'URL': parameter 1 is not of type 'Blob'"),
        TestAction::inspect(|fixture| captured = fixture.eval_string("u")),
    ]);
    let entry = resolve_blob_url(&captured).expect("made from script");
    assert_eq!(
        (&*entry.bytes, entry.mime_type.as_str()),
        (&b"js"[..], "a/b")
    );
    run_host_actions([
        TestAction::inspect_context(install_object_url_functions),
        TestAction::run(format!(
            "revokeObjectURL('{captured}'); revokeObjectURL('nope');"
        )),
    ]);
    assert!(resolve_blob_url(&captured).is_none(), "revoked from script");
}

#[test]
fn custom_event_carries_a_detail() {
    assert_async(
        r"
        const detail = { n: 1 };
        const e = new CustomEvent('ping', { detail, bubbles: true });
        eq(e instanceof Event, true, 'an Event');
        eq(Object.getPrototypeOf(CustomEvent), Event, 'inherits from Event');
        eq(new CustomEvent('x').detail, null, 'detail defaults to null');
        const target = new EventTarget();
        let got;
        target.addEventListener('ping', (ev) => { got = ev.detail; ev.initCustomEvent('no', false, false, 9); });
        target.dispatchEvent(e);
        eq(got, detail, 'the listener sees the detail');
        eq(e.type, 'ping', 'initCustomEvent does nothing while dispatching');
        e.initCustomEvent('pong', false, true, 'd');
        throws(TypeError, () => CustomEvent.prototype.initCustomEvent.call(new Event('x'), 'a'), 'brand check');
        throws(TypeError, () => new CustomEvent(), 'type is required');
        return [e.type, e.bubbles, e.cancelable, e.detail].join(',');
    ",
        "pong,false,true,d",
    );
}

#[test]
fn atob_and_btoa_throw_invalid_character_errors() {
    assert_async(
        r"
        const name = (f) => { try { f(); return 'no throw'; }
                              catch (e) { return (e instanceof DOMException) + ':' + e.name; } };
        return [
            btoa('hi\u00ff'), atob(' aGn/ '), atob('YQ'), atob(undefined === 1 ? '' : 'YWI='),
            name(() => btoa('\u0100')), name(() => atob('a')), name(() => atob('\u00e9AAA')),
            name(() => atob('YQ==a')), name(() => atob()),
        ].join('|');
    ",
        "aGn/|hi\u{ff}|a|ab|true:InvalidCharacterError|true:InvalidCharacterError\
         |true:InvalidCharacterError|true:InvalidCharacterError|false:TypeError",
    );
}

#[test]
fn microtasks_run_after_each_listener_called_from_a_task() {
    assert_async(
        r"
        // From a task (the reader's load task fires load, then loadend): a microtask queued by
        // a listener runs before the next listener and the next event.
        const order = [];
        await new Promise((resolve) => {
            const fr = new FileReader();
            fr.addEventListener('load', () => { order.push('load1'); queueMicrotask(() => order.push('micro')); });
            fr.addEventListener('load', () => order.push('load2'));
            fr.onloadend = () => { order.push('loadend'); resolve(); };
            fr.readAsText(new Blob(['x']));
        });
        // From script (dispatchEvent), the stack is not empty: the microtask waits.
        const target = new EventTarget();
        target.addEventListener('e', () => { order.push('a'); queueMicrotask(() => order.push('m')); });
        target.addEventListener('e', () => order.push('b'));
        target.dispatchEvent(new Event('e'));
        await null;
        return order.join(',');
    ",
        "load1,micro,load2,loadend,a,b,m",
    );
}
