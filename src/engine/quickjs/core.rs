//! The backend's plumbing: the context handle [`Cx`], the agent's and realms' state, the two
//! classes of ours (native data, Rust functions), tracing, and the raw-value helpers the other
//! files of the backend use.

use std::any::{Any, TypeId};
use std::cell::{Cell, RefCell};
use std::collections::{HashMap, VecDeque};
use std::ffi::{c_int, c_void};
use std::hash::BuildHasherDefault;
use std::ptr;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};

pub(crate) use rquickjs_sys as q;

use super::intrinsics::Intrinsic;
use super::{JsError, JsResult, Value};

// ---------------------------------------------------------------------------------------------
// Tracing
// ---------------------------------------------------------------------------------------------

/// Passed to [`Trace::trace`] by the collector's mark phase: reports each JS value a native
/// value holds.
///
/// # Invariant
/// `rt` and `mark` are what QuickJS passed to the `gc_mark` hook ([`native_gc_mark`]) that made
/// this marker, and that hook is still running: the marker is only made there, on its stack,
/// and lent out as `&mut Marker` (its fields are private and it is neither `Clone` nor
/// `Default`, so no marker outlives the hook).
pub struct Marker {
    rt: *mut q::JSRuntime,
    mark: q::JS_MarkFunc,
    /// The pass of the collection this hook runs in.
    pub(crate) pass: GcPass,
    /// The collection's number on this thread ([`enter_gc_pass`]).
    pub(crate) epoch: u32,
}

/// The three passes of QuickJS's cycle collection (`JS_RunGC` in quickjs.c), each of which
/// calls every `gc_mark` hook of the objects it visits:
/// 1. `gc_decref`: every object's children lose one count per reference it holds;
/// 2. `gc_scan`, first loop: objects left with a count are alive, and give their children the
///    count back (rescuing those that had dropped to zero);
/// 3. `gc_scan`, second loop: the unreachable objects give their children the count back, so
///    that freeing them (`gc_free_cycles`) sees the real counts.
///
/// Every object the first pass visits is visited again by exactly one of the other two. Rust
/// nodes outside the QuickJS heap (`object::AcyclicShared`) take part through this.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum GcPass {
    Decref,
    Scan,
    Restore,
}

thread_local! {
    /// The mark functions of [`GcPass::Decref`] and [`GcPass::Scan`] (as addresses), learned
    /// by [`calibrate_gc_passes`]; (0, 0) until then, when every call counts as
    /// [`GcPass::Restore`], which makes Rust nodes act as roots (never frees anything early).
    static GC_PASS_FUNCTIONS: Cell<(usize, usize)> = const { Cell::new((0, 0)) };
    /// The current collection's number on this thread and the pass of the last hook call.
    static GC_EPOCH: Cell<(u32, GcPass)> = const { Cell::new((0, GcPass::Restore)) };
    /// What a calibration probe's hook saw (the mark functions, in order).
    static GC_PROBE_SEEN: RefCell<Vec<usize>> = const { RefCell::new(Vec::new()) };
}

/// The pass that `mark` belongs to and the collection's number, for a `gc_mark` hook call: a
/// first-pass call after a call of another pass starts a new collection. (Collections on one
/// thread never nest: no collection runs script or allocates JS objects, and each runtime
/// lives on one thread.)
fn enter_gc_pass(mark: q::JS_MarkFunc) -> (GcPass, u32) {
    let f = mark.map_or(0, |f| f as usize);
    let (decref, scan) = GC_PASS_FUNCTIONS.with(Cell::get);
    let pass = if f != 0 && f == decref {
        GcPass::Decref
    } else if f != 0 && f == scan {
        GcPass::Scan
    } else {
        GcPass::Restore
    };
    GC_EPOCH.with(|state| {
        let (mut epoch, last) = state.get();
        if pass == GcPass::Decref && last != GcPass::Decref {
            epoch = epoch.wrapping_add(1);
        }
        state.set((epoch, pass));
        (pass, epoch)
    })
}

/// Native data that records the mark functions its hook is called with.
struct GcProbe;

impl Trace for GcProbe {
    fn trace(&self, m: &mut Marker) {
        let f = m.mark.map_or(0, |f| f as usize);
        GC_PROBE_SEEN.with(|seen| seen.borrow_mut().push(f));
    }
}

/// Learns which mark function is which pass's, once per thread: a live probe object through
/// one collection sees the first pass's function, then the second's. If the collection does
/// not look like that, nothing is recorded, and Rust nodes stay roots (they keep what they
/// hold alive, never freeing early; a cycle through one would then be kept until teardown).
///
/// `ctx` must be a live context of this backend, with its agent installed.
fn calibrate_gc_passes(ctx: *mut q::JSContext) {
    if GC_PASS_FUNCTIONS.with(Cell::get) != (0, 0) {
        return;
    }
    GC_PROBE_SEEN.with(|seen| seen.borrow_mut().clear());
    let (probe, _) = new_native_object(ctx, NULL, GcProbe);
    // SAFETY: `ctx` is live (this function's contract); collecting runs no script, and the
    // probe, held by `probe`, stays alive through it.
    unsafe { q::JS_RunGC(q::JS_GetRuntime(ctx)) };
    drop(probe);
    let seen = GC_PROBE_SEEN.with(|seen| std::mem::take(&mut *seen.borrow_mut()));
    if let [decref, scan] = seen[..] {
        if decref != 0 && scan != 0 && decref != scan {
            GC_PASS_FUNCTIONS.with(|f| f.set((decref, scan)));
            return;
        }
    }
    debug_assert!(
        false,
        "QuickJS's collection passes are not as expected: {seen:?}"
    );
}

impl Marker {
    /// Reports `value` (a no-op for values without a reference count of their own).
    #[inline]
    pub(crate) fn mark(&mut self, value: &Value) {
        // SAFETY: `rt` and `mark` are the running collection's (`Marker`'s invariant). `value` is
        // live: a `Value` owns a reference count of it, in runtime `rt` (`Value`'s invariant;
        // a traced value's data belongs to the object being marked, of this runtime), so the
        // object `JS_MarkValue` hands to `mark` is allocated. That the count is reported once
        // per pass is `Trace`'s contract.
        unsafe { q::JS_MarkValue(self.rt, value.raw(), self.mark) }
    }

    /// Reports a reference to a context (a realm): contexts are collected objects too, and the
    /// `JSGCObjectHeader` comes first in QuickJS's `JSContext` ("must come first").
    ///
    /// `ctx` must be a context the traced data holds a reference count of (a `Realm`'s: the
    /// only caller is `Realm`'s `Trace`).
    #[inline]
    pub(crate) fn mark_context(&mut self, ctx: *mut q::JSContext) {
        if let Some(mark) = self.mark {
            // SAFETY: `mark` is the running collection's mark function and `rt` its runtime
            // (`Marker`'s invariant). `ctx` is allocated: the `Realm` being traced holds one of
            // its reference counts (`JS_DupContext`), which is the count this reports. A
            // `JSContext` starts with its `JSGCObjectHeader` (quickjs.c: "must come first"), so
            // the cast pointer is a valid header, of the `JS_GC_OBJ_TYPE_JS_CONTEXT` type that
            // `mark_children` knows.
            unsafe { mark(self.rt, ctx.cast::<q::JSGCObjectHeader>()) }
        }
    }
}

/// Traced by the engine's garbage collector: what a slot, a shared pointer or an object's
/// native data holds. Declared with `traced!` (the `Trace` derive of `boa_streams_derive`).
///
/// # Contract
/// `trace` reports every JS value `self` owns a reference count of exactly once, and the same
/// values on every call of one collection (QuickJS's cycle collector subtracts, then adds
/// back, one count per report: a value reported twice, or reported without being owned, makes
/// it free an object that is still referenced). It must not allocate JS values, free them, or
/// run script. The derive and the impls in this file keep it; the trait is not `unsafe`, so a
/// hand-written impl elsewhere must be checked against it.
pub trait Trace {
    /// Reports every JS value `self` holds to `marker`.
    fn trace(&self, marker: &mut Marker);
}

/// What the collector runs before it frees a traced value (nothing here: `Drop` does it).
pub trait Finalize {}
impl<T: ?Sized> Finalize for T {}

/// Native object data: what an `Object<T>` holds.
pub trait NativeObject: Any + Trace {}
impl<T: Any + Trace> NativeObject for T {}

/// Types that hold no JS value.
macro_rules! empty_trace {
    ($($t:ty),* $(,)?) => {$(
        impl Trace for $t {
            #[inline]
            fn trace(&self, _: &mut Marker) {}
        }
    )*};
}
empty_trace!(
    (),
    bool,
    u8,
    u16,
    u32,
    u64,
    u128,
    usize,
    i8,
    i16,
    i32,
    i64,
    i128,
    isize,
    f32,
    f64,
    char,
    String,
    str,
    std::time::Duration,
    std::time::Instant,
    std::num::NonZeroU64,
    std::sync::atomic::AtomicBool,
    std::sync::atomic::AtomicUsize
);

