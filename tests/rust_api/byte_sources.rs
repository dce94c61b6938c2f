//! Byte sources: Rust `ByteSource`s, BYOB requests filled in place, and the arguments the
//! constructors refuse.

use std::{
    cell::{Cell, RefCell},
    io::Cursor,
    rc::Rc,
};

use boa_streams::rust::{
    ByteController, ByteSource, Completion, Context, ReadSource, ReadableStream, StreamError,
    WritableStream, WriteSink,
};

use crate::sources::Counter;
use crate::support::script::{Fixture, TestAction};
use crate::{bytes_of, Api};

/// Fills every request in place with an incrementing byte, recording each request's length.
struct Filler {
    next: u8,
    remaining: usize,
    lengths: Rc<RefCell<Vec<usize>>>,
}

impl ByteSource for Filler {
    fn pull(&mut self, c: &ByteController, ctx: &mut Context) -> Result<Completion, StreamError> {
        if self.remaining == 0 {
            c.close(ctx)?;
            return Ok(Completion::Ready);
        }
        let Some(request) = c.byob_request() else {
            c.enqueue(&[self.next], ctx)?;
            self.remaining -= 1;
            return Ok(Completion::Ready);
        };
        self.lengths.borrow_mut().push(request.len());
        let n = request
            .fill(|buf| {
                let n = buf.len().min(self.remaining);
                for b in &mut buf[..n] {
                    *b = self.next;
                    self.next = self.next.wrapping_add(1);
                }
                n
            })
            .unwrap_or(0);
        self.remaining -= n;
        request.respond(n, ctx)?;
        Ok(Completion::Ready)
    }
}

#[test]
fn byob_views_are_filled_in_place() {
    let mut api = Fixture::host();
    let lengths = Rc::new(RefCell::new(Vec::new()));
    let stream = ReadableStream::from_byte_source(
        Filler {
            next: 1,
            remaining: 12,
            lengths: lengths.clone(),
        },
        0.0,
        None,
        api.context(),
    )
    .unwrap();
    api.set("s", stream.to_value());
    api.run([
        TestAction::run(
            r#"
        (async () => {
            const r = s.getReader({ mode: 'byob' });
            const buffer = new ArrayBuffer(16);
            let { value } = await r.read(new Uint8Array(buffer, 4, 8));
            log.push(buffer.detached, value.buffer.byteLength, value.byteOffset, value.byteLength, [...value].join(' '));
            ({ value } = await r.read(new Uint8Array(value.buffer, 0, 16)));
            log.push(value.byteLength, [...value].join(' '));
            const last = await r.read(new Uint8Array(4));
            log.push(last.done, last.value.byteLength);
        })();
        "#,
        ),
        TestAction::run_to_idle(),
        TestAction::assert_no_failures(),
        // The view's own buffer (transferred, same length) holds the bytes at the view's offset.
        TestAction::assert_string(
            "log.join('|')",
            "true|16|4|8|1 2 3 4 5 6 7 8|4|9 10 11 12|true|0",
        ),
    ]);
    assert_eq!(*lengths.borrow(), [8, 16]);
}

#[test]
fn default_reads_fill_the_auto_allocated_buffer() {
    let mut api = Fixture::host();
    let lengths = Rc::new(RefCell::new(Vec::new()));
    let stream = ReadableStream::from_byte_source(
        Filler {
            next: 0,
            remaining: 10,
            lengths: lengths.clone(),
        },
        0.0,
        Some(4),
        api.context(),
    )
    .unwrap();
    let reader = stream.reader(api.context()).unwrap();
    let mut chunks = Vec::new();
    loop {
        let read = reader.read(api.context());
        let Some(chunk) = api.wait(&read).unwrap().unwrap() else {
            break;
        };
        chunks.push(bytes_of(&chunk, api.context()));
    }
    assert_eq!(chunks, [vec![0, 1, 2, 3], vec![4, 5, 6, 7], vec![8, 9]]);
    assert_eq!(*lengths.borrow(), [4, 4, 4]);
}

#[test]
fn a_byob_request_answered_twice_is_a_type_error() {
    struct Twice(Rc<RefCell<Vec<String>>>);
    impl ByteSource for Twice {
        fn pull(
            &mut self,
            c: &ByteController,
            ctx: &mut Context,
        ) -> Result<Completion, StreamError> {
            let first = c.byob_request().expect("a request");
            let second = c.byob_request().expect("the same request");
            first.fill(|b| b[0] = 7);
            first.respond(1, ctx)?;
            self.0
                .borrow_mut()
                .push(format!("{:?}", second.fill(|_| ())));
            self.0
                .borrow_mut()
                .push(second.respond(1, ctx).unwrap_err().to_string());
            assert!(c.enqueue(&[], ctx).is_err());
            Ok(Completion::Ready)
        }
    }
    let mut api = Fixture::host();
    let log = Rc::new(RefCell::new(Vec::new()));
    let stream =
        ReadableStream::from_byte_source(Twice(log.clone()), 0.0, Some(8), api.context()).unwrap();
    let reader = stream.reader(api.context()).unwrap();
    let read = reader.read(api.context());
    let chunk = api.wait(&read).unwrap().unwrap().unwrap();
    assert_eq!(bytes_of(&chunk, api.context()), [7]);
    assert_eq!(
        *log.borrow(),
        [
            "None",
            "TypeError: The BYOB request has already been answered"
        ]
    );
}

#[test]
fn bad_arguments_are_errors_not_panics() {
    let mut api = Fixture::host();
    let ctx = api.context();
    let pulls = Rc::new(Cell::new(0));
    let e = ReadableStream::from_source(
        Counter {
            next: 0,
            end: 1,
            pulls: pulls.clone(),
        },
        -1.0,
        ctx,
    )
    .unwrap_err();
    assert!(matches!(e, StreamError::RangeError(_)));
    let e = ReadableStream::from_source(
        Counter {
            next: 0,
            end: 1,
            pulls,
        },
        f64::NAN,
        ctx,
    )
    .unwrap_err();
    assert!(matches!(e, StreamError::RangeError(_)));
    let lengths = Rc::new(RefCell::new(Vec::new()));
    let e = ReadableStream::from_byte_source(
        Filler {
            next: 0,
            remaining: 1,
            lengths,
        },
        0.0,
        Some(0),
        ctx,
    )
    .unwrap_err();
    assert!(matches!(e, StreamError::TypeError(_)));
    let e = WritableStream::from_sink(WriteSink::new(Vec::new()), -2.0, ctx).unwrap_err();
    assert!(matches!(e, StreamError::RangeError(_)));
    // A locked stream cannot get a second reader.
    let s = ReadSource::new(Cursor::new(vec![1u8]), 1)
        .into_stream(ctx)
        .unwrap();
    let _r = s.reader(ctx).unwrap();
    assert!(matches!(s.reader(ctx).unwrap_err(), StreamError::Js(_)));
    assert!(s.draining_reader(ctx).is_err());
}
