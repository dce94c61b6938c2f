//! Rust work that reaches the event loop from outside a task: wake-ups of Rust futures polled
//! by stream algorithms, and closures queued without a context, from this thread
//! ([`LoopHandle`]) or any other ([`RemoteHandle`]).
//!
//! The host installs one [`WakeHub`] per agent ([`install`]); its event loop moves what
//! arrived into its task queue before it picks each task ([`deliver`]), and does not stop
//! while a Rust operation waits on a waker or a [`KeepAlive`] lives ([`keeps_alive`]). The
//! hub's `notify` wakes the loop (the agent's condition variable, or the waker of the loop's
//! future), so the same steps serve the blocking loop and the async one.

use std::{
    cell::{Cell, RefCell},
    collections::{HashMap, VecDeque},
    fmt,
    rc::{Rc, Weak},
    sync::{
        atomic::{AtomicUsize, Ordering},
        Arc, Mutex,
    },
    task::{Wake, Waker},
};

use crate::engine::{self, Cx};

use super::{Release, StreamError};

/// A closure queued from another thread.
type RemoteTask = Box<dyn FnOnce(&mut Cx) + Send>;
/// A closure queued from this thread without a context.
type LocalTask = Box<dyn FnOnce(&mut Cx)>;
/// What a woken poller runs.
#[cfg_attr(not(feature = "tokio"), allow(dead_code))]
type PollFn = Rc<dyn Fn(&mut Cx)>;

/// A registered poller's function, as the hub holds it.
type WeakPollFn = Weak<dyn Fn(&mut Cx)>;
/// What a waiting poller keeps alive until its wake-up (its operation's state).
type Hold = Rc<dyn std::any::Any>;
/// A registered poller: its function, what it holds while it waits, and what drops its
/// operation when the host shuts down.
type Entry = (WeakPollFn, Option<Hold>, WeakClearFn);
/// What drops a poller's operation when the host shuts down, as the hub holds it.
type WeakClearFn = Weak<dyn Fn()>;

/// The part of the hub other threads reach: woken poller ids, queued closures, the
/// keep-alive count, and how to wake the loop.
struct Signal {
    inbox: Mutex<Inbox>,
    keep_alive: AtomicUsize,
    notify: Arc<dyn Fn() + Send + Sync>,
}

#[derive(Default)]
struct Inbox {
    woken: Vec<u64>,
    remote: VecDeque<RemoteTask>,
}

