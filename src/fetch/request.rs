//! The `Request` interface (<https://fetch.spec.whatwg.org/#request-class>) and the request
//! record it wraps.

use std::{cell::RefCell, rc::Rc};

use crate::dom;
use crate::engine::{self, webidl, Cx, JsResult, JsString, Object, Slot, Value};

use super::{
    body::{self, Body, BodyMixin},
    headers::HeaderList,
    headers_interface::{self, HeadersInterface, SharedHeaders},
    headers_object::{Guard, Headers},
    idl::{to_byte_string, to_headers_init, HeadersInit},
    method::{is_forbidden_method, is_method, normalize_method},
    mime::MimeType,
    urls::parse_url,
};

/// Declares an IDL enumeration: its Rust enum, its values, and its conversion (an unknown
/// string is a `TypeError`).
macro_rules! idl_enum {
    ($(#[$meta:meta])* $name:ident { $($variant:ident = $value:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub(crate) enum $name { $($variant),+ }

        impl $name {
            #[allow(dead_code)] // not every enumeration has a getter
            pub(crate) fn as_str(self) -> &'static str {
                match self { $($name::$variant => $value),+ }
            }

            /// <https://webidl.spec.whatwg.org/#es-enumeration>
            fn convert(value: &Value, ctx: &mut Cx) -> JsResult<Self> {
                let s = value.to_string(ctx)?.to_std_string_lossy();
                match s.as_str() {
                    $($value => Ok($name::$variant),)+
                    _ => Err(engine::throw_type_error(format!(
                        "'{s}' is not a valid value of the enumeration {}",
                        stringify!($name)
                    ))),
                }
            }
        }
    };
}

idl_enum!(
    /// <https://fetch.spec.whatwg.org/#requestmode>
    RequestMode { Navigate = "navigate", SameOrigin = "same-origin", NoCors = "no-cors", Cors = "cors" }
);
idl_enum!(
    /// <https://fetch.spec.whatwg.org/#requestcredentials>
    RequestCredentials { Omit = "omit", SameOrigin = "same-origin", Include = "include" }
);
idl_enum!(
    /// <https://fetch.spec.whatwg.org/#requestcache>
    RequestCache {
        Default = "default", NoStore = "no-store", Reload = "reload", NoCache = "no-cache",
        ForceCache = "force-cache", OnlyIfCached = "only-if-cached",
    }
);
idl_enum!(
    /// <https://fetch.spec.whatwg.org/#requestredirect>
    RequestRedirect { Follow = "follow", Error = "error", Manual = "manual" }
);
idl_enum!(
    /// <https://fetch.spec.whatwg.org/#requestduplex>
    RequestDuplex { Half = "half" }
);
idl_enum!(
    /// <https://fetch.spec.whatwg.org/#requestpriority>
    RequestPriority { High = "high", Low = "low", Auto = "auto" }
);
idl_enum!(
    /// <https://w3c.github.io/webappsec-referrer-policy/#enumdef-referrerpolicy>
    ReferrerPolicy {
        Empty = "", NoReferrer = "no-referrer", NoReferrerWhenDowngrade = "no-referrer-when-downgrade",
        SameOrigin = "same-origin", Origin = "origin", StrictOrigin = "strict-origin",
        OriginWhenCrossOrigin = "origin-when-cross-origin",
        StrictOriginWhenCrossOrigin = "strict-origin-when-cross-origin", UnsafeUrl = "unsafe-url",
    }
);

/// <https://fetch.spec.whatwg.org/#concept-request-referrer> (the spec's names).
#[allow(clippy::enum_variant_names)]
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Referrer {
    NoReferrer,
    Client,
    Url(String),
}

