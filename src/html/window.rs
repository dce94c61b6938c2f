//! A window-like global: `window`, `postMessage(message, targetOrigin, transfer)` that posts to
//! the window itself, and its `onmessage` / `onmessageerror` event handlers
//! (<https://html.spec.whatwg.org/multipage/web-messaging.html#posting-messages>).
//!
//! The global object must be an `EventTarget` (the host makes every global one); installing
//! the window makes `EventTarget.prototype` its prototype, so `addEventListener('message')`
//! works on it. There is one window per realm and no other browsing context, so a message
//! always goes to the window it was posted on.

use crate::engine::webidl;
use crate::engine::{js_string, Cx, JsResult, JsString, Object, PropertyDescriptor, Value};

use super::{
    message_event, message_port::is_message_port, serialize, structured_serialize_options,
    transfer_argument,
};
use crate::dom;

traced! {
    data;
    /// The window's origin, as `MessageEvent.origin` reports it.
    struct WindowOrigin(String);
}

/// Makes the current realm's global object a window: its prototype becomes
/// `EventTarget.prototype`, and it gets `window`, `postMessage`, `onmessage` and
/// `onmessageerror`. `origin` is the serialization of the window's origin.
pub(crate) fn install_window(origin: &str, ctx: &mut Cx) -> JsResult<()> {
    let global = crate::engine::global_object(ctx);
    if !dom::is_event_target(&global.clone().into()) {
        return Err(crate::engine::throw_type_error(
            "this global object is not an EventTarget, so it cannot be a window",
        ));
    }
    let (_, event_target) = dom::event_interfaces(ctx)?;
    global.set_prototype(Some(event_target.prototype()));
    crate::engine::set_realm_data(ctx, WindowOrigin(origin.to_owned()));

    let getter = webidl::function(ctx, "get window", 0, get_window);
    // [LegacyUnforgeable] readonly attribute WindowProxy window: an own accessor.
    global.define_property_or_throw(
        js_string!("window"),
        PropertyDescriptor::builder()
            .get(getter)
            .enumerable(true)
            .configurable(false),
        ctx,
    )?;
    let post = webidl::function(ctx, "postMessage", 1, post_message);
    global.define_property_or_throw(
        js_string!("postMessage"),
        PropertyDescriptor::builder()
            .value(post)
            .writable(true)
            .enumerable(true)
            .configurable(true),
        ctx,
    )?;
    for (name, get, set) in [
        (
            "onmessage",
            get_onmessage as crate::engine::NativeFunctionPointer,
            set_onmessage as crate::engine::NativeFunctionPointer,
        ),
        ("onmessageerror", get_onmessageerror, set_onmessageerror),
    ] {
        let get = webidl::function(ctx, &format!("get {name}"), 0, get);
        let set = webidl::function(ctx, &format!("set {name}"), 1, set);
        global.define_property_or_throw(
            JsString::from(name),
            PropertyDescriptor::builder()
                .get(get)
                .set(set)
                .enumerable(true)
                .configurable(true),
            ctx,
        )?;
    }
    Ok(())
}

fn this_window(ctx: &Cx) -> Object {
    crate::engine::global_object(ctx)
}

fn get_window(_: &Value, _: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    Ok(this_window(ctx).into())
}

fn get_onmessage(_: &Value, _: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let window = this_window(ctx);
    Ok(dom::event_handler_value(&window, &js_string!("message")).map_or(Value::null(), Into::into))
}

fn set_onmessage(_: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let window = this_window(ctx);
    dom::set_event_handler(
        &window,
        js_string!("message"),
        webidl::arg(args, 0).as_object(),
    );
    Ok(Value::undefined())
}

fn get_onmessageerror(_: &Value, _: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let window = this_window(ctx);
    Ok(
        dom::event_handler_value(&window, &js_string!("messageerror"))
            .map_or(Value::null(), Into::into),
    )
}

fn set_onmessageerror(_: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let window = this_window(ctx);
    dom::set_event_handler(
        &window,
        js_string!("messageerror"),
        webidl::arg(args, 0).as_object(),
    );
    Ok(Value::undefined())
}

/// The origin of an absolute URL (`scheme://host[:port]`), or `None` when `url` does not parse
/// as an absolute URL.
fn url_origin(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once(':')?;
    let valid_scheme = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    if !valid_scheme {
        return None;
    }
    let scheme = scheme.to_ascii_lowercase();
    match rest.strip_prefix("//") {
        Some(authority) => {
            let host = authority
                .split(['/', '?', '#'])
                .next()
                .unwrap_or_default()
                .to_ascii_lowercase();
            if host.is_empty() {
                return None;
            }
            Some(format!("{scheme}://{host}"))
        }
        // An opaque origin.
        None => Some("null".to_owned()),
    }
}

