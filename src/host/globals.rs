//! The host globals: boa_runtime's web APIs, `self`, `gc()`, and a file-serving `fetch()`.

use std::{cell::RefCell, io::Write, path::PathBuf, rc::Rc};

use boa_engine::{
    job::GenericJob,
    js_string,
    native_function::NativeFunction,
    object::{
        builtins::{AlignedVec, JsArrayBuffer, JsFunction, JsPromise, JsUint8Array},
        FunctionObjectBuilder, ObjectInitializer,
    },
    property::Attribute,
    Context, JsNativeError, JsObject, JsResult, JsString, JsValue,
};
use boa_gc::{Finalize, Gc, Trace};
use boa_runtime::{extensions::ConsoleExtension, ConsoleState, Logger};

use crate::engine::{promise_rejected_with, promise_resolved_with};

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

/// `self`, `gc()`, `fetch()`, `performance`, `crypto`, `atob` and `btoa`.
pub(super) fn register_host_globals(
    fetch_root: Option<PathBuf>,
    ctx: &mut Context,
) -> JsResult<()> {
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

    // `fetch()`. JSON.parse is captured now, before any script can replace it.
    let json_parse = ctx
        .intrinsics()
        .objects()
        .json()
        .get(js_string!("parse"), ctx)?
        .as_object()
        .and_then(JsFunction::from_object)
        .ok_or_else(|| JsNativeError::typ().with_message("JSON.parse is not callable"))?;
    let config = FetchConfig {
        root: fetch_root.map(Rc::new),
        json_parse,
    };
    let fetch = FunctionObjectBuilder::new(
        ctx.realm(),
        NativeFunction::from_copy_closure_with_captures(fetch, config),
    )
    .name(js_string!("fetch"))
    .length(1)
    .constructor(false)
    .build();
    // A WebIDL operation of WindowOrWorkerGlobalScope: writable, enumerable, configurable.
    ctx.register_global_property(js_string!("fetch"), fetch, Attribute::all())?;

    super::performance::register(ctx)?;
    register_crypto(ctx)?;
    super::base64::register(ctx)?;
    crate::file::set_blob_url_origin(ctx, FETCH_ORIGIN);
    Ok(())
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

/// What `fetch` needs: the folder it serves, and the original `JSON.parse`.
#[derive(Clone, Trace, Finalize)]
struct FetchConfig {
    #[unsafe_ignore_trace]
    root: Option<Rc<PathBuf>>,
    json_parse: JsFunction,
}

/// A fetched file (or a 404).
struct Fetched {
    status: u16,
    url: String,
    body: Vec<u8>,
}

/// `fetch(input)`: serves `<root>/<path>` the way wptserve serves the WPT root. The promise
/// settles in a later task, like a network fetch: fulfilled with a minimal `Response`-like
/// object (status 200, or 404 for a missing file), rejected with a `TypeError` for a bad URL,
/// an unreadable file, or a host without a fetch root.
fn fetch(
    _: &JsValue,
    args: &[JsValue],
    config: &FetchConfig,
    ctx: &mut Context,
) -> JsResult<JsValue> {
    let input = args.first().cloned().unwrap_or_default();
    let url = match input.to_string(ctx) {
        Ok(url) => url.to_std_string_escaped(),
        Err(error) => {
            let reason = error.into_opaque(ctx)?;
            return Ok(promise_rejected_with(reason.into(), ctx)?.into());
        }
    };
    let outcome = match &config.root {
        None => Err("fetch is not available: this host has no fetch root".to_owned()),
        Some(root) => read_file(root, &url),
    };

    let (promise, resolvers) = JsPromise::new_pending(ctx);
    let json_parse = config.json_parse.clone();
    let settle = move |ctx: &mut Context| -> JsResult<JsValue> {
        match outcome {
            Ok(fetched) => {
                let response = make_response(fetched, json_parse, ctx);
                resolvers
                    .resolve
                    .call(&JsValue::undefined(), &[response.into()], ctx)
            }
            Err(message) => {
                let error = JsNativeError::typ()
                    .with_message(format!("fetch failed: {message}"))
                    .into_opaque(ctx);
                resolvers
                    .reject
                    .call(&JsValue::undefined(), &[error.into()], ctx)
            }
        }
    };
    let realm = ctx.realm().clone();
    ctx.enqueue_job(GenericJob::new(settle, realm).into());
    Ok(promise.into())
}

/// Maps `url` to a file under `root` and reads it. A missing file (or a folder) is a 404.
fn read_file(root: &std::path::Path, url: &str) -> Result<Fetched, String> {
    let (path, query, segments) = resolve_url_path(url)?;
    let url = format!("{FETCH_ORIGIN}{path}{query}");
    let mut file = root.to_path_buf();
    file.extend(&segments);
    if !file.is_file() {
        return Ok(Fetched {
            status: 404,
            url,
            body: b"404 Not Found".to_vec(),
        });
    }
    match std::fs::read(&file) {
        Ok(body) => Ok(Fetched {
            status: 200,
            url,
            body,
        }),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(Fetched {
            status: 404,
            url,
            body: b"404 Not Found".to_vec(),
        }),
        Err(error) => Err(format!("cannot read {path}: {error}")),
    }
}

/// Resolves `url` against the server root `/` and returns the normalized path (`/a/b`), the
/// query (`?x`, or empty), and the decoded path segments. The fragment is dropped; `.` and `..`
/// segments are resolved, and a `..` above the root is an error.
fn resolve_url_path(url: &str) -> Result<(String, String, Vec<String>), String> {
    let url = url.trim_matches(|c: char| c <= ' ');
    let url = url.split('#').next().unwrap_or_default();
    let (rest, query) = match url.find('?') {
        Some(index) => (&url[..index], &url[index..]),
        None => (url, ""),
    };
    let rest = rest.replace('\\', "/");

    // Drop `scheme://authority` or `//authority`; a path without a leading `/` is relative
    // to `/`.
    let scheme_len = rest
        .find(':')
        .filter(|&index| {
            let scheme = &rest[..index];
            scheme.starts_with(|c: char| c.is_ascii_alphabetic())
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        })
        .map(|index| index + 1);
    let after_scheme = match scheme_len {
        Some(len) => {
            let scheme = rest[..len - 1].to_ascii_lowercase();
            if scheme != "http" && scheme != "https" {
                return Err(format!("unsupported URL scheme in {url:?}"));
            }
            &rest[len..]
        }
        None => &rest[..],
    };
    let path = match after_scheme.strip_prefix("//") {
        Some(authority_and_path) => match authority_and_path.find('/') {
            Some(index) => &authority_and_path[index..],
            None => "/",
        },
        None if scheme_len.is_some() => return Err(format!("invalid URL {url:?}")),
        None => after_scheme,
    };

    let mut segments: Vec<String> = Vec::new();
    for raw in path.split('/').filter(|segment| !segment.is_empty()) {
        let segment = percent_decode(raw).ok_or_else(|| format!("invalid URL path {url:?}"))?;
        match segment.as_str() {
            "." => {}
            ".." => {
                if segments.pop().is_none() {
                    return Err(format!("{url:?} escapes the server root"));
                }
            }
            _ if segment.contains(['/', '\\', '\0']) => {
                return Err(format!("invalid URL path segment in {url:?}"));
            }
            _ => segments.push(segment),
        }
    }
    let mut normalized = String::from("/");
    normalized.push_str(&segments.join("/"));
    if path.ends_with('/') && !segments.is_empty() {
        normalized.push('/');
    }
    Ok((normalized, query.to_owned(), segments))
}

/// Decodes `%XX` escapes; `None` if an escape is malformed or the result is not UTF-8.
fn percent_decode(segment: &str) -> Option<String> {
    let bytes = segment.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        if bytes[index] == b'%' {
            let hex = segment.get(index + 1..index + 3)?;
            if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                return None;
            }
            decoded.push(u8::from_str_radix(hex, 16).ok()?);
            index += 3;
        } else {
            decoded.push(bytes[index]);
            index += 1;
        }
    }
    String::from_utf8(decoded).ok()
}

