// The fastest peers, answering the same bodies as the service from memory, with no authentication, no
// budgets, no logging: what a bare framework costs for the same question.
//   fastify   — Fastify serving, on the service's REST paths, the exact bodies the service answered
//               (BENCH_PEER_BODIES: a JSON file {path: body} the benchmark wrote from the service's own answers),
//               and to a POST of /graphql the service's GraphQL answer: the same framework answering the same
//               bytes to a POST and to a GET, what the transport alone makes of GraphQL vs REST;
//   mercurius — Fastify + Mercurius with graphql-jit (`jit: 1`: every query compiled on its first run)
//               answering `organization(id) { id name officeHours { … } }` from the same data in memory.
// Prints {"msg":"listening","port":…} once ready.
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';
import mercurius from 'mercurius';

const mode = process.argv[2];
const bodies = JSON.parse(readFileSync(process.env.BENCH_PEER_BODIES!, 'utf8')) as Record<string, string>;
const app = Fastify({ logger: false });

if (mode === 'fastify') {
  // the service's paths with their query strings, as the benchmark asks them
  app.get('*', async (request, reply) => {
    const body = bodies[request.url];
    if (body === undefined) return reply.code(404).send({ success: false, data: {}, message: 'unknown path' });
    return reply.type('application/json').send(body);
  });
  app.post('/graphql', async (_request, reply) => reply.type('application/json').send(bodies['graphql:organization']));
} else if (mode === 'mercurius') {
  const organization = (JSON.parse(bodies['graphql:organization']!) as { data: { organization: unknown } }).data.organization;
  const schema = `
    type Break { start: String! end: String! reason: String! greeting: String! }
    type OfficeHours { dayOfWeek: String! isClosed: Boolean! open: String close: String breaks: [Break!]! }
    type Organization { id: ID! name: String! officeHours: [OfficeHours!]! }
    type Query { organization(id: ID!): Organization }
  `;
  await app.register(mercurius, { schema, resolvers: { Query: { organization: () => Promise.resolve(organization) } }, jit: 1 });
} else {
  throw new Error('usage: peers.ts fastify|mercurius');
}

const address = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(JSON.stringify({ msg: 'listening', port: Number(new URL(address).port) }) + '\n');
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
