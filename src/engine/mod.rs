//! The engine boundary: the one place that names Boa. The spec layer (queues, strategies,
//! readable, writable and transform streams, the Encoding and Compression streams, the DOM
//! pieces) uses only the names declared here, so a second engine is a second implementation
//! of this module. See ARCHITECTURE.md, "The engine API".
//!
//! Everything here is written so that internal plumbing is unobservable from JavaScript: no
//! lookup of `then`, `constructor` or `Symbol.species` that the spec does not itself perform,
//! and no dependence on patched globals or prototypes.

pub(crate) mod idl;
pub(crate) mod internal_promise;
pub(crate) mod webidl;

// ---------------------------------------------------------------------------------------------
// Names: the types and items the spec layer uses, under engine-neutral names where Boa's are
// Boa-specific. Static re-exports and type aliases only: no runtime cost.
// ---------------------------------------------------------------------------------------------

/// A JavaScript value.
pub type Value = boa_engine::JsValue;
/// A JavaScript object; `Object<T>` is one whose native data is a `T`.
pub type Object<T = boa_engine::object::ErasedObjectData> = boa_engine::JsObject<T>;
/// The execution context every operation runs in (realm, job queue, intrinsics).
pub type Cx = boa_engine::Context;

/// Script source text, for the unit tests that evaluate JavaScript.
#[cfg(test)]
pub use boa_engine::Source;
pub use boa_engine::{
    builtins::{iterable::create_iter_result_object, typed_array::TypedArrayKind},
    class::{Class, ClassBuilder},
    context::{intrinsics::StandardConstructor, time::JsInstant},
    job::{NativeJob, TimeoutJob},
    js_string,
    native_function::{NativeFunction, NativeFunctionPointer},
    object::{
        builtins::{JsArray, JsArrayBuffer, JsFunction, JsPromise},
        FunctionObjectBuilder,
    },
    property::{Attribute, PropertyDescriptor, PropertyKey},
    JsData, JsError, JsNativeError, JsResult, JsString, JsSymbol,
};
pub use boa_gc::{Finalize, Gc, GcRefCell, Trace};

/// Declares a traced type that is plain data: its `Trace` impl marks the JS values it holds,
/// and it has no `Drop` impl, so values can be moved out of it (boa_gc's `unsafe_no_drop`;
/// sound because `Finalize` does nothing for these types).
macro_rules! traced_without_drop {
    ($($item:tt)*) => {
        #[derive($crate::engine::Trace, $crate::engine::Finalize)]
        #[boa_gc(unsafe_no_drop)]
        $($item)*
    };
}
pub(crate) use traced_without_drop;

use boa_engine::{
    builtins::{
        array_buffer::ArrayBuffer,
        dataview::DataView,
        promise::{PromiseState, ResolvingFunctions},
        typed_array::TypedArray,
    },
    job::{Job, PromiseJob},
    object::builtins::{
        AlignedVec, JsDataView, JsSharedArrayBuffer, JsTypedArray, JsUint8Array, JsWeakSet,
    },
    Context, JsObject, JsValue,
};
use std::cell::RefCell;

/// A promise created by this layer together with its resolving functions: the spec's
/// "a new promise" that the layer later resolves or rejects.
#[derive(Debug, Clone, Trace, Finalize)]
pub struct PromiseCapability {
    promise: JsPromise,
    resolvers: ResolvingFunctions,
}

impl PromiseCapability {
    /// <https://webidl.spec.whatwg.org/#a-new-promise>
    pub fn new(ctx: &mut Context) -> Self {
        let (promise, resolvers) = JsPromise::new_pending(ctx);
        Self { promise, resolvers }
    }

    /// The promise object itself, as handed to script.
    pub fn promise(&self) -> &JsPromise {
        &self.promise
    }

    /// <https://webidl.spec.whatwg.org/#resolve>
    ///
    /// Resolving with an object performs `Get(value, "then")`, as the spec requires; internal
    /// steps therefore never resolve with an object that script could have decorated.
    pub fn resolve(&self, value: JsValue, ctx: &mut Context) -> JsResult<()> {
        let result = self
            .resolvers
            .resolve
            .call(&JsValue::undefined(), &[value], ctx)
            .map(drop);
        run_deferred_reactions(ctx);
        result
    }

    /// <https://webidl.spec.whatwg.org/#reject>
    pub fn reject(&self, reason: JsValue, ctx: &mut Context) -> JsResult<()> {
        let result = self
            .resolvers
            .reject
            .call(&JsValue::undefined(), &[reason], ctx)
            .map(drop);
        run_deferred_reactions(ctx);
        result
    }

