//! [`Value`]: one reference to a QuickJS `JSValue`, with its runtime.

use super::core::{check, q, Marker, Trace, NULL, UNDEFINED};
use super::{Cx, JsResult, JsString, NativeObject, Object};
use std::mem::ManuallyDrop;

/// A JavaScript value.
///
/// # Invariant
/// What every `unsafe` block that passes a `Value` to QuickJS relies on (cited as "`Value`'s
/// invariant"):
/// 1. If `rt` is null, `raw` has no reference count (`JS_VALUE_HAS_REF_COUNT` is false:
///    undefined, null, a boolean, a number, ...), and the payload member its tag is read
///    through is initialized (the `int32` of an int or a boolean, the `float64` of a float).
/// 2. If `rt` is non-null, `raw` is a reference-counted value (a string, a rope, a symbol, an
///    object, a BigInt) of the runtime `rt`, whose pointer QuickJS wrote with `JS_MKPTR`, and
///    this `Value` owns exactly one of its reference counts: what it points to stays
///    allocated while the `Value` lives, and `Drop` gives the count back.
/// 3. The runtime outlives the value, and the value is only used on the runtime's thread (a
///    `Value` holds raw pointers, so it is neither `Send` nor `Sync`). The backend drops every
///    value it keeps before `JS_FreeRuntime` (the host frees the agent's queues and data, then
///    the realms' state, then the contexts); code that gets a value keeps it no longer than
///    the runtime (the type does not enforce it: a `Value` has no lifetime).
/// 4. A value is only handed to QuickJS with a context of its own runtime (on a thread with
///    several runtimes, values of one are never used under another's `Cx`): not checked
///    either, but true of every runtime the host makes (each has its own values).
///
/// [`Value::from_raw`] and [`Value::dup_raw`] establish 1 and 2 from their callers' promises.
pub struct Value {
    raw: q::JSValue,
    /// The runtime that frees the value (null for values without a reference count).
    rt: *mut q::JSRuntime,
}

impl Value {
    /// Takes ownership of one reference to `raw`, a value of `rt`.
    ///
    /// The caller gives up one reference count it owns of `raw` (an owned result of a QuickJS
    /// call, or a count it took with `JS_DupValueRT`), `rt` being `raw`'s live runtime; or
    /// `raw` has no count (then `rt` is not kept). That is `Value`'s invariant, points 1-2.
    #[inline]
    pub(crate) fn from_raw(rt: *mut q::JSRuntime, raw: q::JSValue) -> Self {
        // SAFETY: reads the tag field only.
        let counted = unsafe { q::JS_VALUE_HAS_REF_COUNT(raw) };
        Self {
            raw,
            rt: if counted { rt } else { std::ptr::null_mut() },
        }
    }

    /// A view of a borrowed `raw` that holds no count of its own: it must never be dropped
    /// (the `ManuallyDrop` sees to that), and lives no longer than the borrow (a call's
    /// arguments, for the call). Cloning it takes a count, as for any value.
    ///
    /// The caller ensures `raw` is live for as long as the view (someone owns a count of it)
    /// and `rt` is its live runtime; so the view is a `Value` in all but owning its count.
    #[inline]
    pub(crate) fn borrowed_raw(rt: *mut q::JSRuntime, raw: q::JSValue) -> ManuallyDrop<Self> {
        ManuallyDrop::new(Self::from_raw(rt, raw))
    }

    /// A new reference to a borrowed `raw` (an argument, a field of a struct QuickJS owns).
    ///
    /// The caller ensures `raw` is live for the call (someone owns a count of it) and `rt` is
    /// its live runtime.
    #[inline]
    pub(crate) fn dup_raw(rt: *mut q::JSRuntime, raw: q::JSValue) -> Self {
        // SAFETY: reads the tag field only.
        if unsafe { q::JS_VALUE_HAS_REF_COUNT(raw) } {
            // SAFETY: `raw` is a live counted value (this function's contract above), so its
            // allocation and the count in its header are live ([`ref_count`]); the runtime is
            // single-threaded and no reference to the count is held across this statement.
            // The count taken is the one the new `Value` owns.
            unsafe { *ref_count(raw) += 1 };
            Self { raw, rt }
        } else {
            Self::from_raw(rt, raw)
        }
    }

    /// The value, borrowed.
    #[inline]
    pub(crate) fn raw(&self) -> q::JSValue {
        self.raw
    }

    /// The runtime (null for a value without a reference count).
    #[inline]
    pub(crate) fn runtime(&self) -> *mut q::JSRuntime {
        self.rt
    }

