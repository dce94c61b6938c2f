//! The Encoding Standard's `TextEncoder` and `TextDecoder` on the host (whose boa_runtime
//! globals of the same names they replace): `encodeInto`, USVString conversion, every label,
//! `fatal` and `stream` across calls, BOM handling, views on a `SharedArrayBuffer`, WebIDL
//! shapes and the order of argument conversions.

#[path = "../support/mod.rs"]
mod support;

use support::script::{Fixture, TestAction, WEBIDL_SHAPES};

/// `bytes(u8)`: a typed array's bytes joined by commas.
const PRELUDE: &str = r#"
globalThis.bytes = (a) => Array.from(a).join(',');
"#;

fn host() -> Fixture {
    Fixture::host().with(WEBIDL_SHAPES).with(PRELUDE)
}

#[test]
fn the_issue_check_and_the_globals_are_ours() {
    host().run([
        TestAction::assert_string(
            "JSON.stringify(new TextEncoder().encodeInto('h\u{e9}llo', new Uint8Array(8)))",
            r#"{"read":5,"written":6}"#,
        ),
        TestAction::check(
            r"
            eq(typeof TextEncoder.prototype.encodeInto, 'function', 'encodeInto');
            eq(Object.prototype.toString.call(new TextEncoder()), '[object TextEncoder]', 'tag');
            eq(Object.prototype.toString.call(new TextDecoder()), '[object TextDecoder]', 'tag');
            eq(Object.prototype.toString.call(TextEncoder.prototype), '[object TextEncoder]', 'proto tag');
            eq(TextEncoder.length, 0, 'TextEncoder.length');
            eq(TextDecoder.length, 0, 'TextDecoder.length');
            accessorShape(TextEncoder.prototype, 'encoding', false);
            operationShape(TextEncoder.prototype, 'encode', 0);
            operationShape(TextEncoder.prototype, 'encodeInto', 2);
            for (const a of ['encoding', 'fatal', 'ignoreBOM']) accessorShape(TextDecoder.prototype, a, false);
            operationShape(TextDecoder.prototype, 'decode', 0);
            ok(!Object.prototype.hasOwnProperty.call(new TextEncoder(), 'encoding'), 'no own encoding');
            throws(TypeError, () => TextEncoder(), 'call without new');
            throws(TypeError, () => TextEncoder.prototype.encode.call({}), 'brand check encode');
            throws(TypeError, () => Object.getOwnPropertyDescriptor(TextDecoder.prototype, 'encoding').get.call(new TextEncoder()), 'brand check encoding');
            ",
        ),
    ]);
}

#[test]
fn encode_converts_its_argument_to_a_usv_string() {
    host().run([TestAction::check(
        r"
        const e = new TextEncoder();
        eq(e.encoding, 'utf-8', 'encoding');
        eq(bytes(e.encode()), '', 'no argument');
        eq(bytes(e.encode(undefined)), '', 'undefined');
        eq(bytes(e.encode(123)), '49,50,51', 'a number');
        eq(bytes(e.encode(null)), '110,117,108,108', 'null');
        eq(bytes(e.encode({ toString() { return 'A'; } })), '65', 'an object');
        eq(bytes(e.encode('\uD800')), '239,191,189', 'a lone high surrogate');
        eq(bytes(e.encode('a\uDC00b')), '97,239,191,189,98', 'a lone low surrogate');
        eq(bytes(e.encode('\uD83D\uDC99')), '240,159,146,153', 'a pair');
        ok(e.encode('x') instanceof Uint8Array, 'a Uint8Array');
        eq(e.encode('x').buffer.constructor, ArrayBuffer, 'on an ArrayBuffer');
        throws(TypeError, () => e.encode(Symbol()), 'a symbol');
        ",
    )]);
}

