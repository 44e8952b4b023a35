import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/testApp.js';

const t = useTestApp();

describe('envelope and routing', () => {
  it('answers an organization in the envelope', async () => {
    const res = await t.rest('GET', `/v1/organizations/${t.demo.organizations.clinic.id}`);
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.data).toMatchObject({ id: t.demo.organizations.clinic.id, timezone: 'America/New_York', isAccount: false });
  });

  it('answers 404 in the envelope for an unknown route', async () => {
    const res = await t.rest('GET', '/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ success: false, data: {}, message: expect.stringContaining('/v1/nothing-here') });
  });

  it('answers 405 with Allow for a wrong method', async () => {
    const res = await t.rest('DELETE', `/v1/organizations/${t.demo.organizations.clinic.id}/disable`);
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expect(res.body.success).toBe(false);
  });
});
