//! The `Response` interface (<https://fetch.spec.whatwg.org/#response-class>) and the response
//! record it wraps.

use std::{cell::RefCell, rc::Rc};

use crate::engine::{self, webidl, Cx, JsResult, JsString, Object, Slot, Value};

use super::{
    body::{self, Body, BodyMixin},
    headers_interface::{self, byte_string_value, HeadersInterface, SharedHeaders},
    headers_object::{Guard, Headers},
    idl::{to_byte_string, to_headers_init, to_unsigned_short},
    mime::MimeType,
    status::{is_null_body_status, is_ok_status, is_reason_phrase},
};

/// <https://fetch.spec.whatwg.org/#concept-response-type> (the types this host makes: no
/// CORS or opaque filtered responses, since every fetch is same-origin or a network error)
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ResponseType {
    Basic,
    Default,
    Error,
    /// An opaque-redirect filtered response (`redirect: "manual"`).
    OpaqueRedirect,
}

impl ResponseType {
    fn as_str(self) -> &'static str {
        match self {
            ResponseType::Basic => "basic",
            ResponseType::Default => "default",
            ResponseType::Error => "error",
            ResponseType::OpaqueRedirect => "opaqueredirect",
        }
    }
}

traced! {
    /// <https://fetch.spec.whatwg.org/#concept-response>: the members a `Response` reads. The
    /// header list (with the `Headers` object's guard) is shared with the `Headers` object.
    #[derive(Debug)]
    pub(crate) struct ResponseRecord {
        #[unsafe_ignore_trace]
        pub(crate) type_: ResponseType,
        /// The URL list, serialized.
        #[unsafe_ignore_trace]
        pub(crate) url_list: Vec<String>,
        #[unsafe_ignore_trace]
        pub(crate) status: u16,
        #[unsafe_ignore_trace]
        pub(crate) status_message: Vec<u8>,
        #[unsafe_ignore_trace]
        pub(crate) headers: SharedHeaders,
        pub(crate) body: Option<Body>,
    }
}

impl ResponseRecord {
    /// A new response (<https://fetch.spec.whatwg.org/#concept-response>'s defaults): type
    /// "default", status 200, empty status message and header list, null body.
    pub(crate) fn new(guard: Guard) -> Self {
        Self {
            type_: ResponseType::Default,
            url_list: Vec::new(),
            status: 200,
            status_message: Vec::new(),
            headers: Rc::new(RefCell::new(Headers::new(guard))),
            body: None,
        }
    }

    /// <https://fetch.spec.whatwg.org/#concept-network-error>
    pub(crate) fn network_error(guard: Guard) -> Self {
        let mut response = Self::new(guard);
        response.type_ = ResponseType::Error;
        response.status = 0;
        response
    }
}

traced! {
    data;
    /// <https://fetch.spec.whatwg.org/#response-class>
    #[derive(Debug)]
    pub(crate) struct Response {
        /// <https://fetch.spec.whatwg.org/#concept-response-response>
        response: Slot<ResponseRecord>,
        /// <https://fetch.spec.whatwg.org/#response-headers> (made with the object).
        headers: Slot<Option<Object<HeadersInterface>>>,
    }
}

impl BodyMixin for Response {
    fn with_body<R>(this: &Object<Self>, f: impl FnOnce(&mut Option<Body>) -> R) -> R {
        f(&mut this.borrow().data().response.borrow_mut().body)
    }

    fn mime_type(this: &Object<Self>) -> Option<MimeType> {
        let headers = this.borrow().data().response.borrow().headers.clone();
        let headers = headers.borrow();
        super::mime::extract_a_mime_type(&headers.header_list)
    }
}

/// The converted `ResponseInit` dictionary (<https://fetch.spec.whatwg.org/#responseinit>),
/// its members read in lexicographic order.
struct ResponseInit {
    headers: Option<super::idl::HeadersInit>,
    status: u16,
    status_text: Vec<u8>,
}