#[test]
fn encode_into_stops_before_a_sequence_that_does_not_fit() {
    host().run([TestAction::check(
        r"
        const e = new TextEncoder();
        const r = (s, n, fill) => {
          const u8 = new Uint8Array(n).fill(fill ?? 0);
          const { read, written } = e.encodeInto(s, u8);
          return read + '/' + written + ':' + bytes(u8);
        };
        eq(r('h\u00e9llo', 8), '5/6:104,195,169,108,108,111,0,0', 'the issue check');
        eq(r('h\u00e9', 2, 7), '1/1:104,7', 'a two-byte sequence with one byte left');
        eq(r('\uD83D\uDC99a', 5), '3/5:240,159,146,153,97', 'a pair counts two code units');
        eq(r('\uD83D\uDC99', 3, 7), '0/0:7,7,7', 'a four-byte sequence in three bytes');
        eq(r('\uD800a', 4), '2/4:239,191,189,97', 'a lone surrogate is U+FFFD, one code unit');
        eq(r('abc', 0), '0/0:', 'an empty destination');
        const res = e.encodeInto('a', new Uint8Array(1));
        eq(JSON.stringify(Object.keys(res)), '[\x22read\x22,\x22written\x22]', 'member order');
        eq(Object.getPrototypeOf(res), Object.prototype, 'a plain object');
        // A view with an offset writes at its own start.
        const buf = new ArrayBuffer(6);
        const view = new Uint8Array(buf, 2, 3);
        eq(JSON.stringify(e.encodeInto('xyzw', view)), '{\x22read\x22:3,\x22written\x22:3}', 'offset view');
        eq(bytes(new Uint8Array(buf)), '0,0,120,121,122,0', 'offset view bytes');
        // Argument checks: two are required, the destination must be a Uint8Array.
        throws(TypeError, () => e.encodeInto('a'), 'one argument');
        throws(TypeError, () => e.encodeInto('a', new Uint16Array(2)), 'a Uint16Array');
        throws(TypeError, () => e.encodeInto('a', new Uint8ClampedArray(2)), 'a Uint8ClampedArray');
        throws(TypeError, () => e.encodeInto('a', new ArrayBuffer(2)), 'an ArrayBuffer');
        throws(TypeError, () => e.encodeInto('a', new DataView(new ArrayBuffer(2))), 'a DataView');
        throws(TypeError, () => e.encodeInto('a', new Uint8Array(new ArrayBuffer(2, { maxByteLength: 4 }))), 'a resizable buffer');
        // The source is converted first.
        try { e.encodeInto({ toString() { log.push('source'); return 'a'; } }, 5); } catch (err) { log.push(err.name); }
        // A detached destination has no bytes.
        const detached = new Uint8Array(4);
        detached.buffer.transfer();
        eq(JSON.stringify(e.encodeInto('abc', detached)), '{\x22read\x22:0,\x22written\x22:0}', 'detached');
        ",
    ),
    TestAction::assert_log("source,TypeError")]);
}

#[test]
fn views_on_a_shared_array_buffer() {
    host().run([TestAction::check(
        r"
        const sab = new SharedArrayBuffer(8);
        const all = new Uint8Array(sab);
        all.fill(9);
        const view = new Uint8Array(sab, 2, 4);
        const res = new TextEncoder().encodeInto('ab\u20AC', view);
        eq(res.read + '/' + res.written, '2/2', 'encodeInto a shared view');
        eq(bytes(all), '9,9,97,98,9,9,9,9', 'only the written bytes change');
        eq(new TextEncoder().encodeInto('\u20AC', new Uint8Array(sab, 5)).written, 3, 'at the end');
        eq(bytes(all), '9,9,97,98,9,226,130,172', 'shared bytes');
        const d = new TextDecoder();
        eq(d.decode(new Uint8Array(sab, 5)), '\u20AC', 'decode a shared view');
        eq(d.decode(new DataView(sab, 2, 2)), 'ab', 'decode a shared DataView');
        eq(d.decode(sab), '\t\tab\t\u20AC', 'decode a SharedArrayBuffer');
        ",
    )]);
}