impl<T: Trace + ?Sized> Trace for &T {
    fn trace(&self, m: &mut Marker) {
        (**self).trace(m);
    }
}
impl<T: Trace + ?Sized> Trace for Box<T> {
    fn trace(&self, m: &mut Marker) {
        (**self).trace(m);
    }
}
impl<T: Trace + ?Sized> Trace for crate::engine::pool::PoolBox<T> {
    fn trace(&self, m: &mut Marker) {
        (**self).trace(m);
    }
}
impl<T: Trace> Trace for Option<T> {
    fn trace(&self, m: &mut Marker) {
        if let Some(v) = self {
            v.trace(m);
        }
    }
}
impl<T: Trace, E: Trace> Trace for Result<T, E> {
    fn trace(&self, m: &mut Marker) {
        match self {
            Ok(v) => v.trace(m),
            Err(e) => e.trace(m),
        }
    }
}
impl<T: Trace> Trace for [T] {
    fn trace(&self, m: &mut Marker) {
        for v in self {
            v.trace(m);
        }
    }
}
impl<T: Trace, const N: usize> Trace for [T; N] {
    fn trace(&self, m: &mut Marker) {
        for v in self {
            v.trace(m);
        }
    }
}
impl<T: Trace> Trace for Vec<T> {
    fn trace(&self, m: &mut Marker) {
        for v in self {
            v.trace(m);
        }
    }
}
impl<T: Trace> Trace for VecDeque<T> {
    fn trace(&self, m: &mut Marker) {
        for v in self {
            v.trace(m);
        }
    }
}
impl<K, V: Trace, S> Trace for HashMap<K, V, S> {
    fn trace(&self, m: &mut Marker) {
        for v in self.values() {
            v.trace(m);
        }
    }
}
impl<T: Trace + Copy> Trace for Cell<T> {
    fn trace(&self, m: &mut Marker) {
        self.get().trace(m);
    }
}
impl<T: Trace> Trace for RefCell<T> {
    /// A value borrowed exclusively while the collector runs is skipped: its values then count
    /// as referenced from outside, which keeps them alive (never frees anything early).
    fn trace(&self, m: &mut Marker) {
        if let Ok(v) = self.try_borrow() {
            v.trace(m);
        }
    }
}
macro_rules! tuple_trace {
    ($(($($n:ident),+)),*) => {$(
        impl<$($n: Trace),+> Trace for ($($n,)+) {
            #[allow(non_snake_case)]
            fn trace(&self, m: &mut Marker) {
                let ($($n,)+) = self;
                $($n.trace(m);)+
            }
        }
    )*};
}
tuple_trace!((A), (A, B), (A, B, C), (A, B, C, D));
// Function pointers hold no JS value.
impl<A, B, C, R> Trace for fn(&A, B, &mut C) -> R {
    fn trace(&self, _: &mut Marker) {}
}
impl<A, B, C, D, R> Trace for fn(&A, &B, &[C], &mut D) -> R {
    fn trace(&self, _: &mut Marker) {}
}

// ---------------------------------------------------------------------------------------------
// The context, the agent and the realms
// ---------------------------------------------------------------------------------------------

/// The contexts of the `Cx` handles alive on this thread, in the order they were entered (a
/// context entered twice is listed twice), and the last of them (null when there is none),
/// kept beside the list so that reading it is one load. Only [`Cx::enter`], `Cx`'s `Drop` and
/// [`forget_entered_contexts`] change them.
struct Entered {
    list: RefCell<Vec<*mut q::JSContext>>,
    current: Cell<*mut q::JSContext>,
}

impl Entered {
    /// Sets `current` to the list's last entry.
    fn update_current(&self, list: &[*mut q::JSContext]) {
        self.current
            .set(list.last().copied().unwrap_or(ptr::null_mut()));
    }
}

thread_local! {
    static ENTERED: Entered = const {
        Entered { list: RefCell::new(Vec::new()), current: Cell::new(ptr::null_mut()) }
    };
}

/// Removes every entry of `contexts` from the entered contexts: a runtime calls it before it
/// frees them, so that a `Cx` the embedder leaked (`mem::forget`) cannot leave a freed context
/// current.
pub(crate) fn forget_entered_contexts(contexts: &[*mut q::JSContext]) {
    ENTERED.with(|entered| {
        let mut list = entered.list.borrow_mut();
        list.retain(|ctx| !contexts.contains(ctx));
        entered.update_current(&list);
    });
}

/// The most recently entered context of this thread whose `Cx` is still alive: what the API's
/// operations without a context argument use. Null outside any entry (only the host creates
/// values there, through a `Cx`).
///
/// # Invariant
/// Null, or the context of a `Cx` alive on this thread (the last entered of those alive),
/// which is live, with its agent and realm state installed, for as long as it is current
/// (`Cx`'s invariant, point 3).
/// Code that passes it to QuickJS with a value relies, in addition, on the value belonging to
/// that context's runtime (`Value`'s invariant, point 4).
#[inline]
pub(crate) fn current_ctx() -> *mut q::JSContext {
    ENTERED.with(|entered| entered.current.get())
}

/// The execution context every operation runs in: a handle on a `JSContext` (a realm), entered
/// for as long as the handle lives (the current context is the last entered of the live ones).
///
/// # Invariant
/// What every `unsafe` block of the backend that takes a context from a `Cx` relies on (they
/// cite it as "`Cx`'s invariant"). While a `Cx` lives:
/// 1. `raw` is a live `JSContext` (QuickJS has not freed it), of a live runtime whose agent
///    [`Agent::install`] set up, and its realm state is installed ([`RealmState::install`]):
///    so [`agent_of`] and [`realm_of`] may be called on them.
/// 2. The handle is used on the thread that runs that runtime: a `Cx` holds raw pointers, so
///    it is neither `Send` nor `Sync`, and QuickJS runtimes are single-threaded.
/// 3. [`current_ctx`] is always null or the `raw` of a live handle: handles may be dropped in any
///    order (each removes its own entry from the thread's list of entered contexts), and a
///    leaked one's entry goes when its runtime frees the context ([`forget_entered_contexts`]).
///
/// 4. `rt` is null or `raw`'s runtime, and `agent` null or that runtime's agent (the live,
///    leaked box of [`Agent`]'s invariant): each read the first time the handle is asked for
///    it, and kept.
///
/// [`Cx::enter`]'s callers establish 1 and 3 (its `# Safety`); the type gives 2, and
/// [`Cx::rt`] and [`Cx::agent`] 4.
pub struct Cx {
    raw: *mut q::JSContext,
    /// The runtime and its agent, looked up once per handle, when first asked for (several
    /// times a microtask; a handle made for one operation may never ask).
    rt: Cell<*mut q::JSRuntime>,
    agent: Cell<*const Agent>,
}

impl Cx {
    /// Enters `raw` (a live context of a runtime set up by [`Agent::install`]).
    ///
    /// # Safety
    /// For as long as the returned handle lives, `raw` is a live context of a runtime set up by
    /// [`Agent::install`], with its realm state installed ([`RealmState::install`] itself enters
    /// the context right after installing it). Whoever frees `raw` first calls
    /// [`forget_entered_contexts`] with it. Together: `Cx`'s invariant.
    #[inline]
    pub(crate) unsafe fn enter(raw: *mut q::JSContext) -> Self {
        ENTERED.with(|entered| {
            entered.list.borrow_mut().push(raw);
            entered.current.set(raw);
        });
        Self {
            raw,
            rt: Cell::new(ptr::null_mut()),
            agent: Cell::new(ptr::null()),
        }
    }

    /// The `JSContext`.
    #[inline]
    pub(crate) fn raw(&self) -> *mut q::JSContext {
        self.raw
    }

    /// The `JSRuntime`.
    #[inline]
    pub(crate) fn rt(&self) -> *mut q::JSRuntime {
        let rt = self.rt.get();
        if !rt.is_null() {
            return rt;
        }
        // SAFETY: `self.raw` is a live context (`Cx`'s invariant, point 1); `JS_GetRuntime` only
        // reads its `rt` field.
        let rt = unsafe { q::JS_GetRuntime(self.raw) };
        self.rt.set(rt);
        rt
    }

    /// Runs `f` with `realm` as the current realm (HTML's "entering" a realm), then returns.
    ///
    /// `realm` must be the context of a [`Realm`](super::Realm) of this runtime that the caller
    /// holds for the call (its caller, `task::in_realm`, borrows one: a task's realm, which
    /// the task owns, or a realm the host holds).
    pub(crate) fn in_realm<R>(
        &mut self,
        realm: *mut q::JSContext,
        f: impl FnOnce(&mut Cx) -> R,
    ) -> R {
        // SAFETY: `realm` is live for the whole call: the caller holds a `Realm`, one reference
        // count of it (this method's contract). It belongs to this runtime, whose agent is
        // installed (`self`'s invariant), and every context of the backend has its realm state
        // from `RealmState::install` until the runtime's teardown, which runs no `Cx`. `inner`
        // is dropped when this function returns, before `self` (mutably borrowed meanwhile), so
        // handles nest.
        let mut inner = unsafe { Cx::enter(realm) };
        f(&mut inner)
    }

    /// The agent's state.
    #[inline]
    pub(crate) fn agent(&self) -> &Agent {
        let agent = self.agent.get();
        // SAFETY: `agent` is null or the runtime's agent, read from the side table while the
        // handle lives (`Cx`'s invariant, point 4), which stays installed while it does (point
        // 1), so the leaked box is live and only shared-borrowed; the reference is tied to the
        // handle.
        match unsafe { agent.as_ref() } {
            Some(agent) => agent,
            None => self.find_agent(),
        }
    }

    /// [`Cx::agent`] the first time: looks the agent up and keeps it.
    #[cold]
    #[inline(never)]
    fn find_agent(&self) -> &Agent {
        let agent = agent_of(self.rt());
        self.agent.set(agent);
        agent
    }

    /// The current realm's state.
    #[inline]
    pub(crate) fn realm_state(&self) -> &RealmState {
        realm_of(self.raw)
    }
}

impl Drop for Cx {
    /// Removes this handle's entry (the last one of its context: the top one when handles
    /// nest, as they do inside the crate; an embedder may drop its handles in any order).
    #[inline]
    fn drop(&mut self) {
        ENTERED.with(|entered| {
            let mut list = entered.list.borrow_mut();
            if list.last() == Some(&self.raw) {
                list.pop();
            } else if let Some(at) = list.iter().rposition(|&ctx| ctx == self.raw) {
                list.remove(at);
            }
            entered.update_current(&list);
        });
    }
}

impl std::fmt::Debug for Cx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cx").field("raw", &self.raw).finish()
    }
}

/// Words of a [`Job`]'s inline storage: room for the closures the stream cores queue per
/// chunk (a reaction's captured objects, its step and its value), so queuing one allocates
/// nothing; a larger closure goes in as a box.
const JOB_WORDS: usize = 11;

