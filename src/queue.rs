//! Queue-with-sizes on a ring buffer.
//!
//! <https://streams.spec.whatwg.org/#queue-with-sizes>
//!
//! The spec's [[queue]] and [[queueTotalSize]] slots of a container, as one value. Push and shift
//! are O(1) (a `VecDeque` ring buffer), and the buffer gives memory back as it drains: when it
//! falls to a quarter of its capacity it shrinks to the smallest power of two that holds twice
//! what is left, so a stream that once buffered many chunks does not keep that capacity.

use crate::engine;
use std::collections::VecDeque;
use std::sync::Arc;

use crate::engine::{Cx, JsResult, Trace};

/// Capacity below which the queue never shrinks.
const MIN_CAPACITY: usize = 16;

traced! {
    /// A container's [[queue]] and [[queueTotalSize]].
    #[derive(Debug)]
    pub(crate) struct QueueWithSizes<T: Trace + 'static> {
        /// <https://streams.spec.whatwg.org/#readablestreamdefaultcontroller-queue>
        /// Each entry is a value-with-size: (value, size).
        queue: VecDeque<(T, f64)>,
        /// <https://streams.spec.whatwg.org/#readablestreamdefaultcontroller-queuetotalsize>
        total_size: f64,
    }
}

impl<T: Trace + 'static> Default for QueueWithSizes<T> {
    fn default() -> Self {
        Self {
            queue: VecDeque::new(),
            total_size: 0.0,
        }
    }
}

/// <https://streams.spec.whatwg.org/#is-non-negative-number>
pub(crate) fn is_non_negative_number(v: f64) -> bool {
    // NaN and negative numbers fail both comparisons' conditions.
    v >= 0.0
}

impl<T: Trace + 'static> QueueWithSizes<T> {
    /// <https://streams.spec.whatwg.org/#dequeue-value>
    ///
    /// Returns `None` only if the queue is empty, which the spec asserts never happens.
    pub(crate) fn dequeue_value(&mut self) -> Option<T> {
        // 1. Assert: container has [[queue]] and [[queueTotalSize]] internal slots.
        // 2. Assert: container.[[queue]] is not empty.
        // 3. Let valueWithSize be container.[[queue]][0].
        // 4. Remove valueWithSize from container.[[queue]].
        let (value, size) = self.queue.pop_front()?;
        // 5. Set container.[[queueTotalSize]] to container.[[queueTotalSize]] − valueWithSize's size.
        self.total_size -= size;
        // 6. If container.[[queueTotalSize]] < 0, set container.[[queueTotalSize]] to 0.
        //    (This can occur due to rounding errors.)
        if self.total_size < 0.0 {
            self.total_size = 0.0;
        }
        self.give_back_memory();
        // 7. Return valueWithSize's value.
        Some(value)
    }

    /// <https://streams.spec.whatwg.org/#enqueue-value-with-size>
    pub(crate) fn enqueue_value_with_size(
        &mut self,
        value: T,
        size: f64,
        _ctx: &mut Cx,
    ) -> JsResult<()> {
        // 1. Assert: container has [[queue]] and [[queueTotalSize]] internal slots.
        // 2. If ! IsNonNegativeNumber(size) is false, throw a RangeError exception.
        if !is_non_negative_number(size) {
            return Err(engine::throw_range_error(
                "chunk size must be a non-negative number",
            ));
        }
        // 3. If size is +∞, throw a RangeError exception.
        if size == f64::INFINITY {
            return Err(engine::throw_range_error("chunk size must be finite"));
        }
        // 4. Append a new value-with-size with value value and size size to container.[[queue]].
        self.queue.push_back((value, size));
        // 5. Set container.[[queueTotalSize]] to container.[[queueTotalSize]] + size.
        self.total_size += size;
        Ok(())
    }

    /// <https://streams.spec.whatwg.org/#peek-queue-value>, for a caller that may take the
    /// value out (leaving what it puts in its place; the entry's size is unchanged).
    pub(crate) fn peek_queue_value(&mut self) -> Option<&mut T> {
        // 2. Assert: container.[[queue]] is not empty.
        // 3. Let valueWithSize be container.[[queue]][0].
        // 4. Return valueWithSize's value.
        self.queue.front_mut().map(|(value, _)| value)
    }

    /// <https://streams.spec.whatwg.org/#reset-queue>
    pub(crate) fn reset_queue(&mut self) {
        // 2. Set container.[[queue]] to a new empty list.
        self.queue = VecDeque::new();
        // 3. Set container.[[queueTotalSize]] to 0.
        self.total_size = 0.0;
    }

    /// [[queueTotalSize]].
    pub(crate) fn total_size(&self) -> f64 {
        self.total_size
    }

    /// Whether [[queue]] is empty.
    pub(crate) fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// The ring buffer's capacity (for tests of memory give-back).
    pub(crate) fn capacity(&self) -> usize {
        self.queue.capacity()
    }

    fn give_back_memory(&mut self) {
        give_back_memory(&mut self.queue);
    }
}

