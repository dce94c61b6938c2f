//! The engine boundary: the spec layer names no engine crate, only `crate::engine`.
//!
//! Fails when a file outside `src/engine/` (the spec layer, the embedding in `src/host/`, and
//! the crate root `src/lib.rs`) names `boa_engine`, `boa_gc` or `boa_runtime` in its code, and
//! prints the size of the engine API: what a second engine would have to implement.

mod support;

use std::fs;
use std::path::{Path, PathBuf};

use support::{crate_root, rust_files};

const ENGINE_CRATES: [&str; 3] = ["boa_engine", "boa_gc", "boa_runtime"];

fn src() -> PathBuf {
    crate_root().join("src")
}

/// Whether `path` (relative to `src/`) is outside the engine (the spec layer, the host, the
/// crate root): code that reaches an engine only through `crate::engine`'s names.
fn outside_the_engine(relative: &Path) -> bool {
    let first = relative
        .components()
        .next()
        .and_then(|c| c.as_os_str().to_str())
        .unwrap_or_default();
    first != "engine"
}

/// Every line of `text`'s code (comments aside) that names an engine crate, with its number.
fn engine_mentions(text: &str) -> Vec<(usize, String)> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim_start().starts_with("//"))
        .filter(|(_, line)| {
            ENGINE_CRATES.iter().any(|name| {
                line.match_indices(name).any(|(at, _)| {
                    let before = line[..at].chars().next_back();
                    let after = line[at + name.len()..].chars().next();
                    let ident =
                        |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
                    !ident(before) && !ident(after)
                })
            })
        })
        .map(|(n, line)| (n + 1, line.trim().to_owned()))
        .collect()
}

#[test]
fn only_the_engine_names_an_engine_crate() {
    let root = src();
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let mut offences = Vec::new();
    let mut spec_files = 0;
    for path in &files {
        let relative = path.strip_prefix(&root).expect("under src/");
        if !outside_the_engine(relative) {
            continue;
        }
        spec_files += 1;
        let text = fs::read_to_string(path).expect("a readable file");
        for (line, content) in engine_mentions(&text) {
            offences.push(format!("src/{}:{line}: {content}", relative.display()));
        }
    }
    assert!(
        spec_files > 20,
        "only {spec_files} files outside src/engine/ found"
    );
    assert!(
        offences.is_empty(),
        "code outside src/engine/ names an engine crate (use crate::engine's names):\n{}",
        offences.join("\n")
    );
    println!("{spec_files} files outside src/engine/ name no engine crate");
}

/// Counts the engine API: public items of `src/engine/` (functions, types, traits, macros,
/// re-exported names) and its lines of code.
#[test]
fn engine_api_size() {
    let dir = src().join("engine");
    let mut files = Vec::new();
    rust_files(&dir, &mut files);
    // The contract and the engine-free code (`src/engine/*.rs`), with the signatures as the
    // Boa backend declares them (`src/engine/boa/`); the QuickJS backend (`src/engine/quickjs/`)
    // provides the same items (the QuickJS build proves it).
    files.retain(|f| !f.components().any(|c| c.as_os_str() == "quickjs"));
    let (mut items, mut code_lines, mut lines) = (0, 0, 0);
    for path in &files {
        let text = fs::read_to_string(path).expect("a readable file");
        let mut in_tests = false;
        let mut in_pub_use = false;
        for line in text.lines() {
            let trimmed = line.trim_start();
            // The unit tests at the end of a file are not API.
            if trimmed.starts_with("mod tests") {
                in_tests = true;
            }
            if in_tests {
                continue;
            }
            lines += 1;
            if !trimmed.is_empty() && !trimmed.starts_with("//") {
                code_lines += 1;
            }
            let public = trimmed.starts_with("pub ") || trimmed.starts_with("pub(crate) ");
            let declares =
                |kw: &str| public && trimmed.split_whitespace().nth(1).is_some_and(|w| w == kw);
            if declares("fn")
                || declares("struct")
                || declares("enum")
                || declares("type")
                || declares("trait")
                || declares("const")
                || declares("mod")
            {
                items += 1;
            }
            if public && trimmed.split_whitespace().nth(1) == Some("use") {
                // Each re-exported name counts once: the leaves of the use tree.
                in_pub_use = !trimmed.ends_with(';');
                items += count_leaves(trimmed);
                continue;
            }
            if in_pub_use {
                items += count_leaves(trimmed);
                in_pub_use = !trimmed.ends_with(';');
            }
        }
    }
    assert!(items > 0 && code_lines > 0);
    println!(
        "engine API (src/engine/): {items} public items, {code_lines} lines of code ({lines} lines) in {} files",
        files.len()
    );
}

/// The engine API as a list: per file of `src/engine/`, every public declaration (functions
/// with their signatures, types, traits, constants, modules, re-exports) and every `impl`
/// header with the public methods inside it, whitespace collapsed. The snapshot
/// (`tests/snapshots/engine_boundary__engine_api.snap`) makes every change to the port
/// surface a reviewed diff: `cargo insta review`, or `INSTA_UPDATE=always cargo test --test
/// engine_boundary` and read the diff.
#[test]
fn engine_api_snapshot() {
    let dir = src().join("engine");
    let mut files = Vec::new();
    rust_files(&dir, &mut files);
    // The QuickJS backend (`src/engine/quickjs/`) provides the same items: the QuickJS build
    // checks it against the contract's list in `src/engine/mod.rs`.
    files.retain(|f| !f.components().any(|c| c.as_os_str() == "quickjs"));
    let mut out = String::new();
    for path in &files {
        let text = fs::read_to_string(path).expect("a readable file");
        let relative = path.strip_prefix(src()).expect("under src/");
        out.push_str(&format!("# src/{}\n", relative.display()));
        for item in api_items(&text) {
            out.push_str(&item);
            out.push('\n');
        }
    }
    insta::assert_snapshot!("engine_api", out);
}

