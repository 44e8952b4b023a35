// What a domain function needs besides the actor and its input: the database, the in-memory read
// model the hot path is served from, the change feed every write reports to, and the time. A surface's
// deps (rest/deps.ts, graphql/deps.ts) and the app's (src/deps.ts) extend it, so a surface hands its own
// deps over as they are.
import type { ChangeChannel } from '../../changes/change.js';
import type { Db } from '../../db/client.js';
import type { ReadModelReads } from './readModel.js';
import type { RequestBatch } from './batch.js';
import type { TenantWorkGate } from './tenantWork.js';
import type { TranscriptCipher } from './transcriptCipher.js';

export interface DomainDeps {
  db: Db;
  /** The time; tests replace it to move through windows and across daylight-saving changes. */
  clock: () => Date;
  /** Organizations, credentials and compiled schedules, cached; reads of the hot path go through it. */
  readModel: ReadModelReads;
  /** Every committed write reports what it changed here (cache invalidation, live subscriptions), which also carries other instances' changes. */
  changes: ChangeChannel;
  /**
   * Calls `wake` once the clock reads `atMs` (at once when it already does); answers a cancel function.
   * On the app's clock, so that tests move live subscriptions through time with a fake one.
   */
  wakeAt(atMs: number, wake: () => void): () => void;
  /**
   * Per-request batching of per-organization lists (GraphQL nested fields ask for the closures of many
   * organizations at once); without it each call loads its own.
   */
  batch?: RequestBatch;
  /** Per-organization slots for expensive work (tenantWork.ts); the process's own gate when unset. */
  tenantWork?: TenantWorkGate;
  /**
   * Settles once the request's answer exists as text (http/requestContext.ts): making it (serializing, a
   * GraphQL selection, an ETag) is part of the expensive work an organization's slot covers. Unset outside a
   * request (tools, jobs): the slot then covers the work alone.
   */
  answerMade?: Promise<void>;
  /** The id of the request these deps answer (http/requestContext.ts); unset outside a request. */
  requestId?: string;
  /**
   * The client address of the request these deps answer (http/clientAddress.ts), set by authentication
   * (auth/authentication.ts), which is handed it; the access log records it. Unset outside a request.
   */
  clientAddress?: string;
  /** Seals and opens transcript text with organizations' data keys (domain/governance/transcriptKeys.ts). */
  transcripts: TranscriptCipher;
  /** Notes an API key's use in memory (auth/keyUsage.ts writes it at most once a minute); unset in tools. */
  keyUsage?: { touch(keyId: string, atMs: number): void; pendingUse(keyId: string): Date | null };
}
