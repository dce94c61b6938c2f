//! Runs the built `wpt-runner` binary over a mini WPT root made from `tests/fixtures` (the
//! runner's own fixture files, not WPT files) plus WPT's `resources/testharness.js`, copied at
//! test time from `$WPT_ROOT` or `../shared/wpt`. Skips (with a message) when that is absent.

use std::{
    collections::BTreeMap,
    fs,
    path::{Path, PathBuf},
    process::{Command, Output},
    sync::atomic::{AtomicUsize, Ordering},
};

const BIN: &str = env!("CARGO_BIN_EXE_wpt-runner");

/// A temporary mini WPT root, removed on drop.
struct MiniRoot {
    dir: PathBuf,
}

impl Drop for MiniRoot {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.dir);
    }
}

fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), target).unwrap();
        }
    }
}

fn testharness() -> Option<PathBuf> {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let candidates = [
        std::env::var_os("WPT_ROOT").map(PathBuf::from),
        Some(manifest.join("../../shared/wpt")),
        Some(PathBuf::from("../shared/wpt")),
    ];
    candidates
        .into_iter()
        .flatten()
        .map(|root| root.join("resources/testharness.js"))
        .find(|p| p.is_file())
}

fn mini_root() -> Option<MiniRoot> {
    let Some(harness) = testharness() else {
        eprintln!(
            "SKIPPED: resources/testharness.js not found under $WPT_ROOT or ../shared/wpt; \
             the runner self-tests need it"
        );
        return None;
    };
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "wpt-runner-selftest-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::SeqCst)
    ));
    let _ = fs::remove_dir_all(&dir);
    copy_tree(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures"),
        &dir,
    );
    fs::create_dir_all(dir.join("resources")).unwrap();
    fs::copy(harness, dir.join("resources/testharness.js")).unwrap();
    Some(MiniRoot { dir })
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Run {
    fn closing_line(&self) -> &str {
        self.stdout.lines().last().unwrap_or("")
    }
}

fn run(root: &MiniRoot, args: &[&str]) -> Run {
    let output: Output = Command::new(BIN)
        .args(args)
        .env("WPT_ROOT", &root.dir)
        .env_remove("RUST_BACKTRACE")
        .output()
        .unwrap();
    let run = Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    };
    eprintln!(
        "$ wpt-runner {}\n--- stdout\n{}--- stderr\n{}--- exit {}",
        args.join(" "),
        run.stdout,
        run.stderr,
        run.code
    );
    run
}

// A minimal JSON reader, enough to check the shape of the report.
#[derive(Debug, Clone, PartialEq)]
enum Json {
    Null,
    Bool(bool),
    Num(f64),
    Str(String),
    Arr(Vec<Json>),
    Obj(BTreeMap<String, Json>),
}

impl Json {
    fn get(&self, key: &str) -> &Json {
        match self {
            Json::Obj(m) => m.get(key).unwrap_or(&Json::Null),
            _ => &Json::Null,
        }
    }
    fn str(&self) -> Option<&str> {
        match self {
            Json::Str(s) => Some(s),
            _ => None,
        }
    }
    fn arr(&self) -> &[Json] {
        match self {
            Json::Arr(a) => a,
            _ => &[],
        }
    }
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }
    fn eat(&mut self, c: u8) {
        self.ws();
        assert_eq!(self.s[self.i], c, "at byte {}", self.i);
        self.i += 1;
    }
    fn value(&mut self) -> Json {
        self.ws();
        match self.s[self.i] {
            b'{' => {
                self.i += 1;
                let mut m = BTreeMap::new();
                self.ws();
                if self.s[self.i] == b'}' {
                    self.i += 1;
                    return Json::Obj(m);
                }
                loop {
                    self.ws();
                    let Json::Str(k) = self.value() else {
                        panic!("key")
                    };
                    self.eat(b':');
                    let v = self.value();
                    m.insert(k, v);
                    self.ws();
                    self.i += 1;
                    if self.s[self.i - 1] == b'}' {
                        return Json::Obj(m);
                    }
                }
            }
            b'[' => {
                self.i += 1;
                let mut a = Vec::new();
                self.ws();
                if self.s[self.i] == b']' {
                    self.i += 1;
                    return Json::Arr(a);
                }
                loop {
                    a.push(self.value());
                    self.ws();
                    self.i += 1;
                    if self.s[self.i - 1] == b']' {
                        return Json::Arr(a);
                    }
                }
            }
            b'"' => {
                self.i += 1;
                let mut out = String::new();
                loop {
                    let rest = std::str::from_utf8(&self.s[self.i..]).unwrap();
                    let c = rest.chars().next().unwrap();
                    self.i += c.len_utf8();
                    match c {
                        '"' => return Json::Str(out),
                        '\\' => {
                            let e = self.s[self.i];
                            self.i += 1;
                            match e {
                                b'n' => out.push('\n'),
                                b't' => out.push('\t'),
                                b'r' => out.push('\r'),
                                b'u' => {
                                    let hex =
                                        std::str::from_utf8(&self.s[self.i..self.i + 4]).unwrap();
                                    self.i += 4;
                                    out.push(
                                        char::from_u32(u32::from_str_radix(hex, 16).unwrap())
                                            .unwrap(),
                                    );
                                }
                                other => out.push(other as char),
                            }
                        }
                        c => out.push(c),
                    }
                }
            }
            b't' => {
                self.i += 4;
                Json::Bool(true)
            }
            b'f' => {
                self.i += 5;
                Json::Bool(false)
            }
            b'n' => {
                self.i += 4;
                Json::Null
            }
            _ => {
                let start = self.i;
                while self.i < self.s.len() && b"+-.eE0123456789".contains(&self.s[self.i]) {
                    self.i += 1;
                }
                Json::Num(
                    std::str::from_utf8(&self.s[start..self.i])
                        .unwrap()
                        .parse()
                        .unwrap(),
                )
            }
        }
    }
}

