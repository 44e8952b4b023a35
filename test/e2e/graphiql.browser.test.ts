// The real service in a real browser: `npm start` on an embedded in-memory database (which creates the
// demo data) with GRAPHIQL_DEMO_KEY=true serves GraphiQL at /graphql to this machine's browser with the
// Downtown clinic's key already in its headers, so that a query typed into the editor and run with the run
// button answers at once. Headless Chromium (Debian's package,
// driven by playwright-core); without it the test is skipped locally and fails under CI.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRAPHIQL_EXAMPLES } from '../../src/graphql/graphiql.js';

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
const root = fileURLToPath(new URL('../..', import.meta.url));
const chromiumMissing = !existsSync(CHROMIUM);

/** Starts `src/server.ts` on a free port and resolves with its address, read from the `listening` log line. */
function startService(): Promise<{ child: ChildProcessWithoutNullStreams; address: string; output: () => string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: root,
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_URL: 'pglite:memory',
      LOG_LEVEL: 'info',
      REDIS_URL: '',
      NODE_ENV: 'development',
      GRAPHIQL_DEMO_KEY: 'true',
    },
  });
  let output = '';
  return new Promise((resolve, reject) => {
    let pending = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const line of lines) {
        try {
          const entry = JSON.parse(line) as { msg?: string; address?: string };
          if (entry.msg === 'listening' && entry.address) resolve({ child, address: entry.address, output: () => output });
        } catch {
          /* not a log line */
        }
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', (code) => reject(new Error(`the service exited (${code}) before listening:\n${output}`)));
  });
}

/** The text of a Monaco editor, which renders spaces as no-break spaces. */
async function editorText(lines: Locator): Promise<string> {
  return (await lines.innerText()).replace(/\u00a0/g, ' ');
}

function stopped(child: ChildProcessWithoutNullStreams): Promise<number | null> {
  return child.exitCode !== null ? Promise.resolve(child.exitCode) : new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** What the Content-Security-Policy of the pages (http/pages.ts) blocked: must stay empty. */
const policyViolations: string[] = [];
function watchPolicy(page: Page): void {
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) policyViolations.push(message.text().slice(0, 300));
  });
  page.on('pageerror', (error) => policyViolations.push(`page error: ${error.message.slice(0, 300)}`));
}