    /// Gives up the reference to the caller.
    #[inline]
    pub(crate) fn into_raw(self) -> q::JSValue {
        let raw = self.raw;
        std::mem::forget(self);
        raw
    }

    /// The value's tag; a rope (a lazily concatenated string) is a string.
    #[inline]
    fn tag(&self) -> i32 {
        // SAFETY: reads the tag field only.
        let tag = unsafe { q::JS_VALUE_GET_NORM_TAG(self.raw) };
        if tag == q::JS_TAG_STRING_ROPE {
            q::JS_TAG_STRING
        } else {
            tag
        }
    }

    /// `undefined`.
    pub const fn undefined() -> Self {
        Self {
            raw: UNDEFINED,
            rt: std::ptr::null_mut(),
        }
    }

    /// `null`.
    pub const fn null() -> Self {
        Self {
            raw: NULL,
            rt: std::ptr::null_mut(),
        }
    }

    /// Whether the value is `undefined`.
    pub fn is_undefined(&self) -> bool {
        self.tag() == q::JS_TAG_UNDEFINED
    }

    /// Whether the value is `null`.
    pub fn is_null(&self) -> bool {
        self.tag() == q::JS_TAG_NULL
    }

    /// Whether the value is `null` or `undefined`.
    pub fn is_null_or_undefined(&self) -> bool {
        self.is_null() || self.is_undefined()
    }

    /// Whether the value is an object.
    pub fn is_object(&self) -> bool {
        self.tag() == q::JS_TAG_OBJECT
    }

    /// The value as an object.
    pub fn as_object(&self) -> Option<Object> {
        self.is_object()
            .then(|| Object::from_value_unchecked(self.clone()))
    }

    /// The value as a callable object.
    pub fn as_callable(&self) -> Option<Object> {
        self.as_object().filter(Object::is_callable)
    }

    /// Whether the value is a callable object.
    pub fn is_callable(&self) -> bool {
        // (No `Object` is made: cloning one would count a reference only to give it back.)
        self.is_object() && super::object::is_callable_raw(self.raw())
    }

    /// Whether the value is a string.
    pub fn is_string(&self) -> bool {
        self.tag() == q::JS_TAG_STRING
    }

    /// The value as a string.
    pub fn as_string(&self) -> Option<JsString> {
        self.is_string().then(|| JsString::from_string_value(self))
    }

    /// The value as a boolean.
    pub fn as_boolean(&self) -> Option<bool> {
        (self.tag() == q::JS_TAG_BOOL)
            // SAFETY: a boolean: its `int32` payload member is initialized (`Value`'s
            // invariant, point 1), which is all `JS_VALUE_GET_BOOL` reads.
            .then(|| unsafe { q::JS_VALUE_GET_BOOL(self.raw) })
    }

    /// The value as a number.
    pub fn as_number(&self) -> Option<f64> {
        match self.tag() {
            // SAFETY: an int: its `int32` payload member is initialized (`Value`'s invariant,
            // point 1).
            q::JS_TAG_INT => Some(f64::from(unsafe { q::JS_VALUE_GET_INT(self.raw) })),
            // SAFETY: a float: its `float64` payload member is initialized (`Value`'s
            // invariant, point 1).
            q::JS_TAG_FLOAT64 => Some(unsafe { q::JS_VALUE_GET_FLOAT64(self.raw) }),
            _ => None,
        }
    }

    /// ToBoolean.
    pub fn to_boolean(&self) -> bool {
        match self.tag() {
            q::JS_TAG_UNDEFINED | q::JS_TAG_NULL => false,
            q::JS_TAG_BOOL => self.as_boolean().unwrap_or(false),
            q::JS_TAG_INT | q::JS_TAG_FLOAT64 => {
                let n = self.as_number().unwrap_or(0.0);
                n != 0.0 && !n.is_nan()
            }
            q::JS_TAG_STRING => !JsString::from_string_value(self).is_empty(),
            q::JS_TAG_OBJECT | q::JS_TAG_SYMBOL => true,
            // BigInt: 0n is false. Ask the engine (any context of the runtime will do).
            _ => {
                let ctx = super::core::current_ctx();
                // SAFETY: a non-null current context is live (`current_ctx`'s invariant), of
                // this value's runtime (`Value`'s invariant, point 4); the value is live and
                // borrowed for the call. Converting a BigInt runs no script.
                !ctx.is_null() && unsafe { q::JS_ToBool(ctx, self.raw) } > 0
            }
        }
    }

