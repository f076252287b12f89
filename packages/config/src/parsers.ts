// Small value parsers shared by parseConfig. Each returns the typed value or
// throws an Error whose message tells the operator what to write instead; the
// variable name and the offending value are added by the caller.
import net from 'node:net';

import { type ByteSizeError, parseByteSize } from './byte-size.js';
import { formatDuration, parseDuration } from '@svc/timing';
import { validateDetailed } from 'node-cron';

export function port(text: string): number {
  if (!/^\d{1,5}$/.test(text) || Number(text) > 65535) throw new Error('must be a port number from 0 to 65535');
  return Number(text);
}

/**
 * A schedule for an in-process node-cron job: 5 fields, or 6 with seconds
 * first. Checked with node-cron itself, which runs it, so what starts is what
 * fires (flow triggers take @svc/timing's 5-field cron instead).
 */
export function cronSchedule(text: string): string {
  const { valid, errors } = validateDetailed(text);
  if (!valid) {
    const why = errors.map((e) => (e.field === 'expression' ? e.message : `${e.field}: ${e.message}`)).join('; ');
    throw new Error(`must be a cron expression of 5 fields, or 6 with seconds first, such as "0 * * * *" or "*/30 * * * * *" (${why})`);
  }
  return text;
}

export function positiveInteger(text: string): number {
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(Number(text)) || Number(text) === 0) {
    throw new Error('must be a whole number of 1 or more');
  }
  return Number(text);
}

/** A whole number from 1 to `max` (a count cap). */
export function countUpTo(max: number): (text: string) => number {
  return (text) => {
    const n = /^\d+$/.test(text) ? Number(text) : NaN;
    if (!(n >= 1 && n <= max)) throw new Error(`must be a whole number from 1 to ${max}`);
    return n;
  };
}

/** A whole number of milliseconds from `min` to `max` (the `SVC_*_MS` knobs). */
export function milliseconds(min: number, max: number): (text: string) => number {
  return (text) => {
    const n = /^\d+$/.test(text) ? Number(text) : NaN;
    if (!(n >= min && n <= max)) throw new Error(`must be a whole number of milliseconds from ${min} to ${max}`);
    return n;
  };
}

export function positiveNumber(text: string): number {
  const n = /^(\d+(\.\d*)?|\.\d+)$/.test(text) ? Number(text) : NaN;
  if (!(n > 0) || !Number.isFinite(n)) throw new Error('must be a number greater than 0');
  return n;
}

export function positiveDuration(text: string): number {
  let ms: number;
  try {
    ms = parseDuration(text);
  } catch {
    throw new Error('must be a duration such as 30s, 10m, 1h30m or 300ms (units ns, us, ms, s, m, h)');
  }
  if (ms <= 0) throw new Error('must be longer than 0');
  return ms;
}

/** A duration from 0 (`0s`) to `max` milliseconds. */
export function durationUpTo(max: number): (text: string) => number {
  return (text) => {
    let ms: number;
    try {
      ms = parseDuration(text);
    } catch {
      throw new Error('must be a duration such as 0s, 30s, 10m or 1h (units ns, us, ms, s, m, h)');
    }
    if (ms > max) throw new Error(`must be at most ${formatDuration(max)}`);
    return ms;
  };
}

/** A duration from `min` to `max` milliseconds, e.g. the HTTP server timeouts. */
export function durationBetween(min: number, max: number): (text: string) => number {
  return (text) => {
    const ms = positiveDuration(text);
    if (ms < min || ms > max) throw new Error(`must be from ${formatDuration(min)} to ${formatDuration(max)}`);
    return ms;
  };
}

export function positiveByteSize(text: string): number {
  let bytes: number;
  try {
    bytes = parseByteSize(text);
  } catch (err) {
    const reason = (err as ByteSizeError).reason;
    throw new Error(`must be a byte size such as 10MiB, 500KB or 1048576${reason ? `: ${reason}` : ''}`);
  }
  if (bytes <= 0) throw new Error('must be more than 0 bytes');
  return bytes;
}

export function oneOf<const T extends string>(allowed: readonly T[]): (text: string) => T {
  return (text) => {
    if (!(allowed as readonly string[]).includes(text)) throw new Error(`must be one of ${allowed.join(', ')}`);
    return text as T;
  };
}

const HOST_LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const HOSTNAME = new RegExp(`^${HOST_LABEL}(?:\\.${HOST_LABEL})*$`);

export function host(text: string): string {
  if (net.isIP(text) === 0 && (!HOSTNAME.test(text) || text.length > 253)) {
    throw new Error('must be an IP address or a host name');
  }
  return text;
}

/** Parses a URL whose scheme is one of `schemes` (with the colon, e.g. `https:`) and which names a host. */
export function url(text: string, schemes: readonly string[]): URL {
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch {
    throw new Error(`must be a URL starting with ${schemes.map((s) => `${s}//`).join(' or ')}`);
  }
  if (!schemes.includes(parsed.protocol)) {
    throw new Error(`must start with ${schemes.map((s) => `${s}//`).join(' or ')}`);
  }
  if (!parsed.hostname) throw new Error('must name a host');
  return parsed;
}

/** An http(s) base URL without query, fragment, credentials or trailing slash. */
export function baseUrl(text: string): string {
  const parsed = url(text, ['http:', 'https:']);
  if (parsed.search || parsed.hash) throw new Error('must not have a query or fragment');
  if (parsed.username || parsed.password) throw new Error('must not contain credentials');
  return parsed.href.replace(/\/+$/, '');
}

export function noWhitespace(what: string): (text: string) => string {
  return (text) => {
    if (/\s/.test(text)) throw new Error(`must be ${what} without spaces`);
    return text;
  };
}

/** Splits a comma-separated list, trimming entries; empty entries and repeats are errors. */
export function list(text: string, each: (item: string) => void): string[] {
  const items = text.split(',').map((s) => s.trim());
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const item of items) {
    if (item === '') {
      problems.push('has an empty entry');
      continue;
    }
    if (seen.has(item)) {
      problems.push(`lists "${item}" twice`);
      continue;
    }
    seen.add(item);
    try {
      each(item);
    } catch (err) {
      problems.push(`"${item}" ${(err as Error).message}`);
    }
  }
  if (problems.length > 0) throw new Error([...new Set(problems)].join('; '));
  return items;
}

/** Replaces the password of any `scheme://user:password@` inside a value, even a malformed one. */
export function redactUrlPassword(text: string): string {
  return text.replace(/(\/\/[^\s/:@]*:)[^\s@]*@/g, '$1***@');
}
