// The demo's schedule (npm start on a fresh embedded database): the Downtown clinic's week, an annual
// closure, a timed closure and a special day ahead of now, written through the domain (so recorded as
// events), so that the week view shows OPEN, BREAK, CLOSED and CLOSURE. The seed data set itself (docs/decisions.md
// §6) stays without office hours, special hours or closures.
import { describe, expect, it } from 'vitest';
import { createDemoSchedule, demoGraphiqlVariables } from '../../src/demo/demoSchedule.js';
import { graphiqlOptions } from '../../src/graphql/graphiql.js';
import { useTestApp } from '../support/testApp.js';
import type { Schemas } from '../support/apiTypes.js';

type Interval = { state: string; closure?: { id: string } | null; specialHours?: { id: string } | null };

const t = useTestApp();

describe('the demo schedule', () => {
  it('the seed data set has no office hours, special hours or closures', async () => {
    const db = t.deps.db;
    expect([await db.officeHours.count(), await db.specialHours.count(), await db.closure.count()]).toEqual([0, 0, 0]);
  });

  for (const now of [
    '2026-11-24T17:00:00Z',
    '2026-11-27T21:30:00Z',
    '2026-12-31T23:30:00Z',
    '2027-03-13T12:00:00Z',
    '2027-03-14T23:00:00Z',
  ]) {
    it(`gives the clinic a week, closures and a special day ahead, showing every state (now = ${now})`, async () => {
      t.clock.set(now);
      const clinic = t.demo.organizations.clinic.id;
      const schedule = await createDemoSchedule(t.deps, t.demo);
      expect(Date.parse(schedule.timedClosure.startAt)).toBeGreaterThan(Date.parse(now));

      const week = (await t.rest('GET', `/v1/organizations/${clinic}/office-hours`)).body.data.officeHours;
      expect(
        week.map((d: Schemas['OfficeHours']) => [d.dayOfWeek, d.isClosed, d.open, d.close, d.breaks.map((b) => `${b.start}-${b.end}`)]),
      ).toEqual([
        ['MONDAY', false, '08:00', '17:00', ['12:00-13:00']],
        ['TUESDAY', false, '08:00', '17:00', ['12:00-13:00']],
        ['WEDNESDAY', false, '08:00', '17:00', ['12:00-13:00']],
        ['THURSDAY', false, '08:00', '17:00', ['12:00-13:00']],
        ['FRIDAY', false, '08:00', '17:00', ['12:00-13:00']],
        ['SATURDAY', false, '09:00', '12:00', []],
        ['SUNDAY', true, null, null, []],
      ]);

      // the range GraphiQL's Week example is opened with holds them all
      const { from, to } = demoGraphiqlVariables(clinic, new Date(now));
      const intervals = (await t.rest('GET', `/v1/organizations/${clinic}/availability/timeline?from=${from}&to=${to}&medium=PHONE`)).body
        .data.intervals;
      expect(new Set(intervals.map((i: Interval) => i.state))).toEqual(new Set(['OPEN', 'BREAK', 'CLOSED', 'CLOSURE']));
      expect(intervals.some((i: Interval) => i.closure?.id === schedule.timedClosure.id)).toBe(true);
      expect(intervals.some((i: Interval) => i.specialHours?.id === schedule.specialHours.id && i.state === 'OPEN')).toBe(true);

      // written through the domain, as the account's demo key
      const events = await t.deps.db.event.findMany({ orderBy: { seq: 'asc' } });
      expect(events.map((e) => e.type)).toEqual(['office_hours.updated', 'closure.created', 'closure.created', 'special_hours.created']);
      expect(new Set(events.map((e) => e.actorName))).toEqual(new Set(['Demo key']));
    });
  }

  it("fills GraphiQL's Variables with the clinic and three local weeks from this Monday, so every example runs with ▶ alone", () => {
    const variables = demoGraphiqlVariables('4b1c…', new Date('2026-11-25T03:00:00Z')); // Tuesday 22:00 in New York
    expect(variables).toEqual({ id: '4b1c…', from: '2026-11-23T05:00:00Z', to: '2026-12-14T05:00:00Z' });
    const options = graphiqlOptions('svc-sk-demo', variables);
    expect(JSON.parse(options.defaultTabs![0]!.variables!)).toEqual(variables);
    expect(options.defaultTabs![0]!.headers).toContain('Bearer svc-sk-demo');
  });
});
