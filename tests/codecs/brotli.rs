//! The "brotli" format of CompressionStream and DecompressionStream, driven from script: round
//! trips, a stream split at every byte, and the errors (corrupt, truncated, trailing data).

use crate::support::script::{Fixture, TestAction, BYTE_HELPERS};

/// What the scripts share besides [`BYTE_HELPERS`]: `text` (bytes back to a string),
/// `attempt` (writes chunks to a transform and reads everything back), `compress`,
/// `decompress` and `reference`.
const PRELUDE: &str = r#"
globalThis.text = (bytes) => String.fromCharCode(...bytes);
// Writes the chunks to a new transform and reads everything back: 'ok <output chunk
// lengths>' and the output, or '<error name> [after <lengths>]'. Output chunks must be
// non-empty Uint8Arrays.
globalThis.attempt = async (ts, chunks) => {
  const writer = ts.writable.getWriter();
  for (const c of chunks) writer.write(c).catch(() => {});
  writer.close().catch(() => {});
  const reader = ts.readable.getReader();
  const out = [];
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      if (!(value instanceof Uint8Array) || value.length === 0) return { result: 'bad chunk ' + value, out: concat(out) };
      out.push(value);
    }
  } catch (e) {
    const lengths = out.map(a => a.length).join(',');
    return { result: e.constructor.name + (out.length ? ' after ' + lengths : ''), out: concat(out) };
  }
  return { result: 'ok', out: concat(out) };
};
globalThis.compress = async (chunks) => {
  const { result, out } = await attempt(new CompressionStream('brotli'), chunks);
  if (result !== 'ok') throw new Error('compression: ' + result);
  return out;
};
globalThis.decompress = (chunks) => attempt(new DecompressionStream('brotli'), chunks);
// 'expected output', compressed by the reference encoder (from the WPT).
globalThis.reference = new Uint8Array([
  0x21, 0x38, 0x00, 0x04, 0x65, 0x78, 0x70, 0x65, 0x63, 0x74, 0x65, 0x64, 0x20, 0x6F,
  0x75, 0x74, 0x70, 0x75, 0x74, 0x03]);
"#;

fn fixture() -> Fixture {
    Fixture::streams().with(BYTE_HELPERS).with(PRELUDE)
}

#[test]
fn round_trips_large_and_uneven_input() {
    fixture().run([
        TestAction::assert_async(
            "const data = new Uint8Array(1 << 20);
             let x = 7;
             for (let i = 0; i < data.length; i++) { x = (x * 1103515245 + 12345) >>> 0; data[i] = i % 3000 < 1000 ? (x >>> 24) : i % 61; }
             const pieces = [];
             for (let i = 0, n = 1; i < data.length; i += n, n = n * 5 % 100003) pieces.push(data.subarray(i, i + n));
             pieces.splice(3, 0, new Uint8Array(0));
             const compressed = await compress(pieces);
             const split = [];
             for (let i = 0; i < compressed.length; i += 1000) split.push(compressed.slice(i, i + 1000));
             const { result, out } = await decompress(split);
             if (result !== 'ok') return result;
             if (out.length !== data.length) return 'length ' + out.length;
             for (let i = 0; i < data.length; i++) if (out[i] !== data[i]) return 'differs at ' + i;
             return 'ok ' + (compressed.length < data.length / 2);",
            "ok true",
        ),
    ]);
}

#[test]
fn the_reference_stream_and_our_own_decode_when_split_at_every_byte() {
    fixture().run([
        // Also with a byte after the end: the decoder may hold a partial tail of the first piece
        // in its own buffer and must still say where the stream ended in the second.
        TestAction::assert_async(
            "const ours = await compress([ascii('hello, '), ascii('brotli '), ascii('hello, brotli')]);
             const cases = [[reference, 'expected output'], [ours, 'hello, brotli hello, brotli']];
             const results = [];
             for (const [stream, expected] of cases) {
               for (let i = 0; i <= stream.length; i++) {
                 const { result, out } = await decompress([stream.subarray(0, i), stream.subarray(i)]);
                 if (result !== 'ok' || text(out) !== expected) return `split at ${i}: ${result} ${text(out)}`;
                 // A byte after the end, in the second piece: all the output, then a TypeError.
                 const extra = await decompress([stream.subarray(0, i), concat([stream.subarray(i), new Uint8Array([0])])]);
                 if (!extra.result.startsWith('TypeError') || text(extra.out) !== expected) {
                   return `split at ${i} with a byte after the end: ${extra.result} ${text(extra.out)}`;
                 }
               }
               // And a byte at a time.
               const { result, out } = await decompress(Array.from(stream, b => new Uint8Array([b])));
               results.push(result + ' ' + text(out));
             }
             return results.join(' | ');",
            "ok expected output | ok hello, brotli hello, brotli",
        ),
    ]);
}

