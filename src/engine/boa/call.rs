//! Calls into JavaScript.

use super::JsResult;
use super::{Cx, Object, Value};
use boa_engine::{JsData, JsNativeError, JsObject, JsValue, NativeFunction, Source};
use boa_gc::{Finalize, Trace};

/// Calls a JS function value with `this` and arguments.
pub fn call(function: &Value, this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    match function.as_callable() {
        Some(f) => call_object(&Object::from_js(f.clone()), this, args, ctx),
        None => Err(JsNativeError::typ()
            .with_message("value is not callable")
            .into()),
    }
}

/// Calls a callable object (its [[Call]]): a user callback, iterator method or getter.
///
/// AD-HOC: while script frames are on Boa's VM stack (script called the operation that calls
/// back), the call goes through the realm's call trampoline ([`Trampolines`]), so that an
/// exception thrown several JS frames deep inside the callback leaves the VM stack as it found
/// it. Boa 0.22's `JsObject::call` does not truncate the stack when the frame it entered
/// rethrows an exception that a deeper frame threw; the caller's pending call operands then
/// sit below the leftovers, and script that catches nothing sees a TypeError ("not a callable
/// function") from its next call (ENGINE_BUGS.md 6). A JS frame entered from Rust that rethrows
/// itself does truncate, so the trampoline's own frame cleans up. With no script frame (a
/// callback from a job: a pipe's write, a reaction's pull), nothing pending can be disturbed,
/// and the call is direct: the trampoline costs a JS frame and a native call per callback.
pub fn call_object(
    function: &Object,
    this: &Value,
    args: &[Value],
    ctx: &mut Cx,
) -> JsResult<Value> {
    if args.len() < ARITIES && ctx.stack_trace().next().is_some() {
        if let Some((trampoline, h)) = Trampolines::get(ctx, args.len()) {
            let mut js_args = [const { JsValue::undefined() }; ARITIES + 2];
            js_args[0] = h.into();
            js_args[1] = function.js().clone().into();
            js_args[2] = this.js().clone();
            for (slot, arg) in js_args[3..].iter_mut().zip(args) {
                *slot = arg.js().clone();
            }
            return trampoline
                .call(&JsValue::undefined(), &js_args[..args.len() + 3], ctx)
                .map(Value::from)
                .map_err(Into::into);
        }
    }
    function.call(this, args, ctx)
}

/// `? Get(object, key)` of a property of an object script gave (a dictionary's member, say),
/// whose getter may be script.
///
/// AD-HOC: while script frames are on the VM stack, through the realm's get trampoline
/// `(o, k) => o[k]`, for the reason given at [`call_object`]: a getter that rethrows an
/// exception from a deeper frame would otherwise leave Boa's VM stack out of step with its
/// caller (ENGINE_BUGS.md 6).
pub fn get_script_property(object: &Object, key: &str, ctx: &mut Cx) -> JsResult<Value> {
    if ctx.stack_trace().next().is_some() {
        if let Some((get, _)) = Trampolines::get(ctx, GET) {
            return get
                .call(
                    &JsValue::undefined(),
                    &[
                        JsValue::from(object.js().clone()),
                        JsValue::from(boa_engine::JsString::from(key)),
                    ],
                    ctx,
                )
                .map(Value::from)
                .map_err(Into::into);
        }
    }
    object.get(boa_engine::JsString::from(key), ctx)
}

/// Calls with fewer arguments than this go through a call trampoline.
const ARITIES: usize = 4;
/// The index of the get trampoline in [`Trampolines`].
const GET: usize = ARITIES;

/// A realm's trampolines, JS functions whose frame, entered from Rust, absorbs what Boa leaves
/// on its VM stack when a deeper frame throws (see [`call_object`]): for each arity n < 4,
/// `(h, f, t, a1, …, an) => h(f, t, a1, …, an)`, where the built-in `h` performs `Call(f, t,
/// « a1, …, an »)`; then `(o, k) => o[k]`.
///
/// Made once per realm, on first use, by a script that only defines them (no script of the
/// user's runs, and nothing is looked up on a global).
#[derive(Trace, Finalize, JsData)]
struct Trampolines {
    functions: [JsObject; ARITIES + 1],
    /// The built-in that performs the call, passed to the call trampolines as their first
    /// argument.
    h: JsObject,
}

