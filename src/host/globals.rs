//! The host globals: boa_runtime's web APIs, `self`, `gc()`, and the file-serving fetcher
//! behind `fetch()`.

use std::io::Write;

use boa_engine::{
    js_string,
    native_function::NativeFunction,
    object::{FunctionObjectBuilder, ObjectInitializer},
    property::Attribute,
    Context, JsNativeError, JsResult, JsString, JsValue,
};
use boa_gc::{Finalize, Trace};
use boa_runtime::{extensions::ConsoleExtension, ConsoleState, Logger};

/// The origin that `Response.url` reports (wptserve's default host and port).
pub(super) const FETCH_ORIGIN: &str = "http://web-platform.test:8000";

/// boa_runtime's globals, with `console` writing to stdout (`DefaultLogger`) or to stderr.
pub(super) fn register_runtime(console_to_stderr: bool, ctx: &mut Context) -> JsResult<()> {
    if console_to_stderr {
        boa_runtime::register(ConsoleExtension(StderrLogger), None, ctx)
    } else {
        boa_runtime::register(ConsoleExtension::default(), None, ctx)
    }
}

/// `self`, `gc()`, `performance`, `crypto`, `atob` and `btoa`.
pub(super) fn register_host_globals(ctx: &mut Context) -> JsResult<()> {
    // `self`: the global object (HTML's `self` is the WindowProxy / WorkerGlobalScope itself).
    let global = ctx.global_object();
    ctx.register_global_property(
        js_string!("self"),
        global,
        Attribute::WRITABLE | Attribute::CONFIGURABLE,
    )?;

    // `gc()`: a full collection, as common/gc.js expects from `self.gc`.
    ctx.register_global_builtin_callable(
        js_string!("gc"),
        0,
        NativeFunction::from_fn_ptr(|_, _, _| {
            boa_gc::force_collect();
            Ok(JsValue::undefined())
        }),
    )?;

    super::performance::register(ctx)?;
    register_crypto(ctx)?;
    super::base64::register(ctx)?;
    crate::file::set_blob_url_origin(ctx, FETCH_ORIGIN);
    Ok(())
}

/// `location`: a stand-in for HTML's `Location` object (`WorkerLocation`-like), with the
/// components of the document's URL (`href`, `origin`, `protocol`, `host`, `hostname`, `port`,
/// `pathname`, `search`, `hash`: read-only data properties) and `toString()`. `location` must
/// be an absolute URL.
pub(super) fn register_location(location: &str, ctx: &mut Context) -> JsResult<()> {
    use ::url::quirks;
    let url = ::url::Url::parse(location).map_err(|error| {
        JsNativeError::typ().with_message(format!("invalid location {location:?}: {error}"))
    })?;
    let href = JsString::from(quirks::href(&url));
    let to_string = FunctionObjectBuilder::new(
        ctx.realm(),
        NativeFunction::from_copy_closure_with_captures(
            |_, _, href: &JsString, _| Ok(href.clone().into()),
            href.clone(),
        ),
    )
    .name(js_string!("toString"))
    .length(0)
    .constructor(false)
    .build();
    let read_only = Attribute::ENUMERABLE;
    let mut object = ObjectInitializer::new(ctx);
    object.property(js_string!("href"), href, read_only);
    for (name, value) in [
        ("origin", quirks::origin(&url)),
        ("protocol", quirks::protocol(&url).to_owned()),
        ("host", quirks::host(&url).to_owned()),
        ("hostname", quirks::hostname(&url).to_owned()),
        ("port", quirks::port(&url).to_owned()),
        ("pathname", quirks::pathname(&url).to_owned()),
        ("search", quirks::search(&url).to_owned()),
        ("hash", quirks::hash(&url).to_owned()),
    ] {
        object.property(JsString::from(name), JsString::from(value), read_only);
    }
    object.property(js_string!("toString"), to_string, Attribute::all());
    let object = object.build();
    ctx.register_global_property(
        js_string!("location"),
        object,
        Attribute::WRITABLE | Attribute::CONFIGURABLE,
    )
}