    /// ToString.
    pub fn to_string(&self, ctx: &mut Cx) -> JsResult<JsString> {
        if self.is_string() {
            return Ok(JsString::from_string_value(self));
        }
        // SAFETY: `ctx`'s context is live (`Cx`'s invariant); the value is live, of its runtime
        // (`Value`'s invariant), and borrowed for the call. Script may run (an object's
        // `toString`): `ctx` is borrowed mutably, so the caller holds nothing that script
        // could invalidate. The result is owned, or `JS_EXCEPTION`, as `check` takes it.
        let raw = unsafe { q::JS_ToString(ctx.raw(), self.raw) };
        let string = check(ctx, raw)?;
        Ok(JsString::from_string_value(&string))
    }

    /// ToString, then `f` on the result's code units, in place where the engine keeps them as
    /// such (no copy into a [`JsString`]). `f` must not call into the engine.
    pub fn with_code_units<R>(
        &self,
        ctx: &mut Cx,
        f: impl FnOnce(crate::engine::CodeUnits<'_>) -> R,
    ) -> JsResult<R> {
        let string = if self.is_string() {
            self.clone()
        } else {
            // SAFETY: as in `to_string`.
            let raw = unsafe { q::JS_ToString(ctx.raw(), self.raw) };
            check(ctx, raw)?
        };
        Ok(JsString::with_code_units_of_string_value(&string, f))
    }

    /// ToNumber.
    pub fn to_number(&self, ctx: &mut Cx) -> JsResult<f64> {
        if let Some(n) = self.as_number() {
            return Ok(n);
        }
        let mut out = 0.0;
        // SAFETY: as in `to_string`; `out` is a valid `f64` for QuickJS to write.
        let status = unsafe { q::JS_ToFloat64(ctx.raw(), &mut out, self.raw) };
        super::core::check_status(ctx, status)?;
        Ok(out)
    }

    /// ToObject.
    pub fn to_object(&self, ctx: &mut Cx) -> JsResult<Object> {
        if let Some(o) = self.as_object() {
            return Ok(o);
        }
        // SAFETY: as in `to_string` (no script runs for a primitive's wrapper).
        let raw = unsafe { q::JS_ToObject(ctx.raw(), self.raw) };
        Ok(Object::from_value_unchecked(check(ctx, raw)?))
    }

    /// A symbol's description, as a display string (empty when it has none, or outside any
    /// context).
    fn symbol_description(&self) -> String {
        let ctx = super::core::current_ctx();
        if ctx.is_null() {
            return String::new();
        }
        // SAFETY: a non-null current context is live (`current_ctx`'s invariant), of this
        // value's runtime (`Value`'s invariant, point 4); the value is a live symbol (the only
        // caller checks the tag), borrowed for the call, so no script runs. The atom returned
        // is ours.
        let atom = unsafe { q::JS_ValueToAtom(ctx, self.raw) };
        if atom == q::JS_ATOM_NULL {
            return String::new();
        }
        // SAFETY: `ctx` is live (above) and `atom` a live atom we own; the string returned is
        // owned (or `JS_EXCEPTION`). Then we give the atom's count back, once.
        let raw = unsafe {
            let raw = q::JS_AtomToString(ctx, atom);
            q::JS_FreeAtom(ctx, atom);
            raw
        };
        // SAFETY: `ctx` is live and `raw` an owned value of it, just returned.
        unsafe { check_description(ctx, raw) }.unwrap_or_default()
    }

    /// A display string for messages and logs (no script runs).
    pub fn to_string_for_display(&self) -> String {
        match self.tag() {
            q::JS_TAG_UNDEFINED => "undefined".into(),
            q::JS_TAG_NULL => "null".into(),
            q::JS_TAG_BOOL => self.as_boolean().unwrap_or(false).to_string(),
            q::JS_TAG_INT | q::JS_TAG_FLOAT64 => {
                super::string::number_to_string(self.as_number().unwrap_or(f64::NAN))
            }
            q::JS_TAG_STRING => format!(
                "\"{}\"",
                JsString::from_string_value(self).to_std_string_escaped()
            ),
            q::JS_TAG_SYMBOL => format!("Symbol({})", self.symbol_description()),
            q::JS_TAG_OBJECT => {
                if self.is_callable() {
                    "[function]".into()
                } else {
                    "[object]".into()
                }
            }
            _ => "[value]".into(),
        }
    }
}

impl Clone for Value {
    #[inline]
    fn clone(&self) -> Self {
        if !self.rt.is_null() {
            // SAFETY: a non-null `rt` means `raw` is counted and stays allocated while `self`
            // lives (`Value`'s invariant, point 2), so the count in its header is live
            // ([`ref_count`]); single-threaded, no reference to the count is held. The count
            // taken is the one the clone owns.
            unsafe { *ref_count(self.raw) += 1 };
        }
        Self {
            raw: self.raw,
            rt: self.rt,
        }
    }
}

impl Drop for Value {
    #[inline]
    fn drop(&mut self) {
        if !self.rt.is_null() {
            // SAFETY: the value owns one count of `raw`, a value of the live runtime `rt`
            // (`Value`'s invariant, points 2-3), given back once: `self` is being dropped, and
            // `into_raw` forgets a value instead of dropping it. The count is live while that
            // one is owned ([`ref_count`]). Above 1, giving it back only lowers it (another
            // owner keeps the value), as `JS_FreeValueRT` would; at 1, `JS_FreeValueRT` lowers
            // it to 0 and frees the value, which may run finalizers (they run no script).
            unsafe {
                let count = ref_count(self.raw);
                if *count > 1 {
                    *count -= 1;
                } else {
                    q::JS_FreeValueRT(self.rt, self.raw);
                }
            }
        }
    }
}

/// The reference count of the counted value `raw`, where quickjs-ng keeps it: in the header of
/// its allocation, 4 bytes before the value's pointer. `Value`'s clone and drop update it in
/// place, as `js_dup` and `JS_FreeValueRT` do inside QuickJS, instead of a call into C per
/// clone and per drop (those calls were the largest single cost of a chunk's way through a
/// pipe: about 150 per chunk of `pipeThrough`, 7% of its instructions).
///
/// The layout is that of the quickjs-ng the pinned `rquickjs-sys` (`=0.14.0`, Cargo.toml)
/// builds: quickjs.c's `JSMallocBlockHeader` is `{ uint16_t u; uint8_t block_size_idx; uint8_t
/// gc_obj_type:7, mark:1; int ref_count; _Alignas(8) uint8_t user_data[]; }`, every counted
/// value's pointer is some block's `user_data` (`JS_REF_COUNT(p)`, which `js_dup` and
/// `JS_FreeValueRT` apply to any counted value, is `js_rc(p)->ref_count` with `js_rc(p) = p -
/// offsetof(JSMallocBlockHeader, user_data)`), so the count is the `int` at `p - 8 + 4`.
/// `tests::reference_counts_are_where_quickjs_keeps_them` checks it against QuickJS's own
/// `JS_DupValueRT` and `JS_FreeValueRT` for every kind of counted value, small and large.
///
/// # Safety
/// `raw` is a counted value (`JS_VALUE_HAS_REF_COUNT`) that is live (someone owns a count of
/// it); the pointer returned is valid for reads and writes while that stays so.
#[inline(always)]
pub(crate) unsafe fn ref_count(raw: q::JSValue) -> *mut std::ffi::c_int {
    // SAFETY: the caller's contract: a live counted value, whose pointer is the `user_data` of
    // a block of the runtime's allocator (above), so the 8-byte header before it is part of
    // the same allocation and its `ref_count` field (offset 4, 4-aligned since `user_data` is
    // 8-aligned) is in bounds.
    unsafe {
        q::JS_VALUE_GET_PTR(raw)
            .cast::<u8>()
            .sub(4)
            .cast::<std::ffi::c_int>()
    }
}

impl Default for Value {
    fn default() -> Self {
        Self::undefined()
    }
}

impl PartialEq for Value {
    /// SameValue for primitives (strings by content), identity for objects and symbols.
    fn eq(&self, other: &Self) -> bool {
        let (a, b) = (self.tag(), other.tag());
        match (a, b) {
            (q::JS_TAG_STRING, q::JS_TAG_STRING) => {
                JsString::from_string_value(self) == JsString::from_string_value(other)
            }
            (q::JS_TAG_INT | q::JS_TAG_FLOAT64, q::JS_TAG_INT | q::JS_TAG_FLOAT64) => {
                let (x, y) = (
                    self.as_number().unwrap_or(0.0),
                    other.as_number().unwrap_or(0.0),
                );
                x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan())
            }
            (q::JS_TAG_OBJECT, q::JS_TAG_OBJECT) | (q::JS_TAG_SYMBOL, q::JS_TAG_SYMBOL) => {
                // SAFETY: objects or symbols: their pointer payload member is initialized
                // (`Value`'s invariant, point 2); only the pointers are compared.
                unsafe { q::JS_VALUE_GET_PTR(self.raw) == q::JS_VALUE_GET_PTR(other.raw) }
            }
            (q::JS_TAG_BOOL, q::JS_TAG_BOOL) => self.as_boolean() == other.as_boolean(),
            _ if a != b => false,
            _ => {
                let ctx = super::core::current_ctx();
                // SAFETY: a non-null current context is live (`current_ctx`'s invariant), of
                // the values' runtime (`Value`'s invariant, point 4); both values are live and
                // borrowed. SameValue runs no script.
                !ctx.is_null() && unsafe { q::JS_IsSameValue(ctx, self.raw, other.raw) }
            }
        }
    }
}
impl Eq for Value {}

