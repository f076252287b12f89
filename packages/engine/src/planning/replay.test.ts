// The pure part of a replay: from a task, the tasks neither it nor
// downstream of it reuse the original's SUCCESS runs (and only those);
// without one nothing is reused; inputs merge over the original's and are
// checked as a trigger's, an input read from secret() stays masked unless
// replaced; labels merge, null removes one.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FlowDefinition } from '@svc/flow-schema';
import { EngineError } from '../errors.js';
import { checkFrom, fromAndDownstream, replayInputs, replayLabels, replayOf, replayReuse } from './replay.js';

//   a → b → d
//   a → c        e (alone)
const def = {
  id: 'f',
  inputs: [
    { id: 'date', type: 'string' },
    { id: 'n', type: 'int', default: 1 },
    { id: 'auth', type: 'string' },
  ],
  tasks: [
    { id: 'a', type: 'command', command: ['true'] },
    { id: 'b', type: 'command', command: ['true'], depends_on: ['a'] },
    { id: 'c', type: 'command', command: ['true'], depends_on: ['a'] },
    { id: 'd', type: 'command', command: ['true'], depends_on: ['b'] },
    { id: 'e', type: 'command', command: ['true'] },
  ],
} as unknown as FlowDefinition;
const ok = (id: string) => ({ id, outputs: null, exit_code: 0 });

test('from a task: it and its downstream run; the others reuse their SUCCESS runs', () => {
  assert.deepEqual([...fromAndDownstream(def, 'b')].sort(), ['b', 'd']);
  assert.deepEqual([...fromAndDownstream(def, 'a')].sort(), ['a', 'b', 'c', 'd']);
  const success = new Map([
    ['a', ok('ra')],
    ['b', ok('rb')],
    ['e', ok('re')],
  ]);
  assert.deepEqual([...replayReuse(def, 'b', success).keys()], ['a', 'e'], 'c did not succeed in the original: it runs');
  assert.deepEqual([...replayReuse(def, undefined, success).keys()], [], 'without from, every task runs');
});

test('an unknown from is a replay_invalid naming the field', () => {
  checkFrom(def, 'd');
  checkFrom(def, undefined);
  assert.throws(
    () => checkFrom(def, 'zz'),
    (e: unknown) => e instanceof EngineError && e.code === 'replay_invalid' && e.details?.[0]?.field === 'from',
  );
});

test('inputs merge over the original, coerced and checked; a secret-read input stays masked with its recipe unless replaced', () => {
  const original = { inputs: { date: 'bad', n: 1, auth: 'Bearer ***' }, trigger_payload: { secret_inputs: { auth: "Bearer {{ secret('T') }}" } } };
  const r = replayInputs(def, original, { date: '2026-11-01', n: '2' });
  assert.deepEqual(r.inputs, { date: '2026-11-01', n: 2, auth: 'Bearer ***' });
  assert.deepEqual(r.secretInputs, { auth: "Bearer {{ secret('T') }}" });
  assert.deepEqual(r.changed, ['date', 'n']);
  const replaced = replayInputs(def, original, { auth: 'plain' });
  assert.deepEqual(replaced.secretInputs, {});
  assert.deepEqual(replaced.changed, ['auth']);
  assert.throws(
    () => replayInputs(def, original, { n: 'many' }),
    (e: unknown) => e instanceof EngineError && e.code === 'inputs_invalid' && e.details?.[0]?.field === 'inputs.n',
  );
  // An input the chosen revision no longer declares is dropped, not refused.
  assert.deepEqual(replayInputs(def, { inputs: { date: 'x', gone: 1, auth: 'a' }, trigger_payload: {} }, undefined).changed, ['gone', 'n']);
});

test('labels merge over the original; null removes one; the trigger payload names the replay', () => {
  assert.deepEqual(replayLabels({ team: 'a', t: '1' }, { t: null, fixed: 'yes' }), { team: 'a', fixed: 'yes' });
  assert.deepEqual(replayOf({ replay_of: 'x', replay_from: 'b' }), { of: 'x', from: 'b' });
  assert.equal(replayOf({ replay_of: 'x' }), null, 'without from nothing is reused');
  assert.equal(replayOf({}), null);
});
