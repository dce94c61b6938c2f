//! `Blob.prototype.textStream()` (w3c/FileAPI#221) and the `Body` mixin's `textStream()`
//! (whatwg/fetch#1862), from their spec text: the bytes (a blob's stream, or the body's
//! stream; an empty stream for a null body) piped through a new UTF-8 `TextDecoderStream` of
//! the current realm. Run on both engines (the host is engine-neutral).

use boa_streams::host::{Host, HostOptions};

/// Runs `script`, whose promise `run()` gives the result, and returns it as a string.
#[allow(clippy::let_and_return)] // the binding is the point: see below
fn run(script: &str) -> String {
    let (host, mut ctx) = Host::new(HostOptions::default()).expect("a host");
    let source = format!(
        "{script}\nrun().then((r) => {{ globalThis.result = String(r); }}, (e) => {{ globalThis.result = 'rejected: ' + e; }});"
    );
    host.eval_script(&mut ctx, "test.js", &source)
        .expect("the script");
    host.run_until(&mut ctx, None, &mut |_| false);
    let reports = host.take_reports();
    assert!(reports.is_empty(), "{reports:?}");
    // Bound, so the value goes before the host (a tail expression's temporaries outlive the
    // function's locals).
    let result = host
        .eval_script(&mut ctx, "result.js", "String(globalThis.result)")
        .expect("a result")
        .to_string(&mut ctx)
        .expect("a string")
        .to_std_string_escaped();
    result
}

const COLLECT: &str = r#"
    async function collect(stream) {
        const reader = stream.getReader();
        const chunks = [];
        for (;;) {
            const { value, done } = await reader.read();
            if (done) return chunks;
            chunks.push(value);
        }
    }
"#;

#[test]
fn blob_text_stream_decodes_utf8_across_chunk_boundaries() {
    // Blob streams come in 64 KiB chunks: the euro sign's three bytes straddle the first.
    let result = run(&format!(
        r#"{COLLECT}
        async function run() {{
            const text = 'a'.repeat(65535) + '€ and ü';
            const chunks = await collect(new Blob([text]).textStream());
            return [chunks.every((c) => typeof c == 'string'), chunks.join('') === text].join(' ');
        }}"#
    ));
    assert_eq!(result, "true true");
}

#[test]
fn blob_text_stream_drops_one_bom_replaces_bad_bytes_and_ignores_the_type() {
    let result = run(&format!(
        r#"{COLLECT}
        async function run() {{
            const bytes = new Uint8Array([0xEF, 0xBB, 0xBF, 0xEF, 0xBB, 0xBF, 0x68, 0xFF, 0x69, 0xE9]);
            const blob = new Blob([bytes], {{ type: 'text/plain;charset=windows-1252' }});
            const text = (await collect(blob.textStream())).join('');
            return JSON.stringify(text);
        }}"#
    ));
    assert_eq!(result, "\"\u{feff}h\u{fffd}i\u{fffd}\"");
}

#[test]
fn blob_text_stream_is_a_new_stream_each_call_and_uses_no_global() {
    let result = run(&format!(
        r#"{COLLECT}
        async function run() {{
            const blob = new Blob(['same']);
            globalThis.TextDecoderStream = function () {{ throw new Error('looked up'); }};
            const a = blob.textStream(), b = blob.textStream();
            return [a !== b, a instanceof ReadableStream, (await collect(a)).join(''), (await collect(b)).join('')].join(' ');
        }}"#
    ));
    assert_eq!(result, "true true same same");
}

#[test]
fn response_text_stream_locks_the_body_and_decodes_it() {
    let result = run(&format!(
        r#"{COLLECT}
        async function run() {{
            const response = new Response(new ReadableStream({{
                start(c) {{ c.enqueue(new Uint8Array([0xE2, 0x82])); c.enqueue(new Uint8Array([0xAC, 0x21])); c.close(); }},
            }}));
            const stream = response.textStream();
            const locked = response.body.locked;
            const text = (await collect(stream)).join('');
            return [locked, response.bodyUsed, text].join(' ');
        }}"#
    ));
    assert_eq!(result, "true true €!");
}

#[test]
fn body_text_stream_of_a_used_or_locked_body_throws_and_a_null_body_is_empty() {
    let result = run(&format!(
        r#"{COLLECT}
        async function run() {{
            const out = [];
            const used = new Response('x');
            await used.text();
            try {{ used.textStream(); out.push('no throw'); }} catch (e) {{ out.push(e.name); }}
            const locked = new Response('x');
            locked.body.getReader();
            try {{ locked.textStream(); out.push('no throw'); }} catch (e) {{ out.push(e.name); }}
            const empty = await collect(new Response(null, {{ status: 204 }}).textStream());
            out.push(empty.length);
            const request = new Request('https://example.test/', {{ method: 'POST', body: 'réquest' }});
            out.push((await collect(request.textStream())).join(''));
            const getRequest = await collect(new Request('https://example.test/').textStream());
            out.push(getRequest.length);
            try {{ Response.prototype.textStream.call({{}}); out.push('no throw'); }} catch (e) {{ out.push(e.name); }}
            return out.join(' ');
        }}"#
    ));
    assert_eq!(result, "TypeError TypeError 0 réquest 0 TypeError");
}
