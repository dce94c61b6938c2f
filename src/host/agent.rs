//! Agents on other threads, connected by `MessagePort`s.
//!
//! Each [`Host`] is one agent: one runtime and its event loop, on one thread. Two agents talk
//! through an entangled pair of ports: [`port_pair`] makes one (as Rust handles that can be
//! sent to any thread), [`Host::adopt_port`] turns a handle into a `MessagePort` in a context,
//! and [`Host::spawn_agent`] does both for a new agent on a new thread. What crosses between
//! the threads is always serialized data (HTML's structured serialization), never a JS value;
//! a stream transferred over such a port is read or written in the other agent through the
//! Streams Standard's cross-realm transform.
//!
//! An agent's event loop waits (blocking, no busy-wait) for messages while one of its started
//! ports is entangled with a port elsewhere, and returns once nothing can arrive any more. When
//! an agent's context is dropped, its ports are disentangled, so the ports entangled with them
//! get their `close` event.

use std::thread::JoinHandle;

pub use super::types::{port_pair, AgentExit, PortHandle};
use super::{error_message, Context, Host, HostOptions};
use crate::{JsResult, Object, Value};

impl Host {
    /// A new `MessagePort` in the current realm of `ctx` for `port` (its queue starts disabled:
    /// `start()` it, or set `onmessage`).
    pub fn adopt_port(&self, ctx: &mut Context, port: PortHandle) -> JsResult<Object> {
        crate::html::adopt_port(port.0, ctx)
    }

    /// Starts a second agent on its own thread: a fresh host and context built with `options`,
    /// connected to this one by a `MessagePort` pair. Returns this side's port (in the current
    /// realm of `ctx`) and the thread's handle.
    ///
    /// On the new thread, `setup` gets the new host, its context and its side's port (install
    /// listeners, evaluate scripts); then the agent runs its event loop until nothing is left to
    /// run, including waiting for messages while its port is entangled with a live port here,
    /// or until it calls `close()` (a global function, like a dedicated worker's). The thread
    /// ends when that loop returns; the agent's context is dropped and its ports disentangled,
    /// so the ports entangled with them get their `close` event.
    ///
    /// ```
    /// use boa_streams::host::{test_api, Host, HostOptions};
    ///
    /// let (host, mut ctx) = Host::new(HostOptions::default()).unwrap();
    /// let (port, agent) = host
    ///     .spawn_agent(&mut ctx, HostOptions::default(), |host, ctx, port| {
    ///         host.set_global(ctx, "port", port)?;
    ///         // Echo every message back, doubled.
    ///         host.eval_script(ctx, "agent.js", "port.onmessage = e => port.postMessage(e.data * 2);")?;
    ///         Ok(())
    ///     })
    ///     .unwrap();
    /// host.set_global(&mut ctx, "port", port).unwrap();
    /// host.eval_script(&mut ctx, "main.js", r#"
    ///     port.onmessage = e => { globalThis.answer = e.data; port.close(); };
    ///     port.postMessage(21);
    /// "#).unwrap();
    /// host.run_until(&mut ctx, None, &mut |_| false);
    /// let answer = test_api::global_object(&mut ctx).get("answer", &mut ctx).unwrap();
    /// assert_eq!(answer.as_number(), Some(42.0));
    /// assert_eq!(agent.join().unwrap().error, None);
    /// ```
    pub fn spawn_agent<F>(
        &self,
        ctx: &mut Context,
        options: HostOptions,
        setup: F,
    ) -> JsResult<(Object, JoinHandle<AgentExit>)>
    where
        F: FnOnce(&Host, &mut Context, Object) -> JsResult<()> + Send + 'static,
    {
        let (here, there) = port_pair();
        let port = self.adopt_port(ctx, here)?;
        let handle = std::thread::spawn(move || run_agent(options, there, setup));
        Ok((port, handle))
    }
}

/// The agent's global `close()`: closes the agent (its event loop stops after the current
/// task), as a dedicated worker's `close()` does.
fn close(_: &Value, _: &[Value], ctx: &mut Context) -> JsResult<Value> {
    if let Some(host) = Host::from_context(ctx) {
        host.close();
    }
    Ok(Value::undefined())
}

/// The body of a spawned agent's thread.
fn run_agent<F>(options: HostOptions, port: PortHandle, setup: F) -> AgentExit
where
    F: FnOnce(&Host, &mut Context, Object) -> JsResult<()>,
{
    let (host, mut ctx) = match Host::new(options) {
        Ok(built) => built,
        Err(error) => {
            return AgentExit {
                error: Some(format!("cannot build the agent's host: {error}")),
                reports: Vec::new(),
            }
        }
    };
    let result = host
        .define_global_function(&mut ctx, "close", 0, close)
        .and_then(|()| host.adopt_port(&mut ctx, port))
        .and_then(|port| setup(&host, &mut ctx, port));
    host.perform_microtask_checkpoint(&mut ctx);
    let error = match result {
        Ok(()) => {
            host.run_until(&mut ctx, None, &mut |_| false);
            None
        }
        Err(error) => Some(error_message(error, &mut ctx)),
    };
    let reports = host.take_reports();
    // The context first: on QuickJS the host owns the runtime.
    drop(ctx);
    drop(host);
    AgentExit { error, reports }
}