    /// Whether the promise is still pending.
    pub fn is_pending(&self) -> bool {
        matches!(self.promise.state(), PromiseState::Pending)
    }
}

/// <https://webidl.spec.whatwg.org/#a-promise-resolved-with>
pub fn promise_resolved_with(value: JsValue, ctx: &mut Context) -> JsResult<JsPromise> {
    let cap = PromiseCapability::new(ctx);
    cap.resolve(value, ctx)?;
    Ok(cap.promise.clone())
}

/// <https://webidl.spec.whatwg.org/#a-promise-rejected-with>
pub fn promise_rejected_with(reason: JsValue, ctx: &mut Context) -> JsResult<JsPromise> {
    let cap = PromiseCapability::new(ctx);
    cap.reject(reason, ctx)?;
    Ok(cap.promise.clone())
}

/// What the engine boundary keeps per context about promises: the ones the spec marked as
/// handled, and reactions waiting on promises that script has decorated.
struct PromiseBookkeeping {
    /// Promises whose [[PromiseIsHandled]] the spec layer set ([`mark_as_handled`]). Weak: a
    /// collected promise leaves the set.
    handled: JsWeakSet,
    /// Reactions to pending promises on which `then` would run an observable lookup (see
    /// [`react`]), oldest first.
    deferred: RefCell<Vec<DeferredReaction>>,
}

/// A reaction held in Rust until its promise settles.
struct DeferredReaction {
    promise: JsPromise,
    reaction: Box<dyn ErasedReaction>,
}

/// A type-erased reaction: the captured data and both steps.
trait ErasedReaction {
    fn run(self: Box<Self>, outcome: Result<JsValue, JsValue>, ctx: &mut Context) -> JsResult<()>;
}

impl<T: Trace + 'static> ErasedReaction for Reaction<T> {
    fn run(self: Box<Self>, outcome: Result<JsValue, JsValue>, ctx: &mut Context) -> JsResult<()> {
        match outcome {
            Ok(value) => (self.on_fulfilled)(&self.data, value, ctx),
            Err(reason) => (self.on_rejected)(&self.data, reason, ctx),
        }
    }
}

/// The context's [`PromiseBookkeeping`], created on first use.
fn bookkeeping(ctx: &mut Context) -> &PromiseBookkeeping {
    if ctx.get_data::<PromiseBookkeeping>().is_none() {
        let handled = JsWeakSet::new(ctx);
        ctx.insert_data(PromiseBookkeeping {
            handled,
            deferred: RefCell::new(Vec::new()),
        });
    }
    // Invariant: inserted just above when it was missing.
    ctx.get_data::<PromiseBookkeeping>()
        .expect("invariant: promise bookkeeping was just inserted")
}

/// Whether `then` on `promise` can be made to perform no observable lookup: the promise is
/// extensible (so its prototype can be taken away for the call) and has no own `constructor`
/// property. Both checks are ordinary-object internal methods, which run no script.
fn then_is_unobservable(promise: &JsPromise, ctx: &mut Context) -> JsResult<bool> {
    let object: JsObject = promise.clone().into();
    Ok(object.is_extensible(ctx)? && !object.has_own_property(js_string!("constructor"), ctx)?)
}

/// Runs `then` on `promise` without any observable lookup: for the duration of the call the
/// promise has no prototype, so SpeciesConstructor finds no `constructor` and falls back to
/// %Promise% (PerformPromiseThen itself is crate-private in Boa). Only for promises where
/// [`then_is_unobservable`] holds.
fn then_unobservably(
    promise: &JsPromise,
    on_fulfilled: Option<JsFunction>,
    on_rejected: Option<JsFunction>,
    ctx: &mut Context,
) -> JsResult<()> {
    let object: JsObject = promise.clone().into();
    let proto = object.prototype();
    // Invariant: the promise is extensible (checked by the caller, and nothing ran since).
    let removed = object.set_prototype(None);
    debug_assert!(removed, "then_unobservably on a non-extensible promise");
    let result = promise.then(on_fulfilled, on_rejected, ctx);
    object.set_prototype(proto);
    result.map(drop)
}

/// <https://webidl.spec.whatwg.org/#mark-a-promise-as-handled>
///
/// Boa has no public way to set [[PromiseIsHandled]], and `then` would run observable lookups,
/// so the promise goes into a per-context weak set instead; the host's rejection tracker
/// consults it ([`is_marked_as_handled`]) before it reports a rejection as unhandled. Nothing
/// script can observe happens here.
pub fn mark_as_handled(promise: &JsPromise, ctx: &mut Context) -> JsResult<()> {
    if let PromiseState::Fulfilled(_) = promise.state() {
        // A fulfilled promise can never be reported as unhandled.
        return Ok(());
    }
    let object: JsObject = promise.clone().into();
    let handled = bookkeeping(ctx).handled.clone();
    handled.add(&object, ctx).map(drop)
}

