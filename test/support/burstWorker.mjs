// A load generator in a process of its own, at the lowest CPU priority (the fairness test sets it): it sends
// every request it is given at once, reads and drops the answers, and sends back each one's status. What the
// test measures is how the service shares its time between organizations; on a machine of two cores, a
// generator reading megabytes of answers at normal priority would take the measuring client's and the
// service's turns on the CPU and be read as the service's unfairness. Used by test/e2e/fairness.test.ts.
import { Agent, request } from 'node:http';

const agent = new Agent({ keepAlive: true, maxSockets: Infinity });

function send(baseUrl, { method, path, headers, body }) {
  return new Promise((resolve) => {
    const started = performance.now();
    const req = request(new URL(path, baseUrl), { method, headers, agent }, (res) => {
      res.on('data', () => {});
      res.on('end', () =>
        resolve({ status: res.statusCode, retryAfter: res.headers['retry-after'] ?? null, ms: performance.now() - started }),
      );
      res.on('error', () => resolve({ status: 0, retryAfter: null, ms: performance.now() - started }));
    });
    req.on('error', () => resolve({ status: 0, retryAfter: null, ms: performance.now() - started }));
    req.end(body);
  });
}

process.once('message', async ({ baseUrl, requests }) => {
  const answers = await Promise.all(requests.map((r) => send(baseUrl, r)));
  agent.destroy();
  process.send(answers, () => process.exit(0));
});
process.send('ready');
