//! Calls into JavaScript, functions made from Rust (our function class, whose `call` hook runs
//! them), the iterator result and array helpers, and the intrinsics captured per realm.

use std::ffi::{c_int, CString};

use super::core::{
    agent_of, check, native_of, new_string, q, realm_of, throw, Marker, Native, Trace,
};
use super::{throw_type_error, Cx, JsResult, NativeFunctionPointer, Object, Value};

/// A closure's behaviour: its captured data, `this`, the arguments, the context.
pub(crate) type ClosureFn<D> = fn(&D, &Value, &[Value], &mut Cx) -> JsResult<Value>;

/// What a function object of ours runs.
pub(crate) enum NativeFunction {
    /// A native function pointer; a constructor's `this` is NewTarget (`undefined` on
    /// [[Call]]).
    Pointer {
        f: NativeFunctionPointer,
        constructor: bool,
    },
    /// A closure over traced data.
    Closure(Box<dyn ErasedClosure>),
}

/// A closure with its data's type erased.
pub(crate) trait ErasedClosure {
    fn call(&self, this: &Value, args: &[Value], cx: &mut Cx) -> JsResult<Value>;
    fn trace(&self, marker: &mut Marker);
}

struct Closure<D: Trace + 'static> {
    data: D,
    f: ClosureFn<D>,
}

impl<D: Trace + 'static> ErasedClosure for Closure<D> {
    fn call(&self, this: &Value, args: &[Value], cx: &mut Cx) -> JsResult<Value> {
        (self.f)(&self.data, this, args, cx)
    }
    fn trace(&self, marker: &mut Marker) {
        self.data.trace(marker);
    }
}

impl NativeFunction {
    pub(crate) fn trace(&self, marker: &mut Marker) {
        if let Self::Closure(c) = self {
            c.trace(marker);
        }
    }
}

/// The `call` hook of our function class.
pub(crate) unsafe extern "C" fn function_call_hook(
    ctx: *mut q::JSContext,
    func_obj: q::JSValue,
    this_val: q::JSValue,
    argc: c_int,
    argv: *mut q::JSValue,
    flags: c_int,
) -> q::JSValue {
    let rt = q::JS_GetRuntime(ctx);
    let function = Value::dup_raw(rt, func_obj);
    // The function's realm is the current realm while it runs (QuickJS passes the caller's).
    let realm = match native_of(&function) {
        Some(Native::Function(_, realm)) => realm.0,
        _ => ctx,
    };
    let mut cx = Cx::enter(realm);
    let this = Value::dup_raw(rt, this_val);
    let count = usize::try_from(argc).unwrap_or(0);
    let args: Vec<Value> = (0..count)
        .map(|i| Value::dup_raw(rt, *argv.add(i)))
        .collect();
    let constructing = flags & q::JS_CALL_FLAG_CONSTRUCTOR as c_int != 0;
    let result = match native_of(&function) {
        Some(Native::Function(NativeFunction::Pointer { f, constructor }, _)) => {
            let this = if *constructor && !constructing {
                Value::undefined()
            } else {
                this
            };
            f(&this, &args, &mut cx)
        }
        Some(Native::Function(NativeFunction::Closure(c), _)) => c.call(&this, &args, &mut cx),
        _ => Err(throw_type_error("not a function")),
    };
    match result {
        Ok(v) => v.into_raw(),
        Err(e) => throw(&mut cx, e),
    }
}

/// A function object of ours: `length`, then `name` (both { [[Configurable]]: true }), with
/// %Function.prototype% as its prototype.
fn new_function_object(cx: &mut Cx, name: &str, length: usize, native: NativeFunction) -> Object {
    let constructor = matches!(
        native,
        NativeFunction::Pointer {
            constructor: true,
            ..
        }
    );
    // SAFETY: a live context; the new object owns the boxed `Native`.
    let value = unsafe {
        let class = agent_of(cx.rt()).function_class;
        let proto = q::JS_GetFunctionProto(cx.raw());
        let raw = q::JS_NewObjectProtoClass(cx.raw(), proto, class);
        q::JS_FreeValue(cx.raw(), proto);
        let boxed = Box::new(Native::Function(native, super::Realm::of(cx.raw())));
        if !q::JS_IsException(raw) {
            q::JS_SetOpaque(raw, Box::into_raw(boxed).cast());
            if constructor {
                q::JS_SetConstructorBit(cx.raw(), raw, true);
            }
        }
        check(cx, raw).unwrap_or_default()
    };
    let object = Object::from_value_unchecked(value);
    let configurable = |v: Value| {
        super::PropertyDescriptor::builder()
            .value(v)
            .writable(false)
            .enumerable(false)
            .configurable(true)
    };
    let _ = object.define_property_or_throw("length", configurable(Value::from(length)), cx);
    let name = new_string(cx, name);
    let _ = object.define_property_or_throw("name", configurable(name), cx);
    object
}

/// A built-in function (not a constructor) running `f`.
pub(crate) fn new_function(
    cx: &mut Cx,
    name: &str,
    length: usize,
    f: NativeFunctionPointer,
) -> Object {
    new_function_object(
        cx,
        name,
        length,
        NativeFunction::Pointer {
            f,
            constructor: false,
        },
    )
}

