//! What the parent prints at the end, and the `--json` report.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::escape::{json_opt, json_string, name_escape};
use crate::expectations::{Comparison, Expectations, Problem};
use crate::model::{FileResult, FileStatus, SubStatus};
use crate::parent::first_line;

/// Totals for the closing line.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Totals {
    pub passed: usize,
    pub failed: usize,
    pub skipped: usize,
}

pub fn totals(results: &[FileResult]) -> Totals {
    let mut t = Totals::default();
    for r in results {
        if r.status == FileStatus::Skip {
            t.skipped += 1;
        } else {
            t.passed += r.passed();
            t.failed += r.failed();
        }
    }
    t
}

/// `N passed, N failed` (`, N skipped` when any).
pub fn closing_line(t: Totals) -> String {
    let mut s = format!("{} passed, {} failed", t.passed, t.failed);
    if t.skipped > 0 {
        let _ = write!(s, ", {} skipped", t.skipped);
    }
    s
}

/// Every difference from the expectations, grouped by file.
pub fn problems_text(cmp: &Comparison, results: &[FileResult], verbose: bool) -> String {
    let mut out = String::new();
    let mut by_file: BTreeMap<&str, Vec<&Problem>> = BTreeMap::new();
    for p in &cmp.problems {
        let path = match p {
            Problem::File { path, .. }
            | Problem::Subtest { path, .. }
            | Problem::Stale { path, .. } => path,
        };
        by_file.entry(path.as_str()).or_default().push(p);
    }
    for (path, problems) in by_file {
        let _ = writeln!(out, "UNEXPECTED in {path}");
        for p in problems {
            match p {
                Problem::File {
                    expected,
                    actual,
                    message,
                    ..
                } => {
                    let _ = writeln!(
                        out,
                        "  file {} (expected {}){}",
                        actual.as_str(),
                        expected.as_str(),
                        message
                            .as_deref()
                            .map(|m| format!(": {}", first_line(m, 300)))
                            .unwrap_or_default()
                    );
                    if verbose || matches!(actual, FileStatus::Crash) {
                        if let Some(r) = results.iter().find(|r| r.path == path) {
                            let lines: Vec<&str> = r.stderr.lines().collect();
                            let from = if verbose {
                                0
                            } else {
                                lines.len().saturating_sub(8)
                            };
                            for line in &lines[from..] {
                                let _ = writeln!(out, "      | {line}");
                            }
                        }
                    }
                }
                Problem::Subtest {
                    name,
                    expected,
                    actual,
                    message,
                    ..
                } => {
                    let _ = writeln!(
                        out,
                        "  {} (expected {})  {}{}",
                        actual.as_str(),
                        expected.as_str(),
                        name_escape(name),
                        message
                            .as_deref()
                            .filter(|m| !m.is_empty())
                            .map(|m| format!("  -- {}", first_line(m, 300)))
                            .unwrap_or_default()
                    );
                }
                Problem::Stale { name: Some(n), .. } => {
                    let _ = writeln!(
                        out,
                        "  STALE expectation: no subtest named `{}` any more",
                        name_escape(n)
                    );
                }
                Problem::Stale { name: None, .. } => {
                    let _ = writeln!(
                        out,
                        "  STALE expectations: this file did not run (missing?)"
                    );
                }
            }
        }
    }
    out
}

