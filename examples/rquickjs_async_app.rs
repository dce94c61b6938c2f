//! `rquickjs_app` on rquickjs's `AsyncRuntime`/`AsyncContext`, with an async Rust function of
//! the application's own (`cargo run --no-default-features --features rquickjs-futures
//! --example rquickjs_async_app`).
//!
//! The loop: `runtime.idle().await` runs QuickJS's jobs (our microtasks among them) and the
//! application's spawned futures; `boa_streams::quickjs::run_pending_tasks` runs our tasks;
//! `next_timer_at` says how long the application may sleep (with tokio, `sleep_until`). The
//! executor here is a minimal `block_on` (the futures this example awaits only wait on
//! rquickjs's runtime lock, which nothing else holds).

use std::cell::RefCell;
use std::future::Future;
use std::rc::Rc;
use std::task::{Context as TaskContext, Poll, Waker};
use std::time::Instant;

use boa_streams::quickjs::rquickjs::{
    prelude::Async, AsyncContext, AsyncRuntime, CatchResultExt, Function,
};
use boa_streams::quickjs::{self, InstallOptions};

/// Polls `future` to completion on this thread.
fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let mut cx = TaskContext::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            return output;
        }
        std::thread::yield_now();
    }
}

const SCRIPT: &str = r#"
    const bytes = new TextEncoder().encode("héllo wörld €");
    globalThis.done = false;
    new ReadableStream({
        start(c) {
            c.enqueue(bytes.slice(0, 2));
            c.enqueue(bytes.slice(2, bytes.length - 1));
            c.enqueue(bytes.slice(bytes.length - 1));
            c.close();
        },
    })
        .pipeThrough(new TextDecoderStream())
        // The sink awaits the application's async function for each chunk.
        .pipeTo(new WritableStream({ write(chunk) { return rustSink(chunk); } }))
        .then(() => new Blob(["from a ", "blob"]).text())
        .then(rustSink)
        .then(() => { globalThis.done = true; });
"#;

async fn run() -> Result<Vec<String>, Box<dyn std::error::Error>> {
    let runtime = AsyncRuntime::new()?;
    let context = AsyncContext::full(&runtime).await?;
    let received = Rc::new(RefCell::new(Vec::<String>::new()));
    let sink = Rc::clone(&received);
    context
        .with(move |ctx| -> Result<(), Box<dyn std::error::Error>> {
            // The application's own async function: JS gets a promise.
            let rust_sink = Function::new(
                ctx.clone(),
                Async(move |text: String| {
                    let sink = Rc::clone(&sink);
                    async move {
                        sink.borrow_mut().push(text);
                    }
                }),
            )?;
            ctx.globals().set("rustSink", rust_sink)?;
            quickjs::install(&ctx, InstallOptions::default())?;
            ctx.eval::<(), _>(SCRIPT)
                .catch(&ctx)
                .map_err(|e| e.to_string())?;
            Ok(())
        })
        .await?;

    loop {
        runtime.idle().await;
        let ran = context.with(|ctx| quickjs::run_pending_tasks(&ctx)).await?;
        if ran > 0 || runtime.is_job_pending().await {
            continue;
        }
        match context.with(|ctx| quickjs::next_timer_at(&ctx)).await {
            Some(at) => std::thread::sleep(at.saturating_duration_since(Instant::now())),
            None => break,
        }
    }
    let done: bool = context
        .with(|ctx| ctx.globals().get::<_, bool>("done"))
        .await?;
    assert!(done, "the pipe and the blob read finished");
    let received = received.borrow().clone();
    Ok(received)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let received = block_on(run())?;
    println!("rustSink received {received:?}");
    assert_eq!(received.last().map(String::as_str), Some("from a blob"));
    let text: String = received[..received.len() - 1].concat();
    assert_eq!(text, "héllo wörld €");
    Ok(())
}