traced! {
    /// <https://fetch.spec.whatwg.org/#concept-request>: the members a `Request` reads and
    /// `fetch()` hands to the fetcher.
    #[derive(Debug)]
    pub(crate) struct RequestRecord {
        #[unsafe_ignore_trace]
        pub(crate) method: Vec<u8>,
        /// The URL list, serialized (the current URL is the last).
        #[unsafe_ignore_trace]
        pub(crate) url_list: Vec<String>,
        #[unsafe_ignore_trace]
        pub(crate) headers: SharedHeaders,
        pub(crate) body: Option<Body>,
        #[unsafe_ignore_trace]
        pub(crate) referrer: Referrer,
        #[unsafe_ignore_trace]
        pub(crate) referrer_policy: ReferrerPolicy,
        #[unsafe_ignore_trace]
        pub(crate) mode: RequestMode,
        #[unsafe_ignore_trace]
        pub(crate) credentials: RequestCredentials,
        #[unsafe_ignore_trace]
        pub(crate) cache: RequestCache,
        #[unsafe_ignore_trace]
        pub(crate) redirect: RequestRedirect,
        #[unsafe_ignore_trace]
        pub(crate) integrity: String,
        #[unsafe_ignore_trace]
        pub(crate) keepalive: bool,
        #[unsafe_ignore_trace]
        pub(crate) reload_navigation: bool,
        #[unsafe_ignore_trace]
        pub(crate) history_navigation: bool,
        #[unsafe_ignore_trace]
        pub(crate) priority: RequestPriority,
        #[unsafe_ignore_trace]
        pub(crate) use_cors_preflight: bool,
    }
}

impl RequestRecord {
    /// A new request whose URL is `url`, with the spec's defaults.
    pub(crate) fn new(url: String) -> Self {
        Self {
            method: b"GET".to_vec(),
            url_list: vec![url],
            headers: Rc::new(RefCell::new(Headers::new(Guard::Request))),
            body: None,
            referrer: Referrer::Client,
            referrer_policy: ReferrerPolicy::Empty,
            mode: RequestMode::NoCors,
            credentials: RequestCredentials::SameOrigin,
            cache: RequestCache::Default,
            redirect: RequestRedirect::Follow,
            integrity: String::new(),
            keepalive: false,
            reload_navigation: false,
            history_navigation: false,
            priority: RequestPriority::Auto,
            use_cors_preflight: false,
        }
    }

    /// The request's URL (the first of its URL list).
    pub(crate) fn url(&self) -> &str {
        self.url_list.first().map_or("", String::as_str)
    }

    /// A copy of this record without its body, with a copy of the header list (`guard` for
    /// the new `Headers`).
    fn copy_without_body(&self, guard: Guard) -> Self {
        let mut headers = self.headers.borrow().clone();
        headers.guard = guard;
        Self {
            method: self.method.clone(),
            url_list: self.url_list.clone(),
            headers: Rc::new(RefCell::new(headers)),
            body: None,
            referrer: self.referrer.clone(),
            referrer_policy: self.referrer_policy,
            mode: self.mode,
            credentials: self.credentials,
            cache: self.cache,
            redirect: self.redirect,
            integrity: self.integrity.clone(),
            keepalive: self.keepalive,
            reload_navigation: self.reload_navigation,
            history_navigation: self.history_navigation,
            priority: self.priority,
            use_cors_preflight: self.use_cors_preflight,
        }
    }
}

traced! {
    data;
    /// <https://fetch.spec.whatwg.org/#request-class>
    #[derive(Debug)]
    pub(crate) struct Request {
        /// <https://fetch.spec.whatwg.org/#concept-request-request>
        request: Slot<RequestRecord>,
        /// <https://fetch.spec.whatwg.org/#request-headers>
        headers: Slot<Option<Object<HeadersInterface>>>,
        /// <https://fetch.spec.whatwg.org/#request-signal>
        signal: Slot<Option<Object>>,
    }
}

impl BodyMixin for Request {
    fn with_body<R>(this: &Object<Self>, f: impl FnOnce(&mut Option<Body>) -> R) -> R {
        f(&mut this.borrow().data().request.borrow_mut().body)
    }

    fn mime_type(this: &Object<Self>) -> Option<MimeType> {
        let headers = this.borrow().data().request.borrow().headers.clone();
        let headers = headers.borrow();
        super::mime::extract_a_mime_type(&headers.header_list)
    }
}

/// The converted `RequestInit` (<https://fetch.spec.whatwg.org/#requestinit>), its members read
/// in lexicographic order; `None` where a member does not exist.
#[derive(Default)]
struct RequestInit {
    /// `Some(None)`: the member exists and is null.
    body: Option<Option<body::BodyInit>>,
    cache: Option<RequestCache>,
    credentials: Option<RequestCredentials>,
    duplex: Option<RequestDuplex>,
    headers: Option<HeadersInit>,
    integrity: Option<String>,
    keepalive: Option<bool>,
    method: Option<Vec<u8>>,
    mode: Option<RequestMode>,
    priority: Option<RequestPriority>,
    redirect: Option<RequestRedirect>,
    referrer: Option<String>,
    referrer_policy: Option<ReferrerPolicy>,
    /// `Some(None)`: the member exists and is null.
    signal: Option<Option<Object>>,
    /// Whether `window` exists (it may only be null).
    window: bool,
    /// Whether any member exists ("init is not empty").
    not_empty: bool,
}

