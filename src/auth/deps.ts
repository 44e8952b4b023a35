// What authentication and the token endpoint use of the app's deps (src/deps.ts's AppDeps holds every
// folder's): the domain's database and clock, the read model whose credentials and verified tokens it reads,
// the token settings, and the per-address budget of failed attempts.
import type { DomainDeps } from '../domain/shared/deps.js';
import type { RateLimitDeps } from '../ratelimit/deps.js';
import type { ReadModel } from '../readmodel/readModel.js';
import type { TokenSettings } from './tokens.js';

export interface AuthDeps extends Pick<DomainDeps, 'db' | 'clock' | 'keyUsage' | 'requestId' | 'clientAddress'>, RateLimitDeps {
  /** The whole read model (the domain sees only the reads it names, domain/shared/readModel.ts). */
  readModel: ReadModel;
  /** The key tokens are signed and verified with, their issuer and audience (tokens.ts). */
  tokens: TokenSettings;
}
