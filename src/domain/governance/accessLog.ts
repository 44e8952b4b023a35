// The access log (issue 36 §2; docs/decisions.md "Transcripts under governance"): who read which
// conversation's transcript, when, through which surface, from where. An entry is written BEFORE the
// transcript is read, in its own transaction; when it cannot be written the read is refused (503), so no
// transcript is ever answered unlogged.
//
// Entries are append-only (a trigger refuses UPDATE and DELETE) and chained per organization — the
// organization whose conversation was read: entry n stores `prevHash` (entry n−1's hash, 64 zeros for the
// first) and `hash` = SHA-256(prevHash ‖ canonical JSON of entry n). Writers of one organization are
// serialized by an advisory lock of its chain, and (orgId, seq) is unique, so the chain cannot fork; other
// organizations' writers never wait. `verify` recomputes a range and names the first entry that does not
// hold. Scope access-log:read to read or verify; reach as everywhere (an account sees its children's).
import { createHash, randomUUID } from 'node:crypto';
import { z } from 'zod';
import { absentToUndefined, cursorParam, integerParam } from '../shared/inputParams.js';
import type { KeyMaterial } from '../../crypto/derivedKeys.js';
import type { Prisma } from '../../generated/prisma/client.js';
import { type Actor, assertReach, requireScope } from '../shared/access.js';
import type { DomainDeps } from '../shared/deps.js';
import { DomainError, parseInput, Unavailable } from '../shared/errors.js';
import { openInstantIdCursor, sealCursor, pageCursorKey } from '../shared/pageCursors.js';
import { processTenantWork } from '../shared/tenantWork.js';
import { instantInputSchema } from '../shared/timeFormats.js';
import { cursorPaginationView, instantView, viewSchema } from '../shared/viewSchema.js';
import {
  accessLogExportPage,
  reachableOrganizationIds,
  type AccessLogFilter,
  type AccessLogRow,
  accessLogChainSlice,
  accessLogHead,
  accessLogPage,
  accessLogSpans,
  insertAccessLogEntries,
  lockAccessLogChain,
  organizationsCondition,
} from './sql.js';

export const ACCESS_LOG_SURFACES = ['rest', 'graphql'] as const;
export type AccessLogSurface = (typeof ACCESS_LOG_SURFACES)[number];
/** The `prevHash` of an organization's first entry. */
export const GENESIS_HASH = '0'.repeat(64);
export const ACCESS_LOG_DEFAULT_LIMIT = 20;
export const ACCESS_LOG_MAX_LIMIT = 100;
/** Entries read per statement while verifying (a long range is walked in slices, never loaded whole). */
const VERIFY_SLICE = 1_000;

/** What is read: one conversation's transcript, of the organization `orgId`. */
export interface TranscriptRead {
  orgId: string;
  conversationId: string;
  surface: AccessLogSurface;
  /** Originals behind redactions were read (transcripts:read_unredacted, unredacted=true). */
  unredacted?: boolean;
}

/** The fields an entry's hash covers, in a fixed order (the canonical form). */
function canonicalForm(row: Omit<AccessLogRow, 'prevHash' | 'hash'>): string {
  return JSON.stringify({
    id: row.id,
    orgId: row.orgId,
    seq: row.seq,
    at: row.at.toISOString(),
    credentialKind: row.credentialKind,
    credentialId: row.credentialId,
    credentialName: row.credentialName,
    conversationId: row.conversationId,
    surface: row.surface,
    requestId: row.requestId,
    clientAddress: row.clientAddress,
    unredacted: row.unredacted,
  });
}

export function entryHash(prevHash: string, row: Omit<AccessLogRow, 'prevHash' | 'hash'>): string {
  return createHash('sha256')
    .update(prevHash + canonicalForm(row))
    .digest('hex');
}

type NewEntry = Omit<AccessLogRow, 'seq' | 'prevHash' | 'hash'>;

interface Waiting {
  entry: NewEntry;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * The entries of one database's organizations waiting to be appended. Reads of one organization that arrive while
 * its chain is being written are appended together by the next write: one transaction (the chain's lock, its
 * head, one INSERT of them all) instead of one each. The lock serializes every append of an organization, so its
 * reads at once would otherwise wait for each other's transactions one by one; together they wait for at most two.
 * Each read still answers only once its own entry is committed.
 */
class ChainAppender {
  private readonly waiting = new Map<string, Waiting[]>();
  private readonly writing = new Set<string>();

