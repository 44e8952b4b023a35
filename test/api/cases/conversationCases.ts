// Rule cases of the conversations list, run through REST (query strings) and GraphQL (typed
// arguments) alike by conversations.test.ts: both surfaces must give the same verdict.

export interface ConversationCase {
  name: string;
  /** REST query parameters, as sent. */
  query: Record<string, string>;
  /** The same request as GraphQL arguments; absent when GraphQL's own types already rule it out. */
  args?: Record<string, unknown>;
  /** The parameter a 400 must name. */
  invalid: string;
}

export const invalidPagingCases: ConversationCase[] = [
  { name: 'limit 0', query: { limit: '0' }, args: { limit: 0 }, invalid: 'limit' },
  { name: 'limit 101', query: { limit: '101' }, args: { limit: 101 }, invalid: 'limit' },
  { name: 'limit -1', query: { limit: '-1' }, args: { limit: -1 }, invalid: 'limit' },
  { name: 'limit abc', query: { limit: 'abc' }, invalid: 'limit' },
  { name: 'limit 1.5', query: { limit: '1.5' }, invalid: 'limit' },
  { name: 'limit empty', query: { limit: '' }, invalid: 'limit' },
  { name: 'offset -1', query: { offset: '-1' }, args: { offset: -1 }, invalid: 'offset' },
  { name: 'offset abc', query: { offset: 'abc' }, invalid: 'offset' },
  { name: 'offset 1.5', query: { offset: '1.5' }, invalid: 'offset' },
  { name: 'offset beyond the integer range', query: { offset: '99999999999999999999' }, invalid: 'offset' },
  { name: 'includeArchived yes', query: { includeArchived: 'yes' }, invalid: 'includeArchived' },
  { name: 'includeChildren 1', query: { includeChildren: '1' }, invalid: 'includeChildren' },
  { name: 'orgId not a UUID', query: { orgId: 'clinic' }, args: { orgId: 'clinic' }, invalid: 'orgId' },
  { name: 'botId not a UUID', query: { botId: '42' }, args: { botId: '42' }, invalid: 'botId' },
  // a non-account owner may not include children (docs/decisions.md §3)
  { name: 'includeChildren by a clinic', query: { includeChildren: 'true' }, args: { includeChildren: true }, invalid: 'includeChildren' },
];

/** Valid paging: [query, expected item count, expected offset, expected limit] over the clinic's 40 non-archived conversations. */
export const pagingCases: {
  name: string;
  query: Record<string, string>;
  args: Record<string, unknown>;
  count: number;
  offset: number;
  limit: number;
}[] = [
  { name: 'defaults', query: {}, args: {}, count: 20, offset: 0, limit: 20 },
  { name: 'limit 1', query: { limit: '1' }, args: { limit: 1 }, count: 1, offset: 0, limit: 1 },
  { name: 'limit 100', query: { limit: '100' }, args: { limit: 100 }, count: 40, offset: 0, limit: 100 },
  { name: 'last partial page', query: { offset: '35', limit: '10' }, args: { offset: 35, limit: 10 }, count: 5, offset: 35, limit: 10 },
  { name: 'offset at the end', query: { offset: '40' }, args: { offset: 40 }, count: 0, offset: 40, limit: 20 },
  {
    name: 'offset past the end',
    query: { offset: '1000', limit: '100' },
    args: { offset: 1000, limit: 100 },
    count: 0,
    offset: 1000,
    limit: 100,
  },
];
