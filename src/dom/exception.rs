//! <https://webidl.spec.whatwg.org/#idl-DOMException>

use crate::engine::webidl::{self, InterfaceObject};
use crate::engine::{
    js_string, Cx, JsResult, JsString, Object, PropertyDescriptor, StandardConstructor, Value,
};

use super::{prototype, with_realm, Iface};

const INTERFACE: &str = "DOMException";

traced! {
    data;
    /// A `DOMException`'s internal state: its name and message, and for a
    /// `QuotaExceededError` (a `DOMException`-derived interface) its quota and requested.
    pub(crate) struct DomException {
        name: JsString,
        message: JsString,
        #[unsafe_ignore_trace]
        quota: Option<Quota>,
    }
}

/// A `QuotaExceededError`'s own slots: <https://webidl.spec.whatwg.org/#quotaexceedederror>.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct Quota {
    /// [[quota]], a number or null.
    pub(crate) quota: Option<f64>,
    /// [[requested]], a number or null.
    pub(crate) requested: Option<f64>,
}

/// The legacy code constants: <https://webidl.spec.whatwg.org/#dfn-error-names-table>.
const CONSTANTS: [(&str, u16); 25] = [
    ("INDEX_SIZE_ERR", 1),
    ("DOMSTRING_SIZE_ERR", 2),
    ("HIERARCHY_REQUEST_ERR", 3),
    ("WRONG_DOCUMENT_ERR", 4),
    ("INVALID_CHARACTER_ERR", 5),
    ("NO_DATA_ALLOWED_ERR", 6),
    ("NO_MODIFICATION_ALLOWED_ERR", 7),
    ("NOT_FOUND_ERR", 8),
    ("NOT_SUPPORTED_ERR", 9),
    ("INUSE_ATTRIBUTE_ERR", 10),
    ("INVALID_STATE_ERR", 11),
    ("SYNTAX_ERR", 12),
    ("INVALID_MODIFICATION_ERR", 13),
    ("NAMESPACE_ERR", 14),
    ("INVALID_ACCESS_ERR", 15),
    ("VALIDATION_ERR", 16),
    ("TYPE_MISMATCH_ERR", 17),
    ("SECURITY_ERR", 18),
    ("NETWORK_ERR", 19),
    ("ABORT_ERR", 20),
    ("URL_MISMATCH_ERR", 21),
    ("QUOTA_EXCEEDED_ERR", 22),
    ("TIMEOUT_ERR", 23),
    ("INVALID_NODE_TYPE_ERR", 24),
    ("DATA_CLONE_ERR", 25),
];

/// The names of the error names table that have a legacy code.
const NAMED_CODES: [(&str, u16); 22] = [
    ("IndexSizeError", 1),
    ("HierarchyRequestError", 3),
    ("WrongDocumentError", 4),
    ("InvalidCharacterError", 5),
    ("NoModificationAllowedError", 7),
    ("NotFoundError", 8),
    ("NotSupportedError", 9),
    ("InUseAttributeError", 10),
    ("InvalidStateError", 11),
    ("SyntaxError", 12),
    ("InvalidModificationError", 13),
    ("NamespaceError", 14),
    ("InvalidAccessError", 15),
    ("TypeMismatchError", 17),
    ("SecurityError", 18),
    ("NetworkError", 19),
    ("AbortError", 20),
    ("URLMismatchError", 21),
    ("QuotaExceededError", 22),
    ("TimeoutError", 23),
    ("InvalidNodeTypeError", 24),
    ("DataCloneError", 25),
];

/// The legacy code of an error name (0 for names without one, or not in the table).
fn legacy_code(name: &JsString) -> u16 {
    NAMED_CODES
        .iter()
        .find(|(n, _)| name == &JsString::from(*n))
        .map_or(0, |&(_, code)| code)
}

pub(super) fn build_interface(ctx: &mut Cx) -> StandardConstructor {
    // The interface prototype object's [[Prototype]] is %Error.prototype%.
    let error_prototype = crate::engine::error_prototype(ctx);
    let mut iface = InterfaceObject::new(ctx, INTERFACE, 0, construct);
    iface
        .members()
        .attribute("name", get_name, None)
        .attribute("message", get_message, None)
        .attribute("code", get_code, None);
    for (name, value) in CONSTANTS {
        iface.members().constant(name, value);
    }
    iface.build(Some(error_prototype), None)
}

/// `new DOMException(message = "", name = "Error")`
fn construct(new_target: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    webidl::require_new(new_target, INTERFACE)?;
    let message = match args.first() {
        Some(v) if !v.is_undefined() => v.to_string(ctx)?,
        _ => js_string!(),
    };
    let name = match args.get(1) {
        Some(v) if !v.is_undefined() => v.to_string(ctx)?,
        _ => js_string!("Error"),
    };
    let proto = webidl::prototype_from_new_target(
        new_target,
        |ctx| prototype(Iface::DomException, ctx),
        ctx,
    )?;
    Ok(new_exception_object(proto, name, message, None, ctx)?.into())
}

