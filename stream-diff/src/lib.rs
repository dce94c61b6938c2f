//! stream-diff: runs stream programs on boa_streams and on the WHATWG reference implementation
//! (both on the same engine, Boa or QuickJS, in fresh contexts), or on boa_streams on two
//! engines (`--against`), and compares what they log. See `HELP` and README.md.

pub mod correct;
pub mod diff;
#[cfg(unix)]
pub mod fork;
pub mod gen;
pub mod json;
pub mod node;
#[cfg(unix)]
pub mod peer;
pub mod shrink;
pub mod side;

use std::{
    collections::BTreeMap,
    fmt::Write as _,
    path::{Path, PathBuf},
    time::{Duration, Instant},
};

use diff::{Comparison, Verdict};
use side::{Limits, ReferenceSource, SideKind, SideResult};

pub const HELP: &str = include_str!("help.txt");

/// The engine this binary runs both sides on.
#[cfg(feature = "boa")]
pub const ENGINE: &str = "boa";
/// The engine this binary runs both sides on.
#[cfg(all(feature = "quickjs", not(feature = "boa")))]
pub const ENGINE: &str = "quickjs";

/// The engines a build can run on.
pub const ENGINES: &[&str] = &["boa", "quickjs"];

/// How the sides are run.
pub enum Engine {
    /// Each program in contexts built for it in this process (the bundle parsed every time).
    Fresh,
    /// Each program in a forked child, on a snapshot of contexts prepared once.
    #[cfg(unix)]
    Fork(Box<fork::Zygote>),
}

/// Runs programs on both sides (and Node, if asked).
pub struct Runner {
    pub engine: Engine,
    pub reference: ReferenceSource,
    /// The reference with its known departures corrected, and the class each one names.
    pub corrected: Vec<(diff::Class, ReferenceSource)>,
    pub limits: Limits,
    pub node: Option<node::NodeSide>,
    /// `--against ENGINE`: the other side is native too, on that engine's process (no
    /// reference, no corrections).
    #[cfg(unix)]
    pub against: Option<peer::Peer>,
}

/// The corrected references a divergence is checked against, in order (each correction alone,
/// then the pairs, and so on up to all of them), with the class each one names.
fn corrected_references(
    reference: &ReferenceSource,
) -> Result<Vec<(diff::Class, ReferenceSource)>, String> {
    use correct::Correction;
    let class = |mask: u8| match mask {
        0b001 => diff::Class::ReferenceSyncWriteInEnqueue,
        0b010 => diff::Class::ReferenceAsyncSequenceTiming,
        0b100 => diff::Class::ReferenceReadAfterShutdown,
        0b1000 => diff::Class::ReferenceClearedAlgorithm,
        0b1_0000 => diff::Class::ReferencePromiseLookups,
        0b10_0000 => diff::Class::ReferenceAbortAlgorithmAsListener,
        several => diff::Class::ReferenceSeveral(several),
    };
    let mut masks: Vec<u8> = (1u8..1 << Correction::ALL.len()).collect();
    masks.sort_by_key(|m| m.count_ones());
    masks
        .into_iter()
        .map(|mask| {
            let corrections: Vec<Correction> = Correction::ALL
                .iter()
                .enumerate()
                .filter(|(bit, _)| mask & (1 << bit) != 0)
                .map(|(_, c)| *c)
                .collect();
            Ok((class(mask), correct::corrected(reference, &corrections)?))
        })
        .collect()
}

/// One program's run.
pub struct Run {
    pub native: SideResult,
    pub reference: SideResult,
    pub comparison: Comparison,
    pub node: Option<(SideResult, Comparison)>,
    pub elapsed: Duration,
}

impl Runner {
    pub fn new(reference: ReferenceSource, limits: Limits, fork: bool) -> Result<Runner, String> {
        Runner::with_corrections(reference, &[], limits, fork)
    }

