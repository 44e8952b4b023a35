// The read model on one instance: what the hot path reads is cached, and every write that changes it is
// seen by the very next request (the change feed invalidates before the write answers) — on both
// surfaces, for each kind of change. Also: the cache is bounded, an instant before the cached schedule's
// reach reads past closures, and an entry expires by itself after READ_MODEL_MAX_AGE_SECONDS (a write
// made behind the service's back).
import { describe, expect, it } from 'vitest';
import { createOrganization, revokeApiKey, setOAuthClientScopes } from '../../src/auth/provisioning.js';
import { createApp } from '../../src/app.js';
import { ReadModel } from '../../src/readmodel/readModel.js';
import { useTestApp } from '../support/testApp.js';

// entries live an hour here: only the change feed can make a write visible to the next request
const t = useTestApp({ env: { READ_MODEL_MAX_ENTRIES: '3', READ_MODEL_MAX_AGE_SECONDS: '3600' } });

const NOW = '2026-03-09T15:30:00Z'; // a Monday, 11:30 in New York
const availability = (extra = '') => t.rest('GET', `/v1/organizations/${t.demo.organizations.clinic.id}/availability?medium=PHONE${extra}`);

async function openMonday() {
  const res = await t.rest('POST', `/v1/organizations/${t.demo.organizations.clinic.id}/office-hours`, {
    json: { dayOfWeek: 'MONDAY', isClosed: false, open: '09:00', close: '17:00', breaks: [] },
  });
  expect(res.status).toBe(200);
}

