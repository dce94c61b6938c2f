//! The File API (<https://w3c.github.io/FileAPI/>): `Blob`, `File`, `FileReader` (with the
//! `ProgressEvent` it fires, from XMLHttpRequest), and the blob URL store behind
//! `URL.createObjectURL` / `URL.revokeObjectURL`.
//!
//! A client of the Streams Standard: a blob's stream is set up with the readable "other
//! specifications" API, and `FileReader` reads a blob through that stream ("read a chunk").
//! `Blob` and `File` are serializable: they come in to HTML's structured serialization as a
//! `serialize::SerializableInterface` entry, so HTML names none of them.
//!
//! Rust API for the other layers: [`blob_data`] (a blob's bytes and type, for a body),
//! [`new_blob`], [`blob_stream`], and the URL store's [`create_object_url`],
//! [`revoke_object_url`] and [`resolve_blob_url`] (with the two native functions
//! [`create_object_url_operation`] and [`revoke_object_url_operation`] that `URL` installs as
//! static operations).

mod blob;
mod progress_event;
mod reader;
mod url;

use std::sync::Arc;

use crate::engine::webidl;
use crate::engine::{self, Cx, JsResult, Object, StandardConstructor, Value};

pub(crate) use blob::normalize_type;
pub use url::{
    create_object_url, create_object_url_operation, entry_blob, resolve_blob_url,
    revoke_object_url, revoke_object_url_operation, set_blob_url_origin, BlobUrlEntry,
};

/// Installs `Blob`, `File`, `FileReader` and `ProgressEvent` on the global object of the current
/// realm (after `crate::dom::register`), and registers `Blob`/`File` as serializable.
pub fn register(ctx: &mut Cx) -> JsResult<()> {
    let (event, event_target) = crate::dom::event_interfaces(ctx)?;
    let blob = blob::build_blob_interface(ctx);
    let file = blob::build_file_interface(&blob, ctx);
    let progress_event = progress_event::build_interface(&event, ctx);
    let file_reader = reader::build_interface(&event_target, ctx);
    for (name, class) in [
        ("Blob", &blob),
        ("File", &file),
        ("FileReader", &file_reader),
        ("ProgressEvent", &progress_event),
    ] {
        webidl::define_global(name, class, ctx)?;
    }
    engine::set_realm_data(
        ctx,
        FileRealm {
            blob,
            file,
            file_reader,
            progress_event,
        },
    );
    crate::html::serialize::register_serializable(&blob::BLOB_SERIALIZABLE);
    Ok(())
}

traced! {
    data;
    /// The per-realm interface objects of the File API.
    struct FileRealm {
        blob: StandardConstructor,
        file: StandardConstructor,
        file_reader: StandardConstructor,
        progress_event: StandardConstructor,
    }
}

/// Which interface of [`FileRealm`] to look up.
#[derive(Clone, Copy)]
enum Iface {
    Blob,
    File,
    FileReader,
    ProgressEvent,
}

/// The interface prototype object of `iface` in the current realm.
fn prototype(iface: Iface, ctx: &Cx) -> JsResult<Object> {
    match engine::with_realm_data::<FileRealm, Object>(ctx, |r| {
        match iface {
            Iface::Blob => &r.blob,
            Iface::File => &r.file,
            Iface::FileReader => &r.file_reader,
            Iface::ProgressEvent => &r.progress_event,
        }
        .prototype()
    }) {
        Some(prototype) => Ok(prototype),
        None => Err(engine::throw_type_error(
            "the File API interfaces are not registered in this realm",
        )),
    }
}

/// A `Blob`'s (or `File`'s) bytes and `type`, if `object` is one (what a body's extraction
/// reads).
pub fn blob_data(object: &Object) -> Option<(Arc<[u8]>, String)> {
    blob::blob_data(object)
}

/// A `File`'s `name` (UTF-16 code units) and `lastModified`, if `object` is a `File`.
pub fn file_data(object: &Object) -> Option<(Vec<u16>, i64)> {
    blob::file_data(object)
}

/// A new `File` of the current realm holding `bytes`, with `mime_type` as its `type`, `name`
/// (UTF-16 code units) and `last_modified` (milliseconds since the epoch; `None` is now).
pub fn new_file(
    bytes: Arc<[u8]>,
    mime_type: String,
    name: Vec<u16>,
    last_modified: Option<i64>,
    ctx: &mut Cx,
) -> JsResult<Object> {
    let last_modified = last_modified.unwrap_or_else(|| blob::now_millis(ctx));
    blob::new_blob_object(bytes, mime_type, Some((name, last_modified)), ctx)
}

/// A new `Blob` of the current realm holding `bytes`, with `mime_type` as its `type` (taken
/// as given: the caller normalizes it).
pub fn new_blob(bytes: Arc<[u8]>, mime_type: String, ctx: &mut Cx) -> JsResult<Object> {
    blob::new_blob_object(bytes, mime_type, None, ctx)
}

/// <https://w3c.github.io/FileAPI/#blob-get-stream>: a new `ReadableStream` of the bytes of the
/// `Blob` `object` (a `TypeError` when it is not one).
pub fn blob_stream(object: &Object, ctx: &mut Cx) -> JsResult<Value> {
    let Some((bytes, _)) = blob::blob_data(object) else {
        return Err(engine::throw_type_error("the object is not a Blob"));
    };
    Ok(blob::get_stream(bytes, ctx)?.upcast().into())
}
