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
/// AD-HOC: through the realm's call trampoline ([`Trampolines`]) (up to three arguments), so that an exception
/// thrown several JS frames deep inside the callback leaves Boa's VM stack as it found it. Boa
/// 0.22's `JsObject::call` does not truncate the stack when the frame it entered rethrows an
/// exception that a deeper frame threw; the caller's pending call operands then sit below the
/// leftovers, and script that catches nothing sees a TypeError ("not a callable function")
/// from the next call of the frame that called us (ENGINE_BUGS.md 6). A JS frame entered from
/// Rust that rethrows itself does truncate, so the trampoline's own frame cleans up.
pub fn call_object(
    function: &Object,
    this: &Value,
    args: &[Value],
    ctx: &mut Cx,
) -> JsResult<Value> {
    if args.len() <= 3 {
        if let Some(t) = Trampolines::get(ctx) {
            let arg = |i: usize| args.get(i).map(Value::js).cloned().unwrap_or_default();
            let js_args = [
                JsValue::from(function.js().clone()),
                this.js().clone(),
                JsValue::from(args.len()),
                arg(0),
                arg(1),
                arg(2),
            ];
            return t
                .call
                .call(&JsValue::undefined(), &js_args, ctx)
                .map(Value::from)
                .map_err(Into::into);
        }
    }
    function.call(this, args, ctx)
}

/// `? Get(object, key)` of a property of an object script gave (a dictionary's member, say),
/// whose getter may be script.
///
/// AD-HOC: through the realm's get trampoline `(o, k) => o[k]`, for the reason given at
/// [`call_object`]: a getter that rethrows an exception from a deeper frame would otherwise
/// leave Boa's VM stack out of step with its caller (ENGINE_BUGS.md 6).
pub fn get_script_property(object: &Object, key: &str, ctx: &mut Cx) -> JsResult<Value> {
    match Trampolines::get(ctx) {
        Some(t) => t
            .get
            .call(
                &JsValue::undefined(),
                &[
                    JsValue::from(object.js().clone()),
                    JsValue::from(boa_engine::JsString::from(key)),
                ],
                ctx,
            )
            .map(Value::from)
            .map_err(Into::into),
        None => object.get(boa_engine::JsString::from(key), ctx),
    }
}

/// A realm's trampolines, JS functions whose frame, entered from Rust, absorbs what Boa leaves
/// on its VM stack when a deeper frame throws (see [`call_object`]):
/// - `call`: `(f, t, n, a, b, c) => h(f, t, n, a, b, c)`, where the built-in `h` performs
///   `Call(f, t, « the first n of a, b, c »)`;
/// - `get`: `(o, k) => o[k]`.
///
/// Made once per realm, on first use, by a script that only defines them (no script of the
/// user's runs, and nothing is looked up on a global).
#[derive(Trace, Finalize, JsData)]
struct Trampolines {
    call: JsObject,
    get: JsObject,
}

impl Trampolines {
    fn get(ctx: &mut Cx) -> Option<Trampolines> {
        let realm = ctx.realm().clone();
        if let Some(t) = realm.host_defined().get::<Trampolines>() {
            return Some(Trampolines {
                call: t.call.clone(),
                get: t.get.clone(),
            });
        }
        let made = Self::make(ctx)?;
        realm.host_defined_mut().insert(Trampolines {
            call: made.call.clone(),
            get: made.get.clone(),
        });
        Some(made)
    }

    fn make(ctx: &mut Cx) -> Option<Trampolines> {
        let outer = ctx
            .eval(Source::from_bytes(
                "(function (h) { 'use strict'; return [\
                 function (f, t, n, a, b, c) { return h(f, t, n, a, b, c); },\
                 function (o, k) { return o[k]; }]; })",
            ))
            .ok()?;
        let h = NativeFunction::from_fn_ptr(|_, args, ctx| {
            let arg = |i: usize| args.get(i).cloned().unwrap_or_default();
            let function = arg(0);
            let f = function
                .as_callable()
                .ok_or_else(|| JsNativeError::typ().with_message("value is not callable"))?;
            let n = arg(2).as_number().unwrap_or(0.0) as usize;
            let rest = args.get(3..3 + n.min(3)).unwrap_or(&[]);
            f.call(&arg(1), rest, ctx)
        })
        .to_js_function(ctx.realm());
        let pair = outer
            .as_callable()?
            .call(&JsValue::undefined(), &[h.into()], ctx)
            .ok()?;
        let pair = pair.as_object()?;
        let call = pair.get(0, ctx).ok()?.as_object()?;
        let get = pair.get(1, ctx).ok()?.as_object()?;
        Some(Trampolines { call, get })
    }
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
