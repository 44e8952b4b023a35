// Global object identification (GraphQL `node`, `nodes`; src/graphql/schema/node.ts): any object by the UUID REST
// uses, `__typename` saying its kind, read with the scope, reach and budget of its own query field; another
// tenant's id answers null exactly like a missing one.
import { describe, expect, it } from 'vitest';
import { useTestApp, type TestApp } from '../support/testApp.js';

const t = useTestApp({ env: { RATE_LIMIT_PER_MINUTE: '1000000', CALL_REQUEST_READS_PER_SECOND: '1000000' } });

const MISSING = '00000000-0000-4000-8000-000000000000';
const NODE = `query($id: ID!) { node(id: $id) { __typename id
  ... on Organization { name } ... on Bot { name enabled } ... on PhoneNumber { number } ... on Insurance { name }
  ... on WorkflowTemplate { name version } ... on CallRequest { callRequestId status } ... on Conversation { conversationId medium }
  ... on CallBatch { recipients } ... on WebhookEndpoint { url } ... on Event { type } } }`;

const node = async (t: TestApp, id: string, token?: string) => {
  const res = await t.gql(NODE, { id }, token ? { token } : {});
  // the answer without its extensions (the budgets' counts move from one request to the next)
  const { extensions: _extensions, ...body } = res.body;
  return body as {
    data: { node: Record<string, unknown> | null } | null;
    errors?: { message: string; path?: unknown[]; extensions: { code: string } }[];
  };
};

describe('node(id)', () => {
  it('answers each kind of object by its id, with its __typename, as its own query field does', async () => {
    const d = t.demo;
    const webhook = await t.rest('POST', '/v1/webhook-endpoints', {
      json: { url: 'https://hooks.example.com/ocs', eventTypes: ['closure.*'] },
    });
    expect(webhook.status, JSON.stringify(webhook.body)).toBe(200);
    const event = (await t.rest('GET', '/v1/events?limit=1')).body.data.events[0];
    const conversation = (await t.rest('GET', '/v1/conversations?limit=1')).body.data.conversations[0];
    const cases: [string, string, Record<string, unknown>][] = [
      [d.organizations.clinic.id, 'Organization', { name: 'Bright Smiles Downtown' }],
      [d.bots.clinic[0]!, 'Bot', { name: 'Front desk', enabled: true }],
      [d.phoneNumbers.clinic[0]!, 'PhoneNumber', { number: '+15550101' }],
      [d.insurances.clinic[0]!, 'Insurance', { name: expect.any(String) }],
      [d.templates.clinic[0]!, 'WorkflowTemplate', { version: expect.any(Number) }],
      [d.callRequests.clinic.failed, 'CallRequest', { callRequestId: d.callRequests.clinic.failed, status: 'failed' }],
      [conversation.conversationId, 'Conversation', { conversationId: conversation.conversationId }],
      [webhook.body.data.id, 'WebhookEndpoint', { url: 'https://hooks.example.com/ocs' }],
      [event.id, 'Event', { type: event.type }],
    ];
    for (const [id, typename, fields] of cases) {
      const body = await node(t, id);
      expect(body.errors, `${typename}: ${JSON.stringify(body.errors)}`).toBeUndefined();
      expect(body.data!.node).toMatchObject({ __typename: typename, id, ...fields });
    }
    // the same id in upper case is the same object
    expect((await node(t, d.bots.clinic[0]!.toUpperCase())).data!.node).toMatchObject({ __typename: 'Bot', id: d.bots.clinic[0] });
  });

  it("answers another tenant's object, a sibling's, and a missing id alike: null, without an error", async () => {
    const d = t.demo;
    const missing = await node(t, MISSING);
    expect(missing).toEqual({ data: { node: null } });
    for (const id of [
      d.bots.other[0]!,
      d.phoneNumbers.other[0]!,
      d.organizations.other.id,
      d.organizations.clinic2.id,
      d.callRequests.other.queued,
    ]) {
      expect(await node(t, id)).toEqual(missing);
    }
    // the account reaches its location's objects
    const viaAccount = await node(t, d.bots.clinic2[0]!, d.organizations.account.apiKey);
    expect(viaAccount.data!.node).toMatchObject({ __typename: 'Bot', id: d.bots.clinic2[0] });
  });

  it('takes the scope of the kind read: FORBIDDEN on an own object the credential may not read; a malformed id is BAD_USER_INPUT', async () => {
    const key = await t.rest('POST', '/v1/api-keys', { json: { name: 'Bots only', scopes: ['bots:read'] } });
    const token = key.body.data.apiKey as string;
    expect((await node(t, t.demo.bots.clinic[0]!, token)).data!.node).toMatchObject({ __typename: 'Bot' });
    const refused = await node(t, t.demo.phoneNumbers.clinic[0]!, token);
    expect(refused.errors![0]!.extensions.code).toBe('FORBIDDEN');
    expect(refused.data).toEqual({ node: null });
    const malformed = await node(t, 'abc');
    expect(malformed.errors![0]!.extensions.code).toBe('BAD_USER_INPUT');
    expect(malformed.errors![0]!.message).toContain('id: must be a UUID');
  });

  it("reads a conversation's list fields without writing an access-log entry (no transcript is read)", async () => {
    const conversation = (await t.rest('GET', '/v1/conversations?limit=1')).body.data.conversations[0];
    const before = await t.deps.db.accessLogEntry.count();
    expect((await node(t, conversation.conversationId)).data!.node).toMatchObject({ __typename: 'Conversation' });
    expect(await t.deps.db.accessLogEntry.count()).toBe(before);
  });
});

