//! `FileReader` (<https://w3c.github.io/FileAPI/#APIASynch>): an `EventTarget` (its slots are
//! DOM's extension slot) that reads a blob through the blob's stream, one "read a chunk" at a
//! time, and queues a task for each event it fires.

use std::cell::Cell;

use crate::dom;
use crate::engine::webidl::{self, InterfaceObject};
use crate::engine::{
    self, js_string, Cx, JsResult, JsString, Object, Realm, Slot, StandardConstructor, Value,
};
use crate::readable::{
    other_specs::{read_a_chunk, ReadRequestSteps},
    stream::acquire_readable_stream_default_reader,
    ReadableStreamDefaultReader,
};

use super::{blob, progress_event::new_progress_event, prototype, Iface};

const INTERFACE: &str = "FileReader";

/// <https://w3c.github.io/FileAPI/#dom-filereader-readystate>'s values.
const EMPTY: u16 = 0;
const LOADING: u16 = 1;
const DONE: u16 = 2;

/// Roughly how long to wait between `progress` events (the spec's "roughly 50ms").
const PROGRESS_INTERVAL_NANOS: u128 = 50_000_000;

traced! {
    /// A `FileReader`'s slots (<https://w3c.github.io/FileAPI/#filereader-state> and
    /// following), kept in its `EventTarget`'s extension slot.
    struct FileReaderSlots {
        /// [[state]]: "empty", "loading" or "done" (as the `readyState` values).
        #[unsafe_ignore_trace]
        state: Cell<u16>,
        /// [[result]]: null, a string or an `ArrayBuffer`.
        result: Slot<Value>,
        /// [[error]]: null or an error.
        error: Slot<Value>,
        /// Which read operation is current: a task or step of an earlier (terminated) read
        /// operation does nothing. Removing a reader's queued tasks (`abort()` step 3) and
        /// terminating its read algorithm (step 4) both advance it.
        #[unsafe_ignore_trace]
        read_id: Cell<u64>,
    }
}

/// What a read operation packages the bytes as (<https://w3c.github.io/FileAPI/#packaging-data>).
#[derive(Debug, Clone)]
enum ReadType {
    DataUrl,
    Text(Option<String>),
    ArrayBuffer,
    BinaryString,
}

pub(super) fn build_interface(
    event_target: &StandardConstructor,
    ctx: &mut Cx,
) -> StandardConstructor {
    let mut iface = InterfaceObject::new(ctx, INTERFACE, 0, construct);
    iface
        .members()
        .operation("readAsArrayBuffer", 1, read_as_array_buffer)
        .operation("readAsBinaryString", 1, read_as_binary_string)
        .operation("readAsText", 1, read_as_text)
        .operation("readAsDataURL", 1, read_as_data_url)
        .operation("abort", 0, abort)
        .constant("EMPTY", EMPTY)
        .constant("LOADING", LOADING)
        .constant("DONE", DONE)
        .attribute("readyState", get_ready_state, None)
        .attribute("result", get_result, None)
        .attribute("error", get_error, None)
        .attribute("onloadstart", get_onloadstart, Some(set_onloadstart))
        .attribute("onprogress", get_onprogress, Some(set_onprogress))
        .attribute("onload", get_onload, Some(set_onload))
        .attribute("onabort", get_onabort, Some(set_onabort))
        .attribute("onerror", get_onerror, Some(set_onerror))
        .attribute("onloadend", get_onloadend, Some(set_onloadend));
    iface.build(
        Some(event_target.prototype()),
        Some(event_target.constructor()),
    )
}

/// `new FileReader()`
fn construct(new_target: &Value, _: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    webidl::require_new(new_target, INTERFACE)?;
    let proto = webidl::prototype_from_new_target(
        new_target,
        |ctx| prototype(Iface::FileReader, ctx),
        ctx,
    )?;
    let slots = FileReaderSlots {
        state: Cell::new(EMPTY),
        result: Slot::new(Value::null()),
        error: Slot::new(Value::null()),
        read_id: Cell::new(0),
    };
    Ok(Object::from_proto_and_data(proto, dom::EventTarget::new_extended(slots)).into())
}