/// The body of a response: consumed by the first `text()` / `json()` / `arrayBuffer()` /
/// `bytes()` call.
#[derive(Trace, Finalize)]
struct Body {
    #[unsafe_ignore_trace]
    bytes: RefCell<Option<Vec<u8>>>,
    json_parse: JsFunction,
}

impl Body {
    fn take(&self) -> Option<Vec<u8>> {
        self.bytes.borrow_mut().take()
    }
}

/// A minimal `Response`: `ok`, `status`, `statusText`, `url`, `redirected`, `type`, and the
/// body methods `text()`, `json()`, `arrayBuffer()`, `bytes()` (each returning a promise).
fn make_response(fetched: Fetched, json_parse: JsFunction, ctx: &mut Context) -> JsObject {
    let Fetched { status, url, body } = fetched;
    let body = Gc::new(Body {
        bytes: RefCell::new(Some(body)),
        json_parse,
    });
    let status_text = if status == 200 { "OK" } else { "Not Found" };
    let data = Attribute::all();
    let method = |f: fn(&JsValue, &[JsValue], &Gc<Body>, &mut Context) -> JsResult<JsValue>| {
        NativeFunction::from_copy_closure_with_captures(f, body.clone())
    };
    let (text, json, array_buffer, bytes) = (
        method(body_text),
        method(body_json),
        method(body_array_buffer),
        method(body_bytes),
    );
    ObjectInitializer::new(ctx)
        .property(js_string!("ok"), status == 200, data)
        .property(js_string!("status"), status, data)
        .property(js_string!("statusText"), JsString::from(status_text), data)
        .property(js_string!("url"), JsString::from(url.as_str()), data)
        .property(js_string!("redirected"), false, data)
        .property(js_string!("type"), js_string!("basic"), data)
        .function(text, js_string!("text"), 0)
        .function(json, js_string!("json"), 0)
        .function(array_buffer, js_string!("arrayBuffer"), 0)
        .function(bytes, js_string!("bytes"), 0)
        .build()
}

