//! The parent side: runs each file in a child process (a pool of `--jobs` at a time), turns the
//! child's protocol output into a [`FileResult`], and shows progress.

use std::{
    io::{IsTerminal, Read, Write},
    path::PathBuf,
    process::{Child, Command, ExitStatus, Stdio},
    sync::{
        atomic::{AtomicUsize, Ordering},
        mpsc, Arc,
    },
    thread,
    time::{Duration, Instant},
};

use crate::child::{LONG_TIMEOUT, NORMAL_TIMEOUT, PREFIX};
use crate::escape::{proto_unescape, proto_unopt};
use crate::meta::{is_window_test, parse_meta, skip_reason, window_skip_reason};
use crate::model::{FileResult, FileStatus, SubStatus, Subtest};

/// Seconds after the child's own limit before the parent kills it (times the multiplier).
pub const KILL_GRACE: f64 = 10.0;

/// Most stderr kept per child.
const STDERR_CAP: usize = 256 * 1024;

/// How to run the children.
#[derive(Debug, Clone)]
pub struct RunConfig {
    pub exe: PathBuf,
    pub root: PathBuf,
    pub jobs: usize,
    pub multiplier: f64,
    pub verbose: bool,
}

/// Runs every file; results come back in the order of `files`.
pub fn run_all(config: &RunConfig, files: &[String]) -> Vec<FileResult> {
    let total = files.len();
    let next = Arc::new(AtomicUsize::new(0));
    let (tx, rx) = mpsc::channel::<(usize, FileResult)>();
    let workers = config.jobs.clamp(1, total.max(1));
    let files_shared: Arc<Vec<String>> = Arc::new(files.to_vec());
    let mut handles = Vec::new();
    for _ in 0..workers {
        let next = Arc::clone(&next);
        let tx = tx.clone();
        let files = Arc::clone(&files_shared);
        let config = config.clone();
        handles.push(thread::spawn(move || loop {
            let i = next.fetch_add(1, Ordering::SeqCst);
            let Some(path) = files.get(i) else { break };
            let result = run_file(&config, path);
            if tx.send((i, result)).is_err() {
                break;
            }
        }));
    }
    drop(tx);

    let mut progress = Progress::new(total);
    let mut results: Vec<Option<FileResult>> = vec![None; total];
    for (i, result) in rx {
        progress.file_done(&result, config.verbose);
        results[i] = Some(result);
    }
    progress.finish();
    for h in handles {
        let _ = h.join();
    }
    results.into_iter().flatten().collect()
}

/// Runs one file (or decides to skip it).
fn run_file(config: &RunConfig, rel: &str) -> FileResult {
    let started = Instant::now();
    let path = config.root.join(rel);
    let mut result = FileResult {
        path: rel.to_string(),
        status: FileStatus::Crash,
        message: None,
        subtests: Vec::new(),
        complete: false,
        duration: Duration::ZERO,
        stderr: String::new(),
    };
    let source = match std::fs::read_to_string(&path) {
        Ok(s) => s,
        Err(e) => {
            result.status = FileStatus::Error;
            result.message = Some(format!("cannot read the file: {e}"));
            return result;
        }
    };
    let meta = parse_meta(&source);
    // A `.window.js` file runs in a window whatever its META global says.
    let skip = if is_window_test(&path.to_string_lossy()) {
        window_skip_reason(&source)
    } else {
        skip_reason(&meta)
    };
    if let Some(reason) = skip {
        result.status = FileStatus::Skip;
        result.message = Some(reason);
        result.complete = true;
        return result;
    }
    let base = if meta.long_timeout {
        LONG_TIMEOUT
    } else {
        NORMAL_TIMEOUT
    };
    let kill_after = Duration::from_secs_f64((base + KILL_GRACE) * config.multiplier);

    let spawned = Command::new(&config.exe)
        .arg("--child")
        .arg(&path)
        .arg("--wpt-root")
        .arg(&config.root)
        .arg("--timeout-multiplier")
        .arg(config.multiplier.to_string())
        // The panic message is enough for the report; a backtrace only with --verbose.
        .env(
            "RUST_BACKTRACE",
            if config.verbose {
                std::env::var("RUST_BACKTRACE").unwrap_or_else(|_| "1".into())
            } else {
                "0".into()
            },
        )
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match spawned {
        Ok(c) => c,
        Err(e) => {
            result.message = Some(format!("cannot start the child process: {e}"));
            return result;
        }
    };
    let stdout_reader = spawn_reader(&mut child, true);
    let stderr_reader = spawn_reader(&mut child, false);
    let (exit, killed) = wait_with_deadline(&mut child, started + kill_after);
    let stdout = stdout_reader.join().unwrap_or_default();
    let stderr = stderr_reader.join().unwrap_or_default();
    result.duration = started.elapsed();
    result.stderr = stderr;
    interpret(&mut result, &stdout, exit, killed, kill_after);
    result
}

