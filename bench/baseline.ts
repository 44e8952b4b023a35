// The baselines: the least work that answers the same question, in a bare node:http server.
//   constant — a constant JSON body (what the machine, Node and the load generator can do at all);
//   prisma   — one Prisma organization.findUnique by primary key on the PostgreSQL of BENCH_POSTGRES_URL
//              (the least database work an organization read needs), answered as JSON; the id is the path's
//              (/v1/organizations/<id>), so a load turning over paths reads its organizations in turn;
//   callCreate — a POST of a call request: one statement (one transaction) on that PostgreSQL inserting the
//              request row and its event row, answered as JSON (the least work a placed call needs: no
//              authentication, no checks). BENCH_ORG_ID names the organization the rows belong to;
//   deliver  — webhook deliveries, the least work of one: a POST /deliver {count, concurrency, target, endpoints,
//              event} makes `count` of them, `concurrency` at once, and answers when all are done. Each signs
//              the event (under an id of its own) the Standard Webhooks way (HMAC-SHA256 of
//              `${id}.${timestamp}.${body}`), POSTs it to `target` + /hooks/<n> (the endpoints in turn) over
//              kept-alive connections (undici's Pool, the service's client) and inserts one row recording it,
//              in one statement, on that PostgreSQL (the table made at start). Its connections carry the
//              application_name BENCH_APPLICATION_NAME, so that their backends' CPU can be told apart.
//   transcriptRead — GET /<conversationId>: a conversation and its first 20 turns read from that PostgreSQL (two
//              statements), each turn opened with its organization's data key (unwrapped once, by the master
//              key of TRANSCRIPT_MASTER_KEYS, then kept), answered as JSON: the read without its access-log entry,
//              without authentication;
//   turnWrite — POST /<conversationId> {role, text}: a turn appended as said, in clear, with its event, in one
//              statement (the conversation's lastSeq moved on under its row lock is the turn's seq; the turn and
//              the event row inserted): the least work a turn's write needs, without redaction, sealing or checks.
// Prints {"msg":"listening","port":…} once ready.
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { Pool } from 'undici';
import { openAesGcm } from '../src/crypto/aesGcm.js';
import { PrismaClient } from '../src/generated/prisma/client.js';

const mode = process.argv[2];
const body = JSON.stringify({ success: true, data: { status: 'ok', name: 'Bright Smiles Downtown', timezone: 'America/New_York' } });

