//! The spec map: which abstract operations and interface members the Streams Standard defines,
//! and which of them the code in `src/` claims to implement.
//!
//! Data (committed in `spec/`, see `spec/README.md`):
//! - `spec/abstract-ops.tsv`: every `<dfn abstract-op>` of streams.bs (`id`, `name`, `section`);
//! - `spec/interfaces.tsv`: IDL interfaces and their constructors, methods and attributes;
//! - `spec/anchors.txt`: every anchor id the rendered spec has that can be computed from the
//!   source (explicit `id="..."` attributes plus the ids Bikeshed generates for definitions).
//!
//! The extractor below parses streams.bs (`$STREAMS_SPEC`, or `../shared/spec/streams.bs`
//! relative to the crate root). With `UPDATE_SPEC_MAP=1` the test rewrites the files in `spec/`;
//! otherwise it asserts they equal a fresh extraction. Without the spec source that comparison
//! is skipped and the code checks run from the committed files.
//!
//! Code checks, over every `.rs` file under `src/`:
//! - each `https://streams.spec.whatwg.org/#ID` link names an existing anchor;
//! - an abstract operation is claimed (its link is in the `///` doc comment of a `fn`) by at most
//!   one function;
//! - progress: `N of M abstract operations implemented`.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

const SPEC_URL: &str = "https://streams.spec.whatwg.org/#";
const OPS_FILE: &str = "spec/abstract-ops.tsv";
const MEMBERS_FILE: &str = "spec/interfaces.tsv";
const ANCHORS_FILE: &str = "spec/anchors.txt";
const OPS_HEADER: &str = "id\tname\tsection";
const MEMBERS_HEADER: &str = "id\tinterface\tmember\tkind";

// ---------------------------------------------------------------------------------------------
// The map
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq, Eq)]
struct AbstractOp {
    id: String,
    name: String,
    section: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Member {
    id: String,
    interface: String,
    /// Empty for the row of the interface itself.
    member: String,
    kind: String,
}

#[derive(Debug, Default)]
struct SpecMap {
    ops: Vec<AbstractOp>,
    members: Vec<Member>,
    anchors: BTreeSet<String>,
}

impl SpecMap {
    fn ops_tsv(&self) -> String {
        let mut out = format!("{OPS_HEADER}\n");
        for op in &self.ops {
            let _ = writeln!(out, "{}\t{}\t{}", op.id, op.name, op.section);
        }
        out
    }

    fn members_tsv(&self) -> String {
        let mut out = format!("{MEMBERS_HEADER}\n");
        for m in &self.members {
            let _ = writeln!(out, "{}\t{}\t{}\t{}", m.id, m.interface, m.member, m.kind);
        }
        out
    }

    fn anchors_txt(&self) -> String {
        let mut out = String::new();
        for a in &self.anchors {
            out.push_str(a);
            out.push('\n');
        }
        out
    }

    /// Parses the committed files.
    fn from_files(ops: &str, members: &str, anchors: &str) -> Result<SpecMap, String> {
        let ops = parse_tsv(ops, OPS_HEADER)?
            .into_iter()
            .map(|mut row| AbstractOp {
                section: row.pop().unwrap_or_default(),
                name: row.pop().unwrap_or_default(),
                id: row.pop().unwrap_or_default(),
            })
            .collect();
        let members = parse_tsv(members, MEMBERS_HEADER)?
            .into_iter()
            .map(|mut row| Member {
                kind: row.pop().unwrap_or_default(),
                member: row.pop().unwrap_or_default(),
                interface: row.pop().unwrap_or_default(),
                id: row.pop().unwrap_or_default(),
            })
            .collect();
        let anchors = anchors
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(str::to_owned)
            .collect();
        Ok(SpecMap {
            ops,
            members,
            anchors,
        })
    }

    fn op_ids(&self) -> BTreeMap<&str, &AbstractOp> {
        self.ops.iter().map(|op| (op.id.as_str(), op)).collect()
    }
}

fn parse_tsv(text: &str, header: &str) -> Result<Vec<Vec<String>>, String> {
    let mut lines = text.lines();
    match lines.next() {
        Some(h) if h == header => {}
        other => return Err(format!("expected header {header:?}, found {other:?}")),
    }
    let columns = header.split('\t').count();
    let mut rows = Vec::new();
    for (i, line) in lines.enumerate() {
        let row: Vec<String> = line.split('\t').map(str::to_owned).collect();
        if row.len() != columns {
            return Err(format!(
                "line {}: {} columns, expected {columns}: {line:?}",
                i + 2,
                row.len()
            ));
        }
        rows.push(row);
    }
    Ok(rows)
}

// ---------------------------------------------------------------------------------------------
// Bikeshed source tokenizer (just enough HTML for streams.bs)
// ---------------------------------------------------------------------------------------------

#[derive(Debug)]
enum Token {
    Open {
        name: String,
        attrs: Vec<(String, Option<String>)>,
        /// Byte offset of the `<`.
        start: usize,
        /// Byte offset just past the `>`.
        end: usize,
        /// For raw-text elements (`xmp`, `pre`, `script`, `style`): their content.
        raw: Option<String>,
    },
    Close {
        name: String,
    },
}

impl Token {
    fn attr(&self, key: &str) -> Option<&str> {
        match self {
            Token::Open { attrs, .. } => attrs
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v.as_deref().unwrap_or("")),
            Token::Close { .. } => None,
        }
    }

    fn has_attr(&self, key: &str) -> bool {
        self.attr(key).is_some()
    }
}

const RAW_TEXT_ELEMENTS: [&str; 4] = ["xmp", "pre", "script", "style"];