impl Trampolines {
    /// The realm's trampoline at `index` (an arity, or [`GET`]), and `h`, made on first use.
    fn get(ctx: &mut Cx, index: usize) -> Option<(JsObject, JsObject)> {
        let realm = ctx.realm().clone();
        if let Some(t) = realm.host_defined().get::<Trampolines>() {
            return Some((t.functions.get(index)?.clone(), t.h.clone()));
        }
        let made = Self::make(ctx)?;
        let wanted = (made.functions.get(index)?.clone(), made.h.clone());
        realm.host_defined_mut().insert(made);
        Some(wanted)
    }

    fn make(ctx: &mut Cx) -> Option<Trampolines> {
        // `h` is an argument, not a captured binding: the trampolines need no environment.
        let list = ctx
            .eval(Source::from_bytes(
                "[function (h, f, t) { 'use strict'; return h(f, t); },\
                 function (h, f, t, a) { 'use strict'; return h(f, t, a); },\
                 function (h, f, t, a, b) { 'use strict'; return h(f, t, a, b); },\
                 function (h, f, t, a, b, c) { 'use strict'; return h(f, t, a, b, c); },\
                 function (o, k) { 'use strict'; return o[k]; }]",
            ))
            .ok()?;
        let list = list.as_object()?;
        let mut item = |i: u32| list.get(i, &mut *ctx).ok()?.as_object();
        let functions = [item(0)?, item(1)?, item(2)?, item(3)?, item(4)?];
        let h = NativeFunction::from_fn_ptr(|_, args, ctx| {
            let function = args.first().cloned().unwrap_or_default();
            let f = function
                .as_callable()
                .ok_or_else(|| JsNativeError::typ().with_message("value is not callable"))?;
            let this = args.get(1).cloned().unwrap_or_default();
            f.call(&this, args.get(2..).unwrap_or(&[]), ctx)
        })
        .to_js_function(ctx.realm());
        Some(Trampolines {
            functions,
            h: h.into(),
        })
    }
}

/// IteratorComplete(iterResult) (<https://tc39.es/ecma262/#sec-iteratorcomplete>).
pub fn iterator_complete(iter_result: &Object, ctx: &mut Cx) -> JsResult<bool> {
    // 1. Return ToBoolean(? Get(iterResult, "done")).
    Ok(iter_result
        .get(super::string::js_string!("done"), ctx)?
        .to_boolean())
}

/// IteratorValue(iterResult) (<https://tc39.es/ecma262/#sec-iteratorvalue>).
pub fn iterator_value(iter_result: &Object, ctx: &mut Cx) -> JsResult<Value> {
    // 1. Return ? Get(iterResult, "value").
    iter_result.get(super::string::js_string!("value"), ctx)
}

/// <https://tc39.es/ecma262/#sec-createiterresultobject>: `{ value, done }`, an ordinary object
/// of the current realm with two data properties (no script runs).
pub fn create_iter_result_object(value: Value, done: bool, ctx: &mut Cx) -> Value {
    crate::engine::count_objects(1);
    boa_engine::builtins::iterable::create_iter_result_object(value.into_js(), done, ctx).into()
}

/// <https://tc39.es/ecma262/#sec-createarrayfromlist>: a new Array of the current realm holding
/// `values` (no script runs).
pub fn create_array_from_list(values: impl IntoIterator<Item = Value>, ctx: &mut Cx) -> Object {
    crate::engine::count_objects(1);
    boa_engine::object::builtins::JsArray::from_iter(values.into_iter().map(Value::into_js), ctx)
        .into()
}

/// A built-in function (not a constructor) of the current realm, closing over traced `data`:
/// calling it runs `f(&data, this, args)`. What the spec's "abstract closures" made into
/// function objects become (a promise's resolving functions, for one).
pub(crate) fn new_closure<D: crate::engine::Trace + 'static>(
    ctx: &mut Cx,
    name: &str,
    length: usize,
    data: D,
    f: fn(&D, &Value, &[Value], &mut Cx) -> JsResult<Value>,
) -> Object {
    let function = boa_engine::NativeFunction::from_copy_closure_with_captures(
        move |this, args, data: &D, ctx| {
            f(
                data,
                Value::from_js_ref(this),
                Value::from_js_slice(args),
                ctx,
            )
            .map(Value::into_js)
            .map_err(Into::into)
        },
        data,
    );
    crate::engine::count_objects(1);
    let realm = ctx.realm().clone();
    boa_engine::object::FunctionObjectBuilder::new(&realm, function)
        .name(boa_engine::JsString::from(name))
        .length(length)
        .build()
        .into()
}
