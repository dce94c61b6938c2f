//! The structured-clone target's check (`fuzz_targets/structured_clone.rs`), shared with
//! `tests/fuzz_corpus.rs` (the seed corpus replayed as an ordinary cargo test).
//!
//! What an attacker controls. The records of `src/html/serialize.rs` (`Record`,
//! `SerializedWithTransfer`) never exist as bytes: a message crosses to another thread as those
//! Rust values, moved through the port's queue (`PortCore`) inside one process, and only
//! `StructuredSerializeWithTransfer` makes them, from a live JS value. No code path decodes a
//! record from untrusted bytes, so a fuzzer that forged records would test states no input can
//! reach. A script controls the value graph and the transfer list it hands to the serializer,
//! and what runs while the serializer walks it (getters); that is what this target builds from
//! the fuzzer's bytes: a graph of every cloneable kind (nesting, cycles, shared objects, sparse
//! arrays, views at odd offsets over shared buffers, errors with odd names, Blobs, ports,
//! streams with queued chunks) and a few that are not, a transfer list that may disagree with
//! the graph (duplicates, non-transferables, buffers viewed by the graph, detached or locked
//! objects), and getters that detach, transfer, close or clone while serialization runs. The
//! value goes through `structuredClone()`, a `MessageChannel`, or an agent on another thread
//! that posts it back (two thread crossings), on the build's engine.
//!
//! The oracle: no panic (a borrow panic included) and no crash; and when no getter ran script,
//! a clone that succeeds describes exactly as the original did before it was sent (kinds,
//! contents, identity), transferred buffers are detached and transferred streams locked, the
//! chunks of transferred streams arrive as they were queued, and a clone that fails throws a
//! "DataCloneError" DOMException.

use std::time::{Duration, Instant};

use boa_streams::host::{test_api, Context, Host, HostOptions, HostReport};

/// The harness the generated program runs in (its `build()` and settings follow it).
const HARNESS: &str = include_str!("clone_harness.js");

/// The agent of route 2: posts every message back, transferring the ports and streams in it.
const ECHO: &str = r#"
port.onmessage = (e) => {
  const transfer = [...e.ports];
  const seen = new Set();
  const walk = (v) => {
    if (v === null || typeof v !== 'object' || seen.has(v)) return;
    seen.add(v);
    if (v instanceof ReadableStream || v instanceof WritableStream || v instanceof TransformStream) {
      transfer.push(v);
    } else if (v instanceof MessagePort) {
      if (!transfer.includes(v)) transfer.push(v);
    } else if (v instanceof Map) {
      for (const [a, b] of v) { walk(a); walk(b); }
    } else if (v instanceof Set) {
      for (const a of v) walk(a);
    } else if (Array.isArray(v) || Object.getPrototypeOf(v) === Object.prototype) {
      for (const k of Object.keys(v)) walk(v[k]);
    }
  };
  walk(e.data);
  try {
    port.postMessage(e.data, transfer);
  } catch (err) {
    port.postMessage({ __echoError: String(err) });
  }
};
port.onmessageerror = () => port.postMessage({ __echoError: 'messageerror' });
"#;

/// A program made from fuzzer bytes.
#[derive(Debug)]
pub struct Program {
    /// 0: `structuredClone()`; 1: a `MessageChannel`; 2: an agent on another thread.
    pub route: u8,
    /// Run under GC stress (a collection before every task and after every microtask).
    pub gc_stress: bool,
    /// The generated part (`build()` and the settings), run after [`HARNESS`].
    pub source: String,
}

/// Reads choices from the fuzzer's bytes (zeros once they run out).
struct Choices<'a> {
    data: &'a [u8],
}

impl Choices<'_> {
    fn byte(&mut self) -> u8 {
        match self.data.split_first() {
            Some((&b, rest)) => {
                self.data = rest;
                b
            }
            None => 0,
        }
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            self.byte() as usize % n
        }
    }
}

/// The kinds of node the generator makes, for the edges and the transfer list to aim at.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Other,
    Container,
    Buffer,
    Port,
    Readable,
    Stream,
}

