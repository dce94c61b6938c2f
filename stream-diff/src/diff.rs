//! Comparing two event logs, and classifying a divergence.

use std::fmt::Write as _;

use crate::side::{Outcome, SideResult};

/// The named classes of divergence where the reference departs from the spec (or WPT), and
/// the catch-all for real divergences.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Class {
    /// The reference's own invariant check failed first.
    ReferenceAssertion,
    /// The reference's pipe wrote to the sink synchronously inside `enqueue()`.
    ReferenceSyncWriteInEnqueue,
    /// `ReadableStream.from` timing (webidl2js's async_sequence emulation).
    ReferenceAsyncSequenceTiming,
    /// The reference's pipe read (and pulled) after its shutdown began.
    ReferenceReadAfterShutdown,
    /// The reference performed a transform stream algorithm the spec had already cleared.
    ReferenceClearedAlgorithm,
    /// The reference's reactions and pipe loop look up `then` / `constructor` on promises.
    ReferencePromiseLookups,
    /// The reference runs pipeTo's abort algorithm as an `abort` event listener.
    ReferenceAbortAlgorithmAsListener,
    /// Several of the reference's departures at once: only the reference with all of these
    /// corrected (bits in [`crate::correct::Correction::ALL`] order) matches.
    ReferenceSeveral(u8),
    /// Everything else.
    Real,
}

impl Class {
    pub fn name(self) -> &'static str {
        match self {
            Class::ReferenceAssertion => "reference-assertion",
            Class::ReferenceSyncWriteInEnqueue => "reference-sync-write-in-enqueue",
            Class::ReferenceAsyncSequenceTiming => "reference-async-sequence-timing",
            Class::ReferenceReadAfterShutdown => "reference-read-after-shutdown",
            Class::ReferenceClearedAlgorithm => "reference-cleared-algorithm",
            Class::ReferencePromiseLookups => "reference-promise-lookups",
            Class::ReferenceAbortAlgorithmAsListener => "reference-abort-algorithm-as-listener",
            Class::ReferenceSeveral(mask) => several_name(mask),
            Class::Real => "real",
        }
    }
}

/// The name of a combination of corrections: `reference-` and their names joined by `+`
/// (made once per combination).
fn several_name(mask: u8) -> &'static str {
    use std::sync::{Mutex, OnceLock};
    static NAMES: OnceLock<Mutex<Vec<(u8, &'static str)>>> = OnceLock::new();
    let names = NAMES.get_or_init(|| Mutex::new(Vec::new()));
    let mut names = names.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, name)) = names.iter().find(|(m, _)| *m == mask) {
        return name;
    }
    let parts: Vec<&str> = crate::correct::Correction::ALL
        .iter()
        .enumerate()
        .filter(|(bit, _)| mask & (1 << bit) != 0)
        .map(|(_, c)| c.name())
        .collect();
    let name: &'static str = Box::leak(format!("reference-{}", parts.join("+")).into_boxed_str());
    names.push((mask, name));
    name
}

/// The result of one program.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Verdict {
    Same,
    Diverged(Class),
    /// A side could not be set up or its process died.
    Crash,
    /// A side hit the deadline with work pending (or the event limit).
    Hang,
    /// A side panicked.
    Panic,
    /// Both sides were stopped by the limits (deadline or event limit), their logs agreeing
    /// as far as both go: the program itself does not end (e.g. a transform piped into
    /// itself). Not a failure.
    Runaway,
}

