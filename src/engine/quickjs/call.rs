//! Calls into JavaScript, functions made from Rust (our function class, whose `call` hook runs
//! them), the iterator result and array helpers, and the intrinsics captured per realm.

use std::ffi::{c_int, CString};
use std::mem::ManuallyDrop;

use super::core::{
    agent_of, check, native_of, new_string, q, realm_of, throw, KnownAtom, Marker, Native, Trace,
};
use super::intrinsics::Intrinsic;
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

/// How many arguments a call into Rust takes, and [`call`] passes to a function, without an
/// allocation.
const INLINE_ARGS: usize = 8;

/// The `call` hook of our function class: runs the function's [`NativeFunction`].
///
/// # Safety
/// Only QuickJS calls it, from `JS_CallInternal` ([[Call]]) or `JS_CallConstructorInternal`
/// ([[Construct]], `flags` with `JS_CALL_FLAG_CONSTRUCTOR`) in quickjs.c, and guarantees on
/// entry:
/// - it runs on the thread running the runtime, and `ctx` is the caller's context, live for
///   the call (one of this backend's: every context of the runtime is);
/// - `func_obj` is an object of our function class (the class whose `call` hook this is),
///   `this_val` the `this` value (NewTarget on [[Construct]]), and `argv` points to `argc`
///   (>= 0) values; all are borrowed, live for the call (no reference count comes with
///   them), and none is written through `argv` here;
/// - the hook may re-enter the engine (run script, allocate, collect) like any native
///   function.
///
/// It returns an owned value (QuickJS takes its count), or `JS_EXCEPTION` with the exception
/// pending. A panic cannot unwind out of it (it would abort the process): it is caught, and
/// thrown as a TypeError.
pub(crate) unsafe extern "C" fn function_call_hook(
    ctx: *mut q::JSContext,
    func_obj: q::JSValue,
    this_val: q::JSValue,
    argc: c_int,
    argv: *mut q::JSValue,
    flags: c_int,
) -> q::JSValue {
    // SAFETY: `ctx` is live for the call (QuickJS's guarantee on entry); this reads its `rt`.
    let rt = unsafe { q::JS_GetRuntime(ctx) };
    // `func_obj` is live, of `rt`, for the call: `dup_raw`'s contract. So is `this_val`.
    let function = Value::dup_raw(rt, func_obj);
    // What the function runs, borrowed from `function` (which keeps the object, hence its
    // `Native`, alive for the whole call); read once.
    let native = native_of(&function);
    // The function's realm is the current realm while it runs (QuickJS passes the caller's).
    let realm = match native {
        Some(Native::Function(_, realm)) => realm.0,
        _ => ctx,
    };
    // SAFETY: `realm` is live until `cx` is dropped: either the caller's context (live for the
    // call), or the context the function's `Realm` holds a count of, and `function` (declared
    // before `cx`, so dropped after it) keeps the object, its `Native` and that `Realm`
    // alive. Both are contexts of this runtime, whose agent is installed, and every context
    // of the backend has its realm state while it can run script. `cx` is dropped before this
    // hook returns, so it nests inside whatever `Cx` the caller entered.
    let mut cx = unsafe { Cx::enter(realm) };
    // `this_val` and the arguments are borrowed for the call (QuickJS's guarantee on entry),
    // and so are the views of them (`borrowed_raw`), which take no count and are never
    // dropped: no reference count moves, and no allocation is made for up to
    // `INLINE_ARGS` arguments.
    let this = Value::borrowed_raw(rt, this_val);
    let count = usize::try_from(argc).unwrap_or(0);
    // SAFETY: `argv` points to `argc` live values (QuickJS's guarantee on entry) and `i < argc`,
    // so the read is in bounds.
    let arg = |i: usize| Value::borrowed_raw(rt, unsafe { *argv.add(i) });
    // (Only the first `count` slots are written: views need no drop, so the rest stay
    // uninitialized rather than set to `undefined` per call.)
    let mut inline: [std::mem::MaybeUninit<ManuallyDrop<Value>>; INLINE_ARGS] =
        [const { std::mem::MaybeUninit::uninit() }; INLINE_ARGS];
    let spilled: Vec<ManuallyDrop<Value>>;
    let views: &[ManuallyDrop<Value>] = if count <= INLINE_ARGS {
        for (i, slot) in inline.iter_mut().enumerate().take(count) {
            slot.write(arg(i));
        }
        // SAFETY: the first `count` slots (at most `INLINE_ARGS`) were written just above, and
        // `MaybeUninit<T>` has `T`'s layout, so they are `count` initialized views in a row,
        // borrowed for as long as `inline` is.
        unsafe { std::slice::from_raw_parts(inline.as_ptr().cast::<ManuallyDrop<Value>>(), count) }
    } else {
        spilled = (0..count).map(arg).collect();
        &spilled
    };
    // SAFETY: `ManuallyDrop<Value>` is `#[repr(transparent)]` over `Value`, so a slice of one
    // is a slice of the other, with the same length and lifetime (the borrow of `views`).
    let args: &[Value] = unsafe { &*(std::ptr::from_ref(views) as *const [Value]) };
    let constructing = flags & q::JS_CALL_FLAG_CONSTRUCTOR as c_int != 0;
    // A panic must not unwind into quickjs.c (it would abort the process): one that escapes
    // the function (a bug of ours: a broken invariant, a failed debug assertion) becomes a
    // thrown error instead, so the host reports it and the embedding goes on.
    let call = std::panic::AssertUnwindSafe(|| match native {
        Some(Native::Function(NativeFunction::Pointer { f, constructor }, _)) => {
            if *constructor && !constructing {
                f(&Value::undefined(), args, &mut cx)
            } else {
                f(&this, args, &mut cx)
            }
        }
        Some(Native::Function(NativeFunction::Closure(c), _)) => c.call(&this, args, &mut cx),
        _ => Err(throw_type_error("not a function")),
    });
    let result = std::panic::catch_unwind(call).unwrap_or_else(|panic| {
        let message = panic
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        Err(throw_type_error(format!(
            "internal error in a built-in function (a bug of boa_streams): {message}"
        )))
    });
    match result {
        Ok(v) => v.into_raw(),
        Err(e) => throw(&mut cx, e),
    }
}

