//! The thread-safe half of message ports: each port's *port message queue* and entanglement
//! (a [`PortCore`]), and each agent's inbox of ports that have something to dispatch (an
//! [`Agent`]). Nothing here holds a JS value: what crosses threads is serialized data
//! ([`super::serialize::SerializedWithTransfer`]).
//!
//! Locking: a lock is held only to read or change one core (or one inbox), never two at once,
//! and nothing is dropped while a lock is held (dropping a message may drop the ports it
//! carries, which locks their peers).
//!
//! <https://html.spec.whatwg.org/multipage/web-messaging.html#message-ports>

use std::{
    collections::VecDeque,
    sync::{
        atomic::{AtomicU64, AtomicUsize, Ordering},
        Arc, Condvar, Mutex, MutexGuard, Weak,
    },
    time::Instant,
};

use super::serialize::SerializedWithTransfer;

static NEXT_ID: AtomicU64 = AtomicU64::new(1);
static LIVE_CORES: AtomicUsize = AtomicUsize::new(0);

/// How many port message queues (one per `MessagePort`, whichever agent owns it) are alive in
/// this process: a debug counter for leak tests.
pub fn live_port_queues() -> usize {
    LIVE_CORES.load(Ordering::SeqCst)
}

fn next_id() -> u64 {
    NEXT_ID.fetch_add(1, Ordering::Relaxed)
}

/// Locks a mutex, taking the data of a poisoned one (a panic elsewhere leaves plain data).
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

// ---------------------------------------------------------------------------------------------
// Agents
// ---------------------------------------------------------------------------------------------

/// An agent (one context and its event loop, on one thread), as other threads see it: an inbox
/// of ports whose queues got an entry to dispatch, and a condition variable its event loop
/// waits on.
#[derive(Debug)]
pub struct Agent {
    id: u64,
    inbox: Mutex<Inbox>,
    cond: Condvar,
}

#[derive(Debug, Default)]
struct Inbox {
    /// One port id per queue entry to dispatch.
    ready: VecDeque<u64>,
    /// Set by [`Agent::wake`] (an async job can make progress), consumed by [`Agent::wait`].
    woken: bool,
    /// The waker of an event loop that runs as a future ([`Agent::poll_wake`]), woken with the
    /// condition variable.
    waker: Option<std::task::Waker>,
    /// How many threads wait on the condition variable ([`Agent::wait`]): notifying it is a
    /// system call even when nothing waits, so it is skipped then.
    sleepers: usize,
}

impl Agent {
    /// A new agent.
    pub fn new() -> Arc<Agent> {
        Arc::new(Agent {
            id: next_id(),
            inbox: Mutex::new(Inbox::default()),
            cond: Condvar::new(),
        })
    }

    /// Whether `self` and `other` are the same agent.
    pub fn same(&self, other: &Agent) -> bool {
        self.id == other.id
    }