/// Whether the streams layer marked `promise` as handled ([`mark_as_handled`]), or reacted to
/// it (PerformPromiseThen sets [[PromiseIsHandled]] too). A host that reports unhandled
/// rejections skips these promises.
pub fn is_marked_as_handled(promise: &JsObject, ctx: &mut Context) -> bool {
    let Some(state) = ctx.get_data::<PromiseBookkeeping>() else {
        return false;
    };
    let handled = state.handled.clone();
    handled.has(promise, ctx).unwrap_or(false)
}

/// A reaction step run when a promise settles: it gets the captured data and the value or
/// reason. Errors it returns are reported by the job queue like any uncaught job error.
pub type ReactionStep<T> = fn(&T, JsValue, &mut Context) -> JsResult<()>;

/// <https://webidl.spec.whatwg.org/#upon-fulfillment> and
/// <https://webidl.spec.whatwg.org/#upon-rejection>: react to `promise` from Rust, with
/// PerformPromiseThen's timing and no user-visible lookup.
///
/// - A settled promise: the reaction is queued as a microtask at once, as PerformPromiseThen
///   queues a reaction job for a settled promise (a rejected one is marked as handled).
/// - A pending promise on which `then` runs no observable lookup (the usual case): a reaction
///   through `then` with the promise's prototype taken away for the call, so the reaction
///   takes its place among the promise's other reactions.
/// - A pending promise that script made non-extensible or gave an own `constructor`: the
///   reaction waits in Rust and is queued once the promise has settled (checked after every
///   resolve or reject of a [`PromiseCapability`] and by the host after every microtask,
///   [`run_deferred_reactions`]). Its job then follows the jobs of reactions that were
///   registered on the promise earlier and later; that is the one place where the order can
///   differ from PerformPromiseThen's.
///
/// `data` is traced while the reaction is pending.
pub fn react<T: Trace + 'static>(
    promise: &JsPromise,
    data: T,
    on_fulfilled: ReactionStep<T>,
    on_rejected: ReactionStep<T>,
    ctx: &mut Context,
) -> JsResult<()> {
    match promise.state() {
        PromiseState::Fulfilled(value) => {
            queue_microtask(ctx, move |ctx| on_fulfilled(&data, value, ctx));
            return Ok(());
        }
        PromiseState::Rejected(reason) => {
            mark_as_handled(promise, ctx)?;
            queue_microtask(ctx, move |ctx| on_rejected(&data, reason, ctx));
            return Ok(());
        }
        PromiseState::Pending => {}
    }
    if !then_is_unobservable(promise, ctx)? {
        let reaction = Box::new(Reaction {
            data,
            on_fulfilled,
            on_rejected,
        });
        mark_as_handled(promise, ctx)?;
        bookkeeping(ctx)
            .deferred
            .borrow_mut()
            .push(DeferredReaction {
                promise: promise.clone(),
                reaction,
            });
        return Ok(());
    }
    let data = boa_gc::Gc::new(Reaction {
        data,
        on_fulfilled,
        on_rejected,
    });
    let fulfilled = NativeFunction::from_copy_closure_with_captures(
        |_, args, reaction: &boa_gc::Gc<Reaction<T>>, ctx| {
            let value = args.first().cloned().unwrap_or_default();
            (reaction.on_fulfilled)(&reaction.data, value, ctx).map(|()| JsValue::undefined())
        },
        data.clone(),
    );
    let rejected = NativeFunction::from_copy_closure_with_captures(
        |_, args, reaction: &boa_gc::Gc<Reaction<T>>, ctx| {
            let reason = args.first().cloned().unwrap_or_default();
            (reaction.on_rejected)(&reaction.data, reason, ctx).map(|()| JsValue::undefined())
        },
        data,
    );
    let realm = ctx.realm().clone();
    let fulfilled = FunctionObjectBuilder::new(&realm, fulfilled).build();
    let rejected = FunctionObjectBuilder::new(&realm, rejected).build();
    then_unobservably(promise, Some(fulfilled), Some(rejected), ctx)
}

