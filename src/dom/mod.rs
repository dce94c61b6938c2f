//! DOM interfaces that the Streams Standard depends on: `DOMException` (WebIDL),
//! `Event`/`EventTarget` (and `CustomEvent`) (as far as `AbortSignal` needs: no tree, so dispatch is at-target only)
//! and `AbortController`/`AbortSignal` (<https://dom.spec.whatwg.org/#aborting-ongoing-activities>).
//!
//! Rust API for the other layers:
//! - [`create_dom_exception`], [`is_dom_exception`], [`dom_exception_name`];
//! - [`new_abort_signal`], [`signal_abort`], [`is_abort_signal`], [`signal_is_aborted`],
//!   [`signal_reason`], [`add_abort_algorithm`], [`remove_abort_algorithm`];
//! - [`set_error_reporter`] / [`report_exception`]: where exceptions thrown by event listeners go.

mod abort;
mod custom_event;
mod event;
mod event_target;
mod exception;
mod quota_exceeded_error;

use crate::engine;
use crate::engine::webidl;
use crate::engine::{Cx, JsError, JsFunction, JsResult, Object, StandardConstructor};

pub use abort::{
    add_abort_algorithm, create_dependent_signal, is_abort_signal, new_abort_signal,
    remove_abort_algorithm, signal_abort, signal_is_aborted, signal_reason, AbortAlgorithmHandle,
    AbortAlgorithmStep,
};
pub(crate) use event::{convert_event_init, new_event_object_with, with_event, EventInit};
pub use event::{create_event, is_event};
pub(crate) use event_target::{
    dispatch, event_handler_value, set_event_handler, with_target, EventTarget,
};
pub use event_target::{dispatch_event, is_event_target};
pub(crate) use exception::{
    dom_exception_message, new_dom_exception, quota_exceeded_error_slots, Quota,
};
pub(crate) use quota_exceeded_error::new_quota_exceeded_error;

/// Slots that a specification built on DOM keeps in an `EventTarget` or `Event` object its
/// interface inherits from (HTML's `MessagePort` and `MessageEvent`): DOM holds them without
/// naming them, and the owner finds its own again with [`extension_of`].
pub(crate) trait Extension:
    crate::engine::Trace + crate::engine::Finalize + std::any::Any
{
    /// The slots as `Any`, for [`extension_of`].
    fn as_any(&self) -> &dyn std::any::Any;
}

impl<T: crate::engine::Trace + crate::engine::Finalize + std::any::Any> Extension for T {
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// The extension slots of type `T` in `slot`, if that is what it holds.
pub(crate) fn extension_of<T: 'static>(slot: &Option<Box<dyn Extension>>) -> Option<&T> {
    slot.as_deref()?.as_any().downcast_ref::<T>()
}
pub use exception::{create_dom_exception, dom_exception_name, is_dom_exception};

/// Installs `DOMException` (and `QuotaExceededError`), `Event`, `CustomEvent`, `EventTarget`, `AbortController` and `AbortSignal` on the
/// global object of the current realm, replacing any existing globals of those names.
pub fn register(ctx: &mut Cx) -> JsResult<()> {
    let time_origin = engine::clock_nanos(ctx);
    let dom_exception = exception::build_interface(ctx);
    let quota_exceeded_error = quota_exceeded_error::build_interface(&dom_exception, ctx);
    let event = event::build_interface(ctx);
    let event_target = event_target::build_interface(ctx);
    let abort_signal = abort::build_signal_interface(&event_target, ctx);
    let abort_controller = abort::build_controller_interface(ctx);
    let is_trusted_getter = event::is_trusted_getter(ctx);
    let error_stack_getter = exception::error_stack_getter(ctx);

    for (name, class) in [
        ("DOMException", &dom_exception),
        ("QuotaExceededError", &quota_exceeded_error),
        ("Event", &event),
        ("EventTarget", &event_target),
        ("AbortController", &abort_controller),
        ("AbortSignal", &abort_signal),
    ] {
        webidl::define_global(name, class, ctx)?;
    }
    custom_event::register(&event, ctx)?;

    engine::set_realm_data(
        ctx,
        DomRealm {
            dom_exception,
            quota_exceeded_error,
            event,
            event_target,
            abort_controller,
            abort_signal,
            is_trusted_getter,
            error_stack_getter,
            time_origin,
        },
    );
    Ok(())
}

