//! Adopting a runtime an application made with rquickjs's safe API (feature `rquickjs`): the
//! agent is set up on the application's `JSRuntime` and a realm on its `JSContext`, through
//! the same code as a runtime of ours ([`Runtime::new`]), and torn down when the application
//! drops its runtime.
//!
//! What rquickjs owns is left alone: the runtime's opaque (rquickjs's state) is never read or
//! written (the agent is in a side table, `core.rs`); the context opaque, which rquickjs does
//! not use, holds the realm state as on our own runtimes. The teardown rides on rquickjs's
//! userdata: a value of ours stored with `Ctx::store_userdata`, which rquickjs drops when the
//! runtime is dropped, after every context handle and before `JS_FreeRuntime` (whose
//! assertion that no object is left then holds, as on our own runtimes).

use std::rc::Rc;

use super::core::{has_agent, q, Agent, Cx};
use super::runtime::{set_up_realm, set_up_runtime, Runtime};
use super::JsResult;
use crate::engine::runtime::RuntimeHost;

/// An application's rquickjs context: what an adopting embedder passes in.
pub type AdoptedCtx<'js> = rquickjs::Ctx<'js>;

/// Whether the type `$t` is `Send`, decided at compile time at a call site with a concrete type
/// (method resolution picks the `Send` impl first, by value, and falls back to the blanket
/// impl through one more autoref).
macro_rules! is_send {
    ($t:ty) => {{
        struct Probe<T>(std::marker::PhantomData<T>);
        // (Each expansion calls one of the two traits' methods: the other is unused there.)
        #[allow(dead_code)]
        trait Fallback {
            fn is_send(&self) -> bool {
                false
            }
        }
        impl<T> Fallback for &Probe<T> {}
        #[allow(dead_code)]
        trait IfSend {
            fn is_send(&self) -> bool {
                true
            }
        }
        impl<T: Send> IfSend for Probe<T> {}
        (&Probe::<$t>(std::marker::PhantomData)).is_send()
    }};
}

/// Whether rquickjs was built with its `parallel` feature: its `Runtime` is `Send` then, and
/// a runtime may move to another thread, where neither our agent (in a per-thread table) nor
/// our values (neither `Send` nor `Sync`) may follow. Installing is refused.
fn rquickjs_is_parallel() -> bool {
    is_send!(rquickjs::Runtime)
}

/// The runtime's teardown, kept as rquickjs userdata: dropped by rquickjs when the runtime is
/// (`RawRuntime`'s drop clears the userdata before `JS_FreeRuntime`), it uninstalls the agent,
/// which drops the host, the realms' state and every value they hold.
struct AgentTeardown {
    rt: *mut q::JSRuntime,
    /// Whether the agent set QuickJS's rejection tracker (removed first).
    tracks_rejections: bool,
}

// SAFETY: `AgentTeardown` has no lifetime: it holds a raw pointer and a flag, so the type with
// any `'to` is the same type, as `JsLifetime` asks.
unsafe impl<'js> rquickjs::JsLifetime<'js> for AgentTeardown {
    type Changed<'to> = AgentTeardown;
}

impl Drop for AgentTeardown {
    fn drop(&mut self) {
        if self.tracks_rejections {
            // SAFETY: `rt` is live: rquickjs drops its userdata before `JS_FreeRuntime` (or
            // when the application replaces the entry, which it cannot name: the type is
            // private), on the runtime's thread, under its lock.
            unsafe { q::JS_SetHostPromiseRejectionTracker(self.rt, None, std::ptr::null_mut()) };
        }
        // SAFETY: `rt` is live (above) and its agent was installed by `Runtime::adopt`, which
        // stored this value. When rquickjs drops it, every context handle of the application
        // is gone (each holds the runtime) and no script runs on the runtime again, so no
        // `Cx`, agent or realm reference of ours is in use: the host's handles that the
        // application could still hold (`boa_streams::quickjs`'s functions) are entered only
        // for the length of a call made with a live `Ctx`.
        unsafe { Agent::uninstall(self.rt) };
    }
}

/// The `JSContext` of an rquickjs context.
fn raw_context(ctx: &AdoptedCtx<'_>) -> *mut q::JSContext {
    ctx.as_raw().as_ptr()
}