fn tokenize(src: &str) -> Vec<Token> {
    let bytes = src.as_bytes();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'<' {
            i += 1;
            continue;
        }
        if src[i..].starts_with("<!--") {
            i = src[i..].find("-->").map_or(bytes.len(), |p| i + p + 3);
            continue;
        }
        if i + 1 < bytes.len() && bytes[i + 1] == b'/' {
            let name_start = i + 2;
            let name_end = scan_while(bytes, name_start, is_tag_name_byte);
            if name_end > name_start {
                let name = src[name_start..name_end].to_ascii_lowercase();
                i = src[name_end..]
                    .find('>')
                    .map_or(bytes.len(), |p| name_end + p + 1);
                tokens.push(Token::Close { name });
            } else {
                i += 1;
            }
            continue;
        }
        if i + 1 >= bytes.len() || !bytes[i + 1].is_ascii_alphabetic() {
            i += 1;
            continue;
        }
        let start = i;
        let name_end = scan_while(bytes, i + 1, is_tag_name_byte);
        let name = src[i + 1..name_end].to_ascii_lowercase();
        let mut attrs = Vec::new();
        let mut j = name_end;
        loop {
            j = scan_while(bytes, j, |b| b.is_ascii_whitespace());
            if j >= bytes.len() {
                break;
            }
            match bytes[j] {
                b'>' => {
                    j += 1;
                    break;
                }
                b'/' => {
                    j += 1;
                    continue;
                }
                _ => {}
            }
            let key_end = scan_while(bytes, j, |b| {
                !b.is_ascii_whitespace() && b != b'=' && b != b'>'
            });
            let key = src[j..key_end].to_ascii_lowercase();
            j = scan_while(bytes, key_end, |b| b.is_ascii_whitespace());
            if j < bytes.len() && bytes[j] == b'=' {
                j = scan_while(bytes, j + 1, |b| b.is_ascii_whitespace());
                let value = if j < bytes.len() && (bytes[j] == b'"' || bytes[j] == b'\'') {
                    let quote = bytes[j] as char;
                    let value_end = src[j + 1..].find(quote).map_or(bytes.len(), |p| j + 1 + p);
                    let v = src[j + 1..value_end].to_owned();
                    j = (value_end + 1).min(bytes.len());
                    v
                } else {
                    let value_end = scan_while(bytes, j, |b| !b.is_ascii_whitespace() && b != b'>');
                    let v = src[j..value_end].to_owned();
                    j = value_end;
                    v
                };
                attrs.push((key, Some(value)));
            } else {
                attrs.push((key, None));
            }
        }
        let end = j;
        let mut raw = None;
        i = end;
        if RAW_TEXT_ELEMENTS.contains(&name.as_str()) {
            let close = format!("</{name}");
            let content_end = find_ascii_ci(src, end, &close).unwrap_or(bytes.len());
            raw = Some(src[end..content_end].to_owned());
            i = content_end;
        }
        tokens.push(Token::Open {
            name,
            attrs,
            start,
            end,
            raw,
        });
    }
    tokens
}

fn is_tag_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'-'
}

fn scan_while(bytes: &[u8], mut i: usize, pred: impl Fn(u8) -> bool) -> usize {
    while i < bytes.len() && pred(bytes[i]) {
        i += 1;
    }
    i
}

fn find_ascii_ci(haystack: &str, from: usize, needle: &str) -> Option<usize> {
    let hay = haystack.as_bytes();
    let needle = needle.as_bytes();
    (from..hay.len().saturating_sub(needle.len() - 1))
        .find(|&k| hay[k..k + needle.len()].eq_ignore_ascii_case(needle))
}

