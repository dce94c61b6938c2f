// Node's http server, the web Response's body piped to res.
import http from 'node:http';
import { Readable } from 'node:stream';
import './handlers.js';
globalThis.RACE_ORIGIN_PORT = process.env.RACE_ORIGIN_PORT;
http.createServer(async (req, res) => {
  const init = { method: req.method, headers: req.headers };
  if (req.method != 'GET' && req.method != 'HEAD') { init.body = Readable.toWeb(req); init.duplex = 'half'; }
  const response = await raceHandler(new Request(`http://${req.headers.host}${req.url}`, init));
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (response.body) Readable.fromWeb(response.body).pipe(res); else res.end();
}).listen(Number(process.env.PORT), '127.0.0.1');
