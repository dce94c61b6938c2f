// stream-diff tracing prelude: loaded on every side before the script under test.
//
// Every global it defines is a plain function; everything it uses is captured here, at load
// time, so a script that patches Promise.prototype.then, Object.prototype, Array.prototype,
// Function.prototype.call, ... does not change what gets logged.
//
// Events go to __sd_emit (a native function the tool installs, removed from the global here).
// The script's completion value is the renderer, which the tool uses for errors the script
// throws at its top level.
(function () {
  'use strict';
  const G = globalThis;
  const emit = G.__sd_emit;
  delete G.__sd_emit;

  const R = Reflect;
  const apply = R.apply;
  const construct = R.construct;
  const ownKeys = R.ownKeys;
  const getProto = R.getPrototypeOf;
  const gopd = R.getOwnPropertyDescriptor;
  const defineProperty = R.defineProperty;
  const ObjectProto = Object.prototype;
  const objToString = ObjectProto.toString;
  const isArray = Array.isArray;
  const isError = typeof Error.isError === 'function' ? Error.isError : null;
  const ErrorCtor = Error;
  const jsonStringify = JSON.stringify;
  const StringCtor = String;
  const stringSlice = String.prototype.slice;
  const slice = (s, a, b) => apply(stringSlice, s, [a, b]);
  const objectIs = Object.is;
  const numberIsNaN = Number.isNaN;
  const SymbolCtor = Symbol;
  const symbolToStringTag = Symbol.toStringTag;
  const symbolDescription = gopd(Symbol.prototype, 'description').get;
  const PromiseCtor = Promise;
  const promiseThen = Promise.prototype.then;
  const promiseResolve = Promise.resolve;
  const promiseReject = Promise.reject;
  const Uint8 = Uint8Array;
  const TypedArrayProto = getProto(Uint8Array.prototype);
  const taTag = gopd(TypedArrayProto, symbolToStringTag).get;
  const taLength = gopd(TypedArrayProto, 'length').get;
  const taByteOffset = gopd(TypedArrayProto, 'byteOffset').get;
  const taBuffer = gopd(TypedArrayProto, 'buffer').get;
  const abByteLength = gopd(ArrayBuffer.prototype, 'byteLength').get;
  const abDetachedDesc = gopd(ArrayBuffer.prototype, 'detached');
  const abDetached = abDetachedDesc ? abDetachedDesc.get : null;
  const sabByteLength = typeof SharedArrayBuffer === 'function'
    ? gopd(SharedArrayBuffer.prototype, 'byteLength').get : null;
  const dvByteLength = gopd(DataView.prototype, 'byteLength').get;
  const dvByteOffset = gopd(DataView.prototype, 'byteOffset').get;
  const dvBuffer = gopd(DataView.prototype, 'buffer').get;
  const setTimeoutFn = G.setTimeout;
  const queueMicrotaskFn = G.queueMicrotask;

  // Errors whose message starts with MARK are the script's own: rendered with their message.
  const MARK = 'sd:';
  const MAX_DEPTH = 4;
  const MAX_ITEMS = 64;

  function tryCall(getter, target) {
    try {
      return { ok: true, value: apply(getter, target, []) };
    } catch (e) {
      return { ok: false };
    }
  }

  // The value of `key` found along the prototype chain, without running a Proxy trap or
  // getter of the script's (accessors of the engine's and the streams' own prototypes, e.g.
  // DOMException's `name`, are called).
  function lookup(object, key, callGetters) {
    let o = object;
    for (let i = 0; o !== null && i < 32; i++) {
      let d;
      try {
        d = gopd(o, key);
      } catch (e) {
        return undefined;
      }
      if (d !== undefined) {
        if ('value' in d) return d.value;
        if (callGetters && typeof d.get === 'function') {
          const r = tryCall(d.get, object);
          return r.ok ? r.value : undefined;
        }
        return undefined;
      }
      try {
        o = getProto(o);
      } catch (e) {
        return undefined;
      }
    }
    return undefined;
  }

  function tagOf(v) {
    try {
      return apply(objToString, v, []);
    } catch (e) {
      return '[object ?]';
    }
  }

  function renderNumber(n) {
    if (objectIs(n, -0)) return '-0';
    if (numberIsNaN(n)) return 'NaN';
    return StringCtor(n);
  }

  function bytesOf(buffer, offset, length) {
    const u8 = construct(Uint8, [buffer, offset, length]);
    let s = '';
    const n = length < MAX_ITEMS * 4 ? length : MAX_ITEMS * 4;
    for (let i = 0; i < n; i++) s += (i ? ',' : '') + u8[i];
    if (n < length) s += ',...';
    return s;
  }

  function renderError(v) {
    const name = lookup(v, 'name', true);
    const message = lookup(v, 'message', true);
    const nameStr = typeof name === 'string' ? name : '?';
    if (typeof message === 'string' && message.length >= MARK.length &&
        slice(message, 0, MARK.length) === MARK) {
      return nameStr + '(' + message + ')';
    }
    if (tagOf(v) === '[object DOMException]') return 'DOMException(' + nameStr + ')';
    return nameStr;
  }

  function render(v, depth, seen) {
    switch (typeof v) {
      case 'undefined': return 'undefined';
      case 'boolean': return v ? 'true' : 'false';
      case 'number': return renderNumber(v);
      case 'bigint': return StringCtor(v) + 'n';
      case 'string': return jsonStringify(v);
      case 'symbol': {
        const d = apply(symbolDescription, v, []);
        return 'Symbol(' + (d === undefined ? '' : d) + ')';
      }
      case 'function': {
        const n = lookup(v, 'name', false);
        return '[function ' + (typeof n === 'string' ? n : '') + ']';
      }
    }
    if (v === null) return 'null';
    return renderObject(v, depth || 0, seen || []);
  }

  function renderObject(v, depth, seen) {
    // Typed arrays.
    const tag = tryCall(taTag, v);
    if (tag.ok && typeof tag.value === 'string') {
      const buffer = apply(taBuffer, v, []);
      if (abDetached && apply(abDetached, buffer, [])) return tag.value + '(detached)';
      const length = apply(taLength, v, []);
      const offset = apply(taByteOffset, v, []);
      const bl = tryCall(abByteLength, buffer);
      let s = '';
      const n = length < MAX_ITEMS ? length : MAX_ITEMS;
      for (let i = 0; i < n; i++) s += (i ? ',' : '') + render(v[i], depth + 1, seen);
      if (n < length) s += ',...';
      return tag.value + '[' + s + ']@' + offset + '/' + (bl.ok ? bl.value : '?');
    }
    const dvl = tryCall(dvByteLength, v);
    if (dvl.ok) {
      const buffer = apply(dvBuffer, v, []);
      const offset = apply(dvByteOffset, v, []);
      const bl = apply(abByteLength, buffer, []);
      return 'DataView[' + bytesOf(buffer, offset, dvl.value) + ']@' + offset + '/' + bl;
    }
    const dv0 = tryCall(dvBuffer, v);
    if (dv0.ok) return 'DataView(detached)';
    const abl = tryCall(abByteLength, v);
    if (abl.ok) {
      if (abDetached && apply(abDetached, v, [])) return 'ArrayBuffer(detached)';
      return 'ArrayBuffer[' + bytesOf(v, 0, abl.value) + ']';
    }
    if (sabByteLength) {
      const sbl = tryCall(sabByteLength, v);
      if (sbl.ok) return 'SharedArrayBuffer[' + bytesOf(v, 0, sbl.value) + ']';
    }
    const tag2 = tagOf(v);
    if ((isError ? isError(v) : tag2 === '[object Error]') || tag2 === '[object DOMException]') {
      return renderError(v);
    }
    for (let i = 0; i < seen.length; i++) if (seen[i] === v) return '[Circular]';
    let proto;
    try {
      proto = getProto(v);
    } catch (e) {
      return '[Proxy]';
    }
    const arr = isArray(v);
    const plain = arr || proto === ObjectProto || proto === null;
    if (!plain) {
      // Promises, streams, readers, controllers, signals, class instances: their brand.
      const t = slice(tag2, 8, tag2.length - 1);
      if (t !== 'Object') return '[' + t + ']';
      const ctor = lookup(v, 'constructor', false);
      const n = typeof ctor === 'function' ? lookup(ctor, 'name', false) : undefined;
      if (typeof n === 'string' && n !== 'Object') return '[' + n + ']';
    }
    if (depth >= MAX_DEPTH) return arr ? '[...]' : '{...}';
    seen[seen.length] = v;
    let keys;
    try {
      keys = ownKeys(v);
    } catch (e) {
      seen.length--;
      return '[Proxy]';
    }
    let s = '';
    let count = 0;
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i];
      if (arr && k === 'length') continue;
      let d;
      try {
        d = gopd(v, k);
      } catch (e) {
        continue;
      }
      if (d === undefined || !d.enumerable) continue;
      if (count === MAX_ITEMS) {
        s += ', ...';
        break;
      }
      const item = 'value' in d ? render(d.value, depth + 1, seen) : '[Getter]';
      const isIndex = arr && typeof k === 'string' && k !== '' && StringCtor(+k >>> 0) === k;
      const label = isIndex ? '' : (typeof k === 'symbol' ? render(k) : k) + ': ';
      s += (count ? ', ' : '') + label + item;
      count++;
    }
    seen.length--;
    return arr ? '[' + s + ']' : '{' + s + '}';
  }

  function renderAll(args) {
    let s = '';
    for (let i = 0; i < args.length; i++) s += (i ? ' ' : '') + render(args[i]);
    return s;
  }

  // Depth of `enq()` calls on the stack: callbacks traced while it is positive are marked.
  let inEnqueue = 0;
  let count = 0;

  function emitEvent(s) {
    count++;
    emit(s);
  }

  function define(name, value) {
    defineProperty(G, name, { value, writable: true, configurable: true, enumerable: false });
  }

  // log(...values): one event, the values rendered and joined by spaces.
  define('log', function log(...values) {
    emitEvent(renderAll(values));
  });

  // render(value): the string the log would show for a value.
  define('render', function (v) {
    return render(v);
  });

  // err(tag[, Ctor]): an error of the script's own, rendered as `Error(sd:tag)`.
  define('err', function err(tag, Ctor) {
    return construct(typeof Ctor === 'function' ? Ctor : ErrorCtor, [MARK + tag]);
  });

  // deep(n, f): f() called n frames down (n nested calls of deep's own).
  function deep(n, f) {
    return n <= 0 ? f() : deep(n - 1, f);
  }
  define('deep', deep);

  // deepCatch(n, at, name, f): f() called n frames down, its exception caught at the frame
  // `at` levels above f's caller (0: the innermost), logged as `name caught X`.
  function deepCatch(n, at, name, f) {
    if (n === at) {
      try {
        return n <= 0 ? f() : deep(n - 1, f);
      } catch (e) {
        emitEvent(name + ' caught ' + render(e));
        return undefined;
      }
    }
    return deepCatch(n - 1, at, name, f);
  }
  define('deepCatch', deepCatch);

  // traced(name, fn): fn, logging `name(args)` on each call and `name threw X` if it throws.
  function traced(name, fn) {
    return function (...args) {
      emitEvent(name + '(' + renderAll(args) + ')' + (inEnqueue > 0 ? ' [in enqueue]' : ''));
      try {
        return apply(fn, this, args);
      } catch (e) {
        emitEvent(name + ' threw ' + render(e));
        throw e;
      }
    };
  }
  define('traced', traced);

  // T(name, object): a copy of an underlying source / sink / transformer / strategy / iterable,
  // its methods traced as `name.method`.
  define('T', function T(name, object) {
    const out = {};
    const keys = ownKeys(object);
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i];
      const v = object[k];
      const label = typeof k === 'symbol' ? '[' + render(k) + ']' : k;
      defineProperty(out, k, {
        value: typeof v === 'function' ? traced(name + '.' + label, v) : v,
        writable: true, enumerable: true, configurable: true,
      });
    }
    return out;
  });

  // watch(name, promise): logs `name fulfilled V` / `name rejected E` as it settles.
  define('watch', function watch(name, p) {
    if ((typeof p !== 'object' && typeof p !== 'function') || p === null ||
        tagOf(p) !== '[object Promise]') {
      emitEvent(name + ' not a promise: ' + render(p));
      return p;
    }
    try {
      apply(promiseThen, p, [
        (v) => { emitEvent(name + ' fulfilled ' + render(v)); },
        (e) => { emitEvent(name + ' rejected ' + render(e)); },
      ]);
    } catch (e) {
      emitEvent(name + ' then threw ' + render(e));
    }
    return p;
  });

  // enq(controller, chunk, label): controller.enqueue(chunk), logged; traced callbacks that run
  // before it returns are marked `[in enqueue]` (see the reference-sync-write-in-enqueue class).
  define('enq', function enq(c, chunk, label) {
    emitEvent((label || 'enqueue') + '(' + render(chunk) + ')');
    inEnqueue++;
    try {
      c.enqueue(chunk);
    } finally {
      inEnqueue--;
    }
  });

  // step(label, fn): runs fn, logging `label threw E` instead of letting it throw.
  function step(label, fn) {
    try {
      fn();
    } catch (e) {
      emitEvent(label + ' threw ' + render(e));
    }
  }
  define('step', step);

  // later(tasks, label, fn): step(label, fn) after `tasks` setTimeout(0) hops.
  define('later', function later(tasks, label, fn) {
    if (tasks <= 0) return step(label, fn);
    setTimeoutFn(() => later(tasks - 1, label, fn), 0);
  });

  // soon(microtasks, label, fn): step(label, fn) after `microtasks` microtask hops.
  define('soon', function soon(n, label, fn) {
    if (n <= 0) return step(label, fn);
    queueMicrotaskFn(() => soon(n - 1, label, fn));
  });

  // afterMicrotask(fn) / afterTask(fn): a promise settled with fn()'s outcome one microtask /
  // one task later (for callbacks that finish asynchronously).
  define('afterMicrotask', function afterMicrotask(fn) {
    return construct(PromiseCtor, [(resolve, reject) => {
      queueMicrotaskFn(() => {
        try { resolve(fn()); } catch (e) { reject(e); }
      });
    }]);
  });
  define('afterTask', function afterTask(fn) {
    return construct(PromiseCtor, [(resolve, reject) => {
      setTimeoutFn(() => {
        try { resolve(fn()); } catch (e) { reject(e); }
      }, 0);
    }]);
  });
  // fill(view, start): writes start, start+1, ... (mod 256) into the bytes of a view.
  define('fill', function fill(view, start) {
    const dvl = tryCall(dvByteLength, view);
    const tl = tryCall(taLength, view);
    if (!dvl.ok && !tl.ok) return;
    const buffer = dvl.ok ? apply(dvBuffer, view, []) : apply(taBuffer, view, []);
    const offset = dvl.ok ? apply(dvByteOffset, view, []) : apply(taByteOffset, view, []);
    const n = dvl.ok ? dvl.value : apply(taLength, view, []) * (view.BYTES_PER_ELEMENT | 0);
    const u8 = construct(Uint8, [buffer, offset, n]);
    for (let i = 0; i < n; i++) u8[i] = (start + i) & 255;
  });
  define('resolved', function resolved(v) { return apply(promiseResolve, PromiseCtor, [v]); });
  define('rejected', function rejected(e) { return apply(promiseReject, PromiseCtor, [e]); });

  return render;
})();