/// Settles a body method's promise: the body, converted, or a `TypeError` if already used.
fn consume(
    body: &Body,
    convert: impl FnOnce(Vec<u8>, &mut Context) -> JsResult<JsValue>,
    ctx: &mut Context,
) -> JsResult<JsValue> {
    let result = match body.take() {
        Some(bytes) => convert(bytes, ctx),
        None => Err(JsNativeError::typ()
            .with_message("the response body was already used")
            .into()),
    };
    let promise = match result {
        Ok(value) => promise_resolved_with(value.into(), ctx)?,
        Err(error) => {
            let reason = error.into_opaque(ctx)?;
            promise_rejected_with(reason.into(), ctx)?
        }
    };
    Ok(promise.into())
}

/// UTF-8 decode (replacing invalid sequences), without a leading BOM.
fn utf8_decode(bytes: &[u8]) -> JsString {
    let text = String::from_utf8_lossy(bytes);
    JsString::from(text.strip_prefix('\u{FEFF}').unwrap_or(&text))
}

fn body_text(_: &JsValue, _: &[JsValue], body: &Gc<Body>, ctx: &mut Context) -> JsResult<JsValue> {
    consume(body, |bytes, _| Ok(utf8_decode(&bytes).into()), ctx)
}

fn body_json(_: &JsValue, _: &[JsValue], body: &Gc<Body>, ctx: &mut Context) -> JsResult<JsValue> {
    let json_parse = body.json_parse.clone();
    consume(
        body,
        |bytes, ctx| json_parse.call(&JsValue::undefined(), &[utf8_decode(&bytes).into()], ctx),
        ctx,
    )
}

fn body_array_buffer(
    _: &JsValue,
    _: &[JsValue],
    body: &Gc<Body>,
    ctx: &mut Context,
) -> JsResult<JsValue> {
    consume(
        body,
        |bytes, ctx| Ok(array_buffer(&bytes, ctx)?.into()),
        ctx,
    )
}

fn body_bytes(_: &JsValue, _: &[JsValue], body: &Gc<Body>, ctx: &mut Context) -> JsResult<JsValue> {
    consume(
        body,
        |bytes, ctx| {
            let buffer = array_buffer(&bytes, ctx)?;
            Ok(JsUint8Array::from_array_buffer(buffer, ctx)?.into())
        },
        ctx,
    )
}

fn array_buffer(bytes: &[u8], ctx: &mut Context) -> JsResult<JsArrayBuffer> {
    JsArrayBuffer::from_byte_block(AlignedVec::from_slice(0, bytes), ctx)
}

#[cfg(test)]
mod tests {
    use super::resolve_url_path;

    fn path(url: &str) -> Result<(String, String, Vec<String>), String> {
        resolve_url_path(url)
    }

    #[test]
    fn resolves_like_wptserve() {
        let (p, q, s) = path("/interfaces/streams.idl").unwrap();
        assert_eq!(p, "/interfaces/streams.idl");
        assert_eq!(q, "");
        assert_eq!(s, ["interfaces", "streams.idl"]);
        assert_eq!(
            path("interfaces/a.idl?x=1#h").unwrap().0,
            "/interfaces/a.idl"
        );
        assert_eq!(path("interfaces/a.idl?x=1#h").unwrap().1, "?x=1");
        assert_eq!(path("/a/./b/../c").unwrap().0, "/a/c");
        assert_eq!(
            path("http://web-platform.test:8000/a%20b").unwrap().2,
            ["a b"]
        );
        assert_eq!(path("//host/x").unwrap().0, "/x");
        assert_eq!(path("/a/%2e%2e/b").unwrap().0, "/b");
        assert!(path("/../etc/passwd").is_err());
        assert!(path("/a/../../x").is_err());
        assert!(path("a\\..\\..\\x").is_err());
        assert!(path("/a%2Fb").is_err());
        assert!(path("/a%zz").is_err());
        assert!(path("data:text/plain,hi").is_err());
        assert!(path("file:///etc/passwd").is_err());
    }
}