/// The per-folder table.
pub fn folder_table(results: &[FileResult], cmp: &Comparison) -> String {
    #[derive(Default)]
    struct Row {
        files: usize,
        passed: usize,
        failed: usize,
        expected: usize,
    }
    let mut rows: BTreeMap<&str, Row> = BTreeMap::new();
    let mut total = Row::default();
    for r in results {
        let row = rows.entry(r.folder()).or_default();
        let expected = cmp.expected_failures.get(&r.path).copied().unwrap_or(0);
        let (passed, failed) = if r.status == FileStatus::Skip {
            (0, 0)
        } else {
            (r.passed(), r.failed())
        };
        for row in [&mut *row, &mut total] {
            row.files += 1;
            row.passed += passed;
            row.failed += failed;
            row.expected += expected;
        }
    }
    let width = rows
        .keys()
        .map(|k| k.chars().count())
        .max()
        .unwrap_or(0)
        .max("folder".len());
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<width$}  {:>5}  {:>6}  {:>6}  {:>17}",
        "folder", "files", "passed", "failed", "expected failures"
    );
    let line = |out: &mut String, name: &str, r: &Row| {
        let _ = writeln!(
            out,
            "{:<width$}  {:>5}  {:>6}  {:>6}  {:>17}",
            name, r.files, r.passed, r.failed, r.expected
        );
    };
    for (name, r) in &rows {
        line(&mut out, name, r);
    }
    line(&mut out, "total", &total);
    out
}

/// Run facts for `run_info`.
#[derive(Debug, Clone)]
pub struct RunInfo {
    pub jobs: usize,
    pub timeout_multiplier: f64,
    pub wpt_root: String,
    pub prefixes: Vec<String>,
    pub time_start_ms: u128,
    pub time_end_ms: u128,
}

/// The wptreport JSON (the format wpt.fyi consumes).
pub fn wptreport(results: &[FileResult], exp: &Expectations, info: &RunInfo) -> String {
    let mut out = String::from("{\n  \"results\": [");
    for (i, r) in results.iter().enumerate() {
        out.push_str(if i == 0 { "\n" } else { ",\n" });
        let fe = exp.files.get(&r.path);
        let expected_file = fe
            .and_then(|f| f.file.as_ref())
            .map_or(FileStatus::Ok, |e| e.status);
        let _ = write!(
            out,
            "    {{\"test\": {}, \"status\": {}, \"message\": {}, \"duration\": {}",
            json_string(&r.url()),
            json_string(r.status.as_str()),
            json_opt(r.message.as_deref()),
            r.duration.as_millis()
        );
        if expected_file != r.status {
            let _ = write!(
                out,
                ", \"expected\": {}",
                json_string(expected_file.as_str())
            );
        }
        out.push_str(", \"subtests\": [");
        for (j, s) in r.subtests.iter().enumerate() {
            out.push_str(if j == 0 { "\n" } else { ",\n" });
            let _ = write!(
                out,
                "      {{\"name\": {}, \"status\": {}, \"message\": {}",
                json_string(&s.name),
                json_string(s.status.as_str()),
                json_opt(s.message.as_deref())
            );
            let expected = fe
                .and_then(|f| f.subtest(&s.name))
                .map_or(SubStatus::Pass, |e| e.status);
            if expected != s.status {
                let _ = write!(out, ", \"expected\": {}", json_string(expected.as_str()));
            }
            out.push('}');
        }
        if !r.subtests.is_empty() {
            out.push_str("\n    ");
        }
        out.push_str("]}");
    }
    out.push_str("\n  ],\n");
    let prefixes = info
        .prefixes
        .iter()
        .map(|p| json_string(p))
        .collect::<Vec<_>>()
        .join(", ");
    let _ = writeln!(
        out,
        "  \"run_info\": {{\"product\": \"boa_streams\", \"browser_version\": {}, \"os\": {}, \"processor\": {}, \"debug\": {}, \"jobs\": {}, \"timeout_multiplier\": {}, \"wpt_root\": {}, \"prefixes\": [{}]}},",
        json_string(&format!("wpt-runner {} ({})", env!("CARGO_PKG_VERSION"), crate::ENGINE_VERSION)),
        json_string(std::env::consts::OS),
        json_string(std::env::consts::ARCH),
        cfg!(debug_assertions),
        info.jobs,
        info.timeout_multiplier,
        json_string(&info.wpt_root),
        prefixes
    );
    let _ = writeln!(
        out,
        "  \"time_start\": {},\n  \"time_end\": {}\n}}",
        info.time_start_ms, info.time_end_ms
    );
    out
}