/// Generates the program `data` describes.
pub fn generate(data: &[u8]) -> Program {
    let mut c = Choices { data };
    let header = c.byte();
    let route = header % 3;
    let gc_stress = header & 0x80 != 0;
    let count = 1 + c.below(24);
    let mut kinds = Vec::with_capacity(count);
    let mut body = String::new();
    for i in 0..count {
        let (kind, expr) = match c.below(20) {
            0 => (Kind::Other, format!("PRIMS[{}]", c.byte())),
            1 => (Kind::Container, "{}".to_owned()),
            2 => {
                let lengths = ["0", "1", "3", "100", "4294967295"];
                let length = lengths[c.below(lengths.len())];
                (Kind::Container, format!("new Array({length})"))
            }
            3 => (Kind::Container, "new Map()".to_owned()),
            4 => (Kind::Container, "new Set()".to_owned()),
            5 => (Kind::Other, format!("new Date(DATES[{} % 7])", c.byte())),
            6 => (
                Kind::Other,
                format!(
                    "new RegExp(SOURCES[{} % 9], FLAGS[{} % 10])",
                    c.byte(),
                    c.byte()
                ),
            ),
            7 => (Kind::Other, format!("Object(PRIMS[{} % 29])", c.byte())),
            8 => (Kind::Buffer, format!("ab({})", bytes(&mut c))),
            9 => {
                let buffer = c.below(i + 1);
                let (k, off, len) = (c.byte(), c.byte() % 40, c.byte() % 40);
                (Kind::Other, format!("view({k}, n[{buffer}], {off}, {len})"))
            }
            10 => {
                let name = match c.byte() {
                    b if b < 128 => "undefined".to_owned(),
                    b => format!("NAMES[{}]", b % 7),
                };
                (
                    Kind::Other,
                    format!("error({}, {} % 29, {name})", c.byte(), c.byte()),
                )
            }
            11 => (
                Kind::Other,
                format!(
                    "new DOMException(String(PRIMS[{} % 29]), NAMES[{} % 7])",
                    c.byte(),
                    c.byte()
                ),
            ),
            12 => {
                let types = ["''", "'text/plain'", "'A/B;x=\"y\"'", "'\\u00ff'"];
                let ty = types[c.below(types.len())];
                let content = bytes(&mut c);
                if c.byte() & 1 == 0 {
                    (
                        Kind::Other,
                        format!("new Blob([ab({content})], {{ type: {ty} }})"),
                    )
                } else {
                    (
                        Kind::Other,
                        format!(
                            "new File([ab({content})], String(PRIMS[{} % 29]), {{ type: {ty}, lastModified: {} }})",
                            c.byte(),
                            c.byte()
                        ),
                    )
                }
            }
            13 | 19 if i > 0 => {
                let j = c.below(i);
                (kinds[j], format!("n[{j}]"))
            }
            14 => {
                let odd = [
                    "() => 1",
                    "Symbol('s')",
                    "new WeakMap()",
                    "Promise.resolve()",
                    "new Proxy({}, {})",
                    "Object.create(null)",
                    "new (class K { constructor() { this.a = 1; } })()",
                    "new ArrayBuffer(8, { maxByteLength: 16 })",
                    "new Uint8Array(new ArrayBuffer(8, { maxByteLength: 16 }))",
                    "typeof SharedArrayBuffer === 'function' ? new SharedArrayBuffer(4) : 0",
                    "new Error('m', { cause: 1 })",
                    "(() => { const b = ab([1, 2]); structuredClone(b, { transfer: [b] }); return b; })()",
                    "(() => { const r = new ReadableStream(); r.getReader(); return r; })()",
                    "(function () { return arguments; })(1, 2)",
                ];
                let k = c.below(odd.len());
                let kind = match k {
                    5 | 6 => Kind::Container,
                    7 | 11 => Kind::Buffer,
                    12 => Kind::Stream,
                    _ => Kind::Other,
                };
                (kind, odd[k].to_owned())
            }
            15 => (Kind::Port, "new MessageChannel().port1".to_owned()),
            16 => (Kind::Readable, format!("readable({i})")),
            17 => (Kind::Stream, format!("writable({i})")),
            18 => (Kind::Stream, "new TransformStream()".to_owned()),
            _ => (Kind::Other, format!("PRIMS[{} % 29]", c.byte())),
        };
        kinds.push(kind);
        body.push_str(&format!("  n[{i}] = {expr};\n"));
    }
    let containers: Vec<usize> = (0..count)
        .filter(|&i| kinds[i] == Kind::Container)
        .collect();
    let transferables: Vec<usize> = (0..count)
        .filter(|&i| {
            matches!(
                kinds[i],
                Kind::Buffer | Kind::Port | Kind::Readable | Kind::Stream
            )
        })
        .collect();
    // Edges: properties, map entries and set members (a getter now and then).
    if !containers.is_empty() {
        for _ in 0..c.below(40) {
            let i = containers[c.below(containers.len())];
            let (op, k, j) = (c.byte(), c.byte(), c.below(count));
            if op % 16 == 15 {
                let (effect, x) = (c.byte(), c.byte());
                body.push_str(&format!("  get({i}, {k}, {j}, {effect}, {x});\n"));
            } else {
                body.push_str(&format!("  set({i}, {k}, {j});\n"));
            }
        }
    }
    // The chunks queued in the generated readable streams.
    for i in (0..count).filter(|&i| kinds[i] == Kind::Readable) {
        let chunks: Vec<String> = (0..c.below(4))
            .map(|_| c.below(count).to_string())
            .collect();
        body.push_str(&format!("  enqueue({i}, [{}]);\n", chunks.join(", ")));
    }
    body.push_str(&format!("  root = n[{}];\n", c.below(count)));
    // The transfer list: mostly transferables, sometimes anything, or the same one twice.
    let mut transfer: Vec<String> = Vec::new();
    for _ in 0..c.below(5) {
        let b = c.byte();
        let item = match b % 8 {
            0 => format!("n[{}]", c.below(count)),
            1 => "{}".to_owned(),
            2 if !transfer.is_empty() => transfer[c.below(transfer.len())].clone(),
            _ if !transferables.is_empty() => {
                format!("n[{}]", transferables[c.below(transferables.len())])
            }
            _ => format!("n[{}]", c.below(count)),
        };
        transfer.push(item);
    }
    body.push_str(&format!("  T = [{}];\n", transfer.join(", ")));
    let source = format!("ROUTE = {route};\nfunction build() {{\n{body}}}\nrun();\n");
    Program {
        route,
        gc_stress,
        source,
    }
}

