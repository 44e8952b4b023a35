// The calling policy's windows in the callee's zone (domain/calls/callWindows.ts): the daylight-saving
// cases of issue 34 by hand, and a differential test against a minute-by-minute reference built on
// luxon's DateTime (not on the walk's wall-clock arithmetic).
import { DateTime, IANAZone } from 'luxon';
import { describe, expect, it } from 'vitest';
import {
  type CallDay,
  type CallWindowInput,
  compileCallingPolicy,
  DAYS_OF_WEEK,
  isCallAllowedAt,
  nextAllowedCallInstant,
} from '../../src/domain/calls/callWindows.js';

const MIN = 60_000;
const every = (start: number, end: number): CallWindowInput[] => DAYS_OF_WEEK.map((dayOfWeek) => ({ dayOfWeek, start, end }));
const hm = (h: number, m = 0) => h * 60 + m;
const zone = (name: string) => IANAZone.create(name) as IANAZone;
const ms = (iso: string) => Date.parse(iso);
const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());
const FAR = ms('2030-01-01T00:00:00Z');

describe('the first allowed instant', () => {
  it('is now when allowed, else the next window start in the callee zone', () => {
    const policy = compileCallingPolicy(every(hm(8), hm(21)), []);
    const ny = zone('America/New_York');
    // 15:00Z is 10:00 in New York (EST)
    expect(iso(nextAllowedCallInstant(policy, ny, ms('2026-03-02T15:00:30.123Z'), FAR))).toBe('2026-03-02T15:00:30.123Z');
    // 03:00Z is 22:00 the day before: next 08:00 local = 13:00Z
    expect(iso(nextAllowedCallInstant(policy, ny, ms('2026-03-03T03:00:00Z'), FAR))).toBe('2026-03-03T13:00:00.000Z');
    // the end is exclusive: 21:00 local is outside
    expect(isCallAllowedAt(policy, ny, ms('2026-03-03T02:00:00Z'))).toBe(false);
    expect(isCallAllowedAt(policy, ny, ms('2026-03-03T01:59:59Z'))).toBe(true);
    // none before the limit
    expect(nextAllowedCallInstant(policy, ny, ms('2026-03-03T03:00:00Z'), ms('2026-03-03T13:00:00Z'))).toBeNull();
  });

  it('skips blocked local dates and days without windows', () => {
    const policy = compileCallingPolicy(
      [
        { dayOfWeek: 'MONDAY', start: hm(9), end: hm(12) },
        { dayOfWeek: 'MONDAY', start: hm(14), end: hm(17) },
        { dayOfWeek: 'WEDNESDAY', start: hm(9), end: hm(10) },
      ],
      ['2026-12-28'],
    );
    const berlin = zone('Europe/Berlin');
    // Monday 2026-12-21 12:30 local (11:30Z) → 14:00 local
    expect(iso(nextAllowedCallInstant(policy, berlin, ms('2026-12-21T11:30:00Z'), FAR))).toBe('2026-12-21T13:00:00.000Z');
    // Monday 17:00 local → Wednesday 09:00 local
    expect(iso(nextAllowedCallInstant(policy, berlin, ms('2026-12-21T16:00:00Z'), FAR))).toBe('2026-12-23T08:00:00.000Z');
    // Wednesday 10:00 → Monday 28th is blocked → Wednesday 30th 09:00
    expect(iso(nextAllowedCallInstant(policy, berlin, ms('2026-12-23T09:00:00Z'), FAR))).toBe('2026-12-30T08:00:00.000Z');
    expect(nextAllowedCallInstant(compileCallingPolicy([], []), berlin, ms('2026-12-23T09:00:00Z'), FAR)).toBeNull();
  });

  it('Santiago spring forward (2026-09-06, 00:00 → 01:00): a window 00:30–02:00 starts at the jump', () => {
    const policy = compileCallingPolicy(every(hm(0, 30), hm(2)), []);
    const santiago = zone('America/Santiago');
    // 2026-09-05 23:00 local (-04) = 09-06 03:00Z; midnight local does not exist: 01:00 (-03) = 04:00Z
    expect(iso(nextAllowedCallInstant(policy, santiago, ms('2026-09-06T03:10:00Z'), FAR))).toBe('2026-09-06T04:00:00.000Z');
    // the window ends at 02:00 local (-03) = 05:00Z
    expect(isCallAllowedAt(policy, santiago, ms('2026-09-06T04:59:00Z'))).toBe(true);
    expect(isCallAllowedAt(policy, santiago, ms('2026-09-06T05:00:00Z'))).toBe(false);
  });

  it('Havana spring forward (2026-03-08, 00:00 → 01:00) and fall back (2026-11-01, 01:00 → 00:00: the repeated hour counts twice)', () => {
    const havana = zone('America/Havana');
    const spring = compileCallingPolicy(every(hm(0, 15), hm(0, 45)), []);
    // the window lies wholly in the skipped hour on 03-08: the next is 03-09 00:15 (-04) = 04:15Z
    expect(iso(nextAllowedCallInstant(spring, havana, ms('2026-03-08T04:00:00Z'), FAR))).toBe('2026-03-09T04:15:00.000Z');
    // fall back: 00:00–01:00 local happens twice on 11-01 (04:00–05:00Z in -04, then 05:00–06:00Z in -05)
    const fall = compileCallingPolicy(every(hm(0, 30), hm(1)), []);
    expect(isCallAllowedAt(fall, havana, ms('2026-11-01T04:40:00Z'))).toBe(true);
    expect(isCallAllowedAt(fall, havana, ms('2026-11-01T05:10:00Z'))).toBe(false);
    // after the first pass ends (05:00Z), the repeated 00:30 is at 05:30Z
    expect(iso(nextAllowedCallInstant(fall, havana, ms('2026-11-01T05:00:00Z'), FAR))).toBe('2026-11-01T05:30:00.000Z');
  });

  it('Lord Howe (half-hour change, 2026-10-04 02:00 → 02:30): a window 01:30–03:00 covers 01:30 to the jump, then 02:30 on', () => {
    const lordHowe = zone('Australia/Lord_Howe');
    const policy = compileCallingPolicy(every(hm(1, 30), hm(3)), []);
    // 01:30 local (+10:30) = 10-03T15:00Z; the jump at 02:00 (+10:30) = 15:30Z, to 02:30 (+11)
    expect(iso(nextAllowedCallInstant(policy, lordHowe, ms('2026-10-03T14:00:00Z'), FAR))).toBe('2026-10-03T15:00:00.000Z');
    expect(isCallAllowedAt(policy, lordHowe, ms('2026-10-03T15:29:00Z'))).toBe(true);
    expect(isCallAllowedAt(policy, lordHowe, ms('2026-10-03T15:30:00Z'))).toBe(true); // 02:30 (+11)
    // 03:00 (+11) = 16:00Z ends it
    expect(isCallAllowedAt(policy, lordHowe, ms('2026-10-03T16:00:00Z'))).toBe(false);
  });
});

