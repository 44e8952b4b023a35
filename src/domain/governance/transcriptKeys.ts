// Transcript text sealed at rest (issue 36 §5, docs/decisions.md "Transcripts at rest"). Every message's text is
// encrypted (AES-256-GCM) with its organization's data key, bound to the message (its organization and id are the
// cipher's additional data, so a sealed text moved to another row does not open). Data keys are random, made on an
// organization's first message, and stored wrapped (AES-256-GCM) by a master key (crypto/masterKeys.ts); rotating
// the master key re-wraps the data keys (TranscriptKeyring.rewrapDataKeys) and leaves every message as it is.
//
// Unwrapped data keys are kept in memory by (organization, version): a data key's bytes never change (a re-wrap
// changes only how it is stored), so what is kept is never stale.
import { randomBytes } from 'node:crypto';
import { openAesGcm, sealAesGcm } from '../../crypto/aesGcm.js';
import type { SqlRunner } from '../../db/sql.js';
import type { MasterKey } from '../../config.js';
import type { SealedPart, StoredText, TranscriptCipher } from '../shared/transcriptCipher.js';
import { redactTranscript } from './redaction.js';
import {
  clearTranscriptMessages,
  insertTranscriptDataKey,
  rewrapTranscriptDataKey,
  storeSealedMessage,
  transcriptDataKeyRow,
  transcriptDataKeysNotWrappedBy,
  type TranscriptDataKeyRow,
} from './sql.js';

/** The version of the data key new messages are sealed with (a data key's own rotation would add one). */
const DATA_KEY_VERSION = 1;
/** Unwrapped data keys kept in memory (32 bytes each); past it the oldest kept is dropped. */
const KEPT_DATA_KEYS = 10_000;
/** Rows a re-wrap or a sealing of clear messages reads at a time. */
const BATCH = 500;

const wrappingAad = (orgId: string, version: number) => `transcript data key|${orgId}|${version}`;
const messageAad = (orgId: string, messageId: string, part: SealedPart) =>
  part === 'text' ? `transcript message|${orgId}|${messageId}` : `transcript message ${part}|${orgId}|${messageId}`;

export class TranscriptKeyring implements TranscriptCipher {
  private readonly kept = new Map<string, Uint8Array>();

  /** `masters`: the first wraps, every one unwraps (crypto/masterKeys.ts). */
  constructor(readonly masters: readonly MasterKey[]) {
    if (masters.length === 0) throw new Error('a transcript keyring needs a master key');
  }

  get current(): MasterKey {
    return this.masters[0]!;
  }

  /** The master key of `id`; throws when the configuration does not list it. */
  masterKey(id: string): MasterKey {
    const master = this.masters.find((m) => m.id === id);
    if (!master)
      throw new Error(
        `a transcript data key is wrapped by the master key '${id}', which TRANSCRIPT_MASTER_KEYS does not list (docs/operating.md "Transcript keys")`,
      );
    return master;
  }

  /** A data key as stored: wrapped by the current master key, bound to its organization and version. */
  private wrap(orgId: string, version: number, key: Uint8Array): string {
    return sealAesGcm(this.current.key, key, wrappingAad(orgId, version));
  }

  private unwrap(row: TranscriptDataKeyRow): Uint8Array {
    return new Uint8Array(openAesGcm(this.masterKey(row.masterKeyId).key, row.wrapped, wrappingAad(row.orgId, row.version)));
  }

  private keep(cacheKey: string, key: Uint8Array): Uint8Array {
    if (this.kept.size >= KEPT_DATA_KEYS) this.kept.delete(this.kept.keys().next().value!);
    this.kept.set(cacheKey, key);
    return key;
  }

  /** The organization's data key of `version`; made (and stored wrapped) on first use when `make`. */
  private async dataKey(db: SqlRunner, orgId: string, version: number, make: boolean): Promise<Uint8Array> {
    const cacheKey = `${orgId}|${version}`;
    const kept = this.kept.get(cacheKey);
    if (kept) return kept;
    const row = await transcriptDataKeyRow(db, orgId, version);
    if (row) return this.keep(cacheKey, this.unwrap(row));
    if (!make) throw new Error(`organization ${orgId} has no transcript data key of version ${version}`);
    const fresh = new Uint8Array(randomBytes(32));
    const made = {
      orgId,
      version,
      masterKeyId: this.current.id,
      wrapped: this.wrap(orgId, version, fresh),
    };
    // a key stored here may still be undone with the caller's transaction: it is used, not kept, and read back
    // (committed) by the next use; when another first use stored one meanwhile, that one (committed) is read
    if (await insertTranscriptDataKey(db, made)) return fresh;
    const stored = await transcriptDataKeyRow(db, orgId, version);
    if (!stored) throw new Error(`organization ${orgId} has no transcript data key of version ${version}`);
    return this.keep(cacheKey, this.unwrap(stored));
  }

  async seal(
    db: SqlRunner,
    orgId: string,
    messageId: string,
    text: string,
    part: SealedPart = 'text',
  ): Promise<{ text: string; keyVersion: number }> {
    const key = await this.dataKey(db, orgId, DATA_KEY_VERSION, true);
    return { text: sealAesGcm(key, text, messageAad(orgId, messageId, part)), keyVersion: DATA_KEY_VERSION };
  }

  async open(db: SqlRunner, orgId: string, messageId: string, stored: StoredText, part: SealedPart = 'text'): Promise<string> {
    if (stored.keyVersion === null) return stored.text;
    const key = await this.dataKey(db, orgId, stored.keyVersion, false);
    return openAesGcm(key, stored.text, messageAad(orgId, messageId, part)).toString('utf8');
  }

  /**
   * Re-wraps every data key not wrapped by the current master key (after a rotation: the new key listed first, the
   * old one after it), in batches; answers how many. Messages are not rewritten. Safe to run twice or on two
   * instances at once (a row changed since it was read is left to the one that changed it).
   */
  async rewrapDataKeys(db: SqlRunner): Promise<number> {
    let rewrapped = 0;
    for (;;) {
      const rows = await transcriptDataKeysNotWrappedBy(db, this.current.id, BATCH);
      if (rows.length === 0) return rewrapped;
      let changed = 0;
      for (const row of rows)
        if (await rewrapTranscriptDataKey(db, row, this.current.id, this.wrap(row.orgId, row.version, this.unwrap(row)))) changed++;
      rewrapped += changed;
      if (changed === 0) return rewrapped; // every row read was re-wrapped by someone else meanwhile
    }
  }
}

/**
 * Seals the messages written in clear before sealing existed, in batches, as a turn is stored today (without card
 * numbers and SSNs, redaction.ts); answers how many.
 */
export async function sealClearTranscripts(db: SqlRunner, cipher: TranscriptCipher): Promise<{ sealed: number }> {
  let sealed = 0;
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const rows = await clearTranscriptMessages(db, after, BATCH);
    if (rows.length === 0) return { sealed };
    for (const row of rows) {
      if (await storeSealedMessage(db, row.id, await cipher.seal(db, row.orgId, row.id, redactTranscript(row.text).text))) sealed++;
    }
    after = rows.at(-1)!.id;
  }
}
