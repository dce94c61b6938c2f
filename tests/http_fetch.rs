//! `fetch()` over HTTP (`boa_streams::http::HttpFetcher`) against `serve` on a loopback port,
//! in one host: streaming response bodies, a `ReadableStream` upload (`duplex: 'half'`) sent
//! while script still writes it, `signal` aborts before the response, mid-body and mid-upload,
//! redirects (`follow`, `error`, `manual`, 303 to GET), and a fetched body passed through as a
//! response. Every wait is for a flag script sets.
#![cfg(feature = "http")]

use boa_streams::host::{Context, Host, HostOptions};
use boa_streams::http::{ServeOptions, Server};

/// Runs `script` (with `PORT` and `BASE` set, `serve` and the HTTP fetcher installed) until it
/// sets `globalThis.done`; returns `globalThis.result` as a string.
fn run(script: &str) -> String {
    run_with(script, ServeOptions::default())
}

/// [`run`] with a server of these options.
fn run_with(script: &str, options: ServeOptions) -> String {
    in_local_runtime(async {
        let (host, mut ctx, server) = serve_until_done(script, options).await;
        shut_down(&server, &host, &mut ctx).await;
        let reports: Vec<String> = host.take_reports().iter().map(|r| r.to_string()).collect();
        let result = host
            .eval_script(&mut ctx, "result.js", "String(globalThis.result)")
            .expect("a result")
            .to_string(&mut ctx)
            .expect("a string")
            .to_std_string_escaped();
        assert!(
            flag(&mut ctx, "done"),
            "the script never finished: {result} {reports:?}"
        );
        result
    })
}

/// Runs `body` to its end on a current-thread runtime, in a local set.
fn in_local_runtime<T>(body: impl std::future::Future<Output = T>) -> T {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    tokio::task::LocalSet::new().block_on(&runtime, body)
}

/// A host with `serve` and the HTTP fetcher, `BASE` set to its server's address, that has run
/// `script` and its loop until `globalThis.done`; the server still runs.
async fn serve_until_done(script: &str, options: ServeOptions) -> (Host, Context, Server) {
    let (host, mut ctx) = Host::new(HostOptions::default()).expect("a host");
    boa_streams::http::install(&mut ctx).expect("serve()");
    boa_streams::http::install_fetcher(&mut ctx).expect("the fetcher");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let port = listener.local_addr().expect("an address").port();
    let prelude = format!("globalThis.BASE = 'http://127.0.0.1:{port}';");
    host.eval_script(&mut ctx, "prelude.js", &prelude)
        .expect("prelude");
    host.eval_script(&mut ctx, "test.js", script)
        .expect("the script");
    let server = Server::new(options, &ctx).expect("a server");
    tokio::task::spawn_local(server.clone().run(listener));
    host.run_until_async(&mut ctx, |ctx| flag(ctx, "done"))
        .await;
    (host, ctx, server)
}

/// Closes the server and runs the loop until its connections are gone (they hold JS values,
/// which must go before the host).
async fn shut_down(server: &Server, host: &Host, ctx: &mut Context) {
    server.close();
    while server.stats().connections > 0 {
        tokio::task::yield_now().await;
    }
    host.run_until_async(ctx, |_| false).await;
}

fn flag(ctx: &mut Context, name: &str) -> bool {
    Host::from_context(ctx)
        .and_then(|h| {
            h.eval_script(ctx, "flag.js", &format!("!!globalThis.{name}"))
                .ok()
        })
        .is_some_and(|v| v.to_boolean())
}