    /// A runner whose reference side has `corrections` applied (`--correct`); with any, no
    /// further corrected references are tried, so a divergence from it is `real`.
    pub fn with_corrections(
        reference: ReferenceSource,
        corrections: &[correct::Correction],
        limits: Limits,
        fork: bool,
    ) -> Result<Runner, String> {
        let (reference, corrected) = if corrections.is_empty() {
            let corrected = corrected_references(&reference)?;
            (reference, corrected)
        } else {
            (correct::corrected(&reference, corrections)?, Vec::new())
        };
        #[cfg(unix)]
        let engine = if fork {
            let variants: Vec<ReferenceSource> = corrected.iter().map(|(_, s)| s.clone()).collect();
            Engine::Fork(Box::new(fork::Zygote::new(&reference, &variants)?))
        } else {
            Engine::Fresh
        };
        #[cfg(not(unix))]
        let engine = {
            let _ = fork;
            Engine::Fresh
        };
        Ok(Runner {
            engine,
            reference,
            corrected,
            limits,
            node: None,
            #[cfg(unix)]
            against: None,
        })
    }

    /// A runner comparing this engine's native side with `engine`'s (`--against`): each
    /// program runs once per engine, in two processes.
    #[cfg(unix)]
    pub fn against(engine: &str, limits: Limits, fork: bool) -> Result<Runner, String> {
        let native = if fork {
            Engine::Fork(Box::new(fork::Zygote::native_only()?))
        } else {
            Engine::Fresh
        };
        Ok(Runner {
            engine: native,
            reference: ReferenceSource {
                install: String::new(),
                bundle: String::new(),
                bundle_name: String::new(),
            },
            corrected: Vec::new(),
            limits,
            node: None,
            against: Some(peer::Peer::start(engine, fork)?),
        })
    }

    /// The other side's name: `reference`, or the engine of `--against`.
    pub fn other_name(&self) -> &str {
        #[cfg(unix)]
        if let Some(peer) = &self.against {
            return peer.engine();
        }
        "reference"
    }

    /// The corrected reference number `index`'s result for `script`.
    fn run_corrected(&mut self, index: usize, script: &str) -> Option<SideResult> {
        match &mut self.engine {
            Engine::Fresh => self.corrected.get(index).map(|(_, source)| {
                side::run_fresh(SideKind::Reference, source, script, self.limits)
            }),
            #[cfg(unix)]
            Engine::Fork(zygote) => zygote.run_variant(index, script, self.limits),
        }
    }

    /// A divergence's class, decided against the corrected references: the class of the first
    /// one whose whole log equals the native log (or, both sides stopped by the limits, agrees
    /// as far as both go); `reference-assertion` when none does but one agrees until the
    /// reference's own invariant check fails; `real` otherwise.
    fn reclassify(
        &mut self,
        script: &str,
        native: &SideResult,
        comparison: Comparison,
    ) -> Comparison {
        let Verdict::Diverged(class) = comparison.verdict else {
            return comparison;
        };
        if class == diff::Class::ReferenceAssertion {
            return comparison;
        }
        let mut asserted = false;
        for index in 0..self.corrected.len() {
            let Some(corrected) = self.run_corrected(index, script) else {
                continue;
            };
            match diff::compare(native, &corrected, script).verdict {
                // The whole log, or (both sides stopped by the limits) as far as both go.
                Verdict::Same | Verdict::Runaway => {
                    return Comparison {
                        verdict: Verdict::Diverged(self.corrected[index].0),
                        ..comparison
                    };
                }
                // A corrected reference that agrees until its own invariant check fails.
                Verdict::Diverged(diff::Class::ReferenceAssertion) => asserted = true,
                _ => {}
            }
        }
        let class = if asserted {
            diff::Class::ReferenceAssertion
        } else {
            diff::Class::Real
        };
        Comparison {
            verdict: Verdict::Diverged(class),
            ..comparison
        }
    }

    /// The two sides' results, without Node.
    pub fn run_sides(&mut self, script: &str) -> (SideResult, SideResult) {
        #[cfg(unix)]
        if let Some(peer) = self.against.as_mut() {
            // Both engines at once: the peer's request goes first.
            let sent = peer.send(script, self.limits);
            let native = match &mut self.engine {
                Engine::Fresh => {
                    side::run_fresh(SideKind::Native, &self.reference, script, self.limits)
                }
                Engine::Fork(zygote) => {
                    let request = fork::request(script, self.limits);
                    let sent_native = zygote.send_native(&request);
                    zygote.receive_native(sent_native)
                }
            };
            return (native, peer.receive(sent));
        }
        match &mut self.engine {
            Engine::Fresh => (
                side::run_fresh(SideKind::Native, &self.reference, script, self.limits),
                side::run_fresh(SideKind::Reference, &self.reference, script, self.limits),
            ),
            #[cfg(unix)]
            Engine::Fork(zygote) => zygote.run(script, self.limits),
        }
    }

