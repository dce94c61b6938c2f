//! The Rust API (`boa_streams::rust`): Rust sources, sinks and transformers seen from
//! JavaScript, and Rust readers of JS streams.
//!
//! Every test uses one fixture, a host [`Fixture`] of `support::script`: the Rust side builds
//! streams in its context and hands them to script with [`Api::set`], waits for the Rust API's
//! tickets with [`Api::wait`], and runs `TestAction` lists for the script side (the shared
//! `log`, `run_to_idle`, `assert_no_failures` for "the host reported nothing").
//!
//! - [`sources`]: value sources (`Source`), cancel, errors, asynchronous completion;
//! - [`reentrancy`]: a source or sink that calls back into streams from inside a callback;
//! - [`byte_sources`]: byte sources (`ByteSource`), BYOB requests, bad arguments;
//! - [`native_pipe`]: pipes from Rust byte sources to Rust byte sinks (`ByteSink`), and what
//!   script sees of them;
//! - [`sinks`]: sinks (`Sink`) and the `std::io` adapters;
//! - [`transforms`]: transformers (`Transformer`);
//! - [`readers`]: Rust readers (`Reader`, `DrainingReader`) of JS streams.

#[path = "../support/mod.rs"]
mod support;

mod byte_sources;
mod native_pipe;
mod readers;
mod reentrancy;
mod sinks;
mod sources;
mod transforms;

use boa_streams::rust::{with_chunk_bytes, Context, Ticket, Value};
use support::script::Fixture;

/// What the Rust API tests add to the shared fixture.
pub trait Api {
    /// Sets the global `name` to `value` (a stream made in Rust, handed to script).
    fn set(&mut self, name: &str, value: Value);
    /// Runs the host's event loop until `ticket` has its result, and takes it (`None` if
    /// nothing was left to run first).
    fn wait<T>(&mut self, ticket: &Ticket<T>) -> Option<T>;
}

impl Api for Fixture {
    fn set(&mut self, name: &str, value: Value) {
        support::set_global(self.context(), name, value);
    }

    fn wait<T>(&mut self, ticket: &Ticket<T>) -> Option<T> {
        let (host, ctx) = self.parts();
        ticket.wait(host, ctx)
    }
}

/// The bytes of a byte chunk.
pub fn bytes_of(value: &Value, ctx: &mut Context) -> Vec<u8> {
    with_chunk_bytes(value, ctx, <[u8]>::to_vec).expect("a byte chunk")
}
