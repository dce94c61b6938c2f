//! Queue-with-sizes on a ring buffer.
