//! Results of a run.

use std::time::Duration;

/// A subtest's status (testharness `Test.status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SubStatus {
    Pass,
    Fail,
    Timeout,
    NotRun,
    PreconditionFailed,
}

impl SubStatus {
    pub const ALL: [SubStatus; 5] = [
        SubStatus::Pass,
        SubStatus::Fail,
        SubStatus::Timeout,
        SubStatus::NotRun,
        SubStatus::PreconditionFailed,
    ];

    /// From testharness's numeric code.
    pub fn from_code(code: i32) -> Option<SubStatus> {
        Some(match code {
            0 => SubStatus::Pass,
            1 => SubStatus::Fail,
            2 => SubStatus::Timeout,
            3 => SubStatus::NotRun,
            4 => SubStatus::PreconditionFailed,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            SubStatus::Pass => "PASS",
            SubStatus::Fail => "FAIL",
            SubStatus::Timeout => "TIMEOUT",
            SubStatus::NotRun => "NOTRUN",
            SubStatus::PreconditionFailed => "PRECONDITION_FAILED",
        }
    }

    pub fn parse(s: &str) -> Option<SubStatus> {
        Self::ALL.into_iter().find(|x| x.as_str() == s)
    }
}

/// A test file's status (the harness status, or what the runner saw).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FileStatus {
    Ok,
    Error,
    Timeout,
    PreconditionFailed,
    Crash,
    Skip,
}

impl FileStatus {
    pub const ALL: [FileStatus; 6] = [
        FileStatus::Ok,
        FileStatus::Error,
        FileStatus::Timeout,
        FileStatus::PreconditionFailed,
        FileStatus::Crash,
        FileStatus::Skip,
    ];

    /// From testharness's numeric harness status.
    pub fn from_code(code: i32) -> Option<FileStatus> {
        Some(match code {
            0 => FileStatus::Ok,
            1 => FileStatus::Error,
            2 => FileStatus::Timeout,
            3 => FileStatus::PreconditionFailed,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            FileStatus::Ok => "OK",
            FileStatus::Error => "ERROR",
            FileStatus::Timeout => "TIMEOUT",
            FileStatus::PreconditionFailed => "PRECONDITION_FAILED",
            FileStatus::Crash => "CRASH",
            FileStatus::Skip => "SKIP",
        }
    }

    pub fn parse(s: &str) -> Option<FileStatus> {
        Self::ALL.into_iter().find(|x| x.as_str() == s)
    }
}

/// One subtest result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subtest {
    pub name: String,
    pub status: SubStatus,
    pub message: Option<String>,
}

/// One test file's result.
#[derive(Debug, Clone)]
pub struct FileResult {
    /// Path relative to the WPT root, `/`-separated.
    pub path: String,
    pub status: FileStatus,
    pub message: Option<String>,
    pub subtests: Vec<Subtest>,
    /// Whether `subtests` is the harness's final list (false after a crash or a kill, when it
    /// holds only the subtests that finished before).
    pub complete: bool,
    pub duration: Duration,
    /// The child's stderr (host reports, console output, panic messages).
    pub stderr: String,
}

impl FileResult {
    /// The folder a file is counted under in the summary table.
    pub fn folder(&self) -> &str {
        self.path.rsplit_once('/').map_or("", |(dir, _)| dir)
    }

    pub fn passed(&self) -> usize {
        self.subtests
            .iter()
            .filter(|s| s.status == SubStatus::Pass)
            .count()
    }

    /// Failed subtests, plus one for a file-level failure when there are no subtests or the
    /// list is cut short (a crash or a kill after some subtests finished).
    pub fn failed(&self) -> usize {
        let failed = self.subtests.len() - self.passed();
        let file_failed = !matches!(self.status, FileStatus::Ok | FileStatus::Skip);
        failed + usize::from(file_failed && (self.subtests.is_empty() || !self.complete))
    }

    /// The wpt.fyi test URL.
    pub fn url(&self) -> String {
        let path = match (
            self.path.strip_suffix(".any.js"),
            self.path.strip_suffix(".window.js"),
        ) {
            (Some(stem), _) => format!("{stem}.any.html"),
            (_, Some(stem)) => format!("{stem}.window.html"),
            _ => self.path.clone(),
        };
        format!("/{path}")
    }
}
