// subscription availabilityChanged over Server-Sent Events: the current availability at once, then an
// event exactly when it changes — at nextChangeAt on the app's (fake) clock, across a break and a
// daylight-saving change, and after a write — and nothing else; a revoked credential ends the stream;
// streams are bounded per credential and closed on shutdown; the arguments are checked like the query's.
import { afterEach, describe, expect, it } from 'vitest';
import { revokeApiKey } from '../../src/auth/provisioning.js';
import { subscribe, type Subscription } from '../support/sse.js';
import { useTestApp } from '../support/testApp.js';

const t = useTestApp({ env: { SUBSCRIPTIONS_PER_CREDENTIAL: '2' } });

const WATCH = `subscription($org: ID!, $medium: Medium!, $phone: ID) {
  availabilityChanged(orgId: $org, medium: $medium, phoneNumberId: $phone) { at state greeting nextChangeAt break { start end } closure { description } specialHours { description } }
}`;

const open: Subscription[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

async function watch(
  variables: Record<string, unknown> = {},
  token: string | null = t.demo.organizations.clinic.apiKey,
): Promise<Subscription> {
  const s = await subscribe(t.app, WATCH, { org: t.demo.organizations.clinic.id, medium: 'PHONE', ...variables }, token);
  open.push(s);
  return s;
}

async function setDay(dayOfWeek: string, open: string, close: string, breaks: { start: string; end: string }[] = []) {
  const res = await t.rest('POST', `/v1/organizations/${t.demo.organizations.clinic.id}/office-hours`, {
    json: { dayOfWeek, isClosed: false, open, close, breaks: breaks.map((b) => ({ ...b, reason: 'Lunch', greeting: 'We are at lunch' })) },
  });
  expect(res.status).toBe(200);
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 200));

