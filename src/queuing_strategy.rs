//! Queuing strategies.
use boa_engine::{Context, JsResult};
pub(crate) fn register(_ctx: &mut Context) -> JsResult<()> { Ok(()) }
