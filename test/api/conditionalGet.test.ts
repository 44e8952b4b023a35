// Conditional GETs on /v1: every GET answer carries a weak ETag derived from its data, and
// If-None-Match with that tag is a 304 with an empty body — until the data changes.
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/testApp.js';

const t = useTestApp();

const officeHours = () => `/v1/organizations/${t.demo.organizations.clinic.id}/office-hours`;
const availability = () => `/v1/organizations/${t.demo.organizations.clinic.id}/availability?medium=PHONE`;
const ifNoneMatch = (etag: string) => ({ headers: { 'If-None-Match': etag } });
const monday = { dayOfWeek: 'MONDAY', isClosed: false, open: '09:00', close: '17:00', breaks: [] };

describe('ETag and If-None-Match on GET routes', () => {
  it('answers a weak ETag, and 304 with an empty body (and the ETag) while the data is unchanged', async () => {
    const first = await t.rest('GET', officeHours());
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^W\/"[A-Za-z0-9_-]{27}"$/);
    expect(first.headers.get('cache-control')).toBe('private, no-cache');
    const again = await t.rest('GET', officeHours(), ifNoneMatch(etag));
    expect(again.status).toBe(304);
    expect(again.body).toBeUndefined();
    expect(again.headers.get('etag')).toBe(etag);
    expect(again.headers.get('x-request-id')).toBeTruthy();
    expect(again.headers.get('x-ratelimit-remaining')).toBeTruthy();
  });

  it('answers 200 with a new ETag once the data changed (on either surface)', async () => {
    const etag = (await t.rest('GET', officeHours())).headers.get('etag')!;
    await t.rest('POST', officeHours(), { json: monday });
    const changed = await t.rest('GET', officeHours(), ifNoneMatch(etag));
    expect(changed.status).toBe(200);
    expect(changed.body.data.officeHours[0]).toMatchObject({ dayOfWeek: 'MONDAY', open: '09:00' });
    const newEtag = changed.headers.get('etag')!;
    expect(newEtag).not.toBe(etag);
    expect((await t.rest('GET', officeHours(), ifNoneMatch(newEtag))).status).toBe(304);
    await t.gql(
      `mutation($orgId: ID!) { setOfficeHours(orgId: $orgId, input: {dayOfWeek: MONDAY, isClosed: true, breaks: []}) { dayOfWeek } }`,
      {
        orgId: t.demo.organizations.clinic.id,
      },
    );
    expect((await t.rest('GET', officeHours(), ifNoneMatch(newEtag))).status).toBe(200);
  });

  it('compares weakly, accepts a list of tags and *, and ignores tags that do not match', async () => {
    const etag = (await t.rest('GET', officeHours())).headers.get('etag')!;
    const strong = etag.slice(2);
    expect((await t.rest('GET', officeHours(), ifNoneMatch(strong))).status).toBe(304);
    expect((await t.rest('GET', officeHours(), ifNoneMatch(`W/"other", ${etag}`))).status).toBe(304);
    expect((await t.rest('GET', officeHours(), ifNoneMatch('*'))).status).toBe(304);
    expect((await t.rest('GET', officeHours(), ifNoneMatch('W/"other"'))).status).toBe(200);
    // a tag of another resource is another tag
    const closuresEtag = (await t.rest('GET', `/v1/organizations/${t.demo.organizations.clinic.id}/closures`)).headers.get('etag')!;
    expect(closuresEtag).not.toBe(etag);
    expect((await t.rest('GET', officeHours(), ifNoneMatch(closuresEtag))).status).toBe(200);
  });

  it('lets a poller of availability (no `at`) get 304 until the state changes', async () => {
    await t.rest('POST', officeHours(), { json: monday });
    t.clock.set('2026-03-09T12:00:00Z'); // Monday 08:00 in New York: closed until 09:00
    const before = await t.rest('GET', availability());
    expect(before.body.data.state).toBe('CLOSED');
    const etag = before.headers.get('etag')!;
    t.clock.set('2026-03-09T12:45:00Z'); // 08:45: `at` and `localTime` moved, nothing else did
    expect((await t.rest('GET', availability(), ifNoneMatch(etag))).status).toBe(304);
    t.clock.set('2026-03-09T13:30:00Z'); // 09:30: open
    const open = await t.rest('GET', availability(), ifNoneMatch(etag));
    expect(open.status).toBe(200);
    expect(open.body.data.state).toBe('OPEN');
  });

  it('tags every GET route of /v1, and no error answer', async () => {
    const clinic = t.demo.organizations.clinic.id;
    const paths = [
      `/v1/organizations/${clinic}`,
      `/v1/organizations/${clinic}/closures`,
      `/v1/organizations/${clinic}/bots`,
      `/v1/organizations/${clinic}/phone-numbers`,
      `/v1/organizations/${clinic}/insurances`,
      `/v1/bots/${t.demo.bots.clinic[0]}/workflows`,
      `/v1/call-requests/${t.demo.callRequests.clinic.failed}`,
      '/v1/templates',
      '/v1/conversations',
    ];
    for (const path of paths) {
      const res = await t.rest('GET', path);
      expect(res.status, path).toBe(200);
      const etag = res.headers.get('etag')!;
      expect(etag, path).toMatch(/^W\//);
      expect((await t.rest('GET', path, ifNoneMatch(etag))).status, path).toBe(304);
    }
    const missing = await t.rest('GET', `/v1/organizations/${t.demo.organizations.other.id}`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('etag')).toBeNull();
    const created = await t.rest('POST', '/v1/templates', { json: { name: 'Tagged?' } });
    expect(created.headers.get('etag')).toBeNull();
  });
});
