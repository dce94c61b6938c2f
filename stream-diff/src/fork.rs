//! Fork mode (Unix). Each side has a zygote: a process forked at startup that prepares its
//! context once (host, for the reference side the bundle, the prelude) and never runs a script
//! in it. For each program it forks a child, which runs the script on its copy-on-write
//! snapshot of that pristine context — so every program starts from a freshly built context
//! without parsing the 365 KB bundle again — sends its events back over a pipe and exits. A
//! child that dies (stack overflow, abort) is a crash; one that does not answer by the deadline
//! is killed and reported as a hang. The sides live in separate zygotes so a child's garbage
//! collections only walk its own side's heap, and the two sides of a program run at once.

use std::{
    fs::File,
    io::{Read, Write},
    os::fd::{AsRawFd, FromRawFd, OwnedFd},
    time::{Duration, Instant},
};

use crate::side::{self, Limits, Outcome, Prepared, ReferenceSource, SideKind, SideResult};

/// The two zygote processes, and one per corrected reference (only the native one when the
/// other side is another engine's process: `--against`).
pub struct Zygote {
    native: ZygoteProc,
    reference: Option<ZygoteProc>,
    variants: Vec<ZygoteProc>,
}

struct ZygoteProc {
    pid: libc::pid_t,
    requests: File,
    responses: File,
    dead: bool,
}

fn pipe() -> Result<(OwnedFd, OwnedFd), String> {
    let mut fds = [0; 2];
    // Close-on-exec: a process the tool spawns (the `--against` peer) must not hold a zygote's
    // pipe, or the zygote never sees its requests end. Forked children still inherit them.
    // SAFETY: `pipe2` writes two `c_int`s through its pointer, and `fds` is a live, writable
    // array of exactly two; it reads no memory, and `O_CLOEXEC` is a flag it takes.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(format!("pipe: {}", std::io::Error::last_os_error()));
    }
    // SAFETY: `pipe2` succeeded, so `fds` holds the two descriptors it just opened; nothing
    // else in the process has them, so each `OwnedFd` is the only owner of its descriptor
    // (I/O safety) and closes it once.
    unsafe { Ok((OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1]))) }
}

/// Reads one length-prefixed frame (`None` at the end of the stream or on an error).
pub(crate) fn read_frame(file: &mut impl Read) -> Option<Vec<u8>> {
    let mut len = [0u8; 8];
    file.read_exact(&mut len).ok()?;
    let mut buf = vec![0u8; u64::from_le_bytes(len) as usize];
    file.read_exact(&mut buf).ok()?;
    Some(buf)
}

/// Writes one length-prefixed frame; whether it was written.
pub(crate) fn write_frame(file: &mut impl Write, bytes: &[u8]) -> bool {
    file.write_all(&(bytes.len() as u64).to_le_bytes()).is_ok()
        && file.write_all(bytes).is_ok()
        && file.flush().is_ok()
}

impl Zygote {
    /// Starts both zygotes and waits until their contexts are prepared. Must be called while
    /// this process has one thread (the zygotes are forked: see `start`).
    pub fn new(
        reference: &ReferenceSource,
        variants: &[ReferenceSource],
    ) -> Result<Zygote, String> {
        let native = start(SideKind::Native, reference, &[])?;
        let mut inherited = vec![native.requests.as_raw_fd(), native.responses.as_raw_fd()];
        let reference_proc = start(SideKind::Reference, reference, &inherited)?;
        inherited.extend([
            reference_proc.requests.as_raw_fd(),
            reference_proc.responses.as_raw_fd(),
        ]);
        let mut procs = Vec::with_capacity(variants.len());
        for variant in variants {
            let z = start(SideKind::Reference, variant, &inherited)?;
            inherited.extend([z.requests.as_raw_fd(), z.responses.as_raw_fd()]);
            procs.push(z);
        }
        Ok(Zygote {
            native,
            reference: Some(reference_proc),
            variants: procs,
        })
    }

