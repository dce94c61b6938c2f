//! `fetch()` over an async Rust fetcher (the `tokio` feature): the response through a future,
//! the body polled as its stream pulls, network errors, and aborts that drop the future or
//! the body.
#![cfg(feature = "tokio")]

use std::{cell::Cell, rc::Rc, time::Duration};

use boa_streams::fetcher::FetchRequest;
use boa_streams::host::{Context, Host, HostOptions};
use boa_streams::rust::{
    set_async_fetcher, AsyncBody, AsyncFetchResponse, AsyncFetcher, FetchFuture,
};
use futures::StreamExt;

/// Sets a flag when dropped.
struct DropFlag(Rc<Cell<bool>>);

impl Drop for DropFlag {
    fn drop(&mut self) {
        self.0.set(true);
    }
}

/// A fetcher for `https://test/...`: `slow` answers after a second of tokio time; `chunks`
/// streams numbered chunks (counting what was polled); `never` never answers; `refused` is a
/// network error.
struct TestFetcher {
    polled: Rc<Cell<u32>>,
    dropped: Rc<Cell<bool>>,
}

impl AsyncFetcher for TestFetcher {
    fn fetch(&self, request: FetchRequest) -> FetchFuture {
        let (polled, dropped) = (Rc::clone(&self.polled), Rc::clone(&self.dropped));
        Box::pin(async move {
            let guard = DropFlag(dropped);
            match request.url.as_str() {
                "https://test/slow" => {
                    tokio::time::sleep(Duration::from_secs(1)).await;
                    let (mut tx, rx) = tokio::io::duplex(64);
                    tokio::task::spawn_local(async move {
                        use tokio::io::AsyncWriteExt;
                        tx.write_all(format!("{} {}", request.method, request.url).as_bytes())
                            .await
                            .expect("write");
                    });
                    let mut response = AsyncFetchResponse::ok(AsyncBody::read(rx, 16));
                    response
                        .headers
                        .push((b"Content-Type".to_vec(), b"text/plain".to_vec()));
                    drop(guard);
                    Ok(response)
                }
                "https://test/chunks" => {
                    let chunks = futures::stream::iter(0..1000).map(move |i: u32| {
                        let _alive = &guard;
                        polled.set(polled.get() + 1);
                        Ok(bytes::Bytes::from(format!("<{i}>")))
                    });
                    Ok(AsyncFetchResponse::ok(AsyncBody::stream(chunks)))
                }
                "https://test/never" => {
                    futures::future::pending::<()>().await;
                    drop(guard);
                    Err("unreachable".to_owned())
                }
                _ => {
                    drop(guard);
                    Err("connection refused".to_owned())
                }
            }
        })
    }
}

fn setup() -> (Host, Context, Rc<Cell<u32>>, Rc<Cell<bool>>) {
    let (host, mut ctx) = Host::new(HostOptions::default()).expect("a host");
    let polled = Rc::new(Cell::new(0));
    let dropped = Rc::new(Cell::new(false));
    set_async_fetcher(
        TestFetcher {
            polled: Rc::clone(&polled),
            dropped: Rc::clone(&dropped),
        },
        &mut ctx,
    )
    .expect("a host context");
    (host, ctx, polled, dropped)
}

fn string(host: &Host, ctx: &mut Context, source: &str) -> String {
    let value = host.eval_script(ctx, "get.js", source).expect("a value");
    value
        .to_string(ctx)
        .expect("a string")
        .to_std_string_escaped()
}

fn paused_local(test: impl std::future::Future<Output = ()>) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .expect("a runtime");
    tokio::task::LocalSet::new().block_on(&rt, test);
}

