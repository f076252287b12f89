// Paging a list operation to its end, and the row times that catch a cursor
// which keeps less than the column does (timestamptz(6): microseconds).
import assert from 'node:assert/strict';
import type { TestGateway } from './helpers.js';

/**
 * Times within one millisecond (…07.123), none on the millisecond itself,
 * each shared exactly by every third row (as rows written in one transaction
 * share its now()): a cursor cut to the millisecond skips the rows after the
 * cut, so a page after the first returns too few.
 */
export function sameMillisecond(k: number): string {
  return `2026-03-04T05:06:07.123${['100', '400', '700'][k % 3]}Z`;
}

/** An old cursor (its time a Date's ISO text, to the millisecond) of a list newest first by (created_at, id). */
function millisecondCursor(createdAt: string, id: string): string {
  return Buffer.from(JSON.stringify({ created_at: new Date(createdAt).toISOString(), id }), 'utf8').toString('base64url');
}

/** The ids of every item of the list at `path` as served, `limit` a page, following `next_cursor` to the end. */
export async function pageIds(gw: TestGateway, token: string, path: string, limit: number): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 100; pages++) {
    const sep = path.includes('?') ? '&' : '?';
    const r = await fetch(`${gw.url}${path}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { headers: { authorization: `Bearer ${token}` } });
    const text = await r.text();
    assert.equal(r.status, 200, text);
    const page = JSON.parse(text) as { items: { id: string }[]; next_cursor?: string };
    assert.ok(page.items.length <= limit, `at most ${limit} a page`);
    ids.push(...page.items.map((i) => i.id));
    cursor = page.next_cursor;
    if (!cursor) return ids;
  }
  assert.fail(`${path}: still a next_cursor after 100 pages`);
}

/**
 * The list at `path` serves `expected` (the database's order), every row once
 * and in order, paged by 5 and by 1; and a cursor made before (milliseconds,
 * later than every row) still reads as a time.
 */
export async function assertPagesEveryRow(gw: TestGateway, token: string, path: string, expected: string[]): Promise<void> {
  assert.deepEqual(await pageIds(gw, token, path, 5), expected);
  assert.deepEqual(await pageIds(gw, token, path, 1), expected);
  const r = await fetch(`${gw.url}${path}?limit=100&cursor=${millisecondCursor('2026-03-04T05:06:07.124Z', '')}`, { headers: { authorization: `Bearer ${token}` } });
  const text = await r.text();
  assert.equal(r.status, 200, text);
  assert.deepEqual(
    (JSON.parse(text) as { items: { id: string }[] }).items.map((i) => i.id),
    expected,
  );
}
