//! The embedder's side of `fetch()`: a [`Fetcher`] maps a request to a response whose body a
//! Rust [`BodyReader`] (a file, any `io::Read`, an HTTP client's body) feeds chunk by chunk.
//!
//! `fetch()` handles `data:` (and, with the File API, `blob:`) URLs itself and hands every
//! other URL to the realm's fetcher; without one, such a fetch is a network error (a
//! `TypeError`): there is no network by default.
//!
//! The response body is a `ReadableStream` set up with byte reading support and a high-water
//! mark of 0: the reader is asked for the next chunk only when the stream pulls (a read is
//! waiting, or a pipe's destination wants more), so a body is never read ahead of its
//! consumer: memory stays bounded by the chunk size and the consumers' high-water marks. When
//! the request's signal aborts, or the body is canceled, the reader is dropped.

use std::{io, sync::Arc};

/// A request as `fetch()` hands it to the fetcher.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchRequest {
    /// The method (normalized: `GET`, `POST`, ... or as given).
    pub method: String,
    /// The URL, serialized (the fragment included).
    pub url: String,
    /// The header list, in order, as byte pairs.
    pub headers: Vec<(Vec<u8>, Vec<u8>)>,
    /// The request body's bytes (fully read before the fetcher is called), if it has one.
    pub body: Option<Vec<u8>>,
}

/// A source of body bytes. `read_chunk` is called when the body stream pulls; `Ok(None)` ends
/// the body, an error errors the stream with a `TypeError` carrying the message.
pub trait BodyReader {
    /// The next chunk (non-empty), or `None` at the end.
    fn read_chunk(&mut self) -> Result<Option<Vec<u8>>, String>;
}

/// Any `io::Read` as a [`BodyReader`], `chunk_size` bytes at a time.
pub struct IoBodyReader<R> {
    reader: R,
    chunk_size: usize,
}

impl<R: io::Read> IoBodyReader<R> {
    /// Reads `reader` in chunks of up to `chunk_size` bytes (at least 1).
    pub fn new(reader: R, chunk_size: usize) -> Self {
        Self {
            reader,
            chunk_size: chunk_size.max(1),
        }
    }
}

impl<R: io::Read> BodyReader for IoBodyReader<R> {
    fn read_chunk(&mut self) -> Result<Option<Vec<u8>>, String> {
        let mut chunk = vec![0; self.chunk_size];
        loop {
            match self.reader.read(&mut chunk) {
                Ok(0) => return Ok(None),
                Ok(n) => {
                    chunk.truncate(n);
                    return Ok(Some(chunk));
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e.to_string()),
            }
        }
    }
}

/// A response body as the fetcher gives it.
pub enum ResponseBody {
    /// No body (null).
    None,
    /// All the bytes at once.
    Bytes(Vec<u8>),
    /// Bytes read chunk by chunk as the stream pulls.
    Reader(Box<dyn BodyReader>),
    /// A readable stream made for the body (by a [`DeferredFetcher`]: the Rust API's async
    /// fetcher makes one that polls an async body as it pulls).
    Stream(StreamBody),
}

/// A `ReadableStream` object as a response body ([`ResponseBody::Stream`]).
pub struct StreamBody(pub(crate) crate::engine::Object<crate::readable::ReadableStream>);

impl std::fmt::Debug for StreamBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StreamBody")
    }
}

impl std::fmt::Debug for ResponseBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ResponseBody::None => f.write_str("None"),
            ResponseBody::Bytes(b) => write!(f, "Bytes({} bytes)", b.len()),
            ResponseBody::Reader(_) => f.write_str("Reader(..)"),
            ResponseBody::Stream(_) => f.write_str("Stream(..)"),
        }
    }
}

/// A response as the fetcher gives it; the async fetcher's (`rust::AsyncFetchResponse`, with
/// the `tokio` feature) is the same with an async body.
#[derive(Debug)]
pub struct FetchResponse<B = ResponseBody> {
    /// The status (200 by default).
    pub status: u16,
    /// The status message (`OK`, ...; may be empty).
    pub status_text: String,
    /// The header list, in order.
    pub headers: Vec<(Vec<u8>, Vec<u8>)>,
    /// The response's URL, if it differs from the request's (after redirects); `None` keeps
    /// the request's.
    pub url: Option<String>,
    /// The body.
    pub body: B,
}

impl<B> FetchResponse<B> {
    /// A 200 response with `body` and no headers.
    pub fn ok(body: B) -> Self {
        Self {
            status: 200,
            status_text: "OK".to_owned(),
            headers: Vec::new(),
            url: None,
            body,
        }
    }
}

/// Maps requests to responses: what an embedder gives `fetch()` (with
/// [`crate::host::HostOptions::fetcher`], or [`set_fetcher`] on a realm of its own). An `Err`
/// is a network error: `fetch()` rejects with a `TypeError` carrying the message.
///
/// `fetch` runs in a task of the event loop, after `fetch()` returned its promise; it should
/// return quickly (open the file, send the request) and leave the body to the
/// [`BodyReader`].
pub trait Fetcher: Send + Sync {
    /// The response to `request`.
    fn fetch(&self, request: &FetchRequest) -> Result<FetchResponse, String>;
}

/// How a [`DeferredFetcher`] hands its response (or network error) back, from a task of the
/// event loop.
pub type Responder = Box<dyn FnOnce(Result<FetchResponse, String>, &mut crate::engine::Cx)>;

/// What stops a fetch a [`DeferredFetcher`] started (the request's signal aborted): it drops
/// the work in progress.
pub type AbortFetch = Box<dyn FnOnce()>;

/// A fetcher that answers later, from the event loop: it starts the fetch, and calls the
/// [`Responder`] once the response is there (the Rust API's async fetcher, which polls a
/// future, is one). When the request's signal aborts first, `fetch()` calls the returned
/// [`AbortFetch`] (and ignores a later response). Takes precedence over a realm's
/// [`Fetcher`].
pub trait DeferredFetcher {
    /// Starts fetching `request`.
    fn start(
        &self,
        request: FetchRequest,
        respond: Responder,
        ctx: &mut crate::engine::Cx,
    ) -> AbortFetch;

    /// Whether the fetcher sends a request body that is a stream as it is written
    /// ([`DeferredFetcher::start_streaming`]); otherwise `fetch()` reads the body in full
    /// first.
    fn streams_uploads(&self) -> bool {
        false
    }

    /// Starts fetching `request` whose body is the stream `upload` (`request.body` is
    /// `None`), read as it sends. Called only when [`DeferredFetcher::streams_uploads`]; the
    /// default answers with a network error.
    fn start_streaming(
        &self,
        request: FetchRequest,
        upload: StreamBody,
        respond: Responder,
        ctx: &mut crate::engine::Cx,
    ) -> AbortFetch {
        let _ = (request, upload);
        respond(
            Err("this fetcher does not stream request bodies".to_owned()),
            ctx,
        );
        Box::new(|| ())
    }
}

/// Sets the current realm's deferred fetcher (replacing any earlier one).
pub fn set_deferred_fetcher(
    fetcher: std::rc::Rc<dyn DeferredFetcher>,
    ctx: &mut crate::engine::Cx,
) {
    super::fetch_method::set_deferred_fetcher(fetcher, ctx);
}

/// The realm's fetcher, shared.
pub type SharedFetcher = Arc<dyn Fetcher>;

/// Sets the fetcher of the current realm's `fetch()` (replacing any earlier one).
pub fn set_fetcher(fetcher: SharedFetcher, ctx: &mut crate::engine::Cx) {
    super::fetch_method::set_fetcher(fetcher, ctx);
}