/// Runs `f` on `object`'s `FileReader` slots, if it is a `FileReader` (a short borrow: `f`
/// must not call into JS).
fn with_reader<R>(object: &Object, f: impl FnOnce(&FileReaderSlots) -> R) -> Option<R> {
    dom::with_target(object, |t| {
        dom::extension_of::<FileReaderSlots>(&t.extension).map(f)
    })
    .flatten()
}

/// The brand check of `FileReader`'s members.
fn this_reader(this: &Value) -> JsResult<Object> {
    webidl::this_implementing(this, INTERFACE, |o| with_reader(o, |_| ()).is_some())
}

/// The `Blob blob` argument of the read methods.
fn blob_argument(args: &[Value], member: &str) -> JsResult<Object> {
    webidl::require_args(args, 1, INTERFACE, member)?;
    match args[0].as_object() {
        Some(o) if super::blob_data(&o).is_some() => Ok(o),
        _ => Err(engine::throw_type_error(format!(
            "Failed to execute '{member}' on 'FileReader': parameter 1 is not of type 'Blob'"
        ))),
    }
}

/// <https://w3c.github.io/FileAPI/#dfn-readAsArrayBuffer>
fn read_as_array_buffer(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let fr = this_reader(this)?;
    let blob = blob_argument(args, "readAsArrayBuffer")?;
    // The readAsArrayBuffer(blob) method, when invoked, must initiate a read operation for
    // blob with ArrayBuffer.
    read_operation(&fr, &blob, ReadType::ArrayBuffer, ctx)?;
    Ok(Value::undefined())
}

/// <https://w3c.github.io/FileAPI/#dfn-readAsBinaryString>
fn read_as_binary_string(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let fr = this_reader(this)?;
    let blob = blob_argument(args, "readAsBinaryString")?;
    read_operation(&fr, &blob, ReadType::BinaryString, ctx)?;
    Ok(Value::undefined())
}

/// <https://w3c.github.io/FileAPI/#dfn-readAsText>
fn read_as_text(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let fr = this_reader(this)?;
    let blob = blob_argument(args, "readAsText")?;
    // `optional DOMString encoding`.
    let encoding = match args.get(1).filter(|v| !v.is_undefined()) {
        None => None,
        Some(v) => Some(v.to_string(ctx)?.to_std_string_lossy()),
    };
    read_operation(&fr, &blob, ReadType::Text(encoding), ctx)?;
    Ok(Value::undefined())
}

/// <https://w3c.github.io/FileAPI/#dfn-readAsDataURL>
fn read_as_data_url(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let fr = this_reader(this)?;
    let blob = blob_argument(args, "readAsDataURL")?;
    read_operation(&fr, &blob, ReadType::DataUrl, ctx)?;
    Ok(Value::undefined())
}

traced! {
    /// The state of a read operation's "in parallel" loop (its step 10), carried from one read
    /// request to the next.
    struct ReadOperation {
        fr: Object,
        reader: Object<ReadableStreamDefaultReader>,
        /// The realm whose event loop the tasks go to.
        realm: Realm,
        /// bytes.
        #[unsafe_ignore_trace]
        bytes: Vec<u8>,
        /// isFirstChunk.
        #[unsafe_ignore_trace]
        is_first_chunk: bool,
        /// The [`FileReaderSlots::read_id`] this operation runs under.
        #[unsafe_ignore_trace]
        id: u64,
        #[unsafe_ignore_trace]
        read_type: ReadType,
        /// blob's type.
        #[unsafe_ignore_trace]
        mime_type: String,
        /// blob's size (the progress events' `total`).
        #[unsafe_ignore_trace]
        total: usize,
        /// When the last `progress` event was queued (the clock's nanoseconds).
        #[unsafe_ignore_trace]
        last_progress: Option<u128>,
    }
}

