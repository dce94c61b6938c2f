import './handlers.js';
export default {
  fetch(request, env) {
    globalThis.RACE_ORIGIN_PORT = env.RACE_ORIGIN_PORT;
    return raceHandler(request);
  },
};
