//! <https://dom.spec.whatwg.org/#interface-abortcontroller> and
//! <https://dom.spec.whatwg.org/#interface-AbortSignal>.
//!
//! `AbortSignal` objects are `EventTarget` objects whose internal state carries an
//! [`AbortSignalState`], so the `EventTarget` brand checks accept them.
//!
//! Dependent signals (`AbortSignal.any`) are held strongly by their sources (the spec's weak
//! sets); the links are dropped as soon as a signal is aborted, since they are never used
//! afterwards.

use crate::engine;
use std::{cell::Cell, collections::VecDeque};

use crate::engine::webidl::{self, InterfaceObject};
use crate::engine::{
    js_string, Cx, JsError, JsResult, JsSymbol, Object, Shared, Slot, StandardConstructor, Value,
};

use super::{
    create_dom_exception, create_event,
    event_target::{
        dispatch, event_handler_value, remove_event_listener, set_event_handler, with_target,
        EventTarget, Listener,
    },
    prototype, Iface,
};

const SIGNAL: &str = "AbortSignal";
const CONTROLLER: &str = "AbortController";

/// A step run when a signal is aborted (an "abort algorithm"), with the data it was added with.
pub type AbortAlgorithmStep = fn(&Object, &mut Cx) -> JsResult<()>;

/// Identifies an abort algorithm added with [`add_abort_algorithm`], to remove it again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AbortAlgorithmHandle(u64);

impl AbortAlgorithmHandle {
    /// The handle as a number (for a host that hands it to script, as stream-diff does).
    #[doc(hidden)]
    pub fn to_bits(self) -> u64 {
        self.0
    }

    /// The handle [`Self::to_bits`] gave.
    #[doc(hidden)]
    pub fn from_bits(bits: u64) -> Self {
        AbortAlgorithmHandle(bits)
    }
}

traced! {
    /// The `AbortSignal`-specific internal state.
    pub(crate) struct AbortSignalState {
        /// <https://dom.spec.whatwg.org/#abortsignal-abort-reason>: undefined while not aborted.
        reason: Slot<Value>,
        /// <https://dom.spec.whatwg.org/#abortsignal-abort-algorithms>
        algorithms: Slot<VecDeque<AlgorithmEntry>>,
        next_algorithm_id: Cell<u64>,
        /// <https://dom.spec.whatwg.org/#abortsignal-dependent>
        dependent: Cell<bool>,
        /// <https://dom.spec.whatwg.org/#abortsignal-source-signals>
        source_signals: Slot<Vec<Object>>,
        /// <https://dom.spec.whatwg.org/#abortsignal-dependent-signals>
        dependent_signals: Slot<Vec<Object>>,
    }
}

impl AbortSignalState {
    fn new(reason: Value) -> Self {
        Self {
            reason: Slot::new(reason),
            algorithms: Slot::new(VecDeque::new()),
            next_algorithm_id: Cell::new(1),
            dependent: Cell::new(false),
            source_signals: Slot::new(Vec::new()),
            dependent_signals: Slot::new(Vec::new()),
        }
    }

    fn is_aborted(&self) -> bool {
        !self.reason.borrow().is_undefined()
    }

    fn add(&self, algorithm: Algorithm) -> AbortAlgorithmHandle {
        let id = self.next_algorithm_id.get();
        self.next_algorithm_id.set(id + 1);
        self.algorithms
            .borrow_mut()
            .push_back(AlgorithmEntry { id, algorithm });
        AbortAlgorithmHandle(id)
    }
}

traced! {
    struct AlgorithmEntry {
        id: u64,
        algorithm: Algorithm,
    }
}

traced! {
    enum Algorithm {
        /// An algorithm added from Rust.
        Step {
            data: Object,
            #[unsafe_ignore_trace]
            step: AbortAlgorithmStep,
        },
        /// Removes an event listener added with a `signal` option.
        RemoveListener {
            target: Object,
            listener: Shared<Listener>,
        },
    }
}