    pub fn verdict(&mut self, script: &str) -> Verdict {
        let (n, r) = self.run_sides(script);
        let comparison = diff::compare(&n, &r, script);
        self.reclassify(script, &n, comparison).verdict
    }

    pub fn run(&mut self, script: &str) -> Run {
        let start = Instant::now();
        let (native, reference) = self.run_sides(script);
        let comparison = diff::compare(&native, &reference, script);
        let comparison = self.reclassify(script, &native, comparison);
        let timeout = self.limits.timeout;
        let node = self.node.as_mut().map(|node| {
            let result = node.run(script, timeout);
            let cmp = diff::compare(&native, &result, script);
            (result, cmp)
        });
        Run {
            native,
            reference,
            comparison,
            node,
            elapsed: start.elapsed(),
        }
    }
}

/// The repository root (this crate's parent folder).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// Reads the reference: `path`, else `$STREAMS_REFERENCE`, else `../shared/reference/bundle.js`
/// from the repository root; `install.js` beside it (or the same two lines built in).
pub fn load_reference(path: Option<&str>) -> Result<ReferenceSource, String> {
    let bundle_path = match path {
        Some(p) => PathBuf::from(p),
        None => match std::env::var_os("STREAMS_REFERENCE") {
            Some(p) => PathBuf::from(p),
            None => repo_root().join("../shared/reference/bundle.js"),
        },
    };
    let bundle = std::fs::read_to_string(&bundle_path)
        .map_err(|e| format!("cannot read the reference {}: {e}", bundle_path.display()))?;
    let install_path = bundle_path.with_file_name("install.js");
    let install = std::fs::read_to_string(install_path).unwrap_or_else(|_| {
        "globalThis.window = globalThis;\n\
         if (typeof globalThis.gc !== 'function') globalThis.gc = () => {};\n"
            .to_owned()
    });
    Ok(ReferenceSource {
        install,
        bundle,
        bundle_name: bundle_path.display().to_string(),
    })
}

/// Command-line options.
#[derive(Debug, Clone)]
pub struct Options {
    pub scripts: Vec<String>,
    pub random: Option<u64>,
    pub seed: u64,
    pub first: u64,
    pub out: PathBuf,
    pub json: bool,
    pub reference: Option<String>,
    pub timeout: Duration,
    pub max_events: usize,
    pub fork: bool,
    pub shrink: bool,
    pub shrink_budget: usize,
    pub node: bool,
    pub node_reference: bool,
    pub context: usize,
    pub events: bool,
    pub print: bool,
    pub print_only: bool,
    pub quiet: bool,
    /// `--correct`: corrections applied to the reference side itself.
    pub correct: Vec<correct::Correction>,
    /// `--engine`: the engine to run on (another than [`ENGINE`]: re-run through `cargo run`).
    pub engine: Option<String>,
    /// `--against`: compare with native on this engine instead of the reference.
    pub against: Option<String>,
    /// `--serve-native`: be the other engine's side of `--against` (internal).
    pub serve: bool,
    /// `--jobs N`: threads running generated programs at once (with `--no-fork`).
    pub jobs: usize,
}

fn parse_duration(s: &str) -> Option<Duration> {
    if let Some(ms) = s.strip_suffix("ms") {
        return ms.parse::<u64>().ok().map(Duration::from_millis);
    }
    let secs = s.strip_suffix('s').unwrap_or(s);
    secs.parse::<f64>()
        .ok()
        .filter(|v| v.is_finite() && *v > 0.0)
        .map(Duration::from_secs_f64)
}