fn to_request_init(value: &Value, ctx: &mut Cx) -> JsResult<RequestInit> {
    let dict = webidl::dictionary(value, "The request init")?;
    let mut init = RequestInit::default();
    let member = |name: &str, ctx: &mut Cx| -> JsResult<Option<Value>> {
        let v = webidl::member(dict.as_ref(), name, ctx)?;
        Ok((!v.is_undefined()).then_some(v))
    };
    if let Some(v) = member("body", ctx)? {
        init.body = Some(if v.is_null() {
            None
        } else {
            Some(body::to_body_init(&v, ctx)?)
        });
    }
    if let Some(v) = member("cache", ctx)? {
        init.cache = Some(RequestCache::convert(&v, ctx)?);
    }
    if let Some(v) = member("credentials", ctx)? {
        init.credentials = Some(RequestCredentials::convert(&v, ctx)?);
    }
    if let Some(v) = member("duplex", ctx)? {
        init.duplex = Some(RequestDuplex::convert(&v, ctx)?);
    }
    if let Some(v) = member("headers", ctx)? {
        init.headers = Some(to_headers_init(&v, ctx)?);
    }
    if let Some(v) = member("integrity", ctx)? {
        init.integrity = Some(v.to_string(ctx)?.to_std_string_lossy());
    }
    if let Some(v) = member("keepalive", ctx)? {
        init.keepalive = Some(v.to_boolean());
    }
    if let Some(v) = member("method", ctx)? {
        init.method = Some(to_byte_string(&v, ctx)?);
    }
    if let Some(v) = member("mode", ctx)? {
        init.mode = Some(RequestMode::convert(&v, ctx)?);
    }
    if let Some(v) = member("priority", ctx)? {
        init.priority = Some(RequestPriority::convert(&v, ctx)?);
    }
    if let Some(v) = member("redirect", ctx)? {
        init.redirect = Some(RequestRedirect::convert(&v, ctx)?);
    }
    if let Some(v) = member("referrer", ctx)? {
        init.referrer = Some(v.to_string(ctx)?.to_std_string_lossy());
    }
    if let Some(v) = member("referrerPolicy", ctx)? {
        init.referrer_policy = Some(ReferrerPolicy::convert(&v, ctx)?);
    }
    if let Some(v) = member("signal", ctx)? {
        init.signal = Some(if v.is_null() {
            None
        } else if dom::is_abort_signal(&v) {
            v.as_object()
        } else {
            return Err(engine::throw_type_error(
                "The request init's signal is not an AbortSignal",
            ));
        });
    }
    if member("window", ctx)?.is_some() {
        init.window = true;
    }
    init.not_empty = init.body.is_some()
        || init.cache.is_some()
        || init.credentials.is_some()
        || init.duplex.is_some()
        || init.headers.is_some()
        || init.integrity.is_some()
        || init.keepalive.is_some()
        || init.method.is_some()
        || init.mode.is_some()
        || init.priority.is_some()
        || init.redirect.is_some()
        || init.referrer.is_some()
        || init.referrer_policy.is_some()
        || init.signal.is_some()
        || init.window;
    Ok(init)
}

/// A `RequestInfo` value: a `Request` object or a string.
enum RequestInfo {
    Request(Object<Request>),
    Url(JsString),
}

fn to_request_info(value: &Value, ctx: &mut Cx) -> JsResult<RequestInfo> {
    if let Some(request) = value.as_object().and_then(|o| o.downcast::<Request>().ok()) {
        return Ok(RequestInfo::Request(request));
    }
    // USVString (lone surrogates become U+FFFD when the URL is parsed from Rust's string).
    Ok(RequestInfo::Url(value.to_string(ctx)?))
}

/// Whether `method` is a CORS-safelisted method (`GET`, `HEAD` or `POST`).
fn is_cors_safelisted_method(method: &[u8]) -> bool {
    matches!(method, b"GET" | b"HEAD" | b"POST")
}

