//! Bodies (<https://fetch.spec.whatwg.org/#bodies>) and the `Body` interface mixin
//! (<https://fetch.spec.whatwg.org/#body-mixin>): extracting a body from a `BodyInit`, "fully
//! read", "consume body", and "clone" through the tee. A body's bytes always flow through its
//! `ReadableStream`, set up on the Streams Standard's "other specifications" API.

use std::{rc::Rc, sync::Arc};

use crate::engine::{self, webidl, Cx, JsResult, Object, PromiseCapability, Slot, Value};
use crate::readable::{
    other_specs::{self, ByteSequence, ReadAllBytesSteps},
    stream::as_stream,
    ReadableStream,
};

use super::mime::{self, MimeType};

traced! {
    /// <https://fetch.spec.whatwg.org/#concept-body>
    #[derive(Debug, Clone)]
    pub(crate) struct Body {
        /// The stream (a `ReadableStream` object); `None` while it is not made yet.
        ///
        /// AD-HOC: a body extracted from a byte sequence (a string, a buffer, form data,
        /// `URLSearchParams`, `Response.json()`) makes its stream when something first needs it
        /// ([`BodyMixin::made_body`]): the `body` getter, a read, a clone, a fetch, an abort.
        /// Until then nothing can tell: that stream would hold the bytes as one chunk, closed,
        /// and pull nothing, so neither its start nor any read depends on when it was made. A
        /// body never read (a response a server sends as its bytes, one made and dropped) then
        /// makes no stream, no start microtask and no cycle for the collector to find.
        pub(crate) stream: Option<Object<ReadableStream>>,
        /// The source: the bytes, where the body was made from bytes (null for a stream).
        #[unsafe_ignore_trace]
        pub(crate) source: Option<Arc<[u8]>>,
        /// The length (null when unknown).
        #[unsafe_ignore_trace]
        pub(crate) length: Option<u64>,
        /// A server sent the source's bytes before the stream was made: the stream is made
        /// locked, as it is when a server sends a made stream's source.
        #[unsafe_ignore_trace]
        pub(crate) sent: bool,
        /// The source's bytes, counted toward a collection while the stream is not made (the
        /// stream's queue counts them once it is): see `engine::ExternalBytes`.
        #[unsafe_ignore_trace]
        counted: Option<Rc<engine::ExternalBytes>>,
    }
}

impl Body {
    /// A body whose stream is `stream` (`length` when known), with no source.
    pub(crate) fn of_stream(stream: Object<ReadableStream>, length: Option<u64>) -> Self {
        Self {
            stream: Some(stream),
            source: None,
            length,
            sent: false,
            counted: None,
        }
    }

    /// The stream, which the caller made first ([`BodyMixin::made_body`]).
    pub(crate) fn stream(&self) -> JsResult<&Object<ReadableStream>> {
        self.stream
            .as_ref()
            .ok_or_else(|| engine::throw_type_error("The body's stream was not made"))
    }

    /// Whether the stream is disturbed (one not made yet is not).
    pub(crate) fn is_disturbed(&self) -> bool {
        self.stream.as_ref().is_some_and(other_specs::is_disturbed)
    }

    /// Whether the stream is locked (one not made yet is if a server sent its bytes).
    pub(crate) fn is_locked(&self) -> bool {
        match &self.stream {
            Some(stream) => other_specs::is_locked(stream),
            None => self.sent,
        }
    }
}

/// A `BodyInit` value, converted (<https://fetch.spec.whatwg.org/#bodyinit-unions>).
pub(crate) enum BodyInit {
    Stream(Object<ReadableStream>),
    /// A `Blob` (or `File`).
    Blob(Object),
    /// A `FormData`.
    FormData(Object<super::form_data::FormData>),
    /// A `URLSearchParams`, serialized at conversion.
    SearchParams(String),
    /// A `BufferSource`'s bytes (copied at conversion: "get a copy of the bytes held by the
    /// buffer source"), copied once, into the shared block the body's source keeps.
    Bytes(Arc<[u8]>),
    /// A scalar value string, UTF-8 encoded.
    Text(Arc<[u8]>),
}

