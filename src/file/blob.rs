//! The `Blob` (<https://w3c.github.io/FileAPI/#blob-section>) and `File`
//! (<https://w3c.github.io/FileAPI/#file-section>) interfaces, and their serialization steps.
//!
//! A `File` is a `Blob` whose native data also holds the file's slots (`name`,
//! `lastModified`): both interfaces brand-check the same native data, so every `Blob` member
//! works on a `File`, and `File.prototype`'s [[Prototype]] is `Blob.prototype`.

use std::sync::Arc;

use crate::engine::webidl::{self, InterfaceObject};
use crate::engine::{
    self, js_string, Cx, JsResult, JsString, JsSymbol, Object, PromiseCapability,
    StandardConstructor, Value,
};
use crate::html::serialize::SerializableInterface;
use crate::readable::{other_specs, ReadableStream};

use super::{prototype, Iface};

/// How many bytes each chunk of `stream()` holds (the last one may be shorter).
const STREAM_CHUNK_SIZE: usize = 64 * 1024;

traced! {
    data;
    /// A `Blob`'s slots (<https://w3c.github.io/FileAPI/#blob-section>): the bytes (a snapshot,
    /// never changed, shareable with other agents) and the `type` attribute; for a `File`, also
    /// the file's slots.
    pub(crate) struct Blob {
        #[unsafe_ignore_trace]
        bytes: Arc<[u8]>,
        #[unsafe_ignore_trace]
        mime_type: Arc<str>,
        #[unsafe_ignore_trace]
        file: Option<FileSlots>,
    }
}

/// A `File`'s own slots (<https://w3c.github.io/FileAPI/#file-section>).
#[derive(Debug, Clone)]
struct FileSlots {
    /// The `name` attribute, as UTF-16 code units (a USVString).
    name: Vec<u16>,
    /// The `lastModified` attribute: milliseconds since the epoch.
    last_modified: i64,
}

impl webidl::Interface for Blob {
    const NAME: &'static str = "Blob";
}

/// The bytes and type of `object`, if it is a `Blob` (or `File`).
pub(super) fn blob_data(object: &Object) -> Option<(Arc<[u8]>, String)> {
    let blob = object.downcast_ref::<Blob>()?;
    Some((blob.bytes.clone(), blob.mime_type.to_string()))
}

/// The name and `lastModified` of `object`, if it is a `File`.
pub(super) fn file_data(object: &Object) -> Option<(Vec<u16>, i64)> {
    let blob = object.downcast_ref::<Blob>()?;
    blob.file
        .as_ref()
        .map(|f| (f.name.clone(), f.last_modified))
}

/// A new `Blob` (or `File`, with `file`) of the current realm.
pub(super) fn new_blob_object(
    bytes: Arc<[u8]>,
    mime_type: String,
    file: Option<(Vec<u16>, i64)>,
    ctx: &mut Cx,
) -> JsResult<Object> {
    let iface = if file.is_some() {
        Iface::File
    } else {
        Iface::Blob
    };
    let proto = prototype(iface, ctx)?;
    Ok(Object::from_proto_and_data(proto, new_blob_data(bytes, mime_type, file)).upcast())
}

fn new_blob_data(bytes: Arc<[u8]>, mime_type: String, file: Option<(Vec<u16>, i64)>) -> Blob {
    Blob {
        bytes,
        mime_type: mime_type.into(),
        file: file.map(|(name, last_modified)| FileSlots {
            name,
            last_modified,
        }),
    }
}

pub(super) fn build_blob_interface(ctx: &mut Cx) -> StandardConstructor {
    let mut iface = InterfaceObject::new(ctx, "Blob", 0, construct_blob);
    iface
        .members()
        .attribute("size", blob_size, None)
        .attribute("type", blob_type, None)
        .operation("slice", 0, blob_slice)
        .operation("stream", 0, blob_stream)
        .operation("textStream", 0, blob_text_stream)
        .promise_operation("text", 0, blob_text)
        .promise_operation("arrayBuffer", 0, blob_array_buffer)
        .promise_operation("bytes", 0, blob_bytes);
    iface.build(None, None)
}

