// The events API: GET /v1/events and /v1/events/{id}, and their GraphQL twins `events` and `event`:
// newest first, cursor pages, filters, reach (an account sees its children's events, a foreign
// tenant's event is a 404), the scope events:read, and retention.
import { describe, expect, it } from 'vitest';
import { createOAuthClient } from '../../src/auth/provisioning.js';
import { useTestApp, type TestApp } from '../support/testApp.js';
import type { Schemas } from '../support/apiTypes.js';

const t = useTestApp();

const closureBody = (description: string) => ({ description, annualDate: { month: 12, day: 25 }, chatGreeting: null, phoneGreeting: null });

/** Three changes of the clinic (closure created, updated; insurance updated), one of clinic2, one of the other tenant; a minute apart. */
async function makeChanges(t: TestApp) {
  const d = t.demo.organizations;
  t.clock.set('2026-03-02T15:00:00Z');
  const closure = (await t.rest('POST', `/v1/organizations/${d.clinic.id}/closures`, { json: closureBody('Christmas') })).body.data
    .id as string;
  t.clock.advance(60_000);
  await t.rest('POST', `/v1/organizations/${d.clinic.id}/closures/${closure}`, {
    json: { description: 'Christmas Day', annualDate: { month: 12, day: 25 } },
  });
  t.clock.advance(60_000);
  await t.rest('PATCH', `/v1/organizations/${d.clinic.id}/insurances/${t.demo.insurances.clinic[0]}`, { json: { notes: 'Checked' } });
  t.clock.advance(60_000);
  await t.rest('POST', `/v1/organizations/${d.clinic2.id}/closures`, { token: d.account.apiKey, json: closureBody('Lakeside') });
  t.clock.advance(60_000);
  await t.rest('POST', `/v1/organizations/${d.other.id}/closures`, { token: d.other.apiKey, json: closureBody('Weihnachten') });
  t.clock.advance(60_000);
  return { closure };
}

describe('GET /v1/events', () => {
  it("lists the caller's events newest first, with who changed what, and pages by cursor", async () => {
    const { closure } = await makeChanges(t);
    const first = await t.rest('GET', '/v1/events?limit=2');
    expect(first.status).toBe(200);
    expect(first.body.data.events.map((e: Schemas['Event']) => e.type)).toEqual(['insurance.updated', 'closure.updated']);
    const updated = first.body.data.events[1];
    expect(updated).toMatchObject({
      orgId: t.demo.organizations.clinic.id,
      occurredAt: '2026-03-02T15:01:00.000Z',
      actor: { kind: 'apiKey', name: 'Demo key' },
      subject: { type: 'closure', id: closure },
      data: { id: closure, description: 'Christmas Day' },
      previous: { description: 'Christmas' },
    });
    const next = await t.rest('GET', `/v1/events?limit=2&cursor=${encodeURIComponent(first.body.data.pagination.nextCursor)}`);
    expect(next.body.data.events.map((e: Schemas['Event']) => e.type)).toEqual(['closure.created']);
    expect(next.body.data.pagination.nextCursor).toBeNull();
    // a cursor is bound to its filters
    const other = await t.rest(
      'GET',
      `/v1/events?limit=2&type=closure.*&cursor=${encodeURIComponent(first.body.data.pagination.nextCursor)}`,
    );
    expect(other.status).toBe(400);
    expect(JSON.stringify(other.body)).toContain('cursor');
  });

  it("an account's key sees its children's events; a clinic sees neither its sibling's nor another tenant's", async () => {
    await makeChanges(t);
    const account = await t.rest('GET', '/v1/events', { token: t.demo.organizations.account.apiKey });
    expect(account.body.data.events.map((e: Schemas['Event']) => e.orgId).sort()).toEqual(
      [
        t.demo.organizations.clinic.id,
        t.demo.organizations.clinic.id,
        t.demo.organizations.clinic.id,
        t.demo.organizations.clinic2.id,
      ].sort(),
    );
    const clinic = await t.rest('GET', '/v1/events');
    expect(clinic.body.data.events).toHaveLength(3);
    expect((await t.rest('GET', `/v1/events?orgId=${t.demo.organizations.other.id}`)).status).toBe(404);
    expect((await t.rest('GET', `/v1/events?orgId=${t.demo.organizations.clinic2.id}`)).status).toBe(404);
    const foreign = (await t.rest('GET', '/v1/events', { token: t.demo.organizations.other.apiKey })).body.data.events[0];
    const asClinic = await t.rest('GET', `/v1/events/${foreign.id}`);
    expect(asClinic.status).toBe(404);
    const missing = await t.rest('GET', '/v1/events/00000000-0000-4000-8000-000000000000');
    expect(asClinic.body).toEqual({ ...missing.body, requestId: asClinic.body.requestId });
    expect((await t.rest('GET', `/v1/events/${foreign.id}`, { token: t.demo.organizations.other.apiKey })).body.data).toEqual(foreign);
  });

  it('filters by type (names and families), organization, subject and time', async () => {
    const { closure } = await makeChanges(t);
    const types = async (query: string, token?: string) =>
      (await t.rest('GET', `/v1/events?${query}`, { token })).body.data.events.map((e: Schemas['Event']) => e.type);
    expect(await types('type=closure.*')).toEqual(['closure.updated', 'closure.created']);
    expect(await types('type=insurance.updated,closure.created')).toEqual(['insurance.updated', 'closure.created']);
    expect(await types(`subjectId=${closure}`)).toEqual(['closure.updated', 'closure.created']);
    expect(await types(`orgId=${t.demo.organizations.clinic2.id}`, t.demo.organizations.account.apiKey)).toEqual(['closure.created']);
    expect(await types('from=2026-03-02T15:01:00Z&to=2026-03-02T15:02:00Z')).toEqual(['closure.updated']);
    const bad = await t.rest('GET', '/v1/events?type=closure.exploded');
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('type');
    expect((await t.rest('GET', '/v1/events?typo=closure.*')).status).toBe(400);
    expect((await t.rest('GET', '/v1/events?from=yesterday')).status).toBe(400);
  });

  it('needs the scope events:read (the read-only client holds it; a client without it is refused)', async () => {
    await makeChanges(t);
    const readOnly = await t.accessToken('clinicReadOnly');
    expect((await t.rest('GET', '/v1/events', { token: readOnly })).body.data.events).toHaveLength(3);
    const client = await createOAuthClient(t.deps.db, t.demo.organizations.clinic.id, ['closures:read'], 'Closures only');
    const token = await t.rest('POST', '/oauth/token', {
      token: null,
      json: {
        grant_type: 'client_credentials',
        client_id: client.clientId,
        client_secret: client.clientSecret,
        audience: t.deps.config.oauthAudience,
      },
    });
    const refused = await t.rest('GET', '/v1/events', { token: token.body.access_token });
    expect(refused.status).toBe(403);
    expect(JSON.stringify(refused.body)).toContain('events:read');
  });

  it('keeps events EVENT_RETENTION_DAYS (30): older ones are neither listed nor found', async () => {
    await makeChanges(t);
    const id = (await t.rest('GET', '/v1/events')).body.data.events[0].id;
    t.clock.advance(30 * 24 * 60 * 60 * 1000);
    expect((await t.rest('GET', '/v1/events')).body.data.events).toEqual([]);
    expect((await t.rest('GET', `/v1/events/${id}`)).status).toBe(404);
    expect(await t.deps.db.event.count({ where: { orgId: t.demo.organizations.clinic.id } })).toBe(0);
  });
});