#[test]
fn every_label_and_every_decoder() {
    host().run([TestAction::check(
        r"
        const name = (l) => new TextDecoder(l).encoding;
        eq(name(), 'utf-8', 'default');
        eq(name(undefined), 'utf-8', 'undefined');
        eq(name(' \t\n\f\rUnicode-1-1-UTF-8 '), 'utf-8', 'whitespace and case');
        eq(name('utf-16'), 'utf-16le', 'utf-16');
        eq(name('UTF-16BE'), 'utf-16be', 'utf-16be');
        eq(name('big5-hkscs'), 'big5', 'big5');
        eq(name('gbk'), 'gbk', 'gbk');
        eq(name('gb18030'), 'gb18030', 'gb18030');
        eq(name('csiso2022jp'), 'iso-2022-jp', 'iso-2022-jp');
        eq(name('sjis'), 'shift_jis', 'shift_jis');
        eq(name('cseuckr'), 'euc-kr', 'euc-kr');
        eq(name('x-euc-jp'), 'euc-jp', 'euc-jp');
        eq(name('latin1'), 'windows-1252', 'latin1');
        eq(name('x-user-defined'), 'x-user-defined', 'x-user-defined');
        eq(name('koi'), 'koi8-r', 'koi8-r');
        for (const bad of ['replacement', 'iso-2022-kr', 'hz-gb-2312', 'utf-7', 'foo', '', 'utf-8\u00A0', '\u000Butf-8', 'utf\u2010 8', '\uD800'])
          throws(RangeError, () => new TextDecoder(bad), 'label ' + JSON.stringify(bad));
        const dec = (l, b) => new TextDecoder(l).decode(new Uint8Array(b));
        eq(dec('big5', [0xA4, 0x40, 0x41]), '\u4E00A', 'big5');
        eq(dec('big5', [0x88, 0x62]), '\u00CA\u0304', 'big5 to two code points');
        eq(dec('gb18030', [0x81, 0x30, 0x81, 0x30]), '\u0080', 'gb18030 four bytes');
        eq(dec('shift_jis', [0x90, 0x85]), '\u6C34', 'shift_jis');
        eq(dec('euc-kr', [0xB0, 0xA1]), '\uAC00', 'euc-kr');
        eq(dec('iso-2022-jp', [0x1B, 0x24, 0x42, 0x3F, 0x65, 0x1B, 0x28, 0x42, 0x61]), '\u6C34a', 'iso-2022-jp');
        eq(dec('x-user-defined', [0x41, 0x80, 0xFF]), 'A\uF780\uF7FF', 'x-user-defined');
        eq(dec('windows-1252', [0x80]), '\u20AC', 'windows-1252');
        eq(dec('utf-16be', [0x00, 0x41, 0xD8, 0x3D, 0xDC, 0x99]), 'A\uD83D\uDC99', 'utf-16be');
        ",
    )]);
}

#[test]
fn fatal_mode_and_streaming_across_calls() {
    host().run([TestAction::check(
        r"
        const u8 = (b) => new Uint8Array(b);
        // A sequence split between calls.
        const d = new TextDecoder();
        eq(d.decode(u8([0x49, 0xF0, 0x9F]), { stream: true }), 'I', 'first part');
        eq(d.decode(u8([0x92, 0x99]), { stream: true }), '\uD83D\uDC99', 'second part');
        eq(d.decode(u8([0xE2]), { stream: true }), '', 'an unfinished sequence');
        eq(d.decode(), '\uFFFD', 'flushed as U+FFFD');
        eq(d.decode(u8([0x41])), 'A', 'a fresh decode');
        // Fatal: errors are TypeErrors, at the end too.
        const f = new TextDecoder('utf-8', { fatal: true });
        eq(f.fatal, true, 'fatal');
        throws(TypeError, () => f.decode(u8([0xFF])), 'an invalid byte');
        eq(f.decode(u8([0x41])), 'A', 'usable after an error');
        eq(f.decode(u8([0xE2, 0x82]), { stream: true }), '', 'unfinished');
        throws(TypeError, () => f.decode(), 'unfinished at the end');
        eq(f.decode(), '', 'a fresh decode after the error');
        // After an error in a streaming decode the rest of the input stays queued.
        throws(TypeError, () => f.decode(u8([0x61, 0xFF, 0x62]), { stream: true }), 'error mid-stream');
        eq(f.decode(), 'b', 'the bytes after the error');
        throws(TypeError, () => f.decode(u8([0xE2, 0x41]), { stream: true }), 'a cut sequence');
        eq(f.decode(), 'A', 'the byte that cut it');
        // The WPT case: UTF-16LE with odd and even lengths.
        const w = new TextDecoder('utf-16le', { fatal: true });
        const odd = u8([0x00]), even = u8([0x00, 0x00]);
        eq(w.decode(odd, { stream: true }), '', 'odd streaming');
        eq(w.decode(odd), '\u0000', 'odd then odd');
        throws(TypeError, () => { w.decode(even, { stream: true }); w.decode(odd); }, 'even then odd');
        throws(TypeError, () => { w.decode(odd, { stream: true }); w.decode(even); }, 'odd then even');
        eq(w.decode(even, { stream: true }), '\u0000', 'even streaming');
        eq(w.decode(even), '\u0000', 'even');
        // Replacement mode.
        eq(new TextDecoder().decode(u8([0x61, 0xFF, 0x62])), 'a\uFFFDb', 'replacement');
        ",
    )]);
}

