// What one schedule may hold and what one timeline may cost (issue 32, finding 4; docs/lists.md): at most
// MAX_BREAKS_PER_DAY breaks a day (weekly hours, a day's POST, special hours, GraphQL), at most
// TIMED_CLOSURES_PER_WINDOW timed closures within 31 days of one another, at most TIMELINE_MAX_INTERVALS
// intervals in one timeline (a schedule stored before the bounds is refused before its timeline is computed),
// and the worst legal schedule's 31-day timeline answered whole without holding the event loop.
import { PerformanceObserver } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { TIMELINE_MAX_INTERVALS } from '../../src/domain/schedule/availabilityQuery.js';
import { TIMED_CLOSURES_PER_WINDOW } from '../../src/domain/schedule/closures.js';
import { MAX_BREAKS_PER_DAY } from '../../src/domain/schedule/officeHours.js';
import { useTestApp } from '../support/testApp.js';

const t = useTestApp();

const DAYS = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'];
const hhmm = (minutes: number) => `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

/** `count` breaks spread over a day open 00:00–23:59, each with texts of `textLength` characters. */
function breaksOf(count: number, textLength = 20) {
  const step = Math.floor(1438 / (2 * count));
  return Array.from({ length: count }, (_, i) => ({
    start: hhmm(1 + 2 * i * step),
    end: hhmm(1 + 2 * i * step + step),
    reason: `Pause ${i} `.padEnd(textLength, 'r'),
    greeting: `Back soon ${i} `.padEnd(textLength, 'g'),
  }));
}

const TIMELINE = `query($id: ID!, $from: DateTime!, $to: DateTime!) {
  organization(id: $id) { availabilityTimeline(from: $from, to: $to, medium: PHONE) { intervals { start end state greeting closure { id description } break { start end reason } } } }
}`;

/** `count` timed closures of 20 minutes spread over [fromMs, fromMs + days), stored as a create would store them. */
async function storeClosures(orgId: string, count: number, fromMs: number, days = 31) {
  await t.db.prisma.closure.createMany({
    data: Array.from({ length: count }, (_, i) => {
      const startMs = fromMs + Math.floor((days * 86_400_000 * i) / count / 60_000) * 60_000 + 3_600_000;
      return {
        orgId,
        description: `Closure ${i} `.padEnd(255, 'd'),
        startAt: new Date(startMs),
        endAt: new Date(startMs + 20 * 60_000),
        chatGreeting: 'c'.repeat(500),
        phoneGreeting: 'p'.repeat(500),
        createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)),
      };
    }),
  });
  t.deps.changes.publish({ kind: 'closures', orgId });
}

/**
 * The longest the event loop went without turning while `work` ran (ms): what a request arriving then waits on a
 * machine that gives the process a core. Each gap between two turns is bounded twice from above — its wall time less
 * the garbage collector's pauses, and the CPU time the process used in it (a busy machine that gives the process no
 * core for a while lengthens the first, not the second) — and the lesser bound is kept; the least of `trials` runs.
 */
async function longestBlock(work: () => Promise<unknown>, trials = 3): Promise<number> {
  const cpuNow = () => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1_000;
  };
  let least = Infinity;
  for (let trial = 0; trial < trials; trial++) {
    const pauses: { start: number; end: number }[] = [];
    const observer = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) pauses.push({ start: entry.startTime, end: entry.startTime + entry.duration });
    });
    observer.observe({ entryTypes: ['gc'] });
    const gaps: { start: number; end: number; cpu: number }[] = [];
    let last = { wall: performance.now(), cpu: cpuNow() };
    let probing = true;
    // a callback queued anew on every turn sees each turn
    const probe = () => {
      const now = { wall: performance.now(), cpu: cpuNow() };
      gaps.push({ start: last.wall, end: now.wall, cpu: now.cpu - last.cpu });
      last = now;
      if (probing) setImmediate(probe);
    };
    setImmediate(probe);
    await work();
    probing = false;
    await new Promise((resolve) => setTimeout(resolve, 10)); // the observer's last entries
    observer.disconnect();
    const held = (gap: { start: number; end: number; cpu: number }) =>
      Math.min(
        gap.cpu,
        gap.end - gap.start - pauses.reduce((sum, p) => sum + Math.max(0, Math.min(gap.end, p.end) - Math.max(gap.start, p.start)), 0),
      );
    least = Math.min(least, Math.max(0, ...gaps.map(held)));
  }
  return least;
}

describe('breaks per day', () => {
  it(`accepts ${MAX_BREAKS_PER_DAY} breaks a day and refuses one more on every write of a day, on both surfaces, naming the bound`, async () => {
    const org = t.demo.organizations.clinic.id;
    const day = { dayOfWeek: 'MONDAY', isClosed: false, open: '00:00', close: '23:59' };
    expect(
      (await t.rest('POST', `/v1/organizations/${org}/office-hours`, { json: { ...day, breaks: breaksOf(MAX_BREAKS_PER_DAY) } })).status,
    ).toBe(200);

    const bound = `must have at most ${MAX_BREAKS_PER_DAY} breaks a day`;
    const tooMany = breaksOf(MAX_BREAKS_PER_DAY + 1);
    const perDay = await t.rest('POST', `/v1/organizations/${org}/office-hours`, { json: { ...day, breaks: tooMany } });
    expect(perDay.status).toBe(400);
    expect(perDay.body.message).toBe(`breaks: ${bound}`);
    const week = await t.rest('PUT', `/v1/organizations/${org}/office-hours`, {
      json: { officeHours: DAYS.map((dayOfWeek, i) => ({ ...day, dayOfWeek, breaks: i === 2 ? tooMany : [] })) },
    });
    expect(week.status).toBe(400);
    expect(week.body.message).toBe(`officeHours.2.breaks: ${bound}`);
    const special = await t.rest('POST', `/v1/organizations/${org}/special-hours`, {
      json: {
        date: `${new Date().getUTCFullYear() + 1}-06-01`,
        description: 'Open day',
        isClosed: false,
        open: '00:00',
        close: '23:59',
        breaks: tooMany,
      },
    });
    expect(special.status).toBe(400);
    expect(special.body.message).toBe(`breaks: ${bound}`);
    const gql = await t.gql(
      'mutation($org: ID!, $input: SetOfficeHoursInput!) { setOfficeHours(orgId: $org, input: $input) { dayOfWeek } }',
      {
        org,
        input: { ...day, breaks: tooMany },
      },
    );
    expect(gql.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', issues: [{ path: 'input.breaks', message: bound }] });
    // nothing of the refused writes was kept
    const monday = await t.rest('GET', `/v1/organizations/${org}/office-hours?dayOfWeek=MONDAY`);
    expect(monday.body.data.officeHours[0].breaks).toHaveLength(MAX_BREAKS_PER_DAY);
  });
});

describe('timed closures within 31 days of one another', () => {
  const body = (startAt: string, endAt: string) => ({ description: 'One more', startAt, endAt, chatGreeting: null, phoneGreeting: null });

  it(`refuses the ${TIMED_CLOSURES_PER_WINDOW + 1}th near the others with 409 / CONFLICT naming the bound; farther away is fine`, async () => {
    const org = t.demo.organizations.clinic.id;
    const fromMs = Date.UTC(2027, 2, 1);
    await storeClosures(org, TIMED_CLOSURES_PER_WINDOW, fromMs);
    const count = () => t.db.prisma.closure.count({ where: { orgId: org } });
    const before = await count();

    // among them
    const near = await t.rest('POST', `/v1/organizations/${org}/closures`, { json: body('2027-03-10T10:05:00Z', '2027-03-10T11:00:00Z') });
    expect(near.status).toBe(409);
    expect(near.body.message).toMatch(
      new RegExp(
        `^An organization may have at most ${TIMED_CLOSURES_PER_WINDOW} timed closures within 31 days of one another \\(${TIMED_CLOSURES_PER_WINDOW} already lie between`,
      ),
    );
    const gql = await t.gql('mutation($org: ID!, $input: CreateClosureInput!) { createClosure(orgId: $org, input: $input) { id } }', {
      org,
      input: body('2027-03-20T10:05:00Z', '2027-03-20T11:00:00Z'),
    });
    expect(gql.body.errors[0].extensions.code).toBe('CONFLICT');
    expect(await count()).toBe(before);

    // more than 31 days after the last one, and annual closures (whole days) do not count
    const far = await t.rest('POST', `/v1/organizations/${org}/closures`, { json: body('2027-05-15T10:00:00Z', '2027-05-15T11:00:00Z') });
    expect(far.status).toBe(200);
    const annual = await t.rest('POST', `/v1/organizations/${org}/closures`, {
      json: { description: 'Holiday', annualDate: { month: 3, day: 10 }, chatGreeting: null, phoneGreeting: null },
    });
    expect(annual.status).toBe(200);
    // moving the far one among the others is refused too, and leaves it where it was
    const moved = await t.rest('POST', `/v1/organizations/${org}/closures/${far.body.data.id}`, {
      json: { description: 'Moved', startAt: '2027-03-15T10:00:00Z', endAt: '2027-03-15T11:00:00Z' },
    });
    expect(moved.status).toBe(409);
    expect((await t.rest('GET', `/v1/organizations/${org}/closures/${far.body.data.id}`)).body.data.startAt).toBe('2027-05-15T10:00:00Z');
  });
});

describe('one timeline', () => {
  it('refuses, before computing it, a range that would hold more intervals than one timeline answers (a schedule stored before the bounds)', async () => {
    const org = t.demo.organizations.clinic.id;
    // a week of one-minute breaks, as the service accepted before it bounded breaks per day
    for (const dayOfWeek of DAYS) {
      const day = await t.db.prisma.officeHours.create({
        data: { orgId: org, dayOfWeek: dayOfWeek as 'MONDAY', isClosed: false, open: '00:00', close: '23:59' },
      });
      await t.db.prisma.officeBreak.createMany({
        data: Array.from({ length: 719 }, (_, i) => ({
          officeHoursId: day.id,
          start: hhmm(1 + 2 * i),
          end: hhmm(2 + 2 * i),
          reason: 'r',
          greeting: 'g',
        })),
      });
    }
    t.deps.changes.publish({ kind: 'officeHours', orgId: org });
    const from = '2026-03-01T00:00:00Z';
    const to = '2026-04-01T00:00:00Z';
    const rest = await t.rest('GET', `/v1/organizations/${org}/availability/timeline?from=${from}&to=${to}&medium=PHONE`);
    expect(rest.status).toBe(400);
    expect(rest.body.message).toMatch(
      new RegExp(
        `^to: the range may hold up to \\d+ changes of availability, more than the ${TIMELINE_MAX_INTERVALS} intervals one timeline answers; ask for a shorter range$`,
      ),
    );
    const gql = await t.gql(TIMELINE, { id: org, from, to });
    expect(gql.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', issues: [{ path: 'to' }] });
    // a shorter range of the same schedule is answered
    const hours = await t.rest(
      'GET',
      `/v1/organizations/${org}/availability/timeline?from=2026-03-02T12:00:00Z&to=2026-03-02T18:00:00Z&medium=PHONE`,
    );
    expect(hours.status).toBe(200);
    expect(hours.body.data.intervals).toHaveLength(6 * 60);
    // for CHAT the breaks do not count: the whole month is a few intervals
    expect((await t.rest('GET', `/v1/organizations/${org}/availability/timeline?from=${from}&to=${to}&medium=CHAT`)).status).toBe(200);
  });

  it("answers the worst legal schedule's 31 days whole, and holds the event loop less than 50 ms at a time, REST and GraphQL", async () => {
    const org = t.demo.organizations.clinic.id;
    // the most breaks a day may hold (one-minute breaks where a day can hold no more), their texts as long as one body allows
    const perDay = Math.min(MAX_BREAKS_PER_DAY, 719);
    const textLength = Math.min(500, Math.floor(900_000 / (DAYS.length * perDay * 2)) - 60);
    const week = await t.rest('PUT', `/v1/organizations/${org}/office-hours`, {
      json: {
        officeHours: DAYS.map((dayOfWeek) => ({
          dayOfWeek,
          isClosed: false,
          open: '00:00',
          close: '23:59',
          breaks: breaksOf(perDay, textLength),
        })),
      },
    });
    expect(week.status).toBe(200);
    // next year's March, across New York's spring-forward change (a range in the past is read from the database, not the read model)
    const fromMs = Date.UTC(new Date().getUTCFullYear() + 1, 2, 1);
    await storeClosures(org, TIMED_CLOSURES_PER_WINDOW, fromMs);
    const from = new Date(fromMs).toISOString();
    const to = new Date(fromMs + 31 * 86_400_000).toISOString();
    const headers = { authorization: `Bearer ${t.demo.organizations.clinic.apiKey}` };
    // the schedule loaded and compiled, and the GraphQL document compiled, first: what is measured is the timeline's work
    const oneDay = new Date(fromMs + 86_400_000).toISOString();
    expect((await t.rest('GET', `/v1/organizations/${org}/availability/timeline?from=${from}&to=${oneDay}&medium=PHONE`)).status).toBe(200);
    expect((await t.gql(TIMELINE, { id: org, from, to: oneDay })).body.errors).toBeUndefined();

    // measured until the answer is made (reading it is the client's work, here in the same process)
    let restAnswer: Response | undefined;
    const restBlock = await longestBlock(async () => {
      restAnswer = await t.fetch(`/v1/organizations/${org}/availability/timeline?from=${from}&to=${to}&medium=PHONE`, { headers });
    });
    expect(restAnswer!.status).toBe(200);
    const restText = await restAnswer!.text();
    const intervals = JSON.parse(restText).data.intervals as { state: string }[];

    let gqlAnswer: Response | undefined;
    const gqlBlock = await longestBlock(async () => {
      gqlAnswer = await t.fetch('/graphql', {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ query: TIMELINE, variables: { id: org, from, to } }),
      });
    });
    expect(gqlAnswer!.status).toBe(200);
    const gqlText = await gqlAnswer!.text();
    expect(JSON.parse(gqlText).data.organization.availabilityTimeline.intervals).toHaveLength(intervals.length);
    console.log(
      `worst legal 31-day timeline: ${intervals.length} intervals, ${restText.length} bytes; loop held at most ${restBlock.toFixed(1)} ms (REST), ${gqlBlock.toFixed(1)} ms (GraphQL)`,
    );
    expect(restBlock).toBeLessThan(50);
    expect(gqlBlock).toBeLessThan(50);
    // every day's breaks, and each closure
    expect(intervals.length).toBeGreaterThan(31 * 2 * perDay);
    expect(intervals.length).toBeLessThanOrEqual(TIMELINE_MAX_INTERVALS);
    expect(intervals.filter((i) => i.state === 'CLOSURE')).toHaveLength(TIMED_CLOSURES_PER_WINDOW);
  });
});