/// A new `DOMException` platform object: `proto`, the internal state, and its `stack`.
fn new_exception_object(
    proto: Object,
    name: JsString,
    message: JsString,
    quota: Option<Quota>,
    ctx: &mut Cx,
) -> JsResult<Object> {
    let exception = Object::from_proto_and_data(
        proto,
        DomException {
            name,
            message,
            quota,
        },
    );
    attach_stack(&exception, ctx)?;
    Ok(exception)
}

/// Gives a new exception an own `stack` data property, as engines do for `Error` objects: the
/// stack of a fresh intrinsic `Error`, read with the intrinsic `Error.prototype.stack` getter
/// (nothing user-visible is looked up). Skipped when the engine has no stack to give.
fn attach_stack(exception: &Object, ctx: &mut Cx) -> JsResult<()> {
    let Some(getter) = with_realm(ctx, |r| r.error_stack_getter.clone())? else {
        return Ok(());
    };
    let error = crate::engine::clone::new_error("Error", None, ctx)?;
    let stack = crate::engine::call_object(&getter, &error.into(), &[], ctx)?;
    if stack.is_string() {
        exception.insert_property(
            js_string!("stack"),
            PropertyDescriptor::builder()
                .value(stack)
                .writable(true)
                .enumerable(false)
                .configurable(true),
        );
    }
    Ok(())
}

/// The intrinsic `Error.prototype.stack` getter, if the engine has one.
pub(super) fn error_stack_getter(ctx: &mut Cx) -> Option<Object> {
    let proto = crate::engine::error_prototype(ctx);
    let getter = crate::engine::clone::own_accessor_getter(&proto, &js_string!("stack").into())?;
    getter.as_callable()
}

/// Creates a `DOMException` with the given message and name, using the current realm's
/// `DOMException.prototype` (no user-visible lookups).
pub fn create_dom_exception(ctx: &mut Cx, message: &str, name: &str) -> JsResult<Object> {
    new_dom_exception(ctx, JsString::from(message), JsString::from(name))
}

/// [`create_dom_exception`] with the message and name as JS strings, any code units (lone
/// surrogates too: the deserialization steps of a `DOMException` another realm serialized).
pub(crate) fn new_dom_exception(
    ctx: &mut Cx,
    message: JsString,
    name: JsString,
) -> JsResult<Object> {
    let proto = prototype(Iface::DomException, ctx)?;
    new_exception_object(proto, name, message, None, ctx)
}

/// A new `QuotaExceededError` of the current realm (`proto`: its prototype, or one a
/// `new.target` gave) with `message` and the given quota and requested; the name is
/// "QuotaExceededError".
pub(super) fn new_quota_exceeded_error_with(
    proto: Object,
    message: JsString,
    quota: Quota,
    ctx: &mut Cx,
) -> JsResult<Object> {
    new_exception_object(
        proto,
        js_string!("QuotaExceededError"),
        message,
        Some(quota),
        ctx,
    )
}

/// The quota and requested of a `QuotaExceededError` object (`None` for any other value,
/// another `DOMException` too).
pub(crate) fn quota_exceeded_error_slots(value: &Value) -> Option<Quota> {
    let object = value.as_object()?;
    let quota = object.downcast_ref::<DomException>().and_then(|e| e.quota);
    quota
}

/// Whether `value` is a `DOMException` object.
pub fn is_dom_exception(value: &Value) -> bool {
    value.as_object().is_some_and(|o| o.is::<DomException>())
}

/// The `name` of a `DOMException` object (read from its internal slot, not a property).
pub fn dom_exception_name(value: &Value) -> Option<JsString> {
    let object = value.as_object()?;
    let name = object
        .downcast_ref::<DomException>()
        .map(|e| e.name.clone());
    name
}

/// The brand check, then `f` on this's data (a short borrow: `f` must not call into JS).
fn with_this<R>(this: &Value, f: impl FnOnce(&DomException) -> R) -> JsResult<R> {
    Ok(f(webidl::this::<DomException>(this)?.borrow().data()))
}

impl webidl::Interface for DomException {
    const NAME: &'static str = INTERFACE;
}

fn get_name(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    with_this(this, |e| e.name.clone().into())
}

fn get_message(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    with_this(this, |e| e.message.clone().into())
}

fn get_code(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    with_this(this, |e| i32::from(legacy_code(&e.name)).into())
}

/// The `message` of a `DOMException` object (read from its internal slot, not a property).
pub(crate) fn dom_exception_message(value: &Value) -> Option<JsString> {
    let object = value.as_object()?;
    let message = object
        .downcast_ref::<DomException>()
        .map(|e| e.message.clone());
    message
}
