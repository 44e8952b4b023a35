// The SQL statements of every main REST route and GraphQL operation, counted under the driver adapter
// (every statement Prisma sends passes the instrumented adapter). Each is measured cold (the read model
// emptied first) and warm (the same request again), and compared with the budget below: a change that
// makes an operation send more statements fails here. A change that makes one send fewer fails too,
// until its budget is lowered — so that the gain is kept.
//
// The nested GraphQL operation is measured for an account with 2 children and again with 5: the
// number of statements must not grow with children × fields (per-request batches, domain/shared/batch.ts).
import { describe, expect, it } from 'vitest';
import { createOrganization } from '../../src/auth/provisioning.js';
import { useTestApp } from '../support/testApp.js';

const t = useTestApp();

interface Budget {
  cold: number;
  warm: number;
}

/**
 * Statements per request, cold and warm. Lower a budget when an operation needs fewer. (A disable that
 * changes something makes the next request reload the organization: its warm count includes that.
 * A write that changes something appends its event in its transaction, one statement more; an update
 * first reads the row it replaces, for the event's `previous`.)
 */
const BUDGETS: Record<string, Budget> = {
  'GET /v1/organizations/:orgId': { cold: 2, warm: 0 },
  'GET /v1/organizations/:orgId/availability': { cold: 3, warm: 0 },
  'GET /v1/organizations/:orgId/office-hours': { cold: 3, warm: 0 },
  'POST /v1/organizations/:orgId/office-hours': { cold: 12, warm: 9 },
  'GET /v1/organizations/:orgId/closures': { cold: 3, warm: 1 },
  // creates lock the organization's row and count its list before inserting (domain/shared/listLimits.ts), and append an event
  // a timed closure also counts the closures within 31 days of it (domain/schedule/closures.ts, the timeline's bound)
  'POST /v1/organizations/:orgId/closures': { cold: 7, warm: 5 },
  'GET /v1/organizations/:orgId/closures/:closureId': { cold: 3, warm: 1 },
  'POST /v1/organizations/:orgId/closures/:closureId': { cold: 5, warm: 2 },
  'DELETE /v1/organizations/:orgId/closures/:closureId': { cold: 4, warm: 2 },
  'GET /v1/templates': { cold: 3, warm: 1 },
  'POST /v1/templates': { cold: 6, warm: 4 },
  'PUT /v1/templates/:templateId': { cold: 6, warm: 3 },
  'GET /v1/organizations/:orgId/bots': { cold: 3, warm: 1 },
  'GET /v1/bots/:botId/workflows': { cold: 5, warm: 3 },
  'GET /v1/organizations/:orgId/phone-numbers': { cold: 3, warm: 1 },
  'POST /v1/phone-numbers/:phoneNumberId/attach': { cold: 6, warm: 3 },
  'GET /v1/organizations/:orgId/insurances': { cold: 3, warm: 1 },
  'PATCH /v1/organizations/:orgId/insurances/:insuranceId': { cold: 5, warm: 2 },
  'GET /v1/call-requests/:callRequestId': { cold: 3, warm: 1 },
  'GET /v1/conversations': { cold: 4, warm: 2 },
  'POST /v1/organizations/:orgId/disable': { cold: 4, warm: 2 },
  'GraphQL viewer': { cold: 2, warm: 0 },
  'GraphQL organization officeHours': { cold: 3, warm: 0 },
  'GraphQL organization availability': { cold: 3, warm: 0 },
  'GraphQL organization lists': { cold: 6, warm: 4 },
  'GraphQL account children × fields': { cold: 7, warm: 3 },
  'GraphQL templates': { cold: 3, warm: 1 },
  'GraphQL conversations': { cold: 4, warm: 2 },
  'GraphQL createClosure': { cold: 6, warm: 4 },
  'GraphQL setOfficeHours': { cold: 11, warm: 8 },
};

type Call = () => Promise<{ status: number; body: unknown }>;

