//! The DOM interfaces this crate ships, one binary with a module each:
//!
//! - [`abort`]: AbortController / AbortSignal: shapes, abort order, any(), timeout(), the Rust
//!   API;
//! - [`events`]: Event and EventTarget: shapes, brand checks, at-target dispatch, listener
//!   options;
//! - [`exception`]: DOMException: shapes, codes, brand checks, and the Rust constructor.
//!
//! Each test is a `TestAction` list over `support::dom`'s fixture (the shared `eq`/`ok`/`throws`
//! and the WebIDL shape checks).

#[path = "../support/mod.rs"]
mod support;

mod abort;
mod events;
mod exception;