pub(super) fn build_file_interface(
    blob: &StandardConstructor,
    ctx: &mut Cx,
) -> StandardConstructor {
    let mut iface = InterfaceObject::new(ctx, "File", 2, construct_file);
    iface
        .members()
        .attribute("name", file_name, None)
        .attribute("lastModified", file_last_modified, None);
    iface.build(Some(blob.prototype()), Some(blob.constructor()))
}

/// `new Blob(blobParts, options)`: <https://w3c.github.io/FileAPI/#constructorBlob>
fn construct_blob(new_target: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    webidl::require_new(new_target, "Blob")?;
    // Argument conversions, in order: `optional sequence<BlobPart> blobParts`, then
    // `optional BlobPropertyBag options = {}`.
    let parts = optional_blob_parts(args.first(), ctx)?;
    let options = webidl::dictionary(&webidl::arg(args, 1), "The Blob options")?;
    let (native, mime_type) = blob_property_bag(options.as_ref(), ctx)?;
    let proto =
        webidl::prototype_from_new_target(new_target, |ctx| prototype(Iface::Blob, ctx), ctx)?;

    // 1. If invoked with zero parameters, return a new Blob consisting of 0 bytes, with size
    //    set to 0, and with type set to the empty string.
    // 2. Let bytes be the result of processing blob parts given blobParts and options.
    let bytes = process_blob_parts(parts, native, ctx)?;
    // 3. If the type member of the options argument is not the empty string:
    //    1-2. If t contains any characters outside U+0020 to U+007E, set t to the empty
    //         string; otherwise convert every character in t to ASCII lowercase.
    // 4. Return a Blob object referring to bytes as its associated byte sequence, with its
    //    size set to the length of bytes, and its type set to the value of t.
    let data = new_blob_data(bytes.into(), normalize_type(&mime_type), None);
    Ok(Object::from_proto_and_data(proto, data).into())
}

/// `new File(fileBits, fileName, options)`: <https://w3c.github.io/FileAPI/#file-constructor>
fn construct_file(new_target: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    webidl::require_new(new_target, "File")?;
    webidl::require_args(args, 2, "File", "constructor")?;
    // Argument conversions, in order: `sequence<BlobPart> fileBits`, `USVString fileName`,
    // `optional FilePropertyBag options = {}`.
    let parts = blob_parts(&args[0], ctx)?;
    let name = usv_string(&args[1], ctx)?;
    let options = webidl::dictionary(&webidl::arg(args, 2), "The File options")?;
    // FilePropertyBag : BlobPropertyBag: the inherited members first (`endings`, `type`),
    // then `lastModified` (`long long`).
    let (native, mime_type) = blob_property_bag(options.as_ref(), ctx)?;
    let last_modified = webidl::member(options.as_ref(), "lastModified", ctx)?;
    let last_modified = if last_modified.is_undefined() {
        None
    } else {
        Some(to_long_long(&last_modified, ctx)?)
    };
    let proto =
        webidl::prototype_from_new_target(new_target, |ctx| prototype(Iface::File, ctx), ctx)?;

    // 1. Let bytes be the result of processing blob parts given fileBits and options.
    let bytes = process_blob_parts(parts, native, ctx)?;
    // 2. Let n be the fileName argument to the constructor.
    //    (The slash is not replaced: the spec leaves that to the implementation's file
    //    system.)
    // 3. Process FilePropertyBag dictionary argument by running the following substeps:
    //    1. If the type member is provided and is not the empty string, let t be set to the
    //       type dictionary member; normalized as for Blob.
    //    2. If the lastModified member is provided, let d be set to the lastModified
    //       dictionary member. If it is not provided, set d to the current date and time
    //       represented as the number of milliseconds since the Unix Epoch.
    let last_modified = match last_modified {
        Some(d) => d,
        None => now_millis(ctx),
    };
    // 4. Return a new File object F such that: F refers to the bytes byte sequence; F.size is
    //    set to the number of total bytes in bytes; F.name is set to n; F.type is set to t;
    //    F.lastModified is set to d.
    let data = new_blob_data(
        bytes.into(),
        normalize_type(&mime_type),
        Some((name, last_modified)),
    );
    Ok(Object::from_proto_and_data(proto, data).into())
}

