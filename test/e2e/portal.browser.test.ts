// The developer portal in a real browser, as a newcomer uses it while `npm start` runs (the compiled
// service on an embedded in-memory database, with its demo data): paste the demo key, create a key
// restricted to `closures:read` (its secret shown once, copied with the button), roll it with an
// overlap, revoke it; an OAuth client, a webhook endpoint with a test delivery, the week of
// availability. Each step is checked through the page and through the API with the keys the page
// showed, and photographed into test/e2e/screenshots/ (ignored by git). Headless Chromium (Debian's
// package, driven by playwright-core); without it the test is skipped locally and fails under CI.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot, startServer, type RunningServer } from '../support/processes.js';
import { useWebhookReceiver } from '../support/webhookReceiver.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const chromiumMissing = !existsSync(CHROMIUM);
const AUDIENCE = 'https://portal.test/v1';
const SCREENSHOTS = join(projectRoot, 'test', 'e2e', 'screenshots');

/** A datetime-local value (the browser's and this process's time zone are the same: TZ is inherited). */
function localInput(ms: number): string {
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

describe.skipIf(chromiumMissing && !process.env.CI)('the developer portal in a browser', () => {
  const receiver = useWebhookReceiver();
  let service: RunningServer | undefined;
  let browser: Browser | undefined;
  let context: BrowserContext;
  let page: Page;
  let demoKey: string;
  let orgId: string;
  /** Problems the page met: policy violations, script errors, requests to another origin. */
  const problems: string[] = [];

  const api = (path: string, key: string, init: RequestInit = {}) =>
    fetch(`${service!.baseUrl}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...init.headers },
    });
  const shot = (name: string) => page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
  const secretShown = () => page.locator('#secret-value').inputValue();

  beforeAll(async () => {
    if (chromiumMissing) throw new Error(`Chromium is not installed at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);
    mkdirSync(SCREENSHOTS, { recursive: true });
    // the webhook receiver listens on 127.0.0.1: private targets are off unless asked for
    service = await startServer({
      DATABASE_URL: 'pglite:memory',
      REDIS_URL: '',
      NODE_ENV: 'development',
      OAUTH_AUDIENCE: AUDIENCE,
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    });
    demoKey = /Demo API key \(account organization\): (svc-sk-v2-\w+)/.exec(service.output().stdout + service.output().stderr)![1]!;
    const viewer = await api('/graphql', demoKey, {
      method: 'POST',
      body: JSON.stringify({ query: '{ viewer { organization { id } } }' }),
    });
    orgId = ((await viewer.json()) as { data: { viewer: { organization: { id: string } } } }).data.viewer.organization.id;

    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: service.baseUrl });
    page = await context.newPage();
    page.setDefaultTimeout(10_000);
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) problems.push(message.text().slice(0, 300));
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message.slice(0, 300)}`));
    page.on('request', (request) => {
      if (!request.url().startsWith(`${service!.baseUrl}/`)) problems.push(`request to another origin: ${request.url()}`);
    });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    if (service) expect(await service.stop(), service.output().stderr).toBe(0);
  });

  it('signs in with a pasted key and shows the organization, its children and its week', async () => {
    await page.goto(`${service!.baseUrl}/portal`);
    await page.getByLabel('API key', { exact: true }).fill(demoKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.locator('#org-details').innerText(), { timeout: 15_000 }).toContain('Bright Smiles Dental Group');
    expect(await page.locator('#org-details').innerText()).toContain(orgId);
    expect(await page.evaluate(() => sessionStorage.getItem('ocs-portal-key'))).toBe(demoKey);
    // the account's children, paged
    await expect.poll(() => page.locator('#children-rows tr').count(), { timeout: 10_000 }).toBeGreaterThan(0);
    expect(await page.locator('#children-count').innerText()).toMatch(/^1–\d+ of \d+$/);
    // seven days, each with its intervals in words (the bar is drawn for the eye only)
    await expect.poll(() => page.locator('#week-days > li').count(), { timeout: 10_000 }).toBe(7);
    const week = await page.locator('#week-days').innerText();
    expect(week).toMatch(/\d\d:\d\d–\d\d:\d\d (Open|Closed|Break|Closure)/);
    expect(week).toContain('24:00');
    await shot('01-signed-in');
    // a child of the account: its own keys and week (the demo's locations open on weekdays)
    await page.getByRole('button', { name: 'Manage Bright Smiles Downtown' }).click();
    await expect.poll(() => page.locator('#week-zone').innerText(), { timeout: 10_000 }).toContain('Bright Smiles Downtown');
    expect(await page.locator('#week-days').innerText()).toMatch(/\d\d:\d\d–\d\d:\d\d Open/);
    await shot('01b-child-week');
    await page.getByRole('button', { name: 'Back to Bright Smiles Dental Group' }).click();
    await expect.poll(() => page.locator('#week-zone').innerText(), { timeout: 10_000 }).toContain('Bright Smiles Dental Group');
    // a reload keeps the session (sessionStorage), and the key never appears in the page
    await page.reload();
    await expect.poll(() => page.locator('#org-details').innerText(), { timeout: 15_000 }).toContain('Bright Smiles Dental Group');
    expect(await page.content()).not.toContain(demoKey);
  });

  it('shows the API’s own message when a request is refused', async () => {
    await page.locator('#key-name').fill('Nothing at all');
    await page.getByLabel('Restricted: only the scopes checked below').check();
    await page.getByRole('button', { name: 'Create key' }).click();
    await expect.poll(() => page.getByRole('alert').innerText(), { timeout: 10_000 }).toMatch(/scopes.*at least one scope/);
    await shot('02-error-from-the-api');
  });

  let restricted: string;
  it('creates a key restricted to closures:read; its secret is shown once and copied with the button', async () => {
    await page.locator('#key-name').fill('Closures reader');
    await page.getByLabel('Restricted: only the scopes checked below').check();
    await page.getByRole('checkbox', { name: 'closures:read', exact: true }).first().check();
    await page.getByRole('button', { name: 'Create key' }).click();
    await expect.poll(secretShown, { timeout: 10_000 }).toMatch(/^svc-sk-v2-/);
    restricted = await secretShown();
    expect(await page.locator('#secret-what').innerText()).toContain('closures:read');
    expect(await page.locator('#secret-kept').innerText()).toContain('keeps only a hash');
    await page.getByRole('button', { name: 'Copy' }).click();
    await expect.poll(() => page.locator('#secret-copied').innerText()).toBe('Copied to the clipboard.');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(restricted);
    await shot('03-restricted-key-created');

    // the key the page showed: it reads closures, and gets 403 outside its scope
    expect((await api(`/v1/organizations/${orgId}/closures`, restricted)).status).toBe(200);
    expect((await api(`/v1/organizations/${orgId}/office-hours`, restricted)).status).toBe(403);

    // once saved, the secret is gone from the page: the list shows the masked form and the scope
    await page.getByRole('button', { name: 'I have saved it' }).click();
    expect(await page.locator('#secret').isHidden()).toBe(true);
    const row = page.locator('#keys-rows tr', { hasText: 'Closures reader' });
    await expect.poll(() => row.count()).toBe(1);
    const text = await row.innerText();
    expect(text).toContain(`${restricted.slice(0, 14)}…${restricted.slice(-4)}`);
    expect(text).toContain('closures:read');
    expect(await page.content()).not.toContain(restricted);
    await shot('04-secret-dismissed');
  });

  let rolled: string;
  it('rolls the key: a new secret at once, the old key working until the chosen time', async () => {
    const until = Date.now() + 2 * 60 * 60 * 1000;
    await page.getByRole('button', { name: 'Roll Closures reader' }).click();
    await page.getByLabel('Old key stops working at').fill(localInput(until));
    await page.getByRole('button', { name: 'Roll key' }).click();
    await expect.poll(secretShown, { timeout: 10_000 }).toMatch(/^svc-sk-v2-/);
    rolled = await secretShown();
    expect(rolled).not.toBe(restricted);
    await shot('05-rolled');

    // both work now; the old one with the expiry chosen (to the minute), the new one without
    expect((await api(`/v1/organizations/${orgId}/closures`, rolled)).status).toBe(200);
    expect((await api(`/v1/organizations/${orgId}/closures`, restricted)).status).toBe(200);
    const { data } = (await (await api('/v1/api-keys', demoKey)).json()) as {
      data: { apiKeys: { masked: string; expiresAt: string | null; scopes: string[] }[] };
    };
    const old = data.apiKeys.find((k) => k.masked.endsWith(restricted.slice(-4)))!;
    const fresh = data.apiKeys.find((k) => k.masked.endsWith(rolled.slice(-4)))!;
    expect(Math.abs(Date.parse(old.expiresAt!) - Math.floor(until / 60_000) * 60_000)).toBeLessThan(60_000);
    expect(fresh.expiresAt).toBeNull();
    expect(fresh.scopes).toEqual(['closures:read']);

    await page.getByRole('button', { name: 'I have saved it' }).click();
    await expect.poll(() => page.locator('#keys-rows tr', { hasText: 'Closures reader' }).count()).toBe(2);
    // the list shows the old key's new expiry (the Expires column), and none for the new one
    const oldRow = page.locator('#keys-rows tr', { hasText: restricted.slice(-4) });
    expect(await oldRow.locator('td').nth(5).locator('time').getAttribute('datetime')).toBe(old.expiresAt);
    expect(
      await page
        .locator('#keys-rows tr', { hasText: rolled.slice(-4) })
        .locator('td')
        .nth(5)
        .innerText(),
    ).toBe('never');
  });

  it('revokes the new key: it is refused at once and leaves the list', async () => {
    const rows = page.locator('#keys-rows tr', { hasText: 'Closures reader' });
    const newest = rows.filter({ hasText: rolled.slice(-4) });
    await newest.getByRole('button', { name: 'Revoke Closures reader' }).click();
    await shot('06-revoke-confirm');
    await newest.getByRole('button', { name: 'Confirm revoke Closures reader' }).click();
    await expect.poll(() => rows.count(), { timeout: 10_000 }).toBe(1);
    expect(await page.getByRole('status').first().innerText()).toContain('Revoked the key “Closures reader”');
    expect((await api(`/v1/organizations/${orgId}/closures`, rolled)).status).toBe(401);
    await shot('07-revoked');
  });

  it('creates an OAuth client (secret once) whose secret gets an access token; changes its scopes', async () => {
    await page.locator('#client-name').fill('Reporting job');
    await page.locator('#client-form').getByRole('checkbox', { name: 'events:read' }).check();
    await page.getByRole('button', { name: 'Create client' }).click();
    await expect.poll(secretShown, { timeout: 10_000 }).not.toBe('');
    const secret = await secretShown();
    const clientId = /client_id (\S+)\)/.exec(await page.locator('#secret-what').innerText())![1]!;
    const token = await fetch(`${service!.baseUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: secret, audience: AUDIENCE }),
    });
    expect(token.status, await token.clone().text()).toBe(200);
    await shot('08-oauth-client');
    await page.getByRole('button', { name: 'I have saved it' }).click();

    await page.getByRole('button', { name: 'Change scopes of Reporting job' }).click();
    await page.locator('#client-scopes-form').getByRole('checkbox', { name: 'webhooks:read' }).check();
    await page.getByRole('button', { name: 'Save scopes' }).click();
    await expect
      .poll(() => page.locator('#clients-rows tr', { hasText: 'Reporting job' }).innerText(), { timeout: 10_000 })
      .toContain('events:read, webhooks:read');
  });

  it('adds a webhook endpoint, sends it a test event and shows the delivery', async () => {
    // a refusal is shown where the eye is, not only at the top of a long page
    await page.getByLabel('URL (https://)').fill('ftp://example.com/hook');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await expect.poll(() => page.getByRole('alert').innerText(), { timeout: 10_000 }).toContain('url');
    const box = (await page.getByRole('alert').boundingBox())!;
    expect(box.y).toBeGreaterThanOrEqual(0);
    expect(box.y + box.height).toBeLessThanOrEqual(page.viewportSize()!.height);
    await page.getByLabel('URL (https://)').fill(receiver.url);
    await page.getByLabel('Description (optional)').fill('Test receiver');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await expect.poll(secretShown, { timeout: 10_000 }).toMatch(/^whsec_/);
    // a signing secret is kept encrypted (it signs every delivery), not as a hash
    expect(await page.locator('#secret-kept').innerText()).toContain('keeps it encrypted');
    await page.getByRole('button', { name: 'I have saved it' }).click();
    await page.getByRole('button', { name: `Send a test event to ${receiver.url}` }).click();
    await expect.poll(() => page.locator('#deliveries-rows').innerText(), { timeout: 10_000 }).toContain('webhook.test');
    await expect.poll(() => receiver.received.length, { timeout: 15_000 }).toBeGreaterThan(0);
    // the list looks again by itself while a delivery is pending: its outcome appears without a click
    await expect.poll(() => page.locator('#deliveries-rows').innerText(), { timeout: 15_000 }).toContain('delivered');
    // each attempt, under its delivery
    await page.getByRole('button', { name: /^Attempts of the webhook\.test delivery/ }).click();
    await expect.poll(() => page.locator('#deliveries-rows tr.attempts').innerText(), { timeout: 10_000 }).toContain('answered 200');
    // filtered: no failure to show, and a replay of the week's failures is asked for
    await page.locator('#deliveries-status').selectOption('failed');
    await expect.poll(() => page.locator('#deliveries-rows').innerText(), { timeout: 10_000 }).toContain('No deliveries yet.');
    await page.getByRole('button', { name: "Deliver the last 7 days' failures again" }).click();
    await expect.poll(() => page.locator('#status').innerText(), { timeout: 10_000 }).toContain('being delivered again');
    await page.getByRole('button', { name: `Disable ${receiver.url}` }).click();
    await expect.poll(() => page.locator('#webhooks-rows').innerText(), { timeout: 10_000 }).toContain('Disabled');
    await shot('09-webhooks');
    expect(problems).toEqual([]);
  });

  it('shows the calling policy and calls at once, and keeps the do-not-call list: a number added, refused, removed', async () => {
    await expect.poll(() => page.locator('#policy-details').innerText(), { timeout: 10_000 }).toContain('Calls at once');
    expect(await page.locator('#policy-details').innerText()).toMatch(/MON 08:00–21:00/);
    // the account sets no cap of its own: its locations' caps apply
    expect(await page.locator('#capacity').innerText()).toMatch(/^\d+ in progress \(no cap of its own/);
    await page.getByLabel('Number, with its country code').fill('+1 (202) 555-0143');
    await page.getByLabel('Reason (optional)', { exact: true }).fill('Asked by letter');
    await page.getByRole('button', { name: 'Add to the list' }).click();
    await expect.poll(() => page.locator('#suppressions-rows').innerText(), { timeout: 10_000 }).toContain('+12025550143');
    expect(await page.locator('#suppressions-rows').innerText()).toContain('Asked by letter');
    await shot('09b-do-not-call');
    // the list the page shows is the service's: a location of the account cannot call the number
    const listed = await api(`/v1/suppressions?number=${encodeURIComponent('+12025550143')}`, demoKey);
    expect(((await listed.json()) as { data: { suppressions: unknown[] } }).data.suppressions).toHaveLength(1);
    await page.getByRole('button', { name: 'Remove +12025550143' }).click();
    await page.getByRole('button', { name: 'Confirm remove +12025550143' }).click();
    await expect.poll(() => page.locator('#suppressions-rows').innerText(), { timeout: 10_000 }).toContain('No numbers listed.');
    const after = await api(`/v1/suppressions?number=${encodeURIComponent('+12025550143')}`, demoKey);
    expect(((await after.json()) as { data: { suppressions: unknown[] } }).data.suppressions).toHaveLength(0);
  });

  it('adds a location to the account, archives it and brings it back: the list and the service say each', async () => {
    await page.getByRole('button', { name: 'Add a location' }).click();
    await page.getByLabel('Name of the location').fill('Bright Smiles Uptown');
    await page.getByLabel('Time zone (IANA, e.g. America/Chicago)').fill('America/Chicago');
    await page.getByRole('button', { name: 'Add location' }).click();
    await expect.poll(() => page.locator('#children-rows').innerText(), { timeout: 10_000 }).toContain('Bright Smiles Uptown');
    const uptown = async () => {
      const page = (await (await api(`/v1/organizations/${orgId}/children?limit=200&includeArchived=true`, demoKey)).json()) as {
        data: { children: { id: string; name: string; timezone: string; archivedAt: string | null }[] };
      };
      return page.data.children.find((c) => c.name === 'Bright Smiles Uptown');
    };
    expect(await uptown()).toMatchObject({ timezone: 'America/Chicago', archivedAt: null });
    await shot('01c-location-added');

    await page.getByRole('button', { name: 'Archive Bright Smiles Uptown' }).click();
    await expect.poll(async () => (await uptown())?.archivedAt, { timeout: 10_000 }).toEqual(expect.any(String));
    await expect.poll(() => page.getByRole('button', { name: 'Unarchive Bright Smiles Uptown' }).count(), { timeout: 10_000 }).toBe(1);
    expect(await page.locator('#children-rows').innerText()).toMatch(/Bright Smiles Uptown[\s\S]*Archived/);
    await page.getByRole('button', { name: 'Unarchive Bright Smiles Uptown' }).click();
    await expect.poll(async () => (await uptown())?.archivedAt, { timeout: 10_000 }).toBeNull();
    expect(problems).toEqual([]);
  });

  it("changes a location's greeting: the numbers list and the service say it", async () => {
    await page.getByRole('button', { name: 'Manage Bright Smiles Downtown' }).click();
    await expect.poll(() => page.locator('#numbers-rows').innerText(), { timeout: 10_000 }).toContain('Downtown main line');
    await page.getByRole('button', { name: 'Edit the greetings of Downtown main line' }).click();
    await page.getByLabel('Greeting while the office is closed ("" for none)').fill('Closed for the holidays; back on Monday at 8.');
    await page.getByRole('button', { name: 'Save greetings' }).click();
    await expect
      .poll(() => page.locator('#numbers-rows').innerText(), { timeout: 10_000 })
      .toContain('Closed for the holidays; back on Monday at 8.');
    await shot('09c-greetings');
    const children = (await (await api(`/v1/organizations/${orgId}/children?limit=50`, demoKey)).json()) as {
      data: { children: { id: string; name: string }[] };
    };
    const downtown = children.data.children.find((c) => c.name === 'Bright Smiles Downtown')!;
    const numbers = (await (await api(`/v1/organizations/${downtown.id}/phone-numbers`, demoKey)).json()) as {
      data: { phoneNumbers: { name: string; customClosedGreeting: string }[] };
    };
    expect(numbers.data.phoneNumbers.find((n) => n.name === 'Downtown main line')!.customClosedGreeting).toBe(
      'Closed for the holidays; back on Monday at 8.',
    );
    await page.getByRole('button', { name: 'Back to Bright Smiles Dental Group' }).click();
    await expect.poll(() => page.locator('#week-zone').innerText(), { timeout: 10_000 }).toContain('Bright Smiles Dental Group');
    expect(problems).toEqual([]);
  });

  it('sets the redaction policy, shows retention and who read which transcript, and downloads the access log', async () => {
    // a transcript of the account, read once through the API: one access-log entry
    const created = await api('/v1/conversations', demoKey, { method: 'POST', body: JSON.stringify({ orgId, medium: 'CHAT' }) });
    expect(created.status).toBe(200);
    const conversationId = ((await created.json()) as { data: { conversationId: string } }).data.conversationId;
    const said = await api(`/v1/conversations/${conversationId}/messages`, demoKey, {
      method: 'POST',
      body: JSON.stringify({ role: 'caller', text: 'Mail me at jane@example.com' }),
    });
    expect(said.status).toBe(200);
    expect((await api(`/v1/conversations/${conversationId}`, demoKey)).status).toBe(200);

    await page.reload();
    await expect.poll(() => page.locator('#retention-details').innerText(), { timeout: 15_000 }).toContain('365 days');
    expect(await page.locator('#retention-details').innerText()).toContain('at least six years');
    expect(await page.locator('#redaction-source').innerText()).toContain('e-mail addresses kept (the default setting)');
    await expect.poll(() => page.locator('#access-log-rows tr').count()).toBe(1);
    expect(await page.locator('#access-log-rows').innerText()).toContain(conversationId);

    await page.getByLabel('Replace e-mail addresses by [email]').check();
    await page.getByRole('button', { name: 'Save the redaction policy' }).click();
    await expect.poll(() => page.locator('#status').innerText()).toContain('redaction policy');
    expect(await page.locator('#redaction-source').innerText()).toContain('e-mail addresses replaced (its own setting)');
    const policy = await api(`/v1/organizations/${orgId}/redaction`, demoKey);
    expect(((await policy.json()) as { data: { emails: boolean; phones: boolean } }).data).toMatchObject({ emails: true, phones: false });
    // the next turn is stored without the address
    const next = await api(`/v1/conversations/${conversationId}/messages`, demoKey, {
      method: 'POST',
      body: JSON.stringify({ role: 'caller', text: 'Mail me at jane@example.com' }),
    });
    expect(((await next.json()) as { data: { text: string } }).data.text).toBe('Mail me at [email]');
    await shot('09b-transcripts');

    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download the log (NDJSON)' }).click();
    const file = await (await download).path();
    const lines = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { orgId: string; conversationId: string });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ orgId, conversationId });
    expect(problems).toEqual([]);
  });

  it('signs out, forgetting the key; a restricted key sees what it may and is told what it may not', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    expect(await page.evaluate(() => sessionStorage.getItem('ocs-portal-key'))).toBeNull();
    expect(await page.getByLabel('API key', { exact: true }).isVisible()).toBe(true);

    // the rolled-over key, still within its overlap: closures:read only
    await page.getByLabel('API key', { exact: true }).fill(restricted);
    expect(await page.locator('#org-details').innerText()).toBe(''); // nothing left of the last session
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.locator('#org-details').innerText(), { timeout: 15_000 }).toContain('Bright Smiles Dental Group');
    await expect.poll(() => page.locator('#keys-denied').isVisible()).toBe(true);
    expect(await page.locator('#keys-body').isHidden()).toBe(true);
    expect(await page.locator('#webhooks-denied').innerText()).toContain('webhooks:read');
    expect(await page.locator('#week-denied').innerText()).toContain('office-hours:read');
    expect(await page.getByRole('alert').isHidden()).toBe(true);
    await shot('10-restricted-key-signed-in');
    await page.getByRole('button', { name: 'Sign out' }).click();

    // the revoked key: refused with the service's message, and not kept
    await page.getByLabel('API key', { exact: true }).fill(rolled);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').innerText(), { timeout: 10_000 }).toBe('Invalid API key');
    expect(await page.evaluate(() => sessionStorage.getItem('ocs-portal-key'))).toBeNull();
    expect(await page.locator('#portal').isHidden()).toBe(true);
    expect(problems).toEqual([]);
  });
});
