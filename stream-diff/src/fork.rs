//! Fork mode (Unix): the contexts are prepared once (host, reference bundle, prelude) in this
//! process, which never runs a script in them; each program runs in a `fork()`ed child, on its
//! copy-on-write snapshot of those pristine contexts, so every program still starts from a
//! freshly built context without parsing the 365 KB bundle again. The two sides run in two
//! children at once. The child sends its events over a pipe and exits; a child that dies
//! (stack overflow, abort) is a crash, one that does not answer by the deadline is killed and
//! reported as a hang.

use std::{
    io::Read,
    os::fd::{FromRawFd, OwnedFd},
    time::{Duration, Instant},
};

use crate::side::{self, Limits, Outcome, Prepared, ReferenceSource, SideKind, SideResult};

/// The prepared contexts the children start from.
pub struct Zygote {
    native: Option<Prepared>,
    reference: Option<Prepared>,
}

impl Zygote {
    /// Prepares both contexts. Must be called (and `run` too) while this process has one thread.
    pub fn new(reference: &ReferenceSource) -> Result<Zygote, String> {
        Ok(Zygote {
            native: Some(side::prepare(SideKind::Native, reference)?),
            reference: Some(side::prepare(SideKind::Reference, reference)?),
        })
    }

    /// Runs `script` on both sides, each in a child process.
    pub fn run(&mut self, script: &str, limits: Limits) -> (SideResult, SideResult) {
        let native = self.spawn(SideKind::Native, script, limits);
        let reference = self.spawn(SideKind::Reference, script, limits);
        let deadline = Instant::now() + limits.timeout + Duration::from_secs(2);
        let native = collect(native, deadline);
        let reference = collect(reference, deadline);
        (native, reference)
    }

    fn spawn(&mut self, kind: SideKind, script: &str, limits: Limits) -> Result<Child, String> {
        let mut fds = [0; 2];
        // SAFETY: `fds` is a valid array of two ints.
        if unsafe { libc::pipe(fds.as_mut_ptr()) } != 0 {
            return Err(format!("pipe: {}", std::io::Error::last_os_error()));
        }
        // SAFETY: this process is single-threaded (the tool never starts threads in fork mode),
        // so the child may run arbitrary code.
        let pid = unsafe { libc::fork() };
        if pid < 0 {
            return Err(format!("fork: {}", std::io::Error::last_os_error()));
        }
        if pid == 0 {
            // The child: run on its copy of the prepared context, write, exit without unwinding
            // or running destructors (nothing of the parent's is flushed twice).
            // SAFETY: fds[0] is this process's copy of the read end.
            unsafe { libc::close(fds[0]) };
            let slot = match kind {
                SideKind::Native => &mut self.native,
                SideKind::Reference => &mut self.reference,
            };
            let result = match slot.take() {
                Some(prepared) => side::run_prepared(prepared, script, limits),
                None => SideResult {
                    events: Vec::new(),
                    outcome: Outcome::Crash("no prepared context".to_owned()),
                    elapsed: Duration::ZERO,
                },
            };
            let bytes = serialize(&result);
            let mut written = 0;
            while written < bytes.len() {
                // SAFETY: writing from a live buffer to our pipe end.
                let n = unsafe {
                    libc::write(
                        fds[1],
                        bytes[written..].as_ptr().cast(),
                        bytes.len() - written,
                    )
                };
                if n <= 0 {
                    break;
                }
                written += n as usize;
            }
            // SAFETY: ends the child immediately.
            unsafe { libc::_exit(0) };
        }
        // SAFETY: fds[1] is the parent's copy of the write end, not used here.
        unsafe { libc::close(fds[1]) };
        // SAFETY: fds[0] is an open descriptor owned by nothing else.
        let read = unsafe { OwnedFd::from_raw_fd(fds[0]) };
        Ok(Child { pid, read })
    }
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
    let mut file = std::fs::File::from(child.read);
    use std::os::fd::AsRawFd;
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
        // SAFETY: one valid pollfd.
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
        // SAFETY: our own child.
        unsafe { libc::kill(child.pid, libc::SIGKILL) };
    }
    let mut status = 0;
    // SAFETY: our own child; reaps it.
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

fn serialize(result: &SideResult) -> Vec<u8> {
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

fn deserialize(bytes: &[u8]) -> Option<SideResult> {
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