/// Rust code queued to run later with a context (a microtask), run once or dropped: a closure
/// stored in place when it fits [`JOB_WORDS`] words, otherwise a box. The agent's queue
/// ([`JobQueue`]) holds these in its slots, where the closure is written when it is queued and
/// read out when it runs, so the per-chunk microtasks of a pipe cost no allocation, and no
/// copy of the job, of their own.
pub(crate) struct Job {
    /// The closure, of the type `call` and `release` were instantiated with.
    storage: std::mem::MaybeUninit<[usize; JOB_WORDS]>,
    /// Moves the closure out of the storage and calls it.
    call: unsafe fn(*mut u8, &mut Cx) -> JsResult<()>,
    /// Drops the closure in place (a job dropped without running).
    release: unsafe fn(*mut u8),
    /// A closure need not be `Send` or `Sync`, so neither is its job.
    _not_send: std::marker::PhantomData<*const ()>,
}

/// Whether a `T` fits a [`Job`]'s storage (size and alignment).
const fn fits_in_job<T>() -> bool {
    std::mem::size_of::<T>() <= std::mem::size_of::<[usize; JOB_WORDS]>()
        && std::mem::align_of::<T>() <= std::mem::align_of::<usize>()
}

// A boxed microtask (a fat pointer) always fits: [`JobQueue::push`] relies on it.
const _: () = assert!(fits_in_job::<Box<dyn Microtask>>());

/// Moves the `F` at `at` out and calls it ([`Job::call`] of a closure stored in place).
///
/// # Safety
/// `at` holds a live `F` that nothing else will read or drop.
unsafe fn call_in_place<F: FnOnce(&mut Cx) -> JsResult<()>>(
    at: *mut u8,
    cx: &mut Cx,
) -> JsResult<()> {
    // SAFETY: the caller's contract: `at` holds a live `F`, read out once (so it is moved,
    // and the job forgets it: nothing drops the storage after this). It is read out before it
    // runs, so the slot may be reused while it runs.
    let f = unsafe { at.cast::<F>().read() };
    f(cx)
}

/// Moves the boxed microtask at `at` out and runs it ([`Job::call`] of a boxed closure).
///
/// # Safety
/// `at` holds a live box that nothing else will read or drop.
unsafe fn call_boxed(at: *mut u8, cx: &mut Cx) -> JsResult<()> {
    // SAFETY: the caller's contract: a live box, read out once (moved, as in `call_in_place`).
    let job = unsafe { at.cast::<Box<dyn Microtask>>().read() };
    job.run(cx)
}

/// Drops the `T` at `at` ([`Job::release`]).
///
/// # Safety
/// `at` holds a live `T` that nothing else will read or drop.
unsafe fn release_in_place<T>(at: *mut u8) {
    // SAFETY: the caller's contract: a live `T`, dropped once.
    unsafe { at.cast::<T>().drop_in_place() }
}

impl Job {
    /// Writes a job that runs the `T` in `value` with `call` into `slot`.
    ///
    /// # Safety
    /// `slot` is valid for writing a `Job` (and holds no live job: nothing is dropped); `T`
    /// fits the storage ([`fits_in_job`]), and `call` consumes (reads out and runs or drops) a
    /// live `T` at the address it is given.
    #[inline(always)]
    unsafe fn write_in_place<T: 'static>(
        slot: *mut Job,
        value: T,
        call: unsafe fn(*mut u8, &mut Cx) -> JsResult<()>,
    ) {
        // SAFETY: `slot` is valid for writes (the contract), so are its fields. The storage
        // is `JOB_WORDS` words, aligned for `usize`, and `T` is no larger and needs no more
        // alignment (the contract), so the write stays inside it and is aligned. From here the
        // storage holds a live `T`, which `call` (the contract) or `release_in_place::<T>`
        // consumes exactly once.
        unsafe {
            ptr::addr_of_mut!((*slot).storage).cast::<T>().write(value);
            ptr::addr_of_mut!((*slot).call).write(call);
            ptr::addr_of_mut!((*slot).release).write(release_in_place::<T>);
        }
    }

    /// Runs the job (consuming its closure).
    #[inline]
    pub(crate) fn run(self, cx: &mut Cx) -> JsResult<()> {
        let mut job = std::mem::ManuallyDrop::new(self);
        // SAFETY: the storage holds the live closure `call` was made for (`write_in_place`),
        // and this is its one use: the job is not dropped afterwards (`ManuallyDrop`), so
        // nothing reads or drops the moved-out closure again.
        unsafe { (job.call)(job.storage.as_mut_ptr().cast(), cx) }
    }

    /// Runs the job in `slot` (consuming its closure), where [`JobQueue::pop_front_slot`]
    /// left it.
    ///
    /// # Safety
    /// `slot` holds a live job that the caller owns (taken off its queue), which nothing else
    /// reads, runs or drops. The job's `call` moves the closure out of the slot before the
    /// closure runs (`call_in_place`, `call_boxed`), so the slot is free for the queue to reuse
    /// or move (a microtask queued while it runs) from then on.
    #[inline(always)]
    pub(crate) unsafe fn run_in_slot(slot: *mut Job, cx: &mut Cx) -> JsResult<()> {
        // SAFETY: a live job the caller owns (the contract): its `call` is the one made for
        // the closure in its storage, which it consumes once; nothing drops the slot's job
        // afterwards (the queue never drops the jobs it handed out).
        unsafe {
            let call = (*slot).call;
            call(ptr::addr_of_mut!((*slot).storage).cast(), cx)
        }
    }
}

impl Drop for Job {
    fn drop(&mut self) {
        // SAFETY: a job that is dropped has not run (`run` forgets it), so its storage still
        // holds the live closure `release` was made for, dropped here once.
        unsafe { (self.release)(self.storage.as_mut_ptr().cast()) }
    }
}

/// The agent's Rust microtasks, in order (see [`Agent::microtasks`]): a ring of [`Job`] slots
/// whose length is a power of two. A job is written straight into its slot when queued
/// ([`JobQueue::push`]) and run from it when taken ([`JobQueue::pop_front_slot`]), never moved
/// in between but when the ring grows.
///
/// Only the agent's thread uses it, through `&self` (the agent is only shared-borrowed):
/// every method changes the fields with no code of anyone else running in between (no method
/// runs a job or drops one while the ring is being changed), so no borrow flag is needed.
///
/// # Invariant
/// `slots` points to `capacity` slots (a power of two, or 0 with a dangling pointer) allocated
/// with `Layout::array::<Job>(capacity)`; the `len` slots from `head` on (modulo `capacity`)
/// hold live jobs the queue owns, in order; the others hold nothing live.
pub(crate) struct JobQueue {
    slots: Cell<ptr::NonNull<Job>>,
    capacity: Cell<usize>,
    head: Cell<usize>,
    len: Cell<usize>,
}

impl Default for JobQueue {
    fn default() -> Self {
        Self {
            slots: Cell::new(ptr::NonNull::dangling()),
            capacity: Cell::new(0),
            head: Cell::new(0),
            len: Cell::new(0),
        }
    }
}

impl JobQueue {
    /// How many jobs are queued.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.len.get()
    }

    /// Whether no job is queued.
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.len.get() == 0
    }

    /// The slot of the job `index` places after the front (`index` below the capacity).
    #[inline(always)]
    fn slot(&self, index: usize) -> *mut Job {
        let at = (self.head.get() + index) & (self.capacity.get().wrapping_sub(1));
        // (In bounds: `at` is below the capacity, a power of two, when it is not 0, and the
        // callers only ask with a capacity.)
        self.slots.get().as_ptr().wrapping_add(at)
    }

    /// Queues a job that runs `f` at the back: written in its slot when it fits, else boxed.
    #[inline(always)]
    pub(crate) fn push<F: FnOnce(&mut Cx) -> JsResult<()> + 'static>(&self, f: F) {
        if !fits_in_job::<F>() {
            let job: Box<dyn Microtask> = Box::new(FnJob(f));
            let slot = self.push_slot();
            // SAFETY: `push_slot` gave a free slot, valid for writes; a box fits (the constant
            // assertion above, checked at compile time), and `call_boxed` consumes a live box.
            unsafe { Job::write_in_place(slot, job, call_boxed) };
            return;
        }
        let slot = self.push_slot();
        // SAFETY: `push_slot` gave a free slot, valid for writes; `F` fits (checked just
        // above), and `call_in_place::<F>` consumes a live `F`.
        unsafe { Job::write_in_place(slot, f, call_in_place::<F>) };
    }

    /// Counts one more job at the back and returns its slot, free and valid for writes, which
    /// the caller fills with a live job at once (before any other use of the queue: the
    /// invariant counts it as live).
    #[inline(always)]
    fn push_slot(&self) -> *mut Job {
        if self.len.get() == self.capacity.get() {
            self.grow();
        }
        let slot = self.slot(self.len.get());
        self.len.set(self.len.get() + 1);
        slot
    }

    /// Doubles the ring (at least 16 slots), moving the queued jobs to its start, in order.
    #[cold]
    #[inline(never)]
    fn grow(&self) {
        let old_capacity = self.capacity.get();
        let capacity = (old_capacity * 2).max(16);
        // A ring past the address space cannot be allocated: out of memory, as `Vec` reports it.
        let Ok(layout) = std::alloc::Layout::array::<Job>(capacity) else {
            std::alloc::handle_alloc_error(std::alloc::Layout::new::<Job>())
        };
        // SAFETY: the layout's size is not zero (16 or more jobs of 13 words).
        let Some(slots) = ptr::NonNull::new(unsafe { std::alloc::alloc(layout) }.cast::<Job>())
        else {
            std::alloc::handle_alloc_error(layout)
        };
        let len = self.len.get();
        for index in 0..len {
            // SAFETY: the `len` jobs from `head` (modulo the old capacity) are live (the
            // invariant), each moved once into the new ring's first `len` slots (`len` is at
            // most the old capacity, below the new one); the old slots are not read again.
            unsafe {
                let from = self.slot(index);
                slots.as_ptr().add(index).write(from.read());
            }
        }
        // SAFETY: the old ring's live jobs were moved out above, and it is replaced next.
        unsafe { self.free_slots(old_capacity) };
        self.slots.set(slots);
        self.capacity.set(capacity);
        self.head.set(0);
    }

    /// Takes the front job off the queue and returns its slot, where the job stays, now owned
    /// by the caller, until the next [`JobQueue::push`] (which may reuse the slot or move the
    /// ring): the caller runs it ([`Job::run_in_slot`]) or moves it out at once.
    #[inline(always)]
    pub(crate) fn pop_front_slot(&self) -> Option<*mut Job> {
        if self.len.get() == 0 {
            return None;
        }
        let slot = self.slot(0);
        self.head
            .set((self.head.get() + 1) & (self.capacity.get() - 1));
        self.len.set(self.len.get() - 1);
        Some(slot)
    }

    /// Takes the front job off the queue.
    #[inline]
    pub(crate) fn pop_front(&self) -> Option<Job> {
        // SAFETY: the slot holds a live job that is now the caller's (`pop_front_slot`), moved
        // out before anything else uses the queue.
        self.pop_front_slot().map(|slot| unsafe { slot.read() })
    }

    /// Takes the back job off the queue.
    pub(crate) fn pop_back(&self) -> Option<Job> {
        if self.len.get() == 0 {
            return None;
        }
        self.len.set(self.len.get() - 1);
        let slot = self.slot(self.len.get());
        // SAFETY: the slot just after the `len` live ones held the last live job (the
        // invariant before the decrement), now moved out to the caller.
        Some(unsafe { slot.read() })
    }

    /// Takes every queued job, leaving the queue empty.
    pub(crate) fn take(&self) -> JobQueue {
        let taken = JobQueue::default();
        self.swap(&taken);
        taken
    }

    /// Swaps the contents of two queues.
    fn swap(&self, other: &JobQueue) {
        self.slots.swap(&other.slots);
        self.capacity.swap(&other.capacity);
        self.head.swap(&other.head);
        self.len.swap(&other.len);
    }
}

