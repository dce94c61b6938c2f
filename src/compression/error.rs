//! The codecs' one error (a leaf, so `codec.rs` and `brotli_codec.rs` share it without a
//! circle).

/// Compressed or decompressed data that is not what the format allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CodecError;
