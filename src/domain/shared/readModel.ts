// What the read model (src/readmodel/) holds: plain records, each loaded in one statement
// (readmodel/loaders.ts), never mutated after they are built (a change replaces them). They are domain
// types — the domain reads them and the read model fills them — so they live here, and the read model
// imports the domain, never the other way round.

/** How many child ids an organization record (and its answers' deprecated `childIds`) holds at most. */
export const CHILD_IDS_LIMIT = 100;

export interface OrganizationRecord {
  id: string;
  name: string;
  timezone: string;
  isAccount: boolean;
  communicationsEnabled: boolean;
  /** When it was archived (organizations/archive.ts); null while active. */
  archivedAt: Date | null;
  parentId: string | null;
  /** How many active (not archived) child organizations it has. */
  childCount: number;
  /** How many archived ones. */
  archivedChildCount: number;
  /** Its first CHILD_IDS_LIMIT active children, oldest first (all of them are paged: organizations.ts listChildren). */
  firstChildIds: string[];
  createdAt: Date;
  updatedAt: Date;
}

export interface ApiKeyRecord {
  id: string;
  orgId: string;
  /** The key's name (the event log records who changed what). */
  name: string;
  /** The SHA-256 the key was found by (compared again in constant time). */
  hash: string;
  revoked: boolean;
  /** A restricted key's scopes; null for a full key (every scope). */
  scopes: string[] | null;
  /** After this instant (ms) the key answers 401; null = never. */
  expiresAtMs: number | null;
}

export interface OAuthClientRecord {
  id: string;
  clientId: string;
  name: string;
  orgId: string;
  scopes: string[];
  revoked: boolean;
  /** The `jti`s of its access tokens revoked before they expire (POST /oauth/revoke), those not expired yet. */
  revokedTokens: readonly string[];
}

/** A verified access token's claims, kept until the token expires (the signature check is the costly part). */
export interface VerifiedToken {
  clientId: string;
  orgId: string;
  scopes: string[];
  expiresAtMs: number;
  /** The token's own id (RFC 9068), by which it is revoked; null for a token issued before tokens had one. */
  jti: string | null;
}

/**
 * What the domain reads from the read model (readmodel/readModel.ts implements it; AppDeps holds the whole
 * ReadModel): the domain names the reads it needs instead of importing the read model, which imports the
 * domain's rules to compile schedules. A context that needs more of it names that too (schedule/deps.ts).
 */
export interface ReadModelReads {
  organization(id: string): Promise<OrganizationRecord | undefined>;
  organizations(ids: readonly string[]): Promise<(OrganizationRecord | undefined)[]>;
}
