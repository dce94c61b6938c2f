//! A per-thread pool of small blocks for what the stream cores allocate and free several times a
//! chunk: on QuickJS the nodes of `AcyclicShared` (an internal promise's state and the other
//! shared cells: a pipe through a transform makes about a dozen a chunk), so that each costs a
//! push and a pop on a free list instead of a `malloc` and a `free`; and on both engines the
//! reactions that wait on a pending internal promise ([`PoolBox`]). Engine-free (plain Rust).
//!
//! Blocks come in size classes of [`GRANULE`] bytes up to [`MAX_SIZE`], all aligned to
//! [`GRANULE`]; a class keeps at most [`MAX_FREE`] blocks, and gives the rest back to the
//! system allocator. Larger or more aligned layouts go to the system allocator directly. A
//! block is always allocated from and given back to the system allocator with its class's
//! layout, so a block can move between the pool and the system allocator either way (as it
//! does while the thread exits, when the pool is gone).

use std::alloc::Layout;
use std::cell::Cell;
use std::ptr::NonNull;

/// The size classes' step and the blocks' alignment.
const GRANULE: usize = 16;
/// The largest block the pool keeps.
const MAX_SIZE: usize = 256;
/// Size classes.
const CLASSES: usize = MAX_SIZE / GRANULE;
/// Free blocks kept per class.
const MAX_FREE: u32 = 128;

/// The free lists: each free block's first word points to the next free block of its class.
struct Pool {
    heads: [Cell<*mut u8>; CLASSES],
    lengths: [Cell<u32>; CLASSES],
}

impl Drop for Pool {
    /// The thread exits: its free blocks go back to the system allocator.
    fn drop(&mut self) {
        for (class, head) in self.heads.iter().enumerate() {
            let layout = class_layout(class);
            let mut block = head.replace(std::ptr::null_mut());
            while !block.is_null() {
                // SAFETY: `block` is a free block of this class (the free list's invariant: only
                // `give_back` links blocks, each a block of the class's layout that no one
                // uses any more), so its first word is the next link, and it was allocated
                // with `layout` by the system allocator.
                unsafe {
                    let next = block.cast::<*mut u8>().read();
                    std::alloc::dealloc(block, layout);
                    block = next;
                }
            }
        }
    }
}

thread_local! {
    static POOL: Pool = const {
        Pool {
            heads: [const { Cell::new(std::ptr::null_mut()) }; CLASSES],
            lengths: [const { Cell::new(0) }; CLASSES],
        }
    };
}

/// The size class of `layout`, if the pool serves it.
#[inline(always)]
const fn class_of(layout: Layout) -> Option<usize> {
    if layout.size() == 0 || layout.size() > MAX_SIZE || layout.align() > GRANULE {
        None
    } else {
        Some((layout.size() - 1) / GRANULE)
    }
}

/// The layout of every block of `class`.
#[inline(always)]
fn class_layout(class: usize) -> Layout {
    // (Assert: a class is below `CLASSES`, so the size is at most `MAX_SIZE`, a multiple of
    // the alignment: the layout is valid, and `unwrap_or` never picks its fallback.)
    Layout::from_size_align((class + 1) * GRANULE, GRANULE).unwrap_or(Layout::new::<u128>())
}

/// A block for a value of `layout` (its size is not zero): from the pool, or from the system
/// allocator. `None` if the system allocator has no memory.
#[inline(always)]
pub(crate) fn take(layout: Layout) -> Option<NonNull<u8>> {
    let Some(class) = class_of(layout) else {
        // SAFETY: the layout's size is not zero (the caller's contract).
        return NonNull::new(unsafe { std::alloc::alloc(layout) });
    };
    let pooled = POOL
        .try_with(|pool| {
            let head = &pool.heads[class];
            let block = head.get();
            if !block.is_null() {
                // SAFETY: `block` is a free block of this class (see `Pool::drop`): its first
                // word is the next link.
                head.set(unsafe { block.cast::<*mut u8>().read() });
                pool.lengths[class].set(pool.lengths[class].get() - 1);
            }
            block
        })
        .unwrap_or(std::ptr::null_mut());
    match NonNull::new(pooled) {
        Some(block) => Some(block),
        // SAFETY: a class's layout has a nonzero size.
        None => NonNull::new(unsafe { std::alloc::alloc(class_layout(class)) }),
    }
}

/// Gives back a block [`take`] returned for `layout`.
///
/// # Safety
/// `block` came from [`take`] with this `layout` (on any thread's pool or none), and nothing
/// uses it any more.
#[inline(always)]
pub(crate) unsafe fn give_back(block: NonNull<u8>, layout: Layout) {
    let Some(class) = class_of(layout) else {
        // SAFETY: `take` allocated it with `layout` from the system allocator (the contract).
        unsafe { std::alloc::dealloc(block.as_ptr(), layout) };
        return;
    };
    let kept = POOL
        .try_with(|pool| {
            let length = &pool.lengths[class];
            if length.get() >= MAX_FREE {
                return false;
            }
            length.set(length.get() + 1);
            let head = &pool.heads[class];
            // SAFETY: the block is at least one granule, aligned to it, and no longer used (the
            // contract): its first word can hold the link.
            unsafe { block.as_ptr().cast::<*mut u8>().write(head.get()) };
            head.set(block.as_ptr());
            true
        })
        .unwrap_or(false);
    if !kept {
        // SAFETY: every block of the class is allocated with the class's layout, by `take` or
        // by the pool's own callers (the contract says `take` made it).
        unsafe { std::alloc::dealloc(block.as_ptr(), class_layout(class)) };
    }
}

