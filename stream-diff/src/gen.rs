//! A seeded generator of random stream programs.
//!
//! A program is a `var` line declaring every name it uses, then a list of statements, each one
//! line and each self-contained: it runs inside `step(label, ...)` (now), `soon(n, label, ...)`
//! (after n microtasks) or `later(n, label, ...)` (after n `setTimeout(0)` tasks), so an
//! exception is logged rather than ending the program, and removing any statement (the
//! shrinker does) still leaves a valid program. Every callback is traced, every promise
//! watched. No `Math.random`, no clock: a program's events depend on its text only.

use std::fmt::Write as _;

/// A `Uint8Array` whose buffer has been detached (`ArrayBuffer.prototype.transfer`).
const DETACHED_VIEW: &str =
    "(() => { const v = new Uint8Array(2); v.buffer.transfer(); return v; })()";

/// splitmix64: tiny, fast, and good enough for picking program shapes; or, for a fuzzer, the
/// bytes it gives (two per choice), then splitmix64 once they run out.
#[derive(Debug, Clone)]
pub struct Rng {
    state: u64,
    input: Vec<u8>,
    position: usize,
}

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng {
            state: seed,
            input: Vec::new(),
            position: 0,
        }
    }

    /// Choices read from `bytes` (a fuzzer's input), two bytes each: the same bytes give the
    /// same program, and a change to a byte changes one choice.
    pub fn from_bytes(bytes: &[u8]) -> Rng {
        Rng {
            state: 0,
            input: bytes.to_vec(),
            position: 0,
        }
    }

    pub fn next_u64(&mut self) -> u64 {
        if let Some(pair) = self.input.get(self.position..self.position + 2) {
            self.position += 2;
            return u64::from(u16::from_le_bytes([pair[0], pair[1]]));
        }
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// True with probability `percent`/100.
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    /// Picks an index by weight.
    pub fn weighted(&mut self, weights: &[usize]) -> usize {
        let total: usize = weights.iter().sum();
        let mut x = self.below(total.max(1));
        for (i, w) in weights.iter().enumerate() {
            if x < *w {
                return i;
            }
            x -= w;
        }
        weights.len() - 1
    }
}

/// The seed of program `index` of a run with `seed`.
pub fn program_seed(seed: u64, index: u64) -> u64 {
    Rng::new(seed ^ index.wrapping_mul(0xD1B5_4A32_D192_ED03)).next_u64()
}

/// A generated program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Program {
    pub seed: u64,
    pub index: u64,
    /// `var a, b, ...;`
    pub header: String,
    pub stmts: Vec<String>,
}

impl Program {
    /// The replayable script (run it with `stream-diff FILE`).
    pub fn to_js(&self) -> String {
        let mut out = format!(
            "// stream-diff program: --seed {} index {}\n{}\n",
            self.seed, self.index, self.header
        );
        for s in &self.stmts {
            out.push_str(s);
            out.push('\n');
        }
        out
    }

    pub fn with_stmts(&self, stmts: Vec<String>) -> Program {
        Program {
            stmts,
            ..self.clone()
        }
    }
}

#[derive(Clone)]
struct Readable {
    name: String,
    bytes: bool,
    /// Transform streams whose readable side feeds this stream (directly or through pipes):
    /// piping it into one of their writable sides would make a loop that never ends.
    origins: Vec<String>,
}

#[derive(Clone)]
struct Writable {
    name: String,
    /// The transform stream this is the writable side of.
    transform: Option<String>,
}

#[derive(Clone)]
struct Reader {
    name: String,
    byob: bool,
    /// The stream it reads.
    stream: String,
}

#[derive(Clone, Copy, PartialEq)]
enum CtrlKind {
    Default,
    Byte,
    Writable,
    Transform,
}

#[derive(Clone)]
struct Ctrl {
    name: String,
    kind: CtrlKind,
}

struct Gen {
    rng: Rng,
    id: usize,
    chunk: usize,
    vars: Vec<String>,
    stmts: Vec<String>,
    readables: Vec<Readable>,
    writables: Vec<Writable>,
    transforms: Vec<String>,
    readers: Vec<Reader>,
    writers: Vec<String>,
    iterators: Vec<String>,
    ctrls: Vec<Ctrl>,
    acs: Vec<String>,
}

/// Generates program `index` of a run with `seed`.
pub fn generate(seed: u64, index: u64) -> Program {
    generate_with(Rng::new(program_seed(seed, index)), seed, index)
}

/// Generates the program whose choices a fuzzer's `bytes` make ([`Rng::from_bytes`]).
pub fn generate_from_bytes(bytes: &[u8]) -> Program {
    generate_with(Rng::from_bytes(bytes), 0, 0)
}

fn generate_with(rng: Rng, seed: u64, index: u64) -> Program {
    let mut g = Gen {
        rng,
        id: 0,
        chunk: 0,
        vars: Vec::new(),
        stmts: Vec::new(),
        readables: Vec::new(),
        writables: Vec::new(),
        transforms: Vec::new(),
        readers: Vec::new(),
        writers: Vec::new(),
        iterators: Vec::new(),
        ctrls: Vec::new(),
        acs: Vec::new(),
    };
    // Operations (a new stream counts as one, however many statements build it).
    let n = 6 + g.rng.below(16);
    for _ in 0..n {
        g.statement();
    }
    let header = if g.vars.is_empty() {
        String::new()
    } else {
        format!("var {};", g.vars.join(", "))
    };
    Program {
        seed,
        index,
        header,
        stmts: g.stmts,
    }
}

impl Gen {
    fn fresh(&mut self, prefix: &str) -> String {
        self.id += 1;
        let name = format!("{prefix}{}", self.id);
        self.vars.push(name.clone());
        name
    }

    fn label(&self) -> String {
        format!("s{}", self.stmts.len() + 1)
    }