impl Signal {
    fn lock(&self) -> std::sync::MutexGuard<'_, Inbox> {
        self.inbox
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// The agent's hub (its agent data).
pub(crate) struct WakeHub(Rc<Local>);

struct Local {
    signal: Arc<Signal>,
    tasks: RefCell<VecDeque<LocalTask>>,
    /// Each poller's function (held weakly) and, while it waits on its waker, what it holds
    /// alive until then.
    pollers: RefCell<HashMap<u64, Entry>>,
    next_id: Cell<u64>,
    /// How many pollers wait on a waker (their operation is pending).
    waiting: Cell<usize>,
    /// The Rust objects behind streams' algorithms (sources, sinks, transformers), held weakly:
    /// dropped when the host goes (see [`ShutDown`]).
    releases: RefCell<Vec<Weak<dyn Release>>>,
    /// The length at which `releases` is next rid of its dead entries (twice the live count
    /// at the last pruning: amortized constant time per registration).
    prune_at: Cell<usize>,
    /// Whether the loop should let the runtime run its other tasks after the current task
    /// ([`LoopHandle::yield_soon`]; only the async loop yields).
    #[cfg(feature = "tokio")]
    yield_soon: Cell<bool>,
}

/// Installs the agent's hub; `notify` wakes its event loop (from any thread).
pub(crate) fn install(ctx: &mut Cx, notify: Arc<dyn Fn() + Send + Sync>) -> ShutDown {
    let signal = Arc::new(Signal {
        inbox: Mutex::default(),
        keep_alive: AtomicUsize::new(0),
        notify,
    });
    let local = Rc::new(Local {
        signal,
        tasks: RefCell::default(),
        pollers: RefCell::default(),
        next_id: Cell::new(0),
        waiting: Cell::new(0),
        releases: RefCell::default(),
        prune_at: Cell::new(PRUNE_MIN),
        #[cfg(feature = "tokio")]
        yield_soon: Cell::new(false),
    });
    engine::set_agent_data(ctx, WakeHub(Rc::clone(&local)));
    ShutDown(local)
}

/// The least length at which the registered Rust objects are pruned.
const PRUNE_MIN: usize = 64;

/// Registers a stream's Rust object (source, sink or transformer) to be dropped when the host
/// goes. Without a hub (an adopted runtime) nothing is registered.
pub(crate) fn register_release(ctx: &Cx, object: Weak<dyn Release>) {
    let Ok(local) = local(ctx) else {
        return;
    };
    let mut releases = local.releases.borrow_mut();
    if releases.len() >= local.prune_at.get() {
        releases.retain(|weak| weak.strong_count() > 0);
        local.prune_at.set((releases.len() * 2).max(PRUNE_MIN));
    }
    releases.push(object);
}

/// What the host calls before its runtime goes: drops every Rust operation still waiting
/// (its state, and the JS values it holds: a controller, a completer, a fetch's promise),
/// every closure still queued, and the Rust object behind every stream's algorithms still
/// alive (a source keeping the completer of a pull that never finishes: the completer's
/// reactions hold the stream, which holds the source, a cycle through Rust the collector
/// cannot see), so no Rust root keeps a JS object alive past the runtime (QuickJS asserts
/// that none is left when it is freed).
pub(crate) struct ShutDown(Rc<Local>);

impl ShutDown {
    /// Drops what waits and what is queued.
    pub(crate) fn shut_down(&self) {
        let local = &self.0;
        let entries: Vec<(Option<Hold>, WeakClearFn)> = local
            .pollers
            .borrow_mut()
            .values_mut()
            .map(|(_, hold, clear)| (hold.take(), clear.clone()))
            .collect();
        local.waiting.set(0);
        for (hold, clear) in entries {
            if let Some(clear) = clear.upgrade() {
                clear();
            }
            drop(hold);
        }
        let tasks = std::mem::take(&mut *local.tasks.borrow_mut());
        drop(tasks);
        let remote = std::mem::take(&mut local.signal.lock().remote);
        drop(remote);
        // Taken out first: an object's drop may drop a poller (which borrows the hub).
        let releases = std::mem::take(&mut *local.releases.borrow_mut());
        for object in releases {
            if let Some(object) = object.upgrade() {
                object.release();
            }
        }
    }
}

/// Whether a task asked the loop to yield to the runtime after it ([`LoopHandle::yield_soon`]);
/// clears the request.
#[cfg(feature = "tokio")]
pub(crate) fn take_yield_request(ctx: &Cx) -> bool {
    engine::agent_data::<WakeHub>(ctx).is_some_and(|hub| hub.0.yield_soon.replace(false))
}

fn local(ctx: &Cx) -> Result<Rc<Local>, StreamError> {
    engine::agent_data::<WakeHub>(ctx)
        .map(|hub| Rc::clone(&hub.0))
        .ok_or_else(|| {
            StreamError::type_error(
                "async Rust needs the host's event loop (a context made by boa_streams::host::Host)",
            )
        })
}

/// Moves what arrived (woken pollers, closures queued from this thread and others) into the
/// task queue, one task each, in arrival order per kind; returns whether anything arrived.
pub(crate) fn deliver(ctx: &mut Cx) -> bool {
    let Ok(local) = local(ctx) else {
        return false;
    };
    let (woken, remote) = {
        let mut inbox = local.signal.lock();
        (
            std::mem::take(&mut inbox.woken),
            std::mem::take(&mut inbox.remote),
        )
    };
    let tasks = std::mem::take(&mut *local.tasks.borrow_mut());
    let any = !woken.is_empty() || !remote.is_empty() || !tasks.is_empty();
    for id in woken {
        let (poll, hold) = {
            let mut pollers = local.pollers.borrow_mut();
            match pollers.get_mut(&id) {
                Some((poll, hold, _)) => {
                    let hold = hold.take();
                    if hold.is_some() {
                        local.waiting.set(local.waiting.get().saturating_sub(1));
                    }
                    (poll.upgrade(), hold)
                }
                None => (None, None),
            }
        };
        match poll {
            Some(poll) => engine::queue_task(ctx, move |ctx| {
                poll(ctx);
                // Held until the poll ran (it may wait again, with a new hold).
                drop(hold);
                Ok(())
            }),
            // Dropped outside the borrow: it may drop a poller, which unregisters itself.
            None => drop(hold),
        }
    }
    for task in tasks {
        engine::queue_task(ctx, move |ctx| {
            task(ctx);
            Ok(())
        });
    }
    for task in remote {
        engine::queue_task(ctx, move |ctx| {
            task(ctx);
            Ok(())
        });
    }
    any
}

/// Whether Rust work may still arrive: a poller waits on its waker, a closure is queued, or a
/// [`KeepAlive`] lives.
pub(crate) fn keeps_alive(ctx: &Cx) -> bool {
    let Ok(local) = local(ctx) else {
        return false;
    };
    if local.waiting.get() > 0 || !local.tasks.borrow().is_empty() {
        return true;
    }
    if local.signal.keep_alive.load(Ordering::SeqCst) > 0 {
        return true;
    }
    let inbox = local.signal.lock();
    !inbox.woken.is_empty() || !inbox.remote.is_empty()
}

/// A poller's waker: records its id and wakes the loop.
#[cfg_attr(not(feature = "tokio"), allow(dead_code))]
struct IdWaker {
    id: u64,
    signal: Arc<Signal>,
}

impl Wake for IdWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.signal.lock().woken.push(self.id);
        (self.signal.notify)();
    }
}