// each case waits up to 30 s for the editor to load and then for its answer: more than vitest's default on a busy machine
describe.skipIf(chromiumMissing && !process.env.CI)('GraphiQL in a browser', { timeout: 90_000 }, () => {
  let service: Awaited<ReturnType<typeof startService>> | undefined;
  let browser: Browser | undefined;
  let page: Page;

  beforeAll(async () => {
    if (chromiumMissing) throw new Error(`Chromium is not installed at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);
    service = await startService();
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
    page = await browser.newPage();
    watchPolicy(page);
  });

  afterAll(async () => {
    await browser?.close();
    if (service) {
      service.child.kill('SIGTERM');
      expect(await stopped(service.child), service.output()).toBe(0);
    }
  });

  it("runs a query typed into the editor, authenticated with the clinic's demo key", async () => {
    await page.goto(`${service!.address}/graphql`);
    const editor = page.locator('.graphiql-query-editor .monaco-editor').first();
    await editor.waitFor({ timeout: 30_000 });
    const firstExample = /^(?:query|mutation) (\w+)/m.exec(GRAPHIQL_EXAMPLES)![1];
    await expect.poll(() => page.locator('.graphiql-tab-active').innerText(), { timeout: 10_000 }).toBe(firstExample); // the examples

    await editor.click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.press('Delete');
    await page.keyboard.type('{ viewer { organization { name } } }');
    await expect
      .poll(() => editorText(page.locator('.graphiql-query-editor .view-lines')), { timeout: 10_000 })
      .toBe('{ viewer { organization { name } } }');
    // GraphiQL takes the editor's text in after a short debounce; the tab then names the new operation
    await expect.poll(() => page.locator('.graphiql-tab-active').innerText(), { timeout: 10_000 }).toBe('<untitled>');

    await page.locator('.graphiql-execute-button').click();
    const result = page.locator('.result-window .view-lines');
    // the Downtown clinic's key (least privilege), not the account's
    await expect.poll(() => editorText(result), { timeout: 15_000 }).toContain('"name": "Bright Smiles Downtown"');
    expect(await editorText(result)).not.toContain('errors');
    expect(policyViolations).toEqual([]);
  });

  it('runs a live subscription (Server-Sent Events) and shows its first answer', async () => {
    // the clinic's id (GraphiQL holds the clinic's key), asked with the account's demo key the service printed
    const key = /Demo API key \(account organization\): (svc-sk-v2-\w+)/.exec(service!.output())![1]!;
    const viewer = await fetch(`${service!.address}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ viewer { organization { children { id name } } } }' }),
    });
    const children = ((await viewer.json()) as { data: { viewer: { organization: { children: { id: string; name: string }[] } } } }).data
      .viewer.organization.children;
    const orgId = children.find((c) => c.name === 'Bright Smiles Downtown')!.id;

    await page.goto(`${service!.address}/graphql`);
    const editor = page.locator('.graphiql-query-editor .monaco-editor').first();
    await editor.waitFor({ timeout: 30_000 });
    await editor.click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.press('Delete');
    const operation = `subscription { availabilityChanged(orgId: "${orgId}", medium: CHAT) { state officeOpen } }`;
    await page.keyboard.type(operation);
    await expect
      .poll(() => editorText(page.locator('.graphiql-query-editor .view-lines')), { timeout: 10_000 })
      .toContain('availabilityChanged');
    await expect.poll(() => page.locator('.graphiql-tab-active').innerText(), { timeout: 10_000 }).toBe('<untitled>');
    await page.locator('.graphiql-execute-button').click();
    const result = page.locator('.result-window .view-lines');
    // open or not depends on when the test runs (the clinic has the demo's week)
    await expect.poll(() => editorText(result), { timeout: 15_000 }).toMatch(/"officeOpen": (true|false)/);
    expect(await editorText(result)).not.toContain('errors');
  });

  it("opens with the demo clinic's id and this week in its Variables: the Availability example runs with ▶ alone", async () => {
    // as on a first visit: a page of its own (browser.newPage opens a new context), with none of the tabs the
    // tests before left in localStorage (clearing theirs raced GraphiQL saving its tabs as it unloaded)
    const page = await browser!.newPage();
    watchPolicy(page);
    await page.goto(`${service!.address}/graphql`);
    const editor = page.locator('.graphiql-query-editor .monaco-editor').first();
    await editor.waitFor({ timeout: 30_000 });
    // the tab GraphiQL opened (it keeps its tabs in localStorage): the examples with the demo's variables
    const tabVariables = () =>
      page.evaluate(
        () =>
          (JSON.parse(localStorage.getItem('graphiql:tabState') ?? '{"tabs":[]}') as { tabs: { variables?: string }[] }).tabs[0]
            ?.variables ?? '',
      );
    await expect.poll(tabVariables, { timeout: 10_000 }).toMatch(/"id": "[0-9a-f-]{36}"/);
    expect(JSON.parse(await tabVariables())).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      from: expect.stringMatching(/Z$/),
      to: expect.stringMatching(/Z$/),
    });
    // the editor holds the examples (their operations make ▶ a menu; only the lines in view are rendered) before
    // ▶ is pressed; on a busy machine the first press can land before GraphiQL has read them, so it is pressed
    // until the menu shows
    await expect
      .poll(() => editorText(page.locator('.graphiql-query-editor .view-lines')), { timeout: 15_000 })
      .toContain('Office Communications Service');
    const availability = page.getByRole('menuitem', { name: 'Availability', exact: true });
    await expect
      .poll(
        async () => {
          if (!(await availability.isVisible())) await page.locator('.graphiql-execute-button').click();
          return availability.isVisible();
        },
        { timeout: 30_000, interval: 1_000 },
      )
      .toBe(true);
    await availability.click();
    const result = page.locator('.result-window .view-lines');
    await expect.poll(() => editorText(result), { timeout: 15_000 }).toContain('"data"');
    const text = await editorText(result);
    expect(text, text).toContain('"state"');
    expect(text).not.toContain('errors');
    await page.close();
  });

  it('shows the REST reference at /v1/docs, from local files', async () => {
    const docs = await browser!.newPage();
    watchPolicy(docs);
    const failed: string[] = [];
    docs.on('requestfailed', (request) => failed.push(request.url()));
    await docs.goto(`${service!.address}/v1/docs`);
    await expect.poll(() => docs.locator('.opblock').count(), { timeout: 15_000 }).toBeGreaterThan(10);
    expect(await docs.locator('.opblock-summary-path').first().innerText()).toMatch(/^\/v1\//);
    expect(failed).toEqual([]);
    expect(policyViolations).toEqual([]);
  });
});
