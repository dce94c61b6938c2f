// The structured_clone fuzz target's harness (fuzz/clone_check.rs puts the generated program
// after it). The program fills `n` with a value graph (`build`), names the value to send
// (`root`), the transfer list (`T`) and how to send it (`ROUTE`: 0 structuredClone(), 1 a
// MessageChannel in this agent, 2 an agent on another thread that posts it back). `PURE` is
// true when nothing in the graph runs script during serialization (no getter): then a clone
// that succeeds must describe as the original did before it was sent, and only a
// "DataCloneError" DOMException may end a clone that fails. Findings go to
// `globalThis.__clone.mismatches`, which the Rust side reads.
'use strict';
// `done`: the value arrived or the send failed; `pending`: reads and writes of transferred
// streams not yet settled. The Rust side stops the event loop once both are over.
const __clone = (globalThis.__clone = { mismatches: [], done: false, pending: 0 });
const n = [];
let root;
let T = [];
let PURE = true;
let ROUTE = 0;
const mismatch = (what) => {
  __clone.mismatches.push(String(what).slice(0, 4000));
};
const getter = (proto, name) => Object.getOwnPropertyDescriptor(proto, name).get;
const brand = (f, v) => {
  try {
    return { value: f.call(v) };
  } catch {
    return null;
  }
};
const units = (s) => {
  let out = '';
  for (let i = 0; i < s.length; i++) out += s.charCodeAt(i).toString(16) + '.';
  return out;
};
const abLength = getter(ArrayBuffer.prototype, 'byteLength');
const TypedArray = Object.getPrototypeOf(Int8Array.prototype);
const taTag = getter(TypedArray, Symbol.toStringTag);
const taBuffer = getter(TypedArray, 'buffer');
const taOffset = getter(TypedArray, 'byteOffset');
const taLength = getter(TypedArray, 'length');
const dvBuffer = getter(DataView.prototype, 'buffer');
const dvOffset = getter(DataView.prototype, 'byteOffset');
const dvLength = getter(DataView.prototype, 'byteLength');
const mapSize = getter(Map.prototype, 'size');
const setSize = getter(Set.prototype, 'size');
const reSource = getter(RegExp.prototype, 'source');
const deName = getter(DOMException.prototype, 'name');
const deMessage = getter(DOMException.prototype, 'message');
const blobSize = getter(Blob.prototype, 'size');
const blobType = getter(Blob.prototype, 'type');
const fileName = getter(File.prototype, 'name');
const ERROR_NAMES = ['Error', 'EvalError', 'RangeError', 'ReferenceError', 'SyntaxError',
  'TypeError', 'URIError'];
const isStream = (v) =>
  v instanceof ReadableStream || v instanceof WritableStream || v instanceof TransformStream;