/// A Rust operation polled from the event loop: when its waker is woken, `poll` runs as a
/// task. Dropping the poller unregisters it (a later wake-up does nothing).
#[cfg_attr(not(feature = "tokio"), allow(dead_code))]
pub(crate) struct Poller {
    id: u64,
    local: Rc<Local>,
    waker: Waker,
}

impl fmt::Debug for Poller {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Poller").field("id", &self.id).finish()
    }
}

#[cfg_attr(not(feature = "tokio"), allow(dead_code))]
impl Poller {
    /// Registers `poll` (held weakly: its owner keeps it alive) and `clear`, which drops the
    /// operation when the host shuts down (held weakly too).
    pub(crate) fn new(poll: &PollFn, clear: &Rc<dyn Fn()>, ctx: &Cx) -> Result<Self, StreamError> {
        let local = local(ctx)?;
        let id = local.next_id.get();
        local.next_id.set(id.wrapping_add(1));
        local
            .pollers
            .borrow_mut()
            .insert(id, (Rc::downgrade(poll), None, Rc::downgrade(clear)));
        let waker = Waker::from(Arc::new(IdWaker {
            id,
            signal: Arc::clone(&local.signal),
        }));
        Ok(Self { id, local, waker })
    }

    /// The waker to poll with.
    pub(crate) fn waker(&self) -> &Waker {
        &self.waker
    }

    /// Marks the operation as waiting on the waker, holding `hold` alive until the wake-up
    /// (the loop stays alive meanwhile).
    pub(crate) fn set_waiting(&self, hold: Hold) {
        let previous = {
            let mut pollers = self.local.pollers.borrow_mut();
            match pollers.get_mut(&self.id) {
                Some((_, slot, _)) => {
                    let previous = slot.replace(hold);
                    if previous.is_none() {
                        self.local.waiting.set(self.local.waiting.get() + 1);
                    }
                    previous
                }
                None => Some(hold),
            }
        };
        // Dropped outside the borrow.
        drop(previous);
    }
}

