// Bodies built to cost the server (issue 19, defect 2): a form of a hundred thousand tiny fields, a JSON
// object of thousands of unknown properties. The field count is bounded before anything is built, an
// error names the first few offenders and counts the rest, and on the token endpoint every such request
// counts against the client address's budget of failed authentications.
import { describe, expect, it } from 'vitest';
import { MAX_FORM_FIELDS } from '../../src/http/body.js';
import { useTestApp } from '../support/testApp.js';

const FAILED_AUTH_BUDGET = 4;
const t = useTestApp({ env: { UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE: String(FAILED_AUTH_BUDGET), RATE_LIMIT_PER_MINUTE: '1000' } });

/** `f0=1&f1=1&…`: 100,000 fields, most of a megabyte. */
const manyFields = (n: number) => Array.from({ length: n }, (_, i) => `f${i}=1`).join('&');

function multipart(n: number): { body: string; contentType: string } {
  const boundary = 'xBOUNDARYx';
  let body = '';
  for (let i = 0; i < n; i++) body += `--${boundary}\r\nContent-Disposition: form-data; name="f${i}"\r\n\r\n1\r\n`;
  return { body: `${body}--${boundary}--\r\n`, contentType: `multipart/form-data; boundary=${boundary}` };
}

describe('a form body with very many fields', () => {
  const closures = () => `/v1/organizations/${t.demo.organizations.clinic.id}/closures`;

  it('is refused by its field count on a write route, in a short answer', async () => {
    const body = manyFields(100_000);
    expect(body.length).toBeGreaterThan(800_000);
    const res = await t.fetch(closures(), {
      method: 'POST',
      headers: { authorization: `Bearer ${t.demo.organizations.clinic.apiKey}`, 'content-type': 'application/x-www-form-urlencoded' },
      body,
    });
    const text = await res.text();
    expect(res.status).toBe(400);
    expect(text.length).toBeLessThan(1_000);
    expect(JSON.parse(text).message).toBe(`The form body has more than ${MAX_FORM_FIELDS} fields`);
  });

  it('is refused by its part count when multipart', async () => {
    const { body, contentType } = multipart(MAX_FORM_FIELDS + 1);
    const res = await t.rest('POST', closures(), { raw: { body, contentType } });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(`The form body has more than ${MAX_FORM_FIELDS} fields`);
    // at the bound it is read (and judged by the route's schema)
    const atBound = multipart(MAX_FORM_FIELDS);
    const judged = await t.rest('POST', closures(), { raw: { body: atBound.body, contentType: atBound.contentType } });
    expect(judged.status).toBe(400);
    expect(judged.body.message).toMatch(/unknown properties "f0", "f1", "f2", "f3", "f4" and 995 more/);
  });

  it('names the first unknown fields and counts the rest (JSON too)', async () => {
    const json = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`field${i}`, 1]));
    const res = await t.fetch(closures(), {
      method: 'POST',
      headers: { authorization: `Bearer ${t.demo.organizations.clinic.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(json),
    });
    const text = await res.text();
    expect(res.status).toBe(400);
    expect(text.length).toBeLessThan(2_000);
    expect(JSON.parse(text).message).toContain('unknown properties "field0", "field1", "field2", "field3", "field4" and 19995 more');
  });

  it('cuts an overlong field name in the message', async () => {
    const res = await t.rest('POST', closures(), { form: [[`${'a'.repeat(50_000)}]`, '1']] });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body).length).toBeLessThan(1_000);
  });
});

describe('malformed token requests', () => {
  it('are refused in a short answer and count against the failed-authentication budget', async () => {
    const c = t.demo.oauthClients.clinic;
    const form = (body: string) =>
      t.fetch('/oauth/token', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
    const huge = await form(manyFields(100_000));
    expect(huge.status).toBe(400);
    expect((await huge.json()).error).toBe('invalid_request');
    const json = (body: string) => t.fetch('/oauth/token', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect((await json('{nope')).status).toBe(400);
    expect((await json('{"client_id":"x"}')).status).toBe(400);
    expect((await form('grant_type=password')).status).toBe(400);
    // the budget is spent: even the right secret waits for the next window
    const res = await t.rest('POST', '/oauth/token', {
      token: null,
      json: {
        grant_type: 'client_credentials',
        client_id: c.clientId,
        client_secret: c.clientSecret,
        audience: t.deps.config.oauthAudience,
      },
    });
    expect(res.status).toBe(429);
    expect(res.body.error).toBe('invalid_client');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