impl Verdict {
    pub fn result_name(self) -> &'static str {
        match self {
            Verdict::Same => "same",
            Verdict::Diverged(_) => "diverged",
            Verdict::Crash => "crash",
            Verdict::Hang => "hang",
            Verdict::Panic => "panic",
            Verdict::Runaway => "runaway",
        }
    }

    /// The name counted in summaries: the class for divergences, the result otherwise.
    pub fn key(self) -> &'static str {
        match self {
            Verdict::Diverged(class) => class.name(),
            other => other.result_name(),
        }
    }

    pub fn fails(self) -> bool {
        !matches!(
            self,
            Verdict::Same
                | Verdict::Runaway
                | Verdict::Diverged(
                    Class::ReferenceAssertion
                        | Class::ReferenceSyncWriteInEnqueue
                        | Class::ReferenceAsyncSequenceTiming
                        | Class::ReferenceReadAfterShutdown
                        | Class::ReferenceClearedAlgorithm
                        | Class::ReferencePromiseLookups
                        | Class::ReferenceAbortAlgorithmAsListener
                        | Class::ReferenceSeveral(_)
                )
        )
    }
}

/// Where and how two logs first differ.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Divergence {
    pub index: usize,
    pub native: Option<String>,
    pub reference: Option<String>,
    /// "order" when each side's event at `index` appears later in the other's log, "content"
    /// otherwise.
    pub kind: &'static str,
}

/// What comparing the two sides found.
#[derive(Debug, Clone)]
pub struct Comparison {
    pub verdict: Verdict,
    pub divergence: Option<Divergence>,
    /// One line for a crash, hang or panic.
    pub problem: Option<String>,
}

const IN_ENQUEUE: &str = " [in enqueue]";
pub const ASSERTION_EVENT: &str = "reference AssertionError";

/// The label of an event: its first word (`r3.read1` of `r3.read1 fulfilled ...`), up to a `(`.
pub fn label(event: &str) -> &str {
    let word = event.split(' ').next().unwrap_or("");
    let word = word.split('(').next().unwrap_or(word);
    word.trim_matches('"')
}

pub fn first_divergence(native: &[String], reference: &[String]) -> Option<Divergence> {
    let index = native
        .iter()
        .zip(reference)
        .position(|(a, b)| a != b)
        .or_else(|| (native.len() != reference.len()).then(|| native.len().min(reference.len())))?;
    let n = native.get(index).cloned();
    let r = reference.get(index).cloned();
    let order = match (&n, &r) {
        (Some(n), Some(r)) => reference[index + 1..].contains(n) && native[index + 1..].contains(r),
        _ => false,
    };
    Some(Divergence {
        index,
        native: n,
        reference: r,
        kind: if order { "order" } else { "content" },
    })
}