/// Runs `f` on the signal state of `object`, if it is an `AbortSignal` (a short borrow: `f`
/// must not call into JS).
fn with_signal<R>(object: &Object, f: impl FnOnce(&AbortSignalState) -> R) -> Option<R> {
    with_target(object, |t| t.signal.as_ref().map(f)).flatten()
}

pub(crate) fn is_signal_object(object: &Object) -> bool {
    with_signal(object, |_| ()).is_some()
}

/// Whether `value` is an `AbortSignal` object.
pub fn is_abort_signal(value: &Value) -> bool {
    value.as_object().is_some_and(|o| is_signal_object(&o))
}

/// Whether `signal` is aborted (false for objects that are not `AbortSignal`s).
pub fn signal_is_aborted(signal: &Object) -> bool {
    with_signal(signal, AbortSignalState::is_aborted).unwrap_or(false)
}

/// The abort reason of `signal` (undefined while not aborted, or for non-signals).
pub fn signal_reason(signal: &Object) -> Value {
    with_signal(signal, |s| s.reason.borrow().clone()).unwrap_or_default()
}

/// Creates a signal object with the given abort reason in the current realm.
fn create_signal(reason: Value, ctx: &mut Cx) -> JsResult<Object> {
    let proto = prototype(Iface::AbortSignal, ctx)?;
    Ok(Object::from_proto_and_data(
        proto,
        EventTarget::new(Some(AbortSignalState::new(reason))),
    ))
}

/// A fresh, non-aborted `AbortSignal` in the current realm (as `new AbortController().signal`
/// would give, without a controller).
pub fn new_abort_signal(ctx: &mut Cx) -> JsResult<Object> {
    create_signal(Value::undefined(), ctx)
}

/// <https://dom.spec.whatwg.org/#abortsignal-add>: adds a Rust abort algorithm to `signal`,
/// unless it is aborted (or not a signal). `data` is traced while the algorithm is registered.
pub fn add_abort_algorithm(
    signal: &Object,
    data: Object,
    step: AbortAlgorithmStep,
) -> AbortAlgorithmHandle {
    with_signal(signal, |s| {
        if s.is_aborted() {
            AbortAlgorithmHandle(0)
        } else {
            s.add(Algorithm::Step { data, step })
        }
    })
    .unwrap_or(AbortAlgorithmHandle(0))
}

/// <https://dom.spec.whatwg.org/#abortsignal-remove>: removes an algorithm added with
/// [`add_abort_algorithm`] (no-op if it already ran or was removed).
pub fn remove_abort_algorithm(signal: &Object, handle: AbortAlgorithmHandle) {
    with_signal(signal, |s| {
        s.algorithms
            .borrow_mut()
            .retain(|entry| entry.id != handle.0);
    });
}

/// The abort steps of `addEventListener`'s `signal` option.
pub(crate) fn add_remove_listener_algorithm(
    signal: &Object,
    target: Object,
    listener: Shared<Listener>,
) {
    with_signal(signal, |s| {
        if !s.is_aborted() {
            s.add(Algorithm::RemoveListener { target, listener });
        }
    });
}

