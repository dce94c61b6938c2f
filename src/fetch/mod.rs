//! The engine-free groundwork of the Fetch layer: the data algorithms of the Fetch Standard
//! (headers, statuses, methods, the `data:` URL processor, `formData()`'s parsing), the MIME
//! Sniffing Standard (MIME type records), Infra (forgiving-base64) and HTML (the
//! multipart/form-data encoding algorithm), as plain Rust over bytes and strings. The URL
//! Standard's percent-encoding and application/x-www-form-urlencoded are `crate::url`'s.
//!
//! Those data modules name neither the JavaScript engine nor another layer but `url`:
//! failure is `None` (or an error value), never a panic. The interfaces are built on them:
//! `Headers` (`headers_interface.rs`), the `Body` mixin and bodies (`body.rs`, whose streams
//! are set up on the Streams Standard's "other specifications" API) and `Response`
//! (`response.rs`), with their WebIDL conversions in `idl.rs`.

pub(crate) mod body;
#[allow(dead_code)] // the data algorithms: not all have a caller yet
pub mod data_url;
pub(crate) mod fetch_method;
pub mod fetcher;
pub(crate) mod form_data;
#[allow(dead_code)] // the data algorithms: not all have a caller yet
pub mod headers;
pub(crate) mod headers_interface;
#[allow(dead_code)] // the data algorithms: not all have a caller yet
pub mod headers_object;
#[allow(dead_code)] // the data algorithms: not all have a caller yet
pub mod http;
pub(crate) mod idl;
#[allow(dead_code)] // the data algorithms: not all have a caller yet
pub mod infra;
#[allow(dead_code)] // the data algorithms: not all have a caller yet
pub mod method;
#[allow(dead_code)] // the data algorithms: not all have a caller yet
pub mod mime;
#[allow(dead_code)] // the data algorithms: not all have a caller yet
pub mod multipart;
#[cfg(feature = "http")]
pub(crate) mod native;
pub(crate) mod request;
pub(crate) mod response;
#[allow(dead_code)] // the data algorithms: not all have a caller yet
pub mod status;
pub(crate) mod urls;

use crate::engine::{webidl, Cx, JsResult};

/// Installs `FormData`, `Headers`, `Request`, `Response` and `fetch()` in the current realm.
pub(crate) fn register(ctx: &mut Cx) -> JsResult<()> {
    crate::engine::remember_json_intrinsics(ctx);
    webidl::register_interface::<form_data::FormData>(ctx)?;
    webidl::register_interface::<headers_interface::HeadersInterface>(ctx)?;
    webidl::register_interface::<request::Request>(ctx)?;
    webidl::register_interface::<response::Response>(ctx)?;
    // `fetch(input, init)`: a WebIDL operation of WindowOrWorkerGlobalScope (writable,
    // enumerable, configurable), replacing any earlier one.
    webidl::define_global_operation("fetch", 1, fetch_method::fetch, ctx)?;
    Ok(())
}

#[cfg(test)]
mod wpt_tests;

#[cfg(test)]
mod no_panic_tests {
    //! Every parser on many random inputs made of the bytes they treat specially: none panics.

    use super::{data_url, headers, headers_object, infra, mime, multipart};
    use crate::url::urlencoded;

    /// A deterministic xorshift generator.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        fn bytes(&mut self) -> Vec<u8> {
            const ALPHABET: &[u8] = b"\t\n\r \"%,-/:;=\\+abBXy0Fz9\x00\x7F\x80\xC3\xA9\xFF";
            let length = (self.next() % 48) as usize;
            (0..length)
                .map(|_| ALPHABET[(self.next() % ALPHABET.len() as u64) as usize])
                .collect()
        }
    }

    #[test]
    fn parsers_do_not_panic_on_random_input() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        for _ in 0..20_000 {
            let bytes = rng.bytes();
            let text = String::from_utf8_lossy(&bytes).into_owned();
            let _ = infra::forgiving_base64_decode(&bytes);
            let _ = headers::get_decode_and_split_value(&bytes);
            let _ = headers::is_forbidden_request_header(b"x-http-method", &bytes);
            let _ = headers::is_cors_safelisted_request_header(b"content-type", &bytes);
            let _ = headers::parse_a_single_range_header_value(&bytes, true);
            let _ = mime::parse_a_mime_type_from_bytes(&bytes);
            let _ = urlencoded::application_x_www_form_urlencoded_parser(&bytes);
            let _ = data_url::data_url_processor(&format!("data:{text}"));
            let mut list =
                headers::HeaderList::from(vec![(b"Content-Type".to_vec(), bytes.clone())]);
            let _ = mime::extract_a_mime_type(&list);
            list.combine((b"content-type".to_vec(), bytes.clone()));
            let mut object = headers_object::Headers::new(headers_object::Guard::RequestNoCors);
            let _ = object.append(&bytes, &bytes);
            let _ = object.set(b"Accept", &bytes);
            let _ = object.delete(&bytes);
            let mut body = b"--B\r\nContent-Disposition: form-data; name=\"".to_vec();
            body.extend_from_slice(&bytes);
            let _ = multipart::parse_a_multipart_form_data_body(&body, b"B");
            let _ = multipart::parse_a_multipart_form_data_body(&bytes, b"B");
            let name = String::from_utf8_lossy(&bytes);
            let entry = multipart::Entry::string(&name, &name);
            if let Ok(encoded) = multipart::multipart_form_data_encoding_algorithm(&[entry], "B") {
                assert!(multipart::parse_a_multipart_form_data_body(&encoded, b"B").is_ok());
            }
        }
    }
}
