//! # boa_streams
//!
//! The [WHATWG Streams Standard](https://streams.spec.whatwg.org/) as native built-in objects of
//! the Boa JavaScript engine.
//!
//! Layers (see ARCHITECTURE.md):
//! - the spec algorithms (`queuing_strategy`, `queue`, and the stream modules): one Rust function
//!   per abstract operation, linked to its anchor;
//! - the WebIDL glue (`webidl`): argument conversion, brand checks, property shapes;
//! - the engine boundary (`engine`): promises, calls into JS, the job queue, GC;
//! - the DOM pieces the spec depends on (`dom`): `DOMException`, `EventTarget`, `AbortSignal`;
//! - the HTML pieces transferable streams depend on (`html`): structured serialization with
//!   transfer, `MessageChannel`/`MessagePort`/`MessageEvent`, the cross-realm transforms;
//! - the host (`host`): an HTML-ordered event loop and the globals that scripts and the Web
//!   Platform Tests expect. The host is not part of the spec layer.

// The engine first: its macros (`traced!`, `interface!`) are in scope in every module below.
#[macro_use]
mod engine;

mod compression;
pub mod dom;
mod encoding;
// The Fetch layer (issue 22): the engine-free data algorithms of Fetch, MIME Sniffing and HTML
// forms, and the interfaces built on them.
mod fetch;
pub mod file;
pub mod host;
mod html;
#[cfg(feature = "http")]
pub mod http;
mod queue;
mod queuing_strategy;
/// boa_streams in an application's own rquickjs runtime (QuickJS, feature `rquickjs`).
#[cfg(all(feature = "rquickjs", not(feature = "engine-boa")))]
pub mod quickjs;
mod readable;
pub mod rust;

/// The parsers that take untrusted bytes, for the fuzz targets in `fuzz/` (not a stable API).
#[doc(hidden)]
pub mod fuzzing {
    pub use crate::fetch::{data_url, headers, mime, multipart};
    pub use crate::url::urlencoded;
}
mod transfer;
mod transform;
// The URL Standard's API (`URL`, `URLSearchParams`) and its form-urlencoded algorithms.
mod url;
mod writable;

pub use engine::is_marked_as_handled;

/// `fetch()`'s embedder side: the [`Fetcher`](fetcher::Fetcher) trait that maps requests to
/// responses whose bodies Rust feeds chunk by chunk.
pub use fetch::fetcher;

/// A JavaScript object as the public `dom` API takes and returns it (the engine's handle;
/// `From` converts it to and from Boa's `JsObject` and into a `JsValue`).
pub use engine::Object;

/// A JavaScript value as the library's API takes and returns it (the `dom` API, the Rust
/// API); it converts to and from the engine's own (on Boa, `JsValue`).
pub use engine::Value;

/// A JavaScript string as the library's API returns it (it converts to and from the engine's
/// own; on Boa, `JsString`).
pub use engine::JsString;

/// A native function as the host defines it on a global (`this`, the arguments, the context).
pub use engine::NativeFunctionPointer;

/// A thrown exception or an uncatchable engine error, as the library's API returns it (it
/// converts to and from the engine's own; on Boa, `JsError`), and the result type of an
/// operation that can throw.
pub use engine::{JsError, JsResult};

/// A debug counter: the JS objects the library's own code has asked the engine to create on
/// this thread (see [`engine::js_objects_created`]); tests read it to show that a path makes no
/// object per chunk.
pub use engine::js_objects_created;
/// A debug counter: the JS objects the pipe steps (`pipeTo`, `pipeThrough`) have created on this
/// thread. It grows per pipe, never per chunk; tests assert that.
#[doc(hidden)]
pub use readable::pipe::js_objects_created as pipe_js_objects_created;

/// A debug counter: the port message queues (one per `MessagePort`, in any agent) alive in this
/// process. Tests use it to check that transferred streams release their ports.
#[doc(hidden)]
pub use html::live_port_queues;

/// A debug reading: a `WritableStream`'s [[writeRequests]] length and capacity and its
/// controller's queue capacity. Tests use it to check that the queues give memory back.
#[doc(hidden)]
pub use writable::queue_capacities as writable_queue_capacities;

/// The library's registration ([`register`]) as the engine's boa_runtime extension runs it
/// (Boa only).
#[cfg(feature = "engine-boa")]
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub struct Streams;

#[cfg(feature = "engine-boa")]
impl engine::Registration for Streams {
    fn register(ctx: &mut engine::Cx) -> JsResult<()> {
        register(ctx)
    }
}