#[test]
fn a_streamed_response_body_arrives_in_order() {
    let result = run(r#"
        serve(() => {
            let i = 0;
            return new Response(new ReadableStream({
                pull(c) { c.enqueue(new TextEncoder().encode(`${i},`)); if (++i == 50) c.close(); },
            }), { status: 203, headers: { 'x-test': 'yes' } });
        });
        (async () => {
            const response = await fetch(BASE + '/data');
            const text = await response.text();
            globalThis.result = [response.status, response.headers.get('x-test'), response.url, text.split(',').length].join(' ');
        })().catch((e) => { globalThis.result = 'failed: ' + e; }).finally(() => { globalThis.done = true; });
    "#);
    assert!(result.starts_with("203 yes http://127.0.0.1:"), "{result}");
    assert!(result.ends_with("/data 51"), "{result}");
}

#[test]
fn an_upload_is_sent_while_script_still_writes_it() {
    let result = run(r#"
        let firstArrived;
        const arrived = new Promise((resolve) => { firstArrived = resolve; });
        serve(async (request) => {
            const reader = request.body.getReader();
            let text = '';
            for (;;) {
                const { value, done } = await reader.read();
                if (done) break;
                text += new TextDecoder().decode(value);
                firstArrived();
            }
            return new Response(text);
        });
        (async () => {
            let step = 0;
            const body = new ReadableStream({
                async pull(c) {
                    if (step == 0) { c.enqueue(new TextEncoder().encode('one ')); step++; return; }
                    // The second chunk is written only once the server has read the first.
                    await arrived;
                    c.enqueue(new TextEncoder().encode('two'));
                    c.close();
                },
            });
            const response = await fetch(BASE + '/up', { method: 'POST', body, duplex: 'half' });
            globalThis.result = await response.text();
        })().catch((e) => { globalThis.result = 'failed: ' + e; }).finally(() => { globalThis.done = true; });
    "#);
    assert_eq!(result, "one two");
}

#[test]
fn abort_before_the_response() {
    let result = run(r#"
        let started;
        const handlerStarted = new Promise((resolve) => { started = resolve; });
        let serverSawAbort;
        const sawAbort = new Promise((resolve) => { serverSawAbort = resolve; });
        // The handler's promise stays pending (its resolver is kept: a promise nothing can
        // settle may be collected, and then the exchange ends with a 500).
        serve((request) => new Promise((resolve) => {
            request.signal.onabort = () => { serverSawAbort(request.signal.reason.name); resolve(new Response('late')); };
            started();
        }));
        (async () => {
            const controller = new AbortController();
            const pending = fetch(BASE + '/hang', { signal: controller.signal });
            await handlerStarted;
            controller.abort();
            let outcome;
            try { await pending; outcome = 'resolved'; } catch (e) { outcome = e.name; }
            globalThis.result = outcome + ' ' + await sawAbort;
        })().catch((e) => { globalThis.result = 'failed: ' + e; }).finally(() => { globalThis.done = true; });
    "#);
    assert_eq!(result, "AbortError AbortError");
}

#[test]
fn abort_mid_body_errors_the_body_and_cancels_the_servers_stream() {
    let result = run(r#"
        let cancelled;
        const wasCancelled = new Promise((resolve) => { cancelled = resolve; });
        serve(() => new Response(new ReadableStream({
            pull(c) { c.enqueue(new Uint8Array(1024)); },
            cancel(reason) { cancelled(reason.name); },
        })));
        (async () => {
            const controller = new AbortController();
            const response = await fetch(BASE + '/endless', { signal: controller.signal });
            const reader = response.body.getReader();
            await reader.read();
            controller.abort();
            let outcome;
            try { for (;;) { const { done } = await reader.read(); if (done) { outcome = 'closed'; break; } } }
            catch (e) { outcome = e.name; }
            globalThis.result = outcome + ' ' + await wasCancelled;
        })().catch((e) => { globalThis.result = 'failed: ' + e; }).finally(() => { globalThis.done = true; });
    "#);
    assert_eq!(result, "AbortError AbortError");
}

#[test]
fn abort_mid_upload_cancels_the_upload_stream() {
    let result = run(r#"
        let got;
        const gotFirst = new Promise((resolve) => { got = resolve; });
        serve(async (request) => {
            const reader = request.body.getReader();
            await reader.read();
            got();
            try { for (;;) { const { done } = await reader.read(); if (done) break; } } catch {}
            return new Response('never');
        });
        (async () => {
            const controller = new AbortController();
            let uploadCancelled;
            const cancelledWith = new Promise((resolve) => { uploadCancelled = resolve; });
            let first = true;
            const body = new ReadableStream({
                async pull(c) {
                    if (first) { first = false; c.enqueue(new Uint8Array(10)); return; }
                    await new Promise(() => {});
                },
                cancel(reason) { uploadCancelled(reason.name); },
            });
            const pending = fetch(BASE + '/up', { method: 'POST', body, duplex: 'half', signal: controller.signal });
            await gotFirst;
            controller.abort();
            let outcome;
            try { await pending; outcome = 'resolved'; } catch (e) { outcome = e.name; }
            globalThis.result = outcome + ' ' + await cancelledWith;
        })().catch((e) => { globalThis.result = 'failed: ' + e; }).finally(() => { globalThis.done = true; });
    "#);
    assert_eq!(result, "AbortError AbortError");
}

#[test]
fn redirects_follow_error_and_manual() {
    let result = run(r#"
        serve(async (request) => {
            const url = new URL(request.url);
            if (url.pathname == '/r') return new Response(null, { status: 302, headers: { location: '/final?x=1' } });
            if (url.pathname == '/see-other') return new Response(null, { status: 303, headers: { location: '/final' } });
            if (url.pathname == '/loop') return new Response(null, { status: 307, headers: { location: '/loop' } });
            return new Response(`${request.method} ${url.pathname}${url.search} ${await request.text()}`);
        });
        (async () => {
            const out = [];
            const followed = await fetch(BASE + '/r');
            out.push(await followed.text(), followed.redirected, new URL(followed.url).pathname);
            const posted = await fetch(BASE + '/see-other', { method: 'POST', body: 'payload' });
            out.push(await posted.text());
            try { await fetch(BASE + '/r', { redirect: 'error' }); out.push('resolved'); } catch (e) { out.push(e.name); }
            const manual = await fetch(BASE + '/r', { redirect: 'manual' });
            out.push(manual.type, manual.status, manual.body);
            try { await fetch(BASE + '/loop'); out.push('resolved'); } catch (e) { out.push(e.name); }
            const kept = await fetch(BASE + '/r307', { method: 'PUT', body: 'same' });
            out.push(await kept.text());
            globalThis.result = out.join('|');
        })().catch((e) => { globalThis.result = 'failed: ' + e; }).finally(() => { globalThis.done = true; });
    "#);
    assert_eq!(
        result,
        "GET /final?x=1 |true|/final|GET /final |TypeError|opaqueredirect|0||TypeError|PUT /r307 same"
    );
}

#[test]
fn a_fetched_body_passes_through_as_a_response() {
    let result = run(r#"
        serve(async (request) => {
            const url = new URL(request.url);
            if (url.pathname == '/origin') return new Response('x'.repeat(200000));
            const upstream = await fetch(BASE + '/origin');
            return new Response(upstream.body.pipeThrough(new TransformStream()), { headers: { 'x-proxied': '1' } });
        });
        (async () => {
            const response = await fetch(BASE + '/proxy');
            const text = await response.text();
            globalThis.result = response.headers.get('x-proxied') + ' ' + text.length;
        })().catch((e) => { globalThis.result = 'failed: ' + e; }).finally(() => { globalThis.done = true; });
    "#);
    assert_eq!(result, "1 200000");
}

#[test]
fn the_status_text_arrives_as_sent() {
    let result = run(r#"
        serve((request) => new URL(request.url).pathname == '/custom'
            ? new Response('x', { status: 201, statusText: 'Made It' })
            : new Response('x', { status: 201 }));
        (async () => {
            const custom = await fetch(BASE + '/custom');
            const plain = await fetch(BASE + '/plain');
            await custom.text(); await plain.text();
            globalThis.result = `${custom.status} ${custom.statusText}|${plain.status} ${plain.statusText}`;
            globalThis.done = true;
        })();
    "#);
    assert_eq!(result, "201 Made It|201 Created");
}

#[test]
fn connections_are_reused_once_a_body_is_read_to_its_end() {
    // The server answers with the client's port: one port per connection.
    let script = r#"
        serve((request, info) => new Response(String(info.remoteAddr.port)));
        (async () => {
            const get = async () => (await fetch(`${BASE}/`)).text();
            const one = [];
            for (let i = 0; i < 5; i++) one.push(await get());
            // Two at once need two connections; the pooled one is one of them.
            const two = await Promise.all([get(), get()]);
            // A body not read yet keeps its connection: the next request takes another.
            const unread = await fetch(`${BASE}/`);
            const after = await get();
            const late = await unread.text();
            globalThis.result = [
                new Set(one).size,
                two[0] !== two[1],
                two.includes(one[0]),
                after !== late,
            ].join();
            globalThis.done = true;
        })();
    "#;
    assert_eq!(run(script), "1,true,true,true");
}

#[test]
fn a_pooled_connection_the_server_closed_is_replaced() {
    // The server closes a connection idle for 50 ms; the fetch after 300 ms must not fail on
    // the pooled one the server closed.
    let script = r#"
        serve((request, info) => new Response(String(info.remoteAddr.port)));
        (async () => {
            const get = async () => (await fetch(`${BASE}/`)).text();
            const first = await get();
            await new Promise((resolve) => setTimeout(resolve, 300));
            const second = await get();
            const third = await get();
            globalThis.result = [first !== second, second === third].join();
            globalThis.done = true;
        })().catch((e) => { globalThis.result = `failed: ${e}`; globalThis.done = true; });
    "#;
    let options = ServeOptions {
        idle_timeout: std::time::Duration::from_millis(50),
        ..ServeOptions::default()
    };
    assert_eq!(run_with(script, options), "true,true");
}

#[test]
fn close_idle_connections_closes_the_pooled_ones() {
    let script = "
        serve(() => new Response('ok'));
        Promise.all([1, 2, 3].map(() => fetch(`${BASE}/`).then((response) => response.text())))
            .then(() => { globalThis.done = true; });";
    in_local_runtime(async {
        let (host, mut ctx, server) = serve_until_done(script, ServeOptions::default()).await;
        // Three requests at once: three connections, pooled once their bodies were read.
        assert_eq!(server.stats().connections, 3);
        boa_streams::http::close_idle_connections(&mut ctx);
        // The server sees the three closes (its connection tasks run on this local set).
        for _ in 0..10_000 {
            if server.stats().connections == 0 {
                break;
            }
            tokio::task::yield_now().await;
        }
        assert_eq!(server.stats().connections, 0);
        shut_down(&server, &host, &mut ctx).await;
    });
}