/// A function object of ours: `length`, then `name` (both { [[Configurable]]: true }), with
/// %Function.prototype% as its prototype.
fn new_function_object(cx: &mut Cx, name: &str, length: usize, native: NativeFunction) -> Object {
    let object = new_bare_function_object(cx, native);
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

/// A function object of ours running `native`, without the `length` and `name` properties a
/// built-in function has: for functions no script can reach, whose two property definitions
/// (each a shape transition) would be most of their cost.
fn new_bare_function_object(cx: &mut Cx, native: NativeFunction) -> Object {
    let constructor = matches!(
        native,
        NativeFunction::Pointer {
            constructor: true,
            ..
        }
    );
    let class = agent_of(cx.rt()).function_class;
    // SAFETY: `cx`'s context is live (`Cx`'s invariant). `JS_GetFunctionProto` returns an
    // owned reference to %Function.prototype%, borrowed by `JS_NewObjectProtoClass` (which
    // takes its own through the new shape) and then given back, once. `raw` is owned, or
    // `JS_EXCEPTION`.
    let raw = unsafe {
        let proto = q::JS_GetFunctionProto(cx.raw());
        let raw = q::JS_NewObjectProtoClass(cx.raw(), proto, class);
        q::JS_FreeValue(cx.raw(), proto);
        raw
    };
    let boxed = Box::new(Native::Function(native, super::Realm::of(cx.raw())));
    // SAFETY: reads the tag only.
    if !unsafe { q::JS_IsException(raw) } {
        // SAFETY: `raw` is the new object of our function class, owned here, with a null
        // opaque: giving it the leaked box is what `Native`'s invariant describes (our class
        // id is not a built-in one, so `JS_SetOpaque` cannot refuse). `cx`'s context is live
        // for `JS_SetConstructorBit`, which only sets the object's flag.
        unsafe {
            q::JS_SetOpaque(raw, Box::into_raw(boxed).cast());
            if constructor {
                q::JS_SetConstructorBit(cx.raw(), raw, true);
            }
        }
    }
    let value = check(cx, raw).unwrap_or_default();
    Object::from_value_unchecked(value)
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

/// A closure as a function object that no script can reach (a promise reaction's handler,
/// which only the promise machinery calls): [`new_closure`] without `length` and `name`.
pub(crate) fn new_hidden_closure<D: Trace + 'static>(
    cx: &mut Cx,
    data: D,
    f: ClosureFn<D>,
) -> Object {
    new_bare_function_object(cx, NativeFunction::Closure(Box::new(Closure { data, f })))
}

/// `? Call(function, this, args)`: a TypeError if `function` is not callable.
pub fn call(function: &Value, this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    // SAFETY: `ctx`'s context is live (`Cx`'s invariant) and `function` a live value of its
    // runtime (`Value`'s invariant); `JS_IsFunction` reads the tag, and for an object its
    // class and the runtime's class table. It runs no script.
    if !function.is_object() || !unsafe { q::JS_IsFunction(ctx.raw(), function.raw()) } {
        return Err(throw_type_error("value is not callable"));
    }
    // The raw arguments: on the stack for a short list (the streams call back with at most
    // three), else in a `Vec`: no allocation per callback.
    let mut inline = [super::core::UNDEFINED; INLINE_ARGS];
    let mut spilled: Vec<q::JSValue>;
    let raw_args: &mut [q::JSValue] = if args.len() <= INLINE_ARGS {
        for (slot, arg) in inline.iter_mut().zip(args) {
            *slot = arg.raw();
        }
        &mut inline[..args.len()]
    } else {
        spilled = args.iter().map(Value::raw).collect();
        &mut spilled
    };
    // QuickJS reads `argc` values from the buffer: a count it cannot take is an error, not a
    // shorter read.
    let Ok(argc) = c_int::try_from(raw_args.len()) else {
        return Err(super::throw_range_error("too many arguments"));
    };
    // SAFETY: `ctx`'s context is live (`Cx`'s invariant); `function`, `this` and the
    // arguments are live values of its runtime (`Value`'s invariant), borrowed for the call:
    // `args` is borrowed for the whole call, so the copies in `raw_args` stay valid, and
    // `raw_args` (a prefix of `inline`, or all of `spilled`) holds exactly `argc` of them. `JS_Call` passes `JS_CALL_FLAG_COPY_ARGV`, so
    // the buffer is only read, and takes no count. Script runs, with `ctx` borrowed mutably.
    // The result is owned, or `JS_EXCEPTION`, as `check` takes it.
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

/// `? Get(object, key)` of a property of an object script gave, whose getter may be script
/// (nothing to work around on QuickJS: a plain Get).
pub fn get_script_property(object: &Object, key: &str, ctx: &mut Cx) -> JsResult<Value> {
    object.get(key, ctx)
}

/// `? Get(object, name)` for a name the agent keeps the atom of: may run script (a getter, a
/// proxy trap). The read makes no string and no atom.
pub(crate) fn get_known(object: &Object, name: KnownAtom, ctx: &mut Cx) -> JsResult<Value> {
    let atom = ctx.agent().known_atom(ctx, name);
    if atom == 0 {
        // Out of memory making the name: the exception is pending, and thrown.
        return Err(super::core::take_exception(ctx));
    }
    // SAFETY: `ctx`'s context is live (`Cx`'s invariant); the object is a live value of its
    // runtime (`Value`'s invariant), borrowed for the call, and `atom` the agent's, live until
    // the runtime ends (borrowed, not freed here). A getter or a proxy trap may run script:
    // `ctx` is borrowed mutably, so nothing the caller holds depends on the heap staying as it
    // is. The result is owned, or `JS_EXCEPTION`, as `check` takes it.
    let raw = unsafe { q::JS_GetProperty(ctx.raw(), object.as_value().raw(), atom) };
    check(ctx, raw)
}

/// IteratorComplete(iterResult) (<https://tc39.es/ecma262/#sec-iteratorcomplete>).
pub fn iterator_complete(iter_result: &Object, ctx: &mut Cx) -> JsResult<bool> {
    // 1. Return ToBoolean(? Get(iterResult, "done")).
    Ok(get_known(iter_result, KnownAtom::Done, ctx)?.to_boolean())
}

/// IteratorValue(iterResult) (<https://tc39.es/ecma262/#sec-iteratorvalue>).
pub fn iterator_value(iter_result: &Object, ctx: &mut Cx) -> JsResult<Value> {
    // 1. Return ? Get(iterResult, "value").
    get_known(iter_result, KnownAtom::Value, ctx)
}

/// CreateIteratorResultObject(value, done).
pub fn create_iter_result_object(value: Value, done: bool, ctx: &mut Cx) -> Value {
    crate::engine::count_objects(1);
    let value_atom = ctx.agent().known_atom(ctx, KnownAtom::Value);
    let done_atom = ctx.agent().known_atom(ctx, KnownAtom::Done);
    // SAFETY: `ctx`'s context is live (`Cx`'s invariant); the result is owned, or
    // `JS_EXCEPTION`, as `check` takes it.
    let raw = unsafe { q::JS_NewObject(ctx.raw()) };
    let Ok(object) = check(ctx, raw) else {
        return Value::undefined();
    };
    for (atom, v) in [(value_atom, value), (done_atom, Value::from(done))] {
        if atom == 0 {
            // Out of memory making the name: the property is left out, as before.
            drop(super::core::take_exception(ctx));
            continue;
        }
        // SAFETY: `ctx`'s context is live (`Cx`'s invariant) and `object` a live object of its
        // runtime (`Value`'s invariant), borrowed. `JS_DefinePropertyValue` takes ownership of
        // the value (it frees it even on failure): `into_raw` hands over the count `v` owned.
        // `atom` is the agent's, live until the runtime ends (borrowed, not freed here).
        // CreateDataProperty on a new ordinary object runs no script and cannot fail (short
        // of memory).
        unsafe {
            q::JS_DefinePropertyValue(ctx.raw(), object.raw(), atom, v.into_raw(), C_W_E);
        }
    }
    object
}

/// `JS_PROP_C_W_E`: a data property as CreateDataProperty makes it.
const C_W_E: c_int = q::JS_PROP_C_W_E as c_int;

/// A new object (ordinary, of `proto`, or of %Object.prototype% for `None`) with the data
/// properties `properties` (key, value, flags) defined in order; `undefined` if QuickJS runs
/// out of memory. Defining data properties on a new ordinary object runs no script and cannot
/// fail otherwise.
fn new_object_with(
    ctx: &mut Cx,
    proto: Option<&Value>,
    properties: &[(&[u8], Value, c_int)],
) -> Value {
    let raw = match proto {
        // SAFETY: `ctx`'s context is live (`Cx`'s invariant) and `proto` a live value of its
        // runtime (`Value`'s invariant), borrowed. The result is owned, or `JS_EXCEPTION`, as
        // `check` takes it.
        Some(proto) => unsafe { q::JS_NewObjectProto(ctx.raw(), proto.raw()) },
        // SAFETY: as above, without a prototype argument.
        None => unsafe { q::JS_NewObject(ctx.raw()) },
    };
    let Ok(object) = check(ctx, raw) else {
        return Value::undefined();
    };
    for (key, v, flags) in properties {
        if let Ok(atom) = super::core::ascii_atom(ctx, key) {
            // SAFETY: `ctx`'s context is live (`Cx`'s invariant) and `object` a live object of
            // its runtime (`Value`'s invariant), borrowed. `JS_DefinePropertyValue` takes
            // ownership of the value (it frees it even on failure): `into_raw` hands over the
            // count a clone of `v` owns. `atom` is ours, given back once after the call.
            // Defining a data property on a new ordinary object runs no script.
            unsafe {
                q::JS_DefinePropertyValue(
                    ctx.raw(),
                    object.raw(),
                    atom,
                    v.clone().into_raw(),
                    *flags,
                );
                q::JS_FreeAtom(ctx.raw(), atom);
            }
        }
    }
    object
}

/// Objects that keep the shapes of what is made per chunk in QuickJS's shape cache, for a
/// realm's [`RealmState::anchors`](super::core::RealmState).
///
/// QuickJS finds the shape an object takes when a property is added in a hash of the live
/// shapes; a shape is freed with the last object that has it. An object made and dropped per
/// chunk, whose properties are added one by one, therefore cloned the shape of each step and
/// freed it again, every time: for a read loop, three shape clones per chunk (the read's
/// `{ value, done }` result, `{ value }` on the way to it, and a promise's resolving
/// functions, which QuickJS gives `length`, then `name`: the function shape with `length`
/// alone is held by no live object). Holding one object of each step's shape keeps them all
/// hashed. They are unreachable from script, hold nothing, and go with the realm.
///
/// The same holds for an object's first shape, found by its prototype alone: a `Uint8Array`
/// and its `ArrayBuffer` made per chunk (by a source's `pull`, or a byte stream's views and
/// transfers) and dropped before the next one is made took both first shapes afresh and freed
/// them again per chunk. An empty `Uint8Array` (which holds its empty `ArrayBuffer`) keeps
/// both.
pub(crate) fn shape_anchors(cx: &mut Cx) -> Vec<Value> {
    let undefined = Value::undefined;
    // SAFETY: `cx`'s context is live (`Cx`'s invariant); the result is an owned value of its
    // runtime (a new count of %Function.prototype%).
    let function_proto = Value::from_raw(cx.rt(), unsafe { q::JS_GetFunctionProto(cx.raw()) });
    let configurable = q::JS_PROP_CONFIGURABLE as c_int;
    vec![
        new_object_with(cx, None, &[(b"value", undefined(), C_W_E)]),
        new_object_with(
            cx,
            None,
            &[
                (b"value", undefined(), C_W_E),
                (b"done", false.into(), C_W_E),
            ],
        ),
        new_object_with(
            cx,
            Some(&function_proto),
            &[(b"length", 1.into(), configurable)],
        ),
        // SAFETY: `cx`'s context is live (`Cx`'s invariant); `JS_NewUint8ArrayCopy` reads no
        // bytes for a length of 0 and runs no script (no new target: the realm's prototypes).
        // The result is owned, or `JS_EXCEPTION`, which `check` takes (out of memory: no
        // anchor, `undefined`).
        check(cx, unsafe {
            q::JS_NewUint8ArrayCopy(cx.raw(), std::ptr::null(), 0)
        })
        .unwrap_or_default(),
    ]
}

/// CreateArrayFromList(values).
pub fn create_array_from_list(values: impl IntoIterator<Item = Value>, ctx: &mut Cx) -> Object {
    crate::engine::count_objects(1);
    // The elements handed to the new array at once (as a fast array's values, which is what
    // defining each in order makes of a new array).
    let raws: Vec<q::JSValue> = values.into_iter().map(Value::into_raw).collect();
    if let Ok(count) = c_int::try_from(raws.len()) {
        // SAFETY: `ctx`'s context is live (`Cx`'s invariant); `raws` holds `count` owned values
        // of its runtime, whose counts `JS_NewArrayFrom` takes over (into the array, or freed
        // on failure), and the vector's buffer is only freed, not read, after the call. The
        // result is owned, or `JS_EXCEPTION` (out of memory), as `check` takes it.
        let raw = unsafe { q::JS_NewArrayFrom(ctx.raw(), count, raws.as_ptr()) };
        return Object::from_value_unchecked(check(ctx, raw).unwrap_or_default());
    }
    let rt = ctx.rt();
    let values = raws.into_iter().map(|raw| Value::from_raw(rt, raw));
    // SAFETY: `ctx`'s context is live (`Cx`'s invariant); the result is owned, or
    // `JS_EXCEPTION`, as `check` takes it.
    let raw = unsafe { q::JS_NewArray(ctx.raw()) };
    let array = check(ctx, raw).unwrap_or_default();
    let object = Object::from_value_unchecked(array);
    for (i, v) in values.into_iter().enumerate() {
        let index = u32::try_from(i).unwrap_or(u32::MAX);
        // SAFETY: `ctx`'s context is live (`Cx`'s invariant) and `object` a live value of its
        // runtime, borrowed (should `JS_NewArray` have failed it is `undefined`, and the call
        // throws a TypeError instead). `JS_DefinePropertyValueUint32` takes ownership of the
        // value, even on failure: `into_raw` hands over the count `v` owned. Defining an
        // element of a new array runs no script.
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

/// Captures every backend file's intrinsics in the current realm (see `RealmState`).
pub(crate) fn capture_intrinsics(cx: &mut Cx) -> JsResult<()> {
    for &which in Intrinsic::ALL {
        let value = eval_internal(cx, which.source())?;
        let mut table = realm_of(cx.raw()).intrinsics.borrow_mut();
        // Slot order is `ALL`'s order.
        debug_assert_eq!(table.len(), which as usize);
        table.push(value);
    }
    Ok(())
}

/// Evaluates backend-internal source text in the current realm (never user input).
pub(crate) fn eval_internal(cx: &mut Cx, source: &str) -> JsResult<Value> {
    let text = CString::new(source).map_err(|_| throw_type_error("NUL in source"))?;
    // SAFETY: `cx`'s context is live (`Cx`'s invariant). `text` is `source.len()` bytes of
    // UTF-8 followed by a NUL (a `CString` of `source`, which has no interior NUL), as the
    // parser requires (it reads up to the terminator); the file name is a static C string.
    // Both are only read during the call. The result is owned, or `JS_EXCEPTION`.
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
