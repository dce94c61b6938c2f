//! The `URL` interface: <https://url.spec.whatwg.org/#url-class>.

use std::cell::RefCell;

use ::url::quirks;

use super::search_params::{self, UrlSearchParams};
use crate::engine::{self, webidl, Cx, JsResult, JsString, Object, Slot, Value};

/// A URL record: the `url` crate's, which keeps it serialized.
type UrlRecord = ::url::Url;

traced! {
    data;
    /// <https://url.spec.whatwg.org/#url-class>
    pub(crate) struct Url {
        /// <https://url.spec.whatwg.org/#concept-url-url>
        #[unsafe_ignore_trace]
        url: RefCell<UrlRecord>,
        /// <https://url.spec.whatwg.org/#concept-url-query-object>: set by "initialize", right
        /// after the object is made.
        query_object: Slot<Option<Object<UrlSearchParams>>>,
    }
}

impl Url {
    fn new(url: UrlRecord) -> Self {
        Self {
            url: RefCell::new(url),
            query_object: Slot::new(None),
        }
    }

    /// This URL's query (`None` for null).
    pub(crate) fn query(&self) -> Option<String> {
        self.url.borrow().query().map(str::to_owned)
    }

    /// Sets this URL's query to `query` (already in the application/x-www-form-urlencoded
    /// serialization, which the query state leaves as it is), and, when it is null,
    /// potentially strips trailing spaces from an opaque path (the crate does that).
    pub(crate) fn set_query(&self, query: Option<&str>) {
        self.url.borrow_mut().set_query(query);
    }
}

impl webidl::ClassInterface for Url {
    const LENGTH: usize = 1;

    fn members(b: &mut webidl::InterfaceBuilder<'_, '_>) {
        b.static_operation("parse", 1, parse)
            .static_operation("canParse", 1, can_parse)
            .attribute("href", href, Some(set_href))
            .operation("toString", 0, href)
            .attribute("origin", origin, None)
            .attribute("protocol", protocol, Some(set_protocol))
            .attribute("username", username, Some(set_username))
            .attribute("password", password, Some(set_password))
            .attribute("host", host, Some(set_host))
            .attribute("hostname", hostname, Some(set_hostname))
            .attribute("port", port, Some(set_port))
            .attribute("pathname", pathname, Some(set_pathname))
            .attribute("search", search, Some(set_search))
            .attribute("searchParams", search_params, None)
            .attribute("hash", hash, Some(set_hash))
            .operation("toJSON", 0, href);
    }