/// The current time in milliseconds since the Unix epoch.
pub(super) fn now_millis(_: &Cx) -> i64 {
    match std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        Ok(elapsed) => i64::try_from(elapsed.as_millis()).unwrap_or(i64::MAX),
        Err(before) => -i64::try_from(before.duration().as_millis()).unwrap_or(i64::MAX),
    }
}

/// <https://webidl.spec.whatwg.org/#es-long-long> (no extended attribute): ToNumber, then
/// NaN and infinities are 0, truncate, modulo 2^64 into the signed range.
fn to_long_long(value: &Value, ctx: &mut Cx) -> JsResult<i64> {
    let x = value.to_number(ctx)?;
    if !x.is_finite() {
        return Ok(0);
    }
    let x = x.trunc();
    // Within ±2^53 every integer is exact; beyond it, modulo 2^64 keeps the low bits.
    let two_64 = 18_446_744_073_709_551_616.0_f64;
    let mut m = x % two_64;
    if m < 0.0 {
        m += two_64;
    }
    // invariant: 0 <= m < 2^64.
    let unsigned = if m >= 18_446_744_073_709_551_615.0 {
        u64::MAX
    } else {
        m as u64
    };
    Ok(unsigned as i64)
}

/// A `USVString` conversion, kept as UTF-16 code units with lone surrogates replaced.
fn usv_string(value: &Value, ctx: &mut Cx) -> JsResult<Vec<u16>> {
    let s = value.to_string(ctx)?;
    Ok(s.to_std_string_lossy().encode_utf16().collect())
}

/// The `BlobPropertyBag` members, in lexicographic order: `endings` (whether it is
/// "native"), then `type`.
fn blob_property_bag(options: Option<&Object>, ctx: &mut Cx) -> JsResult<(bool, String)> {
    let endings = webidl::member(options, "endings", ctx)?;
    let native = if endings.is_undefined() {
        false
    } else {
        match endings.to_string(ctx)?.to_std_string_escaped().as_str() {
            "transparent" => false,
            "native" => true,
            other => {
                return Err(engine::throw_type_error(format!(
                    "'{other}' is not a valid EndingType (\"transparent\" or \"native\")"
                )))
            }
        }
    };
    let type_member = webidl::member(options, "type", ctx)?;
    let mime_type = if type_member.is_undefined() {
        String::new()
    } else {
        // DOMString: ToString. A lone surrogate becomes U+FFFD here, which (like the
        // surrogate itself) is outside U+0020 to U+007E, so the type is emptied later.
        type_member.to_string(ctx)?.to_std_string_lossy()
    };
    Ok((native, mime_type))
}

/// One converted `BlobPart` (`(BufferSource or Blob or USVString)`). A buffer source keeps its
/// object: its bytes are copied when the parts are processed.
enum BlobPart {
    Buffer(Value),
    Blob(Arc<[u8]>),
    /// A USVString, UTF-8 encoded.
    Text(Arc<[u8]>),
}

/// An `optional sequence<BlobPart>` argument: missing or `undefined` is empty.
fn optional_blob_parts(value: Option<&Value>, ctx: &mut Cx) -> JsResult<Vec<BlobPart>> {
    match value {
        None => Ok(Vec::new()),
        Some(v) if v.is_undefined() => Ok(Vec::new()),
        Some(v) => blob_parts(v, ctx),
    }
}

