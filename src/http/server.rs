//! `serve`: an HTTP/1.1 server on hyper whose requests go to a script's handler.
//!
//! One server serves from one host's event loop: connections are tasks of a current-thread
//! runtime (or `LocalSet`) next to `Host::run`, since the JS engines are `!Send`. Each request
//! is handed to the loop as a closure ([`LoopHandle`]): it makes the `Request` object (its body
//! a byte stream polling hyper's incoming body only as script reads), calls the handler, and
//! sends the `Response` back through a channel. The response body goes to hyper as draining
//! reads of the body's stream, one per frame hyper asks for; a body made from bytes (a string,
//! a buffer, a `Blob`) goes out as those bytes, with no read at all.

use std::{
    cell::{Cell, RefCell},
    collections::VecDeque,
    convert::Infallible,
    fmt,
    future::Future,
    io,
    net::SocketAddr,
    pin::Pin,
    rc::Rc,
    sync::Arc,
    task::{Context as TaskContext, Poll, Waker},
    time::{Duration, Instant},
};

use bytes::Bytes;
use http_body::{Body as HttpBody, Frame, SizeHint};
use hyper::body::Incoming;
use tokio::net::TcpListener;

use crate::dom;
use crate::engine::{self, webidl, Cx, JsPromise, JsResult, JsString, Value};
use crate::fetch::native::{self, OutgoingBody};
use crate::rust::{DrainingReader, LoopHandle, ReadableStream, StreamError, StreamSource};

use super::rt::{Timer, TokioIo};

/// The server's limits. Each, when reached, is a response or a closed connection, never a
/// panic.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// The most bytes a request's head may take (at least 8 KiB, hyper's floor): past it the
    /// client gets `431 Request Header Fields Too Large` and the connection closes.
    pub max_header_bytes: usize,
    /// The most bytes a request body may have: a declared `Content-Length` above it gets
    /// `413 Content Too Large` without calling the handler; a chunked body that grows past it
    /// errors the request's body stream (a `TypeError`) and the connection closes.
    pub max_body_bytes: u64,
    /// How long a client may take to send a request's head, from its first byte (slowloris):
    /// then the connection closes.
    pub header_read_timeout: Duration,
    /// How long a connection may stay open with no request in progress and no byte moving:
    /// then it closes.
    pub idle_timeout: Duration,
    /// The most connections open at once: one more gets `503 Service Unavailable` and is
    /// closed.
    pub max_connections: usize,
    /// The most bytes one draining read of a response body takes (one frame to hyper, or a
    /// few where chunks of Rust bytes go as they are: see `DrainingReader::read_frames_with`).
    pub frame_size: usize,
}

impl Default for ServeOptions {
    fn default() -> Self {
        Self {
            max_header_bytes: 64 * 1024,
            max_body_bytes: 64 << 20,
            header_read_timeout: Duration::from_secs(30),
            idle_timeout: Duration::from_secs(60),
            max_connections: 10_000,
            frame_size: 64 * 1024,
        }
    }
}

/// Counts of what the server holds now, and what it did (for tests and leak checks).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ServerStats {
    /// Connections open now.
    pub connections: usize,
    /// Requests whose response has not finished (or been dropped) yet.
    pub requests_in_flight: usize,
    /// Response bodies being read now.
    pub bodies_in_flight: usize,
    /// Requests handled since the start.
    pub requests: u64,
    /// Connections refused for the connection limit.
    pub refused: u64,
}

struct State {
    handle: LoopHandle,
    options: ServeOptions,
    stats: Cell<ServerStats>,
    /// The accept loop's and the connections' tasks, for [`Server::close`].
    tasks: RefCell<Vec<tokio::task::AbortHandle>>,
    closed: Cell<bool>,
    accept_waker: RefCell<Option<Waker>>,
}

impl State {
    fn update(&self, f: impl FnOnce(&mut ServerStats)) {
        let mut stats = self.stats.get();
        f(&mut stats);
        self.stats.set(stats);
    }
}

/// An HTTP/1.1 server whose handler is the one script registered with the global
/// `serve(handler)` (see [`super::install`]): a function `(request, info) => response`, or an
/// object with such a `fetch` method. Run [`Server::run`] on the same current-thread runtime
/// or `LocalSet` as the host's loop (`Host::run`).
#[derive(Clone)]
pub struct Server {
    state: Rc<State>,
}

impl fmt::Debug for Server {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Server")
            .field("stats", &self.state.stats.get())
            .finish()
    }
}

impl Server {
    /// A server for the host of `ctx` (a `TypeError` for a context no host made).
    pub fn new(options: ServeOptions, ctx: &Cx) -> Result<Self, StreamError> {
        Ok(Self {
            state: Rc::new(State {
                handle: LoopHandle::new(ctx)?,
                options,
                stats: Cell::new(ServerStats::default()),
                tasks: RefCell::new(Vec::new()),
                closed: Cell::new(false),
                accept_waker: RefCell::new(None),
            }),
        })
    }

    /// What the server holds now.
    pub fn stats(&self) -> ServerStats {
        self.state.stats.get()
    }

