// What the app is built from. Tests build their own (an in-memory database, a fake clock), so nothing
// here is a global.
import type { Config } from './config.js';
import type { Db } from './db/client.js';
import type { TokenSettings } from './auth/tokens.js';
import type { Logger } from './logger.js';

export interface AppDeps {
  config: Config;
  db: Db;
  tokens: TokenSettings;
  logger: Logger;
  /** The time; tests replace it to move through windows and across daylight-saving changes. */
  clock: () => Date;
}