impl JobQueue {
    /// Frees the ring of `capacity` slots (nothing when it is 0, the ring never allocated).
    ///
    /// # Safety
    /// `capacity` is the ring's (`self.slots` was allocated with `Layout::array::<Job>` of it:
    /// the invariant), no slot holds a live job, and the ring is not used again until
    /// `self.slots` is set to another.
    unsafe fn free_slots(&self, capacity: usize) {
        if capacity != 0 {
            // SAFETY: the ring was allocated with this layout and holds no live job (the
            // caller's promise).
            unsafe {
                std::alloc::dealloc(
                    self.slots.get().as_ptr().cast(),
                    std::alloc::Layout::array::<Job>(capacity)
                        .unwrap_or(std::alloc::Layout::new::<Job>()),
                );
            }
        }
    }
}

impl Drop for JobQueue {
    /// Drops the jobs left, in order, then the ring.
    fn drop(&mut self) {
        while let Some(job) = self.pop_front() {
            drop(job);
        }
        // SAFETY: the ring holds no live job (all popped above), and is not used again.
        unsafe { self.free_slots(self.capacity.get()) };
    }
}

/// A microtask too large for a [`Job`]'s storage, boxed.
pub(crate) trait Microtask {
    /// Runs the microtask.
    fn run(self: Box<Self>, ctx: &mut Cx) -> JsResult<()>;
}

/// A closure as a boxed microtask (one too large to store in a [`Job`]).
struct FnJob<F>(F);

impl<F: FnOnce(&mut Cx) -> JsResult<()>> Microtask for FnJob<F> {
    #[inline]
    fn run(self: Box<Self>, ctx: &mut Cx) -> JsResult<()> {
        (self.0)(ctx)
    }
}

/// The agent's state (one per `JSRuntime`): the classes of ours, the data layers keep per
/// agent (the host's event loop among them, which holds the tasks and timers), the Rust
/// microtasks, and the clock's origin.
///
/// The agent lives in a side table of this thread ([`AGENTS`]), keyed by the runtime, never in
/// the runtime's opaque: that slot belongs to whoever made the runtime (rquickjs's safe
/// `Runtime` keeps its own state there), and one code path serves the runtimes we make and
/// the ones an application made and gave us (`adopt.rs`).
///
/// # Invariant
/// From [`Agent::install`] to [`Agent::uninstall`], [`AGENTS`] on the runtime's thread has one
/// entry for the runtime: the pointer `Box::into_raw` made of its `Box<Agent>`; outside that
/// span it has none (only these two functions add or remove entries). The agent is only ever
/// shared-borrowed (`&Agent`), its mutable parts are behind `RefCell`s.
pub struct Agent {
    pub(crate) native_class: q::JSClassID,
    pub(crate) function_class: q::JSClassID,
    /// One value per type. Entries are `Rc`s, and a replaced one moves to `retired`: every
    /// value stays allocated, at its address, until `uninstall`, which is what lets
    /// [`Agent::data`] lend a reference without holding the map's borrow.
    data: RefCell<TypeMap<Rc<dyn Any>>>,
    retired: RefCell<Vec<Rc<dyn Any>>>,
    /// The time past which script stops (`Runtime::set_deadline`): a field, not agent data,
    /// because the microtask loop and the interrupt handler read it at every job.
    pub(crate) deadline: Cell<Option<std::time::Instant>>,
    /// GC stress (`Runtime::set_gc_stress`): every how many microtasks the collection
    /// threshold drops to zero (0: off), and how many ran since it last did. Read at every job.
    pub(crate) gc_stress: Cell<(u32, u32)>,
    /// The Rust microtasks queued, in order: each is counted by one job entry of ours on the
    /// engine's job queue (an entry stands for one microtask or for several consecutive ones,
    /// which it runs from the front), or is chained to the one before (`job.rs`).
    pub(crate) microtasks: JobQueue,
    /// How many microtasks at the front of `microtasks` are chained: queued while a Rust
    /// microtask ran from the host's own loop with nothing on QuickJS's FIFO, or the rest of
    /// the entry that loop is running, so each is the next job of all and runs right after
    /// the one before, without an entry. (Only then do they become chained, so they are always
    /// all of the queue's front: every other Rust microtask is counted by an entry on that
    /// FIFO.)
    pub(crate) chained: Cell<usize>,
    /// The context the chained microtasks run in (the one whose microtask queued them).
    pub(crate) chain_ctx: Cell<*mut q::JSContext>,
    /// While the host's microtask loop runs (`Runtime::run_microtasks`): chaining may happen.
    pub(crate) own_loop: Cell<bool>,
    /// While a Rust microtask runs from that loop, its context: a microtask queued in it with
    /// nothing on QuickJS's FIFO is chained (null otherwise).
    pub(crate) chain: Cell<*mut q::JSContext>,
    /// QuickJS's job FIFO (`rt->job_list`), found by a probe at the first realm's setup
    /// (`job::probe_job_list`), or null (not probed yet, or the probe failed): then every Rust
    /// microtask takes an entry of its own.
    pub(crate) job_list: Cell<*mut super::job::ListHead>,
    /// Whether the probe ran (once per agent).
    pub(crate) job_list_probed: Cell<bool>,
    pub(crate) origin: std::time::Instant,
    /// Native data of objects QuickJS made with a class of its own (a realm's global object),
    /// by object address: the holder, an object of our native class whose data they read as
    /// theirs. Entries are only added (a later entry for the same address shadows an earlier
    /// one) and live as long as the agent (roots), so a `Native` read through a holder stays
    /// allocated until `uninstall`.
    /// (A few entries, one per realm: a linear scan is cheaper than hashing.)
    foreign: RefCell<Vec<(usize, Value)>>,
    /// The contexts whose realm state [`RealmState::install`] set up, each with one reference
    /// count of ours (`JS_DupContext`): [`Agent::uninstall`] removes their state and gives the
    /// counts back. So a realm's state outlives every use of it, whoever made the context and
    /// whenever they free their own count of it.
    realms: RefCell<Vec<*mut q::JSContext>>,
    /// The atoms of [`KnownAtom`], made on first use (0 until then), each holding one count
    /// of ours until `uninstall` gives it back: property names read or defined per chunk, so
    /// that no per-chunk path hashes a name into the atom table and frees it again.
    known_atoms: [Cell<q::JSAtom>; KnownAtom::COUNT],
    /// The class ids `buffer::class_ids` reads once (asked per chunk: a field, not agent
    /// data, whose lookup hashes).
    pub(crate) class_ids: Cell<Option<super::buffer::ClassIds>>,
    /// One block of each size class QuickJS's promise jobs take (`JOB_ENTRY_ARITIES`), held
    /// for the runtime's life ([`Agent::install`], given back in [`Agent::uninstall`]): see
    /// [`keep_job_arenas`].
    job_arena_keepers: [Cell<*mut c_void>; JOB_ENTRY_ARITIES.len()],
}

/// The argument counts of the jobs QuickJS's promises enqueue (`JS_EnqueueJob`): a reaction
/// job (`promise_reaction_job`, 5) and a thenable's resolve job
/// (`js_promise_resolve_thenable_job`, 3).
const JOB_ENTRY_ARITIES: [usize; 2] = [5, 3];

/// The size QuickJS allocates for a job entry of `argc` arguments (`JSJobEntry`: a list link,
/// the context, the job function, the count, then the arguments).
const fn job_entry_size(argc: usize) -> usize {
    let pointer = std::mem::size_of::<*const ()>();
    let value = std::mem::size_of::<q::JSValue>();
    let header = 4 * pointer + std::mem::size_of::<c_int>();
    // `argv` is aligned as a `JSValue`.
    let align = std::mem::align_of::<q::JSValue>();
    header.div_ceil(align) * align + argc * value
}

/// Allocates one block of each promise job entry's size on `rt`, for [`Agent`]'s
/// `job_arena_keepers`.
///
/// Why: QuickJS allocates small blocks from 4 KiB arenas per size class and frees an arena
/// the moment its last block goes (ENGINE_BUGS.md 11). A job entry lives from `JS_EnqueueJob`
/// until its job has run, and a reaction job's size class (128 bytes) holds nothing else;
/// where a promise that script awaits is still pending when the await runs (every read of a
/// stream whose chunk is not queued yet), the class goes from no block to one and back once
/// per await, and QuickJS made and freed an arena (a 4 KiB `malloc`, a loop over its blocks,
/// a `free`) every time. Holding one block keeps the arena. Nothing is written to the blocks.
///
/// # Safety
/// `rt` is a live runtime, used on this thread.
unsafe fn keep_job_arenas(rt: *mut q::JSRuntime) -> [Cell<*mut c_void>; JOB_ENTRY_ARITIES.len()] {
    // SAFETY: `rt` is live and on this thread (the caller's promise); `js_malloc_rt` takes any
    // size and returns a block of `rt`'s allocator, or null when out of memory (then nothing
    // is kept, and `uninstall` skips it).
    JOB_ENTRY_ARITIES
        .map(|argc| Cell::new(unsafe { q::js_malloc_rt(rt, job_entry_size(argc) as q::size_t) }))
}

