//! [`Slot`]: the container of the spec layer's mutable internal slots, a traced cell. The cell
//! is the backend's (`SlotCell`: boa_gc's `GcRefCell` on Boa, a `RefCell` the collector traces
//! on QuickJS) behind `#[repr(transparent)]` newtypes with `#[inline]` methods, so it costs
//! nothing; the spec layer names only these.
//!
//! Borrow rules are the cell's: a [`Slot::borrow_mut`] while any borrow of the same slot is
//! alive panics, so no borrow is held across a call into JavaScript (ARCHITECTURE.md,
//! "Invariants").

use std::ops::{Deref, DerefMut};

use super::backend::{SlotCell, SlotCellMut, SlotCellRef};
use super::Trace;

traced_without_drop! {
/// A traced, mutable slot.
#[repr(transparent)]
pub struct Slot<T: Trace + 'static>(SlotCell<T>);
}

/// A shared borrow of a [`Slot`]'s value.
pub struct SlotRef<'a, T: Trace + 'static>(SlotCellRef<'a, T>);

/// An exclusive borrow of a [`Slot`]'s value.
pub struct SlotMut<'a, T: Trace + 'static>(SlotCellMut<'a, T>);

impl<T: Trace + 'static> Slot<T> {
    /// A slot holding `value`.
    #[inline]
    pub fn new(value: T) -> Self {
        Self(SlotCell::new(value))
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
        match self.0.try_borrow() {
            Ok(v) => f.debug_tuple("Slot").field(&*v).finish(),
            Err(_) => f.write_str("Slot(<borrowed>)"),
        }
    }
}

impl<T: Trace + Default + 'static> Default for Slot<T> {
    fn default() -> Self {
        Self::new(T::default())
    }
}