/// A built-in constructor running `f` (its `this` is NewTarget, `undefined` on [[Call]]).
pub(crate) fn new_constructor(
    cx: &mut Cx,
    name: &str,
    length: usize,
    f: NativeFunctionPointer,
) -> Object {
    new_function_object(
        cx,
        name,
        length,
        NativeFunction::Pointer {
            f,
            constructor: true,
        },
    )
}

/// A built-in function (not a constructor) closing over traced `data`.
pub(crate) fn new_closure<D: Trace + 'static>(
    cx: &mut Cx,
    name: &str,
    length: usize,
    data: D,
    f: ClosureFn<D>,
) -> Object {
    new_function_object(
        cx,
        name,
        length,
        NativeFunction::Closure(Box::new(Closure { data, f })),
    )
}

/// `? Call(function, this, args)`: a TypeError if `function` is not callable.
pub fn call(function: &Value, this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    if !function.is_callable() {
        return Err(throw_type_error("value is not callable"));
    }
    let mut raw_args: Vec<q::JSValue> = args.iter().map(Value::raw).collect();
    let argc = c_int::try_from(raw_args.len()).unwrap_or(c_int::MAX);
    // SAFETY: a live context and values; JS_Call does not take ownership of its arguments.
    let raw = unsafe {
        q::JS_Call(
            ctx.raw(),
            function.raw(),
            this.raw(),
            argc,
            raw_args.as_mut_ptr(),
        )
    };
    check(ctx, raw)
}

/// `? Call(function, this, args)` on an object.
pub fn call_object(
    function: &Object,
    this: &Value,
    args: &[Value],
    ctx: &mut Cx,
) -> JsResult<Value> {
    call(function.as_value(), this, args, ctx)
}

/// CreateIteratorResultObject(value, done).
pub fn create_iter_result_object(value: Value, done: bool, ctx: &mut Cx) -> Value {
    crate::engine::count_objects(1);
    // SAFETY: a live context.
    let raw = unsafe { q::JS_NewObject(ctx.raw()) };
    let Ok(object) = check(ctx, raw) else {
        return Value::undefined();
    };
    // CreateDataProperty on a new ordinary object cannot fail (short of memory).
    for (key, v) in [(&b"value"[..], value), (&b"done"[..], Value::from(done))] {
        if let Ok(atom) = super::core::ascii_atom(ctx, key) {
            // SAFETY: a live context and object; JS_DefinePropertyValue takes the value.
            unsafe {
                q::JS_DefinePropertyValue(
                    ctx.raw(),
                    object.raw(),
                    atom,
                    v.into_raw(),
                    q::JS_PROP_C_W_E as c_int,
                );
                q::JS_FreeAtom(ctx.raw(), atom);
            }
        }
    }
    object
}

/// CreateArrayFromList(values).
pub fn create_array_from_list(values: impl IntoIterator<Item = Value>, ctx: &mut Cx) -> Object {
    crate::engine::count_objects(1);
    // SAFETY: a live context.
    let raw = unsafe { q::JS_NewArray(ctx.raw()) };
    let array = check(ctx, raw).unwrap_or_default();
    let object = Object::from_value_unchecked(array);
    for (i, v) in values.into_iter().enumerate() {
        let index = u32::try_from(i).unwrap_or(u32::MAX);
        // SAFETY: a live context; JS_DefinePropertyValueUint32 takes ownership of the value.
        unsafe {
            q::JS_DefinePropertyValueUint32(
                ctx.raw(),
                object.raw(),
                index,
                v.into_raw(),
                q::JS_PROP_C_W_E as c_int,
            );
        }
    }
    object
}

/// The intrinsics of this file's users: `name` → a JavaScript expression, evaluated once per
/// realm before any script runs.
const INTRINSICS: &[(&str, &str)] = &[
    ("Symbol.iterator", "Symbol.iterator"),
    ("Symbol.asyncIterator", "Symbol.asyncIterator"),
    ("Symbol.toStringTag", "Symbol.toStringTag"),
    ("Error.prototype", "Error.prototype"),
    ("Object.prototype", "Object.prototype"),
    (
        "AsyncIteratorPrototype",
        "Object.getPrototypeOf(Object.getPrototypeOf((async function*(){}).prototype))",
    ),
];

/// Captures every backend file's intrinsics in the current realm (see `RealmState`).
pub(crate) fn capture_intrinsics(cx: &mut Cx) -> JsResult<()> {
    let lists: [&[(&str, &str)]; 5] = [
        INTRINSICS,
        super::buffer::INTRINSICS,
        super::clone::INTRINSICS,
        super::promise::INTRINSICS,
        super::webidl::INTRINSICS,
    ];
    for &(name, expression) in lists.iter().flat_map(|l| l.iter()) {
        let value = eval_internal(cx, expression)?;
        realm_of(cx.raw())
            .intrinsics
            .borrow_mut()
            .insert(name, value);
    }
    Ok(())
}

/// Evaluates backend-internal source text in the current realm (never user input).
pub(crate) fn eval_internal(cx: &mut Cx, source: &str) -> JsResult<Value> {
    let text = CString::new(source).map_err(|_| throw_type_error("NUL in source"))?;
    // SAFETY: a live context; the text is NUL-terminated.
    let raw = unsafe {
        q::JS_Eval(
            cx.raw(),
            text.as_ptr(),
            source.len() as _,
            c"<boa_streams>".as_ptr(),
            q::JS_EVAL_TYPE_GLOBAL as c_int,
        )
    };
    check(cx, raw)
}
