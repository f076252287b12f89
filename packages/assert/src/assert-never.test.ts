import assert from 'node:assert/strict';
import test from 'node:test';
import { assertNever } from './index.js';

test('assertNever throws naming what was unexpected and its value', () => {
  assert.throws(() => assertNever('BOGUS' as never, 'execution state'), { message: 'unexpected execution state: "BOGUS"' });
  assert.throws(() => assertNever({ type: 'x' } as never), { message: 'unexpected value: {"type":"x"}' });
});

test('assertNever describes values JSON cannot', () => {
  assert.throws(() => assertNever(undefined as never), { message: 'unexpected value: undefined' });
  assert.throws(() => assertNever(10n as never), { message: 'unexpected value: 10' });
  const cycle: Record<string, unknown> = {};
  cycle.self = cycle;
  assert.throws(() => assertNever(cycle as never), { message: 'unexpected value: [object Object]' });
});
