//! `%JSON.parse%` and `%JSON.stringify%` as the realm had them before script ran (captured with
//! the realm's intrinsics, see `buffer::INTRINSICS`): what the Fetch Standard's "parse JSON
//! from bytes" and "serialize a JavaScript value to JSON bytes" call, so a patched `JSON`
//! never changes what a body does.

use super::buffer::call_intrinsic;
use super::core::q;
use super::intrinsics::Intrinsic;
use super::*;

/// Remembers the current realm's `JSON.parse` and `JSON.stringify`: nothing to do on QuickJS,
/// where every realm captures them when it is set up, before any script runs.
pub fn remember_json_intrinsics(ctx: &mut Cx) {
    let _ = ctx;
}

/// `? Call(%JSON.parse%, undefined, « text »)`: a `SyntaxError` for text that is not JSON.
pub fn json_parse(text: JsString, ctx: &mut Cx) -> JsResult<Value> {
    let text = text.try_to_value_in(ctx)?;
    call_intrinsic(ctx, Intrinsic::JSONParse, &Value::undefined(), &[text])
}

/// `? Call(%JSON.stringify%, undefined, « value »)`: `None` when the result is `undefined`.
pub fn json_stringify(value: Value, ctx: &mut Cx) -> JsResult<Option<JsString>> {
    let result = call_intrinsic(ctx, Intrinsic::JSONStringify, &Value::undefined(), &[value])?;
    // SAFETY: `JS_IsString` reads the tag field only (it counts a rope as a string too).
    let is_string = unsafe { q::JS_IsString(result.raw()) };
    Ok(is_string.then(|| JsString::from_string_value(&result)))
}

/// A member name of a JSON text, made once for every member that has it (`json_text`): an
/// atom, counted, of the runtime it was made in.
pub struct JsonName {
    atom: q::JSAtom,
    rt: *mut q::JSRuntime,
}

impl JsonName {
    /// The name `text`.
    pub fn from_str(text: &str, ctx: &mut Cx) -> JsResult<Self> {
        // SAFETY: `ctx`'s context is live (`Cx`'s invariant); `text` is valid UTF-8, as
        // `JS_NewAtomLen` expects, readable for its length during the call (QuickJS reads none
        // for 0 bytes, and copies them otherwise). The atom returned is counted for us, or 0
        // with an exception pending.
        let atom = unsafe { q::JS_NewAtomLen(ctx.raw(), text.as_ptr().cast(), text.len() as _) };
        Self::made(atom, ctx)
    }

    /// The name of the code units `units` (a lone surrogate included).
    pub fn from_utf16(units: &[u16], ctx: &mut Cx) -> JsResult<Self> {
        let value = string_value_from_utf16(units, ctx)?;
        // SAFETY: `ctx`'s context is live (`Cx`'s invariant) and `value` a live string of its
        // runtime (`Value`'s invariant), borrowed for the call: converting a string runs no
        // script. The atom returned is counted for us, or 0 with an exception pending.
        let atom = unsafe { q::JS_ValueToAtom(ctx.raw(), value.raw()) };
        Self::made(atom, ctx)
    }

    fn made(atom: q::JSAtom, ctx: &mut Cx) -> JsResult<Self> {
        if atom == 0 {
            return Err(super::core::take_exception(ctx));
        }
        Ok(Self { atom, rt: ctx.rt() })
    }

    /// The same name, counted once more.
    pub fn duplicate(&self) -> Self {
        // SAFETY: `self.rt` is the live runtime the atom is of (a name lives within one parse,
        // inside a call that holds a context of that runtime, or in a realm's data, dropped at
        // the realm's teardown, before its runtime is freed), and `self.atom` holds a count,
        // so the atom is live; the count taken here is the new name's.
        let atom = unsafe { q::JS_DupAtomRT(self.rt, self.atom) };
        Self { atom, rt: self.rt }
    }
}

impl Drop for JsonName {
    fn drop(&mut self) {
        // SAFETY: `self.rt` is live (see `duplicate`), and the count given back is the one this
        // name holds, once.
        unsafe { q::JS_FreeAtomRT(self.rt, self.atom) };
    }
}

/// A new object of a JSON text's parse: `OrdinaryObjectCreate(%Object.prototype%)`.
pub fn json_object(ctx: &mut Cx) -> JsResult<Object> {
    // SAFETY: `ctx`'s context is live (`Cx`'s invariant). The result is owned, or
    // `JS_EXCEPTION` (out of memory), as `check` takes it.
    let raw = unsafe { q::JS_NewObject(ctx.raw()) };
    super::core::check(ctx, raw).map(Object::from_value_unchecked)
}

/// `CreateDataProperty(object, name, value)` on an object of [`json_object`].
pub fn json_member(object: &Object, name: &JsonName, value: Value, ctx: &mut Cx) -> JsResult<()> {
    // SAFETY: `ctx`'s context is live (`Cx`'s invariant) and `object` a live object of its
    // runtime (`Value`'s invariant), borrowed. `JS_DefinePropertyValue` takes ownership of the
    // value (it frees it even on failure): `into_raw` hands over the count `value` owned. The
    // atom is borrowed (the name keeps its count). A data property on a new ordinary object
    // runs no script; a repeated name replaces the value in place, as CreateDataProperty does.
    let status = unsafe {
        q::JS_DefinePropertyValue(
            ctx.raw(),
            object.raw(),
            name.atom,
            value.into_raw(),
            q::JS_PROP_C_W_E as std::ffi::c_int,
        )
    };
    super::core::check_status(ctx, status).map(drop)
}