/// `text` with each `boa_backend! { .. }` block (engine/mod.rs: items compiled with the Boa
/// backend only) opened up: its items dedented to the top level, where they are API.
fn without_backend_blocks(text: &str) -> String {
    let mut out = String::new();
    let mut inside = false;
    for line in text.lines() {
        if line == "boa_backend! {" {
            inside = true;
        } else if inside && line == "}" {
            inside = false;
        } else {
            out.push_str(if inside {
                line.strip_prefix("    ").unwrap_or(line)
            } else {
                line
            });
            out.push('\n');
        }
    }
    out
}

/// The public declarations of one file (see [`engine_api_snapshot`]).
fn api_items(text: &str) -> Vec<String> {
    let text = without_backend_blocks(text);
    let mut items: Vec<String> = Vec::new();
    let mut lines = text.lines().peekable();
    let mut in_impl = false;
    let mut in_trait = false;
    while let Some(line) = lines.next() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("mod tests") {
            break; // the unit tests at the end of a file are not API
        }
        if trimmed.starts_with("#[cfg(test)]") {
            lines.next(); // an item only the unit tests see is not API
            continue;
        }
        let indent = line.len() - trimmed.len();
        let public = trimmed.starts_with("pub ") || trimmed.starts_with("pub(crate) ");
        if indent == 0 && public && trimmed.contains(" trait ") {
            in_trait = true;
        }
        if in_trait && indent == 4 && (trimmed.starts_with("fn ") || trimmed.starts_with("const "))
        {
            // A trait's items are API: collected as a public item of the trait's block.
        } else if in_trait && indent == 0 && trimmed == "}" {
            in_trait = false;
        }
        let trait_item = in_trait
            && indent == 4
            && (trimmed.starts_with("fn ") || trimmed.starts_with("const "));
        let impl_header =
            indent == 0 && (trimmed.starts_with("impl") || trimmed.starts_with("unsafe impl"));
        if indent == 0 && trimmed == "}" {
            in_impl = false;
        }
        if !(public && (indent == 0 || in_impl)) && !impl_header && !trait_item {
            continue;
        }
        // The declaration runs to its first `{` or `;` (a signature may span lines); a `use`
        // tree runs to its `;`.
        let is_use = trimmed.starts_with("pub use") || trimmed.starts_with("pub(crate) use");
        let mut declaration = trimmed.to_owned();
        while (is_use || !declaration.contains('{')) && !declaration.ends_with(';') {
            match lines.next() {
                Some(next) => {
                    declaration.push(' ');
                    declaration.push_str(next.trim());
                }
                None => break,
            }
        }
        let single_line_body = declaration.contains('{') && declaration.trim_end().ends_with('}');
        let head = declaration
            .split('{')
            .next()
            .unwrap_or_default()
            .trim()
            .trim_end_matches(';')
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .replace("( ", "(")
            .replace(", )", ")")
            .replace(", >", ">");
        if impl_header {
            in_impl = !single_line_body;
            items.push(head);
        } else if (in_impl || trait_item) && indent > 0 {
            items.push(format!("    {head}"));
        } else if is_use {
            let tree = declaration.split_whitespace().collect::<Vec<_>>().join(" ");
            items.push(tree.replace("{ ", "{").replace(", }", "}"));
        } else {
            items.push(head);
        }
    }
    // An inherent impl is listed with its public methods; one without any is not API.
    let inherent_impl = |item: &String| {
        (item.starts_with("impl") || item.starts_with("unsafe impl")) && !item.contains(" for ")
    };
    let keep: Vec<bool> = (0..items.len())
        .map(|i| {
            !inherent_impl(&items[i])
                || items
                    .get(i + 1)
                    .is_some_and(|next| next.starts_with("    "))
        })
        .collect();
    items
        .into_iter()
        .zip(keep)
        .filter_map(|(item, keep)| keep.then_some(item))
        .collect()
}

/// The names a line of a `pub use` tree adds (identifiers followed by `,`, `}` or `;`).
fn count_leaves(line: &str) -> usize {
    let line = line
        .trim_start_matches("pub(crate) use ")
        .trim_start_matches("pub use ");
    line.split([',', '{'])
        .map(|part| part.trim().trim_end_matches(['}', ';']).trim())
        .filter(|part| !part.is_empty() && !part.ends_with("::") && *part != "self")
        .count()
}

#[test]
fn mentions_are_found_whole_word_only() {
    assert_eq!(engine_mentions("use boa_engine::JsValue;").len(), 1);
    assert_eq!(engine_mentions("#[boa_gc(unsafe_no_drop)]").len(), 1);
    assert_eq!(engine_mentions("let my_boa_engine_thing = 1;").len(), 0);
    assert_eq!(engine_mentions("/// Boa's `boa_engine::Context`").len(), 0);
    assert!(outside_the_engine(Path::new("readable/pipe.rs")));
    assert!(outside_the_engine(Path::new("html/message_port.rs")));
    assert!(outside_the_engine(Path::new("host/event_loop.rs")));
    assert!(outside_the_engine(Path::new("lib.rs")));
    assert!(!outside_the_engine(Path::new("engine/mod.rs")));
    assert!(!outside_the_engine(Path::new("engine/boa/runtime.rs")));
}