// ---- the differential test -------------------------------------------------------------------------

/** A reference built on DateTime: allowed when the local weekday's windows hold the local minute and the local date is free. */
function referenceAllowed(windows: CallWindowInput[], blocked: Set<string>, zoneName: string, t: number): boolean {
  const local = DateTime.fromMillis(t, { zone: zoneName });
  if (blocked.has(local.toISODate()!)) return false;
  const minute = local.hour * 60 + local.minute;
  const day = DAYS_OF_WEEK[local.weekday - 1];
  return windows.some((w) => w.dayOfWeek === day && minute >= w.start && minute < w.end);
}

function referenceNext(windows: CallWindowInput[], blocked: Set<string>, zoneName: string, from: number, before: number): number | null {
  if (from < before && referenceAllowed(windows, blocked, zoneName, from)) return from;
  for (let t = Math.ceil(from / MIN) * MIN; t < before; t += MIN) {
    if (t !== from && referenceAllowed(windows, blocked, zoneName, t)) return t;
  }
  return null;
}

/** A small deterministic generator (mulberry32): the failing seed is in the test's name. */
function random(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const ZONES = [
  'Australia/Lord_Howe',
  'America/Havana',
  'America/Santiago',
  'America/New_York',
  'Europe/London',
  'Pacific/Chatham',
  'Asia/Tehran',
];
// around the 2026 transitions of those zones
const ANCHORS = [
  '2026-03-08T05:00:00Z',
  '2026-04-05T03:00:00Z',
  '2026-09-06T04:00:00Z',
  '2026-10-03T15:30:00Z',
  '2026-11-01T05:00:00Z',
  '2026-03-29T01:00:00Z',
  '2026-10-25T01:00:00Z',
];

function randomWindows(rand: () => number): CallWindowInput[] {
  const windows: CallWindowInput[] = [];
  for (const day of DAYS_OF_WEEK as readonly CallDay[]) {
    if (rand() < 0.2) continue;
    // up to three non-overlapping windows, favouring the small hours where the changes are
    let cursor = 0;
    const count = 1 + Math.floor(rand() * 3);
    for (let i = 0; i < count && cursor < 1440; i++) {
      const start = cursor + Math.floor(rand() * (rand() < 0.5 ? 180 : 600));
      const end = Math.min(1440, start + 1 + Math.floor(rand() * 240));
      if (start >= 1440) break;
      windows.push({ dayOfWeek: day, start, end });
      cursor = end + Math.floor(rand() * 60);
    }
  }
  return windows;
}

describe('differential: the walk agrees with a minute-by-minute reference', () => {
  for (let seed = 1; seed <= 60; seed++) {
    it(`seed ${seed}`, () => {
      const rand = random(seed);
      const zoneName = ZONES[Math.floor(rand() * ZONES.length)]!;
      const windows = randomWindows(rand);
      const anchor = ms(ANCHORS[Math.floor(rand() * ANCHORS.length)]!);
      const blocked = new Set<string>();
      for (let i = 0; i < 3; i++)
        if (rand() < 0.5) blocked.add(new Date(anchor + Math.floor((rand() - 0.3) * 4) * 86_400_000).toISOString().slice(0, 10));
      const policy = compileCallingPolicy(windows, [...blocked]);
      const z = zone(zoneName);
      for (let k = 0; k < 5; k++) {
        const from = anchor + Math.floor((rand() - 0.5) * 2 * 86_400_000) + (rand() < 0.5 ? 0 : Math.floor(rand() * MIN));
        const before = from + Math.floor(rand() * 4 * 86_400_000);
        const expected = referenceNext(windows, blocked, zoneName, from, before);
        const actual = nextAllowedCallInstant(policy, z, from, before);
        expect(
          iso(actual),
          `${zoneName} from ${iso(from)} before ${iso(before)} ${JSON.stringify(windows)} ${[...blocked].join(',')}`,
        ).toBe(iso(expected));
      }
    });
  }
});
