//! The scaling tests, one binary: each workload is timed at n and k·n and the ratio asserted
//! (never a time), with the harness of `support::scaling`. One module per area:
//!
//! - [`readable`]: the readable stream read paths (prebuffered, pending reads, tee);
//! - [`byte_streams`]: the readable byte stream BYOB paths;
//! - [`writable`]: unawaited writes into a synchronous sink;
//! - [`transform`]: writes and reads through an identity `TransformStream`;
//! - [`codecs`]: the text and compression codec streams, piped.

#[path = "../support/mod.rs"]
mod support;

mod byte_streams;
mod codecs;
mod readable;
mod transform;
mod writable;
