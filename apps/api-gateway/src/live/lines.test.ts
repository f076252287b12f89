import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BadPositionError, decodePosition, downloadLine, nsToRfc3339, rfc3339Formatter, type LogRow } from './lines.js';

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

test('a read position is the seq of a line: int8 decimal text, anything else was never sent by the server', () => {
  assert.equal(decodePosition('0'), '0');
  assert.equal(decodePosition('42'), '42');
  assert.equal(decodePosition('007'), '7');
  assert.equal(decodePosition('9223372036854775807'), '9223372036854775807');
  // Past int8, negative, old per-task-run positions, text: the database would refuse them, so the server does first.
  for (const bad of ['9223372036854775808', '99999999999999999999', '-1', '1.5', 'not a position!', '', Buffer.from('01ka:3,01kb:7').toString('base64url'), ' 1']) {
    assert.throws(() => decodePosition(bad), BadPositionError, bad);
  }
});
