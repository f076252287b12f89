import assert from 'node:assert/strict';
import { test } from 'node:test';
import { generateMasterKey } from '@svc/secrets';
import { recordSecrets, recordedValues, SecretMasker, withheld } from './secret-masking.js';

test('every form of a value is masked, longest first, in text, keys and nested values', () => {
  const m = new SecretMasker(['ab"c d', 'ab', '']);
  assert.equal(m.text('x ab"c d y ab z'), 'x *** y *** z');
  assert.equal(m.text(JSON.stringify({ v: 'ab"c d' })), '{"v":"***"}');
  assert.equal(m.text(`?k=${encodeURIComponent('ab"c d')}`), '?k=***');
  assert.equal(m.text(`?k=${encodeURI('ab"c d')}`), '?k=***');
  assert.equal(m.text(`k=${new URLSearchParams({ x: 'ab"c d' }).toString().slice(2)}`), 'k=***');
  assert.deepEqual(m.value({ ab: ['ab', 1, null, { deep: 'xaby' }], n: 2 }), { '***': ['***', 1, null, { deep: 'x***y' }], n: 2 });
});

test('each line of a multi-line value is masked on its own (4 characters or more)', () => {
  const m = new SecretMasker(['-----BEGIN-----\nline-one\n}\n']);
  assert.equal(m.text('got line-one and }'), 'got *** and }');
});

test('a completion keeps its state and exit code; error, reason, outputs and metrics are masked', () => {
  const m = new SecretMasker(['pw']);
  const done = m.completion({ state: 'FAILED', reason: 'pw', error: 'bad pw', exitCode: 2, outputs: { pw: 'pw' }, metrics: [{ name: 'pw', value: 1, tags: { pw: 'pw' } }] });
  assert.deepEqual(done, {
    state: 'FAILED',
    reason: '***',
    error: 'bad ***',
    exitCode: 2,
    outputs: { '***': '***' },
    metrics: [{ name: '***', value: 1, tags: { '***': '***' } }],
  });
  assert.deepEqual(withheld({ state: 'FAILED', reason: 'exit_code', error: 'pw', exitCode: 1, outputs: { a: 'pw' } }), {
    state: 'FAILED',
    reason: 'exit_code',
    error: 'the error text was withheld: the secrets of this task run could not be read to mask it',
    exitCode: 1,
  });
});

test('the record seals the values to their task run: it opens for that run only', async () => {
  const keys = [generateMasterKey('k1')];
  const rec = recordSecrets('run-1', 'ns', ['A'], ['value-1'], keys);
  assert.ok(!JSON.stringify(rec).includes('value-1'));
  assert.deepEqual(await recordedValues(null as never, 'run-1', rec, keys), ['value-1']);
  // Another run's id (a record copied elsewhere) does not open; re-resolving needs the database, which fails here: withheld.
  assert.equal(await recordedValues({ query: () => Promise.reject(new Error('no db')) } as never, 'run-2', rec, keys), null);
});