/// Converts `value` to an IDL `sequence<BlobPart>`
/// (<https://webidl.spec.whatwg.org/#js-sequence>), converting each element as it is taken.
fn blob_parts(value: &Value, ctx: &mut Cx) -> JsResult<Vec<BlobPart>> {
    let not_a_sequence = || engine::throw_type_error("The Blob parts must be an iterable object");
    // 1. If V is not an Object, throw a TypeError.
    let Some(object) = value.as_object() else {
        return Err(not_a_sequence());
    };
    // 2. Let method be ? GetMethod(V, @@iterator).
    let method = object.get(JsSymbol::iterator(), ctx)?;
    // 3. If method is undefined, throw a TypeError.
    if method.is_null_or_undefined() {
        return Err(not_a_sequence());
    }
    let Some(method) = method.as_callable() else {
        return Err(not_a_sequence());
    };
    // 4. Return the result of creating a sequence from V and method:
    //    GetIteratorFromMethod, then IteratorStepValue until done, converting each value.
    let iterator = method.call(value, &[], ctx)?;
    let Some(iterator) = iterator.as_object() else {
        return Err(engine::throw_type_error(
            "The Blob parts' iterator is not an object",
        ));
    };
    let next = iterator.get(js_string!("next"), ctx)?;
    let this = Value::from(iterator.clone());
    let mut parts = Vec::new();
    loop {
        let result = engine::call(&next, &this, &[], ctx)?;
        let Some(result) = result.as_object() else {
            return Err(engine::throw_type_error(
                "The Blob parts' iterator result is not an object",
            ));
        };
        if result.get(js_string!("done"), ctx)?.to_boolean() {
            return Ok(parts);
        }
        let item = result.get(js_string!("value"), ctx)?;
        parts.push(blob_part(item, ctx)?);
    }
}

/// Converts one element to the union `(BufferSource or Blob or USVString)`
/// (<https://webidl.spec.whatwg.org/#es-union>): a `Blob`, then a buffer source (a
/// `SharedArrayBuffer` or a resizable buffer is a TypeError), else a string.
fn blob_part(item: Value, ctx: &mut Cx) -> JsResult<BlobPart> {
    if let Some((bytes, _)) = item.as_object().and_then(|o| blob_data(&o)) {
        return Ok(BlobPart::Blob(bytes));
    }
    if engine::is_buffer_source_object(&item) {
        engine::check_buffer_source(&item, false, "A Blob part", ctx)?;
        return Ok(BlobPart::Buffer(item));
    }
    // USVString: ToString, then lone surrogates become U+FFFD; kept UTF-8 encoded (step 1.3
    // of processing the parts, which the line endings' conversion does not change).
    Ok(BlobPart::Text(crate::encoding::utf8_encode_value(
        &item, ctx,
    )?))
}

/// <https://w3c.github.io/FileAPI/#process-blob-parts>
fn process_blob_parts(parts: Vec<BlobPart>, native: bool, ctx: &mut Cx) -> JsResult<Vec<u8>> {
    // 1. Let bytes be an empty sequence of bytes.
    let mut bytes = Vec::new();
    // 2. For each element in parts:
    for part in parts {
        match part {
            // 1. If element is a USVString:
            BlobPart::Text(text) => {
                // 1. Let s be element.
                // 2. If the endings member of options is "native", set s to the result of
                //    converting line endings to native of element.
                // 3. Append the result of UTF-8 encoding s to bytes.
                if native {
                    convert_line_endings_to_native(&text, &mut bytes);
                } else {
                    bytes.extend_from_slice(&text);
                }
            }
            // 2. If element is a BufferSource, get a copy of the bytes held by the buffer
            //    source, and append those bytes to bytes.
            BlobPart::Buffer(buffer) => {
                let copy = engine::buffer_source_copy(&buffer, false, "A Blob part", ctx)?;
                bytes.extend_from_slice(&copy);
            }
            // 3. If element is a Blob, append the bytes it represents to bytes.
            BlobPart::Blob(blob) => bytes.extend_from_slice(&blob),
        }
    }
    // 3. Return bytes.
    Ok(bytes)
}

/// <https://w3c.github.io/FileAPI/#convert-line-endings-to-native>, appended to `out`: the
/// native line ending here is `\n` (not Windows), so every `\r\n` and lone `\r` becomes `\n`.
fn convert_line_endings_to_native(s: &[u8], out: &mut Vec<u8>) {
    // (On UTF-8 bytes: CR and LF are single bytes, never part of another character's.)
    let native: &[u8] = if cfg!(windows) { b"\r\n" } else { b"\n" };
    out.reserve(s.len());
    let mut bytes = s.iter().copied().peekable();
    while let Some(b) = bytes.next() {
        match b {
            b'\r' => {
                if bytes.peek() == Some(&b'\n') {
                    bytes.next();
                }
                out.extend_from_slice(native);
            }
            b'\n' => out.extend_from_slice(native),
            b => out.push(b),
        }
    }
}

