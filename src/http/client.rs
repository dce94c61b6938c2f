//! `fetch()` over HTTP/1.1 with hyper's client: an [`AsyncFetcher`] for `http:` URLs.
//!
//! Connections are kept for reuse: once a response's body has been read to its end, its
//! connection goes back to the fetcher's pool (per host and port, at most
//! [`MAX_IDLE_PER_HOST`] idle and [`MAX_IDLE`] in all, each for at most [`IDLE_TIMEOUT`]), and the next request to the
//! same origin takes it instead of connecting. A pooled connection the server closed in the
//! meantime is noticed before it is used; a request it could not even send on it is sent again
//! on a new connection. Connections are driven by the fetch's own future and then by its
//! body's stream (nothing is spawned, so it runs on any current-thread runtime; an idle one is
//! polled only when taken again): the response body is read from the socket only as the body's
//! `ReadableStream` pulls, so a slow reader holds the sender back through TCP. Dropping the
//! future or the body before the body's end (the request's signal aborted, the body was
//! cancelled) closes the connection. Redirects are `fetch()`'s (the Fetch Standard's
//! HTTP-redirect fetch runs above the fetcher): this fetcher returns them as they are.

use std::{
    cell::RefCell,
    collections::HashMap,
    future::Future,
    io,
    pin::Pin,
    rc::Rc,
    task::{Context as TaskContext, Poll},
    time::{Duration, Instant},
};

use bytes::Bytes;
use http_body::Frame;
use hyper::body::Incoming;
use hyper::client::conn::TrySendError;
use tokio::net::TcpStream;

use crate::fetch::fetcher::FetchRequest;
use crate::rust::{AsyncBody, AsyncFetchResponse, AsyncFetcher, FetchFuture, UploadStream};

use super::rt::TokioIo;

type Connection = hyper::client::conn::http1::Connection<TokioIo<TcpStream>, RequestBody>;
type Sender = hyper::client::conn::http1::SendRequest<RequestBody>;

/// The most idle connections the pool keeps per host and port.
pub const MAX_IDLE_PER_HOST: usize = 32;

/// The most idle connections the pool keeps in all.
pub const MAX_IDLE: usize = 128;

/// How long the pool keeps an idle connection (a little under the 5 s that servers such as
/// Node's close idle keep-alive connections after, so that a taken connection is seldom one
/// the server is closing).
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(4);

/// An [`AsyncFetcher`] for `http:` URLs over hyper's HTTP/1.1 client, with a pool of
/// keep-alive connections (see the module docs); any other scheme is a network error. Install
/// it with [`super::install_fetcher`] (or `rust::set_async_fetcher`). Clones share one pool.
#[derive(Debug, Clone, Default)]
pub struct HttpFetcher {
    pool: Pool,
}

impl HttpFetcher {
    /// A fetcher with a pool of its own.
    pub fn new() -> Self {
        Self::default()
    }

    /// Closes the idle connections of its pool.
    pub fn close_idle(&self) {
        let idle = std::mem::take(&mut *self.pool.0.borrow_mut());
        drop(idle);
    }

    /// How many idle connections its pool holds now.
    pub fn idle_connections(&self) -> usize {
        self.pool.idle()
    }
}

impl AsyncFetcher for HttpFetcher {
    fn fetch(&self, request: FetchRequest) -> FetchFuture {
        Box::pin(fetch_http(self.pool.clone(), request, None))
    }

    fn streams_uploads(&self) -> bool {
        true
    }

    fn fetch_with_upload(&self, request: FetchRequest, upload: UploadStream) -> FetchFuture {
        Box::pin(fetch_http(self.pool.clone(), request, Some(upload)))
    }
}

/// Where a connection goes: its host and port.
type Origin = (String, u16);

/// A connection ready for its next request.
struct Idle {
    sender: Sender,
    connection: Pin<Box<Connection>>,
    since: Instant,
}

/// Idle keep-alive connections by origin, newest last.
#[derive(Clone, Default)]
struct Pool(Rc<RefCell<HashMap<Origin, Vec<Idle>>>>);

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pool").field("idle", &self.idle()).finish()
    }
}

impl Pool {
    /// How many idle connections it holds.
    fn idle(&self) -> usize {
        self.0.borrow().values().map(Vec::len).sum()
    }

    /// An idle connection to `origin` that can take a request now: the newest that has not
    /// timed out, been closed by the server, or broken (those are dropped, which closes them).
    fn take(&self, origin: &Origin) -> Option<(Sender, Pin<Box<Connection>>)> {
        loop {
            let idle = {
                let mut pool = self.0.borrow_mut();
                let list = pool.get_mut(origin)?;
                let idle = list.pop();
                if list.is_empty() {
                    pool.remove(origin);
                }
                idle?
            };
            if idle.since.elapsed() >= IDLE_TIMEOUT {
                continue;
            }
            // Poll the connection once, so that a close by the server (end of file) or a
            // broken socket shows before the request is written on it. (A waker that does
            // nothing: whoever takes it polls it again with theirs.)
            let mut connection = Some(idle.connection);
            let waker = futures::task::noop_waker();
            drive(&mut connection, &mut TaskContext::from_waker(&waker));
            match connection {
                Some(connection) if idle.sender.is_ready() => {
                    return Some((idle.sender, connection))
                }
                _ => continue,
            }
        }
    }