/// Property names the backend reads or defines per chunk, with atoms kept by the agent
/// ([`Agent::known_atom`]).
#[derive(Clone, Copy)]
pub(crate) enum KnownAtom {
    Value,
    Done,
    Then,
    Constructor,
}

impl KnownAtom {
    const COUNT: usize = 4;

    /// The name, NUL-terminated (as `JS_NewAtom` reads it).
    fn name(self) -> &'static std::ffi::CStr {
        match self {
            KnownAtom::Value => c"value",
            KnownAtom::Done => c"done",
            KnownAtom::Then => c"then",
            KnownAtom::Constructor => c"constructor",
        }
    }
}

/// A map keyed by type: agent and realm data, read on per-chunk paths too.
type TypeMap<V> = HashMap<TypeId, V, BuildHasherDefault<WordHasher>>;

/// The hasher of our internal maps: FxHash's multiply-rotate over 8-byte words, instead of
/// SipHash. Their keys are `TypeId`s, so no adversary picks them.
#[derive(Default)]
pub(crate) struct WordHasher(u64);

impl WordHasher {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    #[inline]
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(Self::K);
    }
}

impl std::hash::Hasher for WordHasher {
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = [0; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(word));
        }
    }
    #[inline]
    fn write_u8(&mut self, n: u8) {
        self.add(u64::from(n));
    }
    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }
}

thread_local! {
    /// The agents of this thread's runtimes, by runtime (see [`Agent`]'s invariant). A handful
    /// of entries at most: a linear scan, behind a one-entry cache of the last lookup.
    static AGENTS: RefCell<Vec<(*mut q::JSRuntime, *const Agent)>> =
        const { RefCell::new(Vec::new()) };
    /// The last entry [`agent_of`] found (null runtime: none). Reset whenever an entry is
    /// removed, so it only ever holds a live entry of [`AGENTS`].
    static LAST_AGENT: Cell<(*mut q::JSRuntime, *const Agent)> =
        const { Cell::new((ptr::null_mut(), ptr::null())) };
}

/// The agent state of `rt`, if it is installed (on this thread); unlike [`agent_of`], never
/// panics (for the interrupt handler, which may run while a runtime is torn down).
///
/// `rt` must be a live runtime of this backend, as for [`agent_of`]; the reference is used
/// only while the agent is installed (the caller holds no reference across a call that may
/// uninstall it).
pub(crate) fn try_agent_of<'a>(rt: *mut q::JSRuntime) -> Option<&'a Agent> {
    let agent = agent_ptr(rt);
    // SAFETY: as in `agent_of`: the entry is null or the live, leaked `Box<Agent>`, only
    // shared-borrowed, allocated until `uninstall` (the caller's promise keeps `'a` short of it).
    unsafe { agent.as_ref() }
}

/// Whether any runtime of this thread has its agent.
#[cfg(debug_assertions)]
pub(crate) fn any_agent() -> bool {
    AGENTS.with(|agents| !agents.borrow().is_empty())
}

/// Whether `rt` has its agent (on this thread).
#[cfg(feature = "rquickjs")]
pub(crate) fn has_agent(rt: *mut q::JSRuntime) -> bool {
    !agent_ptr(rt).is_null()
}

/// The entry of [`AGENTS`] for `rt`, or null.
#[inline]
fn agent_ptr(rt: *mut q::JSRuntime) -> *const Agent {
    let (last_rt, last) = LAST_AGENT.with(Cell::get);
    if last_rt == rt && !rt.is_null() {
        return last;
    }
    let found = AGENTS.with(|agents| {
        agents
            .borrow()
            .iter()
            .find(|(r, _)| *r == rt)
            .map_or(ptr::null(), |(_, a)| *a)
    });
    if !found.is_null() {
        LAST_AGENT.with(|c| c.set((rt, found)));
    }
    found
}

impl Agent {
    /// Whether the deadline (`Runtime::set_deadline`) has passed: past it, the interrupt
    /// handler stops running script, and the microtask loops stop running jobs.
    #[inline]
    pub(crate) fn deadline_passed(&self) -> bool {
        self.deadline
            .get()
            .is_some_and(|deadline| std::time::Instant::now() >= deadline)
    }

    /// Sets up a new runtime's agent state and registers the classes of ours. Call
    /// [`Agent::uninstall`] before `JS_FreeRuntime`.
    ///
    /// # Safety
    /// `rt` is a live runtime, used on this thread only, without an agent (`has_agent`), and
    /// [`Agent::uninstall`] is called on it before `JS_FreeRuntime`. (Its opaque is not ours:
    /// whoever made it may use it.)
    pub(crate) unsafe fn install(rt: *mut q::JSRuntime) {
        let register = |class_name: &'static std::ffi::CStr, call: q::JSClassCall| {
            let mut id: q::JSClassID = 0;
            let def = q::JSClassDef {
                class_name: class_name.as_ptr(),
                finalizer: Some(native_finalizer),
                gc_mark: Some(native_gc_mark),
                call,
                exotic: ptr::null_mut(),
            };
            // SAFETY: `rt` is live and on this thread (the caller's promise). `JS_NewClassID`
            // writes a fresh id through `&mut id`. `JS_NewClass` reads `def` during the call
            // only (it copies the hooks and makes an atom of the NUL-terminated, static,
            // ASCII name); the hooks are `'static` functions with the signatures QuickJS
            // expects, each keeping the contract in its `# Safety` section.
            let status = unsafe {
                q::JS_NewClassID(rt, &mut id);
                q::JS_NewClass(rt, id, &def)
            };
            if status < 0 {
                // Out of memory (a fresh id cannot be taken). An object made with an
                // unregistered id would index past QuickJS's class array when it is freed, so
                // this must not return: abort, as Rust's allocator does on failure.
                std::alloc::handle_alloc_error(std::alloc::Layout::new::<q::JSClassDef>());
            }
            id
        };
        let native_class = register(c"Object", None);
        let function_class = register(c"Function", Some(super::call::function_call_hook));
        // Record the ids for `native_of`'s fast path (or that they differ between runtimes).
        let packed = (u64::from(native_class) << 32) | u64::from(function_class);
        if let Err(seen) =
            CLASS_IDS.compare_exchange(0, packed, Ordering::Relaxed, Ordering::Relaxed)
        {
            if seen != packed {
                CLASS_IDS.store(u64::MAX, Ordering::Relaxed);
            }
        }
        let agent = Box::new(Agent {
            native_class,
            function_class,
            data: RefCell::new(TypeMap::default()),
            retired: RefCell::new(Vec::new()),
            deadline: Cell::new(None),
            gc_stress: Cell::new((0, 0)),
            microtasks: JobQueue::default(),
            own_loop: Cell::new(false),
            chained: Cell::new(0),
            chain_ctx: Cell::new(ptr::null_mut()),
            chain: Cell::new(ptr::null_mut()),
            job_list: Cell::new(ptr::null_mut()),
            job_list_probed: Cell::new(false),
            origin: std::time::Instant::now(),
            foreign: RefCell::new(Vec::new()),
            realms: RefCell::new(Vec::new()),
            known_atoms: Default::default(),
            class_ids: Cell::new(None),
            // SAFETY: `rt` is live and on this thread (the caller's promise).
            job_arena_keepers: unsafe { keep_job_arenas(rt) },
        });
        // `rt` has no entry (the caller's promise); from here on its entry is the leaked box,
        // as `Agent`'s invariant says.
        let agent: *const Agent = Box::into_raw(agent);
        AGENTS.with(|agents| agents.borrow_mut().push((rt, agent)));
    }

    /// Drops the agent's state (its microtasks and data, which may hold values), then the
    /// realm state of every context it set up, giving back the context counts it held.
    ///
    /// # Safety
    /// `rt` is live and was set up by [`Agent::install`] (or this was already called: then it
    /// does nothing). No `&Agent` of this runtime, nor anything borrowed from one (agent data,
    /// a `Native` found through `foreign`, a realm's state), is used after this returns: in
    /// practice, no `Cx` of the runtime is alive and no script runs on it again.
    pub(crate) unsafe fn uninstall(rt: *mut q::JSRuntime) {
        let agent = agent_ptr(rt).cast_mut();
        if agent.is_null() {
            return;
        }
        // SAFETY: non-null, so the pointer `install` leaked (`Agent`'s invariant), not freed
        // yet; only shared references to it exist, and the one made here ends before the box
        // is freed below.
        let state = unsafe { &*agent };
        // Drop what may hold values while the agent is still reachable (their drops may look
        // it up), then the agent itself.
        let microtasks = state.microtasks.take();
        drop(microtasks);
        let data = std::mem::take(&mut *state.data.borrow_mut());
        drop(data);
        let retired = std::mem::take(&mut *state.retired.borrow_mut());
        drop(retired);
        let foreign = std::mem::take(&mut *state.foreign.borrow_mut());
        drop(foreign);
        let realms = std::mem::take(&mut *state.realms.borrow_mut());
        for ctx in realms {
            // SAFETY: `ctx` is live: the list holds a count of it (`RealmState::install`), given
            // back just below. The caller promises no `Cx` of the runtime is alive and none is
            // entered again, so no reference to its realm state is used afterwards.
            unsafe { RealmState::uninstall(ctx) };
            // SAFETY: gives back the count `RealmState::install` took, once (the list was
            // emptied above); QuickJS frees the context when no other count is left.
            unsafe { q::JS_FreeContext(ctx) };
        }
        for atom in &state.known_atoms {
            let atom = atom.replace(0);
            if atom != 0 {
                // SAFETY: `rt` is live (the caller's promise) and `atom` one of its atoms whose
                // count the agent took in `known_atom`, given back once (the cell is now 0).
                unsafe { q::JS_FreeAtomRT(rt, atom) };
            }
        }
        for keeper in &state.job_arena_keepers {
            let block = keeper.replace(ptr::null_mut());
            if !block.is_null() {
                // SAFETY: `rt` is live (the caller's promise) and `block` the block
                // `keep_job_arenas` allocated on it, freed once (the cell is now null).
                unsafe { q::js_free_rt(rt, block) };
            }
        }
        // Removing the entry first means a lookup from here on finds no agent (and `agent_of`
        // panics) instead of a freed one.
        AGENTS.with(|agents| agents.borrow_mut().retain(|(r, _)| *r != rt));
        LAST_AGENT.with(|c| c.set((ptr::null_mut(), ptr::null())));
        // SAFETY: `agent` came from `Box::into_raw` in `install` and is freed only here (its
        // entry is gone, so a second call returns early above); `state` is not used again, and
        // the caller promises no other reference to the agent is.
        drop(unsafe { Box::from_raw(agent) });
    }

    /// The atom of `which`, borrowed from the agent (the caller does not free it); 0 if
    /// QuickJS ran out of memory making it (the exception is left pending, as for any failed
    /// `JS_NewAtom`).
    #[inline]
    pub(crate) fn known_atom(&self, cx: &Cx, which: KnownAtom) -> q::JSAtom {
        let cell = &self.known_atoms[which as usize];
        let atom = cell.get();
        if atom != 0 {
            return atom;
        }
        // SAFETY: `cx`'s context is live (`Cx`'s invariant), of this agent's runtime (a `Cx`
        // reaches its agent through its runtime); the name is a static NUL-terminated ASCII
        // string. The atom's count is the agent's, given back in `uninstall`.
        let atom = unsafe { q::JS_NewAtom(cx.raw(), which.name().as_ptr()) };
        cell.set(atom);
        atom
    }

    /// Makes `holder` (an object of our native class) the native data holder of `object`, an
    /// object of a QuickJS class (a global object). An earlier holder of `object` stays alive
    /// (shadowed) until the agent ends, as references into its data may still be held.
    pub(crate) fn adopt_foreign_data(&self, object: &Value, holder: Value) {
        if !object.is_object() {
            return;
        }
        // SAFETY: `object` is an object, so QuickJS made its `JSValue` with `JS_MKPTR`: the
        // pointer member of the payload is initialized, and reading it touches nothing else.
        let key = unsafe { q::JS_VALUE_GET_PTR(object.raw()) } as usize;
        self.foreign.borrow_mut().push((key, holder));
    }

    /// Stores `data` (one value per type; a second one replaces the first, which is dropped
    /// with the agent).
    pub(crate) fn set_data<T: Any>(&self, data: T) {
        let old = self
            .data
            .borrow_mut()
            .insert(TypeId::of::<T>(), Rc::new(data));
        if let Some(old) = old {
            self.retired.borrow_mut().push(old);
        }
    }

    /// The agent's data of type `T`.
    pub(crate) fn data<T: Any>(&self) -> Option<&T> {
        let map = self.data.borrow();
        let ptr: *const T = map.get(&TypeId::of::<T>())?.downcast_ref::<T>()?;
        // SAFETY: `ptr` points into an `Rc` allocation that the map or `retired` keeps alive
        // until `uninstall` (`set_data` retires, never drops, a replaced value), whose caller
        // promises no `&Agent` (hence no reference borrowed from `self`) is used afterwards;
        // moving the `Rc` (the map rehashing, a retirement) does not move its contents. The
        // value is never borrowed mutably (the agent hands out only `&T`), so a shared
        // reference outliving the map's `borrow` aliases nothing.
        Some(unsafe { &*ptr })
    }
}

