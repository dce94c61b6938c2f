//! The layers of `src/` form a DAG in one order: a module names only itself and the layers below
//! it. The order and each layer's "may talk to" list are the table under "## Layers" in
//! ARCHITECTURE.md; this test reads that table, prints the order, and fails on any `crate::X`
//! path (in a `use`, a grouped `use crate::{...}`, or an expression) that the table does not
//! allow, or on a table row that allows a layer above it.
//!
//! `cargo test --test layers -- --nocapture` prints the layers.

mod support;

use std::collections::BTreeMap;
use std::fs;

use support::{crate_root as root, rust_files};

/// One row of the table: the layer's name, the top-level modules of `src/` it is made of, and
/// the layers it may talk to.
#[derive(Debug)]
struct Layer {
    name: String,
    modules: Vec<String>,
    may_talk_to: Vec<String>,
}

/// The text between backticks in `cell`.
fn code_spans(cell: &str) -> Vec<String> {
    cell.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

/// The top-level module a `src/...` path names (`src/readable/` → `readable`,
/// `src/queue.rs` → `queue`).
fn module_of_path(path: &str) -> Option<String> {
    let rest = path.strip_prefix("src/")?;
    let first = rest.split('/').next()?;
    Some(first.trim_end_matches(".rs").to_owned()).filter(|m| !m.is_empty())
}

/// The table under "## Layers": rows in order, lowest first.
fn layers() -> Vec<Layer> {
    let text = fs::read_to_string(root().join("ARCHITECTURE.md")).expect("read ARCHITECTURE.md");
    let section = text
        .split("\n## Layers\n")
        .nth(1)
        .expect("ARCHITECTURE.md has a \"## Layers\" section");
    let section = section.split("\n## ").next().unwrap_or(section);
    let mut rows = section
        .lines()
        .skip_while(|line| !line.starts_with('|'))
        .take_while(|line| line.starts_with('|'));
    let header: Vec<String> = rows
        .next()
        .expect("a table")
        .split('|')
        .map(|c| c.trim().to_lowercase())
        .collect();
    let column = |name: &str| {
        header
            .iter()
            .position(|c| c == name)
            .unwrap_or_else(|| panic!("the layer table has a \"{name}\" column"))
    };
    let (layer, place, talk) = (column("layer"), column("where"), column("may talk to"));
    rows.skip(1) // the |---| line
        .map(|row| {
            let cells: Vec<&str> = row.split('|').collect();
            Layer {
                name: cells[layer].trim().to_owned(),
                modules: code_spans(cells[place])
                    .iter()
                    .filter_map(|p| module_of_path(p))
                    .collect(),
                may_talk_to: code_spans(cells[talk]),
            }
        })
        .collect()
}

/// `text` without `//` comments (doc comments included) and string literals' contents, so a
/// path named in prose is not an import.
fn code_only(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let mut in_string = false;
        let mut previous = ' ';
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            if !in_string && c == '/' && chars.peek() == Some(&'/') {
                break;
            }
            if c == '"' && previous != '\\' {
                in_string = !in_string;
            }
            if !in_string {
                out.push(c);
            }
            previous = c;
        }
        out.push('\n');
    }
    out
}

fn identifier_at(text: &str) -> String {
    text.chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect()
}

/// The top-level modules `text` names through `crate::` (or `$crate::` in a macro), including
/// each first segment of a grouped `crate::{a::..., b, ...}`.
fn crate_paths(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (at, _) in text.match_indices("crate::") {
        let rest = &text[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 1;
            let mut expecting = true;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    ',' if depth == 1 => expecting = true,
                    c if expecting && depth == 1 && (c.is_alphanumeric() || c == '_') => {
                        found.push(identifier_at(&group[i..]));
                        expecting = false;
                    }
                    _ => {}
                }
            }
        } else {
            found.push(identifier_at(rest));
        }
    }
    found.retain(|m| !m.is_empty() && m != "self");
    found
}

/// `module` with the folders inside its own folder, if it has any (`engine [boa/, quickjs/]`).
fn with_folders(module: &str) -> String {
    let Ok(entries) = fs::read_dir(root().join("src").join(module)) else {
        return module.to_owned();
    };
    let mut folders: Vec<String> = entries
        .filter_map(Result::ok)
        .filter(|e| e.path().is_dir())
        .map(|e| format!("{}/", e.file_name().to_string_lossy()))
        .collect();
    if folders.is_empty() {
        return module.to_owned();
    }
    folders.sort();
    format!("{module} [{}]", folders.join(", "))
}

/// The crate root's items (`src/lib.rs`), each with the module it belongs to: `lib` for an
/// item the root defines (`register`, `StreamsExtension`), the source module for a re-export
/// (`Value` → `engine`, `fetcher` → `fetch`).
fn crate_root_items(layer_of_module: &BTreeMap<&str, &Layer>) -> BTreeMap<String, String> {
    let text = code_only(&fs::read_to_string(root().join("src/lib.rs")).expect("read src/lib.rs"));
    let mut items = BTreeMap::new();
    let mut statement = String::new();
    for line in text.lines() {
        let trimmed = line.trim_start();
        if statement.is_empty() && !trimmed.starts_with("pub use ") {
            let mut words = trimmed.split_whitespace();
            while let Some(word) = words.next() {
                if matches!(
                    word,
                    "fn" | "struct" | "enum" | "trait" | "type" | "const" | "static"
                ) {
                    if let Some(name) = words.next() {
                        let name = identifier_at(name);
                        if !name.is_empty() {
                            items.insert(name, "lib".to_owned());
                        }
                    }
                    break;
                }
            }
            continue;
        }
        statement.push_str(trimmed);
        statement.push(' ');
        if !trimmed.trim_end().ends_with(';') {
            continue;
        }
        // `pub use module::path::{a, b as c};`
        let path = statement["pub use ".len()..]
            .trim()
            .trim_end_matches(';')
            .to_owned();
        statement.clear();
        let source = identifier_at(&path);
        if !layer_of_module.contains_key(source.as_str()) {
            continue;
        }
        let leaves = path.rsplit_once('{').map_or(path.as_str(), |(_, group)| {
            group.trim_end_matches(['}', ' '])
        });
        for leaf in leaves.split(',') {
            let leaf = leaf.trim();
            let name = leaf.rsplit([' ', ':']).next().unwrap_or(leaf);
            if !name.is_empty() {
                items.insert(name.to_owned(), source.clone());
            }
        }
    }
    items
}

