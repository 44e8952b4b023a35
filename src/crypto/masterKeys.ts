// The master keys that wrap organizations' transcript data keys (domain/governance/transcriptKeys.ts).
// TRANSCRIPT_MASTER_KEYS lists them (config.ts parses it): the first wraps new and re-wrapped data keys, the others
// only unwrap (the keys of a rotation in progress). Without the setting, one master key is derived from the signing
// key (auth/signingKey.ts): with JWT_PRIVATE_KEY configured a database dump then holds nothing that opens a
// transcript; with the signing key kept in the database (the embedded demo's default) a dump holds both, which
// docs/operating.md says.
import { type MasterKey, SIGNING_KEY_MASTER_ID } from '../config.js';
import { derivedKey, type KeyMaterial } from './derivedKeys.js';

/**
 * The master keys in force: the configured ones (the first current), then the one derived from the signing key,
 * which only unwraps once keys are configured (so that data keys wrapped before them can be re-wrapped).
 */
export function masterKeys(configured: readonly MasterKey[], signing: KeyMaterial): MasterKey[] {
  return [...configured, { id: SIGNING_KEY_MASTER_ID, key: derivedKey(signing, 'transcript master key v1') }];
}
