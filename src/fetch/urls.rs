//! URL parsing for the Fetch interfaces: the URL Standard's parser (the `url` crate) against
//! the current settings object's API base URL, which the embedder gives per realm
//! ([`set_api_base_url`]; without one, only absolute URLs parse).

use crate::engine::{self, Cx};

traced! {
    data;
    /// The current realm's API base URL, serialized.
    #[derive(Debug)]
    struct ApiBaseUrl(String);
}

/// Sets the current realm's API base URL (the document's or worker's URL): relative URLs given
/// to `Request`, `Response.redirect()` and `fetch()` resolve against it. `false` if `base` is
/// not an absolute URL.
pub fn set_api_base_url(base: &str, ctx: &mut Cx) -> bool {
    match url::Url::parse(base) {
        Ok(url) => {
            engine::set_realm_data(ctx, ApiBaseUrl(url.into()));
            true
        }
        Err(_) => false,
    }
}

/// <https://url.spec.whatwg.org/#concept-url-parser> on `input` with the current settings
/// object's API base URL; `None` is failure.
pub(crate) fn parse_url(input: &str, ctx: &Cx) -> Option<url::Url> {
    let base = engine::with_realm_data(ctx, |b: &ApiBaseUrl| url::Url::parse(&b.0).ok()).flatten();
    url::Url::options()
        .base_url(base.as_ref())
        .parse(input)
        .ok()
}