// A description of a value graph that a faithful clone shares: the kind and contents of every
// object as serialization sees them, with object identity (cycles, shared objects) as the order
// of first visits. Streams met are listed in `streams`, in visit order.
function describe(rootValue) {
  const ids = new Map();
  const streams = [];
  const walk = (v) => {
    if (v === null) return 'null';
    switch (typeof v) {
      case 'undefined': return 'u';
      case 'boolean': return 'B' + v;
      case 'number': return Object.is(v, -0) ? 'N-0' : 'N' + v;
      case 'bigint': return 'I' + v;
      case 'string': return 'S' + units(v);
      case 'symbol': return 'Y';
      default: break;
    }
    if (ids.has(v)) return '#' + ids.get(v);
    ids.set(v, ids.size);
    if (typeof v === 'function') return 'F';
    let r;
    if (Array.isArray(v)) {
      return 'A' + v.length + '{' + Object.keys(v).map((k) => units(k) + '=' + walk(v[k])).join(',') + '}';
    }
    if ((r = brand(abLength, v))) {
      let bytes;
      try {
        bytes = new Uint8Array(v).join(',');
      } catch {
        bytes = 'detached';
      }
      return 'AB' + r.value + ':' + bytes;
    }
    if ((r = brand(taTag, v)) && r.value !== undefined) {
      const b = walk(taBuffer.call(v));
      return r.value + '(' + b + ',' + taOffset.call(v) + ',' + taLength.call(v) + ')';
    }
    if ((r = brand(dvBuffer, v))) {
      return 'DV(' + walk(r.value) + ',' + dvOffset.call(v) + ',' + dvLength.call(v) + ')';
    }
    if (brand(mapSize, v)) {
      const parts = [];
      for (const [a, b] of Map.prototype.entries.call(v)) parts.push(walk(a) + '=>' + walk(b));
      return 'M{' + parts.join(',') + '}';
    }
    if (brand(setSize, v)) {
      const parts = [];
      for (const a of Set.prototype.values.call(v)) parts.push(walk(a));
      return 'St{' + parts.join(',') + '}';
    }
    if ((r = brand(Date.prototype.getTime, v))) return 'D' + r.value;
    if ((r = brand(reSource, v))) return 'R' + units(r.value) + '/' + v.flags;
    if ((r = brand(Boolean.prototype.valueOf, v))) return 'BO' + r.value;
    if ((r = brand(Number.prototype.valueOf, v))) return 'NO' + (Object.is(r.value, -0) ? '-0' : r.value);
    if ((r = brand(String.prototype.valueOf, v))) return 'SO' + units(r.value);
    if ((r = brand(BigInt.prototype.valueOf, v))) return 'IO' + r.value;
    if ((r = brand(deName, v))) return 'DE' + units(r.value) + ':' + units(deMessage.call(v));
    if ((r = brand(fileName, v))) {
      return 'FI' + units(r.value) + ':' + units(blobType.call(v)) + ':' + blobSize.call(v) + ':' + v.lastModified;
    }
    if ((r = brand(blobSize, v))) return 'BL' + r.value + ':' + units(blobType.call(v));
    if (v instanceof MessagePort) return 'P';
    if (isStream(v)) {
      streams.push(v);
      return 'STR' + v.constructor.name;
    }
    if (Object.prototype.toString.call(v) === '[object Error]') {
      const name = v.name;
      const d = Object.getOwnPropertyDescriptor(v, 'message');
      const message = d && 'value' in d ? units(String(d.value)) : '-';
      return 'E' + (ERROR_NAMES.includes(name) ? name : 'Error') + ':' + message;
    }
    return 'O{' + Object.keys(v).map((k) => units(k) + '=' + walk(v[k])).join(',') + '}';
  };
  const text = walk(rootValue);
  return { text, streams };
}

// Builders, each checking its arguments so that any generated program builds something.
const PRIMS = [undefined, null, true, false, 0, -0, 1, -1, 1.5, NaN, Infinity, -Infinity,
  2 ** 53, 2 ** 31, -(2 ** 31), 5e-324, 1.7976931348623157e308, 0n, -1n, 2n ** 64n,
  -(2n ** 100n), '', 'a', '\ud800', '\udc00x', '\u0000', '__proto__', '\u00e9\ud83d\ude00',
  'x'.repeat(300)];
const KEYS = ['a', 'b', 'c', '0', '1', '2', '10', 'length', '__proto__', 'constructor', '-0',
  '4294967294', '4294967295', '\ud800', '', 'then', 'message', 'name'];
const VIEWS = ['Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array',
  'Int32Array', 'Uint32Array', 'Float32Array', 'Float64Array', 'BigInt64Array',
  'BigUint64Array', 'Float16Array', 'DataView'];
const ERRORS = ['Error', 'EvalError', 'RangeError', 'ReferenceError', 'SyntaxError', 'TypeError',
  'URIError', 'AggregateError'];
const NAMES = ['AbortError', 'DataCloneError', 'NotFoundError', 'Foo', '', 'TypeError',
  'InvalidStateError'];
