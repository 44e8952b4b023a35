// What the domain needs to keep transcript text sealed at rest (issue 36 §5): implemented by the governance
// context's keyring (domain/governance/transcriptKeys.ts), named here so that every context's deps can carry it
// without importing governance.
import type { SqlRunner } from '../../db/sql.js';

/** A message's text as stored: sealed (with the version of its organization's data key) or, before sealing existed, clear. */
export interface StoredText {
  text: string;
  keyVersion: number | null;
}

export interface TranscriptCipher {
  /** `text` sealed with the organization's data key (made on its first use), bound to the message it belongs to. */
  seal(db: SqlRunner, orgId: string, messageId: string, text: string): Promise<{ text: string; keyVersion: number }>;
  /** The text of a stored message (clear text written before sealing is answered as it is). */
  open(db: SqlRunner, orgId: string, messageId: string, stored: StoredText): Promise<string>;
  /** Re-wraps every data key not wrapped by the current master key (after a rotation); answers how many. */
  rewrapDataKeys(db: SqlRunner): Promise<number>;
}
