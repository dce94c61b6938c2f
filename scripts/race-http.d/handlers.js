// The handler every runtime of scripts/race-http serves: the same web-API code on each
// (a classic script and an ES module alike: it only assigns globalThis.raceHandler).
(() => {
  const chunk = (size) => new Uint8Array(size);
  // workerd #5838's matrix as response bodies: [chunk size, chunk count].
  const SIZES = { tiny: [64, 256], small: [256, 100], medium: [4096, 100], large: [65536, 16] };
  const value = ([size, count], strategy) => {
    let i = 0;
    return new ReadableStream({
      pull(c) { c.enqueue(chunk(size)); if (++i == count) c.close(); },
    }, strategy);
  };
  const byte = ([size, count], auto) => {
    let i = 0;
    return new ReadableStream({
      type: 'bytes',
      autoAllocateChunkSize: auto ? 65536 : undefined,
      pull(c) {
        const request = c.byobRequest;
        if (auto && request) {
          const n = Math.min(size, request.view.byteLength);
          request.respond(n);
        } else {
          c.enqueue(chunk(size));
        }
        if (++i == count) c.close();
      },
    });
  };
  const microtask = ([size, count]) => {
    let i = 0;
    return new ReadableStream({
      async pull(c) { await Promise.resolve(); c.enqueue(chunk(size)); if (++i == count) c.close(); },
    });
  };
  const timer = ([size, count]) => {
    let i = 0;
    return new ReadableStream({
      pull(c) {
        return new Promise((resolve) => setTimeout(() => {
          // The client may have gone (the stream cancelled) while the timer ran.
          try { c.enqueue(chunk(size)); if (++i == count) c.close(); } catch {}
          resolve();
        }, 1));
      },
    });
  };
  const STATIC_1M = new Uint8Array(1 << 20).fill(120);
  const bodies = {};
  for (const [name, shape] of Object.entries(SIZES)) {
    bodies[name] = () => value(shape);
    bodies[name + '-hwm0'] = () => value(shape, { highWaterMark: 0 });
    bodies[name + '-hwm16k'] = () => value(shape, new ByteLengthQueuingStrategy({ highWaterMark: 16384 }));
    bodies[name + '-byte'] = () => byte(shape, false);
    bodies[name + '-auto'] = () => byte(shape, true);
    bodies[name + '-microtask'] = () => microtask(shape);
    bodies[name + '-timer'] = () => timer(shape);
  }
  globalThis.raceHandler = async (request) => {
    const url = new URL(request.url);
    const name = url.pathname.slice(1);
    if (bodies[name]) return new Response(bodies[name]());
    if (name == 'static1m') return new Response(STATIC_1M);
    if (name == 'echo') return new Response(request.body.pipeThrough(new TransformStream()));
    if (name == 'proxy') {
      const upstream = await fetch(`http://127.0.0.1:${globalThis.RACE_ORIGIN_PORT}/static1m`);
      return new Response(upstream.body);
    }
    return new Response('ok');
  };
})();