    /// A statement that runs now.
    fn now(&mut self, body: String) {
        let label = self.label();
        self.stmts
            .push(format!("step('{label}', () => {{ {body} }});"));
    }

    /// A statement that runs now, after some microtasks, or after some tasks.
    fn timed(&mut self, body: String) {
        let label = self.label();
        let s = match self.rng.weighted(&[5, 3, 3]) {
            0 => format!("step('{label}', () => {{ {body} }});"),
            1 => format!(
                "soon({}, '{label}', () => {{ {body} }});",
                1 + self.rng.below(8)
            ),
            _ => format!(
                "later({}, '{label}', () => {{ {body} }});",
                1 + self.rng.below(3)
            ),
        };
        self.stmts.push(s);
    }

    fn statement(&mut self) {
        let have_rs = !self.readables.is_empty();
        let have_ws = !self.writables.is_empty();
        let weights = [
            if self.readables.len() < 4 { 8 } else { 2 }, // 0 new default readable
            if self.readables.len() < 4 { 5 } else { 1 }, // 1 new byte readable
            3,                                            // 2 from
            if self.writables.len() < 3 { 5 } else { 1 }, // 3 new writable
            if self.transforms.len() < 2 { 3 } else { 1 }, // 4 new transform
            if have_rs { 2 } else { 0 },                  // 5 tee
            if have_rs { 8 } else { 0 },                  // 6 get reader
            if self.readers.is_empty() { 0 } else { 14 }, // 7 reader op
            if have_rs { 3 } else { 0 },                  // 8 stream op
            if have_rs { 3 } else { 0 },                  // 9 async iteration
            if have_ws { 6 } else { 0 },                  // 10 get writer
            if self.writers.is_empty() { 0 } else { 12 }, // 11 writer op
            if have_ws { 2 } else { 0 },                  // 12 writable op
            if have_rs && have_ws { 12 } else { 0 },      // 13 pipeTo
            if have_rs && !self.transforms.is_empty() {
                4
            } else {
                0
            }, // 14 pipeThrough
            3,                                            // 15 abort controller
            if self.acs.is_empty() { 0 } else { 4 },      // 16 abort
            if self.ctrls.is_empty() { 0 } else { 8 },    // 17 controller op
            if self.iterators.is_empty() { 0 } else { 6 }, // 18 iterator op
            1,                                            // 19 patch a builtin
            if self.readers.is_empty() { 0 } else { 3 },  // 20 release and re-acquire
        ];
        match self.rng.weighted(&weights) {
            0 => self.new_readable(false),
            1 => self.new_readable(true),
            2 => self.new_from(),
            3 => self.new_writable(),
            4 => self.new_transform(),
            5 => self.tee(),
            6 => self.get_reader(),
            7 => self.reader_op(),
            8 => self.stream_op(),
            9 => self.async_iteration(),
            10 => self.get_writer(),
            11 => self.writer_op(),
            12 => self.writable_op(),
            13 => self.pipe_to(),
            14 => self.pipe_through(),
            15 => {
                let ac = self.fresh("ac");
                self.acs.push(ac.clone());
                // Now and then an `abort` listener registered before any pipe uses the signal.
                let listener = if self.rng.chance(40) {
                    format!(" {ac}.signal.addEventListener('abort', () => log('{ac} listener'));")
                } else {
                    String::new()
                };
                self.now(format!("{ac} = new AbortController();{listener}"));
            }
            16 => {
                let ac = self.rng.pick(&self.acs).clone();
                let reason = self.reason();
                self.timed(format!("{ac}.abort({reason});"));
            }
            17 => {
                let c = self.rng.pick(&self.ctrls).clone();
                let body = self.ctrl_actions(&c, 1);
                self.timed(body);
            }
            18 => self.iterator_op(),
            19 => self.patch_builtin(),
            _ => self.reacquire(),
        }
    }

    // ----- values -----

    fn chunk(&mut self) -> String {
        self.chunk += 1;
        let k = self.chunk;
        match self.rng.weighted(&[10, 3, 1, 1, 1, 1, 1]) {
            0 => format!("{k}"),
            1 => format!("'c{k}'"),
            2 => format!("{{ k: {k} }}"),
            3 => format!("[{k}, -0]"),
            4 => self
                .rng
                .pick(&["undefined", "null", "NaN", "-0", "10n"])
                .to_string(),
            5 => format!("new Uint8Array([{k}])"),
            // Thenable chunks: a chunk is never adopted, but a read result resolving a promise
            // looks its `then` up... on the result object, not on the chunk.
            _ => match self.rng.below(3) {
                0 => format!("{{ k: {k}, then(r) {{ log('thenable{k}.then'); r('t{k}'); }} }}"),
                1 => format!(
                    "{{ k: {k}, get then() {{ log('thenable{k}.get then'); return undefined; }} }}"
                ),
                _ => format!("resolved({k})"),
            },
        }
    }

    fn byte_chunk(&mut self) -> String {
        self.chunk += 1;
        let k = self.chunk % 200;
        match self.rng.weighted(&[10, 3, 2, 2, 1, 1, 1, 1, 1, 2]) {
            0 => format!("new Uint8Array([{k}, {}])", k + 1),
            1 => format!("new Uint8Array([{k}, {}, {}, {}])", k + 1, k + 2, k + 3),
            2 => format!("new Uint16Array([{k}])"),
            3 => format!(
                "new Uint8Array(new ArrayBuffer(6), {}, {})",
                self.rng.below(3),
                1 + self.rng.below(3)
            ),
            4 => "new DataView(new ArrayBuffer(3), 1)".to_owned(),
            5 => "new Float64Array([1.5, -0])".to_owned(),
            6 => "new Uint8Array(0)".to_owned(),
            // A view whose buffer has been detached.
            7 => DETACHED_VIEW.to_owned(),
            8 => self
                .rng
                .pick(&["'x'", "new ArrayBuffer(2)", "[1]"])
                .to_string(),
            // Views on resizable and shared buffers: WebIDL's ArrayBufferView conversion
            // without [AllowResizable] / [AllowShared] throws.
            _ => self.odd_buffer_view(),
        }
    }

