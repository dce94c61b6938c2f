//! The embedding example from README.md (either engine: `cargo run --example embed`, or with
//! `--no-default-features --features engine-quickjs`).
use boa_streams::host::{Host, HostOptions};

fn main() -> boa_streams::JsResult<()> {
    // A context with the streams globals, the DOM pieces they need (DOMException,
    // AbortSignal, ...), timers, console, and an HTML-ordered event loop.
    let (host, mut ctx) = Host::new(HostOptions::default())?;
    host.eval_script(
        &mut ctx,
        "main.js",
        r#"
        const s = new CountQueuingStrategy({ highWaterMark: 4 });
        console.log(s.highWaterMark, s.size());
    "#,
    )?;
    host.run_until(&mut ctx, None, &mut |_| false); // run the event loop until idle
    Ok(())
}