pub fn parse_args(args: &[String]) -> Result<Option<Options>, String> {
    let mut o = Options {
        scripts: Vec::new(),
        random: None,
        seed: 1,
        first: 0,
        out: PathBuf::from("target/stream-diff"),
        json: false,
        reference: None,
        timeout: Duration::from_secs(2),
        max_events: 5000,
        fork: cfg!(unix),
        shrink: true,
        shrink_budget: 300,
        node: false,
        node_reference: false,
        context: 4,
        events: false,
        print: false,
        print_only: false,
        quiet: false,
        correct: Vec::new(),
        engine: None,
        against: None,
        serve: false,
        jobs: 1,
    };
    let mut i = 0;
    let value = |i: &mut usize, name: &str| -> Result<String, String> {
        *i += 1;
        args.get(*i)
            .cloned()
            .ok_or_else(|| format!("{name} needs a value"))
    };
    while i < args.len() {
        let a = args[i].as_str();
        let (a, inline) = match a.split_once('=') {
            Some((k, v)) if k.starts_with("--") => (k, Some(v.to_owned())),
            _ => (a, None),
        };
        let mut get = |name: &str| -> Result<String, String> {
            match &inline {
                Some(v) => Ok(v.clone()),
                None => value(&mut i, name),
            }
        };
        match a {
            "-h" | "--help" => return Ok(None),
            "--random" => o.random = Some(get(a)?.parse().map_err(|_| "--random needs a count")?),
            "--seed" => o.seed = get(a)?.parse().map_err(|_| "--seed needs a number")?,
            "--first" => o.first = get(a)?.parse().map_err(|_| "--first needs a number")?,
            "--out" => o.out = PathBuf::from(get(a)?),
            "--json" => o.json = true,
            "--reference" => o.reference = Some(get(a)?),
            "--timeout" => {
                o.timeout = parse_duration(&get(a)?).ok_or("--timeout needs e.g. 2s or 500ms")?
            }
            "--max-events" => {
                o.max_events = get(a)?.parse().map_err(|_| "--max-events needs a number")?
            }
            "--no-fork" => o.fork = false,
            "--no-shrink" => o.shrink = false,
            "--shrink-budget" => {
                o.shrink_budget = get(a)?
                    .parse()
                    .map_err(|_| "--shrink-budget needs a number")?
            }
            "--node" => o.node = true,
            "--node-reference" => {
                o.node = true;
                o.node_reference = true;
            }
            "--context" => o.context = get(a)?.parse().map_err(|_| "--context needs a number")?,
            "--events" => o.events = true,
            "--print" => o.print = true,
            "--print-only" => o.print_only = true,
            "-q" | "--quiet" => o.quiet = true,
            "--correct" => {
                let list = get(a)?;
                o.correct = if list == "all" {
                    correct::Correction::ALL.to_vec()
                } else {
                    list.split(',')
                        .map(|name| {
                            correct::Correction::from_name(name.trim())
                                .ok_or_else(|| format!("--correct: no correction named {name}"))
                        })
                        .collect::<Result<_, _>>()?
                };
            }
            "--engine" | "--against" => {
                let engine = get(a)?;
                if !ENGINES.contains(&engine.as_str()) {
                    return Err(format!("{a}: unknown engine {engine} (boa or quickjs)"));
                }
                if a == "--engine" {
                    o.engine = Some(engine);
                } else {
                    o.against = Some(engine);
                }
            }
            "--serve-native" => o.serve = true,
            "--jobs" => {
                o.jobs = get(a)?
                    .parse()
                    .ok()
                    .filter(|&n| n > 0)
                    .ok_or("--jobs needs a count of at least 1")?
            }
            _ if a.starts_with('-') && a.len() > 1 => return Err(format!("unknown option {a}")),
            _ => o.scripts.push(args[i].clone()),
        }
        i += 1;
    }
    if o.random.is_none() && o.scripts.is_empty() && !o.serve {
        return Err("nothing to run: give SCRIPT... or --random N".to_owned());
    }
    if o.jobs > 1 && (o.fork || o.node || o.against.is_some()) {
        return Err(
            "--jobs runs fresh contexts on threads: it needs --no-fork, and no --node \
                    or --against"
                .to_owned(),
        );
    }
    Ok(Some(o))
}

/// A `--jobs` thread's stack: the size of a main thread's (8 MiB on Linux), as the engines'
/// recursion limits assume.
const JOB_STACK: usize = 8 << 20;

/// The text report's tallies of the generated programs, kept as they run (a count per
/// verdict and per Node verdict, and each program's time as an `f32`, for the median).
#[derive(Default)]
struct Summary {
    counts: BTreeMap<&'static str, usize>,
    node_counts: BTreeMap<&'static str, usize>,
    ms: Vec<f32>,
}

