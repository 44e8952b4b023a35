// @ts-check
// The developer portal's script (served by src/portal/page.ts). A client of the public API only: the
// key pasted at sign-in is kept in this tab's sessionStorage and sent as a Bearer credential to this
// service's own /graphql and /v1 (relative URLs; the page's policy allows no other origin). Every error
// shown is the API's own message (the envelope's `message`, or GraphQL's first error).
'use strict';

(() => {
  const KEY_STORAGE = 'ocs-portal-key';
  const CHILDREN_PAGE = 10;
  const WEEK_MS = 7 * 24 * 60 * 60 * 1000;
  const SCOPES = (document.body.dataset.scopes ?? '').split(' ').filter(Boolean);
  const STATE_LABEL = { OPEN: 'Open', BREAK: 'Break', CLOSED: 'Closed', CLOSURE: 'Closure' };

  /** @param {string} id */
  function el(id) {
    const found = document.getElementById(id);
    if (!found) throw new Error(`the page lacks #${id}`);
    return found;
  }
  /** @param {string} id */
  const input = (id) => /** @type {HTMLInputElement} */ (el(id));
  /** @param {string} id */
  const form = (id) => /** @type {HTMLFormElement} */ (el(id));

  /**
   * An element with text and children; text is always set as text (never parsed as HTML).
   * @param {string} tag
   * @param {{ text?: string, className?: string, attrs?: Record<string, string> }} [options]
   * @param {(Node | string)[]} [children]
   */
  function h(tag, options = {}, children = []) {
    const node = document.createElement(tag);
    if (options.text !== undefined) node.textContent = options.text;
    if (options.className) node.className = options.className;
    for (const [name, value] of Object.entries(options.attrs ?? {})) node.setAttribute(name, value);
    for (const child of children) node.append(child);
    return node;
  }
  /**
   * A button; `label` is what it shows, `name` (when given) what a screen reader and a test call it ("Revoke" of which key).
   * @param {string} label @param {() => unknown} onClick @param {string} [className] @param {string} [name]
   */
  function button(label, onClick, className, name) {
    /** @type {Record<string, string>} */
    const attrs = { type: 'button' };
    if (name) attrs['aria-label'] = name;
    const node = /** @type {HTMLButtonElement} */ (h('button', { text: label, attrs, ...(className ? { className } : {}) }));
    node.addEventListener('click', () => void onClick());
    return node;
  }

  class ApiError extends Error {
    /** @param {number} status @param {string} message */
    constructor(status, message) {
      super(message);
      this.status = status;
    }
  }

  const credential = () => sessionStorage.getItem(KEY_STORAGE) ?? '';

  /**
   * A call to this service's REST API; answers the envelope's `data` or throws its `message`.
   * @param {string} method @param {string} path @param {unknown} [body]
   * @returns {Promise<any>}
   */
  async function rest(method, path, body) {
    // the credential goes to this origin's /v1 only
    if (!path.startsWith('/v1/')) throw new Error(`not an API path: ${path}`);
    /** @type {Record<string, string>} */
    const headers = { authorization: `Bearer ${credential()}`, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const answer = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'omit',
      cache: 'no-store',
    });
    /** @type {any} */
    let envelope = null;
    try {
      envelope = await answer.json();
    } catch {
      /* not JSON: the status says what happened */
    }
    if (!answer.ok || !envelope || envelope.success !== true) throw refusal(answer.status, envelope);
    return envelope.data;
  }

  /** What a refused call throws: the envelope's message, else the status. @param {number} status @param {any} envelope */
  function refusal(status, envelope) {
    return new ApiError(status, typeof envelope?.message === 'string' ? envelope.message : `The service answered ${status}`);
  }

  /**
   * A GraphQL operation on this service; answers `data` or throws the first error's message.
   * @param {string} query @param {Record<string, unknown>} [variables]
   * @returns {Promise<any>}
   */
  async function graphql(query, variables = {}) {
    const answer = await fetch('/graphql', {
      method: 'POST',
      headers: {
        authorization: `Bearer ${credential()}`,
        'content-type': 'application/json',
        accept: 'application/graphql-response+json, application/json',
      },
      body: JSON.stringify({ query, variables }),
      credentials: 'omit',
      cache: 'no-store',
    });
    /** @type {any} */
    let result = null;
    try {
      result = await answer.json();
    } catch {
      /* not JSON */
    }
    if (result?.errors?.length) throw new ApiError(answer.status, String(result.errors[0].message));
    if (!answer.ok || !result?.data) throw new ApiError(answer.status, `The service answered ${answer.status}`);
    return result.data;
  }

  // ---- messages ----------------------------------------------------------------------------------

  /** @param {string} message */
  function showError(message) {
    const alert = el('alert');
    alert.textContent = message;
    alert.hidden = false;
  }
  /** @param {string} message */
  function showStatus(message) {
    el('alert').hidden = true;
    el('status').textContent = message;
  }
  /** Runs an action; its error (the API's message) is shown in the alert region. @param {() => Promise<unknown>} action */
  async function run(action) {
    try {
      await action();
    } catch (error) {
      showError(error instanceof Error ? error.message : String(error));
    }
  }

  /**
   * Paging by cursor for a list with First page and Next page buttons (`<prefix>-first`, `<prefix>-next`): the
   * cursors of the pages seen, the current one last; `load` shows the page of `cursor()`.
   * @param {string} prefix @param {() => Promise<void>} load
   */
  function cursorPager(prefix, load) {
    /** @type {(string | null)[]} */
    let cursors = [null];
    const first = /** @type {HTMLButtonElement} */ (el(`${prefix}-first`));
    const nextButton = /** @type {HTMLButtonElement} */ (el(`${prefix}-next`));
    first.addEventListener('click', () => {
      cursors = [null];
      void run(load);
    });
    return {
      cursor: () => cursors[cursors.length - 1],
      reset: () => {
        cursors = [null];
      },
      /** After a page is shown: Next goes to `next` (none on the last page). @param {string | null} next */
      shown(next) {
        nextButton.disabled = !next;
        nextButton.onclick = () => {
          if (next) cursors.push(next);
          void run(load);
        };
        first.disabled = cursors.length === 1;
      },
    };
  }

  // ---- dates -------------------------------------------------------------------------------------

  const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
  /** @param {string | null | undefined} iso @param {string} [none] */
  function when(iso, none = 'never') {
    if (!iso) return h('span', { text: none });
    return h('time', { text: dateTime.format(new Date(iso)), attrs: { datetime: iso, title: iso } });
  }
  /** The value of a datetime-local input for an instant (the browser's time zone). @param {number} ms */
  function localInputValue(ms) {
    const d = new Date(ms);
    const pad = (/** @type {number} */ n) => String(n).padStart(2, '0');
    return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
  }
  /** A datetime-local value as an ISO instant, or undefined when empty. @param {string} value */
  function instantOf(value) {
    if (!value) return undefined;
    const ms = new Date(value).getTime();
    return Number.isNaN(ms) ? value : new Date(ms).toISOString();
  }
  /** Sets a datetime-local input to a default within [now, now + 7 days]. @param {HTMLInputElement} field @param {number} defaultMs */
  function overlapInput(field, defaultMs) {
    const now = Date.now();
    field.min = localInputValue(now);
    field.max = localInputValue(now + WEEK_MS - 60_000);
    field.value = localInputValue(now + defaultMs);
  }

  // ---- state -------------------------------------------------------------------------------------

  /** @type {{ orgId: string, scopes: string[] } | null} */
  let viewer = null;
  /** The organization the credential sections act for: the own one, or a child of an account. */
  /** @type {{ id: string, name: string, timezone: string } | null} */
  let acting = null;
  /** @type {any} */
  let ownOrg = null;
  /** @type {(string | null)[]} */
  let childCursors = [null];

  const holds = (/** @type {string} */ scope) => !!viewer && viewer.scopes.includes(scope);
  const holdsEvery = () => !!viewer && SCOPES.every((s) => viewer?.scopes.includes(s));
  const orgQuery = () => (acting && viewer && acting.id !== viewer.orgId ? `?orgId=${encodeURIComponent(acting.id)}` : '');

  // ---- sign in -----------------------------------------------------------------------------------

  async function signIn() {
    const data = await graphql('query PortalViewer { viewer { scopes organization { id name timezone } } }');
    viewer = { orgId: data.viewer.organization.id, scopes: data.viewer.scopes };
    ownOrg = data.viewer.organization;
    acting = { id: ownOrg.id, name: ownOrg.name, timezone: ownOrg.timezone };
    childCursors = [null];
    el('signin').hidden = true;
    el('portal').hidden = false;
    await Promise.all([loadOrganization(), loadActing(), loadWebhooks()]);
  }

  function signOut() {
    sessionStorage.removeItem(KEY_STORAGE);
    viewer = null;
    acting = null;
    hideSecret();
    // nothing of the last session stays in the page
    suppressionPager.reset();
    accessLogPager.reset();
    for (const id of [
      'org-details',
      'children-rows',
      'keys-rows',
      'clients-rows',
      'webhooks-rows',
      'deliveries-rows',
      'week-days',
      'policy-details',
      'suppressions-rows',
      'batch-details',
      'redaction-source',
      'retention-details',
      'access-log-rows',
      'numbers-rows',
    ])
      el(id).replaceChildren();
    for (const id of ['deliveries', 'roll-form', 'rotate-form', 'client-scopes-form', 'greeting-form']) el(id).hidden = true;
    el('portal').hidden = true;
    el('signin').hidden = false;
    input('signin-key').value = '';
    showStatus('Signed out; the key was forgotten by this tab.');
  }

  form('signin-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const key = input('signin-key').value.trim();
    if (!key) return;
    sessionStorage.setItem(KEY_STORAGE, key);
    void run(async () => {
      try {
        await signIn();
        input('signin-key').value = '';
        showStatus('Signed in.');
      } catch (error) {
        sessionStorage.removeItem(KEY_STORAGE);
        throw error;
      }
    });
  });
  el('signout').addEventListener('click', signOut);

  // ---- organization and children -----------------------------------------------------------------

  async function loadOrganization() {
    const details = el('org-details');
    details.replaceChildren();
    /** @param {string} term @param {Node | string} value */
    const add = (term, value) => details.append(h('dt', { text: term }), h('dd', {}, [value]));
    if (!holds('organizations:read')) {
      add('Name', ownOrg.name);
      add('Id', h('code', { text: ownOrg.id }));
      add('Time zone', ownOrg.timezone);
      return;
    }
    const org = await rest('GET', `/v1/organizations/${encodeURIComponent(ownOrg.id)}`);
    ownOrg = org;
    add('Name', org.name);
    add('Id', h('code', { text: org.id }));
    add('Time zone', org.timezone);
    add('Kind', org.isAccount ? `Account (${org.childCount} child organizations)` : 'Location');
    add('Communications', org.communicationsEnabled ? 'Enabled' : 'Disabled');
    add('Created', when(org.createdAt));
    el('children').hidden = !org.isAccount;
    el('location-add').hidden = !holds('organizations:write');
    if (org.isAccount) await loadChildren();
  }

  async function loadChildren() {
    const cursor = childCursors[childCursors.length - 1];
    // archived locations are listed too, marked, so that they can be brought back
    const query = `?limit=${CHILDREN_PAGE}&includeArchived=true${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const page = await rest('GET', `/v1/organizations/${encodeURIComponent(ownOrg.id)}/children${query}`);
    const rows = el('children-rows');
    rows.replaceChildren(
      ...page.children.map((/** @type {any} */ child) =>
        h('tr', {}, [
          h('td', { text: child.name }),
          h('td', { text: child.timezone }),
          h('td', { text: child.communicationsEnabled ? 'Enabled' : 'Disabled' }),
          h('td', { text: child.archivedAt ? `Archived ${when(child.archivedAt)}` : 'Active' }),
          h('td', { className: 'actions' }, [
            button(
              'Manage',
              () => actFor({ id: child.id, name: child.name, timezone: child.timezone }),
              'secondary',
              `Manage ${child.name}`,
            ),
            ...(holds('organizations:write') ? [archiveButton(child)] : []),
          ]),
        ]),
      ),
    );
    const first = (childCursors.length - 1) * CHILDREN_PAGE + 1;
    el('children-count').textContent = `${first}–${first + page.children.length - 1} of ${page.pagination.totalCount}`;
    const next = /** @type {HTMLButtonElement} */ (el('children-next'));
    next.disabled = !page.pagination.nextCursor;
    next.dataset.cursor = page.pagination.nextCursor ?? '';
    /** @type {HTMLButtonElement} */ (el('children-first')).disabled = childCursors.length === 1;
  }
  /** Archives a location, or brings an archived one back. @param {any} child */
  function archiveButton(child) {
    const action = child.archivedAt ? 'unarchive' : 'archive';
    const label = child.archivedAt ? 'Unarchive' : 'Archive';
    return button(
      label,
      () =>
        run(async () => {
          await rest('POST', `/v1/organizations/${encodeURIComponent(child.id)}/${action}`, {});
          await loadChildren();
          showStatus(child.archivedAt ? `${child.name} is active again.` : `Archived ${child.name}: its calls stop; its data stays.`);
        }),
      'secondary',
      `${label} ${child.name}`,
    );
  }

  el('location-add').addEventListener('click', () => {
    const zones = el('location-zones');
    if (zones.childElementCount === 0 && typeof Intl.supportedValuesOf === 'function')
      zones.append(...Intl.supportedValuesOf('timeZone').map((zone) => h('option', { attrs: { value: zone } })));
    /** @type {HTMLInputElement} */ (el('location-zone')).value = ownOrg.timezone;
    el('location-form').hidden = false;
    el('location-name').focus();
  });

  form('location-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const name = /** @type {HTMLInputElement} */ (el('location-name')).value;
    const timezone = /** @type {HTMLInputElement} */ (el('location-zone')).value;
    void run(async () => {
      await rest('POST', `/v1/organizations/${encodeURIComponent(ownOrg.id)}/children`, { name, timezone });
      el('location-form').hidden = true;
      /** @type {HTMLInputElement} */ (el('location-name')).value = '';
      childCursors = [null];
      await loadOrganization();
      showStatus(`Added ${name.trim()} (${timezone}). Set its week under Manage.`);
    });
  });

  el('children-next').addEventListener('click', () => {
    const cursor = el('children-next').dataset.cursor;
    if (!cursor) return;
    childCursors.push(cursor);
    void run(loadChildren);
  });
  el('children-first').addEventListener('click', () => {
    childCursors = [null];
    void run(loadChildren);
  });

  /** Keys, OAuth clients and the week of a child (or of the own organization again). @param {{ id: string, name: string, timezone: string }} org */
  function actFor(org) {
    acting = org;
    accessLogPager.reset();
    return run(async () => {
      await loadActing();
      showStatus(`Showing ${org.name}.`);
    });
  }

  async function loadActing() {
    const note = el('acting');
    note.replaceChildren();
    if (acting && viewer && acting.id !== viewer.orgId) {
      note.append(
        `API keys, OAuth clients, availability, the calling policy and the transcripts' settings below are those of ${acting.name}. `,
        button(`Back to ${ownOrg.name}`, () => actFor({ id: ownOrg.id, name: ownOrg.name, timezone: ownOrg.timezone }), 'secondary'),
      );
      note.hidden = false;
    } else note.hidden = true;
    await Promise.all([loadKeys(), loadClients(), loadNumbers(), loadWeek(), loadCalls(), loadTranscripts()]);
  }

  // ---- the secret, shown once --------------------------------------------------------------------

  /**
   * @param {string} what @param {string} secret
   * @param {'hashed' | 'encrypted'} kept how the service keeps it: a credential as a hash, a signing secret encrypted
   */
  function showSecret(what, secret, kept = 'hashed') {
    el('secret-what').textContent = what;
    el('secret-kept').textContent =
      kept === 'hashed'
        ? 'It is shown only this once: the service keeps only a hash of it.'
        : 'It is shown only this once: the service keeps it encrypted, to sign with, and never shows it again.';
    input('secret-value').value = secret;
    el('secret-copied').textContent = '';
    const section = el('secret');
    section.hidden = false;
    section.scrollIntoView({ block: 'center' });
    section.focus();
  }
  function hideSecret() {
    input('secret-value').value = '';
    el('secret').hidden = true;
  }
  el('secret-copy').addEventListener('click', () => {
    const field = input('secret-value');
    const copied = () => (el('secret-copied').textContent = 'Copied to the clipboard.');
    navigator.clipboard.writeText(field.value).then(copied, () => {
      // no clipboard permission: select it, so that the keyboard's copy takes it
      field.select();
      el('secret-copied').textContent = document.execCommand('copy')
        ? 'Copied to the clipboard.'
        : 'Select the secret and copy it yourself.';
    });
  });
  el('secret-done').addEventListener('click', hideSecret);

  // ---- API keys ----------------------------------------------------------------------------------

  /** Replaces a row's actions with an inline confirmation. @param {HTMLElement} cell @param {string} question @param {string} confirmLabel @param {() => Promise<unknown>} action @param {() => void} restore */
  function confirmIn(cell, question, confirmLabel, action, restore) {
    const confirm = button(confirmLabel, () => run(action), 'danger');
    cell.replaceChildren(h('span', { text: question, className: 'question' }), confirm, button('Cancel', restore, 'secondary'));
    confirm.focus();
  }

  /** @type {string | null} */
  let rollingKey = null;

  async function loadKeys() {
    const allowed = holdsEvery();
    el('keys-denied').hidden = allowed;
    el('keys-body').hidden = !allowed;
    if (!allowed) return;
    const { apiKeys } = await rest('GET', `/v1/api-keys${orgQuery()}`);
    el('keys-rows').replaceChildren(...apiKeys.map(keyRow));
    if (apiKeys.length === 0) el('keys-rows').append(h('tr', {}, [h('td', { text: 'No API keys.', attrs: { colspan: '7' } })]));
  }

  /** @param {any} key */
  function keyRow(key) {
    const actions = h('td', { className: 'actions' });
    const fill = () =>
      actions.replaceChildren(
        button('Roll', () => startRoll(key), undefined, `Roll ${key.name}`),
        button(
          'Revoke',
          () =>
            confirmIn(
              actions,
              `Revoke “${key.name}”? It stops working at once.`,
              `Confirm revoke ${key.name}`,
              async () => {
                await rest('POST', `/v1/api-keys/${encodeURIComponent(key.id)}/revoke`, {});
                showStatus(`Revoked the key “${key.name}” (${key.masked}).`);
                await loadKeys();
              },
              fill,
            ),
          'danger',
          `Revoke ${key.name}`,
        ),
      );
    fill();
    return h('tr', { attrs: { 'data-key-id': key.id } }, [
      h('td', { text: key.name }),
      h('td', {}, [h('code', { text: key.masked })]),
      h('td', { text: key.restricted ? key.scopes.join(', ') : 'every scope' }),
      h('td', {}, [when(key.createdAt)]),
      h('td', {}, [when(key.lastUsedAt)]),
      h('td', {}, [when(key.expiresAt)]),
      actions,
    ]);
  }

  /** @param {any} key */
  function startRoll(key) {
    rollingKey = key.id;
    el('roll-title').textContent = `Roll “${key.name}” (${key.masked})`;
    overlapInput(input('roll-until'), 24 * 60 * 60 * 1000);
    el('roll-form').hidden = false;
    input('roll-until').focus();
  }
  form('roll-form').addEventListener('submit', (event) => {
    event.preventDefault();
    void run(async () => {
      if (!rollingKey) return;
      const expiresAt = instantOf(input('roll-until').value);
      const rolled = await rest('POST', `/v1/api-keys/${encodeURIComponent(rollingKey)}/roll`, { expiresAt });
      el('roll-form').hidden = true;
      rollingKey = null;
      showStatus(`Rolled the key “${rolled.name}”.`);
      showSecret(
        `The new key “${rolled.name}” (${rolled.masked}). The old key works until ${dateTime.format(new Date(expiresAt ?? Date.now()))}.`,
        rolled.apiKey,
      );
      await loadKeys();
    });
  });

  /** The scopes checked in a group. @param {string} group */
  const checked = (group) =>
    [...document.querySelectorAll(`input[name="${group}"]:checked`)].map((box) => /** @type {HTMLInputElement} */ (box).value);

  function syncKeyKind() {
    const restricted =
      /** @type {HTMLInputElement | null} */ (document.querySelector('input[name="key-kind"][value="restricted"]'))?.checked ?? false;
    for (const box of document.querySelectorAll('input[name="key-scope"]')) /** @type {HTMLInputElement} */ (box).disabled = !restricted;
  }
  for (const radio of document.querySelectorAll('input[name="key-kind"]')) radio.addEventListener('change', syncKeyKind);
  syncKeyKind();

  form('key-form').addEventListener('submit', (event) => {
    event.preventDefault();
    void run(async () => {
      const restricted = checked('key-kind')[0] === 'restricted';
      /** @type {Record<string, unknown>} */
      const body = { name: input('key-name').value };
      if (restricted) body.scopes = checked('key-scope');
      const expiresAt = instantOf(input('key-expires').value);
      if (expiresAt) body.expiresAt = expiresAt;
      if (acting && viewer && acting.id !== viewer.orgId) body.orgId = acting.id;
      const created = await rest('POST', '/v1/api-keys', body);
      form('key-form').reset();
      syncKeyKind();
      showStatus(`Created the key “${created.name}”.`);
      showSecret(`The new key “${created.name}” (${created.restricted ? created.scopes.join(', ') : 'every scope'}).`, created.apiKey);
      await loadKeys();
    });
  });

  // ---- OAuth clients -----------------------------------------------------------------------------

  /** @type {any} */
  let clientInHand = null;

  async function loadClients() {
    const allowed = holdsEvery();
    el('clients-denied').hidden = allowed;
    el('clients-body').hidden = !allowed;
    if (!allowed) return;
    const { oauthClients } = await rest('GET', `/v1/oauth-clients${orgQuery()}`);
    el('clients-rows').replaceChildren(...oauthClients.map(clientRow));
    if (oauthClients.length === 0)
      el('clients-rows').append(h('tr', {}, [h('td', { text: 'No OAuth clients.', attrs: { colspan: '6' } })]));
  }

  /** @param {any} client */
  function clientRow(client) {
    const actions = h('td', { className: 'actions' });
    const fill = () =>
      actions.replaceChildren(
        button(
          'Rotate secret',
          () => {
            clientInHand = client;
            el('rotate-title').textContent = `Rotate the secret of “${client.name}”`;
            overlapInput(input('rotate-until'), 24 * 60 * 60 * 1000);
            el('rotate-form').hidden = false;
            input('rotate-until').focus();
          },
          undefined,
          `Rotate secret of ${client.name}`,
        ),
        button(
          'Change scopes',
          () => {
            clientInHand = client;
            el('client-scopes-title').textContent = `Scopes of “${client.name}”`;
            for (const box of document.querySelectorAll('input[name="client-edit-scope"]')) {
              const scope = /** @type {HTMLInputElement} */ (box);
              scope.checked = client.scopes.includes(scope.value);
            }
            el('client-scopes-form').hidden = false;
          },
          undefined,
          `Change scopes of ${client.name}`,
        ),
        button(
          'Revoke',
          () =>
            confirmIn(
              actions,
              `Revoke “${client.name}”? Its tokens are refused at once.`,
              `Confirm revoke ${client.name}`,
              async () => {
                await rest('POST', `/v1/oauth-clients/${encodeURIComponent(client.id)}/revoke`, {});
                showStatus(`Revoked the OAuth client “${client.name}”.`);
                await loadClients();
              },
              fill,
            ),
          'danger',
          `Revoke ${client.name}`,
        ),
      );
    fill();
    return h('tr', {}, [
      h('td', { text: client.name }),
      h('td', {}, [h('code', { text: client.clientId })]),
      h('td', { text: SCOPES.every((s) => client.scopes.includes(s)) ? 'every scope' : client.scopes.join(', ') }),
      h('td', {}, [when(client.createdAt)]),
      h('td', {}, [when(client.previousSecretExpiresAt, '—')]),
      actions,
    ]);
  }

  form('client-form').addEventListener('submit', (event) => {
    event.preventDefault();
    void run(async () => {
      /** @type {Record<string, unknown>} */
      const body = { name: input('client-name').value, scopes: checked('client-scope') };
      if (acting && viewer && acting.id !== viewer.orgId) body.orgId = acting.id;
      const created = await rest('POST', '/v1/oauth-clients', body);
      form('client-form').reset();
      showStatus(`Created the OAuth client “${created.name}”.`);
      showSecret(`The client secret of “${created.name}” (client_id ${created.clientId}).`, created.clientSecret);
      await loadClients();
    });
  });
  form('rotate-form').addEventListener('submit', (event) => {
    event.preventDefault();
    void run(async () => {
      if (!clientInHand) return;
      const expiresAt = instantOf(input('rotate-until').value);
      const rotated = await rest('POST', `/v1/oauth-clients/${encodeURIComponent(clientInHand.id)}/rotate-secret`, { expiresAt });
      el('rotate-form').hidden = true;
      showStatus(`Rotated the secret of “${rotated.name}”.`);
      showSecret(
        `The new client secret of “${rotated.name}” (client_id ${rotated.clientId}); the previous one is accepted until ${dateTime.format(new Date(expiresAt ?? Date.now()))}.`,
        rotated.clientSecret,
      );
      await loadClients();
    });
  });
  form('client-scopes-form').addEventListener('submit', (event) => {
    event.preventDefault();
    void run(async () => {
      if (!clientInHand) return;
      const updated = await rest('PUT', `/v1/oauth-clients/${encodeURIComponent(clientInHand.id)}/scopes`, {
        scopes: checked('client-edit-scope'),
      });
      el('client-scopes-form').hidden = true;
      showStatus(`Saved the scopes of “${updated.name}”.`);
      await loadClients();
    });
  });

  // ---- webhook endpoints -------------------------------------------------------------------------

  async function loadWebhooks() {
    const allowed = holds('webhooks:read');
    el('webhooks-denied').hidden = allowed;
    el('webhooks-body').hidden = !allowed;
    if (!allowed) return;
    const { webhookEndpoints } = await rest('GET', '/v1/webhook-endpoints');
    el('webhooks-rows').replaceChildren(...webhookEndpoints.map(webhookRow));
    if (webhookEndpoints.length === 0)
      el('webhooks-rows').append(h('tr', {}, [h('td', { text: 'No webhook endpoints.', attrs: { colspan: '5' } })]));
  }

  /** @param {any} endpoint */
  function webhookRow(endpoint) {
    const path = `/v1/webhook-endpoints/${encodeURIComponent(endpoint.id)}`;
    const actions = h('td', { className: 'actions' });
    const fill = () =>
      actions.replaceChildren(
        button(
          endpoint.enabled ? 'Disable' : 'Enable',
          () =>
            run(async () => {
              await rest('PATCH', path, { enabled: !endpoint.enabled });
              showStatus(`${endpoint.enabled ? 'Disabled' : 'Enabled'} ${endpoint.url}.`);
              await loadWebhooks();
            }),
          undefined,
          `${endpoint.enabled ? 'Disable' : 'Enable'} ${endpoint.url}`,
        ),
        button(
          'Send test',
          () =>
            run(async () => {
              await rest('POST', `${path}/test`, {});
              showStatus(`Sent a webhook.test event to ${endpoint.url}.`);
              await showDeliveries(endpoint);
            }),
          undefined,
          `Send a test event to ${endpoint.url}`,
        ),
        button('Deliveries', () => run(() => showDeliveries(endpoint)), undefined, `Deliveries of ${endpoint.url}`),
        button(
          'Rotate secret',
          () =>
            run(async () => {
              const rotated = await rest('POST', `${path}/rotate-secret`, {});
              showStatus(`Rotated the signing secret of ${endpoint.url}.`);
              showSecret(
                `The new signing secret of ${rotated.url}; the previous one still signs for 24 hours.`,
                rotated.secret,
                'encrypted',
              );
              await loadWebhooks();
            }),
          undefined,
          `Rotate secret of ${endpoint.url}`,
        ),
        button(
          'Delete',
          () =>
            confirmIn(
              actions,
              `Delete ${endpoint.url}? No more events are sent to it.`,
              `Confirm delete ${endpoint.url}`,
              async () => {
                await rest('DELETE', path);
                showStatus(`Deleted ${endpoint.url}.`);
                el('deliveries').hidden = true;
                await loadWebhooks();
              },
              fill,
            ),
          'danger',
          `Delete ${endpoint.url}`,
        ),
      );
    fill();
    const state = endpoint.enabled ? 'Enabled' : `Disabled${endpoint.disabledReason ? ` (${endpoint.disabledReason})` : ''}`;
    return h('tr', {}, [
      h('td', {}, [h('code', { text: endpoint.url })]),
      h('td', { text: endpoint.description }),
      h('td', { text: endpoint.eventTypes.join(', ') }),
      h('td', { text: state }),
      actions,
    ]);
  }

  /** The next look at deliveries still pending (one panel, one timer). @type {ReturnType<typeof setTimeout> | undefined} */
  let deliveriesRefresh;
  /** The endpoint whose deliveries the panel shows. @type {any} */
  let deliveriesOf;
  const deliveriesPager = cursorPager('deliveries', () => loadDeliveries(0));
  /**
   * Shows an endpoint's deliveries, newest first, a page at a time; while one of the page is pending it looks again
   * every 2 s (at most `refreshes` times), so that a delivery's outcome appears without a click.
   * @param {any} endpoint @param {number} refreshes
   */
  async function showDeliveries(endpoint, refreshes = 15) {
    if (deliveriesOf?.id !== endpoint.id) {
      deliveriesPager.reset();
      input('deliveries-status').value = '';
    }
    deliveriesOf = endpoint;
    await loadDeliveries(refreshes);
  }
  /** @param {number} refreshes */
  async function loadDeliveries(refreshes) {
    clearTimeout(deliveriesRefresh);
    const endpoint = deliveriesOf;
    const query = new URLSearchParams({ limit: '20' });
    const status = input('deliveries-status').value;
    if (status) query.set('status', status);
    const cursor = deliveriesPager.cursor();
    if (cursor) query.set('cursor', cursor);
    const base = `/v1/webhook-endpoints/${encodeURIComponent(endpoint.id)}/deliveries`;
    const { deliveries, pagination } = await rest('GET', `${base}?${query}`);
    el('deliveries-title').textContent = `Deliveries to ${endpoint.url}`;
    el('deliveries-rows').replaceChildren(
      ...deliveries.map((/** @type {any} */ d) => {
        const attempts = h('td', {}, [
          button(
            String(d.attempts),
            () => run(() => showAttempts(base, d, row)),
            'secondary',
            `Attempts of the ${d.eventType} delivery of ${d.createdAt}`,
          ),
        ]);
        const row = h('tr', {}, [
          h('td', {}, [when(d.createdAt)]),
          h('td', { text: d.eventType }),
          h('td', { text: d.status }),
          attempts,
          h('td', {
            text: d.statusCode === null ? (d.response ?? '—') : `${d.statusCode}${d.latencyMs === null ? '' : ` in ${d.latencyMs} ms`}`,
          }),
          h('td', {}, [when(d.nextAttemptAt, '—')]),
        ]);
        return row;
      }),
    );
    if (deliveries.length === 0)
      el('deliveries-rows').append(h('tr', {}, [h('td', { text: 'No deliveries yet.', attrs: { colspan: '6' } })]));
    deliveriesPager.shown(pagination.nextCursor);
    el('deliveries').hidden = false;
    if (refreshes > 0 && deliveries.some((/** @type {any} */ d) => d.status === 'pending'))
      deliveriesRefresh = setTimeout(() => {
        if (!el('deliveries').hidden) void run(() => loadDeliveries(refreshes - 1));
      }, 2_000);
  }
  /**
   * Shows a delivery's attempts in a row under it (again: hides them).
   * @param {string} base @param {any} delivery @param {HTMLElement} row
   */
  async function showAttempts(base, delivery, row) {
    const shown = row.nextElementSibling;
    if (shown?.classList.contains('attempts')) {
      shown.remove();
      return;
    }
    const { attemptLog } = await rest('GET', `${base}/${encodeURIComponent(delivery.id)}`);
    const items = attemptLog.map((/** @type {any} */ a) =>
      h('li', {}, [
        when(a.at),
        ` ${a.statusCode === null ? (a.errorClass ?? 'no answer') : `answered ${a.statusCode}`}`,
        a.latencyMs === null ? '' : ` in ${a.latencyMs} ms`,
        a.response ? h('pre', { text: a.response }) : '',
      ]),
    );
    const list = items.length > 0 ? h('ol', {}, items) : h('p', { text: 'No attempt yet.' });
    row.after(h('tr', { className: 'attempts' }, [h('td', { attrs: { colspan: '6' } }, [list])]));
  }
  input('deliveries-status').addEventListener('change', () => {
    deliveriesPager.reset();
    void run(() => loadDeliveries(15));
  });
  el('deliveries-replay').addEventListener('click', () =>
    run(async () => {
      const endpoint = deliveriesOf;
      const from = new Date(Date.now() - WEEK_MS).toISOString();
      await rest('POST', `/v1/webhook-endpoints/${encodeURIComponent(endpoint.id)}/replays`, { from });
      showStatus(`The failed deliveries of the last 7 days to ${endpoint.url} are being delivered again.`);
      deliveriesPager.reset();
      await loadDeliveries(15);
    }),
  );
  el('deliveries-close').addEventListener('click', () => {
    clearTimeout(deliveriesRefresh);
    el('deliveries').hidden = true;
  });

  form('webhook-form').addEventListener('submit', (event) => {
    event.preventDefault();
    void run(async () => {
      const eventTypes = input('webhook-events')
        .value.split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      /** @type {Record<string, unknown>} */
      const body = { url: input('webhook-url').value, eventTypes: eventTypes.length ? eventTypes : ['*'] };
      const description = input('webhook-description').value.trim();
      if (description) body.description = description;
      const created = await rest('POST', '/v1/webhook-endpoints', body);
      form('webhook-form').reset();
      showStatus(`Added the endpoint ${created.url}.`);
      showSecret(`The signing secret of ${created.url} (Standard Webhooks).`, created.secret, 'encrypted');
      await loadWebhooks();
    });
  });

  // ---- transcripts: the redaction policy, retention, the access log ------------------------------

  const ACCESS_LOG_PAGE = 20;
  const accessLogPager = cursorPager('access-log', loadAccessLog);
  const SOURCE_LABEL = { own: 'its own', account: "its account's", default: 'the default' };

  async function loadTranscripts() {
    await Promise.all([loadGovernance(), loadAccessLog()]);
  }

  async function loadGovernance() {
    const allowed = holds('organizations:read');
    el('governance-denied').hidden = allowed;
    el('governance-body').hidden = !allowed;
    if (!allowed || !acting) return;
    const orgPath = `/v1/organizations/${encodeURIComponent(acting.id)}`;
    const [policy, retention] = await Promise.all([rest('GET', `${orgPath}/redaction`), rest('GET', `${orgPath}/retention`)]);
    input('redaction-emails').checked = policy.emails;
    input('redaction-phones').checked = policy.phones;
    input('redaction-originals').checked = policy.keepOriginals;
    const writable = holds('organizations:write');
    for (const id of ['redaction-emails', 'redaction-phones', 'redaction-originals', 'redaction-save'])
      /** @type {HTMLInputElement | HTMLButtonElement} */ (el(id)).disabled = !writable;
    el('redaction-source').textContent =
      `${acting.name}: e-mail addresses ${policy.emails ? 'replaced' : 'kept'} (${SOURCE_LABEL[/** @type {'own'} */ (policy.sources.emails)]} setting), ` +
      `phone numbers ${policy.phones ? 'replaced' : 'kept'} (${SOURCE_LABEL[/** @type {'own'} */ (policy.sources.phones)]}), ` +
      `originals ${policy.keepOriginals ? 'kept' : 'not kept'} (${SOURCE_LABEL[/** @type {'own'} */ (policy.sources.keepOriginals)]}).` +
      (writable ? '' : ' This credential cannot change it (scope organizations:write).');
    /** @type {[string, string][]} */
    const rows = [
      ['Transcripts', `${retention.transcriptsDays} days`],
      ['Conversations', `${retention.conversationsDays} days`],
      ['Calls (ended)', `${retention.callRequestsDays} days`],
      ['Events', `${retention.eventsDays} days`],
      ['Webhook deliveries', `${retention.webhookDeliveriesDays} days`],
      ['Request logs', `${retention.requestLogsDays} days`],
      ['Access log', 'at least six years'],
    ];
    el('retention-details').replaceChildren(...rows.flatMap(([term, value]) => [h('dt', { text: term }), h('dd', { text: value })]));
  }

  form('redaction-form').addEventListener('submit', (event) => {
    event.preventDefault();
    void run(async () => {
      if (!acting) return;
      await rest('PUT', `/v1/organizations/${encodeURIComponent(acting.id)}/redaction`, {
        emails: input('redaction-emails').checked,
        phones: input('redaction-phones').checked,
        keepOriginals: input('redaction-originals').checked,
      });
      // the status once the page shows what was saved (the sources beside each setting)
      await loadGovernance();
      showStatus(`The redaction policy of ${acting.name} is saved; it applies to the turns written from now on.`);
    });
  });

  async function loadAccessLog() {
    const allowed = holds('access-log:read');
    el('access-log-denied').hidden = allowed;
    el('access-log-body').hidden = !allowed;
    if (!allowed || !acting) return;
    const cursor = accessLogPager.cursor();
    const page = await rest(
      'GET',
      `/v1/access-log?orgId=${encodeURIComponent(acting.id)}&limit=${ACCESS_LOG_PAGE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    el('access-log-rows').replaceChildren(
      ...page.entries.map((/** @type {any} */ entry) =>
        h('tr', {}, [
          h('td', {}, [when(entry.at)]),
          h('td', { text: `${entry.credential.name} (${entry.credential.kind})` }),
          h('td', { text: entry.conversationId }),
          h('td', { text: entry.surface === 'graphql' ? 'GraphQL' : 'REST' }),
          h('td', { text: entry.unredacted ? 'read' : '—' }),
        ]),
      ),
    );
    if (page.entries.length === 0)
      el('access-log-rows').append(h('tr', {}, [h('td', { text: 'No transcript read yet.', attrs: { colspan: '5' } })]));
    accessLogPager.shown(page.pagination.nextCursor);
  }
  // the whole log of the organization, as the API streams it, saved as a file (the credential goes in a header, so
  // the page fetches it and hands the browser what it got)
  el('access-log-export').addEventListener(
    'click',
    () =>
      void run(async () => {
        if (!acting) return;
        const answer = await fetch(`/v1/access-log/export?orgId=${encodeURIComponent(acting.id)}`, {
          headers: { authorization: `Bearer ${credential()}` },
          credentials: 'omit',
          cache: 'no-store',
        });
        if (!answer.ok) throw refusal(answer.status, await answer.json().catch(() => null));
        const url = URL.createObjectURL(await answer.blob());
        const link = h('a', { attrs: { href: url, download: `access-log-${acting.id}.ndjson` } });
        document.body.append(link);
        link.click();
        link.remove();
        setTimeout(() => URL.revokeObjectURL(url), 60_000);
        showStatus(`The access log of ${acting.name} is downloaded.`);
      }),
  );

  // ---- calls: the calling policy, calls at once, the do-not-call list -----------------------------

  const SUPPRESSIONS_PAGE = 20;
  const suppressionPager = cursorPager('suppressions', loadSuppressions);

  async function loadCalls() {
    await Promise.all([loadPolicy(), loadSuppressions()]);
  }

  async function loadPolicy() {
    const allowed = holds('organizations:read');
    el('policy-denied').hidden = allowed;
    el('policy-body').hidden = !allowed;
    if (!allowed || !acting) return;
    const policy = await rest('GET', `/v1/organizations/${encodeURIComponent(acting.id)}/calling-policy`);
    el('policy-source').textContent = policy.isDefault
      ? `${acting.name} uses the default policy (no policy set for it or its account).`
      : policy.inheritedFrom
        ? `${acting.name} follows its account's policy.`
        : `${acting.name}'s own policy.`;
    /** @type {Map<string, string[]>} */
    const byDay = new Map();
    for (const w of policy.windows) byDay.set(w.dayOfWeek, [...(byDay.get(w.dayOfWeek) ?? []), `${w.start}–${w.end}`]);
    const days = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'];
    /** @type {[string, string][]} */
    const rows = [
      ["Windows (in the callee's time zone)", days.map((d) => `${d.slice(0, 3)} ${(byDay.get(d) ?? ['no calls']).join(', ')}`).join(' · ')],
      ['Blocked dates', policy.blockedDates.length ? policy.blockedDates.join(', ') : 'none'],
      ['Calls at once', String(policy.maxConcurrentCalls)],
      ['Consent required for', policy.requireConsentFor.length ? policy.requireConsentFor.join(', ') : 'nothing'],
    ];
    el('policy-details').replaceChildren(...rows.flatMap(([term, value]) => [h('dt', { text: term }), h('dd', { text: value })]));
  }

  async function loadSuppressions() {
    const allowed = holds('call-requests:read');
    el('suppressions-denied').hidden = allowed;
    el('suppressions-body').hidden = !allowed;
    if (!allowed || !acting || !viewer) return;
    const capacity = await rest('GET', `/v1/organizations/${encodeURIComponent(acting.id)}/call-capacity`);
    el('capacity').textContent =
      capacity.limit === null
        ? `${capacity.inProgress} in progress (no cap of its own: each location's applies), ${capacity.queuedDue} due and waiting.`
        : `${capacity.inProgress} of ${capacity.limit} in progress, ${capacity.queuedDue} due and waiting.`;
    const cursor = suppressionPager.cursor();
    const page = await rest('GET', `/v1/suppressions?limit=${SUPPRESSIONS_PAGE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    el('suppressions-rows').replaceChildren(...page.suppressions.map(suppressionRow));
    if (page.suppressions.length === 0)
      el('suppressions-rows').append(h('tr', {}, [h('td', { text: 'No numbers listed.', attrs: { colspan: '6' } })]));
    suppressionPager.shown(page.pagination.nextCursor);
  }

  /** @param {any} entry */
  function suppressionRow(entry) {
    const own = !!viewer && entry.orgId === viewer.orgId;
    const actions = h('td', { className: 'actions' });
    const fill = () =>
      actions.replaceChildren(
        ...(own && holds('call-requests:write')
          ? [
              button(
                'Remove',
                () =>
                  confirmIn(
                    actions,
                    `Remove ${entry.number}? It may be called again.`,
                    `Confirm remove ${entry.number}`,
                    async () => {
                      await rest('DELETE', `/v1/suppressions/${encodeURIComponent(entry.number)}`);
                      showStatus(`Removed ${entry.number} from the list.`);
                      await loadSuppressions();
                    },
                    fill,
                  ),
                'danger',
                `Remove ${entry.number}`,
              ),
            ]
          : []),
      );
    fill();
    return h('tr', {}, [
      h('td', {}, [h('code', { text: entry.number })]),
      h('td', { text: own ? 'this organization' : 'its account' }),
      h('td', { text: entry.source === 'opt_out' ? 'opt-out on a call' : entry.source }),
      h('td', { text: entry.reason ?? '' }),
      h('td', {}, [when(entry.createdAt)]),
      actions,
    ]);
  }

  form('suppression-form').addEventListener('submit', (event) => {
    event.preventDefault();
    void run(async () => {
      /** @type {Record<string, unknown>} */
      const body = { number: input('suppression-number').value };
      const reason = input('suppression-reason').value.trim();
      if (reason) body.reason = reason;
      const added = await rest('POST', '/v1/suppressions', body);
      form('suppression-form').reset();
      showStatus(`Listed ${added.number}: it will not be called.`);
      suppressionPager.reset();
      await loadSuppressions();
    });
  });

  // a call batch's progress (GET /v1/call-batches/{id}): its calls per status and per disposition
  form('batch-form').addEventListener('submit', (event) => {
    event.preventDefault();
    void run(async () => {
      const id = input('batch-id').value.trim();
      const batch = await rest('GET', `/v1/call-batches/${encodeURIComponent(id)}`);
      /** @param {Record<string, number>} counts */
      const listed = (counts) =>
        Object.entries(counts)
          .filter(([, n]) => n > 0)
          .map(([name, n]) => `${name.replace('_', ' ')} ${n}`)
          .join(', ') || 'none';
      /** @type {[string, string][]} */
      const rows = [
        ['Recipients', `${batch.recipients} (${batch.placed} called, ${batch.skipped.length} skipped)`],
        ['Calls', `${batch.counts.total}: ${listed(batch.counts.byStatus)}`],
        ['Outcomes', listed(batch.counts.byDisposition)],
        ['Completed', batch.completedAt ?? (batch.canceledAt ? 'canceled; calls under way finish' : 'not yet')],
      ];
      el('batch-details').replaceChildren(...rows.flatMap(([term, value]) => [h('dt', { text: term }), h('dd', { text: value })]));
    });
  });

  // ---- the week of availability ------------------------------------------------------------------

  /** The local calendar date and time of an instant in a time zone. @param {string} zone @param {number} ms */
  function localParts(zone, ms) {
    const parts = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    }).formatToParts(new Date(ms));
    /** @type {Record<string, number>} */
    const v = {};
    for (const part of parts) if (part.type !== 'literal') v[part.type] = Number(part.value);
    return {
      year: v.year ?? 0,
      month: v.month ?? 1,
      day: v.day ?? 1,
      hour: (v.hour ?? 0) % 24,
      minute: v.minute ?? 0,
      second: v.second ?? 0,
    };
  }
  /** The instant of local midnight of a date in a zone (the day may overflow: Date.UTC carries it). @param {string} zone @param {number} y @param {number} m @param {number} d */
  function localMidnight(zone, y, m, d) {
    const wall = Date.UTC(y, m - 1, d);
    let guess = wall;
    for (let i = 0; i < 3; i++) {
      const p = localParts(zone, guess);
      guess -= Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - wall;
    }
    return guess;
  }

  async function loadWeek() {
    const allowed = holds('office-hours:read');
    el('week-denied').hidden = allowed;
    el('week-body').hidden = !allowed;
    if (!allowed || !acting) return;
    const zone = acting.timezone;
    const today = localParts(zone, Date.now());
    const days = Array.from({ length: 8 }, (_, i) => localMidnight(zone, today.year, today.month, today.day + i));
    const medium = /** @type {HTMLSelectElement} */ (el('week-medium')).value;
    const query = `?from=${encodeURIComponent(new Date(days[0] ?? 0).toISOString())}&to=${encodeURIComponent(new Date(days[7] ?? 0).toISOString())}&medium=${medium}`;
    const timeline = await rest('GET', `/v1/organizations/${encodeURIComponent(acting.id)}/availability/timeline${query}`);
    el('week-zone').textContent = `${acting.name}, times in ${timeline.timezone}.`;
    const dayName = new Intl.DateTimeFormat(undefined, { timeZone: zone, weekday: 'long', day: 'numeric', month: 'long' });
    const clock = new Intl.DateTimeFormat('en-GB', { timeZone: zone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    const list = el('week-days');
    list.replaceChildren();
    for (let i = 0; i < 7; i++) {
      const start = days[i] ?? 0;
      const end = days[i + 1] ?? 0;
      const bar = h('div', { className: 'bar', attrs: { 'aria-hidden': 'true' } });
      const spans = h('ul', { className: 'spans' });
      for (const interval of timeline.intervals) {
        const from = Math.max(start, Date.parse(interval.start));
        const to = Math.min(end, Date.parse(interval.end));
        if (to <= from) continue;
        const segment = h('span', {
          className: `segment ${interval.state}`,
          attrs: { title: STATE_LABEL[/** @type {keyof typeof STATE_LABEL} */ (interval.state)] ?? interval.state },
        });
        segment.style.width = `${((to - from) / (end - start)) * 100}%`;
        bar.append(segment);
        const label = STATE_LABEL[/** @type {keyof typeof STATE_LABEL} */ (interval.state)] ?? interval.state;
        const detail = interval.closure?.description ?? interval.break?.reason ?? interval.specialHours?.description ?? '';
        const until = to === end ? '24:00' : clock.format(new Date(to));
        spans.append(
          h('li', { className: interval.state, text: `${clock.format(new Date(from))}–${until} ${label}${detail ? ` (${detail})` : ''}` }),
        );
      }
      list.append(h('li', { className: 'day' }, [h('h3', { text: dayName.format(new Date(start + 12 * 60 * 60 * 1000)) }), bar, spans]));
    }
  }
  el('week-medium').addEventListener('change', () => void run(loadWeek));

  // ---- phone numbers and their greetings ---------------------------------------------------------

  /** The number whose greetings the form edits. @type {any} */
  let greetingNumber = null;

  async function loadNumbers() {
    const allowed = holds('organizations:read') && !!acting;
    el('numbers-denied').hidden = allowed;
    el('numbers-body').hidden = !allowed;
    el('greeting-form').hidden = true;
    if (!allowed || !acting) return;
    const { phoneNumbers } = await rest('GET', `/v1/organizations/${encodeURIComponent(acting.id)}/phone-numbers`);
    el('numbers-rows').replaceChildren(...phoneNumbers.map(numberRow));
    if (phoneNumbers.length === 0)
      el('numbers-rows').append(h('tr', {}, [h('td', { text: 'No phone numbers.', attrs: { colspan: '5' } })]));
  }

  /** @param {any} number */
  function numberRow(number) {
    const actions = h('td', { className: 'actions' });
    if (holds('phone-numbers:write'))
      actions.append(
        button(
          'Edit greetings',
          () => {
            greetingNumber = number;
            el('greeting-title').textContent = `Greetings of ${number.name || number.number}`;
            /** @type {HTMLTextAreaElement} */ (el('greeting-open')).value = number.customGreeting;
            /** @type {HTMLTextAreaElement} */ (el('greeting-closed')).value = number.customClosedGreeting;
            el('greeting-form').hidden = false;
            el('greeting-open').focus();
          },
          'secondary',
          `Edit the greetings of ${number.name || number.number}`,
        ),
      );
    return h('tr', {}, [
      h('td', {}, [h('code', { text: number.number })]),
      h('td', { text: number.name }),
      h('td', { text: number.customGreeting || '—' }),
      h('td', { text: number.customClosedGreeting || '—' }),
      actions,
    ]);
  }

  form('greeting-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const number = greetingNumber;
    if (!number) return;
    void run(async () => {
      await rest('PATCH', `/v1/phone-numbers/${encodeURIComponent(number.id)}`, {
        customGreeting: /** @type {HTMLTextAreaElement} */ (el('greeting-open')).value,
        customClosedGreeting: /** @type {HTMLTextAreaElement} */ (el('greeting-closed')).value,
      });
      greetingNumber = null;
      await Promise.all([loadNumbers(), loadWeek()]);
      showStatus(`Saved the greetings of ${number.name || number.number}.`);
    });
  });

  // ---- start -------------------------------------------------------------------------------------

  for (const cancel of document.querySelectorAll('[data-cancel]')) {
    cancel.addEventListener('click', () => {
      const owner = cancel.closest('form');
      if (owner) owner.hidden = true;
    });
  }
  if (credential()) {
    void run(async () => {
      try {
        await signIn();
      } catch (error) {
        // a key that no longer works (revoked, expired): back to the sign-in form
        if (error instanceof ApiError && error.status === 401) signOut();
        throw error;
      }
    });
  }
})();
