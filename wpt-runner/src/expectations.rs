//! The expectations file: every subtest that does not PASS and every file whose status is not
//! OK, each with a one-line reason.
//!
//! ```text
//! # comment lines (kept at the top of the file)
//!
//! [streams/readable-streams/general.any.js]
//! FILE  ERROR  # why the harness reports an error
//! FAIL  name of a subtest  # why it fails
//! TIMEOUT  another \# subtest  # why it times out
//! ```
//!
//! A section starts with the file's path (relative to the WPT root) in brackets. An entry is a
//! status, the escaped subtest name ([`crate::escape::name_escape`]: `\\`, `\#`, `\n`, `\r`, `\t`,
//! `\u{HEX}` for control characters and for a space at either end, `\e` for the empty name), and
//! `#` followed by the reason. `FILE STATUS # reason` gives the file's own status. Subtest
//! statuses: FAIL, TIMEOUT, NOTRUN, PRECONDITION_FAILED; file statuses: ERROR, TIMEOUT,
//! PRECONDITION_FAILED, CRASH, SKIP. Anything not listed is expected to PASS (OK).

use std::collections::{BTreeMap, HashMap, HashSet};

use crate::escape::{find_unescaped_hash, name_escape, name_unescape};
use crate::meta::under_prefix;
use crate::model::{FileResult, FileStatus, SubStatus};

/// The reason given to new entries unless `--reason` says otherwise; a run fails while any
/// entry still has it.
pub const TODO_REASON: &str = "TODO: explain";

const DEFAULT_HEADER: &[&str] = &[
    "# WPT expectations: every subtest that does not PASS, and every file whose status is not OK,",
    "# with the reason. `cargo run -p wpt-runner` fails on any difference from this file.",
    "# Format: `[path]` starts a file's section; `STATUS  subtest name  # reason`, or",
    "# `FILE  STATUS  # reason` for the file itself. In names, `\\\\` `\\#` `\\n` `\\r` `\\t` `\\u{HEX}`",
    "# and `\\e` (empty name) are escapes. Regenerate with --update-expectations (reasons are kept).",
];

/// One expected non-passing status, with its reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry<S> {
    pub status: S,
    pub reason: String,
}

/// The expectations for one file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileExpectations {
    pub file: Option<Entry<FileStatus>>,
    /// In file order.
    pub subtests: Vec<(String, Entry<SubStatus>)>,
}

impl FileExpectations {
    pub fn subtest(&self, name: &str) -> Option<&Entry<SubStatus>> {
        self.subtests
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, e)| e)
    }

    fn is_empty(&self) -> bool {
        self.file.is_none() && self.subtests.is_empty()
    }
}

/// A parsed expectations file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Expectations {
    /// Comment lines before the first section.
    pub header: Vec<String>,
    pub files: BTreeMap<String, FileExpectations>,
}