fn parse_json(text: &str) -> Json {
    let mut p = Parser {
        s: text.as_bytes(),
        i: 0,
    };
    let v = p.value();
    p.ws();
    assert_eq!(p.i, text.len(), "trailing data in the JSON");
    v
}

const WEIRD: &str = " \ttab, # hash, \\ backslash, \\e, \"quote\", newline\nand trailing space ";

fn file<'a>(report: &'a Json, test: &str) -> &'a Json {
    report
        .get("results")
        .arr()
        .iter()
        .find(|r| r.get("test").str() == Some(test))
        .unwrap_or_else(|| panic!("{test} missing from the report"))
}

fn subtest<'a>(file: &'a Json, name: &str) -> &'a Json {
    file.get("subtests")
        .arr()
        .iter()
        .find(|s| s.get("name").str() == Some(name))
        .unwrap_or_else(|| panic!("subtest {name:?} missing"))
}

#[test]
fn reports_every_kind_of_result() {
    let Some(root) = mini_root() else { return };
    let json = root.dir.join("report.json");
    let exp = root.dir.join("none.txt");
    let r = run(
        &root,
        &[
            "--timeout-multiplier",
            "0.05",
            "--json",
            json.to_str().unwrap(),
            "--expectations",
            exp.to_str().unwrap(),
            "t",
        ],
    );
    // No expectations: every non-PASS result is unexpected.
    assert_eq!(r.code, 1);
    // passed: pass 4, fail 1, timeout 1, load-error 1, crash 1, hang 1 = 9.
    // failed: fail 3, timeout 1, crash 0+1 and hang 0+1 (a file-level failure after the list
    // was cut short counts once), overflow and hang-long 1 each (no subtests) = 8. The
    // load-error file's subtest list is complete, so its ERROR adds nothing.
    assert_eq!(r.closing_line(), "9 passed, 8 failed, 1 skipped");
    assert!(r
        .stdout
        .contains("skipped t/basic/skip.any.js: needs a browser global"));
    assert!(r.stdout.contains("UNEXPECTED in t/basic/fail.any.js"));
    assert!(r
        .stdout
        .contains("FAIL (expected PASS)  plain failure  -- assert_equals: one is not two"));

    let report = parse_json(&fs::read_to_string(&json).unwrap());
    assert_eq!(report.get("results").arr().len(), 9);
    assert_eq!(
        report.get("run_info").get("product").str(),
        Some("boa_streams")
    );
    assert!(matches!(report.get("time_start"), Json::Num(_)));
    for f in report.get("results").arr() {
        assert!(f.get("test").str().unwrap().ends_with(".any.html"));
        assert!(matches!(f.get("message"), Json::Null | Json::Str(_)));
        for s in f.get("subtests").arr() {
            assert!(s.get("name").str().is_some());
            assert!(matches!(
                s.get("status").str(),
                Some("PASS" | "FAIL" | "TIMEOUT" | "NOTRUN" | "PRECONDITION_FAILED")
            ));
        }
    }

    let pass = file(&report, "/t/basic/pass.any.html");
    assert_eq!(pass.get("status").str(), Some("OK"));
    assert_eq!(pass.get("subtests").arr().len(), 4);
    for s in pass.get("subtests").arr() {
        assert_eq!(s.get("status").str(), Some("PASS"), "{s:?}");
    }

    let fail = file(&report, "/t/basic/fail.any.html");
    assert_eq!(fail.get("status").str(), Some("OK"));
    assert_eq!(
        subtest(fail, "passing neighbour").get("status").str(),
        Some("PASS")
    );
    assert_eq!(
        subtest(fail, "plain failure").get("status").str(),
        Some("FAIL")
    );
    assert_eq!(
        subtest(fail, "plain failure").get("expected").str(),
        Some("PASS")
    );
    let weird = subtest(fail, WEIRD);
    assert_eq!(weird.get("status").str(), Some("FAIL"));
    assert_eq!(weird.get("message").str(), Some("boom"));
    // testharness names an unnamed test after its body.
    assert_eq!(
        subtest(fail, "assert_true(false)").get("status").str(),
        Some("FAIL")
    );

    let timeout = file(&report, "/t/basic/timeout.any.html");
    assert_eq!(timeout.get("status").str(), Some("TIMEOUT"));
    assert_eq!(
        subtest(timeout, "finishes").get("status").str(),
        Some("PASS")
    );
    assert_eq!(
        subtest(timeout, "never settles").get("status").str(),
        Some("TIMEOUT")
    );

    let load = file(&report, "/t/basic/load-error.any.html");
    assert_eq!(load.get("status").str(), Some("ERROR"));
    let message = load.get("message").str().unwrap();
    assert!(message.contains("RangeError: thrown at load"), "{message}");
    assert_eq!(
        subtest(load, "defined before the throw")
            .get("status")
            .str(),
        Some("PASS")
    );

    let crash = file(&report, "/t/basic/crash.any.html");
    assert_eq!(
        crash.get("status").str(),
        Some("CRASH"),
        "the Boa 0.22 property-cache panic no longer crashes; find another crash repro"
    );
    assert!(crash.get("message").str().unwrap().contains("panicked"));
    assert_eq!(
        subtest(crash, "before the crash").get("status").str(),
        Some("PASS")
    );

    let overflow = file(&report, "/t/basic/overflow.any.html");
    assert_eq!(overflow.get("status").str(), Some("CRASH"));
    assert!(overflow
        .get("message")
        .str()
        .unwrap()
        .contains("overflowed its stack"));

    let skip = file(&report, "/t/basic/skip.any.html");
    assert_eq!(skip.get("status").str(), Some("SKIP"));
    assert!(skip.get("subtests").arr().is_empty());

    let hang = file(&report, "/t/hang/hang.any.html");
    assert_eq!(hang.get("status").str(), Some("TIMEOUT"));
    assert!(hang
        .get("message")
        .str()
        .unwrap()
        .contains("killed after 1.0 s"));
    assert_eq!(
        subtest(hang, "before the loop").get("status").str(),
        Some("PASS")
    );
    let long = file(&report, "/t/hang/hang-long.any.html");
    assert_eq!(long.get("status").str(), Some("TIMEOUT"));
    assert!(long
        .get("message")
        .str()
        .unwrap()
        .contains("killed after 3.5 s"));
}