    /// Starts the native zygote only (the other side runs elsewhere). Must be called while
    /// this process has one thread (the zygote is forked: see `start`).
    pub fn native_only() -> Result<Zygote, String> {
        let none = ReferenceSource {
            install: String::new(),
            bundle: String::new(),
            bundle_name: String::new(),
        };
        Ok(Zygote {
            native: start(SideKind::Native, &none, &[])?,
            reference: None,
            variants: Vec::new(),
        })
    }

    /// Sends `request` (see [`request`]) to the native side; whether it was sent.
    pub fn send_native(&mut self, request: &[u8]) -> bool {
        self.native.send(request)
    }

    /// The native side's answer to what [`Zygote::send_native`] sent.
    pub fn receive_native(&mut self, sent: bool) -> SideResult {
        self.native.receive(sent)
    }

    /// Runs `script` on the corrected reference number `index` only.
    pub fn run_variant(
        &mut self,
        index: usize,
        script: &str,
        limits: Limits,
    ) -> Option<SideResult> {
        let request = request(script, limits);
        let z = self.variants.get_mut(index)?;
        let sent = z.send(&request);
        Some(z.receive(sent))
    }

    /// Runs `script` on both sides at once, each in a child of its zygote.
    pub fn run(&mut self, script: &str, limits: Limits) -> (SideResult, SideResult) {
        let request = request(script, limits);
        let sent_native = self.native.send(&request);
        let Some(reference_proc) = self.reference.as_mut() else {
            let native = self.native.receive(sent_native);
            return (native, crash("no reference zygote"));
        };
        let sent_reference = reference_proc.send(&request);
        let native = self.native.receive(sent_native);
        let reference = reference_proc.receive(sent_reference);
        (native, reference)
    }
}

fn crash(message: &str) -> SideResult {
    SideResult {
        events: Vec::new(),
        outcome: Outcome::Crash(message.to_owned()),
        elapsed: Duration::ZERO,
    }
}

/// A request frame: the limits, then the script.
pub(crate) fn request(script: &str, limits: Limits) -> Vec<u8> {
    let mut request = Vec::with_capacity(script.len() + 16);
    request.extend_from_slice(&(limits.timeout.as_millis() as u64).to_le_bytes());
    request.extend_from_slice(&(limits.max_events as u64).to_le_bytes());
    request.extend_from_slice(script.as_bytes());
    request
}

impl ZygoteProc {
    fn send(&mut self, request: &[u8]) -> bool {
        !self.dead && write_frame(&mut self.requests, request)
    }

    fn receive(&mut self, sent: bool) -> SideResult {
        let frame = if sent {
            read_frame(&mut self.responses)
        } else {
            None
        };
        match frame.as_deref().and_then(deserialize) {
            Some(result) => result,
            None => {
                self.dead = true;
                SideResult {
                    events: Vec::new(),
                    outcome: Outcome::Crash("the zygote process died".to_owned()),
                    elapsed: Duration::ZERO,
                }
            }
        }
    }
}

impl Drop for Zygote {
    fn drop(&mut self) {
        let variants = self.variants.iter_mut();
        for z in std::iter::once(&mut self.native)
            .chain(self.reference.as_mut())
            .chain(variants)
        {
            // Closing the request pipe ends the zygote's loop.
            let (dead_read, dead_write) = match pipe() {
                Ok(p) => p,
                Err(_) => continue,
            };
            drop(dead_read);
            drop(std::mem::replace(&mut z.requests, File::from(dead_write)));
            let mut status = 0;
            // SAFETY: `waitpid` writes a `c_int` through its pointer, and `status` is one. It
            // has no other precondition; `z.pid` is the child `start` forked for this zygote,
            // reaped only here, once (the `Zygote` is dropped once), so the pid still names it
            // (an unreaped child keeps its pid) and no other process is waited for.
            unsafe { libc::waitpid(z.pid, &mut status, 0) };
        }
    }
}

