//! DOM interfaces that the Streams Standard depends on: `DOMException`, `EventTarget`/`Event`
//! (as far as `AbortSignal` needs) and `AbortController`/`AbortSignal`.

use boa_engine::{Context, JsResult};

/// Installs the DOM globals in the current realm.
pub fn register(_ctx: &mut Context) -> JsResult<()> {
    Ok(())
}
