//! TextEncoderStream, TextDecoderStream, CompressionStream and DecompressionStream: the parts
//! that are easy to get wrong (state carried between chunks, errors, the end of compressed
//! data), driven from script. The "brotli" format has its own module, [`brotli`].

#[path = "../support/mod.rs"]
mod support;

mod brotli;

use support::run_async;
use support::script::{Fixture, TestAction, BYTE_HELPERS};

/// What the scripts share besides [`BYTE_HELPERS`]: `collect` (reads a stream to the
/// end), `run` (writes chunks to a transform and collects its output) and `bytes` (arrays of
/// bytes as text).
const PRELUDE: &str = r#"
globalThis.collect = async (readable) => {
  const out = [];
  const reader = readable.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return out;
    out.push(value);
  }
};
globalThis.run = (chunks, ts) => {
  const writer = ts.writable.getWriter();
  for (const c of chunks) writer.write(c).catch(() => {});
  writer.close().catch(() => {});
  return collect(ts.readable);
};
globalThis.bytes = (arrays) => Array.from(arrays, a => Array.from(a).join(',')).join(' | ');
"#;

fn fixture() -> Fixture {
    Fixture::streams().with(BYTE_HELPERS).with(PRELUDE)
}

#[test]
fn encoder_carries_a_high_surrogate_across_chunks() {
    let cases = [
        // A pair split down the middle, twice in a row.
        (
            r"['\uD83D', '\uDC99\uD83D', '\uDC99']",
            "240,159,146,153 | 240,159,146,153",
        ),
        // A lone high surrogate followed by a non-surrogate: U+FFFD, then the character.
        (r"['\uD83D', 'A']", "239,191,189,65"),
        // A lone high surrogate at the end of the stream: U+FFFD at flush.
        (r"['a\uD83D']", "97 | 239,191,189"),
        // Carried past empty chunks.
        (r"['\uD83D', '', '', '\uDC99']", "240,159,146,153"),
        // A lone low surrogate is replaced at once.
        (r"['\uDC99x']", "239,191,189,120"),
        // Two high surrogates: the first is replaced, the second waits.
        (
            r"['\uD83D\uD83D', '\uDC99']",
            "239,191,189 | 240,159,146,153",
        ),
    ];
    fixture().run(cases.map(|(input, expected)| {
        TestAction::assert_async(
            format!("return bytes(await run({input}, new TextEncoderStream()));"),
            expected,
        )
    }));
}

#[test]
fn encoder_converts_chunks_with_to_string_and_errors_on_a_throwing_one() {
    fixture().run([
        TestAction::assert_async(
            "return bytes(await run([1.5, null, { toString() { return 'é'; } }], new TextEncoderStream()));",
            "49,46,53 | 110,117,108,108 | 195,169",
        ),
        TestAction::inspect_context(|ctx| {
            let got = run_async(
                ctx,
                "return await run([Symbol('s')], new TextEncoderStream());",
            );
            assert!(got.starts_with("rejected: TypeError"), "{got}");
        }),
    ]);
}

#[test]
fn decoder_holds_back_a_sequence_split_between_chunks() {
    fixture().run([
        // "I 💙 streams" fed one byte at a time: the heart appears whole, once all four bytes are in.
        TestAction::assert_async(
            "const input = [73, 32, 240, 159, 146, 153, 32, 115];
             const out = await run(input.map(b => new Uint8Array([b])), new TextDecoderStream());
             return JSON.stringify(out);",
            r#"["I"," ","💙"," ","s"]"#,
        ),
        // Shift_JIS 水 (0x90 0x85) and UTF-16LE 水 (0x34 0x6C) split across chunks, from views
        // with an offset and from an ArrayBuffer.
        TestAction::assert_async(
            "const buf = new Uint8Array([0, 0x90, 0x85, 0]).buffer;
             const sjis = await run([new Uint8Array(buf, 1, 1), new DataView(buf, 2, 1)],
                                    new TextDecoderStream('shift_jis'));
             const le = await run([new Uint8Array([0x34]).buffer, new Uint8Array([0x6C, 0x41, 0])],
                                  new TextDecoderStream('utf-16le'));
             return JSON.stringify([sjis, le]);",
            r#"[["水"],["水A"]]"#,
        ),
        // An unfinished sequence at the end is U+FFFD in replacement mode.
        TestAction::assert_async(
            "return JSON.stringify(await run([new Uint8Array([0x61, 0xF0, 0x9F])], new TextDecoderStream()));",
            r#"["a","�"]"#,
        ),
    ]);
}

