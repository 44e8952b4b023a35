// A webhook receiver on 127.0.0.1 for the tests: it records every delivery (headers and body) and answers the
// statuses of `script` in turn, then 200. One per test file; emptied before each case.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach } from 'vitest';

export interface Received {
  /** The path (and query) it was sent to. */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface WebhookReceiver {
  /** Where it listens (set once the file's tests start). */
  url: string;
  received: Received[];
  /** The statuses it answers, in turn (then 200). */
  script: number[];
  /** When set, and it names a status for the path, that status is answered instead (the script is left alone). */
  answer?: (path: string) => number | undefined;
}

export function useWebhookReceiver(): WebhookReceiver {
  const receiver: WebhookReceiver = { url: '', received: [], script: [] };
  let server: Server;
  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        receiver.received.push({ url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.statusCode = receiver.answer?.(req.url ?? '') ?? receiver.script.shift() ?? 200;
        res.end(res.statusCode === 200 ? 'thanks' : 'not now');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    receiver.received = [];
    receiver.script = [];
    receiver.answer = undefined;
  });
  return receiver;
}
