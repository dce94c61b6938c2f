//! The engine-free groundwork of the Fetch layer: the data algorithms of the Fetch Standard
//! (headers, statuses, methods, the `data:` URL processor, `formData()`'s parsing), the MIME
//! Sniffing Standard (MIME type records), the URL Standard (percent-encoding and
//! application/x-www-form-urlencoded), Infra (forgiving-base64) and HTML (the
//! multipart/form-data encoding algorithm), as plain Rust over bytes and strings.
//!
//! Nothing here names the JavaScript engine or another module of this crate; the `Headers`,
//! `Request`, `Response`, `FormData` and `URLSearchParams` interfaces will be built on it.
//! Failure is `None` (or an error value), never a panic.

pub mod data_url;
pub mod headers;
pub mod headers_object;
pub mod http;
pub mod infra;
pub mod method;
pub mod mime;
pub mod multipart;
pub mod status;
pub mod urlencoded;

#[cfg(test)]
mod wpt_tests;
