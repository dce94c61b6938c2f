//! # HTTP over hyper (the `http` feature)
//!
//! - [`Server`]: an HTTP/1.1 server on hyper 1.x whose handler is a script's. The script
//!   registers it with the global `serve(handler)` ([`install`] defines it), as `Deno.serve`
//!   spells it: `handler` is a function `(request, info) => Response | Promise<Response>`, or
//!   an object with such a `fetch` method (the `export default { fetch }` shape of Deno, Bun
//!   and workerd modules, minus the `export`: the host runs classic scripts, on both engines,
//!   and has no module loader).
//!
//! The JS engines are `!Send`, so a server belongs to one host: its connections are local
//! tasks of the current-thread runtime (or `LocalSet`) that runs `Host::run`. Scale out with
//! one host per thread, each with its own listener (`SO_REUSEPORT`) or its own port.
//!
//! ```no_run
//! use boa_streams::host::{Host, HostOptions};
//! use boa_streams::http::{Server, ServeOptions};
//!
//! let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
//! tokio::task::LocalSet::new().block_on(&runtime, async {
//!     let (host, mut ctx) = Host::new(HostOptions::default()).unwrap();
//!     boa_streams::http::install(&mut ctx).unwrap();
//!     host.eval_script(&mut ctx, "handler.js", "serve(req => new Response('hi'))").unwrap();
//!     let server = Server::new(ServeOptions::default(), &ctx).unwrap();
//!     let listener = tokio::net::TcpListener::bind("127.0.0.1:8000").await.unwrap();
//!     tokio::task::spawn_local(server.run(listener));
//!     host.run(&mut ctx).await;
//! });
//! ```

mod client;
mod rt;
mod server;

pub use client::{HttpFetcher, IDLE_TIMEOUT, MAX_IDLE, MAX_IDLE_PER_HOST};
pub use rt::TokioIo;
pub use server::{OutBody, ServeOptions, Server, ServerStats};

use crate::engine::Cx;
use crate::rust::StreamError;

/// Makes [`HttpFetcher`] the current realm's fetcher: `fetch()` of `http:` URLs goes over
/// hyper's client (a `TypeError` for a context no host made). Its pool of idle connections is
/// the one [`close_idle_connections`] closes.
pub fn install_fetcher(ctx: &mut Cx) -> Result<(), StreamError> {
    let fetcher = HttpFetcher::new();
    crate::rust::set_async_fetcher(fetcher.clone(), ctx)?;
    match crate::engine::agent_data::<InstalledFetchers>(ctx) {
        Some(installed) => installed.0.borrow_mut().push(fetcher),
        None => crate::engine::set_agent_data(
            ctx,
            InstalledFetchers(std::cell::RefCell::new(vec![fetcher])),
        ),
    }
    Ok(())
}

/// The fetchers [`install_fetcher`] made in an agent's realms.
struct InstalledFetchers(std::cell::RefCell<Vec<HttpFetcher>>);

/// Closes the idle keep-alive connections of the fetchers [`install_fetcher`] made for this
/// agent (connections in use are left to finish; they may come back to the pool after): for a
/// shutdown, or before counting a server's open connections.
pub fn close_idle_connections(ctx: &mut Cx) {
    if let Some(installed) = crate::engine::agent_data::<InstalledFetchers>(ctx) {
        for fetcher in installed.0.borrow().iter() {
            fetcher.close_idle();
        }
    }
}

/// Installs the global `serve(handler)` in the current realm: it registers the handler a
/// [`Server`] of this realm's host calls for each request.
pub fn install(ctx: &mut Cx) -> Result<(), StreamError> {
    server::install(ctx).map_err(|e| StreamError::from_js_error(e, ctx))
}