/// Forks a zygote for `kind`; `close` are descriptors of other zygotes it must not hold.
///
/// This process must have one thread (`Zygote::new`'s and `Zygote::native_only`'s contract).
fn start(kind: SideKind, reference: &ReferenceSource, close: &[i32]) -> Result<ZygoteProc, String> {
    let (req_read, req_write) = pipe()?;
    let (resp_read, resp_write) = pipe()?;
    // SAFETY: after `fork` in a multithreaded process the child may only call
    // async-signal-safe functions (POSIX), and the child here runs arbitrary code (it
    // allocates, builds a host, runs scripts). This process has one thread (this function's
    // contract: its callers run before the tool starts any, and stream-diff starts none in
    // fork mode), so the child is a complete copy of it: no lock is held by a thread that
    // does not exist there.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(format!("fork: {}", std::io::Error::last_os_error()));
    }
    if pid == 0 {
        // The child never leaves this branch: unwinding out of it would run the parent's
        // frames in this process (`Zygote::new`, then the tool's main loop) and drop their
        // `File`s, some of whose descriptors are closed just below. A panic ends it instead.
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            for fd in close {
                // SAFETY: `close` has no memory precondition; I/O safety asks that no owner
                // of the descriptor uses or closes it afterwards. Each one is open here
                // (inherited across `fork`) and owned by a `File` of another zygote's
                // `ZygoteProc` in the parent's frames, which this child never drops nor uses
                // (it does not leave this branch, above): this is its only close here.
                unsafe { libc::close(*fd) };
            }
            drop(req_write);
            drop(resp_read);
            serve(
                kind,
                reference,
                File::from(req_read),
                File::from(resp_write),
            );
        }));
        // SAFETY: `_exit` has no precondition; it ends this process without running
        // destructors or exit handlers, as the parent's frames below must not run here.
        unsafe { libc::_exit(101) }
    }
    drop(req_read);
    drop(resp_write);
    let mut z = ZygoteProc {
        pid,
        requests: File::from(req_write),
        responses: File::from(resp_read),
        dead: false,
    };
    // The first frame says whether the context could be prepared.
    match read_frame(&mut z.responses) {
        Some(frame) if frame.is_empty() => Ok(z),
        Some(frame) => Err(String::from_utf8_lossy(&frame).into_owned()),
        None => Err(format!("the {} zygote died while preparing", kind.name())),
    }
}

/// A request frame's script and limits.
pub(crate) fn parse_request(request: &[u8]) -> Option<(String, Limits)> {
    if request.len() < 16 {
        return None;
    }
    let timeout = u64::from_le_bytes(request[0..8].try_into().ok()?);
    let max_events = u64::from_le_bytes(request[8..16].try_into().ok()?);
    let limits = Limits {
        timeout: Duration::from_millis(timeout),
        max_events: usize::try_from(max_events).unwrap_or(usize::MAX),
    };
    Some((String::from_utf8_lossy(&request[16..]).into_owned(), limits))
}

/// The zygote's loop: prepare, report readiness, then one child per request.
fn serve(
    kind: SideKind,
    reference: &ReferenceSource,
    mut requests: File,
    mut responses: File,
) -> ! {
    let prepared = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        side::prepare(kind, reference)
    }));
    let mut slot = match prepared {
        Ok(Ok(prepared)) => {
            write_frame(&mut responses, b"");
            Some(prepared)
        }
        Ok(Err(message)) => {
            write_frame(&mut responses, message.as_bytes());
            None
        }
        Err(payload) => {
            write_frame(&mut responses, side::panic_message(&payload).as_bytes());
            None
        }
    };
    while let Some(request) = read_frame(&mut requests) {
        if request.len() < 16 || slot.is_none() {
            break;
        }
        let Some((script, limits)) = parse_request(&request) else {
            break;
        };
        let deadline = Instant::now() + limits.timeout + Duration::from_secs(2);
        let child = spawn(
            &mut slot,
            &script,
            limits,
            &[requests.as_raw_fd(), responses.as_raw_fd()],
        );
        let result = collect(child, deadline);
        if !write_frame(&mut responses, &serialize(&result)) {
            break;
        }
    }
    // SAFETY: `_exit` has no precondition; it ends the zygote without running destructors or
    // exit handlers: this process is a fork of the tool, whose frames below this one (and the
    // `File`s they own) must not run or be dropped here.
    unsafe { libc::_exit(0) }
}

