import { test } from 'node:test';
import assert from 'node:assert/strict';
import { operations } from '@svc/api-spec';
import { HttpError } from './errors.js';
import { createRequestValidator, fieldName } from './validation.js';

const validator = createRequestValidator();
const byId = (id: string) => {
  const op = operations.find((o) => o.operationId === id);
  assert.ok(op, id);
  return validator.compileOperation(op);
};

function detailsOf(fn: () => unknown) {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof HttpError);
    assert.equal(err.status, 422);
    assert.equal(err.code, 'validation_failed');
    return err.details;
  }
  assert.fail('expected validation_failed');
}

test('every catalog operation compiles under ajv strict mode', () => {
  const v = createRequestValidator();
  for (const op of operations) assert.doesNotThrow(() => v.compileOperation(op), op.operationId);
});

test('body paths read like code; parameters are named alone', () => {
  assert.equal(fieldName(['changes', '3', 'path'], 'body'), 'changes[3].path');
  assert.equal(fieldName([], 'body'), 'body');
  assert.equal(fieldName(['labels', 'team name'], 'body'), 'labels["team name"]');
  assert.equal(fieldName(['label', '1'], 'query'), 'label');
});

test('saveChanges enforces the spec limits with one entry per field', () => {
  const save = byId('saveChanges');
  const many = Array.from({ length: 1001 }, (_, i) => ({ op: 'put', path: `f${i}` }));
  assert.deepEqual(
    detailsOf(() => save.validateRequest({ params: { namespace: 'team.etl' }, body: { changes: many, message: 'x'.repeat(501) } })),
    [
      { field: 'changes', message: 'must have at most 1000 items' },
      { field: 'message', message: 'must be at most 500 characters' },
    ],
  );
  assert.deepEqual(
    detailsOf(() =>
      save.validateRequest({
        params: { namespace: 'team.etl' },
        body: {
          changes: [
            { op: 'put', path: 'a' },
            { op: 'move', path: 'p'.repeat(513) },
          ],
          message: 'm',
        },
      }),
    ),
    [
      { field: 'changes[1].op', message: 'must be one of: put, delete, rename' },
      { field: 'changes[1].path', message: 'must be at most 512 characters' },
    ],
  );
  assert.deepEqual(
    detailsOf(() => save.validateRequest({ params: { namespace: 'a'.repeat(129) }, body: { changes: [], message: '' } })),
    [
      { field: 'namespace', message: 'must be at most 128 characters' },
      { field: 'changes', message: 'must have at least 1 item' },
      { field: 'message', message: 'must not be empty' },
    ],
  );
  const ok = save.validateRequest({ params: { namespace: 'team.etl-2' }, body: { base_version: 3, changes: [{ op: 'rename', path: 'a', new_path: 'b' }], message: 'm' } });
  assert.equal((ok.body as { base_version: number }).base_version, 3);
});

test('list and log limits, dashboard range, execution state and token expiry follow the spec', () => {
  assert.deepEqual(
    detailsOf(() => byId('listExecutions').validateRequest({ query: { limit: '201', state: 'DONE' } })),
    [
      { field: 'limit', message: 'must be at most 200' },
      { field: 'state', message: 'must be one of: QUEUED, RUNNING, CANCELLING, SUCCESS, FAILED, TIMED_OUT, CANCELLED, SKIPPED' },
    ],
  );
  assert.equal(byId('listExecutions').validateRequest({ query: {} }).query.limit, 50);
  const logs = byId('getExecutionLogs');
  assert.equal(logs.validateRequest({ params: { executionId: 'e1' }, query: {} }).query.limit, 1000);
  assert.equal(logs.validateRequest({ params: { executionId: 'e1' }, query: { limit: '5000' } }).query.limit, 5000);
  assert.deepEqual(
    detailsOf(() => logs.validateRequest({ params: { executionId: 'e1' }, query: { limit: '5001' } })),
    [{ field: 'limit', message: 'must be at most 5000' }],
  );
  assert.deepEqual(
    detailsOf(() => byId('getDashboard').validateRequest({ query: { range: '90d' } })),
    [{ field: 'range', message: 'must be one of: 24h, 7d, 30d' }],
  );
  assert.deepEqual(
    detailsOf(() => byId('createToken').validateRequest({ body: { name: 'ci', role: 'root', expires_in_days: 366 } })),
    [
      { field: 'role', message: 'must be one of: none, viewer, operator, editor, admin' },
      { field: 'expires_in_days', message: 'must be at most 365' },
    ],
  );
  assert.deepEqual(
    detailsOf(() => byId('login').validateRequest({ body: { email: 'a@b.c' } })),
    [{ field: 'password', message: 'is required' }],
  );
  assert.deepEqual(
    detailsOf(() => byId('triggerFlow').validateRequest({ params: { namespace: 'ns', flowId: 'f' }, body: { labels: { a: 1 } } })),
    [{ field: 'labels.a', message: 'must be a string' }],
  );
});

test('a repeated query parameter fills an array parameter; a single one is wrapped', () => {
  const list = byId('listExecutions');
  assert.deepEqual(list.validateRequest({ query: { label: 'team:etl' } }).query.label, ['team:etl']);
  assert.deepEqual(list.validateRequest({ query: { label: ['a:1', 'b:2'] } }).query.label, ['a:1', 'b:2']);
});

test('validation does not mutate its inputs', () => {
  const query = { limit: '5' };
  byId('listExecutions').validateRequest({ query });
  assert.deepEqual(query, { limit: '5' });
});
