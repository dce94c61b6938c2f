//! The File API's `Blob` (`src/file/`): construction, `slice()`, `type`, `stream()`, the read methods, and the
//! WebIDL shapes and brand checks.

use crate::support::script::{run_host_actions, TestAction};

/// Runs `body` as the body of an async function in a fresh host, then the event loop to idle,
/// and asserts what the function returned (as a string) and that the host reported nothing.
fn assert_blob(body: &str, expected: &str) {
    run_host_actions([
        TestAction::assert_async(body, expected),
        TestAction::assert_no_failures(),
    ]);
}

#[test]
fn constructs_from_mixed_parts_in_order() {
    assert_blob(
        r"
        const inner = new Blob(['in', new Uint8Array([0x6e, 0x65, 0x72])]);
        const buffer = new Uint8Array([0x41, 0x42, 0x43, 0x44]).buffer;
        const parts = [
            'a',
            buffer,
            new Uint8Array(buffer, 1, 2),
            new DataView(buffer, 3, 1),
            new Uint16Array([0x6968]),   // 'hi' little-endian
            inner,
            42,
            { toString() { return '!'; } },
            '\u00e9',
        ];
        const blob = new Blob(parts);
        return [blob.size, blob.type === '', await blob.text()].join('|');
    ",
        "20|true|aABCDBCDhiinner42!\u{e9}",
    );
}

#[test]
fn parts_come_from_any_iterable_and_strings_become_usv() {
    assert_blob(
        r"
        function* gen() { yield 'x'; yield new Uint8Array([0x79]); yield 'z'; }
        const a = await new Blob(gen()).text();
        // A lone surrogate becomes U+FFFD (3 UTF-8 bytes).
        const b = new Blob(['\ud800']);
        const bytes = Array.from(await b.bytes()).join(',');
        const empty = new Blob();
        const undef = new Blob(undefined, undefined);
        return [a, b.size, bytes, empty.size, undef.size].join('|');
    ",
        "xyz|3|239,191,189|0|0",
    );
}

#[test]
fn buffer_bytes_are_copied_at_construction() {
    assert_blob(
        r"
        const u8 = new Uint8Array([1, 2, 3]);
        const blob = new Blob([u8]);
        u8[0] = 9;
        // The parts are all converted first, then their bytes copied (process blob parts).
        const late = new Uint8Array([0x61]);
        const mutated = new Blob([late, { toString() { late[0] = 0x62; return 'c'; } }]);
        let resizable;
        try { new Blob([new ArrayBuffer(1, { maxByteLength: 2 })]); resizable = 'ok'; }
        catch (e) { resizable = e.constructor.name; }
        return [Array.from(await blob.bytes()).join(','), await mutated.text(), resizable].join('|');
    ",
        "1,2,3|bc|TypeError",
    );
}

#[test]
fn bad_parts_and_options_throw_type_errors() {
    assert_blob(
        r"
        const results = [];
        for (const make of [
            () => new Blob('abc'),
            () => new Blob({}),
            () => new Blob(42),
            () => new Blob(null),
            () => new Blob([new SharedArrayBuffer(4)]),
            () => new Blob([], 'text/plain'),
            () => new Blob([], { endings: 'bogus' }),
            () => Blob(),
        ]) {
            try { make(); results.push('ok'); } catch (e) { results.push(e.constructor.name); }
        }
        try { new Blob([Symbol()]); } catch (e) { results.push(e.constructor.name); }
        return results.join(',');
    ",
        "TypeError,TypeError,TypeError,TypeError,TypeError,TypeError,TypeError,TypeError,TypeError",
    );
}

#[test]
fn options_are_read_in_order_and_endings_convert() {
    assert_blob(
        r"
        const log = [];
        const options = {
            get type() { log.push('type'); return 'Text/Plain;Charset=UTF-8'; },
            get endings() { log.push('endings'); return 'native'; },
        };
        const blob = new Blob(['a\r\nb\rc\nd'], options);
        const transparent = new Blob(['a\r\nb'], { endings: 'transparent' });
        return [log.join(), blob.type, JSON.stringify(await blob.text()),
                transparent.size].join('|');
    ",
        "endings,type|text/plain;charset=utf-8|\"a\\nb\\nc\\nd\"|4",
    );
}

