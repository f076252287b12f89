// The one role check (roles.ts) on its own: the global role first,
// asking nothing of the bindings when it suffices; the namespaces an
// operation names, each checked; an operation naming none keeps the global
// role; a namespace in the body is checked in two steps, the first refusing a
// caller with no binding of the role anywhere before anything is read.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { operations, roleAtLeast, type Operation, type Role } from '@svc/api-spec';
import { checkRole, checkRoleWithBody, type NamespaceRoles } from './roles.js';
import { HttpError } from './errors.js';

const op = (id: string): Operation => operations.find((o) => o.operationId === id)!;

/** Bindings of one caller: namespace → role; every call is counted. */
function bindings(bound: Record<string, Role>, global: Role, records: Record<string, string> = {}) {
  const calls: (string | undefined)[] = [];
  const ns: NamespaceRoles<{ role: Role }> = {
    async roleFor(_p, namespace) {
      calls.push(namespace);
      let best: Role = global;
      for (const [n, r] of Object.entries(bound)) {
        if (namespace === undefined || namespace === n || namespace.startsWith(`${n}.`)) best = roleAtLeast(best, r) ? best : r;
      }
      return best;
    },
    async recordNamespace(_record, id) {
      calls.push(`record:${id}`);
      return records[id];
    },
  };
  return { ns, calls };
}

const forbidden = (err: unknown) => err instanceof HttpError && err.status === 403;

test('a global role that suffices asks nothing of the bindings', async () => {
  const { ns, calls } = bindings({ team: 'admin' }, 'editor');
  assert.equal(await checkRole(op('saveChanges'), { role: 'editor' }, { params: { namespace: 'other' }, query: {} }, ns), 'done');
  assert.equal(await checkRole(op('createUser'), { role: 'admin' }, { params: {}, query: {} }, ns), 'done');
  assert.equal(await checkRole(op('createAlertRule'), { role: 'admin' }, { params: {}, query: {} }, ns), 'done');
  assert.deepEqual(calls, []);
});

test('a binding raises the role on its namespace and children only', async () => {
  const { ns, calls } = bindings({ team: 'editor' }, 'viewer');
  const viewer = { role: 'viewer' as Role };
  assert.equal(await checkRole(op('saveChanges'), viewer, { params: { namespace: 'team' }, query: {} }, ns), 'done');
  assert.equal(await checkRole(op('saveChanges'), viewer, { params: { namespace: 'team.etl' }, query: {} }, ns), 'done');
  await assert.rejects(checkRole(op('saveChanges'), viewer, { params: { namespace: 'teams' }, query: {} }, ns), forbidden);
  await assert.rejects(checkRole(op('saveChanges'), viewer, { params: { namespace: 'other' }, query: {} }, ns), forbidden);
  // One role above the binding: refused on the bound namespace too.
  await assert.rejects(checkRole(op('deleteNamespace'), viewer, { params: { namespace: 'team' }, query: {} }, ns), forbidden);
  assert.deepEqual(calls, ['team', 'team.etl', 'teams', 'other', 'team']);
});

test('without bindings, or for an operation naming no namespace, the global role decides', async () => {
  const viewer = { role: 'viewer' as Role };
  await assert.rejects(checkRole(op('saveChanges'), viewer, { params: { namespace: 'team' }, query: {} }, undefined), forbidden);
  const { ns, calls } = bindings({ team: 'admin' }, 'viewer');
  for (const id of ['createUser', 'putGlobalSecret', 'createNamespace', 'listRoleBindings', 'createRoleBinding', 'deleteRoleBinding']) {
    await assert.rejects(checkRole(op(id), viewer, { params: { key: 'K', bindingId: 'x' }, query: { namespace: 'team' }, body: { namespace: 'team' } }, ns), forbidden, id);
  }
  assert.deepEqual(calls, []);
});

test('a record named by id is checked on its namespace; an unknown id is refused', async () => {
  const { ns, calls } = bindings({ team: 'operator' }, 'viewer', { e1: 'team.etl', e2: 'other' });
  const viewer = { role: 'viewer' as Role };
  assert.equal(await checkRole(op('cancelExecution'), viewer, { params: { executionId: 'e1' }, query: {} }, ns), 'done');
  await assert.rejects(checkRole(op('cancelExecution'), viewer, { params: { executionId: 'e2' }, query: {} }, ns), forbidden);
  await assert.rejects(checkRole(op('cancelExecution'), viewer, { params: { executionId: 'nope' }, query: {} }, ns), forbidden);
  assert.deepEqual(calls, ['record:e1', 'team.etl', 'record:e2', 'other', 'record:nope']);
});