    /// A view on a resizable `ArrayBuffer`, a `SharedArrayBuffer` or a growable one (a
    /// TypeError where an `ArrayBufferView` argument lacks `[AllowResizable]` /
    /// `[AllowShared]`).
    fn odd_buffer_view(&mut self) -> String {
        let buffer = *self.rng.pick(&[
            "new ArrayBuffer(4, { maxByteLength: 8 })",
            "new ArrayBuffer(4, { maxByteLength: 8 })",
            "new SharedArrayBuffer(4)",
            "new SharedArrayBuffer(4, { maxByteLength: 8 })",
        ]);
        match self.rng.below(3) {
            0 => format!("new Uint8Array({buffer})"),
            1 => format!("new Uint8Array({buffer}, 1, 2)"),
            _ => format!("new DataView({buffer})"),
        }
    }

    fn view(&mut self) -> String {
        match self.rng.weighted(&[8, 3, 2, 2, 1, 1, 1, 1, 2]) {
            0 => format!("new Uint8Array({})", 1 + self.rng.below(6)),
            1 => format!("new Uint16Array({})", 1 + self.rng.below(3)),
            2 => format!(
                "new Uint8Array(new ArrayBuffer(8), {}, {})",
                self.rng.below(4),
                1 + self.rng.below(4)
            ),
            3 => "new DataView(new ArrayBuffer(4))".to_owned(),
            4 => "new Uint32Array(1)".to_owned(),
            5 => "new Uint8Array(0)".to_owned(),
            6 => DETACHED_VIEW.to_owned(),
            7 => "new ArrayBuffer(4)".to_owned(),
            _ => self.odd_buffer_view(),
        }
    }

    fn reason(&mut self) -> String {
        let label = self.label();
        match self.rng.weighted(&[5, 2, 2, 1]) {
            0 => format!("err('{label}')"),
            1 => "undefined".to_owned(),
            2 => format!("'{label}'"),
            _ => "42".to_owned(),
        }
    }

