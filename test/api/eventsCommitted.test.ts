// The database tells the job queue when a commit appended events (src/db/instrumentedAdapter.ts
// onEventsCommitted; src/runtime.ts pokes the queue with it), so that a webhook goes out at once after any
// write — also one that publishes no change (an insurance's notes), which before waited for the queue's
// next poll. Told after the commit, never for a write that did not commit, never for a read.
import { afterEach, describe, expect, it } from 'vitest';
import type { DatabaseObserver } from '../../src/db/instrumentedAdapter.js';
import { useTestApp } from '../support/testApp.js';

const t = useTestApp();

const seen: string[] = [];
const observer: DatabaseObserver = {
  onStatement: (event) => {
    if (/^\s*COMMIT\b/i.test(event.sql)) seen.push('commit statement');
  },
  onEventsCommitted: () => seen.push('events committed'),
};

afterEach(() => {
  t.db.observers.delete(observer);
  seen.length = 0;
});

describe('events committed', () => {
  it('are told once per write that appended events, after its commit, on both surfaces', async () => {
    const org = t.demo.organizations.clinic.id;
    const insurance = t.demo.insurances.clinic[0];
    t.db.observers.add(observer);
    const rest = await t.rest('PATCH', `/v1/organizations/${org}/insurances/${insurance}`, { json: { notes: 'Pre-authorization' } });
    expect(rest.status).toBe(200);
    expect(seen.filter((s) => s === 'events committed')).toHaveLength(1);
    // a commit sent as a statement comes first; the notice is never before it
    if (seen.includes('commit statement')) expect(seen.indexOf('commit statement')).toBeLessThan(seen.indexOf('events committed'));

    const gql = await t.gql(
      `mutation($o: ID!, $i: ID!) { updateInsurance(orgId: $o, insuranceId: $i, input: { notes: "Call first" }) { id } }`,
      { o: org, i: insurance },
    );
    expect(gql.body.errors).toBeUndefined();
    expect(seen.filter((s) => s === 'events committed')).toHaveLength(2);
  });

  it('are not told for reads, nor for a write refused before or inside its transaction', async () => {
    const org = t.demo.organizations.clinic.id;
    t.db.observers.add(observer);
    expect((await t.rest('GET', `/v1/organizations/${org}/insurances`)).status).toBe(200);
    const refused = await t.rest('PATCH', `/v1/organizations/${org}/insurances/${t.demo.insurances.clinic[0]}`, {
      json: { notes: 'x'.repeat(100_000) },
    });
    expect(refused.status).toBe(400);
    const missing = await t.rest('PATCH', `/v1/organizations/${org}/insurances/00000000-0000-4000-8000-000000000000`, {
      json: { notes: 'Nobody' },
    });
    expect(missing.status).toBe(404);
    expect(seen).not.toContain('events committed');
  });
});