/// A box whose block comes from the pool: `Box` for values made and dropped per chunk.
///
/// # Invariant
/// The pointer points to a live `T` that this box owns, in a block [`take`] returned for
/// `Layout::for_value` of it (or dangling, for a zero-sized `T`: no block).
pub(crate) struct PoolBox<T: ?Sized>(NonNull<T>, std::marker::PhantomData<T>);

impl<T> PoolBox<T> {
    /// Moves `value` into a block of the pool.
    #[inline]
    pub(crate) fn new(value: T) -> Self {
        let layout = Layout::new::<T>();
        let block = if layout.size() == 0 {
            NonNull::dangling()
        } else {
            match take(layout) {
                Some(block) => block.cast::<T>(),
                None => std::alloc::handle_alloc_error(layout),
            }
        };
        // SAFETY: the block is fresh, sized and aligned for a `T` (`take`'s promise for its
        // layout; a dangling pointer is aligned, and enough for a zero-sized `T`).
        unsafe { block.as_ptr().write(value) };
        Self(block, std::marker::PhantomData)
    }
}

impl<T: ?Sized> PoolBox<T> {
    /// The box as a box of an unsized `U` (a trait object): `unsize` is an `as` cast of the
    /// pointer (`|p| p as *mut dyn Trait`), the way `Box<T>` coerces to `Box<dyn Trait>`.
    ///
    /// # Safety
    /// `unsize` returns its argument with metadata for the same value (what the `as` cast
    /// does), so the `U` it points to is the `T` with the same layout.
    #[inline]
    pub(crate) unsafe fn unsize<U: ?Sized>(self, unsize: fn(*mut T) -> *mut U) -> PoolBox<U> {
        let this = std::mem::ManuallyDrop::new(self);
        let pointer = unsize(this.0.as_ptr());
        // SAFETY: the same non-null address (the contract), so `new_unchecked` is sound, and
        // the new box owns the value the old one did (which is forgotten, not dropped).
        PoolBox(
            unsafe { NonNull::new_unchecked(pointer) },
            std::marker::PhantomData,
        )
    }
}

impl<T: ?Sized> std::ops::Deref for PoolBox<T> {
    type Target = T;
    #[inline]
    fn deref(&self) -> &T {
        // SAFETY: the box owns a live `T` (the invariant), borrowed for as long as `self` is.
        unsafe { self.0.as_ref() }
    }
}

impl<T: ?Sized> Drop for PoolBox<T> {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: the box owns a live `T` (the invariant): its layout is read, then it is
        // dropped once, and its block (if it has one) goes back with that layout, the one
        // `take` returned it for.
        unsafe {
            let layout = Layout::for_value(self.0.as_ref());
            self.0.as_ptr().drop_in_place();
            if layout.size() != 0 {
                give_back(self.0.cast(), layout);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_reused_per_class_and_aligned() {
        let layout = Layout::new::<[u64; 5]>();
        let a = take(layout).expect("memory");
        assert_eq!(a.as_ptr() as usize % GRANULE, 0);
        // SAFETY: `a` came from `take` with `layout` and is not used any more.
        unsafe { give_back(a, layout) };
        // The same class (40 and 48 bytes are both in the 33–48 class) gets the block back.
        let b = take(Layout::new::<[u64; 6]>()).expect("memory");
        assert_eq!(a, b);
        // SAFETY: as above (the same class's layout is what matters).
        unsafe { give_back(b, Layout::new::<[u64; 6]>()) };
        // A pool box of a trait object drops its value and gives the block back.
        let dropped = std::rc::Rc::new(std::cell::Cell::new(false));
        // (Three more words, so the block is not the smallest class.)
        struct Flag(std::rc::Rc<std::cell::Cell<bool>>, [u64; 3]);
        impl Drop for Flag {
            fn drop(&mut self) {
                self.0.set(self.1 == [0; 3]);
            }
        }
        let boxed = PoolBox::new(Flag(dropped.clone(), [0; 3]));
        // SAFETY: the cast only adds the metadata.
        let boxed: PoolBox<dyn std::any::Any> =
            unsafe { boxed.unsize(|p| p as *mut dyn std::any::Any) };
        assert!(boxed.is::<Flag>());
        drop(boxed);
        assert!(dropped.get());
        let big = Layout::from_size_align(1024, 8).expect("a valid layout");
        let c = take(big).expect("memory");
        // SAFETY: as above.
        unsafe { give_back(c, big) };
    }
}