#[test]
fn expectations_round_trip_and_catch_every_difference() {
    let Some(root) = mini_root() else { return };
    let exp = root.dir.join("expectations.txt");
    let exp_arg = exp.to_str().unwrap().to_string();
    let basic = |extra: &[&str]| {
        let mut args = vec!["--expectations", exp_arg.as_str(), "t/basic"];
        args.extend_from_slice(extra);
        run(&root, &args)
    };

    // Writing the expectations with a reason makes the run pass, and a second run agrees.
    let r = basic(&["--update-expectations", "--reason", "fixture"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.closing_line(), "8 passed, 6 failed, 1 skipped");
    let text = fs::read_to_string(&exp).unwrap();
    assert!(
        text.contains("[t/basic/fail.any.js]\nFAIL  plain failure  # fixture\n"),
        "{text}"
    );
    assert!(text.contains("FAIL  \\u{20}\\ttab, \\# hash, \\\\ backslash, \\\\e, \"quote\", newline\\nand trailing space\\u{20}  # fixture\n"), "{text}");
    assert!(
        text.contains("FAIL  assert_true(false)  # fixture\n"),
        "{text}"
    );
    assert!(
        text.contains("[t/basic/crash.any.js]\nFILE  CRASH  # fixture\n"),
        "{text}"
    );
    assert!(
        text.contains("[t/basic/skip.any.js]\nFILE  SKIP  # needs a browser global"),
        "{text}"
    );
    assert!(text.contains("[t/basic/timeout.any.js]\nFILE  TIMEOUT  # fixture\nTIMEOUT  never settles  # fixture\n"), "{text}");
    assert!(!text.contains("passing neighbour"));
    let r = basic(&[]);
    assert_eq!(r.code, 0, "{}", r.stdout);

    // The table counts the expected failures.
    assert!(
        r.stdout
            .contains("t/basic      7       8       6                  6"),
        "{}",
        r.stdout
    );

    // A missing entry: an unexpected failure.
    fs::write(&exp, text.replace("FAIL  plain failure  # fixture\n", "")).unwrap();
    let r = basic(&[]);
    assert_eq!(r.code, 1);
    assert!(r.stdout.contains("FAIL (expected PASS)  plain failure"));

    // An entry for a subtest that passes: an unexpected pass.
    fs::write(
        &exp,
        text.replace(
            "FAIL  plain failure  # fixture\n",
            "FAIL  plain failure  # fixture\nFAIL  passing neighbour  # fixture\n",
        ),
    )
    .unwrap();
    let r = basic(&[]);
    assert_eq!(r.code, 1);
    assert!(r.stdout.contains("PASS (expected FAIL)  passing neighbour"));

    // An entry for a subtest that does not exist, and for a file that does not: stale.
    fs::write(
        &exp,
        format!("{text}\n[t/basic/gone.any.js]\nFAIL  x  # fixture\n").replace(
            "FAIL  plain failure  # fixture\n",
            "FAIL  plain failure  # fixture\nFAIL  no such subtest  # fixture\n",
        ),
    )
    .unwrap();
    let r = basic(&[]);
    assert_eq!(r.code, 1);
    assert!(r
        .stdout
        .contains("STALE expectation: no subtest named `no such subtest`"));
    assert!(r.stdout.contains(
        "UNEXPECTED in t/basic/gone.any.js\n  STALE expectations: this file did not run"
    ));

    // A wrong file status: unexpected.
    fs::write(
        &exp,
        text.replace("FILE  CRASH  # fixture", "FILE  ERROR  # fixture"),
    )
    .unwrap();
    let r = basic(&[]);
    assert_eq!(r.code, 1);
    assert!(r.stdout.contains("file CRASH (expected ERROR)"));

    // An unexplained entry fails the run even when everything else matches.
    fs::write(
        &exp,
        text.replace(
            "FAIL  plain failure  # fixture",
            "FAIL  plain failure  # TODO: explain",
        ),
    )
    .unwrap();
    let r = basic(&[]);
    assert_eq!(r.code, 1);
    assert!(r.stdout.contains("still read \"TODO: explain\""));

    // Updating one file keeps the reasons of remaining entries and the other files' entries,
    // gives new entries the placeholder, and drops entries that now pass.
    let edited =
        text.replace(
            "FAIL  plain failure  # fixture",
            "FAIL  plain failure  # a kept reason",
        )
        .replace("FAIL  assert_true(false)  # fixture\n", "")
        .replace(
            "[t/basic/crash.any.js]\nFILE  CRASH  # fixture",
            "[t/basic/crash.any.js]\nFILE  CRASH  # crash reason",
        ) + "\n[t/other/elsewhere.any.js]\nFAIL  untouched  # outside the prefix\n";
    fs::write(
        &exp,
        edited.replace(
            "[t/basic/fail.any.js]\n",
            "[t/basic/fail.any.js]\nFAIL  passing neighbour  # stale\n",
        ),
    )
    .unwrap();
    let r = run(
        &root,
        &[
            "--expectations",
            exp_arg.as_str(),
            "--update-expectations",
            "t/basic/fail.any.js",
        ],
    );
    assert_eq!(r.code, 1, "a new TODO entry must fail the run");
    let updated = fs::read_to_string(&exp).unwrap();
    assert!(
        updated.contains("FAIL  plain failure  # a kept reason\n"),
        "{updated}"
    );
    assert!(
        updated.contains("FAIL  assert_true(false)  # TODO: explain\n"),
        "{updated}"
    );
    assert!(!updated.contains("passing neighbour"), "{updated}");
    assert!(
        updated.contains("FILE  CRASH  # crash reason\n"),
        "{updated}"
    );
    assert!(
        updated.contains("[t/other/elsewhere.any.js]\nFAIL  untouched  # outside the prefix\n"),
        "{updated}"
    );
}

#[test]
fn a_prefix_limits_the_run_and_bad_input_is_a_usage_error() {
    let Some(root) = mini_root() else { return };
    let exp = root.dir.join("e.txt");
    let exp = exp.to_str().unwrap();
    let r = run(&root, &["--expectations", exp, "t/basic/pass.any.js"]);
    assert_eq!(r.code, 0);
    assert_eq!(r.closing_line(), "4 passed, 0 failed");
    assert!(
        r.stdout
            .contains("t/basic      1       4       0                  0"),
        "{}",
        r.stdout
    );

    let r = run(&root, &["--expectations", exp, "t/nothing-here"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("no such file or folder"));
    let r = run(&root, &["--no-such-flag"]);
    assert_eq!(r.code, 2);
    fs::write(root.dir.join("bad.txt"), "[t/basic/pass.any.js]\nFAIL  x\n").unwrap();
    let bad = root.dir.join("bad.txt");
    let r = run(
        &root,
        &[
            "--expectations",
            bad.to_str().unwrap(),
            "t/basic/pass.any.js",
        ],
    );
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("needs a reason"), "{}", r.stderr);
}
