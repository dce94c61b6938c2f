//! The `URLSearchParams` interface: <https://url.spec.whatwg.org/#interface-urlsearchparams>.

use std::cell::RefCell;

use super::interface::{usv_string, Url};
use super::urlencoded::{
    application_x_www_form_urlencoded_parser, application_x_www_form_urlencoded_serializer,
};
use crate::engine::{self, webidl, Cx, JsResult, JsString, Object, Slot, Value};

traced! {
    data;
    /// <https://url.spec.whatwg.org/#interface-urlsearchparams>
    pub(crate) struct UrlSearchParams {
        /// <https://url.spec.whatwg.org/#concept-urlsearchparams-list>: name-value pairs of
        /// scalar value strings.
        #[unsafe_ignore_trace]
        list: RefCell<Vec<(String, String)>>,
        /// <https://url.spec.whatwg.org/#concept-urlsearchparams-url-object>
        url_object: Slot<Option<Object<Url>>>,
    }
}

impl UrlSearchParams {
    fn new(list: Vec<(String, String)>) -> Self {
        Self {
            list: RefCell::new(list),
            url_object: Slot::new(None),
        }
    }
}

impl webidl::ClassInterface for UrlSearchParams {
    const LENGTH: usize = 0;

    fn members(b: &mut webidl::InterfaceBuilder<'_, '_>) {
        b.attribute("size", size, None)
            .operation("append", 2, append)
            .operation("delete", 1, delete)
            .operation("get", 1, get)
            .operation("getAll", 1, get_all)
            .operation("has", 1, has)
            .operation("set", 2, set)
            .operation("sort", 0, sort)
            .pair_iterable::<Self>()
            .operation("toString", 0, to_string);
    }