/// The `type` normalization of the constructor and `slice()`: empty if any character is
/// outside U+0020 to U+007E, else ASCII-lowercased. (Also what a `File` made from a
/// `multipart/form-data` part gets: a `Blob`'s type is "an ASCII-encoded string in lower case".)
pub(crate) fn normalize_type(t: &str) -> String {
    if t.chars().all(|c| (' '..='~').contains(&c)) {
        t.to_ascii_lowercase()
    } else {
        String::new()
    }
}

/// The brand check, and a copy of the blob's data (no borrow is kept).
fn this_blob(this: &Value) -> JsResult<(Arc<[u8]>, Arc<str>)> {
    let object = webidl::this::<Blob>(this)?;
    let blob = object.borrow();
    let blob = blob.data();
    Ok((blob.bytes.clone(), blob.mime_type.clone()))
}

/// The brand check of `File`'s members: a `Blob` that is a `File`.
fn this_file(this: &Value) -> JsResult<FileSlots> {
    let object = webidl::this_implementing(this, "File", |o| {
        o.downcast_ref::<Blob>().is_some_and(|b| b.file.is_some())
    })?;
    object
        .downcast_ref::<Blob>()
        .and_then(|b| b.file.clone())
        .ok_or_else(|| engine::throw_type_error("'this' is not a File"))
}

/// <https://w3c.github.io/FileAPI/#dfn-size>
fn blob_size(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    let (bytes, _) = this_blob(this)?;
    // unsigned long long: a byte length is far below 2^53.
    Ok(Value::from(bytes.len() as f64))
}

/// <https://w3c.github.io/FileAPI/#dfn-type>
fn blob_type(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    let (_, mime_type) = this_blob(this)?;
    Ok(JsString::from(&*mime_type).into())
}

/// <https://w3c.github.io/FileAPI/#dfn-name>
fn file_name(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    let file = this_file(this)?;
    Ok(JsString::from(file.name.as_slice()).into())
}

/// <https://w3c.github.io/FileAPI/#dfn-lastModified>
fn file_last_modified(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    let file = this_file(this)?;
    // long long: as a Number.
    Ok(Value::from(file.last_modified as f64))
}

/// An optional `[Clamp] long long` argument (<https://webidl.spec.whatwg.org/#es-long-long>);
/// `None` when missing or `undefined`.
fn optional_clamped_long_long(value: Option<&Value>, ctx: &mut Cx) -> JsResult<Option<f64>> {
    let Some(value) = value.filter(|v| !v.is_undefined()) else {
        return Ok(None);
    };
    let x = value.to_number(ctx)?;
    // [Clamp]: NaN is +0; clamp to [-2^63, 2^63 - 1]; round half to even; -0 is +0.
    if x.is_nan() {
        return Ok(Some(0.0));
    }
    let x = x.clamp(-9_223_372_036_854_775_808.0, 9_223_372_036_854_775_807.0);
    let rounded = x.round_ties_even();
    Ok(Some(if rounded == 0.0 { 0.0 } else { rounded }))
}

/// <https://w3c.github.io/FileAPI/#dfn-slice>
fn blob_slice(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let (bytes, _) = this_blob(this)?;
    // Argument conversions, in order: `start`, `end`, `optional DOMString contentType`.
    let start = optional_clamped_long_long(args.first(), ctx)?;
    let end = optional_clamped_long_long(args.get(1), ctx)?;
    let content_type = match args.get(2).filter(|v| !v.is_undefined()) {
        None => None,
        // As for the constructor's type: lossy is exact, since any non-ASCII character empties it.
        Some(v) => Some(v.to_string(ctx)?.to_std_string_lossy()),
    };
    // 1. Let sliceBlob be the result of slice blob given this, start, end, and contentType.
    let (slice, relative_content_type) = slice_blob(&bytes, start, end, content_type.as_deref());
    // 2. Return sliceBlob.
    Ok(new_blob_object(slice.into(), relative_content_type, None, ctx)?.into())
}

