//! `crypto.getRandomValues(array)` (<https://w3c.github.io/webcrypto/#Crypto-method-getRandomValues>),
//! filled from the operating system's random source (`/dev/urandom`); the rest of Web Crypto is
//! not provided. Written over the engine API alone.

use std::io::Read;

use crate::engine::{
    self, Cx, JsError, JsResult, PropertyDescriptor, TypedArrayKind, Value, ViewKind,
};

/// Defines `crypto` (a plain object with `getRandomValues`) on the current realm's global.
pub(super) fn register(ctx: &mut Cx) -> JsResult<()> {
    let crypto = engine::clone::new_plain_object(ctx);
    engine::webidl::define_operation(&crypto, "getRandomValues", 1, get_random_values, ctx)?;
    engine::global_object(ctx).define_property_or_throw(
        "crypto",
        PropertyDescriptor::builder()
            .value(crypto)
            .writable(true)
            .enumerable(false)
            .configurable(true),
        ctx,
    )?;
    Ok(())
}

fn dom_error(ctx: &mut Cx, message: &str, name: &str) -> JsResult<JsError> {
    let exception = crate::dom::create_dom_exception(ctx, message, name)?;
    Ok(engine::throw_value(exception.into()))
}

fn get_random_values(_: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    engine::webidl::require_args(args, 1, "Crypto", "getRandomValues")?;
    let array = args[0].clone();
    // `ArrayBufferView array` (a TypeError if it is not one).
    let view = engine::array_buffer_view(&array, "getRandomValues: the argument", ctx)?;
    // 1. If array is not an Int8Array, Uint8Array, Uint8ClampedArray, Int16Array,
    //    Uint16Array, Int32Array, Uint32Array, BigInt64Array, or BigUint64Array, then throw a
    //    TypeMismatchError.
    let integer = matches!(
        view.kind,
        ViewKind::Typed(
            TypedArrayKind::Int8
                | TypedArrayKind::Uint8
                | TypedArrayKind::Uint8Clamped
                | TypedArrayKind::Int16
                | TypedArrayKind::Uint16
                | TypedArrayKind::Int32
                | TypedArrayKind::Uint32
                | TypedArrayKind::BigInt64
                | TypedArrayKind::BigUint64
        )
    );
    if !integer {
        return Err(dom_error(
            ctx,
            "getRandomValues: the array is not an integer array",
            "TypeMismatchError",
        )?);
    }
    // 2. If the byteLength of array is greater than 65536, throw a QuotaExceededError (the
    //    interface, its quota and requested null as the step gives none).
    if view.byte_length > 65536 {
        let exception = crate::dom::new_quota_exceeded_error(
            "getRandomValues: more than 65536 bytes requested".into(),
            crate::dom::Quota::default(),
            ctx,
        )?;
        return Err(engine::throw_value(exception.into()));
    }
    // 3. Overwrite all elements of array with cryptographically strong random values.
    let mut bytes = vec![0u8; usize::try_from(view.byte_length).unwrap_or(0)];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut source| source.read_exact(&mut bytes))
        .map_err(|e| engine::throw_type_error(format!("getRandomValues: {e}")))?;
    engine::with_array_buffer_bytes_mut(&view.buffer, view.byte_offset, view.byte_length, |t| {
        t.copy_from_slice(&bytes);
    });
    // 4. Return array.
    Ok(array)
}
