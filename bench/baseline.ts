// The baselines: the least work that answers the same question, in a bare node:http server.
//   constant — a constant JSON body (what the machine, Node and the load generator can do at all);
//   prisma   — one Prisma organization.findUnique by primary key on the PostgreSQL of BENCH_POSTGRES_URL
//              (the least database work an organization read needs), answered as JSON.
// Prints {"msg":"listening","port":…} once ready.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '../src/generated/prisma/client.js';

const mode = process.argv[2];
const body = JSON.stringify({ success: true, data: { status: 'ok', name: 'Bright Smiles Downtown', timezone: 'America/New_York' } });

let handle: (url: string) => Promise<{ status: number; body: string }>;
if (mode === 'constant') {
  handle = () => Promise.resolve({ status: 200, body });
} else if (mode === 'prisma') {
  const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: process.env.BENCH_POSTGRES_URL!, max: 10 }) });
  handle = async (url) => {
    const id = url.split('/')[3]!;
    const org = await prisma.organization.findUnique({ where: { id } });
    return org ? { status: 200, body: JSON.stringify({ success: true, data: org }) } : { status: 404, body: '{}' };
  };
} else {
  throw new Error('usage: baseline.ts constant|prisma');
}

const server = createServer((req, res) => {
  handle(req.url ?? '/').then(
    (r) => res.writeHead(r.status, { 'content-type': 'application/json' }).end(r.body),
    () => res.writeHead(500).end(),
  );
});
server.listen(0, '127.0.0.1', () =>
  process.stdout.write(JSON.stringify({ msg: 'listening', port: (server.address() as AddressInfo).port }) + '\n'),
);
process.on('SIGTERM', () => server.close(() => process.exit(0)));