/// Our two classes' ids, `(native << 32) | function`, as every runtime of the process has
/// registered them so far (0: no runtime yet; `u64::MAX`: runtimes differ, so look them up per
/// agent).
///
/// Why the fast path of [`native_of`] may trust it: the value only ever goes from 0 to one
/// packed pair, and from anything to `u64::MAX` (never back). A runtime whose ids differ from
/// the recorded pair stores `u64::MAX` in `install`, before any object of it exists, on the
/// thread that then uses its values (values do not leave their runtime's thread); by
/// coherence that thread never reads an older value afterwards. So a thread that reads a pair
/// only holds values of runtimes that registered exactly that pair.
static CLASS_IDS: AtomicU64 = AtomicU64::new(0);

/// The agent state of `rt`.
///
/// `rt` must be a live runtime of this backend: a `Cx`'s, or a counted `Value`'s (which
/// outlives none of its runtime, `Value`'s invariant). Panics if its agent is not installed
/// (before `install`, or during teardown after `uninstall`).
#[inline]
pub(crate) fn agent_of<'a>(rt: *mut q::JSRuntime) -> &'a Agent {
    let agent = agent_ptr(rt);
    // SAFETY: the entry is null or the live, leaked `Box<Agent>` (`Agent`'s invariant), and
    // the agent is only shared-borrowed. It stays allocated until `uninstall`, whose caller
    // promises that no reference to it is used afterwards: callers keep `'a` within that span
    // (`Cx::agent` ties it to the `Cx`, `native_of` to a live value of the runtime).
    // Assert: the agent is installed (this function's contract; only crate code calls it).
    unsafe { agent.as_ref() }.expect("the runtime's agent is installed") // Assert: as above.
}

/// The well-known symbols and intrinsics captured when a realm is set up, before any script
/// runs, so no later patch of a global changes what the backend does.
///
/// # Invariant
/// From [`RealmState::install`] to [`RealmState::uninstall`], the context's opaque is the
/// pointer `Box::into_raw` made of its `Box<RealmState>`, and nothing else sets a context's
/// opaque (`JS_SetContextOpaque` appears only in these two functions); outside that span it is
/// null. The state is only ever shared-borrowed.
pub struct RealmState {
    data: RefCell<TypeMap<Box<dyn Any>>>,
    /// The captured intrinsics, one slot per [`Intrinsic`] (in its order).
    pub(crate) intrinsics: RefCell<Vec<Value>>,
    /// Objects no script can reach, kept for the realm's life only so that the shapes of the
    /// objects the backend and the engine make per chunk stay in QuickJS's shape cache
    /// (`call::shape_anchors`).
    pub(crate) anchors: RefCell<Vec<Value>>,
}

impl RealmState {
    /// Sets up a new context's realm state: captures the intrinsics the backend calls. Call
    /// [`RealmState::uninstall`] before `JS_FreeContext`.
    ///
    /// # Safety
    /// `ctx` is a live context, used on this thread, of a runtime set up by
    /// [`Agent::install`], with no context opaque (made by `JS_NewContext`, ours or an
    /// application's). The agent takes a count of it, so it stays live until
    /// [`Agent::uninstall`] removes the state and gives the count back.
    pub(crate) unsafe fn install(ctx: *mut q::JSContext) -> JsResult<()> {
        // SAFETY: `ctx` is live (the caller's promise); this reads its `rt` field.
        let rt = unsafe { q::JS_GetRuntime(ctx) };
        // SAFETY: `ctx` is live; the agent keeps this count until `Agent::uninstall`, which
        // uninstalls the state, then gives the count back.
        unsafe { q::JS_DupContext(ctx) };
        // The caller's promise: `rt` has its agent.
        agent_of(rt).realms.borrow_mut().push(ctx);
        let state = Box::new(RealmState {
            data: RefCell::new(TypeMap::default()),
            intrinsics: RefCell::new(Vec::with_capacity(Intrinsic::ALL.len())),
            anchors: RefCell::new(Vec::new()),
        });
        // SAFETY: `ctx` is live and has no opaque to lose (the caller's promise); from here on
        // its opaque is the leaked box, as `RealmState`'s invariant says.
        unsafe { q::JS_SetContextOpaque(ctx, Box::into_raw(state).cast()) };
        // SAFETY: `ctx` is live, of a runtime whose agent is installed, and now has its realm
        // state: `Cx`'s invariant holds for the handle, which is dropped when this function
        // returns, before any handle entered earlier.
        let mut cx = unsafe { Cx::enter(ctx) };
        calibrate_gc_passes(ctx);
        let agent = agent_of(rt);
        if !agent.job_list_probed.replace(true) {
            // SAFETY: `ctx` is a live context of `rt` (the caller's promise), whose agent is
            // installed, used on this thread.
            agent
                .job_list
                .set(unsafe { super::job::probe_job_list(ctx) });
        }
        super::call::capture_intrinsics(&mut cx)?;
        let anchors = super::call::shape_anchors(&mut cx);
        *realm_of(ctx).anchors.borrow_mut() = anchors;
        Ok(())
    }

    /// Drops the realm's state.
    ///
    /// # Safety
    /// `ctx` is live and was set up by [`RealmState::install`] (or this was already called:
    /// then it does nothing). No reference to its realm state is used after this returns: no
    /// `Cx` of the context is alive, and none is entered on it again.
    pub(crate) unsafe fn uninstall(ctx: *mut q::JSContext) {
        // SAFETY: `ctx` is live (the caller's promise); this reads its opaque field.
        let state = unsafe { q::JS_GetContextOpaque(ctx) }.cast::<RealmState>();
        if state.is_null() {
            return;
        }
        // SAFETY: non-null, so the pointer `install` leaked (`RealmState`'s invariant), not
        // freed yet; only shared references to it exist, and this one ends before the box is
        // freed below.
        let realm = unsafe { &*state };
        let data = std::mem::take(&mut *realm.data.borrow_mut());
        drop(data);
        let intrinsics = std::mem::take(&mut *realm.intrinsics.borrow_mut());
        drop(intrinsics);
        let anchors = std::mem::take(&mut *realm.anchors.borrow_mut());
        drop(anchors);
        // SAFETY: `ctx` is live; clearing the opaque first means a lookup from here on finds
        // no state (and `realm_of` panics) instead of a freed one.
        unsafe { q::JS_SetContextOpaque(ctx, ptr::null_mut()) };
        // SAFETY: `state` came from `Box::into_raw` in `install` and is freed only here (the
        // opaque no longer points to it); `realm` is not used again, and the caller promises
        // no other reference to the state is.
        drop(unsafe { Box::from_raw(state) });
    }