impl std::fmt::Debug for ReadOperation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FileReader read operation")
    }
}

/// <https://w3c.github.io/FileAPI/#readOperation>
fn read_operation(fr: &Object, blob: &Object, read_type: ReadType, ctx: &mut Cx) -> JsResult<()> {
    // 1. If fr's state is "loading", throw an InvalidStateError DOMException.
    let Some(state) = with_reader(fr, |r| r.state.get()) else {
        return Err(engine::throw_type_error("not a FileReader"));
    };
    if state == LOADING {
        let exception = dom::create_dom_exception(
            ctx,
            "Failed to read the blob: the FileReader is already loading",
            "InvalidStateError",
        )?;
        return Err(engine::throw_value(exception.into()));
    }
    let Some((bytes, mime_type)) = super::blob_data(blob) else {
        return Err(engine::throw_type_error("not a Blob"));
    };
    // 2. Set fr's state to "loading".
    // 3. Set fr's result to null.
    // 4. Set fr's error to null.
    let id = with_reader(fr, |r| {
        r.state.set(LOADING);
        *r.result.borrow_mut() = Value::null();
        *r.error.borrow_mut() = Value::null();
        let id = r.read_id.get() + 1;
        r.read_id.set(id);
        id
    })
    .unwrap_or_default();
    // 5. Let stream be the result of calling get stream on blob.
    let total = bytes.len();
    let stream = blob::get_stream(bytes, ctx)?;
    // 6. Let reader be the result of getting a reader from stream.
    let reader = acquire_readable_stream_default_reader(&stream, ctx)?;
    // 7. Let bytes be an empty byte sequence.
    // 9. Let isFirstChunk be true.
    let operation = ReadOperation {
        fr: fr.clone(),
        reader: reader.clone(),
        realm: engine::current_realm(ctx),
        bytes: Vec::new(),
        is_first_chunk: true,
        id,
        read_type,
        mime_type,
        total,
        last_progress: None,
    };
    // 8. Let chunkPromise be the result of reading a chunk from stream with reader.
    // 10. In parallel, while true: wait for chunkPromise to be fulfilled or rejected (the read
    //     request's steps below).
    read_a_chunk(&reader, Box::new(operation), ctx)
}

/// Whether `fr`'s current read operation is still the one numbered `id`.
fn is_current(fr: &Object, id: u64) -> bool {
    with_reader(fr, |r| r.read_id.get() == id).unwrap_or(false)
}

/// Queues a task on the file reading task source that runs `steps` unless the read operation
/// `id` was terminated (its tasks removed) by then.
fn queue_reader_task(
    operation: &ReadOperation,
    ctx: &mut Cx,
    steps: impl FnOnce(&Object, &mut Cx) -> JsResult<()> + 'static,
) {
    let (fr, id) = (operation.fr.clone(), operation.id);
    engine::queue_task_in(ctx, operation.realm.clone(), move |ctx| {
        if !is_current(&fr, id) {
            return Ok(());
        }
        steps(&fr, ctx)
    });
}

/// Fires a progress event called `e` at `fr`
/// (<https://w3c.github.io/FileAPI/#fire-a-progress-event>).
fn fire_progress_event(
    fr: &Object,
    e: &str,
    loaded: f64,
    total: f64,
    ctx: &mut Cx,
) -> JsResult<()> {
    let event = new_progress_event(ctx, e, loaded, Some(total))?;
    dom::dispatch(fr, &event, ctx)?;
    Ok(())
}