/// Queues the deferred reactions ([`react`]) whose promises have settled, in the order they
/// were made. Cheap when there are none; the host calls it after every microtask.
pub fn run_deferred_reactions(ctx: &mut Context) {
    let ready: Vec<(Result<JsValue, JsValue>, Box<dyn ErasedReaction>)> = {
        let Some(state) = ctx.get_data::<PromiseBookkeeping>() else {
            return;
        };
        let mut deferred = state.deferred.borrow_mut();
        if deferred.is_empty() {
            return;
        }
        let mut ready = Vec::new();
        let mut waiting = Vec::with_capacity(deferred.len());
        for entry in deferred.drain(..) {
            match entry.promise.state() {
                PromiseState::Pending => waiting.push(entry),
                PromiseState::Fulfilled(value) => ready.push((Ok(value), entry.reaction)),
                PromiseState::Rejected(reason) => ready.push((Err(reason), entry.reaction)),
            }
        }
        *deferred = waiting;
        ready
    };
    for (outcome, reaction) in ready {
        queue_microtask(ctx, move |ctx| reaction.run(outcome, ctx));
    }
}

#[derive(Trace, Finalize)]
struct Reaction<T: Trace + 'static> {
    data: T,
    #[unsafe_ignore_trace]
    on_fulfilled: ReactionStep<T>,
    #[unsafe_ignore_trace]
    on_rejected: ReactionStep<T>,
}

/// Queues a microtask that runs Rust code (HTML "queue a microtask"). Values captured by the
/// closure are GC roots until it runs.
pub fn queue_microtask(
    ctx: &mut Context,
    job: impl FnOnce(&mut Context) -> JsResult<()> + 'static,
) {
    ctx.enqueue_job(Job::PromiseJob(PromiseJob::new(move |ctx| {
        job(ctx).map(|()| JsValue::undefined())
    })));
}

/// Calls a JS function value with `this` and arguments.
pub fn call(
    function: &JsValue,
    this: &JsValue,
    args: &[JsValue],
    ctx: &mut Context,
) -> JsResult<JsValue> {
    match function.as_callable() {
        Some(f) => f.call(this, args, ctx),
        None => Err(JsNativeError::typ()
            .with_message("value is not callable")
            .into()),
    }
}

/// Turns a thrown error into the JS value script would catch.
///
/// Uncatchable engine errors (runtime limits, engine panics) stay errors: they must propagate,
/// never be handed to script as a rejection reason.
pub fn thrown_value(error: JsError, ctx: &mut Context) -> JsResult<JsValue> {
    error.into_opaque(ctx)
}

/// A TypeError object, as the spec's "a TypeError".
pub fn type_error(message: &str, ctx: &mut Context) -> JsValue {
    JsError::from(JsNativeError::typ().with_message(message.to_owned()))
        .into_opaque(ctx)
        .unwrap_or_default()
}

/// A RangeError object, as the spec's "a RangeError".
pub fn range_error(message: &str, ctx: &mut Context) -> JsValue {
    JsError::from(JsNativeError::range().with_message(message.to_owned()))
        .into_opaque(ctx)
        .unwrap_or_default()
}

// ---------------------------------------------------------------------------------------------
// Array buffers and views
// ---------------------------------------------------------------------------------------------

/// What kind of `ArrayBufferView` an object is: a typed array of some element type, or a
/// `DataView`. It gives the element size and the view constructor of a pull-into descriptor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ViewKind {
    /// A typed array (`[[TypedArrayName]]`).
    Typed(TypedArrayKind),
    /// A `DataView`.
    DataView,
}

impl ViewKind {
    /// The element size from "the typed array constructors table" (1 for `DataView`).
    pub fn element_size(self) -> u64 {
        match self {
            ViewKind::DataView => 1,
            ViewKind::Typed(kind) => match kind {
                TypedArrayKind::Int8 | TypedArrayKind::Uint8 | TypedArrayKind::Uint8Clamped => 1,
                TypedArrayKind::Int16 | TypedArrayKind::Uint16 | TypedArrayKind::Float16 => 2,
                TypedArrayKind::Int32 | TypedArrayKind::Uint32 | TypedArrayKind::Float32 => 4,
                TypedArrayKind::BigInt64 | TypedArrayKind::BigUint64 | TypedArrayKind::Float64 => 8,
            },
        }
    }

    /// The intrinsic constructor (`%Uint8Array%`, ..., `%DataView%`) of the current realm.
    fn constructor(self, ctx: &Context) -> JsObject {
        let c = ctx.intrinsics().constructors();
        let standard = match self {
            ViewKind::DataView => c.data_view(),
            ViewKind::Typed(kind) => match kind {
                TypedArrayKind::Int8 => c.typed_int8_array(),
                TypedArrayKind::Uint8 => c.typed_uint8_array(),
                TypedArrayKind::Uint8Clamped => c.typed_uint8clamped_array(),
                TypedArrayKind::Int16 => c.typed_int16_array(),
                TypedArrayKind::Uint16 => c.typed_uint16_array(),
                TypedArrayKind::Int32 => c.typed_int32_array(),
                TypedArrayKind::Uint32 => c.typed_uint32_array(),
                TypedArrayKind::BigInt64 => c.typed_bigint64_array(),
                TypedArrayKind::BigUint64 => c.typed_biguint64_array(),
                TypedArrayKind::Float16 => c.typed_float16_array(),
                TypedArrayKind::Float32 => c.typed_float32_array(),
                TypedArrayKind::Float64 => c.typed_float64_array(),
            },
        };
        standard.constructor()
    }
}

