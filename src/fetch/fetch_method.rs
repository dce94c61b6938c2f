//! The `fetch()` method (<https://fetch.spec.whatwg.org/#fetch-method>) over the embedder's
//! [`Fetcher`](super::fetcher::Fetcher), with `data:` URLs handled here. The response body's
//! stream pulls from the fetcher's [`BodyReader`](super::fetcher::BodyReader) one chunk at a
//! time (see `fetcher.rs`).

use std::{
    cell::{Cell, RefCell},
    rc::Rc,
    sync::Arc,
};

use crate::dom;
use crate::engine::{
    self, webidl, Cx, JsResult, Object, PromiseCapability, PromiseResult, Slot, Value,
};
use crate::readable::{
    other_specs::{self, ByteSequence, NativeSource, NativeUnderlyingSource, ReadAllBytesSteps},
    ReadableStream,
};

use super::{
    body::{self, Body},
    data_url::data_url_processor,
    fetcher::{
        AbortFetch, BodyReader, DeferredFetcher, FetchRequest, FetchResponse, Responder,
        ResponseBody, SharedFetcher, StreamBody,
    },
    headers::parse_a_single_range_header_value,
    headers_object::Guard,
    mime::serialize_a_mime_type,
    request::{request_parts, Request, RequestRecord, RequestRedirect},
    response::{create_response, Response, ResponseRecord, ResponseType},
};