const SOURCES = ['a', '', '[\\ud800]', '(?:)', '\\/', 'a|b', '^$', '\\u{1F600}', '.'];
const FLAGS = ['', 'g', 'i', 'm', 's', 'u', 'y', 'd', 'gimsuyd', 'v'];
const DATES = [0, NaN, -0, 8.64e15, -8.64e15, 1.5, 1e12];
const controllers = new Map();
// Readables closed before the transfer: the pipe that holds a transferred stream's lock ends
// as soon as it reads the close, and releases the lock then (ReadableStreamPipeTo's finalize),
// so such a stream may be unlocked again by the time the copy arrives.
const closedBeforeTransfer = new Set();
// The descriptions of the chunks each generated ReadableStream holds, '|'-joined.
const readChunks = new Map();
const ab = (bytes) => new Uint8Array(bytes).buffer;
const view = (k, b, off, len) => {
  const C = globalThis[VIEWS[k % VIEWS.length]] || Uint8Array;
  const buffer = brand(abLength, b) ? b : new ArrayBuffer(16);
  const size = C === DataView ? 1 : C.BYTES_PER_ELEMENT;
  const total = abLength.call(buffer);
  let offset = Math.min(off, total);
  offset -= offset % size;
  const length = Math.min(len, Math.floor((total - offset) / size));
  return new C(buffer, offset, length);
};
const error = (k, m, name) => {
  const C = globalThis[ERRORS[k % ERRORS.length]] || Error;
  const e = C === globalThis.AggregateError ? new C([], PRIMS[m]) : m === 0 ? new C() : new C(PRIMS[m]);
  if (name !== undefined) e.name = name;
  return e;
};
const readable = (i) =>
  new ReadableStream({
    start(c) {
      controllers.set(i, c);
    },
  });
const writable = () => {
  const chunks = [];
  return new WritableStream({
    write(chunk) {
      chunks.push(describe(chunk).text);
    },
    close() {
      // What drain() wrote into the transferred stream, arrived here.
      if (PURE && chunks.join('|') !== EXPECTED_WRITE) mismatch('written: ' + chunks.join('|'));
      __clone.pending--;
    },
  });
};
const enqueue = (i, js) => {
  const c = controllers.get(i);
  if (!c) return;
  if (PURE) readChunks.set(i, js.map((j) => describe(n[j]).text).join('|'));
  for (const j of js) c.enqueue(n[j]);
  c.close();
  closedBeforeTransfer.add(n[i]);
};
const set = (i, k, j) => {
  const o = n[i];
  const key = KEYS[k % KEYS.length];
  // An array's length set to an object converts it to a number, which joins it when it is an
  // array: on Boa 0.22, joining an array of length near 2 ** 32 aborts the process
  // (ENGINE_BUGS.md 9), and the conversion tells nothing about the clone.
  if (Array.isArray(o) && key === 'length' && Object(n[j]) === n[j]) return;
  try {
    if (o instanceof Map) o.set(n[k % n.length], n[j]);
    else if (o instanceof Set) o.add(n[j]);
    else Object.defineProperty(o, key, { value: n[j], enumerable: true, writable: true, configurable: true });
  } catch {}
};
// A getter that runs script while the graph is serialized (PURE becomes false).
const EFFECTS = [
  () => { throw new Error('fuzz getter'); },
  (x) => { try { structuredClone(n[x], { transfer: [n[x]] }); } catch {} },
  (x) => { try { n[x].close(); } catch {} },
  (x) => { try { for (const k of Object.keys(n[x])) delete n[x][k]; } catch {} },
  (x) => { try { n[x].extra = n[x]; n[x][7] = 1; } catch {} },
  () => { try { structuredClone(root, { transfer: T }); } catch {} },
  (x) => { try { new MessageChannel().port1.postMessage(n[x], [n[x]]); } catch {} },
  (x) => { try { n[x].getReader(); } catch {} },
  (x) => { try { n[x].transfer(); } catch {} },
];
const get = (i, k, j, e, x) => {
  PURE = false;
  try {
    let ran = false;
    Object.defineProperty(n[i], KEYS[k % KEYS.length], {
      get() {
        if (!ran) {
          ran = true;
          EFFECTS[e % EFFECTS.length](x % n.length);
        }
        return n[j];
      },
      enumerable: true,
      configurable: true,
    });
  } catch {}
};

