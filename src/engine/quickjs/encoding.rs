//! PENDING (issue 21): `with_uint8_array_bytes_mut` lives in buffer.rs for now.