/// With the `coverage` feature (scripts/coverage), a child's coverage counters are written
/// before `_exit`, which skips the profiler runtime's own exit hook.
#[cfg(feature = "coverage")]
fn write_coverage() {
    extern "C" {
        fn __llvm_profile_write_file() -> i32;
    }
    // SAFETY: declared with the signature of the profiler runtime's function
    // (`int __llvm_profile_write_file(void)`), which `-C instrument-coverage` links in (the
    // `coverage` feature is only built so, by scripts/coverage; without it the symbol is
    // missing and linking fails). It takes no arguments and merges this process's counters
    // into the file `LLVM_PROFILE_FILE` names; the process is single-threaded (a child of a
    // zygote).
    unsafe {
        __llvm_profile_write_file();
    }
}

#[cfg(not(feature = "coverage"))]
fn write_coverage() {}

/// Forks a child that runs `script` on the prepared context in `slot`.
fn spawn(
    slot: &mut Option<Prepared>,
    script: &str,
    limits: Limits,
    close: &[i32],
) -> Result<Child, String> {
    let (read, write) = pipe()?;
    // SAFETY: as in `start` (the child runs arbitrary code): the zygote has one thread, being
    // a fork of a single-threaded process (`fork` copies the calling thread only) that starts
    // none (preparing the context builds a host and evaluates the setup scripts, which create
    // no agent).
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(format!("fork: {}", std::io::Error::last_os_error()));
    }
    if pid == 0 {
        // The child: run on its copy of the prepared context, write, exit without unwinding
        // or running destructors. It never leaves this branch: unwinding out of it would
        // resume the zygote's loop in this process, on descriptors closed just below.
        let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            for fd in close {
                // SAFETY: `close` has no memory precondition; I/O safety asks that no owner
                // of the descriptor uses or closes it afterwards. These are the zygote's own
                // pipes, open here (inherited across `fork`) and owned by `File`s in the
                // zygote's `serve` frame, which this child never returns to (above): this is
                // their only close here.
                unsafe { libc::close(*fd) };
            }
            drop(read);
            let result = match slot.take() {
                Some(prepared) => side::run_prepared(prepared, script, limits),
                None => SideResult {
                    events: Vec::new(),
                    outcome: Outcome::Crash("no prepared context".to_owned()),
                    elapsed: Duration::ZERO,
                },
            };
            let mut file = File::from(write);
            let _ = file.write_all(&serialize(&result));
            write_coverage();
        }));
        let status = if ran.is_ok() { 0 } else { 101 };
        // SAFETY: `_exit` has no precondition; it ends the child at once, without running
        // destructors or exit handlers (the zygote's frames below must not run here).
        unsafe { libc::_exit(status) };
    }
    drop(write);
    Ok(Child { pid, read })
}

struct Child {
    pid: libc::pid_t,
    read: OwnedFd,
}