/// The layer modules the crate root names by their own names (`engine::Value`,
/// `dom::register(ctx)`): a module name followed by `::`, not itself after a path separator.
fn root_paths(text: &str, layer_of_module: &BTreeMap<&str, &Layer>) -> Vec<String> {
    let mut found = Vec::new();
    for (at, _) in text.match_indices("::") {
        let before = &text[..at];
        let start = before
            .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
            .map_or(0, |i| i + 1);
        let name = &before[start..];
        if before[..start].ends_with("::") || before[..start].ends_with('$') {
            continue;
        }
        if layer_of_module.contains_key(name) && name != "lib" {
            found.push(name.to_owned());
        }
    }
    found
}

#[test]
fn no_module_imports_a_layer_above_it() {
    let layers = layers();
    assert!(!layers.is_empty(), "the layer table has rows");
    let mut rank: BTreeMap<&str, usize> = BTreeMap::new();
    let mut layer_of_module: BTreeMap<&str, &Layer> = BTreeMap::new();
    for (i, layer) in layers.iter().enumerate() {
        rank.insert(&layer.name, i);
        for module in &layer.modules {
            layer_of_module.insert(module, layer);
        }
    }

    println!("layers, lowest first:");
    let mut problems = Vec::new();
    for (i, layer) in layers.iter().enumerate() {
        println!(
            "  {}. {} ({}) may talk to: {}",
            i + 1,
            layer.name,
            layer
                .modules
                .iter()
                .map(|m| with_folders(m))
                .collect::<Vec<_>>()
                .join(", "),
            if layer.may_talk_to.is_empty() {
                "-".to_owned()
            } else {
                layer.may_talk_to.join(", ")
            }
        );
        for other in &layer.may_talk_to {
            match rank.get(other.as_str()) {
                Some(&j) if j < i => {}
                Some(_) => problems.push(format!(
                    "ARCHITECTURE.md: {} may talk to {other}, which is not below it",
                    layer.name
                )),
                None => problems.push(format!(
                    "ARCHITECTURE.md: {} may talk to {other}, which is no layer",
                    layer.name
                )),
            }
        }
    }

    let src = root().join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let root_items = crate_root_items(&layer_of_module);
    let mut unplaced = Vec::new();
    let mut imports = 0;
    for path in &files {
        let relative = path.strip_prefix(&src).expect("under src/");
        let Some(module) = module_of_path(&format!("src/{}", relative.display())) else {
            continue;
        };
        let Some(layer) = layer_of_module.get(module.as_str()) else {
            unplaced.push(relative.display().to_string());
            continue;
        };
        let text = code_only(&fs::read_to_string(path).expect("read a source file"));
        let mut seen: Vec<String> = crate_paths(&text);
        if module == "lib" {
            // The crate root names the layers by their module names (`engine::Value`).
            seen.extend(root_paths(&text, &layer_of_module));
        }
        seen.sort();
        seen.dedup();
        for target in seen {
            // A layer's module, or an item of the crate root: one it defines (its layer is the
            // root's) or one it re-exports (the layer it comes from).
            let target_module = match root_items.get(target.as_str()) {
                Some(module) if !layer_of_module.contains_key(target.as_str()) => module.clone(),
                _ => target.clone(),
            };
            let Some(target_layer) = layer_of_module.get(target_module.as_str()) else {
                problems.push(format!(
                    "src/{} names crate::{target}, which is no layer and no item of the crate root",
                    relative.display()
                ));
                continue;
            };
            imports += 1;
            if target_layer.name == layer.name || layer.may_talk_to.contains(&target_layer.name) {
                continue;
            }
            let direction = if rank[target_layer.name.as_str()] > rank[layer.name.as_str()] {
                "up"
            } else {
                "not in its \"may talk to\""
            };
            problems.push(format!(
                "src/{} ({}) names crate::{target} ({}): {direction}",
                relative.display(),
                layer.name,
                target_layer.name
            ));
        }
    }
    println!(
        "{imports} file-to-layer imports checked in {} files",
        files.len()
    );
    assert!(
        unplaced.is_empty(),
        "files of no layer in ARCHITECTURE.md's table: {unplaced:?}"
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_import_scanner_sees_grouped_and_expression_paths() {
    let text = code_only(
        "use crate::{engine::{self, Cx}, readable::other_specs, queue};\n\
         let x = crate::dom::f(); // crate::host::g()\n\
         let s = \"crate::rust\";\n\
         $crate::transform::x!();",
    );
    let mut paths = crate_paths(&text);
    paths.sort();
    assert_eq!(paths, ["dom", "engine", "queue", "readable", "transform"]);
}
