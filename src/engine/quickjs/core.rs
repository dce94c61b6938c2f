//! The backend's plumbing: the context handle [`Cx`], the agent's and realms' state, the two
//! classes of ours (native data, Rust functions), tracing, and the raw-value helpers the other
//! files of the backend use.

use std::any::{Any, TypeId};
use std::cell::{Cell, RefCell};
use std::collections::{HashMap, VecDeque};
use std::ffi::{c_int, c_void};
use std::ptr;
use std::sync::atomic::{AtomicU64, Ordering};

pub(crate) use rquickjs_sys as q;

use super::{JsError, JsResult, Value};

// ---------------------------------------------------------------------------------------------
// Tracing
// ---------------------------------------------------------------------------------------------

/// Passed to [`Trace::trace`] by the collector's mark phase: reports each JS value a native
/// value holds.
pub struct Marker {
    rt: *mut q::JSRuntime,
    mark: q::JS_MarkFunc,
}

impl Marker {
    /// Reports `value` (a no-op for values without a reference count of their own).
    #[inline]
    pub(crate) fn mark(&mut self, value: q::JSValue) {
        // SAFETY: `rt` and `mark` are the ones the collector passed to the `gc_mark` hook that
        // made this marker, and `value` is held by the data being traced.
        unsafe { q::JS_MarkValue(self.rt, value, self.mark) }
    }

    /// Reports a reference to a context (a realm): contexts are collected objects too, and the
    /// `JSGCObjectHeader` comes first in QuickJS's `JSContext` ("must come first").
    #[inline]
    pub(crate) fn mark_context(&mut self, ctx: *mut q::JSContext) {
        if let Some(mark) = self.mark {
            // SAFETY: `ctx` is a live context held by the data being traced; its header is its
            // first field.
            unsafe { mark(self.rt, ctx.cast::<q::JSGCObjectHeader>()) }
        }
    }
}

/// Traced by the engine's garbage collector: what a slot, a shared pointer or an object's
/// native data holds. Declared with `traced!` (the `Trace` derive of `boa_streams_derive`).
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

thread_local! {
    /// The innermost entered context on this thread (null when none).
    static CURRENT: Cell<*mut q::JSContext> = const { Cell::new(ptr::null_mut()) };
}

/// The innermost entered context of this thread: what the API's operations without a context
/// argument use. Null outside any entry (only the host creates values there, through a `Cx`).
#[inline]
pub(crate) fn current_ctx() -> *mut q::JSContext {
    CURRENT.with(Cell::get)
}

/// The execution context every operation runs in: a handle on a `JSContext` (a realm), entered
/// for as long as the handle lives (it restores the previous current context on drop).
pub struct Cx {
    raw: *mut q::JSContext,
    previous: *mut q::JSContext,
}

impl Cx {
    /// Enters `raw` (a live context of a runtime set up by [`Agent::install`]).
    ///
    /// # Safety
    /// `raw` must stay alive for the handle's lifetime.
    pub(crate) unsafe fn enter(raw: *mut q::JSContext) -> Self {
        let previous = CURRENT.with(|c| c.replace(raw));
        Self { raw, previous }
    }

    /// The `JSContext`.
    #[inline]
    pub(crate) fn raw(&self) -> *mut q::JSContext {
        self.raw
    }

    /// The `JSRuntime`.
    #[inline]
    pub(crate) fn rt(&self) -> *mut q::JSRuntime {
        // SAFETY: a live context.
        unsafe { q::JS_GetRuntime(self.raw) }
    }

    /// Runs `f` with `realm` as the current realm (HTML's "entering" a realm), then returns.
    pub(crate) fn in_realm<R>(
        &mut self,
        realm: *mut q::JSContext,
        f: impl FnOnce(&mut Cx) -> R,
    ) -> R {
        // SAFETY: the caller holds the realm (a `Realm` keeps a reference on its context).
        let mut inner = unsafe { Cx::enter(realm) };
        f(&mut inner)
    }