/// Converts a JS value to `BodyInit` (<https://webidl.spec.whatwg.org/#es-union>): an object
/// that implements one of the union's interfaces, then a buffer source, then `USVString`.
pub(crate) fn to_body_init(value: &Value, ctx: &mut Cx) -> JsResult<BodyInit> {
    if let Some(stream) = as_stream(value) {
        return Ok(BodyInit::Stream(stream));
    }
    if let Some(object) = value.as_object() {
        if crate::file::blob_data(&object).is_some() {
            return Ok(BodyInit::Blob(object));
        }
    }
    if let Some(form_data) = super::form_data::as_form_data(value) {
        return Ok(BodyInit::FormData(form_data));
    }
    if let Some(serialized) = crate::url::serialized_search_params(value) {
        return Ok(BodyInit::SearchParams(serialized));
    }
    // An object with [[ArrayBufferData]] or [[ViewedArrayBuffer]] goes to the `BufferSource`
    // member, whose conversion throws for a shared or resizable buffer (no `[AllowShared]`,
    // no `[AllowResizable]`).
    if engine::is_buffer_source_object(value) {
        // The conversion's TypeErrors (a shared or resizable buffer), then the copy, made
        // straight into the body's shared block (a detached buffer, or a view out of its
        // bounds, holds no bytes).
        engine::check_buffer_source(value, false, "The body", ctx)?;
        let bytes = engine::with_buffer_source_bytes(value, ctx, |b| Arc::<[u8]>::from(b))
            .unwrap_or_else(|| Arc::from(&[][..]));
        return Ok(BodyInit::Bytes(bytes));
    }
    Ok(BodyInit::Text(crate::encoding::utf8_encode_value(
        value, ctx,
    )?))
}

/// A new `ReadableStream` set up with byte reading support that holds `bytes` and is closed:
/// the "in parallel" action of "extract" for a byte sequence, run at once (all the bytes are
/// available).
pub(crate) fn byte_stream_of(
    bytes: Option<&Arc<[u8]>>,
    ctx: &mut Cx,
) -> JsResult<Object<ReadableStream>> {
    let stream = other_specs::set_up_with_byte_reading_support(None, 0.0, None, ctx)?;
    if let Some(bytes) = bytes.filter(|bytes| !bytes.is_empty()) {
        // (Rust bytes shared with the body's source, not a copy: see `ByteChunk::Bytes`. A
        // body sent as its source's bytes never reads them, so the stream lives until the
        // engine collects it; while it does they count toward a collection.)
        other_specs::enqueue_shared_bytes(&stream, bytes.clone(), 0..bytes.len(), ctx)?;
    }
    other_specs::close(&stream, ctx)?;
    Ok(stream)
}

/// <https://fetch.spec.whatwg.org/#concept-bodyinit-extract> (keepalive false): the body and
/// its Content-Type.
pub(crate) fn extract(object: BodyInit, ctx: &mut Cx) -> JsResult<(Body, Option<Vec<u8>>)> {
    // 1.–3. The stream: object itself, or a new one set up with byte reading support.
    // 5. Let action be null. 6. Let source be null. 7. Let length be null. 8. Let type be null.
    // 9. Switch on object:
    let (source, type_): (Arc<[u8]>, Option<&[u8]>) = match object {
        // ReadableStream:
        BodyInit::Stream(stream) => {
            // 2. If keepalive is true, then throw a TypeError. (Never here.)
            // 3. If object is disturbed or locked, then throw a TypeError.
            if other_specs::is_disturbed(&stream) || other_specs::is_locked(&stream) {
                return Err(engine::throw_type_error(
                    "The body stream is disturbed or locked",
                ));
            }
            // 12. Let body be a body whose stream is stream, source is source, and length is
            //     length. 13. Return (body, type).
            return Ok((Body::of_stream(stream, None), None));
        }
        // Blob: set source to object; set length to object's size; if object's type
        // attribute is not the empty byte sequence, set type to its value. (The stream is
        // object's get stream, step 2.)
        BodyInit::Blob(object) => {
            let Some((bytes, type_)) = crate::file::blob_data(&object) else {
                return Err(engine::throw_type_error("The body is not a Blob"));
            };
            let stream = as_stream(&crate::file::blob_stream(&object, ctx)?)
                .ok_or_else(|| engine::throw_type_error("Blob.stream() gave no stream"))?;
            let mut body = Body::of_stream(stream, Some(bytes.len() as u64));
            body.source = Some(bytes);
            let type_ = (!type_.is_empty()).then(|| type_.into_bytes());
            return Ok((body, type_));
        }
        // FormData: set action to an algorithm that runs the multipart/form-data encoding
        // algorithm, with object's entry list and UTF-8; set source to object; set length to
        // unclear; set type to `multipart/form-data; boundary=`, followed by the
        // multipart/form-data boundary string generated by the algorithm. (The action runs
        // now: the bytes are the source.)
        BodyInit::FormData(form_data) => {
            let entries = super::form_data::multipart_entries(&form_data);
            let (bytes, type_) = super::multipart::extract_a_form_data_body(&entries);
            let body = body_from_bytes(bytes.into(), ctx)?;
            return Ok((body, Some(type_)));
        }
        // URLSearchParams: set source to the result of running the
        // application/x-www-form-urlencoded serializer with object's list; set type to
        // `application/x-www-form-urlencoded;charset=UTF-8`.
        BodyInit::SearchParams(serialized) => (
            serialized.into_bytes().into(),
            Some(b"application/x-www-form-urlencoded;charset=UTF-8".as_slice()),
        ),
        // BufferSource: set source to a copy of the bytes held by object.
        BodyInit::Bytes(bytes) => (bytes, None),
        // scalar value string: set source to the UTF-8 encoding of object; set type to
        // `text/plain;charset=UTF-8`.
        BodyInit::Text(text) => (text, Some(b"text/plain;charset=UTF-8".as_slice())),
    };
    let body = body_from_bytes(source, ctx)?;
    Ok((body, type_.map(<[u8]>::to_vec)))
}