    /// <https://url.spec.whatwg.org/#dom-urlsearchparams-urlsearchparams>
    fn construct(_: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Self> {
        let init = convert_init(&webidl::arg(args, 0), ctx)?;
        let this = Self::new(Vec::new());
        // 1. If init is a string and starts with U+003F (?), then remove the first code point
        //    from init.
        let init = match init {
            Init::String(string) => match string.strip_prefix('?') {
                Some(rest) => Init::String(rest.to_owned()),
                None => Init::String(string),
            },
            init => init,
        };
        // 2. Initialize this with init.
        initialize(&this, init)?;
        Ok(this)
    }
}

webidl::interface!(UrlSearchParams, "URLSearchParams");

impl webidl::PairIterable for UrlSearchParams {
    /// The value pairs to iterate over are this's list's tuples, name as key and value as
    /// value.
    fn value_pair(this: &Object<Self>, index: usize) -> Option<(Value, Value)> {
        let this = this.borrow();
        let list = this.data().list.borrow();
        let (name, value) = list.get(index)?;
        Some((
            JsString::from(name.as_str()).into(),
            JsString::from(value.as_str()).into(),
        ))
    }
}

/// The constructor's argument, converted:
/// `(sequence<sequence<USVString>> or record<USVString, USVString> or USVString)`.
enum Init {
    Sequence(Vec<Vec<String>>),
    Record(Vec<(String, String)>),
    String(String),
}

/// <https://webidl.spec.whatwg.org/#es-union> for the constructor's `init` (default "").
fn convert_init(value: &Value, ctx: &mut Cx) -> JsResult<Init> {
    // An undefined optional argument takes its default, "".
    if value.is_undefined() {
        return Ok(Init::String(String::new()));
    }
    // 5. If V is an Object:
    if let Some(object) = value.as_object() {
        // 1. If types includes a sequence type: let method be ? GetMethod(V, @@iterator); if
        //    it is not undefined, return the result of creating a sequence of that type from V
        //    and method.
        if let Some(method) = webidl::iterator_method(&object, ctx)? {
            let sequences = webidl::usv_string_sequences_from_iterable(&object, &method, ctx)?;
            return Ok(Init::Sequence(
                sequences
                    .into_iter()
                    .map(|inner| inner.iter().map(JsString::to_std_string_lossy).collect())
                    .collect(),
            ));
        }
        // 4. If types includes a record type, return the result of converting V to it.
        let record = webidl::to_usv_string_record(value, ctx)?;
        return Ok(Init::Record(
            record
                .iter()
                .map(|(k, v)| (k.to_std_string_lossy(), v.to_std_string_lossy()))
                .collect(),
        ));
    }
    // 11. If types includes a string type, return the result of converting V to that type.
    Ok(Init::String(usv_string(value, ctx)?))
}

/// <https://url.spec.whatwg.org/#urlsearchparams-initialize>
fn initialize(query: &UrlSearchParams, init: Init) -> JsResult<()> {
    match init {
        // 1. If init is a sequence, then for each innerSequence of init:
        Init::Sequence(sequences) => {
            for inner in sequences {
                // 1. If innerSequence's size is not 2, then throw a TypeError.
                let Ok([name, value]) = <[String; 2]>::try_from(inner) else {
                    return Err(engine::throw_type_error(
                        "Failed to construct 'URLSearchParams': a name-value pair must have exactly two items",
                    ));
                };
                // 2. Append (innerSequence[0], innerSequence[1]) to query's list.
                query.list.borrow_mut().push((name, value));
            }
        }
        // 2. Otherwise, if init is a record, then for each name → value of init, append
        //    (name, value) to query's list.
        Init::Record(record) => query.list.borrow_mut().extend(record),
        // 3. Otherwise: Assert: init is a string. Set query's list to the result of parsing
        //    init.
        Init::String(string) => *query.list.borrow_mut() = parse(&string),
    }
    Ok(())
}

/// Parsing a string for a query object: the application/x-www-form-urlencoded parser on its
/// UTF-8 encoding.
fn parse(input: &str) -> Vec<(String, String)> {
    application_x_www_form_urlencoded_parser(input.as_bytes())
}

/// "A new URLSearchParams object" initialized with `query`, whose URL object is `url`: steps
/// 3–5 of <https://url.spec.whatwg.org/#url-initialize>.
pub(super) fn new_for_url(
    query: &str,
    url: &Object<Url>,
    ctx: &mut Cx,
) -> JsResult<Object<UrlSearchParams>> {
    let data = UrlSearchParams::new(Vec::new());
    initialize(&data, Init::String(query.to_owned()))?;
    *data.url_object.borrow_mut() = Some(url.clone());
    webidl::new_object(data, ctx)
}

/// Sets a query object's list to the result of parsing `query` (the URL's href and search
/// setters).
pub(super) fn set_list_from_query(query_object: &Object<UrlSearchParams>, query: &str) {
    *query_object.borrow().data().list.borrow_mut() = parse(query);
}

/// <https://url.spec.whatwg.org/#concept-urlsearchparams-update>
fn update(query: &UrlSearchParams) {
    // 1. If query's URL object is null, then return.
    let Some(url) = query.url_object.borrow().clone() else {
        return;
    };
    // 2. Let serializedQuery be the serialization of query's list.
    let serialized = application_x_www_form_urlencoded_serializer(&query.list.borrow());
    // 3. If serializedQuery is the empty string, then set serializedQuery to null.
    let serialized = Some(serialized).filter(|s| !s.is_empty());
    // 4. Set query's URL object's URL's query to serializedQuery.
    // 5. If serializedQuery is null, then potentially strip trailing spaces from an opaque path
    //    with query's URL object.
    url.borrow().data().set_query(serialized.as_deref());
}

/// The brand check and the converted `USVString` arguments of an operation (after the check
/// that `required` arguments are present).
fn this_and_strings(
    this: &Value,
    args: &[Value],
    required: usize,
    member: &str,
    ctx: &mut Cx,
) -> JsResult<(Object<UrlSearchParams>, Vec<String>)> {
    let this = webidl::this::<UrlSearchParams>(this)?;
    webidl::require_args(args, required, "URLSearchParams", member)?;
    let strings = args
        .iter()
        .take(required)
        .map(|arg| usv_string(arg, ctx))
        .collect::<JsResult<Vec<_>>>()?;
    Ok((this, strings))
}

/// An optional `USVString` argument: `None` when it is missing (undefined).
fn optional_string(args: &[Value], n: usize, ctx: &mut Cx) -> JsResult<Option<String>> {
    let value = webidl::arg(args, n);
    if value.is_undefined() {
        Ok(None)
    } else {
        usv_string(&value, ctx).map(Some)
    }
}

/// <https://url.spec.whatwg.org/#dom-urlsearchparams-size>: this's list's size.
fn size(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    let this = webidl::this::<UrlSearchParams>(this)?;
    let size = this.borrow().data().list.borrow().len();
    Ok(size.into())
}

/// <https://url.spec.whatwg.org/#dom-urlsearchparams-append>
fn append(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let (this, strings) = this_and_strings(this, args, 2, "append", ctx)?;
    let [name, value] = <[String; 2]>::try_from(strings).unwrap_or_default();
    let this = this.borrow();
    let query = this.data();
    // 1. Append (name, value) to this's list.
    query.list.borrow_mut().push((name, value));
    // 2. Update this.
    update(query);
    Ok(Value::undefined())
}

/// <https://url.spec.whatwg.org/#dom-urlsearchparams-delete>
fn delete(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let (this, strings) = this_and_strings(this, args, 1, "delete", ctx)?;
    let name = strings.into_iter().next().unwrap_or_default();
    let value = optional_string(args, 1, ctx)?;
    let this = this.borrow();
    let query = this.data();
    // 1. If value is given, then remove all tuples whose name is name and value is value from
    //    this's list.
    // 2. Otherwise, remove all tuples whose name is name from this's list.
    query
        .list
        .borrow_mut()
        .retain(|(n, v)| !(*n == name && value.as_ref().is_none_or(|value| v == value)));
    // 3. Update this.
    update(query);
    Ok(Value::undefined())
}

/// <https://url.spec.whatwg.org/#dom-urlsearchparams-get>: the value of the first tuple whose
/// name is name in this's list, if there is one; otherwise null.
fn get(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let (this, strings) = this_and_strings(this, args, 1, "get", ctx)?;
    let name = strings.into_iter().next().unwrap_or_default();
    let this = this.borrow();
    let list = this.data().list.borrow();
    Ok(match list.iter().find(|(n, _)| *n == name) {
        Some((_, value)) => JsString::from(value.as_str()).into(),
        None => Value::null(),
    })
}

/// <https://url.spec.whatwg.org/#dom-urlsearchparams-getall>: the values of all tuples whose
/// name is name in this's list, in list order.
fn get_all(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let (this, strings) = this_and_strings(this, args, 1, "getAll", ctx)?;
    let name = strings.into_iter().next().unwrap_or_default();
    let values: Vec<Value> = {
        let this = this.borrow();
        let list = this.data().list.borrow();
        list.iter()
            .filter(|(n, _)| *n == name)
            .map(|(_, value)| JsString::from(value.as_str()).into())
            .collect()
    };
    Ok(engine::create_array_from_list(values, ctx).into())
}

/// <https://url.spec.whatwg.org/#dom-urlsearchparams-has>
fn has(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let (this, strings) = this_and_strings(this, args, 1, "has", ctx)?;
    let name = strings.into_iter().next().unwrap_or_default();
    let value = optional_string(args, 1, ctx)?;
    let this = this.borrow();
    let list = this.data().list.borrow();
    // 1. If value is given and there is a tuple whose name is name and value is value in
    //    this's list, then return true.
    // 2. If value is not given and there is a tuple whose name is name in this's list, then
    //    return true.
    // 3. Return false.
    let found = list
        .iter()
        .any(|(n, v)| *n == name && value.as_ref().is_none_or(|value| v == value));
    Ok(found.into())
}

/// <https://url.spec.whatwg.org/#dom-urlsearchparams-set>
fn set(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let (this, strings) = this_and_strings(this, args, 2, "set", ctx)?;
    let [name, value] = <[String; 2]>::try_from(strings).unwrap_or_default();
    let this = this.borrow();
    let query = this.data();
    {
        let mut list = query.list.borrow_mut();
        match list.iter().position(|(n, _)| *n == name) {
            // 1. If this's list contains any tuples whose name is name, then set the value of
            //    the first such tuple to value and remove the others.
            Some(first) => {
                list[first].1 = value;
                let mut index = 0;
                list.retain(|(n, _)| {
                    let keep = index <= first || *n != name;
                    index += 1;
                    keep
                });
            }
            // 2. Otherwise, append (name, value) to this's list.
            None => list.push((name, value)),
        }
    }
    // 3. Update this.
    update(query);
    Ok(Value::undefined())
}

/// <https://url.spec.whatwg.org/#dom-urlsearchparams-sort>
fn sort(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    let this = webidl::this::<UrlSearchParams>(this)?;
    let this = this.borrow();
    let query = this.data();
    // 1. Sort all tuples in this's list, if any, by their names. Sorting must be done by
    //    comparison of code units. The relative order between tuples with equal names must be
    //    preserved.
    query
        .list
        .borrow_mut()
        .sort_by(|(a, _), (b, _)| a.encode_utf16().cmp(b.encode_utf16()));
    // 2. Update this.
    update(query);
    Ok(Value::undefined())
}

/// <https://url.spec.whatwg.org/#urlsearchparams-stringification-behavior>: the
/// serialization of this's list.
fn to_string(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    let this = webidl::this::<UrlSearchParams>(this)?;
    let serialized =
        application_x_www_form_urlencoded_serializer(&this.borrow().data().list.borrow());
    Ok(JsString::from(serialized).into())
}

/// The serialization of `value`'s list, if it is a `URLSearchParams` (what a body made from one
/// holds: <https://fetch.spec.whatwg.org/#concept-bodyinit-extract>).
pub(crate) fn serialized_list(value: &Value) -> Option<String> {
    let object = value.as_object()?.downcast::<UrlSearchParams>().ok()?;
    let serialized =
        application_x_www_form_urlencoded_serializer(&object.borrow().data().list.borrow());
    Some(serialized)
}