#[test]
fn decoder_bom_handling() {
    fixture().run([
        TestAction::assert_async(
            "const chunks = () => [new Uint8Array([0xEF]), new Uint8Array([0xBB, 0xBF, 0xEF, 0xBB, 0xBF, 0x61])];
             const stripped = await run(chunks(), new TextDecoderStream());
             const kept = await run(chunks(), new TextDecoderStream('utf-8', { ignoreBOM: true }));
             // Only the first BOM is stripped; a BOM of another encoding is not one.
             const be = await run([new Uint8Array([0xFF, 0xFE, 0, 0x61])], new TextDecoderStream('utf-16be'));
             return JSON.stringify([stripped, kept, be].map(a => a.join('').split('').map(c => c.charCodeAt(0))));",
            // BOM handling
            "[[65279,97],[65279,65279,97],[65534,97]]",
        ),
    ]);
}

#[test]
fn fatal_decoder_errors_both_sides_with_a_type_error() {
    fixture().run([
        // An invalid byte: the write, the read and both closed promises reject with a TypeError.
        TestAction::assert_async(
            "const ts = new TextDecoderStream('utf-8', { fatal: true });
             const writer = ts.writable.getWriter();
             const reader = ts.readable.getReader();
             const results = await Promise.allSettled([
               writer.write(new Uint8Array([0x61, 0xFF])), reader.read(), writer.closed, reader.closed]);
             return results.map(r => r.status + ':' + (r.reason && r.reason.constructor.name)).join(' ');",
            "rejected:TypeError rejected:TypeError rejected:TypeError rejected:TypeError",
        ),
        // An unfinished sequence at close: close() rejects with a TypeError.
        TestAction::assert_async(
            "const ts = new TextDecoderStream('utf-8', { fatal: true });
             const writer = ts.writable.getWriter();
             ts.readable.getReader().read();
             writer.write(new Uint8Array([0xF0, 0x9F]));
             try { await writer.close(); return 'closed'; } catch (e) { return e.constructor.name; }",
            "TypeError",
        ),
    ]);
}

#[test]
fn decoder_constructor_and_attributes() {
    fixture().run([
        TestAction::assert_async(
            "const names = [' Latin1 ', 'UTF-16', 'sjis', 'utf-16be'].map(l => new TextDecoderStream(l).encoding);
             const errors = ['replacement', 'iso-2022-kr', 'nonsense', '\\uD800'].map(l => {
               try { new TextDecoderStream(l); return 'ok'; } catch (e) { return e.constructor.name; }
             });
             const d = new TextDecoderStream(undefined, { fatal: 1, ignoreBOM: '' });
             return JSON.stringify([names, errors, d.encoding, d.fatal, d.ignoreBOM, new TextEncoderStream().encoding]);",
            r#"[["windows-1252","utf-16le","shift_jis","utf-16be"],["RangeError","RangeError","RangeError","RangeError"],"utf-8",true,false,"utf-8"]"#,
        ),
    ]);
}

#[test]
fn compression_round_trips_in_every_format() {
    fixture().run(["gzip", "deflate", "deflate-raw", "brotli"].map(|format| {
        TestAction::assert_async(
            format!(
                "const data = new Uint8Array(300000);
                 let x = 1;
                 for (let i = 0; i < data.length; i++) {{ x = (x * 1103515245 + 12345) >>> 0; data[i] = (x >>> 24) % 16; }}
                 // Written in uneven pieces, read back through a decompressor fed in others.
                 const pieces = [];
                 for (let i = 0, n = 1; i < data.length; i += n, n = n * 3 % 65537) pieces.push(data.subarray(i, i + n));
                 const compressed = concat(await run(pieces, new CompressionStream('{format}')));
                 const split = [];
                 for (let i = 0; i < compressed.length; i += 777) split.push(compressed.slice(i, i + 777));
                 const out = concat(await run(split, new DecompressionStream('{format}')));
                 if (out.length !== data.length) return 'length ' + out.length;
                 for (let i = 0; i < data.length; i++) if (out[i] !== data[i]) return 'differs at ' + i;
                 return 'ok ' + (compressed.length < data.length);"
            ),
            "ok true",
        )
    }));
}

