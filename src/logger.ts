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
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
  };
}

/** `logger` with the request's id on every line it writes. */
export function loggerForRequest(logger: Logger, requestId: string): Logger {
  return {
    debug: (m, f) => logger.debug(m, { requestId, ...f }),
    info: (m, f) => logger.info(m, { requestId, ...f }),
    warn: (m, f) => logger.warn(m, { requestId, ...f }),
    error: (m, f) => logger.error(m, { requestId, ...f }),
  };
}

export function errorFields(err: unknown): Record<string, unknown> {
  return err instanceof Error ? { error: err.message, stack: err.stack } : { error: String(err) };
}
