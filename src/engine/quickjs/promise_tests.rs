//! Unit tests of the QuickJS backend's promises, internal promises, microtasks and "clean up
//! after running script", on a bare runtime (no host): each test sets up one runtime and
//! realm, runs the engine's job queue itself, and checks at the end that every object was
//! freed (a leak or an untraced cycle fails the test).

use std::cell::{Cell, RefCell};

use super::call::{eval_internal, new_function};
use super::core::{new_string, q, Agent, RealmState};
use super::*;
use crate::engine::internal_promise::InternalPromise;

/// Runs `f` in a fresh runtime and realm, then tears both down and checks that no object is
/// left. `f` must drop its values before it returns (they are dropped at its end).
fn with_realm(f: impl FnOnce(&mut Cx)) {
    let (rt, ctx) = new_runtime_and_realm();
    {
        // SAFETY: `ctx` is a live context of `rt`, with its agent and realm state installed,
        // until the teardown below, after this block; `cx` is the thread's only handle and is
        // dropped at the block's end.
        let mut cx = unsafe { Cx::enter(ctx) };
        eval(&mut cx, "var log = [];");
        f(&mut cx);
        run_jobs(&mut cx);
    }
    // SAFETY: `ctx` is live and installed; the block above ended, so no `Cx` is alive, and `f`
    // dropped the values it made (its contract), so nothing uses the realm state again.
    unsafe { RealmState::uninstall(ctx) };
    // SAFETY: `ctx` is live; this gives back the count `JS_NewContext` gave us, once (a
    // `Realm` in native data may hold more; the collection below frees those).
    unsafe { q::JS_FreeContext(ctx) };
    // SAFETY: `rt` is live and installed; no `Cx` is alive and no script runs on it again, so
    // no reference to the agent is used afterwards.
    unsafe { Agent::uninstall(rt) };
    // SAFETY: `rt` is live, on this thread, and no collection is running.
    unsafe { q::JS_RunGC(rt) };
    let mut usage = std::mem::MaybeUninit::<q::JSMemoryUsage>::zeroed();
    // SAFETY: `rt` is live; the call writes the whole `JSMemoryUsage` through the pointer.
    unsafe { q::JS_ComputeMemoryUsage(rt, usage.as_mut_ptr()) };
    // SAFETY: zeroed, then filled by QuickJS: every field (all integers) is initialized.
    let objects = unsafe { usage.assume_init() }.obj_count;
    // A runtime with objects left would abort in JS_FreeRuntime: leak it instead, so the
    // failure is this assertion's.
    assert_eq!(objects, 0, "objects left when the runtime is freed");
    // SAFETY: `rt` is live; its agent and context are gone and no object is left (asserted
    // above), and nothing of it is used after.
    unsafe { q::JS_FreeRuntime(rt) };
    super::object::assert_no_nodes_left();
}

/// A new runtime with its agent, and its main context with its realm state: what the host's
/// `Runtime::new` sets up, without a rejection tracker. The caller tears both down.
fn new_runtime_and_realm() -> (*mut q::JSRuntime, *mut q::JSContext) {
    // SAFETY: `JS_NewRuntime` has no precondition; the runtime is ours.
    let rt = unsafe { q::JS_NewRuntime() };
    assert!(!rt.is_null(), "a runtime");
    // SAFETY: `rt` is a new, live runtime of this thread with no opaque; the caller calls
    // `Agent::uninstall` before `JS_FreeRuntime`.
    unsafe { Agent::install(rt) };
    // SAFETY: `rt` is live; the context is ours.
    let ctx = unsafe { q::JS_NewContext(rt) };
    assert!(!ctx.is_null(), "a context");
    // SAFETY: `ctx` is a new, live context of `rt` (whose agent is installed), with no
    // opaque; the caller keeps it live until `RealmState::uninstall`, then `JS_FreeContext`.
    unsafe { RealmState::install(ctx) }.expect("intrinsics");
    (rt, ctx)
}