#[test]
fn byte_order_marks() {
    host().run([TestAction::check(
        r"
        const u8 = (b) => new Uint8Array(b);
        eq(new TextDecoder().decode(u8([0xEF, 0xBB, 0xBF, 0x41])), 'A', 'utf-8 BOM removed');
        eq(new TextDecoder('utf-8', { ignoreBOM: true }).decode(u8([0xEF, 0xBB, 0xBF, 0x41])), '\uFEFFA', 'ignoreBOM keeps it');
        eq(new TextDecoder('utf-16le').decode(u8([0xFF, 0xFE, 0x41, 0x00])), 'A', 'utf-16le BOM');
        eq(new TextDecoder('utf-16be').decode(u8([0xFE, 0xFF, 0x00, 0x41])), 'A', 'utf-16be BOM');
        eq(new TextDecoder('utf-16le').decode(u8([0xFE, 0xFF, 0x41, 0x00])), '\uFFFEA', 'the other BOM is not one');
        eq(new TextDecoder('windows-1252').decode(u8([0xEF, 0xBB, 0xBF])), '\u00EF\u00BB\u00BF', 'no BOM in windows-1252');
        // Only the first scalar value of a stream can be the BOM, and a BOM split between calls
        // is still one.
        const d = new TextDecoder();
        eq(d.decode(u8([0xEF, 0xBB]), { stream: true }), '', 'half a BOM');
        eq(d.decode(u8([0xBF, 0xEF, 0xBB, 0xBF]), { stream: true }), '\uFEFF', 'the second is kept');
        eq(d.decode(u8([0xEF, 0xBB, 0xBF])), '\uFEFF', 'still kept');
        eq(d.decode(u8([0xEF, 0xBB, 0xBF])), '', 'a new decode strips again');
        eq(new TextDecoder('utf-8', { ignoreBOM: 1 }).ignoreBOM, true, 'ignoreBOM converted');
        ",
    )]);
}

#[test]
fn argument_conversions_in_order() {
    host().run([
        TestAction::run(
            r"
        const d = new TextDecoder(
          { toString() { log.push('label'); return 'utf-8'; } },
          { get fatal() { log.push('fatal'); return 0; }, get ignoreBOM() { log.push('ignoreBOM'); return 1; } });
        log.push(d.fatal, d.ignoreBOM);
        try { d.decode(5, { get stream() { log.push('stream'); } }); } catch (e) { log.push(e.name); }
        try { d.decode(null); } catch (e) { log.push(e.name); }
        try { new TextDecoder('utf-8', 5); } catch (e) { log.push(e.name); }
        try { new TextDecoder('nope', { get fatal() { log.push('fatal2'); } }); } catch (e) { log.push(e.name); }
        // The bytes are copied after the options getter ran.
        const u8 = new Uint8Array([0x41, 0x42]);
        log.push(d.decode(u8, { get stream() { u8[0] = 0x43; return false; } }));
        ",
        ),
        TestAction::assert_log(
            "label,fatal,ignoreBOM,false,true,TypeError,TypeError,TypeError,fatal2,RangeError,CB",
        ),
    ]);
}

