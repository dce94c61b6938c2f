//! Runs JavaScript files in one global with the streams built-ins and the host globals.
//!
//! ```text
//! cargo run --example run -- a.js [b.js ...]
//! cargo run --no-default-features --features engine-quickjs --example run -- a.js   # on QuickJS
//! ```
//!
//! The files are evaluated in order (each followed by a microtask checkpoint), then the event
//! loop runs until nothing is left. `fetch('/x')` serves files from the current directory.
//! Uncaught errors and unhandled promise rejections are printed to stderr; the exit status is 1
//! if a file threw, a job threw, a rejection went unhandled, or a file's completion value is a
//! promise still pending once nothing is left to run (unsettled top-level work: work that can
//! never finish, which a Boa 0.22 bug makes of an engine error after an `await`, see
//! ENGINE_BUGS.md), and 2 on a usage or I/O error.

use std::process::ExitCode;

use boa_streams::host::{error_message, Host, HostOptions};

fn main() -> ExitCode {
    let files: Vec<String> = std::env::args().skip(1).collect();
    if files.is_empty() {
        eprintln!("usage: run <file.js> [<file.js> ...]");
        return ExitCode::from(2);
    }

    let fetch_root = match std::env::current_dir() {
        Ok(dir) => Some(dir),
        Err(error) => {
            eprintln!("cannot read the current directory: {error}");
            return ExitCode::from(2);
        }
    };
    let options = HostOptions {
        fetch_root,
        ..HostOptions::default()
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