    /// The agent's state.
    #[inline]
    pub(crate) fn agent(&self) -> &Agent {
        agent_of(self.rt())
    }

    /// The current realm's state.
    #[inline]
    pub(crate) fn realm_state(&self) -> &RealmState {
        realm_of(self.raw)
    }
}

impl Drop for Cx {
    fn drop(&mut self) {
        let previous = self.previous;
        CURRENT.with(|c| c.set(previous));
    }
}

impl std::fmt::Debug for Cx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cx").field("raw", &self.raw).finish()
    }
}

/// Rust code queued to run later with a context.
pub(crate) type Job = Box<dyn FnOnce(&mut Cx) -> JsResult<()>>;

/// A task: Rust code to run in a realm, from the host's event loop.
pub(crate) struct Task {
    pub(crate) realm: super::Realm,
    pub(crate) job: Job,
}

/// A timer: a task that becomes runnable at `due` (the clock's nanoseconds).
pub(crate) struct Timer {
    pub(crate) due: u128,
    pub(crate) sequence: u64,
    /// The host's key for a timer it may cancel (`clearTimeout`).
    pub(crate) key: Option<u64>,
    pub(crate) task: Task,
}

/// The agent's state (one per `JSRuntime`): the classes of ours, the data layers keep per
/// agent, the task and timer queues the host's event loop drains, and the clock's origin.
pub struct Agent {
    pub(crate) native_class: q::JSClassID,
    pub(crate) function_class: q::JSClassID,
    data: RefCell<HashMap<TypeId, Box<dyn Any>>>,
    pub(crate) tasks: RefCell<VecDeque<Task>>,
    /// The Rust microtasks queued on the engine's job queue, in order: each has one job entry
    /// there, which runs the front one (`job.rs`).
    pub(crate) microtasks: RefCell<VecDeque<Job>>,
    pub(crate) timers: RefCell<Vec<Timer>>,
    pub(crate) timer_sequence: Cell<u64>,
    pub(crate) origin: std::time::Instant,
    /// Native data of objects QuickJS made with a class of its own (a realm's global object),
    /// by object address: the holder, an object of our native class whose data they read as
    /// theirs. Entries live as long as the agent (roots).
    /// (A few entries, one per realm: a linear scan is cheaper than hashing.)
    foreign: RefCell<Vec<(usize, Value)>>,
}

