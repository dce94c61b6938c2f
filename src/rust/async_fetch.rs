//! `fetch()` over an async Rust fetcher (the `tokio` feature): a request becomes a future of a
//! response whose body is an async byte stream, polled from the event loop as the body's
//! `ReadableStream` pulls. Aborting the request drops the future (or the body).

use std::{
    cell::RefCell,
    fmt,
    future::Future,
    io,
    pin::Pin,
    rc::Rc,
    task::{Context as TaskContext, Poll},
};

use bytes::Bytes;
use tokio::io::AsyncRead;

use crate::engine::Cx;
use crate::fetch::fetcher::{
    AbortFetch, DeferredFetcher, FetchRequest, FetchResponse, Responder, ResponseBody, StreamBody,
};

use super::{
    async_io::{AsyncReadSource, Driver, ShutDown, StreamSource},
    StreamError,
};

/// A response body as an async fetcher gives it.
pub enum AsyncBody {
    /// No body (null).
    None,
    /// All the bytes at once.
    Bytes(Bytes),
    /// A stream of chunks, polled as the body is read.
    Stream(Pin<Box<dyn futures::Stream<Item = Result<Bytes, io::Error>>>>),
    /// A reader, read `chunk_size` bytes at a time (straight into a BYOB read's view) as the
    /// body is read.
    Read(Pin<Box<dyn AsyncRead>>, usize),
}

impl AsyncBody {
    /// A body from a stream of byte chunks.
    pub fn stream(stream: impl futures::Stream<Item = Result<Bytes, io::Error>> + 'static) -> Self {
        Self::Stream(Box::pin(stream))
    }

    /// A body read from `reader`, `chunk_size` bytes at a time.
    pub fn read(reader: impl AsyncRead + 'static, chunk_size: usize) -> Self {
        Self::Read(Box::pin(reader), chunk_size)
    }
}

impl fmt::Debug for AsyncBody {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::None => f.write_str("None"),
            Self::Bytes(bytes) => write!(f, "Bytes({} bytes)", bytes.len()),
            Self::Stream(_) => f.write_str("Stream(..)"),
            Self::Read(_, chunk_size) => write!(f, "Read(.., {chunk_size})"),
        }
    }
}

/// A response as an async fetcher gives it: [`crate::fetcher::FetchResponse`] with an
/// [`AsyncBody`].
pub type AsyncFetchResponse = crate::fetcher::FetchResponse<AsyncBody>;

/// The future an async fetcher returns: the response, or a network error (`fetch()` rejects
/// with a `TypeError` carrying the message).
pub type FetchFuture = Pin<Box<dyn Future<Output = Result<AsyncFetchResponse, String>>>>;

/// An async fetcher: what `fetch()` hands every request it does not serve itself (`data:`,
/// `blob:`) once [`set_async_fetcher`] installed it. The future is polled from the event loop
/// (it may await sockets, timers and channels of the runtime the loop runs on); the body is
/// polled only as the response's body stream pulls, so a slow reader holds the fetch back.
/// When the request's signal aborts, the future (or the body, once there is a response) is
/// dropped.
///
/// ```
/// use boa_streams::host::{Host, HostOptions};
/// use boa_streams::fetcher::FetchRequest;
/// use boa_streams::rust::{set_async_fetcher, AsyncBody, AsyncFetchResponse, AsyncFetcher, FetchFuture};
///
/// struct Echo;
/// impl AsyncFetcher for Echo {
///     fn fetch(&self, request: FetchRequest) -> FetchFuture {
///         Box::pin(async move {
///             let body = bytes::Bytes::from(request.url.into_bytes());
///             Ok(AsyncFetchResponse::ok(AsyncBody::Bytes(body)))
///         })
///     }
/// }
///
/// let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
/// rt.block_on(async {
///     let (host, mut ctx) = Host::new(HostOptions::default()).unwrap();
///     set_async_fetcher(Echo, &mut ctx).unwrap();
///     host.eval_script(&mut ctx, "f.js", "fetch('https://x.test/').then(r => r.text()).then(t => globalThis.t = t)").unwrap();
///     host.run(&mut ctx).await;
///     let t = host.eval_script(&mut ctx, "t.js", "t").unwrap();
///     assert_eq!(t.to_string(&mut ctx).unwrap().to_std_string_escaped(), "https://x.test/");
/// });
/// ```
pub trait AsyncFetcher: 'static {
    /// The response to `request`, as a future.
    fn fetch(&self, request: FetchRequest) -> FetchFuture;

    /// Whether the fetcher sends a request body that is a `ReadableStream` as script writes it
    /// ([`AsyncFetcher::fetch_with_upload`]); otherwise (the default) `fetch()` reads such a
    /// body in full first and calls [`AsyncFetcher::fetch`].
    fn streams_uploads(&self) -> bool {
        false
    }

    /// The response to `request`, whose body is the stream `upload` (`request.body` is
    /// `None`): called only when [`AsyncFetcher::streams_uploads`]. Dropping `upload` before
    /// its end cancels the body's stream. The default is a network error.
    fn fetch_with_upload(&self, request: FetchRequest, upload: UploadStream) -> FetchFuture {
        drop((request, upload));
        Box::pin(async { Err("this fetcher does not stream request bodies".to_owned()) })
    }
}

/// A request body that is a stream, as an async fetcher reads it: a `futures::Stream` of its
/// chunks' bytes (see [`super::IntoStream`]).
pub type UploadStream = super::IntoStream;

