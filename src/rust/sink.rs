//! Writable streams from Rust sinks.

use crate::engine::{webidl, Cx, JsResult, Object};
use crate::queuing_strategy::SizeAlgorithm;
use crate::writable::{
    default_controller::{self, writable_stream_default_controller_error_if_needed},
    other_specs::{self, NativeSink, NativeUnderlyingSink},
    stream::is_writable_stream_locked,
    WritableStreamDefaultController,
};

use super::{Callbacks, Completion, StreamError, Value};
use crate::engine::PromiseResult;
use crate::queue::NativeBytes;
use std::rc::Rc;

/// The shared Rust object behind a writable stream's write, close and abort algorithms.
type RustSink = Callbacks<dyn Sink>;

/// An underlying sink written in Rust ([`WritableStream::from_sink`]).
///
/// `write` is the stream's `[[writeAlgorithm]]`: called once per chunk, in order, never before the
/// previous write has completed (a [`Completion::later`] write holds the next one back, and
/// the writer's `ready` promise reflects the queue against the high-water mark).
///
/// ```
/// use boa_streams::rust::{Completion, Context, Sink, StreamError, Value, WritableController};
///
/// /// Collects the bytes of every chunk.
/// struct Collect(Vec<u8>);
///
/// impl Sink for Collect {
///     fn write(&mut self, chunk: Value, _: &WritableController, ctx: &mut Context)
///         -> Result<Completion, StreamError> {
///         boa_streams::rust::with_chunk_bytes(&chunk, ctx, |b| self.0.extend_from_slice(b))
///             .ok_or_else(|| StreamError::type_error("chunks must be bytes"))?;
///         Ok(Completion::Ready)
///     }
/// }
/// ```
pub trait Sink: 'static {
    /// Writes one chunk. An `Err` errors the stream (the write's promise rejects with it).
    fn write(
        &mut self,
        chunk: Value,
        controller: &WritableController,
        ctx: &mut Cx,
    ) -> Result<Completion, StreamError>;

    /// Called once after the last write, when the producer closes the stream. The default does
    /// nothing.
    fn close(&mut self, ctx: &mut Cx) -> Result<Completion, StreamError> {
        let _ = ctx;
        Ok(Completion::Ready)
    }

    /// Called when the producer aborts the stream (or a pipe aborts it), with the reason, after
    /// any write in flight has completed. The default does nothing.
    fn abort(&mut self, reason: Value, ctx: &mut Cx) -> Result<Completion, StreamError> {
        let _ = (reason, ctx);
        Ok(Completion::Ready)
    }
}

traced! {
    data;
    /// A Rust sink as the writable stream's native underlying sink: an object no script can
    /// reach, holding the shared sink.
    struct SinkObject(#[unsafe_ignore_trace] RustSink);
}

impl NativeUnderlyingSink for SinkObject {
    fn write(
        this: &Object<Self>,
        chunk: Value,
        controller: Value,
        ctx: &mut Cx,
    ) -> JsResult<PromiseResult> {
        let sink = this.borrow().data().0.clone();
        perform_write(&sink, chunk, controller, ctx)
    }

    fn close(this: &Object<Self>, ctx: &mut Cx) -> JsResult<PromiseResult> {
        let sink = this.borrow().data().0.clone();
        perform_close(&sink, ctx)
    }

    fn abort(this: &Object<Self>, reason: Value, ctx: &mut Cx) -> JsResult<PromiseResult> {
        let sink = this.borrow().data().0.clone();
        perform_abort(&sink, reason, ctx)
    }
}

/// An underlying sink written in Rust that takes bytes ([`WritableStream::from_byte_sink`]).
///
/// Chunks that script writes must be an `ArrayBuffer` or an `ArrayBufferView` (any other chunk
/// errors the stream with a `TypeError`), and `write` gets a copy of their bytes. Chunks that a
/// pipe moves from a Rust byte source ([`crate::rust::ReadableStream::from_byte_source`] with
/// an `auto_allocate_chunk_size`) reach `write` as the bytes the source filled, with no JS
/// object made for them: the pipe reads into its own recycled buffers, so a pipe from a Rust
/// source to a byte sink moves each chunk with the one copy the source makes.
///
/// ```
/// use boa_streams::rust::{ByteSink, Completion, Context, StreamError, WritableController};
///
/// /// Counts the bytes written.
/// struct Count(u64);
///
/// impl ByteSink for Count {
///     fn write(&mut self, bytes: &[u8], _: &WritableController, _: &mut Context)
///         -> Result<Completion, StreamError> {
///         self.0 += bytes.len() as u64;
///         Ok(Completion::Ready)
///     }
/// }
/// ```
pub trait ByteSink: 'static {
    /// Writes one chunk's bytes (see [`Sink::write`]).
    fn write(
        &mut self,
        bytes: &[u8],
        controller: &WritableController,
        ctx: &mut Cx,
    ) -> Result<Completion, StreamError>;

    /// Called once after the last write, when the producer closes the stream (see
    /// [`Sink::close`]). The default does nothing.
    fn close(&mut self, ctx: &mut Cx) -> Result<Completion, StreamError> {
        let _ = ctx;
        Ok(Completion::Ready)
    }

    /// Called when the producer aborts the stream (see [`Sink::abort`]). The default does
    /// nothing.
    fn abort(&mut self, reason: Value, ctx: &mut Cx) -> Result<Completion, StreamError> {
        let _ = (reason, ctx);
        Ok(Completion::Ready)
    }
}