/// The new `Request`'s parts, before the object exists.
struct Constructed {
    request: RequestRecord,
    signals: Vec<Object>,
}

/// <https://fetch.spec.whatwg.org/#dom-request>, the steps up to the object: returns the
/// request (with its headers and body set) and the signals its signal depends on.
fn request_constructor_steps(
    input: RequestInfo,
    init: RequestInit,
    ctx: &mut Cx,
) -> JsResult<Constructed> {
    // 1. Let request be null. 2. Let fallbackMode be null. 3. Let baseURL be this's relevant
    //    settings object's API base URL. 4. Let signal be null.
    let mut fallback_mode = None;
    let mut signal: Option<Object> = None;
    let input_request;
    let mut request = match &input {
        // 5. If input is a string, then:
        RequestInfo::Url(url) => {
            // 5.1. Let parsedURL be the result of parsing input with baseURL.
            // 5.2. If parsedURL is failure, then throw a TypeError.
            let parsed = parse_url(&url.to_std_string_lossy(), ctx).ok_or_else(|| {
                engine::throw_type_error(format!(
                    "Request: '{}' is not a valid URL",
                    url.to_std_string_lossy()
                ))
            })?;
            // 5.3. If parsedURL includes credentials, then throw a TypeError.
            if !parsed.username().is_empty() || parsed.password().is_some() {
                return Err(engine::throw_type_error(
                    "Request: the URL includes credentials",
                ));
            }
            // 5.4. Set request to a new request whose URL is parsedURL.
            // 5.5. Set fallbackMode to "cors".
            fallback_mode = Some(RequestMode::Cors);
            input_request = None;
            RequestRecord::new(parsed.into())
        }
        // 6. Otherwise: 6.1. Assert: input is a Request object. 6.2. Set request to input's
        //    request. 6.3. Set signal to input's signal.
        RequestInfo::Request(object) => {
            signal = object.borrow().data().signal.borrow().clone();
            input_request = Some(object.clone());
            // 12. Set request to a new request with the listed members of request (the body
            //     comes later, from inputBody).
            object
                .borrow()
                .data()
                .request
                .borrow()
                .copy_without_body(Guard::Request)
        }
    };
    // 7.–9. origin and traversable for user prompts: this host has one client.
    // 10. If init["window"] exists and is non-null, then throw a TypeError. (Only null
    //     converts; anything else is not the IDL `any` null.)
    // 11. If init["window"] exists, then set traversableForUserPrompts to "no-traversable".
    // 13. If init is not empty, then:
    if init.not_empty {
        // 13.1. If request's mode is "navigate", then set it to "same-origin".
        if request.mode == RequestMode::Navigate {
            request.mode = RequestMode::SameOrigin;
        }
        // 13.2. Unset request's reload-navigation flag.
        request.reload_navigation = false;
        // 13.3. Unset request's history-navigation flag.
        request.history_navigation = false;
        // 13.4. Set request's origin to "client".
        // 13.5. Set request's referrer to "client".
        request.referrer = Referrer::Client;
        // 13.6. Set request's referrer policy to the empty string.
        request.referrer_policy = ReferrerPolicy::Empty;
        // 13.7. Set request's URL to request's current URL.
        // 13.8. Set request's URL list to « request's URL ».
        let current = request.url_list.last().cloned().unwrap_or_default();
        request.url_list = vec![current];
    }
    // 14. If init["referrer"] exists, then:
    if let Some(referrer) = &init.referrer {
        // 14.2. If referrer is the empty string, then set request's referrer to "no-referrer".
        if referrer.is_empty() {
            request.referrer = Referrer::NoReferrer;
        } else {
            // 14.3.1. Let parsedReferrer be the result of parsing referrer with baseURL.
            // 14.3.2. If parsedReferrer is failure, then throw a TypeError.
            let parsed = parse_url(referrer, ctx).ok_or_else(|| {
                engine::throw_type_error(format!(
                    "Request: '{referrer}' is not a valid referrer URL"
                ))
            })?;
            // 14.3.3. If one of the following is true: parsedReferrer's scheme is "about" and
            //         path is the string "client"; parsedReferrer's origin is not same origin
            //         with origin; then set request's referrer to "client".
            // 14.3.4. Otherwise, set request's referrer to parsedReferrer.
            let client_origin = parse_url("/", ctx).map(|u| u.origin());
            let is_about_client = parsed.scheme() == "about" && parsed.path() == "client";
            request.referrer =
                if is_about_client || client_origin.as_ref() != Some(&parsed.origin()) {
                    Referrer::Client
                } else {
                    Referrer::Url(parsed.into())
                };
        }
    }
    // 15. If init["referrerPolicy"] exists, then set request's referrer policy to it.
    if let Some(policy) = init.referrer_policy {
        request.referrer_policy = policy;
    }
    // 16. Let mode be init["mode"] if it exists, and fallbackMode otherwise.
    let mode = init.mode.or(fallback_mode);
    // 17. If mode is "navigate", then throw a TypeError.
    if mode == Some(RequestMode::Navigate) {
        return Err(engine::throw_type_error(
            "Request: the mode cannot be 'navigate'",
        ));
    }
    // 18. If mode is non-null, set request's mode to mode.
    if let Some(mode) = mode {
        request.mode = mode;
    }
    // 19. If init["credentials"] exists, then set request's credentials mode to it.
    if let Some(credentials) = init.credentials {
        request.credentials = credentials;
    }
    // 20. If init["cache"] exists, then set request's cache mode to it.
    if let Some(cache) = init.cache {
        request.cache = cache;
    }
    // 21. If request's cache mode is "only-if-cached" and request's mode is not
    //     "same-origin", then throw a TypeError.
    if request.cache == RequestCache::OnlyIfCached && request.mode != RequestMode::SameOrigin {
        return Err(engine::throw_type_error(
            "Request: 'only-if-cached' needs the mode 'same-origin'",
        ));
    }
    // 22. If init["redirect"] exists, then set request's redirect mode to it.
    if let Some(redirect) = init.redirect {
        request.redirect = redirect;
    }
    // 23. If init["integrity"] exists, then set request's integrity metadata to it.
    if let Some(integrity) = init.integrity {
        request.integrity = integrity;
    }
    // 24. If init["keepalive"] exists, then set request's keepalive to it.
    if let Some(keepalive) = init.keepalive {
        request.keepalive = keepalive;
    }
    // 25. If init["method"] exists, then:
    if let Some(method) = &init.method {
        // 25.2. If method is not a method or method is a forbidden method, then throw a
        //       TypeError.
        if !is_method(method) || is_forbidden_method(method) {
            return Err(engine::throw_type_error(format!(
                "Request: '{}' is not a valid method",
                String::from_utf8_lossy(method)
            )));
        }
        // 25.3. Normalize method. 25.4. Set request's method to method.
        request.method = normalize_method(method);
    }
    // 26. If init["signal"] exists, then set signal to it.
    if let Some(init_signal) = init.signal {
        signal = init_signal;
    }
    // 27. If init["priority"] exists, then set request's priority to it.
    if let Some(priority) = init.priority {
        request.priority = priority;
    }
    // 29. Let signals be « signal » if signal is non-null; otherwise « ».
    let signals: Vec<Object> = signal.into_iter().collect();
    // 31. This's headers: a new Headers whose header list is request's header list and guard
    //     is "request".
    request.headers.borrow_mut().guard = Guard::Request;
    // 32. If this's request's mode is "no-cors", then:
    if request.mode == RequestMode::NoCors {
        // 32.1. If this's request's method is not a CORS-safelisted method, then throw a
        //       TypeError.
        if !is_cors_safelisted_method(&request.method) {
            return Err(engine::throw_type_error(format!(
                "Request: '{}' is not a CORS-safelisted method, which the mode 'no-cors' needs",
                String::from_utf8_lossy(&request.method)
            )));
        }
        // 32.2. Set this's headers's guard to "request-no-cors".
        request.headers.borrow_mut().guard = Guard::RequestNoCors;
    }
    // 33. If init is not empty, then:
    if init.not_empty {
        // 33.1. Let headers be a copy of this's headers and its associated header list.
        // 33.2. If init["headers"] exists, then set headers to init["headers"].
        let headers: HeadersInit = match init.headers {
            Some(headers) => headers,
            None => HeadersInit::Sequence(
                request
                    .headers
                    .borrow()
                    .header_list
                    .headers()
                    .iter()
                    .map(|(n, v)| vec![n.clone(), v.clone()])
                    .collect(),
            ),
        };
        // 33.3. Empty this's headers's header list.
        request.headers.borrow_mut().header_list = HeaderList::new();
        // 33.4. If headers is a Headers object, then for each header of its header list,
        //       append header to this's headers. 33.5. Otherwise, fill this's headers with
        //       headers. (A Headers object converts as a sequence of its pairs.)
        headers_interface::fill(&mut request.headers.borrow_mut(), headers)?;
    }
    // 34. Let inputBody be input's request's body if input is a Request object; otherwise
    //     null.
    let input_body = match &input_request {
        Some(object) => Request::made_body(object, ctx)?,
        None => None,
    };
    // 35. If either init["body"] exists and is non-null or inputBody is non-null, and
    //     request's method is `GET` or `HEAD`, then throw a TypeError.
    let init_body_given = matches!(init.body, Some(Some(_)));
    if (init_body_given || input_body.is_some())
        && matches!(request.method.as_slice(), b"GET" | b"HEAD")
    {
        return Err(engine::throw_type_error(
            "Request: a GET or HEAD request cannot have a body",
        ));
    }
    // 36. Let initBody be null.
    // 37. If init["body"] exists and is non-null, then:
    let init_body = match init.body {
        Some(Some(body)) => {
            // 37.1. Let bodyWithType be the result of extracting init["body"], with keepalive
            //       set to request's keepalive.
            if request.keepalive && matches!(body, body::BodyInit::Stream(_)) {
                return Err(engine::throw_type_error(
                    "Request: a keepalive request cannot have a stream body",
                ));
            }
            let (body, type_) = body::extract(body, ctx)?;
            // 37.4. If type is non-null and this's headers's header list does not contain
            //       `Content-Type`, then append (`Content-Type`, type) to this's headers.
            if let Some(type_) = type_ {
                let mut headers = request.headers.borrow_mut();
                if !headers.header_list.contains(b"Content-Type") {
                    headers
                        .append(b"Content-Type", &type_)
                        .map_err(|e| engine::throw_type_error(format!("Headers: {e}")))?;
                }
            }
            Some(body)
        }
        _ => None,
    };
    // 38. Let inputOrInitBody be initBody if it is non-null; otherwise inputBody.
    let input_or_init_body = init_body.clone().or_else(|| input_body.clone());
    // 39. If inputOrInitBody is non-null and inputOrInitBody's source is null, then:
    if let Some(body) = &input_or_init_body {
        if body.source.is_none() {
            // 39.1. If initBody is non-null and init["duplex"] does not exist, then throw a
            //       TypeError.
            if init_body.is_some() && init.duplex.is_none() {
                return Err(engine::throw_type_error(
                    "Request: a stream body needs duplex: 'half'",
                ));
            }
            // 39.2. If this's request's mode is neither "same-origin" nor "cors", then throw
            //       a TypeError.
            if !matches!(request.mode, RequestMode::SameOrigin | RequestMode::Cors) {
                return Err(engine::throw_type_error(
                    "Request: a stream body needs the mode 'same-origin' or 'cors'",
                ));
            }
            // 39.3. Set this's request's use-CORS-preflight flag.
            request.use_cors_preflight = true;
        }
    }
    // 40. Let finalBody be inputOrInitBody.
    let mut final_body = input_or_init_body;
    // 41. If initBody is null and inputBody is non-null, then:
    if init_body.is_none() {
        if let Some(input_body) = &input_body {
            // 41.1. If input is unusable, then throw a TypeError.
            if body::is_unusable(Some(input_body)) {
                return Err(engine::throw_type_error(
                    "Request: the input request's body has already been used",
                ));
            }
            // 41.2. Set finalBody to the result of creating a proxy for inputBody.
            let proxy = crate::transform::other_specs::create_a_proxy(input_body.stream()?, ctx)?;
            let mut proxy_body = Body::of_stream(proxy, input_body.length);
            proxy_body.source.clone_from(&input_body.source);
            final_body = Some(proxy_body);
        }
    }
    // 42. Set this's request's body to finalBody.
    request.body = final_body;
    Ok(Constructed { request, signals })
}