/// "Extract" steps 10–13 for a byte sequence `source`: action returns source, length is its
/// length, and the action's bytes are enqueued into the new stream, which then closes (when
/// the stream is made: see [`Body::stream`]).
pub(crate) fn body_from_bytes(source: Arc<[u8]>, ctx: &mut Cx) -> JsResult<Body> {
    // (The bytes count toward a collection from here, as the stream's queue would count them:
    // a collection first if they have grown enough, a RangeError past the agent's limit.)
    let counted = Rc::new(engine::ExternalBytes::new(source.len()));
    engine::collect_if_external_bytes_grew(ctx);
    engine::check_external_bytes_limit(ctx)?;
    // 10. If source is a byte sequence, then set action to a step that returns source and
    //     length to source's length.
    // 11. If action is non-null, then run these steps in parallel: enqueue the bytes
    //     (one Uint8Array, all being available) into stream, then close stream. (Run when
    //     the stream is made.)
    Ok(Body {
        stream: None,
        length: Some(source.len() as u64),
        source: Some(source),
        sent: false,
        counted: Some(counted),
    })
}

/// Makes `body`'s stream if it is not made yet: the stream "extract" sets up for its source
/// (locked if a server sent the bytes); whether it made one.
fn make_stream(body: &mut Body, ctx: &mut Cx) -> JsResult<bool> {
    if body.stream.is_some() {
        return Ok(false);
    }
    let stream = byte_stream_of(body.source.as_ref(), ctx)?;
    if body.sent {
        other_specs::get_a_reader(&stream, ctx)?;
    }
    body.stream = Some(stream);
    // (The stream's queue counts the bytes now.)
    body.counted = None;
    Ok(true)
}

/// <https://fetch.spec.whatwg.org/#concept-body-clone>: tees the stream; `body` keeps the first
/// branch, the clone gets the second.
pub(crate) fn clone_body(body: &mut Body, ctx: &mut Cx) -> JsResult<Body> {
    // 1. Let « out1, out2 » be the result of teeing body's stream.
    let (out1, out2) = other_specs::tee(body.stream()?, ctx)?;
    // 2. Set body's stream to out1.
    body.stream = Some(out1);
    // 3. Return a body whose stream is out2 and other members are copied from body.
    Ok(Body {
        stream: Some(out2),
        source: body.source.clone(),
        length: body.length,
        sent: false,
        counted: None,
    })
}

/// An object that includes the `Body` mixin (`Request`, `Response`): its body slot and how it
/// gets its MIME type.
pub(crate) trait BodyMixin: webidl::Interface + Sized {
    /// The object's body (its request's or response's), if non-null, its stream made or not
    /// ([`Body::stream`]).
    fn body(this: &Object<Self>) -> Option<Body> {
        Self::with_body(this, |body| body.clone())
    }

    /// Runs `f` on the object's body slot (a short borrow: `f` runs no script and makes no
    /// engine object).
    fn with_body<R>(this: &Object<Self>, f: impl FnOnce(&mut Option<Body>) -> R) -> R;

    /// <https://fetch.spec.whatwg.org/#concept-body-mime-type>
    fn mime_type(this: &Object<Self>) -> Option<MimeType>;