#[test]
fn empty_streams() {
    fixture().run([TestAction::assert_async(
        "const nothing = await compress([]);
             const emptyChunk = await compress([new Uint8Array(0)]);
             return JSON.stringify([
               nothing.length > 0 && nothing.length === emptyChunk.length,
               (await decompress([nothing])).result,
               // The WPT's empty stream, and no input at all (not a stream).
               (await decompress([new Uint8Array([0xa1, 0x01])])).result,
               (await decompress([])).result,
             ]);",
        r#"[true,"ok","ok","TypeError"]"#,
    )]);
}

#[test]
fn truncated_streams_give_what_was_decoded_then_a_type_error() {
    fixture().run([
        // The stored (uncompressed) meta-block gives its bytes as they come.
        TestAction::assert_async(
            "const results = [];
             for (let i = 0; i < reference.length; i++) {
               const { result, out } = await decompress([reference.subarray(0, i)]);
               if (!result.startsWith('TypeError')) return `prefix of ${i}: ${result}`;
               if (!'expected output'.startsWith(text(out))) return `prefix of ${i}: ${text(out)}`;
               results.push(out.length);
             }
             return results.join(',');",
            "0,0,0,0,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15",
        ),
    ]);
}

#[test]
fn data_after_the_end_is_a_type_error_after_the_output() {
    fixture().run([TestAction::assert_async(
        "const results = [];
             for (const chunks of [
               [concat([reference, new Uint8Array([0])])],
               [reference, new Uint8Array([1, 2])],
               // The first 10 bytes: the 4-byte header and 6 stored bytes; the rest, then another
               // whole stream.
               [reference.subarray(0, 10), concat([reference.subarray(10), reference])],
               [reference, new Uint8Array(0)],
             ]) {
               const { result, out } = await decompress(chunks);
               results.push(result + ' ' + text(out));
             }
             return results.join(' | ');",
        "TypeError after 15 expected output | TypeError after 15 expected output | \
             TypeError after 6,9 expected output | ok expected output",
    )]);
}

#[test]
fn corrupt_streams_are_type_errors() {
    fixture().run([TestAction::assert_async(
        "const results = [];
             for (const input of [
               // WBITS 0010001: reserved in RFC 7932 (the non-standard \"large window\" marker).
               new Uint8Array([0x11, 0x00, 0x00]),
               // Non-zero padding bits after the last meta-block.
               Uint8Array.from(reference, (b, i) => i === reference.length - 1 ? b | 0x80 : b),
               // A meta-block length that the stored data does not match: an invalid header.
               new Uint8Array([0xff, 0xff, 0xff, 0xff, 0xff, 0xff]),
             ]) {
               results.push((await decompress([input])).result);
             }
             // Every one-bit change of a compressed stream either still decodes or is a TypeError.
             const stream = await compress([ascii('hello hello hello, brotli brotli brotli')]);
             const outcomes = new Set();
             for (let i = 0; i < stream.length; i++) {
               for (let bit = 0; bit < 8; bit++) {
                 const changed = stream.slice();
                 changed[i] ^= 1 << bit;
                 const { result } = await decompress([changed]);
                 outcomes.add(result === 'ok' ? 'ok' : result.split(' ')[0]);
               }
             }
             results.push([...outcomes].sort().join('/'));
             return results.join(' ');",
        "TypeError TypeError TypeError TypeError/ok",
    )]);
}

#[test]
fn compressed_output_is_complete_only_at_close() {
    fixture().run([
        // Small chunks give no output until close: the encoder keeps them until it has a block,
        // and no empty chunk is enqueued meanwhile.
        TestAction::assert_async(
            "const cs = new CompressionStream('brotli');
             const writer = cs.writable.getWriter();
             const reader = cs.readable.getReader();
             const reads = [];
             const readAll = (async () => {
               for (;;) { const { value, done } = await reader.read(); if (done) return; reads.push(value.length); }
             })();
             for (let i = 0; i < 10; i++) await writer.write(ascii('chunk ' + i));
             const before = reads.length;
             await writer.close();
             await readAll;
             return before + ' ' + (reads.length > 0 && reads.every(n => n > 0));",
            "0 true",
        ),
    ]);
}