#[test]
fn the_streams_still_decode_with_the_shared_code() {
    host().run([TestAction::assert_async(
        r"
        const ds = new TextDecoderStream('utf-16le', { fatal: true });
        const w = ds.writable.getWriter();
        w.write(new Uint8Array([0xFF, 0xFE, 0x41]));
        w.write(new Uint8Array([0x00]));
        w.close();
        const r = ds.readable.getReader();
        const out = [];
        for (;;) { const { value, done } = await r.read(); if (done) break; out.push(value); }
        return ds.encoding + ':' + JSON.stringify(out);
        ",
        r#"utf-16le:["A"]"#,
    )]);
}

#[test]
fn registered_by_boa_streams_register_alone() {
    // A streams context has no boa_runtime: `boa_streams::register` installs both.
    Fixture::streams().run([TestAction::check(
        r"
        eq(new TextEncoder().encode('\u00e9').length, 2, 'TextEncoder');
        eq(new TextDecoder('big5').decode(new Uint8Array([0xA4, 0x40])), '\u4E00', 'TextDecoder');
        eq(Object.getOwnPropertyDescriptor(globalThis, 'TextDecoder').enumerable, false, 'global not enumerable');
        eq(Object.getOwnPropertyDescriptor(globalThis, 'TextDecoder').writable, true, 'global writable');
        ",
    )]);
}

/// `decode()` of a whole UTF-8 input (which becomes an 8-bit string when its characters are all
/// up to U+00FF) gives the same string as the code points it encodes, whatever the text: ASCII,
/// Latin-1, characters past U+00FF, an accent on either side of a 64-byte block, invalid bytes
/// (U+FFFD, or a TypeError when fatal), a BOM (dropped, or kept with ignoreBOM), and after a
/// streaming call, whose decoder state the next call continues from.
#[test]
fn decode_of_whole_inputs_is_exact_for_every_kind_of_text() {
    host().run([TestAction::assert_string(
        r"(() => {
            const bad = [];
            const texts = [''];
            for (const c of ['a', '\u00e9', '\u00ff', '\u0080', '\u0100', '\u20ac', '\u{1F499}']) {
              for (const at of [0, 1, 62, 63, 64, 65, 200]) {
                texts.push('x'.repeat(at) + c + 'caf\u00e9 '.repeat(30));
              }
            }
            const enc = new TextEncoder();
            for (const t of texts) {
              if (new TextDecoder().decode(enc.encode(t)) !== t) bad.push('plain ' + t.length);
              if (new TextDecoder('utf-8', { fatal: true }).decode(enc.encode(t)) !== t) bad.push('fatal ' + t.length);
            }
            const d = new TextDecoder();
            const invalid = new Uint8Array([0x63, 0xc3, 0xa9, 0xff, 0x61, 0xc3]);
            if (d.decode(invalid) !== 'c\u00e9\ufffda\ufffd') bad.push('invalid');
            try { new TextDecoder('utf-8', { fatal: true }).decode(invalid); bad.push('no throw'); }
            catch (e) { if (!(e instanceof TypeError)) bad.push('not a TypeError'); }
            const bom = new Uint8Array([0xef, 0xbb, 0xbf, 0xc3, 0xa9]);
            if (d.decode(bom) !== '\u00e9') bad.push('bom');
            if (new TextDecoder('utf-8', { ignoreBOM: true }).decode(bom) !== '\ufeff\u00e9') bad.push('ignoreBOM');
            // A streaming call leaves half a character; the whole call after it completes it.
            if (d.decode(new Uint8Array([0x61, 0xc3]), { stream: true }) !== 'a') bad.push('stream 1');
            if (d.decode(new Uint8Array([0xa9, 0x62])) !== '\u00e9b') bad.push('stream 2');
            // Half a character left by a streaming call, then ASCII: U+FFFD for the half.
            if (d.decode(new Uint8Array([0x61, 0xc3]), { stream: true }) !== 'a') bad.push('stream 5');
            if (d.decode(new Uint8Array([0x62])) !== '\ufffdb') bad.push('stream 6');
            // And a BOM after a streaming call that output text is content, not a BOM.
            if (d.decode(new Uint8Array([0x61]), { stream: true }) !== 'a') bad.push('stream 3');
            if (d.decode(bom) !== '\ufeff\u00e9') bad.push('stream 4');
            // A decode after that starts afresh (the BOM dropped again).
            if (d.decode(bom) !== '\u00e9') bad.push('fresh');
            return bad.length + ' bad of ' + texts.length + (bad.length ? ': ' + bad.join() : '');
        })()",
        "0 bad of 50",
    )]);
}