describe('nodes(ids)', () => {
  it('answers the objects in the order asked, null for missing and foreign ones, and an error only at the item refused', async () => {
    const d = t.demo;
    const key = await t.rest('POST', '/v1/api-keys', { json: { name: 'Bots only', scopes: ['bots:read'] } });
    const res = await t.gql(
      'query($ids: [ID!]!) { nodes(ids: $ids) { __typename id } }',
      { ids: [d.bots.clinic[1], MISSING, d.bots.other[0], d.phoneNumbers.clinic[0], d.bots.clinic[0]] },
      { token: key.body.data.apiKey },
    );
    expect(res.body.data.nodes).toEqual([
      { __typename: 'Bot', id: d.bots.clinic[1] },
      null,
      null,
      null,
      { __typename: 'Bot', id: d.bots.clinic[0] },
    ]);
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors[0]).toMatchObject({ path: ['nodes', 3], extensions: { code: 'FORBIDDEN' } });
  });

  it('takes at most 100 ids, and names a malformed one by its index', async () => {
    const many = await t.gql('query($ids: [ID!]!) { nodes(ids: $ids) { id } }', { ids: Array.from({ length: 101 }, () => MISSING) });
    expect(many.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(many.body.errors[0].message).toContain('ids: must have at most 100 ids');
    const bad = await t.gql('query($ids: [ID!]!) { nodes(ids: $ids) { id } }', { ids: [MISSING, 'nope'] });
    expect(bad.body.errors[0].message).toContain('ids.1: must be a UUID');
  });

  it("draws on each kind's own budget, as reading each through its own field would", async () => {
    const res = await t.gql('query($ids: [ID!]!) { nodes(ids: $ids) { id } }', { ids: [t.demo.bots.clinic[0], t.demo.bots.clinic[1]] });
    const budgets = res.body.extensions.rateLimit.budgets as { pattern: string }[];
    expect(budgets.map((b) => b.pattern)).toEqual(expect.arrayContaining(['QUERY nodes', 'GET /v1/bots/:botId']));
    expect(res.body.extensions.rateLimit.cost).toBe(3);
  });

  it('takes 100 aliases of 100 ids each a few reads at a time: no 5xx, one lookup of the ids, and another tenant is answered meanwhile', async () => {
    const d = t.demo;
    const own = [d.organizations.clinic.id, ...d.bots.clinic, ...d.phoneNumbers.clinic, ...d.insurances.clinic];
    const ids = Array.from({ length: 100 }, (_, i) => (i < own.length ? own[i]! : i % 2 ? d.bots.other[0]! : MISSING));
    const query = `query($ids: [ID!]!) { ${Array.from({ length: 100 }, (_, i) => `a${i}: nodes(ids: $ids) { id }`).join(' ')} }`;
    let running = 0;
    let most = 0;
    const gate = t.db.gate;
    const acquire = gate.acquire.bind(gate);
    // how many statements wait or run at once, at most
    gate.acquire = async () => {
      running++;
      most = Math.max(most, running);
      try {
        const release = await acquire();
        return () => {
          running--;
          release();
        };
      } catch (err) {
        running--;
        throw err;
      }
    };
    try {
      const { result, sql } = await t.statements(async () => {
        const [big, other] = await Promise.all([
          t.gql(query, { ids }),
          // another tenant's ordinary read while the big one runs
          new Promise((resolve) => setTimeout(resolve, 50)).then(() =>
            t.rest('GET', `/v1/organizations/${d.organizations.other.id}`, { token: d.organizations.other.apiKey }),
          ),
        ]);
        return { big, other };
      });
      expect(result.big.status).toBe(200);
      expect(result.big.body.errors).toBeUndefined();
      const answered = Object.values(result.big.body.data as Record<string, ({ id: string } | null)[]>);
      expect(answered).toHaveLength(100);
      // every alias answers the own objects, and null for another tenant's and for missing ids
      for (const items of answered) expect(items.map((item) => item?.id ?? null)).toEqual(ids.map((id, i) => (i < own.length ? id : null)));
      expect(result.other.status).toBe(200);
      // the ids were looked up once for the whole operation, not once per alias
      expect(sql.filter((s) => s.includes('UNION ALL') && s.includes('"WebhookEndpoint"')).length).toBe(1);
      // the reads went a few at a time: the operation never held more than its share of the database's queue
      expect(most).toBeLessThanOrEqual(10);
    } finally {
      gate.acquire = acquire;
    }
  });
});