impl webidl::ClassInterface for Request {
    const LENGTH: usize = 1;

    fn members(b: &mut webidl::InterfaceBuilder<'_, '_>) {
        b.attribute("method", get_method, None);
        b.attribute("url", get_url, None);
        b.attribute("headers", get_headers, None);
        b.attribute("destination", get_destination, None);
        b.attribute("referrer", get_referrer, None);
        b.attribute("referrerPolicy", get_referrer_policy, None);
        b.attribute("mode", get_mode, None);
        b.attribute("credentials", get_credentials, None);
        b.attribute("cache", get_cache, None);
        b.attribute("redirect", get_redirect, None);
        b.attribute("integrity", get_integrity, None);
        b.attribute("keepalive", get_keepalive, None);
        b.attribute("isReloadNavigation", get_is_reload_navigation, None);
        b.attribute("isHistoryNavigation", get_is_history_navigation, None);
        b.attribute("signal", get_signal, None);
        b.attribute("duplex", get_duplex, None);
        b.operation("clone", 0, clone);
        body::define_body_mixin::<Self>(b);
    }

    /// <https://fetch.spec.whatwg.org/#dom-request>
    fn construct(_: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Self> {
        webidl::require_args(args, 1, "Request", "constructor")?;
        let input = to_request_info(&webidl::arg(args, 0), ctx)?;
        let init = to_request_init(&webidl::arg(args, 1), ctx)?;
        if init.window {
            // 10. A non-null window is a TypeError (a null one passes).
            let window = webidl::dictionary(&webidl::arg(args, 1), "The request init")?;
            if !webidl::member(window.as_ref(), "window", ctx)?.is_null() {
                return Err(engine::throw_type_error(
                    "Request: init.window must be null",
                ));
            }
        }
        let Constructed { request, signals } = request_constructor_steps(input, init, ctx)?;
        // 30. Set this's signal to the result of creating a dependent abort signal from
        //     signals, using AbortSignal and this's relevant realm.
        let signal = dom::create_dependent_signal(&signals, ctx)?;
        Ok(Self {
            request: Slot::new(request),
            headers: Slot::new(None),
            signal: Slot::new(Some(signal)),
        })
    }

    fn constructed(this: &Object<Self>, _: &[Value], ctx: &mut Cx) -> JsResult<()> {
        // 31. Set this's headers to a new Headers object with this's relevant realm, whose
        //     header list is request's header list.
        let shared = this.borrow().data().request.borrow().headers.clone();
        let headers = headers_interface::new_headers_object(shared, ctx)?;
        *this.borrow().data().headers.borrow_mut() = Some(headers);
        Ok(())
    }
}

webidl::interface!(Request, "Request");

/// <https://fetch.spec.whatwg.org/#request-create>: a `Request` object for `request`, with
/// `signal`, in the current realm.
pub(crate) fn create_request(
    request: RequestRecord,
    signal: Object,
    ctx: &mut Cx,
) -> JsResult<Object<Request>> {
    let shared = request.headers.clone();
    let object = webidl::new_object(
        Request {
            request: Slot::new(request),
            headers: Slot::new(None),
            signal: Slot::new(Some(signal)),
        },
        ctx,
    )?;
    let headers = headers_interface::new_headers_object(shared, ctx)?;
    *object.borrow().data().headers.borrow_mut() = Some(headers);
    Ok(object)
}

/// Runs `f` on the request record of `this` (a `Request`, brand-checked).
fn with_request<R>(this: &Value, f: impl FnOnce(&RequestRecord) -> R) -> JsResult<R> {
    let this = webidl::this::<Request>(this)?;
    let data = this.borrow();
    let request = data.data().request.borrow();
    Ok(f(&request))
}

fn string(s: &str) -> Value {
    JsString::from(s).into()
}

/// <https://fetch.spec.whatwg.org/#dom-request-method>
fn get_method(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    with_request(this, |r| headers_interface::byte_string_value(&r.method))
}

/// <https://fetch.spec.whatwg.org/#dom-request-url>
fn get_url(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    with_request(this, |r| string(r.url()))
}

/// <https://fetch.spec.whatwg.org/#dom-request-headers>
fn get_headers(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    let this = webidl::this::<Request>(this)?;
    let headers = this.borrow().data().headers.borrow().clone();
    Ok(headers.map_or_else(Value::null, Into::into))
}

/// <https://fetch.spec.whatwg.org/#dom-request-destination>: `fetch()` requests have the
/// empty destination.
fn get_destination(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    with_request(this, |_| string(""))
}

/// <https://fetch.spec.whatwg.org/#dom-request-referrer>
fn get_referrer(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    with_request(this, |r| match &r.referrer {
        // 1. If this's request's referrer is "no-referrer", then return the empty string.
        Referrer::NoReferrer => string(""),
        // 2. If this's request's referrer is "client", then return "about:client".
        Referrer::Client => string("about:client"),
        // 3. Return this's request's referrer, serialized.
        Referrer::Url(url) => string(url),
    })
}

/// <https://fetch.spec.whatwg.org/#dom-request-referrerpolicy>
fn get_referrer_policy(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    with_request(this, |r| string(r.referrer_policy.as_str()))
}

/// <https://fetch.spec.whatwg.org/#dom-request-mode>
fn get_mode(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    with_request(this, |r| string(r.mode.as_str()))
}

/// <https://fetch.spec.whatwg.org/#dom-request-credentials>
fn get_credentials(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    with_request(this, |r| string(r.credentials.as_str()))
}

/// <https://fetch.spec.whatwg.org/#dom-request-cache>
fn get_cache(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    with_request(this, |r| string(r.cache.as_str()))
}

/// <https://fetch.spec.whatwg.org/#dom-request-redirect>
fn get_redirect(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    with_request(this, |r| string(r.redirect.as_str()))
}

/// <https://fetch.spec.whatwg.org/#dom-request-integrity>
fn get_integrity(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    with_request(this, |r| string(&r.integrity))
}

/// <https://fetch.spec.whatwg.org/#dom-request-keepalive>
fn get_keepalive(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    with_request(this, |r| r.keepalive.into())
}

/// <https://fetch.spec.whatwg.org/#dom-request-isreloadnavigation>
fn get_is_reload_navigation(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    with_request(this, |r| r.reload_navigation.into())
}

/// <https://fetch.spec.whatwg.org/#dom-request-ishistorynavigation>
fn get_is_history_navigation(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    with_request(this, |r| r.history_navigation.into())
}

/// <https://fetch.spec.whatwg.org/#dom-request-signal>
fn get_signal(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    let this = webidl::this::<Request>(this)?;
    let signal = this.borrow().data().signal.borrow().clone();
    Ok(signal.map_or_else(Value::null, Into::into))
}

/// <https://fetch.spec.whatwg.org/#dom-request-duplex>
fn get_duplex(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    with_request(this, |_| string("half"))
}

/// <https://fetch.spec.whatwg.org/#dom-request-clone>
fn clone(this: &Value, _: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let this = webidl::this::<Request>(this)?;
    // 1. If this is unusable, then throw a TypeError.
    if body::is_unusable(Request::body(&this).as_ref()) {
        return Err(engine::throw_type_error(
            "Request.clone: the body has already been used",
        ));
    }
    // 2. Let clonedRequest be the result of cloning this's request.
    let guard = this.borrow().data().request.borrow().headers.borrow().guard;
    let mut body = Request::made_body(&this, ctx)?;
    let cloned_body = match body.as_mut() {
        Some(body) => Some(body::clone_body(body, ctx)?),
        None => None,
    };
    let mut cloned = {
        let data = this.borrow();
        let mut request = data.data().request.borrow_mut();
        request.body = body;
        request.copy_without_body(guard)
    };
    cloned.body = cloned_body;
    // 3. Assert: this's signal is non-null.
    // 4. Let clonedSignal be the result of creating a dependent abort signal from « this's
    //    signal », using AbortSignal and this's relevant realm.
    let signal: Vec<Object> = this
        .borrow()
        .data()
        .signal
        .borrow()
        .clone()
        .into_iter()
        .collect();
    let cloned_signal = dom::create_dependent_signal(&signal, ctx)?;
    // 5. Let clonedRequestObject be the result of creating a Request object, given
    //    clonedRequest, this's headers's guard, clonedSignal and this's relevant realm.
    // 6. Return clonedRequestObject.
    Ok(create_request(cloned, cloned_signal, ctx)?.into())
}

/// The request record of a `Request` object (for `fetch()`): a copy without the body, and the
/// body (its stream made).
pub(crate) fn request_parts(
    object: &Object<Request>,
    ctx: &mut Cx,
) -> JsResult<(RequestRecord, Option<Body>, Option<Object>)> {
    let body = Request::made_body(object, ctx)?;
    let signal = object.borrow().data().signal.borrow().clone();
    let guard = object
        .borrow()
        .data()
        .request
        .borrow()
        .headers
        .borrow()
        .guard;
    let copy = object
        .borrow()
        .data()
        .request
        .borrow()
        .copy_without_body(guard);
    Ok((copy, body, signal))
}