/// The internal slots of an `ArrayBufferView` that the streams algorithms read, copied out of
/// the view object (no getter runs, nothing observable happens).
#[derive(Debug, Clone)]
pub struct ViewRecord {
    /// `[[ViewedArrayBuffer]]` (never a `SharedArrayBuffer`: see [`array_buffer_view`]).
    pub buffer: JsArrayBuffer,
    /// `[[ByteOffset]]` (0 when the buffer is detached).
    pub byte_offset: u64,
    /// `[[ByteLength]]` (0 when the buffer is detached or the view is out of bounds).
    pub byte_length: u64,
    /// `[[TypedArrayName]]`, or `DataView`.
    pub kind: ViewKind,
}

impl ViewRecord {
    /// `[[ArrayLength]]` of a typed array, `[[ByteLength]]` of a `DataView`.
    pub fn element_length(&self) -> u64 {
        self.byte_length / self.kind.element_size()
    }
}

/// Converts a JS value to an `ArrayBufferView` (<https://webidl.spec.whatwg.org/#ArrayBufferView>,
/// without `[AllowShared]`): anything else, and views on a `SharedArrayBuffer`, are TypeErrors.
///
/// The slots are read through the built-in getters' internals, which run no script.
pub fn array_buffer_view(value: &JsValue, what: &str, ctx: &mut Context) -> JsResult<ViewRecord> {
    let error = |message: &str| -> JsError {
        JsNativeError::typ()
            .with_message(format!("{what} {message}"))
            .into()
    };
    let Some(object) = value.as_object() else {
        return Err(error("must be an ArrayBufferView"));
    };
    let (kind, buffer) = if let Ok(typed) = JsTypedArray::from_object(object.clone()) {
        let kind = typed
            .kind()
            .ok_or_else(|| error("must be an ArrayBufferView"))?;
        (ViewKind::Typed(kind), typed.buffer(ctx)?)
    } else if let Ok(view) = object.clone().downcast::<DataView>() {
        (ViewKind::DataView, JsDataView::from(view).buffer(ctx)?)
    } else {
        return Err(error("must be an ArrayBufferView"));
    };
    let buffer = buffer
        .as_object()
        .and_then(|b| JsArrayBuffer::from_object(b).ok())
        .ok_or_else(|| error("must not be backed by a SharedArrayBuffer"))?;
    let (byte_offset, byte_length) = if buffer.data().is_none() {
        (0, 0)
    } else {
        match kind {
            ViewKind::Typed(_) => {
                // The TypedArray slots are public; no getter is involved.
                let buffer_length = buffer.byte_length();
                match object.downcast_ref::<TypedArray>() {
                    Some(typed) => (typed.byte_offset(), typed.byte_length(buffer_length)),
                    None => (0, 0),
                }
            }
            ViewKind::DataView => {
                // The getters throw only for a detached or out-of-bounds view: length 0.
                let view = JsDataView::from_object(object.clone())?;
                let offset = view.byte_offset(ctx).unwrap_or(0);
                let length = view.byte_length(ctx).unwrap_or(0);
                (offset, length)
            }
        }
    };
    Ok(ViewRecord {
        buffer,
        byte_offset,
        byte_length,
        kind,
    })
}

/// `! IsDetachedBuffer(buffer)`.
pub fn is_detached_buffer(buffer: &JsArrayBuffer) -> bool {
    buffer.data().is_none()
}

/// `[[ArrayBufferByteLength]]` (0 once detached).
pub fn array_buffer_byte_length(buffer: &JsArrayBuffer) -> u64 {
    buffer.byte_length() as u64
}

/// <https://streams.spec.whatwg.org/#can-transfer-array-buffer>
pub fn can_transfer_array_buffer(buffer: &JsArrayBuffer) -> bool {
    // 1. Assert: O is an Object.
    // 2. Assert: O has an [[ArrayBufferData]] internal slot.
    // 3. If ! IsDetachedBuffer(O) is true, return false.
    // 4. If SameValue(O.[[ArrayBufferDetachKey]], undefined) is false, return false.
    //    (Every buffer Boa's public API and script can make has the key undefined.)
    // 5. Return true.
    !is_detached_buffer(buffer)
}

