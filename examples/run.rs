//! Runs JavaScript files in one global with the streams built-ins and the host globals.
//!
//! ```text
//! cargo run --example run -- [--allow-read DIR] [LIMITS] a.js [b.js ...]
//! cargo run --no-default-features --features engine-quickjs --example run -- a.js   # on QuickJS
//! ```
//!
//! LIMITS, for a script you do not trust (README, "Running untrusted scripts", says what each
//! bounds on each engine):
//!
//! - `--time-limit SECONDS` ([`HostOptions::time_limit`]): how long one file or one task (with
//!   its microtasks) may run; past it the host reports the limit and stops. A decimal number.
//! - `--memory-limit BYTES` ([`HostOptions::memory_limit`]): the engine heap's limit on
//!   QuickJS (not enforced on Boa 0.22). A whole number, with an optional `K`, `M` or `G`
//!   suffix (powers of 1024).
//! - `--loop-limit N` ([`HostOptions::loop_iteration_limit`]): Boa's loop-iteration limit per
//!   call frame (ignored on QuickJS, where the time limit interrupts loops).
//!
//! The files are evaluated in order (each followed by a microtask checkpoint), then the event
//! loop runs until nothing is left. No file is readable by default: `fetch()` of an `http:` or
//! `https:` URL rejects with a TypeError (a network error), as with no network. With
//! `--allow-read DIR`, `fetch('/x')` serves the files under DIR (whatever the URL's host).
//! Uncaught errors and unhandled promise rejections are printed to stderr; the exit status is 1
//! if a file threw, a job threw, a rejection went unhandled, a limit ended the script, or a
//! file's completion value is a
//! promise still pending once nothing is left to run (unsettled top-level work: work that can
//! never finish, which a Boa 0.22 bug makes of an engine error after an `await`, see
//! ENGINE_BUGS.md), and 2 on a usage or I/O error.

use std::{process::ExitCode, time::Duration};

use boa_streams::host::{error_message, Host, HostOptions, HostReport};

/// What the command line asks for: the files to run and the host's options.
#[derive(Debug)]
struct Args {
    files: Vec<String>,
    options: HostOptions,
}

/// The value of `flag`, the next argument.
fn flag_value(flag: &str, args: &mut impl Iterator<Item = String>) -> Result<String, String> {
    args.next().ok_or_else(|| format!("{flag} needs a value"))
}

/// `--time-limit`'s value: seconds, a decimal number above 0.
fn parse_seconds(value: &str) -> Result<Duration, String> {
    value
        .parse::<f64>()
        .ok()
        .filter(|seconds| *seconds > 0.0)
        .and_then(|seconds| Duration::try_from_secs_f64(seconds).ok())
        .ok_or_else(|| format!("--time-limit {value}: not a number of seconds above 0"))
}

/// `--memory-limit`'s value: bytes, a whole number with an optional `K`, `M` or `G` suffix.
fn parse_bytes(value: &str) -> Result<usize, String> {
    let (digits, unit) = match value.char_indices().next_back() {
        Some((i, 'K' | 'k')) => (&value[..i], 1 << 10),
        Some((i, 'M' | 'm')) => (&value[..i], 1 << 20),
        Some((i, 'G' | 'g')) => (&value[..i], 1 << 30),
        _ => (value, 1),
    };
    digits
        .parse::<usize>()
        .ok()
        .and_then(|n| n.checked_mul(unit))
        .filter(|bytes| *bytes > 0)
        .ok_or_else(|| format!("--memory-limit {value}: not a number of bytes above 0"))
}

/// Parses `[--allow-read DIR] [--time-limit S] [--memory-limit BYTES] [--loop-limit N] FILE...`
/// (the flags may come anywhere; `--` ends the flags).
fn parse_args(args: impl IntoIterator<Item = String>) -> Result<Args, String> {
    let mut files = Vec::new();
    let mut options = HostOptions::default();
    let mut args = args.into_iter();
    let mut flags = true;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--allow-read" if flags => {
                let dir = args
                    .next()
                    .ok_or_else(|| "--allow-read needs a folder".to_owned())?;
                let dir =
                    std::fs::canonicalize(&dir).map_err(|e| format!("--allow-read {dir}: {e}"))?;
                if !dir.is_dir() {
                    return Err(format!("--allow-read {}: not a folder", dir.display()));
                }
                options.fetch_root = Some(dir);
            }
            "--time-limit" if flags => {
                options.time_limit = Some(parse_seconds(&flag_value(&arg, &mut args)?)?);
            }
            "--memory-limit" if flags => {
                options.memory_limit = Some(parse_bytes(&flag_value(&arg, &mut args)?)?);
            }
            "--loop-limit" if flags => {
                let value = flag_value(&arg, &mut args)?;
                let limit = value
                    .parse::<u64>()
                    .ok()
                    .filter(|n| *n > 0)
                    .ok_or_else(|| format!("--loop-limit {value}: not a whole number above 0"))?;
                options.loop_iteration_limit = Some(limit);
            }
            "--" if flags => flags = false,
            flag if flags && flag.starts_with("--") => {
                return Err(format!("unknown option {flag}"));
            }
            _ => files.push(arg),
        }
    }
    if files.is_empty() {
        return Err("no file to run".to_owned());
    }
    Ok(Args { files, options })
}