fn to_response_init(value: &Value, ctx: &mut Cx) -> JsResult<ResponseInit> {
    let dict = webidl::dictionary(value, "The response init")?;
    let headers = webidl::member(dict.as_ref(), "headers", ctx)?;
    let headers = if headers.is_undefined() {
        None
    } else {
        Some(to_headers_init(&headers, ctx)?)
    };
    let status = webidl::member(dict.as_ref(), "status", ctx)?;
    let status = if status.is_undefined() {
        200
    } else {
        to_unsigned_short(&status, ctx)?
    };
    let status_text = webidl::member(dict.as_ref(), "statusText", ctx)?;
    let status_text = if status_text.is_undefined() {
        Vec::new()
    } else {
        to_byte_string(&status_text, ctx)?
    };
    Ok(ResponseInit {
        headers,
        status,
        status_text,
    })
}

/// <https://fetch.spec.whatwg.org/#initialize-a-response>
fn initialize_a_response(
    record: &mut ResponseRecord,
    init: ResponseInit,
    body: Option<(Body, Option<Vec<u8>>)>,
) -> JsResult<()> {
    // 1. If init["status"] is not in the range 200 to 599, inclusive, then throw a RangeError.
    if !(200..=599).contains(&init.status) {
        return Err(engine::throw_range_error(format!(
            "The status {} is not in the range 200 to 599",
            init.status
        )));
    }
    // 2. If init["statusText"] is not the empty string and does not match the reason-phrase
    //    token production, then throw a TypeError.
    if !init.status_text.is_empty() && !is_reason_phrase(&init.status_text) {
        return Err(engine::throw_type_error(
            "The status text is not a reason phrase",
        ));
    }
    // 3. Set response's response's status to init["status"].
    record.status = init.status;
    // 4. Set response's response's status message to init["statusText"].
    record.status_message = init.status_text;
    // 5. If init["headers"] exists, then fill response's headers with init["headers"].
    if let Some(headers) = init.headers {
        headers_interface::fill(&mut record.headers.borrow_mut(), headers)?;
    }
    // 6. If body is non-null, then:
    if let Some((body, type_)) = body {
        // 6.1. If response's status is a null body status, then throw a TypeError.
        if is_null_body_status(record.status) {
            return Err(engine::throw_type_error(format!(
                "A response with status {} cannot have a body",
                record.status
            )));
        }
        // 6.2. Set response's body to body's body.
        record.body = Some(body);
        // 6.3. If body's type is non-null and response's header list does not contain
        //      `Content-Type`, then append (`Content-Type`, body's type) to response's header
        //      list.
        if let Some(type_) = type_ {
            let mut headers = record.headers.borrow_mut();
            if !headers.header_list.contains(b"Content-Type") {
                headers
                    .header_list
                    .append((b"Content-Type".to_vec(), type_));
            }
        }
    }
    Ok(())
}

impl webidl::ClassInterface for Response {
    const LENGTH: usize = 0;

    fn members(b: &mut webidl::InterfaceBuilder<'_, '_>) {
        b.static_operation("error", 0, response_error);
        b.static_operation("redirect", 1, response_redirect);
        b.static_operation("json", 1, response_json);
        b.attribute("type", get_type, None);
        b.attribute("url", get_url, None);
        b.attribute("redirected", get_redirected, None);
        b.attribute("status", get_status, None);
        b.attribute("ok", get_ok, None);
        b.attribute("statusText", get_status_text, None);
        b.attribute("headers", get_headers, None);
        b.operation("clone", 0, clone);
        body::define_body_mixin::<Self>(b);
    }

