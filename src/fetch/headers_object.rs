//! The state and algorithms of a [`Headers`](https://fetch.spec.whatwg.org/#headers-class)
//! object, without the object: a header list and a guard, with the guard checks of its methods.
//! The JavaScript interface converts its arguments to byte sequences (WebIDL's `ByteString`) and
//! turns an error here into a `TypeError`.

use std::error::Error;
use std::fmt;

use super::headers::{
    is_forbidden_request_header, is_forbidden_response_header_name, is_header_name,
    is_header_value, is_no_cors_safelisted_request_header,
    is_no_cors_safelisted_request_header_name, is_privileged_no_cors_request_header_name,
    normalize, Header, HeaderList,
};

/// A `Headers` object's [guard](https://fetch.spec.whatwg.org/#concept-headers-guard).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Guard {
    Immutable,
    Request,
    RequestNoCors,
    Response,
    #[default]
    None,
}

/// Why a `Headers` operation throws a `TypeError`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeadersError {
    pub reason: &'static str,
}

impl fmt::Display for HeadersError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.reason)
    }
}

impl Error for HeadersError {}

fn type_error<T>(reason: &'static str) -> Result<T, HeadersError> {
    Err(HeadersError { reason })
}

/// A `Headers` object's [header list](https://fetch.spec.whatwg.org/#concept-headers-header-list)
/// and [guard](https://fetch.spec.whatwg.org/#concept-headers-guard).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Headers {
    pub header_list: HeaderList,
    pub guard: Guard,
}

impl Headers {
    /// Headers with an empty list and the given guard.
    pub fn new(guard: Guard) -> Self {
        Self {
            header_list: HeaderList::new(),
            guard,
        }
    }

    /// [Validate](https://fetch.spec.whatwg.org/#headers-validate) (`name`, `value`): an error
    /// where the spec throws, `Ok(false)` where it returns false (the header is ignored).
    pub fn validate(&self, name: &[u8], value: &[u8]) -> Result<bool, HeadersError> {
        // 1. If name is not a header name or value is not a header value, throw a TypeError.
        if !is_header_name(name) {
            return type_error("invalid header name");
        }
        if !is_header_value(value) {
            return type_error("invalid header value");
        }
        match self.guard {
            // 2. If headers's guard is "immutable", then throw a TypeError.
            Guard::Immutable => type_error("the headers are immutable"),
            // 3. If headers's guard is "request" and (name, value) is a forbidden
            //    request-header, then return false.
            Guard::Request if is_forbidden_request_header(name, value) => Ok(false),
            // 4. If headers's guard is "response" and name is a forbidden response-header
            //    name, then return false.
            Guard::Response if is_forbidden_response_header_name(name) => Ok(false),
            // 5. Return true.
            _ => Ok(true),
        }
    }

    /// [Append](https://fetch.spec.whatwg.org/#concept-headers-append) (`name`, `value`).
    pub fn append(&mut self, name: &[u8], value: &[u8]) -> Result<(), HeadersError> {
        // 1. Normalize value.
        let value = normalize(value);
        // 2. If validating (name, value) for headers returns false, then return.
        if !self.validate(name, value)? {
            return Ok(());
        }
        // 3. If headers's guard is "request-no-cors":
        if self.guard == Guard::RequestNoCors {
            // 1. Let temporaryValue be the result of getting name from the header list.
            // 2. If temporaryValue is null, set it to value.
            // 3. Otherwise, set it to temporaryValue, 0x2C 0x20, value.
            let temporary_value = match self.header_list.get(name) {
                None => value.to_vec(),
                Some(mut existing) => {
                    existing.extend_from_slice(b", ");
                    existing.extend_from_slice(value);
                    existing
                }
            };
            // 4. If (name, temporaryValue) is not a no-CORS-safelisted request-header, return.
            if !is_no_cors_safelisted_request_header(name, &temporary_value) {
                return Ok(());
            }
        }
        // 4. Append (name, value) to headers's header list.
        self.header_list.append((name.to_vec(), value.to_vec()));
        // 5. If headers's guard is "request-no-cors", remove privileged no-CORS
        //    request-headers from headers.
        if self.guard == Guard::RequestNoCors {
            self.remove_privileged_no_cors_request_headers();
        }
        Ok(())
    }

