//! The engine's own containers for the spec layer's internal slots: [`Slot`], a traced cell
//! (what an interface's or an algorithm's mutable slot is), and [`Shared`], a traced shared
//! pointer (the state several algorithms close over). On Boa they are `boa_gc::GcRefCell` and
//! `boa_gc::Gc` behind `#[repr(transparent)]` newtypes with `#[inline]` methods, so they cost
//! nothing; the spec layer names only these.
//!
//! Borrow rules are the cell's: a [`Slot::borrow_mut`] while any borrow of the same slot is
//! alive panics, so no borrow is held across a call into JavaScript (ARCHITECTURE.md,
//! "Invariants").

use std::ops::{Deref, DerefMut};

use boa_gc::{custom_trace, Finalize, Gc, GcRef, GcRefCell, GcRefMut, Trace};

/// A traced, mutable slot.
#[repr(transparent)]
pub struct Slot<T: Trace + 'static>(GcRefCell<T>);

/// A shared borrow of a [`Slot`]'s value.
pub struct SlotRef<'a, T: Trace + 'static>(GcRef<'a, T>);

/// An exclusive borrow of a [`Slot`]'s value.
pub struct SlotMut<'a, T: Trace + 'static>(GcRefMut<'a, T>);

impl<T: Trace + 'static> Slot<T> {
    /// A slot holding `value`.
    #[inline]
    pub fn new(value: T) -> Self {
        Self(GcRefCell::new(value))
    }

    /// Borrows the value (shared). Panics if it is borrowed exclusively.
    #[inline]
    pub fn borrow(&self) -> SlotRef<'_, T> {
        SlotRef(self.0.borrow())
    }

    /// Borrows the value exclusively. Panics if it is borrowed.
    #[inline]
    pub fn borrow_mut(&self) -> SlotMut<'_, T> {
        SlotMut(self.0.borrow_mut())
    }
}

impl<T: Trace + 'static> Deref for SlotRef<'_, T> {
    type Target = T;
    #[inline]
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: Trace + 'static> Deref for SlotMut<'_, T> {
    type Target = T;
    #[inline]
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: Trace + 'static> DerefMut for SlotMut<'_, T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut T {
        &mut self.0
    }
}

impl<T: Trace + std::fmt::Debug + 'static> std::fmt::Debug for Slot<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl<T: Trace + Default + 'static> Default for Slot<T> {
    fn default() -> Self {
        Self::new(T::default())
    }
}

impl<T: Trace + 'static> Finalize for Slot<T> {}

// SAFETY: the slot traces exactly what its cell traces.
unsafe impl<T: Trace + 'static> Trace for Slot<T> {
    custom_trace!(this, mark, mark(&this.0));
}

/// A traced pointer to state several owners share (cloning it shares, not copies).
#[repr(transparent)]
pub struct Shared<T: Trace + 'static>(Gc<T>);

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

// SAFETY: the pointer traces exactly what its `Gc` traces.
unsafe impl<T: Trace + 'static> Trace for Shared<T> {
    custom_trace!(this, mark, mark(&this.0));
}
