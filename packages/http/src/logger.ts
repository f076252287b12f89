/** Structured fields of a log line. */
export type LogFields = Record<string, unknown>;

/**
 * The logger this package writes to. A winston logger (what `@svc/logging`
 * builds) fits as is: `log.info(message, fields)`.
 */
export interface HttpLogger {
  debug(message: string, fields?: LogFields): unknown;
  info(message: string, fields?: LogFields): unknown;
  warn(message: string, fields?: LogFields): unknown;
  error(message: string, fields?: LogFields): unknown;
}

/** A logger that adds `fields` to every line (used to stamp `request_id` on handler logs). */
export function withFields(log: HttpLogger, fields: LogFields): HttpLogger {
  return {
    debug: (m, f) => log.debug(m, { ...fields, ...f }),
    info: (m, f) => log.info(m, { ...fields, ...f }),
    warn: (m, f) => log.warn(m, { ...fields, ...f }),
    error: (m, f) => log.error(m, { ...fields, ...f }),
  };
}
