//! The globals of a host realm: `console` and the timers (their own files), `self`, `gc()`,
//! the streams globals (`crate::register`), `performance`, `crypto`, `atob`/`btoa`, the
//! document's URL (`location`, the base URL), the window and the fetcher.

use crate::engine::{self, webidl, Cx, JsResult, PropertyDescriptor, Value};

/// The origin that `Response.url` reports and blob URLs carry (wptserve's default host and
/// port).
pub(super) const FETCH_ORIGIN: &str = "http://web-platform.test:8000";

/// Installs the globals of a host realm in the current realm.
pub(super) fn install_realm(options: &super::HostOptions, ctx: &mut Cx) -> JsResult<()> {
    install_host_globals(ctx)?;
    crate::register(ctx)?;
    install_after_streams(ctx)?;
    crate::file::set_blob_url_origin(ctx, FETCH_ORIGIN);
    // The document's base URL for relative URLs (the location, or wptserve's origin).
    let base = options
        .location
        .clone()
        .unwrap_or_else(|| format!("{FETCH_ORIGIN}/"));
    if !crate::fetch::urls::set_api_base_url(&base, ctx) {
        return Err(engine::throw_type_error(format!(
            "the host's location {base:?} is not a URL"
        )));
    }
    if let Some(location) = &options.location {
        install_location(location, ctx)?;
    }
    let fetcher: Option<crate::fetcher::SharedFetcher> =
        match (&options.fetcher, &options.fetch_root) {
            (Some(fetcher), _) => Some(fetcher.clone()),
            (None, Some(root)) => Some(std::sync::Arc::new(super::file_fetcher::FileFetcher {
                root: root.clone(),
            })),
            (None, None) => None,
        };
    if let Some(fetcher) = fetcher {
        crate::fetcher::set_fetcher(fetcher, ctx);
    }
    if options.window {
        crate::html::window::install_window(FETCH_ORIGIN, ctx)?;
    }
    Ok(())
}

/// The host globals installed before the streams: `console`, the timers and
/// `queueMicrotask`, `self` and `gc()`.
pub(super) fn install_host_globals(ctx: &mut Cx) -> JsResult<()> {
    super::console::install(ctx)?;
    super::timers::install(ctx)?;
    install_self_and_gc(ctx)
}

/// The host globals installed after the streams: `performance`, `crypto.getRandomValues`,
/// `atob` and `btoa`.
pub(super) fn install_after_streams(ctx: &mut Cx) -> JsResult<()> {
    super::performance::register(ctx)?;
    super::crypto::register(ctx)?;
    super::base64::register(ctx)
}

/// A global's own property that is neither a WebIDL operation nor an attribute: writable,
/// not enumerable, configurable.
pub(super) fn hidden(value: impl Into<Value>) -> PropertyDescriptor {
    PropertyDescriptor::builder()
        .value(value)
        .writable(true)
        .enumerable(false)
        .configurable(true)
        .build()
}

/// `self` (the global object: HTML's `self` is the WindowProxy / WorkerGlobalScope itself) and
/// `gc()` (a full collection, as WPT's common/gc.js expects from `self.gc`).
fn install_self_and_gc(ctx: &mut Cx) -> JsResult<()> {
    let global = engine::global_object(ctx);
    global.define_property_or_throw("self", hidden(global.clone()), ctx)?;
    let gc = webidl::function(ctx, "gc", 0, gc);
    global.define_property_or_throw("gc", hidden(gc), ctx)?;
    Ok(())
}

fn gc(_: &Value, _: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    engine::collect_garbage(ctx);
    Ok(Value::undefined())
}

traced! {
    data;
    /// The realm's document URL, as `location.toString()` returns it.
    struct LocationHref {
        href: String,
    }
}

/// `location`: a stand-in for HTML's `Location` object (`WorkerLocation`-like), with the
/// components of the document's URL (`href`, `origin`, `protocol`, `host`, `hostname`, `port`,
/// `pathname`, `search`, `hash`: read-only data properties) and `toString()`. `location` must
/// be an absolute URL.
fn install_location(location: &str, ctx: &mut Cx) -> JsResult<()> {
    use ::url::quirks;
    let url = ::url::Url::parse(location).map_err(|error| {
        engine::throw_type_error(format!("invalid location {location:?}: {error}"))
    })?;
    let object = engine::clone::new_plain_object(ctx);
    for (name, value) in [
        ("href", quirks::href(&url).to_owned()),
        ("origin", quirks::origin(&url)),
        ("protocol", quirks::protocol(&url).to_owned()),
        ("host", quirks::host(&url).to_owned()),
        ("hostname", quirks::hostname(&url).to_owned()),
        ("port", quirks::port(&url).to_owned()),
        ("pathname", quirks::pathname(&url).to_owned()),
        ("search", quirks::search(&url).to_owned()),
        ("hash", quirks::hash(&url).to_owned()),
    ] {
        object.define_property_or_throw(
            name,
            PropertyDescriptor::builder()
                .value(engine::JsString::from(value))
                .writable(false)
                .enumerable(true)
                .configurable(false),
            ctx,
        )?;
    }
    engine::set_realm_data(
        ctx,
        LocationHref {
            href: quirks::href(&url).to_owned(),
        },
    );
    let to_string = webidl::function(ctx, "toString", 0, location_to_string);
    object.define_property_or_throw(
        "toString",
        PropertyDescriptor::builder()
            .value(to_string)
            .writable(true)
            .enumerable(true)
            .configurable(true),
        ctx,
    )?;
    engine::global_object(ctx).define_property_or_throw("location", hidden(object), ctx)?;
    Ok(())
}

/// `location.toString()`: the document's URL (of the function's realm, which is current).
fn location_to_string(_: &Value, _: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let href =
        engine::with_realm_data::<LocationHref, _>(ctx, |l| l.href.clone()).unwrap_or_default();
    Ok(Value::from(engine::JsString::from(href)))
}