impl Summary {
    fn add(&mut self, record: &Record) {
        *self.counts.entry(record.verdict.key()).or_default() += 1;
        if let Some(v) = record.node {
            *self.node_counts.entry(v.key()).or_default() += 1;
        }
        self.ms.push(record.millis as f32);
    }
}

/// One program's line in the report.
struct Record {
    name: String,
    seed: Option<u64>,
    index: Option<u64>,
    verdict: Verdict,
    divergence: Option<diff::Divergence>,
    problem: Option<String>,
    millis: f64,
    native_millis: f64,
    reference_millis: f64,
    saved: Option<PathBuf>,
    shrunk: Option<(PathBuf, usize)>,
    node: Option<Verdict>,
}

impl Record {
    /// The record of `run`, of a script file or (`generated`: seed and index) a generated
    /// program; nothing saved or shrunk yet.
    fn of_run(name: String, generated: Option<(u64, u64)>, run: &Run) -> Record {
        Record {
            name,
            seed: generated.map(|(seed, _)| seed),
            index: generated.map(|(_, index)| index),
            verdict: run.comparison.verdict,
            divergence: run.comparison.divergence.clone(),
            problem: run.comparison.problem.clone(),
            millis: millis(run.elapsed),
            native_millis: millis(run.native.elapsed),
            reference_millis: millis(run.reference.elapsed),
            saved: None,
            shrunk: None,
            node: run.node.as_ref().map(|(_, c)| c.verdict),
        }
    }

    fn json(&self) -> String {
        let mut s = String::from("{");
        let _ = write!(s, "\"program\":{}", json::string(&self.name));
        if let Some(seed) = self.seed {
            let _ = write!(s, ",\"seed\":{seed}");
        }
        if let Some(index) = self.index {
            let _ = write!(s, ",\"index\":{index}");
        }
        let _ = write!(s, ",\"result\":\"{}\"", self.verdict.result_name());
        match self.verdict {
            Verdict::Diverged(class) => {
                let _ = write!(s, ",\"class\":\"{}\"", class.name());
            }
            _ => s.push_str(",\"class\":null"),
        }
        match &self.divergence {
            Some(d) => {
                let opt = |v: &Option<String>| v.as_deref().map_or("null".into(), json::string);
                let _ = write!(
                    s,
                    ",\"divergence\":{{\"index\":{},\"kind\":\"{}\",\"native\":{},\"reference\":{}}}",
                    d.index,
                    d.kind,
                    opt(&d.native),
                    opt(&d.reference)
                );
            }
            None => s.push_str(",\"divergence\":null"),
        }
        if let Some(p) = &self.problem {
            let _ = write!(s, ",\"problem\":{}", json::string(p));
        }
        let _ = write!(
            s,
            ",\"ms\":{:.2},\"native_ms\":{:.2},\"reference_ms\":{:.2}",
            self.millis, self.native_millis, self.reference_millis
        );
        if let Some(p) = &self.saved {
            let _ = write!(s, ",\"file\":{}", json::string(&p.display().to_string()));
        }
        if let Some((p, n)) = &self.shrunk {
            let _ = write!(
                s,
                ",\"shrunk\":{},\"shrunk_statements\":{n}",
                json::string(&p.display().to_string())
            );
        }
        if let Some(v) = self.node {
            let _ = write!(s, ",\"node\":\"{}\"", v.key());
        }
        s.push('}');
        s
    }
}

fn describe_run(run: &Run, other: &str, context: usize, with_events: bool) -> String {
    let mut out = String::new();
    if let Some(p) = &run.comparison.problem {
        let _ = writeln!(out, "{p}");
    }
    if let Some(d) = &run.comparison.divergence {
        if let Verdict::Diverged(class) = run.comparison.verdict {
            let _ = writeln!(out, "class: {}", class.name());
        }
        out.push_str(&diff::describe(
            &run.native.events,
            &run.reference.events,
            d,
            context,
            other,
        ));
    }
    if let Some((node, cmp)) = &run.node {
        match &cmp.divergence {
            _ if cmp.problem.is_some() => {
                let _ = writeln!(out, "node side: {}", cmp.problem.as_deref().unwrap_or(""));
            }
            None => {
                let _ = writeln!(out, "node side: same as native");
            }
            Some(_) if node.events == run.reference.events => {
                let _ = writeln!(out, "node side: same as the reference side");
            }
            Some(d) => {
                let _ = writeln!(out, "node side vs native:");
                out.push_str(&diff::describe(
                    &run.native.events,
                    &node.events,
                    d,
                    context,
                    "node",
                ));
            }
        }
    }
    if with_events {
        for (name, log) in [("native", &run.native), (other, &run.reference)] {
            let _ = writeln!(out, "--- {name} events ({}):", log.outcome);
            for (i, e) in log.events.iter().enumerate() {
                let _ = writeln!(out, "  {i:>4}  {e}");
            }
        }
        if let Some((node, _)) = &run.node {
            let _ = writeln!(out, "--- node events ({}):", node.outcome);
            for (i, e) in node.events.iter().enumerate() {
                let _ = writeln!(out, "  {i:>4}  {e}");
            }
        }
    }
    out
}