thread_local! {
    /// The errors the job queue reported, as messages.
    static JOB_ERRORS: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

/// Runs the engine's job queue until it is empty; job errors go to [`JOB_ERRORS`].
fn run_jobs(cx: &mut Cx) {
    loop {
        let mut job_ctx = std::ptr::null_mut();
        // SAFETY: `cx`'s runtime is live and this is its thread (`Cx`'s invariant); `job_ctx`
        // is a valid place for the job's context. Jobs run script, with `cx` borrowed mutably.
        let status = unsafe { q::JS_ExecutePendingJob(cx.rt(), &mut job_ctx) };
        if status == 0 {
            break;
        }
        if status < 0 {
            let error = super::core::take_exception(cx);
            let message = error.to_string();
            JOB_ERRORS.with(|e| e.borrow_mut().push(message));
        }
    }
}

/// Evaluates test script.
fn eval(cx: &mut Cx, source: &str) -> Value {
    eval_internal(cx, source).expect("script")
}

/// The log, joined with spaces.
fn log(cx: &mut Cx) -> String {
    let joined = eval(cx, "log.join(' ')");
    joined
        .to_string(cx)
        .expect("string")
        .to_std_string_escaped()
}

/// Appends `entry` to the log.
fn push(cx: &mut Cx, entry: &str) {
    eval(cx, &format!("log.push({entry:?})"));
}

/// A fulfillment step that logs `label:value`.
fn ok(label: &&'static str, value: Value, cx: &mut Cx) -> JsResult<()> {
    let value = value.to_string(cx)?.to_std_string_escaped();
    push(cx, &format!("{label}:{value}"));
    Ok(())
}

/// A rejection step that logs `label rejected:reason`.
fn err(label: &&'static str, reason: Value, cx: &mut Cx) -> JsResult<()> {
    let reason = reason.to_string(cx)?.to_std_string_escaped();
    push(cx, &format!("{label} rejected:{reason}"));
    Ok(())
}

/// The promise `value` is.
fn promise(value: Value) -> JsPromise {
    assert!(is_promise(&value));
    JsPromise(Object::from_value_unchecked(value))
}

#[test]
fn internal_reactions_keep_the_job_order_of_js_promises() {
    with_realm(|cx| {
        eval(
            cx,
            "var js = Promise.resolve(); js.then(() => log.push('js1'));",
        );
        let internal = InternalPromise::new();
        internal.react("internal", ok, err, cx);
        internal.resolve(Value::undefined(), cx).expect("resolve");
        // Settled twice: ignored.
        internal.reject(Value::undefined(), cx);
        eval(cx, "js.then(() => log.push('js2'));");
        run_jobs(cx);
        assert_eq!(log(cx), "js1 internal:undefined js2");
        assert_eq!(internal.outcome(), Some(Ok(Value::undefined())));
    });
}

#[test]
fn internal_promises_adopt_thenables_in_a_later_job() {
    with_realm(|cx| {
        let thenable = eval(
            cx,
            "({ then(resolve) { log.push('then'); resolve('v'); resolve('w'); } })",
        );
        let internal = InternalPromise::new();
        internal.react("fulfilled", ok, err, cx);
        internal.resolve(thenable, cx).expect("resolve");
        push(cx, "sync");
        run_jobs(cx);
        assert_eq!(log(cx), "sync then fulfilled:v");
    });
}

#[test]
fn internal_promises_adopt_internal_promises() {
    with_realm(|cx| {
        let inner = InternalPromise::new();
        let outer = InternalPromise::new();
        outer.resolve_with_internal(inner.clone(), cx);
        outer.react("outer", ok, err, cx);
        inner.reject(new_string(cx, "no"), cx);
        run_jobs(cx);
        assert_eq!(log(cx), "outer rejected:no");
        assert!(!outer.ptr_eq(&inner));
        assert!(outer.ptr_eq(&outer.clone()));
    });
}

#[test]
fn microtasks_share_the_promise_job_queue() {
    with_realm(|cx| {
        eval(cx, "Promise.resolve().then(() => log.push('a'));");
        queue_microtask(cx, |cx| {
            push(cx, "b");
            queue_microtask(cx, |cx| {
                push(cx, "d");
                Ok(())
            });
            Ok(())
        });
        eval(cx, "Promise.resolve().then(() => log.push('c'));");
        run_jobs(cx);
        assert_eq!(log(cx), "a b c d");
    });
}

#[test]
fn microtask_errors_are_job_errors() {
    JOB_ERRORS.with(|e| e.borrow_mut().clear());
    with_realm(|cx| {
        queue_microtask(cx, |_| Err(throw_type_error("boom")));
        run_jobs(cx);
    });
    let errors = JOB_ERRORS.with(|e| e.borrow_mut().split_off(0));
    assert_eq!(errors, ["TypeError: boom"]);
}

#[test]
fn reactions_to_pending_promises_take_their_place_without_lookups() {
    with_realm(|cx| {
        let p = eval(
            cx,
            "var resolve; var p = new Promise(r => { resolve = r; });
             p.then(() => log.push('js1'));
             Object.defineProperty(p, 'then', { get() { log.push('then'); } });
             Object.defineProperty(p, 'constructor', { get() { log.push('constructor'); } });
             Promise.prototype.then = function () { log.push('patched then'); };
             p",
        );
        let p = promise(p);
        react(&p, "rust", ok, err, cx).expect("react");
        eval(cx, "resolve(1)");
        run_jobs(cx);
        assert_eq!(log(cx), "js1 rust:1");
        assert!(is_marked_as_handled(&p.0, cx));
    });
}

#[test]
fn reactions_to_settled_promises_are_queued_at_once() {
    with_realm(|cx| {
        let fulfilled = promise(eval(cx, "Promise.resolve('f')"));
        let rejected = promise(eval(cx, "var r = Promise.reject('r'); r"));
        assert!(!is_marked_as_handled(&rejected.0, cx));
        eval(cx, "Promise.resolve().then(() => log.push('first'));");
        react(&fulfilled, "ok", ok, err, cx).expect("react");
        react(&rejected, "no", ok, err, cx).expect("react");
        assert!(is_marked_as_handled(&rejected.0, cx));
        run_jobs(cx);
        assert_eq!(log(cx), "first ok:f no rejected:r");
    });
}

#[test]
fn reaction_errors_reject_the_result_promise() {
    JOB_ERRORS.with(|e| e.borrow_mut().clear());
    with_realm(|cx| {
        let cap = PromiseCapability::new(cx);
        cap.react(
            (),
            |(), _, _| Err(throw_type_error("step")),
            |(), _, _| Ok(()),
            cx,
        )
        .expect("react");
        cap.resolve(Value::undefined(), cx).expect("resolve");
        run_jobs(cx);
    });
    // Not a job error: the result promise of `then` is rejected, as with a throwing handler.
    assert!(JOB_ERRORS.with(|e| e.borrow().is_empty()));
}

#[test]
fn capabilities_resolve_reject_and_mark_as_handled() {
    with_realm(|cx| {
        let cap = PromiseCapability::new(cx);
        assert!(cap.is_pending());
        assert!(!is_marked_as_handled(&cap.promise().0, cx));
        mark_as_handled(cap.promise(), cx).expect("mark");
        assert!(is_marked_as_handled(&cap.promise().0, cx));
        cap.reject(new_string(cx, "r"), cx).expect("reject");
        assert!(!cap.is_pending());
        cap.resolve(Value::from(1), cx)
            .expect("resolve after reject");

        let other = PromiseCapability::new(cx);
        assert!(!is_marked_as_handled(&other.promise().0, cx));
        let global = global_object(cx);
        global
            .create_data_property_or_throw("other", other.promise().clone(), cx)
            .expect("global");
        eval(cx, "other.then(v => log.push('then:' + v));");
        assert!(is_marked_as_handled(&other.promise().0, cx));
        let thenable = eval(cx, "({ then(f) { log.push('read'); f(2); } })");
        other.resolve(thenable, cx).expect("resolve");
        run_jobs(cx);
        assert_eq!(log(cx), "read then:2");
        assert!(!is_marked_as_handled(
            &global.as_value().as_object().unwrap(),
            cx
        ));
    });
}

#[test]
fn promises_resolved_and_rejected_with() {
    with_realm(|cx| {
        let p = promise_resolved_with(Value::from(3), cx).expect("resolved");
        react(&p, "a", ok, err, cx).expect("react");
        let existing = promise(eval(cx, "var e = Promise.resolve(4); e"));
        let q = promise_resolved_with(existing.clone().into(), cx).expect("resolved");
        assert_ne!(q, existing);
        let r = promise_rejected_with(new_string(cx, "x"), cx).expect("rejected");
        mark_as_handled(&r, cx).expect("mark");
        react(&r, "b", ok, err, cx).expect("react");
        // PromiseResolve returns a promise of %Promise% as it is.
        let same = JsPromise::resolve(existing.clone().into(), cx).expect("resolve");
        assert_eq!(same, existing);
        let wrapped = JsPromise::resolve(Value::from(5), cx).expect("resolve");
        assert!(is_promise(&wrapped.clone().into()));
        run_jobs(cx);
        assert_eq!(log(cx), "a:3 b rejected:x");
    });
}

#[test]
fn untouched_promises_and_the_intrinsic_lookups() {
    with_realm(|cx| {
        assert!(fresh_promise_then_is_intrinsic(cx));
        assert!(species_lookup_is_intrinsic(None, cx));
        let then = original_promise_then(cx).expect("then");
        assert_eq!(
            then.as_value(),
            &eval(cx, "Promise.prototype.then"),
            "the original then"
        );
        let p = eval(cx, "var p = Promise.resolve(1); p");
        let untouched = untouched_promise(&p, cx).expect("untouched");
        assert!(species_lookup_is_intrinsic(Some(&untouched), cx));
        assert!(untouched_promise(&Value::from(1), cx).is_none());
        assert!(untouched_promise(&eval(cx, "({})"), cx).is_none());
        eval(cx, "p.constructor = Promise;");
        assert!(untouched_promise(&p, cx).is_none());
        assert!(!species_lookup_is_intrinsic(Some(&untouched), cx));
        let q = eval(cx, "var q = Promise.resolve(1); q.then = 1; q");
        assert!(untouched_promise(&q, cx).is_none());
        let sub = eval(cx, "class P extends Promise {}; new P(() => {})");
        assert!(untouched_promise(&sub, cx).is_none());

        eval(
            cx,
            "var saved = Promise.prototype.then; Promise.prototype.then = function () {};",
        );
        assert!(!fresh_promise_then_is_intrinsic(cx));
        eval(cx, "Promise.prototype.then = saved;");
        assert!(fresh_promise_then_is_intrinsic(cx));

        eval(
            cx,
            "Object.defineProperty(Promise, Symbol.species, { get() { log.push('species'); return Promise; } });",
        );
        assert!(!species_lookup_is_intrinsic(None, cx));
        assert!(!fresh_promise_then_is_intrinsic(cx));
        species_lookups_of_fresh_promise(cx).expect("lookups");
        eval(
            cx,
            "Object.defineProperty(Promise.prototype, 'constructor', { get() { log.push('constructor'); return 1; } });",
        );
        let error = species_lookups_of_fresh_promise(cx).expect_err("not an object");
        assert!(error.to_string().contains("not an object"));
        assert_eq!(log(cx), "species constructor");
    });
}

thread_local! {
    static CHECKPOINTS: Cell<usize> = const { Cell::new(0) };
}

#[test]
fn clean_up_after_running_script_checks_the_stack() {
    with_realm(|cx| {
        CHECKPOINTS.with(|c| c.set(0));
        // Without a checkpoint function: nothing.
        clean_up_after_running_script(cx);
        set_microtask_checkpoint(cx, |_| CHECKPOINTS.with(|c| c.set(c.get() + 1)));
        // From Rust, no script running: a checkpoint.
        clean_up_after_running_script(cx);
        assert_eq!(CHECKPOINTS.with(Cell::get), 1);
        // From a native function that script called: none.
        let f = new_function(cx, "cleanUp", 0, |_, _, cx| {
            clean_up_after_running_script(cx);
            Ok(Value::undefined())
        });
        let global = global_object(cx);
        global
            .create_data_property_or_throw("cleanUp", f, cx)
            .expect("global");
        eval(
            cx,
            "cleanUp(); [0].forEach(() => cleanUp()); Reflect.apply(cleanUp, null, []);",
        );
        assert_eq!(CHECKPOINTS.with(Cell::get), 1);
        // From a microtask that is Rust code: a checkpoint.
        queue_microtask(cx, |cx| {
            clean_up_after_running_script(cx);
            Ok(())
        });
        run_jobs(cx);
        assert_eq!(CHECKPOINTS.with(Cell::get), 2);
    });
}

#[test]
fn tasks_go_to_the_host() {
    let (runtime, host) = super::runtime::Runtime::for_tests();
    {
        let mut cx = runtime.main_context();
        let cx = &mut cx;
        eval(cx, "var log = [];");
        queue_task(cx, |cx| {
            push(cx, "task");
            Ok(())
        });
        let task = host.tasks.borrow_mut().pop_front().expect("a task");
        task(cx).expect("task");
        assert_eq!(log(cx), "task");
    }
}

/// Cycles through reaction data are traced, so the collector frees them. (A ring of internal
/// promises alone, with no QuickJS object on it, is what `AcyclicShared`'s rule forbids:
/// `with_realm`'s teardown fails on the nodes it leaves.)
#[test]
fn cycles_through_reactions_are_collected() {
    with_realm(|cx| {
        // An internal promise whose pending reaction holds an object that holds the promise
        // (a stream's state and its promises make such cycles).
        let internal = InternalPromise::new();
        let holder = Shared::new(internal.clone());
        internal.react(holder, |_, _, _| Ok(()), |_, _, _| Ok(()), cx);
        // A JS promise whose pending reaction holds the promise and its capability.
        let cap = PromiseCapability::new(cx);
        cap.react(cap.clone(), |_, _, _| Ok(()), |_, _, _| Ok(()), cx)
            .expect("react");
        // A thenable job's resolving functions held by the thenable, which the promise's
        // reaction holds.
        let adopting = InternalPromise::new();
        let thenable = eval(cx, "({ then(f, r) { this.f = f; this.r = r; } })");
        adopting.react(thenable.clone(), |_, _, _| Ok(()), |_, _, _| Ok(()), cx);
        adopting.resolve(thenable, cx).expect("resolve");
        eval(cx, "log = undefined;");
    });
}

/// A microtask still queued when the runtime ends is freed with the job queue.
#[test]
fn queued_microtasks_are_freed_with_the_runtime() {
    let (rt, ctx) = new_runtime_and_realm();
    {
        // SAFETY: as in `with_realm`.
        let mut cx = unsafe { Cx::enter(ctx) };
        let held = eval(&mut cx, "({})");
        queue_microtask(&mut cx, move |_| {
            drop(held);
            Ok(())
        });
    }
    // SAFETY: as in `with_realm`: no `Cx` is alive and no value of the test is left but the
    // one the queued closure holds, which the agent owns.
    unsafe { RealmState::uninstall(ctx) };
    // SAFETY: `ctx` is live; this gives back the count `JS_NewContext` gave us, once.
    unsafe { q::JS_FreeContext(ctx) };
    // SAFETY: as in `with_realm`; this drops the queued closure, freeing `held`.
    unsafe { Agent::uninstall(rt) };
    // SAFETY: `rt` is live and nothing of it is used after. The job entry left in its queue
    // holds only an int (its count) and is freed without running; no object is left.
    unsafe { q::JS_FreeRuntime(rt) };
}

#[test]
#[should_panic(expected = "objects left")]
fn the_leak_check_catches_a_leak() {
    with_realm(|cx| std::mem::forget(eval(cx, "({})")));
}

/// The host's rejection tracker hears of a rejection without a handler, and of the handler
/// that "mark as handled" or a reaction adds later; a promise marked before it is rejected is
/// never reported.
#[test]
fn the_rejection_tracker_sees_mark_as_handled_and_reactions() {
    let (runtime, host) = super::runtime::Runtime::for_tests();
    {
        let mut cx = runtime.main_context();
        let cx = &mut cx;
        let marked_late = promise_rejected_with(Value::from(1), cx).expect("rejected");
        mark_as_handled(&marked_late, cx).expect("mark");
        let reacted_late = promise_rejected_with(Value::from(2), cx).expect("rejected");
        react(&reacted_late, (), |(), _, _| Ok(()), |(), _, _| Ok(()), cx).expect("react");
        let marked_early = PromiseCapability::new(cx);
        mark_as_handled(marked_early.promise(), cx).expect("mark");
        marked_early.reject(Value::from(3), cx).expect("reject");
        let mut errors = 0;
        runtime.run_microtasks(cx, &mut |_, _| errors += 1);
        assert_eq!(errors, 0);
    }
    assert_eq!(*host.rejections.borrow(), [false, true, false, true]);
}

/// Queues a Rust microtask that logs `label` (and throws when `label` starts with `!`).
fn log_microtask(cx: &mut Cx, label: &'static str) {
    queue_microtask(cx, move |cx| {
        push(cx, label);
        if label.starts_with('!') {
            return Err(throw_type_error(label));
        }
        Ok(())
    });
}

/// The job FIFO the probe found is QuickJS's: its entries, read through `RawJobEntry`, are
/// the ones QuickJS's own calls see (how many, which context is first), and consecutive Rust
/// microtasks share one entry. (An entry laid out otherwise fails the probe, and this test
/// at its first assertion.)
#[test]
fn the_job_list_is_where_quickjs_keeps_it() {
    with_realm(|cx| {
        let rt = cx.rt();
        let head = cx.agent().job_list.get();
        assert!(!head.is_null(), "the probe found the job FIFO");
        // `job_list`'s offset in `JSRuntime`: 1,344 with ENABLE_DUMPS (this build), 1,328 in
        // an NDEBUG build.
        let offset = head as usize - rt as usize;
        assert!([1344, 1328].contains(&offset), "offset {offset}");
        assert_eq!(super::job::fifo_entries(cx.agent()), []);
        // A promise job of a second context, then one of this one's.
        // SAFETY: `rt` is live; the context is ours, freed below.
        let other = unsafe { q::JS_NewContext(rt) };
        assert!(!other.is_null());
        let source = c"Promise.resolve().then(() => 1)";
        // SAFETY: `other` is live; the source is NUL-terminated and `len` its length; the
        // result is an owned value, freed at once.
        unsafe {
            let result = q::JS_Eval(
                other,
                source.as_ptr(),
                source.count_bytes() as _,
                c"<other>".as_ptr(),
                q::JS_EVAL_TYPE_GLOBAL as i32,
            );
            q::JS_FreeValue(other, result);
        }
        eval(cx, "Promise.resolve().then(() => log.push('p'));");
        log_microtask(cx, "a");
        log_microtask(cx, "b");
        log_microtask(cx, "c");
        let entries = super::job::fifo_entries(cx.agent());
        let ctx = cx.raw();
        // (`promise_reaction_job` takes 5 arguments.)
        let promise_job = |ctx| super::job::FifoEntry {
            ctx,
            ours: false,
            argc: 5,
            count: None,
        };
        let ours = |count| super::job::FifoEntry {
            ctx,
            ours: true,
            argc: 1,
            count: Some(count),
        };
        assert_eq!(entries, [promise_job(other), promise_job(ctx), ours(3)]);
        // SAFETY: `rt` is live; these read the FIFO's head.
        unsafe {
            assert!(q::JS_IsJobPending(rt));
            assert_eq!(q::JS_GetPendingJobContext(rt), other);
        }
        run_jobs(cx);
        assert_eq!(super::job::fifo_entries(cx.agent()), []);
        // SAFETY: `rt` is live; this reads the FIFO's head.
        assert!(!unsafe { q::JS_IsJobPending(rt) });
        assert_eq!(log(cx), "p a b c");
        // SAFETY: gives back the count `JS_NewContext` gave, once; its jobs ran.
        unsafe { q::JS_FreeContext(other) };
    });
}

/// Queues Rust microtasks and a promise job in the order the two shared-entry tests check:
/// `a` (which queues `a2`, after `e`: it joins the last entry), `!b` and `!d` (which throw),
/// a promise reaction `p` between `!b` and `c`, then `c`, `!d` and `e`: entries of 2 and 3
/// microtasks around the promise job.
fn queue_shared_sequence(cx: &mut Cx) {
    queue_microtask(cx, |cx| {
        push(cx, "a");
        log_microtask(cx, "a2");
        Ok(())
    });
    log_microtask(cx, "!b");
    eval(cx, "Promise.resolve().then(() => log.push('p'));");
    log_microtask(cx, "c");
    log_microtask(cx, "!d");
    log_microtask(cx, "e");
}

/// Under an application's loop (`JS_ExecutePendingJob` one job at a time) an entry shared by
/// several Rust microtasks still runs one microtask per job, in the FIFO's order, and a
/// microtask that throws is its own job's error.
#[test]
fn shared_entries_run_one_microtask_per_job_under_an_application_loop() {
    JOB_ERRORS.with(|e| e.borrow_mut().clear());
    with_realm(|cx| {
        queue_shared_sequence(cx);
        let counts: Vec<_> = super::job::fifo_entries(cx.agent())
            .into_iter()
            .map(|entry| entry.count)
            .collect();
        assert_eq!(counts, [Some(2), None, Some(3)]);
        let mut statuses = Vec::new();
        loop {
            let mut job_ctx = std::ptr::null_mut();
            // SAFETY: as in `run_jobs`.
            let status = unsafe { q::JS_ExecutePendingJob(cx.rt(), &mut job_ctx) };
            if status == 0 {
                break;
            }
            if status < 0 {
                let error = super::core::take_exception(cx).to_string();
                JOB_ERRORS.with(|e| e.borrow_mut().push(error));
            }
            statuses.push(status);
        }
        assert_eq!(statuses, [1, -1, 1, 1, -1, 1, 1]);
        assert_eq!(log(cx), "a !b p c !d e a2");
    });
    let errors = JOB_ERRORS.with(|e| e.borrow_mut().split_off(0));
    assert_eq!(errors, ["TypeError: !b", "TypeError: !d"]);
}

/// In the host's loop an entry's microtasks run as a chain, in the FIFO's order; each error
/// is reported, and the rest still run.
#[test]
fn shared_entries_keep_the_order_and_the_errors_in_the_hosts_loop() {
    let (runtime, _host) = super::runtime::Runtime::for_tests();
    {
        let mut cx = runtime.main_context();
        let cx = &mut cx;
        eval(cx, "var log = [];");
        queue_shared_sequence(cx);
        let mut errors = Vec::new();
        runtime.run_microtasks(cx, &mut |error, _| errors.push(error.to_string()));
        assert_eq!(log(cx), "a !b p c !d e a2");
        assert_eq!(errors, ["TypeError: !b", "TypeError: !d"]);
        assert!(!runtime.has_pending_jobs());
    }
}

/// A chain the deadline stops leaves the rest of its entry at the FIFO's front: they run
/// first when the queue runs again.
#[test]
fn the_rest_of_a_stopped_chain_stays_at_the_front() {
    let (runtime, _host) = super::runtime::Runtime::for_tests();
    {
        let mut cx = runtime.main_context();
        let cx = &mut cx;
        eval(cx, "var log = [];");
        queue_microtask(cx, |cx| {
            push(cx, "a");
            cx.agent().deadline.set(Some(std::time::Instant::now()));
            Ok(())
        });
        log_microtask(cx, "b");
        log_microtask(cx, "c");
        eval(cx, "Promise.resolve().then(() => log.push('p'));");
        runtime.run_microtasks(cx, &mut |_, _| panic!("no error"));
        assert_eq!(log(cx), "a");
        let counts: Vec<_> = super::job::fifo_entries(cx.agent())
            .into_iter()
            .map(|entry| entry.count)
            .collect();
        assert_eq!(counts, [Some(2), None]);
        runtime.set_deadline(None);
        runtime.run_microtasks(cx, &mut |_, _| panic!("no error"));
        assert_eq!(log(cx), "a b c p");
    }
}