// After the graph arrived: reads what the transferred streams carry, and checks it.
function drain(original, clone, label) {
  for (let s = 0; s < clone.streams.length; s++) {
    const sent = original.streams[s];
    const got = clone.streams[s];
    const index = n.indexOf(sent);
    if (got instanceof ReadableStream) {
      const expected = readChunks.get(index);
      const seen = [];
      const reader = got.getReader();
      __clone.pending++;
      const step = () =>
        reader.read().then(({ value, done }) => {
          if (done) {
            if (PURE && expected && seen.join('|') !== expected) {
              mismatch(label + ' stream ' + s + ' chunks: ' + expected + ' != ' + seen.join('|'));
            }
            return;
          }
          seen.push(describe(value).text);
          return step();
        });
      step()
        .catch(() => {})
        .then(() => __clone.pending--);
    } else if (got instanceof WritableStream) {
      // Settled when the original's sink closes (writable() above), or the close fails.
      __clone.pending++;
      const w = got.getWriter();
      w.write([1, 'a', { x: [1n] }]).catch(() => {});
      w.close().catch(() => __clone.pending--);
    } else if (got instanceof TransformStream) {
      __clone.pending++;
      const w = got.writable.getWriter();
      w.write(new Map([[1, 2]])).catch(() => {});
      w.close().catch(() => {});
      got.readable
        .getReader()
        .read()
        .then(({ value }) => {
          if (PURE && describe(value).text !== 'M{N1=>N2}') mismatch(label + ' transformed');
        }, () => {})
        .then(() => __clone.pending--);
    }
  }
}
const EXPECTED_WRITE = describe([1, 'a', { x: [1n] }]).text;

function run() {
  try {
    build();
  } catch {
    // A builder the engine refused (a regexp flag it lacks, ...): nothing to send.
    if (ROUTE === 2) globalThis.agentPort.close();
    __clone.done = true;
    return;
  }
  let before = null;
  if (PURE) {
    try {
      before = describe(root);
    } catch {
      // Not a graph this harness can describe: no round trip to compare.
      PURE = false;
    }
  }
  const buffers = T.filter((t) => brand(abLength, t));
  const streams = T.filter(isStream);
  const arrived = (value, label) => {
    if (!PURE) {
      try {
        drain({ streams: [] }, describe(value), label);
      } catch {}
      return;
    }
    const after = describe(value);
    if (after.text !== before.text) mismatch(label + ': ' + before.text + ' != ' + after.text);
    for (const b of buffers) {
      if (abLength.call(b) !== 0) mismatch(label + ': a transferred ArrayBuffer is not detached');
    }
    for (const s of streams) {
      const locked = s instanceof TransformStream ? s.readable.locked && s.writable.locked : s.locked;
      if (!locked && !closedBeforeTransfer.has(s)) mismatch(label + ': a transferred stream is not locked');
    }
    drain(before, after, label);
  };
  // WebIDL's conversion of the transfer list (sequence<object>) throws a TypeError for a
  // primitive in it, before serialization; serialization throws only "DataCloneError".
  const primitiveInT = T.some((t) => t === null || (typeof t !== 'object' && typeof t !== 'function'));
  const failed = (err, label) => {
    const expected = err instanceof DOMException && err.name === 'DataCloneError';
    if (PURE && !expected && !(primitiveInT && err instanceof TypeError)) {
      mismatch(label + ' threw ' + String(err));
    }
  };
  if (ROUTE === 0) {
    let value;
    try {
      value = structuredClone(root, { transfer: T });
    } catch (err) {
      failed(err, 'structuredClone');
      __clone.done = true;
      return;
    }
    arrived(value, 'structuredClone');
    __clone.done = true;
  } else if (ROUTE === 1) {
    const { port1, port2 } = new MessageChannel();
    port2.onmessage = (e) => {
      arrived(e.data, 'MessageChannel');
      port2.close();
      __clone.done = true;
    };
    port2.onmessageerror = () => {
      if (PURE) mismatch('MessageChannel: messageerror');
      port2.close();
      __clone.done = true;
    };
    try {
      port1.postMessage(root, T);
    } catch (err) {
      failed(err, 'MessageChannel');
      port2.close();
      __clone.done = true;
    }
  } else {
    const port = globalThis.agentPort;
    port.onmessage = (e) => {
      const data = e.data;
      if (data !== null && typeof data === 'object' && '__echoError' in data) {
        if (PURE) mismatch('agent: the echo failed: ' + data.__echoError);
      } else {
        arrived(data, 'agent');
      }
      port.close();
      __clone.done = true;
    };
    port.onmessageerror = () => {
      if (PURE) mismatch('agent: messageerror');
      port.close();
      __clone.done = true;
    };
    try {
      port.postMessage(root, T);
    } catch (err) {
      failed(err, 'agent');
      port.close();
      __clone.done = true;
    }
  }
}