    /// Stops accepting and drops every open connection (their requests' signals abort and
    /// their response streams are cancelled on the loop's next turns). Close the server and
    /// let the loop run once more before dropping the host: a connection holds JS values.
    pub fn close(&self) {
        self.state.closed.set(true);
        let tasks = std::mem::take(&mut *self.state.tasks.borrow_mut());
        for task in tasks {
            task.abort();
        }
        let waker = self.state.accept_waker.borrow_mut().take();
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    /// Accepts connections from `listener` and serves them, each as a local task, until the
    /// future is dropped (open connections go on). Keeps the host's loop alive meanwhile.
    /// Must run inside a `LocalSet` (or a current-thread runtime's `LocalSet`).
    /// The loop is kept alive from the call on (not from the first poll), so `Host::run` does
    /// not find it idle before the task starts.
    pub fn run(self, listener: TcpListener) -> impl Future<Output = ()> {
        let alive = self.state.handle.keep_alive();
        self.accept(listener, alive)
    }

    async fn accept(self, listener: TcpListener, _alive: crate::rust::KeepAlive) {
        loop {
            let accepted = std::future::poll_fn(|cx| {
                if self.state.closed.get() {
                    return Poll::Ready(None);
                }
                *self.state.accept_waker.borrow_mut() = Some(cx.waker().clone());
                listener.poll_accept(cx).map(Some)
            })
            .await;
            let (socket, peer) = match accepted {
                None => return,
                Some(Ok(accepted)) => accepted,
                // A failed accept (out of descriptors, a reset before accept) loses one
                // connection, not the server: wait a little and go on.
                Some(Err(_)) => {
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    continue;
                }
            };
            let state = Rc::clone(&self.state);
            if state.stats.get().connections >= state.options.max_connections {
                state.update(|s| s.refused += 1);
                tokio::task::spawn_local(refuse(socket));
                continue;
            }
            let _ = socket.set_nodelay(true);
            state.update(|s| s.connections += 1);
            let counted = Counted(Rc::clone(&state));
            let task = tokio::task::spawn_local(async move {
                let _counted = counted;
                connection(state, socket, peer).await;
            });
            let mut tasks = self.state.tasks.borrow_mut();
            tasks.retain(|t| !t.is_finished());
            tasks.push(task.abort_handle());
        }
    }
}

/// Counts a connection for as long as its task lives (finished or aborted).
struct Counted(Rc<State>);

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.update(|s| s.connections -= 1);
    }
}

/// Answers a connection over the limit with a 503 and closes it.
async fn refuse(mut socket: tokio::net::TcpStream) {
    use tokio::io::AsyncWriteExt;
    let _ = socket
        .write_all(
            b"HTTP/1.1 503 Service Unavailable\r\nconnection: close\r\ncontent-length: 0\r\n\r\n",
        )
        .await;
    let _ = socket.shutdown().await;
}

/// Serves one connection until it closes, errors, or idles out.
async fn connection(state: Rc<State>, socket: tokio::net::TcpStream, peer: SocketAddr) {
    let activity = Rc::new(Cell::new(Instant::now()));
    let in_flight = Rc::new(Cell::new(0usize));
    let local = socket.local_addr().ok();
    let io = TokioIo::with_activity(socket, Rc::clone(&activity));
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(Timer)
        .header_read_timeout(Some(state.options.header_read_timeout))
        // The head's limit is its own; the buffers' is larger (see `buffer_size`): a read
        // takes a request's head and its 64 KiB body at once (one `recvfrom`, not two), and
        // the write queue takes the two frames the pump hands over for one `writev`.
        .max_header_size(state.options.max_header_bytes.max(8192))
        .max_buf_size(buffer_size(&state.options))
        .keep_alive(true);
    let service_state = Rc::clone(&state);
    let service_in_flight = Rc::clone(&in_flight);
    let service = hyper::service::service_fn(move |request| {
        let state = Rc::clone(&service_state);
        let in_flight = Rc::clone(&service_in_flight);
        async move { Ok::<_, Infallible>(respond(state, request, peer, local, in_flight).await) }
    });
    let conn = builder.serve_connection(io, service);
    let mut conn = std::pin::pin!(conn);
    let idle = state.options.idle_timeout;
    let mut sleep = Box::pin(tokio::time::sleep(idle));
    std::future::poll_fn(|cx| {
        if conn.as_mut().poll(cx).is_ready() {
            return Poll::Ready(());
        }
        while sleep.as_mut().poll(cx).is_ready() {
            let due = activity.get() + idle;
            if in_flight.get() == 0 && Instant::now() >= due {
                return Poll::Ready(());
            }
            let next = if in_flight.get() == 0 {
                due
            } else {
                Instant::now() + idle
            };
            sleep.as_mut().reset(next.into());
        }
        Poll::Pending
    })
    .await;
}

/// hyper's read and write buffer limit (`max_buf_size`) for the options: a frame and a head
/// (at most 1 MiB), and never below the head's limit (a head must fit in the read buffer) or
/// hyper's floor of 8 KiB. hyper buffers one more frame while it holds less than this, so it
/// takes the two frames the pump hands over for one write, and holds at most two; a read
/// grows to this, so a 64 KiB upload and its head come in one.
fn buffer_size(options: &ServeOptions) -> usize {
    options
        .frame_size
        .saturating_add(8192)
        .min(1 << 20)
        .max(options.max_header_bytes)
        .max(8192)
}

/// A response with no body.
fn plain(status: u16) -> hyper::Response<OutBody> {
    let mut response = hyper::Response::new(OutBody::empty());
    *response.status_mut() =
        hyper::StatusCode::from_u16(status).unwrap_or(hyper::StatusCode::INTERNAL_SERVER_ERROR);
    response
}

/// What the handler's side sends back for one request.
enum Reply {
    Response(native::ResponseParts, UnsentBody),
    Failed,
}

/// What the request's side shares with the loop: the request's signal, and whether the
/// exchange finished (then a disconnect no longer aborts it).
#[derive(Default)]
struct Exchange {
    signal: Option<engine::Object>,
    finished: bool,
}

