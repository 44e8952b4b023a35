// Picks the channel notices travel on (the wake-ups that make other instances read the event log now):
// Redis pub/sub when REDIS_URL is set (the deployment already has it for rate limits, and it needs no
// session-bound connection to the database), PostgreSQL LISTEN/NOTIFY when the database is a server, and
// nothing when the database is embedded (one process).
import type { Logger } from '../logger.js';
import { ChangeFeed } from './feed.js';
import { PostgresTransport } from './postgresTransport.js';
import { RedisTransport } from './redisTransport.js';
import { type ChangeTransport, LocalTransport } from './transport.js';

export interface ChangeChannelConfig {
  redisUrl: string | undefined;
  databaseUrl: string;
  /** Channel name: a Redis channel, or a PostgreSQL NOTIFY channel (letters, digits, underscores). */
  changesChannel: string;
}

export function changeTransportFor(config: ChangeChannelConfig): ChangeTransport {
  if (config.redisUrl) return new RedisTransport(config.redisUrl, config.changesChannel);
  if (/^postgres(ql)?:\/\//.test(config.databaseUrl)) return new PostgresTransport(config.databaseUrl, config.changesChannel);
  return new LocalTransport();
}

export function createChangeFeed(config: ChangeChannelConfig, logger: Logger): ChangeFeed {
  return new ChangeFeed(changeTransportFor(config), logger);
}
