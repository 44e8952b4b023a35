// The baselines: the least work that answers the same question, in a bare node:http server.
//   constant — a constant JSON body (what the machine, Node and the load generator can do at all);
//   prisma   — one Prisma organization.findUnique by primary key on the PostgreSQL of BENCH_POSTGRES_URL
//              (the least database work an organization read needs), answered as JSON;
//   callCreate — a POST of a call request: one statement (one transaction) on that PostgreSQL inserting the
//              request row and its event row, answered as JSON (the least work a placed call needs: no
//              authentication, no checks). BENCH_ORG_ID names the organization the rows belong to.
// Prints {"msg":"listening","port":…} once ready.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
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
} else {
  throw new Error('usage: baseline.ts constant|prisma|callCreate');
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