    fn hwm(&mut self) -> &'static str {
        const HWMS: [&str; 8] = ["0", "1", "1", "2", "4", "Infinity", "-1", "NaN"];
        HWMS[self.rng.below(HWMS.len())]
    }

    fn strategy(&mut self, name: &str, allow_size: bool) -> Option<String> {
        match self
            .rng
            .weighted(&[4, 4, if allow_size { 3 } else { 0 }, 1, 1])
        {
            0 => None,
            1 => Some(format!("{{ highWaterMark: {} }}", self.hwm())),
            2 => {
                let size = match self.rng.weighted(&[4, 2, 1, 1]) {
                    0 => "() => 1",
                    1 => "(chunk) => 2",
                    2 => "() => -1",
                    _ => "() => { throw err('size'); }",
                };
                Some(format!(
                    "{{ highWaterMark: {}, size: traced('{name}.size', {size}) }}",
                    self.hwm()
                ))
            }
            3 => Some(format!(
                "new CountQueuingStrategy({{ highWaterMark: {} }})",
                self.hwm()
            )),
            _ => Some("new ByteLengthQueuingStrategy({ highWaterMark: 8 })".to_owned()),
        }
    }

    // ----- callbacks -----

    /// Wraps callback actions in a random outcome: sync, after a microtask, after a task,
    /// throwing, rejecting, or (rarely) never settling.
    fn outcome(&mut self, name: &str, actions: String) -> String {
        match self.rng.weighted(&[8, 4, 3, 2, 2, 1, 1, 1]) {
            0 => actions,
            1 => format!("return afterMicrotask(() => {{ {actions} }});"),
            2 => format!("return afterTask(() => {{ {actions} }});"),
            3 => format!("{actions} throw err('{name}');"),
            4 => format!("{actions} return rejected(err('{name}'));"),
            5 => format!("{actions} return new Promise(() => {{}});"),
            // A throw several frames down that escapes the callback.
            6 => format!(
                "deep({}, () => {{ {actions} throw err('{name}'); }});",
                1 + self.rng.below(3)
            ),
            // A throw several frames down (the actions' own, or ours) caught inside the
            // callback, at one of the frames between.
            _ => {
                let depth = 1 + self.rng.below(3);
                let at = self.rng.below(depth + 1);
                format!(
                    "deepCatch({depth}, {at}, '{name}', () => {{ {actions} throw err('{name}'); }});"
                )
            }
        }
    }

    /// 0..=max actions on controller `c` (as statements).
    fn ctrl_actions(&mut self, c: &Ctrl, max: usize) -> String {
        let n = if max == 1 { 1 } else { self.rng.below(max + 1) };
        let mut out = String::new();
        for _ in 0..n {
            let a = self.ctrl_action(c);
            out.push_str(&a);
            out.push(' ');
        }
        // Now and then something re-entrant on another object.
        if max > 1 && self.rng.chance(12) {
            if let Some(a) = self.cross_action() {
                out.push_str(&a);
            }
        }
        out
    }

    fn ctrl_action(&mut self, c: &Ctrl) -> String {
        let n = &c.name;
        match c.kind {
            CtrlKind::Default => match self.rng.weighted(&[10, 2, 1, 2]) {
                0 => format!("enq({n}, {}, '{n}.enqueue');", self.chunk()),
                1 => format!("{n}.close();"),
                2 => format!("{n}.error(err('{n}'));"),
                _ => format!("log('{n}.desiredSize', {n}.desiredSize);"),
            },
            CtrlKind::Byte => match self.rng.weighted(&[8, 2, 1, 1, 6, 2, 1]) {
                0 => format!("enq({n}, {}, '{n}.enqueue');", self.byte_chunk()),
                1 => format!("{n}.close();"),
                2 => format!("{n}.error(err('{n}'));"),
                3 => format!("log('{n}.desiredSize', {n}.desiredSize);"),
                4 => {
                    let amount = self.rng.pick(&[
                        "1",
                        "1",
                        "q.view.byteLength",
                        "q.view.byteLength",
                        "0",
                        "q.view.byteLength + 1",
                    ]);
                    format!(
                        "{{ const q = {n}.byobRequest; log('{n}.byobRequest', q && q.view); \
                         if (q) {{ fill(q.view, {}); q.respond({amount}); }} }}",
                        self.chunk % 200
                    )
                }
                // The BYOB request's buffer detached before the response.
                6 => format!(
                    "{{ const q = {n}.byobRequest; if (q) {{ q.view.buffer.transfer(); \
                     if ({}) q.respond(1); else q.respondWithNewView(q.view); }} }}",
                    self.rng.chance(50)
                ),
                _ => {
                    let len = self.rng.pick(&["1", "q.view.byteLength", "0"]);
                    let view = match self.rng.weighted(&[16, 3, 2]) {
                        0 => format!("new Uint8Array(q.view.buffer, q.view.byteOffset, {len})"),
                        1 => "new Uint8Array(2)".to_owned(),
                        _ => self.odd_buffer_view(),
                    };
                    format!(
                        "{{ const q = {n}.byobRequest; log('{n}.byobRequest', q && q.view); \
                         if (q) {{ fill(q.view, 7); q.respondWithNewView({view}); }} }}"
                    )
                }
            },
            CtrlKind::Writable => match self.rng.weighted(&[2, 3]) {
                0 => format!("{n}.error(err('{n}'));"),
                _ => format!("log('{n}.signal.aborted', {n}.signal.aborted);"),
            },
            CtrlKind::Transform => match self.rng.weighted(&[8, 1, 2, 2]) {
                0 => format!("enq({n}, {}, '{n}.enqueue');", self.chunk()),
                1 => format!("{n}.error(err('{n}'));"),
                2 => format!("{n}.terminate();"),
                _ => format!("log('{n}.desiredSize', {n}.desiredSize);"),
            },
        }
    }

    /// An action on some other object, for re-entrancy from inside callbacks.
    fn cross_action(&mut self) -> Option<String> {
        match self.rng.below(6) {
            3 if !self.readables.is_empty() => {
                let rs = self.rng.pick(&self.readables).name.clone();
                let id = self.next_id();
                let reason = self.reason();
                Some(format!("watch('{rs}.cancel{id}', {rs}.cancel({reason}));"))
            }
            4 if !self.acs.is_empty() => {
                let ac = self.rng.pick(&self.acs).clone();
                let reason = self.reason();
                Some(format!("{ac}.abort({reason});"))
            }
            5 if !self.readers.is_empty() => {
                let r = self.rng.pick(&self.readers).clone();
                let id = self.next_id();
                Some(if self.rng.chance(50) {
                    format!("{}.releaseLock();", r.name)
                } else {
                    let reason = self.reason();
                    format!(
                        "watch('{}.cancel{id}', {}.cancel({reason}));",
                        r.name, r.name
                    )
                })
            }
            0 if !self.readers.is_empty() => {
                let r = self.rng.pick(&self.readers).clone();
                let id = self.next_id();
                Some(if r.byob {
                    format!(
                        "watch('{}.read{id}', {}.read(new Uint8Array(2)));",
                        r.name, r.name
                    )
                } else {
                    format!("watch('{}.read{id}', {}.read());", r.name, r.name)
                })
            }
            1 if !self.writers.is_empty() => {
                let w = self.rng.pick(&self.writers).clone();
                let id = self.next_id();
                let chunk = self.chunk();
                Some(format!("watch('{w}.write{id}', {w}.write({chunk}));"))
            }
            _ if !self.ctrls.is_empty() => {
                let c = self.rng.pick(&self.ctrls).clone();
                Some(self.ctrl_action(&c))
            }
            _ => None,
        }
    }

    /// `T(name, object)` (its callbacks traced), or now and then the object itself: a
    /// callback the stream calls with no wrapper frame between (whose exceptions then reach
    /// the stream straight from the frames that threw them).
    fn maybe_traced(&mut self, name: &str, object: &str) -> String {
        if self.rng.chance(15) {
            object.to_owned()
        } else {
            format!("T('{name}', {object})")
        }
    }

    fn next_id(&mut self) -> usize {
        self.id += 1;
        self.id
    }

    /// `obj.method = function (params) { ... };` as its own statement.
    fn callback(&mut self, obj: &str, method: &str, params: &str, body: String) {
        let label = self.label();
        self.stmts.push(format!(
            "step('{label}', () => {{ {obj}.{method} = function ({params}) {{ {body} }}; }});"
        ));
    }

    // ----- readable streams -----

    fn new_readable(&mut self, bytes: bool) {
        let rs = self.fresh("rs");
        let src = format!("{rs}src");
        let count = format!("{rs}n");
        self.vars.push(src.clone());
        self.vars.push(count.clone());
        let c = Ctrl {
            name: self.fresh("c"),
            kind: if bytes {
                CtrlKind::Byte
            } else {
                CtrlKind::Default
            },
        };
        let init = if bytes {
            match self.rng.weighted(&[5, 3, 1]) {
                0 => "{ type: 'bytes' }".to_owned(),
                1 => format!(
                    "{{ type: 'bytes', autoAllocateChunkSize: {} }}",
                    self.rng.pick(&["2", "4", "8"])
                ),
                _ => "{ type: 'bytes', autoAllocateChunkSize: 0 }".to_owned(),
            }
        } else {
            "{}".to_owned()
        };
        self.now(format!("{src} = {init}; {count} = 0;"));
        // start: always saves the controller.
        let actions = self.ctrl_actions(&c, 2);
        let body = self.outcome(&format!("{rs}.start"), actions);
        let cname = c.name.clone();
        self.callback(&src, "start", "c", format!("{cname} = c; {body}"));
        if self.rng.chance(65) {
            let actions = self.ctrl_actions(&c, 2);
            let body = self.outcome(&format!("{rs}.pull"), actions);
            let limit = 2 + self.rng.below(4);
            self.callback(
                &src,
                "pull",
                "c",
                format!("if (++{count} > {limit}) return; {body}"),
            );
        }
        if self.rng.chance(45) {
            let actions = if self.rng.chance(40) {
                self.ctrl_actions(&c, 2)
            } else {
                String::new()
            };
            let body = self.outcome(&format!("{rs}.cancel"), actions);
            self.callback(&src, "cancel", "reason", body);
        }
        let strategy = self.strategy(&rs, !bytes);
        let src_arg = self.maybe_traced(&rs, &src);
        let args = match strategy {
            Some(s) => format!("{src_arg}, {s}"),
            None => src_arg,
        };
        self.now(format!("{rs} = new ReadableStream({args});"));
        self.ctrls.push(c);
        self.readables.push(Readable {
            name: rs,
            bytes,
            origins: Vec::new(),
        });
    }

    fn new_from(&mut self) {
        let rs = self.fresh("from");
        let src = format!("{rs}.src");
        let k1 = self.chunk();
        let k2 = self.chunk();
        let end = if self.rng.chance(20) {
            format!("throw err('{src}');")
        } else {
            String::new()
        };
        let wait = *self.rng.pick(&[
            "",
            "await afterMicrotask(() => {});",
            "await afterTask(() => {});",
        ]);
        let iterable = match self.rng.weighted(&[3, 3, 4, 4, 3, 2, 6]) {
            0 => format!("[{k1}, {k2}]"),
            1 => format!(
                "(function* () {{ log('{src}.gen'); yield {k1}; log('{src}.gen'); yield {k2}; {end} }})()"
            ),
            2 => format!(
                "(async function* () {{ log('{src}.gen'); yield {k1}; {wait} log('{src}.gen'); yield {k2}; {end} }})()"
            ),
            3 => {
                // An async iterable with traced next/return.
                let next = match self.rng.weighted(&[4, 3, 1, 1, 1]) {
                    0 => "return resolved(n <= 2 ? { value: n, done: false } : { value: undefined, done: true });".to_owned(),
                    1 => "return n <= 2 ? { value: n, done: false } : { done: true };".to_owned(),
                    2 => format!("if (n > 1) throw err('{src}.next'); return {{ value: n, done: false }};"),
                    3 => format!("return n > 1 ? rejected(err('{src}.next')) : resolved({{ value: n, done: false }});"),
                    _ => "return n > 1 ? 7 : { value: n, done: false };".to_owned(),
                };
                let ret = if self.rng.chance(60) {
                    ", return(v) { return resolved({ value: v, done: true }); }"
                } else {
                    ""
                };
                format!(
                    "{{ [Symbol.asyncIterator]() {{ let n = 0; return T('{src}', {{ next() {{ n++; {next} }}{ret} }}); }} }}"
                )
            }
            4 => {
                // A sync iterable whose values may be promises.
                let value = if self.rng.chance(50) {
                    "resolved(n)"
                } else {
                    "n"
                };
                let ret = if self.rng.chance(50) {
                    ", return() { return { done: true }; }"
                } else {
                    ""
                };
                format!(
                    "{{ [Symbol.iterator]() {{ let n = 0; return T('{src}', {{ next() {{ n++; return n <= 2 ? {{ value: {value}, done: false }} : {{ done: true }}; }}{ret} }}); }} }}"
                )
            }
            5 => self
                .rng
                .pick(&["'ab'", "5", "null", "{}", "{ [Symbol.iterator]: 1 }"])
                .to_string(),
            _ => self.stepped_iterable(&src),
        };
        self.now(format!("{rs} = ReadableStream.from({iterable});"));
        self.readables.push(Readable {
            name: rs,
            bytes: false,
            origins: Vec::new(),
        });
    }

    /// An async or sync iterable whose `next()` does something else at one step (throws,
    /// rejects, finishes, returns a non-object, a result whose `done` or `value` getter throws,
    /// a thenable, a value that is a rejected promise), and whose `return()` is missing, throws,
    /// rejects, returns a non-object or finishes later.
    fn stepped_iterable(&mut self, src: &str) -> String {
        let sync = self.rng.chance(35);
        let at = 1 + self.rng.below(3);
        let wrap = |v: String| if sync { v } else { format!("resolved({v})") };
        let special = match self.rng.weighted(&[3, 2, 3, 1, 1, 1, 1, 1, 2]) {
            0 => format!("throw err('{src}.next{at}');"),
            1 => format!("return rejected(err('{src}.next{at}'));"),
            2 => format!(
                "return {};",
                wrap("{ done: true, value: 'ret' }".to_owned())
            ),
            3 => "return 3;".to_owned(),
            4 => format!(
                "return {};",
                wrap(format!(
                    "{{ get done() {{ throw err('{src}.done'); }}, value: 1 }}"
                ))
            ),
            5 => format!(
                "return {};",
                wrap(format!(
                    "{{ done: false, get value() {{ throw err('{src}.value'); }} }}"
                ))
            ),
            6 => format!(
                "return {{ then(r) {{ log('{src}.then'); r({{ value: 'th', done: false }}); }} }};"
            ),
            7 => format!("return {{ value: rejected(err('{src}.v')), done: false }};"),
            _ => "return afterMicrotask(() => ({ value: 'late', done: false }));".to_owned(),
        };
        let ret = match self.rng.weighted(&[3, 2, 1, 1, 1, 2]) {
            0 => String::new(),
            1 => format!(
                ", return(v) {{ log('{src}.return', v); return {}; }}",
                wrap("{ done: true }".to_owned())
            ),
            2 => format!(", return(v) {{ throw err('{src}.return'); }}"),
            3 => format!(", return(v) {{ return rejected(err('{src}.return')); }}"),
            4 => ", return(v) { return 5; }".to_owned(),
            _ => ", return(v) { return afterTask(() => ({ done: true })); }".to_owned(),
        };
        let normal = wrap("{ value: n, done: false }".to_owned());
        let end = wrap("{ done: true }".to_owned());
        let method = if sync {
            "Symbol.iterator"
        } else {
            "Symbol.asyncIterator"
        };
        format!(
            "{{ [{method}]() {{ let n = 0; return T('{src}', {{ next() {{ n++; if (n === {at}) {{ {special} }} return n > 4 ? {end} : {normal}; }}{ret} }}); }} }}"
        )
    }

    /// A builtin patched the way libraries and tests do: `then` on Object.prototype, a traced
    /// `Promise.prototype.then`, a `constructor` getter on promises. Streams' internal steps
    /// must not be disturbed (beyond what the spec itself looks up).
    fn patch_builtin(&mut self) {
        let body = match self.rng.below(4) {
            0 => "Object.defineProperty(Object.prototype, 'then', { get() { log('Object.prototype.then get'); return undefined; }, configurable: true });",
            1 => "{ const orig = Promise.prototype.then; Promise.prototype.then = function (a, b) { log('Promise.prototype.then'); return orig.call(this, a, b); }; }",
            2 => "Object.defineProperty(Promise.prototype, 'constructor', { get() { log('Promise.prototype.constructor get'); return Promise; }, configurable: true });",
            _ => "Object.defineProperty(Object.prototype, 'then', { value(r) { log('Object.prototype.then called'); r(undefined); }, configurable: true, writable: true });",
        };
        self.timed(body.to_owned());
    }

    /// A reader released (with reads pending, perhaps) and its stream's lock taken again.
    fn reacquire(&mut self) {
        let r = self.rng.pick(&self.readers).clone();
        let byob = r.byob && self.rng.chance(70);
        self.id += 1;
        let name = format!("{}_r{}", r.stream, self.id);
        self.vars.push(name.clone());
        let mode = if byob { "{ mode: 'byob' }" } else { "" };
        let id = self.next_id();
        let read = if byob {
            format!("watch('{name}.read{id}', {name}.read(new Uint8Array(3)));")
        } else {
            format!("watch('{name}.read{id}', {name}.read());")
        };
        self.timed(format!(
            "{}.releaseLock(); {name} = {}.getReader({mode}); watch('{name}.closed', {name}.closed); {read}",
            r.name, r.stream
        ));
        self.readers.push(Reader {
            name,
            byob,
            stream: r.stream,
        });
    }

    fn tee(&mut self) {
        let rs = self.rng.pick(&self.readables).clone();
        let a = self.fresh("rs");
        let b = self.fresh("rs");
        self.now(format!(
            "const t = {}.tee(); {a} = t[0]; {b} = t[1];",
            rs.name
        ));
        for name in [a, b] {
            self.readables.push(Readable {
                name,
                bytes: rs.bytes,
                origins: rs.origins.clone(),
            });
        }
    }

    fn get_reader(&mut self) {
        let rs = self.rng.pick(&self.readables).clone();
        let byob = if rs.bytes {
            self.rng.chance(60)
        } else {
            self.rng.chance(5)
        };
        self.id += 1;
        let name = format!("{}_r{}", rs.name, self.id);
        self.vars.push(name.clone());
        let mode = if byob { "{ mode: 'byob' }" } else { "" };
        let acquire = match (self.rng.chance(20), byob) {
            (true, true) => format!("new ReadableStreamBYOBReader({})", rs.name),
            (true, false) => format!("new ReadableStreamDefaultReader({})", rs.name),
            _ => format!("{}.getReader({mode})", rs.name),
        };
        self.now(format!(
            "{name} = {acquire}; watch('{name}.closed', {name}.closed);"
        ));
        self.readers.push(Reader {
            name,
            byob,
            stream: rs.name.clone(),
        });
    }

    fn reader_op(&mut self) {
        let r = self.rng.pick(&self.readers).clone();
        let n = &r.name;
        let id = self.next_id();
        let body = match self.rng.weighted(&[12, 2, 2, 1]) {
            0 if r.byob => {
                let view = self.view();
                let min = if self.rng.chance(25) {
                    format!(", {{ min: {} }}", 1 + self.rng.below(3))
                } else {
                    String::new()
                };
                format!("watch('{n}.read{id}', {n}.read({view}{min}));")
            }
            0 => format!("watch('{n}.read{id}', {n}.read());"),
            1 => format!("{n}.releaseLock();"),
            2 => {
                let reason = self.reason();
                format!("watch('{n}.cancel{id}', {n}.cancel({reason}));")
            }
            _ => format!("watch('{n}.closed{id}', {n}.closed);"),
        };
        self.timed(body);
    }

    fn stream_op(&mut self) {
        let rs = self.rng.pick(&self.readables).clone();
        let n = &rs.name;
        let id = self.next_id();
        let body = match self.rng.weighted(&[3, 2]) {
            0 => {
                let reason = self.reason();
                format!("watch('{n}.cancel{id}', {n}.cancel({reason}));")
            }
            _ => format!("log('{n}.locked', {n}.locked);"),
        };
        self.timed(body);
    }

    fn async_iteration(&mut self) {
        let rs = self.rng.pick(&self.readables).clone();
        let n = &rs.name;
        if self.rng.chance(50) {
            self.id += 1;
            let it = format!("{n}_i{}", self.id);
            self.vars.push(it.clone());
            let opts = match self.rng.below(3) {
                0 => "",
                1 => "{ preventCancel: true }",
                _ => "{ preventCancel: false }",
            };
            self.now(format!("{it} = {n}.values({opts});"));
            self.iterators.push(it);
        } else {
            let label = self.label();
            let stop = match self.rng.weighted(&[3, 2, 1, 1]) {
                0 => String::new(),
                1 => format!("if (++k >= {}) break;", 1 + self.rng.below(2)),
                2 => format!("if (++k >= 1) throw err('{label}.loop');"),
                _ => format!("if (++k >= 1) return '{label}';"),
            };
            let source = match self.rng.below(3) {
                0 => n.to_owned(),
                1 => format!("{n}.values({{ preventCancel: true }})"),
                _ => format!("{n}.values()"),
            };
            self.now(format!(
                "watch('{n}.{label}.forawait', (async () => {{ let k = 0; for await (const x of {source}) {{ log('{n}.{label}.chunk', x); {stop} }} log('{n}.{label}.end'); }})());"
            ));
        }
    }

    fn iterator_op(&mut self) {
        let it = self.rng.pick(&self.iterators).clone();
        let id = self.next_id();
        let body = if self.rng.chance(75) {
            format!("watch('{it}.next{id}', {it}.next());")
        } else {
            let v = self.chunk();
            format!("watch('{it}.return{id}', {it}.return({v}));")
        };
        self.timed(body);
    }

    // ----- writable streams -----

    fn new_writable(&mut self) {
        let ws = self.fresh("ws");
        let sink = format!("{ws}sink");
        self.vars.push(sink.clone());
        let c = Ctrl {
            name: self.fresh("wc"),
            kind: CtrlKind::Writable,
        };
        self.now(format!("{sink} = {{}};"));
        let cname = c.name.clone();
        let actions = if self.rng.chance(20) {
            self.ctrl_actions(&c, 1)
        } else {
            String::new()
        };
        let body = self.outcome(&format!("{ws}.start"), actions);
        self.callback(&sink, "start", "c", format!("{cname} = c; {body}"));
        if self.rng.chance(80) {
            let actions = if self.rng.chance(25) {
                self.ctrl_actions(&c, 2)
            } else {
                String::new()
            };
            let body = self.outcome(&format!("{ws}.write"), actions);
            self.callback(&sink, "write", "chunk, c", body);
        }
        if self.rng.chance(50) {
            let body = self.outcome(&format!("{ws}.close"), String::new());
            self.callback(&sink, "close", "", body);
        }
        if self.rng.chance(50) {
            let body = self.outcome(&format!("{ws}.abort"), String::new());
            self.callback(&sink, "abort", "reason", body);
        }
        let strategy = self.strategy(&format!("{ws}.w"), true);
        let sink_arg = self.maybe_traced(&ws, &sink);
        let args = match strategy {
            Some(s) => format!("{sink_arg}, {s}"),
            None => sink_arg,
        };
        self.now(format!("{ws} = new WritableStream({args});"));
        self.ctrls.push(c);
        self.writables.push(Writable {
            name: ws,
            transform: None,
        });
    }

    fn get_writer(&mut self) {
        let ws = self.rng.pick(&self.writables).name.clone();
        self.id += 1;
        let w = format!("{ws}_w{}", self.id);
        self.vars.push(w.clone());
        let acquire = if self.rng.chance(20) {
            format!("new WritableStreamDefaultWriter({ws})")
        } else {
            format!("{ws}.getWriter()")
        };
        self.now(format!(
            "{w} = {acquire}; watch('{w}.closed', {w}.closed); watch('{w}.ready', {w}.ready);"
        ));
        self.writers.push(w);
    }

    fn writer_op(&mut self) {
        let w = self.rng.pick(&self.writers).clone();
        let id = self.next_id();
        let body = match self.rng.weighted(&[12, 3, 2, 1, 2, 2]) {
            0 => {
                let chunk = self.chunk();
                format!("watch('{w}.write{id}', {w}.write({chunk}));")
            }
            1 => format!("watch('{w}.close{id}', {w}.close());"),
            2 => {
                let reason = self.reason();
                format!("watch('{w}.abort{id}', {w}.abort({reason}));")
            }
            3 => format!("{w}.releaseLock();"),
            4 => format!("log('{w}.desiredSize', {w}.desiredSize);"),
            _ => format!("watch('{w}.ready{id}', {w}.ready);"),
        };
        self.timed(body);
    }

    fn writable_op(&mut self) {
        let ws = self.rng.pick(&self.writables).name.clone();
        let label = self.label();
        let body = match self.rng.weighted(&[2, 2, 1]) {
            0 => {
                let reason = self.reason();
                format!("watch('{label}.abort', {ws}.abort({reason}));")
            }
            1 => format!("watch('{label}.close', {ws}.close());"),
            _ => format!("log('{ws}.locked', {ws}.locked);"),
        };
        self.timed(body);
    }

    // ----- transform streams -----

    fn new_transform(&mut self) {
        let ts = self.fresh("ts");
        let tr = format!("{ts}tr");
        self.vars.push(tr.clone());
        let c = Ctrl {
            name: self.fresh("tc"),
            kind: CtrlKind::Transform,
        };
        let cname = c.name.clone();
        self.now(format!("{tr} = {{}};"));
        let actions = if self.rng.chance(25) {
            self.ctrl_actions(&c, 1)
        } else {
            String::new()
        };
        let body = self.outcome(&format!("{ts}.start"), actions);
        self.callback(&tr, "start", "c", format!("{cname} = c; {body}"));
        if self.rng.chance(70) {
            let mut actions = String::new();
            match self.rng.weighted(&[5, 2, 2]) {
                0 => actions.push_str(&format!("enq({cname}, chunk, '{cname}.enqueue'); ")),
                1 => {
                    actions.push_str(&format!("enq({cname}, chunk, '{cname}.enqueue'); "));
                    actions.push_str(&format!("enq({cname}, 'x', '{cname}.enqueue'); "));
                }
                _ => actions.push_str(&self.ctrl_actions(&c, 2)),
            }
            let body = self.outcome(&format!("{ts}.transform"), actions);
            self.callback(&tr, "transform", "chunk, c", body);
        }
        if self.rng.chance(50) {
            let actions = if self.rng.chance(40) {
                self.ctrl_actions(&c, 2)
            } else {
                String::new()
            };
            let body = self.outcome(&format!("{ts}.flush"), actions);
            self.callback(&tr, "flush", "c", body);
        }
        if self.rng.chance(50) {
            let actions = if self.rng.chance(35) {
                self.ctrl_actions(&c, 2)
            } else {
                String::new()
            };
            let body = self.outcome(&format!("{ts}.cancel"), actions);
            self.callback(&tr, "cancel", "reason", body);
        }
        let ws_strategy = self.strategy(&format!("{ts}.w"), true);
        let rs_strategy = self.strategy(&format!("{ts}.r"), true);
        let mut args = self.maybe_traced(&ts, &tr);
        if ws_strategy.is_some() || rs_strategy.is_some() {
            let _ = write!(
                args,
                ", {}, {}",
                ws_strategy.unwrap_or_else(|| "undefined".into()),
                rs_strategy.unwrap_or_else(|| "undefined".into())
            );
        }
        let rs = self.fresh("rs");
        let ws = self.fresh("ws");
        self.now(format!(
            "{ts} = new TransformStream({args}); {rs} = {ts}.readable; {ws} = {ts}.writable;"
        ));
        let ts = ts.clone();
        self.ctrls.push(c);
        self.transforms.push(ts.clone());
        self.readables.push(Readable {
            name: rs,
            bytes: false,
            origins: vec![ts.clone()],
        });
        self.writables.push(Writable {
            name: ws,
            transform: Some(ts),
        });
    }

    // ----- pipes -----

    /// A pipe's options argument (with its leading comma), and the controller whose signal it
    /// names, if any.
    fn pipe_options(&mut self) -> (String, Option<String>) {
        let mut parts = Vec::new();
        let mut signal = None;
        for key in ["preventClose", "preventAbort", "preventCancel"] {
            if self.rng.chance(25) {
                parts.push(format!("{key}: {}", self.rng.chance(70)));
            }
        }
        if !self.acs.is_empty() && self.rng.chance(55) {
            let ac = self.rng.pick(&self.acs).clone();
            parts.push(format!("signal: {ac}.signal"));
            signal = Some(ac);
        }
        let options = if parts.is_empty() {
            String::new()
        } else {
            format!(", {{ {} }}", parts.join(", "))
        };
        (options, signal)
    }

    /// Records that `from` now feeds transform `ts`: its readable side (and what was made from
    /// it) inherits `from`'s origins.
    fn feeds(&mut self, from: &Readable, ts: &str) {
        for r in &mut self.readables {
            if r.origins.iter().any(|o| o == ts) {
                for o in &from.origins {
                    if !r.origins.contains(o) {
                        r.origins.push(o.clone());
                    }
                }
            }
        }
    }

    fn pipe_to(&mut self) {
        let rs = self.rng.pick(&self.readables).clone();
        let candidates: Vec<Writable> = self
            .writables
            .iter()
            .filter(|w| w.transform.as_ref().is_none_or(|t| !rs.origins.contains(t)))
            .cloned()
            .collect();
        if candidates.is_empty() {
            return;
        }
        let ws = self.rng.pick(&candidates).clone();
        let (opts, signal) = self.pipe_options();
        let label = self.label();
        // Now and then an `abort` listener registered right after the pipe.
        let listener = match signal {
            Some(ac) if self.rng.chance(40) => format!(
                " {ac}.signal.addEventListener('abort', () => log('{ac} listener after {label}'));"
            ),
            _ => String::new(),
        };
        self.timed(format!(
            "watch('{label}.pipe', {}.pipeTo({}{opts}));{listener}",
            rs.name, ws.name
        ));
        if let Some(ts) = &ws.transform {
            self.feeds(&rs, ts);
        }
    }

    fn pipe_through(&mut self) {
        let src = self.rng.pick(&self.readables).clone();
        let candidates: Vec<String> = self
            .transforms
            .iter()
            .filter(|t| !src.origins.contains(t))
            .cloned()
            .collect();
        if candidates.is_empty() {
            return;
        }
        let ts = self.rng.pick(&candidates).clone();
        let (opts, _) = self.pipe_options();
        let out = self.fresh("rs");
        self.now(format!("{out} = {}.pipeThrough({ts}{opts});", src.name));
        self.feeds(&src, &ts);
        let mut origins = src.origins.clone();
        origins.push(ts);
        self.readables.push(Readable {
            name: out,
            bytes: false,
            origins,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_from_bytes_follow_the_bytes() {
        let a = generate_from_bytes(&[1, 0, 7, 0, 3, 0, 9, 9]);
        assert_eq!(a, generate_from_bytes(&[1, 0, 7, 0, 3, 0, 9, 9]));
        assert_ne!(
            a.to_js(),
            generate_from_bytes(&[2, 0, 7, 0, 3, 0, 9, 9]).to_js()
        );
        assert!(!generate_from_bytes(&[]).to_js().is_empty());
    }

    #[test]
    fn deterministic_for_a_seed() {
        for index in 0..20 {
            assert_eq!(generate(7, index), generate(7, index));
        }
        assert_ne!(generate(7, 0).to_js(), generate(8, 0).to_js());
        assert_ne!(generate(7, 0).to_js(), generate(7, 1).to_js());
    }

    #[test]
    fn no_nondeterminism_in_programs() {
        for index in 0..200 {
            let js = generate(1, index).to_js();
            assert!(!js.contains("Math.random") && !js.contains("Date"), "{js}");
        }
    }

    #[test]
    fn rng_is_spread() {
        let mut rng = Rng::new(1);
        let mut counts = [0; 4];
        for _ in 0..4000 {
            counts[rng.below(4)] += 1;
        }
        assert!(counts.iter().all(|&c| c > 800), "{counts:?}");
    }
}