describe('subscription availabilityChanged', () => {
  it('sends the availability at once, then exactly one event at each change across a break', async () => {
    await setDay('MONDAY', '09:00', '17:00', [{ start: '12:00', end: '13:00' }]);
    t.clock.set('2026-03-09T15:30:00Z'); // Monday 11:30 in New York (EDT)
    const s = await watch({ phone: t.demo.phoneNumbers.clinic[0] });
    expect(s.status).toBe(200);
    expect(s.headers.get('content-type')).toContain('text/event-stream');

    const first = await s.next();
    expect(first.event).toBe('next');
    expect(first.data.data.availabilityChanged).toMatchObject({
      at: '2026-03-09T15:30:00Z',
      state: 'OPEN',
      nextChangeAt: '2026-03-09T16:00:00Z',
    });

    t.clock.advance(10 * 60_000); // 11:40: nothing changes
    t.clock.set('2026-03-09T16:00:00Z'); // 12:00: the break
    const lunch = (await s.next()).data.data.availabilityChanged;
    expect(lunch).toMatchObject({
      at: '2026-03-09T16:00:00Z',
      state: 'BREAK',
      greeting: 'We are at lunch',
      break: { start: '12:00', end: '13:00' },
      nextChangeAt: '2026-03-09T17:00:00Z',
    });

    t.clock.set('2026-03-09T17:00:00Z'); // 13:00: open again
    expect((await s.next()).data.data.availabilityChanged).toMatchObject({
      at: '2026-03-09T17:00:00Z',
      state: 'OPEN',
      nextChangeAt: '2026-03-09T21:00:00Z',
    });

    await settle();
    expect(s.received.map((e) => e.data.data.availabilityChanged.state)).toEqual(['OPEN', 'BREAK', 'OPEN']);
  });

  it('sends an event when only the break changes (one break right after another), not just at nextChangeAt', async () => {
    const res = await t.rest('POST', `/v1/organizations/${t.demo.organizations.clinic.id}/office-hours`, {
      json: {
        dayOfWeek: 'MONDAY',
        isClosed: false,
        open: '09:00',
        close: '17:00',
        breaks: [
          { start: '12:00', end: '12:30', reason: 'Lunch', greeting: 'We are at lunch' },
          { start: '12:30', end: '13:00', reason: 'Meeting', greeting: 'We are in a meeting' },
        ],
      },
    });
    expect(res.status).toBe(200);
    // Monday 12:29:30 in New York (EDT): the minutely credential check is not due before 12:30:30,
    // so the event at 12:30 comes from the wake-up at the answer's own change
    t.clock.set('2026-03-09T16:29:30Z');
    const s = await watch();
    expect((await s.next()).data.data.availabilityChanged).toMatchObject({
      state: 'BREAK',
      break: { start: '12:00' },
      greeting: 'We are at lunch',
      nextChangeAt: '2026-03-09T17:00:00Z',
    });
    t.clock.set('2026-03-09T16:30:00Z'); // 12:30: still BREAK, but the meeting's
    expect((await s.next()).data.data.availabilityChanged).toMatchObject({
      at: '2026-03-09T16:30:00Z',
      state: 'BREAK',
      break: { start: '12:30', end: '13:00' },
      greeting: 'We are in a meeting',
      nextChangeAt: '2026-03-09T17:00:00Z',
    });
    t.clock.set('2026-03-09T17:00:00Z');
    expect((await s.next()).data.data.availabilityChanged).toMatchObject({ at: '2026-03-09T17:00:00Z', state: 'OPEN' });
    await settle();
    expect(s.received.map((e) => e.data.data.availabilityChanged.greeting)).toEqual(['We are at lunch', 'We are in a meeting', null]);
  });

  it('sends an event when only the closure changes (one closure right after another)', async () => {
    await setDay('MONDAY', '09:00', '17:00');
    const closure = async (description: string, startAt: string, endAt: string) => {
      const res = await t.rest('POST', `/v1/organizations/${t.demo.organizations.clinic.id}/closures`, {
        json: { description, startAt, endAt, chatGreeting: null, phoneGreeting: `Closed: ${description}` },
      });
      expect(res.status).toBe(200);
    };
    await closure('Burst pipe', '2026-03-09T15:00:00Z', '2026-03-09T16:00:00Z');
    await closure('Inspection', '2026-03-09T16:00:00Z', '2026-03-09T18:00:00Z');
    t.clock.set('2026-03-09T15:59:30Z'); // the credential check is due at 16:00:30
    const s = await watch();
    expect((await s.next()).data.data.availabilityChanged).toMatchObject({
      state: 'CLOSURE',
      closure: { description: 'Burst pipe' },
      nextChangeAt: '2026-03-09T18:00:00Z',
    });
    t.clock.set('2026-03-09T16:00:00Z');
    expect((await s.next()).data.data.availabilityChanged).toMatchObject({
      at: '2026-03-09T16:00:00Z',
      state: 'CLOSURE',
      closure: { description: 'Inspection' },
      greeting: 'Closed: Inspection',
    });
    await settle();
    expect(s.received).toHaveLength(2);
  });

  it('sends an event at the local midnight where a special day takes over, though the state stays CLOSED', async () => {
    await setDay('MONDAY', '09:00', '17:00');
    t.clock.set('2026-03-08T12:00:00Z');
    const res = await t.rest('POST', `/v1/organizations/${t.demo.organizations.clinic.id}/special-hours`, {
      json: { date: '2026-03-09', description: 'Inventory day', isClosed: false, open: '10:00', close: '12:00' },
    });
    expect(res.status).toBe(200);
    t.clock.set('2026-03-09T03:59:30Z'); // Sunday 23:59:30 in New York; the credential check is due at 04:00:30
    const s = await watch();
    expect((await s.next()).data.data.availabilityChanged).toMatchObject({
      state: 'CLOSED',
      specialHours: null,
      nextChangeAt: '2026-03-09T14:00:00Z',
    });
    t.clock.set('2026-03-09T04:00:00Z');
    expect((await s.next()).data.data.availabilityChanged).toMatchObject({
      at: '2026-03-09T04:00:00Z',
      state: 'CLOSED',
      specialHours: { description: 'Inventory day' },
      nextChangeAt: '2026-03-09T14:00:00Z',
    });
    await settle();
    expect(s.received).toHaveLength(2);
  });

  it('sends an event when a change first comes within the 8-day lookahead (nextChangeAt is no longer null)', async () => {
    // no office hours: CLOSED for good, until a closure 8 days and 2 minutes ahead comes within the lookahead
    await t.rest('POST', `/v1/organizations/${t.demo.organizations.clinic.id}/closures`, {
      json: {
        description: 'Move',
        startAt: '2026-03-17T15:32:00Z',
        endAt: '2026-03-18T00:00:00Z',
        chatGreeting: null,
        phoneGreeting: null,
      },
    });
    t.clock.set('2026-03-09T15:31:30Z'); // the credential check is due at 15:32:30
    const s = await watch();
    expect((await s.next()).data.data.availabilityChanged).toMatchObject({ state: 'CLOSED', nextChangeAt: null });
    t.clock.set('2026-03-09T15:32:00Z');
    expect((await s.next()).data.data.availabilityChanged).toMatchObject({
      at: '2026-03-09T15:32:00Z',
      state: 'CLOSED',
      nextChangeAt: '2026-03-17T15:32:00Z',
    });
    await settle();
    expect(s.received).toHaveLength(2);
  });

  it('wakes at the closing time in local time across the spring-forward change, not an hour late', async () => {
    // New York springs forward on Sunday 2026-03-08 at 02:00 EST (07:00Z): 04:00 that night is 08:00Z, not 09:00Z
    await setDay('SUNDAY', '01:00', '04:00');
    t.clock.set('2026-03-08T06:30:00Z'); // 01:30 EST
    const s = await watch();
    expect((await s.next()).data.data.availabilityChanged).toMatchObject({ state: 'OPEN', nextChangeAt: '2026-03-08T08:00:00Z' });
    t.clock.set('2026-03-08T07:00:00Z'); // the clocks jump to 03:00 EDT: still open
    t.clock.set('2026-03-08T08:00:00Z'); // 04:00 EDT
    expect((await s.next()).data.data.availabilityChanged).toMatchObject({ at: '2026-03-08T08:00:00Z', state: 'CLOSED' });
    await settle();
    expect(s.received.map((e) => e.data.data.availabilityChanged.state)).toEqual(['OPEN', 'CLOSED']);
  });

  it('sends an event after a write that changes the answer, and none after one that does not', async () => {
    await setDay('MONDAY', '09:00', '17:00');
    t.clock.set('2026-03-09T15:30:00Z');
    const s = await watch();
    expect((await s.next()).data.data.availabilityChanged.state).toBe('OPEN');
    // a closure next year changes nothing about now (not even nextChangeAt, 8 days ahead at most)
    await t.rest('POST', `/v1/organizations/${t.demo.organizations.clinic.id}/closures`, {
      json: {
        description: 'Next year',
        startAt: '2027-03-09T00:00:00Z',
        endAt: '2027-03-10T00:00:00Z',
        chatGreeting: null,
        phoneGreeting: null,
      },
    });
    await t.rest('POST', `/v1/organizations/${t.demo.organizations.clinic.id}/closures`, {
      json: {
        description: 'Burst pipe',
        startAt: '2026-03-09T15:00:00Z',
        endAt: '2026-03-09T18:00:00Z',
        chatGreeting: null,
        phoneGreeting: 'Closed: burst pipe',
      },
    });
    expect((await s.next()).data.data.availabilityChanged).toMatchObject({
      state: 'CLOSURE',
      greeting: 'Closed: burst pipe',
      closure: { description: 'Burst pipe' },
    });
    await settle();
    expect(s.received).toHaveLength(2);
  });

  it('ends the stream with UNAUTHENTICATED when its credential is revoked', async () => {
    t.clock.set('2026-03-09T15:30:00Z');
    const s = await watch();
    await s.next();
    const key = await t.db.prisma.apiKey.findFirstOrThrow({ where: { orgId: t.demo.organizations.clinic.id } });
    await revokeApiKey(t.deps, key.id);
    const last = await s.next();
    expect(last.event).toBe('next');
    expect(last.data.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    // an error in a stream's event names its request too
    expect(last.data.errors[0].extensions.requestId).toBe(s.headers.get('x-request-id'));
    await s.ended; // the server ends the stream
    expect(s.received.at(-1)?.event).toBe('complete');
  });

  it('sends its first event without another read: a stream starts even while every later read stalls', async () => {
    t.clock.set('2026-03-09T15:30:00Z');
    const readModel = t.deps.readModel;
    const schedule = readModel.schedule.bind(readModel);
    let reads = 0;
    // the read that checks the arguments answers; every read after it waits (a database queue that does not move)
    readModel.schedule = (orgId, fromMs) => (reads++ === 0 ? schedule(orgId, fromMs) : new Promise(() => {}));
    try {
      const s = await watch();
      expect(s.status).toBe(200);
      const first = await Promise.race([
        s.next(),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no first event within 1 s')), 1000)),
      ]);
      expect(first.data.data.availabilityChanged).toMatchObject({ at: '2026-03-09T15:30:00Z' });
    } finally {
      readModel.schedule = schedule;
    }
  });

  it('refuses, before streaming, what the availability query refuses', async () => {
    const foreign = await watch({ org: t.demo.organizations.other.id });
    expect((await foreign.next()).data.errors[0].extensions.code).toBe('NOT_FOUND');
    const foreignPhone = await watch({ phone: t.demo.phoneNumbers.other[0] });
    expect((await foreignPhone.next()).data.errors[0].extensions.code).toBe('NOT_FOUND');
    const anonymous = await watch({}, null);
    expect((await anonymous.next()).data.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    const readOnly = await t.accessToken('clinicReadOnly'); // office-hours:read is a read scope: allowed
    const allowed = await watch({}, readOnly);
    expect((await allowed.next()).data.data.availabilityChanged.state).toBeDefined();
  });

  it('holds at most SUBSCRIPTIONS_PER_CREDENTIAL streams per credential, and closes them all on shutdown', async () => {
    t.clock.set('2026-03-09T15:30:00Z');
    const a = await watch();
    const b = await watch();
    await a.next();
    await b.next();
    const third = await watch();
    expect((await third.next()).data.errors[0].extensions.code).toBe('RATE_LIMITED');
    const otherCredential = await watch({}, await t.accessToken('clinic'));
    expect((await otherCredential.next()).data.data.availabilityChanged).toBeDefined();
    expect(t.deps.liveStreams.count()).toBe(3);

    await t.deps.liveStreams.closeAll();
    await Promise.all([a.ended, b.ended, otherCredential.ended]);
    expect(t.deps.liveStreams.count()).toBe(0);
    // a closed slot can be used again
    const again = await watch();
    expect((await again.next()).data.data.availabilityChanged).toBeDefined();
  });

  it('ends a stream no answer carries (a subscription POSTed with Accept: application/json): it holds no slot', async () => {
    t.clock.set('2026-03-09T15:30:00Z');
    for (let i = 0; i < 3; i++) {
      const res = await t.app.fetch(
        new Request('http://127.0.0.1/graphql', {
          method: 'POST',
          headers: {
            authorization: `Bearer ${t.demo.organizations.clinic.apiKey}`,
            'content-type': 'application/json',
            accept: 'application/json',
          },
          body: JSON.stringify({ query: WATCH, variables: { org: t.demo.organizations.clinic.id, medium: 'PHONE' } }),
        }),
      );
      expect(res.status).toBe(406);
      await res.text();
    }
    await settle();
    expect(t.deps.liveStreams.count()).toBe(0);
    const s = await watch();
    expect((await s.next()).data.data.availabilityChanged).toBeDefined();
  });
});
