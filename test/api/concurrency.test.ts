// 50 concurrent writers on one record, half through REST and half through GraphQL: the record ends in
// a state that one request wrote in full (never a mix of two, never a half-written set of breaks), every
// writer is answered what it wrote, and the office-hours rules hold whatever the interleaving (breaks
// always inside the hours). A multi-row write is one transaction (see the domain), which is what this
// checks from the outside.
import { describe, expect, it } from 'vitest';
import { graphql } from '../generated/index.js';
import { useTestApp } from '../support/testApp.js';

const t = useTestApp({ env: { RATE_LIMIT_PER_MINUTE: '10000' } });
const WRITERS = 50;

const SET_OFFICE_HOURS = graphql(`
  mutation ConcurrencySetOfficeHours($orgId: ID!, $input: SetOfficeHoursInput!) {
    setOfficeHours(orgId: $orgId, input: $input) {
      dayOfWeek
      isClosed
      open
      close
      breaks {
        start
        end
        reason
        greeting
      }
    }
  }
`);

const UPDATE_CLOSURE = graphql(`
  mutation ConcurrencyUpdateClosure($orgId: ID!, $closureId: ID!, $input: UpdateClosureInput!) {
    updateClosure(orgId: $orgId, closureId: $closureId, input: $input) {
      id
      description
      startAt
      endAt
      annualDate {
        month
        day
      }
      chatGreeting
      phoneGreeting
    }
  }
`);

type Day = {
  dayOfWeek: string;
  isClosed: boolean;
  open: string | null;
  close: string | null;
  breaks: { start: string; end: string; reason: string; greeting: string }[];
};

const hh = (h: number) => `${String(h).padStart(2, '0')}:00`;
const hm = (h: number, m: number) => `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`;

/** Writer i's day: its own hours and 1..3 breaks inside them, each break naming the writer. */
function fullDay(i: number) {
  const open = 6 + (i % 4); // 06:00..09:00
  const close = 16 + (i % 5); // 16:00..20:00
  const breaks = Array.from({ length: 1 + (i % 3) }, (_, b) => ({
    start: hm(open + 1 + 2 * b, i % 60),
    end: hm(open + 2 + 2 * b, i % 60),
    reason: `writer ${i} break ${b}`,
    greeting: `Back soon (writer ${i})`,
  }));
  return { dayOfWeek: 'MONDAY', isClosed: false, open: hh(open), close: hh(close), breaks };
}

async function setDay(i: number, input: Record<string, unknown>): Promise<{ status: number | string; day?: Day; message?: string }> {
  const orgId = t.demo.organizations.clinic.id;
  if (i % 2 === 0) {
    const res = await t.rest('POST', `/v1/organizations/${orgId}/office-hours`, { json: input });
    return { status: res.status, day: res.body.data, message: res.body.message };
  }
  const res = await t.gql(SET_OFFICE_HOURS, { orgId, input: input as never });
  if (res.body.errors) return { status: res.body.errors[0].extensions.code, message: res.body.errors[0].message };
  return { status: 200, day: res.body.data.setOfficeHours };
}

async function storedMonday(): Promise<Day> {
  const res = await t.rest('GET', `/v1/organizations/${t.demo.organizations.clinic.id}/office-hours?dayOfWeek=MONDAY`);
  return res.body.data.officeHours[0];
}

function expectBreaksInsideHours(day: Day): void {
  if (day.isClosed) expect(day.breaks).toEqual([]);
  for (const b of day.breaks) expect(b.start >= day.open! && b.end <= day.close!, JSON.stringify(day)).toBe(true);
}