/// Classifies a divergence. The rules, checked in this order, look only at the first
/// divergence (what follows it may be a consequence):
///
/// - `reference-assertion`: the reference's event there is `reference AssertionError ...`,
///   logged by the hook inside the reference's `AssertionError` constructor: both sides agreed
///   on everything up to the moment the reference's own invariant check failed.
/// - `reference-sync-write-in-enqueue`: the reference's event there is a traced sink `write`
///   call (label ending in `.write`, `.transform` for a TransformStream's writable side, or
///   `.w.size` for a writable strategy's size, the first step of a write) marked `[in enqueue]` (made while an `enq()` call was on
///   the stack), and the same call, unmarked, comes later in the native log: the reference
///   called write synchronously inside `enqueue()`, which the spec's pipe must not
///   (whatwg/streams#1243, WPT general-addition.any.js).
/// - `reference-async-sequence-timing`: an "order" divergence (each side's event appears later
///   in the other's log) where one of the two events belongs to a stream made by
///   `ReadableStream.from`: its label starts with `from` (the generator names such streams
///   `fromN`, their readers and iterators `fromN_rM` / `fromN_iM`, and the iterable `fromN.src`),
///   and the script does not pipe that stream (`fromN.pipeTo(` / `fromN.pipeThrough(`): the
///   pipe's own timing would be in play. Also this class: the same call of such an iterable's
///   `next`, with no arguments natively and `(undefined)` in the reference (its
///   createAsyncFromSyncIterator is `yield*`, which passes the received value on; WebIDL calls
///   IteratorNext with no value); and a native call of a sync iterable's `return` (the
///   from() call's argument starts `{ [Symbol.iterator]` or `(function* `) where the reference
///   calls none (a `yield*` that never started does not forward `return`).
/// - otherwise `real`.
pub fn classify(native: &[String], d: &Divergence, script: &str) -> Class {
    if let Some(r) = &d.reference {
        if r.starts_with(ASSERTION_EVENT) {
            return Class::ReferenceAssertion;
        }
        if let Some(call) = r.strip_suffix(IN_ENQUEUE) {
            // The pipe's write: the sink's write, a TransformStream's transform (its sink write
            // algorithm), or the writable strategy's size (the first step of a write; named
            // `.w.size`).
            let l = label(call);
            let is_write =
                l.ends_with(".write") || l.ends_with(".transform") || l.ends_with(".w.size");
            let native_later = native[d.index..].iter().any(|e| e == call);
            if is_write && native_later {
                return Class::ReferenceSyncWriteInEnqueue;
            }
        }
    }
    // The same call of a from() iterable's `next`, with no argument natively and an explicit
    // `undefined` in the reference: its createAsyncFromSyncIterator is `yield*` in an async
    // generator, which passes the received value on; WebIDL's async_sequence calls
    // IteratorNext(record) with no value.
    if let (Some(n), Some(r)) = (&d.native, &d.reference) {
        if let Some(call) = n.strip_suffix("()") {
            let l = label(n);
            if l.starts_with("from") && l.ends_with(".next") && *r == format!("{call}(undefined)") {
                return Class::ReferenceAsyncSequenceTiming;
            }
        }
    }
    // A sync iterable's `return`, called natively when a from() stream is cancelled, never
    // called by the reference: its createAsyncFromSyncIterator is `yield*` in an async
    // generator, and returning from a generator that has not started does not reach the inner
    // iterator (WebIDL's CreateAsyncFromSyncIterator calls the sync iterator's `return`).
    if let Some(n) = &d.native {
        let l = label(n);
        if let Some(stream) = l.strip_suffix(".src.return") {
            let sync = script.contains(&format!(
                "{stream} = ReadableStream.from({{ [Symbol.iterator]"
            )) || script
                .contains(&format!("{stream} = ReadableStream.from((function* "));
            let in_reference = d.reference.as_deref().is_some_and(|r| label(r) == l);
            if stream.starts_with("from") && sync && !in_reference {
                return Class::ReferenceAsyncSequenceTiming;
            }
        }
    }
    if d.kind == "order" {
        // The from() stream an event belongs to (`from3` of `from3_r4.read5` or
        // `from3.src.next`), unless a pipe reads it: the pipe's own timing is then in play.
        let from = |e: &Option<String>| {
            let label = label(e.as_deref()?);
            if !label.starts_with("from") {
                return None;
            }
            let stream = label.split(['.', '_']).next().unwrap_or(label);
            let piped = script.contains(&format!("{stream}.pipeTo("))
                || script.contains(&format!("{stream}.pipeThrough("));
            (!piped).then_some(())
        };
        if from(&d.native).is_some() || from(&d.reference).is_some() {
            return Class::ReferenceAsyncSequenceTiming;
        }
    }
    Class::Real
}

fn problem(side: &str, result: &SideResult) -> Option<(Verdict, String)> {
    match &result.outcome {
        Outcome::Idle => None,
        Outcome::Hang => Some((
            Verdict::Hang,
            format!("{side}: hang (deadline reached with work pending)"),
        )),
        Outcome::EventLimit => Some((Verdict::Hang, format!("{side}: event limit reached"))),
        Outcome::Panic(m) => Some((Verdict::Panic, format!("{side}: panic: {m}"))),
        Outcome::Crash(m) => Some((Verdict::Crash, format!("{side}: crash: {m}"))),
    }
}