fn collect(child: Result<Child, String>, deadline: Instant) -> SideResult {
    let child = match child {
        Ok(child) => child,
        Err(message) => {
            return SideResult {
                events: Vec::new(),
                outcome: Outcome::Crash(message),
                elapsed: Duration::ZERO,
            }
        }
    };
    let mut bytes = Vec::new();
    let mut timed_out = false;
    let mut file = File::from(child.read);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            timed_out = true;
            break;
        }
        let mut pfd = libc::pollfd {
            fd: file.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: `poll` reads and writes `nfds` (1) `pollfd`s through its pointer, and `pfd`
        // is one, live for the call, naming a descriptor `file` keeps open; the timeout is
        // at most 60 001 ms, which fits a `c_int`.
        let ready = unsafe { libc::poll(&mut pfd, 1, left.as_millis().min(60_000) as i32 + 1) };
        if ready < 0 {
            if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            break;
        }
        if ready == 0 {
            continue;
        }
        let mut buf = [0u8; 65536];
        match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => bytes.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    if timed_out {
        // SAFETY: `kill` has no memory precondition. `child.pid` is the child `spawn` forked,
        // not reaped yet (the `waitpid` below is its only reap), so the pid still names it
        // and no other process gets the signal.
        unsafe { libc::kill(child.pid, libc::SIGKILL) };
    }
    let mut status = 0;
    // SAFETY: `waitpid` writes a `c_int` through its pointer, and `status` is one. The pid is
    // our child's, reaped only here, once (above).
    unsafe { libc::waitpid(child.pid, &mut status, 0) };
    if timed_out {
        let mut result = deserialize(&bytes).unwrap_or(SideResult {
            events: Vec::new(),
            outcome: Outcome::Hang,
            elapsed: Duration::ZERO,
        });
        result.outcome = Outcome::Hang;
        return result;
    }
    match deserialize(&bytes) {
        Some(result) => result,
        None => {
            let why = if libc::WIFSIGNALED(status) {
                format!("child killed by signal {}", libc::WTERMSIG(status))
            } else {
                format!("child exited with status {}", libc::WEXITSTATUS(status))
            };
            SideResult {
                events: Vec::new(),
                outcome: Outcome::Crash(why),
                elapsed: Duration::ZERO,
            }
        }
    }
}

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('\n', "\\n")
}

fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('n') => out.push('\n'),
                Some(other) => out.push(other),
                None => {}
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// A result as a frame's bytes.
pub(crate) fn serialize(result: &SideResult) -> Vec<u8> {
    let outcome = match &result.outcome {
        Outcome::Idle => "idle".to_owned(),
        Outcome::Hang => "hang".to_owned(),
        Outcome::EventLimit => "limit".to_owned(),
        Outcome::Panic(m) => format!("panic\t{}", escape(m)),
        Outcome::Crash(m) => format!("crash\t{}", escape(m)),
    };
    let mut out = format!("{outcome}\n{}\n", result.elapsed.as_micros());
    for event in &result.events {
        out.push_str(&escape(event));
        out.push('\n');
    }
    out.push_str("end\n");
    out.into_bytes()
}

/// A result from a frame's bytes (`None` if incomplete).
pub(crate) fn deserialize(bytes: &[u8]) -> Option<SideResult> {
    let text = String::from_utf8_lossy(bytes);
    let mut lines: Vec<&str> = text.split('\n').collect();
    // A complete message ends with "end\n" (so the last split piece is empty).
    if lines.len() < 4 || lines.pop() != Some("") || lines.pop() != Some("end") {
        return None;
    }
    let outcome = match lines[0].split_once('\t') {
        Some(("panic", m)) => Outcome::Panic(unescape(m)),
        Some(("crash", m)) => Outcome::Crash(unescape(m)),
        _ => match lines[0] {
            "idle" => Outcome::Idle,
            "hang" => Outcome::Hang,
            "limit" => Outcome::EventLimit,
            _ => return None,
        },
    };
    let elapsed = Duration::from_micros(lines[1].parse().ok()?);
    let events = lines[2..].iter().map(|l| unescape(l)).collect();
    Some(SideResult {
        events,
        outcome,
        elapsed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let result = SideResult {
            events: vec!["a\\b".into(), "line\nbreak".into(), String::new()],
            outcome: Outcome::Panic("oops\n".into()),
            elapsed: Duration::from_micros(12),
        };
        assert_eq!(deserialize(&serialize(&result)), Some(result));
        assert_eq!(deserialize(b"idle\n1\nx\n"), None);
    }
}