/// Aborts the request's signal when dropped before the exchange finished (the client went
/// away), and keeps the connection's in-flight count.
struct ExchangeGuard {
    exchange: Rc<RefCell<Exchange>>,
    handle: LoopHandle,
    state: Rc<State>,
    in_flight: Rc<Cell<usize>>,
}

impl ExchangeGuard {
    fn finish(&self) {
        let signal = {
            let mut exchange = self.exchange.borrow_mut();
            exchange.finished = true;
            exchange.signal.take()
        };
        if let Some(signal) = signal {
            // Drop the handle on the loop's turn (a JS value is released there).
            self.handle.queue(move |_| drop(signal));
        }
    }
}

impl Drop for ExchangeGuard {
    fn drop(&mut self) {
        self.in_flight.set(self.in_flight.get().saturating_sub(1));
        self.state.update(|s| s.requests_in_flight -= 1);
        let signal = {
            let mut exchange = self.exchange.borrow_mut();
            if exchange.finished {
                None
            } else {
                exchange.finished = true;
                exchange.signal.take()
            }
        };
        if let Some(signal) = signal {
            self.handle.queue(move |ctx| {
                let reason = client_gone(ctx);
                if let Err(error) = dom::signal_abort(&signal, reason, ctx) {
                    report(error, ctx);
                }
            });
        }
    }
}

/// One request: to the handler and back.
async fn respond(
    state: Rc<State>,
    request: hyper::Request<Incoming>,
    peer: SocketAddr,
    local: Option<SocketAddr>,
    in_flight: Rc<Cell<usize>>,
) -> hyper::Response<OutBody> {
    let declared = content_length(request.headers());
    if declared.is_some_and(|n| n > state.options.max_body_bytes) {
        return plain(413);
    }
    let (parts, incoming) = request.into_parts();
    let Some(url) = request_url(&parts, local) else {
        return plain(400);
    };
    in_flight.set(in_flight.get() + 1);
    state.update(|s| {
        s.requests_in_flight += 1;
        s.requests += 1;
    });
    let guard = ExchangeGuard {
        exchange: Rc::new(RefCell::new(Exchange::default())),
        handle: state.handle.clone(),
        state: Rc::clone(&state),
        in_flight,
    };
    let (send, receive) = tokio::sync::oneshot::channel();
    let incoming = IncomingStream {
        body: incoming,
        left: state.options.max_body_bytes,
    };
    let has_body = !incoming.body.is_end_stream();
    let is_head = parts.method == hyper::Method::HEAD;
    let head = RequestHead {
        method: parts.method.as_str().as_bytes().to_vec(),
        url,
        headers: parts
            .headers
            .iter()
            .map(|(name, value)| (name.as_str().as_bytes().to_vec(), value.as_bytes().to_vec()))
            .collect(),
        body: has_body.then_some((incoming, declared)),
        peer,
        frame_size: state.options.frame_size.max(1),
        is_head,
    };
    let exchange = Rc::clone(&guard.exchange);
    state
        .handle
        .queue(move |ctx| dispatch(head, exchange, send, ctx));
    match receive.await {
        Ok(Reply::Response(parts, mut body)) => {
            build_response(parts, body.pump.take(), guard, is_head, &state)
        }
        Ok(Reply::Failed) | Err(_) => {
            guard.finish();
            plain(500)
        }
    }
}

/// The request's declared `Content-Length`, if valid.
fn content_length(headers: &hyper::HeaderMap) -> Option<u64> {
    headers
        .get(hyper::header::CONTENT_LENGTH)?
        .to_str()
        .ok()?
        .trim()
        .parse()
        .ok()
}

/// The request's URL: `http://` + its `Host` (or the local address) + its target, parsed.
fn request_url(parts: &hyper::http::request::Parts, local: Option<SocketAddr>) -> Option<String> {
    let target = parts.uri.path_and_query().map_or("/", |p| p.as_str());
    let authority = match parts.uri.authority() {
        Some(authority) => authority.as_str().to_owned(),
        None => match parts.headers.get(hyper::header::HOST) {
            Some(host) => host.to_str().ok()?.to_owned(),
            None => local?.to_string(),
        },
    };
    // A target the URL parser would leave as it is follows the authority's serialization
    // (parsed once per authority and kept: a connection's requests share their `Host`).
    if target_parses_as_itself(target) && authority_is_plain(&authority) {
        let prefix = URL_PREFIX.with(|cached| {
            let mut cached = cached.borrow_mut();
            if let Some((key, prefix)) = cached.as_ref() {
                if *key == authority {
                    return Some(prefix.clone());
                }
            }
            let url = url::Url::parse(&format!("http://{authority}/")).ok()?;
            let prefix = url[..url::Position::BeforePath].to_owned();
            *cached = Some((authority.clone(), prefix.clone()));
            Some(prefix)
        })?;
        return Some(prefix + target);
    }
    let url = url::Url::parse(&format!("http://{authority}{target}")).ok()?;
    Some(url.into())
}

thread_local! {
    /// The last authority a request URL was made with, and its serialization up to the path.
    static URL_PREFIX: RefCell<Option<(String, String)>> = const { RefCell::new(None) };
}

