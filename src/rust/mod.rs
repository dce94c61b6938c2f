//! # The Rust API: native sources, sinks and transformers, and Rust readers
//!
//! Streams whose underlying source, sink or transformer is Rust code, and readers that let Rust
//! consume any `ReadableStream`, JavaScript-backed or not. These are the spec's streams: a Rust
//! source is one more kind of pull algorithm in the controller's `[[pullAlgorithm]]` slot (as a
//! `TransformStream`'s or a tee's are), so script sees ordinary `ReadableStream`,
//! `WritableStream` and `TransformStream` objects that pass brand checks and can be piped,
//! teed and iterated; and a Rust reader is one more kind of read request.
//!
//! | you have | you make |
//! |---|---|
//! | a [`Source`] (pull values) | [`ReadableStream::from_source`] |
//! | a [`ByteSource`] (fill buffers in place) | [`ReadableStream::from_byte_source`] |
//! | a [`Sink`] | [`WritableStream::from_sink`] |
//! | a [`Transformer`] | [`TransformStream::from_transformer`] |
//! | a [`std::io::Read`] | [`ReadSource`] (a byte source) |
//! | a [`std::io::Write`] | [`WriteSink`] (a sink) |
//! | any `ReadableStream` to consume | [`Reader`] (one chunk per read) or [`DrainingReader`] (every chunk available now, up to a byte limit) |
//! | async Rust (`tokio` feature) | see "Async Rust" below |
//!
//! ## Completion: now or later
//!
//! Every callback returns `Result<`[`Completion`]`, `[`StreamError`]`>`: `Ok(Completion::Ready)`
//! when the operation finished synchronously, `Ok(completion)` from [`Completion::later`] when it
//! finishes later (keep the [`Completer`] and call [`Completer::complete`] or
//! [`Completer::fail`] from a task, a timer or another callback: [`queue_task`] queues one),
//! and `Err(error)` when it failed: the stream then errors with `error` converted to the JS
//! value the error names ([`StreamError::into_js`]).
//!
//! ## Results through the event loop
//!
//! Readers hand results back as the spec's promises would: from a microtask, never from inside
//! the operation that produced them. Each read either takes a callback
//! ([`Reader::read_with`], [`DrainingReader::read_with`]) or returns a [`Ticket`], a handle to
//! poll ([`Ticket::take`]), to wait on while the host's event loop runs ([`Ticket::wait`], which
//! drives `Host::run_until`), or to `.await` ([`Ticket`] is a [`std::future::Future`]).
//!
//! ## Re-entrancy
//!
//! A callback may call back into its own stream: enqueue from `pull`, cancel the stream from
//! `pull`, write from a sink's `write`, read from a reader's callback. No borrow of a stream's
//! slots is held while a Rust callback runs; a callback that would re-enter the same Rust
//! object (the stream cancelled from inside its own `pull`) is deferred to a microtask, and the
//! spec's promise for it settles when it has run.
//!
//! ## Async Rust
//!
//! [`Ticket`] implements [`std::future::Future`]. With the `tokio` feature the host's event
//! loop is a future too (`Host::run`, `Host::run_until_async`, `Host::complete`, on a
//! current-thread runtime or a `LocalSet`: the [`Context`] is `!Send`), and streams bridge to
//! the async ecosystem, polled from the loop with wakers that queue the next poll as a task
//! (nothing is polled ahead of what the stream asks for):
//!
//! | you have | you make |
//! |---|---|
//! | a `futures::Stream` of byte chunks | `ReadableStream::from_stream` (`StreamSource`) |
//! | a tokio `AsyncRead` | `ReadableStream::from_async_read` (`AsyncReadSource`, a byte stream filling the reads' buffers in place) |
//! | a `ReadableStream` to read from async Rust | `into_stream` (`IntoStream`, a `futures::Stream` of `Bytes`) or `into_async_read` (`IntoAsyncRead`) |
//! | a tokio `AsyncWrite` | `WritableStream::from_async_write` (`AsyncWriteSink`) |
//! | a `futures::Sink<Bytes>` | `WritableStream::from_futures_sink` (`FuturesSink`) |
//! | a `WritableStream` to write from async Rust | `into_sink` (`IntoSink`, a `futures::Sink<Bytes>`) |
//! | a pipe with options, abortable | `ReadableStream::pipe_to_with_options` (`PipeOptions`, `AbortHandle`) |
//! | an async HTTP client for `fetch()` | `set_async_fetcher` (`AsyncFetcher`) |
//!
//! Without the feature, feed async data with [`queue_task`] and a [`Completer`];
//! [`LoopHandle`] and [`RemoteHandle`] queue closures on the loop without a context, from this
//! thread or any other, in either build.
//!
//! ## Garbage collection
//!
//! Rust sources, sinks, transformers and callbacks are not traced by the engine's collector:
//! any JS value they hold is a root for as long as they live. Hold stream handles in them
//! sparingly (a source that holds its own stream keeps it alive until cancelled or closed).
//!
//! ## Example
//!
//! A Rust source of three strings, read by JavaScript:
//!
//! ```
//! use boa_streams::host::{Host, HostOptions};
//! use boa_streams::rust::{Completion, ReadableController, ReadableStream, Source, StreamError};
//! use boa_streams::rust::{Context, Value};
//!
//! struct Words(Vec<&'static str>);
//!
//! impl Source for Words {
//!     fn pull(&mut self, c: &ReadableController, ctx: &mut Context)
//!         -> Result<Completion, StreamError> {
//!         match self.0.pop() {
//!             Some(word) => c.enqueue(Value::from(boa_streams::rust::js_string(word)), ctx)?,
//!             None => c.close(ctx)?,
//!         }
//!         Ok(Completion::Ready)
//!     }
//! }
//!
//! let (host, mut ctx) = Host::new(HostOptions::default()).unwrap();
//! let stream = ReadableStream::from_source(Words(vec!["c", "b", "a"]), 1.0, &mut ctx).unwrap();
//! ctx.global_object()
//!     .set(boa_streams::rust::js_string("words"), stream.to_value(), false, &mut ctx)
//!     .unwrap();
//! host.eval_script(&mut ctx, "main.js", r#"
//!     globalThis.out = [];
//!     (async () => { for await (const w of words) out.push(w); })();
//! "#).unwrap();
//! host.run_until(&mut ctx, None, &mut |_| false);
//! let out = host.eval_script(&mut ctx, "check.js", "out.join(' ')").unwrap();
//! assert_eq!(out.to_string(&mut ctx).unwrap().to_std_string_escaped(), "a b c");
//! ```

