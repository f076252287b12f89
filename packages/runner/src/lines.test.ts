import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cutUtf8, LineSplitter, MAX_LINE_BYTES } from './lines.js';
import { Masker } from '@svc/masking';

const splitter = (values: string[] = [], extra: { maxPendingChars?: number } = {}) => new LineSplitter({ masker: new Masker(values), ...extra });

test('keeps a partial line until its newline arrives', () => {
  const s = splitter();
  assert.deepEqual(s.push(Buffer.from('hel')), []);
  assert.deepEqual(s.push(Buffer.from('lo\nwor')), ['hello']);
  assert.deepEqual(s.push(Buffer.from('ld\n\nlast')), ['world', '']);
  assert.deepEqual(s.end(), ['last']);
  assert.deepEqual(s.end(), []);
});

test('strips the \\r of CRLF line ends', () => {
  assert.deepEqual(splitter().push('a\r\nb\r\n'), ['a', 'b']);
});

test('a multi-byte character split across chunks is decoded whole', () => {
  const s = splitter();
  const bytes = Buffer.from('é€\n');
  assert.deepEqual(s.push(bytes.subarray(0, 1)), []);
  assert.deepEqual(s.push(bytes.subarray(1, 4)), []);
  assert.deepEqual(s.push(bytes.subarray(4)), ['é€']);
});

test('a secret written in two chunks of one line is masked', () => {
  const s = splitter(['hunter2']);
  assert.deepEqual(s.push('password=hun'), []);
  assert.deepEqual(s.push('ter2 ok\n'), ['password=*** ok']);
});

test('a line longer than 64 KiB is cut into 64 KiB lines, masking first', () => {
  const secret = 'TOPSECRETVALUE';
  const before = 'a'.repeat(MAX_LINE_BYTES - 5); // the secret straddles the 64 KiB cut
  const line = before + secret + 'b'.repeat(40_000);
  const out = splitter([secret]).push(line + '\n');
  const joined = out.join('');
  assert.equal(joined, before + '***' + 'b'.repeat(40_000));
  assert.ok(out.length === 2 && out.every((l) => Buffer.byteLength(l) <= MAX_LINE_BYTES));
  assert.equal(out[0]!.length, MAX_LINE_BYTES);
});

test('an unfinished line is flushed past maxPendingChars without splitting a secret', () => {
  const s = splitter(['SECRET'], { maxPendingChars: 100 });
  const out = s.push('x'.repeat(97) + 'SECRET' + 'y'.repeat(10));
  assert.deepEqual(out, ['x'.repeat(97)]);
  assert.deepEqual(s.end(), ['***' + 'y'.repeat(10)]);
});

test('cutUtf8 never splits a character', () => {
  const pieces = cutUtf8('€'.repeat(10), 7); // 3 bytes each: 2 per piece
  assert.deepEqual(pieces, ['€€', '€€', '€€', '€€', '€€']);
  assert.deepEqual(cutUtf8('', 10), ['']);
});
