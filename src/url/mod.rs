//! The URL Standard (<https://url.spec.whatwg.org/>): its API, `URL` and `URLSearchParams`,
//! and the algorithms other standards reach for, plain Rust over strings and bytes:
//! percent-encoding and the application/x-www-form-urlencoded parser and serializer
//! (`urlencoded`).
//!
//! The URL parser itself (the basic URL parser with its state overrides, host parsing with
//! IDNA, serialization) is the `url` crate's, the standard's own Rust implementation (Servo's);
//! `URL`'s members are its `quirks` functions, which are the API's getters and setters.

mod interface;
mod search_params;
// The percent-encode sets and helpers beyond what `URLSearchParams` uses are for the clients
// above (fetch's `data:` URL processor and form data, not yet wired to an interface).
#[allow(dead_code)]
pub mod urlencoded;

pub(crate) use interface::Url;
pub(crate) use search_params::{serialized_list as serialized_search_params, UrlSearchParams};

use crate::engine::{webidl, Cx, JsResult, NativeFunctionPointer};

/// A static operation another specification adds to `URL` (a `partial interface URL`): its
/// name, length and steps.
pub(crate) type PartialStatic = (&'static str, usize, NativeFunctionPointer);

/// Installs `URL` (with the static operations other specifications add to it, such as the File
/// API's `createObjectURL` and `revokeObjectURL`) and `URLSearchParams` in the current realm.
pub(crate) fn register(ctx: &mut Cx, partial_statics: &[PartialStatic]) -> JsResult<()> {
    webidl::register_interface::<Url>(ctx)?;
    for &(name, length, steps) in partial_statics {
        webidl::define_static_operation::<Url>(name, length, steps, ctx)?;
    }
    webidl::register_interface::<UrlSearchParams>(ctx)?;
    Ok(())
}