#[cfg(feature = "tokio")]
mod async_fetch;
#[cfg(feature = "tokio")]
mod async_io;
mod error;
mod io;
mod reader;
mod sink;
mod source;
mod ticket;
mod transform;
pub(crate) mod wake;

use std::{cell::RefCell, fmt, rc::Rc};

#[cfg(feature = "tokio")]
pub use async_fetch::{
    set_async_fetcher, AsyncBody, AsyncFetchResponse, AsyncFetcher, FetchFuture, UploadStream,
};
#[cfg(feature = "tokio")]
pub use async_io::{
    AbortHandle, AsyncReadSource, AsyncWriteSink, FuturesSink, IntoAsyncRead, IntoSink, IntoStream,
    PipeOptions, StreamSource,
};
pub use error::StreamError;
pub use io::{ReadSource, WriteSink};
#[cfg(all(feature = "tokio", test))]
pub(crate) use reader::DrainedFrames;
pub use reader::{Drained, DrainedBytes, DrainingReader, ReadResult, Reader};
pub use sink::{ByteSink, Sink, WritableController, WritableStream};
pub use source::{
    ByobRequest, ByteController, ByteSource, ReadableController, ReadableStream, Source,
};
pub use ticket::{EventLoop, Ticket};
pub use transform::{TransformController, TransformStream, Transformer};
pub use wake::{KeepAlive, LoopHandle, RemoteHandle};

/// The engine's execution context (Boa's `Context`): every stream operation takes one.
pub use crate::engine::Cx as Context;
/// The engine's value type (Boa's `JsValue`): chunks, reasons and errors.
pub use crate::engine::Value;

use crate::engine::{self, internal_promise::InternalPromise, Cx, JsResult};
use crate::engine::{upon_settlement, PromiseResult};

/// A JS string value from Rust text (for chunks and reasons).
pub fn js_string(text: &str) -> crate::engine::JsString {
    crate::engine::JsString::from(text)
}

/// How a callback finished: now, or later through a [`Completer`].
#[derive(Debug)]
pub enum Completion {
    /// The operation finished synchronously.
    Ready,
    /// The operation finishes when its [`Completer`] is completed or failed.
    Later(LaterToken),
}

