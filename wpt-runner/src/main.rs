//! Runs the Web Platform Tests for streams (and encoding, compression) against
//! boa_streams, one child process per test file, and compares the results with
//! `wpt-runner/expectations.txt`. See `--help`.

mod child;
mod escape;
mod expectations;
mod meta;
mod model;
mod parent;
mod report;

use std::{
    path::{Path, PathBuf},
    process::ExitCode,
    time::{Instant, SystemTime, UNIX_EPOCH},
};

use expectations::{compare, Expectations, TODO_REASON};

const USAGE: &str = "\
Usage: cargo run -p wpt-runner [-- OPTIONS] [PREFIX...]

Runs every *.any.js and *.window.js file under streams/, encoding/, compression/, FileAPI/,
url/ and fetch/ of the WPT root (or only those under the given PREFIXes: folders or files,
relative to the WPT root), each in a fresh Boa context in its own process, and compares the
results with the expectations. A .window.js file gets a window-like global (window,
postMessage to itself) and a document stand-in whose iframes are realms; files that need more
are skipped with the reason.

The WPT root is $WPT_ROOT, or ../shared/wpt relative to the current folder.

Options:
  --jobs N                  child processes at a time (default: number of CPUs)
  --timeout-multiplier F    scale the time limits (10 s per file, 60 s for timeout=long,
                            then 10 s more before the child is killed)
  --json PATH               write a wptreport JSON file (the format wpt.fyi reads)
  --engine boa|quickjs      the engine to run the tests on (default: the one this binary was
                            built for, boa unless built with --features quickjs); another
                            engine re-runs the runner through `cargo run` with that engine's
                            feature, in the target folder's engine-NAME subfolder
  --expectations PATH       the expectations file (default: wpt-runner/expectations.txt on
                            Boa, wpt-runner/expectations-quickjs.txt on QuickJS)
  --update-expectations     rewrite the expectations (only under the PREFIXes, if given) from
                            this run, keeping existing reasons
  --reason TEXT             the reason for new entries written by --update-expectations
                            (default: \"TODO: explain\", which makes later runs fail)
  -v, --verbose             print every file's result and its child's stderr
  -h, --help                this text

Exit status: 0 when every result is as expected; 1 on an unexpected result (failure, crash,
timeout, or pass), a stale expectation, or an entry still reading \"TODO: explain\"; 2 on a
usage or setup error.
";

#[derive(Debug)]
struct Options {
    prefixes: Vec<String>,
    jobs: usize,
    multiplier: f64,
    json: Option<PathBuf>,
    expectations: PathBuf,
    update: bool,
    reason: Option<String>,
    verbose: bool,
    child: Option<PathBuf>,
    wpt_root: Option<PathBuf>,
    engine: Option<String>,
}

/// The engine this binary runs tests on.
#[cfg(feature = "boa")]
pub const ENGINE: &str = "boa";
/// The engine this binary runs tests on.
#[cfg(all(feature = "quickjs", not(feature = "boa")))]
pub const ENGINE: &str = "quickjs";

/// The engine and its version, for reports.
#[cfg(feature = "boa")]
pub const ENGINE_VERSION: &str = "boa_engine 0.22";
/// The engine and its version, for reports.
#[cfg(all(feature = "quickjs", not(feature = "boa")))]
pub const ENGINE_VERSION: &str = "quickjs-ng 0.16.2 (rquickjs-sys 0.14)";

/// The default expectations file of this binary's engine.
fn default_expectations() -> PathBuf {
    let name = if ENGINE == "boa" {
        "expectations.txt".to_owned()
    } else {
        format!("expectations-{ENGINE}.txt")
    };
    Path::new(env!("CARGO_MANIFEST_DIR")).join(name)
}

fn parse_args(args: Vec<String>) -> Result<Options, String> {
    let mut o = Options {
        prefixes: Vec::new(),
        jobs: std::thread::available_parallelism().map_or(1, |n| n.get()),
        multiplier: 1.0,
        json: None,
        expectations: default_expectations(),
        update: false,
        reason: None,
        verbose: false,
        child: None,
        wpt_root: None,
        engine: None,
    };
    let mut it = args.into_iter();
    while let Some(arg) = it.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (arg.clone(), None),
        };
        let mut value = |name: &str| -> Result<String, String> {
            inline
                .clone()
                .or_else(|| it.next())
                .ok_or_else(|| format!("{name} needs a value"))
        };
        match flag.as_str() {
            "-h" | "--help" => return Err(String::new()),
            "-v" | "--verbose" => o.verbose = true,
            "--update-expectations" => o.update = true,
            "--jobs" | "-j" => {
                o.jobs = value(&flag)?
                    .parse()
                    .ok()
                    .filter(|n| *n > 0)
                    .ok_or("--jobs needs a positive integer")?
            }
            "--timeout-multiplier" => {
                o.multiplier = value(&flag)?
                    .parse()
                    .ok()
                    .filter(|f: &f64| f.is_finite() && *f > 0.0)
                    .ok_or("--timeout-multiplier needs a positive number")?
            }
            "--json" => o.json = Some(PathBuf::from(value(&flag)?)),
            "--expectations" => o.expectations = PathBuf::from(value(&flag)?),
            "--reason" => {
                let r = value(&flag)?;
                if r.trim().is_empty() || r.contains('\n') {
                    return Err("--reason needs one non-empty line".into());
                }
                o.reason = Some(r.trim().to_string());
            }
            "--child" => o.child = Some(PathBuf::from(value(&flag)?)),
            "--wpt-root" => o.wpt_root = Some(PathBuf::from(value(&flag)?)),
            "--engine" => {
                let engine = value(&flag)?;
                if engine != "boa" && engine != "quickjs" {
                    return Err(format!("unknown engine {engine} (boa or quickjs)"));
                }
                o.engine = Some(engine);
            }
            "--" => o.prefixes.extend(it.by_ref()),
            f if f.starts_with('-') && f.len() > 1 => return Err(format!("unknown option {f}")),
            _ => o.prefixes.push(arg),
        }
    }
    Ok(o)
}

