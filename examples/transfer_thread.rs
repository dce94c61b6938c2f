//! A stream transferred to a second agent on its own thread: the main thread writes chunks into
//! a `TransformStream`'s writable side while the other thread reads the readable side, which
//! it received through a `MessagePort` (`postMessage(readable, [readable])`).
//!
//! `cargo run --example transfer_thread` (on QuickJS: `cargo run --no-default-features
//! --features engine-quickjs --example transfer_thread`)

use boa_streams::host::{Host, HostOptions};

fn main() -> Result<(), String> {
    run().map_err(|e| e.to_string())
}

fn run() -> boa_streams::JsResult<()> {
    let (host, mut ctx) = Host::new(HostOptions::default())?;

    // The reader: a second host on its own thread. It gets the stream in a message, reads it
    // to the end, and sends back what it saw.
    let (port, agent) = host.spawn_agent(&mut ctx, HostOptions::default(), |host, ctx, port| {
        host.set_global(ctx, "port", port)?;
        host.eval_script(
            ctx,
            "reader.js",
            r#"
            port.onmessage = async ({ data: readable }) => {
              const reader = readable.getReader();
              let chunks = 0, bytes = 0;
              for (;;) {
                const { value, done } = await reader.read();
                if (done) break;
                chunks += 1;
                bytes += value.byteLength;
                console.log(`reader thread: chunk ${chunks}, ${value.byteLength} bytes, first byte ${value[0]}`);
              }
              port.postMessage({ chunks, bytes });
              port.close();
            };
            "#,
        )?;
        Ok(())
    })?;

    // The writer: this thread. It transfers the readable side and writes into the writable
    // side, one chunk every 10 ms.
    host.set_global(&mut ctx, "port", port)?;
    host.eval_script(
        &mut ctx,
        "writer.js",
        r#"
        const { readable, writable } = new TransformStream();
        port.postMessage(readable, [readable]);
        port.onmessage = ({ data }) => {
          console.log(`main thread: the reader saw ${data.chunks} chunks, ${data.bytes} bytes`);
          port.close();
        };
        (async () => {
          const writer = writable.getWriter();
          for (let i = 1; i <= 8; i++) {
            await new Promise(resolve => setTimeout(resolve, 10));
            await writer.write(new Uint8Array(1024).fill(i));
            console.log(`main thread: wrote chunk ${i} (desiredSize ${writer.desiredSize})`);
          }
          await writer.close();
          console.log('main thread: closed the writer');
        })();
        "#,
    )?;
    // Runs until the reader's answer arrived and both ports are closed.
    host.run_until(&mut ctx, None, &mut |_| false);
    for report in host.take_reports() {
        eprintln!("{report}");
    }
    let exit = agent.join().expect("the reader thread does not panic");
    if let Some(error) = exit.error {
        eprintln!("reader thread: {error}");
    }
    for report in exit.reports {
        eprintln!("reader thread: {report}");
    }
    Ok(())
}