/// Gives memory back as a ring buffer drains: once it holds a quarter of its capacity or less,
/// it shrinks to the smallest power of two that holds twice what is left. Every FIFO of the
/// stream modules (chunk queues, byte queues, pending pull-intos, read, read-into and write
/// requests) calls this after removing entries: the one place that decides when to shrink.
pub(crate) fn give_back_memory<T>(queue: &mut VecDeque<T>) {
    let capacity = queue.capacity();
    let len = queue.len();
    if capacity > MIN_CAPACITY && len <= capacity / 4 {
        let target = (len * 2).next_power_of_two().max(MIN_CAPACITY);
        if target < capacity {
            queue.shrink_to(target);
        }
    }
}

// Unit tests on a bare Boa context (`Cx::default()`); the QuickJS backend has its own.
#[cfg(all(test, feature = "engine-boa"))]
mod tests {
    use super::*;

    #[test]
    fn native_buffers_go_back_to_their_pool_and_are_reused() {
        let pool = BufferPool::default();
        let mut a = pool.take(8).unwrap();
        assert_eq!(a.as_slice(), [0; 8], "a new buffer is zero-filled");
        a.as_mut_slice().copy_from_slice(b"abcdefgh");
        a.truncate(3);
        assert_eq!((a.len(), a.as_slice()), (3, &b"abc"[..]));
        drop(a);
        assert_eq!(pool.spare(), 1);
        // Reused whole, holding what it held (as a BYOB reader's own view would).
        let b = pool.take(8).unwrap();
        assert_eq!((pool.spare(), b.as_slice()), (0, &b"abcdefgh"[..]));
        // Another size is a new buffer; the pool keeps at most POOL_BUFFERS spares.
        let many: Vec<_> = (0..POOL_BUFFERS + 2)
            .map(|_| pool.take(4).unwrap())
            .collect();
        drop(many);
        assert_eq!(pool.spare(), POOL_BUFFERS);
        // A buffer outliving its pool is simply freed.
        drop(pool);
        drop(b);
        // An allocation that cannot succeed is None, not an abort.
        assert!(BufferPool::default().take(usize::MAX).is_none());
    }

    #[test]
    fn fifo_order_and_total_size() {
        let mut ctx = Cx::default();
        let mut q = QueueWithSizes::<u32>::default();
        for i in 0..100 {
            q.enqueue_value_with_size(i, 0.5, &mut ctx).unwrap();
        }
        assert_eq!(q.total_size(), 50.0);
        assert_eq!(q.peek_queue_value(), Some(&mut 0));
        for i in 0..100 {
            assert_eq!(q.dequeue_value(), Some(i));
        }
        assert_eq!(q.total_size(), 0.0);
        assert_eq!(q.dequeue_value(), None);
    }

    #[test]
    fn rejects_bad_sizes() {
        let mut ctx = Cx::default();
        let mut q = QueueWithSizes::<u32>::default();
        for bad in [-1.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            assert!(
                q.enqueue_value_with_size(1, bad, &mut ctx).is_err(),
                "{bad}"
            );
        }
        assert!(q.is_empty());
        assert_eq!(q.total_size(), 0.0);
    }

    #[test]
    fn total_size_never_negative_after_rounding() {
        let mut ctx = Cx::default();
        let mut q = QueueWithSizes::<u32>::default();
        // 1e16 + 1 rounds to 1e16, so taking both sizes out again would go to -1.
        q.enqueue_value_with_size(1, 1e16, &mut ctx).unwrap();
        q.enqueue_value_with_size(2, 1.0, &mut ctx).unwrap();
        q.dequeue_value();
        q.dequeue_value();
        assert_eq!(q.total_size(), 0.0);
    }

    #[test]
    fn gives_memory_back_as_it_drains() {
        let mut ctx = Cx::default();
        let mut q = QueueWithSizes::<u32>::default();
        for i in 0..160_000 {
            q.enqueue_value_with_size(i, 1.0, &mut ctx).unwrap();
        }
        assert!(q.capacity() >= 160_000);
        for i in 0..159_990 {
            assert_eq!(q.dequeue_value(), Some(i));
        }
        assert!(q.capacity() <= 64, "capacity {} kept", q.capacity());
        for i in 159_990..160_000 {
            assert_eq!(q.dequeue_value(), Some(i));
        }
    }
}

/// How many spare buffers a [`BufferPool`] keeps.
const POOL_BUFFERS: usize = 4;

