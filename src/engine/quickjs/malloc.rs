//! The C allocator our QuickJS runtimes allocate with: the C library's, as QuickJS's own default
//! is, with one addition. A block of [`HUGE_PAGES_FROM`](crate::engine::huge_pages) or more is
//! advised to use transparent huge pages as it is made, as the backend's own large buffers are
//! ([`crate::engine::huge_pages`]).
//!
//! Why: QuickJS makes the largest blocks a stream program has, the strings of `text()` and
//! `TextDecoder.decode` over a whole body, and the `ArrayBuffer`s script allocates. glibc maps
//! every block of 32 MiB or more afresh and unmaps it when freed, so each such string was
//! faulted in 4 KiB at a time (a 32 MiB body read with `text()` gave a 64 MiB string: 16,384
//! page faults per body, three quarters of the run's time in the kernel). With the advice, a
//! fault maps 2 MiB.
//!
//! Only runtimes the backend makes use it ([`super::Runtime::new`]); a runtime an application
//! made with rquickjs keeps the application's allocator.

use q::size_t;
use rquickjs_sys as q;
use std::ffi::c_void;

extern "C" {
    fn malloc(size: size_t) -> *mut c_void;
    fn calloc(count: size_t, size: size_t) -> *mut c_void;
    fn realloc(ptr: *mut c_void, size: size_t) -> *mut c_void;
    fn free(ptr: *mut c_void);
    fn malloc_usable_size(ptr: *mut c_void) -> size_t;
}

/// Advises a block just made (or moved) by the C allocator, if it is large.
fn advised(ptr: *mut c_void, size: size_t) -> *mut c_void {
    if !ptr.is_null() {
        // `ptr .. ptr + size` is the live block the allocator just returned, not yet written
        // by QuickJS beyond what `realloc` copied (the advice keeps contents either way).
        crate::engine::huge_pages::advise_huge_pages(
            ptr.cast(),
            usize::try_from(size).unwrap_or(usize::MAX),
        );
    }
    ptr
}

unsafe extern "C" fn js_calloc(_opaque: *mut c_void, count: size_t, size: size_t) -> *mut c_void {
    // SAFETY: `calloc` takes any two sizes (an overflowing product gives null, which QuickJS
    // handles as out of memory).
    let ptr = unsafe { calloc(count, size) };
    advised(ptr, count.saturating_mul(size))
}

unsafe extern "C" fn js_malloc(_opaque: *mut c_void, size: size_t) -> *mut c_void {
    // SAFETY: `malloc` takes any size; null is QuickJS's out of memory.
    advised(unsafe { malloc(size) }, size)
}

unsafe extern "C" fn js_free(_opaque: *mut c_void, ptr: *mut c_void) {
    // SAFETY: QuickJS frees only blocks this table's functions returned (null or live), each
    // once: the contract of `JSMallocFunctions`, which its default table meets the same way.
    unsafe { free(ptr) }
}

unsafe extern "C" fn js_realloc(
    _opaque: *mut c_void,
    ptr: *mut c_void,
    size: size_t,
) -> *mut c_void {
    // SAFETY: `ptr` is null or a live block of this table's (as for `js_free`); on failure
    // `realloc` returns null and leaves it live, as QuickJS expects.
    advised(unsafe { realloc(ptr, size) }, size)
}

unsafe extern "C" fn js_malloc_usable_size(ptr: *const c_void) -> size_t {
    // SAFETY: QuickJS asks only about null or a live block of this table's, which the C
    // library's `malloc_usable_size` takes (0 for null); it reads the block's header only.
    unsafe { malloc_usable_size(ptr.cast_mut()) }
}

/// The table for `JS_NewRuntime2` (QuickJS copies it into the runtime).
pub(super) const MALLOC_FUNCTIONS: q::JSMallocFunctions = q::JSMallocFunctions {
    js_calloc: Some(js_calloc),
    js_malloc: Some(js_malloc),
    js_free: Some(js_free),
    js_realloc: Some(js_realloc),
    js_malloc_usable_size: Some(js_malloc_usable_size),
};