impl ReadRequestSteps for ReadOperation {
    /// chunkPromise fulfilled with { done: false, value: chunk }: steps 10.2 to 10.4.
    fn chunk_steps(mut self: Box<Self>, chunk: Value, ctx: &mut Cx) -> JsResult<()> {
        // (The algorithm was terminated: stop.)
        if !is_current(&self.fr, self.id) {
            return Ok(());
        }
        // 2. If chunkPromise is fulfilled, and isFirstChunk is true, queue a task to fire a
        //    progress event called loadstart at fr.
        self.queue_loadstart(ctx);
        // 3. Set isFirstChunk to false.
        self.is_first_chunk = false;
        // 4. If chunkPromise is fulfilled with an object whose done property is false and
        //    whose value property is a Uint8Array object, run these steps:
        //    1. Let bs be the byte sequence represented by the Uint8Array object.
        //    2. Append bs to bytes.
        let mut bytes = std::mem::take(&mut self.bytes);
        let appended =
            engine::with_buffer_source_bytes(&chunk, ctx, |bs| bytes.extend_from_slice(bs));
        self.bytes = bytes;
        if appended.is_none() {
            // Not a Uint8Array: 10.6 treats anything else as an error of the read.
            let error = engine::type_error("the blob's stream gave a chunk that is not bytes", ctx);
            return self.error_steps(error, ctx);
        }
        //    3. If roughly 50ms have passed since these steps were last invoked, queue a task
        //       to fire a progress event called progress at fr. (The first chunk's counts.)
        let now = engine::clock_nanos(ctx);
        if self
            .last_progress
            .is_none_or(|last| now.saturating_sub(last) >= PROGRESS_INTERVAL_NANOS)
        {
            self.last_progress = Some(now);
            let (loaded, total) = (self.bytes.len() as f64, self.total as f64);
            queue_reader_task(&self, ctx, move |fr, ctx| {
                fire_progress_event(fr, "progress", loaded, total, ctx)
            });
        }
        //    4. Set chunkPromise to the result of reading a chunk from stream with reader.
        let reader = self.reader.clone();
        read_a_chunk(&reader, self, ctx)
    }

    /// chunkPromise fulfilled with { done: true }: steps 10.2, 10.3 and 10.5.
    fn close_steps(self: Box<Self>, ctx: &mut Cx) -> JsResult<()> {
        if !is_current(&self.fr, self.id) {
            return Ok(());
        }
        // 2. (fulfilled, and isFirstChunk is true) queue a task to fire loadstart.
        self.queue_loadstart(ctx);
        // 5. Otherwise, if chunkPromise is fulfilled with an object whose done property is
        //    true, queue a task to run the following steps and abort this algorithm:
        let ReadOperation {
            bytes,
            read_type,
            mime_type,
            total,
            ..
        } = &*self;
        let (bytes, read_type, mime_type, total) = (
            bytes.clone(),
            read_type.clone(),
            mime_type.clone(),
            *total as f64,
        );
        let loaded = bytes.len() as f64;
        queue_reader_task(&self, ctx, move |fr, ctx| {
            // 1. Set fr's state to "done".
            set_state(fr, DONE);
            // 2. Let result be the result of package data given bytes, type, blob's type, and
            //    encodingName.
            match package_data(&bytes, &read_type, &mime_type, ctx) {
                // 3. If package data threw an exception error:
                Err(error) => {
                    let error = engine::thrown_value(error, ctx)?;
                    // 1. Set fr's error to error.
                    with_reader(fr, |r| *r.error.borrow_mut() = error);
                    // 2. Fire a progress event called error at fr.
                    fire_progress_event(fr, "error", loaded, total, ctx)?;
                }
                // 4. Else:
                Ok(result) => {
                    // 1. Set fr's result to result.
                    with_reader(fr, |r| *r.result.borrow_mut() = result);
                    // 2. Fire a progress event called load at the fr.
                    fire_progress_event(fr, "load", loaded, total, ctx)?;
                }
            }
            // 5. If fr's state is not "loading", fire a progress event called loadend at the
            //    fr.
            if state_of(fr) != LOADING {
                fire_progress_event(fr, "loadend", loaded, total, ctx)?;
            }
            Ok(())
        });
        Ok(())
    }

