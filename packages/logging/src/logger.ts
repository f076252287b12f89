import { Writable } from 'node:stream';

import winston from 'winston';

import { assertNever } from '@svc/assert';

import { jsonLine, textLine } from './format.js';
import { activeLogFields, activeTraceId } from './trace.js';

/** The logger every package receives in its dependency bag. */
export type Logger = winston.Logger;

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogFormat = 'json' | 'text';

export interface CreateLoggerOptions {
  /** Name of the app or package, written as `service` on every line. */
  service: string;
  /** Lowest level written; default `info`. */
  level?: LogLevel;
  /** `json` (one object per line) or `text` (one readable line); default `json`. */
  format?: LogFormat;
  /** Destination; default `process.stdout`. */
  stream?: NodeJS.WritableStream;
  /** Written as `instance_id` on every line when given; default none. */
  instanceId?: string;
  /** Clock for `timestamp`; default `() => new Date()`. Tests inject a fixed one. */
  now?: () => Date;
}

/**
 * A winston logger writing one line per entry. Metadata passed as the last
 * argument (`log.info('done', { request_id })`) or bound with
 * `log.child({ request_id })` becomes fields of the line; Error values anywhere
 * in it are written with their name, message, stack, cause and own fields.
 */
export function createLogger(opts: CreateLoggerOptions): Logger {
  const now = opts.now ?? (() => new Date());
  const format = opts.format ?? 'json';
  const line = (() => {
    switch (format) {
      case 'json':
        return jsonLine;
      case 'text':
        return textLine;
      default:
        return assertNever(format, 'log format');
    }
  })();
  return winston.createLogger({
    level: opts.level ?? 'info',
    // winston's npm levels, so that debug, info, warn and error all exist and are ordered.
    levels: winston.config.npm.levels,
    defaultMeta: { service: opts.service, ...(opts.instanceId === undefined ? {} : { instance_id: opts.instanceId }) },
    format: winston.format.combine(
      // `log.error(err)` with no message: take the message (and stack) from the error.
      winston.format.errors({ stack: true }),
      winston.format.timestamp({ format: () => now().toISOString() }),
      // With tracing on (trace.ts), a line written inside a span carries its trace id;
      // one written for an execution or a task run (withLogFields) carries their ids.
      traceIdField(),
      workFieldsFormat(),
      winston.format.printf(line),
    ),
    transports: [new winston.transports.Stream({ stream: opts.stream ?? process.stdout })],
  });
}

// The fields of the work in hand belong together: a line that names other work
// of its own (another task_run_id, written by code shared between runs, such as
// a batch of log lines flushed for several) gets none of them.
const workFieldsFormat = winston.format((info) => {
  const fields = activeLogFields();
  if (!fields) return info;
  for (const k in fields) if (info[k] !== undefined && info[k] !== fields[k]) return info;
  for (const k in fields) if (info[k] === undefined) info[k] = fields[k];
  return info;
});

const traceIdField = winston.format((info) => {
  const id = activeTraceId();
  if (id !== undefined && info.trace_id === undefined) info.trace_id = id;
  return info;
});

/** A logger for tests that keeps its JSON lines in memory. */
export interface TestLogger {
  logger: Logger;
  /** Every line written so far, parsed. */
  lines(): Record<string, unknown>[];
  /** Forgets the lines written so far. */
  clear(): void;
}

export interface CreateTestLoggerOptions {
  /** Default `test`. */
  service?: string;
  /** Default `debug`, so that tests see everything. */
  level?: LogLevel;
  /** Default `() => new Date()`. */
  now?: () => Date;
}

/**
 * A JSON logger writing into memory. Writes are delivered synchronously, so a
 * test can read `lines()` right after the code under test has logged.
 */
export function createTestLogger(opts: CreateTestLoggerOptions = {}): TestLogger {
  let captured: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      captured.push(
        ...String(chunk)
          .split('\n')
          .filter((l) => l !== ''),
      );
      callback();
    },
  });
  const logger = createLogger({
    service: opts.service ?? 'test',
    level: opts.level ?? 'debug',
    format: 'json',
    stream,
    ...(opts.now ? { now: opts.now } : {}),
  });
  return {
    logger,
    lines: () => captured.map((l) => JSON.parse(l) as Record<string, unknown>),
    clear: () => {
      captured = [];
    },
  };
}