describe('GraphQL events and event', () => {
  const EVENTS = `query($first: Int, $after: String, $filter: EventFilter) {
    events(first: $first, after: $after, filter: $filter) {
      edges { cursor node { id type orgId occurredAt actor { kind id name } subject { type id } data previous } }
      pageInfo { hasNextPage endCursor }
    }
  }`;

  it('answers the same events as REST, with the same filters and cursors', async () => {
    await makeChanges(t);
    const rest = (await t.rest('GET', '/v1/events?type=closure.*&limit=1')).body.data;
    const res = await t.gql(EVENTS, { first: 1, filter: { type: ['closure.*'] } });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.events.edges.map((e: { node: { type: string } }) => e.node)).toEqual(rest.events);
    expect(res.body.data.events.pageInfo).toEqual({ hasNextPage: true, endCursor: rest.pagination.nextCursor });
    const next = await t.gql(EVENTS, { first: 5, after: rest.pagination.nextCursor, filter: { type: ['closure.*'] } });
    expect(next.body.data.events.edges.map((e: { node: { type: string } }) => e.node.type)).toEqual(['closure.created']);
    const timed = await t.gql(EVENTS, { filter: { from: '2026-03-02T15:01:00Z', to: '2026-03-02T15:02:00Z' } });
    expect(timed.body.data.events.edges.map((e: { node: { type: string } }) => e.node.type)).toEqual(['closure.updated']);
  });

  it("event(id) answers one event; another tenant's is NOT_FOUND like a missing one", async () => {
    await makeChanges(t);
    const own = (await t.rest('GET', '/v1/events')).body.data.events[0];
    const QUERY = 'query($id: ID!) { event(id: $id) { id type actor { kind name } } }';
    expect((await t.gql(QUERY, { id: own.id })).body.data.event).toEqual({
      id: own.id,
      type: own.type,
      actor: { kind: 'apiKey', name: 'Demo key' },
    });
    const foreign = (await t.rest('GET', '/v1/events', { token: t.demo.organizations.other.apiKey })).body.data.events[0];
    const res = await t.gql(QUERY, { id: foreign.id });
    expect(res.body.errors[0].extensions.code).toBe('NOT_FOUND');
    const inaccessible = await t.gql(EVENTS, { filter: { orgId: t.demo.organizations.other.id } });
    expect(inaccessible.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });
});