/// Makes `fetcher` the current realm's fetcher (it takes precedence over a synchronous
/// [`crate::fetcher::Fetcher`]). A `TypeError` for a context the host did not make.
pub fn set_async_fetcher(fetcher: impl AsyncFetcher, ctx: &mut Cx) -> Result<(), StreamError> {
    super::LoopHandle::new(ctx)?;
    crate::fetch::fetcher::set_deferred_fetcher(Rc::new(Adapter(Rc::new(fetcher))), ctx);
    Ok(())
}

/// An [`AsyncFetcher`] as `fetch()`'s deferred fetcher.
struct Adapter(Rc<dyn AsyncFetcher>);

/// One fetch in progress: the future until it is ready, then what drops the body.
struct InFlight {
    future: RefCell<Option<FetchFuture>>,
    respond: RefCell<Option<Responder>>,
    driver: RefCell<Option<Driver>>,
    drop_body: RefCell<Option<Box<dyn FnOnce()>>>,
}

impl ShutDown for InFlight {
    fn shut_down(&self) {
        let future = self.future.borrow_mut().take();
        let respond = self.respond.borrow_mut().take();
        let driver = self.driver.borrow_mut().take();
        drop((future, respond, driver));
    }
}

impl DeferredFetcher for Adapter {
    fn start(&self, request: FetchRequest, respond: Responder, ctx: &mut Cx) -> AbortFetch {
        begin(self.0.fetch(request), respond, ctx)
    }

    fn streams_uploads(&self) -> bool {
        self.0.streams_uploads()
    }

    fn start_streaming(
        &self,
        request: FetchRequest,
        upload: crate::fetch::fetcher::StreamBody,
        respond: Responder,
        ctx: &mut Cx,
    ) -> AbortFetch {
        match super::ReadableStream(upload.0).into_stream(ctx) {
            Ok(upload) => begin(self.0.fetch_with_upload(request, upload), respond, ctx),
            Err(error) => {
                respond(Err(error.to_string()), ctx);
                Box::new(|| ())
            }
        }
    }
}

/// Polls `future` from the loop and responds with its outcome; the closure it returns drops
/// the work in progress.
fn begin(future: FetchFuture, respond: Responder, ctx: &mut Cx) -> AbortFetch {
    let state = Rc::new(InFlight {
        future: RefCell::new(Some(future)),
        respond: RefCell::new(Some(respond)),
        driver: RefCell::new(None),
        drop_body: RefCell::new(None),
    });
    match Driver::new(&state, step, ctx) {
        Ok(driver) => *state.driver.borrow_mut() = Some(driver),
        Err(error) => {
            let respond = state.respond.borrow_mut().take();
            if let Some(respond) = respond {
                respond(Err(error.to_string()), ctx);
            }
        }
    }
    step(&state, ctx);
    // The fetch call holds the abort closure, and the closure holds the fetch in progress
    // (the future until it is ready, then what drops the body).
    Box::new(move || {
        let future = state.future.borrow_mut().take();
        let driver = state.driver.borrow_mut().take();
        let respond = state.respond.borrow_mut().take();
        drop((future, driver, respond));
        let drop_body = state.drop_body.borrow_mut().take();
        if let Some(drop_body) = drop_body {
            drop_body();
        }
    })
}

/// Polls the fetch's future; once it is ready, makes the body's stream and responds.
fn step(state: &Rc<InFlight>, ctx: &mut Cx) {
    let Some(mut future) = state.future.borrow_mut().take() else {
        return;
    };
    let Some(waker) = state.driver.borrow().as_ref().map(Driver::waker) else {
        return;
    };
    let outcome = match future.as_mut().poll(&mut TaskContext::from_waker(&waker)) {
        Poll::Pending => {
            *state.future.borrow_mut() = Some(future);
            if let Some(driver) = state.driver.borrow().as_ref() {
                driver.set_waiting(Rc::clone(state) as Rc<dyn std::any::Any>);
            }
            return;
        }
        Poll::Ready(outcome) => outcome,
    };
    drop(future);
    let driver = state.driver.borrow_mut().take();
    drop(driver);
    let response = outcome.and_then(|response| {
        let (body, drop_body) = response_body(response.body, ctx).map_err(|e| e.to_string())?;
        *state.drop_body.borrow_mut() = drop_body;
        Ok(FetchResponse {
            status: response.status,
            status_text: response.status_text,
            headers: response.headers,
            url: response.url,
            body,
        })
    });
    let respond = state.respond.borrow_mut().take();
    if let Some(respond) = respond {
        respond(response, ctx);
    }
}

/// The body as `fetch()` takes it, and what drops its Rust side (on abort).
type BodyAndDropper = (ResponseBody, Option<Box<dyn FnOnce()>>);

/// The response body's stream: a byte stream (high-water mark 0) polling the async body.
fn response_body(body: AsyncBody, ctx: &mut Cx) -> Result<BodyAndDropper, StreamError> {
    Ok(match body {
        AsyncBody::None => (ResponseBody::None, None),
        AsyncBody::Bytes(bytes) => (ResponseBody::Bytes(Vec::from(bytes)), None),
        AsyncBody::Stream(stream) => {
            let source = StreamSource::new(stream);
            let dropper = source.dropper();
            let stream = source.into_byte_stream(ctx)?;
            (ResponseBody::Stream(StreamBody(stream.0)), Some(dropper))
        }
        AsyncBody::Read(reader, chunk_size) => {
            let source = AsyncReadSource::new(reader, chunk_size);
            let dropper = source.dropper();
            let stream = source.into_stream(ctx)?;
            (ResponseBody::Stream(StreamBody(stream.0)), Some(dropper))
        }
    })
}