impl Expectations {
    pub fn parse(text: &str) -> Result<Expectations, String> {
        let mut out = Expectations::default();
        let mut current: Option<String> = None;
        let mut seen: HashSet<(String, Option<String>)> = HashSet::new();
        for (i, raw) in text.lines().enumerate() {
            let line_no = i + 1;
            let err = |m: &str| format!("line {line_no}: {m}: {raw}");
            let line = raw.trim();
            if line.is_empty() {
                continue;
            }
            if line.starts_with('#') {
                if current.is_none() {
                    out.header.push(raw.to_string());
                }
                continue;
            }
            if let Some(inner) = line.strip_prefix('[') {
                let inner = inner
                    .strip_suffix(']')
                    .ok_or_else(|| err("a section header must end with `]`"))?;
                let path = name_unescape(inner.trim()).map_err(|e| err(&e))?;
                if out.files.contains_key(&path) {
                    return Err(err("this file's section appears twice"));
                }
                out.files.insert(path.clone(), FileExpectations::default());
                current = Some(path);
                continue;
            }
            let path = current
                .clone()
                .ok_or_else(|| err("an entry before any `[file]` section"))?;
            let hash = find_unescaped_hash(line)
                .ok_or_else(|| err("an entry needs a reason after `#`"))?;
            let reason = line[hash + 1..].trim().to_string();
            if reason.is_empty() {
                return Err(err("an entry needs a reason after `#`"));
            }
            let body = line[..hash].trim();
            let (status, rest) = body
                .split_once(char::is_whitespace)
                .map(|(s, r)| (s, r.trim()))
                .unwrap_or((body, ""));
            let fe = out.files.entry(path.clone()).or_default();
            if status == "FILE" {
                let st = FileStatus::parse(rest)
                    .filter(|s| *s != FileStatus::Ok)
                    .ok_or_else(|| err("unknown file status (ERROR, TIMEOUT, PRECONDITION_FAILED, CRASH or SKIP)"))?;
                if !seen.insert((path.clone(), None)) {
                    return Err(err("a second FILE entry for this file"));
                }
                fe.file = Some(Entry { status: st, reason });
            } else {
                let st = SubStatus::parse(status)
                    .filter(|s| *s != SubStatus::Pass)
                    .ok_or_else(|| {
                        err("unknown status (FAIL, TIMEOUT, NOTRUN, PRECONDITION_FAILED, or FILE)")
                    })?;
                if rest.is_empty() {
                    return Err(err(
                        "a subtest name is missing (write `\\e` for an empty name)",
                    ));
                }
                let name = name_unescape(rest).map_err(|e| err(&e))?;
                if !seen.insert((path.clone(), Some(name.clone()))) {
                    return Err(err("a second entry for this subtest"));
                }
                fe.subtests.push((name, Entry { status: st, reason }));
            }
        }
        out.files.retain(|_, fe| !fe.is_empty());
        Ok(out)
    }

    pub fn render(&self) -> String {
        let mut out = String::new();
        if self.header.is_empty() {
            for line in DEFAULT_HEADER {
                out.push_str(line);
                out.push('\n');
            }
        } else {
            for line in &self.header {
                out.push_str(line);
                out.push('\n');
            }
        }
        for (path, fe) in &self.files {
            out.push('\n');
            out.push_str(&format!("[{}]\n", name_escape(path)));
            if let Some(e) = &fe.file {
                out.push_str(&format!("FILE  {}  # {}\n", e.status.as_str(), e.reason));
            }
            for (name, e) in &fe.subtests {
                out.push_str(&format!(
                    "{}  {}  # {}\n",
                    e.status.as_str(),
                    name_escape(name),
                    e.reason
                ));
            }
        }
        out
    }

    /// Entries whose reason is still the placeholder: (file, subtest or None for FILE).
    pub fn todo_entries(&self) -> Vec<(String, Option<String>)> {
        let mut out = Vec::new();
        for (path, fe) in &self.files {
            if let Some(e) = &fe.file {
                if e.reason == TODO_REASON {
                    out.push((path.clone(), None));
                }
            }
            for (name, e) in &fe.subtests {
                if e.reason == TODO_REASON {
                    out.push((path.clone(), Some(name.clone())));
                }
            }
        }
        out
    }

    pub fn entry_count(&self) -> usize {
        self.files
            .values()
            .map(|f| f.subtests.len() + usize::from(f.file.is_some()))
            .sum()
    }

