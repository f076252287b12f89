import { monotonicFactory } from 'ulid';

const next = monotonicFactory();

/**
 * A new opaque, time-sortable identifier (a ULID in lower case). IDs sort by
 * creation time, which keeps cursor paging and "newest first" lists cheap.
 */
export function newId(): string {
  return next().toLowerCase();
}
