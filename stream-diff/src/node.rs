//! The optional third side: Node.js (`--node`), with its own streams or, with
//! `--node-reference`, the reference bundle. One `node` process per program: a driver file that
//! installs `__sd_emit`, loads the prelude (and the bundle), runs the script with
//! `vm.runInThisContext`, and prints the events as JSON when the process exits.

use std::{
    io::Read,
    process::{Command, Stdio},
    time::{Duration, Instant},
};

use crate::{
    json,
    side::{normalize_report, Outcome, ReferenceSource, SideResult, PRELUDE},
};

pub struct NodeSide {
    pub use_reference: bool,
    pub reference: ReferenceSource,
    dir: std::path::PathBuf,
    counter: usize,
}

const REFERENCE_HOOK_NODE: &str = r#"(function () {
  const emit = globalThis.__sd_emit;
  const original = Error.captureStackTrace;
  Error.captureStackTrace = function (target, f) {
    const d = target !== null && typeof target === 'object' ? Reflect.getOwnPropertyDescriptor(target, 'name') : undefined;
    if (d !== undefined && d.value === 'AssertionError') {
      const m = Reflect.getOwnPropertyDescriptor(target, 'message');
      emit('reference AssertionError ' + JSON.stringify(m ? String(m.value) : ''));
    }
    return original.call(Error, target, f);
  };
})();"#;

/// Whether `node` can be run.
pub fn available() -> bool {
    Command::new("node")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

impl NodeSide {
    pub fn new(use_reference: bool, reference: ReferenceSource, dir: std::path::PathBuf) -> Self {
        NodeSide {
            use_reference,
            reference,
            dir,
            counter: 0,
        }
    }

    pub fn name(&self) -> &'static str {
        if self.use_reference {
            "node+reference"
        } else {
            "node"
        }
    }

    pub fn run(&mut self, script: &str, timeout: Duration) -> SideResult {
        let start = Instant::now();
        self.counter += 1;
        let _ = std::fs::create_dir_all(&self.dir);
        let driver = self.dir.join(format!(
            "node-driver-{}-{}.js",
            std::process::id(),
            self.counter
        ));
        let mut src = String::new();
        src.push_str(
            "'use strict';\nconst vm = require('vm');\nconst fs = require('fs');\n\
             const __events = [];\n\
             globalThis.__sd_emit = (s) => { __events.push(String(s)); };\n\
             const __emit = globalThis.__sd_emit;\n\
             process.on('uncaughtException', (e) => { let m; try { m = String(e); } catch (x) { m = '?'; } __emit('report uncaught ' + m); });\n\
             process.on('unhandledRejection', (e) => { let m; try { m = String(e); } catch (x) { m = '?'; } __emit('report unhandled ' + m); });\n\
             process.on('exit', () => { fs.writeSync(1, JSON.stringify(__events)); });\n",
        );
        if self.use_reference {
            src.push_str(&format!(
                "vm.runInThisContext({}, {{ filename: 'install.js' }});\n\
                 vm.runInThisContext(fs.readFileSync({}, 'utf8'), {{ filename: 'bundle.js' }});\n\
                 vm.runInThisContext({});\n",
                json::string(&self.reference.install),
                json::string(&self.reference.bundle_name),
                json::string(REFERENCE_HOOK_NODE),
            ));
        }
        src.push_str(&format!(
            "const __render = vm.runInThisContext({}, {{ filename: 'prelude.js' }});\n\
             try {{ vm.runInThisContext({}, {{ filename: 'script.js' }}); }} catch (e) {{ __emit('script threw ' + __render(e)); }}\n",
            json::string(PRELUDE),
            json::string(script),
        ));
        if let Err(e) = std::fs::write(&driver, src) {
            return crash(format!("cannot write {}: {e}", driver.display()), start);
        }
        let mut cmd = Command::new("node");
        if self.use_reference {
            cmd.arg("--harmony-rab-gsab-transfer");
        }
        let child = cmd
            .arg(&driver)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn();
        let mut child = match child {
            Ok(child) => child,
            Err(e) => return crash(format!("cannot run node: {e}"), start),
        };
        let deadline = start + timeout + Duration::from_secs(3);
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break Some(status),
                Ok(None) if Instant::now() >= deadline => {
                    let _ = child.kill();
                    let _ = child.wait();
                    break None;
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(2)),
                Err(_) => break None,
            }
        };
        let mut out = String::new();
        if let Some(mut stdout) = child.stdout.take() {
            let _ = stdout.read_to_string(&mut out);
        }
        let _ = std::fs::remove_file(&driver);
        let Some(_) = status else {
            return SideResult {
                events: Vec::new(),
                outcome: Outcome::Hang,
                elapsed: start.elapsed(),
            };
        };
        match json::parse_string_array(&out) {
            Some(events) => SideResult {
                events: events
                    .into_iter()
                    .map(|e| match e.strip_prefix("report uncaught ") {
                        Some(m) => format!("report uncaught {}", normalize_report(m)),
                        None => match e.strip_prefix("report unhandled ") {
                            Some(m) => format!("report unhandled {}", normalize_report(m)),
                            None => e,
                        },
                    })
                    .collect(),
                outcome: Outcome::Idle,
                elapsed: start.elapsed(),
            },
            None => crash("node printed no event log".to_owned(), start),
        }
    }
}

fn crash(message: String, start: Instant) -> SideResult {
    SideResult {
        events: Vec::new(),
        outcome: Outcome::Crash(message),
        elapsed: start.elapsed(),
    }
}