/// <https://w3c.github.io/FileAPI/#slice-blob>: the bytes and type of the new blob.
fn slice_blob(
    bytes: &[u8],
    start: Option<f64>,
    end: Option<f64>,
    content_type: Option<&str>,
) -> (Vec<u8>, String) {
    // 1. Let originalSize be blob's size.
    let original_size = bytes.len() as f64;
    // 2. The start parameter, if non-null, is a value for the start point of a slice blob
    //    call: relativeStart is 0 if it is null, max(originalSize + start, 0) if negative,
    //    else min(start, originalSize).
    let relative = |x: f64| {
        if x < 0.0 {
            (original_size + x).max(0.0)
        } else {
            x.min(original_size)
        }
    };
    let relative_start = start.map_or(0.0, relative);
    // 3. relativeEnd: originalSize if end is null, max(originalSize + end, 0) if negative,
    //    else min(end, originalSize).
    let relative_end = end.map_or(original_size, relative);
    // 4. relativeContentType: the empty string if contentType is null, else normalized like
    //    the constructor's type.
    let relative_content_type = content_type.map(normalize_type).unwrap_or_default();
    // 5. Let span be max((relativeEnd - relativeStart), 0).
    let span = (relative_end - relative_start).max(0.0);
    // 6. Return a new Blob object S: span consecutive bytes from relativeStart, and type
    //    relativeContentType.
    // invariant: both are integers in [0, originalSize], so the casts are exact.
    let (from, len) = (relative_start as usize, span as usize);
    let slice = bytes.get(from..from + len).unwrap_or_default().to_vec();
    (slice, relative_content_type)
}

/// <https://w3c.github.io/FileAPI/#stream-method-algo>: the result of getting a stream of this.
fn blob_stream(this: &Value, _: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let (bytes, _) = this_blob(this)?;
    Ok(get_stream(bytes, ctx)?.upcast().into())
}

/// <https://w3c.github.io/FileAPI/#dom-blob-textstream>
fn blob_text_stream(this: &Value, _: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let (bytes, _) = this_blob(this)?;
    // 1. Let stream be the result of calling get stream on this.
    let stream = get_stream(bytes, ctx)?;
    // 2. Let decoder be a new TextDecoderStream object in this's relevant realm, set up with
    //    UTF-8. 3. Return the result of stream piped through decoder.
    Ok(crate::encoding::pipe_through_utf8_decoder(&stream, ctx)?
        .upcast()
        .into())
}

/// <https://w3c.github.io/FileAPI/#blob-get-stream>
pub(super) fn get_stream(bytes: Arc<[u8]>, ctx: &mut Cx) -> JsResult<Object<ReadableStream>> {
    // 1. Let stream be a new ReadableStream created in blob's relevant Realm.
    // 2. Set up stream with byte reading support.
    let stream = other_specs::set_up_with_byte_reading_support(None, 0.0, None, ctx)?;
    // 3. Run the following steps in parallel:
    // 3.1. While not all bytes of blob have been read:
    // 3.1.1. Let bytes be the byte sequence that results from reading a chunk from blob.
    // 3.1.2. Queue a global task on the file reading task source to perform the steps of
    //          `enqueue_chunk`.
    //    (The bytes are in memory: every chunk's task is queued now, in order.)
    let realm = engine::current_realm(ctx);
    let mut start = 0;
    while start < bytes.len() {
        let end = bytes.len().min(start + STREAM_CHUNK_SIZE);
        let (stream, bytes) = (stream.clone(), bytes.clone());
        engine::queue_task_in(ctx, realm.clone(), move |ctx| {
            enqueue_chunk(&stream, bytes, start..end, ctx)
        });
        start = end;
    }
    // AD-HOC: once every chunk is enqueued, the stream is closed (the spec leaves this step
    // out; every implementation closes the stream at the end of the blob).
    let closing = stream.clone();
    engine::queue_task_in(ctx, realm, move |ctx| close_stream(&closing, ctx));
    // 4. Return stream.
    Ok(stream)
}

