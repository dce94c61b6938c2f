//! The C allocator's settings for binaries that move bytes: glibc's malloc returns a freed block
//! of 128 KiB or more to the kernel (it was a mapping of its own, or it trims the heap's top),
//! so a program that makes a body-sized buffer per body gets fresh pages each time, which the
//! kernel zero-fills one fault at a time. glibc raises its thresholds by itself only when such a
//! mapping is freed, so the pattern decides whether it ever does.

/// Raises glibc malloc's mmap threshold to 32 MiB (the largest it takes) and its trim
/// threshold to 64 MiB, so that blocks up to 32 MiB come from the heap and up to 64 MiB of freed
/// heap stays mapped for the next allocation. Process-wide, and a trade: fewer page faults and
/// mapping calls against up to 64 MiB of freed memory kept in RSS. The library never calls it;
/// a binary calls it once, at startup (`examples/run`, `serve`, `bench` and `bench_rust` do).
/// Returns whether both settings were taken; off glibc it does nothing and returns false.
///
/// The same from outside, for any binary:
/// `GLIBC_TUNABLES=glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=67108864`.
pub fn keep_freed_memory_mapped() -> bool {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        use std::ffi::c_int;
        // glibc's <malloc.h>.
        const M_TRIM_THRESHOLD: c_int = -1;
        const M_MMAP_THRESHOLD: c_int = -3;
        extern "C" {
            fn mallopt(param: c_int, value: c_int) -> c_int;
        }
        // SAFETY: `mallopt` takes two integers by value and changes only malloc's own
        // parameters, under malloc's lock, so it is sound from any thread at any time; glibc
        // defines both parameters, and each value is within its range (the mmap threshold's
        // maximum is 32 MiB on 64-bit targets). It returns 1 on success, 0 on error.
        let (mmap, trim) = unsafe {
            (
                mallopt(M_MMAP_THRESHOLD, 32 << 20),
                mallopt(M_TRIM_THRESHOLD, 64 << 20),
            )
        };
        mmap == 1 && trim == 1
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        false
    }
}

#[cfg(test)]
mod tests {
    /// glibc takes both settings (each call returns 1 only for a known parameter and a value in
    /// its range); elsewhere the function says it did nothing.
    #[test]
    #[cfg_attr(
        boa_streams_asan,
        ignore = "ASan's allocator replaces glibc's malloc, and its mallopt takes nothing"
    )]
    fn glibc_takes_the_settings() {
        assert_eq!(
            super::keep_freed_memory_mapped(),
            cfg!(all(target_os = "linux", target_env = "gnu"))
        );
    }
}