    /// Rewrites the entries of the files in scope (under one of `scope`) from `results`,
    /// keeping the reasons of entries that remain and giving new ones `new_reason` (a skipped
    /// file's new entry gets the skip reason). Entries outside the scope are untouched. For a
    /// file whose subtest list is incomplete (crash, kill), entries for subtests that were not
    /// seen are kept.
    pub fn updated(
        &self,
        results: &[FileResult],
        scope: &[String],
        new_reason: &str,
    ) -> Expectations {
        let mut out = self.clone();
        out.files
            .retain(|path, _| !scope.iter().any(|p| under_prefix(path, p)));
        for r in results {
            let old = self.files.get(&r.path);
            let mut fe = FileExpectations::default();
            if r.status != FileStatus::Ok {
                let reason = old
                    .and_then(|o| o.file.as_ref())
                    .map(|e| e.reason.clone())
                    .unwrap_or_else(|| match (r.status, &r.message) {
                        (FileStatus::Skip, Some(m)) => m.clone(),
                        _ => new_reason.to_string(),
                    });
                fe.file = Some(Entry {
                    status: r.status,
                    reason,
                });
            }
            let mut seen = HashSet::new();
            for s in &r.subtests {
                if !seen.insert(s.name.as_str()) {
                    continue;
                }
                if s.status == SubStatus::Pass {
                    continue;
                }
                let reason = old
                    .and_then(|o| o.subtest(&s.name))
                    .map(|e| e.reason.clone())
                    .unwrap_or_else(|| new_reason.to_string());
                fe.subtests.push((
                    s.name.clone(),
                    Entry {
                        status: s.status,
                        reason,
                    },
                ));
            }
            if !r.complete {
                if let Some(old) = old {
                    for (name, e) in &old.subtests {
                        if !seen.contains(name.as_str()) {
                            fe.subtests.push((name.clone(), e.clone()));
                        }
                    }
                }
            }
            if !fe.is_empty() {
                out.files.insert(r.path.clone(), fe);
            }
        }
        out
    }
}

/// One way a run differs from the expectations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// A file status other than expected.
    File {
        path: String,
        expected: FileStatus,
        actual: FileStatus,
        message: Option<String>,
    },
    /// A subtest status other than expected (including an unexpected PASS).
    Subtest {
        path: String,
        name: String,
        expected: SubStatus,
        actual: SubStatus,
        message: Option<String>,
    },
    /// An entry for a file that did not run, or a subtest the file no longer has.
    Stale { path: String, name: Option<String> },
}

/// The comparison of a run with the expectations.
#[derive(Debug, Default)]
pub struct Comparison {
    pub problems: Vec<Problem>,
    /// Per file: how many non-passing subtests were expected.
    pub expected_failures: HashMap<String, usize>,
}