#[test]
fn type_is_normalized_or_emptied() {
    assert_blob(
        r"
        return [
            new Blob([], { type: 'TEXT/HTML' }).type,
            new Blob([], { type: 'a\u00e9' }).type,
            new Blob([], { type: 'a\u0019b' }).type,
            new Blob([], { type: '' }).type,
            new Blob([], { type: 42 }).type,
            new Blob([], { type: 'a\ud800' }).type,
            new Blob().slice(0, 0, 'b\udc00').type,
        ].map(t => JSON.stringify(t)).join(',');
    ",
        r#""text/html","","","","42","","""#,
    );
}

#[test]
fn slice_clamps_like_the_spec() {
    assert_blob(
        r"
        const blob = new Blob(['0123456789'], { type: 'text/plain' });
        const cases = [
            [], [2], [-3], [2, 5], [2, -2], [-100, 3], [5, 2], [8, 100],
            [NaN, NaN], [1.5, 3.5], [2.5, 4.5], [-0.5], [Infinity], [-Infinity, -Infinity],
            [undefined, 4], [1e300, -1e300], ['3', '6'],
        ];
        const out = [];
        for (const args of cases) out.push(await blob.slice(...args).text());
        const typed = blob.slice(0, 1, 'IMAGE/PNG');
        const untyped = blob.slice(0, 1);
        const bad = blob.slice(0, 1, '\u00ff');
        out.push(typed.type, JSON.stringify(untyped.type), JSON.stringify(bad.type),
                 blob.slice(3, 7).slice(1, 2).size);
        return out.join('|');
    ",
        "0123456789|23456789|789|234|234567|012||89||23|23|0123456789|||0123||345|image/png|\"\"|\"\"|1",
    );
}

#[test]
fn text_bytes_and_array_buffer() {
    assert_blob(
        r"
        const blob = new Blob([new Uint8Array([0xef, 0xbb, 0xbf, 0x68, 0x69, 0xff])]);
        const text = await blob.text();
        const bytes = await blob.bytes();
        const buffer = await blob.arrayBuffer();
        // Every call gives a fresh object.
        const again = await blob.bytes();
        return [
            JSON.stringify(text),
            bytes.constructor.name, Array.from(bytes).join(','),
            buffer.constructor.name, buffer.byteLength,
            bytes !== again && bytes.buffer !== again.buffer,
            blob.text() instanceof Promise,
        ].join('|');
    ",
        "\"hi\u{fffd}\"|Uint8Array|239,187,191,104,105,255|ArrayBuffer|6|true|true",
    );
}

#[test]
fn read_methods_settle_in_a_later_task() {
    assert_blob(
        r"
        const log = [];
        new Blob(['x']).text().then(() => log.push('text'));
        await Promise.resolve();
        await Promise.resolve();
        log.push('microtasks');
        await new Promise(resolve => setTimeout(resolve, 0));
        return log.join();
    ",
        "microtasks,text",
    );
}

#[test]
fn brand_checks() {
    assert_blob(
        r"
        const proto = Blob.prototype;
        const results = [];
        const size = Object.getOwnPropertyDescriptor(proto, 'size').get;
        const type = Object.getOwnPropertyDescriptor(proto, 'type').get;
        for (const f of [() => size.call({}), () => type.call(proto), () => proto.slice.call({})]) {
            try { f(); results.push('ok'); } catch (e) { results.push(e.constructor.name); }
        }
        for (const name of ['text', 'bytes', 'arrayBuffer']) {
            const p = proto[name].call({});
            results.push(p instanceof Promise);
            try { await p; results.push('ok'); } catch (e) { results.push(e.constructor.name); }
        }
        return results.join(',');
    ",
        "TypeError,TypeError,TypeError,true,TypeError,true,TypeError,true,TypeError",
    );
}

#[test]
fn webidl_shapes() {
    assert_blob(
        r"
        const d = (o, k) => {
            const x = Object.getOwnPropertyDescriptor(o, k);
            return x ? [x.writable, x.enumerable, x.configurable].map(Number).join('') : 'none';
        };
        const p = Blob.prototype;
        const size = Object.getOwnPropertyDescriptor(p, 'size');
        return [
            d(globalThis, 'Blob'),
            Blob.length, Blob.name,
            d(p, 'slice'), d(p, 'stream'), d(p, 'text'), d(p, 'bytes'), d(p, 'arrayBuffer'),
            p.slice.length, p.text.length,
            size.get.name, size.enumerable, size.configurable, size.set === undefined,
            Object.getOwnPropertyDescriptor(p, 'type').get.name,
            Object.prototype.toString.call(new Blob()),
            d(p, Symbol.toStringTag),
            Object.getPrototypeOf(new (class extends Blob {})()) !== p,
        ].join('|');
    ",
        "101|0|Blob|111|111|111|111|111|0|0|get size|true|true|true|get type|[object Blob]|001|true",
    );
}