/// <https://dom.spec.whatwg.org/#abortsignal-signal-abort>: aborts `signal` with `reason`
/// (undefined means no reason was given: a new "AbortError" `DOMException` is used).
///
/// Runs the abort algorithms, then fires `abort`, synchronously; then does the same for the
/// dependent signals. Exceptions thrown by event listeners are reported, not returned; an error
/// returned by a Rust abort algorithm (or an uncatchable engine error) is returned after all
/// steps ran.
pub fn signal_abort(signal: &Object, reason: Value, ctx: &mut Cx) -> JsResult<()> {
    // 1. If signal is aborted, then return.
    match with_signal(signal, AbortSignalState::is_aborted) {
        None | Some(true) => return Ok(()),
        Some(false) => {}
    }
    // 2. Set signal's abort reason to reason if it is given; otherwise to a new "AbortError".
    let reason = if reason.is_undefined() {
        create_dom_exception(ctx, "signal is aborted without reason", "AbortError")?.into()
    } else {
        reason
    };
    with_signal(signal, |s| *s.reason.borrow_mut() = reason.clone());
    // 3-4. Set the abort reason of each dependent signal that is not aborted yet.
    let dependents = with_signal(signal, |s| {
        std::mem::take(&mut *s.dependent_signals.borrow_mut())
    })
    .unwrap_or_default();
    let mut to_abort = Vec::new();
    for dependent in dependents {
        let newly_aborted = with_signal(&dependent, |d| {
            if d.is_aborted() {
                false
            } else {
                *d.reason.borrow_mut() = reason.clone();
                true
            }
        })
        .unwrap_or(false);
        if newly_aborted {
            to_abort.push(dependent);
        }
    }
    unlink_sources(signal);
    for dependent in &to_abort {
        unlink_sources(dependent);
    }
    // 5. Run the abort steps for signal.
    let mut first_error = run_abort_steps(signal, ctx).err();
    // 6. Run the abort steps for each dependent signal.
    for dependent in &to_abort {
        if let Err(error) = run_abort_steps(dependent, ctx) {
            first_error.get_or_insert(error);
        }
    }
    first_error.map_or(Ok(()), Err)
}

/// Drops the links between an aborted signal and its source signals: they are never used once
/// the signal is aborted.
fn unlink_sources(signal: &Object) {
    let sources = with_signal(signal, |s| {
        std::mem::take(&mut *s.source_signals.borrow_mut())
    })
    .unwrap_or_default();
    for source in sources {
        with_signal(&source, |s| {
            s.dependent_signals
                .borrow_mut()
                .retain(|d| !Object::equals(d, signal));
        });
    }
}

/// <https://dom.spec.whatwg.org/#run-the-abort-steps>
fn run_abort_steps(signal: &Object, ctx: &mut Cx) -> JsResult<()> {
    let mut first_error: Option<JsError> = None;
    // 1-2. Run each abort algorithm (algorithms removed meanwhile do not run), emptying the set.
    loop {
        let next = with_signal(signal, |s| s.algorithms.borrow_mut().pop_front()).flatten();
        let Some(entry) = next else { break };
        let outcome = match &entry.algorithm {
            Algorithm::Step { data, step } => step(data, ctx),
            Algorithm::RemoveListener { target, listener } => {
                remove_event_listener(target, listener);
                Ok(())
            }
        };
        if let Err(error) = outcome {
            first_error.get_or_insert(error);
        }
    }
    // 3. Fire an event named abort at signal (skipped when nobody listens: unobservable).
    let abort = js_string!("abort");
    if with_target(signal, |t| t.has_listeners_for(&abort)).unwrap_or(false) {
        let event = create_event(ctx, "abort")?;
        if let Err(error) = dispatch(signal, &event, ctx) {
            first_error.get_or_insert(error);
        }
    }
    first_error.map_or(Ok(()), Err)
}

/// <https://dom.spec.whatwg.org/#create-a-dependent-abort-signal>
pub fn create_dependent_signal(signals: &[Object], ctx: &mut Cx) -> JsResult<Object> {
    // 1. Let resultSignal be a new AbortSignal.
    let result = new_abort_signal(ctx)?;
    // 2. If any signal is aborted, take its reason and return.
    for signal in signals {
        let reason = signal_reason(signal);
        if !reason.is_undefined() {
            with_signal(&result, |s| *s.reason.borrow_mut() = reason);
            return Ok(result);
        }
    }
    // 3. Set resultSignal's dependent to true.
    with_signal(&result, |s| s.dependent.set(true));
    // 4. Link with each signal's sources (the signal itself if it is not dependent).
    for signal in signals {
        let sources = with_signal(signal, |s| {
            if s.dependent.get() {
                s.source_signals.borrow().clone()
            } else {
                vec![signal.clone()]
            }
        })
        .unwrap_or_default();
        for source in sources {
            let added = with_signal(&result, |r| {
                let mut list = r.source_signals.borrow_mut();
                if list.iter().any(|s| Object::equals(s, &source)) {
                    false
                } else {
                    list.push(source.clone());
                    true
                }
            })
            .unwrap_or(false);
            if added {
                with_signal(&source, |s| {
                    s.dependent_signals.borrow_mut().push(result.clone())
                });
            }
        }
    }
    Ok(result)
}