describe(`${WRITERS} concurrent writers on one office-hours day`, () => {
  it('each answered its own day, and the stored day is exactly one of them, breaks and all', async () => {
    const inputs = Array.from({ length: WRITERS }, (_, i) => fullDay(i));
    const answers = await Promise.all(inputs.map((input, i) => setDay(i, input)));
    expect(answers.map((a) => a.status)).toEqual(Array(WRITERS).fill(200));
    answers.forEach((a, i) => expect(a.day).toEqual(inputs[i]));

    const stored = await storedMonday();
    expect(inputs).toContainEqual(stored);
    // no break of another writer left behind in the table either
    const rows = await t.db.prisma.officeBreak.findMany({
      where: { officeHours: { orgId: t.demo.organizations.clinic.id, dayOfWeek: 'MONDAY' } },
    });
    expect(rows).toHaveLength(stored.breaks.length);
    expectBreaksInsideHours(stored);
  });

  it('writers that keep the breaks while others replace them never leave a break outside the hours', async () => {
    // half replace the breaks; half change only the hours (keeping whatever breaks are there): those
    // are refused when a kept break would fall outside their hours, and accepted otherwise
    const inputs = Array.from({ length: WRITERS }, (_, i) =>
      i % 2 === 0 ? fullDay(i) : { dayOfWeek: 'MONDAY', isClosed: false, open: hh(8 + (i % 5)), close: hh(13 + (i % 6)) },
    );
    const answers = await Promise.all(inputs.map((input, i) => setDay(i, input)));
    for (const a of answers) {
      if (a.status === 200) expectBreaksInsideHours(a.day!);
      else {
        expect(['BAD_USER_INPUT', 400]).toContain(a.status);
        expect(a.message).toMatch(/^breaks: the kept break .* must lie within open/);
      }
    }
    const accepted = answers.filter((a) => a.status === 200).map((a) => a.day);
    expect(accepted.length).toBeGreaterThanOrEqual(WRITERS / 2); // every writer that sent its breaks
    // every accepted writer was answered the whole day after its write: the last one's answer is the day
    const stored = await storedMonday();
    expect(accepted).toContainEqual(stored);
    expectBreaksInsideHours(stored);
  });
});

describe(`${WRITERS} concurrent writers on one closure`, () => {
  it('each answered its own closure, and the stored closure is exactly one of them', async () => {
    const orgId = t.demo.organizations.clinic.id;
    const created = await t.rest('POST', `/v1/organizations/${orgId}/closures`, {
      json: { description: 'Initial', annualDate: { month: 1, day: 1 }, chatGreeting: 'Initial chat', phoneGreeting: 'Initial phone' },
    });
    const closureId = created.body.data.id as string;

    // alternating forms (annual / timed), every field named after the writer
    type ClosureInput = {
      description: string;
      annualDate?: { month: number; day: number };
      startAt?: string;
      endAt?: string;
      chatGreeting: string;
      phoneGreeting: string;
    };
    const inputs = Array.from({ length: WRITERS }, (_, i): ClosureInput => ({
      description: `writer ${i}`,
      ...(i % 3 === 0
        ? { annualDate: { month: 1 + (i % 12), day: 1 + (i % 28) } }
        : { startAt: `2026-0${1 + (i % 9)}-10T0${i % 10}:00:00Z`, endAt: `2026-0${1 + (i % 9)}-10T1${i % 10}:30:00Z` }),
      chatGreeting: `chat of writer ${i}`,
      phoneGreeting: `phone of writer ${i}`,
    }));
    const expected = inputs.map((input) => ({
      id: closureId,
      description: input.description,
      chatGreeting: input.chatGreeting,
      phoneGreeting: input.phoneGreeting,
      annualDate: input.annualDate ?? null,
      startAt: input.startAt ?? null,
      endAt: input.endAt ?? null,
    }));
    const normalize = (c: Record<string, unknown>) => ({ annualDate: null, startAt: null, endAt: null, ...c });

    const answers = await Promise.all(
      inputs.map(async (input, i) => {
        if (i % 2 === 0) {
          const res = await t.rest('POST', `/v1/organizations/${orgId}/closures/${closureId}`, { json: input });
          expect(res.status).toBe(200);
          return normalize(res.body.data);
        }
        const res = await t.gql(UPDATE_CLOSURE, { orgId, closureId, input });
        expect(res.body.errors).toBeUndefined();
        return normalize(res.body.data.updateClosure);
      }),
    );
    answers.forEach((a, i) => expect(a).toEqual(expected[i]));

    const stored = normalize((await t.rest('GET', `/v1/organizations/${orgId}/closures/${closureId}`)).body.data);
    expect(expected).toContainEqual(stored);
  });
});