    /// [Fill](https://fetch.spec.whatwg.org/#concept-headers-fill) from a sequence of pairs or a
    /// record's entries: each item must have exactly two members (the interface's sequence case;
    /// a record's entries always do), and is appended.
    pub fn fill(&mut self, object: &[Vec<Vec<u8>>]) -> Result<(), HeadersError> {
        for header in object {
            // 1. If header's size is not 2, then throw a TypeError.
            let [name, value] = header.as_slice() else {
                return type_error("a header init item must be a name and a value");
            };
            // 2. Append (header[0], header[1]) to headers.
            self.append(name, value)?;
        }
        Ok(())
    }

    /// [Remove privileged no-CORS
    /// request-headers](https://fetch.spec.whatwg.org/#concept-headers-remove-privileged-no-cors-request-headers).
    pub fn remove_privileged_no_cors_request_headers(&mut self) {
        // 1. For each headerName of privileged no-CORS request-header names: delete headerName
        //    from headers's header list.
        self.header_list.delete(b"Range");
    }

    /// [`delete(name)`](https://fetch.spec.whatwg.org/#dom-headers-delete).
    pub fn delete(&mut self, name: &[u8]) -> Result<(), HeadersError> {
        // 1. If validating (name, ``) for this returns false, then return.
        if !self.validate(name, b"")? {
            return Ok(());
        }
        // 2. If this's guard is "request-no-cors", name is not a no-CORS-safelisted
        //    request-header name, and name is not a privileged no-CORS request-header name,
        //    then return.
        if self.guard == Guard::RequestNoCors
            && !is_no_cors_safelisted_request_header_name(name)
            && !is_privileged_no_cors_request_header_name(name)
        {
            return Ok(());
        }
        // 3. If this's header list does not contain name, then return.
        if !self.header_list.contains(name) {
            return Ok(());
        }
        // 4. Delete name from this's header list.
        self.header_list.delete(name);
        // 5. If this's guard is "request-no-cors", remove privileged no-CORS request-headers.
        if self.guard == Guard::RequestNoCors {
            self.remove_privileged_no_cors_request_headers();
        }
        Ok(())
    }

    /// [`get(name)`](https://fetch.spec.whatwg.org/#dom-headers-get).
    pub fn get(&self, name: &[u8]) -> Result<Option<Vec<u8>>, HeadersError> {
        // 1. If name is not a header name, then throw a TypeError.
        if !is_header_name(name) {
            return type_error("invalid header name");
        }
        // 2. Return the result of getting name from this's header list.
        Ok(self.header_list.get(name))
    }

    /// [`getSetCookie()`](https://fetch.spec.whatwg.org/#dom-headers-getsetcookie).
    pub fn get_set_cookie(&self) -> Vec<Vec<u8>> {
        // 1. If this's header list does not contain `Set-Cookie`, then return « ».
        // 2. Return the values of all headers whose name matches `Set-Cookie`, in order.
        self.header_list
            .headers()
            .iter()
            .filter(|(name, _)| name.eq_ignore_ascii_case(b"Set-Cookie"))
            .map(|(_, value)| value.clone())
            .collect()
    }

    /// [`has(name)`](https://fetch.spec.whatwg.org/#dom-headers-has).
    pub fn has(&self, name: &[u8]) -> Result<bool, HeadersError> {
        // 1. If name is not a header name, then throw a TypeError.
        if !is_header_name(name) {
            return type_error("invalid header name");
        }
        // 2. Return whether this's header list contains name.
        Ok(self.header_list.contains(name))
    }

