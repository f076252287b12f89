import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BadPositionError, decodePositions, downloadLine, encodePositions, mergeRuns, nsToRfc3339, PositionTracker, rfc3339Formatter, type LogRow } from './lines.js';

test('nanosecond stamps become RFC 3339 with nine fraction digits', () => {
  assert.equal(nsToRfc3339('1767225600123456789'), '2026-01-01T00:00:00.123456789Z');
  assert.equal(nsToRfc3339(1767225600000000001n), '2026-01-01T00:00:00.000000001Z');
  assert.equal(nsToRfc3339('0'), '1970-01-01T00:00:00.000000000Z');
  assert.equal(nsToRfc3339('-1'), '1969-12-31T23:59:59.999999999Z');
  assert.equal(nsToRfc3339('999999999999999999'), '2001-09-09T01:46:39.999999999Z');
});

test('a formatter that reuses the date part of the last second stays exact across seconds', () => {
  const fmt = rfc3339Formatter();
  const stamps = ['1767225600000000001', '1767225600999999999', '1767225601000000000', '1767225600500000000', '4102444800000000000', '1767225601000000007'];
  for (const s of stamps) assert.equal(fmt(s), nsToRfc3339(BigInt(s)), s);
  assert.equal(fmt('1767225601000000007'), '2026-01-01T00:00:01.000000007Z');
});

test('a download line names the task, attempt and stream', () => {
  const r: LogRow = { task_run_id: 'a', n: 1, task_key: 'build', attempt: 2, ts: '1767225600123456789', stream: 'stderr', text: 'oops' };
  assert.equal(downloadLine(r), '2026-01-01T00:00:00.123456789Z [build#2 stderr] oops\n');
});

test('positions round-trip and reject what the server never sent', () => {
  const p = new Map([['01kb', 7], ['01ka', 3]]);
  const enc = encodePositions(p);
  assert.match(enc, /^[A-Za-z0-9_-]+$/);
  assert.equal(Buffer.from(enc, 'base64url').toString(), '01ka:3,01kb:7');
  assert.deepEqual([...decodePositions(enc)].sort(), [['01ka', 3], ['01kb', 7]]);
  assert.deepEqual([...decodePositions('')], []);
  for (const bad of ['not base64!', Buffer.from('x:1,x:2').toString('base64url'), Buffer.from('x:-1').toString('base64url'), Buffer.from('x').toString('base64url'), Buffer.from(':3').toString('base64url'), Buffer.from('a b:1').toString('base64url')]) {
    assert.throws(() => decodePositions(bad), BadPositionError, bad);
  }
});

test('the tracker encodes the position after each line', () => {
  const t = new PositionTracker(new Map([['b', 2]]));
  assert.equal(Buffer.from(t.advance('b', 3), 'base64url').toString(), 'b:3');
  assert.equal(Buffer.from(t.advance('a', 1), 'base64url').toString(), 'a:1,b:3');
  assert.equal(Buffer.from(t.advance('c', 9), 'base64url').toString(), 'a:1,b:3,c:9');
  assert.deepEqual([...t.positions()], [['a', 1], ['b', 3], ['c', 9]]);
});

const row = (task_run_id: string, n: number, ts: number): LogRow => ({ task_run_id, n, ts: String(ts), task_key: task_run_id, attempt: 1, stream: 'stdout', text: `${task_run_id}${n}` });
const keys = (rows: LogRow[]) => rows.map((r) => r.text);

test('the merge orders by (ts, task run, n) and keeps each run in n order', () => {
  const m = mergeRuns([
    { taskRunId: 'a', rows: [row('a', 1, 10), row('a', 2, 30), row('a', 3, 20)], full: false },
    { taskRunId: 'b', rows: [row('b', 1, 10), row('b', 2, 25)], full: false },
  ]);
  assert.equal(m.complete, true);
  // a3 has an earlier stamp than a2 but n decides within a run.
  assert.deepEqual(keys(m.lines), ['a1', 'b1', 'b2', 'a2', 'a3']);
});

test('the merge stops where a full run runs dry', () => {
  const m = mergeRuns([
    { taskRunId: 'a', rows: [row('a', 1, 10), row('a', 2, 20)], full: true },
    { taskRunId: 'b', rows: [row('b', 1, 15), row('b', 2, 40)], full: false },
  ]);
  assert.equal(m.complete, false);
  assert.deepEqual(keys(m.lines), ['a1', 'b1', 'a2']);
  const empty = mergeRuns([{ taskRunId: 'a', rows: [], full: false }]);
  assert.deepEqual(empty, { lines: [], complete: true });
});
