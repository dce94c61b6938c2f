//! Rejection tracking in the shape of modern-tar 0.8.6's strict `createTarDecoder` over a
//! truncated archive: a `{ readable, writable }` decoder pair that an archive is piped into,
//! whose writable side hooks its controller's abort signal and whose failure errors the
//! readable side, read by a consumer that catches the error (HTML's "notify about rejected
//! promises": a promise rejected without a handler and handled later in the same microtask
//! checkpoint is not reported).

use boa_streams::host::HostReport;

use super::support::script::{run_host_actions, TestAction};

/// The decoder pair and the truncated archive piped into it (`log` records what happens).
const DECODER: &str = r"
    let readableController;
    let failure;
    const decoder = {
      readable: new ReadableStream({ start(c) { readableController = c; } }),
      writable: new WritableStream({
        start(controller) {
          // The decoder's failure is made in the abort listener...
          controller.signal.onabort = () => {
            failure = Promise.reject(controller.signal.reason);
            log.push('abort event');
          };
        },
        write(chunk) { readableController.enqueue(chunk); },
        // ...and handled by the sink's abort, which the same abort steps call next.
        abort(reason) {
          log.push('sink abort');
          failure.catch(() => log.push('failure handled'));
          readableController.error(reason);
        },
      }),
    };
    let pulls = 0;
    const archive = new ReadableStream({
      pull(c) {
        if (pulls++ === 0) c.enqueue('header');
        else c.error(new Error('Tar archive is truncated.'));
      },
    });
";

/// The pipe aborts the decoder's writable side from one of its microtasks, with no script on
/// the stack: the abort listener's "clean up after running script" asks for a microtask
/// checkpoint while one is being performed. That request must do nothing (HTML's "performing
/// a microtask checkpoint" flag): the QuickJS host used to run a nested checkpoint there and
/// report `failure` before the sink's abort handled it ("Unhandled promise rejection: Error:
/// Tar archive is truncated.", where Node, Deno and Boa report nothing).
#[test]
fn a_rejection_handled_later_in_its_checkpoint_is_not_reported_across_an_abort_listener() {
    run_host_actions([
        TestAction::run(format!(
            r"{DECODER}
            archive.pipeTo(decoder.writable).catch(() => log.push('pipe rejected'));
            (async () => {{
              const reader = decoder.readable.getReader();
              try {{
                for (;;) {{
                  const {{ done, value }} = await reader.read();
                  if (done) break;
                  log.push('read ' + value);
                }}
              }} catch (e) {{
                log.push('caught ' + e.message);
                await reader.cancel(e).catch(() => {{}});
              }}
            }})();"
        )),
        TestAction::run_to_idle(),
        TestAction::assert_log(
            "read header,abort event,sink abort,failure handled,\
             caught Tar archive is truncated.,pipe rejected",
        ),
        TestAction::inspect_host(|host, _| assert_eq!(host.take_reports(), [])),
    ]);
}

/// The same decoder read with `for await`, whose body throws once the decoder has failed: the
/// loop calls the stream iterator's `return()`, whose promise rejects with the stream's error. ECMAScript's
/// AsyncIteratorClose awaits that promise (so it is handled) before the body's throw wins: Boa
/// reports nothing, as Node and Deno. quickjs-ng 0.16.2 calls `return()` without awaiting it
/// (ENGINE_BUGS.md, 5), so the promise really is never handled there, and the host reports it
/// as HTML has it: an engine divergence, not the host's tracking.
#[test]
fn for_await_over_an_errored_decoder_reports_only_what_the_engine_leaves_unhandled() {
    run_host_actions([
        TestAction::run(format!(
            r"{DECODER}
            archive.pipeTo(decoder.writable).catch(() => log.push('pipe rejected'));
            (async () => {{
              try {{
                for await (const entry of decoder.readable) {{
                  log.push('entry ' + entry);
                  // Reading the entry's body fails once the decoder has failed.
                  await new Promise((_, reject) =>
                    setTimeout(() => reject(new Error('entry body: truncated')), 0));
                }}
              }} catch (e) {{
                log.push('caught ' + e.message);
              }}
            }})();"
        )),
        TestAction::run_to_idle(),
        TestAction::assert_log(
            "entry header,abort event,sink abort,failure handled,pipe rejected,\
             caught entry body: truncated",
        ),
        TestAction::inspect_host(|host, _| {
            let expected: &[HostReport] = if cfg!(feature = "engine-boa") {
                &[]
            } else {
                &[HostReport::UnhandledRejection(
                    "Error: Tar archive is truncated.".to_owned(),
                )]
            };
            assert_eq!(host.take_reports(), expected);
        }),
    ]);
}