  constructor(private readonly db: DomainDeps['db']) {}

  append(entry: NewEntry): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const line = this.waiting.get(entry.orgId);
      if (line) line.push({ entry, resolve, reject });
      else this.waiting.set(entry.orgId, [{ entry, resolve, reject }]);
      if (!this.writing.has(entry.orgId)) void this.write(entry.orgId);
    });
  }

  private async write(orgId: string): Promise<void> {
    this.writing.add(orgId);
    try {
      for (let batch = this.take(orgId); batch.length > 0; batch = this.take(orgId)) {
        try {
          await this.db.$transaction(async (tx) => {
            await lockAccessLogChain(tx, orgId);
            const head = await accessLogHead(tx, orgId);
            let seq = head?.seq ?? 0;
            let prevHash = head?.hash ?? GENESIS_HASH;
            const rows: AccessLogRow[] = [];
            for (const { entry } of batch) {
              const row = { ...entry, seq: ++seq };
              const hash = entryHash(prevHash, row);
              rows.push({ ...row, prevHash, hash });
              prevHash = hash;
            }
            await insertAccessLogEntries(tx, rows);
          });
          for (const w of batch) w.resolve();
        } catch (err) {
          for (const w of batch) w.reject(err);
        }
      }
    } finally {
      this.writing.delete(orgId);
    }
  }

  /** The waiting entries of an organization, in the order they came, at most APPEND_BATCH. */
  private take(orgId: string): Waiting[] {
    const line = this.waiting.get(orgId);
    if (!line) return [];
    const batch = line.splice(0, APPEND_BATCH);
    if (line.length === 0) this.waiting.delete(orgId);
    return batch;
  }
}

/** Entries one transaction appends at most (one statement's parameters stay well within PostgreSQL's bound). */
const APPEND_BATCH = 200;
const appenders = new WeakMap<object, ChainAppender>();

/**
 * Writes the entry of a transcript read, at the head of its organization's chain (with the reads of the same
 * organization waiting at that moment, ChainAppender). Throws Unavailable (503) when it cannot be written: the
 * caller must not read the transcript then.
 */
export async function recordTranscriptRead(deps: DomainDeps, actor: Actor, read: TranscriptRead): Promise<void> {
  let appender = appenders.get(deps.db);
  if (!appender) appenders.set(deps.db, (appender = new ChainAppender(deps.db)));
  try {
    await appender.append({
      id: randomUUID(),
      orgId: read.orgId,
      at: deps.clock(),
      credentialKind: actor.credential.kind,
      credentialId: actor.credential.id,
      credentialName: actor.credential.name,
      conversationId: read.conversationId,
      surface: read.surface,
      requestId: deps.requestId ?? null,
      clientAddress: deps.clientAddress ?? null,
      unredacted: read.unredacted ?? false,
    });
  } catch (err) {
    // an overloaded service says so itself; anything else is this log failing
    if (err instanceof DomainError && err.code === 'UNAVAILABLE') throw err;
    throw new Unavailable('The access log could not be written, so the transcript is not answered; retry shortly', 1);
  }
}

// ---- reading the log

export interface AccessLogEntryView {
  id: string;
  orgId: string;
  seq: number;
  at: string;
  credential: { kind: string; id: string; name: string };
  conversationId: string;
  surface: AccessLogSurface;
  requestId: string | null;
  clientAddress: string | null;
  unredacted: boolean;
  prevHash: string;
  hash: string;
}

export interface AccessLogPage {
  entries: AccessLogEntryView[];
  pagination: { limit: number; nextCursor: string | null };
}