fn main() -> ExitCode {
    // Body-sized buffers reuse freed heap instead of fresh mappings (see the function).
    boa_streams::host::keep_freed_memory_mapped();
    let Args { files, options } = match parse_args(std::env::args().skip(1)) {
        Ok(args) => args,
        Err(error) => {
            eprintln!(
                "{error}\nusage: run [--allow-read DIR] [--time-limit SECONDS] \
                 [--memory-limit BYTES] [--loop-limit N] <file.js> [<file.js> ...]"
            );
            return ExitCode::from(2);
        }
    };
    let mut sources = Vec::with_capacity(files.len());
    for file in files {
        match std::fs::read_to_string(&file) {
            Ok(source) => sources.push((file, source)),
            Err(error) => {
                eprintln!("cannot read {file}: {error}");
                return ExitCode::from(2);
            }
        }
    }
    match run_sources(options, &sources) {
        Ok(Status::Ok) => ExitCode::SUCCESS,
        Ok(Status::Failed | Status::LimitExceeded) => ExitCode::FAILURE,
        Err(error) => {
            eprintln!("cannot set up the host: {error}");
            ExitCode::from(2)
        }
    }
}

/// How a run ended.
#[derive(Debug, PartialEq, Eq)]
enum Status {
    Ok,
    /// A file threw, a job threw, a rejection went unhandled, a limit ended the script, or
    /// top-level work was left unsettled (each printed to stderr).
    Failed,
    /// The time limit ran out and closed the agent (printed to stderr).
    LimitExceeded,
}

/// Runs the named sources in order in one host built with `options`, then its event loop
/// until nothing is left (or a limit closes the agent).
fn run_sources(options: HostOptions, sources: &[(String, String)]) -> Result<Status, String> {
    let (host, mut ctx) = Host::new(options).map_err(|error| error.to_string())?;
    let mut failed = false;
    let mut completions = Vec::new();
    for (file, source) in sources {
        let result = host.eval_script(&mut ctx, file, source);
        match result {
            Ok(value) => completions.push((file, value)),
            Err(error) => {
                eprintln!("Uncaught {} (in {file})", error_message(error, &mut ctx));
                failed = true;
            }
        }
        // Report what the checkpoint after this file found, in order.
        let (reported, limited) = print_reports(&host);
        failed |= reported;
        if limited {
            // The limit closed the agent: nothing more runs.
            return Ok(Status::LimitExceeded);
        }
    }

    host.run_until(&mut ctx, None, &mut |_| false);
    let (reported, limited) = print_reports(&host);
    failed |= reported;
    if limited {
        return Ok(Status::LimitExceeded);
    }
    // Unsettled top-level work: a file whose completion value is a promise that is still
    // pending although the event loop has nothing left to run can never finish.
    for (file, value) in completions {
        if host.is_pending_promise(&value) {
            eprintln!(
                "Unsettled: the promise {file} evaluated to is still pending, and nothing is left \
                 to run (an engine error after an await ends work this way in Boa 0.22: \
                 ENGINE_BUGS.md)"
            );
            failed = true;
        }
    }
    Ok(if failed { Status::Failed } else { Status::Ok })
}