/// Text content of an element: tags dropped, Bikeshed's `\[` escapes and a few entities
/// decoded, whitespace collapsed.
fn plain_text(html: &str) -> String {
    let mut out = String::new();
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            _ if !in_tag => out.push(c),
            _ => {}
        }
    }
    let out = out
        .replace("\\[", "[")
        .replace("\\]", "]")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&amp;", "&");
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Bikeshed's `simplifyText`, which turns definition text into an id: lowercase, `()` dropped,
/// runs of whitespace, `/`, `(` and `,` become `-`, anything else outside `[a-z0-9_-]`
/// dropped, trailing `-` trimmed.
fn simplify(text: &str) -> String {
    let lower = text.trim().to_lowercase().replace("()", "");
    let mut dashed = String::new();
    let mut in_run = false;
    for c in lower.chars() {
        if c.is_whitespace() || matches!(c, '/' | '(' | ',') {
            if !in_run {
                dashed.push('-');
            }
            in_run = true;
        } else {
            dashed.push(c);
            in_run = false;
        }
    }
    let kept: String = dashed
        .chars()
        .filter(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_' || *c == '-')
        .collect();
    kept.trim_end_matches('-').to_owned()
}

/// `for-text`, or `text` when there is no `for`.
fn qualified(for_: Option<&str>, text: &str) -> String {
    match for_ {
        Some(f) => format!("{f}-{text}"),
        None => text.to_owned(),
    }
}

// ---------------------------------------------------------------------------------------------
// WebIDL blocks (`<xmp class="idl">`)
// ---------------------------------------------------------------------------------------------

#[derive(Debug)]
struct IdlDef {
    /// `interface`, `interface mixin`, `dictionary`, `enum`, `callback`, `callback interface`,
    /// `typedef` or `namespace`.
    kind: String,
    name: String,
    /// (kind, name): `constructor`, `attribute`, `method`, `static method`, `dict-member`,
    /// `enum-value`.
    members: Vec<(String, String)>,
}

fn strip_idl_comments(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    loop {
        let line = rest.find("//");
        let block = rest.find("/*");
        match (line, block) {
            (Some(l), b) if b.is_none_or(|b| l < b) => {
                out.push_str(&rest[..l]);
                rest = rest[l..].find('\n').map_or("", |p| &rest[l + p..]);
            }
            (_, Some(b)) => {
                out.push_str(&rest[..b]);
                rest = rest[b..].find("*/").map_or("", |p| &rest[b + p + 2..]);
            }
            (None, None) => {
                out.push_str(rest);
                return out;
            }
            (Some(_), None) => unreachable!("handled by the first arm"),
        }
    }
}

/// Removes extended attributes (`[...]`, balanced).
fn strip_ext_attrs(text: &str) -> String {
    let mut out = String::new();
    let mut depth = 0usize;
    for c in text.chars() {
        match c {
            '[' => depth += 1,
            ']' if depth > 0 => depth -= 1,
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

fn last_ident(text: &str) -> Option<String> {
    let trimmed = text.trim_end_matches(|c: char| !is_ident_char(c));
    let start = trimmed
        .char_indices()
        .rev()
        .take_while(|(_, c)| is_ident_char(*c))
        .last()
        .map(|(i, _)| i)?;
    Some(trimmed[start..].trim_start_matches('_').to_owned())
}

fn first_ident(text: &str) -> Option<String> {
    let ident: String = text
        .trim_start()
        .chars()
        .take_while(|c| is_ident_char(*c))
        .collect();
    (!ident.is_empty()).then(|| ident.trim_start_matches('_').to_owned())
}

fn parse_idl(text: &str) -> Vec<IdlDef> {
    let text = strip_idl_comments(text);
    let mut defs = Vec::new();
    let mut header = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            ';' => {
                if let Some(def) = idl_header(&header) {
                    defs.push(def);
                }
                header.clear();
            }
            '{' => {
                let mut body = String::new();
                let mut depth = 1;
                for c in chars.by_ref() {
                    match c {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                    body.push(c);
                }
                if let Some(mut def) = idl_header(&header) {
                    def.members = idl_members(&def.kind, &body);
                    defs.push(def);
                }
                header.clear();
                // The `;` after `}` arrives with an empty header and is ignored.
            }
            _ => header.push(c),
        }
    }
    defs
}

fn idl_header(header: &str) -> Option<IdlDef> {
    let header = strip_ext_attrs(header);
    let mut words: Vec<&str> = header.split_whitespace().collect();
    if words.first() == Some(&"partial") {
        words.remove(0);
    }
    let def = |kind: &str, name: Option<String>| {
        name.map(|name| IdlDef {
            kind: kind.to_owned(),
            name,
            members: Vec::new(),
        })
    };
    let after = |n: usize| first_ident(&words[n.min(words.len())..].join(" "));
    match words.as_slice() {
        ["interface", "mixin", ..] => def("interface mixin", after(2)),
        ["interface", ..] => def("interface", after(1)),
        ["callback", "interface", ..] => def("callback interface", after(2)),
        ["callback", ..] => def("callback", after(1)),
        ["dictionary", ..] => def("dictionary", after(1)),
        ["enum", ..] => def("enum", after(1)),
        ["namespace", ..] => def("namespace", after(1)),
        ["typedef", ..] => def("typedef", last_ident(&header)),
        _ => None,
    }
}

fn idl_members(kind: &str, body: &str) -> Vec<(String, String)> {
    let body = strip_ext_attrs(body);
    if kind == "enum" {
        return body
            .split('"')
            .skip(1)
            .step_by(2)
            .map(|v| ("enum-value".to_owned(), v.to_owned()))
            .collect();
    }
    let mut members = Vec::new();
    for stmt in body.split(';') {
        let stmt = stmt.split_whitespace().collect::<Vec<_>>().join(" ");
        if stmt.is_empty() {
            continue;
        }
        let member = if kind == "dictionary" {
            let decl = stmt.split('=').next().unwrap_or_default();
            last_ident(decl).map(|n| ("dict-member", n))
        } else if stmt.starts_with("constructor") {
            Some(("constructor", "constructor".to_owned()))
        } else if stmt.split_whitespace().any(|w| w == "attribute") {
            last_ident(&stmt).map(|n| ("attribute", n))
        } else if [
            "async_iterable",
            "iterable",
            "maplike",
            "setlike",
            "const",
            "stringifier",
        ]
        .iter()
        .any(|p| stmt.starts_with(p))
        {
            None
        } else {
            let before_args = stmt.split('(').next().unwrap_or_default();
            let kind = if stmt.starts_with("static ") {
                "static method"
            } else {
                "method"
            };
            last_ident(before_args).map(|n| (kind, n))
        };
        if let Some((k, n)) = member {
            members.push((k.to_owned(), n));
        }
    }
    members
}

fn idl_def_id(kind: &str, name: &str) -> String {
    let prefix = match kind {
        "dictionary" => "dictdef-",
        "enum" => "enumdef-",
        "callback" => "callbackdef-",
        "typedef" => "typedefdef-",
        "namespace" => "namespacedef-",
        _ => "",
    };
    format!("{prefix}{}", simplify(name))
}

// ---------------------------------------------------------------------------------------------
// Extraction
// ---------------------------------------------------------------------------------------------

const IDL_MEMBER_DFN_TYPES: [&str; 3] = ["constructor", "method", "attribute"];
const OTHER_IDL_DFN_TYPES: [&str; 2] = ["dict-member", "enum-value"];

fn extract(src: &str) -> Result<SpecMap, String> {
    let tokens = tokenize(src);
    let line_of = |offset: usize| src[..offset].matches('\n').count() + 1;

    let mut explicit_ids: BTreeMap<String, usize> = BTreeMap::new();
    let mut generated_ids: BTreeSet<String> = BTreeSet::new();
    // (offset, row); sorted at the end so rows follow document order.
    let mut ops: Vec<AbstractOp> = Vec::new();
    let mut members: Vec<(usize, Member)> = Vec::new();
    let mut prose_members: HashSet<(String, String)> = HashSet::new();
    let mut idl_defs: Vec<(usize, IdlDef)> = Vec::new();

    let mut section = String::new();
    let mut dfn_for_stack: Vec<(String, String)> = Vec::new();

    for token in &tokens {
        let (name, start, end, raw) = match token {
            Token::Open {
                name,
                start,
                end,
                raw,
                ..
            } => (name, *start, *end, raw),
            Token::Close { name } => {
                if dfn_for_stack.last().is_some_and(|(tag, _)| tag == name) {
                    dfn_for_stack.pop();
                }
                continue;
            }
        };
        if let Some(id) = token.attr("id") {
            if let Some(prev) = explicit_ids.insert(id.to_owned(), start) {
                return Err(format!(
                    "id {id:?} appears twice (lines {} and {})",
                    line_of(prev),
                    line_of(start)
                ));
            }
        }
        if let Some(f) = token.attr("dfn-for") {
            dfn_for_stack.push((name.clone(), f.to_owned()));
        }
        match name.as_str() {
            "h2" | "h3" | "h4" => {
                section = token
                    .attr("id")
                    .ok_or_else(|| format!("heading without id at line {}", line_of(start)))?
                    .to_owned();
            }
            "xmp" if token.attr("class").is_some_and(|c| c.contains("idl")) => {
                let raw = raw.as_deref().unwrap_or_default();
                idl_defs.extend(parse_idl(raw).into_iter().map(|d| (start, d)));
            }
            "dfn" => {
                let content_end = src[end..]
                    .find("</dfn>")
                    .map(|p| end + p)
                    .ok_or_else(|| format!("unclosed <dfn> at line {}", line_of(start)))?;
                let text = plain_text(&src[end..content_end]);
                let lt = token
                    .attr("lt")
                    .map(|lt| lt.split('|').next().unwrap_or_default().trim().to_owned())
                    .unwrap_or_else(|| text.clone());
                let lt = lt.split_whitespace().collect::<Vec<_>>().join(" ");
                let for_ = token
                    .attr("for")
                    .or_else(|| dfn_for_stack.last().map(|(_, f)| f.as_str()))
                    .map(|f| f.split(',').next().unwrap_or_default().trim().to_owned());
                let explicit = token.attr("id").map(str::to_owned);

                if token.has_attr("abstract-op") {
                    let id = explicit.clone().unwrap_or_else(|| {
                        format!(
                            "abstract-opdef-{}",
                            simplify(&qualified(for_.as_deref(), &lt))
                        )
                    });
                    let name = match &for_ {
                        Some(f) => format!("{f}.{lt}"),
                        None => lt.clone(),
                    };
                    if section.is_empty() {
                        return Err(format!("abstract op {name} before any heading"));
                    }
                    if explicit.is_none() {
                        generated_ids.insert(id.clone());
                    }
                    ops.push(AbstractOp {
                        id,
                        name,
                        section: section.clone(),
                    });
                } else if let Some(kind) = IDL_MEMBER_DFN_TYPES
                    .iter()
                    .find(|k| token.has_attr(k))
                    .copied()
                {
                    let interface = for_.clone().ok_or_else(|| {
                        format!("{kind} dfn without for= at line {}", line_of(start))
                    })?;
                    let member = match kind {
                        "constructor" => "constructor".to_owned(),
                        "method" => lt.split('(').next().unwrap_or_default().trim().to_owned(),
                        _ => lt.clone(),
                    };
                    let id = explicit.clone().unwrap_or_else(|| {
                        let name = if kind == "constructor" {
                            &interface
                        } else {
                            &member
                        };
                        format!("dom-{}", simplify(&qualified(Some(&interface), name)))
                    });
                    if explicit.is_none() {
                        generated_ids.insert(id.clone());
                    }
                    prose_members.insert((interface.clone(), member.clone()));
                    members.push((
                        start,
                        Member {
                            id,
                            interface,
                            member,
                            kind: kind.to_owned(),
                        },
                    ));
                } else if explicit.is_none() {
                    let id = if OTHER_IDL_DFN_TYPES.iter().any(|k| token.has_attr(k)) {
                        let name = lt.split('(').next().unwrap_or_default().trim();
                        format!("dom-{}", simplify(&qualified(for_.as_deref(), name)))
                    } else {
                        simplify(&qualified(for_.as_deref(), &lt))
                    };
                    generated_ids.insert(id);
                }
            }
            _ => {}
        }
    }

    let declared = src.matches("<dfn abstract-op").count();
    if ops.len() != declared {
        return Err(format!(
            "extracted {} abstract ops, but streams.bs has {declared} `<dfn abstract-op`",
            ops.len()
        ));
    }

    // IDL definitions, and the members no prose <dfn> defines (Bikeshed anchors them in the
    // IDL block itself).
    for (offset, def) in &idl_defs {
        let def_id = idl_def_id(&def.kind, &def.name);
        generated_ids.insert(def_id.clone());
        let is_interface = def.kind == "interface" || def.kind == "interface mixin";
        if is_interface {
            members.push((
                *offset,
                Member {
                    id: def_id,
                    interface: def.name.clone(),
                    member: String::new(),
                    kind: def.kind.clone(),
                },
            ));
        }
        for (kind, name) in &def.members {
            let id_name = if kind == "constructor" {
                &def.name
            } else {
                name
            };
            let id = format!("dom-{}", simplify(&qualified(Some(&def.name), id_name)));
            if !is_interface {
                generated_ids.insert(id);
                continue;
            }
            if prose_members.contains(&(def.name.clone(), name.clone())) {
                continue;
            }
            generated_ids.insert(id.clone());
            members.push((
                *offset,
                Member {
                    id,
                    interface: def.name.clone(),
                    member: name.clone(),
                    kind: kind.clone(),
                },
            ));
        }
    }
    // `static` is only visible in the IDL.
    let statics: HashSet<(&str, &str)> = idl_defs
        .iter()
        .flat_map(|(_, d)| {
            d.members
                .iter()
                .filter(|(k, _)| k == "static method")
                .map(move |(_, n)| (d.name.as_str(), n.as_str()))
        })
        .collect();
    for (_, m) in &mut members {
        if m.kind == "method" && statics.contains(&(m.interface.as_str(), m.member.as_str())) {
            m.kind = "static method".to_owned();
        }
    }
    members.sort_by_key(|(offset, _)| *offset);

    let mut seen = HashSet::new();
    for id in ops
        .iter()
        .map(|o| &o.id)
        .chain(members.iter().map(|(_, m)| &m.id))
    {
        if !seen.insert(id.clone()) {
            return Err(format!("id {id:?} used by two rows"));
        }
    }

    let mut anchors: BTreeSet<String> = explicit_ids.into_keys().collect();
    anchors.extend(generated_ids);
    Ok(SpecMap {
        ops,
        members: members.into_iter().map(|(_, m)| m).collect(),
        anchors,
    })
}

// ---------------------------------------------------------------------------------------------
// Rust source scanner
// ---------------------------------------------------------------------------------------------

/// A `https://streams.spec.whatwg.org/#ID` occurrence anywhere in a file.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Link {
    id: String,
    line: usize,
}

/// A function and the spec ids linked from its `///` doc comment.
#[derive(Debug, Clone, PartialEq, Eq)]
struct DocumentedFn {
    name: String,
    line: usize,
    ids: Vec<String>,
}

#[derive(Debug, Default, PartialEq, Eq)]
struct Scan {
    links: Vec<Link>,
    fns: Vec<DocumentedFn>,
}

fn links_in(text: &str) -> Vec<String> {
    let mut ids = Vec::new();
    let mut rest = text;
    while let Some(p) = rest.find(SPEC_URL) {
        rest = &rest[p + SPEC_URL.len()..];
        let id: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
            .collect();
        ids.push(id);
    }
    ids
}

/// The name of the function declared on this line, if the line starts a `fn` item
/// (after visibility and qualifiers).
fn fn_decl_name(line: &str) -> Option<String> {
    let mut rest = line.trim_start();
    loop {
        if let Some(r) = rest.strip_prefix("pub(") {
            rest = r.split_once(')')?.1.trim_start();
            continue;
        }
        let mut stripped = false;
        for kw in ["pub ", "const ", "async ", "unsafe ", "default ", "safe "] {
            if let Some(r) = rest.strip_prefix(kw) {
                rest = r.trim_start();
                stripped = true;
            }
        }
        if let Some(r) = rest.strip_prefix("extern ") {
            rest = r.trim_start();
            if rest.starts_with('"') {
                rest = rest[1..].split_once('"')?.1.trim_start();
            }
            stripped = true;
        }
        if !stripped {
            break;
        }
    }
    let name: String = rest
        .strip_prefix("fn ")?
        .trim_start()
        .chars()
        .take_while(|c| is_ident_char(*c))
        .collect();
    (!name.is_empty()).then_some(name)
}

/// `[`/`]` balance of a line, ignoring string and char literals.
fn bracket_balance(line: &str) -> i32 {
    let mut depth = 0;
    let mut in_str = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if in_str => {
                chars.next();
            }
            '"' => in_str = !in_str,
            '\'' if !in_str => {
                // A char literal like '[' (lifetimes have no closing quote nearby).
                let lit: String = chars.clone().take(3).collect();
                if lit.len() >= 2 && lit.chars().nth(1) == Some('\'') {
                    chars.next();
                    chars.next();
                }
            }
            '[' if !in_str => depth += 1,
            ']' if !in_str => depth -= 1,
            _ => {}
        }
    }
    depth
}

