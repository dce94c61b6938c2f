//! Test discovery and the `// META:` header of WPT `.any.js` files.

use std::{
    fs,
    path::{Path, PathBuf},
};

/// Folders run when no prefix is given (those that exist under the WPT root).
pub const DEFAULT_PREFIXES: &[&str] = &[
    "streams",
    "encoding",
    "compression",
    "FileAPI",
    "url",
    "fetch",
];

/// What the `// META:` lines of a test file ask for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Meta {
    /// `script=` values, in order, as written.
    pub scripts: Vec<String>,
    /// `global=` value (comma-separated list), if given.
    pub global: Option<String>,
    /// `timeout=long`.
    pub long_timeout: bool,
}

/// Parses the META block the way WPT's manifest tool does: consecutive `// META: key=value`
/// lines at the start of the file; the first line that is not one ends the block.
pub fn parse_meta(source: &str) -> Meta {
    let mut meta = Meta::default();
    for line in source.lines() {
        let Some(rest) = line.trim_end().strip_prefix("//") else {
            break;
        };
        let Some(rest) = rest.trim_start().strip_prefix("META:") else {
            break;
        };
        let Some((key, value)) = rest.trim_start().split_once('=') else {
            break;
        };
        let value = value.trim();
        match key.trim() {
            "script" => meta.scripts.push(value.to_string()),
            "global" => meta.global = Some(value.to_string()),
            "timeout" => meta.long_timeout = value == "long",
            _ => {}
        }
    }
    meta
}

/// Why a file cannot run in a shell global, if it cannot. A shell global stands in for
/// `window`, (dedicated) workers, ShadowRealms and `jsshell`; a file is skipped only when every
/// global it lists is something else (shared or service workers).
pub fn skip_reason(meta: &Meta) -> Option<String> {
    let global = meta.global.as_deref()?;
    let mut listed = Vec::new();
    for item in global.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        if item.starts_with('!') || item.starts_with('-') {
            continue; // an exclusion
        }
        let runnable = item == "default"
            || item == "window"
            || item == "worker"
            || item == "jsshell"
            || item.starts_with("dedicatedworker")
            || item.starts_with("shadowrealm");
        if runnable {
            return None;
        }
        listed.push(item);
    }
    Some(format!(
        "needs a browser global (META: global={}); a shell stands in for window, worker and shadowrealm only",
        listed.join(",")
    ))
}

/// Whether a test file is a `.window.js` file: run with a window-like global (`window`,
/// `postMessage`, and a `document` stand-in whose iframes are bare realms).
pub fn is_window_test(path: &str) -> bool {
    path.ends_with(".window.js")
}

/// What the window stand-in cannot provide, by the API a `.window.js` file uses, and why.
const WINDOW_GAPS: &[(&str, &str)] = &[
    (
        "fetch_tests_from_window",
        "needs a cross-origin iframe that runs its own test page (fetch_tests_from_window, get-host-info's HTTPS_NOTSAMESITE_ORIGIN) and a WebAssembly.Module chunk: the host has one origin and no documents, and neither engine (Boa 0.22, quickjs-ng 0.16) has WebAssembly",
    ),
    (
        "createNodeIterator",
        "needs document.createNodeIterator (a DOM NodeIterator over a node tree) to run a microtask checkpoint from inside a callback; the document stand-in has no node tree",
    ),
    (
        "srcdoc",
        "needs iframes that load srcdoc documents and run their scripts (each realm evaluates posted code from its own onmessage); the iframe stand-in is a bare realm with no document",
    ),
    (
        "idl_test_shadowrealm",
        "needs ShadowRealm (idlharness-shadowrealm.js evaluates the IDL tests inside one), which neither engine (Boa 0.22, quickjs-ng 0.16) implements",
    ),
];

/// Why a `.window.js` file cannot run with the window stand-in, if it cannot.
pub fn window_skip_reason(source: &str) -> Option<String> {
    WINDOW_GAPS
        .iter()
        .find(|(api, _)| source.contains(api))
        .map(|(_, reason)| (*reason).to_string())
}

/// Resolves a `script=` value: root-absolute (`/resources/x.js`) against the WPT root,
/// otherwise against the test file's folder.
pub fn resolve_script(root: &Path, test_file: &Path, script: &str) -> PathBuf {
    let script = script.split(['?', '#']).next().unwrap_or(script);
    if let Some(abs) = script.strip_prefix('/') {
        root.join(abs)
    } else {
        test_file
            .parent()
            .map_or_else(|| PathBuf::from(script), |dir| dir.join(script))
    }
}