/// `crypto.getRandomValues(array)` (<https://w3c.github.io/webcrypto/#Crypto-method-getRandomValues>),
/// filled from the operating system's random source (`/dev/urandom`); the rest of Web Crypto is
/// not provided.
fn register_crypto(ctx: &mut Context) -> JsResult<()> {
    let get_random_values =
        FunctionObjectBuilder::new(ctx.realm(), NativeFunction::from_fn_ptr(get_random_values))
            .name(js_string!("getRandomValues"))
            .length(1)
            .constructor(false)
            .build();
    let crypto = ObjectInitializer::new(ctx)
        .property(
            js_string!("getRandomValues"),
            get_random_values,
            Attribute::all(),
        )
        .build();
    ctx.register_global_property(
        js_string!("crypto"),
        crypto,
        Attribute::WRITABLE | Attribute::CONFIGURABLE,
    )
}

fn get_random_values(_: &JsValue, args: &[JsValue], ctx: &mut Context) -> JsResult<JsValue> {
    use boa_engine::object::builtins::JsTypedArray;
    let array = args.first().cloned().unwrap_or_default();
    let typed = array
        .as_object()
        .and_then(|o| JsTypedArray::from_object(o.clone()).ok())
        .ok_or_else(|| {
            JsNativeError::typ().with_message("getRandomValues: the argument is not a typed array")
        })?;
    let dom_error =
        |ctx: &mut Context, message: &str, name: &str| -> JsResult<boa_engine::JsError> {
            let exception = crate::dom::create_dom_exception(ctx, message, name)?;
            Ok(boa_engine::JsError::from_opaque(exception.into()))
        };
    use boa_engine::builtins::typed_array::TypedArrayKind as K;
    let integer = matches!(
        typed.kind(),
        Some(
            K::Int8
                | K::Uint8
                | K::Uint8Clamped
                | K::Int16
                | K::Uint16
                | K::Int32
                | K::Uint32
                | K::BigInt64
                | K::BigUint64
        )
    );
    if !integer {
        return Err(dom_error(
            ctx,
            "getRandomValues: the array is not an integer array",
            "TypeMismatchError",
        )?);
    }
    let view =
        crate::engine::array_buffer_view(&array.clone().into(), "getRandomValues: the array", ctx)?;
    if view.byte_length > 65536 {
        return Err(dom_error(
            ctx,
            "getRandomValues: more than 65536 bytes requested",
            "QuotaExceededError",
        )?);
    }
    let mut bytes = vec![0u8; view.byte_length as usize];
    {
        use std::io::Read;
        let mut source =
            std::fs::File::open("/dev/urandom").map_err(boa_engine::JsError::from_rust)?;
        source
            .read_exact(&mut bytes)
            .map_err(boa_engine::JsError::from_rust)?;
    }
    crate::engine::with_array_buffer_bytes_mut(
        &view.buffer,
        view.byte_offset,
        view.byte_length,
        |target| target.copy_from_slice(&bytes),
    );
    Ok(array)
}

/// A `console` logger that writes every message to stderr.
#[derive(Debug, Clone, Trace, Finalize)]
struct StderrLogger;

impl StderrLogger {
    fn write(msg: &str, state: &ConsoleState) -> JsResult<()> {
        let indent = state.indent();
        writeln!(std::io::stderr(), "{:indent$}{msg}", "").map_err(boa_engine::JsError::from_rust)
    }
}

impl Logger for StderrLogger {
    fn log(&self, msg: String, state: &ConsoleState, _: &mut Context) -> JsResult<()> {
        Self::write(&msg, state)
    }

    fn info(&self, msg: String, state: &ConsoleState, _: &mut Context) -> JsResult<()> {
        Self::write(&msg, state)
    }

    fn warn(&self, msg: String, state: &ConsoleState, _: &mut Context) -> JsResult<()> {
        Self::write(&msg, state)
    }

    fn error(&self, msg: String, state: &ConsoleState, _: &mut Context) -> JsResult<()> {
        Self::write(&msg, state)
    }
}