traced! {
    data;
    /// The per-realm state of the DOM interfaces: their interface objects and prototypes.
    struct DomRealm {
        dom_exception: StandardConstructor,
        quota_exceeded_error: StandardConstructor,
        event: StandardConstructor,
        event_target: StandardConstructor,
        abort_controller: StandardConstructor,
        abort_signal: StandardConstructor,
        /// The getter of the `[LegacyUnforgeable]` `isTrusted` attribute, shared by all events.
        is_trusted_getter: JsFunction,
        /// The intrinsic `Error.prototype.stack` getter, used to give `DOMException`s a `stack`.
        error_stack_getter: Option<Object>,
        /// The time origin that `Event.timeStamp` is relative to.
        #[unsafe_ignore_trace]
        time_origin: u128,
    }
}

/// Which interface of [`DomRealm`] to look up.
#[derive(Clone, Copy)]
enum Iface {
    DomException,
    QuotaExceededError,
    Event,
    EventTarget,
    AbortController,
    AbortSignal,
}

/// The interface prototype object of `iface` in the current realm.
fn prototype(iface: Iface, ctx: &Cx) -> JsResult<Object> {
    with_realm(ctx, |r| {
        match iface {
            Iface::DomException => &r.dom_exception,
            Iface::QuotaExceededError => &r.quota_exceeded_error,
            Iface::Event => &r.event,
            Iface::EventTarget => &r.event_target,
            Iface::AbortController => &r.abort_controller,
            Iface::AbortSignal => &r.abort_signal,
        }
        .prototype()
    })
}

/// Runs `f` on the current realm's [`DomRealm`] (a short borrow: `f` must not call into JS).
fn with_realm<R>(ctx: &Cx, f: impl FnOnce(&DomRealm) -> R) -> JsResult<R> {
    match engine::with_realm_data::<DomRealm, R>(ctx, f) {
        Some(result) => Ok(result),
        None => Err(engine::throw_type_error(
            "the DOM interfaces are not registered in this realm",
        )),
    }
}

/// The `Event` and `EventTarget` interface objects of the current realm (for interfaces that
/// inherit from them).
pub(crate) fn event_interfaces(ctx: &Cx) -> JsResult<(StandardConstructor, StandardConstructor)> {
    with_realm(ctx, |r| (r.event.clone(), r.event_target.clone()))
}

/// A global object that is an `EventTarget` (a window or worker global scope), with
/// `prototype` as its [[Prototype]] (the host sets the interface's prototype later).
pub(crate) fn new_event_target_global(prototype: Object) -> Object {
    Object::from_proto_and_data(prototype, EventTarget::new(None))
}

/// Where exceptions thrown by event listeners are reported.
#[derive(Clone, Copy)]
struct ErrorReporter(fn(&mut Cx, JsError));

/// Sets the function that receives exceptions thrown by event listeners (HTML's "report an
/// exception"). The default prints them to standard error.
pub fn set_error_reporter(ctx: &mut Cx, reporter: fn(&mut Cx, JsError)) {
    engine::set_agent_data(ctx, ErrorReporter(reporter));
}

/// <https://html.spec.whatwg.org/#report-an-exception>: hands `error` to the reporter set with
/// [`set_error_reporter`] (default: print to standard error).
pub fn report_exception(ctx: &mut Cx, error: JsError) {
    match engine::agent_data::<ErrorReporter>(ctx).copied() {
        Some(ErrorReporter(report)) => report(ctx, error),
        None => eprintln!("Uncaught {error}"),
    }
}