traced! {
    data;
    /// The current realm's fetcher.
    struct RealmFetcher(#[unsafe_ignore_trace] SharedFetcher);
}

/// Sets the current realm's fetcher.
pub(crate) fn set_fetcher(fetcher: SharedFetcher, ctx: &mut Cx) {
    engine::set_realm_data(ctx, RealmFetcher(fetcher));
}

traced! {
    data;
    /// The current realm's deferred fetcher.
    struct RealmDeferredFetcher(#[unsafe_ignore_trace] Rc<dyn DeferredFetcher>);
}

/// Sets the current realm's deferred fetcher.
pub(crate) fn set_deferred_fetcher(fetcher: Rc<dyn DeferredFetcher>, ctx: &mut Cx) {
    engine::set_realm_data(ctx, RealmDeferredFetcher(fetcher));
}

traced! {
    data;
    /// One `fetch()` call: its promise, the request's body, the response object once there is
    /// one, and whether the call was aborted.
    struct FetchCall {
        promise: PromiseCapability,
        request_body: Option<Body>,
        response_object: Slot<Option<Object<Response>>>,
        /// The response body's source, whose reader an abort drops.
        body_source: Slot<Option<Object<FetchBodySource>>>,
        #[unsafe_ignore_trace]
        locally_aborted: Cell<bool>,
        /// What stops a deferred fetcher's work in progress.
        #[unsafe_ignore_trace]
        abort_work: RefCell<Option<AbortFetch>>,
        signal: Object,
        /// What HTTP-redirect fetch needs of the request.
        #[unsafe_ignore_trace]
        redirects: RefCell<RedirectState>,
    }
}

/// The request's members HTTP-redirect fetch reads and updates
/// (<https://fetch.spec.whatwg.org/#http-redirect-fetch>).
#[derive(Debug, Default)]
struct RedirectState {
    /// The request's redirect mode.
    mode: Option<RequestRedirect>,
    /// The request's redirect count.
    count: u32,
    /// The request's URL list (the current URL last).
    url_list: Vec<String>,
    /// The request's body's source, when it has one (bytes: a redirect can send them again).
    body_source: Option<Arc<[u8]>>,
    /// Whether the request's body is non-null with a null source (a stream).
    body_is_stream: bool,
}

/// `fetch(input, init)` (<https://fetch.spec.whatwg.org/#dom-global-fetch>).
pub(crate) fn fetch(_: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    // 1. Let p be a new promise.
    let p = PromiseCapability::new(ctx);
    // 2. Let requestObject be the result of invoking the initial value of Request as
    //    constructor with input and init as arguments. If this throws an exception, reject p
    //    with it and return p.
    let request_object = match new_request(args, ctx) {
        Ok(object) => object,
        Err(e) => {
            let e = engine::thrown_value(e, ctx)?;
            p.reject(e, ctx)?;
            return Ok(p.promise().clone().into());
        }
    };
    // 3. Let request be requestObject's request.
    let (request, request_body, signal) = request_parts(&request_object, ctx)?;
    let Some(signal) = signal else {
        return Err(engine::throw_type_error("fetch: the request has no signal"));
    };
    let call = webidl::internal_object(
        FetchCall {
            promise: p.clone(),
            request_body: request_body.clone(),
            response_object: Slot::new(None),
            body_source: Slot::new(None),
            locally_aborted: Cell::new(false),
            abort_work: RefCell::new(None),
            signal: signal.clone(),
            redirects: RefCell::new(RedirectState {
                mode: Some(request.redirect),
                count: 0,
                url_list: vec![request.url().to_owned()],
                body_source: request_body.as_ref().and_then(|b| b.source.clone()),
                body_is_stream: request_body.as_ref().is_some_and(|b| b.source.is_none()),
            }),
        },
        ctx,
    );
    // 4. If requestObject's signal is aborted, then: abort the fetch() call with p, request,
    //    null, and requestObject's signal's abort reason; return p.
    if dom::signal_is_aborted(&signal) {
        abort_the_fetch_call(&call, dom::signal_reason(&signal), ctx)?;
        return Ok(p.promise().clone().into());
    }
    // 12.–13. relevantRealm; locallyAborted is false.
    // 15. Add the following abort steps to requestObject's signal: set locallyAborted to true;
    //     abort controller with the abort reason; abort the fetch() call with p, request,
    //     responseObject, and requestObject's signal's abort reason.
    dom::add_abort_algorithm(&signal, call.clone().upcast(), abort_steps);
    // 16. Set controller to the result of calling fetch given request and processResponse.
    start_fetch(call, request, request_body, ctx)?;
    // 17. Return p.
    Ok(p.promise().clone().into())
}

/// Invokes the initial value of `Request` as constructor with `input` and `init`.
fn new_request(args: &[Value], ctx: &mut Cx) -> JsResult<Object<Request>> {
    webidl::require_args(args, 1, "Window", "fetch")?;
    webidl::construct_interface::<Request>(args, ctx)
}

/// Step 15's abort steps.
fn abort_steps(call: &Object, ctx: &mut Cx) -> JsResult<()> {
    let Some(call) = call.clone().downcast::<FetchCall>().ok() else {
        return Ok(());
    };
    // 15.1. Set locallyAborted to true.
    call.borrow().data().locally_aborted.set(true);
    // 15.2. Abort controller with requestObject's signal's abort reason (the body reader is
    //       dropped, so nothing more is read).
    if let Some(source) = call.borrow().data().body_source.borrow().clone() {
        source.borrow().data().reader.borrow_mut().take();
    }
    let abort_work = call.borrow().data().abort_work.borrow_mut().take();
    if let Some(abort_work) = abort_work {
        abort_work();
    }
    // 15.3. Abort the fetch() call with p, request, responseObject, and requestObject's
    //       signal's abort reason.
    let reason = dom::signal_reason(&call.borrow().data().signal.clone());
    abort_the_fetch_call(&call, reason, ctx)
}

/// <https://fetch.spec.whatwg.org/#abort-fetch>
fn abort_the_fetch_call(call: &Object<FetchCall>, error: Value, ctx: &mut Cx) -> JsResult<()> {
    let promise = call.borrow().data().promise.clone();
    let request_body = call.borrow().data().request_body.clone();
    let response_object = call.borrow().data().response_object.borrow().clone();
    // 1. Reject promise with error. (This is a no-op if promise has already fulfilled.)
    if promise.is_pending() {
        promise.reject(error.clone(), ctx)?;
    }
    // 2. If request's body is non-null and is readable, then cancel request's body with error.
    if let Some(stream) = request_body.as_ref().and_then(|body| body.stream.as_ref()) {
        if other_specs::is_readable(stream) {
            let cancel = other_specs::cancel(stream, error.clone(), ctx)?;
            engine::mark_as_handled(&cancel, ctx)?;
        }
    }
    // 3. If responseObject is null, then return.
    let Some(response_object) = response_object else {
        return Ok(());
    };
    // 4. Let response be responseObject's response.
    // 5. If response's body is non-null and is readable, then error response's body with error.
    if let Some(body) = <Response as body::BodyMixin>::made_body(&response_object, ctx)? {
        if other_specs::is_readable(body.stream()?) {
            other_specs::error(body.stream()?, error, ctx)?;
        }
    }
    Ok(())
}

traced! {
    /// "Fully read" of the request body before the fetcher is called.
    #[derive(Debug)]
    struct RequestBodyRead {
        call: Object<FetchCall>,
        #[unsafe_ignore_trace]
        request: RefCell<Option<FetchRequest>>,
    }
}

impl ReadAllBytesSteps for RequestBodyRead {
    fn success_steps(self: Box<Self>, bytes: ByteSequence, ctx: &mut Cx) -> JsResult<()> {
        let Some(mut request) = self.request.borrow_mut().take() else {
            return Ok(());
        };
        request.body = Some(bytes.into_block().into_vec());
        let call = self.call.clone();
        engine::queue_task(ctx, move |ctx| fetch_in_task(&call, request, ctx));
        Ok(())
    }

    fn failure_steps(self: Box<Self>, e: Value, ctx: &mut Cx) -> JsResult<()> {
        let promise = self.call.borrow().data().promise.clone();
        if promise.is_pending() {
            promise.reject(e, ctx)?;
        }
        Ok(())
    }
}

/// The request as the fetcher sees it (without its body).
fn fetch_request(request: &RequestRecord) -> FetchRequest {
    FetchRequest {
        method: String::from_utf8_lossy(&request.method).into_owned(),
        url: request.url().to_owned(),
        headers: request.headers.borrow().header_list.headers().to_vec(),
        body: None,
    }
}

/// <https://fetch.spec.whatwg.org/#concept-fetch>, as this host does it: the request body is
/// read first; then, in a task, the response is made (a `data:` URL here, anything else by
/// the fetcher).
fn start_fetch(
    call: Object<FetchCall>,
    request: RequestRecord,
    request_body: Option<Body>,
    ctx: &mut Cx,
) -> JsResult<()> {
    let fetch_request = fetch_request(&request);
    let scheme = url_scheme(&fetch_request);
    let streaming = engine::with_realm_data(ctx, |f: &RealmDeferredFetcher| f.0.clone())
        .filter(|f| f.streams_uploads() && !matches!(scheme.as_str(), "data" | "blob"));
    match request_body {
        // A stream body goes to a fetcher that sends it as it is written.
        Some(body) if body.source.is_none() && streaming.is_some() => {
            let Some(fetcher) = streaming else {
                return Ok(());
            };
            engine::queue_task(ctx, move |ctx| {
                if call.borrow().data().locally_aborted.get() {
                    return Ok(());
                }
                let respond = responder(&call, &fetch_request);
                let abort_work = fetcher.start_streaming(
                    fetch_request,
                    StreamBody(body.stream()?.clone()),
                    respond,
                    ctx,
                );
                *call.borrow().data().abort_work.borrow_mut() = Some(abort_work);
                Ok(())
            });
            Ok(())
        }
        Some(body) => {
            let reader = match other_specs::get_a_reader(body.stream()?, ctx) {
                Ok(reader) => reader,
                Err(e) => {
                    let e = engine::thrown_value(e, ctx)?;
                    return call.borrow().data().promise.reject(e, ctx);
                }
            };
            let steps = RequestBodyRead {
                call,
                request: RefCell::new(Some(fetch_request)),
            };
            other_specs::read_all_bytes(&reader, Box::new(steps), ctx)
        }
        None => {
            engine::queue_task(ctx, move |ctx| fetch_in_task(&call, fetch_request, ctx));
            Ok(())
        }
    }
}

/// The task that makes the response and runs processResponse.
fn fetch_in_task(call: &Object<FetchCall>, request: FetchRequest, ctx: &mut Cx) -> JsResult<()> {
    if call.borrow().data().locally_aborted.get() {
        return Ok(());
    }
    if !matches!(url_scheme(&request).as_str(), "data" | "blob") {
        let deferred = engine::with_realm_data(ctx, |f: &RealmDeferredFetcher| f.0.clone());
        if let Some(deferred) = deferred {
            let respond = responder(call, &request);
            let abort_work = deferred.start(request, respond, ctx);
            *call.borrow().data().abort_work.borrow_mut() = Some(abort_work);
            return Ok(());
        }
    }
    let outcome = scheme_fetch(&request, ctx);
    process_response(call, &request, outcome, ctx)
}

/// How a deferred fetcher hands its response to processResponse.
fn responder(call: &Object<FetchCall>, request: &FetchRequest) -> Responder {
    let (responding_call, responding_request) = (call.clone(), request.clone());
    Box::new(move |outcome, ctx| {
        if let Err(error) = process_response(&responding_call, &responding_request, outcome, ctx) {
            crate::dom::report_exception(ctx, error);
        }
    })
}

/// The request's URL's scheme, lowercased.
fn url_scheme(request: &FetchRequest) -> String {
    request
        .url
        .split(':')
        .next()
        .unwrap_or_default()
        .to_ascii_lowercase()
}

/// <https://fetch.spec.whatwg.org/#scheme-fetch>: `data:` here; everything else goes to the
/// realm's fetcher (none: a network error).
fn scheme_fetch(request: &FetchRequest, ctx: &mut Cx) -> Result<FetchResponse, String> {
    let scheme = url_scheme(request);
    if scheme == "data" {
        // 1. Let dataURLStruct be the result of running the data: URL processor on request's
        //    current URL. 2. If dataURLStruct is failure, then return a network error.
        let data = data_url_processor(&request.url)
            .ok_or_else(|| format!("'{}' is not a valid data: URL", request.url))?;
        // 3. Let mimeType be dataURLStruct's MIME type, serialized.
        let mime_type = serialize_a_mime_type(&data.mime_type);
        // 4. Return a new response whose status message is `OK`, header list is
        //    « (`Content-Type`, mimeType) », and body is dataURLStruct's body as a body.
        let mut response = FetchResponse::ok(ResponseBody::Bytes(data.body));
        response
            .headers
            .push((b"Content-Type".to_vec(), mime_type.into_bytes()));
        return Ok(response);
    }
    if scheme == "blob" {
        return blob_scheme_fetch(request);
    }
    let fetcher = engine::with_realm_data(ctx, |f: &RealmFetcher| f.0.clone());
    match fetcher {
        Some(fetcher) => fetcher.fetch(request),
        None => Err(format!(
            "no fetcher serves '{}' (this host has no network)",
            request.url
        )),
    }
}

/// <https://fetch.spec.whatwg.org/#scheme-fetch>, "blob".
fn blob_scheme_fetch(request: &FetchRequest) -> Result<FetchResponse, String> {
    // 1. Let blobURLEntry be request's current URL's blob URL entry.
    let entry = crate::file::resolve_blob_url(&request.url);
    // 2. If request's method is not `GET` or blobURLEntry is null, then return a network
    //    error.
    let Some(entry) = entry.filter(|_| request.method == "GET") else {
        return Err(format!(
            "'{}' is not a blob URL this agent can fetch",
            request.url
        ));
    };
    // 5. Let response be a new response. 6. Let fullLength be blob's size.
    let full_length = entry.bytes.len() as u64;
    // 8. Let type be blob's type.
    let type_ = entry.mime_type.into_bytes();
    let range = request
        .headers
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case(b"Range"))
        .map(|(_, value)| value.clone());
    // 9. If request's header list does not contain `Range`:
    let Some(range) = range else {
        // 9.1. Let bodyWithType be the result of safely extracting blob.
        // 9.2. Set response's status message to `OK`. 9.3. Set response's body to
        //      bodyWithType's body. 9.4. Set response's header list to « (`Content-Length`,
        //      serializedFullLength), (`Content-Type`, type) ».
        let mut response = FetchResponse::ok(ResponseBody::Bytes(entry.bytes.to_vec()));
        response.headers = vec![
            (
                b"Content-Length".to_vec(),
                full_length.to_string().into_bytes(),
            ),
            (b"Content-Type".to_vec(), type_),
        ];
        return Ok(response);
    };
    // 10. Otherwise:
    // 10.1. Set response's range-requested flag.
    // 10.2.–10.3. Let rangeValue be the result of parsing a single range header value given
    //      rangeHeader and true. If rangeValue is failure, then return a network error.
    let range = parse_a_single_range_header_value(&range, true)
        .ok_or_else(|| "the Range header is not a single byte range".to_owned())?;
    // 10.4. Let (rangeStart, rangeEnd) be rangeValue.
    let (start, end) = match (range.start, range.end) {
        // 10.5. If rangeStart is null: set rangeStart to fullLength − rangeEnd; set rangeEnd
        //       to rangeStart + rangeEnd − 1.
        (None, Some(suffix)) => {
            let start = full_length.saturating_sub(suffix);
            (start, (start + suffix.min(full_length)).saturating_sub(1))
        }
        // 10.6. Otherwise: if rangeStart is greater than or equal to fullLength, return a
        //       network error; if rangeEnd is null or rangeEnd is greater than or equal to
        //       fullLength, set rangeEnd to fullLength − 1.
        (Some(start), end) => {
            if start >= full_length {
                return Err("the Range starts past the end of the blob".to_owned());
            }
            let end = end.filter(|&e| e < full_length).unwrap_or(full_length - 1);
            (start, end)
        }
        (None, None) => return Err("the Range header is empty".to_owned()),
    };
    // 10.7. Let slicedBlob be the result of invoking slice blob given blob, rangeStart,
    //       rangeEnd + 1, and type. 10.8. Let slicedBodyWithType be the result of safely
    //       extracting slicedBlob. 10.9. Set response's body to slicedBodyWithType's body.
    let sliced = entry
        .bytes
        .get(start as usize..=end as usize)
        .unwrap_or_default()
        .to_vec();
    // 10.10.–10.12. serializedSlicedLength, contentRange.
    let content_range = format!("bytes {start}-{end}/{full_length}");
    // 10.13. Set response's status to 206. 10.14. Set response's status message to
    //        `Partial Content`. 10.15. Set response's header list to « (`Content-Length`,
    //        serializedSlicedLength), (`Content-Type`, type), (`Content-Range`,
    //        contentRange) ».
    Ok(FetchResponse {
        status: 206,
        status_text: "Partial Content".to_owned(),
        headers: vec![
            (
                b"Content-Length".to_vec(),
                sliced.len().to_string().into_bytes(),
            ),
            (b"Content-Type".to_vec(), type_),
            (b"Content-Range".to_vec(), content_range.into_bytes()),
        ],
        url: None,
        body: ResponseBody::Bytes(sliced),
    })
}

/// fetch()'s processResponse, given the response (or a network error).
fn process_response(
    call: &Object<FetchCall>,
    request: &FetchRequest,
    outcome: Result<FetchResponse, String>,
    ctx: &mut Cx,
) -> JsResult<()> {
    let promise = call.borrow().data().promise.clone();
    // 1. If locallyAborted is true, then abort these steps.
    if call.borrow().data().locally_aborted.get() || !promise.is_pending() {
        return Ok(());
    }
    // 3. If response is a network error, then reject p with a TypeError and abort these
    //    steps.
    let mut response = match outcome {
        Ok(response) => response,
        Err(message) => {
            let error = engine::type_error(&format!("fetch failed: {message}"), ctx);
            return promise.reject(error, ctx);
        }
    };
    let mut opaque_redirect = false;
    if super::status::is_redirect_status(response.status) {
        match http_redirect_fetch(call, request, &response) {
            Redirect::Return => {}
            Redirect::Opaque => opaque_redirect = true,
            Redirect::NetworkError(message) => {
                discard_body(
                    std::mem::replace(&mut response.body, ResponseBody::None),
                    ctx,
                )?;
                let error = engine::type_error(&format!("fetch failed: {message}"), ctx);
                return promise.reject(error, ctx);
            }
            Redirect::Follow(next) => {
                discard_body(
                    std::mem::replace(&mut response.body, ResponseBody::None),
                    ctx,
                )?;
                let call = call.clone();
                engine::queue_task(ctx, move |ctx| fetch_in_task(&call, next, ctx));
                return Ok(());
            }
        }
    }
    // 4. Set responseObject to the result of creating a Response object, given response,
    //    "immutable", and relevantRealm.
    let mut record = ResponseRecord::new(Guard::Immutable);
    record.type_ = ResponseType::Basic;
    record.url_list = call.borrow().data().redirects.borrow().url_list.clone();
    if record.url_list.is_empty() {
        record.url_list.push(request.url.clone());
    }
    if let Some(url) = response.url {
        record.url_list.push(url);
    }
    if opaque_redirect {
        // An opaque-redirect filtered response: type "opaqueredirect", status 0, an empty
        // status message and header list, a null body.
        discard_body(response.body, ctx)?;
        record.type_ = ResponseType::OpaqueRedirect;
        record.status = 0;
        let response_object = create_response(record, ctx)?;
        *call.borrow().data().response_object.borrow_mut() = Some(response_object.clone());
        return promise.resolve(response_object.into(), ctx);
    }
    record.status = response.status;
    record.status_message = response.status_text.into_bytes();
    record.headers.borrow_mut().header_list = response.headers.into();
    // Main fetch: if request's method is `HEAD` or `CONNECT`, or internalResponse's status is
    // a null body status, set internalResponse's body to null and disregard any enqueuing
    // toward it.
    let null_body = matches!(request.method.as_str(), "HEAD" | "CONNECT")
        || super::status::is_null_body_status(record.status);
    let body = if null_body {
        ResponseBody::None
    } else {
        response.body
    };
    let source = match body {
        ResponseBody::None => None,
        ResponseBody::Bytes(bytes) => {
            record.body = Some(body::body_from_bytes(bytes.into(), ctx)?);
            None
        }
        ResponseBody::Reader(reader) => {
            let (body, source) = reader_body(reader, ctx)?;
            record.body = Some(body);
            Some(source)
        }
        ResponseBody::Stream(StreamBody(stream)) => {
            record.body = Some(Body::of_stream(stream, None));
            None
        }
    };
    let response_object = create_response(record, ctx)?;
    *call.borrow().data().response_object.borrow_mut() = Some(response_object.clone());
    *call.borrow().data().body_source.borrow_mut() = source;
    // 5. Resolve p with responseObject.
    promise.resolve(response_object.into(), ctx)
}

/// What HTTP-redirect fetch decided.
enum Redirect {
    /// Not a redirect after all (no `Location`): the response as it is.
    Return,
    /// `redirect: "manual"`: an opaque-redirect filtered response.
    Opaque,
    /// A network error.
    NetworkError(String),
    /// Fetch this request next.
    Follow(FetchRequest),
}

/// <https://fetch.spec.whatwg.org/#http-redirect-fetch>, for a response whose status is a
/// redirect status.
fn http_redirect_fetch(
    call: &Object<FetchCall>,
    request: &FetchRequest,
    response: &FetchResponse,
) -> Redirect {
    let data = call.borrow();
    let mut state = data.data().redirects.borrow_mut();
    // 3. Let locationURL be internalResponse's location URL given request's current URL's
    //    fragment: the `Location` header parsed against the response's URL (null without one).
    let location = response
        .headers
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case(b"Location"))
        .map(|(_, value)| String::from_utf8_lossy(value).into_owned());
    // 4. If locationURL is null, then return response.
    let Some(location) = location else {
        return Redirect::Return;
    };
    let current = match url::Url::parse(&request.url) {
        Ok(url) => url,
        Err(_) => return Redirect::NetworkError(format!("'{}' is not a URL", request.url)),
    };
    // 5. If locationURL is failure, then return a network error.
    let mut location_url = match current.join(&location) {
        Ok(url) => url,
        Err(_) => return Redirect::NetworkError(format!("the Location '{location}' is not a URL")),
    };
    // (location URL, step 3: if it has no fragment, it gets the request's current URL's.)
    if location_url.fragment().is_none() {
        location_url.set_fragment(current.fragment());
    }
    match state.mode.unwrap_or(RequestRedirect::Follow) {
        // "error": set response to a network error.
        RequestRedirect::Error => {
            return Redirect::NetworkError("the request's redirect mode is \"error\"".to_owned())
        }
        // "manual": an opaque-redirect filtered response whose internal response is
        // actualResponse.
        RequestRedirect::Manual => return Redirect::Opaque,
        RequestRedirect::Follow => {}
    }
    // 6. If locationURL's scheme is not an HTTP(S) scheme, then return a network error.
    if !matches!(location_url.scheme(), "http" | "https") {
        return Redirect::NetworkError(format!("a redirect to '{location_url}' (not HTTP)"));
    }
    // 7. If request's redirect count is 20, then return a network error.
    if state.count == 20 {
        return Redirect::NetworkError("too many redirects (20)".to_owned());
    }
    // 8. Increase request's redirect count by 1.
    state.count += 1;
    // 11. If internalResponse's status is not 303, request's body is non-null, and request's
    //     body's source is null, then return a network error.
    if response.status != 303 && state.body_is_stream {
        return Redirect::NetworkError(
            "a redirect would send a stream body a second time".to_owned(),
        );
    }
    let mut next = request.clone();
    // 12. If one of the following is true: internalResponse's status is 301 or 302 and
    //     request's method is `POST`; internalResponse's status is 303 and request's method
    //     is not `GET` or `HEAD`; then: set request's method to `GET` and request's body to
    //     null; for each headerName of request-body-header name, delete headerName from
    //     request's header list.
    if ((response.status == 301 || response.status == 302) && request.method == "POST")
        || (response.status == 303 && !matches!(request.method.as_str(), "GET" | "HEAD"))
    {
        next.method = "GET".to_owned();
        state.body_source = None;
        state.body_is_stream = false;
        next.headers.retain(|(name, _)| {
            ![
                b"content-encoding".as_slice(),
                b"content-language",
                b"content-location",
                b"content-type",
            ]
            .iter()
            .any(|n| name.eq_ignore_ascii_case(n))
        });
    }
    // 13. If request's current URL's origin is not same origin with locationURL's origin,
    //     then for each headerName of CORS non-wildcard request-header name, delete
    //     headerName from request's header list.
    if current.origin() != location_url.origin() {
        next.headers
            .retain(|(name, _)| !name.eq_ignore_ascii_case(b"Authorization"));
    }
    // 14. If request's body is non-null, then set request's body to the body of the result
    //     of safely extracting request's body's source.
    next.body = state.body_source.as_ref().map(|b| b.to_vec());
    // 19. Append locationURL to request's URL list.
    next.url = location_url.to_string();
    state.url_list.push(next.url.clone());
    // 21. Return the result of running main fetch given fetchParams and true.
    Redirect::Follow(next)
}

