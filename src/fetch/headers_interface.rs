//! The `Headers` interface (<https://fetch.spec.whatwg.org/#headers-class>): the JavaScript
//! face of [`headers_object::Headers`](super::headers_object::Headers), whose header list a
//! `Request` or `Response` shares.

use std::{cell::RefCell, rc::Rc};

use crate::engine::{self, webidl, Cx, JsResult, JsString, Object, Value};

use super::{
    headers_object::{Guard, Headers, HeadersError},
    idl::{to_byte_string, to_headers_init, HeadersInit},
};

/// The header list and guard, shared with the `Request` or `Response` the object belongs to.
pub(crate) type SharedHeaders = Rc<RefCell<Headers>>;

traced! {
    data;
    /// <https://fetch.spec.whatwg.org/#headers-class>
    #[derive(Debug)]
    pub(crate) struct HeadersInterface {
        /// The header list and the guard.
        #[unsafe_ignore_trace]
        pub(crate) headers: SharedHeaders,
    }
}

impl webidl::ClassInterface for HeadersInterface {
    const LENGTH: usize = 0;

    fn members(b: &mut webidl::InterfaceBuilder<'_, '_>) {
        b.operation("append", 2, append);
        b.operation("delete", 1, delete);
        b.operation("get", 1, get);
        b.operation("getSetCookie", 0, get_set_cookie);
        b.operation("has", 1, has);
        b.operation("set", 2, set);
        b.pair_iterable::<Self>();
    }

    /// <https://fetch.spec.whatwg.org/#dom-headers>
    fn construct(_: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Self> {
        let init = match args.first() {
            Some(init) if !init.is_undefined() => Some(to_headers_init(init, ctx)?),
            _ => None,
        };
        // 1. Set this's guard to "none".
        let mut headers = Headers::new(Guard::None);
        // 2. If init is given, then fill this with init.
        if let Some(init) = init {
            fill(&mut headers, init)?;
        }
        Ok(Self {
            headers: Rc::new(RefCell::new(headers)),
        })
    }
}

webidl::interface!(HeadersInterface, "Headers");

/// A `TypeError` for what [`Headers`] rejected.
fn headers_error(error: HeadersError) -> engine::JsError {
    engine::throw_type_error(format!("Headers: {error}"))
}

/// <https://fetch.spec.whatwg.org/#concept-headers-fill>
pub(crate) fn fill(headers: &mut Headers, init: HeadersInit) -> JsResult<()> {
    headers.fill(&init.into_items()).map_err(headers_error)
}

/// A new `Headers` object of the current realm over `headers` (a request's or response's).
pub(crate) fn new_headers_object(
    headers: SharedHeaders,
    ctx: &mut Cx,
) -> JsResult<Object<HeadersInterface>> {
    webidl::new_object(HeadersInterface { headers }, ctx)
}

/// A byte sequence as the `ByteString` value script sees (each byte one code unit).
pub(crate) fn byte_string_value(bytes: &[u8]) -> Value {
    let units: Vec<u16> = bytes.iter().map(|&b| u16::from(b)).collect();
    JsString::from(units.as_slice()).into()
}

fn this_headers(this: &Value) -> JsResult<SharedHeaders> {
    Ok(webidl::this::<HeadersInterface>(this)?
        .borrow()
        .data()
        .headers
        .clone())
}

/// The `ByteString` arguments of a method, converted in order after the count check.
fn byte_string_args<const N: usize>(
    args: &[Value],
    name: &str,
    ctx: &mut Cx,
) -> JsResult<[Vec<u8>; N]> {
    webidl::require_args(args, N, "Headers", name)?;
    let mut out: [Vec<u8>; N] = std::array::from_fn(|_| Vec::new());
    for (i, slot) in out.iter_mut().enumerate() {
        *slot = to_byte_string(&webidl::arg(args, i), ctx)?;
    }
    Ok(out)
}

/// <https://fetch.spec.whatwg.org/#dom-headers-append>
fn append(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let headers = this_headers(this)?;
    let [name, value] = byte_string_args::<2>(args, "append", ctx)?;
    // Append (name, value) to this.
    headers
        .borrow_mut()
        .append(&name, &value)
        .map_err(headers_error)?;
    Ok(Value::undefined())
}

/// <https://fetch.spec.whatwg.org/#dom-headers-delete>
fn delete(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let headers = this_headers(this)?;
    let [name] = byte_string_args::<1>(args, "delete", ctx)?;
    headers.borrow_mut().delete(&name).map_err(headers_error)?;
    Ok(Value::undefined())
}

/// <https://fetch.spec.whatwg.org/#dom-headers-get>
fn get(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let headers = this_headers(this)?;
    let [name] = byte_string_args::<1>(args, "get", ctx)?;
    let value = headers.borrow().get(&name).map_err(headers_error)?;
    Ok(value.map_or_else(Value::null, |v| byte_string_value(&v)))
}

/// <https://fetch.spec.whatwg.org/#dom-headers-getsetcookie>
fn get_set_cookie(this: &Value, _: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let headers = this_headers(this)?;
    let values: Vec<Value> = headers
        .borrow()
        .get_set_cookie()
        .iter()
        .map(|v| byte_string_value(v))
        .collect();
    Ok(engine::create_array_from_list(values, ctx).into())
}

/// <https://fetch.spec.whatwg.org/#dom-headers-has>
fn has(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let headers = this_headers(this)?;
    let [name] = byte_string_args::<1>(args, "has", ctx)?;
    let has = headers.borrow().has(&name).map_err(headers_error)?;
    Ok(has.into())
}

/// <https://fetch.spec.whatwg.org/#dom-headers-set>
fn set(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let headers = this_headers(this)?;
    let [name, value] = byte_string_args::<2>(args, "set", ctx)?;
    headers
        .borrow_mut()
        .set(&name, &value)
        .map_err(headers_error)?;
    Ok(Value::undefined())
}

impl webidl::PairIterable for HeadersInterface {
    /// <https://fetch.spec.whatwg.org/#concept-headers-iterate>: the value pairs to iterate
    /// over are the header list sorted and combined, computed afresh at each step (the list
    /// may change between steps).
    fn value_pair(this: &Object<Self>, index: usize) -> Option<(Value, Value)> {
        let headers = this.borrow().data().headers.clone();
        let pairs = headers.borrow().value_pairs_to_iterate_over();
        pairs
            .get(index)
            .map(|(name, value)| (byte_string_value(name), byte_string_value(value)))
    }
}
