// Byte paths, the same program on every runtime (issue 33): the shapes where few or no JS
// callbacks run per byte. Prints one line per shape: `name ns_per_chunk floor_ns_per_chunk`
// (median of 3 timed runs after a warm-up; the floor is the same bytes made and copied, or
// decoded, without a stream, on the same runtime, `-` where there is none). Runs as a classic
// script (no modules, no top-level await) so that every runtime takes it as is.
const KiB = 1024;
const CHUNK = 64 * KiB;

function pullSource(n) {
  let i = 0;
  return new ReadableStream({
    pull(c) {
      if (i++ < n) c.enqueue(new Uint8Array(CHUNK));
      else c.close();
    },
  });
}

function byteSource(n) {
  let i = 0;
  return new ReadableStream({
    type: 'bytes',
    autoAllocateChunkSize: CHUNK,
    pull(c) {
      if (i++ < n) {
        const r = c.byobRequest;
        r.respond(r.view.byteLength);
      } else {
        c.close();
        if (c.byobRequest) c.byobRequest.respond(0);
      }
    },
  });
}

// 64 KiB of text that compresses the way prose does (about 3:1): a vocabulary of 4,000
// pseudo-words made of syllables, drawn with a skew by a fixed LCG, some with accents.
const VOCAB = (() => {
  const syl = ['ka', 'lo', 'mi', 'ne', 'ru', 'sa', 'te', 'vi', 'do', 'pe', 'qu', 'an', 'or',
    'is', 'ul', 'é', 'ü', 'str', 'ch', 'ght', 'io', 'be', 'ze', 'fa'];
  let s = 7;
  const words = [];
  for (let i = 0; i < 4000; i++) {
    let w = '';
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    const n = 1 + ((s >>> 16) % 4);
    for (let j = 0; j < n; j++) {
      s = (Math.imul(s, 1103515245) + 12345) >>> 0;
      w += syl[(s >>> 16) % syl.length];
    }
    words.push(w);
  }
  return words;
})();

function textChunk(seed) {
  let s = seed >>> 0;
  let out = '';
  while (out.length < CHUNK) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    const r = (s >>> 8) / 16777216;
    out += VOCAB[Math.floor(VOCAB.length * r * r * r)] + ((s & 15) === 0 ? '.\n' : ' ');
  }
  return new TextEncoder().encode(out).subarray(0, CHUNK);
}

const TEXT = [textChunk(1), textChunk(2), textChunk(3), textChunk(4)];

function listSource(n, chunkAt) {
  let i = 0;
  return new ReadableStream({
    pull(c) {
      if (i < n) c.enqueue(chunkAt(i++));
      else c.close();
    },
  });
}

async function drain(rs) {
  const reader = rs.getReader();
  let n = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return n;
    n += value.length;
  }
}

// The floor of the two body shapes: the same chunks made and copied into one buffer, no stream.
async function concatFloor() {
  const out = new Uint8Array(16 * CHUNK);
  for (let i = 0; i < 16; i++) out.set(new Uint8Array(CHUNK), i * CHUNK);
  const b = out.buffer;
  if (b.byteLength !== 16 * CHUNK) throw new Error('length');
}

const shapes = {
  // workerd #5838's "Large": 16 x 64 KiB through Response.arrayBuffer().
  'response-arraybuffer': { chunks: 16, bodies: 40, async run() {
    const b = await new Response(pullSource(16)).arrayBuffer();
    if (b.byteLength !== 16 * CHUNK) throw new Error('length');
  }, floor: concatFloor },
  'response-arraybuffer-bytes': { chunks: 16, bodies: 40, async run() {
    const b = await new Response(byteSource(16)).arrayBuffer();
    if (b.byteLength !== 16 * CHUNK) throw new Error('length');
  }, floor: concatFloor },
  'gzip-roundtrip': { chunks: 16, bodies: 4, async run() {
    const out = listSource(16, (i) => TEXT[i & 3])
      .pipeThrough(new CompressionStream('gzip'))
      .pipeThrough(new DecompressionStream('gzip'));
    const n = await drain(out);
    if (n !== 16 * CHUNK) throw new Error('length ' + n);
  } },
  'text-decoder-stream': { chunks: 16, bodies: 8, async run() {
    const out = listSource(16, (i) => TEXT[i & 3]).pipeThrough(new TextDecoderStream());
    const reader = out.getReader();
    let n = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      n += value.length;
    }
    if (n < 16 * 60000) throw new Error('length ' + n);
  }, async floor() {
    const decoder = new TextDecoder();
    let n = 0;
    for (let i = 0; i < 16; i++) n += decoder.decode(TEXT[i & 3], { stream: true }).length;
    n += decoder.decode().length;
    if (n < 16 * 60000) throw new Error('length ' + n);
  } },
  // A Blob's stream, read to the end.
  'blob-stream': { chunks: 16, bodies: 40, async run() {
    const n = await drain(BLOB.stream());
    if (n !== 16 * CHUNK) throw new Error('length ' + n);
  } },
  // A text body, read with text().
  'response-text': { chunks: 16, bodies: 8, async run() {
    const t = await new Response(listSource(16, (i) => TEXT[i & 3])).text();
    if (t.length < 16 * 60000) throw new Error('length ' + t.length);
  } },
  // 64 Ki-character strings through TextEncoderStream.
  'text-encoder-stream': { chunks: 16, bodies: 8, async run() {
    const n = await drain(listSource(16, (i) => STRINGS[i & 3]).pipeThrough(new TextEncoderStream()));
    if (n < 16 * CHUNK) throw new Error('length ' + n);
  }, async floor() {
    const encoder = new TextEncoder();
    let n = 0;
    for (let i = 0; i < 16; i++) n += encoder.encode(STRINGS[i & 3]).length;
    if (n < 16 * CHUNK) throw new Error('length ' + n);
  } },
  // Both branches of a tee, read in turn.
  'tee': { chunks: 16, bodies: 40, async run() {
    const [a, b] = pullSource(16).tee();
    const [x, y] = await Promise.all([drain(a), drain(b)]);
    if (x + y !== 32 * CHUNK) throw new Error('length');
  } },
};