/// Whether the URL parser, given `http://host` followed by `target`, serializes the target as
/// it is: an origin-form target of characters the path and query leave alone (no
/// percent-encoding to add or to check, no backslash, which a special URL's path reads as a
/// slash), with no `.` or `..` path segment to remove.
fn target_parses_as_itself(target: &str) -> bool {
    let bytes = target.as_bytes();
    if bytes.first() != Some(&b'/') {
        return false;
    }
    let untouched = |b: &u8| b.is_ascii_alphanumeric() || b"-._~/!$&()*+,;=:@?".contains(b);
    if !bytes.iter().all(untouched) {
        return false;
    }
    let path = target.split('?').next().unwrap_or(target);
    !path
        .split('/')
        .any(|segment| segment == "." || segment == "..")
}

/// Whether `authority` is a host name or address and an optional port and nothing else, so
/// that the URL parser ends it where it ends (no userinfo, path, query or fragment in it).
fn authority_is_plain(authority: &str) -> bool {
    !authority.is_empty()
        && authority
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b':' | b'[' | b']'))
}

/// An IP address as `info.remoteAddr.hostname` gives it: an IPv4 address's four decimal
/// octets written directly (`Display` goes through the formatting machinery per request), an
/// IPv6 address as `Display` writes it.
fn ip_hostname(ip: std::net::IpAddr) -> String {
    let std::net::IpAddr::V4(v4) = ip else {
        return ip.to_string();
    };
    let mut out = String::with_capacity(15);
    for (i, octet) in v4.octets().into_iter().enumerate() {
        if i > 0 {
            out.push('.');
        }
        if octet >= 100 {
            out.push(char::from(b'0' + octet / 100));
        }
        if octet >= 10 {
            out.push(char::from(b'0' + octet / 10 % 10));
        }
        out.push(char::from(b'0' + octet % 10));
    }
    out
}

/// The request as it crosses to the loop.
struct RequestHead {
    method: Vec<u8>,
    url: String,
    headers: Vec<(Vec<u8>, Vec<u8>)>,
    body: Option<(IncomingStream, Option<u64>)>,
    peer: SocketAddr,
    /// The server's frame size (the response body's draining reads).
    frame_size: usize,
    is_head: bool,
}

traced! {
    data;
    /// The handler the global `serve(handler)` registered in the realm, and what each call's
    /// `info` argument is made of: its member names and the string `"tcp"`, made once, and one
    /// object of each of its two shapes, which script never sees: while they live, the engine
    /// keeps the shapes, so every request's `info` takes them from its cache instead of making
    /// and freeing them again (QuickJS keeps a shape only while an object has it).
    pub(crate) struct ServeHandler {
        handler: Value,
        #[unsafe_ignore_trace]
        names: Rc<InfoNames>,
        tcp: Value,
        info_shape: engine::Object,
        remote_shape: engine::Object,
    }
}

/// The member names of the handler's `info` argument.
pub(crate) struct InfoNames {
    remote_addr: engine::JsonName,
    transport: engine::JsonName,
    hostname: engine::JsonName,
    port: engine::JsonName,
}

impl ServeHandler {
    fn new(handler: Value, ctx: &mut Cx) -> JsResult<Self> {
        let names = Rc::new(InfoNames {
            remote_addr: engine::JsonName::from_str("remoteAddr", ctx)?,
            transport: engine::JsonName::from_str("transport", ctx)?,
            hostname: engine::JsonName::from_str("hostname", ctx)?,
            port: engine::JsonName::from_str("port", ctx)?,
        });
        let tcp = Value::from(JsString::from("tcp"));
        let remote_shape = new_remote_addr(&names, tcp.clone(), Value::undefined(), 0, ctx)?;
        let info_shape = new_info(&names, Value::from(remote_shape.clone()), ctx)?;
        Ok(Self {
            handler,
            names,
            tcp,
            info_shape,
            remote_shape,
        })
    }
}

/// `{ transport, hostname, port }`, made as JSON would make it.
fn new_remote_addr(
    names: &InfoNames,
    transport: Value,
    hostname: Value,
    port: u16,
    ctx: &mut Cx,
) -> JsResult<engine::Object> {
    let remote = engine::json_object(ctx)?;
    engine::json_member(&remote, &names.transport, transport, ctx)?;
    engine::json_member(&remote, &names.hostname, hostname, ctx)?;
    engine::json_member(&remote, &names.port, Value::from(f64::from(port)), ctx)?;
    Ok(remote)
}

/// `{ remoteAddr }`, made as JSON would make it.
fn new_info(names: &InfoNames, remote_addr: Value, ctx: &mut Cx) -> JsResult<engine::Object> {
    let info = engine::json_object(ctx)?;
    engine::json_member(&info, &names.remote_addr, remote_addr, ctx)?;
    Ok(info)
}

traced! {
    /// What the handler's result promise reacts with.
    struct Pending {
        #[unsafe_ignore_trace]
        send: RefCell<Option<tokio::sync::oneshot::Sender<Reply>>>,
        /// The most bytes one draining read of the response body takes.
        #[unsafe_ignore_trace]
        frame_size: usize,
        /// Whether the request is a `HEAD` (its response body is not read).
        #[unsafe_ignore_trace]
        is_head: bool,
    }
}

/// In a task of the loop: makes the `Request`, calls the handler, and sends its response.
fn dispatch(
    head: RequestHead,
    exchange: Rc<RefCell<Exchange>>,
    send: tokio::sync::oneshot::Sender<Reply>,
    ctx: &mut Cx,
) {
    let pending = Pending {
        send: RefCell::new(Some(send)),
        frame_size: head.frame_size,
        is_head: head.is_head,
    };
    if let Err(error) = call_handler(head, &exchange, &pending, ctx) {
        fail(&pending);
        report(error, ctx);
    }
}