    /// Stores `data` (one value per type).
    pub(crate) fn set_data<T: Any>(&self, data: T) {
        let old = self
            .data
            .borrow_mut()
            .insert(TypeId::of::<T>(), Box::new(data));
        drop(old);
    }

    /// Runs `f` on the data of type `T` (a short borrow).
    pub(crate) fn with_data<T: Any, R>(&self, f: impl FnOnce(&T) -> R) -> Option<R> {
        let map = self.data.borrow();
        map.get(&TypeId::of::<T>())?.downcast_ref::<T>().map(f)
    }

    /// A captured intrinsic (see `call::capture_intrinsics`; `undefined` before the capture).
    #[inline]
    pub(crate) fn intrinsic(&self, which: Intrinsic) -> Value {
        self.intrinsics
            .borrow()
            .get(which as usize)
            .cloned()
            .unwrap_or_default()
    }
}

/// Whether `ctx` (a live context) has its realm state: the agent of its runtime set it up
/// (the context's opaque alone does not say: an application may use it on a context it never
/// gave us).
#[cfg(feature = "rquickjs")]
pub(crate) fn has_realm_state(ctx: *mut q::JSContext) -> bool {
    // SAFETY: `ctx` is live (this function's contract); this reads its `rt` field.
    let rt = unsafe { q::JS_GetRuntime(ctx) };
    // (`agent_of` only when the runtime has an agent.)
    has_agent(rt) && agent_of(rt).realms.borrow().contains(&ctx)
}

/// The realm state of `ctx`.
///
/// `ctx` must be a live context of this backend (a `Cx`'s, or the current one). Panics if its
/// realm state is not installed (during teardown, after `uninstall`).
#[inline]
pub(crate) fn realm_of<'a>(ctx: *mut q::JSContext) -> &'a RealmState {
    // SAFETY: `ctx` is live (this function's contract above); this reads its opaque field.
    let state = unsafe { q::JS_GetContextOpaque(ctx) }.cast::<RealmState>();
    // SAFETY: the opaque is null or the live, leaked `Box<RealmState>` (`RealmState`'s
    // invariant), only ever shared-borrowed. It stays allocated until `uninstall`, whose
    // caller promises no reference to it is used afterwards: callers keep `'a` within that
    // span (`Cx::realm_state` ties it to the `Cx`).
    // Assert: the realm state is installed (this function's contract; only crate code calls it).
    unsafe { state.as_ref() }.expect("the realm's state is installed") // Assert: as above.
}

// ---------------------------------------------------------------------------------------------
// Native data
// ---------------------------------------------------------------------------------------------

/// What the opaque of an object of our classes points to: the native data, or a function.
///
/// # Invariant
/// The opaque of every object of our two classes (`Agent::native_class`,
/// `Agent::function_class`) is null or a pointer `Box::into_raw` made of a `Box<Native>` that
/// the object owns: set once, right after the object is made ([`new_native_object`],
/// `call::new_function_object`, the only `JS_SetOpaque` calls), and freed only by
/// [`native_finalizer`] when QuickJS frees the object. So while anything keeps the object
/// alive (a `Value` owns a count of it), its `Native` is allocated and unchanged. A `Native`
/// is only ever shared-borrowed (`&Native`), never mutably.
pub(crate) enum Native {
    /// Native data, with its type's id (so a downcast compares it in place, without two calls
    /// through the vtable).
    Data(Box<dyn NativeData>, TypeId),
    /// A function, with its realm (the context it was made in: it runs there, as a built-in
    /// function runs in its [[Realm]]).
    Function(super::call::NativeFunction, super::Realm),
}

/// Erased native data.
pub(crate) trait NativeData: Any {
    fn trace_data(&self, marker: &mut Marker);
}

impl<T: NativeObject> NativeData for T {
    fn trace_data(&self, marker: &mut Marker) {
        self.trace(marker);
    }
}

/// The `finalizer` of our two classes: frees the object's [`Native`].
///
/// # Safety
/// Only QuickJS calls it, from `free_object` (quickjs.c), and guarantees on entry:
/// - it runs on the thread running the runtime `_rt`, when the object's reference count has
///   reached zero (or the cycle collector found it unreachable), once per object;
/// - `value` is that object, `JS_MKPTR(JS_TAG_OBJECT, p)`, of one of our two classes (only
///   they have this finalizer); its memory stays allocated during the call, and QuickJS
///   clears its class and opaque right after, never reading them again;
/// - `value` is borrowed: no reference count comes with it, and none is returned;
/// - the runtime is freeing objects (possibly mid-collection, where other objects of the
///   same cycle may already be finalized): the hook must not run script or make JS values.
///   Freeing values (the `Native`'s own) is what C finalizers do and is allowed.
///
/// It returns nothing. A panic cannot unwind out of an `extern "C"` function: it aborts.
unsafe extern "C" fn native_finalizer(_rt: *mut q::JSRuntime, value: q::JSValue) {
    let mut class = 0;
    // SAFETY: `value` is an allocated object (QuickJS's guarantee on entry); the call reads
    // its class id and opaque and writes the id to `class`.
    let opaque = unsafe { q::JS_GetAnyOpaque(value, &mut class) }.cast::<Native>();
    if !opaque.is_null() {
        // SAFETY: the object is of one of our classes, so a non-null opaque is the
        // `Box<Native>` it owns (`Native`'s invariant). QuickJS finalizes the object once and
        // then clears the opaque, so the box is freed exactly once. No `&Native` outlives
        // this: every borrow is tied to a `Value` that keeps the object alive, and none does
        // now. Dropping it frees the values the data holds, which finalizers may do.
        drop(unsafe { Box::from_raw(opaque) });
    }
}

/// The `gc_mark` hook of our two classes: reports the JS values the object's [`Native`] holds.
///
/// # Safety
/// Only QuickJS calls it, from `mark_children` (quickjs.c) in the passes of a collection
/// (`JS_RunGC`: `gc_decref`, `gc_scan`), and guarantees on entry:
/// - it runs on the thread running `rt`, which is that collection's runtime;
/// - `value` is a live object of one of our two classes (only they have this hook), borrowed
///   for the call (no reference count comes with it); no object is freed during these
///   passes;
/// - `mark` is the pass's mark function, valid for the call, to be given each GC object the
///   object references, with `rt`.
///
/// The collection is mid-way: the hook must report the same children on every pass, and must
/// not make, free or run anything on the runtime (`Trace`'s contract). It returns nothing; a
/// panic aborts (an `extern "C"` function cannot unwind).
unsafe extern "C" fn native_gc_mark(
    rt: *mut q::JSRuntime,
    value: q::JSValue,
    mark: q::JS_MarkFunc,
) {
    let mut class = 0;
    // SAFETY: `value` is a live object (QuickJS's guarantee on entry); the call reads its
    // class id and opaque and writes the id to `class`.
    let opaque = unsafe { q::JS_GetAnyOpaque(value, &mut class) }.cast::<Native>();
    // SAFETY: the object is of one of our classes and alive for the call, so a non-null opaque
    // is its live `Box<Native>` (`Native`'s invariant), only ever shared-borrowed; the borrow
    // ends with the hook, and no object is finalized during a mark pass.
    let Some(native) = (unsafe { opaque.as_ref() }) else {
        return;
    };
    // `Marker`'s invariant: these are the running hook's runtime and mark function, and the
    // marker lives on this frame.
    let (pass, epoch) = enter_gc_pass(mark);
    let mut marker = Marker {
        rt,
        mark,
        pass,
        epoch,
    };
    match native {
        Native::Data(data, _) => data.trace_data(&mut marker),
        Native::Function(f, realm) => {
            f.trace(&mut marker);
            realm.trace(&mut marker);
        }
    }
}

/// The `Native` behind an object of one of our classes, if it is one.
#[inline]
pub(crate) fn native_of(value: &Value) -> Option<&Native> {
    let rt = value.runtime();
    if rt.is_null() {
        return None;
    }
    // The fast path: one call reads the class and the opaque, compared with the class ids
    // every runtime of the process has given our classes so far.
    let ids = CLASS_IDS.load(Ordering::Relaxed);
    if ids != 0 && ids != u64::MAX {
        let mut class = 0;
        // SAFETY: `value` owns a count of its `JSValue` (`Value`'s invariant), so an object is
        // allocated; for anything else the call only reads the tag and reports class 0.
        let opaque = unsafe { q::JS_GetAnyOpaque(value.raw(), &mut class) };
        if class == (ids >> 32) as q::JSClassID || class == ids as q::JSClassID {
            // SAFETY: `class` is one of this runtime's two classes of ours (`CLASS_IDS` holds
            // the ids of the runtime of every value on this thread, see there), so the opaque
            // is null or the object's live `Native` (`Native`'s invariant). The borrow is tied
            // to `value`, which keeps the object, hence the `Native`, alive.
            return unsafe { opaque.cast::<Native>().as_ref() };
        }
        if class == 0 {
            return None;
        }
        return foreign_native(agent_of(rt), value);
    }
    // A counted value's runtime is live and has its agent (`Value`'s invariant).
    let agent = agent_of(rt);
    // SAFETY: as above: `value` is live, and the call only reads the tag and the class id.
    let class = unsafe { q::JS_GetClassID(value.raw()) };
    if class != agent.native_class && class != agent.function_class {
        return foreign_native(agent, value);
    }
    // SAFETY: `value` is an object of one of our classes (the class id matched this
    // runtime's): `JS_GetOpaque` returns its opaque, null or its live `Native` (`Native`'s
    // invariant). The borrow is tied to `value`, which keeps the object alive.
    unsafe {
        q::JS_GetOpaque(value.raw(), class)
            .cast::<Native>()
            .as_ref()
    }
}

