// Structured JSON logs on stdout, one object per line. Never pass a secret in `fields`.
// A line written while a request is answered carries its `requestId`: the request's deps hold a
// logger made by loggerForRequest (requestContext.ts).

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

export function createLogger(level: LogLevel, write: (line: string) => void = (l) => process.stdout.write(l + '\n')): Logger {
  const emit = (at: Exclude<LogLevel, 'silent'>, msg: string, fields?: Record<string, unknown>) => {
    if (ORDER[at] < ORDER[level]) return;
    write(JSON.stringify({ level: at, time: new Date().toISOString(), msg, ...fields }));
  };
  const logger: Logger = {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
  };
  levels.set(logger, level);
  return logger;
}

/** The level of each logger createLogger made: a request's logger skips building a line its logger would not write. */
const levels = new WeakMap<Logger, LogLevel>();

/** Whether `logger` writes lines of `at` (true for a logger not made by createLogger: it decides itself). */
function writes(logger: Logger, at: Exclude<LogLevel, 'silent'>): boolean {
  const level = levels.get(logger);
  return level === undefined || ORDER[at] >= ORDER[level];
}

/** `logger` with the request's id on every line it writes. */
export function loggerForRequest(logger: Logger, requestId: string): Logger {
  return new RequestLogger(logger, requestId);
}

// One object per request, its methods shared (every request makes one: four closures each would cost more).
// Fields declared, not defined: a defined class field costs every construction a property definition.
class RequestLogger implements Logger {
  declare private readonly logger: Logger;
  declare private readonly requestId: string;
  constructor(logger: Logger, requestId: string) {
    this.logger = logger;
    this.requestId = requestId;
  }
  debug(m: string, f?: Record<string, unknown>): void {
    if (writes(this.logger, 'debug')) this.logger.debug(m, { requestId: this.requestId, ...f });
  }
  info(m: string, f?: Record<string, unknown>): void {
    if (writes(this.logger, 'info')) this.logger.info(m, { requestId: this.requestId, ...f });
  }
  warn(m: string, f?: Record<string, unknown>): void {
    if (writes(this.logger, 'warn')) this.logger.warn(m, { requestId: this.requestId, ...f });
  }
  error(m: string, f?: Record<string, unknown>): void {
    if (writes(this.logger, 'error')) this.logger.error(m, { requestId: this.requestId, ...f });
  }
}

export function errorFields(err: unknown): Record<string, unknown> {
  return err instanceof Error ? { error: err.message, stack: err.stack } : { error: String(err) };
}