    /// [`set(name, value)`](https://fetch.spec.whatwg.org/#dom-headers-set).
    pub fn set(&mut self, name: &[u8], value: &[u8]) -> Result<(), HeadersError> {
        // 1. Normalize value.
        let value = normalize(value);
        // 2. If validating (name, value) for this returns false, then return.
        if !self.validate(name, value)? {
            return Ok(());
        }
        // 3. If this's guard is "request-no-cors" and (name, value) is not a
        //    no-CORS-safelisted request-header, then return.
        if self.guard == Guard::RequestNoCors && !is_no_cors_safelisted_request_header(name, value)
        {
            return Ok(());
        }
        // 4. Set (name, value) in this's header list.
        self.header_list.set((name.to_vec(), value.to_vec()));
        // 5. If this's guard is "request-no-cors", remove privileged no-CORS request-headers.
        if self.guard == Guard::RequestNoCors {
            self.remove_privileged_no_cors_request_headers();
        }
        Ok(())
    }

    /// The [value pairs to iterate over](https://fetch.spec.whatwg.org/#concept-headers-iterate):
    /// the header list, sorted and combined.
    pub fn value_pairs_to_iterate_over(&self) -> Vec<Header> {
        self.header_list.sort_and_combine()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(list: &[(&str, &str)]) -> Vec<Header> {
        list.iter()
            .map(|(n, v)| (n.as_bytes().to_vec(), v.as_bytes().to_vec()))
            .collect()
    }

    #[test]
    fn invalid_names_and_values_throw() {
        let mut headers = Headers::new(Guard::None);
        assert!(headers.append(b"a b", b"v").is_err());
        assert!(headers.append(b"", b"v").is_err());
        assert!(headers.append(b"name", b"a\0b").is_err());
        assert!(headers.append(b"name", b"a\rb").is_err());
        assert!(headers.set(b"na:me", b"v").is_err());
        assert!(headers.get(b"a\xC4\x80").is_err());
        assert!(headers.has(b"{}").is_err());
        assert!(headers.delete(b"[object Object]").is_err());
        assert!(headers.fill(&[vec![b"name".to_vec()]]).is_err());
        assert!(headers
            .fill(&[vec![b"a".to_vec(), b"b".to_vec(), b"c".to_vec()]])
            .is_err());
        // A value with surrounding newlines is normalized first, so it is valid.
        headers.append(b"name", b"\r\n value \t").unwrap();
        assert_eq!(headers.get(b"NAME").unwrap(), Some(b"value".to_vec()));
    }

    #[test]
    fn immutable_headers_throw_on_change() {
        let mut headers = Headers::new(Guard::Immutable);
        assert!(headers.append(b"a", b"b").is_err());
        assert!(headers.set(b"a", b"b").is_err());
        assert!(headers.delete(b"a").is_err());
        assert_eq!(headers.get(b"a").unwrap(), None);
        assert!(!headers.has(b"a").unwrap());
    }

    #[test]
    fn request_guard_ignores_forbidden_request_headers() {
        // WPT fetch/api/request/request-headers.any.js: set then get.
        let mut headers = Headers::new(Guard::Request);
        for name in [
            "Content-Type",
            "Potato",
            "proxy",
            "proxya",
            "sec",
            "secb",
            "Set-Cookie2",
            "User-Agent",
        ] {
            headers.set(name.as_bytes(), b"OK").unwrap();
            assert_eq!(
                headers.get(name.as_bytes()).unwrap(),
                Some(b"OK".to_vec()),
                "{name}"
            );
        }
        for name in [
            "Accept-Charset",
            "Host",
            "Set-Cookie",
            "Proxy-",
            "sec-b",
            "Keep-Alive",
        ] {
            headers.set(name.as_bytes(), b"KO").unwrap();
            assert_eq!(headers.get(name.as_bytes()).unwrap(), None, "{name}");
        }
        // WPT fetch/api/headers/headers-forbidden-override.any.js.
        headers
            .append(b"X-HTTP-Method-Override", b"\ttrack")
            .unwrap();
        headers.append(b"x-method-override", b"GET,track ").unwrap();
        assert!(!headers.has(b"x-http-method-override").unwrap());
        assert!(!headers.has(b"x-method-override").unwrap());
        headers.append(b"x-http-method", b"\",TRACE\",").unwrap();
        assert_eq!(
            headers.get(b"x-http-method").unwrap(),
            Some(b"\",TRACE\",".to_vec())
        );
    }

    #[test]
    fn response_guard_ignores_set_cookie() {
        let mut headers = Headers::new(Guard::Response);
        headers.append(b"Set-Cookie", b"a=b").unwrap();
        headers.set(b"set-cookie2", b"a=b").unwrap();
        headers.append(b"Cookie", b"a=b").unwrap();
        assert_eq!(
            headers.header_list,
            HeaderList::from(pairs(&[("Cookie", "a=b")]))
        );
        // The response guard's delete of a forbidden name is a no-op, not an error.
        headers.delete(b"Set-Cookie").unwrap();
    }

    #[test]
    fn no_cors_guard_keeps_only_safelisted_values() {
        // WPT fetch/api/headers/headers-no-cors.any.js: append each value in turn, get the
        // first; set the joined values, get the first; delete; has is false.
        let long = "s".repeat(127);
        let long_type = format!("text/plain;{}", "s".repeat(116));
        let cases: Vec<(Vec<&str>, Vec<&str>)> = vec![
            (
                vec!["accept", "accept-language", "content-language"],
                vec![&long, "", &long],
            ),
            (
                vec!["accept", "accept-language", "content-language"],
                vec!["", &long],
            ),
            (vec!["content-type"], vec![&long_type, "text/plain"]),
        ];
        for (names, values) in &cases {
            for name in names {
                let mut headers = Headers::new(Guard::RequestNoCors);
                for value in values {
                    headers.append(name.as_bytes(), value.as_bytes()).unwrap();
                    assert_eq!(
                        headers.get(name.as_bytes()).unwrap(),
                        Some(values[0].as_bytes().to_vec()),
                        "{name} after appending {value:?}"
                    );
                }
                headers
                    .set(name.as_bytes(), values.join(", ").as_bytes())
                    .unwrap();
                assert_eq!(
                    headers.get(name.as_bytes()).unwrap(),
                    Some(values[0].as_bytes().to_vec())
                );
                headers.delete(name.as_bytes()).unwrap();
                assert!(!headers.has(name.as_bytes()).unwrap());
            }
        }
    }

    #[test]
    fn no_cors_guard_drops_range_and_ignores_other_deletes() {
        let mut headers = Headers::new(Guard::RequestNoCors);
        headers
            .header_list
            .append((b"Range".to_vec(), b"bytes=0-".to_vec()));
        headers
            .header_list
            .append((b"X-Other".to_vec(), b"1".to_vec()));
        headers.delete(b"x-other").unwrap();
        assert!(headers.has(b"x-other").unwrap());
        headers.append(b"Accept", b"*/*").unwrap();
        assert!(!headers.has(b"range").unwrap());
        headers.set(b"range", b"bytes=0-").unwrap();
        assert!(!headers.has(b"range").unwrap());
    }

    #[test]
    fn set_cookie_stays_apart_in_iteration() {
        // WPT fetch/api/headers/header-setcookie.any.js.
        let mut headers = Headers::new(Guard::None);
        headers
            .fill(&[
                vec![b"Set-Cookie".to_vec(), b"a".to_vec()],
                vec![b"X-Header".to_vec(), b"test".to_vec()],
                vec![b"set-cookie".to_vec(), b"b".to_vec()],
                vec![b"x-header".to_vec(), b"more".to_vec()],
            ])
            .unwrap();
        assert_eq!(headers.get_set_cookie(), vec![b"a".to_vec(), b"b".to_vec()]);
        assert_eq!(headers.get(b"set-cookie").unwrap(), Some(b"a, b".to_vec()));
        assert!(headers.has(b"sEt-cOoKiE").unwrap());
        assert_eq!(
            headers.value_pairs_to_iterate_over(),
            pairs(&[
                ("set-cookie", "a"),
                ("set-cookie", "b"),
                ("x-header", "test, more")
            ])
        );
        assert_eq!(Headers::default().get_set_cookie(), Vec::<Vec<u8>>::new());
    }
}
