//! Adapters from `std::io::Read` and to `std::io::Write`.

use std::io::{ErrorKind, Read, Write};

use crate::engine::Cx;

use super::{
    sink::{Sink, WritableController, WritableStream},
    source::{ByteController, ByteSource, ReadableStream},
    Completion, StreamError, Value,
};

/// A byte source that reads from a [`std::io::Read`], straight into the readers' buffers.
///
/// Each pull makes one `read` call into the waiting read's buffer (a BYOB reader's view, or the
/// `chunk_size` buffer the stream allocates for a default reader): no intermediate buffer.
/// End of file closes the stream; an I/O error errors it with a `TypeError` carrying the
/// error's message; cancelling the stream drops the reader. The reads are blocking calls on
/// the event loop's thread: use it for files and in-memory data, not for slow sockets.
///
/// ```
/// use boa_streams::host::{Host, HostOptions};
/// use boa_streams::rust::ReadSource;
/// let (host, mut ctx) = Host::new(HostOptions::default()).unwrap();
/// let stream = ReadSource::new(&b"hello, world"[..], 5).into_stream(&mut ctx).unwrap();
/// let reader = stream.reader(&mut ctx).unwrap();
/// let first = reader.read(&mut ctx).wait(&host, &mut ctx).unwrap().unwrap().unwrap();
/// let bytes = boa_streams::rust::with_chunk_bytes(&first, &mut ctx, |b| b.to_vec()).unwrap();
/// assert_eq!(bytes, b"hello");
/// ```
#[derive(Debug)]
pub struct ReadSource<R> {
    reader: Option<R>,
    chunk_size: usize,
}

impl<R: Read + 'static> ReadSource<R> {
    /// A source reading from `reader`, in chunks of up to `chunk_size` bytes for default
    /// readers (at least 1).
    pub fn new(reader: R, chunk_size: usize) -> Self {
        Self {
            reader: Some(reader),
            chunk_size: chunk_size.max(1),
        }
    }

    /// The readable byte stream of this source (high-water mark 0: nothing is read before a
    /// read asks; `autoAllocateChunkSize` = the chunk size).
    pub fn into_stream(self, ctx: &mut Cx) -> Result<ReadableStream, StreamError> {
        let chunk_size = self.chunk_size;
        ReadableStream::from_byte_source(self, 0.0, Some(chunk_size), ctx)
    }
}

fn read_retrying<R: Read>(reader: &mut R, buf: &mut [u8]) -> std::io::Result<usize> {
    loop {
        match reader.read(buf) {
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            other => return other,
        }
    }
}

impl<R: Read + 'static> ByteSource for ReadSource<R> {
    fn pull(&mut self, c: &ByteController, ctx: &mut Cx) -> Result<Completion, StreamError> {
        let Some(reader) = self.reader.as_mut() else {
            return Ok(Completion::Ready);
        };
        let n = match c.byob_request() {
            Some(request) => {
                let n = request
                    .fill(|buf| read_retrying(reader, buf))
                    .unwrap_or(Ok(0))?;
                if n > 0 {
                    request.respond(n, ctx)?;
                }
                n
            }
            None => {
                // Pulled ahead of any read (a high-water mark above 0): one chunk, copied in.
                let mut buf = vec![0; self.chunk_size];
                let n = read_retrying(reader, &mut buf)?;
                if n > 0 {
                    c.enqueue(&buf[..n], ctx)?;
                }
                n
            }
        };
        if n == 0 {
            self.reader = None;
            c.close(ctx)?;
        }
        Ok(Completion::Ready)
    }

    fn cancel(&mut self, _reason: Value, _ctx: &mut Cx) -> Result<Completion, StreamError> {
        self.reader = None;
        Ok(Completion::Ready)
    }
}

/// A sink that writes every chunk to a [`std::io::Write`].
///
/// Chunks must be `ArrayBuffer`s or `ArrayBufferView`s (written without copying) or strings
/// (written as UTF-8); anything else errors the stream with a `TypeError`, and so does an I/O
/// error (with its message). Closing the stream flushes the writer; aborting drops it.
///
/// ```
/// use boa_streams::host::{Host, HostOptions};
/// use boa_streams::rust::WriteSink;
/// let (host, mut ctx) = Host::new(HostOptions::default()).unwrap();
/// let sink = WriteSink::new(std::io::sink()).into_stream(&mut ctx).unwrap();
/// assert!(!sink.is_locked());
/// ```
#[derive(Debug)]
pub struct WriteSink<W> {
    writer: Option<W>,
}

impl<W: Write + 'static> WriteSink<W> {
    /// A sink writing to `writer`.
    pub fn new(writer: W) -> Self {
        Self {
            writer: Some(writer),
        }
    }

    /// The writable stream of this sink (high-water mark 1 chunk).
    pub fn into_stream(self, ctx: &mut Cx) -> Result<WritableStream, StreamError> {
        WritableStream::from_sink(self, 1.0, ctx)
    }
}

impl<W: Write + 'static> Sink for WriteSink<W> {
    fn write(
        &mut self,
        chunk: Value,
        _: &WritableController,
        ctx: &mut Cx,
    ) -> Result<Completion, StreamError> {
        let Some(writer) = self.writer.as_mut() else {
            return Err(StreamError::type_error("The sink is closed"));
        };
        if let Some(text) = chunk.as_string() {
            writer.write_all(text.to_std_string_escaped().as_bytes())?;
            return Ok(Completion::Ready);
        }
        super::with_chunk_bytes(&chunk, ctx, |bytes| writer.write_all(bytes)).ok_or_else(
            || {
                StreamError::type_error(
                    "The chunk must be an ArrayBuffer, an ArrayBufferView or a string",
                )
            },
        )??;
        Ok(Completion::Ready)
    }

    fn close(&mut self, _ctx: &mut Cx) -> Result<Completion, StreamError> {
        if let Some(writer) = self.writer.as_mut() {
            writer.flush()?;
        }
        Ok(Completion::Ready)
    }

    fn abort(&mut self, _reason: Value, _ctx: &mut Cx) -> Result<Completion, StreamError> {
        self.writer = None;
        Ok(Completion::Ready)
    }
}