export interface AccessLogConnection {
  edges: { cursor: string; node: AccessLogEntryView }[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
}

export interface AccessLogVerification {
  ok: boolean;
  /** Entries checked. */
  entries: number;
  /** The first entry (earliest `at` over the organizations checked) whose link or hash does not hold; null when none. */
  firstBroken: { id: string; orgId: string; seq: number; at: string } | null;
}

function entryView(row: AccessLogRow): AccessLogEntryView {
  return {
    id: row.id,
    orgId: row.orgId,
    seq: row.seq,
    at: row.at.toISOString(),
    credential: { kind: row.credentialKind, id: row.credentialId, name: row.credentialName },
    conversationId: row.conversationId,
    surface: row.surface as AccessLogSurface,
    requestId: row.requestId,
    clientAddress: row.clientAddress,
    unredacted: row.unredacted,
    prevHash: row.prevHash,
    hash: row.hash,
  };
}

const entrySchema = z
  .object({
    id: z.uuid(),
    orgId: z.uuid().describe('The organization whose conversation was read (the chain the entry belongs to).'),
    seq: z.int().describe("1, 2, … in the organization's chain."),
    at: instantView(),
    credential: z
      .object({ kind: z.string().describe('apiKey or oauth'), id: z.string(), name: z.string() })
      .describe('The credential that read.'),
    conversationId: z.uuid(),
    surface: z.enum(ACCESS_LOG_SURFACES),
    requestId: z.string().nullable().describe('The X-Request-Id of the read.'),
    clientAddress: z.string().nullable().describe('The client address of the read.'),
    unredacted: z.boolean().describe('Whether originals behind redactions were read.'),
    prevHash: z.string().describe("The previous entry's hash (64 zeros for the first)."),
    hash: z.string().describe('SHA-256 (hex) of prevHash followed by the canonical JSON of this entry.'),
  })
  .meta({ id: 'AccessLogEntry' });

export const accessLogPageResponse = viewSchema<AccessLogPage>()(
  z.object({
    entries: z.array(entrySchema).describe('Newest first.'),
    pagination: cursorPaginationView(),
  }),
);

export const accessLogVerificationResponse = viewSchema<AccessLogVerification>()(
  z
    .object({
      ok: z.boolean(),
      entries: z.int().describe('Entries checked.'),
      firstBroken: z
        .object({ id: z.uuid(), orgId: z.uuid(), seq: z.int(), at: instantView() })
        .nullable()
        .describe('The first entry whose link or hash does not hold; null when all hold.'),
    })
    .meta({ id: 'AccessLogVerification' }),
);

const absent = absentToUndefined;
const limitParam = integerParam(1, ACCESS_LOG_MAX_LIMIT, ACCESS_LOG_DEFAULT_LIMIT);
const uuidParam = z.preprocess(
  absent,
  z
    .uuid({ error: 'must be a UUID' })
    .transform((id) => id.toLowerCase())
    .optional(),
);
const instantParam = z.preprocess(
  (v) => (v instanceof Date ? v.toISOString() : absent(v)),
  instantInputSchema('must be an ISO 8601 instant, e.g. 2026-03-01T00:00:00Z').optional(),
);

const rangeFilters = {
  orgId: uuidParam.describe(
    "Only this organization's entries (outside the caller's reach a 404). By default every organization within reach.",
  ),
  from: instantParam.describe('Entries at or after this instant.'),
  to: instantParam.describe('Entries before this instant.'),
};

const listFilters = {
  ...rangeFilters,
  conversationId: uuidParam.describe('Only the reads of this conversation.'),
  credentialId: z
    .preprocess(absent, z.string().max(100, { error: 'must be at most 100 characters' }).optional())
    .describe('Only the reads by this API key or OAuth client (its id).'),
};

/** Query of GET /v1/access-log. Unknown parameters are a 400. */
export const listAccessLogInput = z.strictObject({
  cursor: cursorParam.describe('Continue after the page whose `pagination.nextCursor` this is (bound to the filters it was issued for).'),
  limit: limitParam.describe('Page size.'),
  ...listFilters,
});

/** The arguments of GraphQL `accessLog` (a Relay connection). */
export const accessLogConnectionInput = z.strictObject({ first: limitParam, after: cursorParam, ...listFilters });

/** Query of GET /v1/access-log/export: the list's filters, without paging (the export is the whole range). */
export const exportAccessLogInput = z.strictObject(listFilters);

/** Query of GET /v1/access-log/verify and the arguments of GraphQL `accessLogVerification`. */
export const verifyAccessLogInput = z.strictObject(rangeFilters);

type ListFilters = Pick<z.output<typeof listAccessLogInput>, 'orgId' | 'from' | 'to' | 'conversationId' | 'credentialId'>;

/** Which organizations: the one asked for (within reach, else 404), else the owner's and, for an account, its children. */
async function organizationsOf(deps: DomainDeps, actor: Actor, orgId: string | undefined) {
  if (orgId) {
    await assertReach(deps, actor, orgId);
    return organizationsCondition({ orgId, withChildren: false });
  }
  return organizationsCondition({ orgId: actor.orgId, withChildren: actor.ownerIsAccount });
}

function filterOf(query: ListFilters): AccessLogFilter {
  return {
    ...(query.conversationId ? { conversationId: query.conversationId } : {}),
    ...(query.credentialId ? { credentialId: query.credentialId } : {}),
    ...(query.from ? { from: new Date(query.from) } : {}),
    ...(query.to ? { to: new Date(query.to) } : {}),
  };
}

function cursorFiltersOf(actor: Actor, query: ListFilters) {
  return {
    list: 'access-log',
    owner: actor.orgId,
    orgId: query.orgId ?? null,
    conversationId: query.conversationId ?? null,
    credentialId: query.credentialId ?? null,
    from: query.from ?? null,
    to: query.to ?? null,
  };
}

function sealPosition(key: KeyMaterial, filters: unknown, row: AccessLogRow): string {
  return sealCursor(pageCursorKey(key), { t: row.at.getTime(), i: row.id }, filters);
}

function openPosition(key: KeyMaterial, filters: unknown, cursor: string, field: string): { at: Date; id: string } {
  const { t, i } = openInstantIdCursor(pageCursorKey(key), cursor, filters, field);
  return { at: new Date(t), id: i };
}

/** What reading the log needs besides the database: the key its cursors are sealed with. */
export interface AccessLogDeps extends DomainDeps {
  tokens: { key: KeyMaterial };
}

async function pageOf(deps: AccessLogDeps, actor: Actor, query: ListFilters, cursor: string | undefined, field: string, limit: number) {
  const organizations = await organizationsOf(deps, actor, query.orgId);
  const filters = cursorFiltersOf(actor, query);
  const after = cursor === undefined ? undefined : openPosition(deps.tokens.key, filters, cursor, field);
  const rows = await accessLogPage(deps.db, organizations, filterOf(query), after, limit + 1);
  return { rows: rows.slice(0, limit), more: rows.length > limit, filters, after };
}

/** One page of the access log, newest first; `nextCursor` continues after it. Scope access-log:read. */
export async function listAccessLog(deps: AccessLogDeps, actor: Actor, input: unknown): Promise<AccessLogPage> {
  requireScope(actor, 'access-log:read');
  const query = parseInput(listAccessLogInput, input ?? {});
  const { rows, more, filters } = await pageOf(deps, actor, query, query.cursor, 'cursor', query.limit);
  return {
    entries: rows.map(entryView),
    pagination: { limit: query.limit, nextCursor: more ? sealPosition(deps.tokens.key, filters, rows.at(-1)!) : null },
  };
}

/** The same list as a Relay connection (GraphQL `accessLog`); cursors are REST's `nextCursor`. Scope access-log:read. */
export async function accessLogConnection(deps: AccessLogDeps, actor: Actor, input: unknown): Promise<AccessLogConnection> {
  requireScope(actor, 'access-log:read');
  const query = parseInput(accessLogConnectionInput, input ?? {});
  const { rows, more, filters, after } = await pageOf(deps, actor, query, query.after, 'after', query.first);
  const edges = rows.map((row) => ({ cursor: sealPosition(deps.tokens.key, filters, row), node: entryView(row) }));
  return {
    edges,
    pageInfo: {
      hasNextPage: more,
      hasPreviousPage: after !== undefined,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
  };
}

/** Entries an export reads at a time, per statement. */
export const EXPORT_PAGE = 500;

/** One line of an export: an entry as listed. */
export const accessLogExportLine = entrySchema;

/**
 * The entries of a range (the list's filters) for archiving or review: organization by organization (by id), each
 * in chain order, in pages the caller writes out as it reads them, oldest first. The first page is read before this
 * answers, so a refusal (scope, reach, a bad filter, the database away) is an answer of its own, not a broken
 * stream; each page after it is read only when the one before was taken (a slow reader holds nothing meanwhile, and
 * one that goes away stops the reading). Each page is a piece of the organization's export work (tenantWork.ts),
 * so one organization's exports take turns with its other exports and never crowd out another organization's work.
 * Scope access-log:read.
 */
export async function exportAccessLog(deps: DomainDeps, actor: Actor, input: unknown): Promise<AsyncIterable<AccessLogEntryView[]>> {
  requireScope(actor, 'access-log:read');
  const query = parseInput(exportAccessLogInput, input ?? {});
  if (query.orgId) await assertReach(deps, actor, query.orgId);
  const gate = deps.tenantWork ?? processTenantWork;
  const filter = filterOf(query);
  const read = (orgId: string, after: { at: Date; seq: number } | undefined) =>
    gate.run(actor.orgId, 'export', () => accessLogExportPage(deps.db, orgId, filter, after, EXPORT_PAGE));
  const orgIds = query.orgId
    ? [query.orgId]
    : await reachableOrganizationIds(deps.db, { orgId: actor.orgId, withChildren: actor.ownerIsAccount });
  const first = await read(orgIds[0]!, undefined);
  return (async function* pages() {
    for (const [i, orgId] of orgIds.entries()) {
      let rows = i === 0 ? first : await read(orgId, undefined);
      for (;;) {
        if (rows.length > 0) yield rows.map(entryView);
        if (rows.length < EXPORT_PAGE) break; // the organization's last page
        const last = rows.at(-1)!;
        rows = await read(orgId, { at: last.at, seq: last.seq });
      }
    }
  })();
}

/**
 * Verifies the chains of the organizations within reach (or `orgId`) over the entries `at` in [from, to):
 * per organization, every entry from the first to the last of the range, in chain order, must follow its
 * predecessor (seq + 1, prevHash = the predecessor's hash; the entry before the range is the anchor) and
 * hash to its stored hash. Scope access-log:read.
 */
export async function verifyAccessLog(deps: DomainDeps, actor: Actor, input: unknown): Promise<AccessLogVerification> {
  requireScope(actor, 'access-log:read');
  const query = parseInput(verifyAccessLogInput, input ?? {});
  const organizations = await organizationsOf(deps, actor, query.orgId);
  // a range may hold years of entries: the credential owner's verifications run a few at a time, like exports (tenantWork.ts)
  return (deps.tenantWork ?? processTenantWork).run(
    actor.orgId,
    'export',
    () => verifyChains(deps, organizations, filterOf(query)),
    deps.answerMade,
  );
}

async function verifyChains(deps: DomainDeps, organizations: Prisma.Sql, filter: AccessLogFilter): Promise<AccessLogVerification> {
  const spans = await accessLogSpans(deps.db, organizations, filter);
  let entries = 0;
  let firstBroken: AccessLogVerification['firstBroken'] = null;
  for (const span of spans) {
    const first = Number(span.first);
    const last = Number(span.last);
    let previous: { seq: number; hash: string } | null = null;
    if (first > 1) {
      const [anchor] = await accessLogChainSlice(deps.db, span.orgId, first - 1, first - 1);
      // a missing anchor breaks the link of the range's first entry
      previous = anchor ? { seq: anchor.seq, hash: anchor.hash } : { seq: first - 1, hash: '' };
    }
    let expectedSeq = first;
    let broken: AccessLogRow | undefined;
    for (let from = first; from <= last && !broken; from += VERIFY_SLICE) {
      const rows = await accessLogChainSlice(deps.db, span.orgId, from, Math.min(last, from + VERIFY_SLICE - 1));
      for (const row of rows) {
        entries++;
        const prevHash = previous?.hash ?? GENESIS_HASH;
        const holds = row.seq === expectedSeq && row.prevHash === prevHash && row.hash === entryHash(prevHash, row);
        if (!holds) {
          broken = row;
          break;
        }
        previous = { seq: row.seq, hash: row.hash };
        expectedSeq = row.seq + 1;
      }
      // a missing seq inside the slice: the entry after the gap does not follow
    }
    if (broken && (firstBroken === null || broken.at.toISOString() < firstBroken.at)) {
      firstBroken = { id: broken.id, orgId: broken.orgId, seq: broken.seq, at: broken.at.toISOString() };
    }
  }
  return { ok: firstBroken === null, entries, firstBroken };
}