// workerd #5838's matrix: Tiny 64 B x 256, Small 256 B x 100, Medium 4 KiB x 100 and Large
// 64 KiB x 16, each from five kinds of source, read by Response.arrayBuffer(). `value-hwm0` and
// `value-hwm16k`: a value stream whose pull enqueues one fresh Uint8Array, with a
// ByteLengthQueuingStrategy of high-water mark 0 or 16 KiB; `byte`: the same as a byte stream;
// `auto`: a byte stream with autoAllocateChunkSize, its pull responding to the BYOB request;
// `microtask`: a value stream whose pull enqueues its chunk one microtask later.
const MATRIX = { tiny: [64, 256], small: [256, 100], medium: [4 * KiB, 100], large: [CHUNK, 16] };
const MATRIX_SOURCES = {
  'value-hwm0': (size, count) => {
    let i = 0;
    return new ReadableStream({
      pull(c) {
        c.enqueue(new Uint8Array(size));
        if (++i === count) c.close();
      },
    }, new ByteLengthQueuingStrategy({ highWaterMark: 0 }));
  },
  'value-hwm16k': (size, count) => {
    let i = 0;
    return new ReadableStream({
      pull(c) {
        c.enqueue(new Uint8Array(size));
        if (++i === count) c.close();
      },
    }, new ByteLengthQueuingStrategy({ highWaterMark: 16 * KiB }));
  },
  byte: (size, count) => {
    let i = 0;
    return new ReadableStream({
      type: 'bytes',
      pull(c) {
        c.enqueue(new Uint8Array(size));
        if (++i === count) c.close();
      },
    });
  },
  auto: (size, count) => {
    let i = 0;
    return new ReadableStream({
      type: 'bytes',
      autoAllocateChunkSize: size,
      pull(c) {
        const r = c.byobRequest;
        r.respond(Math.min(size, r.view.byteLength));
        if (++i === count) c.close();
      },
    });
  },
  microtask: (size, count) => {
    let i = 0;
    return new ReadableStream({
      pull(c) {
        return Promise.resolve().then(() => {
          c.enqueue(new Uint8Array(size));
          if (++i === count) c.close();
        });
      },
    });
  },
};
for (const [sizeName, [size, count]] of Object.entries(MATRIX)) {
  for (const [kind, make] of Object.entries(MATRIX_SOURCES)) {
    shapes['matrix-' + sizeName + '-' + kind] = {
      chunks: count,
      bodies: Math.max(4, Math.round((40 * 16 * CHUNK) / (size * count) / 8)),
      async run() {
        const b = await new Response(make(size, count)).arrayBuffer();
        if (b.byteLength !== size * count) throw new Error('length ' + b.byteLength);
      },
    };
  }
}