/** Statements of `call` cold (read model emptied) and warm (called again, caches filled). */
async function measure(call: Call): Promise<Budget> {
  t.deps.readModel.clear();
  const cold = await t.statements(call);
  expect(cold.result.status, JSON.stringify(cold.result.body)).toBe(200);
  const warm = await t.statements(call);
  expect(warm.result.status, JSON.stringify(warm.result.body)).toBe(200);
  return { cold: cold.sql.length, warm: warm.sql.length };
}

const gqlOk =
  (query: string, variables: Record<string, unknown> = {}, token?: string): Call =>
  async () => {
    const res = await t.gql(query, variables, token === undefined ? {} : { token });
    return { status: res.body.errors ? 500 : res.status, body: res.body };
  };

describe('SQL statements per operation', () => {
  it('stay within their budgets on every main REST route and GraphQL operation', async () => {
    const d = t.demo;
    const org = d.organizations.clinic.id;
    const closureBody = {
      description: 'Training',
      startAt: '2026-03-10T13:00:00Z',
      endAt: '2026-03-10T17:00:00Z',
      chatGreeting: null,
      phoneGreeting: null,
    };
    const created = await t.rest('POST', `/v1/organizations/${org}/closures`, { json: closureBody });
    const closureId = created.body.data.id as string;
    // one closure for the cold deletion, one for the warm one
    const toDelete: string[] = [];
    for (let i = 0; i < 2; i++)
      toDelete.push((await t.rest('POST', `/v1/organizations/${org}/closures`, { json: closureBody })).body.data.id);
    const day = {
      dayOfWeek: 'MONDAY',
      isClosed: false,
      open: '09:00',
      close: '17:00',
      breaks: [{ start: '12:00', end: '13:00', reason: 'Lunch', greeting: 'At lunch' }],
    };

    const calls: Record<string, Call> = {
      'GET /v1/organizations/:orgId': () => t.rest('GET', `/v1/organizations/${org}`),
      'GET /v1/organizations/:orgId/availability': () =>
        t.rest('GET', `/v1/organizations/${org}/availability?medium=PHONE&phoneNumberId=${d.phoneNumbers.clinic[0]}`),
      'GET /v1/organizations/:orgId/office-hours': () => t.rest('GET', `/v1/organizations/${org}/office-hours`),
      'POST /v1/organizations/:orgId/office-hours': () => t.rest('POST', `/v1/organizations/${org}/office-hours`, { json: day }),
      'GET /v1/organizations/:orgId/closures': () => t.rest('GET', `/v1/organizations/${org}/closures`),
      'POST /v1/organizations/:orgId/closures': () => t.rest('POST', `/v1/organizations/${org}/closures`, { json: closureBody }),
      'GET /v1/organizations/:orgId/closures/:closureId': () => t.rest('GET', `/v1/organizations/${org}/closures/${closureId}`),
      'POST /v1/organizations/:orgId/closures/:closureId': () =>
        t.rest('POST', `/v1/organizations/${org}/closures/${closureId}`, {
          json: { description: 'Moved', annualDate: { month: 7, day: 4 } },
        }),
      'DELETE /v1/organizations/:orgId/closures/:closureId': () =>
        t.rest('DELETE', `/v1/organizations/${org}/closures/${toDelete.shift()}`),
      'GET /v1/templates': () => t.rest('GET', '/v1/templates'),
      'POST /v1/templates': () => t.rest('POST', '/v1/templates', { json: { name: 'After hours' } }),
      'PUT /v1/templates/:templateId': () => t.rest('PUT', `/v1/templates/${d.templates.clinic[0]}`, { json: { description: 'Changed' } }),
      'GET /v1/organizations/:orgId/bots': () => t.rest('GET', `/v1/organizations/${org}/bots`),
      'GET /v1/bots/:botId/workflows': () => t.rest('GET', `/v1/bots/${d.bots.clinic[0]}/workflows`),
      'GET /v1/organizations/:orgId/phone-numbers': () => t.rest('GET', `/v1/organizations/${org}/phone-numbers`),
      'POST /v1/phone-numbers/:phoneNumberId/attach': () =>
        t.rest('POST', `/v1/phone-numbers/${d.phoneNumbers.clinic[1]}/attach`, { json: { botId: d.bots.clinic[0] } }),
      'GET /v1/organizations/:orgId/insurances': () => t.rest('GET', `/v1/organizations/${org}/insurances`),
      'PATCH /v1/organizations/:orgId/insurances/:insuranceId': () =>
        t.rest('PATCH', `/v1/organizations/${org}/insurances/${d.insurances.clinic[0]}`, { json: { notes: 'Checked' } }),
      'GET /v1/call-requests/:callRequestId': () => t.rest('GET', `/v1/call-requests/${d.callRequests.clinic.failed}`),
      'GET /v1/conversations': () => t.rest('GET', '/v1/conversations?limit=20'),
      'POST /v1/organizations/:orgId/disable': () => t.rest('POST', `/v1/organizations/${org}/disable`),
      'GraphQL viewer': gqlOk('{ viewer { scopes organization { id name } } }'),
      'GraphQL organization officeHours': gqlOk(
        'query($id: ID!) { organization(id: $id) { id name officeHours { dayOfWeek isClosed open close breaks { start end } } } }',
        { id: org },
      ),
      'GraphQL organization availability': gqlOk(
        'query($id: ID!) { organization(id: $id) { availability(medium: PHONE) { state greeting nextChangeAt } } }',
        { id: org },
      ),
      'GraphQL organization lists': gqlOk(
        'query($id: ID!) { organization(id: $id) { closures { id } phoneNumbers { id } insurances { id } bots { id } } }',
        { id: org },
      ),
      'GraphQL account children × fields': gqlOk(
        'query($id: ID!) { organization(id: $id) { children { id closures { id } officeHours { dayOfWeek } phoneNumbers { id } insurances { id } } } }',
        { id: d.organizations.account.id },
        d.organizations.account.apiKey,
      ),
      'GraphQL templates': gqlOk('{ templates { id name workflow { title } } }'),
      'GraphQL conversations': gqlOk('{ conversations(limit: 20) { items { conversationId } pagination { totalCount } } }'),
      'GraphQL createClosure': gqlOk(
        'mutation($id: ID!) { createClosure(orgId: $id, input: {description: "Holiday", annualDate: {month: 12, day: 25}, chatGreeting: null, phoneGreeting: null}) { id } }',
        { id: org },
      ),
      'GraphQL setOfficeHours': gqlOk(
        'mutation($id: ID!) { setOfficeHours(orgId: $id, input: {dayOfWeek: TUESDAY, isClosed: false, open: "08:00", close: "16:00", breaks: []}) { dayOfWeek } }',
        { id: org },
      ),
    };

    expect(Object.keys(calls).sort()).toEqual(Object.keys(BUDGETS).sort());
    const measured: Record<string, Budget> = {};
    for (const [name, call] of Object.entries(calls)) measured[name] = await measure(call);
    expect(measured).toEqual(BUDGETS);
  });

  it('do not grow with the number of children an operation reads', async () => {
    const d = t.demo;
    const query = gqlOk(
      'query($id: ID!) { organization(id: $id) { children { id closures { id } officeHours { dayOfWeek } phoneNumbers { id } insurances { id } bots { id } } } }',
      { id: d.organizations.account.id },
      d.organizations.account.apiKey,
    );
    const twoChildren = await measure(query);
    for (const name of ['Clinic 3', 'Clinic 4', 'Clinic 5']) {
      await createOrganization(t.deps, { name, timezone: 'America/Denver', parentId: d.organizations.account.id });
    }
    const fiveChildren = await measure(query);
    const res = await query();
    expect((res.body as { data: { organization: { children: unknown[] } } }).data.organization.children).toHaveLength(5);
    expect(fiveChildren).toEqual(twoChildren);
  });
});