/// Reports `error` as an uncaught exception (the host's reports): thrown from a microtask.
fn report(error: engine::JsError, ctx: &mut Cx) {
    engine::queue_microtask(ctx, move |_| Err(error));
}

fn fail(pending: &Pending) {
    let send = pending.send.borrow_mut().take();
    if let Some(send) = send {
        let _ = send.send(Reply::Failed);
    }
}

fn call_handler(
    head: RequestHead,
    exchange: &Rc<RefCell<Exchange>>,
    pending: &Pending,
    ctx: &mut Cx,
) -> JsResult<()> {
    let handler = engine::with_realm_data(ctx, |h: &ServeHandler| {
        (h.handler.clone(), Rc::clone(&h.names), h.tcp.clone())
    });
    let Some((handler, names, tcp)) = handler else {
        return Err(engine::throw_type_error(
            "serve: no handler (the script did not call serve(handler))",
        ));
    };
    let signal = dom::new_abort_signal(ctx)?;
    exchange.borrow_mut().signal = Some(signal.clone());
    let body = match head.body {
        Some((incoming, length)) => {
            let stream = StreamSource::new(incoming)
                .into_byte_stream(ctx)
                .map_err(|e| engine::throw_value(e.into_js(ctx)))?;
            Some((stream.0, length))
        }
        None => None,
    };
    let request =
        native::new_request_object(head.method, head.url, head.headers, body, signal, ctx)?;
    // { remoteAddr: { transport: 'tcp', hostname, port } }, made as JSON would make it.
    let hostname = Value::from(JsString::from(ip_hostname(head.peer.ip()).as_str()));
    let remote = new_remote_addr(&names, tcp, hostname, head.peer.port(), ctx)?;
    let info = Value::from(new_info(&names, Value::from(remote), ctx)?);
    let args = [request.into(), info];
    let result = match handler.as_object() {
        Some(object) if handler.as_callable().is_none() => {
            let fetch = object.get("fetch", ctx)?;
            engine::call(&fetch, &handler, &args, ctx)?
        }
        _ => engine::call(&handler, &Value::undefined(), &args, ctx)?,
    };
    let promise = JsPromise::resolve(result, ctx)?;
    let data = Pending {
        send: RefCell::new(pending.send.borrow_mut().take()),
        frame_size: pending.frame_size,
        is_head: pending.is_head,
    };
    engine::react(&promise, data, on_response, on_rejected, ctx)
}

fn on_response(pending: &Pending, value: Value, ctx: &mut Cx) -> JsResult<()> {
    let parts = match native::response_parts(&value, ctx) {
        Ok(Some(parts)) if parts.status != 0 => parts,
        Ok(_) => {
            fail(pending);
            let error = engine::type_error(
                "serve: the handler's result is not a Response (or is Response.error())",
                ctx,
            );
            return Err(engine::throw_value(error));
        }
        Err(error) => {
            fail(pending);
            return Err(error);
        }
    };
    let reader = match &parts.body {
        Some(OutgoingBody::Stream(stream, _)) => {
            match ReadableStream(stream.clone()).draining_reader(ctx) {
                Ok(reader) => Some(reader),
                Err(error) => {
                    fail(pending);
                    let error = error.into_js(ctx);
                    return Err(engine::throw_value(error));
                }
            }
        }
        _ => None,
    };
    let pump = reader.map(|reader| {
        let pump = Rc::new(RefCell::new(Pump::new(reader, pending.frame_size)));
        // The first frame is read now, so that it is there when hyper asks for it right after
        // the response's head (and the two go out in one write). A `HEAD` response's body is
        // not read at all.
        if !pending.is_head {
            read_ahead(&pump, ctx);
        }
        pump
    });
    let handle = match LoopHandle::new(ctx) {
        Ok(handle) => handle,
        Err(error) => {
            fail(pending);
            let error = error.into_js(ctx);
            return Err(engine::throw_value(error));
        }
    };
    // A body of bytes goes out in one write as soon as the connection runs: let it run before
    // the loop's next task (another request's handler, which may copy a body of its own), so
    // the kernel copies these bytes while they are still in the cache. With 32 connections a
    // batch of 32 handlers copied 32 bodies first: a 1 MiB body's write then cost 3× its
    // cache-hot time (perf, `static1m`). A streamed body is not hurried: its frames come from
    // later reads, and yielding after its first cost `large` about 5% (measured).
    if pump.is_none() {
        handle.yield_soon();
    }
    let body = UnsentBody { pump, handle };
    let send = pending.send.borrow_mut().take();
    if let Some(send) = send {
        let _ = send.send(Reply::Response(parts, body));
    }
    Ok(())
}

/// A response body's pump on its way from the loop to its connection. Dropped before the
/// connection takes it (the client went away before the response, whether or not the reply
/// reached the connection's channel), it cancels the stream, as a disconnect mid-body does.
struct UnsentBody {
    pump: Option<Rc<RefCell<Pump>>>,
    handle: LoopHandle,
}

impl Drop for UnsentBody {
    fn drop(&mut self) {
        if let Some(pump) = self.pump.take() {
            let reader = pump.borrow_mut().reader.take();
            if let Some(reader) = reader {
                self.handle.queue(move |ctx| {
                    let reason = client_gone(ctx);
                    drop(reader.cancel(reason, ctx));
                });
            }
        }
    }
}

/// The reason a request's signal aborts with, and its response stream is cancelled with,
/// when the client goes away.
fn client_gone(ctx: &mut Cx) -> Value {
    StreamError::dom_exception("AbortError", "the client disconnected").into_js(ctx)
}

