// The developer portal (GET /portal): one static HTML page and two files (src/portal/assets), a client of
// the public API only — the pasted key goes, as a Bearer credential, to this service's own /graphql and
// /v1 and nowhere else. The page carries no inline script, so its policy is stricter than the other
// pages' (no inline style, no workers, fetches to this origin only). The files are named by a hash of
// their content, so a browser keeps them for a year and a deployment that changes them changes their
// names; the page itself is revalidated on every load (its ETag, http/pages.ts).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { SCOPES } from '../domain/shared/access.js';
import { pathOf } from '../http/requestTarget.js';
import { projectRoot } from '../projectRoot.js';
import { errorBody } from '../rest/envelope.js';

export const PORTAL_PATH = '/portal';

/** The page's policy: its own script and stylesheet, calls to this origin, nothing framed, nothing inline. */
export const PORTAL_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const ASSET_TYPES = { js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8' } as const;

interface Asset {
  /** `portal-<hash>.js`: the name the page links to. */
  name: string;
  body: Uint8Array<ArrayBuffer>;
  contentType: string;
}

/** The files, read and hashed once per process (they change only with a deployment). */
let loaded: { assets: Map<string, Asset>; html: string } | undefined;

function load(): NonNullable<typeof loaded> {
  if (loaded) return loaded;
  const dir = join(projectRoot(), 'src', 'portal', 'assets');
  const assets = new Map<string, Asset>();
  const names: Record<keyof typeof ASSET_TYPES, string> = { js: '', css: '' };
  for (const ext of Object.keys(ASSET_TYPES) as (keyof typeof ASSET_TYPES)[]) {
    const body = new Uint8Array(readFileSync(join(dir, `portal.${ext}`)));
    const name = `portal-${createHash('sha256').update(body).digest('base64url').slice(0, 12)}.${ext}`;
    assets.set(name, { name, body, contentType: ASSET_TYPES[ext] });
    names[ext] = name;
  }
  return (loaded = { assets, html: portalHtml(`${PORTAL_PATH}/assets/${names.js}`, `${PORTAL_PATH}/assets/${names.css}`) });
}

const scopeBoxes = (group: string) =>
  SCOPES.map(
    (scope) => `<label class="scope"><input type="checkbox" name="${group}" value="${scope}" /> <code>${scope}</code></label>`,
  ).join('\n            ');

function portalHtml(script: string, stylesheet: string): string {
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="referrer" content="no-referrer" />
    <link rel="icon" href="data:," />
    <title>Developer portal — Office Communications Service</title>
    <link rel="stylesheet" href="${stylesheet}" />
    <script src="${script}" defer></script>
  </head>
  <body data-scopes="${SCOPES.join(' ')}">
    <header class="top">
      <h1>Developer portal</h1>
      <p class="sub">Office Communications Service · <a href="/v1/docs">REST reference</a> · <a href="/graphql">GraphiQL</a></p>
    </header>
    <div id="alert" role="alert" class="alert" hidden></div>
    <div id="status" role="status" class="status"></div>

    <main>
      <section id="signin" aria-labelledby="signin-title">
        <h2 id="signin-title">Sign in</h2>
        <p>Paste an API key (<code>svc-sk-v2-…</code>) or an access token. It is kept in this tab only (session storage) and sent to this service alone.</p>
        <form id="signin-form" autocomplete="off">
          <label for="signin-key">API key</label>
          <input id="signin-key" name="key" type="password" required spellcheck="false" autocomplete="off" />
          <button type="submit">Sign in</button>
        </form>
      </section>

      <div id="portal" hidden>
        <section id="org" aria-labelledby="org-title">
          <div class="row">
            <h2 id="org-title">Organization</h2>
            <button type="button" id="signout" class="secondary">Sign out</button>
          </div>
          <dl id="org-details" class="details"></dl>
          <p id="acting" class="note" hidden></p>
          <div id="children" hidden>
            <h3>Child organizations</h3>
            <table aria-label="Child organizations">
              <thead><tr><th scope="col">Name</th><th scope="col">Time zone</th><th scope="col">Communications</th><th scope="col">Status</th><th scope="col">Actions</th></tr></thead>
              <tbody id="children-rows"></tbody>
            </table>
            <p class="pager"><span id="children-count"></span> <button type="button" id="children-first" class="secondary">First page</button> <button type="button" id="children-next" class="secondary">Next page</button></p>
            <button type="button" id="location-add" class="secondary" hidden>Add a location</button>
            <form id="location-form" class="panel" hidden>
              <h3>A new location</h3>
              <label for="location-name">Name of the location</label>
              <input id="location-name" name="name" required maxlength="200" autocomplete="off" />
              <label for="location-zone">Time zone (IANA, e.g. America/Chicago)</label>
              <input id="location-zone" name="timezone" required list="location-zones" spellcheck="false" autocomplete="off" />
              <datalist id="location-zones"></datalist>
              <button type="submit">Add location</button>
              <button type="button" class="secondary" data-cancel>Cancel</button>
            </form>
          </div>
        </section>

        <section id="secret" class="secret" aria-labelledby="secret-title" hidden tabindex="-1">
          <h2 id="secret-title">Copy the secret now</h2>
          <p id="secret-what"></p>
          <p id="secret-kept"></p>
          <label for="secret-value">Secret</label>
          <div class="row">
            <input id="secret-value" readonly spellcheck="false" />
            <button type="button" id="secret-copy">Copy</button>
            <button type="button" id="secret-done" class="secondary">I have saved it</button>
          </div>
          <p id="secret-copied" role="status"></p>
        </section>

        <section id="keys" aria-labelledby="keys-title">
          <h2 id="keys-title">API keys</h2>
          <p class="note" id="keys-denied" hidden>This credential cannot manage credentials: it lacks the scope credentials:write.</p>
          <div id="keys-body">
            <table aria-label="API keys">
              <thead><tr><th scope="col">Name</th><th scope="col">Key</th><th scope="col">Scopes</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Expires</th><th scope="col">Actions</th></tr></thead>
              <tbody id="keys-rows"></tbody>
            </table>
            <form id="roll-form" class="panel" hidden>
              <h3 id="roll-title">Roll key</h3>
              <p>A new key with the same name, scopes and expiry is made at once. The old key keeps working until the time you choose (at most 7 days from now).</p>
              <label for="roll-until">Old key stops working at</label>
              <input id="roll-until" name="until" type="datetime-local" required />
              <button type="submit">Roll key</button>
              <button type="button" class="secondary" data-cancel>Cancel</button>
            </form>
            <form id="key-form" class="panel">
              <h3>Create an API key</h3>
              <label for="key-name">Name</label>
              <input id="key-name" name="name" required maxlength="100" />
              <fieldset>
                <legend>Scopes</legend>
                <label><input type="radio" name="key-kind" value="full" checked /> Full key: every scope</label>
                <label><input type="radio" name="key-kind" value="restricted" /> Restricted: only the scopes checked below</label>
                <div class="scopes">
            ${scopeBoxes('key-scope')}
                </div>
              </fieldset>
              <label for="key-expires">Expires at (optional)</label>
              <input id="key-expires" name="expiresAt" type="datetime-local" />
              <button type="submit">Create key</button>
            </form>
          </div>
        </section>

        <section id="clients" aria-labelledby="clients-title">
          <h2 id="clients-title">OAuth clients</h2>
          <p class="note" id="clients-denied" hidden>This credential cannot manage credentials: it lacks the scope credentials:write.</p>
          <div id="clients-body">
            <table aria-label="OAuth clients">
              <thead><tr><th scope="col">Name</th><th scope="col">Client id</th><th scope="col">Scopes</th><th scope="col">Created</th><th scope="col">Previous secret until</th><th scope="col">Actions</th></tr></thead>
              <tbody id="clients-rows"></tbody>
            </table>
            <form id="rotate-form" class="panel" hidden>
              <h3 id="rotate-title">Rotate secret</h3>
              <p>A new secret is made at once. The previous one is still accepted until the time you choose (at most 7 days from now).</p>
              <label for="rotate-until">Previous secret stops working at</label>
              <input id="rotate-until" name="until" type="datetime-local" required />
              <button type="submit">Rotate secret</button>
              <button type="button" class="secondary" data-cancel>Cancel</button>
            </form>
            <form id="client-scopes-form" class="panel" hidden>
              <fieldset>
                <legend id="client-scopes-title">Scopes</legend>
                <div class="scopes">
            ${scopeBoxes('client-edit-scope')}
                </div>
              </fieldset>
              <button type="submit">Save scopes</button>
              <button type="button" class="secondary" data-cancel>Cancel</button>
            </form>
            <form id="client-form" class="panel">
              <h3>Create an OAuth client</h3>
              <label for="client-name">Name</label>
              <input id="client-name" name="name" required maxlength="100" />
              <fieldset>
                <legend>Scopes</legend>
                <div class="scopes">
            ${scopeBoxes('client-scope')}
                </div>
              </fieldset>
              <button type="submit">Create client</button>
            </form>
          </div>
        </section>

        <section id="webhooks" aria-labelledby="webhooks-title">
          <h2 id="webhooks-title">Webhook endpoints</h2>
          <p class="note" id="webhooks-denied" hidden>This credential cannot read webhook endpoints (scope <code>webhooks:read</code>).</p>
          <div id="webhooks-body">
            <table aria-label="Webhook endpoints">
              <thead><tr><th scope="col">URL</th><th scope="col">Description</th><th scope="col">Events</th><th scope="col">State</th><th scope="col">Actions</th></tr></thead>
              <tbody id="webhooks-rows"></tbody>
            </table>
            <div id="deliveries" class="panel" hidden>
              <h3 id="deliveries-title">Recent deliveries</h3>
              <label for="deliveries-status">Status</label>
              <select id="deliveries-status"><option value="">Any</option><option value="failed">Failed</option><option value="pending">Pending</option><option value="delivered">Delivered</option></select>
              <table aria-labelledby="deliveries-title">
                <thead><tr><th scope="col">Created</th><th scope="col">Event</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Answer</th><th scope="col">Next retry</th></tr></thead>
                <tbody id="deliveries-rows"></tbody>
              </table>
              <p class="pager"><button type="button" id="deliveries-first" class="secondary">First page</button> <button type="button" id="deliveries-next" class="secondary">Next page</button> <button type="button" id="deliveries-replay" class="secondary">Deliver the last 7 days' failures again</button></p>
              <button type="button" class="secondary" id="deliveries-close">Close</button>
            </div>
            <form id="webhook-form" class="panel">
              <h3>Add an endpoint</h3>
              <label for="webhook-url">URL (https://)</label>
              <input id="webhook-url" name="url" type="url" required maxlength="2000" />
              <label for="webhook-description">Description (optional)</label>
              <input id="webhook-description" name="description" maxlength="500" />
              <label for="webhook-events">Event types (comma-separated: names, families such as <code>closure.*</code>, or <code>*</code>)</label>
              <input id="webhook-events" name="eventTypes" value="*" />
              <button type="submit">Add endpoint</button>
            </form>
          </div>
        </section>

        <section id="calls" aria-labelledby="calls-title">
          <h2 id="calls-title">Calls</h2>
          <p class="note" id="policy-denied" hidden>This credential cannot read the calling policy (scope <code>organizations:read</code>).</p>
          <div id="policy-body">
            <h3>Calling policy</h3>
            <p id="policy-source" class="note"></p>
            <dl id="policy-details" class="details"></dl>
          </div>
          <p class="note" id="suppressions-denied" hidden>This credential cannot read the do-not-call list (scope <code>call-requests:read</code>).</p>
          <div id="suppressions-body">
            <h3>Calls at once</h3>
            <p id="capacity"></p>
            <h3>Do-not-call list</h3>
            <p class="note">Numbers never called: a call to one is refused, a queued call to one ends. An account's entries bind all its locations.</p>
            <table>
              <thead><tr><th>Number</th><th>List</th><th>Source</th><th>Reason</th><th>Added</th><th></th></tr></thead>
              <tbody id="suppressions-rows"></tbody>
            </table>
            <p class="pager"><button type="button" id="suppressions-first" class="secondary">First page</button> <button type="button" id="suppressions-next" class="secondary">Next page</button></p>
            <form id="suppression-form" class="panel">
              <h3>Add a number</h3>
              <label for="suppression-number">Number, with its country code (+1 202 555 0143)</label>
              <input id="suppression-number" name="number" required maxlength="40" />
              <label for="suppression-reason">Reason (optional)</label>
              <input id="suppression-reason" name="reason" maxlength="500" />
              <button type="submit">Add to the list</button>
            </form>
            <form id="batch-form" class="panel">
              <h3>A campaign's progress</h3>
              <p class="note">A call batch (POST /v1/call-batches): its calls per status and per outcome.</p>
              <label for="batch-id">Call batch id</label>
              <input id="batch-id" name="batchId" required maxlength="36" />
              <button type="submit">Show its progress</button>
            </form>
            <dl id="batch-details" class="details"></dl>
          </div>
        </section>

        <section id="transcripts" aria-labelledby="transcripts-title">
          <h2 id="transcripts-title">Transcripts</h2>
          <p class="note" id="governance-denied" hidden>This credential cannot read the organization's settings (scope <code>organizations:read</code>).</p>
          <div id="governance-body">
            <form id="redaction-form" class="panel">
              <h3>Redaction</h3>
              <p class="note">Card numbers and SSNs are always stored as [card] and [ssn]. The policy applies to turns written after it is saved; stored turns are never rewritten.</p>
              <p id="redaction-source" class="note"></p>
              <label class="check"><input type="checkbox" id="redaction-emails" name="emails" /> Replace e-mail addresses by [email]</label>
              <label class="check"><input type="checkbox" id="redaction-phones" name="phones" /> Replace phone numbers by [phone]</label>
              <label class="check"><input type="checkbox" id="redaction-originals" name="keepOriginals" /> Keep the words as said, sealed, for credentials with <code>transcripts:read_unredacted</code></label>
              <button type="submit" id="redaction-save">Save the redaction policy</button>
            </form>
            <h3>Retention</h3>
            <dl id="retention-details" class="details"></dl>
          </div>
          <p class="note" id="access-log-denied" hidden>This credential cannot read the access log (scope <code>access-log:read</code>).</p>
          <div id="access-log-body">
            <h3>Who read which transcript</h3>
            <table>
              <thead><tr><th>When</th><th>Credential</th><th>Conversation</th><th>Surface</th><th>Originals</th></tr></thead>
              <tbody id="access-log-rows"></tbody>
            </table>
            <p class="pager"><button type="button" id="access-log-first" class="secondary">First page</button> <button type="button" id="access-log-next" class="secondary">Next page</button> <button type="button" id="access-log-export" class="secondary">Download the log (NDJSON)</button></p>
          </div>
        </section>

        <section id="numbers" aria-labelledby="numbers-title">
          <h2 id="numbers-title">Phone numbers and greetings</h2>
          <p class="note" id="numbers-denied" hidden>This credential cannot read phone numbers (scope <code>organizations:read</code>).</p>
          <div id="numbers-body">
            <table aria-label="Phone numbers">
              <thead><tr><th scope="col">Number</th><th scope="col">Name</th><th scope="col">Greeting while open</th><th scope="col">Greeting while closed</th><th scope="col">Actions</th></tr></thead>
              <tbody id="numbers-rows"></tbody>
            </table>
            <form id="greeting-form" class="panel" hidden>
              <h3 id="greeting-title">Greetings</h3>
              <label for="greeting-open">Greeting while the office is open ("" for none)</label>
              <textarea id="greeting-open" name="customGreeting" maxlength="1000" rows="2"></textarea>
              <label for="greeting-closed">Greeting while the office is closed ("" for none)</label>
              <textarea id="greeting-closed" name="customClosedGreeting" maxlength="1000" rows="2"></textarea>
              <button type="submit">Save greetings</button>
              <button type="button" class="secondary" data-cancel>Cancel</button>
            </form>
          </div>
        </section>

        <section id="week" aria-labelledby="week-title">
          <h2 id="week-title">Availability this week</h2>
          <p class="note" id="week-denied" hidden>This credential cannot read availability (scope <code>office-hours:read</code>).</p>
          <div id="week-body">
            <label for="week-medium">Medium</label>
            <select id="week-medium">
              <option value="PHONE">Phone</option>
              <option value="CHAT">Chat</option>
              <option value="SMS">SMS</option>
              <option value="GHL">GHL</option>
            </select>
            <p class="legend" aria-hidden="true"><span class="swatch OPEN"></span> Open <span class="swatch BREAK"></span> Break <span class="swatch CLOSED"></span> Closed <span class="swatch CLOSURE"></span> Closure</p>
            <p id="week-zone" class="note"></p>
            <ol id="week-days" class="days"></ol>
          </div>
        </section>
      </div>
    </main>
  </body>
</html>
`;
}

/** The paths registered by registerPortal, for the 404-versus-405 decision. */
export const PORTAL_ROUTES = [
  { method: 'GET', path: PORTAL_PATH },
  { method: 'GET', path: `${PORTAL_PATH}/assets/:name` },
];

/** Public routes (the page asks for a key itself); their compression and ETag come from http/pages.ts. */
export function registerPortal(app: FastifyInstance): void {
  app.get(PORTAL_PATH, async (request, reply) => {
    request.label = `GET ${PORTAL_PATH}`;
    return reply.header('Content-Security-Policy', PORTAL_CSP).type('text/html; charset=UTF-8').send(load().html);
  });
  app.get(`${PORTAL_PATH}/assets/:name`, async (request, reply) => {
    request.label = `GET ${PORTAL_PATH}/assets/:name`;
    const asset = load().assets.get((request.params as { name: string }).name);
    if (!asset)
      return reply
        .code(404)
        .type('application/json')
        .send(errorBody('not_found', `No route GET ${pathOf(request.url)}`));
    return reply.header('Cache-Control', 'public, max-age=31536000, immutable').type(asset.contentType).send(asset.body);
  });
}
