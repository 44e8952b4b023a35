// The webhook receiver of bench/flows.ts, in a process of its own (not the load generator's event loop):
// answers every POST at once with 204 and records its arrival (this machine's clock, the service's too),
// the endpoint (the path), the webhook-id and the event's occurredAt. GET /stats answers the deliveries
// since the last POST /reset: count, distinct (endpoint, webhook-id) pairs, and arrival − occurredAt
// percentiles in ms; GET /sample the body of the last delivery (what the least work of bench/baseline.ts
// deliver sends, under ids of its own). Prints {"msg":"listening","port":…} once it listens.
import { createServer } from 'node:http';

let arrivals = [];

const server = createServer((req, res) => {
  if (req.method === 'POST' && req.url === '/reset') {
    arrivals = [];
    return res.end('{}');
  }
  if (req.method === 'GET' && req.url === '/stats') {
    const keys = new Set();
    const latencies = [];
    for (const a of arrivals) {
      keys.add(`${a.path} ${a.id}`);
      const occurred = /"occurredAt":"([^"]+)"/.exec(a.body);
      if (occurred) latencies.push(a.at - Date.parse(occurred[1]));
    }
    latencies.sort((x, y) => x - y);
    const at = (q) => (latencies.length ? latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))] : null);
    res.setHeader('content-type', 'application/json');
    return res.end(
      JSON.stringify({ count: arrivals.length, distinct: keys.size, p50: at(0.5), p99: at(0.99), max: latencies.at(-1) ?? null }),
    );
  }
  if (req.method === 'GET' && req.url === '/sample') {
    const last = arrivals.at(-1);
    res.statusCode = last ? 200 : 404;
    res.setHeader('content-type', 'application/json');
    return res.end(last ? last.body : '{}');
  }
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    arrivals.push({ at: Date.now(), path: req.url, id: req.headers['webhook-id'], body: Buffer.concat(chunks).toString('utf8') });
    res.statusCode = 204;
    res.end();
  });
});

server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ msg: 'listening', port: server.address().port })}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
