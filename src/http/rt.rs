//! hyper's runtime traits over tokio: a socket as `hyper::rt::Read`/`Write` (remembering when
//! bytes last moved, for the server's idle timeout) and tokio's clock as `hyper::rt::Timer`.
//! These are the few dozen lines hyper-util would otherwise bring in.

use std::{
    cell::Cell,
    future::Future,
    io,
    pin::Pin,
    rc::Rc,
    task::{Context, Poll},
    time::{Duration, Instant},
};

use tokio::io::{AsyncRead, AsyncWrite};

/// A tokio socket (any `AsyncRead`/`AsyncWrite`) as hyper's I/O (`hyper::rt::Read` and
/// `Write`), for hyper's client or server connections.
pub struct TokioIo<T> {
    inner: T,
    activity: Rc<Cell<Instant>>,
}

impl<T> std::fmt::Debug for TokioIo<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TokioIo")
    }
}

impl<T> TokioIo<T> {
    /// Wraps `inner`.
    pub fn new(inner: T) -> Self {
        Self::with_activity(inner, Rc::new(Cell::new(Instant::now())))
    }

    /// Wraps `inner`; `activity` gets the time of each read or write that moved bytes.
    pub(crate) fn with_activity(inner: T, activity: Rc<Cell<Instant>>) -> Self {
        Self { inner, activity }
    }
}

impl<T: AsyncRead + Unpin> hyper::rt::Read for TokioIo<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        mut buf: hyper::rt::ReadBufCursor<'_>,
    ) -> Poll<io::Result<()>> {
        let filled = {
            // SAFETY: `as_mut` hands out the cursor's unfilled part, which must never be
            // de-initialized; tokio's `ReadBuf` only writes initialized bytes into it and
            // never de-initializes any.
            let unfilled = unsafe { buf.as_mut() };
            let mut read_buf = tokio::io::ReadBuf::uninit(unfilled);
            match Pin::new(&mut self.inner).poll_read(cx, &mut read_buf) {
                Poll::Ready(Ok(())) => read_buf.filled().len(),
                Poll::Ready(Err(error)) => return Poll::Ready(Err(error)),
                Poll::Pending => return Poll::Pending,
            }
        };
        if filled > 0 {
            self.activity.set(Instant::now());
        }
        // SAFETY: the read just initialized the first `filled` bytes of the unfilled part
        // (`ReadBuf::filled` counts exactly those).
        unsafe { buf.advance(filled) };
        Poll::Ready(Ok(()))
    }
}

impl<T: AsyncWrite + Unpin> hyper::rt::Write for TokioIo<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let result = Pin::new(&mut self.inner).poll_write(cx, buf);
        if let Poll::Ready(Ok(n)) = result {
            if n > 0 {
                self.activity.set(Instant::now());
            }
        }
        result
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let result = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        if let Poll::Ready(Ok(n)) = result {
            if n > 0 {
                self.activity.set(Instant::now());
            }
        }
        result
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}

/// tokio's clock as hyper's timer (hyper's header-read timeout sleeps on it).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Timer;

/// A tokio sleep as hyper's `Sleep`.
struct Sleep(Pin<Box<tokio::time::Sleep>>);

impl Future for Sleep {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        self.0.as_mut().poll(cx)
    }
}

impl hyper::rt::Sleep for Sleep {}

impl hyper::rt::Timer for Timer {
    fn sleep(&self, duration: Duration) -> Pin<Box<dyn hyper::rt::Sleep>> {
        Box::pin(Sleep(Box::pin(tokio::time::sleep(duration))))
    }

    fn sleep_until(&self, deadline: Instant) -> Pin<Box<dyn hyper::rt::Sleep>> {
        Box::pin(Sleep(Box::pin(tokio::time::sleep_until(deadline.into()))))
    }
}

/// The next data chunk of hyper's incoming body (trailers and empty frames skipped); `None` at
/// its end.
pub(crate) fn poll_data(
    body: &mut hyper::body::Incoming,
    cx: &mut Context<'_>,
) -> Poll<Option<io::Result<bytes::Bytes>>> {
    use http_body::Body as _;
    loop {
        match Pin::new(&mut *body).poll_frame(cx) {
            Poll::Pending => return Poll::Pending,
            Poll::Ready(None) => return Poll::Ready(None),
            Poll::Ready(Some(Err(error))) => {
                return Poll::Ready(Some(Err(io::Error::other(error))))
            }
            Poll::Ready(Some(Ok(frame))) => {
                if let Ok(data) = frame.into_data() {
                    if !data.is_empty() {
                        return Poll::Ready(Some(Ok(data)));
                    }
                }
            }
        }
    }
}
