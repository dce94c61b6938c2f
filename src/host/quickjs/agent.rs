//! Agents on other threads (one QuickJS runtime per thread), connected to this one by a
//! `MessagePort` pair: only serialized data crosses threads. The same API as the Boa host's
//! (`src/host/agent.rs`).

use std::{sync::Arc, thread::JoinHandle};

use super::{error_message, Context, Host, HostOptions, HostReport};
use crate::engine::{JsResult, Object, Value};
use crate::html::PortCore;

/// One end of an entangled `MessagePort` pair not yet owned by any agent: it can be sent to
/// another thread and adopted there ([`Host::adopt_port`]).
#[derive(Debug)]
pub struct PortHandle(Arc<PortCore>);

/// Two entangled port ends, for two agents.
pub fn port_pair() -> (PortHandle, PortHandle) {
    let (a, b) = crate::html::port_pair();
    (PortHandle(a), PortHandle(b))
}

/// How a spawned agent ended: the error its setup threw, and what its host reported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentExit {
    /// The setup's error, if it threw.
    pub error: Option<String>,
    /// The host's reports (uncaught errors, unhandled rejections).
    pub reports: Vec<HostReport>,
}

impl Host {
    /// Makes `port` a `MessagePort` of this agent's current realm.
    pub fn adopt_port(&self, ctx: &mut Context, port: PortHandle) -> JsResult<Object> {
        crate::html::adopt_port(port.0, ctx)
    }

    /// Starts an agent on a new thread with its own runtime and host (built from `options`),
    /// connected to this one by a `MessagePort` pair: returns this side's port and the thread.
    /// `setup` runs in the new agent with its host, context and port (a worker's script), then
    /// the agent's event loop runs until it is idle or calls `close()`.
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

/// `close()`: the agent's event loop stops after the current task.
fn close(_: &Value, _: &[Value], ctx: &mut Context) -> JsResult<Value> {
    if let Some(state) = super::host_state(ctx) {
        state.closed.set(true);
    }
    Ok(Value::undefined())
}

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
    drop(ctx);
    drop(host);
    AgentExit { error, reports }
}
