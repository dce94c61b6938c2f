// result: reference-async-sequence-timing
// first divergence at event 12 (order):
//   native:    s28.pipe rejected TypeError
//   reference: from5_r11.closed rejected Error(sd:from5.src.done)
// stream-diff program: --seed 1 index 13
var ws1, ws1sink, wc2, ws1_w3, ac4, from5, rs6, rs6src, rs6n, c7, from8, ws9, ws9sink, wc10, from5_r11, ac13, rs14, rs14src, rs14n, c15;
step('s1', () => { ws1sink = {}; });
step('s2', () => { ws1sink.start = function (c) { wc2 = c; return afterTask(() => {  }); }; });
step('s3', () => { ws1sink.write = function (chunk, c) { log('wc2.signal.aborted', wc2.signal.aborted);  }; });
step('s4', () => { ws1sink.close = function () { return afterMicrotask(() => {  }); }; });
step('s5', () => { ws1 = new WritableStream(T('ws1', ws1sink), new CountQueuingStrategy({ highWaterMark: NaN })); });
step('s6', () => { ws1_w3 = ws1.getWriter(); watch('ws1_w3.closed', ws1_w3.closed); watch('ws1_w3.ready', ws1_w3.ready); });
step('s7', () => { ac4 = new AbortController(); });
step('s8', () => { from5 = ReadableStream.from({ [Symbol.asyncIterator]() { let n = 0; return T('from5.src', { next() { n++; if (n === 1) { return resolved({ get done() { throw err('from5.src.done'); }, value: 1 }); } return n > 4 ? resolved({ done: true }) : resolved({ value: n, done: false }); }, return(v) { throw err('from5.src.return'); } }); } }); });
step('s9', () => { rs6src = {}; rs6n = 0; });
step('s10', () => { rs6src.start = function (c) { c7 = c; c7.close(); enq(c7, 'c3', 'c7.enqueue');  return new Promise(() => {}); }; });
step('s11', () => { rs6src.pull = function (c) { if (++rs6n > 5) return; enq(c7, 4, 'c7.enqueue');  }; });
step('s12', () => { rs6src.cancel = function (reason) { c7.close(); c7.close();  return rejected(err('rs6.cancel')); }; });
step('s13', () => { rs6 = new ReadableStream(T('rs6', rs6src), { highWaterMark: NaN, size: traced('rs6.size', (chunk) => 2) }); });
step('s14', () => { from8 = ReadableStream.from({ [Symbol.asyncIterator]() { let n = 0; return T('from8.src', { next() { n++; return resolved(n <= 2 ? { value: n, done: false } : { value: undefined, done: true }); } }); } }); });
step('s15', () => { ws9sink = {}; });
step('s16', () => { ws9sink.start = function (c) { wc10 = c; wc10.error(err('wc10'));  }; });
step('s17', () => { ws9sink.write = function (chunk, c) {  throw err('ws9.write'); }; });
step('s18', () => { ws9sink.close = function () {  }; });
step('s19', () => { ws9sink.abort = function (reason) {  return rejected(err('ws9.abort')); }; });
step('s20', () => { ws9 = new WritableStream(T('ws9', ws9sink), { highWaterMark: 1 }); });
step('s21', () => { watch('s21.pipe', rs6.pipeTo(ws9, { signal: ac4.signal })); });
later(2, 's22', () => { watch('s22.pipe', from5.pipeTo(ws1, { preventAbort: true, signal: ac4.signal })); });
later(3, 's23', () => { enq(c7, [7, -0], 'c7.enqueue');  });
step('s24', () => { from5_r11 = new ReadableStreamDefaultReader(from5); watch('from5_r11.closed', from5_r11.closed); });
soon(7, 's25', () => { watch('from5_r11.cancel12', from5_r11.cancel(err('s25'))); });
step('s26', () => { ac13 = new AbortController(); });
step('s27', () => { watch('s27.pipe', from5.pipeTo(ws9, { preventCancel: false })); });
soon(4, 's28', () => { watch('s28.pipe', from8.pipeTo(ws1, { signal: ac4.signal })); });
step('s29', () => { rs14src = {}; rs14n = 0; });
step('s30', () => { rs14src.start = function (c) { c15 = c; c15.close(); watch('ws1_w3.write16', ws1_w3.write({ k: 8, then(r) { log('thenable8.then'); r('t8'); } })); throw err('rs14.start'); }; });
step('s31', () => { rs14 = new ReadableStream(T('rs14', rs14src)); });
step('s32', () => { watch('from5_r11.read17', from5_r11.read()); });
later(2, 's33', () => { watch('s33.abort', ws1.abort(undefined)); });
step('s34', () => { wc2.error(err('wc2'));  });
step('s35', () => { watch('s35.pipe', rs14.pipeTo(ws9, { preventAbort: true, signal: ac4.signal })); });
