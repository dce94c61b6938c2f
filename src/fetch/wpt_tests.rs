//! Checks against the data files of the WPT subset (`$WPT_ROOT`, by default `/work/shared/wpt`)
//! that Rust can read. A missing file is skipped with a note.
//!
//! The subset holds one such file for this module: `fetch/api/cors/resources/not-cors-safelisted.json`
//! (the (name, value) pairs that `headers-no-cors.any.js` must not see in a no-CORS `Headers`).
//! WPT's other data files for these algorithms (`fetch/data-urls/resources/*.json`,
//! `mimesniff/mime-types/resources/*.json`, `url/resources/urlencoded*.json`) are not in the subset;
//! the unit tests carry cases of their kind instead.

use std::path::PathBuf;

use super::headers::is_no_cors_safelisted_request_header;
use super::headers_object::{Guard, Headers};

/// A JSON value, as far as these files need it.
#[derive(Debug)]
enum Json {
    Array(Vec<Json>),
    String(String),
    Other,
}

/// A small JSON reader for test data (arrays and strings; other values are read and kept as
/// `Other`). Panics on malformed JSON: it only reads WPT's files.
struct Reader<'a> {
    chars: std::iter::Peekable<std::str::Chars<'a>>,
}

impl Reader<'_> {
    fn skip_whitespace(&mut self) {
        while self.chars.peek().is_some_and(|c| c.is_whitespace()) {
            self.chars.next();
        }
    }

    fn value(&mut self) -> Json {
        self.skip_whitespace();
        match self.chars.peek() {
            Some('[') => {
                self.chars.next();
                let mut items = Vec::new();
                loop {
                    self.skip_whitespace();
                    if self.chars.peek() == Some(&']') {
                        self.chars.next();
                        return Json::Array(items);
                    }
                    items.push(self.value());
                    self.skip_whitespace();
                    match self.chars.next() {
                        Some(',') => {}
                        Some(']') => return Json::Array(items),
                        other => panic!("JSON: expected , or ] but found {other:?}"),
                    }
                }
            }
            Some('"') => {
                self.chars.next();
                Json::String(self.string())
            }
            Some(_) => {
                while self
                    .chars
                    .peek()
                    .is_some_and(|c| !matches!(c, ',' | ']' | '}'))
                {
                    self.chars.next();
                }
                Json::Other
            }
            None => panic!("JSON: unexpected end"),
        }
    }

    fn string(&mut self) -> String {
        let mut units: Vec<u16> = Vec::new();
        loop {
            match self.chars.next().expect("JSON: unterminated string") {
                '"' => return String::from_utf16(&units).expect("JSON: lone surrogate"),
                '\\' => {
                    let escaped = self.chars.next().expect("JSON: bad escape");
                    let c = match escaped {
                        'n' => '\n',
                        'r' => '\r',
                        't' => '\t',
                        'b' => '\u{8}',
                        'f' => '\u{C}',
                        'u' => {
                            let hex: String = (0..4).filter_map(|_| self.chars.next()).collect();
                            units.push(u16::from_str_radix(&hex, 16).expect("JSON: \\u"));
                            continue;
                        }
                        c => c,
                    };
                    units.extend(c.encode_utf16(&mut [0; 2]).iter());
                }
                c => units.extend(c.encode_utf16(&mut [0; 2]).iter()),
            }
        }
    }
}

/// The parsed JSON file at `relative` under the WPT root, or `None` (with a note) if absent.
fn wpt_json(relative: &str) -> Option<Json> {
    let root = std::env::var_os("WPT_ROOT")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/work/shared/wpt"));
    let path = root.join(relative);
    let Ok(text) = std::fs::read_to_string(&path) else {
        println!("skipped: {} is absent", path.display());
        return None;
    };
    Some(
        Reader {
            chars: text.chars().peekable(),
        }
        .value(),
    )
}

fn strings(json: &Json) -> Vec<&str> {
    match json {
        Json::Array(items) => items
            .iter()
            .map(|item| match item {
                Json::String(s) => s.as_str(),
                other => panic!("expected a string, found {other:?}"),
            })
            .collect(),
        other => panic!("expected an array, found {other:?}"),
    }
}

#[test]
fn the_json_reader_reads_escapes() {
    let json = Reader {
        chars: r#"[["a\"\\\u0001\u00e9\ud83d\ude00", "b"], [], 1]"#
            .chars()
            .peekable(),
    }
    .value();
    let Json::Array(items) = json else {
        panic!("an array")
    };
    assert_eq!(strings(&items[0]), ["a\"\\\u{1}é😀", "b"]);
    assert!(strings(&items[1]).is_empty());
    assert!(matches!(items[2], Json::Other));
}

/// `fetch/api/cors/resources/not-cors-safelisted.json`, as `headers-no-cors.any.js` uses it:
/// appending or setting each pair on an empty no-CORS `Headers` must leave it without the name
/// (so no pair is a no-CORS-safelisted request-header); the test's extra pairs (client hints and
/// an unknown name) too.
#[test]
fn wpt_not_cors_safelisted_json() {
    let Some(json) = wpt_json("fetch/api/cors/resources/not-cors-safelisted.json") else {
        return;
    };
    let Json::Array(cases) = json else {
        panic!("the file is an array")
    };
    let mut checked = 0;
    let extra = [
        ["dpr", "2"],
        ["rtt", "1.0"],
        ["downlink", "-1.0"],
        ["ect", "6g"],
        ["save-data", "on"],
        ["viewport-width", "100"],
        ["width", "100"],
        ["unknown", "doesitmatter"],
    ];
    let pairs: Vec<Vec<&str>> = cases
        .iter()
        .map(strings)
        .chain(extra.iter().map(|p| p.to_vec()))
        .collect();
    for pair in &pairs {
        let [name, value] = pair.as_slice() else {
            panic!("a pair: {pair:?}")
        };
        // The values are isomorphic-encoded ByteStrings in the IDL conversion.
        let value: Vec<u8> = value.chars().map(|c| c as u8).collect();
        assert!(
            !is_no_cors_safelisted_request_header(name.as_bytes(), &value),
            "{name}: {value:?} must not be no-CORS-safelisted"
        );
        // What the JS test does: append, then set, on a no-CORS Headers; neither adds it.
        let mut headers = Headers::new(Guard::RequestNoCors);
        headers
            .append(name.as_bytes(), &value)
            .expect("a valid header");
        assert!(
            !headers.has(name.as_bytes()).expect("a valid name"),
            "{name} appended"
        );
        headers
            .set(name.as_bytes(), &value)
            .expect("a valid header");
        assert!(
            !headers.has(name.as_bytes()).expect("a valid name"),
            "{name} set"
        );
        checked += 1;
    }
    println!(
        "not-cors-safelisted.json: {} file cases and {} extra, all pass",
        cases.len(),
        extra.len()
    );
    assert_eq!(checked, cases.len() + extra.len());
    assert!(cases.len() >= 11, "the file has its 11 cases");
}