impl Agent {
    /// Sets up a new runtime's agent state and registers the classes of ours. Call
    /// [`Agent::uninstall`] before `JS_FreeRuntime`.
    ///
    /// # Safety
    /// `rt` is a new runtime with no opaque of its own.
    pub(crate) unsafe fn install(rt: *mut q::JSRuntime) {
        let mut native_class: q::JSClassID = 0;
        q::JS_NewClassID(rt, &mut native_class);
        let native_def = q::JSClassDef {
            class_name: c"Object".as_ptr(),
            finalizer: Some(native_finalizer),
            gc_mark: Some(native_gc_mark),
            call: None,
            exotic: ptr::null_mut(),
        };
        q::JS_NewClass(rt, native_class, &native_def);
        let mut function_class: q::JSClassID = 0;
        q::JS_NewClassID(rt, &mut function_class);
        let function_def = q::JSClassDef {
            class_name: c"Function".as_ptr(),
            finalizer: Some(native_finalizer),
            gc_mark: Some(native_gc_mark),
            call: Some(super::call::function_call_hook),
            exotic: ptr::null_mut(),
        };
        q::JS_NewClass(rt, function_class, &function_def);
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
            data: RefCell::new(HashMap::new()),
            tasks: RefCell::new(VecDeque::new()),
            microtasks: RefCell::new(VecDeque::new()),
            timers: RefCell::new(Vec::new()),
            timer_sequence: Cell::new(0),
            origin: std::time::Instant::now(),
            foreign: RefCell::new(Vec::new()),
        });
        q::JS_SetRuntimeOpaque(rt, Box::into_raw(agent).cast());
    }

    /// Drops the agent's state (its queued tasks and data, which may hold values).
    ///
    /// # Safety
    /// `rt` was set up by [`Agent::install`]; nothing uses the agent afterwards.
    pub(crate) unsafe fn uninstall(rt: *mut q::JSRuntime) {
        let agent = q::JS_GetRuntimeOpaque(rt).cast::<Agent>();
        if agent.is_null() {
            return;
        }
        // Drop what may hold values while the agent is still reachable (their drops may look
        // it up), then the agent itself.
        let tasks = std::mem::take(&mut *(*agent).tasks.borrow_mut());
        drop(tasks);
        let microtasks = std::mem::take(&mut *(*agent).microtasks.borrow_mut());
        drop(microtasks);
        let timers = std::mem::take(&mut *(*agent).timers.borrow_mut());
        drop(timers);
        let data = std::mem::take(&mut *(*agent).data.borrow_mut());
        drop(data);
        let foreign = std::mem::take(&mut *(*agent).foreign.borrow_mut());
        drop(foreign);
        q::JS_SetRuntimeOpaque(rt, ptr::null_mut());
        drop(Box::from_raw(agent));
    }

    /// Makes `holder` (an object of our native class) the native data holder of `object`, an
    /// object of a QuickJS class (a global object).
    pub(crate) fn adopt_foreign_data(&self, object: &Value, holder: Value) {
        // SAFETY: reading an object's address.
        let key = unsafe { q::JS_VALUE_GET_PTR(object.raw()) } as usize;
        let mut foreign = self.foreign.borrow_mut();
        foreign.retain(|(k, _)| *k != key);
        foreign.push((key, holder));
    }

    /// Stores `data` (one value per type; a second one replaces the first).
    pub(crate) fn set_data<T: Any>(&self, data: T) {
        let old = self
            .data
            .borrow_mut()
            .insert(TypeId::of::<T>(), Box::new(data));
        drop(old);
    }

    /// The agent's data of type `T`.
    pub(crate) fn data<T: Any>(&self) -> Option<&T> {
        let map = self.data.borrow();
        let boxed = map.get(&TypeId::of::<T>())?;
        let ptr: *const T = boxed.downcast_ref::<T>()?;
        // SAFETY: the box's contents do not move while the map holds it, and an entry is only
        // ever replaced by `set_data`, which callers do once per type at setup.
        Some(unsafe { &*ptr })
    }
}

/// Our two classes' ids, `(native << 32) | function`, as every runtime of the process has
/// registered them so far (0: no runtime yet; `u64::MAX`: runtimes differ, so look them up per
/// agent).
static CLASS_IDS: AtomicU64 = AtomicU64::new(0);

/// The agent state of `rt`.
#[inline]
pub(crate) fn agent_of<'a>(rt: *mut q::JSRuntime) -> &'a Agent {
    // SAFETY: every runtime of this backend has its agent installed for its whole life.
    unsafe { &*q::JS_GetRuntimeOpaque(rt).cast::<Agent>() }
}

/// The well-known symbols and intrinsics captured when a realm is set up, before any script
/// runs, so no later patch of a global changes what the backend does.
pub struct RealmState {
    data: RefCell<HashMap<TypeId, Box<dyn Any>>>,
    pub(crate) intrinsics: RefCell<HashMap<&'static str, Value>>,
}

impl RealmState {
    /// Sets up a new context's realm state: captures the intrinsics the backend calls. Call
    /// [`RealmState::uninstall`] before `JS_FreeContext`.
    ///
    /// # Safety
    /// `ctx` is a new context of an installed runtime, with no opaque of its own.
    pub(crate) unsafe fn install(ctx: *mut q::JSContext) -> JsResult<()> {
        let state = Box::new(RealmState {
            data: RefCell::new(HashMap::new()),
            intrinsics: RefCell::new(HashMap::new()),
        });
        q::JS_SetContextOpaque(ctx, Box::into_raw(state).cast());
        let mut cx = Cx::enter(ctx);
        super::call::capture_intrinsics(&mut cx)
    }