/// A handle on `ctx` if boa_streams is installed in it (its runtime has our agent and the
/// context our realm state).
///
/// The handle must be dropped before `ctx` is (it is used within the call that lent `ctx`).
pub fn adopted_cx(ctx: &AdoptedCtx<'_>) -> Option<Cx> {
    let raw = raw_context(ctx);
    // SAFETY: `raw` is live: `ctx` holds a count of it, under the runtime's lock, on this
    // thread; this reads its `rt` field.
    let rt = unsafe { q::JS_GetRuntime(raw) };
    if !has_agent(rt) || !super::core::has_realm_state(raw) {
        return None;
    }
    // SAFETY: `raw` is live, of a runtime whose agent is installed, with the realm state that
    // agent set up (both checked above), and they stay so while `ctx` lives (the agent holds a count of the
    // context; the teardown runs when the runtime is dropped, which `ctx` prevents). The
    // caller drops the handle before `ctx`, so it nests in whatever was entered before.
    Some(unsafe { Cx::enter(raw) })
}

/// A clone of the agent data of type `T` of `ctx`'s runtime, if boa_streams' agent is installed
/// there (the context itself may not be set up yet).
pub fn adopted_agent_data<T: std::any::Any + Clone>(ctx: &AdoptedCtx<'_>) -> Option<T> {
    let raw = raw_context(ctx);
    // SAFETY: `raw` is live (`ctx` holds a count of it); this reads its `rt` field.
    let rt = unsafe { q::JS_GetRuntime(raw) };
    if !has_agent(rt) {
        return None;
    }
    // (The agent is installed: checked above.)
    super::core::agent_of(rt).data::<T>().cloned()
}

/// The engine's value of an rquickjs value (one more reference count of it), if boa_streams
/// is installed in its runtime: the backend only ever looks at values of runtimes with our
/// agent (whose class ids it knows: `native_of`).
pub fn value_from_adopted(value: &rquickjs::Value<'_>) -> Option<super::Value> {
    let rt = {
        let ctx = value.ctx();
        // SAFETY: the value's context is live (the value holds its `Ctx`); this reads its
        // `rt` field.
        unsafe { q::JS_GetRuntime(raw_context(ctx)) }
    };
    if !has_agent(rt) {
        return None;
    }
    // `as_raw` lends the value, live while `value` is; `dup_raw` takes a count of our own, of
    // the value's live runtime.
    Some(super::Value::dup_raw(rt, value.as_raw()))
}

/// The rquickjs value of an engine value, if it belongs to `ctx`'s runtime (or has no runtime:
/// a primitive without a reference count).
pub fn value_to_adopted<'js>(
    ctx: &AdoptedCtx<'js>,
    value: super::Value,
) -> Option<rquickjs::Value<'js>> {
    // SAFETY: the context is live (`ctx` holds a count of it); this reads its `rt` field.
    let rt = unsafe { q::JS_GetRuntime(raw_context(ctx)) };
    if !value.runtime().is_null() && value.runtime() != rt {
        return None;
    }
    // SAFETY: `value` owns one count of its `JSValue` (`Value`'s invariant), of `ctx`'s runtime
    // or without a count (checked above); `into_raw` hands that count over and `from_raw`
    // takes it, so it is given back once, when the rquickjs value drops.
    Some(unsafe { rquickjs::Value::from_raw(ctx.clone(), value.into_raw()) })
}

