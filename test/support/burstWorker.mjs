// A load generator on a thread of its own (worker_threads), so that reading a burst's answers does not
// delay the measuring thread's own requests: it sends every request it is given at once, reads and drops
// the answers, and posts back each one's status. Used by test/e2e/fairness.test.ts.
import { Agent, request } from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';

const { baseUrl, requests } = workerData;
const agent = new Agent({ keepAlive: true, maxSockets: Infinity });

function send({ method, path, headers, body }) {
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

parentPort.once('message', async () => {
  const answers = await Promise.all(requests.map(send));
  agent.destroy();
  parentPort.postMessage(answers);
});
parentPort.postMessage('ready');
