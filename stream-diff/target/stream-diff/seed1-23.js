// result: reference-async-sequence-timing
// first divergence at event 2 (content):
//   native:    from1.src.next()
//   reference: from1.src.next(undefined)
// stream-diff program: --seed 1 index 23
var from1, ws2, ws2sink, wc3, ws4, ws4sink, wc5, ws2_w6;
step('s1', () => { from1 = ReadableStream.from({ [Symbol.iterator]() { let n = 0; return T('from1.src', { next() { n++; if (n === 1) { return { then(r) { log('from1.src.then'); r({ value: 'th', done: false }); } }; } return n > 4 ? { done: true } : { value: n, done: false }; } }); } }); });
step('s2', () => { watch('from1.s2.forawait', (async () => { let k = 0; for await (const x of from1.values({ preventCancel: true })) { log('from1.s2.chunk', x);  } log('from1.s2.end'); })()); });
step('s3', () => { ws2sink = {}; });
step('s4', () => { ws2sink.start = function (c) { wc3 = c; return afterMicrotask(() => {  }); }; });
step('s5', () => { ws2sink.write = function (chunk, c) {  }; });
step('s6', () => { ws2sink.abort = function (reason) {  throw err('ws2.abort'); }; });
step('s7', () => { ws2 = new WritableStream(T('ws2', ws2sink)); });
later(3, 's8', () => { watch('s8.pipe', from1.pipeTo(ws2, { preventClose: false, preventAbort: true, preventCancel: false })); });
step('s9', () => { ws4sink = {}; });
step('s10', () => { ws4sink.start = function (c) { wc5 = c;  return rejected(err('ws4.start')); }; });
step('s11', () => { ws4sink.write = function (chunk, c) {  }; });
step('s12', () => { ws4sink.close = function () {  }; });
step('s13', () => { ws4sink.abort = function (reason) {  }; });
step('s14', () => { ws4 = new WritableStream(T('ws4', ws4sink)); });
step('s15', () => { watch('s15.pipe', from1.pipeTo(ws4)); });
step('s16', () => { ws2_w6 = ws2.getWriter(); watch('ws2_w6.closed', ws2_w6.closed); watch('ws2_w6.ready', ws2_w6.ready); });
