//! The event loop as a future (the `tokio` feature): the same turns as [`Host::run_until`],
//! with the waits on tokio's timer and the agent's waker instead of a condition variable.
//!
//! The context is `!Send`: run these futures on a current-thread runtime or a
//! `tokio::task::LocalSet`. Timers sleep on tokio's clock, so a paused runtime
//! (`tokio::time::pause`) runs them deterministically.

use std::{
    cell::RefCell,
    future::Future,
    pin::Pin,
    sync::Arc,
    task::{Context as TaskContext, Poll, Wake, Waker},
    time::Instant,
};

use super::{Context, Host, RunOutcome, Turn};

/// How many tasks the loop runs before it lets the runtime poll its other tasks and I/O.
const TASKS_PER_YIELD: u32 = 32;

impl Host {
    /// Runs the event loop until nothing is left to run (or the agent closes), as a future:
    /// the async form of `run_until(ctx, None, |_| false)`. Rust work queued meanwhile
    /// ([`crate::rust::LoopHandle`], wake-ups of the stream bridges) wakes it.
    ///
    /// ```
    /// use boa_streams::host::{Host, HostOptions, RunOutcome};
    /// let rt = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
    /// rt.block_on(async {
    ///     let (host, mut ctx) = Host::new(HostOptions::default()).unwrap();
    ///     host.eval_script(&mut ctx, "t.js", "setTimeout(() => globalThis.x = 1, 5)").unwrap();
    ///     assert_eq!(host.run(&mut ctx).await, RunOutcome::Idle);
    /// });
    /// ```
    pub async fn run(&self, ctx: &mut Context) -> RunOutcome {
        self.run_until_async(ctx, |_| false).await
    }

    /// Runs the event loop until `done` returns true (checked after every task and its
    /// microtask checkpoint), nothing is left to run, or the agent closes, as a future.
    pub async fn run_until_async(
        &self,
        ctx: &mut Context,
        done: impl FnMut(&mut Context) -> bool,
    ) -> RunOutcome {
        self.run_async(ctx, false, done).await
    }

    /// The async loop; with `never_idle`, it waits when idle instead of returning.
    async fn run_async(
        &self,
        ctx: &mut Context,
        never_idle: bool,
        mut done: impl FnMut(&mut Context) -> bool,
    ) -> RunOutcome {
        let ctx = RefCell::new(ctx);
        let mut async_jobs = self.async_jobs(&ctx);
        let mut ran = 0;
        let outcome = loop {
            match self.turn(&ctx, &mut async_jobs, None, never_idle, &mut done) {
                Turn::Ran => {
                    ran += 1;
                    if ran == TASKS_PER_YIELD
                        || crate::rust::wake::take_yield_request(&ctx.borrow())
                    {
                        ran = 0;
                        YieldNow(false).await;
                    }
                }
                Turn::Stop(outcome) => break outcome,
                Turn::Wait(wake_at) => {
                    ran = 0;
                    self.wait(wake_at).await;
                }
            }
        };
        self.end_run(async_jobs);
        outcome
    }

    /// Runs the event loop until `future` completes (polled after every turn of the loop, and
    /// whenever it is woken), and returns its output; `None` if the agent closed first. The
    /// loop waits rather than returning idle while `future` is pending (it may complete through
    /// other tasks of the runtime: a `JoinHandle`, a socket). For a [`crate::rust::Ticket`], a
    /// bridge's future, or any future that the loop's work completes.
    pub async fn complete<F: Future>(&self, ctx: &mut Context, future: F) -> Option<F::Output> {
        let mut future = std::pin::pin!(future);
        let mut output = None;
        // The future's wake-ups wake the loop too, so it checks the future again.
        let task_waker = std::future::poll_fn(|cx| Poll::Ready(cx.waker().clone())).await;
        let waker = Waker::from(Arc::new(AgentWaker {
            agent: Arc::clone(self.0.event_loop.agent()),
            task: task_waker,
        }));
        self.run_async(ctx, true, |_| {
            if output.is_none() {
                if let Poll::Ready(value) =
                    future.as_mut().poll(&mut TaskContext::from_waker(&waker))
                {
                    output = Some(value);
                }
            }
            output.is_some()
        })
        .await;
        if output.is_none() {
            if let Poll::Ready(value) = future.as_mut().poll(&mut TaskContext::from_waker(&waker)) {
                output = Some(value);
            }
        }
        output
    }

    /// Waits until `wake_at` (on tokio's clock), a message from another agent, or a wake-up.
    async fn wait(&self, wake_at: Option<Instant>) {
        let agent = self.0.event_loop.agent();
        let mut sleep = wake_at.map(|at| Box::pin(tokio::time::sleep_until(at.into())));
        std::future::poll_fn(|cx| {
            if agent.poll_wake(cx).is_ready() {
                return Poll::Ready(());
            }
            match sleep.as_mut() {
                Some(sleep) => sleep.as_mut().poll(cx),
                None => Poll::Pending,
            }
        })
        .await;
    }
}

/// Wakes the agent (so its loop runs a turn) and the task the loop runs in.
struct AgentWaker {
    agent: Arc<crate::html::Agent>,
    task: Waker,
}

impl Wake for AgentWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.agent.wake();
        self.task.wake_by_ref();
    }
}

/// Lets the runtime run its other tasks once.
struct YieldNow(bool);

impl Future for YieldNow {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<()> {
        if std::mem::replace(&mut self.0, true) {
            Poll::Ready(())
        } else {
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }
}

#[cfg(test)]
mod tests {
    use std::{cell::RefCell, rc::Rc};

    use crate::host::{Host, HostOptions};
    use crate::rust::LoopHandle;

    /// Runs three loop tasks; the first spawns a runtime task and, with `yield_soon`, asks the
    /// loop to yield after it. Returns the order in which the four ran.
    fn order(yield_soon: bool) -> Vec<&'static str> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        let local = tokio::task::LocalSet::new();
        local.block_on(&rt, async {
            let (host, mut ctx) = Host::new(HostOptions::default()).unwrap();
            let handle = LoopHandle::new(&ctx).unwrap();
            let log = Rc::new(RefCell::new(Vec::new()));
            let (first, task) = (Rc::clone(&log), Rc::clone(&log));
            let inner = handle.clone();
            handle.queue(move |_| {
                first.borrow_mut().push("task 1");
                tokio::task::spawn_local(async move { task.borrow_mut().push("runtime task") });
                if yield_soon {
                    inner.yield_soon();
                }
            });
            for name in ["task 2", "task 3"] {
                let log = Rc::clone(&log);
                handle.queue(move |_| log.borrow_mut().push(name));
            }
            host.run(&mut ctx).await;
            tokio::task::yield_now().await;
            let order = log.borrow().clone();
            order
        })
    }

    #[test]
    fn yield_soon_lets_the_runtime_run_before_the_next_task() {
        assert_eq!(order(false), ["task 1", "task 2", "task 3", "runtime task"]);
        assert_eq!(order(true), ["task 1", "runtime task", "task 2", "task 3"]);
    }
}
