import { randomBytes } from 'node:crypto';
import type { RequestHandler } from 'express';

export const REQUEST_ID_HEADER = 'X-Request-Id';

/** Accepted form of an incoming ID; anything else (log injection, huge values) is replaced. */
export const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * A ULID-shaped ID: 48 bits of milliseconds then 80 random bits, in Crockford
 * base32 (26 chars). Sorting IDs sorts requests by time, which helps when
 * reading logs of several instances together.
 */
export function newRequestId(now: number = Date.now()): string {
  let time = '';
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  const bytes = randomBytes(16);
  let rand = '';
  for (let i = 0; i < 16; i++) rand += CROCKFORD[bytes[i] % 32];
  return time + rand;
}

/**
 * Sets `res.locals.requestId` and the `X-Request-Id` response header before
 * anything else runs, so every response (errors and 404s included) carries it.
 */
export function requestId(opts: { generate?: () => string } = {}): RequestHandler {
  const generate = opts.generate ?? (() => newRequestId());
  return (req, res, next) => {
    const incoming = req.get(REQUEST_ID_HEADER);
    const id = incoming !== undefined && REQUEST_ID_PATTERN.test(incoming) ? incoming : generate();
    res.locals.requestId = id;
    res.setHeader(REQUEST_ID_HEADER, id);
    next();
  };
}
