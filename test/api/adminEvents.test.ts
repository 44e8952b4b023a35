// The admin command line's changes are in the audit trail too: every command that changes something
// appends exactly one event, in its own transaction, whose actor is the admin command line, and which an
// account's key reads through the Events API like any other (issue 20: actor kinds apiKey, oauthClient,
// admin, system). Read-only commands append nothing. Every change a command publishes on its process is
// one its event stands for: other instances hear of it only from the log (changes/eventTail.ts).
import { describe, expect, it } from 'vitest';
import { changesOfEvent } from '../../src/changes/eventTail.js';
import { ADMIN_COMMANDS, runAdminCommand, type AdminCommand, type AdminValues } from '../../src/admin/commands.js';
import { useTestApp, type TestApp } from '../support/testApp.js';

const t = useTestApp();

const account = (t: TestApp) => t.demo.organizations.account;
const clinic = (t: TestApp) => t.demo.organizations.clinic;

/** What a command answers, as the cases read it: the id of what it made or changed, and any secret it showed. */
interface Made {
  id: string;
  apiKey?: string;
  clientSecret?: string;
}

/** Every command, what it changes and the event the account's key then reads. */
const cases: Record<
  AdminCommand,
  {
    values(t: TestApp): Promise<AdminValues> | AdminValues;
    type: string | null;
    orgId?(t: TestApp, out: Made): string;
    subject?(out: Made): string;
  }
> = {
  'create-org': {
    values: (t) => ({ name: 'Uptown', timezone: 'America/Chicago', parent: account(t).id }),
    type: 'organization.created',
    orgId: (_t, out) => out.id,
    subject: (out) => out.id,
  },
  'create-bot': {
    values: (t) => ({ org: clinic(t).id, name: 'Night desk' }),
    type: 'bot.created',
    orgId: (t) => clinic(t).id,
    subject: (out) => out.id,
  },
  'create-api-key': {
    values: (t) => ({ org: clinic(t).id, name: 'Ops' }),
    type: 'api_key.created',
    orgId: (t) => clinic(t).id,
    subject: (out) => out.id,
  },
  'create-oauth-client': {
    values: (t) => ({ org: clinic(t).id, scopes: 'closures:read' }),
    type: 'oauth_client.created',
    orgId: (t) => clinic(t).id,
    subject: (out) => out.id,
  },
  'list-orgs': { values: () => ({}), type: null },
  // how transcripts are stored changes, not what they say: nothing for the trail
  'seal-transcripts': { values: () => ({}), type: null },
  'revoke-api-key': {
    values: async (t) => ({ id: ((await runAdminCommand(t.deps, 'create-api-key', { org: clinic(t).id })) as { id: string }).id }),
    type: 'api_key.revoked',
    orgId: (t) => clinic(t).id,
    subject: (out) => out.id,
  },
  'revoke-oauth-client': {
    values: (t) => ({ id: t.demo.oauthClients.clinicReadOnly.clientId }),
    type: 'oauth_client.revoked',
    orgId: (t) => clinic(t).id,
    subject: () => 'client',
  },
  'set-oauth-scopes': {
    values: (t) => ({ id: t.demo.oauthClients.clinicReadOnly.clientId, scopes: 'closures:read,office-hours:read' }),
    type: 'oauth_client.scopes_changed',
    orgId: (t) => clinic(t).id,
    subject: () => 'client',
  },
};

async function eventCount(t: TestApp): Promise<number> {
  return t.deps.db.event.count();
}

describe('admin commands in the event log', () => {
  it('the table names every command', () => {
    expect(Object.keys(cases).sort()).toEqual([...ADMIN_COMMANDS].sort());
  });

  for (const command of ADMIN_COMMANDS) {
    const c = cases[command];
    it(`${command} ${c.type ? `appends one ${c.type} by the admin command line` : 'appends nothing'}`, async () => {
      const values = await c.values(t);
      const before = await eventCount(t);
      const lastSeq = (await t.deps.db.event.findFirst({ orderBy: { seq: 'desc' }, select: { seq: true } }))?.seq ?? 0n;
      const published: string[] = [];
      const unsubscribe = t.deps.changes.subscribe({
        onChange: (change, local) => local && published.push(`${change.kind} ${change.orgId}`),
      });
      const out = (await runAdminCommand(t.deps, command, values).finally(unsubscribe)) as Made;
      expect(await eventCount(t)).toBe(before + (c.type ? 1 : 0));
      const events = await t.deps.db.event.findMany({ where: { seq: { gt: lastSeq } } });
      const heard = events.flatMap((e) =>
        changesOfEvent({ type: e.type, orgId: e.orgId, parentId: (e.data as { parentId?: string } | null)?.parentId ?? null }).map(
          (ch) => `${ch.kind} ${ch.orgId}`,
        ),
      );
      for (const change of published) expect(heard, `${change} is published but its event does not stand for it`).toContain(change);
      if (!c.type) return;
      // the account's key reads it through the Events API, as the audit trail
      const res = await t.rest('GET', `/v1/events?type=${c.type}&orgId=${c.orgId!(t, out)}`, { token: account(t).apiKey });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const [event] = res.body.data.events;
      expect(event).toMatchObject({
        type: c.type,
        orgId: c.orgId!(t, out),
        actor: { kind: 'admin', id: null, name: 'admin command line' },
      });
      if (c.subject!(out) !== 'client') expect(event.subject.id).toBe(c.subject!(out));
      // never a secret in an event
      for (const secret of [out.apiKey, out.clientSecret].filter(Boolean)) expect(JSON.stringify(event)).not.toContain(secret);
      if (command === 'set-oauth-scopes') expect(event.data.scopes).toEqual(['closures:read', 'office-hours:read']);
      if (command === 'create-org')
        expect(event.data).toMatchObject({ name: 'Uptown', timezone: 'America/Chicago', parentId: account(t).id });
    });
  }

  it('a refused command appends nothing', async () => {
    const before = await eventCount(t);
    await expect(runAdminCommand(t.deps, 'create-org', { name: 'X', timezone: 'Mars/Olympus' })).rejects.toThrow(/timezone/);
    await expect(runAdminCommand(t.deps, 'create-api-key', { org: 'not-a-uuid' })).rejects.toThrow(/org/);
    expect(await eventCount(t)).toBe(before);
  });
});