impl std::hash::Hash for Value {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        let tag = self.tag();
        tag.hash(state);
        match tag {
            q::JS_TAG_STRING => JsString::from_string_value(self).hash(state),
            q::JS_TAG_INT | q::JS_TAG_FLOAT64 => {
                let n = self.as_number().unwrap_or(0.0);
                if n.is_nan() {
                    f64::NAN.to_bits()
                } else {
                    n.to_bits()
                }
                .hash(state);
            }
            q::JS_TAG_OBJECT | q::JS_TAG_SYMBOL => {
                // SAFETY: an object or a symbol: its pointer payload member is initialized
                // (`Value`'s invariant, point 2); only the pointer is read.
                (unsafe { q::JS_VALUE_GET_PTR(self.raw) } as usize).hash(state);
            }
            q::JS_TAG_BOOL => self.as_boolean().hash(state),
            _ => {}
        }
    }
}

impl std::fmt::Debug for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.to_string_for_display())
    }
}

impl Trace for Value {
    #[inline]
    fn trace(&self, marker: &mut Marker) {
        if !self.rt.is_null() {
            marker.mark(self);
        }
    }
}

// Conversions from Rust primitives.
impl From<bool> for Value {
    fn from(b: bool) -> Self {
        Self::from_raw(
            std::ptr::null_mut(),
            super::core::mkval(q::JS_TAG_BOOL, i32::from(b)),
        )
    }
}
impl From<f64> for Value {
    fn from(n: f64) -> Self {
        Self::from_raw(std::ptr::null_mut(), super::core::number_value(n))
    }
}
impl From<i32> for Value {
    fn from(n: i32) -> Self {
        Self::from_raw(std::ptr::null_mut(), super::core::mkval(q::JS_TAG_INT, n))
    }
}
macro_rules! from_number {
    ($($t:ty),*) => {$(
        impl From<$t> for Value {
            #[allow(clippy::cast_precision_loss, clippy::cast_lossless)]
            fn from(n: $t) -> Self {
                if let Ok(i) = i32::try_from(n) {
                    Self::from(i)
                } else {
                    Self::from(n as f64)
                }
            }
        }
    )*};
}
from_number!(u32, u64, usize);
impl From<u8> for Value {
    fn from(n: u8) -> Self {
        Self::from(i32::from(n))
    }
}
impl From<u16> for Value {
    fn from(n: u16) -> Self {
        Self::from(i32::from(n))
    }
}
impl From<()> for Value {
    fn from((): ()) -> Self {
        Self::undefined()
    }
}
impl<T: NativeObject> From<Object<T>> for Value {
    fn from(o: Object<T>) -> Self {
        o.into_value()
    }
}

/// The text of an owned string value made from a symbol's atom (`None` if it is an exception,
/// which is cleared).
///
/// # Safety
/// `ctx` is a live context of this backend, current on this thread (so the string is read
/// with it), and `raw` an owned value of its runtime, or `JS_EXCEPTION` with the exception
/// pending.
unsafe fn check_description(ctx: *mut q::JSContext, raw: q::JSValue) -> Option<String> {
    // SAFETY: `ctx` is live (the caller's promise); this reads its `rt` field.
    let rt = unsafe { q::JS_GetRuntime(ctx) };
    // SAFETY: reads the tag only.
    if unsafe { q::JS_IsException(raw) } {
        // SAFETY: `ctx` is live; `JS_GetException` moves the pending exception out, an owned
        // value of `rt` that the `Value` then frees.
        drop(Value::from_raw(rt, unsafe { q::JS_GetException(ctx) }));
        return None;
    }
    // An owned value of `rt` (the caller's promise): `Value::from_raw`'s contract.
    let value = Value::from_raw(rt, raw);
    value
        .is_string()
        .then(|| JsString::from_string_value(&value).to_std_string_escaped())
}
