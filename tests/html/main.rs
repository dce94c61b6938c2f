//! HTML's messaging and serialization, and the transferable streams built on them, one binary
//! with a module each:
//!
//! - [`message_port`]: `MessageChannel`, `MessagePort` and `MessageEvent` in one agent, and
//!   streams transferred into a second realm;
//! - [`structured_clone`]: `structuredClone`, round trips, transfer, DataCloneError;
//! - [`transfer`]: transferable streams across agents on two threads.
//!
//! The check that 10,000 transferred streams leave no port behind is its own binary,
//! `transfer_leak.rs`: it reads a process-wide counter that the tests here would move.

#[path = "../support/mod.rs"]
mod support;

mod message_port;
mod structured_clone;
mod transfer;
