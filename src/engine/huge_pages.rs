//! Large buffers of ours backed by transparent huge pages.
//!
//! A block of several MiB that the allocator maps fresh (glibc maps every block of its mmap
//! threshold or more, 32 MiB at most) is faulted in by the kernel one 4 KiB page at a time as
//! it is first written: a 32 MiB body cost 8,192 page faults, more time than its copies. Where
//! the kernel's transparent huge pages are on "madvise" (the common default), advising the
//! block lets each fault map 2 MiB instead. The advice changes no contents and no validity:
//! on a kernel without THP, or set to "never", it does nothing, and on "always" it is what
//! happens anyway.

/// From this many bytes on, a buffer of ours is advised to use huge pages (smaller ones come
/// from the allocator's heap, already mapped, and gain nothing).
pub(crate) const HUGE_PAGES_FROM: usize = 4 << 20;

/// Advises the kernel to back the whole 2 MiB pages inside `ptr .. ptr + len`, an allocation
/// of ours not yet written (or only partly), with transparent huge pages. A no-op for a block
/// under [`HUGE_PAGES_FROM`], and off Linux.
pub(crate) fn advise_huge_pages(ptr: *mut u8, len: usize) {
    if len < HUGE_PAGES_FROM {
        return;
    }
    #[cfg(target_os = "linux")]
    {
        use std::ffi::{c_int, c_void};
        const MADV_HUGEPAGE: c_int = 14;
        const HUGE: usize = 2 << 20;
        extern "C" {
            fn madvise(addr: *mut c_void, length: usize, advice: c_int) -> c_int;
        }
        let start = (ptr as usize).next_multiple_of(HUGE);
        let end = (ptr as usize).saturating_add(len) & !(HUGE - 1);
        if end > start {
            // SAFETY: `madvise` with MADV_HUGEPAGE only marks the pages of the range as
            // eligible for huge pages; it reads and writes no memory of ours and changes no
            // mapping's contents or protection, so it cannot break any Rust invariant. The
            // range is page-aligned (2 MiB boundaries) and lies inside `ptr .. ptr + len`,
            // one live allocation of the caller's (this function's contract), so it touches
            // no one else's memory; an error (EINVAL where THP is compiled out) leaves
            // everything as it was, and is ignored.
            let _ = unsafe { madvise(start as *mut c_void, end - start, MADV_HUGEPAGE) };
        }
    }
}

/// Grows `vec` to room for exactly `capacity` elements in all (no doubling past it), with the
/// new block advised to use huge pages when it is large.
pub(crate) fn reserve_exact_total<T>(vec: &mut Vec<T>, capacity: usize) {
    if vec.capacity() >= capacity {
        return;
    }
    vec.reserve_exact(capacity - vec.len());
    advise_huge_pages(
        vec.as_mut_ptr().cast(),
        vec.capacity().saturating_mul(std::mem::size_of::<T>()),
    );
}

/// The most bytes a scratch buffer ([`with_scratch`]) keeps between calls: a body of up to
/// 4 MiB is converted in memory already mapped; a larger one is made and freed each time.
const SCRATCH_KEEP: usize = 4 << 20;

/// Lends `f` the per-thread scratch vector in `scratch` (taken out while in use, so a nested
/// call gets a fresh one), and keeps it for the next call unless it grew past 4 MiB. The
/// room a conversion writes into before its result is copied where it belongs.
pub(crate) fn with_scratch<T, R>(
    scratch: &'static std::thread::LocalKey<std::cell::Cell<Vec<T>>>,
    f: impl FnOnce(&mut Vec<T>) -> R,
) -> R {
    let mut vec = scratch.with(std::cell::Cell::take);
    let result = f(&mut vec);
    if vec.capacity().saturating_mul(std::mem::size_of::<T>()) <= SCRATCH_KEEP {
        scratch.with(|kept| kept.set(vec));
    }
    result
}

thread_local! {
    /// [`with_scratch_bytes`]'s buffer.
    #[cfg(any(test, not(feature = "engine-boa")))]
    static SCRATCH_BYTES: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
}

/// Runs `f` on `len` bytes of a per-thread scratch buffer ([`with_scratch`]; a large one is
/// advised to use huge pages). The bytes are initialized, zero-filled only where the buffer
/// grew, so `f` sees what an earlier call left and must read only what it wrote. (QuickJS's
/// serialized strings; Boa's strings are written in place.)
#[cfg(any(test, not(feature = "engine-boa")))]
pub(crate) fn with_scratch_bytes<R>(len: usize, f: impl FnOnce(&mut [u8]) -> R) -> R {
    with_scratch(&SCRATCH_BYTES, |scratch| {
        reserve_exact_total(scratch, len);
        if scratch.len() < len {
            scratch.resize(len, 0);
        }
        f(&mut scratch[..len])
    })
}

/// Whether the mapping holding `addr` is advised to use huge pages ("hg" in its VmFlags in
/// /proc/self/smaps); `None` where that cannot be told (off Linux, or transparent huge pages
/// neither on "madvise" nor "always").
#[cfg(test)]
pub(crate) fn advised_for_huge_pages(addr: usize) -> Option<bool> {
    if !cfg!(target_os = "linux") {
        return None;
    }
    let thp =
        std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled").unwrap_or_default();
    if !(thp.contains("[madvise]") || thp.contains("[always]")) {
        return None;
    }
    let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
    let mut in_range = false;
    let mut advised = false;
    for line in smaps.lines() {
        if let Some((range, _)) = line.split_once(' ') {
            if let Some((lo, hi)) = range.split_once('-') {
                if let (Ok(lo), Ok(hi)) =
                    (usize::from_str_radix(lo, 16), usize::from_str_radix(hi, 16))
                {
                    in_range = lo <= addr && addr < hi;
                    continue;
                }
            }
        }
        if in_range && line.starts_with("VmFlags:") {
            advised = line.split_whitespace().any(|f| f == "hg");
        }
    }
    Some(advised)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The block a large reservation gets is advised: on Linux with THP available, the
    /// kernel reports the range as huge-page eligible in /proc/self/smaps ("hg" in VmFlags).
    #[test]
    fn large_reservations_are_advised() {
        let mut v: Vec<u8> = Vec::new();
        reserve_exact_total(&mut v, 16 << 20);
        assert_eq!(v.capacity(), 16 << 20);
        // The contents are unaffected: the vector works as any other.
        v.resize(16 << 20, 7);
        assert!(v.iter().all(|&b| b == 7));
        // The first whole 2 MiB page of the block (the advice covers whole ones).
        let addr = (v.as_ptr() as usize).next_multiple_of(2 << 20);
        if let Some(advised) = advised_for_huge_pages(addr) {
            assert!(advised, "the 16 MiB block is not advised for huge pages");
        }
    }

    /// The scratch gives exactly the room asked for, a nested call its own, and keeps its
    /// bytes initialized (what an earlier call wrote, zero where it grew).
    #[test]
    fn scratch_bytes_are_lent_per_call() {
        let written = with_scratch_bytes(10, |room| {
            assert_eq!(room.len(), 10);
            room.fill(7);
            with_scratch_bytes(3, |inner| {
                assert_eq!(inner.len(), 3);
                inner.fill(1);
            });
            room.iter().filter(|&&b| b == 7).count()
        });
        assert_eq!(written, 10);
        with_scratch_bytes(20, |room| {
            assert_eq!(room.len(), 20);
            assert!(room[10..].iter().all(|&b| b == 0), "grown room is zeroed");
        });
    }
}