impl Runtime {
    /// Adopts the runtime of `ctx`, an application's rquickjs context: installs the agent
    /// (our classes, the agent state, `host` for its tasks, timers and, with
    /// `track_rejections`, rejections) on its runtime and sets up `ctx` as its main realm.
    /// Returns a handle that does not own the runtime, and a handle on the realm (to be
    /// dropped before `ctx`).
    ///
    /// Fails (with a `TypeError`) when the runtime already has boa_streams' agent, or the
    /// context's opaque is in use.
    pub fn adopt(
        ctx: &AdoptedCtx<'_>,
        host: Rc<dyn RuntimeHost>,
        track_rejections: bool,
    ) -> JsResult<(Runtime, Cx)> {
        if rquickjs_is_parallel() {
            return Err(super::throw_type_error(
                "rquickjs's `parallel` feature is not supported: boa_streams' state of a \
                 runtime stays on the thread that installed it",
            ));
        }
        let raw = raw_context(ctx);
        // SAFETY: `raw` is live (`ctx` holds a count of it); this reads its `rt` field.
        let rt = unsafe { q::JS_GetRuntime(raw) };
        if has_agent(rt) {
            return Err(super::throw_type_error(
                "boa_streams is already installed in this runtime (install it into a further \
                 context with the same function: it becomes a realm of the same agent)",
            ));
        }
        if context_opaque_in_use(raw) {
            return Err(super::throw_type_error(
                "the context's opaque is in use: boa_streams keeps its realm state there",
            ));
        }
        let teardown = AgentTeardown {
            rt,
            tracks_rejections: track_rejections,
        };
        if ctx.store_userdata(teardown).is_err() {
            // (The value handed back is dropped: its runtime has no agent yet, so its
            // teardown does nothing.)
            return Err(super::throw_type_error(
                "rquickjs's userdata store is borrowed: install boa_streams outside a \
                 `Ctx::userdata` borrow",
            ));
        }
        // SAFETY: `rt` is live and used on this thread only (without rquickjs's `parallel`
        // feature, refused above, its runtimes and contexts are not `Send`), without an agent
        // (checked above); the teardown
        // stored above calls `Agent::uninstall` before rquickjs calls `JS_FreeRuntime`.
        unsafe { Agent::install(rt) };
        // SAFETY: `rt` is live with its agent installed just above; the teardown removes the
        // tracker (when set) before the agent goes.
        unsafe { set_up_runtime(rt, host, track_rejections) };
        // SAFETY: `raw` is a live context of `rt`, whose agent is installed, without an opaque
        // (checked above); the agent keeps it live until its teardown.
        unsafe { set_up_realm(raw)? };
        let runtime = Runtime::adopted(rt, raw);
        // SAFETY: `raw` is live with its realm state (set up just above), and stays so until
        // the agent's teardown, after every handle of the application (see `adopted_cx`).
        let cx = unsafe { Cx::enter(raw) };
        Ok((runtime, cx))
    }

    /// A new rquickjs `Runtime` and full `Context`, made with rquickjs's safe API as an
    /// application would, then adopted (rejections tracked): the handle owns both and drops
    /// them last. What `Runtime::new` makes when `BOA_STREAMS_QUICKJS_ADOPT` is set.
    pub(super) fn new_over_rquickjs(host: Rc<dyn RuntimeHost>) -> JsResult<(Runtime, Cx)> {
        let failed = |e: rquickjs::Error| {
            super::throw_type_error(format!("cannot create an rquickjs runtime: {e}"))
        };
        let runtime = rquickjs::Runtime::new().map_err(failed)?;
        let context = rquickjs::Context::full(&runtime).map_err(failed)?;
        let (mut adopted, cx) = context.with(|ctx| Runtime::adopt(&ctx, host, true))?;
        // The context handle `cx` stays valid after `with` returns: the agent holds a count of
        // the context until its teardown, which runs when `runtime` (kept by the handle, after
        // `context`) is dropped, and the host drops every `Cx` before its runtime handle.
        adopted.keep_owner(Box::new((context, runtime)));
        Ok((adopted, cx))
    }

    /// Sets up `ctx`, a further context of this adopted runtime, as a realm of its agent, and
    /// returns a handle on it (to be dropped before `ctx`).
    ///
    /// Fails (with a `TypeError`) when `ctx` belongs to another runtime, or is already set
    /// up.
    pub fn adopt_context(&self, ctx: &AdoptedCtx<'_>) -> JsResult<Cx> {
        let raw = raw_context(ctx);
        // SAFETY: `raw` is live (`ctx` holds a count of it); this reads its `rt` field.
        if unsafe { q::JS_GetRuntime(raw) } != self.rt {
            return Err(super::throw_type_error(
                "the context belongs to another runtime",
            ));
        }
        if context_opaque_in_use(raw) {
            return Err(super::throw_type_error(
                "boa_streams is already installed in this context (or its opaque is in use)",
            ));
        }
        // SAFETY: `raw` is a live context of this runtime, whose agent is installed (this
        // handle's), without an opaque (checked above); the agent keeps it live until its
        // teardown.
        unsafe { set_up_realm(raw)? };
        // SAFETY: as in `adopt`.
        Ok(unsafe { Cx::enter(raw) })
    }
}

/// Whether `ctx`'s opaque is set (by us or anyone).
fn context_opaque_in_use(ctx: *mut q::JSContext) -> bool {
    // SAFETY: `ctx` is live (the callers hold an rquickjs `Ctx` of it); this reads its opaque
    // field.
    !unsafe { q::JS_GetContextOpaque(ctx) }.is_null()
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_send_probe_tells_send_types_from_others() {
        assert!(is_send!(u8));
        assert!(is_send!(std::sync::Arc<u8>));
        assert!(!is_send!(std::rc::Rc<u8>));
        assert!(!is_send!(*mut u8));
        // This build's rquickjs has no `parallel` feature: installing is allowed.
        assert!(!super::rquickjs_is_parallel());
    }
}