/// <https://streams.spec.whatwg.org/#transfer-array-buffer>
///
/// Zero-copy: the data block moves to the new buffer.
pub fn transfer_array_buffer(buffer: &JsArrayBuffer, ctx: &mut Context) -> JsResult<JsArrayBuffer> {
    // 1. Assert: ! IsDetachedBuffer(O) is false.
    // 2. Let arrayBufferData be O.[[ArrayBufferData]].
    // 3. Let arrayBufferByteLength be O.[[ArrayBufferByteLength]].
    // 4. Perform ? DetachArrayBuffer(O).
    let data = buffer.detach(&JsValue::undefined())?;
    // 5. Return a new ArrayBuffer object, created in the current Realm, whose
    //    [[ArrayBufferData]] internal slot value is arrayBufferData and whose
    //    [[ArrayBufferByteLength]] internal slot value is arrayBufferByteLength.
    JsArrayBuffer::from_byte_block(data, ctx)
}

/// CloneArrayBuffer(buffer, byteOffset, byteLength, %ArrayBuffer%)
/// (<https://tc39.es/ecma262/#sec-clonearraybuffer>): one copy of the bytes into a new buffer.
pub fn clone_array_buffer(
    buffer: &JsArrayBuffer,
    byte_offset: u64,
    byte_length: u64,
    ctx: &mut Context,
) -> JsResult<JsArrayBuffer> {
    let block = {
        let Some(data) = buffer.data() else {
            return Err(JsNativeError::typ()
                .with_message("Cannot clone a detached ArrayBuffer")
                .into());
        };
        let start = usize::try_from(byte_offset).unwrap_or(usize::MAX);
        let end = usize::try_from(byte_offset.saturating_add(byte_length)).unwrap_or(usize::MAX);
        let Some(bytes) = data.get(start..end) else {
            return Err(JsNativeError::range()
                .with_message("The range to clone is outside the ArrayBuffer")
                .into());
        };
        AlignedVec::from_slice(0, bytes)
    };
    JsArrayBuffer::from_byte_block(block, ctx)
}

/// <https://streams.spec.whatwg.org/#abstract-opdef-cloneasuint8array>
pub fn clone_as_uint8_array(view: &ViewRecord, ctx: &mut Context) -> JsResult<JsObject> {
    // 1. Assert: O is an Object.
    // 2. Assert: O has an [[ViewedArrayBuffer]] internal slot.
    // 3. Assert: ! IsDetachedBuffer(O.[[ViewedArrayBuffer]]) is false.
    // 4. Let buffer be ? CloneArrayBuffer(O.[[ViewedArrayBuffer]], O.[[ByteOffset]],
    //    O.[[ByteLength]], %ArrayBuffer%).
    let buffer = clone_array_buffer(&view.buffer, view.byte_offset, view.byte_length, ctx)?;
    // 5. Let array be ! Construct(%Uint8Array%, « buffer »).
    // 6. Return array.
    let length = array_buffer_byte_length(&buffer);
    construct_view(
        ViewKind::Typed(TypedArrayKind::Uint8),
        &buffer,
        0,
        length,
        ctx,
    )
}

/// `! Construct(ctor, « buffer, byteOffset, length »)` for a view constructor: `length` counts
/// elements (bytes for a `DataView`). The intrinsic constructors run no script.
pub fn construct_view(
    kind: ViewKind,
    buffer: &JsArrayBuffer,
    byte_offset: u64,
    length: u64,
    ctx: &mut Context,
) -> JsResult<JsObject> {
    let constructor = kind.constructor(ctx);
    let buffer: JsObject = buffer.clone().into();
    // Offsets and lengths come from existing buffers, so they are far below 2^53.
    #[allow(clippy::cast_precision_loss)]
    let args = [
        JsValue::from(buffer),
        JsValue::from(byte_offset as f64),
        JsValue::from(length as f64),
    ];
    constructor.construct(&args, None, ctx)
}

/// <https://streams.spec.whatwg.org/#abstract-opdef-cancopydatablockbytes>
pub fn can_copy_data_block_bytes(
    to_buffer: &JsArrayBuffer,
    to_index: u64,
    from_buffer: &JsArrayBuffer,
    from_index: u64,
    count: u64,
) -> bool {
    // 1–4. Assert: toBuffer and fromBuffer are objects with an [[ArrayBufferData]] slot.
    // 5. If toBuffer is fromBuffer, return false.
    let to_object: JsObject = to_buffer.clone().into();
    let from_object: JsObject = from_buffer.clone().into();
    if JsObject::equals(&to_object, &from_object) {
        return false;
    }
    // 6. If ! IsDetachedBuffer(toBuffer) is true, return false.
    // 7. If ! IsDetachedBuffer(fromBuffer) is true, return false.
    if is_detached_buffer(to_buffer) || is_detached_buffer(from_buffer) {
        return false;
    }
    // 8. If toIndex + count > toBuffer.[[ArrayBufferByteLength]], return false.
    // 9. If fromIndex + count > fromBuffer.[[ArrayBufferByteLength]], return false.
    // 10. Return true.
    to_index.saturating_add(count) <= array_buffer_byte_length(to_buffer)
        && from_index.saturating_add(count) <= array_buffer_byte_length(from_buffer)
}