test('a namespace in the body: refused before the body without a binding of the role anywhere, else checked on the body', async () => {
  const viewer = { role: 'viewer' as Role };
  const none = bindings({ team: 'operator' }, 'viewer');
  await assert.rejects(checkRole(op('createAlertRule'), viewer, { params: {}, query: {} }, none.ns), forbidden);
  assert.deepEqual(none.calls, [undefined]);

  const { ns } = bindings({ team: 'editor' }, 'viewer', { r1: 'team', r2: 'other' });
  assert.equal(await checkRole(op('createAlertRule'), viewer, { params: {}, query: {} }, ns), 'body');
  await checkRoleWithBody(op('createAlertRule'), viewer, { params: {}, query: {}, body: { namespace: 'team.etl' } }, ns);
  await assert.rejects(checkRoleWithBody(op('createAlertRule'), viewer, { params: {}, query: {}, body: { namespace: 'other' } }, ns), forbidden);
  await assert.rejects(checkRoleWithBody(op('createAlertRule'), viewer, { params: {}, query: {}, body: {} }, ns), forbidden, 'no namespace named: all of them');
  await assert.rejects(checkRoleWithBody(op('createAlertRule'), viewer, { params: {}, query: {}, body: { namespace: ['team'] } }, ns), forbidden);
  // Moving a rule: both its own namespace and the new one must allow it.
  assert.equal(await checkRole(op('updateAlertRule'), viewer, { params: { ruleId: 'r1' }, query: {} }, ns), 'body');
  await checkRoleWithBody(op('updateAlertRule'), viewer, { params: { ruleId: 'r1' }, query: {}, body: { name: 'x' } }, ns);
  await assert.rejects(checkRoleWithBody(op('updateAlertRule'), viewer, { params: { ruleId: 'r1' }, query: {}, body: { namespace: 'other' } }, ns), forbidden);
  await assert.rejects(checkRoleWithBody(op('updateAlertRule'), viewer, { params: { ruleId: 'r2' }, query: {}, body: { namespace: 'team' } }, ns), forbidden);
});

test('none: its account, the read-scoped lists and the dashboard without a namespace; a bound namespace as viewer; nothing else', async () => {
  const { ns, calls } = bindings({ team: 'viewer' }, 'none', { 'ex-team': 'team', 'ex-other': 'other' });
  const none = { role: 'none' as Role };
  for (const id of [
    'getMe',
    'changePassword',
    'listTokens',
    'createToken',
    'listNamespaces',
    'listFlows',
    'listExecutions',
    'listAlertRules',
    'listUpcomingSchedules',
    'getDashboard',
  ]) {
    assert.equal(await checkRole(op(id), none, { params: {}, query: {} }, ns), 'done', id);
  }
  assert.deepEqual(calls, [], 'no binding read for them');
  for (const id of ['listGlobalSecrets', 'listGlobalVariables', 'listGitSources', 'listSecretProviders', 'getAIProvider']) {
    await assert.rejects(checkRole(op(id), none, { params: {}, query: {} }, ns), forbidden, id);
  }
  assert.equal(await checkRole(op('getDashboard'), none, { params: {}, query: { namespace: 'team.etl' } }, ns), 'done');
  await assert.rejects(checkRole(op('getDashboard'), none, { params: {}, query: { namespace: 'other' } }, ns), forbidden);
  assert.equal(await checkRole(op('listExecutions'), none, { params: {}, query: { namespace: 'team.etl' } }, ns), 'done');
  await assert.rejects(checkRole(op('listExecutions'), none, { params: {}, query: { namespace: 'other' } }, ns), forbidden);
  assert.equal(await checkRole(op('getExecution'), none, { params: { executionId: 'ex-team' }, query: {} }, ns), 'done');
  await assert.rejects(checkRole(op('getExecution'), none, { params: { executionId: 'ex-other' }, query: {} }, ns), forbidden);
  await assert.rejects(checkRole(op('triggerFlow'), none, { params: { namespace: 'team', flowId: 'f' }, query: {} }, ns), forbidden);
  // Without a binding at all, a none caller reads no namespace.
  const empty = bindings({}, 'none').ns;
  await assert.rejects(checkRole(op('getFlow'), none, { params: { namespace: 'team', flowId: 'f' }, query: {} }, empty), forbidden);
});

test('a caller-scoped operation (bulkExecutions) is open to whoever holds its role on some namespace, whatever the body names', async () => {
  const bulk = op('bulkExecutions');
  const parts = { params: {}, query: {}, body: { action: 'cancel', filter: { namespace: 'elsewhere' } } };
  const { ns } = bindings({ team: 'operator' }, 'none');
  assert.equal(await checkRole(bulk, { role: 'none' }, parts, ns), 'done');
  assert.equal(await checkRole(bulk, { role: 'operator' }, parts, bindings({}, 'operator').ns), 'done');
  // A viewer everywhere, or an operator nowhere, is refused before anything is read.
  await assert.rejects(checkRole(bulk, { role: 'viewer' }, parts, bindings({}, 'viewer').ns), forbidden);
  await assert.rejects(checkRole(bulk, { role: 'viewer' }, parts, bindings({ team: 'viewer' }, 'viewer').ns), forbidden);
  await assert.rejects(checkRole(bulk, { role: 'viewer' }, parts, undefined), forbidden);
});