fn on_rejected(pending: &Pending, reason: Value, _: &mut Cx) -> JsResult<()> {
    fail(pending);
    Err(engine::throw_value(reason))
}

/// hyper's response for the handler's.
fn build_response(
    parts: native::ResponseParts,
    pump: Option<Rc<RefCell<Pump>>>,
    guard: ExchangeGuard,
    is_head: bool,
    state: &Rc<State>,
) -> hyper::Response<OutBody> {
    let mut headers = hyper::HeaderMap::new();
    for (name, value) in &parts.headers {
        let (Ok(name), Ok(value)) = (
            hyper::header::HeaderName::from_bytes(name),
            hyper::header::HeaderValue::from_bytes(value),
        ) else {
            continue;
        };
        // hyper frames the body itself.
        if name == hyper::header::TRANSFER_ENCODING || name == hyper::header::CONNECTION {
            continue;
        }
        headers.append(name, value);
    }
    let body = match (parts.body, pump) {
        (Some(OutgoingBody::Bytes(bytes)), _) => {
            guard.finish();
            OutBody::full(bytes, guard)
        }
        (Some(OutgoingBody::Stream(_, length)), Some(pump)) => {
            if is_head {
                // No body goes out: let the stream go.
                let reader = pump.borrow_mut().reader.take();
                if let Some(reader) = reader {
                    guard.handle.queue(move |ctx| {
                        let reason = engine::Value::undefined();
                        drop(reader.cancel(reason, ctx));
                    });
                }
                guard.finish();
                OutBody::done(guard)
            } else {
                OutBody::stream(pump, length, guard, state)
            }
        }
        _ => {
            guard.finish();
            OutBody::done(guard)
        }
    };
    let mut response = hyper::Response::new(body);
    let status = hyper::StatusCode::from_u16(parts.status).unwrap_or(hyper::StatusCode::OK);
    *response.status_mut() = status;
    *response.headers_mut() = headers;
    // The response's status message goes out as the reason phrase when it has one of its
    // own; an empty one (the default) gets the status's canonical phrase, which hyper writes
    // by itself. One hyper cannot send (a byte outside HTTP's reason-phrase set, which
    // `statusText` already excludes) is left out.
    if !parts.status_message.is_empty()
        && status.canonical_reason().map(str::as_bytes) != Some(&parts.status_message[..])
    {
        if let Ok(reason) = hyper::ext::ReasonPhrase::try_from(Bytes::from(parts.status_message)) {
            response.extensions_mut().insert(reason);
        }
    }
    response
}

// ---------------------------------------------------------------------------------------------
// Bodies
// ---------------------------------------------------------------------------------------------

/// hyper's incoming body as a stream of byte chunks (trailers skipped), held to the body limit.
pub(crate) struct IncomingStream {
    body: Incoming,
    left: u64,
}

impl futures::Stream for IncomingStream {
    type Item = Result<Bytes, io::Error>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Option<Self::Item>> {
        let data = match super::rt::poll_data(&mut self.body, cx) {
            Poll::Ready(Some(Ok(data))) => data,
            other => return other,
        };
        let len = data.len() as u64;
        if len > self.left {
            self.left = 0;
            return Poll::Ready(Some(Err(io::Error::other(
                "the request body is larger than the server's limit",
            ))));
        }
        self.left -= len;
        Poll::Ready(Some(Ok(data)))
    }
}

/// The body of a response as hyper sends it.
pub struct OutBody {
    kind: OutKind,
    _guard: Option<ExchangeGuardHandle>,
}

/// Keeps an exchange's guard for as long as hyper holds the body.
struct ExchangeGuardHandle(#[allow(dead_code)] ExchangeGuard);

enum OutKind {
    Empty,
    Full(Option<Bytes>),
    Stream(StreamOut),
}

impl fmt::Debug for OutBody {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("OutBody")
    }
}

impl OutBody {
    fn empty() -> Self {
        Self {
            kind: OutKind::Empty,
            _guard: None,
        }
    }

    fn done(guard: ExchangeGuard) -> Self {
        Self {
            kind: OutKind::Empty,
            _guard: Some(ExchangeGuardHandle(guard)),
        }
    }

    fn full(bytes: Arc<[u8]>, guard: ExchangeGuard) -> Self {
        Self {
            // The body's source itself, shared (no copy).
            kind: OutKind::Full(Some(Bytes::from_owner(bytes))),
            _guard: Some(ExchangeGuardHandle(guard)),
        }
    }

    fn stream(
        pump: Rc<RefCell<Pump>>,
        length: Option<u64>,
        guard: ExchangeGuard,
        state: &Rc<State>,
    ) -> Self {
        state.update(|s| s.bodies_in_flight += 1);
        Self {
            kind: OutKind::Stream(StreamOut {
                handle: guard.handle.clone(),
                length,
                pump,
                state: Rc::clone(state),
                flushed_before_error: false,
                polled: false,
            }),
            _guard: Some(ExchangeGuardHandle(guard)),
        }
    }
}

impl Drop for OutBody {
    fn drop(&mut self) {
        // A stream body hyper let go of once it had the last frame (`is_end_stream`, without
        // asking for the end): the exchange is over, as when the end came from `poll_frame`.
        if let (OutKind::Stream(out), Some(ExchangeGuardHandle(guard))) = (&self.kind, &self._guard)
        {
            if out.at_end() {
                guard.finish();
            }
        }
    }
}

/// A response body read from its stream with draining reads (see [`Pump`]).
struct StreamOut {
    handle: LoopHandle,
    length: Option<u64>,
    pump: Rc<RefCell<Pump>>,
    state: Rc<State>,
    /// The stream's error was found once, and hyper had its turn to write what it holds.
    flushed_before_error: bool,
    /// hyper asked for a frame.
    polled: bool,
}