/// A chunk's task in <https://w3c.github.io/FileAPI/#blob-get-stream>: the bytes of `range`
/// of the blob's.
fn enqueue_chunk(
    stream: &Object<ReadableStream>,
    bytes: Arc<[u8]>,
    range: std::ops::Range<usize>,
    ctx: &mut Cx,
) -> JsResult<()> {
    // 1. If bytes is failure, then error stream with a failure reason and abort these steps.
    //    (Reading from memory cannot fail.)
    // 2. Let chunk be a new Uint8Array wrapping an ArrayBuffer containing bytes. If creating
    //    the ArrayBuffer throws an exception, then error stream with that exception and abort
    //    these steps.
    //    (Rust bytes that stand for it, shared with the blob: no script sees the chunk, see
    //    `other_specs::enqueue_bytes`. They count toward the agent's memory limit as the
    //    ArrayBuffer would: past it their enqueue throws a RangeError, this step's exception.)
    // 3. Enqueue chunk in stream. (It does nothing once the stream is canceled or errored.)
    if let Err(error) = other_specs::enqueue_shared_bytes(stream, bytes, range, ctx) {
        let reason = engine::thrown_value(error, ctx)?;
        other_specs::error(stream, reason, ctx)?;
    }
    Ok(())
}

/// Closes the stream (<https://streams.spec.whatwg.org/#readablestream-close>) once the blob's
/// bytes are all enqueued. ReadableByteStreamControllerClose returns early once the stream is
/// no longer readable, and errors the stream (then throws) if a BYOB request is partly filled
/// with a partial element: the stream is errored either way, so a throw is dropped.
fn close_stream(stream: &Object<ReadableStream>, ctx: &mut Cx) -> JsResult<()> {
    let _ = other_specs::close(stream, ctx);
    Ok(())
}

/// What a read method's promise is fulfilled with.
#[derive(Clone, Copy)]
enum ReadAs {
    Text,
    ArrayBuffer,
    Bytes,
}

/// `text()`, `arrayBuffer()`, `bytes()`: a promise fulfilled, in a later task (as after
/// reading all bytes of the blob's stream), with the bytes converted. A failed brand check is
/// a rejected promise (the member is registered as promise-returning).
fn read_blob(this: &Value, read_as: ReadAs, ctx: &mut Cx) -> JsResult<Value> {
    let (bytes, _) = this_blob(this)?;
    let promise = PromiseCapability::new(ctx);
    let result = promise.promise().clone();
    let settle = move |ctx: &mut Cx| -> JsResult<()> {
        let value = match read_as {
            // UTF-8 decode: a leading BOM is dropped, invalid sequences become U+FFFD.
            ReadAs::Text => crate::encoding::utf8_decode_to_value(&bytes, ctx),
            ReadAs::ArrayBuffer => new_array_buffer(&bytes, ctx),
            ReadAs::Bytes => engine::new_uint8_array(&bytes, ctx),
        };
        match value {
            Ok(value) => promise.resolve(value, ctx)?,
            Err(error) => {
                let reason = engine::thrown_value(error, ctx)?;
                promise.reject(reason, ctx)?;
            }
        }
        Ok(())
    };
    let realm = engine::current_realm(ctx);
    engine::queue_task_in(ctx, realm, settle);
    Ok(result.into())
}

/// A new `ArrayBuffer` holding a copy of `bytes` (a RangeError if it cannot be allocated).
pub(super) fn new_array_buffer(bytes: &[u8], ctx: &mut Cx) -> JsResult<Value> {
    let buffer = engine::new_array_buffer_holding(bytes, ctx)?;
    Ok(Object::from(buffer).into())
}

/// <https://w3c.github.io/FileAPI/#text-method-algo>
fn blob_text(this: &Value, _: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    read_blob(this, ReadAs::Text, ctx)
}

