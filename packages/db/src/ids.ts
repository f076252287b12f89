import crypto from 'node:crypto';
import { monotonicFactory } from 'ulid';

// ulid's own source of randomness asks the operating system for one byte per
// character (16 calls per id); this one draws the same cryptographic bytes
// from a pool refilled 4 KiB at a time. A byte / 256 is uniform over ulid's
// 32 characters (256 is a multiple of 32).
const pool = Buffer.alloc(4096);
let at = pool.length;
function randomUnit(): number {
  if (at === pool.length) {
    crypto.randomFillSync(pool);
    at = 0;
  }
  return pool[at++] / 256;
}

const next = monotonicFactory(randomUnit);

/**
 * A new opaque, time-sortable identifier (a ULID in lower case). IDs sort by
 * creation time, which keeps cursor paging and "newest first" lists cheap.
 */
export function newId(): string {
  return next().toLowerCase();
}