let handle: (url: string, body: string) => Promise<{ status: number; body: string }>;
if (mode === 'constant') {
  handle = () => Promise.resolve({ status: 200, body });
} else if (mode === 'prisma') {
  const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: process.env.BENCH_POSTGRES_URL!, max: 10 }) });
  handle = async (url) => {
    const id = url.split('/')[3]!;
    const org = await prisma.organization.findUnique({ where: { id } });
    return org ? { status: 200, body: JSON.stringify({ success: true, data: org }) } : { status: 404, body: '{}' };
  };
} else if (mode === 'callCreate') {
  const pool = new pg.Pool({ connectionString: process.env.BENCH_POSTGRES_URL!, max: 10 });
  const orgId = process.env.BENCH_ORG_ID!;
  handle = async (_url, text) => {
    const input = JSON.parse(text) as { botId: string; phoneNumberId: string; to: string };
    const { rows } = await pool.query<{ id: string; dueAt: Date; expiresAt: Date }>(
      `WITH r AS (
         INSERT INTO "CallRequest" ("id", "orgId", "botId", "phoneNumberId", "to", "status", "createdAt", "dueAt", "expiresAt")
         VALUES (gen_random_uuid(), $1::uuid, $2::uuid, $3::uuid, $4, 'queued', now(), now(), now() + interval '1 day')
         RETURNING "id", "orgId", "dueAt", "expiresAt")
       INSERT INTO "Event" ("id", "type", "orgId", "occurredAt", "actorKind", "subjectType", "subjectId", "data")
       SELECT gen_random_uuid(), 'call_request.queued', r."orgId", now(), 'apiKey', 'call_request', r."id"::text,
              jsonb_build_object('id', r."id", 'to', $4::text, 'status', 'queued') FROM r
       RETURNING "subjectId" AS "id", now() AS "dueAt", now() AS "expiresAt"`,
      [orgId, input.botId, input.phoneNumberId, input.to],
    );
    return { status: 201, body: JSON.stringify({ success: true, data: { ...rows[0], status: 'queued', to: input.to } }) };
  };
} else if (mode === 'deliver') {
  const pool = new pg.Pool({
    connectionString: process.env.BENCH_POSTGRES_URL!,
    max: 10,
    application_name: process.env.BENCH_APPLICATION_NAME ?? 'bench-deliver',
    // kept open between runs: a backend that ends mid-run takes its CPU time with it
    idleTimeoutMillis: 0,
  });
  await pool.query(
    `CREATE TABLE IF NOT EXISTS "BenchDelivery" ("id" uuid PRIMARY KEY, "endpoint" text NOT NULL, "webhookId" uuid NOT NULL,
       "statusCode" int NOT NULL, "latencyMs" int NOT NULL, "deliveredAt" timestamptz NOT NULL)`,
  );
  const secret = randomBytes(24); // a whsec_ secret's decoded bytes
  const clients = new Map<string, Pool>();
  handle = async (_url, text) => {
    const run = JSON.parse(text) as {
      count: number;
      concurrency: number;
      target: string;
      endpoints: number;
      event: Record<string, unknown>;
    };
    let client = clients.get(run.target);
    if (!client) clients.set(run.target, (client = new Pool(run.target, { connections: run.concurrency })));
    let next = 0;
    let delivered = 0;
    const deliverOne = async (n: number) => {
      const id = randomUUID();
      const body = JSON.stringify({ ...run.event, id });
      const timestamp = Math.floor(Date.now() / 1000);
      const signature = createHmac('sha256', secret).update(`${id}.${timestamp}.${body}`).digest('base64');
      const started = performance.now();
      const res = await client.request({
        method: 'POST',
        path: `/hooks/${n % run.endpoints}`,
        headers: {
          'content-type': 'application/json',
          'webhook-id': id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': `v1,${signature}`,
        },
        body,
      });
      await res.body.dump();
      await pool.query(
        `INSERT INTO "BenchDelivery" ("id", "endpoint", "webhookId", "statusCode", "latencyMs", "deliveredAt") VALUES ($1, $2, $3, $4, $5, now())`,
        [randomUUID(), String(n % run.endpoints), id, res.statusCode, Math.round(performance.now() - started)],
      );
      if (res.statusCode >= 200 && res.statusCode < 300) delivered++;
    };
    const worker = async () => {
      while (next < run.count) await deliverOne(next++);
    };
    await Promise.all(Array.from({ length: run.concurrency }, worker));
    return { status: 200, body: JSON.stringify({ delivered }) };
  };
} else if (mode === 'transcriptRead') {
  const pool = new pg.Pool({ connectionString: process.env.BENCH_POSTGRES_URL!, max: 10 });
  const [masterId, masterKey] = process.env.TRANSCRIPT_MASTER_KEYS!.split(':') as [string, string];
  const master = new Uint8Array(Buffer.from(masterKey, 'base64'));
  const dataKeys = new Map<string, Uint8Array>();
  const dataKey = async (orgId: string, version: number) => {
    const kept = dataKeys.get(`${orgId}|${version}`);
    if (kept) return kept;
    const { rows } = await pool.query<{ wrapped: string; masterKeyId: string }>(
      `SELECT "wrapped", "masterKeyId" FROM "TranscriptDataKey" WHERE "orgId" = $1 AND "version" = $2`,
      [orgId, version],
    );
    if (rows[0]!.masterKeyId !== masterId) throw new Error('a data key wrapped by another master key');
    const key = new Uint8Array(openAesGcm(master, rows[0]!.wrapped, `transcript data key|${orgId}|${version}`));
    dataKeys.set(`${orgId}|${version}`, key);
    return key;
  };
  handle = async (url) => {
    const id = url.slice(1);
    const conversation = await pool.query(`SELECT * FROM "Conversation" WHERE "id" = $1`, [id]);
    const row = conversation.rows[0] as { orgId: string } | undefined;
    if (!row) return { status: 404, body: '{}' };
    const { rows } = await pool.query<{ id: string; seq: number; role: string; text: string; keyVersion: number; at: Date }>(
      `SELECT "id", "seq", "role", "text", "keyVersion", "at" FROM "ConversationMessage" WHERE "conversationId" = $1 ORDER BY "seq" LIMIT 21`,
      [id],
    );
    const messages = [];
    for (const m of rows.slice(0, 20)) {
      const key = await dataKey(row.orgId, m.keyVersion);
      messages.push({
        seq: m.seq,
        role: m.role,
        at: m.at,
        text: openAesGcm(key, m.text, `transcript message|${row.orgId}|${m.id}`).toString('utf8'),
      });
    }
    return { status: 200, body: JSON.stringify({ success: true, data: { conversation: row, transcript: { messages } } }) };
  };
} else if (mode === 'turnWrite') {
  const pool = new pg.Pool({ connectionString: process.env.BENCH_POSTGRES_URL!, max: 10 });
  handle = async (url, text) => {
    const conversationId = url.slice(1);
    const input = JSON.parse(text) as { role: string; text: string };
    // the conversation's counter moved on under its row lock gives the turn its seq: turns at once each get their own
    const { rows } = await pool.query<{ seq: number; at: Date }>(
      `WITH c AS (
         UPDATE "Conversation" SET "lastSeq" = "lastSeq" + 1 WHERE "id" = $1::uuid RETURNING "orgId", "lastSeq"),
       m AS (
         INSERT INTO "ConversationMessage" ("id", "conversationId", "seq", "role", "text", "at")
         SELECT gen_random_uuid(), $1::uuid, c."lastSeq", $2, $3, now() FROM c
         RETURNING "seq", "at")
       INSERT INTO "Event" ("id", "type", "orgId", "occurredAt", "actorKind", "subjectType", "subjectId", "data")
       SELECT gen_random_uuid(), 'conversation.message_added', c."orgId", now(), 'apiKey', 'conversation', $1::text,
              jsonb_build_object('seq', m."seq", 'role', $2::text, 'length', length($3::text)) FROM m, c
       RETURNING (SELECT "seq" FROM m) AS "seq", now() AS "at"`,
      [conversationId, input.role, input.text],
    );
    if (!rows[0]) return { status: 404, body: '{}' };
    return { status: 200, body: JSON.stringify({ success: true, data: { ...rows[0], role: input.role, text: input.text } }) };
  };
} else {
  throw new Error('usage: baseline.ts constant|prisma|callCreate|deliver|transcriptRead|turnWrite');
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => answer(req.url ?? '/', Buffer.concat(chunks).toString('utf8'), res));
});
function answer(url: string, text: string, res: import('node:http').ServerResponse): void {
  handle(url, text).then(
    (r) => res.writeHead(r.status, { 'content-type': 'application/json' }).end(r.body),
    () => res.writeHead(500).end(),
  );
}
server.listen(0, '127.0.0.1', () =>
  process.stdout.write(JSON.stringify({ msg: 'listening', port: (server.address() as AddressInfo).port }) + '\n'),
);
process.on('SIGTERM', () => server.close(() => process.exit(0)));