/// <https://w3c.github.io/FileAPI/#arraybuffer-method-algo>
fn blob_array_buffer(this: &Value, _: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    read_blob(this, ReadAs::ArrayBuffer, ctx)
}

/// <https://w3c.github.io/FileAPI/#bytes-method-algo>
fn blob_bytes(this: &Value, _: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    read_blob(this, ReadAs::Bytes, ctx)
}

// ---------------------------------------------------------------------------------------------
// Serialization
// ---------------------------------------------------------------------------------------------

/// What a `Blob`'s or `File`'s serialization steps leave: plain, `Send` data (the bytes are
/// shared, not copied).
#[derive(Debug)]
struct SerializedBlob {
    bytes: Arc<[u8]>,
    mime_type: String,
    file: Option<(Vec<u16>, i64)>,
}

/// `Blob` and `File` as serializable objects (`[Serializable]`).
pub(super) static BLOB_SERIALIZABLE: SerializableInterface = SerializableInterface {
    name: "Blob",
    implements: |object| object.is::<Blob>(),
    serialization_steps,
    deserialization_steps,
};

/// The serialization steps of `Blob` (<https://w3c.github.io/FileAPI/#ref-for-serialization-steps>)
/// and `File` (<https://w3c.github.io/FileAPI/#ref-for-serialization-steps①>).
fn serialization_steps(object: &Object, _: &mut Cx) -> JsResult<Box<dyn std::any::Any + Send>> {
    let Some(blob) = object.downcast_ref::<Blob>() else {
        return Err(engine::throw_type_error("the object is not a Blob"));
    };
    // Blob: 1. Set serialized.[[SnapshotState]] to value's snapshot state.
    //       2. Set serialized.[[ByteSequence]] to value's underlying byte sequence.
    // File: also 3. serialized.[[Name]] to value's name; 4. serialized.[[LastModified]] to
    //       value's lastModified.
    // (The type goes along: a deserialized blob keeps it.)
    Ok(Box::new(SerializedBlob {
        bytes: blob.bytes.clone(),
        mime_type: blob.mime_type.to_string(),
        file: blob
            .file
            .as_ref()
            .map(|f| (f.name.clone(), f.last_modified)),
    }))
}

/// The deserialization steps of `Blob` and `File`: a new object of the current realm.
fn deserialization_steps(data: Box<dyn std::any::Any + Send>, ctx: &mut Cx) -> JsResult<Object> {
    let Ok(serialized) = data.downcast::<SerializedBlob>() else {
        return Err(engine::throw_type_error(
            "the serialized data is not a Blob's",
        ));
    };
    let SerializedBlob {
        bytes,
        mime_type,
        file,
    } = *serialized;
    // 1. Set value's snapshot state to serialized.[[SnapshotState]].
    // 2. Set value's underlying byte sequence to serialized.[[ByteSequence]].
    // (File: 3. value's name; 4. value's lastModified.)
    new_blob_object(bytes, mime_type, file, ctx)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slice_blob_follows_the_spec_clamping() {
        let bytes = b"abcdef";
        assert_eq!(slice_blob(bytes, None, None, None).0, b"abcdef");
        assert_eq!(slice_blob(bytes, Some(-2.0), None, None).0, b"ef");
        assert_eq!(slice_blob(bytes, Some(1.0), Some(-1.0), None).0, b"bcde");
        assert_eq!(slice_blob(bytes, Some(4.0), Some(2.0), None).0, b"");
        assert_eq!(
            slice_blob(bytes, Some(-100.0), Some(100.0), None).0,
            b"abcdef"
        );
        assert_eq!(slice_blob(bytes, None, None, Some("A/B")).1, "a/b");
        assert_eq!(slice_blob(bytes, None, None, Some("a\u{e9}")).1, "");
    }

    #[test]
    fn line_endings_become_native() {
        let mut out = b"x".to_vec();
        convert_line_endings_to_native("a\r\nb\rc\nd\u{e9}\r".as_bytes(), &mut out);
        assert_eq!(out, "xa\nb\nc\nd\u{e9}\n".as_bytes());
    }
}
