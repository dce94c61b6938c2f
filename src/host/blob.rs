//! The `Blob` interface of the File API (<https://w3c.github.io/FileAPI/#blob-section>): an
//! immutable byte sequence with a MIME type. The host installs it because WPT resources use it
//! (compression/resources/decompress.js joins chunks with `new Blob(chunks).bytes()`).
//!
//! Implemented: the constructor (`sequence<BlobPart>` and `BlobPropertyBag`), `size`, `type`,
//! `slice()`, `stream()`, `text()`, `arrayBuffer()`, `bytes()`. Not implemented: `File`,
//! `FileReader`, blob URLs.

use std::rc::Rc;

use boa_engine::{
    class::Class,
    js_string,
    object::builtins::{AlignedVec, JsArrayBuffer},
    symbol::JsSymbol,
    Context, JsData, JsNativeError, JsString,
};
use boa_gc::{Finalize, Trace};

use crate::{
    engine::webidl,
    engine::{self, JsResult, PromiseCapability, Value},
    readable::{other_specs, ReadableStream},
};

/// How many bytes each chunk of `stream()` holds (the last one may be shorter).
const STREAM_CHUNK_SIZE: usize = 64 * 1024;

/// <https://w3c.github.io/FileAPI/#blob-section>: the bytes (a snapshot, never changed) and
/// the `type` attribute.
#[derive(Debug, Trace, Finalize, JsData)]
pub(crate) struct Blob {
    #[unsafe_ignore_trace]
    bytes: Rc<[u8]>,
    mime_type: Rc<str>,
}

impl Blob {
    fn new(bytes: Vec<u8>, mime_type: String) -> Self {
        Self {
            bytes: bytes.into(),
            mime_type: mime_type.into(),
        }
    }
}

impl webidl::ClassInterface for Blob {
    const LENGTH: usize = 0;
    fn members(b: &mut webidl::InterfaceBuilder<'_, '_>) {
        b.attribute("size", blob_size, None);
        b.attribute("type", blob_type, None);
        b.operation("slice", 0, blob_slice);
        b.operation("stream", 0, blob_stream);
        b.promise_operation("text", 0, blob_text);
        b.promise_operation("arrayBuffer", 0, blob_array_buffer);
        b.promise_operation("bytes", 0, blob_bytes);
    }

    /// <https://w3c.github.io/FileAPI/#constructorBlob>
    fn construct(_: &Value, args: &[Value], ctx: &mut Context) -> JsResult<Self> {
        // Argument conversions, in order: `optional sequence<BlobPart> blobParts`, then
        // `optional BlobPropertyBag options = {}`.
        let parts = match args.first() {
            None => Vec::new(),
            Some(v) if v.is_undefined() => Vec::new(),
            Some(v) => blob_parts(v, ctx)?,
        };
        let options = webidl::dictionary(
            &args.get(1).cloned().unwrap_or_default(),
            "The Blob options",
        )?;
        // BlobPropertyBag members, in lexicographic order: `endings`, then `type`.
        let endings = webidl::member(options.as_ref(), "endings", ctx)?;
        let native = if endings.is_undefined() {
            false
        } else {
            match endings.to_string(ctx)?.to_std_string_escaped().as_str() {
                "transparent" => false,
                "native" => true,
                other => {
                    return Err(JsNativeError::typ()
                        .with_message(format!(
                            "'{other}' is not a valid EndingType (\"transparent\" or \"native\")"
                        ))
                        .into())
                }
            }
        };
        let type_member = webidl::member(options.as_ref(), "type", ctx)?;
        let mime_type = if type_member.is_undefined() {
            String::new()
        } else {
            // DOMString: ToString. A lone surrogate becomes U+FFFD here, which (like the
            // surrogate itself) is outside U+0020 to U+007E, so the type is emptied below.
            type_member.to_string(ctx)?.to_std_string_lossy()
        };

        // 1. If invoked with zero parameters, return a new Blob consisting of 0 bytes, with
        //    size set to 0, and with type set to the empty string.
        // 2. Let bytes be the result of processing blob parts given blobParts and options.
        let bytes = process_blob_parts(parts, native, ctx)?;
        // 3. If the type member of the options argument is not the empty string:
        //    1-2. If t contains any characters outside U+0020 to U+007E, set t to the empty
        //         string; otherwise convert every character in t to ASCII lowercase.
        // 4. Return a Blob object referring to bytes as its associated byte sequence, with its
        //    size set to the length of bytes, and its type set to the value of t.
        Ok(Blob::new(bytes, normalize_type(&mime_type)))
    }
}

webidl::interface!(Blob, "Blob");