/// The `Native` of an object of a QuickJS class whose data a holder carries (see
/// [`Agent::adopt_foreign_data`]).
#[cold]
fn foreign_native<'a>(agent: &'a Agent, value: &Value) -> Option<&'a Native> {
    let foreign = agent.foreign.try_borrow().ok()?;
    if foreign.is_empty() || !value.is_object() {
        return None;
    }
    // SAFETY: `value` is an object, so QuickJS made its `JSValue` with `JS_MKPTR`: the
    // pointer member of the payload is initialized, and reading it touches nothing else.
    let key = unsafe { q::JS_VALUE_GET_PTR(value.raw()) } as usize;
    // The newest holder of the address (an earlier one is shadowed).
    let holder = foreign
        .iter()
        .rev()
        .find(|(k, _)| *k == key)
        .map(|(_, h)| h)?;
    // SAFETY: `holder` is a live value (the list owns it); for a non-object the call reports
    // `JS_INVALID_CLASS_ID` (0), which is not ours.
    if unsafe { q::JS_GetClassID(holder.raw()) } != agent.native_class {
        return None;
    }
    // SAFETY: `holder` is an object of our native class: its opaque is null or its live
    // `Native` (`Native`'s invariant). The holder stays in the list until `uninstall`
    // (entries are never removed before), so the `Native` lives as long as `agent` is
    // borrowed; the borrow of the list ends here, but the entries outlive it.
    unsafe {
        q::JS_GetOpaque(holder.raw(), agent.native_class)
            .cast::<Native>()
            .as_ref()
    }
}

/// The native data of `value` as a `T`, if `value` is an object of our native class holding
/// a `T`.
#[inline]
pub(crate) fn data_of<T: NativeObject>(value: &Value) -> Option<&T> {
    match native_of(value)? {
        Native::Data(data, id) if *id == TypeId::of::<T>() => {
            let data: *const dyn NativeData = &**data;
            // SAFETY: the id is the data's own type's (`new_native_object` stores `T`'s with a
            // box of a `T`, and nothing changes either), so the box holds a `T`: the cast drops
            // the vtable and points at it, borrowed for as long as `value` keeps the object.
            Some(unsafe { &*data.cast::<T>() })
        }
        Native::Data(..) => None,
        Native::Function(..) => None,
    }
}

/// A new object of our native class with `proto` (an object or null) and `data`, and the
/// address of that data in it (what a typed `Object<T>` keeps, so reading it needs no lookup).
///
/// `ctx` must be null (it panics) or a live context of this backend: a `Cx`'s, or
/// [`current_ctx`]; `proto` a value alive for the call.
pub(crate) fn new_native_object<T: NativeObject>(
    ctx: *mut q::JSContext,
    proto: q::JSValue,
    data: T,
) -> (Value, *const T) {
    // Assert: `ctx` is not null. Callers without a `Cx` pass `current_ctx()`, which is null
    // only while no `Cx` is alive on the thread (`current_ctx`'s invariant, which holds
    // whatever order an embedder drops its handles in), and every caller runs inside an
    // operation given a `Cx`.
    assert!(!ctx.is_null(), "a native object made outside any context");
    // SAFETY: `ctx` is live (this function's contract above); this reads its `rt` field.
    let rt = unsafe { q::JS_GetRuntime(ctx) };
    let class = agent_of(rt).native_class;
    // SAFETY: `ctx` is live; `proto` is alive for the call and borrowed (QuickJS takes its own
    // reference through the new shape; a non-object counts as null). The result is owned.
    let raw = unsafe { q::JS_NewObjectProtoClass(ctx, proto, class) };
    // SAFETY: reads the tag only.
    if unsafe { q::JS_IsException(raw) } {
        // The only failure is a failed allocation (runtimes here have no memory limit), which
        // Rust's own allocator treats as fatal too: abort as it does, rather than hand out
        // an object without its data.
        std::alloc::handle_alloc_error(std::alloc::Layout::new::<T>());
    }
    let data = Box::new(data);
    // The data's address: the box's contents stay where they are when the box moves into the
    // `Native` (and from there into the object's opaque).
    let ptr: *const T = &*data;
    let native: Box<Native> = Box::new(Native::Data(data, TypeId::of::<T>()));
    // SAFETY: `raw` is the new object of our native class, with a null opaque (QuickJS sets
    // it so), owned here; giving it the leaked box is what `Native`'s invariant describes
    // (the class id is not a built-in one, so `JS_SetOpaque` cannot refuse).
    unsafe { q::JS_SetOpaque(raw, Box::into_raw(native).cast::<c_void>()) };
    // `raw` is an owned value of `rt`: `Value::from_raw`'s contract.
    (Value::from_raw(rt, raw), ptr)
}

// ---------------------------------------------------------------------------------------------
// Raw-value helpers
// ---------------------------------------------------------------------------------------------

/// `JS_UNDEFINED`.
pub(crate) const UNDEFINED: q::JSValue = mkval(q::JS_TAG_UNDEFINED, 0);
/// `JS_NULL`.
pub(crate) const NULL: q::JSValue = mkval(q::JS_TAG_NULL, 0);

/// `JS_MKVAL` with the whole 8-byte payload initialized (the upper half zero). rquickjs's
/// `JS_MKVAL` sets only the `int32` member, and QuickJS's branch-free tests of a value (e.g. a
/// `Map` key's `-0` normalization) then read uninitialized bytes: harmless for the result, but
/// memcheck reports it, and it hides real reports.
pub(crate) const fn mkval(tag: i32, val: i32) -> q::JSValue {
    #[cfg(all(target_pointer_width = "64", target_endian = "little"))]
    {
        q::JSValue {
            u: q::JSValueUnion {
                float64: f64::from_bits(val as u32 as u64),
            },
            tag: tag as _,
        }
    }
    #[cfg(not(all(target_pointer_width = "64", target_endian = "little")))]
    {
        q::JS_MKVAL(tag, val)
    }
}

/// A number value: an `int` when `n` is an int32 (not -0), as `JS_NewFloat64` makes it, but
/// through [`mkval`].
pub(crate) fn number_value(n: f64) -> q::JSValue {
    let i = n as i32;
    if f64::from(i).to_bits() == n.to_bits() {
        mkval(q::JS_TAG_INT, i)
    } else {
        q::__JS_NewFloat64(n)
    }
}

/// Takes an owned result of a QuickJS call: `JS_EXCEPTION` becomes the pending exception.
///
/// `raw` must be an owned value of `cx`'s runtime (what a QuickJS call on `cx`'s context
/// returned), or `JS_EXCEPTION` with that exception pending.
#[inline]
pub(crate) fn check(cx: &mut Cx, raw: q::JSValue) -> JsResult<Value> {
    // SAFETY: reads the tag only.
    if unsafe { q::JS_IsException(raw) } {
        Err(take_exception(cx))
    } else {
        // An owned value of `cx.rt()` (this function's contract): `Value::from_raw`'s.
        Ok(Value::from_raw(cx.rt(), raw))
    }
}

/// Takes a QuickJS status: a negative one means the pending exception.
#[inline]
pub(crate) fn check_status(cx: &mut Cx, status: c_int) -> JsResult<c_int> {
    if status < 0 {
        Err(take_exception(cx))
    } else {
        Ok(status)
    }
}

/// The pending exception, taken out of the context.
pub(crate) fn take_exception(cx: &mut Cx) -> JsError {
    // SAFETY: `cx`'s context is live (`Cx`'s invariant). `JS_GetException` moves the runtime's
    // pending exception out (leaving `JS_UNINITIALIZED`, which has no count, when there is
    // none), so the caller owns the returned value.
    let raw = unsafe { q::JS_GetException(cx.raw()) };
    JsError::from_thrown(Value::from_raw(cx.rt(), raw))
}

/// Throws `error` in `cx` and returns `JS_EXCEPTION` (what a native function returns).
pub(crate) fn throw(cx: &mut Cx, error: JsError) -> q::JSValue {
    let value = error.into_thrown_value(cx);
    // SAFETY: `cx`'s context is live (`Cx`'s invariant). `JS_Throw` takes ownership of the
    // value (it becomes the pending exception, freeing any earlier one): `into_raw` hands
    // over the one count the `Value` owned, so nothing frees it twice.
    unsafe { q::JS_Throw(cx.raw(), value.into_raw()) }
}

/// An atom for `key` (the caller frees it with `JS_FreeAtom`).
pub(crate) fn atom(cx: &mut Cx, key: &super::PropertyKey) -> JsResult<q::JSAtom> {
    // An ASCII key (nearly every key the library names) is looked up in the atom table
    // directly, with no string value made for it.
    if let super::PropertyKey::String(s) = key {
        let units = s.units();
        if units.len() <= 64 && units.iter().all(|&u| u < 0x80) {
            let mut bytes = [0u8; 64];
            for (b, &u) in bytes.iter_mut().zip(units) {
                *b = u as u8;
            }
            return ascii_atom(cx, &bytes[..units.len()]);
        }
    }
    let value = key.to_value(cx);
    // SAFETY: `cx`'s context is live (`Cx`'s invariant) and `value` a live value of its
    // runtime (`Value`'s invariant), borrowed for the call. A key is a string or a symbol, so
    // the conversion runs no script. The atom returned is ours to free.
    let atom = unsafe { q::JS_ValueToAtom(cx.raw(), value.raw()) };
    if atom == 0 {
        return Err(take_exception(cx));
    }
    Ok(atom)
}

/// The atom of an ASCII key (the caller frees it with `JS_FreeAtom`).
pub(crate) fn ascii_atom(cx: &mut Cx, key: &[u8]) -> JsResult<q::JSAtom> {
    // SAFETY: `cx`'s context is live (`Cx`'s invariant); `key` is readable for `key.len()`
    // bytes for the call (QuickJS reads none when the length is 0, and copies the bytes into
    // the string it makes otherwise). ASCII is valid UTF-8, as `JS_NewAtomLen` expects; a
    // canonical numeric string becomes an index atom, as with `JS_ValueToAtom`.
    let atom = unsafe { q::JS_NewAtomLen(cx.raw(), key.as_ptr().cast(), key.len() as _) };
    if atom == 0 {
        return Err(take_exception(cx));
    }
    Ok(atom)
}

/// A Rust string as a JS string value.
pub(crate) fn new_string(cx: &mut Cx, s: &str) -> Value {
    // SAFETY: `cx`'s context is live (`Cx`'s invariant); `s` is valid UTF-8, readable for
    // `s.len()` bytes during the call (QuickJS copies them). The result is owned (or
    // `JS_EXCEPTION`), as `check` takes it.
    let raw = unsafe { q::JS_NewStringLen(cx.raw(), s.as_ptr().cast(), s.len() as _) };
    check(cx, raw).unwrap_or_default()
}