    /// Keeps a connection whose exchange ended, if it can take another request.
    fn put(&self, origin: Origin, sender: Sender, connection: Pin<Box<Connection>>) {
        if sender.is_closed() {
            return;
        }
        let mut pool = self.0.borrow_mut();
        // Timed-out connections go now (nothing polls an idle one), and then the oldest
        // beyond the limits.
        pool.retain(|_, list| {
            list.retain(|idle| idle.since.elapsed() < IDLE_TIMEOUT);
            !list.is_empty()
        });
        if pool.values().map(Vec::len).sum::<usize>() >= MAX_IDLE {
            let oldest = pool
                .iter()
                .filter_map(|(origin, list)| list.first().map(|idle| (idle.since, origin)))
                .min_by_key(|(since, _)| *since)
                .map(|(_, origin)| origin.clone());
            if let Some(list) = oldest.and_then(|origin| pool.get_mut(&origin)) {
                list.remove(0);
            }
        }
        let list = pool.entry(origin).or_default();
        if list.len() >= MAX_IDLE_PER_HOST {
            list.remove(0);
        }
        list.push(Idle {
            sender,
            connection,
            since: Instant::now(),
        });
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

/// Opens a new connection to `host` and `port`.
async fn connect(host: &str, port: u16) -> Result<(Sender, Pin<Box<Connection>>), String> {
    let socket = TcpStream::connect((host, port))
        .await
        .map_err(|e| format!("connecting to {host}:{port}: {e}"))?;
    let _ = socket.set_nodelay(true);
    let (sender, connection) =
        hyper::client::conn::http1::handshake::<_, RequestBody>(TokioIo::new(socket))
            .await
            .map_err(|e| e.to_string())?;
    Ok((sender, Box::pin(connection)))
}

/// Sends `request` on the connection, driving it until the response's head arrives. An error
/// that comes with the request back means nothing of it was written.
async fn send(
    sender: &mut Sender,
    connection: &mut Option<Pin<Box<Connection>>>,
    request: hyper::Request<RequestBody>,
) -> Result<hyper::Response<Incoming>, TrySendError<hyper::Request<RequestBody>>> {
    let mut response = std::pin::pin!(sender.try_send_request(request));
    std::future::poll_fn(|cx| {
        drive(connection, cx);
        response.as_mut().poll(cx)
    })
    .await
}

/// Fetches `request` over a pooled connection to its origin, or a new one.
async fn fetch_http(
    pool: Pool,
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
    let mut hyper_request = builder.body(body).map_err(|e| e.to_string())?;
    let origin = (host, port);
    // A pooled connection first; if the request could not even be written on it (the server
    // closed it just now), once more on a new connection.
    if let Some((mut sender, connection)) = pool.take(&origin) {
        let mut connection = Some(connection);
        match send(&mut sender, &mut connection, hyper_request).await {
            Ok(response) => {
                return Ok(fetched(response, pool, origin, sender, connection));
            }
            Err(mut error) => match error.take_message() {
                Some(request) => hyper_request = request,
                None => return Err(error.into_error().to_string()),
            },
        }
    }
    let (mut sender, connection) = connect(&origin.0, origin.1).await?;
    let mut connection = Some(connection);
    let response = send(&mut sender, &mut connection, hyper_request)
        .await
        .map_err(|e| e.into_error().to_string())?;
    Ok(fetched(response, pool, origin, sender, connection))
}

/// The fetcher's response for hyper's: its head, and a body that reads the connection.
fn fetched(
    response: hyper::Response<Incoming>,
    pool: Pool,
    origin: Origin,
    sender: Sender,
    connection: Option<Pin<Box<Connection>>>,
) -> AsyncFetchResponse {
    let (parts, incoming) = response.into_parts();
    let headers = parts
        .headers
        .iter()
        .map(|(name, value)| (name.as_str().as_bytes().to_vec(), value.as_bytes().to_vec()))
        .collect();
    let body = ResponseBody {
        incoming,
        connection,
        reuse: Some((pool, origin, sender)),
    };
    AsyncFetchResponse {
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
    }
}

/// Polls the connection (it moves the bytes of both bodies); forgets it once it ended.
fn drive(connection: &mut Option<Pin<Box<Connection>>>, cx: &mut TaskContext<'_>) {
    if let Some(conn) = connection.as_mut() {
        if conn.as_mut().poll(cx).is_ready() {
            *connection = None;
        }
    }
}

/// The response body: hyper's incoming body, with the connection that feeds it, which goes
/// back to the pool at the body's end.
struct ResponseBody {
    incoming: Incoming,
    connection: Option<Pin<Box<Connection>>>,
    /// The pool, the origin and the connection's sender, until the connection is given back.
    reuse: Option<(Pool, Origin, Sender)>,
}

impl futures::Stream for ResponseBody {
    type Item = Result<Bytes, io::Error>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        drive(&mut this.connection, cx);
        let polled = super::rt::poll_data(&mut this.incoming, cx);
        if let Poll::Ready(None) = polled {
            // The body's end: the exchange is over, so the connection can take another
            // request once it is polled again (it then reads the next response's head).
            drive(&mut this.connection, cx);
            if let (Some(connection), Some((pool, origin, sender))) =
                (this.connection.take(), this.reuse.take())
            {
                pool.put(origin, sender, connection);
            }
        }
        polled
    }
}
