//! Tickets: results that arrive through the event loop.

use std::{
    cell::RefCell,
    fmt,
    future::Future,
    pin::Pin,
    rc::Rc,
    task::{Context as TaskContext, Poll, Waker},
};

use crate::engine::Cx;

/// An event loop that runs tasks and microtasks until a condition holds: what
/// [`Ticket::wait`] drives. The embedding's [`crate::host::Host`] is one.
pub trait EventLoop {
    /// Runs the loop until `done` returns true or nothing is left to run.
    fn run_until_done(&self, ctx: &mut Cx, done: &mut dyn FnMut(&mut Cx) -> bool);
}

struct Inner<T> {
    value: Option<T>,
    waker: Option<Waker>,
}

/// A result that arrives later, through the host's event loop: poll it ([`Ticket::take`]),
/// wait for it while the loop runs ([`Ticket::wait`]), or `.await` it (while something else
/// drives the loop).
///
/// ```
/// use boa_streams::host::{Host, HostOptions};
/// use boa_streams::rust::ReadableStream;
/// let (host, mut ctx) = Host::new(HostOptions::default()).unwrap();
/// let value = host.eval_script(&mut ctx, "s.js", "new ReadableStream({ pull(c) { c.enqueue(1) } })").unwrap().into();
/// let reader = ReadableStream::from_value(&value).unwrap().reader(&mut ctx).unwrap();
/// let ticket = reader.read(&mut ctx);
/// assert!(!ticket.is_ready()); // results come from a microtask
/// let chunk = ticket.wait(&host, &mut ctx).unwrap().unwrap().unwrap();
/// assert_eq!(chunk.as_number(), Some(1.0));
/// ```
pub struct Ticket<T>(Rc<RefCell<Inner<T>>>);

impl<T> fmt::Debug for Ticket<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Ticket")
            .field("ready", &self.is_ready())
            .finish()
    }
}

impl<T> Ticket<T> {
    /// A pending ticket, and the function that fills it.
    pub(crate) fn new() -> (Self, impl FnOnce(T) + 'static)
    where
        T: 'static,
    {
        let inner = Rc::new(RefCell::new(Inner {
            value: None,
            waker: None,
        }));
        let filler = Rc::clone(&inner);
        let fill = move |value: T| {
            let waker = {
                let mut inner = filler.borrow_mut();
                inner.value = Some(value);
                inner.waker.take()
            };
            if let Some(waker) = waker {
                waker.wake();
            }
        };
        (Self(inner), fill)
    }

    /// Whether the result has arrived (and was not taken yet).
    pub fn is_ready(&self) -> bool {
        self.0.borrow().value.is_some()
    }

    /// Takes the result if it has arrived.
    pub fn take(&self) -> Option<T> {
        self.0.borrow_mut().value.take()
    }

    /// Runs the event loop (the host's) until the result arrives (or nothing is left to run:
    /// then `None`), and takes it.
    pub fn wait(&self, event_loop: &(impl EventLoop + ?Sized), ctx: &mut Cx) -> Option<T> {
        if !self.is_ready() {
            event_loop.run_until_done(ctx, &mut |_| self.is_ready());
        }
        self.take()
    }
}

impl<T> Future for Ticket<T> {
    type Output = T;

    fn poll(self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<T> {
        let mut inner = self.0.borrow_mut();
        match inner.value.take() {
            Some(value) => Poll::Ready(value),
            None => {
                inner.waker = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}

traced! {
    /// A settled-later callback held by a reaction (not traced: it holds roots only).
    struct Notify(#[unsafe_ignore_trace] Rc<RefCell<Option<NotifyFn>>>);
}

type NotifyFn = Box<dyn FnOnce(Result<crate::engine::Value, crate::engine::Value>)>;

/// A ticket for the settlement of `promise` (an internal reaction: no `then` lookup, and the
/// promise counts as handled).
pub(crate) fn ticket_for_promise(
    promise: &crate::engine::JsPromise,
    ctx: &mut Cx,
) -> Ticket<Result<(), super::StreamError>> {
    let (ticket, fill) = Ticket::new();
    let notify = Notify(Rc::new(RefCell::new(Some(Box::new(move |result| {
        fill(result.map(drop).map_err(super::StreamError::Js));
    })))));
    let _ = crate::engine::react(
        promise,
        notify,
        |n, v, _| {
            settle(n, Ok(v));
            Ok(())
        },
        |n, e, _| {
            settle(n, Err(e));
            Ok(())
        },
        ctx,
    );
    ticket
}

fn settle(notify: &Notify, result: Result<crate::engine::Value, crate::engine::Value>) {
    let f = notify.0.borrow_mut().take();
    if let Some(f) = f {
        f(result);
    }
}
