//! Requests and responses as Rust data, for an HTTP server in a layer above (the `http`
//! feature's `serve`): a `Request` object made from what arrived on the wire, and the parts of a
//! `Response` object a handler returned.

use std::{cell::RefCell, rc::Rc, sync::Arc};

use crate::engine::{Cx, JsResult, Object, Value};
use crate::readable::ReadableStream;

use super::{
    body::{Body, BodyMixin},
    headers_object::{Guard, Headers},
    request::{create_request, Request, RequestRecord},
    response::{Response, ResponseType},
};

/// A request that arrived: a `Request` object (headers guard "request", the spec's defaults
/// for the rest) whose body, if any, is `body` (`length` when the sender declared one), and
/// whose signal is `signal`.
pub(crate) fn new_request_object(
    method: Vec<u8>,
    url: String,
    headers: Vec<(Vec<u8>, Vec<u8>)>,
    body: Option<(Object<ReadableStream>, Option<u64>)>,
    signal: Object,
    ctx: &mut Cx,
) -> JsResult<Object<Request>> {
    let mut record = RequestRecord::new(url);
    record.method = method;
    let mut list = Headers::new(Guard::Request);
    list.header_list = headers.into();
    record.headers = Rc::new(RefCell::new(list));
    record.body = body.map(|(stream, length)| Body::of_stream(stream, length));
    create_request(record, signal, ctx)
}

/// What a server sends for a `Response` object.
pub(crate) struct ResponseParts {
    /// The status (0 for a network error: `Response.error()`).
    pub(crate) status: u16,
    /// The status message (`statusText`).
    pub(crate) status_message: Vec<u8>,
    /// The header list, in order.
    pub(crate) headers: Vec<(Vec<u8>, Vec<u8>)>,
    /// The body, if non-null.
    pub(crate) body: Option<OutgoingBody>,
}

/// A response body as a server sends it.
pub(crate) enum OutgoingBody {
    /// The body's source bytes (a string, buffer, `Blob`, form data), its stream locked so
    /// nothing else reads it: sent without reading the stream.
    Bytes(Arc<[u8]>),
    /// The body's stream, to read (its length, when known).
    Stream(Object<ReadableStream>, Option<u64>),
}

/// The parts of `value` if it is a `Response` object; `None` for any other value. A body that
/// is already disturbed or locked is still returned as a stream (reading it fails as the spec's
/// reads do).
pub(crate) fn response_parts(value: &Value, ctx: &mut Cx) -> JsResult<Option<ResponseParts>> {
    let Some(object) = value.as_object() else {
        return Ok(None);
    };
    let Ok(response) = object.downcast::<Response>() else {
        return Ok(None);
    };
    let (status, status_message, headers, is_error) = Response::with_record(&response, |record| {
        let headers = record.headers.borrow().header_list.headers().to_vec();
        (
            record.status,
            record.status_message.clone(),
            headers,
            matches!(record.type_, ResponseType::Error),
        )
    });
    let body = match <Response as BodyMixin>::body(&response) {
        None => None,
        Some(body) => {
            let untouched = !body.is_disturbed() && !body.is_locked();
            match (body.source.clone(), &body.stream) {
                // A stream not made yet: it is made locked if script asks for it (see
                // `Body::stream`).
                (Some(bytes), None) if untouched => {
                    Response::with_body(&response, |slot| {
                        if let Some(slot) = slot {
                            slot.sent = true;
                        }
                    });
                    Some(OutgoingBody::Bytes(bytes))
                }
                (Some(bytes), Some(stream)) if untouched => {
                    // Lock the stream: the bytes go out without it, and script cannot read
                    // them a second time.
                    crate::readable::other_specs::get_a_reader(stream, ctx)?;
                    Some(OutgoingBody::Bytes(bytes))
                }
                (_, Some(stream)) => Some(OutgoingBody::Stream(stream.clone(), body.length)),
                // (A stream not made yet whose bytes were sent already: made now, locked.)
                (_, None) => Response::made_body(&response, ctx)?
                    .and_then(|made| made.stream.clone())
                    .map(|stream| OutgoingBody::Stream(stream, body.length)),
            }
        }
    };
    Ok(Some(ResponseParts {
        status: if is_error { 0 } else { status },
        status_message,
        headers,
        body,
    }))
}
