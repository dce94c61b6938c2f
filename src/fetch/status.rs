//! The Fetch Standard's [statuses](https://fetch.spec.whatwg.org/#statuses) and the reason-phrase
//! check of a `Response`'s `statusText`.

/// Whether `status` is a [null body status](https://fetch.spec.whatwg.org/#null-body-status):
/// 101, 103, 204, 205 or 304.
pub fn is_null_body_status(status: u16) -> bool {
    matches!(status, 101 | 103 | 204 | 205 | 304)
}

/// Whether `status` is an [ok status](https://fetch.spec.whatwg.org/#ok-status): 200 to 299.
pub fn is_ok_status(status: u16) -> bool {
    (200..=299).contains(&status)
}

/// Whether `status` is a [redirect status](https://fetch.spec.whatwg.org/#redirect-status): 301,
/// 302, 303, 307 or 308.
pub fn is_redirect_status(status: u16) -> bool {
    matches!(status, 301 | 302 | 303 | 307 | 308)
}

/// Whether `status_text` matches the `reason-phrase` token production (RFC 9112 section 4:
/// `*( HTAB / SP / VCHAR / obs-text )`), which [initialize a
/// response](https://fetch.spec.whatwg.org/#initialize-a-response) step 2 requires of
/// `init["statusText"]` (it throws a `TypeError` otherwise). The empty string matches.
pub fn is_reason_phrase(status_text: &[u8]) -> bool {
    status_text
        .iter()
        .all(|&b| b == b'\t' || b == b' ' || (0x21..=0x7E).contains(&b) || b >= 0x80)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_classes() {
        for s in [101, 103, 204, 205, 304] {
            assert!(is_null_body_status(s), "{s}");
        }
        for s in [100, 200, 206, 301] {
            assert!(!is_null_body_status(s), "{s}");
        }
        assert!(is_ok_status(200) && is_ok_status(299));
        assert!(!is_ok_status(199) && !is_ok_status(300));
        for s in [301, 302, 303, 307, 308] {
            assert!(is_redirect_status(s), "{s}");
        }
        for s in [300, 304, 305, 306, 309] {
            assert!(!is_redirect_status(s), "{s}");
        }
    }

    #[test]
    fn reason_phrases() {
        assert!(is_reason_phrase(b""));
        assert!(is_reason_phrase(b"OK"));
        assert!(is_reason_phrase(b"Not\tFound \xA0\xFF"));
        assert!(!is_reason_phrase(b"a\rb"));
        assert!(!is_reason_phrase(b"a\nb"));
        assert!(!is_reason_phrase(b"\0"));
        assert!(!is_reason_phrase(b"\x7F"));
        assert!(!is_reason_phrase(b"\x1F"));
    }
}
