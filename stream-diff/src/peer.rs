//! The other engine's native side (`--against ENGINE`): a `stream-diff --serve-native` process
//! built for that engine, which runs each program on its native streams and answers with the
//! events. Requests and answers are fork mode's frames (`crate::fork`), over the process's
//! stdin and stdout; its stderr is ours (the scripts' console output).

use std::{
    os::fd::{FromRawFd, OwnedFd},
    process::{Child, ChildStdin, ChildStdout, Command, Stdio},
    time::Duration,
};

use crate::fork::{deserialize, parse_request, read_frame, request, serialize, write_frame};
use crate::side::{self, Limits, Outcome, ReferenceSource, SideKind, SideResult};
use crate::{binary_variable, cargo_command};

/// The option that makes the tool a peer.
pub const SERVE_FLAG: &str = "--serve-native";

/// A running peer process.
pub struct Peer {
    engine: String,
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: ChildStdout,
    dead: bool,
}

impl Peer {
    /// Starts a peer on `engine` (its binary from [`binary_variable`], else through
    /// [`cargo_command`]) and waits until its native context is prepared.
    pub fn start(engine: &str, fork: bool) -> Result<Peer, String> {
        let mut command = match std::env::var_os(binary_variable(engine)) {
            Some(binary) => Command::new(binary),
            None => cargo_command(engine),
        };
        command.arg(SERVE_FLAG);
        if !fork {
            command.arg("--no-fork");
        }
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("cannot start the {engine} side: {e}"))?;
        let (Some(stdin), Some(mut stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(format!("the {engine} side has no pipes"));
        };
        match read_frame(&mut stdout) {
            Some(frame) if frame.is_empty() => {}
            Some(frame) => {
                return Err(format!(
                    "the {engine} side: {}",
                    String::from_utf8_lossy(&frame)
                ))
            }
            None => return Err(format!("the {engine} side exited while preparing")),
        }
        Ok(Peer {
            engine: engine.to_owned(),
            child,
            stdin: Some(stdin),
            stdout,
            dead: false,
        })
    }

    /// The engine the peer runs on.
    pub fn engine(&self) -> &str {
        &self.engine
    }

    /// Sends a program; whether it was sent.
    pub fn send(&mut self, script: &str, limits: Limits) -> bool {
        !self.dead
            && self
                .stdin
                .as_mut()
                .is_some_and(|stdin| write_frame(stdin, &request(script, limits)))
    }

    /// The answer to what [`Peer::send`] sent.
    pub fn receive(&mut self, sent: bool) -> SideResult {
        let frame = if sent {
            read_frame(&mut self.stdout)
        } else {
            None
        };
        match frame.as_deref().and_then(deserialize) {
            Some(result) => result,
            None => {
                self.dead = true;
                SideResult {
                    events: Vec::new(),
                    outcome: Outcome::Crash(format!("the {} side's process died", self.engine)),
                    elapsed: Duration::ZERO,
                }
            }
        }
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        // Closing its stdin ends the peer's loop.
        drop(self.stdin.take());
        let _ = self.child.wait();
    }
}

/// The peer's loop (`--serve-native`): prepare the native side (a zygote in fork mode), say so
/// with an empty frame (or the error), then answer each request frame on stdin with the
/// result's frame on stdout. Returns the exit status.
pub fn serve(fork: bool) -> i32 {
    let mut stdin = std::io::stdin().lock();
    // The protocol gets its own descriptor; whatever else writes to stdout (fd 1) goes to
    // stderr, so stray output cannot break a frame.
    // SAFETY: `dup` has no memory precondition; it only reads fd 1, this process's standard
    // output, and returns a new descriptor (or -1).
    let protocol = unsafe { libc::dup(1) };
    if protocol < 0 {
        return 2;
    }
    // SAFETY: `protocol` was just opened by `dup` and nothing else in the process has it, so
    // the `OwnedFd` is its only owner (I/O safety) and closes it once.
    let mut stdout = std::fs::File::from(unsafe { OwnedFd::from_raw_fd(protocol) });
    // SAFETY: `dup2` has no memory precondition. It atomically makes fd 1 a copy of fd 2, so
    // fd 1 stays open, which is all the standard library assumes of it: `std::io::Stdout`
    // borrows fd 1 rather than owning it, and no `OwnedFd` of this process owns it (the
    // protocol has its own descriptor, above).
    if unsafe { libc::dup2(2, 1) } < 0 {
        return 2;
    }
    let none = ReferenceSource {
        install: String::new(),
        bundle: String::new(),
        bundle_name: String::new(),
    };
    let mut zygote = if fork {
        match crate::fork::Zygote::native_only() {
            Ok(z) => Some(z),
            Err(e) => {
                write_frame(&mut stdout, e.as_bytes());
                return 2;
            }
        }
    } else {
        None
    };
    if !write_frame(&mut stdout, b"") {
        return 2;
    }
    while let Some(frame) = read_frame(&mut stdin) {
        let Some((script, limits)) = parse_request(&frame) else {
            return 2;
        };
        let result = match zygote.as_mut() {
            Some(z) => {
                let sent = z.send_native(&frame);
                z.receive_native(sent)
            }
            None => side::run_fresh(SideKind::Native, &none, &script, limits),
        };
        if !write_frame(&mut stdout, &serialize(&result)) {
            return 2;
        }
    }
    0
}