impl Drop for Poller {
    fn drop(&mut self) {
        let removed = self.local.pollers.borrow_mut().remove(&self.id);
        if let Some((_, Some(hold), _)) = removed {
            self.local
                .waiting
                .set(self.local.waiting.get().saturating_sub(1));
            // Dropped outside the borrow.
            drop(hold);
        }
    }
}

/// A handle on the event loop of this thread's host: queues closures that run as tasks,
/// without a context (from a tokio task on the same `LocalSet`, a `Drop`, a stream's
/// `poll_next`). Cloning clones the handle. Not `Send`: see [`LoopHandle::remote`].
///
/// ```
/// use boa_streams::host::{Host, HostOptions};
/// use boa_streams::rust::LoopHandle;
/// use std::{cell::Cell, rc::Rc};
/// let (host, mut ctx) = Host::new(HostOptions::default()).unwrap();
/// let handle = LoopHandle::new(&ctx).unwrap();
/// let ran = Rc::new(Cell::new(false));
/// let flag = ran.clone();
/// handle.queue(move |_ctx| flag.set(true));
/// host.run_until(&mut ctx, None, &mut |_| false);
/// assert!(ran.get());
/// ```
#[derive(Clone)]
pub struct LoopHandle(Rc<Local>);

impl fmt::Debug for LoopHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("LoopHandle")
    }
}

impl LoopHandle {
    /// The handle of the event loop of `ctx`'s host: a `TypeError` for a context the host did
    /// not make.
    pub fn new(ctx: &Cx) -> Result<Self, StreamError> {
        local(ctx).map(Self)
    }

    /// Queues `task` to run as a task of the event loop (and wakes the loop).
    pub fn queue(&self, task: impl FnOnce(&mut Cx) + 'static) {
        self.0.tasks.borrow_mut().push_back(Box::new(task));
        (self.0.signal.notify)();
    }

    /// Asks the loop to let the runtime run its other tasks as soon as the current task and
    /// its microtasks are done, instead of after its batch of tasks: for work just handed to
    /// another task of the runtime that should run while its bytes are still in the cache (a
    /// response ready for its connection to write).
    #[cfg(feature = "tokio")]
    pub(crate) fn yield_soon(&self) {
        self.0.yield_soon.set(true);
    }

    /// A handle other threads can queue `Send` closures with.
    pub fn remote(&self) -> RemoteHandle {
        RemoteHandle(Arc::clone(&self.0.signal))
    }

    /// A guard that keeps the event loop running (waiting, not returning idle) while it lives:
    /// for work that will be queued later (a server accepting connections).
    pub fn keep_alive(&self) -> KeepAlive {
        self.remote().keep_alive()
    }
}

/// A `Send` handle on an event loop: queues closures from any thread.
#[derive(Clone)]
pub struct RemoteHandle(Arc<Signal>);

impl fmt::Debug for RemoteHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("RemoteHandle")
    }
}

impl RemoteHandle {
    /// Queues `task` to run as a task of the event loop (and wakes the loop).
    pub fn queue(&self, task: impl FnOnce(&mut Cx) + Send + 'static) {
        self.0.lock().remote.push_back(Box::new(task));
        (self.0.notify)();
    }

    /// A guard that keeps the event loop running while it lives (see
    /// [`LoopHandle::keep_alive`]).
    pub fn keep_alive(&self) -> KeepAlive {
        self.0.keep_alive.fetch_add(1, Ordering::SeqCst);
        KeepAlive(Arc::clone(&self.0))
    }
}

/// Keeps an event loop running while it lives ([`LoopHandle::keep_alive`]); dropping it wakes
/// the loop, which then may return idle.
pub struct KeepAlive(Arc<Signal>);

impl fmt::Debug for KeepAlive {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("KeepAlive")
    }
}

impl Drop for KeepAlive {
    fn drop(&mut self) {
        self.0.keep_alive.fetch_sub(1, Ordering::SeqCst);
        (self.0.notify)();
    }
}