    /// chunkPromise rejected with error: step 10.6.
    fn error_steps(self: Box<Self>, e: Value, ctx: &mut Cx) -> JsResult<()> {
        if !is_current(&self.fr, self.id) {
            return Ok(());
        }
        // 6. Otherwise, if chunkPromise is rejected with an error error, queue a task to run
        //    the following steps and abort this algorithm:
        let (loaded, total) = (self.bytes.len() as f64, self.total as f64);
        queue_reader_task(&self, ctx, move |fr, ctx| {
            // 1. Set fr's state to "done".
            set_state(fr, DONE);
            // 2. Set fr's error to error.
            with_reader(fr, |r| *r.error.borrow_mut() = e);
            // 3. Fire a progress event called error at fr.
            fire_progress_event(fr, "error", loaded, total, ctx)?;
            // 4. If fr's state is not "loading", fire a progress event called loadend at fr.
            if state_of(fr) != LOADING {
                fire_progress_event(fr, "loadend", loaded, total, ctx)?;
            }
            Ok(())
        });
        Ok(())
    }
}

impl ReadOperation {
    /// Step 10.2: the first fulfilled chunkPromise queues a task to fire `loadstart`.
    fn queue_loadstart(&self, ctx: &mut Cx) {
        if self.is_first_chunk {
            let total = self.total as f64;
            queue_reader_task(self, ctx, move |fr, ctx| {
                fire_progress_event(fr, "loadstart", 0.0, total, ctx)
            });
        }
    }
}

fn state_of(fr: &Object) -> u16 {
    with_reader(fr, |r| r.state.get()).unwrap_or(EMPTY)
}

fn set_state(fr: &Object, state: u16) {
    with_reader(fr, |r| r.state.set(state));
}

/// <https://w3c.github.io/FileAPI/#packaging-data>
fn package_data(
    bytes: &[u8],
    read_type: &ReadType,
    mime_type: &str,
    ctx: &mut Cx,
) -> JsResult<Value> {
    match read_type {
        // DataURL: return bytes as a DataURL [RFC2397]: the blob's type as its media type
        // (application/octet-stream when there is none, as every implementation does), and
        // the bytes base64-encoded.
        ReadType::DataUrl => {
            let media_type = if mime_type.is_empty() {
                "application/octet-stream"
            } else {
                mime_type
            };
            let url = format!("data:{media_type};base64,{}", base64_encode(bytes));
            Ok(JsString::from(url).into())
        }
        // Text:
        ReadType::Text(encoding_name) => {
            // 1. Let encoding be failure.
            // 2. If the encodingName is present, set encoding to the result of getting an
            //    encoding from encodingName.
            let mut encoding = encoding_name
                .as_deref()
                .and_then(|label| encoding_rs::Encoding::for_label(label.as_bytes()));
            // 3. If encoding is failure, and mimeType is present:
            //    1. Let type be the result of parse a MIME type given mimeType.
            //    2. If type is not failure, set encoding to the result of getting an encoding
            //       from type's parameters["charset"].
            if encoding.is_none() {
                encoding = mime_charset(mime_type)
                    .and_then(|label| encoding_rs::Encoding::for_label(label.as_bytes()));
            }
            // 4. If encoding is failure, then set encoding to UTF-8.
            let encoding = encoding.unwrap_or(encoding_rs::UTF_8);
            // 5. Decode bytes using fallback encoding encoding, and return the result (BOM
            //    sniffing first, then decoding with replacement).
            let (text, _, _) = encoding.decode(bytes);
            Ok(JsString::from(&*text).into())
        }
        // ArrayBuffer: a new ArrayBuffer whose contents are bytes.
        ReadType::ArrayBuffer => blob::new_array_buffer(bytes, ctx),
        // BinaryString: bytes as a binary string, each byte a code unit of the same value.
        ReadType::BinaryString => {
            let units: Vec<u16> = bytes.iter().map(|&b| u16::from(b)).collect();
            Ok(JsString::from(units.as_slice()).into())
        }
    }
}