// Bun's webstreams-throughput shapes: 512 x 64 KiB (32 MiB a pass, as Deno's) through each way
// of reading a stream.
const TPUT = 512;
async function tputByob() {
  const reader = byteSource(TPUT).getReader({ mode: 'byob' });
  let buffer = new ArrayBuffer(CHUNK);
  let n = 0;
  for (;;) {
    const { done, value } = await reader.read(new Uint8Array(buffer));
    if (done) break;
    n += value.byteLength;
    buffer = value.buffer;
  }
  if (n !== TPUT * CHUNK) throw new Error('length ' + n);
}
function countingSink() {
  const sink = { n: 0 };
  sink.stream = new WritableStream({ write(c) { sink.n += c.byteLength; } });
  return sink;
}
Object.assign(shapes, {
  'tput-read': { chunks: TPUT, bodies: 2, async run() {
    const n = await drain(pullSource(TPUT));
    if (n !== TPUT * CHUNK) throw new Error('length ' + n);
  } },
  'tput-for-await': { chunks: TPUT, bodies: 2, async run() {
    let n = 0;
    // Async iteration of a stream, where the runtime has it (all of ours do).
    for await (const c of pullSource(TPUT)) n += c.byteLength;
    if (n !== TPUT * CHUNK) throw new Error('length ' + n);
  } },
  'tput-pipeto': { chunks: TPUT, bodies: 2, async run() {
    const sink = countingSink();
    await pullSource(TPUT).pipeTo(sink.stream);
    if (sink.n !== TPUT * CHUNK) throw new Error('length ' + sink.n);
  } },
  'tput-pipethrough': { chunks: TPUT, bodies: 2, async run() {
    const sink = countingSink();
    await pullSource(TPUT).pipeThrough(new TransformStream()).pipeTo(sink.stream);
    if (sink.n !== TPUT * CHUNK) throw new Error('length ' + sink.n);
  } },
  'tput-tee': { chunks: TPUT, bodies: 2, async run() {
    const [a, b] = pullSource(TPUT).tee();
    const [x, y] = await Promise.all([drain(a), drain(b)]);
    if (x + y !== 2 * TPUT * CHUNK) throw new Error('length');
  } },
  'tput-arraybuffer': { chunks: TPUT, bodies: 2, async run() {
    const b = await new Response(pullSource(TPUT)).arrayBuffer();
    if (b.byteLength !== TPUT * CHUNK) throw new Error('length');
  } },
  'tput-bytes-default': { chunks: TPUT, bodies: 2, async run() {
    const n = await drain(byteSource(TPUT));
    if (n !== TPUT * CHUNK) throw new Error('length ' + n);
  } },
  'tput-bytes-byob': { chunks: TPUT, bodies: 2, run: tputByob },
  'tput-text': { chunks: TPUT, bodies: 2, async run() {
    const t = await new Response(listSource(TPUT, (i) => TEXT[i & 3])).text();
    if (t.length < TPUT * 60000) throw new Error('length ' + t.length);
  } },
  // deflate (zlib) both ways, as gzip-roundtrip.
  'deflate-roundtrip': { chunks: 16, bodies: 4, async run() {
    const out = listSource(16, (i) => TEXT[i & 3])
      .pipeThrough(new CompressionStream('deflate'))
      .pipeThrough(new DecompressionStream('deflate'));
    const n = await drain(out);
    if (n !== 16 * CHUNK) throw new Error('length ' + n);
  } },
  // A 1 MiB JSON body in 16 chunks, read with json().
  'response-json': { chunks: 16, bodies: 8, async run() {
    const v = await new Response(listSource(16, (i) => JSON_CHUNKS[i])).json();
    if (v.length !== JSON_ROWS) throw new Error('rows ' + v.length);
  }, async floor() {
    let text = '';
    const decoder = new TextDecoder();
    for (let i = 0; i < 16; i++) text += decoder.decode(JSON_CHUNKS[i], { stream: true });
    const v = JSON.parse(text + decoder.decode());
    if (v.length !== JSON_ROWS) throw new Error('rows ' + v.length);
  } },
});

// 1 MiB of JSON (an array of small records), cut into 16 chunks of 64 KiB.
const JSON_ROWS = (() => {
  let rows = 0;
  let size = 2;
  while (size < 16 * CHUNK - 200) {
    size += JSON.stringify({ id: rows, name: 'row ' + rows, score: rows * 0.5, ok: rows % 3 === 0 }).length + 1;
    rows++;
  }
  return rows - 1;
})();
const JSON_CHUNKS = (() => {
  const rows = [];
  for (let i = 0; i < JSON_ROWS; i++) rows.push({ id: i, name: 'row ' + i, score: i * 0.5, ok: i % 3 === 0 });
  const bytes = new TextEncoder().encode(JSON.stringify(rows));
  const padded = new Uint8Array(16 * CHUNK).fill(0x20);
  padded.set(bytes);
  return Array.from({ length: 16 }, (_, i) => padded.subarray(i * CHUNK, (i + 1) * CHUNK));
})();

const BLOB = new Blob(Array.from({ length: 16 }, (_, i) => TEXT[i & 3]));
const STRINGS = TEXT.map((t) => new TextDecoder().decode(t).slice(0, CHUNK));

async function time(shape, run) {
  const t0 = performance.now();
  for (let i = 0; i < shape.bodies; i++) await run();
  return ((performance.now() - t0) * 1e6) / (shape.bodies * shape.chunks);
}

async function median(shape, run) {
  await time(shape, run);
  const runs = [await time(shape, run), await time(shape, run), await time(shape, run)];
  return Math.round(runs.sort((a, b) => a - b)[1]);
}

async function main() {
  const only = typeof globalThis.BENCH_ONLY === 'string' ? globalThis.BENCH_ONLY : null;
  for (const [name, shape] of Object.entries(shapes)) {
    if (only && name !== only) continue;
    const ns = await median(shape, shape.run);
    const floor = shape.floor ? await median(shape, shape.floor) : '-';
    console.log(name + ' ' + ns + ' ' + floor);
  }
}

main().catch((e) => {
  console.log('error ' + e);
  throw e;
});