fn millis(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// The saved file's text: a comment with the verdict and first divergence, then the program.
fn annotated(js: &str, other: &str, run_verdict: Verdict, d: Option<&diff::Divergence>) -> String {
    let mut out = format!("// result: {}\n", run_verdict.key());
    if let Some(d) = d {
        let _ = writeln!(
            out,
            "// first divergence at event {} ({}):\n//   native:    {}\n//   {other}: {}",
            d.index,
            d.kind,
            d.native.as_deref().unwrap_or("(end of log)"),
            d.reference.as_deref().unwrap_or("(end of log)")
        );
    }
    out.push_str(js);
    out
}

/// The environment variable naming a ready binary of `engine` (set for the peer when
/// `--engine` re-runs the tool: the binary that did it is that engine's).
pub fn binary_variable(engine: &str) -> String {
    format!("STREAM_DIFF_BIN_{}", engine.to_ascii_uppercase())
}

/// `cargo run` for the tool built with `engine`'s feature, in its own target subfolder (as
/// `--engine` does).
pub fn cargo_command(engine: &str) -> std::process::Command {
    let manifest = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest.join("../target"))
        .join(format!("engine-{engine}"));
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = std::process::Command::new(cargo);
    command
        .args([
            "run",
            "--quiet",
            "-p",
            "stream-diff",
            "--no-default-features",
            "--features",
        ])
        .arg(engine)
        .arg("--target-dir")
        .arg(&target)
        .arg("--manifest-path")
        .arg(manifest.join("../Cargo.toml"));
    if !cfg!(debug_assertions) {
        command.arg("--release");
    }
    command.arg("--");
    command
}

/// `--engine NAME` on a binary built for another engine: runs the same arguments (without
/// `--engine`) through `cargo run` with that engine's feature, in its own target subfolder (so
/// the two builds do not replace each other's binary), and returns its status. This binary is
/// the peer of `--against` its own engine there.
fn run_on_engine(engine: &str, args: &[String]) -> i32 {
    let mut forwarded: Vec<&String> = Vec::new();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        if arg == "--engine" {
            it.next();
        } else if !arg.starts_with("--engine=") {
            forwarded.push(arg);
        }
    }
    let mut command = cargo_command(engine);
    if let Ok(me) = std::env::current_exe() {
        command.env(binary_variable(ENGINE), me);
    }
    match command.args(forwarded).status() {
        Ok(status) => status.code().unwrap_or(2),
        Err(e) => {
            eprintln!("stream-diff: cannot run cargo for --engine {engine}: {e}");
            2
        }
    }
}

