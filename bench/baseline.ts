// The baseline: a bare node:http server doing the same database work as GET /v1/organizations/:orgId
// (find the API key by its hash with its organization, then read the organization) on its own
// in-memory PGlite with the same migrations and demo data — no router, no envelope code, no limits.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hashSecret } from '../src/auth/secrets.js';
import { openDatabase } from '../src/db/client.js';
import { applyMigrations } from '../src/db/migrations.js';
import { createDemoData } from '../src/demo/demoData.js';

const database = await openDatabase('pglite:memory');
await applyMigrations(database.adapterFactory);
const demo = await createDemoData(database.prisma, 'http://127.0.0.1/v1');
const db = database.prisma;

const server = createServer(async (req, res) => {
  const key = (req.headers.authorization ?? '').replace(/^Bearer /, '');
  const row = await db.apiKey.findUnique({ where: { hash: hashSecret(key) }, include: { org: { select: { id: true, isAccount: true, children: { select: { id: true } } } } } });
  if (!row) {
    res.writeHead(401).end();
    return;
  }
  const id = req.url!.split('/')[3]!;
  const org = await db.organization.findUnique({ where: { id }, include: { children: { select: { id: true } } } });
  res.writeHead(org ? 200 : 404, { 'content-type': 'application/json' }).end(JSON.stringify({ success: true, data: org }));
});
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(JSON.stringify({ msg: 'listening', port, apiKey: demo.organizations.clinic.apiKey, orgId: demo.organizations.clinic.id }) + '\n');
});
process.on('SIGTERM', () => server.close(() => void database.close().then(() => process.exit(0))));
