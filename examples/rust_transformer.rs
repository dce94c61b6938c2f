//! A Rust transformer used from JavaScript.
//!
//! `cargo run --example rust_transformer` installs `lineSplitter()`, a function returning a
//! `TransformStream` whose transformer is Rust: it takes text chunks and emits whole lines,
//! keeping a partial line across chunks and flushing it at the end. Script pipes a stream of
//! arbitrarily cut text through it.

use boa_streams::host::{Host, HostOptions};
use boa_streams::rust::{
    js_string, Completion, Context, StreamError, TransformController, TransformStream, Transformer,
    Value,
};
use boa_streams::JsResult;

#[derive(Default)]
struct LineSplitter {
    partial: String,
}

impl Transformer for LineSplitter {
    fn transform(
        &mut self,
        chunk: Value,
        c: &TransformController,
        ctx: &mut Context,
    ) -> Result<Completion, StreamError> {
        let text = chunk
            .as_string()
            .ok_or_else(|| StreamError::type_error("lineSplitter takes strings"))?
            .to_std_string_escaped();
        self.partial.push_str(&text);
        while let Some(end) = self.partial.find('\n') {
            let line: String = self.partial.drain(..=end).collect();
            c.enqueue(Value::from(js_string(line.trim_end_matches('\n'))), ctx)?;
        }
        Ok(Completion::Ready)
    }

    fn flush(
        &mut self,
        c: &TransformController,
        ctx: &mut Context,
    ) -> Result<Completion, StreamError> {
        if !self.partial.is_empty() {
            let rest = std::mem::take(&mut self.partial);
            c.enqueue(Value::from(js_string(&rest)), ctx)?;
        }
        Ok(Completion::Ready)
    }
}

/// A native function (`boa_streams::NativeFunctionPointer`), defined on the global with
/// `Host::define_global_function`.
fn line_splitter(_: &Value, _: &[Value], ctx: &mut Context) -> JsResult<Value> {
    match TransformStream::from_transformer(LineSplitter::default(), ctx) {
        Ok(t) => Ok(t.to_value()),
        Err(e) => Err(e.into_thrown(ctx)),
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (host, mut ctx) = Host::new(HostOptions::default()).map_err(|e| e.to_string())?;
    host.define_global_function(&mut ctx, "lineSplitter", 0, line_splitter)
        .map_err(|e| e.to_string())?;
    host.eval_script(
        &mut ctx,
        "main.js",
        r#"
        const pieces = ['first li', 'ne\nsecond', ' line\nthi', 'rd line (no newline)'];
        ReadableStream.from(pieces)
            .pipeThrough(lineSplitter())
            .pipeTo(new WritableStream({ write(line) { console.log(`line: ${JSON.stringify(line)}`); } }))
            .then(() => console.log('done'));
        "#,
    )
    .map_err(|e| e.to_string())?;
    host.run_until(&mut ctx, None, &mut |_| false);
    Ok(())
}