// ----- AbortSignal interface -----

pub(super) fn build_signal_interface(
    event_target: &StandardConstructor,
    ctx: &mut Cx,
) -> StandardConstructor {
    let mut iface = InterfaceObject::new(ctx, SIGNAL, 0, construct_signal);
    iface
        .members()
        .static_operation("abort", 0, static_abort)
        .static_operation("timeout", 1, static_timeout)
        .static_operation("any", 1, static_any)
        .attribute("aborted", get_aborted, None)
        .attribute("reason", get_reason, None)
        .operation("throwIfAborted", 0, throw_if_aborted)
        .attribute("onabort", get_onabort, Some(set_onabort));
    iface.build(
        Some(event_target.prototype()),
        Some(event_target.constructor()),
    )
}

/// `AbortSignal` has no constructor: its interface object always throws.
fn construct_signal(_: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    Err(engine::throw_type_error(
        "Failed to construct 'AbortSignal': Illegal constructor",
    ))
}

fn this_signal(this: &Value) -> JsResult<Object> {
    webidl::this_implementing(this, SIGNAL, is_signal_object)
}

/// `AbortSignal.abort(reason)`
fn static_abort(_: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let reason = webidl::arg(args, 0);
    let reason = if reason.is_undefined() {
        create_dom_exception(ctx, "signal is aborted without reason", "AbortError")?.into()
    } else {
        reason
    };
    Ok(create_signal(reason, ctx)?.into())
}

/// `AbortSignal.timeout(milliseconds)`
fn static_timeout(_: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    webidl::require_args(args, 1, SIGNAL, "timeout")?;
    let milliseconds = enforce_range_u64(&args[0], ctx)?;
    let signal = new_abort_signal(ctx)?;
    let target = signal.clone();
    engine::queue_timer(ctx, milliseconds, move |ctx| {
        let reason = create_dom_exception(ctx, "signal timed out", "TimeoutError")?;
        signal_abort(&target, reason.into(), ctx)
    });
    Ok(signal.into())
}

/// WebIDL `[EnforceRange] unsigned long long`.
fn enforce_range_u64(value: &Value, ctx: &mut Cx) -> JsResult<u64> {
    let x = value.to_number(ctx)?;
    if !x.is_finite() {
        return Err(engine::throw_type_error("Value is not a finite number"));
    }
    let x = x.trunc();
    if !(0.0..=9_007_199_254_740_991.0).contains(&x) {
        return Err(engine::throw_type_error(
            "Value is outside the 'unsigned long long' value range",
        ));
    }
    // invariant: x is an integer in [0, 2^53 - 1], exactly representable as u64.
    Ok(x as u64)
}

/// `AbortSignal.any(signals)`
fn static_any(_: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    webidl::require_args(args, 1, SIGNAL, "any")?;
    let signals = to_signal_sequence(&args[0], ctx)?;
    Ok(create_dependent_signal(&signals, ctx)?.into())
}

