//! Runs JavaScript files in one global with the streams built-ins and the host globals.
//!
//! ```text
//! cargo run --example run -- [--allow-read DIR] a.js [b.js ...]
//! cargo run --no-default-features --features engine-quickjs --example run -- a.js   # on QuickJS
//! ```
//!
//! The files are evaluated in order (each followed by a microtask checkpoint), then the event
//! loop runs until nothing is left. No file is readable by default: `fetch()` of an `http:` or
//! `https:` URL rejects with a TypeError (a network error), as with no network. With
//! `--allow-read DIR`, `fetch('/x')` serves the files under DIR (whatever the URL's host).
//! Uncaught errors and unhandled promise rejections are printed to stderr; the exit status is 1
//! if a file threw, a job threw, a rejection went unhandled, or a file's completion value is a
//! promise still pending once nothing is left to run (unsettled top-level work: work that can
//! never finish, which a Boa 0.22 bug makes of an engine error after an `await`, see
//! ENGINE_BUGS.md), and 2 on a usage or I/O error.

use std::process::ExitCode;

use boa_streams::host::{error_message, Host, HostOptions};

/// What the command line asks for: the files to run and the host's options.
#[derive(Debug)]
struct Args {
    files: Vec<String>,
    options: HostOptions,
}

/// Parses `[--allow-read DIR] FILE...` (the flag may come anywhere; `--` ends the flags).
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
            eprintln!("{error}\nusage: run [--allow-read DIR] <file.js> [<file.js> ...]");
            return ExitCode::from(2);
        }
    };
    let (host, mut ctx) = match Host::new(options) {
        Ok(built) => built,
        Err(error) => {
            eprintln!("cannot set up the host: {error}");
            return ExitCode::from(2);
        }
    };

    let mut failed = false;
    let mut completions = Vec::new();
    for file in &files {
        let source = match std::fs::read_to_string(file) {
            Ok(source) => source,
            Err(error) => {
                eprintln!("cannot read {file}: {error}");
                return ExitCode::from(2);
            }
        };
        match host.eval_script(&mut ctx, file, &source) {
            Ok(value) => completions.push((file, value)),
            Err(error) => {
                eprintln!("Uncaught {} (in {file})", error_message(error, &mut ctx));
                failed = true;
            }
        }
        // Report what the checkpoint after this file found, in order.
        for report in host.take_reports() {
            eprintln!("{report}");
            failed = true;
        }
    }

    host.run_until(&mut ctx, None, &mut |_| false);
    for report in host.take_reports() {
        eprintln!("{report}");
        failed = true;
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

    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
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
}