/// Runs the tool; returns the exit status.
/// Runs generated program `index` of `options.seed`: saves (and shrinks) it if the sides
/// disagree, prints what the options ask, and returns its record.
fn run_generated(runner: &mut Runner, options: &Options, other: &str, index: u64) -> Record {
    let text = !options.json;
    let program = gen::generate(options.seed, index);
    let js = program.to_js();
    if options.print {
        println!("{js}");
    }
    let run = runner.run(&js);
    let verdict = run.comparison.verdict;
    let name = format!("seed{}-{index}", options.seed);
    let mut record = Record::of_run(name.clone(), Some((options.seed, index)), &run);
    if let Some((node_result, cmp)) = &run.node {
        if cmp.verdict != Verdict::Same && text && !options.quiet {
            println!("{name}: node side vs native: {}", cmp.verdict.key());
            if let Some(d) = &cmp.divergence {
                let shown = diff::describe(
                    &run.native.events,
                    &node_result.events,
                    d,
                    options.context,
                    "node",
                );
                for line in shown.lines() {
                    println!("  {line}");
                }
            }
        }
    }
    if verdict != Verdict::Same {
        let _ = std::fs::create_dir_all(&options.out);
        let path = options.out.join(format!("{name}.js"));
        let _ = std::fs::write(
            &path,
            annotated(&js, other, verdict, run.comparison.divergence.as_ref()),
        );
        record.saved = Some(path.clone());
        if text && !options.quiet {
            println!("{name}: {} -> {}", verdict.key(), path.display());
        }
        if options.shrink && verdict != Verdict::Runaway {
            let key = verdict.key();
            let (small, _runs) =
                shrink::shrink(&program, options.shrink_budget, &mut |candidate| {
                    runner.verdict(&candidate.to_js()).key() == key
                });
            let small_js = small.to_js();
            let small_run = runner.run(&small_js);
            let min_path = options.out.join(format!("{name}.min.js"));
            let _ = std::fs::write(
                &min_path,
                annotated(
                    &small_js,
                    other,
                    small_run.comparison.verdict,
                    small_run.comparison.divergence.as_ref(),
                ),
            );
            if text && !options.quiet {
                println!(
                    "  shrunk to {} of {} statements -> {}",
                    small.stmts.len(),
                    program.stmts.len(),
                    min_path.display()
                );
                for line in describe_run(&small_run, other, options.context, false).lines() {
                    println!("  {line}");
                }
            }
            record.shrunk = Some((min_path, small.stmts.len()));
        } else if text && !options.quiet {
            for line in describe_run(&run, other, options.context, false).lines() {
                println!("  {line}");
            }
        }
    }
    record
}