/// `! CopyDataBlockBytes(to.[[ArrayBufferData]], toIndex, from.[[ArrayBufferData]], fromIndex,
/// count)`: one slice copy. Returns false (and copies nothing) where
/// [`can_copy_data_block_bytes`] would be false.
pub fn copy_data_block_bytes(
    to_buffer: &JsArrayBuffer,
    to_index: u64,
    from_buffer: &JsArrayBuffer,
    from_index: u64,
    count: u64,
) -> bool {
    if !can_copy_data_block_bytes(to_buffer, to_index, from_buffer, from_index, count) {
        return false;
    }
    // The checks above bound every index by a live buffer length, which fits in usize.
    let (to_index, from_index, count) = (to_index as usize, from_index as usize, count as usize);
    let (Some(mut to), Some(from)) = (to_buffer.data_mut(), from_buffer.data()) else {
        return false;
    };
    to[to_index..to_index + count].copy_from_slice(&from[from_index..from_index + count]);
    true
}

/// `Construct(%ArrayBuffer%, « byteLength »)`: a RangeError when it cannot be allocated.
pub fn new_array_buffer(byte_length: u64, ctx: &mut Context) -> JsResult<JsArrayBuffer> {
    let length = usize::try_from(byte_length).map_err(|_| {
        JsError::from(JsNativeError::range().with_message("Array buffer allocation failed"))
    })?;
    JsArrayBuffer::new(length, ctx)
}

// ---------------------------------------------------------------------------------------------
// Buffer sources (chunks of the Encoding and Compression standards' streams)
// ---------------------------------------------------------------------------------------------
//
// <https://webidl.spec.whatwg.org/#BufferSource>. Every slot is read through the built-ins'
// internals: no getter runs, nothing a script could patch is consulted.

/// The bytes a view or buffer is backed by.
enum Backing {
    Buffer(JsArrayBuffer),
    Shared(JsSharedArrayBuffer),
}

impl Backing {
    /// The backing buffer object of a typed array or `DataView` (`[[ViewedArrayBuffer]]`).
    fn of(buffer: &JsValue) -> Option<Self> {
        let object = buffer.as_object()?;
        if let Ok(buffer) = JsArrayBuffer::from_object(object.clone()) {
            return Some(Backing::Buffer(buffer));
        }
        JsSharedArrayBuffer::from_object(object.clone())
            .ok()
            .map(Backing::Shared)
    }

    fn is_shared(&self) -> bool {
        matches!(self, Backing::Shared(_))
    }

    /// `IsResizableArrayBuffer` for an `ArrayBuffer` that is not detached.
    ///
    /// Boa 0.22 keeps the maximum byte length private; its public `resize` fails exactly for
    /// fixed-length buffers, and resizing to the current length changes nothing.
    /// (A growable `SharedArrayBuffer` cannot be told apart through the public API.)
    fn is_resizable(&self) -> bool {
        let Backing::Buffer(buffer) = self else {
            return false;
        };
        let object: JsObject = buffer.clone().into();
        let Some(mut data) = object.downcast_mut::<ArrayBuffer>() else {
            return false;
        };
        let Some(length) = data.data().map(<[u8]>::len) else {
            return false;
        };
        data.resize(length as u64).is_ok()
    }

    /// The current byte length (0 once detached).
    fn byte_length(&self) -> usize {
        match self {
            Backing::Buffer(b) => b.byte_length(),
            Backing::Shared(b) => b.byte_length(),
        }
    }

    /// A copy of `len` bytes from `offset` (empty when detached or out of range).
    fn copy(&self, offset: usize, len: usize) -> Vec<u8> {
        let end = offset.saturating_add(len);
        match self {
            Backing::Buffer(b) => b
                .data()
                .and_then(|data| data.get(offset..end).map(<[u8]>::to_vec))
                .unwrap_or_default(),
            Backing::Shared(b) => {
                let all = b.to_vec();
                all.get(offset..end).map(<[u8]>::to_vec).unwrap_or_default()
            }
        }
    }
}

