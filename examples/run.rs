//! Runs JavaScript files in one global with the streams built-ins and the host globals.
//!
//! ```text
//! cargo run --example run -- a.js [b.js ...]
//! ```
//!
//! The files are evaluated in order (each followed by a microtask checkpoint), then the event
//! loop runs until nothing is left. `fetch('/x')` serves files from the current directory.
//! Uncaught errors and unhandled promise rejections are printed to stderr; the exit status is 1
//! if a file threw, a job threw, or a rejection went unhandled, 2 on a usage or I/O error.

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
    for file in &files {
        let source = match std::fs::read_to_string(file) {
            Ok(source) => source,
            Err(error) => {
                eprintln!("cannot read {file}: {error}");
                return ExitCode::from(2);
            }
        };
        if let Err(error) = host.eval_script(&mut ctx, file, &source) {
            eprintln!("Uncaught {} (in {file})", error_message(error, &mut ctx));
            failed = true;
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

    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
