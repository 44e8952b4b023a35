// Asks GET <url> one request after another for `seconds` and prints the latencies' p50, p99 and max (ms)
// as JSON: how fast /healthz answers while the service is under load, measured from its own process so
// that the load generator's event loop does not colour it. Plain JavaScript over node:http (one kept-alive
// connection, as a load balancer's health check keeps): the probe shares the 2 cores with the service and
// the load generator, so it does the least work that measures the answer's latency (no tsx, no fetch).
import { Agent, get } from 'node:http';

const [url, seconds = '10'] = process.argv.slice(2);
const agent = new Agent({ keepAlive: true, maxSockets: 1 });

/** One GET: resolves with true for a 200 (body read), false for anything else. */
function ask() {
  return new Promise((resolve) => {
    const req = get(url, { agent }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode === 200));
      res.once('error', () => resolve(false));
    });
    req.once('error', () => resolve(false));
  });
}

const latencies = [];
let failures = 0;
// ready once the first answer is in (this process is up and connected): the caller starts its load then
await ask();
process.stdout.write(JSON.stringify({ ready: true }) + '\n');
const until = Date.now() + Number(seconds) * 1000;
while (Date.now() < until) {
  const started = performance.now();
  if (!(await ask())) failures++;
  latencies.push(performance.now() - started);
  await new Promise((resolve) => setTimeout(resolve, 20));
}
latencies.sort((a, b) => a - b);
const at = (q) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] * 10) / 10;
process.stdout.write(JSON.stringify({ count: latencies.length, failures, p50: at(0.5), p99: at(0.99), max: at(1) }) + '\n');
agent.destroy();