#[test]
fn stream_gives_uint8_array_chunks_then_closes() {
    assert_blob(
        r"
        const blob = new Blob(['hello ', new Uint8Array([0x77, 0x6f]), 'rld']);
        const stream = blob.stream();
        const reader = stream.getReader();
        const chunks = [];
        for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            chunks.push(value.constructor.name + ':' + new TextDecoder().decode(value));
        }
        await reader.closed;
        const empty = await new Blob().stream().getReader().read();
        return [stream instanceof ReadableStream, chunks.join(), empty.done,
                empty.value === undefined].join('|');
    ",
        "true|Uint8Array:hello world|true|true",
    );
}

#[test]
fn stream_is_a_byte_stream_in_64k_chunks() {
    assert_blob(
        r"
        const size = 64 * 1024 * 2 + 10;
        const source = new Uint8Array(size);
        for (let i = 0; i < size; i++) source[i] = i & 0xff;
        const blob = new Blob([source]);
        const lengths = [];
        let ok = true, offset = 0;
        for await (const chunk of blob.stream()) {
            lengths.push(chunk.byteLength);
            for (let i = 0; i < chunk.length; i++) if (chunk[i] !== ((offset + i) & 0xff)) ok = false;
            offset += chunk.length;
        }
        // A BYOB reader works, and the end of the blob is signalled to a pending request.
        const reader = new Blob(['abcde']).stream().getReader({ mode: 'byob' });
        const first = await reader.read(new Uint8Array(3));
        const second = await reader.read(new Uint8Array(8));
        const third = await reader.read(new Uint8Array(8));
        return [lengths.join(), ok,
                new TextDecoder().decode(first.value), new TextDecoder().decode(second.value),
                third.done, third.value.byteLength].join('|');
    ",
        "65536,65536,10|true|abc|de|true|0",
    );
}

#[test]
fn stream_chunks_are_views_on_buffers_of_their_own() {
    // The chunks are queued as bytes until script reads them; what script gets is the spec's
    // view on the transferred buffer: a whole chunk's own buffer, and for the rest of a chunk a
    // BYOB read took part of, a view at that offset into the whole chunk's buffer.
    assert_blob(
        r"
        const blob = new Blob([new Uint8Array(100).map((_, i) => i)]);
        const shape = (v) => [v.constructor.name, v.byteOffset, v.byteLength, v.buffer.byteLength, v[0]].join(' ');
        const out = [];
        const whole = await blob.stream().getReader().read();
        out.push(shape(whole.value));
        const stream = blob.stream();
        const byob = stream.getReader({ mode: 'byob' });
        const part = await byob.read(new Uint8Array(10));
        out.push(shape(part.value));
        byob.releaseLock();
        const rest = await stream.getReader().read();
        out.push(shape(rest.value));
        // Each branch of a tee gets a buffer of its own.
        const [a, b] = blob.stream().tee();
        const [ra, rb] = await Promise.all([a.getReader().read(), b.getReader().read()]);
        out.push(shape(ra.value), shape(rb.value), ra.value.buffer !== rb.value.buffer);
        return out.join('|');
    ",
        "Uint8Array 0 100 100 0|Uint8Array 0 10 10 0|Uint8Array 10 90 100 10|\
         Uint8Array 0 100 100 0|Uint8Array 0 100 100 0|true",
    );
}

#[test]
fn stream_can_be_canceled_and_is_brand_checked() {
    assert_blob(
        r"
        const blob = new Blob(['x'.repeat(200000)]);
        const reader = blob.stream().getReader();
        const first = await reader.read();
        await reader.cancel('stop');
        const after = await reader.read();
        let brand;
        try { Blob.prototype.stream.call({}); } catch (e) { brand = e.constructor.name; }
        // Two streams of one blob are independent.
        const a = await blob.slice(0, 3).stream().getReader().read();
        return [first.value.byteLength, after.done, brand, a.value.byteLength].join('|');
    ",
        "65536|true|TypeError|3",
    );
}
