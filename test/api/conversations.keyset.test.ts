// A cursor page deep in 200,000 conversations reads what the first page reads: the query plan (EXPLAIN
// ANALYZE of exactly the SQL the list runs) enters the index at the cursor and reads one page per index
// range, never the rows before it. Plans and row counts, not timings, are asserted.
import { describe, expect, it } from 'vitest';
import type { ConversationPosition, ConversationRange } from '../../src/domain/calls/conversationPages.js';
import { conversationPageQuery } from '../../src/domain/calls/sql.js';
import { Prisma } from '../../src/generated/prisma/client.js';
import { useTestApp } from '../support/testApp.js';

const t = useTestApp();

const TOTAL = 200_000;
const PAGE = 20;

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Relation Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
}

function nodesOf(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(nodesOf)];
}

async function plan(ranges: ConversationRange[], after: ConversationPosition | undefined): Promise<PlanNode[]> {
  const rows = await t.db.prisma.$queryRaw<Record<string, unknown>[]>(
    Prisma.sql`EXPLAIN (ANALYZE, FORMAT JSON) ${conversationPageQuery(ranges, after, PAGE + 1)}`,
  );
  const raw = Object.values(rows[0]!)[0];
  const document = (typeof raw === 'string' ? JSON.parse(raw) : raw) as { Plan: PlanNode }[];
  return nodesOf(document[0]!.Plan);
}

/** Rows the plan took from the Conversation table: returned by its scans plus those they filtered out. */
function rowsRead(nodes: PlanNode[]): number {
  return nodes
    .filter((n) => n['Relation Name'] === 'Conversation')
    .reduce((sum, n) => sum + (n['Actual Rows'] + (n['Rows Removed by Filter'] ?? 0)) * n['Actual Loops'], 0);
}

describe('keyset pages over 200,000 conversations', () => {
  it('reads one page per index range, as deep in the list as at its start', { timeout: 240_000 }, async () => {
    const orgId = t.demo.organizations.clinic.id;
    // three conversations per minute (ties on startTime), every tenth archived
    await t.db.prisma.$executeRaw`
      INSERT INTO "Conversation" ("id", "orgId", "tags", "medium", "startTime", "archived")
      SELECT gen_random_uuid(), ${orgId}::uuid, '{}', 'PHONE'::"Medium", timestamp '2020-01-01' + (g / 3) * interval '1 minute', g % 10 = 0
      FROM generate_series(1, ${TOTAL}) AS g`;
    await t.db.prisma.$executeRawUnsafe('ANALYZE "Conversation"');

    const deepRow = (
      await t.db.prisma.$queryRaw<{ id: string; startTime: Date }[]>`
        SELECT "id", "startTime" FROM "Conversation" WHERE "orgId" = ${orgId}::uuid AND NOT "archived"
        ORDER BY "startTime" DESC, "id" ASC OFFSET 170000 LIMIT 1`
    )[0]!;
    const deep = { t: deepRow.startTime.getTime(), i: deepRow.id };

    for (const ranges of [
      [{ orgId, archived: false }],
      [
        { orgId, archived: false },
        { orgId, archived: true },
      ],
    ] as ConversationRange[][]) {
      for (const after of [undefined, deep]) {
        const nodes = await plan(ranges, after);
        const scans = nodes.filter((n) => n['Relation Name'] === 'Conversation');
        expect(scans.map((n) => n['Node Type'])).toEqual(ranges.map(() => expect.stringMatching(/^Index (Only )?Scan$/)));
        for (const scan of scans) expect(scan['Index Name']).toBe('Conversation_orgId_archived_startTime_id_idx');
        // a page and the row after it, per range, plus at most the two ties of the cursor's minute
        expect(rowsRead(nodes), JSON.stringify({ ranges: ranges.length, deep: !!after })).toBeLessThanOrEqual(
          ranges.length * (PAGE + 1 + 2),
        );
        expect(nodes.some((n) => n['Node Type'] === 'Sort' && n['Actual Rows'] > ranges.length * (PAGE + 1))).toBe(false);
      }
    }

    // and through the API: the deep page by cursor is the page the offset list has there
    const offsetPage = await t.rest('GET', `/v1/conversations?offset=150000&limit=${PAGE}`);
    const cursorPage = await t.rest('GET', `/v1/conversations?cursor=${offsetPage.body.data.pagination.nextCursor}&limit=${PAGE}`);
    const offsetNext = await t.rest('GET', `/v1/conversations?offset=${150000 + PAGE}&limit=${PAGE}`);
    expect(cursorPage.status).toBe(200);
    expect(cursorPage.body.data.conversations).toEqual(offsetNext.body.data.conversations);
    expect(cursorPage.body.data.pagination.totalCount).toBe(offsetNext.body.data.pagination.totalCount);
  });
});
