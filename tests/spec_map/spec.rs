//! The spec map's data: an extractor of the Streams Standard's Bikeshed source (`streams.bs`)
//! into the abstract operations, interface members and anchors committed in `spec/` (see
//! `spec/README.md`), and a scanner of the Rust files under `src/` for the spec links they
//! contain and the operations their functions claim. `main.rs` next to this file holds the
//! checks; only the `spec_map` test binary compiles this module.
//!
//! The spec source is `$STREAMS_SPEC`, or `../shared/spec/streams.bs` relative to the crate
//! root; without it the checks run from the committed files.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::fmt::Write as _;
use std::fs;
use std::path::PathBuf;

use crate::support::{crate_root, rust_files};

pub const SPEC_URL: &str = "https://streams.spec.whatwg.org/#";
pub const OPS_FILE: &str = "spec/abstract-ops.tsv";
pub const MEMBERS_FILE: &str = "spec/interfaces.tsv";
pub const ANCHORS_FILE: &str = "spec/anchors.txt";
const OPS_HEADER: &str = "id\tname\tsection";
const MEMBERS_HEADER: &str = "id\tinterface\tmember\tkind";

// ---------------------------------------------------------------------------------------------
// The map
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AbstractOp {
    pub id: String,
    pub name: String,
    pub section: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    pub id: String,
    pub interface: String,
    /// Empty for the row of the interface itself.
    pub member: String,
    pub kind: String,
}

#[derive(Debug, Default)]
pub struct SpecMap {
    pub ops: Vec<AbstractOp>,
    pub members: Vec<Member>,
    pub anchors: BTreeSet<String>,
}

impl SpecMap {
    pub fn ops_tsv(&self) -> String {
        let mut out = format!("{OPS_HEADER}\n");
        for op in &self.ops {
            let _ = writeln!(out, "{}\t{}\t{}", op.id, op.name, op.section);
        }
        out
    }

    pub fn members_tsv(&self) -> String {
        let mut out = format!("{MEMBERS_HEADER}\n");
        for m in &self.members {
            let _ = writeln!(out, "{}\t{}\t{}\t{}", m.id, m.interface, m.member, m.kind);
        }
        out
    }

    pub fn anchors_txt(&self) -> String {
        let mut out = String::new();
        for a in &self.anchors {
            out.push_str(a);
            out.push('\n');
        }
        out
    }

    /// Parses the committed files.
    pub fn from_files(ops: &str, members: &str, anchors: &str) -> Result<SpecMap, String> {
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

    pub fn op_ids(&self) -> BTreeMap<&str, &AbstractOp> {
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
pub fn simplify(text: &str) -> String {
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

pub fn extract(src: &str) -> Result<SpecMap, String> {
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
pub struct Link {
    pub id: String,
    pub line: usize,
}

/// A function and the spec ids linked from its `///` doc comment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocumentedFn {
    pub name: String,
    pub line: usize,
    pub ids: Vec<String>,
}

#[derive(Debug, Default, PartialEq, Eq)]
pub struct Scan {
    pub links: Vec<Link>,
    pub fns: Vec<DocumentedFn>,
}

pub fn links_in(text: &str) -> Vec<String> {
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
pub fn fn_decl_name(line: &str) -> Option<String> {
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
pub fn scan_rust(src: &str) -> Scan {
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

/// (display path, scan) for every `.rs` file under `src/`.
pub fn scan_src() -> Vec<(String, Scan)> {
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

/// The spec source, if available. `$STREAMS_SPEC` must exist when set.
pub fn spec_source() -> Option<(PathBuf, String)> {
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

/// The committed files in `spec/`.
pub fn read_committed() -> SpecMap {
    let root = crate_root();
    let read = |rel: &str| {
        fs::read_to_string(root.join(rel)).unwrap_or_else(|e| panic!("reading {rel}: {e}"))
    };
    SpecMap::from_files(&read(OPS_FILE), &read(MEMBERS_FILE), &read(ANCHORS_FILE))
        .unwrap_or_else(|e| panic!("committed spec map: {e}"))
}

/// A fresh extraction when the spec source is there (in sync with the committed files unless
/// `spec_map_files_match_the_spec` fails), the committed files otherwise.
pub fn load_map() -> SpecMap {
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

/// Whether `UPDATE_SPEC_MAP=1` asks for the files in `spec/` to be rewritten.
pub fn updating() -> bool {
    std::env::var("UPDATE_SPEC_MAP").is_ok_and(|v| v == "1")
}

// ---------------------------------------------------------------------------------------------
// The code against the map
// ---------------------------------------------------------------------------------------------

/// For each abstract-op id: the functions claiming it, as (file, line, fn name).
pub fn claims(map: &SpecMap) -> BTreeMap<String, Vec<(String, usize, String)>> {
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

/// The snake_case form of an abstract operation's name, as the function that implements it is
/// named: `ReadableStreamPipeTo` → `readable_stream_pipe_to`,
/// `WritableStreamDefaultController.[[AbortSteps]]` →
/// `writable_stream_default_controller_abort_steps`.
pub fn snake_case(op: &str) -> String {
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