fn spawn_reader(child: &mut Child, stdout: bool) -> thread::JoinHandle<String> {
    let mut pipe: Box<dyn Read + Send> = if stdout {
        match child.stdout.take() {
            Some(p) => Box::new(p),
            None => Box::new(std::io::empty()),
        }
    } else {
        match child.stderr.take() {
            Some(p) => Box::new(p),
            None => Box::new(std::io::empty()),
        }
    };
    thread::spawn(move || {
        let mut kept = Vec::new();
        let mut buf = [0u8; 8192];
        loop {
            match pipe.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    // stdout is the protocol: keep it all. stderr is capped.
                    if stdout || kept.len() < STDERR_CAP {
                        kept.extend_from_slice(&buf[..n]);
                    }
                }
            }
        }
        String::from_utf8_lossy(&kept).into_owned()
    })
}

/// Waits for the child, killing it at `deadline`. Returns its exit status and whether it was
/// killed.
fn wait_with_deadline(child: &mut Child, deadline: Instant) -> (Option<ExitStatus>, bool) {
    let mut nap = Duration::from_millis(2);
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return (Some(status), false),
            Ok(None) => {}
            Err(_) => return (child.wait().ok(), false),
        }
        let now = Instant::now();
        if now >= deadline {
            let _ = child.kill();
            return (child.wait().ok(), true);
        }
        thread::sleep(nap.min(deadline - now));
        nap = (nap * 2).min(Duration::from_millis(25));
    }
}

/// Builds the file's result from the child's protocol lines and how it ended.
fn interpret(
    result: &mut FileResult,
    stdout: &str,
    exit: Option<ExitStatus>,
    killed: bool,
    kill_after: Duration,
) {
    let mut load_errors: Vec<(String, String)> = Vec::new();
    let mut partial: Vec<Subtest> = Vec::new();
    let mut complete: Option<(i32, Option<String>, String)> = None;
    let mut final_list: Vec<Subtest> = Vec::new();
    let mut ended = false;
    let mut bad_codes = Vec::new();
    let subtest = |fields: &[&str], bad: &mut Vec<String>| -> Option<Subtest> {
        let code: i32 = fields.first()?.parse().ok()?;
        let name = proto_unescape(fields.get(1)?);
        let mut message = fields.get(2).and_then(|m| proto_unopt(m));
        let status = SubStatus::from_code(code).unwrap_or_else(|| {
            bad.push(format!("{name}: status {code}"));
            message = Some(format!("unknown testharness status {code}"));
            SubStatus::Fail
        });
        Some(Subtest {
            name,
            status,
            message,
        })
    };
    for line in stdout.lines() {
        let Some(line) = line.strip_prefix(PREFIX) else {
            continue;
        };
        let fields: Vec<&str> = line.split('\t').collect();
        match fields[0] {
            "LOADERROR" if fields.len() >= 3 => {
                load_errors.push((proto_unescape(fields[1]), proto_unescape(fields[2])))
            }
            "RESULT" => partial.extend(subtest(&fields[1..], &mut bad_codes)),
            "SUBTEST" => final_list.extend(subtest(&fields[1..], &mut bad_codes)),
            "COMPLETE" if fields.len() >= 4 => {
                let code = fields[1].parse().unwrap_or(1);
                complete = Some((code, proto_unopt(fields[2]), fields[3].to_string()));
            }
            "END" => ended = true,
            _ => {}
        }
    }

    let load_error_message = load_errors.first().map(|(script, message)| {
        let more = match load_errors.len() {
            1 => String::new(),
            n => format!(" (and {} more load errors)", n - 1),
        };
        format!("{script} threw while loading: {message}{more}")
    });

    if let Some((code, message, how)) = &complete {
        result.subtests = std::mem::take(&mut final_list);
        result.complete = true;
        result.status = FileStatus::from_code(*code).unwrap_or(FileStatus::Error);
        result.message = message.clone();
        if how == "stuck" {
            result.complete = false;
            if result.subtests.is_empty() {
                result.subtests = std::mem::take(&mut partial);
            }
        }
        // As testharness's error handler does in a browser: a script that threw while loading
        // makes the harness status ERROR, with the error's message.
        if let Some(m) = &load_error_message {
            result.status = FileStatus::Error;
            result.message = Some(m.clone());
        }
    } else {
        result.subtests = partial;
        result.complete = false;
    }

    if killed {
        result.status = FileStatus::Timeout;
        result.complete = false;
        result.message = Some(format!(
            "killed after {:.1} s: the child did not finish (a script that never returns?)",
            kill_after.as_secs_f64()
        ));
    } else if !ended || !exit.is_some_and(|s| s.success()) {
        result.status = FileStatus::Crash;
        result.complete = false;
        result.message = Some(crash_message(exit, &result.stderr));
    }
    if !bad_codes.is_empty() && result.stderr.is_empty() {
        result.stderr = format!("unknown statuses: {}", bad_codes.join(", "));
    }
}

