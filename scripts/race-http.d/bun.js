import './handlers.js';
globalThis.RACE_ORIGIN_PORT = process.env.RACE_ORIGIN_PORT;
Bun.serve({ hostname: '127.0.0.1', port: Number(process.env.PORT), fetch: (request) => raceHandler(request) });