    /// <https://url.spec.whatwg.org/#dom-url-url>
    fn construct(_: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Self> {
        webidl::require_args(args, 1, "URL", "constructor")?;
        let (url, base) = url_and_base(args, ctx)?;
        // 1. Let parsedURL be the result of running the API URL parser on url with base, if
        //    given.
        // 2. If parsedURL is failure, then throw a TypeError.
        let parsed = api_url_parser(&url, base.as_deref())
            .ok_or_else(|| engine::throw_type_error(format!("Invalid URL: {url:?}")))?;
        // 3. Initialize this with parsedURL (its first step here, the rest once the object
        //    exists: `constructed`).
        Ok(Self::new(parsed))
    }

    fn constructed(this: &Object<Self>, _: &[Value], ctx: &mut Cx) -> JsResult<()> {
        initialize(this, ctx)
    }
}

webidl::interface!(Url, "URL");

/// The `url` and optional `base` arguments, converted to `USVString`s in order (an undefined
/// `base` is a missing one).
fn url_and_base(args: &[Value], ctx: &mut Cx) -> JsResult<(String, Option<String>)> {
    let url = usv_string(&webidl::arg(args, 0), ctx)?;
    let base = webidl::arg(args, 1);
    let base = if base.is_undefined() {
        None
    } else {
        Some(usv_string(&base, ctx)?)
    };
    Ok((url, base))
}

/// A value converted to a `USVString`, as a Rust string (a `USVString` has no lone surrogate).
pub(super) fn usv_string(value: &Value, ctx: &mut Cx) -> JsResult<String> {
    Ok(webidl::to_usv_string(value, ctx)?.to_std_string_lossy())
}

/// <https://url.spec.whatwg.org/#api-url-parser>
fn api_url_parser(url: &str, base: Option<&str>) -> Option<UrlRecord> {
    // 1. Let parsedBase be null.
    // 2. If base is non-null: set parsedBase to the result of running the basic URL parser on
    //    base; if it is failure, then return failure.
    let parsed_base = match base {
        Some(base) => Some(UrlRecord::parse(base).ok()?),
        None => None,
    };
    // 3. Return the result of running the basic URL parser on url with parsedBase.
    UrlRecord::options()
        .base_url(parsed_base.as_ref())
        .parse(url)
        .ok()
}

/// <https://url.spec.whatwg.org/#url-initialize>, the steps after "set url's URL to
/// urlRecord" (which `construct` did).
fn initialize(url: &Object<Url>, ctx: &mut Cx) -> JsResult<()> {
    // 1. Let query be urlRecord's query, if that is non-null, and the empty string otherwise.
    let query = url.borrow().data().query().unwrap_or_default();
    // 3. Set url's query object to a new URLSearchParams object.
    // 4. Initialize url's query object with query.
    // 5. Set url's query object's URL object to url.
    let query_object = search_params::new_for_url(&query, url, ctx)?;
    *url.borrow().data().query_object.borrow_mut() = Some(query_object);
    Ok(())
}

/// <https://url.spec.whatwg.org/#dom-url-parse>
fn parse(_: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    webidl::require_args(args, 1, "URL", "parse")?;
    let (url, base) = url_and_base(args, ctx)?;
    // 1. Let parsedURL be the result of running the API URL parser on url with base, if given.
    // 2. If parsedURL is failure, then return null.
    let Some(parsed) = api_url_parser(&url, base.as_deref()) else {
        return Ok(Value::null());
    };
    // 3. Let url be a new URL object.
    // 4. Initialize url with parsedURL.
    let url = webidl::new_object(Url::new(parsed), ctx)?;
    initialize(&url, ctx)?;
    // 5. Return url.
    Ok(url.into())
}

/// <https://url.spec.whatwg.org/#dom-url-canparse>
fn can_parse(_: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    webidl::require_args(args, 1, "URL", "canParse")?;
    let (url, base) = url_and_base(args, ctx)?;
    // 1. Let parsedURL be the result of running the API URL parser on url with base, if given.
    // 2. If parsedURL is failure, then return false.
    // 3. Return true.
    Ok(api_url_parser(&url, base.as_deref()).is_some().into())
}

/// Reads a string out of this URL's record.
fn get(this: &Value, read: impl FnOnce(&UrlRecord) -> &str) -> JsResult<Value> {
    let this = webidl::this::<Url>(this)?;
    let string = JsString::from(read(&this.borrow().data().url.borrow()));
    Ok(string.into())
}

/// Converts a setter's value, then changes this URL's record with it.
fn set(
    this: &Value,
    args: &[Value],
    ctx: &mut Cx,
    change: impl FnOnce(&mut UrlRecord, &str),
) -> JsResult<Value> {
    let this = webidl::this::<Url>(this)?;
    let value = usv_string(&webidl::arg(args, 0), ctx)?;
    change(&mut this.borrow().data().url.borrow_mut(), &value);
    Ok(Value::undefined())
}

/// <https://url.spec.whatwg.org/#dom-url-href> (also `toString()` and `toJSON()`:
/// <https://url.spec.whatwg.org/#dom-url-tojson>): the serialization of this's URL.
fn href(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    get(this, quirks::href)
}

/// <https://url.spec.whatwg.org/#ref-for-dom-url-href②>: the href setter.
fn set_href(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let this = webidl::this::<Url>(this)?;
    let value = usv_string(&webidl::arg(args, 0), ctx)?;
    // 1. Let parsedURL be the result of running the basic URL parser on the given value.
    // 2. If parsedURL is failure, then throw a TypeError.
    let parsed = UrlRecord::parse(&value)
        .map_err(|_| engine::throw_type_error(format!("Invalid URL: {value:?}")))?;
    // 3. Set this's URL to parsedURL.
    let data = this.borrow();
    let data = data.data();
    *data.url.borrow_mut() = parsed;
    // 4. Empty this's query object's list.
    // 5. Let query be this's URL's query.
    // 6. If query is non-null, then set this's query object's list to the result of parsing
    //    query.
    let query = data.query();
    if let Some(query_object) = data.query_object.borrow().as_ref() {
        search_params::set_list_from_query(query_object, query.as_deref().unwrap_or(""));
    }
    Ok(Value::undefined())
}

/// <https://url.spec.whatwg.org/#dom-url-origin>: the serialization of this's URL's origin.
fn origin(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    let this = webidl::this::<Url>(this)?;
    let origin = url_origin(&this.borrow().data().url.borrow());
    Ok(JsString::from(origin).into())
}

/// <https://url.spec.whatwg.org/#concept-url-origin>, serialized (an opaque origin is "null").
fn url_origin(url: &UrlRecord) -> String {
    // The scheme's cases: "blob" here; "ftp", "http", "https", "ws", "wss" (a tuple origin),
    // "file" and the others (an opaque origin) as the url crate computes them.
    if url.scheme() != "blob" {
        return quirks::origin(url);
    }
    // 1. If url's blob URL entry is non-null, then return its environment's origin. (The blob
    //    URL store is the File API's, a layer above; a URL its `createObjectURL` made carries
    //    that origin in its path, which the steps below read.)
    // 2. Let pathURL be the result of parsing the result of URL path serializing url.
    // 3. If pathURL is failure, then return a new opaque origin.
    // 4. If pathURL's scheme is "http", "https", or "file", then return pathURL's origin.
    // 5. Return a new opaque origin.
    match UrlRecord::parse(url.path()) {
        Ok(path_url) if matches!(path_url.scheme(), "http" | "https" | "file") => {
            url_origin(&path_url)
        }
        _ => "null".to_owned(),
    }
}

/// <https://url.spec.whatwg.org/#dom-url-protocol>: this's URL's scheme, followed by ":".
fn protocol(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    get(this, quirks::protocol)
}

/// The protocol setter: basic URL parse the given value, followed by ":", with this's URL as
/// url and scheme start state as state override.
fn set_protocol(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    set(this, args, ctx, |url, value| {
        let _ = quirks::set_protocol(url, value);
    })
}

/// <https://url.spec.whatwg.org/#dom-url-username>: this's URL's username.
fn username(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    get(this, quirks::username)
}

/// The username setter: 1. If this's URL cannot have a username/password/port, then return.
/// 2. Set the username given this's URL and the given value.
fn set_username(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    set(this, args, ctx, |url, value| {
        let _ = quirks::set_username(url, value);
    })
}

/// <https://url.spec.whatwg.org/#dom-url-password>: this's URL's password.
fn password(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    get(this, quirks::password)
}

/// The password setter: 1. If this's URL cannot have a username/password/port, then return.
/// 2. Set the password given this's URL and the given value.
fn set_password(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    set(this, args, ctx, |url, value| {
        let _ = quirks::set_password(url, value);
    })
}

/// <https://url.spec.whatwg.org/#dom-url-host>: the empty string for a null host; the
/// serialized host, and ":" and the serialized port if the port is non-null.
fn host(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    get(this, quirks::host)
}

/// The host setter: 1. If this's URL has an opaque path, then return. 2. Basic URL parse the
/// given value with this's URL as url and host state as state override.
fn set_host(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    set(this, args, ctx, |url, value| {
        let _ = quirks::set_host(url, value);
    })
}

/// <https://url.spec.whatwg.org/#dom-url-hostname>: the serialized host, or the empty string.
fn hostname(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    get(this, quirks::hostname)
}

/// The hostname setter: 1. If this's URL has an opaque path, then return. 2. Basic URL parse
/// the given value with this's URL as url and hostname state as state override.
fn set_hostname(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    set(this, args, ctx, |url, value| {
        let _ = quirks::set_hostname(url, value);
    })
}

/// <https://url.spec.whatwg.org/#dom-url-port>: the serialized port, or the empty string.
fn port(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    get(this, quirks::port)
}

/// The port setter: 1. If this's URL cannot have a username/password/port, then return. 2. If
/// the given value is the empty string, then set this's URL's port to null. 3. Otherwise,
/// basic URL parse the given value with this's URL as url and port state as state override.
fn set_port(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    set(this, args, ctx, |url, value| {
        let _ = quirks::set_port(url, value);
    })
}

/// <https://url.spec.whatwg.org/#dom-url-pathname>: the result of URL path serializing this's
/// URL.
fn pathname(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    get(this, quirks::pathname)
}

/// The pathname setter: 1. If this's URL has an opaque path, then return. 2. Empty this's
/// URL's path. 3. Basic URL parse the given value with this's URL as url and path start state
/// as state override.
fn set_pathname(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    set(this, args, ctx, quirks::set_pathname)
}

/// <https://url.spec.whatwg.org/#dom-url-search>: the empty string if this's URL's query is
/// null or empty, else "?" followed by it.
fn search(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    get(this, quirks::search)
}

/// The search setter.
fn set_search(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let this = webidl::this::<Url>(this)?;
    let value = usv_string(&webidl::arg(args, 0), ctx)?;
    let data = this.borrow();
    let data = data.data();
    // 1. Let url be this's URL.
    // 2. If the given value is the empty string: set url's query to null, empty this's query
    //    object's list, potentially strip trailing spaces from an opaque path with this, and
    //    return.
    // 3. Let input be the given value with a single leading "?" removed, if any.
    // 4. Set url's query to the empty string.
    // 5. Basic URL parse input with url as url and query state as state override.
    quirks::set_search(&mut data.url.borrow_mut(), &value);
    // 6. Set this's query object's list to the result of parsing input.
    let input = value.strip_prefix('?').unwrap_or(&value);
    if let Some(query_object) = data.query_object.borrow().as_ref() {
        search_params::set_list_from_query(query_object, input);
    }
    Ok(Value::undefined())
}

/// <https://url.spec.whatwg.org/#dom-url-searchparams>: this's query object.
fn search_params(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    let this = webidl::this::<Url>(this)?;
    let query_object = this.borrow().data().query_object.borrow().clone();
    match query_object {
        Some(query_object) => Ok(query_object.into()),
        None => {
            debug_assert!(
                false,
                "Assert: a URL object's query object is set when it is made"
            );
            Ok(Value::null())
        }
    }
}

/// <https://url.spec.whatwg.org/#dom-url-hash>: the empty string if this's URL's fragment is
/// null or empty, else "#" followed by it.
fn hash(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    get(this, quirks::hash)
}

/// The hash setter: the empty string sets the fragment to null (and potentially strips
/// trailing spaces from an opaque path); otherwise, with a single leading "#" removed, the
/// fragment is set to the empty string and the input is basic URL parsed in fragment state.
fn set_hash(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    set(this, args, ctx, quirks::set_hash)
}