pub fn main_with_args(args: &[String]) -> i32 {
    let options = match parse_args(args) {
        Ok(Some(o)) => o,
        Ok(None) => {
            print!("{HELP}");
            return 0;
        }
        Err(e) => {
            eprintln!("stream-diff: {e}\n(see stream-diff --help)");
            return 2;
        }
    };
    if let Some(engine) = options.engine.as_deref().filter(|e| *e != ENGINE) {
        return run_on_engine(engine, args);
    }
    if options.against.as_deref() == Some(ENGINE) {
        eprintln!("stream-diff: --against {ENGINE}: this is the engine the native side runs on");
        return 2;
    }
    if options.print_only {
        for index in options.first..options.first + options.random.unwrap_or(0) {
            println!("{}", gen::generate(options.seed, index).to_js());
        }
        return 0;
    }
    // Panics are caught and reported per side; the default hook would also print them.
    std::panic::set_hook(Box::new(|_| {}));
    #[cfg(unix)]
    if options.serve {
        return peer::serve(options.fork);
    }
    let reference = match load_reference(options.reference.as_deref()) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("stream-diff: {e}");
            return 2;
        }
    };
    let limits = Limits {
        timeout: options.timeout,
        max_events: options.max_events,
    };
    let setup = Instant::now();
    let runner = match options.against.as_deref() {
        #[cfg(unix)]
        Some(engine) => Runner::against(engine, limits, options.fork),
        #[cfg(not(unix))]
        Some(_) => Err("--against needs Unix".to_owned()),
        None => Runner::with_corrections(reference.clone(), &options.correct, limits, options.fork),
    };
    let mut runner = match runner {
        Ok(r) => r,
        Err(e) => {
            eprintln!("stream-diff: cannot prepare the contexts: {e}");
            return 2;
        }
    };
    let other = runner.other_name().to_owned();
    let setup_time = setup.elapsed();
    if options.node {
        if node::available() {
            runner.node = Some(node::NodeSide::new(
                options.node_reference,
                reference,
                options.out.clone(),
            ));
        } else {
            eprintln!("stream-diff: --node: no `node` on PATH; running without it");
        }
    }

    let mut records = Vec::new();
    let mut summary = Summary::default();
    let mut out = std::io::stdout();
    let text = !options.json;

    for script in &options.scripts {
        let source = match std::fs::read_to_string(script) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("stream-diff: cannot read {script}: {e}");
                return 2;
            }
        };
        let run = runner.run(&source);
        if text {
            let head = match run.comparison.verdict {
                Verdict::Same => "same".to_owned(),
                v => v.key().to_owned(),
            };
            println!(
                "{script}: {head} ({:.1} ms; {} events native, {} {other})",
                millis(run.elapsed),
                run.native.events.len(),
                run.reference.events.len()
            );
            print!(
                "{}",
                describe_run(&run, &other, options.context, options.events)
            );
        }
        records.push(Record::of_run(script.clone(), None, &run));
    }

    if let Some(count) = options.random {
        let start = Instant::now();
        // In text mode a generated program's record goes into the running summary only, so a
        // long run (scripts/soak) holds no memory per program; JSON lists them all.
        let mut keep = |record: Record| {
            summary.add(&record);
            if !text || record.verdict.fails() {
                records.push(record);
            }
        };
        if options.jobs > 1 {
            // `--jobs`: each thread runs every `jobs`-th program on its own runner (each
            // engine's contexts are the thread's own); records come back as they finish.
            let (send, receive) = std::sync::mpsc::channel();
            let reference = &runner.reference;
            std::thread::scope(|scope| {
                for thread in 0..options.jobs {
                    let send = send.clone();
                    let options = &options;
                    let other = other.as_str();
                    let spawned = std::thread::Builder::new()
                        .name(format!("stream-diff-{thread}"))
                        .stack_size(JOB_STACK)
                        .spawn_scoped(scope, move || {
                            let mut runner = match Runner::with_corrections(
                                reference.clone(),
                                &options.correct,
                                limits,
                                false,
                            ) {
                                Ok(runner) => runner,
                                Err(e) => {
                                    eprintln!("stream-diff: cannot prepare the contexts: {e}");
                                    return;
                                }
                            };
                            let first = options.first + thread as u64;
                            let end = options.first + count;
                            for index in (first..end).step_by(options.jobs) {
                                let record = run_generated(&mut runner, options, other, index);
                                if send.send(record).is_err() {
                                    return;
                                }
                            }
                        });
                    if let Err(e) = spawned {
                        eprintln!("stream-diff: cannot start a job thread: {e}");
                    }
                }
                drop(send);
                for record in receive {
                    keep(record);
                }
            });
        } else {
            for index in options.first..options.first + count {
                keep(run_generated(&mut runner, &options, &other, index));
            }
        }
        let total = start.elapsed();
        if text {
            let mut mode = if options.fork {
                "fork mode".to_owned()
            } else {
                "fresh contexts".to_owned()
            };
            if let Some(engine) = &options.against {
                mode.push_str(&format!("; native on {ENGINE} against native on {engine}"));
            } else if ENGINE != "boa" {
                mode.push_str(&format!("; on {ENGINE}"));
            }
            let Summary {
                counts,
                node_counts,
                mut ms,
            } = summary;
            ms.sort_by(|a, b| a.total_cmp(b));
            let mean = ms.iter().map(|&m| f64::from(m)).sum::<f64>() / ms.len().max(1) as f64;
            let median = ms.get(ms.len() / 2).copied().map_or(0.0, f64::from);
            let max = ms.last().copied().map_or(0.0, f64::from);
            println!(
                "\n{} programs (--seed {}, indices {}..{}) in {:.1} s (setup {:.0} ms, {}):",
                ms.len(),
                options.seed,
                options.first,
                options.first + count,
                total.as_secs_f64(),
                millis(setup_time),
                mode,
            );
            for (key, n) in &counts {
                println!("  {key:<34} {n}");
            }
            for (key, n) in &node_counts {
                println!("  node vs native: {key:<18} {n}");
            }
            println!(
                "  time per program (both sides, without shrinking): mean {mean:.1} ms, median {median:.1} ms, max {max:.1} ms"
            );
        }
    }

    if options.json {
        let body: Vec<String> = records.iter().map(Record::json).collect();
        let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
        for r in &records {
            *counts.entry(r.verdict.key()).or_default() += 1;
        }
        let summary: Vec<String> = counts
            .iter()
            .map(|(k, n)| format!("{}:{n}", json::string(k)))
            .collect();
        use std::io::Write;
        let _ = writeln!(
            out,
            "{{\"programs\":[\n{}\n],\"summary\":{{{}}}}}",
            body.join(",\n"),
            summary.join(",")
        );
    }

    if records.iter().any(|r| r.verdict.fails()) {
        1
    } else {
        0
    }
}