/// Prints what the host reported; returns whether there was anything, and whether a limit
/// ended the script.
fn print_reports(host: &Host) -> (bool, bool) {
    let reports = host.take_reports();
    for report in &reports {
        eprintln!("{report}");
    }
    let limited = reports
        .iter()
        .any(|report| matches!(report, HostReport::LimitExceeded(_)));
    (!reports.is_empty(), limited)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `script` in a host built from `args` (plus the script's name) to the end, and
    /// returns the global `result` as a string.
    fn run(args: &[&str], script: &str) -> String {
        let args = parse_args(
            args.iter()
                .map(|a| a.to_string())
                .chain(["t.js".to_owned()]),
        )
        .expect("valid arguments");
        let (host, mut ctx) = Host::new(args.options).expect("a host");
        host.eval_script(&mut ctx, "t.js", script)
            .expect("the script runs");
        host.run_until(&mut ctx, None, &mut |_| false);
        let value = host
            .eval_script(&mut ctx, "result.js", "String(globalThis.result)")
            .expect("result");
        text(value, &mut ctx)
    }

    fn text(value: boa_streams::Value, ctx: &mut boa_streams::host::Context) -> String {
        value
            .to_string(ctx)
            .expect("a string")
            .to_std_string_escaped()
    }

    const FETCH_THIS_FILE: &str = r#"
        fetch('http://x/run.rs').then(
          (r) => r.text().then((t) => { globalThis.result = 'read ' + t.includes('fn parse_args'); }),
          (e) => { globalThis.result = 'rejected ' + e.name; });
    "#;

    /// Without `--allow-read`, a script reads no file: `fetch()` is a network error.
    #[test]
    fn no_file_is_readable_by_default() {
        assert_eq!(run(&[], FETCH_THIS_FILE), "rejected TypeError");
    }

    /// With `--allow-read DIR`, the files under DIR are served.
    #[test]
    fn allow_read_serves_that_folder() {
        let examples = concat!(env!("CARGO_MANIFEST_DIR"), "/examples");
        assert_eq!(
            run(&["--allow-read", examples], FETCH_THIS_FILE),
            "read true"
        );
    }

    #[test]
    fn bad_arguments_are_errors() {
        let parse = |args: &[&str]| parse_args(args.iter().map(|a| a.to_string()));
        assert!(parse(&[]).is_err());
        assert!(parse(&["--allow-read"]).is_err());
        assert!(parse(&["--allow-read", "/nonexistent-folder", "a.js"]).is_err());
        assert!(parse(&["--unknown", "a.js"]).is_err());
        let args = parse(&["--", "--allow-read"]).expect("a file named --allow-read");
        assert_eq!(args.files, ["--allow-read"]);
        assert!(args.options.fetch_root.is_none());
    }

    #[test]
    fn the_limit_flags_set_the_host_options() {
        let parse = |args: &[&str]| parse_args(args.iter().map(|a| a.to_string()));
        let args = parse(&[
            "--time-limit",
            "1.5",
            "a.js",
            "--memory-limit",
            "64M",
            "--loop-limit",
            "1000",
        ])
        .expect("valid limits");
        assert_eq!(args.files, ["a.js"]);
        assert_eq!(args.options.time_limit, Some(Duration::from_millis(1500)));
        assert_eq!(args.options.memory_limit, Some(64 << 20));
        assert_eq!(args.options.loop_iteration_limit, Some(1000));
        let args = parse(&["--memory-limit", "4096", "a.js"]).expect("bytes");
        assert_eq!(args.options.memory_limit, Some(4096));
        assert_eq!(args.options.time_limit, None);
        for bad in [
            &["--time-limit", "0", "a.js"][..],
            &["--time-limit", "-1", "a.js"],
            &["--time-limit", "NaN", "a.js"],
            &["--time-limit", "inf", "a.js"],
            &["--time-limit", "1s", "a.js"],
            &["--memory-limit", "0", "a.js"],
            &["--memory-limit", "12Q", "a.js"],
            &["--memory-limit", "M", "a.js"],
            &["--memory-limit", "99999999999999999999G", "a.js"],
            &["--loop-limit", "0", "a.js"],
            &["--loop-limit", "-3", "a.js"],
            &["a.js", "--time-limit"],
        ] {
            assert!(parse(bad).is_err(), "{bad:?}");
        }
    }

    fn sources(files: &[(&str, &str)]) -> Vec<(String, String)> {
        files
            .iter()
            .map(|(name, source)| (name.to_string(), source.to_string()))
            .collect()
    }

    /// The limits end a runaway script, and the run fails instead of hanging.
    #[test]
    fn the_limit_flags_end_a_runaway_script() {
        let parse = |args: &[&str]| parse_args(args.iter().map(|a| a.to_string()));
        let options = parse(&["--time-limit", "0.2", "--loop-limit", "100000", "t.js"])
            .expect("valid limits")
            .options;
        // An endless chain of microtasks: the time limit ends it, on both engines.
        let chain = sources(&[
            ("chain.js", "const f = () => queueMicrotask(f); f();"),
            ("after.js", "globalThis.ran = true;"),
        ]);
        assert_eq!(
            run_sources(options.clone(), &chain),
            Ok(Status::LimitExceeded)
        );
        // An endless task: the same.
        let task = sources(&[("task.js", "setTimeout(() => { for (;;) {} });")]);
        assert_ne!(run_sources(options.clone(), &task), Ok(Status::Ok));
        // A loop in the script: QuickJS's interrupt (time), Boa's loop limit.
        let spin = sources(&[("spin.js", "try { for (;;) {} } catch {}")]);
        assert_ne!(run_sources(options, &spin), Ok(Status::Ok));
    }

    /// On QuickJS, `--memory-limit` bounds the engine's heap: allocating past it throws an
    /// error the script can catch.
    #[cfg(not(feature = "engine-boa"))]
    #[test]
    fn the_memory_limit_flag_bounds_the_heap_on_quickjs() {
        let parse = |args: &[&str]| parse_args(args.iter().map(|a| a.to_string()));
        let options = parse(&["--memory-limit", "16M", "t.js"])
            .expect("a valid limit")
            .options;
        let grow = sources(&[
            (
                "grow.js",
                "globalThis.result = 'none';
                 try { const a = []; for (;;) a.push(new Uint8Array(65536)); }
                 catch (e) { result = String(e); }",
            ),
            (
                "check.js",
                "if (!result.includes('out of memory')) throw new Error(result);",
            ),
        ]);
        assert_eq!(run_sources(options, &grow), Ok(Status::Ok));
    }
}