    /// Records that port `port_id` has one more queue entry to dispatch, and wakes the agent.
    pub(crate) fn notify(&self, port_id: u64) {
        let (waker, sleepers) = {
            let mut inbox = lock(&self.inbox);
            inbox.ready.push_back(port_id);
            (inbox.waker.take(), inbox.sleepers)
        };
        // A thread about to wait counts itself, under the lock, before it checks the inbox and
        // sleeps: one that did not count itself yet will see the entry.
        if sleepers > 0 {
            self.cond.notify_all();
        }
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    /// Wakes the agent's event loop without a message (an async job can make progress, or
    /// Rust work was queued for it).
    pub fn wake(&self) {
        let (waker, sleepers) = {
            let mut inbox = lock(&self.inbox);
            inbox.woken = true;
            (inbox.waker.take(), inbox.sleepers)
        };
        // (As in `notify`.)
        if sleepers > 0 {
            self.cond.notify_all();
        }
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    /// [`Agent::wait`] for an event loop that runs as a future: ready when a port id is
    /// waiting or [`Agent::wake`] was called since the last wait (consumed); otherwise
    /// `cx`'s waker is woken by the next [`Agent::wake`] or message.
    #[cfg_attr(not(feature = "tokio"), allow(dead_code))]
    pub fn poll_wake(&self, cx: &mut std::task::Context<'_>) -> std::task::Poll<()> {
        let mut inbox = lock(&self.inbox);
        if !inbox.ready.is_empty() || std::mem::take(&mut inbox.woken) {
            return std::task::Poll::Ready(());
        }
        inbox.waker = Some(cx.waker().clone());
        std::task::Poll::Pending
    }

    /// Takes the port ids recorded so far.
    pub(crate) fn take_ready(&self) -> VecDeque<u64> {
        std::mem::take(&mut lock(&self.inbox).ready)
    }

    /// Whether a port id is waiting in the inbox.
    pub fn has_ready(&self) -> bool {
        !lock(&self.inbox).ready.is_empty()
    }

    /// Blocks until a port id arrives, [`Agent::wake`] is called, or `deadline` passes (no
    /// deadline: until one of the others). Returns at once if a port id is already waiting.
    pub fn wait(&self, deadline: Option<Instant>) {
        let mut inbox = lock(&self.inbox);
        loop {
            if !inbox.ready.is_empty() {
                return;
            }
            if std::mem::take(&mut inbox.woken) {
                return;
            }
            let timeout = match deadline {
                None => None,
                Some(deadline) => {
                    let now = Instant::now();
                    if now >= deadline {
                        return;
                    }
                    Some(deadline - now)
                }
            };
            // Counted while asleep (the lock is released only inside the wait), so that a
            // notifier that takes the lock meanwhile knows to notify.
            inbox.sleepers += 1;
            inbox = match timeout {
                None => self
                    .cond
                    .wait(inbox)
                    .unwrap_or_else(std::sync::PoisonError::into_inner),
                Some(timeout) => {
                    self.cond
                        .wait_timeout(inbox, timeout)
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .0
                }
            };
            inbox.sleepers -= 1;
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Port cores
// ---------------------------------------------------------------------------------------------

/// An entry of a port message queue: a task that fires an event at the port.
#[derive(Debug)]
pub(crate) enum Envelope {
    /// A posted message: fires `message` (or `messageerror`).
    Message(SerializedWithTransfer),
    /// The port's entangled port was disentangled: fires `close`.
    Close,
}

/// Where a queued entry should be dispatched, if anywhere yet.
pub(crate) enum Delivery {
    /// The queue is disabled, or the port is in transit: the entry waits.
    Later,
    /// The port is owned by this agent, with its queue enabled.
    To(Arc<Agent>),
}

/// A port's identity across threads: its port message queue and what it is entangled with.
/// A `MessagePort` object holds its core; transferring the port moves the core (with its queue
/// and entanglement) into the data holder, and the receiving realm's new `MessagePort` adopts it.
#[derive(Debug)]
pub struct PortCore {
    id: u64,
    state: Mutex<CoreState>,
}

#[derive(Debug)]
struct CoreState {
    /// <https://html.spec.whatwg.org/multipage/web-messaging.html#port-message-queue>
    queue: VecDeque<Envelope>,
    /// Whether the port message queue is enabled.
    enabled: bool,
    /// The agent of the `MessagePort` that holds this core (none while in transit).
    owner: Option<Arc<Agent>>,
    /// Where the core is while no agent owns it.
    transit: Transit,
    /// The entangled port (its id, to recognize a stale link).
    peer: Option<(u64, Weak<PortCore>)>,
}

/// Where an unowned core is: what decides whether its entangled port can still hear from it.
#[derive(Debug, Clone)]
enum Transit {
    /// In a value of the agent that shipped it (a task, a record being deserialized).
    Local,
    /// In a message in this port's queue.
    Carrier(Weak<PortCore>),
    /// In Rust hands that may be on any thread (a [`PortCore`] from `port_pair`).
    Outside,
}

impl PortCore {
    fn new() -> Arc<PortCore> {
        LIVE_CORES.fetch_add(1, Ordering::SeqCst);
        Arc::new(PortCore {
            id: next_id(),
            state: Mutex::new(CoreState {
                queue: VecDeque::new(),
                enabled: false,
                owner: None,
                transit: Transit::Local,
                peer: None,
            }),
        })
    }

    /// Two new cores, entangled with each other
    /// (<https://html.spec.whatwg.org/multipage/web-messaging.html#entangle>).
    pub(crate) fn new_pair() -> (Arc<PortCore>, Arc<PortCore>) {
        let (a, b) = (PortCore::new(), PortCore::new());
        lock(&a.state).peer = Some((b.id, Arc::downgrade(&b)));
        lock(&b.state).peer = Some((a.id, Arc::downgrade(&a)));
        (a, b)
    }

    /// Two new entangled cores for Rust code to hand to agents (possibly on other threads):
    /// until an agent adopts one, its entangled port may still hear from it.
    pub(crate) fn new_outside_pair() -> (Arc<PortCore>, Arc<PortCore>) {
        let (a, b) = PortCore::new_pair();
        lock(&a.state).transit = Transit::Outside;
        lock(&b.state).transit = Transit::Outside;
        (a, b)
    }

    /// The core now travels in a message in `carrier`'s queue.
    pub(crate) fn carried_by(&self, carrier: &Arc<PortCore>) {
        lock(&self.state).transit = Transit::Carrier(Arc::downgrade(carrier));
    }

    /// Whether messages posted by this (unowned) core can still reach a port of an agent other
    /// than `agent`: it is outside any agent, or in a message bound for another agent.
    fn held_elsewhere(&self, agent: &Agent, depth: u8) -> bool {
        let (owner, transit) = {
            let state = lock(&self.state);
            (state.owner.clone(), state.transit.clone())
        };
        if let Some(owner) = owner {
            return !owner.same(agent);
        }
        match transit {
            Transit::Local => false,
            Transit::Outside => true,
            Transit::Carrier(carrier) => match carrier.upgrade() {
                Some(carrier) if depth < 16 => carrier.held_elsewhere(agent, depth + 1),
                _ => false,
            },
        }
    }

    /// The id that the owning agent's inbox names this port by.
    pub(crate) fn id(&self) -> u64 {
        self.id
    }

    /// The entangled port, if any.
    pub(crate) fn peer(&self) -> Option<Arc<PortCore>> {
        lock(&self.state)
            .peer
            .as_ref()
            .and_then(|(_, p)| p.upgrade())
    }

    /// Whether the port is entangled.
    pub(crate) fn is_entangled(&self) -> bool {
        self.peer().is_some()
    }

    /// Whether a message can still arrive from another agent: the queue is enabled and the
    /// entangled port lives in another agent, or is on its way there (in a message bound for
    /// another agent, or in Rust hands outside any agent). A port entangled with one that waits
    /// in a message of this agent can only hear from it after this agent runs something.
    ///
    /// An enabled port with entries in its queue counts too: another agent may have queued
    /// them (a message, or its `close` entry as it disentangled) and not yet notified this
    /// agent.
    pub(crate) fn may_receive_from_elsewhere(&self, agent: &Agent) -> bool {
        {
            let state = lock(&self.state);
            if !state.enabled {
                return false;
            }
            if !state.queue.is_empty() {
                return true;
            }
        }
        self.peer()
            .is_some_and(|peer| peer.held_elsewhere(agent, 0))
    }

    /// Adds `entry` to the queue; says where to dispatch it.
    pub(crate) fn push(&self, entry: Envelope) -> Delivery {
        let mut state = lock(&self.state);
        state.queue.push_back(entry);
        match (&state.owner, state.enabled) {
            (Some(owner), true) => Delivery::To(Arc::clone(owner)),
            _ => Delivery::Later,
        }
    }

    /// Takes the first queue entry (dispatched by the task it was notified for).
    pub(crate) fn pop(&self) -> Option<Envelope> {
        lock(&self.state).queue.pop_front()
    }

    /// Whether the queue is disabled or empty (nothing left to dispatch).
    pub(crate) fn nothing_to_dispatch(&self) -> bool {
        let state = lock(&self.state);
        !state.enabled || state.queue.is_empty()
    }

    /// Makes `owner` the port's agent, with the queue disabled (a new or received port).
    pub(crate) fn adopt(&self, owner: Arc<Agent>) {
        let mut state = lock(&self.state);
        state.owner = Some(owner);
        state.enabled = false;
        state.transit = Transit::Local;
    }

    /// The port is being transferred: no agent owns it until it is received.
    pub(crate) fn release(&self) {
        let mut state = lock(&self.state);
        state.owner = None;
        state.enabled = false;
        state.transit = Transit::Local;
    }

    /// Enables the queue; returns how many entries are waiting (one task each).
    pub(crate) fn enable(&self) -> usize {
        let mut state = lock(&self.state);
        if state.enabled {
            return 0;
        }
        state.enabled = true;
        state.queue.len()
    }

    /// Empties the queue (a closed port dispatches nothing more).
    pub(crate) fn clear(&self) {
        let entries = std::mem::take(&mut lock(&self.state).queue);
        drop(entries);
    }

    /// <https://html.spec.whatwg.org/multipage/web-messaging.html#disentangle>: no longer
    /// entangled; the other port gets a `close` entry. Returns the other port and where to
    /// dispatch its entry.
    pub(crate) fn disentangle(&self) -> Option<(Arc<PortCore>, Delivery)> {
        // 1. Let otherPort be the MessagePort which initiatorPort was entangled with.
        let peer = lock(&self.state).peer.take();
        let (_, weak) = peer?;
        let other = weak.upgrade()?;
        // 3. Disentangle initiatorPort and otherPort.
        // 4. Fire an event named close at otherPort (a task of otherPort's queue, after the
        //    messages already in it).
        // Both under one lock: another agent's event loop that sees the port no longer
        // entangled also sees its `close` entry waiting (`may_receive_from_elsewhere`), and
        // does not go idle before the entry's notification arrives.
        let delivery = {
            let mut state = lock(&other.state);
            if state.peer.as_ref().is_some_and(|(id, _)| *id == self.id) {
                state.peer = None;
            } else {
                return None;
            }
            state.queue.push_back(Envelope::Close);
            match (&state.owner, state.enabled) {
                (Some(owner), true) => Delivery::To(Arc::clone(owner)),
                _ => Delivery::Later,
            }
        };
        Some((other, delivery))
    }
}

impl Drop for PortCore {
    /// A port that nothing holds any more (its object was collected, its agent went away, or a
    /// message carrying it was dropped) is disentangled: the other port gets its `close` event.
    fn drop(&mut self) {
        LIVE_CORES.fetch_sub(1, Ordering::SeqCst);
        if let Some((other, Delivery::To(agent))) = self.disentangle() {
            agent.notify(other.id);
        }
    }
}
