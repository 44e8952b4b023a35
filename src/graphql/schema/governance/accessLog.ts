import {
  ACCESS_LOG_SURFACES,
  type AccessLogConnection,
  type AccessLogEntryView,
  type AccessLogVerification,
  accessLogConnection,
  verifyAccessLog,
} from '../../../domain/governance/accessLog.js';
import { builder } from '../../builder.js';
import { PageInfoRef } from '../calls/conversation.js';

const AccessLogSurfaceEnum = builder.enumType('AccessLogSurface', {
  description: 'Which surface answered the read.',
  values: ACCESS_LOG_SURFACES,
});

const AccessLogCredentialRef = builder.objectRef<AccessLogEntryView['credential']>('AccessLogCredential').implement({
  description: 'The credential that read.',
  fields: (t) => ({
    kind: t.exposeString('kind', { description: 'apiKey or oauth.' }),
    id: t.exposeID('id', { description: 'The API key or OAuth client id.' }),
    name: t.exposeString('name', { description: "The credential's name." }),
  }),
});

const AccessLogEntryRef = builder.objectRef<AccessLogEntryView>('AccessLogEntry').implement({
  description: 'One answer that held transcript text, entered before the text was read; append-only and hash-chained per organization.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Entry id (UUID).' }),
    orgId: t.exposeID('orgId', { description: 'The organization whose conversation was read (the chain of the entry).' }),
    seq: t.exposeInt('seq', { description: "1, 2, … in the organization's chain." }),
    at: t.expose('at', { type: 'DateTime', description: 'When it was read.' }),
    credential: t.expose('credential', { type: AccessLogCredentialRef, description: 'Who read.' }),
    conversationId: t.exposeID('conversationId', { description: 'The conversation read.' }),
    surface: t.expose('surface', { type: AccessLogSurfaceEnum, description: 'rest or graphql.' }),
    requestId: t.exposeString('requestId', { nullable: true, description: 'The X-Request-Id of the read.' }),
    clientAddress: t.exposeString('clientAddress', { nullable: true, description: 'The client address of the read.' }),
    unredacted: t.exposeBoolean('unredacted', { description: 'Whether originals behind redactions were read.' }),
    prevHash: t.exposeString('prevHash', { description: "The previous entry's hash (64 zeros for the first)." }),
    hash: t.exposeString('hash', { description: 'SHA-256 (hex) of prevHash followed by the canonical JSON of this entry.' }),
  }),
});

const AccessLogEdgeRef = builder.objectRef<AccessLogConnection['edges'][number]>('AccessLogEdge').implement({
  description: 'An access-log entry and the cursor of its position in the list.',
  fields: (t) => ({
    cursor: t.exposeString('cursor', { description: 'Opaque; pass as `after` to continue after this entry (with the same filters).' }),
    node: t.expose('node', { type: AccessLogEntryRef, description: 'The entry.' }),
  }),
});

const AccessLogConnectionRef = builder.objectRef<AccessLogConnection>('AccessLogConnection').implement({
  description: 'Access-log entries, newest first, one page at a time by cursor (a Relay connection).',
  fields: (t) => ({
    edges: t.expose('edges', { type: [AccessLogEdgeRef], description: 'The entries of this page with their cursors.' }),
    pageInfo: t.expose('pageInfo', { type: PageInfoRef, description: 'hasNextPage, endCursor and the rest.' }),
  }),
});

const AccessLogBrokenRef = builder.objectRef<NonNullable<AccessLogVerification['firstBroken']>>('AccessLogBrokenEntry').implement({
  description: 'The first entry whose link or hash does not hold.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Entry id.' }),
    orgId: t.exposeID('orgId', { description: 'Its organization (chain).' }),
    seq: t.exposeInt('seq', { description: 'Its place in the chain.' }),
    at: t.expose('at', { type: 'DateTime', description: 'When it says it was written.' }),
  }),
});

const AccessLogVerificationRef = builder.objectRef<AccessLogVerification>('AccessLogVerification').implement({
  description: "The result of recomputing the access log's chains over a range.",
  fields: (t) => ({
    ok: t.exposeBoolean('ok', { description: 'Whether every entry checked holds.' }),
    entries: t.exposeInt('entries', { description: 'Entries checked.' }),
    firstBroken: t.expose('firstBroken', { type: AccessLogBrokenRef, nullable: true, description: 'Null when all hold.' }),
  }),
});

builder.queryFields((t) => ({
  accessLog: t.field({
    type: AccessLogConnectionRef,
    description:
      "Who read which transcript, newest first, `first` after the cursor `after` (REST's nextCursor), within the caller's reach (or `orgId`). Scope access-log:read.",
    args: {
      first: t.arg.int({ description: 'Page size (1..100, default 20).' }),
      after: t.arg.string({ description: 'Continue after this cursor (pageInfo.endCursor of the previous page).' }),
      orgId: t.arg.id({ description: "Only this organization's entries (outside the caller's reach NOT_FOUND)." }),
      conversationId: t.arg.id({ description: 'Only the reads of this conversation.' }),
      credentialId: t.arg.id({ description: 'Only the reads by this API key or OAuth client.' }),
      from: t.arg({ type: 'DateTime', description: 'Entries at or after this instant.' }),
      to: t.arg({ type: 'DateTime', description: 'Entries before this instant.' }),
    },
    resolve: async (_root, args, ctx) =>
      accessLogConnection(ctx.deps, await ctx.actor(), {
        first: args.first,
        after: args.after,
        orgId: args.orgId == null ? undefined : String(args.orgId),
        conversationId: args.conversationId == null ? undefined : String(args.conversationId),
        credentialId: args.credentialId == null ? undefined : String(args.credentialId),
        from: args.from?.toISOString(),
        to: args.to?.toISOString(),
      }),
  }),
  accessLogVerification: t.field({
    type: AccessLogVerificationRef,
    description:
      "Recomputes the access log's chains over the entries in [from, to) of every organization within reach (or `orgId`): `{ok, entries, firstBroken}`. Scope access-log:read.",
    args: {
      orgId: t.arg.id({ description: "Only this organization's chain (outside the caller's reach NOT_FOUND)." }),
      from: t.arg({ type: 'DateTime', description: 'Entries at or after this instant.' }),
      to: t.arg({ type: 'DateTime', description: 'Entries before this instant.' }),
    },
    resolve: async (_root, args, ctx) =>
      verifyAccessLog(ctx.deps, await ctx.actor(), {
        orgId: args.orgId == null ? undefined : String(args.orgId),
        from: args.from?.toISOString(),
        to: args.to?.toISOString(),
      }),
  }),
}));