/// RFC 4648 base64 with padding (Infra's forgiving-base64 encode).
fn base64_encode(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for group in bytes.chunks(3) {
        let b = [
            group[0],
            group.get(1).copied().unwrap_or(0),
            group.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= group.len() {
                out.push(char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The `charset` parameter of a MIME type string, as <https://mimesniff.spec.whatwg.org/#parse-a-mime-type>
/// finds it (the first `charset` parameter with a non-empty value), or `None` when the string
/// does not parse or has none.
fn mime_charset(input: &str) -> Option<String> {
    let is_ws = |c: char| matches!(c, '\t' | '\n' | '\r' | ' ');
    let is_token = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c);
    // 1-2. Trim HTTP whitespace; the type is everything up to "/".
    let input = input.trim_matches(is_ws);
    let (type_, rest) = input.split_once('/')?;
    // 4. If type is empty or does not solely contain HTTP token code points, failure.
    if type_.is_empty() || !type_.chars().all(is_token) {
        return None;
    }
    // 7-9. The subtype is everything up to ";", with trailing whitespace removed.
    let (subtype, mut params) = match rest.find(';') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, ""),
    };
    let subtype = subtype.trim_end_matches(is_ws);
    if subtype.is_empty() || !subtype.chars().all(is_token) {
        return None;
    }
    // 11. While position is not past the end of input:
    while let Some(after) = params.strip_prefix(';') {
        // 1-2. Advance past ";" and collect HTTP whitespace.
        let after = after.trim_start_matches(is_ws);
        // 3. Collect the parameter name up to ";" or "=".
        let name_end = after.find([';', '=']).unwrap_or(after.len());
        let name = after[..name_end].to_ascii_lowercase();
        let after = &after[name_end..];
        // 5. If at ";", continue.
        if after.starts_with(';') || after.is_empty() {
            params = after;
            continue;
        }
        // 6. Advance past "=".
        let after = &after[1..];
        // 7-9. A quoted string, or a value up to ";" with trailing whitespace removed.
        let (value, rest) = if let Some(quoted) = after.strip_prefix('"') {
            let mut value = String::new();
            let mut chars = quoted.char_indices();
            let mut end = quoted.len();
            while let Some((i, c)) = chars.next() {
                match c {
                    '\\' => match chars.next() {
                        Some((_, escaped)) => value.push(escaped),
                        None => value.push('\\'),
                    },
                    '"' => {
                        end = i + 1;
                        break;
                    }
                    c => value.push(c),
                }
            }
            let rest = &quoted[end.min(quoted.len())..];
            let rest = rest.find(';').map_or("", |i| &rest[i..]);
            (value, rest)
        } else {
            let end = after.find(';').unwrap_or(after.len());
            let value = after[..end].trim_end_matches(is_ws).to_string();
            if value.is_empty() {
                params = &after[end..];
                continue;
            }
            (value, &after[end..])
        };
        // 10. If name is "charset" (valid, and the first such): it is the charset.
        if name == "charset" && !name.is_empty() {
            return Some(value);
        }
        params = rest;
    }
    None
}

/// <https://w3c.github.io/FileAPI/#dfn-abort>
fn abort(this: &Value, _: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let fr = this_reader(this)?;
    // 1. If this's state is "empty" or if this's state is "done" set this's result to null
    //    and terminate this algorithm.
    let state = state_of(&fr);
    if state == EMPTY || state == DONE {
        with_reader(&fr, |r| *r.result.borrow_mut() = Value::null());
        return Ok(Value::undefined());
    }
    // 2. If this's state is "loading" set this's state to "done" and set this's result to
    //    null.
    // 3. If there are any tasks from this on the file reading task source in an affiliated
    //    task queue, then remove those tasks from that task queue.
    // 4. Terminate the algorithm for the read method being processed.
    with_reader(&fr, |r| {
        r.state.set(DONE);
        *r.result.borrow_mut() = Value::null();
        r.read_id.set(r.read_id.get() + 1);
    });
    // 5. Fire a progress event called abort at this.
    fire_progress_event(&fr, "abort", 0.0, 0.0, ctx)?;
    // 6. If this's state is not "loading", fire a progress event called loadend at this.
    if state_of(&fr) != LOADING {
        fire_progress_event(&fr, "loadend", 0.0, 0.0, ctx)?;
    }
    Ok(Value::undefined())
}

/// <https://w3c.github.io/FileAPI/#dom-filereader-readystate>
fn get_ready_state(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    let fr = this_reader(this)?;
    Ok(Value::from(f64::from(state_of(&fr))))
}

/// <https://w3c.github.io/FileAPI/#dom-filereader-result>
fn get_result(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    let fr = this_reader(this)?;
    Ok(with_reader(&fr, |r| r.result.borrow().clone()).unwrap_or_else(Value::null))
}

/// <https://w3c.github.io/FileAPI/#dom-filereader-error>
fn get_error(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    let fr = this_reader(this)?;
    Ok(with_reader(&fr, |r| r.error.borrow().clone()).unwrap_or_else(Value::null))
}

/// An event handler IDL attribute's getter.
fn get_handler(this: &Value, event_type: JsString) -> JsResult<Value> {
    let fr = this_reader(this)?;
    Ok(dom::event_handler_value(&fr, &event_type).map_or(Value::null(), Into::into))
}

/// An event handler IDL attribute's setter (`EventHandler`: a non-object is null).
fn set_handler(this: &Value, args: &[Value], event_type: JsString) -> JsResult<Value> {
    let fr = this_reader(this)?;
    let value = webidl::arg(args, 0).as_object();
    dom::set_event_handler(&fr, event_type, value);
    Ok(Value::undefined())
}

fn get_onloadstart(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    get_handler(this, js_string!("loadstart"))
}
fn set_onloadstart(this: &Value, args: &[Value], _: &mut Cx) -> JsResult<Value> {
    set_handler(this, args, js_string!("loadstart"))
}
fn get_onprogress(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    get_handler(this, js_string!("progress"))
}
fn set_onprogress(this: &Value, args: &[Value], _: &mut Cx) -> JsResult<Value> {
    set_handler(this, args, js_string!("progress"))
}
fn get_onload(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    get_handler(this, js_string!("load"))
}
fn set_onload(this: &Value, args: &[Value], _: &mut Cx) -> JsResult<Value> {
    set_handler(this, args, js_string!("load"))
}
fn get_onabort(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    get_handler(this, js_string!("abort"))
}
fn set_onabort(this: &Value, args: &[Value], _: &mut Cx) -> JsResult<Value> {
    set_handler(this, args, js_string!("abort"))
}
fn get_onerror(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    get_handler(this, js_string!("error"))
}
fn set_onerror(this: &Value, args: &[Value], _: &mut Cx) -> JsResult<Value> {
    set_handler(this, args, js_string!("error"))
}
fn get_onloadend(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    get_handler(this, js_string!("loadend"))
}
fn set_onloadend(this: &Value, args: &[Value], _: &mut Cx) -> JsResult<Value> {
    set_handler(this, args, js_string!("loadend"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_pads() {
        assert_eq!(base64_encode(b""), "");
        assert_eq!(base64_encode(b"a"), "YQ==");
        assert_eq!(base64_encode(b"ab"), "YWI=");
        assert_eq!(base64_encode(b"TEST"), "VEVTVA==");
        assert_eq!(base64_encode(&[0xFF, 0xEF, 0xFE]), "/+/+");
    }

    #[test]
    fn mime_charset_follows_the_parser() {
        assert_eq!(
            mime_charset("text/plain;charset=UTF-16BE").as_deref(),
            Some("UTF-16BE")
        );
        assert_eq!(
            mime_charset("text/plain; foo=bar; charset=\"utf\\-8\"").as_deref(),
            Some("utf-8")
        );
        assert_eq!(
            mime_charset("text/plain;charset=;charset=latin1").as_deref(),
            Some("latin1")
        );
        assert_eq!(mime_charset("text/plain"), None);
        assert_eq!(mime_charset("text;charset=utf-8"), None);
        assert_eq!(mime_charset("/plain;charset=utf-8"), None);
    }
}