/// Compares results with the expectations in scope.
pub fn compare(exp: &Expectations, results: &[FileResult], scope: &[String]) -> Comparison {
    let mut cmp = Comparison::default();
    let empty = FileExpectations::default();
    let mut ran = HashSet::new();
    for r in results {
        ran.insert(r.path.as_str());
        let fe = exp.files.get(&r.path).unwrap_or(&empty);
        let expected = fe.file.as_ref().map_or(FileStatus::Ok, |e| e.status);
        if expected != r.status {
            cmp.problems.push(Problem::File {
                path: r.path.clone(),
                expected,
                actual: r.status,
                message: r.message.clone(),
            });
        }
        let mut expected_failures = 0;
        let mut seen = HashSet::new();
        for s in &r.subtests {
            seen.insert(s.name.as_str());
            let expected = fe.subtest(&s.name).map_or(SubStatus::Pass, |e| e.status);
            if expected == s.status {
                if s.status != SubStatus::Pass {
                    expected_failures += 1;
                }
            } else {
                cmp.problems.push(Problem::Subtest {
                    path: r.path.clone(),
                    name: s.name.clone(),
                    expected,
                    actual: s.status,
                    message: s.message.clone(),
                });
            }
        }
        // The one failure a file-level status may add (see `FileResult::failed`).
        let file_level = r.failed() - (r.subtests.len() - r.passed());
        if expected == r.status {
            expected_failures += file_level;
        }
        cmp.expected_failures
            .insert(r.path.clone(), expected_failures);
        if r.complete {
            for (name, _) in &fe.subtests {
                if !seen.contains(name.as_str()) {
                    cmp.problems.push(Problem::Stale {
                        path: r.path.clone(),
                        name: Some(name.clone()),
                    });
                }
            }
        }
    }
    for path in exp.files.keys() {
        if !ran.contains(path.as_str()) && scope.iter().any(|p| under_prefix(path, p)) {
            cmp.problems.push(Problem::Stale {
                path: path.clone(),
                name: None,
            });
        }
    }
    cmp
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Subtest;
    use std::time::Duration;

    fn result(path: &str, status: FileStatus, subs: &[(&str, SubStatus)]) -> FileResult {
        FileResult {
            path: path.to_string(),
            status,
            message: None,
            subtests: subs
                .iter()
                .map(|(n, s)| Subtest {
                    name: n.to_string(),
                    status: *s,
                    message: None,
                })
                .collect(),
            complete: true,
            duration: Duration::ZERO,
            stderr: String::new(),
        }
    }

    #[test]
    fn round_trip_and_reasons() {
        let tricky = " a # b \\ c\n\u{1}  ";
        let r = vec![
            result(
                "s/a.any.js",
                FileStatus::Error,
                &[
                    ("ok", SubStatus::Pass),
                    (tricky, SubStatus::Fail),
                    ("", SubStatus::Timeout),
                ],
            ),
            result("s/b.any.js", FileStatus::Ok, &[("x", SubStatus::Pass)]),
        ];
        let e = Expectations::default().updated(&r, &["s".into()], TODO_REASON);
        let text = e.render();
        let back = Expectations::parse(&text).unwrap();
        assert_eq!(back.files, e.files);
        assert_eq!(back.entry_count(), 3);
        assert_eq!(back.todo_entries().len(), 3);
        assert!(compare(&back, &r, &["s".into()]).problems.is_empty());

        // Kept reasons, new reason for new entries, entries outside the scope untouched.
        let text = text.replace(
            "FILE  ERROR  # TODO: explain",
            "FILE  ERROR  # harness error",
        );
        let mut old = Expectations::parse(&text).unwrap();
        old.files.insert(
            "t/c.any.js".into(),
            FileExpectations {
                file: Some(Entry {
                    status: FileStatus::Crash,
                    reason: "kept".into(),
                }),
                subtests: vec![],
            },
        );
        let r2 = vec![result(
            "s/a.any.js",
            FileStatus::Error,
            &[("ok", SubStatus::Fail), (tricky, SubStatus::Fail)],
        )];
        let e2 = old.updated(&r2, &["s".into()], "new reason");
        let a = &e2.files["s/a.any.js"];
        assert_eq!(a.file.as_ref().unwrap().reason, "harness error");
        assert_eq!(a.subtest("ok").unwrap().reason, "new reason");
        assert_eq!(a.subtest(tricky).unwrap().reason, TODO_REASON);
        assert!(a.subtest("").is_none());
        assert_eq!(e2.files["t/c.any.js"].file.as_ref().unwrap().reason, "kept");
    }

    #[test]
    fn problems() {
        let exp = Expectations::parse(
            "[s/a.any.js]\nFAIL  now passes  # r\nFAIL  gone  # r\nFAIL  still  # r\n[s/gone.any.js]\nFILE  CRASH  # r\n[u/x.any.js]\nFAIL  y  # r\n",
        )
        .unwrap();
        let r = vec![result(
            "s/a.any.js",
            FileStatus::Ok,
            &[
                ("now passes", SubStatus::Pass),
                ("still", SubStatus::Fail),
                ("new", SubStatus::Timeout),
            ],
        )];
        let c = compare(&exp, &r, &["s".into()]);
        assert_eq!(c.problems.len(), 4, "{:?}", c.problems);
        assert!(c.problems.contains(&Problem::Stale {
            path: "s/gone.any.js".into(),
            name: None
        }));
        assert!(c.problems.contains(&Problem::Stale {
            path: "s/a.any.js".into(),
            name: Some("gone".into())
        }));
        assert_eq!(c.expected_failures["s/a.any.js"], 1);
    }

    #[test]
    fn parse_errors() {
        assert!(Expectations::parse("FAIL  x  # r").is_err());
        assert!(Expectations::parse("[a]\nFAIL  x").is_err());
        assert!(Expectations::parse("[a]\nFAIL  x  #  ").is_err());
        assert!(Expectations::parse("[a]\nPASS  x  # r").is_err());
        assert!(Expectations::parse("[a]\nFILE  OK  # r").is_err());
        assert!(Expectations::parse("[a]\nFAIL  x  # r\nTIMEOUT  x  # r").is_err());
        assert!(Expectations::parse("[a]\nFAIL  \\q  # r").is_err());
    }
}