/// Converts a value to `sequence<AbortSignal>`
/// (<https://webidl.spec.whatwg.org/#js-sequence>).
fn to_signal_sequence(value: &Value, ctx: &mut Cx) -> JsResult<Vec<Object>> {
    let not_sequence = || {
        engine::throw_type_error("Failed to execute 'any' on 'AbortSignal': The provided value cannot be converted to a sequence")
    };
    let Some(object) = value.as_object() else {
        return Err(not_sequence());
    };
    let method = object.get(JsSymbol::iterator(), ctx)?;
    if method.is_null_or_undefined() {
        return Err(not_sequence());
    }
    let Some(method) = method.as_callable() else {
        return Err(engine::throw_type_error(
            "Symbol.iterator is not a function",
        ));
    };
    let iterator = crate::engine::call_object(&method, value, &[], ctx)?;
    let Some(iterator) = iterator.as_object() else {
        return Err(engine::throw_type_error(
            "Result of the Symbol.iterator method is not an object",
        ));
    };
    let next = iterator.get(js_string!("next"), ctx)?;
    let mut signals = Vec::new();
    loop {
        let Some(next_fn) = next.as_callable() else {
            return Err(engine::throw_type_error(
                "The iterator's next method is not a function",
            ));
        };
        let result = crate::engine::call_object(&next_fn, &iterator.clone().into(), &[], ctx)?;
        let Some(result) = result.as_object() else {
            return Err(engine::throw_type_error("Iterator result is not an object"));
        };
        if result.get(js_string!("done"), ctx)?.to_boolean() {
            return Ok(signals);
        }
        let item = result.get(js_string!("value"), ctx)?;
        match item.as_object().filter(is_signal_object) {
            Some(signal) => signals.push(signal),
            None => {
                return Err(engine::throw_type_error(
                    "Failed to execute 'any' on 'AbortSignal': Failed to convert value to 'AbortSignal'",
                ))
            }
        }
    }
}

fn get_aborted(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    let signal = this_signal(this)?;
    Ok(signal_is_aborted(&signal).into())
}

fn get_reason(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    let signal = this_signal(this)?;
    Ok(signal_reason(&signal))
}

/// `throwIfAborted()`
fn throw_if_aborted(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    let signal = this_signal(this)?;
    let reason = signal_reason(&signal);
    if reason.is_undefined() {
        Ok(Value::undefined())
    } else {
        Err(crate::engine::throw_value(reason))
    }
}

fn get_onabort(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    let signal = this_signal(this)?;
    Ok(event_handler_value(&signal, &js_string!("abort")).map_or(Value::null(), Into::into))
}

fn set_onabort(this: &Value, args: &[Value], _: &mut Cx) -> JsResult<Value> {
    webidl::require_args(args, 1, SIGNAL, "onabort")?;
    let signal = this_signal(this)?;
    // EventHandler is a [LegacyTreatNonObjectAsNull] callback function: non-objects are null.
    set_event_handler(&signal, js_string!("abort"), args[0].as_object());
    Ok(Value::undefined())
}

// ----- AbortController interface -----

traced! {
    data;
    /// An `AbortController` object's internal state.
    pub(crate) struct AbortController {
        signal: Object,
    }
}

pub(super) fn build_controller_interface(ctx: &mut Cx) -> StandardConstructor {
    let mut iface = InterfaceObject::new(ctx, CONTROLLER, 0, construct_controller);
    iface
        .members()
        .attribute("signal", get_signal, None)
        .operation("abort", 0, controller_abort);
    iface.build(None, None)
}

/// `new AbortController()`
fn construct_controller(new_target: &Value, _: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    webidl::require_new(new_target, CONTROLLER)?;
    let proto = webidl::prototype_from_new_target(
        new_target,
        |ctx| prototype(Iface::AbortController, ctx),
        ctx,
    )?;
    let signal = new_abort_signal(ctx)?;
    Ok(Object::from_proto_and_data(proto, AbortController { signal }).into())
}

/// The brand check, and this's signal.
fn this_controller(this: &Value) -> JsResult<Object> {
    Ok(webidl::this::<AbortController>(this)?
        .borrow()
        .data()
        .signal
        .clone())
}

impl webidl::Interface for AbortController {
    const NAME: &'static str = CONTROLLER;
}

fn get_signal(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    Ok(this_controller(this)?.into())
}

/// `abort(reason)`
fn controller_abort(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let signal = this_controller(this)?;
    signal_abort(&signal, webidl::arg(args, 0), ctx)?;
    Ok(Value::undefined())
}
