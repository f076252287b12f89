// Which service account a task may run as: none named (the task account),
// one the operator listed, never one not listed, never the dispatcher's own
// even when listed; the dispatcher's own names come from the setting, from
// SVC_K8S_TOKEN and from the token mounted in its pod.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { dispatcherServiceAccounts, serviceAccountOfToken, serviceAccountRefusal } from './kubernetes-service-account.js';

const jwt = (claims: object) => ['{"alg":"RS256"}', JSON.stringify(claims), 'sig'].map((p, i) => (i < 2 ? Buffer.from(p).toString('base64url') : p)).join('.');

const everywhere = (...names: string[]) => [{ prefix: null, names }];

test("a flow may name only a listed account, never the dispatcher's own; the refusal names the account, the namespace and the setting", () => {
  assert.equal(serviceAccountRefusal(undefined, 'team-a', [], ['svc-dispatcher']), null, 'none named: the task account');
  assert.equal(serviceAccountRefusal('etl-runner', 'team-a', everywhere('etl-runner'), ['svc-dispatcher']), null);
  assert.match(
    serviceAccountRefusal('etl-runner', 'team-a', [], ['svc-dispatcher'])!,
    /^the service account etl-runner is not allowed in namespace team-a: .*SVC_K8S_SERVICE_ACCOUNTS .*\(it lists none for namespace team-a\)$/,
  );
  assert.match(
    serviceAccountRefusal('etl-runner', 'team-a', everywhere('a', 'b'), ['svc-dispatcher'])!,
    /etl-runner.*SVC_K8S_SERVICE_ACCOUNTS.*\(for namespace team-a it lists a, b\)/,
  );
  assert.match(
    serviceAccountRefusal('svc-dispatcher', 'team-a', everywhere('svc-dispatcher'), ['svc-dispatcher'])!,
    /svc-dispatcher is the dispatcher's own.*SVC_K8S_SERVICE_ACCOUNTS/,
  );
});

test('an account mapped to a namespace prefix serves that namespace and its descendants only', () => {
  const map = [
    { prefix: 'team-a', names: ['sa-a'] },
    { prefix: 'team-b', names: ['sa-b'] },
  ];
  assert.equal(serviceAccountRefusal('sa-a', 'team-a', map, []), null);
  assert.equal(serviceAccountRefusal('sa-a', 'team-a.etl', map, []), null, 'a descendant');
  assert.match(serviceAccountRefusal('sa-b', 'team-a', map, [])!, /sa-b is not allowed in namespace team-a.*\(for namespace team-a it lists sa-a\)/);
  assert.match(serviceAccountRefusal('sa-a', 'team-ab', map, [])!, /not allowed in namespace team-ab/, 'a prefix is a namespace, not a string prefix');
});

test("the dispatcher's own accounts: the setting, SVC_K8S_TOKEN's and the mounted token's", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-sa-'));
  try {
    assert.deepEqual(dispatcherServiceAccounts({ k8sDispatcherServiceAccount: 'svc-dispatcher', k8sToken: undefined }, dir), ['svc-dispatcher']);
    fs.writeFileSync(path.join(dir, 'token'), jwt({ sub: 'system:serviceaccount:svc:in-pod', 'kubernetes.io': { namespace: 'svc' } }));
    assert.deepEqual(dispatcherServiceAccounts({ k8sDispatcherServiceAccount: 'svc-dispatcher', k8sToken: jwt({ sub: 'system:serviceaccount:ops:remote' }) }, dir), [
      'svc-dispatcher',
      'remote',
      'in-pod',
    ]);
    assert.equal(serviceAccountOfToken('not-a-jwt'), undefined);
    assert.equal(serviceAccountOfToken(jwt({ sub: 'alice@example.com' })), undefined);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