/// Installs the streams globals (and the DOM and HTML interfaces they depend on, see
/// [`register`]) as a `boa_runtime::RuntimeExtension` (Boa only), so it composes with
/// `boa_runtime::register((StreamsExtension, …), None, ctx)`.
#[cfg(feature = "engine-boa")]
pub type StreamsExtension = engine::Extension<Streams>;

/// The extension as a value (a unit value, as a unit struct's name is one):
/// `boa_runtime::register(StreamsExtension, None, ctx)`.
#[cfg(feature = "engine-boa")]
#[allow(non_upper_case_globals)]
pub const StreamsExtension: StreamsExtension = engine::Extension::new();

/// A realm (its intrinsics and global object), as the host's API returns it.
pub use engine::Realm;

/// Installs the streams globals, and the DOM and HTML interfaces they depend on
/// (`DOMException`, `EventTarget`, `Event`, `AbortController`, `AbortSignal`, `MessageChannel`,
/// `MessagePort`, `MessageEvent`, `structuredClone`), the Encoding Standard's `TextEncoder` and
/// `TextDecoder` (replacing any installed before), the URL Standard's `URL` and
/// `URLSearchParams`, the File API's `Blob`, `File`, `FileReader` and `ProgressEvent`, and the
/// Fetch Standard's `Headers`, `Request`, `Response` and `fetch()`,
/// in the current realm.
pub fn register(ctx: &mut engine::Cx) -> JsResult<()> {
    register_with(ctx, Clients::ALL)
}

/// Which clients of the Streams Standard [`register_with`] installs beside the streams and
/// the DOM and HTML interfaces they depend on (which it always installs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Clients {
    /// The Encoding Standard: `TextEncoder`, `TextDecoder`, `TextEncoderStream`,
    /// `TextDecoderStream`.
    pub encoding: bool,
    /// The Compression Standard: `CompressionStream`, `DecompressionStream`.
    pub compression: bool,
    /// The URL Standard: `URL`, `URLSearchParams`.
    pub url: bool,
    /// The File API: `Blob`, `File`, `FileReader`, `ProgressEvent` (with `url`, also
    /// `URL.createObjectURL` and `URL.revokeObjectURL`).
    pub file: bool,
    /// The Fetch Standard: `Headers`, `Request`, `Response`, `FormData`, `fetch()`. Needs `url`
    /// and `file` (bodies are blobs, requests parse URLs).
    pub fetch: bool,
}

impl Clients {
    /// Every client ([`register`]'s choice).
    pub const ALL: Clients = Clients {
        encoding: true,
        compression: true,
        url: true,
        file: true,
        fetch: true,
    };
    /// None: the streams, with the DOM and HTML interfaces they depend on.
    pub const NONE: Clients = Clients {
        encoding: false,
        compression: false,
        url: false,
        file: false,
        fetch: false,
    };
}

impl Clients {
    /// Throws a `TypeError` when the choice misses a client a chosen one needs (`fetch`
    /// without `url` and `file`).
    pub fn check(&self) -> JsResult<()> {
        if self.fetch && !(self.url && self.file) {
            return Err(engine::throw_type_error(
                "the Fetch client needs the URL and File clients (Clients::url and Clients::file)",
            ));
        }
        Ok(())
    }
}

impl Default for Clients {
    /// [`Clients::ALL`].
    fn default() -> Self {
        Clients::ALL
    }
}

/// [`register`] with a choice of clients: the streams globals and the DOM and HTML interfaces
/// they depend on, then the clients `clients` names, in the current realm. Throws a
/// `TypeError` (installing nothing) when `clients.fetch` is chosen without `url` and `file`.
pub fn register_with(ctx: &mut engine::Cx, clients: Clients) -> JsResult<()> {
    clients.check()?;
    engine::remember_promise_intrinsics(ctx);
    dom::register(ctx)?;
    html::register(ctx)?;
    queuing_strategy::register(ctx)?;
    readable::register(ctx)?;
    writable::register(ctx)?;
    transform::register(ctx)?;
    transfer::register(ctx)?;
    if clients.encoding {
        encoding::register(ctx)?;
    }
    if clients.compression {
        compression::register(ctx)?;
    }
    if clients.url {
        // The File API's `partial interface URL`: the blob URL store's static operations.
        let blob_urls: &[(&'static str, usize, engine::NativeFunctionPointer)] = if clients.file {
            &[
                ("createObjectURL", 1, file::create_object_url_operation),
                ("revokeObjectURL", 1, file::revoke_object_url_operation),
            ]
        } else {
            &[]
        };
        url::register(ctx, blob_urls)?;
    }
    if clients.file {
        file::register(ctx)?;
    }
    if clients.fetch {
        fetch::register(ctx)?;
    }
    Ok(())
}
