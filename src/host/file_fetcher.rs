//! The host's file-serving fetcher (engine-free): what
//! `fetch()` of an `http:` or `https:` URL reads when the host has a fetch root.

use std::path::PathBuf;

use crate::fetch::fetcher::{FetchRequest, FetchResponse, Fetcher, IoBodyReader, ResponseBody};

/// The host's fetcher for the WPT root: serves `<root>/<path>` for `http:`/`https:` URLs the
/// way wptserve serves the WPT root (any host; the path decides), a 404 for a missing file.
/// The body is read 64 KiB at a time as the response's stream pulls.
#[derive(Debug)]
pub(crate) struct FileFetcher {
    pub(crate) root: PathBuf,
}

impl Fetcher for FileFetcher {
    fn fetch(&self, request: &FetchRequest) -> Result<FetchResponse, String> {
        let (path, _, segments) = resolve_url_path(&request.url)?;
        let mut file = self.root.clone();
        file.extend(&segments);
        let not_found = || FetchResponse {
            status: 404,
            status_text: "Not Found".to_owned(),
            headers: Vec::new(),
            url: None,
            body: ResponseBody::Bytes(b"404 Not Found".to_vec()),
        };
        if !file.is_file() {
            return Ok(not_found());
        }
        match std::fs::File::open(&file) {
            Ok(handle) => Ok(FetchResponse::ok(ResponseBody::Reader(Box::new(
                IoBodyReader::new(handle, 64 * 1024),
            )))),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(not_found()),
            Err(error) => Err(format!("cannot read {path}: {error}")),
        }
    }
}

/// Resolves `url` against the server root `/` and returns the normalized path (`/a/b`), the
/// query (`?x`, or empty), and the decoded path segments. The fragment is dropped; `.` and `..`
/// segments are resolved, and a `..` above the root is an error.
fn resolve_url_path(url: &str) -> Result<(String, String, Vec<String>), String> {
    let url = url.trim_matches(|c: char| c <= ' ');
    let url = url.split('#').next().unwrap_or_default();
    let (rest, query) = match url.find('?') {
        Some(index) => (&url[..index], &url[index..]),
        None => (url, ""),
    };
    let rest = rest.replace('\\', "/");

    // Drop `scheme://authority` or `//authority`; a path without a leading `/` is relative
    // to `/`.
    let scheme_len = rest
        .find(':')
        .filter(|&index| {
            let scheme = &rest[..index];
            scheme.starts_with(|c: char| c.is_ascii_alphabetic())
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        })
        .map(|index| index + 1);
    let after_scheme = match scheme_len {
        Some(len) => {
            let scheme = rest[..len - 1].to_ascii_lowercase();
            if scheme != "http" && scheme != "https" {
                return Err(format!("unsupported URL scheme in {url:?}"));
            }
            &rest[len..]
        }
        None => &rest[..],
    };
    let path = match after_scheme.strip_prefix("//") {
        Some(authority_and_path) => match authority_and_path.find('/') {
            Some(index) => &authority_and_path[index..],
            None => "/",
        },
        None if scheme_len.is_some() => return Err(format!("invalid URL {url:?}")),
        None => after_scheme,
    };

    let mut segments: Vec<String> = Vec::new();
    for raw in path.split('/').filter(|segment| !segment.is_empty()) {
        let segment = percent_decode(raw).ok_or_else(|| format!("invalid URL path {url:?}"))?;
        match segment.as_str() {
            "." => {}
            ".." => {
                if segments.pop().is_none() {
                    return Err(format!("{url:?} escapes the server root"));
                }
            }
            _ if segment.contains(['/', '\\', '\0']) => {
                return Err(format!("invalid URL path segment in {url:?}"));
            }
            _ => segments.push(segment),
        }
    }
    let mut normalized = String::from("/");
    normalized.push_str(&segments.join("/"));
    if path.ends_with('/') && !segments.is_empty() {
        normalized.push('/');
    }
    Ok((normalized, query.to_owned(), segments))
}

/// Decodes `%XX` escapes; `None` if an escape is malformed or the result is not UTF-8.
fn percent_decode(segment: &str) -> Option<String> {
    let bytes = segment.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        if bytes[index] == b'%' {
            let hex = segment.get(index + 1..index + 3)?;
            if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                return None;
            }
            decoded.push(u8::from_str_radix(hex, 16).ok()?);
            index += 3;
        } else {
            decoded.push(bytes[index]);
            index += 1;
        }
    }
    String::from_utf8(decoded).ok()
}

#[cfg(test)]
mod tests {
    use super::resolve_url_path;

    fn path(url: &str) -> Result<(String, String, Vec<String>), String> {
        resolve_url_path(url)
    }

    #[test]
    fn resolves_like_wptserve() {
        let (p, q, s) = path("/interfaces/streams.idl").unwrap();
        assert_eq!(p, "/interfaces/streams.idl");
        assert_eq!(q, "");
        assert_eq!(s, ["interfaces", "streams.idl"]);
        assert_eq!(
            path("interfaces/a.idl?x=1#h").unwrap().0,
            "/interfaces/a.idl"
        );
        assert_eq!(path("interfaces/a.idl?x=1#h").unwrap().1, "?x=1");
        assert_eq!(path("/a/./b/../c").unwrap().0, "/a/c");
        assert_eq!(
            path("http://web-platform.test:8000/a%20b").unwrap().2,
            ["a b"]
        );
        assert_eq!(path("//host/x").unwrap().0, "/x");
        assert_eq!(path("/a/%2e%2e/b").unwrap().0, "/b");
        assert!(path("/../etc/passwd").is_err());
        assert!(path("/a/../../x").is_err());
        assert!(path("a\\..\\..\\x").is_err());
        assert!(path("/a%2Fb").is_err());
        assert!(path("/a%zz").is_err());
        assert!(path("data:text/plain,hi").is_err());
        assert!(path("file:///etc/passwd").is_err());
    }
}