/// One converted `BlobPart` (`(BufferSource or Blob or USVString)`). A buffer source keeps its
/// object: its bytes are copied when the parts are processed.
enum BlobPart {
    Buffer(Value),
    Blob(Rc<[u8]>),
    Text(String),
}

/// Converts `value` to an IDL `sequence<BlobPart>`
/// (<https://webidl.spec.whatwg.org/#js-sequence>), converting each element as it is taken.
fn blob_parts(value: &Value, ctx: &mut Context) -> JsResult<Vec<BlobPart>> {
    let not_a_sequence = || -> engine::JsError {
        JsNativeError::typ()
            .with_message("The Blob parts must be an iterable object")
            .into()
    };
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
        return Err(JsNativeError::typ()
            .with_message("The Blob parts' iterator is not an object")
            .into());
    };
    let next = iterator.get(js_string!("next"), ctx)?;
    let this = Value::from(iterator.clone());
    let mut parts = Vec::new();
    loop {
        let result = engine::call(&next, &this, &[], ctx)?;
        let Some(result) = result.as_object() else {
            return Err(JsNativeError::typ()
                .with_message("The Blob parts' iterator result is not an object")
                .into());
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
fn blob_part(item: Value, ctx: &mut Context) -> JsResult<BlobPart> {
    if let Some(blob) = item
        .as_object()
        .and_then(|o| o.downcast_ref::<Blob>().map(|b| b.bytes.clone()))
    {
        return Ok(BlobPart::Blob(blob));
    }
    if engine::is_buffer_source_object(&item) {
        engine::check_buffer_source(&item, false, "A Blob part", ctx)?;
        return Ok(BlobPart::Buffer(item));
    }
    // USVString: ToString, then lone surrogates become U+FFFD.
    let text = item.to_string(ctx)?.to_std_string_lossy();
    Ok(BlobPart::Text(text))
}

/// <https://w3c.github.io/FileAPI/#process-blob-parts>
fn process_blob_parts(parts: Vec<BlobPart>, native: bool, ctx: &mut Context) -> JsResult<Vec<u8>> {
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
                    bytes.extend_from_slice(convert_line_endings_to_native(&text).as_bytes());
                } else {
                    bytes.extend_from_slice(text.as_bytes());
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

/// <https://w3c.github.io/FileAPI/#convert-line-endings-to-native>: the native line ending
/// here is `\n` (not Windows), so every `\r\n` and lone `\r` becomes `\n`.
fn convert_line_endings_to_native(s: &str) -> String {
    let native = if cfg!(windows) { "\r\n" } else { "\n" };
    let mut result = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' => {
                if chars.peek() == Some(&'\n') {
                    chars.next();
                }
                result.push_str(native);
            }
            '\n' => result.push_str(native),
            c => result.push(c),
        }
    }
    result
}

/// The `type` normalization of the constructor and `slice()`: empty if any character is
/// outside U+0020 to U+007E, else ASCII-lowercased.
fn normalize_type(t: &str) -> String {
    if t.chars().all(|c| (' '..='~').contains(&c)) {
        t.to_ascii_lowercase()
    } else {
        String::new()
    }
}

/// The brand check, and a copy of the blob's data (no borrow is kept).
fn this_blob(this: &Value) -> JsResult<(Rc<[u8]>, Rc<str>)> {
    let object = webidl::this::<Blob>(this)?;
    let blob = object.borrow();
    let blob = blob.data();
    Ok((blob.bytes.clone(), blob.mime_type.clone()))
}

/// <https://w3c.github.io/FileAPI/#dfn-size>
fn blob_size(this: &Value, _: &[Value], _: &mut Context) -> JsResult<Value> {
    let (bytes, _) = this_blob(this)?;
    // unsigned long long: a byte length is far below 2^53.
    Ok(Value::from(bytes.len() as f64))
}

/// <https://w3c.github.io/FileAPI/#dfn-type>
fn blob_type(this: &Value, _: &[Value], _: &mut Context) -> JsResult<Value> {
    let (_, mime_type) = this_blob(this)?;
    Ok(JsString::from(&*mime_type).into())
}

