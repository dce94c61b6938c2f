//! The blob URL store (<https://w3c.github.io/FileAPI/#url>): `blob:` URLs made by
//! `URL.createObjectURL(blob)`, revoked by `URL.revokeObjectURL(url)`, and resolved by the
//! fetch layer (<https://w3c.github.io/FileAPI/#blob-url-resolve>).
//!
//! The store is the user agent's: one map shared by every agent and thread, whose entries hold
//! the blob's bytes (shared, `Send`) and type, so a URL made in one agent resolves in another.

use std::{
    collections::HashMap,
    hash::{BuildHasher, Hasher},
    sync::{
        atomic::{AtomicU64, Ordering},
        Arc, Mutex, PoisonError,
    },
};

use crate::engine::webidl;
use crate::engine::{self, Cx, JsResult, JsString, Object, Value};

/// A blob URL entry (<https://w3c.github.io/FileAPI/#blob-url-entry>): the object (as its
/// bytes and type) and the origin of the environment that made it.
#[derive(Debug, Clone)]
pub struct BlobUrlEntry {
    /// The blob's bytes.
    pub bytes: Arc<[u8]>,
    /// The blob's `type`.
    pub mime_type: String,
    /// The serialized origin of the environment that made the URL.
    pub origin: String,
}

/// <https://w3c.github.io/FileAPI/#BlobURLStore>: blob URL (without fragment) to entry.
static BLOB_URL_STORE: Mutex<Option<HashMap<String, BlobUrlEntry>>> = Mutex::new(None);

/// The agent's origin for blob URLs, as set with [`set_blob_url_origin`].
struct BlobUrlOrigin(String);

/// Sets the origin that blob URLs made in this agent carry (default: an opaque origin,
/// serialized as "null").
pub fn set_blob_url_origin(ctx: &mut Cx, origin: &str) {
    engine::set_agent_data(ctx, BlobUrlOrigin(origin.to_string()));
}

fn with_store<R>(f: impl FnOnce(&mut HashMap<String, BlobUrlEntry>) -> R) -> R {
    let mut store = BLOB_URL_STORE
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    f(store.get_or_insert_with(HashMap::new))
}

/// A random version 4 UUID (RFC 4122), in its lowercase string form: 122 bits from the
/// standard library's randomly seeded hasher keys, mixed with a counter and the time.
fn random_uuid() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let count = COUNTER.fetch_add(1, Ordering::Relaxed);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let half = |salt: u64| {
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        hasher.write_u64(count);
        hasher.write_u128(nanos);
        hasher.write_u64(salt);
        hasher.finish()
    };
    let (high, low) = (half(1), half(2));
    let mut bytes = [0u8; 16];
    bytes[..8].copy_from_slice(&high.to_be_bytes());
    bytes[8..].copy_from_slice(&low.to_be_bytes());
    // The version (4) and the variant (10xx).
    bytes[6] = (bytes[6] & 0x0F) | 0x40;
    bytes[8] = (bytes[8] & 0x3F) | 0x80;
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}

/// <https://w3c.github.io/FileAPI/#unicodeBlobURL>: a new blob URL, `blob:<origin>/<uuid>`.
fn generate_a_new_blob_url(origin: &str) -> String {
    // 1. Let result be the empty string.
    // 2. Append the string "blob:" to result.
    // 3. Let settings be the current settings object.
    // 4. Let origin be settings's origin.
    // 5. Let serialized be the ASCII serialization of origin.
    // 6. If serialized is "null", set it to an implementation-defined value. (Kept "null".)
    // 7. Append serialized to result.
    // 8. Append U+0024 SOLIDUS (/) to result.
    // 9. Generate a UUID [RFC4122] as a string and append it to result.
    // 10. Return result.
    format!("blob:{origin}/{}", random_uuid())
}

/// <https://w3c.github.io/FileAPI/#add-an-entry>: adds an entry for a blob (its bytes and
/// type) made in an environment of `origin` to the blob URL store, and returns its new URL.
fn add_an_entry(bytes: Arc<[u8]>, mime_type: String, origin: &str) -> String {
    // 1. Let store be the user agent's blob URL store.
    loop {
        // 2. Let url be the result of generating a new blob URL.
        let url = generate_a_new_blob_url(origin);
        // 3. Let entry be a new blob URL entry consisting of object and the current settings
        //    object.
        // 4. Set store[url] to entry. (A UUID that is already there is drawn again.)
        let added = with_store(|store| {
            if store.contains_key(&url) {
                return false;
            }
            let entry = BlobUrlEntry {
                bytes: bytes.clone(),
                mime_type: mime_type.clone(),
                origin: origin.to_string(),
            };
            store.insert(url.clone(), entry);
            true
        });
        // 5. Return url.
        if added {
            return url;
        }
    }
}

