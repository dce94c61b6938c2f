//! The URL Standard (<https://url.spec.whatwg.org/>): its API, `URL` and `URLSearchParams`,
//! and the algorithms other standards reach for, plain Rust over strings and bytes:
//! percent-encoding and the application/x-www-form-urlencoded parser and serializer
//! (`urlencoded`).
//!
//! The URL parser itself (the basic URL parser with its state overrides, host parsing with
//! IDNA, serialization) is the `url` crate's, the standard's own Rust implementation (Servo's);
//! `URL`'s members are its `quirks` functions, which are the API's getters and setters.

mod interface;
mod search_params;
// The percent-encode sets and helpers beyond what `URLSearchParams` uses are for the clients
// above (fetch's `data:` URL processor and form data, not yet wired to an interface).
#[allow(dead_code)]
pub mod urlencoded;

pub(crate) use interface::Url;
pub(crate) use search_params::UrlSearchParams;

use crate::engine::{webidl, Cx, JsResult};

/// Installs `URL` and `URLSearchParams` in the current realm.
pub(crate) fn register(ctx: &mut Cx) -> JsResult<()> {
    webidl::register_interface::<Url>(ctx)?;
    webidl::register_interface::<UrlSearchParams>(ctx)?;
    Ok(())
}