#[test]
fn compression_of_nothing_decompresses_to_nothing() {
    fixture().run(["gzip", "deflate", "deflate-raw", "brotli"].map(|format| {
        TestAction::assert_async(
            format!(
                "const compressed = concat(await run([], new CompressionStream('{format}')));
                 const out = await run([compressed], new DecompressionStream('{format}'));
                 return compressed.length > 0 && out.length === 0;"
            ),
            "true",
        )
    }));
}

#[test]
fn corrupt_truncated_and_trailing_compressed_data_are_type_errors() {
    fixture().run([
        TestAction::assert_async(
            "const text = ascii('hello hello hello hello');
             const gz = concat(await run([text], new CompressionStream('gzip')));
             const attempt = async (chunks) => {
               const ts = new DecompressionStream('gzip');
               const out = [];
               const writer = ts.writable.getWriter();
               for (const c of chunks) writer.write(c).catch(() => {});
               writer.close().catch(() => {});
               const reader = ts.readable.getReader();
               try {
                 for (;;) { const { value, done } = await reader.read(); if (done) break; out.push(value.length); }
                 return 'ok ' + out.join(',');
               } catch (e) { return e.constructor.name + (out.length ? ' after ' + out.join(',') : ''); }
             };
             const badCrc = gz.slice(); badCrc[gz.length - 6] ^= 1;
             const badSize = gz.slice(); badSize[gz.length - 1] ^= 1;
             const badMagic = gz.slice(); badMagic[0] = 0;
             const reserved = gz.slice(); reserved[3] = 0x20;
             return JSON.stringify([
               await attempt([gz]),
               await attempt([badCrc]),
               await attempt([badSize]),
               await attempt([badMagic]),
               await attempt([reserved]),
               // Cut inside the trailer: the data comes out, then close() finds the end missing.
               await attempt([gz.subarray(0, gz.length - 1)]),
               await attempt([gz.subarray(0, 5)]),
               await attempt([concat([gz, new Uint8Array([0])])]),
               await attempt([gz, new Uint8Array([1, 2])]),
               await attempt([gz, new Uint8Array(0)]),
             ]);",
            r#"["ok 23","TypeError","TypeError","TypeError","TypeError","TypeError after 23","TypeError","TypeError after 23","TypeError after 23","ok 23"]"#,
        ),
        // zlib: a wrong ADLER32, and a preset dictionary (FDICT), are errors.
        TestAction::assert_async(
            "const z = concat(await run([ascii('abc')], new CompressionStream('deflate')));
             const bad = z.slice(); bad[z.length - 1] ^= 1;
             const fdict = new Uint8Array([0x78, 0xbb, 0x74, 0xee, 0x09, 0x59, 0x2b, 0xc1, 0x2e, 0x0c, 0x00, 0x74, 0xee, 0x09, 0x59]);
             const results = [];
             for (const input of [z, bad, fdict]) {
               try { await run([input], new DecompressionStream('deflate')); results.push('ok'); }
               catch (e) { results.push(e.constructor.name); }
             }
             return results.join(' ');",
            "ok TypeError TypeError",
        ),
    ]);
}