pub fn compare(native: &SideResult, reference: &SideResult, script: &str) -> Comparison {
    let divergence = first_divergence(&native.events, &reference.events);
    let problems: Vec<(Verdict, String)> =
        [problem("native", native), problem("reference", reference)]
            .into_iter()
            .flatten()
            .collect();
    let problem_text = (!problems.is_empty()).then(|| {
        problems
            .iter()
            .map(|(_, t)| t.as_str())
            .collect::<Vec<_>>()
            .join("; ")
    });
    // 1. A panic or a crash on either side.
    for wanted in [Verdict::Panic, Verdict::Crash] {
        if problems.iter().any(|(v, _)| *v == wanted) {
            return Comparison {
                verdict: wanted,
                divergence,
                problem: problem_text,
            };
        }
    }
    // 2. A difference both logs reach (not just one log going on longer) is a divergence,
    //    whatever happened later.
    if let Some(d) = &divergence {
        let both_reach = d.native.is_some() && d.reference.is_some();
        if both_reach || problems.is_empty() {
            let class = classify(&native.events, d, script);
            return Comparison {
                verdict: Verdict::Diverged(class),
                divergence,
                problem: problem_text,
            };
        }
    }
    // 3. Hangs: both sides stopped by the limits, one log a prefix of the other, is the
    //    program's own; one side only is a hang.
    if !problems.is_empty() {
        let verdict = if problems.len() == 2 {
            Verdict::Runaway
        } else {
            Verdict::Hang
        };
        return Comparison {
            verdict,
            divergence,
            problem: problem_text,
        };
    }
    Comparison {
        verdict: Verdict::Same,
        divergence: None,
        problem: None,
    }
}

