// Kept answers of prepared queries (src/graphql/answerMemo.ts, src/readmodel/keptAnswers.ts): a query
// of read-model records asked again is answered from its kept `data` — and what the client sees is what
// running it would answer: every budget drawn each time (the cost reported, 429 at the limit), a change to
// a record it read in the very next answer (made here, or heard from another instance), nothing of it for
// another credential, and nothing kept of an answer with an error or of a field that moves with the clock.
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/testApp.js';

const t = useTestApp({ env: { RATE_LIMIT_PER_MINUTE: '8' } });

const ORG =
  'query Org($id: ID!) { organization(id: $id) { id name officeHours { dayOfWeek isClosed open close breaks { start end reason greeting } } } }';

async function ask(body: Record<string, unknown>, token = t.demo.organizations.clinic.apiKey) {
  const res = await t.app.fetch(
    new Request('http://127.0.0.1/graphql', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
    }),
  );
  return { status: res.status, headers: res.headers, body: JSON.parse(await res.text()) };
}

const kept = () => t.deps.readModel.stats().answers;
const orgBody = () => ({ query: ORG, variables: { id: t.demo.organizations.clinic.id } });
const monday = (answer: { body: any }) =>
  answer.body.data.organization.officeHours.find((d: { dayOfWeek: string }) => d.dayOfWeek === 'MONDAY');

/** Asks until the answer is a kept one (the first run compiles the query, the second remembers the body, the third keeps its answer). */
async function askUntilKept(body: Record<string, unknown>) {
  for (let i = 0; i < 3; i++) await ask(body);
  const before = kept().hits;
  const answer = await ask(body);
  expect(kept().hits).toBe(before + 1);
  return answer;
}

