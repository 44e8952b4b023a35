// Bodies behind the real Node server: node:http has usually received a small body in full by the time a
// request starts (requestScheduler.ts starts it a turn of the loop later), and readLimited then takes it
// from the message's buffer without the stream. These cases run the same request listener the service
// runs (node:http's, whose message the app's handlers read) on 127.0.0.1, and send the body whole,
// late, chunked, split inside a character, and too large.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BodyError, MAX_BODY_BYTES, parseBody } from '../../src/http/body.js';

interface Seen {
  status: number;
  value?: unknown;
  error?: string;
  /** How the body was read: `null` = never through the stream (no listener made it flow). */
  flowing: boolean | null;
}

let server: Server;
let port: number;
/** Resolved when the next request reaches the handler (a "late" body is sent only after that). */
let handlerReached: () => void = () => {};

beforeAll(async () => {
  const listener = async (incoming: IncomingMessage, response: ServerResponse) => {
    // the service starts requests from setImmediate (requestScheduler.ts): the same here
    await new Promise((resolve) => setImmediate(resolve));
    handlerReached();
    let seen: Seen;
    try {
      const parsed = await parseBody(incoming);
      seen = { status: 200, value: parsed.value, flowing: incoming.readableFlowing };
    } catch (err) {
      if (!(err instanceof BodyError)) throw err;
      seen = { status: err.status, error: err.message, flowing: incoming.readableFlowing };
    }
    const text = JSON.stringify(seen);
    response.writeHead(seen.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    response.end(text);
  };
  server = createServer((req, res) => void listener(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as net.AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/**
 * Sends `parts` over one connection and answers the parsed reply. With `late`, the parts after the first
 * are sent once the handler has started reading (then 20 ms apart): the body is not all there when it does.
 */
async function send(parts: (string | Buffer)[], late = false): Promise<Seen & { httpStatus: number }> {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  let raw = '';
  socket.on('data', (d) => (raw += d.toString('utf8')));
  socket.on('error', () => {}); // the server may close after refusing a body
  const closed = new Promise((resolve) => socket.once('close', resolve));
  const reached = new Promise<void>((resolve) => (handlerReached = resolve));
  for (const [i, part] of parts.entries()) {
    if (i === 1 && late) await reached;
    if (i > 1 && late) await new Promise((resolve) => setTimeout(resolve, 20));
    socket.write(part);
  }
  const deadline = Date.now() + 5_000;
  while (!raw.includes('\r\n\r\n{') || !raw.trimEnd().endsWith('}')) {
    if (Date.now() > deadline) throw new Error(`no answer: ${raw}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  socket.end();
  await closed;
  const [head, body] = raw.split('\r\n\r\n');
  return { httpStatus: Number(/^HTTP\/1\.1 (\d{3})/.exec(head!)![1]), ...(JSON.parse(body!) as Seen) };
}

const head = (headers: Record<string, string | number>) =>
  `POST /v1/x HTTP/1.1\r\nHost: 127.0.0.1\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`;

describe('a body behind the Node server', () => {
  const value = { dayOfWeek: 'MONDAY', greeting: 'Grüß Gott — back at 1 pm', breaks: [{ start: '12:00', end: '13:00' }] };
  const json = Buffer.from(JSON.stringify(value));

  it('arrived with the headers: parsed from the message buffer, the stream never started', async () => {
    const seen = await send([head({ 'Content-Type': 'application/json', 'Content-Length': json.length }) + json.toString()]);
    expect(seen).toMatchObject({ httpStatus: 200, value, flowing: null });
  });

  it('arriving after the request started: read as it comes', async () => {
    const seen = await send([head({ 'Content-Type': 'application/json', 'Content-Length': json.length }), json], true);
    expect(seen).toMatchObject({ httpStatus: 200, value });
    expect(seen.flowing).not.toBeNull();
  });

  it('split inside a multi-byte character, in two packets: the same value', async () => {
    const cut = json.indexOf(Buffer.from('ü')) + 1; // between the two bytes of ü
    const seen = await send(
      [head({ 'Content-Type': 'application/json', 'Content-Length': json.length }), json.subarray(0, cut), json.subarray(cut)],
      true,
    );
    expect(seen).toMatchObject({ httpStatus: 200, value });
  });

  it('chunked and complete: parsed from the buffer; a form body too', async () => {
    const chunked = `${json.length.toString(16)}\r\n${json.toString('latin1')}\r\n0\r\n\r\n`;
    const seen = await send([
      Buffer.from(head({ 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' }) + chunked, 'latin1'),
    ]);
    expect(seen).toMatchObject({ httpStatus: 200, value, flowing: null });

    const form = 'dayOfWeek=MONDAY&breaks%5B0%5D%5Bstart%5D=12%3A00';
    const formSeen = await send([head({ 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': form.length }) + form]);
    expect(formSeen).toMatchObject({ httpStatus: 200, value: { dayOfWeek: 'MONDAY', breaks: [{ start: '12:00' }] }, flowing: null });
  });

  it('chunked past 1 MiB: 413, whether it is all here or still coming', async () => {
    const big = 'x'.repeat(MAX_BODY_BYTES + 10);
    const chunked = `${big.length.toString(16)}\r\n${big}\r\n0\r\n\r\n`;
    const whole = await send([head({ 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' }) + chunked]);
    expect(whole).toMatchObject({ httpStatus: 413, error: `The body exceeds ${MAX_BODY_BYTES} bytes` });
    const late = await send([head({ 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' }), chunked], true);
    expect(late).toMatchObject({ httpStatus: 413, error: `The body exceeds ${MAX_BODY_BYTES} bytes` });
  });

  it('empty: no body, from the buffer', async () => {
    const seen = await send([head({ 'Content-Type': 'application/json', 'Content-Length': 0 })]);
    expect(seen).toMatchObject({ httpStatus: 200, flowing: null });
    expect(seen.value).toBeUndefined();
  });
});