    /// The object's body, if non-null, with its stream made (made now if it was not yet, and
    /// kept in the object's body).
    fn made_body(this: &Object<Self>, ctx: &mut Cx) -> JsResult<Option<Body>> {
        let Some(mut body) = Self::body(this) else {
            return Ok(None);
        };
        // (The stream is made with the slot not borrowed: making it may collect.)
        if make_stream(&mut body, ctx)? {
            Self::with_body(this, |slot| {
                if let Some(slot) = slot.as_mut().filter(|slot| slot.stream.is_none()) {
                    slot.stream.clone_from(&body.stream);
                    slot.counted = None;
                }
            });
        }
        Ok(Some(body))
    }
}

/// Defines the `Body` mixin's members on `T`'s prototype.
pub(crate) fn define_body_mixin<T: BodyMixin + 'static>(b: &mut webidl::InterfaceBuilder<'_, '_>) {
    b.attribute("body", get_body::<T>, None);
    b.attribute("bodyUsed", get_body_used::<T>, None);
    b.promise_operation("arrayBuffer", 0, array_buffer::<T>);
    b.promise_operation("blob", 0, blob::<T>);
    b.promise_operation("bytes", 0, bytes::<T>);
    b.promise_operation("formData", 0, form_data::<T>);
    b.promise_operation("json", 0, json::<T>);
    b.promise_operation("text", 0, text::<T>);
    b.operation("textStream", 0, text_stream::<T>);
}

/// <https://fetch.spec.whatwg.org/#dom-body-textstream>
fn text_stream<T: BodyMixin + 'static>(this: &Value, _: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let this = webidl::this::<T>(this)?;
    // 1. If this is unusable, then throw a TypeError.
    if is_unusable(T::body(&this).as_ref()) {
        return Err(engine::throw_type_error(
            "textStream: the body has already been used or is locked",
        ));
    }
    // 2. Let stream be this's body's stream; if this's body is null, a new ReadableStream
    //    that is closed (an empty body).
    let stream = match T::made_body(&this, ctx)? {
        Some(body) => body.stream()?.clone(),
        None => byte_stream_of(None, ctx)?,
    };
    // 3. Let decoder be a new TextDecoderStream in this's relevant realm (UTF-8).
    // 4. Return the result of stream piped through decoder.
    Ok(crate::encoding::pipe_through_utf8_decoder(&stream, ctx)?
        .upcast()
        .into())
}

/// <https://fetch.spec.whatwg.org/#dom-body-body>
fn get_body<T: BodyMixin + 'static>(this: &Value, _: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let this = webidl::this::<T>(this)?;
    // The getter steps are to return null if this's body is null; otherwise this's body's
    // stream.
    match T::made_body(&this, ctx)? {
        Some(body) => Ok(body.stream()?.clone().into()),
        None => Ok(Value::null()),
    }
}

/// <https://fetch.spec.whatwg.org/#dom-body-bodyused>
fn get_body_used<T: BodyMixin + 'static>(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    let this = webidl::this::<T>(this)?;
    // The getter steps are to return true if this's body is non-null and this's body's stream
    // is disturbed; otherwise false.
    Ok(is_body_used(T::body(&this).as_ref()).into())
}

/// The `bodyUsed` condition: the body is non-null and its stream is disturbed.
pub(crate) fn is_body_used(body: Option<&Body>) -> bool {
    body.is_some_and(Body::is_disturbed)
}

/// <https://fetch.spec.whatwg.org/#body-unusable>
pub(crate) fn is_unusable(body: Option<&Body>) -> bool {
    // An object including the Body interface mixin is said to be unusable if its body is
    // non-null and its body's stream is disturbed or locked.
    body.is_some_and(|body| body.is_disturbed() || body.is_locked())
}

/// What "consume body" converts the bytes to.
#[derive(Debug, Clone, Copy)]
enum Convert {
    ArrayBuffer,
    Blob,
    Bytes,
    FormData,
    Json,
    Text,
}

/// How "consume body" reads its object's MIME type when it converts (the object's type, erased).
type MimeTypeOf = fn(&Object) -> Option<MimeType>;

fn mime_type_of_object<T: BodyMixin>(object: &Object) -> Option<MimeType> {
    object
        .clone()
        .downcast::<T>()
        .ok()
        .and_then(|o| T::mime_type(&o))
}

