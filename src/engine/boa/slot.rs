//! The Boa side of the containers for the spec layer's internal slots: the cell behind the
//! contract's `Slot` (`../slot.rs`) is boa_gc's `GcRefCell`, and [`Shared`], a traced shared
//! pointer (the state several algorithms close over), is a `boa_gc::Gc` behind a
//! `#[repr(transparent)]` newtype with `#[inline]` methods, so it costs nothing.

use std::ops::Deref;

use boa_gc::{custom_trace, Finalize, Gc, GcRef, GcRefCell, GcRefMut, Trace};

/// The cell behind the contract's `Slot` (`../slot.rs`): boa_gc's `GcRefCell`, which the
/// collector traces.
pub(crate) type SlotCell<T> = GcRefCell<T>;
pub(crate) type SlotCellRef<'a, T> = GcRef<'a, T>;
pub(crate) type SlotCellMut<'a, T> = GcRefMut<'a, T>;

// A box of the pool (`engine/pool.rs`) traces what it holds, as boa_gc's `Box` does (this is
// its impl, for our box).
impl<T: Trace + ?Sized> Finalize for crate::engine::pool::PoolBox<T> {}
// SAFETY: each method forwards to the one value the box owns (live while the box is), as
// boa_gc's impl for `Box<T>` does.
unsafe impl<T: Trace + ?Sized> Trace for crate::engine::pool::PoolBox<T> {
    #[inline]
    unsafe fn trace(&self, tracer: &mut boa_gc::Tracer) {
        // SAFETY: the caller's contract for `trace`, passed on to the value's.
        unsafe { Trace::trace(&**self, tracer) }
    }
    #[inline]
    unsafe fn trace_non_roots(&self) {
        // SAFETY: the caller's contract for `trace_non_roots`, passed on to the value's.
        unsafe { Trace::trace_non_roots(&**self) }
    }
    #[inline]
    fn run_finalizer(&self) {
        Finalize::finalize(self);
        Trace::run_finalizer(&**self);
    }
}

/// A traced pointer to state several owners share (cloning it shares, not copies).
#[repr(transparent)]
pub struct Shared<T: Trace + 'static>(Gc<T>);

/// The contract's shared pointer for state that is never part of a cycle of such pointers
/// alone (the QuickJS backend keeps it outside its heap): on Boa, whose collector traces
/// anything, the same [`Shared`].
pub type AcyclicShared<T> = Shared<T>;

impl<T: Trace + 'static> Shared<T> {
    /// Allocates `value` on the engine's heap.
    #[inline]
    pub fn new(value: T) -> Self {
        Self(Gc::new(value))
    }

    /// Whether `a` and `b` point to the same allocation.
    #[inline]
    pub fn ptr_eq(a: &Self, b: &Self) -> bool {
        Gc::ptr_eq(&a.0, &b.0)
    }

    /// Whether this is known to be the only pointer to its value (the contract's
    /// `AcyclicShared::is_unique`): never on Boa, whose collector may hold others, so callers
    /// make a new value there.
    #[inline]
    pub fn is_unique(&self) -> bool {
        false
    }
}

impl<T: Trace + 'static> Clone for Shared<T> {
    #[inline]
    fn clone(&self) -> Self {
        Self(self.0.clone())
    }
}

impl<T: Trace + 'static> Deref for Shared<T> {
    type Target = T;
    #[inline]
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: Trace + std::fmt::Debug + 'static> std::fmt::Debug for Shared<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        (*self.0).fmt(f)
    }
}

impl<T: Trace + 'static> Finalize for Shared<T> {}

// SAFETY: boa_gc's `Trace` contract is that `trace` marks every `Gc` the value holds (and
// `trace_non_roots` / `run_finalizer` visit the same ones). The newtype's one field is a
// `Gc<T>`, which is `Trace` itself (it marks its allocation, whose `T` the collector then
// traces), and `custom_trace!` makes each of the three methods call the field's, so the
// pointer visits exactly the one `Gc` it holds; its `Finalize` (run first by
// `run_finalizer`) is empty.
unsafe impl<T: Trace + 'static> Trace for Shared<T> {
    custom_trace!(this, mark, mark(&this.0));
}