#[test]
fn bad_chunks_and_formats_are_type_errors() {
    let expected = ["TypeError"; 12].join(" ") + " A " + &["TypeError"; 9].join(" ");
    fixture().run([TestAction::assert_async(
        "const results = [];
         for (const chunk of [undefined, 'abc', [1], {}, new SharedArrayBuffer(1), new Uint8Array(new SharedArrayBuffer(1))]) {
           for (const ts of [new CompressionStream('gzip'), new DecompressionStream('gzip')]) {
             try { await run([chunk], ts); results.push('ok'); } catch (e) { results.push(e.constructor.name); }
           }
         }
         // TextDecoderStream takes [AllowShared] BufferSource chunks.
         const shared = new Uint8Array(new SharedArrayBuffer(1)); shared[0] = 0x41;
         results.push((await run([shared], new TextDecoderStream())).join(''));
         // Neither takes resizable buffers ([AllowResizable] is not given).
         const resizable = () => new ArrayBuffer(1, { maxByteLength: 2 });
         for (const chunk of [resizable(), new Uint8Array(resizable())]) {
           for (const ts of [new CompressionStream('gzip'), new TextDecoderStream()]) {
             try { await run([chunk], ts); results.push('ok'); } catch (e) { results.push(e.constructor.name); }
           }
         }
         for (const args of [[], ['BROTLI'], ['GZIP'], [undefined], ['br']]) {
           try { new CompressionStream(...args); results.push('ok'); } catch (e) { results.push(e.constructor.name); }
         }
         return results.join(' ');",
        expected,
    )]);
}

#[test]
fn interfaces_have_webidl_shapes() {
    fixture().run([
        TestAction::assert_async(
            "const out = [];
             for (const name of ['TextEncoderStream', 'TextDecoderStream', 'CompressionStream', 'DecompressionStream']) {
               const d = Object.getOwnPropertyDescriptor(globalThis, name);
               const C = globalThis[name];
               const readable = Object.getOwnPropertyDescriptor(C.prototype, 'readable');
               out.push([name, d.writable, d.enumerable, d.configurable, C.length,
                         readable.get.name, readable.enumerable, readable.set === undefined,
                         Object.prototype.toString.call(Object.create(C.prototype))].join(','));
               try { C('gzip'); out.push('callable'); } catch (e) { out.push(e.constructor.name); }
               try { readable.get.call({}); out.push('no brand check'); } catch (e) { out.push(e.constructor.name); }
             }
             return out.join('\\n');",
            "TextEncoderStream,true,false,true,0,get readable,true,true,[object TextEncoderStream]\n\
             TypeError\nTypeError\n\
             TextDecoderStream,true,false,true,0,get readable,true,true,[object TextDecoderStream]\n\
             TypeError\nTypeError\n\
             CompressionStream,true,false,true,1,get readable,true,true,[object CompressionStream]\n\
             TypeError\nTypeError\n\
             DecompressionStream,true,false,true,1,get readable,true,true,[object DecompressionStream]\n\
             TypeError\nTypeError",
        ),
    ]);
}

#[test]
fn reentrant_then_getters_during_enqueue_do_not_panic() {
    fixture().run([
        // Enqueueing resolves a pending read with a {value, done} object, whose `then` is looked
        // up: the getter writes to and reads from the same streams while the chunk is delivered.
        TestAction::assert_async(
            "const log = [];
             const streams = [
               [new TextDecoderStream(), () => new Uint8Array([0x41])],
               [new TextEncoderStream(), () => 'A'],
               [new CompressionStream('deflate-raw'), () => new Uint8Array(100000).fill(7)],
             ];
             for (const [ts, chunk] of streams) {
               const writer = ts.writable.getWriter();
               const reader = ts.readable.getReader();
               let depth = 0;
               Object.defineProperty(Object.prototype, 'then', {
                 configurable: true,
                 get() {
                   if (depth++ < 3) { writer.write(chunk()).catch(() => {}); reader.read().catch(() => {}); }
                   return undefined;
                 },
               });
               const read = reader.read();
               await writer.write(chunk());
               // The compressor may hold everything back until the end.
               writer.close().catch(() => {});
               delete Object.prototype.then;
               log.push(typeof (await read));
             }
             return log.join(' ');",
            "object object object",
        ),
    ]);
}

#[test]
fn codec_streams_are_collected() {
    fixture().run([
        TestAction::run(
            "globalThis.refs = [];
         (function () {
           for (let i = 0; i < 50; i++) {
             for (const ts of [new TextEncoderStream(), new TextDecoderStream(),
                               new CompressionStream('gzip'), new DecompressionStream('deflate')]) {
               ts.writable.getWriter().write(new Uint8Array([1])).catch(() => {});
               refs.push(new WeakRef(ts), new WeakRef(ts.readable));
             }
           }
         })();",
        ),
        TestAction::assert_collected("codec streams survived a collection"),
    ]);
}