impl Convert {
    fn run(
        self,
        bytes: ByteSequence,
        owner: &Object,
        mime: MimeTypeOf,
        ctx: &mut Cx,
    ) -> JsResult<Value> {
        // text() decodes the bytes where they are; every other conversion takes one block.
        if let Convert::Text = self {
            return crate::encoding::utf8_decode_parts_to_value(bytes, ctx);
        }
        let bytes = bytes.into_block();
        match self {
            // Return a Blob whose contents are bytes and whose type attribute is this's MIME
            // type (serialized; the empty string when it is failure).
            Convert::Blob => {
                let type_ = mime(owner)
                    .map(|m| mime::serialize_a_mime_type(&m))
                    .unwrap_or_default();
                Ok(crate::file::new_blob(bytes.as_slice().into(), type_, ctx)?.into())
            }
            // The block becomes the buffer's data as is (no copy).
            Convert::ArrayBuffer => Ok(engine::clone::new_array_buffer_from(bytes, ctx)?.into()),
            Convert::Bytes => {
                let length = bytes.len() as u64;
                let buffer = engine::clone::new_array_buffer_from(bytes, ctx)?;
                let buffer = engine::clone::as_array_buffer(&buffer)
                    .ok_or_else(|| engine::throw_type_error("not an ArrayBuffer"))?;
                Ok(engine::construct_view(
                    engine::ViewKind::Typed(engine::TypedArrayKind::Uint8),
                    &buffer,
                    0,
                    length,
                    ctx,
                )?
                .into())
            }
            // The formData() steps: parse bytes by this's MIME type; a body that is not form
            // data is a TypeError.
            Convert::FormData => {
                let mime_type = mime(owner);
                match super::multipart::form_data_steps(bytes.as_slice(), mime_type.as_ref()) {
                    Ok(entries) => Ok(super::form_data::new_form_data(entries, ctx)?.into()),
                    Err(e) => Err(engine::throw_type_error(format!("formData(): {e}"))),
                }
            }
            Convert::Json => parse_json_from_bytes(bytes.as_slice(), ctx),
            Convert::Text => crate::encoding::utf8_decode_to_value(bytes.as_slice(), ctx),
        }
    }
}

/// <https://infra.spec.whatwg.org/#parse-json-bytes-to-a-javascript-value>
pub(crate) fn parse_json_from_bytes(bytes: &[u8], ctx: &mut Cx) -> JsResult<Value> {
    // AD-HOC: a JSON text is parsed from its bytes in one pass, into the value the steps below
    // give (`engine::json_text`, which says why); other text takes the steps, for the
    // SyntaxError of %JSON.parse%.
    let text = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    if let Some(value) = engine::json_text::parse_json_utf8(text, ctx) {
        return value;
    }
    // 1. Let string be the result of running UTF-8 decode on bytes.
    let string = crate::encoding::utf8_decode(bytes);
    // 2. Return ? Call(%JSON.parse%, undefined, « string »).
    engine::json_parse(string, ctx)
}

traced! {
    /// The successSteps and errorSteps of "consume body", run from "fully read"'s tasks.
    #[derive(Debug)]
    struct ConsumeSteps {
        promise: PromiseCapability,
        #[unsafe_ignore_trace]
        convert: Convert,
        /// The object whose body is consumed (its MIME type is read at conversion).
        owner: Object,
        #[unsafe_ignore_trace]
        mime: MimeTypeOf,
    }
}

impl ConsumeSteps {
    /// "consume body" step 4: the successSteps given a byte sequence data.
    fn success(self, data: ByteSequence, ctx: &mut Cx) -> JsResult<()> {
        // 4.1. Let value be the result of running convertBytesToJSValue with data. If that
        //      threw an exception e, then run errorSteps with e and return.
        match self.convert.run(data, &self.owner, self.mime, ctx) {
            // 4.2. Resolve promise with value.
            Ok(value) => self.promise.resolve(value, ctx),
            Err(e) => {
                let e = engine::thrown_value(e, ctx)?;
                self.error(e, ctx)
            }
        }
    }

    /// "consume body" step 3: the errorSteps given error: reject promise with error.
    fn error(self, e: Value, ctx: &mut Cx) -> JsResult<()> {
        self.promise.reject(e, ctx)
    }
}

traced! {
    /// "Fully read"'s successSteps and errorSteps: each queues a task that runs processBody or
    /// processBodyError.
    #[derive(Debug)]
    struct FullyRead(Slot<Option<ConsumeSteps>>);
}

