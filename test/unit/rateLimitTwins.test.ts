// The GraphQL → REST twin table of the rate limits stays in step with the route registry and the schema.
import { isObjectType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { schema } from '../../src/graphql/schema/index.js';
import { budgetOfRootField, GRAPHQL_TWINS } from '../../src/graphql/rateLimitTwins.js';
import { allRoutes } from '../../src/rest/routes/index.js';

const allFields = () =>
  Object.values(schema.getTypeMap()).flatMap((type) =>
    isObjectType(type) ? Object.keys(type.getFields()).map((f) => `${type.name}.${f}`) : [],
  );
const rootFields = () =>
  [schema.getQueryType()!, schema.getMutationType()!].flatMap((type) => Object.keys(type.getFields()).map((f) => `${type.name}.${f}`));

describe('rate-limit twins', () => {
  it('names only registered REST patterns and existing fields', () => {
    const patterns = new Set(allRoutes.map((r) => `${r.method} ${r.path}`));
    for (const [field, pattern] of Object.entries(GRAPHQL_TWINS)) {
      expect(patterns, field).toContain(pattern);
      expect(allFields(), pattern).toContain(field);
    }
  });

  it("gives every REST read of an organization's data a GraphQL twin field", () => {
    const twinned = new Set(Object.values(GRAPHQL_TWINS));
    // a single closure or special day is read in GraphQL within its organization's list (Organization.closures, .specialHours)
    const reads = allRoutes
      .filter(
        (r) =>
          r.method === 'GET' &&
          r.path.startsWith('/v1/organizations/:orgId') &&
          !r.path.includes(':closureId') &&
          !r.path.includes(':specialHoursId'),
      )
      .map((r) => `GET ${r.path}`);
    expect(reads.filter((p) => !twinned.has(p))).toEqual([]);
  });

  it('gives every root field a budget: its twin, the polling budget, or its own pattern', () => {
    const own = rootFields().filter((f) => {
      const [type, field] = f.split('.') as [string, string];
      return /^(QUERY|MUTATION) /.test(budgetOfRootField(type, field).pattern);
    });
    // node and nodes have no REST twin of their own: each object they read draws on its own field's budget besides
    // (graphql/schema/node.ts, tested in test/api/nodes.test.ts)
    expect(own).toEqual(['Query.node', 'Query.nodes', 'Query.viewer']);
    expect(budgetOfRootField('Query', 'callRequest').budget).toBe('callRequestPoll');
    const pollRoute = allRoutes.find((r) => r.path === '/v1/call-requests/:callRequestId');
    expect(pollRoute?.budget).toBe('callRequestPoll');
  });
});
