//! The Fetch Standard's [methods](https://fetch.spec.whatwg.org/#methods).

use super::http::is_token;

/// Whether `method` is a [method](https://fetch.spec.whatwg.org/#concept-method): it matches the
/// `method` token production.
pub fn is_method(method: &[u8]) -> bool {
    is_token(method)
}

/// Whether `method` is a [forbidden method](https://fetch.spec.whatwg.org/#forbidden-method): a
/// byte-case-insensitive match for `CONNECT`, `TRACE` or `TRACK`.
pub fn is_forbidden_method(method: &[u8]) -> bool {
    [&b"CONNECT"[..], b"TRACE", b"TRACK"]
        .iter()
        .any(|m| method.eq_ignore_ascii_case(m))
}

/// [Normalize](https://fetch.spec.whatwg.org/#concept-method-normalize) a method: byte-uppercase
/// it if it is a byte-case-insensitive match for `DELETE`, `GET`, `HEAD`, `OPTIONS`, `POST` or
/// `PUT`; leave it as it is otherwise.
pub fn normalize_method(method: &[u8]) -> Vec<u8> {
    const NORMALIZED: [&[u8]; 6] = [b"DELETE", b"GET", b"HEAD", b"OPTIONS", b"POST", b"PUT"];
    match NORMALIZED.iter().find(|m| method.eq_ignore_ascii_case(m)) {
        Some(m) => m.to_vec(),
        None => method.to_vec(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn methods_are_tokens() {
        assert!(is_method(b"GET"));
        assert!(is_method(b"M-SEARCH"));
        assert!(is_method(b"patch"));
        assert!(!is_method(b""));
        assert!(!is_method(b"GET "));
        assert!(!is_method(b"G(T"));
        assert!(!is_method(b"G\xC3\xA9T"));
    }

    #[test]
    fn forbidden_methods_ignore_case() {
        for m in ["CONNECT", "trace", "TrAcK"] {
            assert!(is_forbidden_method(m.as_bytes()), "{m}");
        }
        for m in ["GET", "TRACES", "CONNECT ", ""] {
            assert!(!is_forbidden_method(m.as_bytes()), "{m}");
        }
    }

    #[test]
    fn normalize_uppercases_only_the_six_methods() {
        assert_eq!(normalize_method(b"get"), b"GET");
        assert_eq!(normalize_method(b"Delete"), b"DELETE");
        assert_eq!(normalize_method(b"options"), b"OPTIONS");
        assert_eq!(normalize_method(b"head"), b"HEAD");
        assert_eq!(normalize_method(b"post"), b"POST");
        assert_eq!(normalize_method(b"pUt"), b"PUT");
        // `patch` is not normalized (a famous footgun, kept as the spec has it).
        assert_eq!(normalize_method(b"patch"), b"patch");
        assert_eq!(normalize_method(b"gets"), b"gets");
    }
}