/// The first divergence with `context` events before it and after it on each side.
pub fn describe(
    native: &[String],
    reference: &[String],
    d: &Divergence,
    context: usize,
    other_name: &str,
) -> String {
    let mut out = String::new();
    let start = d.index.saturating_sub(context);
    let _ = writeln!(
        out,
        "first divergence at event {} ({}), after {} identical events:",
        d.index, d.kind, d.index
    );
    for (i, e) in native[start..d.index].iter().enumerate() {
        let _ = writeln!(out, "    {:>4}  {}", start + i, e);
    }
    for (name, log) in [("native", native), (other_name, reference)] {
        let _ = writeln!(out, "  {name}:");
        let end = (d.index + context + 1).min(log.len());
        if d.index >= log.len() {
            let _ = writeln!(out, "    {:>4}  (end of log)", d.index);
        }
        for (i, e) in log[d.index.min(log.len())..end].iter().enumerate() {
            let marker = if i == 0 { '>' } else { ' ' };
            let _ = writeln!(out, "  {marker} {:>4}  {}", d.index + i, e);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn side(events: &[&str], outcome: Outcome) -> SideResult {
        SideResult {
            events: v(events),
            outcome,
            elapsed: Duration::ZERO,
        }
    }

    #[test]
    fn verdicts() {
        let same = side(&["a", "b"], Outcome::Idle);
        assert_eq!(compare(&same, &same, "").verdict, Verdict::Same);
        // Both stopped by the limits, one log a prefix of the other: the program's own.
        let long = side(&["a", "a", "a"], Outcome::EventLimit);
        let short = side(&["a", "a"], Outcome::Hang);
        assert_eq!(compare(&long, &short, "").verdict, Verdict::Runaway);
        // One side only: a hang.
        let idle = side(&["a", "a"], Outcome::Idle);
        assert_eq!(compare(&idle, &short, "").verdict, Verdict::Hang);
        assert!(Verdict::Hang.fails() && !Verdict::Runaway.fails());
        // A difference both logs reach wins over a later runaway.
        let other = side(&["a", "b", "a"], Outcome::EventLimit);
        assert_eq!(
            compare(&long, &other, "").verdict,
            Verdict::Diverged(Class::Real)
        );
        let panic = side(&[], Outcome::Panic("x".into()));
        assert_eq!(compare(&panic, &same, "").verdict, Verdict::Panic);
    }

    fn v(events: &[&str]) -> Vec<String> {
        events.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn classes() {
        let n = v(&[
            "a",
            "enqueue(1)",
            "x",
            "ws1.write(1 [WritableStreamDefaultController])",
        ]);
        let r = v(&[
            "a",
            "enqueue(1)",
            "ws1.write(1 [WritableStreamDefaultController]) [in enqueue]",
            "x",
        ]);
        let d = first_divergence(&n, &r).unwrap();
        assert_eq!(d.index, 2);
        assert_eq!(classify(&n, &d, ""), Class::ReferenceSyncWriteInEnqueue);

        // The writable strategy's size, first step of the pipe's write, inside enqueue.
        let n = v(&["enqueue(1)", "x", "ws3.w.size(1)"]);
        let r = v(&["enqueue(1)", "ws3.w.size(1) [in enqueue]", "x"]);
        let d = first_divergence(&n, &r).unwrap();
        assert_eq!(classify(&n, &d, ""), Class::ReferenceSyncWriteInEnqueue);
        // A readable's own size inside enqueue is not the pipe's write.
        let n = v(&["enqueue(1)", "x", "rs3.size(1)"]);
        let r = v(&["enqueue(1)", "rs3.size(1) [in enqueue]", "x"]);
        let d = first_divergence(&n, &r).unwrap();
        assert_eq!(classify(&n, &d, ""), Class::Real);

        let n = v(&["a", "w.write1 rejected TypeError"]);
        let r = v(&[
            "a",
            "reference AssertionError \"x\"",
            "w.write1 rejected AssertionError",
        ]);
        let d = first_divergence(&n, &r).unwrap();
        assert_eq!(classify(&n, &d, ""), Class::ReferenceAssertion);

        let n = v(&["from1_r2.read1 fulfilled 1", "rs3_r4.read1 fulfilled 2"]);
        let r = v(&["rs3_r4.read1 fulfilled 2", "from1_r2.read1 fulfilled 1"]);
        let d = first_divergence(&n, &r).unwrap();
        assert_eq!(d.kind, "order");
        assert_eq!(classify(&n, &d, ""), Class::ReferenceAsyncSequenceTiming);

        let n = v(&["from1.src.next()"]);
        let r = v(&["from1.src.next(undefined)"]);
        let d = first_divergence(&n, &r).unwrap();
        assert_eq!(classify(&n, &d, ""), Class::ReferenceAsyncSequenceTiming);

        let n = v(&["from1.src.return(1)", "from1.cancel2 fulfilled undefined"]);
        let r = v(&["from1.cancel2 fulfilled undefined"]);
        let d = first_divergence(&n, &r).unwrap();
        let sync = "from1 = ReadableStream.from({ [Symbol.iterator]() {} });";
        assert_eq!(classify(&n, &d, sync), Class::ReferenceAsyncSequenceTiming);
        let not_sync = "from1 = ReadableStream.from({ [Symbol.asyncIterator]() {} });";
        assert_eq!(classify(&n, &d, not_sync), Class::Real);
        let n = v(&["from1_r2.read1 fulfilled 1", "rs3_r4.read1 fulfilled 2"]);
        let r = v(&["rs3_r4.read1 fulfilled 2", "from1_r2.read1 fulfilled 1"]);
        let d = first_divergence(&n, &r).unwrap();

        // ... unless a pipe reads that stream.
        assert_eq!(classify(&n, &d, "x = from1.pipeTo(ws)"), Class::Real);

        // Content, not order: real, even for a from stream.
        let n = v(&["from1_r2.read1 fulfilled 1"]);
        let r = v(&["from1_r2.read1 fulfilled 2"]);
        let d = first_divergence(&n, &r).unwrap();
        assert_eq!(classify(&n, &d, ""), Class::Real);

        // A write outside enqueue moved: real.
        let n = v(&["x", "ws1.write(1)"]);
        let r = v(&["ws1.write(1)", "x"]);
        let d = first_divergence(&n, &r).unwrap();
        assert_eq!(classify(&n, &d, ""), Class::Real);
        assert!(first_divergence(&n, &n).is_none());
    }
}
