// result: reference-promise-lookups
// first divergence at event 11 (content):
//   native:    (end of log)
//   reference: "Promise.prototype.constructor get"
// stream-diff program: --seed 1 index 12
var ts1, ts1tr, tc2, rs3, ws4, rs5, rs5src, rs5n, c6, rs5_r7, rs8, rs8src, rs8n, c9, ws4_w10, rs11, rs11src, rs11n, c12;
step('s1', () => { ts1tr = {}; });
step('s2', () => { ts1tr.start = function (c) { tc2 = c; return afterMicrotask(() => {  }); }; });
step('s3', () => { ts1tr.cancel = function (reason) { return afterMicrotask(() => { enq(tc2, 'c1', 'tc2.enqueue'); enq(tc2, [2, -0], 'tc2.enqueue');  }); }; });
step('s4', () => { ts1 = new TransformStream(T('ts1', ts1tr), { highWaterMark: 1 }, { highWaterMark: 0, size: traced('ts1.r.size', () => -1) }); rs3 = ts1.readable; ws4 = ts1.writable; });
step('s5', () => { rs5src = { type: 'bytes' }; rs5n = 0; });
step('s6', () => { rs5src.start = function (c) { c6 = c;  }; });
step('s7', () => { rs5 = new ReadableStream(T('rs5', rs5src), { highWaterMark: -1 }); });
step('s8', () => { rs5_r7 = rs5.getReader({ mode: 'byob' }); watch('rs5_r7.closed', rs5_r7.closed); });
soon(8, 's9', () => { Object.defineProperty(Promise.prototype, 'constructor', { get() { log('Promise.prototype.constructor get'); return Promise; }, configurable: true }); });
soon(3, 's10', () => { tc2.terminate();  });
step('s11', () => { rs8src = {}; rs8n = 0; });
step('s12', () => { rs8src.start = function (c) { c9 = c;  }; });
step('s13', () => { rs8src.pull = function (c) { if (++rs8n > 3) return;  }; });
step('s14', () => { rs8 = new ReadableStream(T('rs8', rs8src), { highWaterMark: -1, size: traced('rs8.size', (chunk) => 2) }); });
soon(6, 's15', () => { watch('s15.abort', ws4.abort(42)); });
step('s16', () => { ws4_w10 = new WritableStreamDefaultWriter(ws4); watch('ws4_w10.closed', ws4_w10.closed); watch('ws4_w10.ready', ws4_w10.ready); });
step('s17', () => { enq(c6, new Uint8Array(new ArrayBuffer(6), 0, 2), 'c6.enqueue');  });
step('s18', () => { rs11src = { type: 'bytes' }; rs11n = 0; });
step('s19', () => { rs11src.start = function (c) { c12 = c; return afterTask(() => {  }); }; });
step('s20', () => { rs11src.pull = function (c) { if (++rs11n > 4) return;  }; });
step('s21', () => { rs11 = new ReadableStream(T('rs11', rs11src), { highWaterMark: 1 }); });
