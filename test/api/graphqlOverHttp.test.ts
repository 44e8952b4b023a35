// GraphQL over HTTP (the spec of the GraphQL Foundation's working group): graphql-http's server audit
// suite run against /graphql through the app's fetch handler. Every audit must pass, the MUST ones
// (compliance) and the SHOULD ones (recommendations) alike.
import { serverAudits } from 'graphql-http';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/testApp.js';

const t = useTestApp();

// the audits send no credential: their queries are introspection-only (`{ __typename }`), which is public
const audits = serverAudits({
  url: 'http://127.0.0.1:4000/graphql',
  fetchFn: (input: RequestInfo | URL, init?: RequestInit) => Promise.resolve(t.app.fetch(new Request(input, init))),
});

// twice: the second pass finds every query the first one sent already validated, so its plain POSTs are
// answered by the prepared (compiled, direct) path rather than through yoga (src/graphql/preparedQueries.ts)
describe.each(['first pass (yoga)', 'second pass (prepared queries)'])('GraphQL over HTTP audits (graphql-http): %s', () => {
  it.each(audits.map((audit) => [audit.id, audit.name, audit] as const))('%s %s', async (_id, _name, audit) => {
    const result = await audit.fn();
    expect(
      result.status,
      result.status === 'ok' ? '' : `${result.reason}\n${JSON.stringify(await result.response?.text?.().catch(() => ''))}`,
    ).toBe('ok');
  });
});