/// The promise a [`Completion::Later`] stands for (opaque: made by [`Completion::later`]).
#[derive(Debug)]
pub struct LaterToken(InternalPromise);

impl Completion {
    /// A completion that finishes later, and the handle that finishes it.
    ///
    /// ```
    /// use boa_streams::rust::Completion;
    /// let (completion, completer) = Completion::later();
    /// assert!(matches!(completion, Completion::Later(_)));
    /// # drop(completer);
    /// ```
    pub fn later() -> (Completion, Completer) {
        let promise = InternalPromise::new();
        (
            Completion::Later(LaterToken(promise.clone())),
            Completer(promise),
        )
    }
}

/// Finishes a [`Completion::Later`]: from a task, a timer, or any later callback. Dropping it
/// without completing leaves the operation pending for ever (the stream stalls, as a JS source
/// whose `pull` promise never settles does).
pub struct Completer(InternalPromise);

impl fmt::Debug for Completer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Completer")
    }
}

impl Completer {
    /// The operation succeeded.
    ///
    /// ```
    /// use boa_streams::host::{Host, HostOptions};
    /// use boa_streams::rust::Completion;
    /// let (_host, mut ctx) = Host::new(HostOptions::default()).unwrap();
    /// let (_completion, completer) = Completion::later();
    /// completer.complete(&mut ctx);
    /// ```
    pub fn complete(self, ctx: &mut Cx) {
        // Resolving with undefined reads no `then`: it cannot fail.
        let _ = self.0.resolve(Value::undefined(), ctx);
    }

    /// The operation failed with `error` (the stream errors with its JS value).
    ///
    /// ```
    /// use boa_streams::host::{Host, HostOptions};
    /// use boa_streams::rust::{Completion, StreamError};
    /// let (_host, mut ctx) = Host::new(HostOptions::default()).unwrap();
    /// let (_completion, completer) = Completion::later();
    /// completer.fail(StreamError::type_error("disk on fire"), &mut ctx);
    /// ```
    pub fn fail(self, error: StreamError, ctx: &mut Cx) {
        let reason = error.into_js(ctx);
        self.0.reject(reason, ctx);
    }
}

/// Queues a task on the host's event loop that runs `task` (HTML's "queue a global task"):
/// where a [`Completer`] is completed "later". An error `task` returns is reported by the host
/// as an uncaught exception.
///
/// ```
/// use boa_streams::host::{Host, HostOptions};
/// use std::{cell::Cell, rc::Rc};
/// let (host, mut ctx) = Host::new(HostOptions::default()).unwrap();
/// let ran = Rc::new(Cell::new(false));
/// let flag = ran.clone();
/// boa_streams::rust::queue_task(&mut ctx, move |_ctx| { flag.set(true); Ok(()) });
/// host.run_until(&mut ctx, None, &mut |_| false);
/// assert!(ran.get());
/// ```
pub fn queue_task(ctx: &mut Cx, task: impl FnOnce(&mut Cx) -> Result<(), StreamError> + 'static) {
    engine::queue_task(ctx, move |ctx| {
        task(ctx).map_err(|e| {
            let value = e.into_js(ctx);
            crate::engine::throw_value(value)
        })
    });
}

/// Runs `f` on the bytes of a chunk that is an `ArrayBuffer` or an `ArrayBufferView` (a
/// `Uint8Array`, any typed array, a `DataView`), without copying them; `None` for any other
/// value. `f` gets no context, so it cannot run script while the bytes are borrowed.
///
/// ```
/// use boa_streams::host::{Host, HostOptions};
/// let (host, mut ctx) = Host::new(HostOptions::default()).unwrap();
/// let chunk = host.eval_script(&mut ctx, "c.js", "new Uint8Array([1, 2, 3]).subarray(1)").unwrap().into();
/// let sum = boa_streams::rust::with_chunk_bytes(&chunk, &mut ctx, |b| b.iter().sum::<u8>());
/// assert_eq!(sum, Some(5));
/// ```
pub fn with_chunk_bytes<R>(value: &Value, ctx: &mut Cx, f: impl FnOnce(&[u8]) -> R) -> Option<R> {
    engine::with_buffer_source_bytes(value, ctx, f)
}