/// An array literal of up to 32 bytes from the input.
fn bytes(c: &mut Choices<'_>) -> String {
    let length = c.below(33);
    let bytes: Vec<String> = (0..length).map(|_| c.byte().to_string()).collect();
    format!("[{}]", bytes.join(", "))
}

/// How long one program may run (its event loop, past the script).
const RUN_TIME: Duration = Duration::from_secs(3);

/// Structured clone of a value graph from fuzzer bytes: panics on a finding; returns the
/// program.
pub fn structured_clone(data: &[u8]) -> String {
    let program = generate(data);
    let findings = run(&program);
    assert!(
        findings.is_empty(),
        "{}\n--- program ---\n{}",
        findings.join("\n"),
        program.source
    );
    program.source
}

/// Runs `program` on a fresh host; returns its findings.
pub fn run(program: &Program) -> Vec<String> {
    let options = HostOptions {
        console_to_stderr: true,
        gc_stress: program.gc_stress.then_some(1),
        time_limit: Some(Duration::from_secs(10)),
        loop_iteration_limit: Some(50_000_000),
        ..HostOptions::default()
    };
    let (host, mut ctx) = Host::new(options.clone()).expect("a host");
    let mut agent = None;
    if program.route == 2 {
        let (port, thread) = host
            .spawn_agent(&mut ctx, options, |host, ctx, port| {
                host.set_global(ctx, "port", port)?;
                host.eval_script(ctx, "echo.js", ECHO)?;
                Ok(())
            })
            .expect("an agent");
        host.set_global(&mut ctx, "agentPort", port)
            .expect("agentPort");
        agent = Some(thread);
    }
    let mut findings = Vec::new();
    let script = format!("{HARNESS}\n{}", program.source);
    if let Err(error) = host.eval_script(&mut ctx, "clone.js", &script) {
        findings.push(format!(
            "the program threw: {}",
            boa_streams::host::error_message(error, &mut ctx)
        ));
    }
    // Until the value arrived (or failed) and the transferred streams' reads and writes
    // settled: what is left then (a transferred stream nobody reads, piping into a port) would
    // keep the loop waiting for messages until the deadline.
    host.run_until(&mut ctx, Some(Instant::now() + RUN_TIME), &mut settled);
    let mut limited = false;
    for report in host.take_reports() {
        match report {
            HostReport::LimitExceeded(_) => limited = true,
            // Script errors are the program's (a getter that throws, a rejected read).
            HostReport::UncaughtError(_) | HostReport::UnhandledRejection(_) => {}
        }
    }
    if !limited {
        let summary = host.eval_script(
            &mut ctx,
            "result.js",
            "[...__clone.mismatches, ...(PURE && !__clone.done ? ['the message never arrived'] : []),
              ...(PURE && __clone.pending > 0 ? ['a transferred stream never settled'] : [])].join('\\n')",
        );
        match summary {
            Ok(value) => {
                let text = string(value, &mut ctx);
                findings.extend(text.lines().map(str::to_owned));
            }
            Err(error) => findings.push(format!(
                "the result is unreadable: {}",
                boa_streams::host::error_message(error, &mut ctx)
            )),
        }
    } else {
        findings.clear();
    }
    drop(ctx);
    drop(host);
    if let Some(agent) = agent {
        match agent.join() {
            Ok(exit) => {
                if let Some(error) = exit.error {
                    findings.push(format!("the agent failed: {error}"));
                }
            }
            Err(_) => findings.push("the agent's thread panicked".to_owned()),
        }
    }
    findings
}

/// The harness says the value arrived (or failed) and the streams' reads and writes settled.
fn settled(ctx: &mut Context) -> bool {
    test_api::evaluate(ctx, "__clone.done && __clone.pending <= 0")
        .is_ok_and(|value| value.as_boolean() == Some(true))
}

fn string(value: boa_streams::Value, ctx: &mut Context) -> String {
    value
        .to_string(ctx)
        .map(|s| s.to_std_string_escaped())
        .unwrap_or_default()
}