    /// Drops the realm's state.
    ///
    /// # Safety
    /// `ctx` was set up by [`RealmState::install`]; nothing uses the realm state afterwards.
    pub(crate) unsafe fn uninstall(ctx: *mut q::JSContext) {
        let state = q::JS_GetContextOpaque(ctx).cast::<RealmState>();
        if state.is_null() {
            return;
        }
        let data = std::mem::take(&mut *(*state).data.borrow_mut());
        drop(data);
        let intrinsics = std::mem::take(&mut *(*state).intrinsics.borrow_mut());
        drop(intrinsics);
        q::JS_SetContextOpaque(ctx, ptr::null_mut());
        drop(Box::from_raw(state));
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

    /// A captured intrinsic (see `call::capture_intrinsics`).
    pub(crate) fn intrinsic(&self, name: &str) -> Value {
        self.intrinsics
            .borrow()
            .get(name)
            .cloned()
            .unwrap_or_default()
    }
}

/// The realm state of `ctx`.
#[inline]
pub(crate) fn realm_of<'a>(ctx: *mut q::JSContext) -> &'a RealmState {
    // SAFETY: every context of this backend has its realm state for its whole life.
    unsafe { &*q::JS_GetContextOpaque(ctx).cast::<RealmState>() }
}

// ---------------------------------------------------------------------------------------------
// Native data
// ---------------------------------------------------------------------------------------------

/// What the opaque of an object of our classes points to: the native data, or a function.
pub(crate) enum Native {
    Data(Box<dyn NativeData>),
    /// A function, with its realm (the context it was made in: it runs there, as a built-in
    /// function runs in its [[Realm]]).
    Function(super::call::NativeFunction, super::Realm),
}

/// Erased native data.
pub(crate) trait NativeData: Any {
    fn trace_data(&self, marker: &mut Marker);
    fn as_any(&self) -> &dyn Any;
}

impl<T: NativeObject> NativeData for T {
    fn trace_data(&self, marker: &mut Marker) {
        self.trace(marker);
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

unsafe extern "C" fn native_finalizer(_rt: *mut q::JSRuntime, value: q::JSValue) {
    // Only objects of our two classes reach this hook: their opaque is a `Native` (or null).
    let mut class = 0;
    let opaque = q::JS_GetAnyOpaque(value, &mut class).cast::<Native>();
    if !opaque.is_null() {
        drop(Box::from_raw(opaque));
    }
}

unsafe extern "C" fn native_gc_mark(
    rt: *mut q::JSRuntime,
    value: q::JSValue,
    mark: q::JS_MarkFunc,
) {
    let mut class = 0;
    let opaque = q::JS_GetAnyOpaque(value, &mut class).cast::<Native>();
    if opaque.is_null() {
        return;
    }
    let mut marker = Marker { rt, mark };
    match &*opaque {
        Native::Data(data) => data.trace_data(&mut marker),
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
        // SAFETY: `value` is live; the opaque is only read as ours when the class is ours, and
        // then it is a `Native` that lives as long as the object `value` keeps alive.
        unsafe {
            let opaque = q::JS_GetAnyOpaque(value.raw(), &mut class);
            if class == (ids >> 32) as q::JSClassID || class == ids as q::JSClassID {
                return opaque.cast::<Native>().as_ref();
            }
        }
        if class == 0 {
            return None;
        }
        return foreign_native(agent_of(rt), value);
    }
    let agent = agent_of(rt);
    // SAFETY: `value` is live; the opaque of our classes is a `Native` that lives as long as
    // the object, which `value` keeps alive for the borrow's lifetime.
    unsafe {
        let class = q::JS_GetClassID(value.raw());
        if class != agent.native_class && class != agent.function_class {
            return foreign_native(agent, value);
        }
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
    // SAFETY: reading an object's address.
    let key = unsafe { q::JS_VALUE_GET_PTR(value.raw()) } as usize;
    let holder = foreign.iter().find(|(k, _)| *k == key).map(|(_, h)| h)?;
    // SAFETY: the holder is an object of our native class, kept alive by the map, whose
    // entries live as long as the agent; its opaque lives as long as it.
    unsafe {
        let class = q::JS_GetClassID(holder.raw());
        q::JS_GetOpaque(holder.raw(), class)
            .cast::<Native>()
            .as_ref()
    }
}

/// The native data of `value` as a `T`, if `value` is an object of our native class holding
/// a `T`.
#[inline]
pub(crate) fn data_of<T: NativeObject>(value: &Value) -> Option<&T> {
    match native_of(value)? {
        Native::Data(data) => data.as_any().downcast_ref::<T>(),
        Native::Function(..) => None,
    }
}

/// A new object of our native class with `proto` (an object or null) and `data`.
pub(crate) fn new_native_object<T: NativeObject>(
    ctx: *mut q::JSContext,
    proto: q::JSValue,
    data: T,
) -> Value {
    // SAFETY: `ctx` is live (the current context); the new object owns the boxed `Native`
    // until its finalizer runs.
    unsafe {
        let class = agent_of(q::JS_GetRuntime(ctx)).native_class;
        let raw = q::JS_NewObjectProtoClass(ctx, proto, class);
        if q::JS_IsException(raw) {
            // The only failure is a failed allocation (runtimes here have no memory limit), which
            // Rust's own allocator treats as fatal too: abort as it does, rather than hand out
            // an object without its data.
            std::alloc::handle_alloc_error(std::alloc::Layout::new::<T>());
        }
        let native: Box<Native> = Box::new(Native::Data(Box::new(data)));
        q::JS_SetOpaque(raw, Box::into_raw(native).cast::<c_void>());
        Value::from_raw(q::JS_GetRuntime(ctx), raw)
    }
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
#[inline]
pub(crate) fn check(cx: &mut Cx, raw: q::JSValue) -> JsResult<Value> {
    // SAFETY: `raw` is an owned value returned by QuickJS on `cx`'s context.
    unsafe {
        if q::JS_IsException(raw) {
            Err(take_exception(cx))
        } else {
            Ok(Value::from_raw(cx.rt(), raw))
        }
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
    // SAFETY: a live context.
    let raw = unsafe { q::JS_GetException(cx.raw()) };
    JsError::from_thrown(Value::from_raw(cx.rt(), raw))
}

/// Throws `error` in `cx` and returns `JS_EXCEPTION` (what a native function returns).
pub(crate) fn throw(cx: &mut Cx, error: JsError) -> q::JSValue {
    let value = error.into_thrown_value(cx);
    // SAFETY: `JS_Throw` takes ownership of the value.
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
    // SAFETY: a live context and value.
    let atom = unsafe { q::JS_ValueToAtom(cx.raw(), value.raw()) };
    if atom == 0 {
        return Err(take_exception(cx));
    }
    Ok(atom)
}

/// The atom of an ASCII key (the caller frees it with `JS_FreeAtom`).
pub(crate) fn ascii_atom(cx: &mut Cx, key: &[u8]) -> JsResult<q::JSAtom> {
    // SAFETY: a live context; `key` is ASCII of the given length (QuickJS makes an index atom
    // of a canonical numeric string, as `JS_ValueToAtom` does).
    let atom = unsafe { q::JS_NewAtomLen(cx.raw(), key.as_ptr().cast(), key.len() as _) };
    if atom == 0 {
        return Err(take_exception(cx));
    }
    Ok(atom)
}

/// A Rust string as a JS string value.
pub(crate) fn new_string(cx: &mut Cx, s: &str) -> Value {
    // SAFETY: a live context; the bytes are valid UTF-8 of the given length.
    let raw = unsafe { q::JS_NewStringLen(cx.raw(), s.as_ptr().cast(), s.len() as _) };
    check(cx, raw).unwrap_or_default()
}
