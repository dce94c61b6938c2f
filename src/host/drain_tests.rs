//! Tests of the Rust API's draining read of frames (`rust/reader.rs`, which the HTTP server
//! uses), here in the host layer because they need a host to run the stream (the layers below
//! may not name it).

use std::{cell::RefCell, rc::Rc};

use super::{Host, HostOptions};
use crate::engine::Cx;
use crate::rust::{
    Completion, DrainedFrames, ReadableController, ReadableStream, Source, StreamError,
};

/// Enqueues Rust bytes of 10, 5,000, 30 and 8,000 bytes, a JS `Uint8Array` of 20 between
/// them, and closes.
struct Mixed;

impl Source for Mixed {
    fn pull(
        &mut self,
        controller: &ReadableController,
        ctx: &mut Cx,
    ) -> Result<Completion, StreamError> {
        controller.enqueue_bytes(&[1; 10], ctx)?;
        controller.enqueue_bytes(&[2; 5000], ctx)?;
        let view = crate::rust::uint8_array(&[3; 20], ctx)?;
        controller.enqueue(view, ctx)?;
        controller.enqueue_bytes(&[4; 30], ctx)?;
        controller.enqueue_bytes(&[5; 8000], ctx)?;
        controller.close(ctx)?;
        Ok(Completion::Ready)
    }
}

#[test]
fn a_draining_read_of_frames_passes_large_rust_chunks_and_joins_the_rest() {
    let (host, mut ctx) = Host::new(HostOptions::default()).expect("a host");
    let stream = ReadableStream::from_source(Mixed, 1.0, &mut ctx).expect("a stream");
    let reader = stream.draining_reader(&mut ctx).expect("a reader");
    let got: Rc<RefCell<Option<Result<DrainedFrames, StreamError>>>> = Rc::default();
    let slot = Rc::clone(&got);
    reader.read_frames_with(1 << 16, &mut ctx, move |result, _| {
        *slot.borrow_mut() = Some(result);
    });
    for _ in 0..10 {
        if got.borrow().is_some() {
            break;
        }
        host.perform_microtask_checkpoint(&mut ctx);
    }
    let drained = got.borrow_mut().take().expect("a batch").expect("bytes");
    assert!(drained.done);
    // The chunks of 4 KiB and more as they are; the 10 bytes before them in a run of
    // their own; the JS chunk's 20 bytes and the 30 after it joined.
    let lengths: Vec<usize> = drained.frames.iter().map(|f| f.len()).collect();
    assert_eq!(lengths, [10, 5000, 50, 8000]);
    let all: Vec<u8> = drained.frames.concat();
    let mut expected = vec![1; 10];
    for (byte, n) in [(2, 5000), (3, 20), (4, 30), (5, 8000)] {
        expected.extend(std::iter::repeat_n(byte, n));
    }
    assert_eq!(all, expected);
}