    /// <https://fetch.spec.whatwg.org/#dom-response>
    fn construct(_: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Self> {
        let body = match args.first() {
            Some(v) if !v.is_null_or_undefined() => Some(body::to_body_init(v, ctx)?),
            _ => None,
        };
        let init = to_response_init(&webidl::arg(args, 1), ctx)?;
        // 1. Set this's response to a new response.
        // 2. Set this's headers to a new Headers object with this's relevant realm, whose
        //    header list is this's response's header list and guard is "response".
        let mut record = ResponseRecord::new(Guard::Response);
        // 3. Let bodyWithType be null.
        // 4. If body is non-null, then set bodyWithType to the result of extracting body.
        let body_with_type = match body {
            Some(body) => Some(body::extract(body, ctx)?),
            None => None,
        };
        // 5. Perform initialize a response given this, init, and bodyWithType.
        initialize_a_response(&mut record, init, body_with_type)?;
        Ok(Self {
            response: Slot::new(record),
            headers: Slot::new(None),
        })
    }

    fn constructed(this: &Object<Self>, _: &[Value], ctx: &mut Cx) -> JsResult<()> {
        let shared = this.borrow().data().response.borrow().headers.clone();
        let headers = headers_interface::new_headers_object(shared, ctx)?;
        *this.borrow().data().headers.borrow_mut() = Some(headers);
        Ok(())
    }
}

webidl::interface!(Response, "Response");

#[cfg(feature = "http")]
impl Response {
    /// Runs `f` on the response record of `this` (a short borrow: `f` must not run script).
    pub(crate) fn with_record<R>(this: &Object<Self>, f: impl FnOnce(&ResponseRecord) -> R) -> R {
        let data = this.borrow();
        let record = data.data().response.borrow();
        f(&record)
    }
}

/// <https://fetch.spec.whatwg.org/#response-create>: a new `Response` object of the current
/// realm for `record` (whose header list carries `guard`).
pub(crate) fn create_response(record: ResponseRecord, ctx: &mut Cx) -> JsResult<Object<Response>> {
    let shared = record.headers.clone();
    let response = webidl::new_object(
        Response {
            response: Slot::new(record),
            headers: Slot::new(None),
        },
        ctx,
    )?;
    let headers = headers_interface::new_headers_object(shared, ctx)?;
    *response.borrow().data().headers.borrow_mut() = Some(headers);
    Ok(response)
}

/// <https://fetch.spec.whatwg.org/#dom-response-error>
fn response_error(_: &Value, _: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    // Return the result of creating a Response object, given a new network error, "immutable",
    // and the current realm.
    Ok(create_response(ResponseRecord::network_error(Guard::Immutable), ctx)?.into())
}

/// <https://fetch.spec.whatwg.org/#dom-response-redirect>
fn response_redirect(_: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    webidl::require_args(args, 1, "Response", "redirect")?;
    let url = webidl::to_usv_string(&webidl::arg(args, 0), ctx)?;
    let status = match args.get(1) {
        Some(v) if !v.is_undefined() => to_unsigned_short(v, ctx)?,
        _ => 302,
    };
    // 1. Let parsedURL be the result of parsing url with current settings object's API base
    //    URL. 2. If parsedURL is failure, then throw a TypeError.
    let parsed: String = super::urls::parse_url(&url.to_std_string_lossy(), ctx)
        .ok_or_else(|| engine::throw_type_error("Response.redirect: the URL is not valid"))?
        .into();
    // 3. If status is not a redirect status, then throw a RangeError.
    if !super::status::is_redirect_status(status) {
        return Err(engine::throw_range_error(format!(
            "Response.redirect: {status} is not a redirect status"
        )));
    }
    // 4. Let responseObject be the result of creating a Response object, given a new
    //    response, "immutable", and the current realm.
    let mut record = ResponseRecord::new(Guard::Immutable);
    // 5. Set responseObject's response's status to status.
    record.status = status;
    // 6. Let value be parsedURL, serialized and isomorphic encoded.
    // 7. Append (`Location`, value) to responseObject's response's header list.
    record
        .headers
        .borrow_mut()
        .header_list
        .append((b"Location".to_vec(), parsed.into_bytes()));
    // 8. Return responseObject.
    Ok(create_response(record, ctx)?.into())
}

/// <https://fetch.spec.whatwg.org/#dom-response-json>
fn response_json(_: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    webidl::require_args(args, 1, "Response", "json")?;
    let data = webidl::arg(args, 0);
    let init = to_response_init(&webidl::arg(args, 1), ctx)?;
    // 1. Let bytes the result of running serialize a JavaScript value to JSON bytes on data.
    let Some(json) = engine::json_stringify(data, ctx)? else {
        return Err(engine::throw_type_error(
            "Response.json: the data cannot be serialized to JSON",
        ));
    };
    let bytes = crate::encoding::utf8_encode_units(json.code_units());
    // 2. Let body be the result of extracting bytes.
    let body = body::body_from_bytes(bytes, ctx)?;
    // 3. Let responseObject be the result of creating a Response object, given a new
    //    response, "response", and the current realm.
    let mut record = ResponseRecord::new(Guard::Response);
    // 4. Perform initialize a response given responseObject, init, and (body,
    //    "application/json").
    initialize_a_response(
        &mut record,
        init,
        Some((body, Some(b"application/json".to_vec()))),
    )?;
    // 5. Return responseObject.
    Ok(create_response(record, ctx)?.into())
}

fn this_response(this: &Value) -> JsResult<Object<Response>> {
    webidl::this::<Response>(this)
}

/// <https://fetch.spec.whatwg.org/#dom-response-type>
fn get_type(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    let this = this_response(this)?;
    let type_ = this.borrow().data().response.borrow().type_;
    Ok(JsString::from(type_.as_str()).into())
}

/// <https://fetch.spec.whatwg.org/#dom-response-url>
fn get_url(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    let this = this_response(this)?;
    // Return the empty string if this's response's URL is null; otherwise this's response's
    // URL, serialized with exclude fragment set to true.
    let url = this
        .borrow()
        .data()
        .response
        .borrow()
        .url_list
        .last()
        .cloned();
    let url = url.map_or_else(String::new, |url| match url.find('#') {
        Some(index) => url[..index].to_owned(),
        None => url,
    });
    Ok(JsString::from(url.as_str()).into())
}

/// <https://fetch.spec.whatwg.org/#dom-response-redirected>
fn get_redirected(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    let this = this_response(this)?;
    // Return true if this's response's URL list's size is greater than 1; otherwise false.
    let redirected = this.borrow().data().response.borrow().url_list.len() > 1;
    Ok(redirected.into())
}

/// <https://fetch.spec.whatwg.org/#dom-response-status>
fn get_status(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    let this = this_response(this)?;
    let status = this.borrow().data().response.borrow().status;
    Ok(Value::from(f64::from(status)))
}

/// <https://fetch.spec.whatwg.org/#dom-response-ok>
fn get_ok(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    let this = this_response(this)?;
    let status = this.borrow().data().response.borrow().status;
    Ok(is_ok_status(status).into())
}

/// <https://fetch.spec.whatwg.org/#dom-response-statustext>
fn get_status_text(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    let this = this_response(this)?;
    let text = this
        .borrow()
        .data()
        .response
        .borrow()
        .status_message
        .clone();
    Ok(byte_string_value(&text))
}

/// <https://fetch.spec.whatwg.org/#dom-response-headers>
fn get_headers(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    let this = this_response(this)?;
    let headers = this.borrow().data().headers.borrow().clone();
    Ok(headers.map_or_else(Value::null, Into::into))
}

/// <https://fetch.spec.whatwg.org/#dom-response-clone>
fn clone(this: &Value, _: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let this = this_response(this)?;
    // 1. If this is unusable, then throw a TypeError.
    if body::is_unusable(Response::body(&this).as_ref()) {
        return Err(engine::throw_type_error(
            "Response.clone: the body has already been used",
        ));
    }
    // 2. Let clonedResponse be the result of cloning this's response.
    let cloned = clone_a_response(&this, ctx)?;
    // 3. Return the result of creating a Response object, given clonedResponse, this's
    //    headers's guard, and this's relevant realm.
    Ok(create_response(cloned, ctx)?.into())
}

/// <https://fetch.spec.whatwg.org/#concept-response-clone> (no internal response here).
fn clone_a_response(this: &Object<Response>, ctx: &mut Cx) -> JsResult<ResponseRecord> {
    let mut body = Response::made_body(this, ctx)?;
    // 3. If response's body is non-null, then set newResponse's body to the result of
    //    cloning response's body.
    let cloned_body = match body.as_mut() {
        Some(body) => Some(body::clone_body(body, ctx)?),
        None => None,
    };
    let data = this.borrow();
    let mut record = data.data().response.borrow_mut();
    // (The tee's first branch becomes this response's body's stream.)
    record.body = body;
    // 1.–2. Let newResponse be a copy of response, except for its body.
    let headers = record.headers.borrow().clone();
    Ok(ResponseRecord {
        type_: record.type_,
        url_list: record.url_list.clone(),
        status: record.status,
        status_message: record.status_message.clone(),
        headers: Rc::new(RefCell::new(headers)),
        body: cloned_body,
    })
}