describe('the read model sees every write at once', () => {
  it('office hours: REST availability and GraphQL officeHours change with the next request', async () => {
    t.clock.set(NOW);
    expect((await availability()).body.data.state).toBe('CLOSED'); // cached now
    await openMonday();
    expect((await availability()).body.data.state).toBe('OPEN');
    const gql = await t.gql('query($id: ID!) { organization(id: $id) { officeHours(dayOfWeek: MONDAY) { open close } } }', {
      id: t.demo.organizations.clinic.id,
    });
    expect(gql.body.data.organization.officeHours).toEqual([{ open: '09:00', close: '17:00' }]);
    const closed = await t.gql(
      'mutation($id: ID!) { setOfficeHours(orgId: $id, input: {dayOfWeek: MONDAY, isClosed: true}) { isClosed } }',
      {
        id: t.demo.organizations.clinic.id,
      },
    );
    expect(closed.body.data.setOfficeHours.isClosed).toBe(true);
    expect((await availability()).body.data.state).toBe('CLOSED');
  });

  it('closures: created, updated and deleted closures apply from the next request', async () => {
    t.clock.set(NOW);
    await openMonday();
    expect((await availability()).body.data.state).toBe('OPEN');
    const created = await t.rest('POST', `/v1/organizations/${t.demo.organizations.clinic.id}/closures`, {
      json: {
        description: 'Flood',
        startAt: '2026-03-09T15:00:00Z',
        endAt: '2026-03-09T18:00:00Z',
        chatGreeting: null,
        phoneGreeting: 'Closed: flood',
      },
    });
    const id = created.body.data.id;
    expect((await availability()).body.data).toMatchObject({
      state: 'CLOSURE',
      greeting: 'Closed: flood',
      nextChangeAt: '2026-03-09T18:00:00Z',
    });
    await t.rest('POST', `/v1/organizations/${t.demo.organizations.clinic.id}/closures/${id}`, {
      json: { description: 'Flood', startAt: '2026-03-09T15:00:00Z', endAt: '2026-03-09T16:00:00Z' },
    });
    expect((await availability()).body.data.nextChangeAt).toBe('2026-03-09T16:00:00Z');
    await t.gql('mutation($o: ID!, $c: ID!) { deleteClosure(orgId: $o, closureId: $c) }', { o: t.demo.organizations.clinic.id, c: id });
    expect((await availability()).body.data.state).toBe('OPEN');
  });

  it('templates: a new template is available from the next request', async () => {
    t.clock.set(NOW);
    const before = (await availability()).body.data.availableTemplates.map((x: { name: string }) => x.name);
    await t.rest('POST', '/v1/templates', {
      json: { name: 'Night line', applicableMediums: ['PHONE'], officeHoursAvailability: 'CLOSED' },
    });
    const after = (await availability()).body.data.availableTemplates.map((x: { name: string }) => x.name);
    expect(after).toEqual([...before, 'Night line']);
  });

  it('organizations: disabling is read back at once on both surfaces', async () => {
    const path = `/v1/organizations/${t.demo.organizations.clinic.id}`;
    expect((await t.rest('GET', path)).body.data.communicationsEnabled).toBe(true);
    await t.rest('POST', `${path}/disable`);
    expect((await t.rest('GET', path)).body.data.communicationsEnabled).toBe(false);
    const gql = await t.gql('query($id: ID!) { organization(id: $id) { communicationsEnabled } }', { id: t.demo.organizations.clinic.id });
    expect(gql.body.data.organization.communicationsEnabled).toBe(false);
  });

  it('credentials: a revoked API key that was cached is refused by the next request', async () => {
    const path = `/v1/organizations/${t.demo.organizations.clinic.id}`;
    expect((await t.rest('GET', path)).status).toBe(200);
    const key = await t.db.prisma.apiKey.findFirstOrThrow({ where: { orgId: t.demo.organizations.clinic.id } });
    await revokeApiKey(t.deps, key.id);
    expect((await t.rest('GET', path)).status).toBe(401);
    expect((await t.gql('{ viewer { scopes } }')).body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });

  it('credentials: a narrowed OAuth scope applies to tokens already issued, from the next request', async () => {
    const token = await t.accessToken('clinic');
    const path = `/v1/organizations/${t.demo.organizations.clinic.id}/closures`;
    expect((await t.rest('GET', path, { token })).status).toBe(200);
    await setOAuthClientScopes(t.deps, t.demo.oauthClients.clinic.clientId, ['organizations:read']);
    expect((await t.rest('GET', path, { token })).status).toBe(403);
    expect((await t.rest('GET', `/v1/organizations/${t.demo.organizations.clinic.id}`, { token })).status).toBe(200);
  });

  it("organizations: a new child is within its account's reach from the next request", async () => {
    const account = t.demo.organizations.account;
    const viewer = () => t.gql('{ viewer { organization { children { name } } } }', {}, { token: account.apiKey });
    expect((await viewer()).body.data.viewer.organization.children).toHaveLength(2);
    const child = await createOrganization(t.deps, { name: 'Clinic 3', timezone: 'America/Denver', parentId: account.id });
    expect((await viewer()).body.data.viewer.organization.children.map((c: { name: string }) => c.name)).toContain('Clinic 3');
    expect((await t.rest('GET', `/v1/organizations/${child.id}`, { token: account.apiKey })).status).toBe(200);
  });
});

describe('the read model', () => {
  it('holds at most READ_MODEL_MAX_ENTRIES organizations', async () => {
    for (const org of Object.values(t.demo.organizations)) {
      expect((await t.rest('GET', `/v1/organizations/${org.id}`, { token: org.apiKey })).status).toBe(200);
    }
    expect(t.deps.readModel.stats().organizations.entries).toBeLessThanOrEqual(3);
  });

  it('answers an instant before the cached schedule reaches with the closures of that time', async () => {
    t.clock.set('2026-03-09T15:30:00Z');
    await t.rest('POST', `/v1/organizations/${t.demo.organizations.clinic.id}/closures`, {
      json: {
        description: 'Last year',
        startAt: '2025-03-10T00:00:00Z',
        endAt: '2025-03-11T00:00:00Z',
        chatGreeting: null,
        phoneGreeting: null,
      },
    });
    expect((await availability()).body.data.state).toBe('CLOSED'); // the cached schedule leaves last year's closure out
    const past = await availability('&at=2025-03-10T12:00:00Z');
    expect(past.body.data).toMatchObject({ state: 'CLOSURE', closure: { description: 'Last year' }, nextChangeAt: '2025-03-11T00:00:00Z' });
  });

  it('forgets an entry after READ_MODEL_MAX_AGE_SECONDS even when no change said so', async () => {
    // an instance whose entries live one second
    const readModel = new ReadModel(t.db.prisma, { maxEntries: 100, maxAgeMs: 1_000, clock: t.clock.now });
    const app = createApp({ ...t.deps, readModel });
    const name = async () => {
      const res = await app.fetch(
        new Request(`http://127.0.0.1/v1/organizations/${t.demo.organizations.clinic.id}`, {
          headers: { authorization: `Bearer ${t.demo.organizations.clinic.apiKey}` },
        }),
      );
      return ((await res.json()) as { data: { name: string } }).data.name;
    };
    expect(await name()).not.toBe('Renamed behind our back');
    await t.db.prisma.organization.update({ where: { id: t.demo.organizations.clinic.id }, data: { name: 'Renamed behind our back' } });
    expect(await name()).not.toBe('Renamed behind our back'); // still cached
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(await name()).toBe('Renamed behind our back');
  });

  describe('bounded by the estimated size of its entries (READ_MODEL_MAX_MB)', () => {
    const MAX_BYTES = 12_000; // room for one or two demo schedules
    const bounded = () => {
      const readModel = new ReadModel(t.db.prisma, { maxEntries: 100, maxBytes: MAX_BYTES, maxAgeMs: 3_600_000, clock: t.clock.now });
      const unsubscribe = t.deps.changes.subscribe(readModel);
      const app = createApp({ ...t.deps, readModel });
      const state = async (org: { id: string; apiKey: string }) => {
        const res = await app.fetch(
          new Request(`http://127.0.0.1/v1/organizations/${org.id}/availability?medium=PHONE`, {
            headers: { authorization: `Bearer ${org.apiKey}` },
          }),
        );
        expect(res.status).toBe(200);
        return ((await res.json()) as { data: { state: string } }).data.state;
      };
      return { readModel, state, unsubscribe };
    };

    it('holds no more schedules than fit, and a change to a held one is seen by the next request', async () => {
      t.clock.set(NOW);
      const { readModel, state, unsubscribe } = bounded();
      try {
        const orgs = Object.values(t.demo.organizations);
        for (const org of orgs) await state(org);
        const clinic = t.demo.organizations.clinic;
        expect(await state(clinic)).toBe('CLOSED'); // the clinic was read last: held
        const { schedules } = readModel.stats();
        expect(schedules.bytes).toBeGreaterThan(0);
        expect(schedules.bytes).toBeLessThanOrEqual(MAX_BYTES);
        expect(schedules.entries).toBeLessThan(orgs.length);
        expect(readModel.holds('schedule', clinic.id)).toBe(true);
        await openMonday(); // through the test app: its change reaches this read model through the change feed
        expect(await state(clinic)).toBe('OPEN');
        expect(readModel.stats().schedules.bytes).toBeLessThanOrEqual(MAX_BYTES);
      } finally {
        unsubscribe();
      }
    });

    it('answers for an organization whose schedule is larger than the bound without keeping it', async () => {
      t.clock.set(NOW);
      const clinic = t.demo.organizations.clinic;
      await openMonday();
      for (let day = 1; day <= 40; day++) {
        const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
        const startMs = Date.parse('2026-04-01T00:00:00Z') + day * 86_400_000;
        const res = await t.rest('POST', `/v1/organizations/${clinic.id}/closures`, {
          json: {
            description: `Holiday number ${day}`,
            startAt: iso(startMs),
            endAt: iso(startMs + 3_600_000),
            chatGreeting: null,
            phoneGreeting: null,
          },
        });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
      }
      const { readModel, state, unsubscribe } = bounded();
      try {
        expect(await state(clinic)).toBe('OPEN');
        expect(readModel.holds('schedule', clinic.id)).toBe(false);
        expect(readModel.stats().schedules.bytes).toBeLessThanOrEqual(MAX_BYTES);
        const flood = await t.rest('POST', `/v1/organizations/${clinic.id}/closures`, {
          json: {
            description: 'Flood',
            startAt: '2026-03-09T15:00:00Z',
            endAt: '2026-03-09T18:00:00Z',
            chatGreeting: null,
            phoneGreeting: 'Closed: flood',
          },
        });
        expect(flood.status, JSON.stringify(flood.body)).toBe(200);
        expect(await state(clinic)).toBe('CLOSURE');
      } finally {
        unsubscribe();
      }
    });
  });
});
