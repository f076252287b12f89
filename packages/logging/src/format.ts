import type winston from 'winston';

import { type SerializedError, toPlain } from './serialize.js';

type TransformableInfo = winston.Logform.TransformableInfo;

/** Fields every line starts with, in this order; the rest follow as given. */
const LEADING = ['timestamp', 'level', 'service', 'message'] as const;

function rest(info: TransformableInfo): [string, unknown][] {
  return Object.entries(info).filter(([key, value]) => !(LEADING as readonly string[]).includes(key) && value !== undefined);
}

/** One JSON object: timestamp, level, service, message, then the metadata fields. */
export function jsonLine(info: TransformableInfo): string {
  const out: Record<string, unknown> = {};
  for (const key of LEADING) out[key] = toPlain(info[key]);
  for (const [key, value] of rest(info)) out[key] = toPlain(value);
  return JSON.stringify(out);
}

/**
 * `TIMESTAMP LEVEL [service] message key=value ...`. The entry itself stays on
 * one line so that grep finds it whole; only error stacks follow, indented,
 * because a stack squeezed into one line cannot be read.
 */
export function textLine(info: TransformableInfo): string {
  const stacks: string[] = [];
  const pairs = rest(info).map(([key, value]) => {
    const plain = toPlain(value);
    if (isSerializedError(plain)) {
      stacks.push(errorBlock(plain));
      const { name, message, ...fields } = plain;
      delete fields.stack;
      delete fields.cause;
      return [`${key}=${quote(`${name}: ${message}`)}`, ...Object.entries(fields).map(([field, v]) => `${key}.${field}=${render(v)}`)].join(' ');
    }
    if (key === 'stack' && typeof plain === 'string') {
      stacks.push(plain);
      return undefined;
    }
    return `${key}=${render(plain)}`;
  });
  const message: unknown = info.message ?? '';
  const head = `${String(info.timestamp)} ${info.level.toUpperCase().padEnd(5)} [${String(info.service)}] ${oneLine(String(message))}`;
  const line = [head, ...pairs.filter((p): p is string => p !== undefined)].join(' ');
  return [line, ...stacks.map((s) => s.replace(/^/gm, '    '))].join('\n');
}

function isSerializedError(value: unknown): value is SerializedError {
  return typeof value === 'object' && value !== null && 'name' in value && 'message' in value && 'stack' in value;
}

/** The stack, then each cause's, as Java and Node print them. */
function errorBlock(err: SerializedError): string {
  const head = err.stack ?? `${err.name}: ${err.message}`;
  if (err.cause === undefined) return head;
  const cause = isSerializedError(err.cause) ? errorBlock(err.cause) : render(err.cause);
  return `${head}\nCaused by: ${cause}`;
}

function render(value: unknown): string {
  if (typeof value === 'string') return quote(value);
  if (value === null || typeof value !== 'object') return String(value);
  return JSON.stringify(value);
}

/** Bare when unambiguous, JSON-quoted when it has spaces, quotes, `=` or nothing at all. */
function quote(text: string): string {
  return /^[^\s"=]+$/.test(text) ? text : JSON.stringify(text);
}

function oneLine(text: string): string {
  return text.replace(/\r?\n/g, '\\n');
}