/// Bytes held in Rust that no script sees: the buffer of a native read (a pipe's BYOB read
/// from a Rust byte source) and the chunk it becomes, or a chunk a native source enqueued. No
/// JS object is made for them; when they are dropped (the chunk written, or the stream
/// errored), a read's buffer goes back to the pool it came from, so the next read reuses it.
/// While they live they count toward a collection ([`engine::ExternalBytes`]): an unread
/// stream that became garbage holds them until the engine collects it.
pub(crate) struct NativeBytes {
    /// The bytes; `len` bytes of them are the chunk.
    storage: Storage,
    /// The chunk's length (the whole buffer until the read completes).
    len: usize,
    /// Where an owned buffer goes back when dropped.
    pool: std::rc::Weak<std::cell::RefCell<Vec<Vec<u8>>>>,
    /// The count of these bytes toward a collection.
    _counted: engine::ExternalBytes,
}

/// Where a [`NativeBytes`] keeps its bytes.
enum Storage {
    /// A buffer of its own.
    Owned(Vec<u8>),
    /// A range of immutable bytes shared with their owner (a `Blob`, a body's source), from
    /// `start`: no copy is made until something writes to them.
    Shared { bytes: Arc<[u8]>, start: usize },
    /// Bytes that came from async Rust (a socket's read, an item of a Rust stream), from their
    /// start: no copy is made until something writes to them.
    #[cfg(feature = "tokio")]
    Bytes(bytes::Bytes),
}

impl std::fmt::Debug for NativeBytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NativeBytes")
            .field("len", &self.len)
            .finish_non_exhaustive()
    }
}

impl NativeBytes {
    /// `bytes` as a chunk of their own (not from a pool).
    pub(crate) fn from_vec(bytes: Vec<u8>) -> Self {
        Self::owned(bytes, std::rc::Weak::new())
    }

    fn owned(buf: Vec<u8>, pool: std::rc::Weak<std::cell::RefCell<Vec<Vec<u8>>>>) -> Self {
        Self {
            len: buf.len(),
            _counted: engine::ExternalBytes::new(buf.len()),
            storage: Storage::Owned(buf),
            pool,
        }
    }

    /// The bytes of `range` of `bytes` as a chunk, sharing them (an empty chunk if the range
    /// is not within them).
    pub(crate) fn shared(bytes: Arc<[u8]>, range: std::ops::Range<usize>) -> Self {
        let (start, len) = match bytes.get(range.clone()) {
            Some(_) => (range.start, range.end - range.start),
            None => (0, 0),
        };
        Self {
            len,
            _counted: engine::ExternalBytes::new(len),
            storage: Storage::Shared { bytes, start },
            pool: std::rc::Weak::new(),
        }
    }

    /// `bytes` as a chunk, without copying them.
    #[cfg(feature = "tokio")]
    pub(crate) fn from_bytes(bytes: bytes::Bytes) -> Self {
        Self {
            len: bytes.len(),
            _counted: engine::ExternalBytes::new(bytes.len()),
            storage: Storage::Bytes(bytes),
            pool: std::rc::Weak::new(),
        }
    }

    /// The chunk's bytes as `Bytes`: shared or moved where they can be (bytes from async Rust,
    /// a shared range, a buffer of its own), copied only from a pool's buffer (which goes back
    /// to its pool).
    #[cfg(feature = "tokio")]
    pub(crate) fn into_bytes(mut self) -> bytes::Bytes {
        let len = self.len;
        if self.pool.strong_count() > 0 {
            return bytes::Bytes::copy_from_slice(self.as_slice());
        }
        // (The emptied storage left behind goes to no pool: there is none.)
        match std::mem::replace(&mut self.storage, Storage::Owned(Vec::new())) {
            Storage::Owned(mut buf) => {
                buf.truncate(len);
                bytes::Bytes::from(buf)
            }
            Storage::Shared { bytes, start } => {
                // Assert: start + len ≤ bytes.len() (see `as_slice`).
                bytes::Bytes::from_owner(bytes).slice(start..start + len)
            }
            Storage::Bytes(mut bytes) => {
                bytes.truncate(len);
                bytes
            }
        }
    }

    /// The chunk's bytes.
    pub(crate) fn as_slice(&self) -> &[u8] {
        // Assert: len ≤ buf.len(), and start + len ≤ bytes.len() (set so when made, and
        // `truncate` only lowers len).
        match &self.storage {
            Storage::Owned(buf) => &buf[..self.len],
            Storage::Shared { bytes, start } => &bytes[*start..*start + self.len],
            #[cfg(feature = "tokio")]
            Storage::Bytes(bytes) => &bytes[..self.len],
        }
    }

