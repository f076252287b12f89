import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { ByteSizeError, formatByteSize, parseByteSize } from './byte-size.js';

describe('parseByteSize', () => {
  const valid: [string, number][] = [
    ['0', 0],
    ['1048576', 1_048_576],
    ['512B', 512],
    ['1KB', 1000],
    ['1KiB', 1024],
    ['10MiB', 10 * 1024 * 1024],
    ['100MiB', 100 * 1024 * 1024],
    ['1GiB', 1024 ** 3],
    ['2MB', 2_000_000],
    ['3GB', 3_000_000_000],
    ['1.5KiB', 1536],
    ['1.5 GB', 1_500_000_000],
    ['10mib', 10 * 1024 * 1024],
    [' 7kb ', 7000],
  ];
  for (const [text, bytes] of valid) {
    it(`reads ${JSON.stringify(text)} as ${bytes}`, () => assert.equal(parseByteSize(text), bytes));
  }

  const invalid = ['', 'MiB', '-1', '-1MiB', '1.5', '10XB', '10 M', '10TB', '1e6', '0x10', '1.0001B', '10 MiB extra', '99999999999999999999'];
  for (const text of invalid) {
    it(`refuses ${JSON.stringify(text)}`, () => {
      assert.throws(
        () => parseByteSize(text),
        (err: unknown) => err instanceof ByteSizeError && err.text === text,
      );
    });
  }

  it('names the unknown unit', () => {
    assert.throws(() => parseByteSize('10XB'), /unknown unit "XB"/);
  });
});

describe('formatByteSize', () => {
  it('uses the largest binary unit that divides exactly', () => {
    assert.equal(formatByteSize(10 * 1024 * 1024), '10MiB');
    assert.equal(formatByteSize(1024 ** 3), '1GiB');
    assert.equal(formatByteSize(1536), '1536B');
    assert.equal(formatByteSize(2048), '2KiB');
    assert.equal(formatByteSize(0), '0B');
  });

  it('reads back what it writes', () => {
    for (const n of [0, 1, 1000, 1024, 1536, 5 * 1024 ** 2, 7 * 1024 ** 3]) assert.equal(parseByteSize(formatByteSize(n)), n);
  });

  it('refuses negative and fractional input', () => {
    assert.throws(() => formatByteSize(-1), RangeError);
    assert.throws(() => formatByteSize(1.5), RangeError);
  });
});