#[test]
fn a_response_arrives_through_a_future_and_its_body_through_an_async_read() {
    paused_local(async {
        let (host, mut ctx, _, dropped) = setup();
        host.eval_script(
            &mut ctx,
            "f.js",
            r#"
            globalThis.out = 'pending';
            fetch('https://test/slow', { method: 'POST', body: 'x' })
              .then(async (r) => out = [r.status, r.headers.get('content-type'), await r.text()].join('|'))
              .catch((e) => out = String(e));
            "#,
        )
        .expect("runs");
        let start = tokio::time::Instant::now();
        host.run(&mut ctx).await;
        assert_eq!(start.elapsed(), Duration::from_secs(1));
        assert_eq!(
            string(&host, &mut ctx, "out"),
            "200|text/plain|POST https://test/slow"
        );
        assert!(dropped.get());
    });
}

#[test]
fn the_body_is_polled_only_as_it_is_read_and_a_cancel_drops_it() {
    paused_local(async {
        let (host, mut ctx, polled, dropped) = setup();
        host.eval_script(
            &mut ctx,
            "f.js",
            r#"
            globalThis.out = 'pending';
            (async () => {
              const r = await fetch('https://test/chunks');
              const reader = r.body.getReader();
              let text = '';
              for (let i = 0; i < 3; i++) text += new TextDecoder().decode((await reader.read()).value);
              await new Promise((r) => setTimeout(r, 100));
              await reader.cancel('enough');
              out = text;
            })().catch((e) => out = String(e));
            "#,
        )
        .expect("runs");
        host.run(&mut ctx).await;
        assert_eq!(string(&host, &mut ctx, "out"), "<0><1><2>");
        // High-water mark 0: three reads, three items, none polled ahead (even while the
        // reader waited); the cancel dropped the rest of the stream.
        assert_eq!(polled.get(), 3);
        assert!(dropped.get());
    });
}

#[test]
fn a_network_error_rejects_with_a_type_error() {
    paused_local(async {
        let (host, mut ctx, _, _) = setup();
        host.eval_script(
            &mut ctx,
            "f.js",
            r#"
            globalThis.out = 'pending';
            fetch('https://test/refused').then(() => out = 'resolved', (e) => out = e.constructor.name + ': ' + e.message);
            "#,
        )
        .expect("runs");
        host.run(&mut ctx).await;
        assert_eq!(
            string(&host, &mut ctx, "out"),
            "TypeError: fetch failed: connection refused"
        );
    });
}

#[test]
fn an_abort_drops_the_pending_future() {
    paused_local(async {
        let (host, mut ctx, _, dropped) = setup();
        host.eval_script(
            &mut ctx,
            "f.js",
            r#"
            globalThis.out = 'pending';
            const c = new AbortController();
            fetch('https://test/never', { signal: c.signal }).then(() => out = 'resolved', (e) => out = e.name);
            setTimeout(() => c.abort(), 5000);
            "#,
        )
        .expect("runs");
        let seen = Rc::clone(&dropped);
        // The future pends until the abort: the loop waits on it (not idle) until then.
        let outcome = host.run_until_async(&mut ctx, move |_| seen.get()).await;
        assert_eq!(outcome, boa_streams::host::RunOutcome::Done);
        host.run(&mut ctx).await;
        assert_eq!(string(&host, &mut ctx, "out"), "AbortError");
    });
}

#[test]
fn an_abort_after_the_response_errors_the_body_and_drops_it() {
    paused_local(async {
        let (host, mut ctx, polled, dropped) = setup();
        host.eval_script(
            &mut ctx,
            "f.js",
            r#"
            globalThis.out = 'pending';
            const c = new AbortController();
            (async () => {
              const r = await fetch('https://test/chunks', { signal: c.signal });
              const reader = r.body.getReader();
              await reader.read();
              c.abort(new RangeError('stop'));
              await reader.read();
            })().catch((e) => out = String(e));
            "#,
        )
        .expect("runs");
        host.run(&mut ctx).await;
        assert_eq!(string(&host, &mut ctx, "out"), "RangeError: stop");
        assert!(dropped.get(), "the body's Rust stream was dropped");
        assert!(polled.get() <= 2);
    });
}