/// `postMessage(message, targetOrigin, transfer = [])` /
/// `postMessage(message, options = {})`: the window post message steps, posting to this
/// window.
fn post_message(_: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    webidl::require_args(args, 1, "Window", "postMessage")?;
    let message = args[0].clone();
    let second = webidl::arg(args, 1);
    // Overload resolution: a DOMString targetOrigin, or a WindowPostMessageOptions dictionary
    // (undefined, null, and objects).
    let (target_origin, transfer) = if second.is_null_or_undefined() || second.is_object() {
        if args.len() >= 3 {
            let target_origin = second.to_string(ctx)?;
            let transfer = match transfer_argument(&webidl::arg(args, 2), ctx)? {
                Some(t) => t,
                None if webidl::arg(args, 2).is_undefined() => Vec::new(),
                None => {
                    return Err(crate::engine::throw_type_error(
                        "The transfer list is not iterable",
                    ))
                }
            };
            (target_origin, transfer)
        } else {
            // WindowPostMessageOptions : StructuredSerializeOptions: transfer, then
            // targetOrigin (default "/").
            let transfer = structured_serialize_options(&second, "Window", ctx)?;
            let target_origin = match second.as_object() {
                Some(d) => match d.get(js_string!("targetOrigin"), ctx)? {
                    v if v.is_undefined() => js_string!("/"),
                    v => v.to_string(ctx)?,
                },
                None => js_string!("/"),
            };
            (target_origin, transfer)
        }
    } else {
        let target_origin = second.to_string(ctx)?;
        let third = webidl::arg(args, 2);
        let transfer = if third.is_undefined() {
            Vec::new()
        } else {
            match transfer_argument(&third, ctx)? {
                Some(t) => t,
                None => {
                    return Err(crate::engine::throw_type_error(
                        "The transfer list is not iterable",
                    ))
                }
            }
        };
        (target_origin, transfer)
    };
    window_post_message_steps(
        message,
        &target_origin.to_std_string_escaped(),
        &transfer,
        ctx,
    )?;
    Ok(Value::undefined())
}

/// <https://html.spec.whatwg.org/multipage/web-messaging.html#window-post-message-steps>, with
/// this realm's window as targetWindow and as the incumbent settings object's global.
fn window_post_message_steps(
    message: Value,
    target_origin: &str,
    transfer: &[Object],
    ctx: &mut Cx,
) -> JsResult<()> {
    let own_origin = crate::engine::with_realm_data::<WindowOrigin, _>(ctx, |o| o.0.clone())
        .unwrap_or_else(|| "null".to_owned());
    // 3. Let targetOrigin be options["targetOrigin"].
    // 4. If targetOrigin is a single U+002F SOLIDUS character (/), then set targetOrigin to
    //    incumbentSettings's origin.
    // 5. Otherwise, if targetOrigin is not a single U+002A ASTERISK character (*): parse it as
    //    a URL; on failure throw a "SyntaxError" DOMException; set targetOrigin to the URL's
    //    origin.
    let target_origin = match target_origin {
        "/" => Some(own_origin.clone()),
        "*" => None,
        other => match url_origin(other) {
            Some(origin) => Some(origin),
            None => {
                let exception = dom::create_dom_exception(
                    ctx,
                    &format!("Invalid target origin '{other}' in a call to 'postMessage'"),
                    "SyntaxError",
                )?;
                return Err(crate::engine::throw_value(exception.into()));
            }
        },
    };
    // 6. Let transfer be options["transfer"].
    // 7. Let serializeWithTransferResult be StructuredSerializeWithTransfer(message, transfer).
    //    Rethrow any exceptions.
    let serialized = serialize::structured_serialize_with_transfer(&message, transfer, ctx)?;
    // 8. Queue a global task on the posted message task source given targetWindow to run:
    crate::engine::queue_task(ctx, move |ctx| {
        let window = crate::engine::global_object(ctx);
        // 8.1. If the targetOrigin argument is not "*" and targetWindow's associated
        //      Document's origin is not same origin with targetOrigin, then return.
        if target_origin.is_some_and(|o| o != own_origin) {
            return Ok(());
        }
        // 8.2. Let origin be the serialization of incumbentSettings's origin.
        let origin = JsString::from(own_origin.as_str());
        // 8.3. Let source be the WindowProxy of incumbentSettings's global object.
        let source = Some(window.clone());
        // 8.4. Let deserializeRecord be StructuredDeserializeWithTransfer(
        //      serializeWithTransferResult, targetRealm). If this throws, fire an event named
        //      messageerror at targetWindow, using MessageEvent, with origin and source.
        let record = match serialize::structured_deserialize_with_transfer(serialized, ctx) {
            Ok(record) => record,
            Err(error) if error.is_uncatchable() => return Err(error),
            Err(_) => {
                let event = message_event::new_message_event_from(
                    ctx,
                    "messageerror",
                    Value::null(),
                    origin,
                    source,
                    Vec::new(),
                )?;
                return dom::dispatch(&window, &event, ctx).map(drop);
            }
        };
        // 8.5. Let messageClone be deserializeRecord.[[Deserialized]].
        // 8.6. Let newPorts be a new frozen array of the MessagePort objects in
        //      deserializeRecord.[[TransferredValues]], in order.
        let ports: Vec<Value> = record
            .transferred
            .into_iter()
            .filter(|v| v.as_object().is_some_and(|o| is_message_port(&o)))
            .collect();
        // 8.7. Fire an event named message at targetWindow, using MessageEvent, with origin,
        //      source, data messageClone and ports newPorts.
        let event = message_event::new_message_event_from(
            ctx,
            "message",
            record.value,
            origin,
            source,
            ports,
        )?;
        dom::dispatch(&window, &event, ctx).map(drop)
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::url_origin;

    #[test]
    fn origins() {
        assert_eq!(
            url_origin("http://Example.org:8000/a?b").as_deref(),
            Some("http://example.org:8000")
        );
        assert_eq!(url_origin("nowhere"), None);
        assert_eq!(url_origin("1a:b"), None);
        assert_eq!(url_origin("data:text/plain,x").as_deref(), Some("null"));
    }
}