/// Adds a blob (its bytes and type) made in an environment of `origin` to the blob URL
/// store: its new `blob:` URL (what `URL.createObjectURL` returns).
pub fn create_object_url(bytes: Arc<[u8]>, mime_type: String, origin: &str) -> String {
    add_an_entry(bytes, mime_type, origin)
}

/// Removes the entry of `url` (its fragment ignored), if any, when it was made in an
/// environment of `origin` (what `URL.revokeObjectURL` does). Returns whether one was removed.
pub fn revoke_object_url(url: &str, origin: &str) -> bool {
    // revokeObjectURL 3. If url's origin is not same origin with the current settings
    // object's origin, return.
    let same_origin = resolve_blob_url(url).is_some_and(|entry| entry.origin == origin);
    // 4. Remove an entry from the Blob URL Store for url.
    same_origin && remove_an_entry(url)
}

/// <https://w3c.github.io/FileAPI/#removeTheEntry>: whether an entry was removed.
fn remove_an_entry(url: &str) -> bool {
    // 1. Let store be the user agent's blob URL store.
    // 2. Let url string be the result of serializing url (with its fragment: a URL with one
    //    names no entry).
    // 3. Remove store[url string].
    with_store(|store| store.remove(url).is_some())
}

/// <https://w3c.github.io/FileAPI/#blob-url-resolve>: the entry of a `blob:` URL (its
/// fragment ignored), or `None` when it is not in the store.
pub fn resolve_blob_url(url: &str) -> Option<BlobUrlEntry> {
    // 1. Assert: url's scheme is "blob".
    if !url.starts_with("blob:") {
        return None;
    }
    // 2. Let store be the user agent's blob URL store.
    // 3. Let url string be the result of serializing url with exclude fragment set to true.
    let url = url.split_once('#').map_or(url, |(u, _)| u);
    // 4. If store[url string] exists, return store[url string]; otherwise return failure.
    with_store(|store| store.get(url).cloned())
}

/// The agent's origin for blob URLs.
fn origin(ctx: &Cx) -> String {
    engine::agent_data::<BlobUrlOrigin>(ctx).map_or_else(|| "null".to_string(), |o| o.0.clone())
}

/// `URL.createObjectURL(obj)` (<https://w3c.github.io/FileAPI/#dfn-createObjectURL>): a static
/// operation of `URL`, for the `URL` interface to install.
pub fn create_object_url_operation(_: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    webidl::require_args(args, 1, "URL", "createObjectURL")?;
    // `(Blob or MediaSource) obj`: here, a Blob.
    let Some((bytes, mime_type)) = args[0].as_object().and_then(|o| super::blob_data(&o)) else {
        return Err(engine::throw_type_error(
            "Failed to execute 'createObjectURL' on 'URL': parameter 1 is not of type 'Blob'",
        ));
    };
    // The createObjectURL(obj) static method must return the result of adding an entry to the
    // blob URL store for obj.
    Ok(JsString::from(create_object_url(bytes, mime_type, &origin(ctx))).into())
}

/// `URL.revokeObjectURL(url)` (<https://w3c.github.io/FileAPI/#dfn-revokeObjectURL>): a static
/// operation of `URL`, for the `URL` interface to install.
pub fn revoke_object_url_operation(_: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    webidl::require_args(args, 1, "URL", "revokeObjectURL")?;
    // `DOMString url`.
    let url = args[0].to_string(ctx)?.to_std_string_lossy();
    // 1. Let urlRecord be the result of parsing url.
    // 2. If urlRecord's scheme is not "blob", return.
    // (A blob URL this store made is already serialized: the string is its own parse; any
    // other string matches no entry.)
    if !url.starts_with("blob:") {
        return Ok(Value::undefined());
    }
    // 3-4. If urlRecord's origin is same origin with the current settings object's origin,
    //      remove an entry from the Blob URL Store for url.
    revoke_object_url(&url, &origin(ctx));
    Ok(Value::undefined())
}

/// A `Blob` object of the current realm for a resolved entry (what fetching a `blob:` URL
/// gives back as its body's source).
pub fn entry_blob(entry: &BlobUrlEntry, ctx: &mut Cx) -> JsResult<Object> {
    super::new_blob(entry.bytes.clone(), entry.mime_type.clone(), ctx)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuids_are_version_4_and_distinct() {
        let a = random_uuid();
        let b = random_uuid();
        assert_ne!(a, b);
        assert_eq!(a.len(), 36);
        assert_eq!(&a[14..15], "4");
        assert!(matches!(&a[19..20], "8" | "9" | "a" | "b"));
    }
}