/// A response body's draining reads, shared by the loop, which reads, and the connection,
/// which hands the frames to hyper. The reads stay a frame ahead of hyper: a read starts
/// whenever at most `frame_size` bytes wait (the first one when the handler's response
/// arrives, the next ones as a read completes or hyper takes a frame). So hyper finds two
/// frames for each wake-up of the connection and writes them at once (where each frame took a
/// turn of the loop, a wake-up and a write), finds the stream's end with the last frame (the
/// last chunk goes out with it), and the first frame goes out with the head. What waits here
/// is at most two reads' worth of bytes (each up to a frame, and one chunk past it).
struct Pump {
    reader: Option<Rc<DrainingReader>>,
    frame_size: usize,
    /// A draining read is queued or in progress.
    reading: bool,
    /// Frames read and not handed to hyper yet, and their byte count.
    frames: VecDeque<Bytes>,
    buffered: usize,
    /// The stream closed or errored: no read follows.
    done: bool,
    /// The stream's error, handed to hyper after `frames`.
    error: Option<StreamError>,
    waker: Option<Waker>,
}

impl Pump {
    fn new(reader: DrainingReader, frame_size: usize) -> Self {
        Self {
            reader: Some(Rc::new(reader)),
            frame_size,
            reading: false,
            frames: VecDeque::new(),
            buffered: 0,
            done: false,
            error: None,
            waker: None,
        }
    }

    /// Whether a read should start now (then it counts as started): none is in progress, the
    /// stream may have more, and at most a frame's worth of bytes waits.
    fn claim_read(&mut self) -> bool {
        let wanted = !self.reading
            && !self.done
            && self.error.is_none()
            && self.reader.is_some()
            && self.buffered <= self.frame_size;
        if wanted {
            self.reading = true;
        }
        wanted
    }
}

/// On the loop: starts a draining read if the pump wants one (see [`Pump`]).
fn read_ahead(pump: &Rc<RefCell<Pump>>, ctx: &mut Cx) {
    if pump.borrow_mut().claim_read() {
        start_read(pump, ctx);
    }
}

/// On the loop: the draining read the pump claimed. What it reads joins the pump's frames and
/// wakes the connection; then the next read starts if the pump wants one.
fn start_read(pump: &Rc<RefCell<Pump>>, ctx: &mut Cx) {
    let (reader, limit) = {
        let mut claimed = pump.borrow_mut();
        match claimed.reader.clone() {
            Some(reader) => (reader, claimed.frame_size),
            // The body was dropped (its reader cancelled) meanwhile.
            None => {
                claimed.reading = false;
                return;
            }
        }
    };
    let weak = Rc::downgrade(pump);
    reader.read_frames_with(limit, ctx, move |result, ctx| {
        let Some(pump) = weak.upgrade() else {
            return;
        };
        let waker = {
            let mut arrived = pump.borrow_mut();
            arrived.reading = false;
            match result {
                Ok(drained) => {
                    arrived.buffered += drained.frames.iter().map(Bytes::len).sum::<usize>();
                    arrived.frames.extend(drained.frames);
                    arrived.done |= drained.done;
                }
                Err(error) => arrived.error = Some(error),
            }
            arrived.waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
        read_ahead(&pump, ctx);
    });
}

impl HttpBody for OutBody {
    type Data = Bytes;
    type Error = io::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, io::Error>>> {
        let this = &mut *self;
        let finished = match &mut this.kind {
            OutKind::Empty => return Poll::Ready(None),
            OutKind::Full(bytes) => return Poll::Ready(bytes.take().map(|b| Ok(Frame::data(b)))),
            OutKind::Stream(out) => match out.poll(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Some(Ok(bytes))) => return Poll::Ready(Some(Ok(Frame::data(bytes)))),
                Poll::Ready(other) => other,
            },
        };
        // The body ended (or failed): the exchange is over.
        if let Some(ExchangeGuardHandle(guard)) = &this._guard {
            if finished.is_none() {
                guard.finish();
            }
        }
        Poll::Ready(finished.map(|r| r.map(Frame::data)))
    }

    fn is_end_stream(&self) -> bool {
        match &self.kind {
            OutKind::Empty => true,
            OutKind::Full(bytes) => bytes.is_none(),
            // Not before hyper first asked for a frame: a stream that ended before its head went
            // out still goes out as a (chunked, empty) stream body.
            OutKind::Stream(out) => out.polled && out.at_end(),
        }
    }

    fn size_hint(&self) -> SizeHint {
        match &self.kind {
            OutKind::Empty => SizeHint::with_exact(0),
            OutKind::Full(bytes) => {
                SizeHint::with_exact(bytes.as_ref().map_or(0, |b| b.len() as u64))
            }
            OutKind::Stream(out) => match out.length {
                Some(length) => SizeHint::with_exact(length),
                None => SizeHint::default(),
            },
        }
    }
}

impl StreamOut {
    /// Whether every frame has been handed to hyper and the stream closed.
    fn at_end(&self) -> bool {
        let pump = self.pump.borrow();
        pump.frames.is_empty() && pump.done && pump.error.is_none()
    }