/// Lets a response body nobody will read go (its reader or stream is dropped or cancelled).
fn discard_body(body: ResponseBody, ctx: &mut Cx) -> JsResult<()> {
    if let ResponseBody::Stream(StreamBody(stream)) = body {
        if other_specs::is_readable(&stream) {
            let cancel = other_specs::cancel(&stream, Value::undefined(), ctx)?;
            engine::mark_as_handled(&cancel, ctx)?;
        }
    }
    Ok(())
}

traced! {
    data;
    /// The underlying source of a fetched body: the fetcher's reader, pulled one chunk at a
    /// time.
    struct FetchBodySource {
        stream: Slot<Option<Object<ReadableStream>>>,
        #[unsafe_ignore_trace]
        reader: RefCell<Option<Box<dyn BodyReader>>>,
    }
}

impl NativeUnderlyingSource for FetchBodySource {
    fn pull(this: &Object<Self>, _: Value, ctx: &mut Cx) -> JsResult<PromiseResult> {
        let Some(stream) = this.borrow().data().stream.borrow().clone() else {
            return Ok(PromiseResult::undefined());
        };
        // Take the reader out while it reads, so nothing holds a borrow of the object.
        let reader = this.borrow().data().reader.borrow_mut().take();
        let Some(mut reader) = reader else {
            return Ok(PromiseResult::undefined());
        };
        match reader.read_chunk() {
            Ok(Some(chunk)) => {
                *this.borrow().data().reader.borrow_mut() = Some(reader);
                other_specs::enqueue_bytes(&stream, chunk, ctx)?;
            }
            Ok(None) => other_specs::close(&stream, ctx)?,
            Err(message) => {
                let error =
                    engine::type_error(&format!("fetch: reading the body failed: {message}"), ctx);
                other_specs::error(&stream, error, ctx)?;
            }
        }
        Ok(PromiseResult::undefined())
    }

    fn cancel(this: &Object<Self>, _: Value, _: &mut Cx) -> JsResult<PromiseResult> {
        // Canceling drops the reader (closing the file or connection).
        this.borrow().data().reader.borrow_mut().take();
        Ok(PromiseResult::undefined())
    }
}

/// A body whose stream (a byte stream, high-water mark 0) pulls from `reader`.
fn reader_body(
    reader: Box<dyn BodyReader>,
    ctx: &mut Cx,
) -> JsResult<(Body, Object<FetchBodySource>)> {
    let source = webidl::internal_object(
        FetchBodySource {
            stream: Slot::new(None),
            reader: RefCell::new(Some(reader)),
        },
        ctx,
    );
    let stream = other_specs::set_up_with_byte_reading_support(
        Some(NativeSource::new(&source)),
        0.0,
        None,
        ctx,
    )?;
    *source.borrow().data().stream.borrow_mut() = Some(stream.clone());
    Ok((Body::of_stream(stream, None), source))
}