fn is_doc_line(trimmed: &str) -> bool {
    trimmed.starts_with("///") && !trimmed.starts_with("////")
}

/// Scans one Rust file. A function claims the ids linked in the `///` lines above it; outer
/// attributes (also multi-line ones), blank lines and `//` comments may sit between the doc
/// comment and the `fn`, as Rust allows. Links in `//` comments, `//!` comments, bodies or
/// strings are links (checked for existence) but not claims.
fn scan_rust(src: &str) -> Scan {
    let mut scan = Scan::default();
    let mut doc_ids: Vec<String> = Vec::new();
    let mut in_doc_block = false;
    let mut attr_depth = 0;
    for (idx, line) in src.lines().enumerate() {
        let line_no = idx + 1;
        for id in links_in(line) {
            scan.links.push(Link { id, line: line_no });
        }
        let trimmed = line.trim();
        if attr_depth > 0 {
            attr_depth += bracket_balance(trimmed);
            continue;
        }
        if is_doc_line(trimmed) {
            doc_ids.extend(links_in(trimmed));
            in_doc_block = true;
            continue;
        }
        if trimmed.starts_with("#[") {
            attr_depth = bracket_balance(trimmed).max(0);
            continue;
        }
        if trimmed.is_empty() || (trimmed.starts_with("//") && !trimmed.starts_with("//!")) {
            continue;
        }
        if let Some(name) = fn_decl_name(trimmed) {
            if in_doc_block {
                let mut ids = Vec::new();
                for id in doc_ids.drain(..) {
                    if !ids.contains(&id) {
                        ids.push(id);
                    }
                }
                scan.fns.push(DocumentedFn {
                    name,
                    line: line_no,
                    ids,
                });
            }
        }
        doc_ids.clear();
        in_doc_block = false;
    }
    scan
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// (display path, scan) for every `.rs` file under `src/`.
fn scan_src() -> Vec<(String, Scan)> {
    let root = crate_root();
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    files
        .into_iter()
        .map(|path| {
            let text = fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
            let shown = path
                .strip_prefix(&root)
                .unwrap_or(&path)
                .display()
                .to_string();
            (shown, scan_rust(&text))
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Loading the map
// ---------------------------------------------------------------------------------------------

fn crate_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The spec source, if available. `$STREAMS_SPEC` must exist when set.
fn spec_source() -> Option<(PathBuf, String)> {
    let (path, required) = match std::env::var_os("STREAMS_SPEC") {
        Some(p) => (PathBuf::from(p), true),
        None => (crate_root().join("../shared/spec/streams.bs"), false),
    };
    match fs::read_to_string(&path) {
        Ok(text) => Some((path, text)),
        Err(e) if required => panic!("STREAMS_SPEC={}: {e}", path.display()),
        Err(_) => None,
    }
}

fn read_committed() -> SpecMap {
    let root = crate_root();
    let read = |rel: &str| {
        fs::read_to_string(root.join(rel)).unwrap_or_else(|e| panic!("reading {rel}: {e}"))
    };
    SpecMap::from_files(&read(OPS_FILE), &read(MEMBERS_FILE), &read(ANCHORS_FILE))
        .unwrap_or_else(|e| panic!("committed spec map: {e}"))
}

/// A fresh extraction when the spec source is there (in sync with the committed files unless
/// `spec_map_files_match_the_spec` fails), the committed files otherwise.
fn load_map() -> SpecMap {
    match spec_source() {
        Some((path, text)) => {
            extract(&text).unwrap_or_else(|e| panic!("extracting {}: {e}", path.display()))
        }
        None => {
            println!("note: streams.bs not found; using the committed spec/ files");
            read_committed()
        }
    }
}

fn updating() -> bool {
    std::env::var("UPDATE_SPEC_MAP").is_ok_and(|v| v == "1")
}

// ---------------------------------------------------------------------------------------------
// Tests: the data
// ---------------------------------------------------------------------------------------------

#[test]
fn spec_map_files_match_the_spec() {
    let Some((path, text)) = spec_source() else {
        println!("note: streams.bs not found (set STREAMS_SPEC); skipping the spec/ drift check");
        return;
    };
    let map = extract(&text).unwrap_or_else(|e| panic!("extracting {}: {e}", path.display()));
    let root = crate_root();
    let files = [
        (OPS_FILE, map.ops_tsv()),
        (MEMBERS_FILE, map.members_tsv()),
        (ANCHORS_FILE, map.anchors_txt()),
    ];
    if updating() {
        fs::create_dir_all(root.join("spec")).expect("creating spec/");
        for (rel, content) in &files {
            fs::write(root.join(rel), content).unwrap_or_else(|e| panic!("writing {rel}: {e}"));
        }
        println!(
            "wrote {OPS_FILE} ({} ops), {MEMBERS_FILE} ({} rows), {ANCHORS_FILE} ({} anchors)",
            map.ops.len(),
            map.members.len(),
            map.anchors.len()
        );
        return;
    }
    let mut problems = Vec::new();
    for (rel, expected) in &files {
        let actual = fs::read_to_string(root.join(rel)).unwrap_or_default();
        if &actual != expected {
            let first = actual
                .lines()
                .zip(expected.lines())
                .position(|(a, e)| a != e)
                .unwrap_or_else(|| actual.lines().count().min(expected.lines().count()));
            problems.push(format!(
                "{rel} differs from the extraction of {} (first at line {})",
                path.display(),
                first + 1
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "{}\nregenerate with: UPDATE_SPEC_MAP=1 cargo test --test spec_map",
        problems.join("\n")
    );
}

#[test]
fn committed_spec_map_is_consistent() {
    if updating() {
        println!("note: UPDATE_SPEC_MAP=1; the committed files are being rewritten");
        return;
    }
    let map = read_committed();
    assert!(!map.ops.is_empty(), "{OPS_FILE} has no rows");
    let mut seen = HashSet::new();
    for id in map
        .ops
        .iter()
        .map(|o| &o.id)
        .chain(map.members.iter().map(|m| &m.id))
    {
        assert!(seen.insert(id), "id {id} listed twice");
        assert!(
            map.anchors.contains(id),
            "id {id} missing from {ANCHORS_FILE}"
        );
    }
    for op in &map.ops {
        assert!(
            map.anchors.contains(&op.section),
            "section {} of {} is not an anchor",
            op.section,
            op.name
        );
    }
}

#[test]
fn extraction_known_rows() {
    let Some((_, text)) = spec_source() else {
        println!("note: streams.bs not found; skipping");
        return;
    };
    let map = extract(&text).expect("extraction");
    let ops = map.op_ids();
    let op = |id: &str| {
        ops.get(id)
            .map(|o| (o.name.as_str(), o.section.as_str()))
            .unwrap_or_else(|| panic!("no op {id}"))
    };
    assert_eq!(
        op("readable-stream-close"),
        ("ReadableStreamClose", "rs-abstract-ops-used-by-controllers")
    );
    // Ids Bikeshed generates (checked against links to the live spec).
    assert_eq!(
        op("abstract-opdef-readablestreamdefaultcontroller-releasesteps").0,
        "ReadableStreamDefaultController.[[ReleaseSteps]]"
    );
    assert_eq!(
        op("abstract-opdef-readablestreamdefaulttee").0,
        "ReadableStreamDefaultTee"
    );
    assert_eq!(
        op("abstract-opdef-readablestreambyobreadererrorreadintorequests").0,
        "ReadableStreamBYOBReaderErrorReadIntoRequests"
    );
    let member = |id: &str| {
        map.members
            .iter()
            .find(|m| m.id == id)
            .map(|m| (m.interface.as_str(), m.member.as_str(), m.kind.as_str()))
            .unwrap_or_else(|| panic!("no member {id}"))
    };
    assert_eq!(
        member("rs-get-reader"),
        ("ReadableStream", "getReader", "method")
    );
    assert_eq!(
        member("rs-constructor"),
        ("ReadableStream", "constructor", "constructor")
    );
    assert_eq!(
        member("rs-from"),
        ("ReadableStream", "from", "static method")
    );
    assert_eq!(
        member("dom-generictransformstream-readable"),
        ("GenericTransformStream", "readable", "attribute")
    );
    assert_eq!(
        member("readablestream"),
        ("ReadableStream", "", "interface")
    );
    for anchor in [
        "rs-pipeTo-shutdown",
        "readablestream-state",
        "readablestream-set-up",
        "readablestream-get-a-reader",
        "dictdef-underlyingsource",
        "dom-underlyingsource-start",
        "dom-streampipeoptions-preventclose",
        "typedefdef-readablestreamcontroller",
        "callbackdef-queuingstrategysize",
        "enumdef-readablestreamtype",
    ] {
        assert!(map.anchors.contains(anchor), "anchor {anchor} missing");
    }
}

// ---------------------------------------------------------------------------------------------
// Tests: the code against the map
// ---------------------------------------------------------------------------------------------

#[test]
fn spec_links_in_src_resolve() {
    let map = load_map();
    let mut bad = Vec::new();
    for (file, scan) in scan_src() {
        for link in &scan.links {
            if !map.anchors.contains(&link.id) {
                bad.push(format!(
                    "{file}:{}: #{} is not an anchor of the spec",
                    link.line, link.id
                ));
            }
        }
    }
    assert!(bad.is_empty(), "broken spec links:\n{}", bad.join("\n"));
}

/// For each abstract-op id: the functions claiming it, as (file, line, fn name).
fn claims(map: &SpecMap) -> BTreeMap<String, Vec<(String, usize, String)>> {
    let ops = map.op_ids();
    let mut claims: BTreeMap<String, Vec<(String, usize, String)>> = BTreeMap::new();
    for (file, scan) in scan_src() {
        for f in &scan.fns {
            for id in f.ids.iter().filter(|id| ops.contains_key(id.as_str())) {
                claims
                    .entry(id.clone())
                    .or_default()
                    .push((file.clone(), f.line, f.name.clone()));
            }
        }
    }
    claims
}

#[test]
fn abstract_ops_claimed_at_most_once() {
    let map = load_map();
    let ops = map.op_ids();
    let mut dupes = Vec::new();
    for (id, claimants) in claims(&map) {
        if claimants.len() > 1 {
            let list: Vec<String> = claimants
                .iter()
                .map(|(file, line, name)| format!("  {file}:{line} fn {name}"))
                .collect();
            dupes.push(format!(
                "{} (#{id}) is claimed by:\n{}",
                ops[id.as_str()].name,
                list.join("\n")
            ));
        }
    }
    assert!(dupes.is_empty(), "{}", dupes.join("\n"));
}

/// The snake_case form of an abstract operation's name, as the function that implements it is
/// named: `ReadableStreamPipeTo` → `readable_stream_pipe_to`,
/// `WritableStreamDefaultController.[[AbortSteps]]` →
/// `writable_stream_default_controller_abort_steps`.
fn snake_case(op: &str) -> String {
    let name = op.replace(".[[", "").replace("]]", "");
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            let prev = chars[i - 1];
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_ascii_lowercase());
            if prev.is_ascii_lowercase()
                || prev.is_ascii_digit()
                || (prev.is_ascii_uppercase() && next_lower)
            {
                out.push('_');
            }
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

#[test]
fn claiming_functions_carry_the_operation_name() {
    let map = load_map();
    let ops = map.op_ids();
    let mut wrong = Vec::new();
    for (id, claimants) in claims(&map) {
        let expected = snake_case(&ops[id.as_str()].name);
        for (file, line, name) in claimants {
            if name != expected {
                wrong.push(format!(
                    "  {file}:{line} fn {name} claims #{id}: name it {expected}"
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "functions named apart from the abstract operation they implement:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn snake_case_of_operation_names() {
    assert_eq!(
        snake_case("ReadableStreamPipeTo"),
        "readable_stream_pipe_to"
    );
    assert_eq!(
        snake_case("ReadableStreamBYOBReaderRead"),
        "readable_stream_byob_reader_read"
    );
    assert_eq!(
        snake_case("WritableStreamDefaultController.[[AbortSteps]]"),
        "writable_stream_default_controller_abort_steps"
    );
    assert_eq!(
        snake_case("CanCopyDataBlockBytes"),
        "can_copy_data_block_bytes"
    );
}

#[test]
fn abstract_ops_progress() {
    let map = load_map();
    let claimed = claims(&map);
    // The review draft the spec source is (its `Text Macro: LATESTRD` line).
    let version = spec_source()
        .and_then(|(_, src)| {
            src.lines()
                .find_map(|l| l.strip_prefix("Text Macro: LATESTRD "))
                .map(|v| format!("streams.bs, review draft {}", v.trim()))
        })
        .unwrap_or_else(|| "the committed spec map".to_owned());
    println!(
        "{} of {} abstract operations implemented ({version})",
        claimed.len(),
        map.ops.len()
    );
    let missing: Vec<&AbstractOp> = map
        .ops
        .iter()
        .filter(|o| !claimed.contains_key(&o.id))
        .collect();
    if !missing.is_empty() {
        println!("not implemented yet ({}):", missing.len());
        for op in missing {
            println!("  {} (#{}, in #{})", op.name, op.id, op.section);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Unit tests: scanner and extractor edge cases
// ---------------------------------------------------------------------------------------------

fn claimed_by(src: &str) -> Vec<(String, Vec<String>)> {
    scan_rust(src)
        .fns
        .into_iter()
        .map(|f| (f.name, f.ids))
        .collect()
}

fn ids(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| (*s).to_owned()).collect()
}

#[test]
fn scanner_doc_comment_split_across_lines() {
    let src = "\
/// Implements
/// <https://streams.spec.whatwg.org/#readable-stream-close>
/// and, on its own line,
/// <https://streams.spec.whatwg.org/#readable-stream-error>.
pub(crate) fn close_or_error() {}
";
    assert_eq!(
        claimed_by(src),
        vec![(
            "close_or_error".to_owned(),
            ids(&["readable-stream-close", "readable-stream-error"])
        )]
    );
}

#[test]
fn scanner_attribute_between_doc_and_fn() {
    let src = "\
impl Foo {
    /// <https://streams.spec.whatwg.org/#readable-stream-cancel>
    #[allow(clippy::too_many_arguments)]
    #[cfg_attr(
        test,
        allow(dead_code)
    )]

    // a plain comment does not detach the doc comment
    pub fn cancel(&self) {}
}
";
    assert_eq!(
        claimed_by(src),
        vec![("cancel".to_owned(), ids(&["readable-stream-cancel"]))]
    );
}

#[test]
fn scanner_plain_comment_link_is_no_claim() {
    let src = "\
// <https://streams.spec.whatwg.org/#readable-stream-close>
fn a() {}
//// <https://streams.spec.whatwg.org/#readable-stream-close>
fn b() {}
//! <https://streams.spec.whatwg.org/#readable-stream-close>
fn c() {
    /// <https://streams.spec.whatwg.org/#readable-stream-close>
    let x = 1;
    let s = \"https://streams.spec.whatwg.org/#readable-stream-close\";
}
";
    let scan = scan_rust(src);
    assert!(scan.fns.is_empty(), "{:?}", scan.fns);
    // Every link is still seen, for the existence check.
    let lines: Vec<usize> = scan.links.iter().map(|l| l.line).collect();
    assert_eq!(lines, vec![1, 3, 5, 7, 9]);
}

#[test]
fn scanner_doc_on_other_item_does_not_leak() {
    let src = "\
/// <https://streams.spec.whatwg.org/#readable-stream-close>
struct S;
fn after_struct() {}
/// plain doc without a link
pub const fn documented() {}
/// <https://streams.spec.whatwg.org/#dequeue-value>
pub(in crate::queue) async unsafe fn qualified() {}
";
    assert_eq!(
        claimed_by(src),
        vec![
            ("documented".to_owned(), vec![]),
            ("qualified".to_owned(), ids(&["dequeue-value"]))
        ]
    );
}

#[test]
fn scanner_link_ids_stop_at_punctuation() {
    assert_eq!(
        links_in("see https://streams.spec.whatwg.org/#rs-pipeTo-shutdown). and <https://streams.spec.whatwg.org/#>"),
        ids(&["rs-pipeTo-shutdown", ""])
    );
}

#[test]
fn fn_decl_detection() {
    assert_eq!(
        fn_decl_name("    pub(crate) fn x_y<'a>(a: u8)"),
        Some("x_y".into())
    );
    assert_eq!(
        fn_decl_name("pub(super) const unsafe fn z()"),
        Some("z".into())
    );
    assert_eq!(fn_decl_name("extern \"C\" fn ffi()"), Some("ffi".into()));
    assert_eq!(fn_decl_name("let f = fn_ptr;"), None);
    assert_eq!(fn_decl_name("pub struct Fn;"), None);
    assert_eq!(fn_decl_name("const X: fn() = f;"), None);
}

#[test]
fn bikeshed_ids() {
    assert_eq!(
        simplify("ReadableStreamDefaultController-[[ReleaseSteps]]"),
        "readablestreamdefaultcontroller-releasesteps"
    );
    assert_eq!(simplify("ReadableStream/set up"), "readablestream-set-up");
    assert_eq!(simplify("stream's  state"), "streams-state");
    assert_eq!(simplify("tee()"), "tee");
}

#[test]
fn extractor_on_a_small_document() {
    let src = r#"
<h2 id="top">Top</h2>
<xmp class="idl">
[Exposed=*]
interface Thing {
  constructor(optional object x);
  static Thing make();
  readonly attribute boolean flag;
  Promise<undefined> go(optional any reason); // a comment
  undefined idlOnly();
};
dictionary Opts { boolean fast = false; };
</xmp>
<h3 id="sub">Sub</h3>
<!-- <dfn abstract-op lt="Commented"> is not a definition -->
<dfn id="thing-go" method for="Thing">go(|reason|)</dfn>
<dfn method for="Thing">make()</dfn>
<dfn attribute
  for="Thing">flag</dfn>
<table dfn-for="Thing"><tr><td><dfn>\[[slot]]</dfn></td></tr></table>
<dfn abstract-op noexport lt="[[Steps]]" for="Thing"
 >[[Steps]]()</dfn>
<h4 id="deeper">Deeper</h4>
<dfn abstract-op noexport lt="DoIt"
 id="do-it">DoIt(|x|)</dfn>
<dfn abstract-op noexport lt="Other">Other()</dfn>
"#;
    // The comment mentions `<dfn abstract-op` once more than is defined.
    let err = extract(src).unwrap_err();
    assert!(err.contains("extracted 3 abstract ops"), "{err}");
    let src = src.replace("<dfn abstract-op lt=\"Commented\">", "Commented");
    let map = extract(&src).expect("extract");
    assert_eq!(
        map.ops_tsv(),
        "id\tname\tsection\n\
         abstract-opdef-thing-steps\tThing.[[Steps]]\tsub\n\
         do-it\tDoIt\tdeeper\n\
         abstract-opdef-other\tOther\tdeeper\n"
    );
    assert_eq!(
        map.members_tsv(),
        "id\tinterface\tmember\tkind\n\
         thing\tThing\t\tinterface\n\
         dom-thing-thing\tThing\tconstructor\tconstructor\n\
         dom-thing-idlonly\tThing\tidlOnly\tmethod\n\
         thing-go\tThing\tgo\tmethod\n\
         dom-thing-make\tThing\tmake\tstatic method\n\
         dom-thing-flag\tThing\tflag\tattribute\n"
    );
    for anchor in [
        "top",
        "sub",
        "thing-slot",
        "dictdef-opts",
        "dom-opts-fast",
        "abstract-opdef-other",
    ] {
        assert!(map.anchors.contains(anchor), "{anchor}: {:?}", map.anchors);
    }
    let round = SpecMap::from_files(&map.ops_tsv(), &map.members_tsv(), &map.anchors_txt())
        .expect("round trip");
    assert_eq!(round.ops, map.ops);
    assert_eq!(round.members, map.members);
    assert_eq!(round.anchors, map.anchors);
}