impl ReadAllBytesSteps for FullyRead {
    fn success_steps(self: Box<Self>, bytes: ByteSequence, ctx: &mut Cx) -> JsResult<()> {
        // 2. Let successSteps given a byte sequence bytes be to queue a fetch task to run
        //    processBody given bytes, with taskDestination.
        if let Some(steps) = self.0.borrow_mut().take() {
            engine::queue_task(ctx, move |ctx| steps.success(bytes, ctx));
        }
        Ok(())
    }

    fn failure_steps(self: Box<Self>, e: Value, ctx: &mut Cx) -> JsResult<()> {
        // 3. Let errorSteps optionally given an exception exception be to queue a fetch task
        //    to run processBodyError given exception, with taskDestination.
        if let Some(steps) = self.0.borrow_mut().take() {
            engine::queue_task(ctx, move |ctx| steps.error(e, ctx));
        }
        Ok(())
    }
}

/// <https://fetch.spec.whatwg.org/#body-fully-read>, with processBody and processBodyError
/// being "consume body"'s steps.
fn fully_read(body: &Body, steps: ConsumeSteps, ctx: &mut Cx) -> JsResult<()> {
    // 4. Let reader be the result of getting a reader for body's stream. If that threw an
    //    exception, then run errorSteps with that exception and return.
    let reader = match other_specs::get_a_reader(body.stream()?, ctx) {
        Ok(reader) => reader,
        Err(e) => {
            let e = engine::thrown_value(e, ctx)?;
            engine::queue_task(ctx, move |ctx| steps.error(e, ctx));
            return Ok(());
        }
    };
    // 5. Read all bytes from reader, given successSteps and errorSteps.
    other_specs::read_all_bytes(&reader, Box::new(FullyRead(Slot::new(Some(steps)))), ctx)
}

/// <https://fetch.spec.whatwg.org/#concept-body-consume-body>
fn consume_body<T: BodyMixin + 'static>(
    this: &Object<T>,
    convert: Convert,
    ctx: &mut Cx,
) -> JsResult<Value> {
    // (The stream is made first: the body is read through it.)
    let body = T::made_body(this, ctx)?;
    // 1. If object is unusable, then return a promise rejected with a TypeError.
    if is_unusable(body.as_ref()) {
        return Err(engine::throw_type_error(
            "The body has already been used (its stream is disturbed or locked)",
        ));
    }
    // 2. Let promise be a new promise.
    let promise = PromiseCapability::new(ctx);
    let steps = ConsumeSteps {
        promise: promise.clone(),
        convert,
        owner: this.clone().upcast(),
        mime: mime_type_of_object::<T>,
    };
    match body {
        // 5. If object's body is null, then run successSteps with an empty byte sequence.
        None => steps.success(ByteSequence::default(), ctx)?,
        // 6. Otherwise, fully read object's body given successSteps, errorSteps, and
        //    object's relevant global object.
        Some(body) => fully_read(&body, steps, ctx)?,
    }
    // 7. Return promise.
    Ok(promise.promise().clone().into())
}

/// <https://fetch.spec.whatwg.org/#dom-body-arraybuffer>
fn array_buffer<T: BodyMixin + 'static>(
    this: &Value,
    _: &[Value],
    ctx: &mut Cx,
) -> JsResult<Value> {
    let this = webidl::this::<T>(this)?;
    consume_body(&this, Convert::ArrayBuffer, ctx)
}

/// <https://fetch.spec.whatwg.org/#dom-body-blob>
fn blob<T: BodyMixin + 'static>(this: &Value, _: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let this = webidl::this::<T>(this)?;
    consume_body(&this, Convert::Blob, ctx)
}

/// <https://fetch.spec.whatwg.org/#dom-body-bytes>
fn bytes<T: BodyMixin + 'static>(this: &Value, _: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let this = webidl::this::<T>(this)?;
    consume_body(&this, Convert::Bytes, ctx)
}

/// <https://fetch.spec.whatwg.org/#dom-body-formdata>
fn form_data<T: BodyMixin + 'static>(this: &Value, _: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let this = webidl::this::<T>(this)?;
    consume_body(&this, Convert::FormData, ctx)
}

/// <https://fetch.spec.whatwg.org/#dom-body-json>
fn json<T: BodyMixin + 'static>(this: &Value, _: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let this = webidl::this::<T>(this)?;
    consume_body(&this, Convert::Json, ctx)
}

/// <https://fetch.spec.whatwg.org/#dom-body-text>
fn text<T: BodyMixin + 'static>(this: &Value, _: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let this = webidl::this::<T>(this)?;
    consume_body(&this, Convert::Text, ctx)
}
