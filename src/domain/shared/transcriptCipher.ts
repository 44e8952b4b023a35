// What the domain needs to keep transcript text sealed at rest (issue 36 §5): implemented by the governance
// context's keyring (domain/governance/transcriptKeys.ts), named here so that every context's deps can carry it
// without importing governance.
import type { SqlRunner } from '../../db/sql.js';

/** A message's text as stored: sealed (with the version of its organization's data key) or, before sealing existed, clear. */
export interface StoredText {
  text: string;
  keyVersion: number | null;
}

/**
 * Which of a message's texts is sealed: what is shown (`text`, redacted) or the words as said (`original`, kept when
 * the organization's redaction policy says so). Each is bound to its part: an original copied into `text` does not open.
 */
export type SealedPart = 'text' | 'original';

export interface TranscriptCipher {
  /** `text` sealed with the organization's data key (made on its first use), bound to the message and part it belongs to. */
  seal(db: SqlRunner, orgId: string, messageId: string, text: string, part?: SealedPart): Promise<{ text: string; keyVersion: number }>;
  /** The text of a stored message (clear text written before sealing is answered as it is). */
  open(db: SqlRunner, orgId: string, messageId: string, stored: StoredText, part?: SealedPart): Promise<string>;
  /** Re-wraps every data key not wrapped by the current master key (after a rotation); answers how many. */
  rewrapDataKeys(db: SqlRunner): Promise<number>;
}
