//! `fetch()` over HTTP/1.1 with hyper's client: an [`AsyncFetcher`] for `http:` URLs.
//!
//! One connection per request (no pool): connect, send, and hand the response over as soon
//! as its head arrives. The connection is driven by the fetch's own future and then by its
//! body's stream (nothing is spawned, so it runs on any current-thread runtime): the response
//! body is read from the socket only as the body's `ReadableStream` pulls, so a slow reader
//! holds the sender back through TCP. Dropping the future or the body (the request's signal
//! aborted, the body was cancelled) closes the connection. Redirects are `fetch()`'s (the
//! Fetch Standard's HTTP-redirect fetch runs above the fetcher): this fetcher returns them as
//! they are.

use std::{
    future::Future,
    io,
    pin::Pin,
    task::{Context as TaskContext, Poll},
};

use bytes::Bytes;
use http_body::Frame;
use hyper::body::Incoming;
use tokio::net::TcpStream;

use crate::fetch::fetcher::FetchRequest;
use crate::rust::{AsyncBody, AsyncFetchResponse, AsyncFetcher, FetchFuture, UploadStream};

use super::rt::TokioIo;

type Connection = hyper::client::conn::http1::Connection<TokioIo<TcpStream>, RequestBody>;

/// An [`AsyncFetcher`] for `http:` URLs over hyper's HTTP/1.1 client (see the module docs);
/// any other scheme is a network error. Install it with [`super::install_fetcher`] (or
/// `rust::set_async_fetcher`).
#[derive(Debug, Clone, Copy, Default)]
pub struct HttpFetcher;

impl AsyncFetcher for HttpFetcher {
    fn fetch(&self, request: FetchRequest) -> FetchFuture {
        Box::pin(fetch_http(request, None))
    }

    fn streams_uploads(&self) -> bool {
        true
    }

    fn fetch_with_upload(&self, request: FetchRequest, upload: UploadStream) -> FetchFuture {
        Box::pin(fetch_http(request, Some(upload)))
    }
}

/// A request body as hyper's client sends it: the bytes, or a stream sent chunked as it
/// yields.
enum RequestBody {
    Bytes(Option<Bytes>),
    Stream(UploadStream),
}

impl http_body::Body for RequestBody {
    type Data = Bytes;
    type Error = io::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, io::Error>>> {
        match &mut *self {
            RequestBody::Bytes(bytes) => Poll::Ready(bytes.take().map(|b| Ok(Frame::data(b)))),
            RequestBody::Stream(stream) => match futures::Stream::poll_next(Pin::new(stream), cx) {
                Poll::Pending => Poll::Pending,
                Poll::Ready(None) => Poll::Ready(None),
                Poll::Ready(Some(Ok(bytes))) => Poll::Ready(Some(Ok(Frame::data(bytes)))),
                Poll::Ready(Some(Err(error))) => {
                    Poll::Ready(Some(Err(io::Error::other(error.to_string()))))
                }
            },
        }
    }

    fn is_end_stream(&self) -> bool {
        matches!(self, RequestBody::Bytes(None))
    }

    fn size_hint(&self) -> http_body::SizeHint {
        match self {
            RequestBody::Bytes(bytes) => {
                http_body::SizeHint::with_exact(bytes.as_ref().map_or(0, |b| b.len() as u64))
            }
            RequestBody::Stream(_) => http_body::SizeHint::default(),
        }
    }
}

/// Fetches `request` over a new connection.
async fn fetch_http(
    request: FetchRequest,
    upload: Option<UploadStream>,
) -> Result<AsyncFetchResponse, String> {
    let url = url::Url::parse(&request.url).map_err(|e| format!("{}: {e}", request.url))?;
    if url.scheme() != "http" {
        return Err(format!("'{}': this fetcher speaks http: only", request.url));
    }
    let host = url
        .host_str()
        .ok_or_else(|| format!("'{}' has no host", request.url))?
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_owned();
    let port = url.port_or_known_default().unwrap_or(80);
    let socket = TcpStream::connect((host.as_str(), port))
        .await
        .map_err(|e| format!("connecting to {host}:{port}: {e}"))?;
    let _ = socket.set_nodelay(true);
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake::<_, RequestBody>(TokioIo::new(socket))
            .await
            .map_err(|e| e.to_string())?;
    let mut connection = Some(Box::pin(connection));
    let target = match url.query() {
        Some(query) => format!("{}?{query}", url.path()),
        None => url.path().to_owned(),
    };
    let mut builder = hyper::Request::builder()
        .method(request.method.as_bytes())
        .uri(target);
    let authority = match url.port() {
        Some(port) => format!("{}:{port}", url.host_str().unwrap_or_default()),
        None => url.host_str().unwrap_or_default().to_owned(),
    };
    builder = builder.header(hyper::header::HOST, authority);
    for (name, value) in &request.headers {
        let (Ok(name), Ok(value)) = (
            hyper::header::HeaderName::from_bytes(name),
            hyper::header::HeaderValue::from_bytes(value),
        ) else {
            continue;
        };
        if name == hyper::header::HOST {
            continue;
        }
        builder = builder.header(name, value);
    }
    let body = match (upload, request.body) {
        (Some(upload), _) => RequestBody::Stream(upload),
        (None, Some(bytes)) => RequestBody::Bytes(Some(Bytes::from(bytes))),
        (None, None) => RequestBody::Bytes(None),
    };
    let hyper_request = builder.body(body).map_err(|e| e.to_string())?;
    let mut response = std::pin::pin!(sender.send_request(hyper_request));
    let response = std::future::poll_fn(|cx| {
        drive(&mut connection, cx);
        response.as_mut().poll(cx)
    })
    .await
    .map_err(|e| e.to_string())?;
    let (parts, incoming) = response.into_parts();
    let headers = parts
        .headers
        .iter()
        .map(|(name, value)| (name.as_str().as_bytes().to_vec(), value.as_bytes().to_vec()))
        .collect();
    let body = ResponseBody {
        incoming,
        connection,
        _sender: sender,
    };
    Ok(AsyncFetchResponse {
        status: parts.status.as_u16(),
        // The reason phrase as received: hyper keeps it only when it is not the status's
        // canonical one.
        status_text: match parts.extensions.get::<hyper::ext::ReasonPhrase>() {
            Some(reason) => String::from_utf8_lossy(reason.as_bytes()).into_owned(),
            None => parts
                .status
                .canonical_reason()
                .unwrap_or_default()
                .to_owned(),
        },
        headers,
        url: None,
        body: AsyncBody::stream(body),
    })
}

/// Polls the connection (it moves the bytes of both bodies); forgets it once it ended.
fn drive(connection: &mut Option<Pin<Box<Connection>>>, cx: &mut TaskContext<'_>) {
    if let Some(conn) = connection.as_mut() {
        if conn.as_mut().poll(cx).is_ready() {
            *connection = None;
        }
    }
}

/// The response body: hyper's incoming body, with the connection that feeds it.
struct ResponseBody {
    incoming: Incoming,
    connection: Option<Pin<Box<Connection>>>,
    _sender: hyper::client::conn::http1::SendRequest<RequestBody>,
}

impl futures::Stream for ResponseBody {
    type Item = Result<Bytes, io::Error>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        drive(&mut this.connection, cx);
        super::rt::poll_data(&mut this.incoming, cx)
    }
}