    /// The next frame the pump read; when none waits, a read is under way and the connection
    /// is woken when it completes.
    fn poll(&mut self, cx: &mut TaskContext<'_>) -> Poll<Option<Result<Bytes, io::Error>>> {
        self.polled = true;
        let mut pump = self.pump.borrow_mut();
        let next = if let Some(frame) = pump.frames.pop_front() {
            pump.buffered -= frame.len();
            Poll::Ready(Some(Ok(frame)))
        } else if pump.error.is_some() {
            // What came before the error goes out first: one `Pending` lets hyper write what
            // it holds (the head, and the frames before the error, as when the error came
            // from a later read), then the error resets the connection.
            if !std::mem::replace(&mut self.flushed_before_error, true) {
                cx.waker().wake_by_ref();
                return Poll::Pending;
            }
            let error = pump.error.take();
            pump.done = true;
            let message = error.map_or_else(String::new, |e| e.to_string());
            return Poll::Ready(Some(Err(io::Error::other(message))));
        } else if pump.done || pump.reader.is_none() {
            return Poll::Ready(None);
        } else {
            match &mut pump.waker {
                Some(waker) => waker.clone_from(cx.waker()),
                None => pump.waker = Some(cx.waker().clone()),
            }
            Poll::Pending
        };
        if pump.claim_read() {
            drop(pump);
            let pump = Rc::clone(&self.pump);
            self.handle.queue(move |ctx| start_read(&pump, ctx));
        }
        next
    }
}

impl Drop for StreamOut {
    fn drop(&mut self) {
        self.state.update(|s| s.bodies_in_flight -= 1);
        let reader = {
            let mut pump = self.pump.borrow_mut();
            let cancel = !pump.done;
            pump.reader.take().map(|r| (r, cancel))
        };
        // The reader's JS objects are released on the loop; a body dropped before its end
        // (the client went away) cancels the stream.
        if let Some((reader, cancel)) = reader {
            self.handle.queue(move |ctx| {
                if cancel {
                    let reason = client_gone(ctx);
                    drop(reader.cancel(reason, ctx));
                }
                drop(reader);
            });
        }
    }
}

/// The global `serve(handler)`: registers the realm's handler (a function, or an object with a
/// `fetch` method); a `TypeError` for anything else.
pub(crate) fn serve_global(_: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let handler = args.first().cloned().unwrap_or_else(Value::undefined);
    let valid = handler.as_callable().is_some()
        || match handler.as_object() {
            Some(object) => object.get("fetch", ctx)?.as_callable().is_some(),
            None => false,
        };
    if !valid {
        return Err(engine::throw_type_error(
            "serve: the handler must be a function or an object with a fetch method",
        ));
    }
    let handler = ServeHandler::new(handler, ctx)?;
    engine::set_realm_data(ctx, handler);
    Ok(Value::undefined())
}

/// Installs the global `serve(handler)` in the current realm.
pub(crate) fn install(ctx: &mut Cx) -> JsResult<()> {
    webidl::define_global_operation("serve", 1, serve_global, ctx)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The full parse, as `request_url` made every URL before its shortcut.
    fn parsed(authority: &str, target: &str) -> Option<String> {
        url::Url::parse(&format!("http://{authority}{target}"))
            .ok()
            .map(String::from)
    }

    /// `request_url` gives what the URL parser gives for every target hyper takes, shortcut or
    /// not: hand-picked targets and authorities, then 20,000 drawn from an alphabet of the
    /// characters that matter (dots, slashes, percent signs, quotes, backslashes, non-ASCII).
    #[test]
    fn request_urls_are_what_the_url_parser_gives() {
        let authorities = [
            "127.0.0.1:8080",
            "Example.COM",
            "example.com:80",
            "example.com.:0080",
            "[::1]:3000",
            "0x7f.1",
            "a",
        ];
        let targets = [
            "/",
            "/ok",
            "/a/./b",
            "/a/../b",
            "/a/..",
            "/.",
            "//x",
            "/a?b=c&d=./..",
            "/a?q='x'",
            "/%2e/x",
            "/a%20b",
            "/caf%C3%A9",
            "/a|b^c`{}",
            "/p?x",
            "/~user/!$&()*+,;=:@",
        ];
        let mut checked = 0;
        let mut check = |authority: &str, target: &str| {
            let Ok(request) = hyper::Request::builder()
                .uri(target)
                .header(hyper::header::HOST, authority)
                .body(())
            else {
                return;
            };
            let (parts, ()) = request.into_parts();
            let target = parts.uri.path_and_query().map_or("/", |p| p.as_str());
            assert_eq!(
                request_url(&parts, None),
                parsed(authority, target),
                "{authority} {target}"
            );
            checked += 1;
        };
        for authority in authorities {
            for target in targets {
                check(authority, target);
            }
        }
        let alphabet: Vec<char> = "/./.?&=a%2e'\"<>`{}|^~:@!$;,".chars().collect();
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        for _ in 0..20_000 {
            let mut target = String::from("/");
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            for i in 0..(state % 12) {
                let pick = (state >> (i * 5)) as usize % alphabet.len();
                target.push(alphabet[pick]);
            }
            check(
                authorities[(state >> 60) as usize % authorities.len()],
                &target,
            );
        }
        assert!(
            checked > 10_000,
            "only {checked} targets were taken by hyper"
        );
    }

    #[test]
    fn ipv4_hostnames_are_written_as_display_writes_them() {
        for ip in ["0.0.0.0", "127.0.0.1", "10.20.100.255", "1.99.100.9"] {
            let ip: std::net::IpAddr = ip.parse().expect("an address");
            assert_eq!(ip_hostname(ip), ip.to_string());
        }
        let v6: std::net::IpAddr = "::1".parse().expect("an address");
        assert_eq!(ip_hostname(v6), "::1");
    }
}