/// An optional `[Clamp] long long` argument (<https://webidl.spec.whatwg.org/#es-long-long>);
/// `None` when missing or `undefined`.
fn optional_clamped_long_long(value: Option<&Value>, ctx: &mut Context) -> JsResult<Option<f64>> {
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
fn blob_slice(this: &Value, args: &[Value], ctx: &mut Context) -> JsResult<Value> {
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
    // slice blob, <https://w3c.github.io/FileAPI/#slice-blob>:
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
    let relative_content_type = content_type
        .as_deref()
        .map(normalize_type)
        .unwrap_or_default();
    // 5. Let span be max((relativeEnd - relativeStart), 0).
    let span = (relative_end - relative_start).max(0.0);
    // 6. Return a new Blob object S: span consecutive bytes from relativeStart, and type
    //    relativeContentType.
    // invariant: both are integers in [0, originalSize], so the casts are exact.
    let (from, len) = (relative_start as usize, span as usize);
    let slice = bytes.get(from..from + len).unwrap_or_default().to_vec();
    let blob = Blob::from_data(Blob::new(slice, relative_content_type), ctx)?;
    Ok(blob.into())
}

/// <https://w3c.github.io/FileAPI/#stream-method-algo>: the result of getting a stream of this.
fn blob_stream(this: &Value, _: &[Value], ctx: &mut Context) -> JsResult<Value> {
    let (bytes, _) = this_blob(this)?;
    Ok(get_stream(bytes, ctx)?.upcast().into())
}

/// <https://w3c.github.io/FileAPI/#blob-get-stream>
fn get_stream(
    bytes: Rc<[u8]>,
    ctx: &mut Context,
) -> JsResult<crate::engine::Object<ReadableStream>> {
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
            enqueue_chunk(&stream, &bytes[start..end], ctx)
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

/// A chunk's task in <https://w3c.github.io/FileAPI/#blob-get-stream>.
fn enqueue_chunk(
    stream: &crate::engine::Object<ReadableStream>,
    bytes: &[u8],
    ctx: &mut Context,
) -> JsResult<()> {
    // 1. If bytes is failure, then error stream with a failure reason and abort these steps.
    //    (Reading from memory cannot fail.)
    // 2. Let chunk be a new Uint8Array wrapping an ArrayBuffer containing bytes. If creating
    //    the ArrayBuffer throws an exception, then error stream with that exception and abort
    //    these steps.
    let chunk = match engine::new_uint8_array(bytes, ctx) {
        Ok(chunk) => chunk,
        Err(error) => {
            let reason = engine::thrown_value(error, ctx)?;
            other_specs::error(stream, reason, ctx)?;
            return Ok(());
        }
    };
    // 3. Enqueue chunk in stream. (It does nothing once the stream is canceled or errored.)
    other_specs::enqueue(stream, chunk, ctx)?;
    Ok(())
}

/// Closes the stream (<https://streams.spec.whatwg.org/#readablestream-close>) once the blob's
/// bytes are all enqueued. ReadableByteStreamControllerClose returns early once the stream is
/// no longer readable, and errors the stream (then throws) if a BYOB request is partly filled
/// with a partial element: the stream is errored either way, so a throw is dropped.
fn close_stream(stream: &crate::engine::Object<ReadableStream>, ctx: &mut Context) -> JsResult<()> {
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
fn read_blob(this: &Value, read_as: ReadAs, ctx: &mut Context) -> JsResult<Value> {
    let (bytes, _) = this_blob(this)?;
    let promise = PromiseCapability::new(ctx);
    let result = promise.promise().clone();
    let settle = move |ctx: &mut Context| -> JsResult<()> {
        let value = match read_as {
            // UTF-8 decode: a leading BOM is dropped, invalid sequences become U+FFFD.
            ReadAs::Text => {
                let text = String::from_utf8_lossy(&bytes);
                Ok(JsString::from(text.strip_prefix('\u{FEFF}').unwrap_or(&text)).into())
            }
            ReadAs::ArrayBuffer => array_buffer(&bytes, ctx).map(Value::from),
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
fn array_buffer(bytes: &[u8], ctx: &mut Context) -> JsResult<JsArrayBuffer> {
    Ok(JsArrayBuffer::from_byte_block(
        AlignedVec::from_slice(0, bytes),
        ctx,
    )?)
}

/// <https://w3c.github.io/FileAPI/#text-method-algo>
fn blob_text(this: &Value, _: &[Value], ctx: &mut Context) -> JsResult<Value> {
    read_blob(this, ReadAs::Text, ctx)
}

/// <https://w3c.github.io/FileAPI/#arraybuffer-method-algo>
fn blob_array_buffer(this: &Value, _: &[Value], ctx: &mut Context) -> JsResult<Value> {
    read_blob(this, ReadAs::ArrayBuffer, ctx)
}

/// <https://w3c.github.io/FileAPI/#bytes-method-algo>
fn blob_bytes(this: &Value, _: &[Value], ctx: &mut Context) -> JsResult<Value> {
    read_blob(this, ReadAs::Bytes, ctx)
}

/// Installs the `Blob` interface object on the global.
pub(super) fn register(ctx: &mut Context) -> JsResult<()> {
    webidl::register_interface::<Blob>(ctx)
}