fn main() -> ExitCode {
    let options = match parse_args(std::env::args().skip(1).collect()) {
        Ok(o) => o,
        Err(e) if e.is_empty() => {
            print!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("wpt-runner: {e}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    if let Some(engine) = options.engine.as_deref().filter(|e| *e != ENGINE) {
        return run_on_engine(engine);
    }
    let root = options.wpt_root.clone().unwrap_or_else(|| {
        std::env::var_os("WPT_ROOT")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("../shared/wpt"))
    });
    if let Some(file) = &options.child {
        let code = child::run(&root, file, options.multiplier);
        return ExitCode::from(u8::try_from(code).unwrap_or(1));
    }
    match run(options, root) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("wpt-runner: {e}");
            ExitCode::from(2)
        }
    }
}

/// `--engine NAME` on a binary built for another engine: runs the same arguments (without
/// `--engine`) through `cargo run` with that engine's feature, in its own target subfolder (so
/// the two builds do not replace each other's binary), and exits with its status.
fn run_on_engine(engine: &str) -> ExitCode {
    let mut args: Vec<String> = Vec::new();
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        if arg == "--engine" {
            it.next();
        } else if !arg.starts_with("--engine=") {
            args.push(arg);
        }
    }
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
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
            "wpt-runner",
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
    command.arg("--").args(&args);
    match command.status() {
        Ok(status) => ExitCode::from(u8::try_from(status.code().unwrap_or(2)).unwrap_or(2)),
        Err(e) => {
            eprintln!("wpt-runner: cannot run cargo for --engine {engine}: {e}");
            ExitCode::from(2)
        }
    }
}

fn epoch_ms() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis())
}

