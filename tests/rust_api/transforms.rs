//! Transformers: a Rust `Transformer` used from JavaScript.

use std::{cell::RefCell, rc::Rc};

use boa_streams::rust::{
    js_string, Completion, Context, StreamError, TransformController, TransformStream, Transformer,
    Value,
};

use crate::support::script::{Fixture, TestAction};
use crate::support::text;
use crate::Api;

/// Splits string chunks into words; flush emits a count; "boom" fails.
struct Words {
    count: usize,
    cancelled: Rc<RefCell<Option<String>>>,
}

impl Transformer for Words {
    fn transform(
        &mut self,
        chunk: Value,
        c: &TransformController,
        ctx: &mut Context,
    ) -> Result<Completion, StreamError> {
        let chunk = text(&chunk, ctx);
        if chunk == "boom" {
            return Err(StreamError::range_error("boom"));
        }
        for word in chunk.split_whitespace() {
            self.count += 1;
            c.enqueue(Value::from(js_string(word)), ctx)?;
        }
        Ok(Completion::Ready)
    }
    fn flush(
        &mut self,
        c: &TransformController,
        ctx: &mut Context,
    ) -> Result<Completion, StreamError> {
        c.enqueue(
            Value::from(js_string(&format!("({} words)", self.count))),
            ctx,
        )?;
        Ok(Completion::Ready)
    }
    fn cancel(&mut self, reason: Value, ctx: &mut Context) -> Result<Completion, StreamError> {
        *self.cancelled.borrow_mut() = Some(text(&reason, ctx));
        Ok(Completion::Ready)
    }
}

#[test]
fn a_rust_transformer_used_from_js() {
    let mut api = Fixture::host();
    let cancelled = Rc::new(RefCell::new(None));
    let t = TransformStream::from_transformer(
        Words {
            count: 0,
            cancelled: cancelled.clone(),
        },
        api.context(),
    )
    .unwrap();
    api.set("t", t.to_value());
    api.run([
        TestAction::run(
            r#"
        log.push(String(t instanceof TransformStream), String(t.readable instanceof ReadableStream));
        ReadableStream.from(['a b', 'c', 'd e f']).pipeThrough(t)
            .pipeTo(new WritableStream({ write(w) { log.push(w); } }));
        "#,
        ),
        TestAction::run_to_idle(),
        TestAction::assert_no_failures(),
        TestAction::assert_log("true,true,a,b,c,d,e,f,(6 words)"),
    ]);

    let t = TransformStream::from_transformer(
        Words {
            count: 0,
            cancelled: cancelled.clone(),
        },
        api.context(),
    )
    .unwrap();
    api.set("t2", t.to_value());
    api.run([
        TestAction::run(
            r#"
        t2.readable.getReader().read().catch(() => {});
        const w = t2.writable.getWriter();
        w.write('boom').catch(e => { globalThis.got = e.constructor.name + ': ' + e.message; });
        "#,
        ),
        TestAction::run_to_idle(),
        TestAction::assert_no_failures(),
        TestAction::assert_string("got", "RangeError: boom"),
    ]);

    let t = TransformStream::from_transformer(
        Words {
            count: 0,
            cancelled: cancelled.clone(),
        },
        api.context(),
    )
    .unwrap();
    api.set("t3", t.to_value());
    api.run([
        TestAction::run("t3.readable.cancel('not needed');"),
        TestAction::run_to_idle(),
        TestAction::assert_no_failures(),
    ]);
    assert_eq!(cancelled.borrow().as_deref(), Some("not needed"));
}
