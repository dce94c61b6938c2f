//! Serves HTTP/1.1 with a script's handler (`boa_streams::http`).
//!
//! ```text
//! cargo run --release --features http --example serve -- handler.js [--port N] [--host ADDR]
//! cargo run --release --no-default-features --features rquickjs-futures,tokio,http --example serve -- handler.js
//! ```
//!
//! `handler.js` is a classic script that calls the global `serve(handler)`, with a function
//! `(request, info) => Response` (or a promise of one), or an object with such a `fetch`
//! method:
//!
//! ```js
//! serve({ fetch(request, info) { return new Response(`hello ${info.remoteAddr.hostname}\n`); } });
//! ```
//!
//! It prints `listening on http://ADDR:PORT` once the socket is bound (port 0 picks a free
//! one), and the host's reports (uncaught errors, a handler that threw) to stderr as they
//! come. The script may use `fetch()` over `http:` too.

use std::process::ExitCode;

use boa_streams::host::{Host, HostOptions};
use boa_streams::http::{ServeOptions, Server};

fn main() -> ExitCode {
    // Body-sized buffers reuse freed heap instead of fresh mappings (see the function).
    boa_streams::host::keep_freed_memory_mapped();
    let mut file = None;
    let mut port = 8000u16;
    let mut address = "127.0.0.1".to_owned();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--port" => match args.next().and_then(|p| p.parse().ok()) {
                Some(p) => port = p,
                None => return usage("--port needs a number"),
            },
            "--host" => match args.next() {
                Some(a) => address = a,
                None => return usage("--host needs an address"),
            },
            flag if flag.starts_with("--") => return usage(&format!("unknown option {flag}")),
            _ => file = Some(arg),
        }
    }
    let Some(file) = file else {
        return usage("no handler script");
    };
    let source = match std::fs::read_to_string(&file) {
        Ok(source) => source,
        Err(error) => return usage(&format!("{file}: {error}")),
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => return usage(&format!("a runtime: {error}")),
    };
    tokio::task::LocalSet::new().block_on(&runtime, async move {
        let (host, mut ctx) = match Host::new(HostOptions::default()) {
            Ok(made) => made,
            Err(error) => return usage(&format!("a host: {error}")),
        };
        if let Err(error) = boa_streams::http::install(&mut ctx) {
            return usage(&format!("serve: {error}"));
        }
        if let Err(error) = boa_streams::http::install_fetcher(&mut ctx) {
            return usage(&format!("fetch: {error}"));
        }
        if let Err(error) = host.eval_script(&mut ctx, &file, &source) {
            eprintln!(
                "{file}: {}",
                boa_streams::host::error_message(error, &mut ctx)
            );
            return ExitCode::from(1);
        }
        let server = match Server::new(ServeOptions::default(), &ctx) {
            Ok(server) => server,
            Err(error) => return usage(&format!("serve: {error}")),
        };
        let listener = match tokio::net::TcpListener::bind((address.as_str(), port)).await {
            Ok(listener) => listener,
            Err(error) => return usage(&format!("bind {address}:{port}: {error}")),
        };
        match listener.local_addr() {
            Ok(bound) => println!("listening on http://{bound}"),
            Err(error) => return usage(&format!("bind: {error}")),
        }
        tokio::task::spawn_local(server.run(listener));
        // Reports as they come: the loop runs for ever (the server keeps it alive).
        let reporter = host.clone();
        tokio::task::spawn_local(async move {
            loop {
                tokio::time::sleep(std::time::Duration::from_millis(200)).await;
                for report in reporter.take_reports() {
                    eprintln!("{report}");
                }
            }
        });
        host.run(&mut ctx).await;
        ExitCode::SUCCESS
    })
}

fn usage(message: &str) -> ExitCode {
    eprintln!("serve: {message}\nusage: serve HANDLER.js [--port N] [--host ADDR]");
    ExitCode::from(2)
}