/// The shared Rust object behind a byte sink's algorithms.
type RustByteSink = Callbacks<dyn ByteSink>;

traced! {
    data;
    /// A Rust byte sink as the writable stream's native underlying sink.
    struct ByteSinkObject(#[unsafe_ignore_trace] RustByteSink);
}

impl NativeUnderlyingSink for ByteSinkObject {
    fn takes_bytes(_: &Object<Self>) -> bool {
        true
    }

    fn write(
        this: &Object<Self>,
        chunk: Value,
        controller: Value,
        ctx: &mut Cx,
    ) -> JsResult<PromiseResult> {
        let sink = this.borrow().data().0.clone();
        let Some(controller) = writable_controller(&controller) else {
            return Ok(PromiseResult::undefined());
        };
        let bytes = super::with_chunk_bytes(&chunk, ctx, <[u8]>::to_vec);
        sink.perform(ctx, move |sink, ctx| {
            let bytes = bytes.ok_or_else(|| {
                StreamError::type_error("The chunk must be an ArrayBuffer or an ArrayBufferView")
            })?;
            sink.write(&bytes, &controller, ctx)
        })
    }

    fn write_bytes(
        this: &Object<Self>,
        bytes: Rc<NativeBytes>,
        controller: Value,
        ctx: &mut Cx,
    ) -> JsResult<PromiseResult> {
        let sink = this.borrow().data().0.clone();
        let Some(controller) = writable_controller(&controller) else {
            return Ok(PromiseResult::undefined());
        };
        sink.perform(ctx, move |sink, ctx| {
            sink.write(bytes.as_slice(), &controller, ctx)
        })
    }

    fn close(this: &Object<Self>, ctx: &mut Cx) -> JsResult<PromiseResult> {
        let sink = this.borrow().data().0.clone();
        sink.perform(ctx, |sink, ctx| sink.close(ctx))
    }

    fn abort(this: &Object<Self>, reason: Value, ctx: &mut Cx) -> JsResult<PromiseResult> {
        let sink = this.borrow().data().0.clone();
        sink.perform(ctx, move |sink, ctx| sink.abort(reason, ctx))
    }
}

/// The Rust view of a writable stream's controller, given as the write algorithm's argument.
fn writable_controller(controller: &Value) -> Option<WritableController> {
    controller
        .as_object()
        .and_then(|o| o.clone().downcast::<WritableStreamDefaultController>().ok())
        .map(WritableController)
}

/// A `RangeError` for a negative or NaN high-water mark.
fn check_high_water_mark(high_water_mark: f64) -> Result<(), StreamError> {
    if high_water_mark.is_nan() || high_water_mark < 0.0 {
        return Err(StreamError::range_error(
            "The high-water mark must be a non-negative number",
        ));
    }
    Ok(())
}

/// The [[writeAlgorithm]] of a Rust sink.
fn perform_write(
    sink: &RustSink,
    chunk: Value,
    controller: Value,
    ctx: &mut Cx,
) -> JsResult<PromiseResult> {
    let Some(controller) = controller
        .as_object()
        .and_then(|o| o.clone().downcast::<WritableStreamDefaultController>().ok())
    else {
        return Ok(PromiseResult::undefined());
    };
    let controller = WritableController(controller);
    sink.perform(ctx, move |sink, ctx| sink.write(chunk, &controller, ctx))
}

/// The [[closeAlgorithm]] of a Rust sink.
fn perform_close(sink: &RustSink, ctx: &mut Cx) -> JsResult<PromiseResult> {
    sink.perform(ctx, |sink, ctx| sink.close(ctx))
}

/// The [[abortAlgorithm]] of a Rust sink.
fn perform_abort(sink: &RustSink, reason: Value, ctx: &mut Cx) -> JsResult<PromiseResult> {
    sink.perform(ctx, move |sink, ctx| sink.abort(reason, ctx))
}

/// A writable stream's controller (its `WritableStreamDefaultController`), as a Rust sink sees
/// it.
#[derive(Debug, Clone)]
pub struct WritableController(Object<WritableStreamDefaultController>);

impl WritableController {
    /// `controller.error(e)`: errors the stream (nothing unless it is writable).
    pub fn error(&self, error: StreamError, ctx: &mut Cx) {
        let e = error.into_js(ctx);
        let _ = writable_stream_default_controller_error_if_needed(&self.0, e, ctx);
    }

    /// `controller.signal`: the `AbortSignal` that is aborted when the stream is.
    pub fn signal(&self) -> Value {
        default_controller::signal(&self.0).into()
    }
}

/// A handle on a `WritableStream` object: one made from a Rust sink, or any stream script made
/// ([`WritableStream::from_value`]).
///
/// ```
/// use boa_streams::host::{Host, HostOptions};
/// use boa_streams::rust::{Completion, Context, Sink, StreamError, Value, WritableController, WritableStream};
/// use std::{cell::RefCell, rc::Rc};
///
/// struct Log(Rc<RefCell<Vec<String>>>);
/// impl Sink for Log {
///     fn write(&mut self, chunk: Value, _: &WritableController, ctx: &mut Context)
///         -> Result<Completion, StreamError> {
///         let text = chunk.to_string(ctx).map_err(|_| StreamError::type_error("not a string"))?;
///         self.0.borrow_mut().push(text.to_std_string_escaped());
///         Ok(Completion::Ready)
///     }
/// }
///
/// let (host, mut ctx) = Host::new(HostOptions::default()).unwrap();
/// let log = Rc::new(RefCell::new(Vec::new()));
/// let sink = WritableStream::from_sink(Log(log.clone()), 1.0, &mut ctx).unwrap();
/// let global = ctx.global_object();
/// global.set(boa_streams::rust::js_string("sink"), sink.to_value(), false, &mut ctx).unwrap();
/// host.eval_script(&mut ctx, "main.js", r#"
///     const w = sink.getWriter(); w.write('x'); w.write('y'); w.close();
/// "#).unwrap();
/// host.run_until(&mut ctx, None, &mut |_| false);
/// assert_eq!(*log.borrow(), ["x", "y"]);
/// ```
#[derive(Debug, Clone)]
pub struct WritableStream(pub(crate) Object<crate::writable::WritableStream>);

impl WritableStream {
    /// A writable stream whose underlying sink is `sink` (CreateWritableStream with Rust write,
    /// close and abort algorithms); `high_water_mark` counts chunks. A `RangeError` for a
    /// negative or NaN high-water mark.
    pub fn from_sink(
        sink: impl Sink,
        high_water_mark: f64,
        ctx: &mut Cx,
    ) -> Result<Self, StreamError> {
        check_high_water_mark(high_water_mark)?;
        let shared: RustSink = Callbacks::new(Box::new(sink), ctx);
        let sink = webidl::internal_object(SinkObject(shared), ctx);
        Self::with_native_sink(&sink, high_water_mark, ctx)
    }

    /// A writable stream whose underlying sink is the byte sink `sink` (see [`ByteSink`]);
    /// `high_water_mark` counts chunks. A `RangeError` for a negative or NaN high-water mark.
    ///
    /// ```
    /// use boa_streams::host::{Host, HostOptions};
    /// use boa_streams::rust::{ByteSink, Completion, Context, ReadableStream, StreamError, WritableController, WritableStream};
    /// use boa_streams::rust::{ByteController, ByteSource};
    /// use std::{cell::RefCell, rc::Rc};
    ///
    /// struct Collect(Rc<RefCell<Vec<u8>>>);
    /// impl ByteSink for Collect {
    ///     fn write(&mut self, bytes: &[u8], _: &WritableController, _: &mut Context)
    ///         -> Result<Completion, StreamError> {
    ///         self.0.borrow_mut().extend_from_slice(bytes);
    ///         Ok(Completion::Ready)
    ///     }
    /// }
    /// /// Three chunks of "abc", filled in place.
    /// struct Abc(u8);
    /// impl ByteSource for Abc {
    ///     fn pull(&mut self, c: &ByteController, ctx: &mut Context) -> Result<Completion, StreamError> {
    ///         if self.0 == 3 {
    ///             return c.close(ctx).map(|()| Completion::Ready);
    ///         }
    ///         self.0 += 1;
    ///         let request = c.byob_request().expect("a read is waiting");
    ///         let n = request.fill(|buf| { buf[..3].copy_from_slice(b"abc"); 3 }).unwrap_or(0);
    ///         request.respond(n, ctx)?;
    ///         Ok(Completion::Ready)
    ///     }
    /// }
    ///
    /// let (host, mut ctx) = Host::new(HostOptions::default()).unwrap();
    /// let out = Rc::new(RefCell::new(Vec::new()));
    /// let sink = WritableStream::from_byte_sink(Collect(out.clone()), 1.0, &mut ctx).unwrap();
    /// let source = ReadableStream::from_byte_source(Abc(0), 0.0, Some(16), &mut ctx).unwrap();
    /// let done = source.pipe_to(&sink, &mut ctx);
    /// host.run_until(&mut ctx, None, &mut |_| false);
    /// assert!(matches!(done.take(), Some(Ok(()))));
    /// assert_eq!(&*out.borrow(), b"abcabcabc");
    /// ```
    pub fn from_byte_sink(
        sink: impl ByteSink,
        high_water_mark: f64,
        ctx: &mut Cx,
    ) -> Result<Self, StreamError> {
        check_high_water_mark(high_water_mark)?;
        let shared: RustByteSink = Callbacks::new(Box::new(sink), ctx);
        let sink = webidl::internal_object(ByteSinkObject(shared), ctx);
        Self::with_native_sink(&sink, high_water_mark, ctx)
    }

    /// A new `WritableStream` set up with `sink`'s algorithms (each chunk counts 1).
    fn with_native_sink<T: NativeUnderlyingSink>(
        sink: &Object<T>,
        high_water_mark: f64,
        ctx: &mut Cx,
    ) -> Result<Self, StreamError> {
        let stream = other_specs::new_writable_stream(ctx)
            .and_then(|stream| {
                let sink = NativeSink::new(sink);
                other_specs::set_up(&stream, sink, high_water_mark, SizeAlgorithm::One, ctx)?;
                Ok(stream)
            })
            .map_err(|e| StreamError::from_js_error(e, ctx))?;
        Ok(Self(stream))
    }

    /// The stream behind a JS value, if it is a `WritableStream`.
    pub fn from_value(value: &Value) -> Option<Self> {
        value
            .as_object()
            .and_then(|o| o.clone().downcast::<crate::writable::WritableStream>().ok())
            .map(Self)
    }

    /// The `WritableStream` object, to hand to script.
    pub fn to_value(&self) -> Value {
        self.0.clone().upcast().into()
    }

    /// `stream.locked`.
    pub fn is_locked(&self) -> bool {
        is_writable_stream_locked(&self.0)
    }
}

impl From<WritableStream> for Value {
    fn from(stream: WritableStream) -> Value {
        stream.to_value()
    }
}