describe('a kept answer', () => {
  it('is what running the query answers, its budgets drawn every time, until the limit answers 429', async () => {
    const first = await ask(orgBody());
    const answer = await askUntilKept(orgBody());
    expect(answer.status).toBe(200);
    expect(answer.body.data).toEqual(first.body.data);
    const remaining = (a: { body: any }) => a.body.extensions.rateLimit.budgets.map((b: { remaining: number }) => b.remaining);
    expect(answer.body.extensions.rateLimit.cost).toBe(2);
    // the fifth request: 5 of 8 drawn on each budget, the kept answer's too
    expect(remaining(answer)).toEqual([3, 3]);
    for (let n = 6; n <= 8; n++) expect(remaining(await ask(orgBody()))).toEqual([8 - n, 8 - n]);
    const limited = await ask(orgBody());
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBeTruthy();
    expect(limited.body.errors[0].extensions.code).toBe('RATE_LIMITED');
    expect(limited.body.data).toEqual({ organization: null });
  });

  it('gives way to a change of a record it read, made here', async () => {
    await askUntilKept(orgBody());
    const set = await t.rest('POST', `/v1/organizations/${t.demo.organizations.clinic.id}/office-hours`, {
      json: { dayOfWeek: 'MONDAY', isClosed: false, open: '07:15', close: '11:45' },
    });
    expect(set.status).toBe(200);
    expect(monday(await ask(orgBody()))).toMatchObject({ open: '07:15', close: '11:45' });
    const renamed = await ask({
      query: 'mutation($id: ID!) { disableOrganization(orgId: $id) { status } }',
      variables: { id: t.demo.organizations.clinic.id },
    });
    expect(renamed.status).toBe(200);
    await askUntilKept(orgBody());
  });

  it('gives way to a change heard from another instance (its event read from the log)', async () => {
    await t.rest('POST', `/v1/organizations/${t.demo.organizations.clinic.id}/office-hours`, {
      json: { dayOfWeek: 'MONDAY', isClosed: false, open: '08:00', close: '17:00' },
    });
    const before = monday(await askUntilKept(orgBody()));
    expect(before).toMatchObject({ open: '08:00' });
    // another instance's write: the database changed, and this instance hears its event (changes/eventTail.ts)
    await t.deps.db.officeHours.updateMany({
      where: { orgId: t.demo.organizations.clinic.id, dayOfWeek: 'MONDAY' },
      data: { open: '06:05' },
    });
    expect(monday(await ask(orgBody()))).toEqual(before); // nothing heard yet: what the read model holds
    t.deps.changes.apply({ kind: 'officeHours', orgId: t.demo.organizations.clinic.id });
    expect(monday(await ask(orgBody()))).toMatchObject({ open: '06:05' });
  });

  it('is never another credential’s: a key without the scope, or another tenant’s, is answered as if nothing were kept', async () => {
    await askUntilKept(orgBody());
    const created = await t.rest('POST', '/v1/api-keys', { json: { name: 'Closures only', scopes: ['closures:read'] } });
    const weak = await ask(orgBody(), created.body.data.apiKey as string);
    expect(weak.body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect(JSON.stringify(weak.body)).not.toContain('officeHours":[');
    // another tenant's key sending the very body: not found, as without a kept answer
    const theirs = await ask(orgBody(), t.demo.organizations.other.apiKey);
    expect(theirs.body.errors[0].extensions.code).toBe('NOT_FOUND');
    expect(theirs.body.data).toEqual({ organization: null });
  });

  it('draws every alias’s budgets, as running the query would', async () => {
    const aliased = {
      query:
        'query Two($id: ID!) { a: organization(id: $id) { officeHours { dayOfWeek } } b: organization(id: $id) { officeHours { dayOfWeek } } }',
      variables: { id: t.demo.organizations.clinic.id },
    };
    // the fourth request is the kept answer: two occurrences of each budget per request, 8 of 8 drawn
    const answer = await askUntilKept(aliased);
    expect(answer.body.extensions.rateLimit).toMatchObject({ cost: 4, budgets: [{ remaining: 0 }, { remaining: 0 }] });
    const limited = await ask(aliased);
    expect(limited.status).toBe(429);
    expect(limited.body.data).toEqual({ a: null, b: null });
  });

  it('is an OAuth client’s too, for as long as its token, client and owner are unchanged', async () => {
    const token = await t.accessToken('clinic');
    for (let i = 0; i < 3; i++) await ask(orgBody(), token);
    const before = kept().hits;
    expect((await ask(orgBody(), token)).body.data.organization.id).toBe(t.demo.organizations.clinic.id);
    expect(kept().hits).toBe(before + 1);
    // the client's scopes change: a new actor, refused as it would be without a kept answer
    const client = await t.deps.db.oAuthClient.findFirstOrThrow({ where: { clientId: t.demo.oauthClients.clinic.clientId } });
    const changed = await t.rest('PUT', `/v1/oauth-clients/${client.id}/scopes`, { json: { scopes: ['closures:read'] } });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect((await ask(orgBody(), token)).body.errors[0].extensions.code).toBe('FORBIDDEN');
  });

  it('is never made of an answer with an error, nor of a field that moves with the clock', async () => {
    const other = { query: ORG, variables: { id: t.demo.organizations.other.id } };
    for (let i = 0; i < 5; i++) expect((await ask(other)).body.errors[0].extensions.code).toBe('NOT_FOUND');
    const hits = kept().hits;
    const availability = {
      query: 'query A($id: ID!) { organization(id: $id) { availability(medium: PHONE) { state } } }',
      variables: { id: t.demo.organizations.clinic.id },
    };
    await t.rest('PUT', `/v1/organizations/${t.demo.organizations.clinic.id}/office-hours`, {
      json: {
        officeHours: ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'].map((dayOfWeek) => ({
          dayOfWeek,
          isClosed: false,
          open: '09:00',
          close: '17:00',
        })),
      },
    });
    t.clock.set('2026-03-09T13:30:00Z'); // 09:30 in New York
    for (let i = 0; i < 3; i++) expect((await ask(availability)).body.data.organization.availability.state).toBe('OPEN');
    t.clock.set('2026-03-09T23:30:00Z'); // 19:30
    expect((await ask(availability)).body.data.organization.availability.state).toBe('CLOSED');
    expect(kept().hits).toBe(hits);
  });
});
