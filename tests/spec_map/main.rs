//! The spec map: which abstract operations and interface members the Streams Standard defines,
//! and which of them the code in `src/` claims to implement. The extractor of streams.bs and
//! the scanner of `src/` are [`spec`] (`spec.rs` next to this file, compiled into this test
//! binary only); this file holds the checks.
//!
//! Data (committed in `spec/`, see `spec/README.md`):
//! - `spec/abstract-ops.tsv`: every `<dfn abstract-op>` of streams.bs (`id`, `name`, `section`);
//! - `spec/interfaces.tsv`: IDL interfaces and their constructors, methods and attributes;
//! - `spec/anchors.txt`: every anchor id the rendered spec has that can be computed from the
//!   source (explicit `id="..."` attributes plus the ids Bikeshed generates for definitions).
//!
//! The spec source is `$STREAMS_SPEC`, or `../shared/spec/streams.bs` relative to the crate
//! root. With `UPDATE_SPEC_MAP=1` the test rewrites the files in `spec/`; otherwise it asserts
//! they equal a fresh extraction. Without the spec source that comparison is skipped and the
//! code checks run from the committed files.
//!
//! Code checks, over every `.rs` file under `src/`:
//! - each `https://streams.spec.whatwg.org/#ID` link names an existing anchor;
//! - an abstract operation is claimed (its link is in the `///` doc comment of a `fn`) by at most
//!   one function, and that function is named as the operation (its snake_case);
//! - completeness: `N of M abstract operations implemented`, and the test fails unless every
//!   abstract operation has its function.

#[path = "../support/mod.rs"]
mod support;

mod spec;

use std::collections::HashSet;
use std::fs;

use spec::{
    claims, extract, fn_decl_name, links_in, load_map, read_committed, scan_rust, scan_src,
    simplify, snake_case, spec_source, updating, AbstractOp, SpecMap, ANCHORS_FILE, MEMBERS_FILE,
    OPS_FILE,
};
use support::crate_root;

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

#[test]
fn abstract_ops_claimed_at_most_once() {
    let map = load_map();
    let ops = map.op_ids();
    let mut dupes = Vec::new();
    for (id, claimants) in claims(&map) {
        // Each engine backend implements the engine API's operations: the QuickJS backend
        // (`src/engine/quickjs/`) may claim an operation the Boa one claims too, once.
        let quickjs = claimants
            .iter()
            .filter(|(file, _, _)| file.starts_with("src/engine/quickjs/"))
            .count();
        if quickjs > 1 || claimants.len() - quickjs > 1 {
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
    let missing: Vec<String> = missing
        .iter()
        .map(|op| format!("  {} (#{}, in #{})", op.name, op.id, op.section))
        .collect();
    // Every abstract operation has its function: one whose `///` doc comment links the
    // operation's anchor (a link on an `impl` block or anywhere else claims nothing).
    assert!(
        missing.is_empty(),
        "{} abstract operations have no function:\n{}",
        missing.len(),
        missing.join("\n")
    );
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
