// What the transport uses of the app's deps (src/deps.ts's AppDeps holds every folder's): the configuration
// (CORS), the logger each request's own is made from, and the request's fields it sets (requestContext.ts).
import type { Config } from '../config.js';
import type { DomainDeps } from '../domain/shared/deps.js';
import type { Logger } from '../logger.js';

export interface HttpDeps extends Pick<DomainDeps, 'requestId' | 'answerMade'> {
  config: Config;
  /** The app's logger; a request's deps hold one that writes its id on every line (requestContext.ts). */
  logger: Logger;
}