/// The parent run. Returns whether everything was as expected.
fn run(options: Options, root: PathBuf) -> Result<bool, String> {
    if !root.join("resources/testharness.js").is_file() {
        return Err(format!(
            "no WPT root at {} (resources/testharness.js missing); set WPT_ROOT",
            root.display()
        ));
    }
    let root = root
        .canonicalize()
        .map_err(|e| format!("{}: {e}", root.display()))?;
    // Children re-exec this very binary. On Linux `/proc/self/exe` names the running image even
    // if a rebuild has since replaced the file at `current_exe()`.
    let proc_self = std::path::Path::new("/proc/self/exe");
    let exe = if proc_self.exists() {
        proc_self.to_path_buf()
    } else {
        std::env::current_exe().map_err(|e| format!("cannot find my own binary: {e}"))?
    };

    let scope: Vec<String> = if options.prefixes.is_empty() {
        meta::DEFAULT_PREFIXES
            .iter()
            .filter(|p| root.join(p).is_dir())
            .map(|p| p.to_string())
            .collect()
    } else {
        options
            .prefixes
            .iter()
            .map(|p| meta::normalise_prefix(&root, p))
            .collect::<Result<_, _>>()?
    };
    let files = meta::discover(&root, &scope);
    if files.is_empty() {
        return Err(format!(
            "no test files under {} in {}",
            scope.join(", "),
            root.display()
        ));
    }

    let exp = match std::fs::read_to_string(&options.expectations) {
        Ok(text) => Expectations::parse(&text)
            .map_err(|e| format!("{}: {e}", options.expectations.display()))?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            eprintln!(
                "note: no expectations file at {}: every non-passing result is unexpected",
                options.expectations.display()
            );
            Expectations::default()
        }
        Err(e) => return Err(format!("{}: {e}", options.expectations.display())),
    };

    eprintln!(
        "running {} files from {} ({} jobs)",
        files.len(),
        root.display(),
        options.jobs
    );
    let time_start_ms = epoch_ms();
    let started = Instant::now();
    let config = parent::RunConfig {
        exe,
        root: root.clone(),
        jobs: options.jobs,
        multiplier: options.multiplier,
        verbose: options.verbose,
    };
    let results = parent::run_all(&config, &files);
    let elapsed = started.elapsed();
    let time_end_ms = epoch_ms();

    if let Some(path) = &options.json {
        let info = report::RunInfo {
            jobs: options.jobs,
            timeout_multiplier: options.multiplier,
            wpt_root: root.display().to_string(),
            prefixes: scope.clone(),
            time_start_ms,
            time_end_ms,
        };
        std::fs::write(path, report::wptreport(&results, &exp, &info))
            .map_err(|e| format!("{}: {e}", path.display()))?;
        eprintln!("wrote {}", path.display());
    }

    let mut ok = true;
    let mut written = None;
    let cmp = if options.update {
        let reason = options.reason.as_deref().unwrap_or(TODO_REASON);
        let new = exp.updated(&results, &scope, reason);
        std::fs::write(&options.expectations, new.render())
            .map_err(|e| format!("{}: {e}", options.expectations.display()))?;
        eprintln!(
            "updated {} ({} entries)",
            options.expectations.display(),
            new.entry_count()
        );
        let cmp = compare(&new, &results, &scope);
        written = Some(new);
        cmp
    } else {
        compare(&exp, &results, &scope)
    };

    let problems = report::problems_text(&cmp, &results, options.verbose);
    if !problems.is_empty() {
        ok = false;
        print!("{problems}");
        println!();
    }
    for r in &results {
        if r.status == model::FileStatus::Skip {
            println!(
                "skipped {}: {}",
                r.path,
                r.message.as_deref().unwrap_or("no reason given")
            );
        }
    }
    print!("{}", report::folder_table(&results, &cmp));
    let todo = written.as_ref().unwrap_or(&exp).todo_entries();
    if !todo.is_empty() {
        ok = false;
        println!(
            "\n{} expectation entries in {} still read \"{TODO_REASON}\"; give each a reason (the first: [{}] {}).",
            todo.len(),
            options.expectations.display(),
            todo[0].0,
            todo[0]
                .1
                .as_deref()
                .map_or("FILE".to_string(), escape::name_escape)
        );
    }
    let unexpected = cmp.problems.len();
    eprintln!(
        "{} files in {:.1} s; {} unexpected{}",
        results.len(),
        elapsed.as_secs_f64(),
        unexpected,
        if options.update {
            " (after the update)"
        } else {
            ""
        }
    );
    println!("{}", report::closing_line(report::totals(&results)));
    Ok(ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn cli() {
        let o = parse_args(args(&[
            "--jobs",
            "3",
            "--timeout-multiplier=0.5",
            "streams/piping",
            "--update-expectations",
            "--reason",
            "not implemented",
            "--",
            "--weird",
        ]))
        .unwrap();
        assert_eq!(o.jobs, 3);
        assert_eq!(o.multiplier, 0.5);
        assert!(o.update);
        assert_eq!(o.reason.as_deref(), Some("not implemented"));
        assert_eq!(o.prefixes, vec!["streams/piping", "--weird"]);
        assert!(parse_args(args(&["--jobs", "0"])).is_err());
        assert!(parse_args(args(&["--bogus"])).is_err());
        assert_eq!(parse_args(args(&["-h"])).unwrap_err(), "");
    }
}
