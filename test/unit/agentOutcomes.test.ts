// The outcome mix of the reference runtime (agent/outcomes.ts, issue 35 §5): --mix and --seed are parsed, and a
// bad one refused naming its part, before the runtime claims anything; a seed replays the same draws.
import { describe, expect, it } from 'vitest';
import { DEFAULT_MIX, formatMix, MixError, outcomePicker, parseMix, parseSeed, seededRandom } from '../../agent/outcomes.js';

const draws = (mix: string, seed: number, n: number) => Array.from({ length: n }, outcomePicker(parseMix(mix), seededRandom(seed)));

describe('parseMix', () => {
  it('reads outcome=weight pairs in the order the draw walks, leaving out zero weights', () => {
    expect(parseMix(' booked=3, busy=2 ,callback=1,opt_out=0.5,voicemail=0')).toEqual([
      { outcome: 'busy', weight: 2 },
      { outcome: 'booked', weight: 3 },
      { outcome: 'callback_requested', weight: 1 },
      { outcome: 'opt_out', weight: 0.5 },
    ]);
    expect(formatMix(parseMix('booked=3,busy=2'))).toBe('busy=2,booked=3');
    expect(parseMix(DEFAULT_MIX)).toEqual([{ outcome: 'rejected', weight: 1 }]);
    // every failure code a runtime reports (but dispatch_timeout, the service's own) and every disposition
    expect(
      parseMix(
        'busy=1,no_answer=1,voicemail=1,target_unavailable=1,rejected=1,booked=1,callback_requested=1,opt_out=1,' +
          'information_given=1,declined=1,transferred=1,voicemail_left=1,other=1',
      ),
    ).toHaveLength(13);
  });

  it.each([
    ['busy=2,bussy=1', /unknown outcome "bussy" in "bussy=1"; the outcomes are busy, no_answer, /],
    ['busy=-1', /the weight of busy must be a number ≥ 0, not "-1"/],
    ['booked=lots', /the weight of booked must be a number ≥ 0, not "lots"/],
    ['booked=', /the weight of booked must be a number ≥ 0, not ""/],
    ['booked=Infinity', /the weight of booked must be a number ≥ 0, not "Infinity"/],
    ['busy=0,booked=0', /every weight is 0/],
    ['busy', /"busy" is not outcome=weight/],
    ['busy=1,booked=1,busy=2', /busy is given twice/],
    ['callback=1,callback_requested=1', /callback_requested is given twice/],
    ['', /is empty/],
    [' , ', /is empty/],
    ['dispatch_timeout=1', /unknown outcome "dispatch_timeout"/],
  ])('refuses %j', (text, message) => {
    expect(() => parseMix(text)).toThrow(MixError);
    expect(() => parseMix(text)).toThrow(message);
  });

  it('names where the bad mix came from', () => {
    expect(() => parseMix('busy=x', 'AGENT_OUTCOME_MIX')).toThrow(/^AGENT_OUTCOME_MIX: the weight of busy/);
    expect(() => parseMix('busy=x')).toThrow(/^--mix: the weight of busy/);
  });
});

describe('parseSeed', () => {
  it('takes an integer from 0 to 2^32 − 1', () => {
    expect(parseSeed('0')).toBe(0);
    expect(parseSeed('4294967295')).toBe(4294967295);
    for (const bad of ['', '-1', '1.5', 'seven', '4294967296'])
      expect(() => parseSeed(bad, 'AGENT_SEED')).toThrow(`AGENT_SEED must be an integer from 0 to 4294967295, not "${bad}"`);
  });
});

describe('the draw', () => {
  const MIX = 'busy=1,booked=1,callback=1,opt_out=1';

  it('is the same sequence for the same seed, whatever order the mix was written in', () => {
    // pinned: a change of the generator or of the walk changes every seeded run people may have written down
    expect(draws(MIX, 7, 8)).toEqual(['busy', 'busy', 'opt_out', 'callback_requested', 'callback_requested', 'booked', 'booked', 'busy']);
    expect(draws('opt_out=1,callback=1,booked=1,busy=1', 7, 8)).toEqual(draws(MIX, 7, 8));
    expect(draws(MIX, 8, 8)).not.toEqual(draws(MIX, 7, 8));
  });

  it('follows the weights', () => {
    const n = 20_000;
    const counts = new Map<string, number>();
    for (const outcome of draws('busy=2,no_answer=3,voicemail=1,booked=3,callback=1', 35, n))
      counts.set(outcome, (counts.get(outcome) ?? 0) + 1);
    const share = (outcome: string) => (counts.get(outcome) ?? 0) / n;
    expect(share('busy')).toBeCloseTo(0.2, 1);
    expect(share('no_answer')).toBeCloseTo(0.3, 1);
    expect(share('voicemail')).toBeCloseTo(0.1, 1);
    expect(share('booked')).toBeCloseTo(0.3, 1);
    expect(share('callback_requested')).toBeCloseTo(0.1, 1);
    expect(counts.size).toBe(5);
  });

  it('never draws an outcome of weight 0', () => {
    expect(new Set(draws('busy=0,booked=1,opt_out=0', 1, 500))).toEqual(new Set(['booked']));
  });
});
