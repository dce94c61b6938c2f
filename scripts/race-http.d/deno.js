import './handlers.js';
globalThis.RACE_ORIGIN_PORT = Deno.env.get('RACE_ORIGIN_PORT');
Deno.serve({ hostname: '127.0.0.1', port: Number(Deno.env.get('PORT')), onListen() {} }, (request) => raceHandler(request));