/// Converts `value` to an IDL `BufferSource` (`[AllowShared] BufferSource` when
/// `allow_shared`) and returns "a copy of the bytes held by the buffer source"
/// (<https://webidl.spec.whatwg.org/#dfn-get-buffer-source-copy>): empty for a detached buffer.
///
/// Anything that is not an `ArrayBuffer` or an `ArrayBufferView` is a TypeError, and so is a
/// `SharedArrayBuffer` (or a view on one) unless `allow_shared`, and a resizable `ArrayBuffer`
/// (or a view on one): `[AllowResizable]` is not given.
pub fn buffer_source_copy(
    value: &JsValue,
    allow_shared: bool,
    what: &str,
    ctx: &mut Context,
) -> JsResult<Vec<u8>> {
    let (backing, offset, len) = buffer_source_range(value, allow_shared, what, ctx)?;
    Ok(backing.copy(offset, len))
}

/// Converts `value` to an IDL `BufferSource` like [`buffer_source_copy`], throwing the same
/// TypeErrors, without copying the bytes (for a conversion whose bytes are read later).
pub fn check_buffer_source(
    value: &JsValue,
    allow_shared: bool,
    what: &str,
    ctx: &mut Context,
) -> JsResult<()> {
    buffer_source_range(value, allow_shared, what, ctx).map(drop)
}

/// Whether `value` is an object with an `[[ArrayBufferData]]` slot (an `ArrayBuffer` or a
/// `SharedArrayBuffer`) or an `ArrayBufferView` (a typed array or a `DataView`): the objects
/// that a union conversion sends to its buffer source member. Runs no script.
pub fn is_buffer_source_object(value: &JsValue) -> bool {
    let Some(object) = value.as_object() else {
        return false;
    };
    Backing::of(value).is_some()
        || JsTypedArray::from_object(object.clone()).is_ok()
        || JsDataView::from_object(object.clone()).is_ok()
}

/// The backing buffer and the byte range of a buffer source, after the conversion's checks.
fn buffer_source_range(
    value: &JsValue,
    allow_shared: bool,
    what: &str,
    ctx: &mut Context,
) -> JsResult<(Backing, usize, usize)> {
    let not_a_buffer_source = || {
        JsNativeError::typ().with_message(format!(
            "{what} must be an ArrayBuffer or an ArrayBufferView{}",
            if allow_shared {
                ""
            } else {
                " not backed by a SharedArrayBuffer"
            }
        ))
    };
    let Some(object) = value.as_object() else {
        return Err(not_a_buffer_source().into());
    };
    let (backing, offset, len) = if let Some(backing) = Backing::of(value) {
        // An ArrayBuffer or SharedArrayBuffer itself: all of its bytes.
        let len = backing.byte_length();
        (backing, 0, len)
    } else if let Ok(typed) = JsTypedArray::from_object(object.clone()) {
        let backing = Backing::of(&typed.buffer(ctx)?).ok_or_else(not_a_buffer_source)?;
        let (offset, len) = typed_array_range(&object, backing.byte_length());
        (backing, offset, len)
    } else if let Ok(view) = JsDataView::from_object(object.clone()) {
        let backing = Backing::of(&view.buffer(ctx)?).ok_or_else(not_a_buffer_source)?;
        // The getters throw only for a detached or out-of-bounds view: no bytes.
        let offset = view.byte_offset(ctx).unwrap_or(0);
        let len = view.byte_length(ctx).unwrap_or(0);
        (
            backing,
            usize::try_from(offset).unwrap_or(usize::MAX),
            usize::try_from(len).unwrap_or(0),
        )
    } else {
        return Err(not_a_buffer_source().into());
    };
    if backing.is_shared() && !allow_shared {
        return Err(not_a_buffer_source().into());
    }
    if backing.is_resizable() {
        return Err(JsNativeError::typ()
            .with_message(format!(
                "{what} must not be backed by a resizable ArrayBuffer"
            ))
            .into());
    }
    Ok((backing, offset, len))
}

/// `[[ByteOffset]]` and the current byte length of a typed array (0 when out of bounds).
fn typed_array_range(object: &JsObject, buffer_length: usize) -> (usize, usize) {
    match object.downcast_ref::<TypedArray>() {
        Some(typed) => (
            usize::try_from(typed.byte_offset()).unwrap_or(usize::MAX),
            usize::try_from(typed.byte_length(buffer_length)).unwrap_or(0),
        ),
        None => (0, 0),
    }
}

/// A new `Uint8Array` of the current realm wrapping a new `ArrayBuffer` that holds `bytes`.
pub fn new_uint8_array(bytes: &[u8], ctx: &mut Context) -> JsResult<JsValue> {
    let block = AlignedVec::from_slice(0, bytes);
    let buffer = JsArrayBuffer::from_byte_block(block, ctx)?;
    let array = JsUint8Array::from_array_buffer(buffer, ctx)?;
    Ok(array.into())
}