/// A new `Uint8Array` holding a copy of `bytes` (a chunk for a value stream or a sink).
///
/// ```
/// use boa_streams::host::{Host, HostOptions};
/// let (_host, mut ctx) = Host::new(HostOptions::default()).unwrap();
/// let chunk = boa_streams::rust::uint8_array(b"hi", &mut ctx).unwrap();
/// assert_eq!(boa_streams::rust::with_chunk_bytes(&chunk, &mut ctx, |b| b.to_vec()), Some(b"hi".to_vec()));
/// ```
pub fn uint8_array(bytes: &[u8], ctx: &mut Cx) -> Result<Value, StreamError> {
    engine::new_uint8_array(bytes, ctx).map_err(|e| StreamError::from_js_error(e, ctx))
}

/// A Rust object shared between a stream's algorithm slots (pull and cancel, write, close and
/// abort, ...). The collector does not trace it (see the module docs): the JS values it holds
/// (a [`Completer`] it keeps, a controller) are roots, so a cycle through it (the object holds
/// a completer whose reaction holds the stream that holds the object) is never collected. The
/// host's wake hub therefore holds it weakly and drops the object when the host goes, before
/// the runtime (`wake::ShutDown`): QuickJS asserts at `JS_FreeRuntime` that no object is left.
pub(crate) struct Callbacks<T: ?Sized>(Rc<RefCell<Option<Box<T>>>>);

/// What the host drops when it goes: the Rust object of a [`Callbacks`].
pub(crate) trait Release {
    /// Drops the Rust object (unless it is running: then it is never released, as before).
    fn release(&self);
}

impl<T: ?Sized> Release for RefCell<Option<Box<T>>> {
    fn release(&self) {
        let object = match self.try_borrow_mut() {
            Ok(mut slot) => slot.take(),
            Err(_) => None,
        };
        // Dropped after the borrow ended: its drop may reach other Rust objects.
        drop(object);
    }
}

impl<T: ?Sized> Clone for Callbacks<T> {
    fn clone(&self) -> Self {
        Self(Rc::clone(&self.0))
    }
}

impl<T: ?Sized> fmt::Debug for Callbacks<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Callbacks(Rust callback)")
    }
}

impl<T: ?Sized + 'static> Callbacks<T> {
    /// Shares `object`, registered with the host's wake hub (where there is one: an adopted
    /// runtime's application tears its agent down itself) to be dropped when the host goes.
    pub(crate) fn new(object: Box<T>, ctx: &Cx) -> Self {
        let cell = Rc::new(RefCell::new(Some(object)));
        let weak: std::rc::Weak<dyn Release> = Rc::downgrade(&cell) as _;
        wake::register_release(ctx, weak);
        Self(cell)
    }

    /// Performs one callback of the shared object as an algorithm returning a promise.
    ///
    /// The object is borrowed only while `f` runs. If it is already borrowed (`f` is a
    /// re-entrant call: the stream was cancelled from inside its own pull), `f` runs in a
    /// microtask instead, and the result settles once it has.
    pub(crate) fn perform(
        &self,
        ctx: &mut Cx,
        f: impl FnOnce(&mut T, &mut Cx) -> Result<Completion, StreamError> + 'static,
    ) -> JsResult<PromiseResult> {
        let outcome = match self.0.try_borrow_mut() {
            Ok(mut slot) => match slot.as_deref_mut() {
                Some(object) => f(object, ctx),
                // Released: the host has gone (no script runs after that; kept total).
                None => Err(StreamError::type_error("the host has shut down")),
            },
            Err(_) => {
                let deferred = InternalPromise::new();
                let (this, result) = (self.clone(), deferred.clone());
                engine::queue_microtask(ctx, move |ctx| {
                    let inner = this.perform(ctx, f)?;
                    upon_settlement(
                        inner,
                        result,
                        |result, value, ctx| result.resolve(value, ctx),
                        |result, reason, ctx| {
                            result.reject(reason, ctx);
                            Ok(())
                        },
                        ctx,
                    )
                });
                return Ok(PromiseResult::Internal(deferred));
            }
        };
        Ok(match outcome {
            Ok(Completion::Ready) => PromiseResult::undefined(),
            Ok(Completion::Later(LaterToken(promise))) => PromiseResult::Internal(promise),
            Err(error) => PromiseResult::Rejected(error.into_js(ctx)),
        })
    }
}