fn describe_exit(exit: Option<ExitStatus>) -> String {
    let Some(status) = exit else {
        return "exit status unknown".to_string();
    };
    if let Some(code) = status.code() {
        return format!("exit code {code}");
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = status.signal() {
            let name = match sig {
                4 => " (SIGILL)",
                6 => " (SIGABRT)",
                7 => " (SIGBUS)",
                9 => " (SIGKILL)",
                11 => " (SIGSEGV)",
                _ => "",
            };
            return format!("signal {sig}{name}");
        }
    }
    format!("{status}")
}

/// The exit status plus the most telling stderr line (a panic message, a stack overflow).
fn crash_message(exit: Option<ExitStatus>, stderr: &str) -> String {
    let lines: Vec<&str> = stderr.lines().collect();
    let telling = lines
        .iter()
        .position(|l| l.contains("panicked at") || l.contains("overflowed its stack"))
        .map(|i| {
            let mut s = lines[i].trim().to_string();
            // A panic message is on the line after "panicked at <location>:".
            if lines[i].contains("panicked at") {
                if let Some(next) = lines.get(i + 1) {
                    s.push(' ');
                    s.push_str(next.trim());
                }
            }
            s
        })
        .or_else(|| {
            lines
                .iter()
                .rev()
                .find(|l| !l.trim().is_empty())
                .map(|l| l.trim().to_string())
        });
    match telling.map(|t| without_thread_id(&t)) {
        Some(t) => format!("{}: {t}", describe_exit(exit)),
        None => describe_exit(exit),
    }
}

/// Drops the process-specific thread id from `thread 'main' (12345) panicked`, so messages are
/// the same from run to run.
fn without_thread_id(s: &str) -> String {
    if let Some(start) = s.find("' (") {
        let rest = &s[start + 3..];
        if let Some(end) = rest.find(')') {
            if end > 0 && rest[..end].bytes().all(|b| b.is_ascii_digit()) {
                return format!("{}'{}", &s[..start], &rest[end + 1..]);
            }
        }
    }
    s.to_string()
}

/// The live progress display on stderr.
struct Progress {
    total: usize,
    done: usize,
    passed: usize,
    failed: usize,
    tty: bool,
    started: Instant,
    last_plain: Instant,
}

impl Progress {
    fn new(total: usize) -> Progress {
        let now = Instant::now();
        Progress {
            total,
            done: 0,
            passed: 0,
            failed: 0,
            tty: std::io::stderr().is_terminal(),
            started: now,
            last_plain: now,
        }
    }

    fn file_done(&mut self, r: &FileResult, verbose: bool) {
        self.done += 1;
        self.passed += r.passed();
        self.failed += r.failed();
        let mut err = std::io::stderr().lock();
        if self.tty {
            let _ = write!(err, "\r\x1b[2K");
        }
        if verbose {
            let _ = writeln!(
                err,
                "{:<8} {} ({} passed, {} failed, {:.2} s){}",
                r.status.as_str(),
                r.path,
                r.passed(),
                r.failed(),
                r.duration.as_secs_f64(),
                r.message
                    .as_deref()
                    .map(|m| format!(": {}", first_line(m, 200)))
                    .unwrap_or_default()
            );
            for line in r.stderr.lines() {
                let _ = writeln!(err, "    | {line}");
            }
        }
        let line = format!(
            "[{}/{}] {} passed, {} failed, {:.0} s",
            self.done,
            self.total,
            self.passed,
            self.failed,
            self.started.elapsed().as_secs_f64()
        );
        if self.tty {
            // One terminal line (a wrapped line would not be cleared by the next update).
            let room = 79usize.saturating_sub(line.chars().count() + 2);
            let path: String = if r.path.chars().count() > room {
                let skip = r.path.chars().count() - room.saturating_sub(1);
                format!("…{}", r.path.chars().skip(skip).collect::<String>())
            } else {
                r.path.clone()
            };
            let _ = write!(err, "{line}  {path}");
        } else if !verbose
            && (self.last_plain.elapsed() >= Duration::from_secs(10) || self.done == self.total)
        {
            self.last_plain = Instant::now();
            let _ = writeln!(err, "{line}");
        }
        let _ = err.flush();
    }

    fn finish(&mut self) {
        if self.tty {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[2K");
            let _ = writeln!(
                err,
                "[{}/{}] done in {:.1} s",
                self.done,
                self.total,
                self.started.elapsed().as_secs_f64()
            );
        }
    }
}

/// The first line of a message, shortened to `max` characters.
pub fn first_line(s: &str, max: usize) -> String {
    let line = s.lines().next().unwrap_or("");
    let more = s.lines().nth(1).is_some();
    if line.chars().count() > max {
        let cut: String = line.chars().take(max).collect();
        format!("{cut}…")
    } else if more {
        format!("{line} …")
    } else {
        line.to_string()
    }
}