/// The UTF-8 encoding of a string is the same whatever the engine made of it (an 8-bit or a
/// wide string, a slice of either, a slice of a slice, a rope, an atom, the empty string) and
/// whichever way it is taken: `TextEncoder.encode()`, a `TextEncoderStream` chunk, a `Response`
/// body, a `Blob` part (with native endings as well), `Response.json()` of it; every lone
/// surrogate becomes U+FFFD. The oracle is a UTF-8 encoder written here in script.
#[test]
fn every_kind_of_string_encodes_to_the_same_utf8() {
    host().run([TestAction::assert_async(
        r"
        const oracle = (s) => {
          const out = [];
          for (let i = 0; i < s.length; i++) {
            let c = s.charCodeAt(i);
            if (c >= 0xD800 && c <= 0xDBFF && i + 1 < s.length) {
              const d = s.charCodeAt(i + 1);
              if (d >= 0xDC00 && d <= 0xDFFF) { c = 0x10000 + ((c - 0xD800) << 10) + (d - 0xDC00); i++; }
            }
            if (c >= 0xD800 && c <= 0xDFFF) c = 0xFFFD;
            if (c < 0x80) out.push(c);
            else if (c < 0x800) out.push(0xC0 | (c >> 6), 0x80 | (c & 63));
            else if (c < 0x10000) out.push(0xE0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
            else out.push(0xF0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
          }
          return out.join(',');
        };
        const long8 = 'ab\u00ffc\u00e9 '.repeat(800);
        const longWide = 'a\u0100\ud83d\udc99\udc00'.repeat(800);
        const strings = {
          empty: '', ascii: 'hello', latin1: 'caf\u00e9', wide: '\u6c34\ud83d',
          atom: Object.keys({ someName: 1 })[0],
          long8, slice8: long8.slice(7, 3001), sliceOfSlice8: long8.slice(5).slice(1999, 3990),
          longWide, sliceWide: longWide.slice(3, 1800), sliceWideLone: longWide.slice(2, 1803),
          sliceOfSliceWide: longWide.slice(1).slice(1, 2990),
          rope: 'x'.repeat(3000) + 'y\u00e9'.repeat(900) + 'z'.repeat(3000),
          lines: 'a\r\nb\rc\n\u00e9\r'.repeat(300).slice(1),
        };
        const bad = [];
        const join = (buffer) => Array.from(new Uint8Array(buffer)).join(',');
        for (const [name, s] of Object.entries(strings)) {
          const want = oracle(s);
          if (join(new TextEncoder().encode(s)) !== want) bad.push(name + ' encode');
          if (join(await new Response(s).arrayBuffer()) !== want) bad.push(name + ' Response');
          if (join(await new Blob([s]).arrayBuffer()) !== want) bad.push(name + ' Blob');
          const native = oracle(s.replace(/\r\n?/g, '\n'));
          if (join(await new Blob([s], { endings: 'native' }).arrayBuffer()) !== native) bad.push(name + ' native');
          if (join(await Response.json(s).arrayBuffer()) !== oracle(JSON.stringify(s))) bad.push(name + ' json');
          const ts = new TextEncoderStream();
          const w = ts.writable.getWriter();
          w.write(s); w.close();
          const parts = [];
          const r = ts.readable.getReader();
          for (;;) { const { value, done } = await r.read(); if (done) break; parts.push(...value); }
          // A lone high surrogate at the end of the one chunk is U+FFFD at the flush.
          if (parts.join(',') !== want) bad.push(name + ' stream');
        }
        return bad.length + ' bad' + (bad.length ? ': ' + bad.join() : '');
        ",
        "0 bad",
    )]);
}
