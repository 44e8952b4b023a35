// GraphQL answers written in slices (src/graphql/slicedAnswers.ts): through yoga's own result processing,
// the same bytes as yoga writes without the plugin, and a large answer gives the event loop back while it
// becomes text.
import { createSchema, createYoga } from 'graphql-yoga';
import { describe, expect, it } from 'vitest';
import { slicedAnswers } from '../../src/graphql/slicedAnswers.js';

const schema = createSchema({
  typeDefs: 'type Item { n: Int!, text: String! } type Query { items(count: Int!): [Item!]!, fails: Int }',
  resolvers: {
    Query: {
      items: (_: unknown, { count }: { count: number }) =>
        Array.from({ length: count }, (_, n) => ({ n, text: `t${n} `.padEnd(400, 'x') })),
      fails: () => {
        throw new Error('boom');
      },
    },
  },
});

async function ask(withPlugin: boolean, query: string, accept = 'application/graphql-response+json') {
  const yoga = createYoga({ schema, logging: false, plugins: withPlugin ? [slicedAnswers()] : [] });
  let turns = 0;
  const ticking = setInterval(() => turns++, 0);
  try {
    const res = await yoga.fetch('http://localhost/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept },
      body: JSON.stringify({ query }),
    });
    return { status: res.status, type: res.headers.get('content-type'), body: await res.text(), turns };
  } finally {
    clearInterval(ticking);
  }
}

describe('GraphQL answers written in slices', () => {
  it('answers the bytes yoga answers, with and without errors, for both media types', async () => {
    for (const accept of ['application/graphql-response+json', 'application/json'])
      for (const query of ['{ items(count: 3) { n text } }', '{ fails }', '{ items(count: 2) { n } fails }']) {
        const [sliced, plain] = [await ask(true, query, accept), await ask(false, query, accept)];
        expect(sliced).toMatchObject({ status: plain.status, type: plain.type, body: plain.body });
      }
  });

  it('gives the event loop back while a large answer becomes text', async () => {
    const query = '{ items(count: 20000) { n text } }';
    const sliced = await ask(true, query);
    expect(JSON.parse(sliced.body).data.items).toHaveLength(20_000);
    expect(sliced.body).toBe((await ask(false, query)).body);
    expect(sliced.turns).toBeGreaterThan(0);
  });
});
