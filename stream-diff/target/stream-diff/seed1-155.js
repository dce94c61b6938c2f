// result: real
// first divergence at event 12 (content):
//   native:    "Object.prototype.then called"
//   boa: rs5.s22.forawait rejected Error(sd:ts3.start)
// stream-diff program: --seed 1 index 155
var ws1, ws1sink, wc2, ts3, ts3tr, tc4, rs5, ws6, rs5_r7, rs9, rs9src, rs9n, c10, rs5_r13;
step('s1', () => { ws1sink = {}; });
step('s2', () => { ws1sink.start = function (c) { wc2 = c;  }; });
step('s3', () => { ws1sink.write = function (chunk, c) { return afterTask(() => {  }); }; });
step('s4', () => { ws1 = new WritableStream(T('ws1', ws1sink), { highWaterMark: -1 }); });
step('s5', () => { watch('s5.abort', ws1.abort(42)); });
step('s6', () => { ts3tr = {}; });
step('s7', () => { ts3tr.start = function (c) { tc4 = c;  return rejected(err('ts3.start')); }; });
step('s8', () => { ts3tr.transform = function (chunk, c) { enq(tc4, chunk, 'tc4.enqueue');  }; });
step('s9', () => { ts3tr.cancel = function (reason) { enq(tc4, 1, 'tc4.enqueue');  }; });
step('s10', () => { ts3 = new TransformStream(T('ts3', ts3tr)); rs5 = ts3.readable; ws6 = ts3.writable; });
step('s11', () => { rs5_r7 = new ReadableStreamBYOBReader(rs5); watch('rs5_r7.closed', rs5_r7.closed); });
step('s12', () => { Object.defineProperty(Object.prototype, 'then', { value(r) { log('Object.prototype.then called'); r(undefined); }, configurable: true, writable: true }); });
step('s13', () => { log('wc2.signal.aborted', wc2.signal.aborted);  });
soon(3, 's14', () => { watch('rs5_r7.read8', rs5_r7.read(new Uint16Array(3))); });
step('s15', () => { log('wc2.signal.aborted', wc2.signal.aborted);  });
later(1, 's16', () => { watch('s16.pipe', rs5.pipeTo(ws1)); });
step('s17', () => { rs9src = {}; rs9n = 0; });
step('s18', () => { rs9src.start = function (c) { c10 = c; enq(c10, 2, 'c10.enqueue');  }; });
step('s19', () => { rs9src.pull = function (c) { if (++rs9n > 2) return; enq(c10, 3, 'c10.enqueue'); c10.close();  }; });
step('s20', () => { rs9 = new ReadableStream(T('rs9', rs9src), { highWaterMark: 0 }); });
soon(2, 's21', () => { watch('s21.close', ws1.close()); });
step('s22', () => { watch('rs5.s22.forawait', (async () => { let k = 0; for await (const x of rs5) { log('rs5.s22.chunk', x); if (++k >= 1) return 's22'; } log('rs5.s22.end'); })()); });
step('s23', () => { watch('rs5_r7.read11', rs5_r7.read(new ArrayBuffer(4))); });
later(1, 's24', () => { watch('s24.pipe', rs9.pipeTo(ws6, { preventClose: true })); });
step('s25', () => { watch('s25.pipe', rs9.pipeTo(ws6, { preventAbort: true })); });
later(2, 's26', () => { watch('rs9.cancel12', rs9.cancel(err('s26'))); });
step('s27', () => { rs5_r13 = rs5.getReader(); watch('rs5_r13.closed', rs5_r13.closed); });