    /// The chunk's bytes, writable (shared bytes are copied into a buffer of their own first).
    pub(crate) fn as_mut_slice(&mut self) -> &mut [u8] {
        if !matches!(self.storage, Storage::Owned(_)) {
            self.storage = Storage::Owned(self.as_slice().to_vec());
        }
        match &mut self.storage {
            // Assert: len ≤ buf.len() (see `as_slice`).
            Storage::Owned(buf) => &mut buf[..self.len],
            _ => &mut [],
        }
    }

    /// The chunk's length.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Shortens the chunk to its first `len` bytes (the bytes a read filled).
    pub(crate) fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len);
    }
}

impl Drop for NativeBytes {
    fn drop(&mut self) {
        if let (Some(pool), Storage::Owned(buf)) = (self.pool.upgrade(), &mut self.storage) {
            let mut pool = pool.borrow_mut();
            if pool.len() < POOL_BUFFERS {
                pool.push(std::mem::take(buf));
            }
        }
    }
}

/// The spare buffers of one reader of native reads (a native pipe): each [`NativeBytes`] it
/// hands out comes back when dropped. A buffer is only ever reused by the reader it came from,
/// so a source sees only bytes of its own stream in a recycled buffer, as it would in a BYOB
/// reader's own view.
#[derive(Debug, Default, Clone)]
pub(crate) struct BufferPool(std::rc::Rc<std::cell::RefCell<Vec<Vec<u8>>>>);

impl BufferPool {
    /// A buffer of `size` bytes: a spare one of that size (holding what it held), or a new
    /// zero-filled one; `None` if the allocation fails.
    pub(crate) fn take(&self, size: usize) -> Option<NativeBytes> {
        let spare = {
            let mut pool = self.0.borrow_mut();
            let found = pool.iter().position(|b| b.len() == size);
            found.map(|i| pool.swap_remove(i))
        };
        let buf = match spare {
            Some(buf) => buf,
            None => {
                let mut buf = Vec::new();
                buf.try_reserve_exact(size).ok()?;
                buf.resize(size, 0);
                buf
            }
        };
        Some(NativeBytes::owned(buf, std::rc::Rc::downgrade(&self.0)))
    }

    /// How many spare buffers the pool holds.
    #[cfg(all(test, feature = "engine-boa"))]
    pub(crate) fn spare(&self) -> usize {
        self.0.borrow().len()
    }
}

traced_without_drop! {
    /// A chunk of a stream: a JS value, or Rust bytes that no script sees (a native read's
    /// chunk, or one a Rust source enqueued as bytes). Rust bytes stay Rust bytes on the way to a
    /// consumer that takes them (a Rust sink or reader, a native transform); anywhere script
    /// could see them they become a `Uint8Array` holding them first ([`Chunk::into_value`]).
    #[derive(Debug)]
    pub(crate) enum Chunk {
        /// A JS value.
        Value(engine::Value),
        /// Rust bytes.
        Bytes(#[unsafe_ignore_trace] NativeBytes),
    }
}

impl Chunk {
    /// The chunk as a JS value: bytes become a new `Uint8Array` holding them.
    pub(crate) fn into_value(self, ctx: &mut Cx) -> JsResult<engine::Value> {
        match self {
            Chunk::Value(value) => Ok(value),
            Chunk::Bytes(bytes) => engine::new_uint8_array(bytes.as_slice(), ctx),
        }
    }
}

traced_without_drop! {
/// A chunk a writable stream's sink is given: a JS value, or Rust bytes that no script sees
/// (see [`Chunk`]; the writable queue's entry gives them up when their write starts).
#[derive(Debug, Clone)]
pub(crate) enum SinkChunk {
    /// A JS value.
    Value(engine::Value),
    /// Rust bytes.
    Bytes(#[unsafe_ignore_trace] std::rc::Rc<NativeBytes>),
}
}

impl SinkChunk {
    /// The chunk as a JS value: bytes become a new `Uint8Array` holding them.
    pub(crate) fn into_value(self, ctx: &mut Cx) -> JsResult<engine::Value> {
        match self {
            SinkChunk::Value(value) => Ok(value),
            SinkChunk::Bytes(bytes) => engine::new_uint8_array(bytes.as_slice(), ctx),
        }
    }

    /// The chunk as a [`Chunk`] of its own (the bytes are copied only if something else still
    /// shares them).
    pub(crate) fn into_chunk(self) -> Chunk {
        match self {
            SinkChunk::Value(value) => Chunk::Value(value),
            SinkChunk::Bytes(bytes) => Chunk::Bytes(
                std::rc::Rc::try_unwrap(bytes)
                    .unwrap_or_else(|bytes| NativeBytes::from_vec(bytes.as_slice().to_vec())),
            ),
        }
    }
}