/// A path relative to the WPT root, with `/` separators.
pub fn rel_string(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// Normalises a user-given prefix to a root-relative `a/b` form. Accepts a root-relative path
/// or a path (absolute or relative to the current directory) that lies inside the root.
pub fn normalise_prefix(root: &Path, arg: &str) -> Result<String, String> {
    let trimmed = arg.trim_end_matches('/');
    let trimmed = trimmed.strip_prefix("./").unwrap_or(trimmed);
    if root.join(trimmed).exists() && !Path::new(trimmed).is_absolute() {
        return Ok(trimmed.trim_start_matches('/').to_string());
    }
    let as_given = Path::new(arg);
    if as_given.exists() {
        if let (Ok(abs), Ok(root_abs)) = (as_given.canonicalize(), root.canonicalize()) {
            if let Ok(rel) = abs.strip_prefix(&root_abs) {
                return Ok(rel_string(Path::new(""), rel));
            }
        }
    }
    Err(format!(
        "{arg}: no such file or folder under the WPT root {}",
        root.display()
    ))
}

/// Whether a root-relative path lies under a root-relative prefix (equal, or inside it).
pub fn under_prefix(path: &str, prefix: &str) -> bool {
    prefix.is_empty()
        || path == prefix
        || (path.starts_with(prefix) && path.as_bytes().get(prefix.len()) == Some(&b'/'))
}

/// Lists the test files for the given root-relative prefixes: a file prefix is taken as is, a
/// folder prefix contributes every `*.any.js` and `*.window.js` below it. Sorted, without
/// duplicates.
pub fn discover(root: &Path, prefixes: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for prefix in prefixes {
        let path = root.join(prefix);
        if path.is_file() {
            out.push(rel_string(root, &path));
        } else if path.is_dir() {
            walk(root, &path, &mut out);
        }
    }
    out.sort();
    out.dedup();
    out
}

fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            walk(root, &path, out);
        } else if path.to_string_lossy().ends_with(".any.js")
            || is_window_test(&path.to_string_lossy())
        {
            out.push(rel_string(root, &path));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meta_block() {
        let m = parse_meta(
            "// META: global=window,worker\n// META: script=../resources/a.js\n//META: script=/common/gc.js\n// META: timeout=long\n'use strict';\n// META: script=ignored.js\n",
        );
        assert_eq!(m.scripts, vec!["../resources/a.js", "/common/gc.js"]);
        assert_eq!(m.global.as_deref(), Some("window,worker"));
        assert!(m.long_timeout);
        assert_eq!(
            parse_meta("'use strict';\n// META: timeout=long"),
            Meta::default()
        );
    }

    #[test]
    fn globals() {
        let with = |g: &str| Meta {
            global: Some(g.to_string()),
            ..Meta::default()
        };
        assert_eq!(skip_reason(&Meta::default()), None);
        assert_eq!(skip_reason(&with("window,worker,shadowrealm")), None);
        assert_eq!(skip_reason(&with("worker")), None);
        assert_eq!(skip_reason(&with("dedicatedworker-module")), None);
        assert_eq!(skip_reason(&with("shadowrealm-in-window")), None);
        assert!(skip_reason(&with("sharedworker")).is_some());
        assert!(skip_reason(&with("serviceworker,!window")).is_some());
    }

    #[test]
    fn window_files() {
        assert!(is_window_test("streams/transferable/a.window.js"));
        assert!(!is_window_test("streams/a.any.js"));
        assert!(window_skip_reason("postMessage(x, '*', [x]);").is_none());
        assert!(window_skip_reason("iframe.srcdoc = '<p>';").is_some());
    }

    #[test]
    fn prefixes() {
        assert!(under_prefix("streams/a.any.js", "streams"));
        assert!(under_prefix("streams/a.any.js", "streams/a.any.js"));
        assert!(!under_prefix("streamsx/a.any.js", "streams"));
        assert!(under_prefix("x", ""));
    }

    #[test]
    fn scripts() {
        let root = Path::new("/w");
        let file = Path::new("/w/streams/p/t.any.js");
        assert_eq!(
            resolve_script(root, file, "../resources/u.js"),
            Path::new("/w/streams/p/../resources/u.js")
        );
        assert_eq!(
            resolve_script(root, file, "/common/gc.js"),
            Path::new("/w/common/gc.js")
        );
    }
}
