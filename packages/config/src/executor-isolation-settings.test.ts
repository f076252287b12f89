// The settings that keep task code away from the platform: the docker task
// network and its allowlist, the pids limit, the kubernetes task service
// account, the allowlist of service accounts a flow may name (never the
// dispatcher's own), and runAsNonRoot.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseConfig } from './config.js';
import { ConfigError } from './errors.js';
import { allowedIn } from './namespace-allowlist.js';

const machine = { cwd: '/srv/app', hostname: 'node-7' };

function problems(env: Record<string, string>): Record<string, string> {
  try {
    parseConfig(env, machine);
  } catch (err) {
    assert.ok(err instanceof ConfigError);
    return Object.fromEntries(err.problems.map((p) => [p.variable, p.message]));
  }
  assert.fail(`expected ${JSON.stringify(env)} to be refused`);
}

test('defaults: tasks on the svc-tasks network with no other allowed, 1024 pids, the svc-task account, no account a flow may name, root allowed', () => {
  const c = parseConfig({}, machine);
  assert.equal(c.dockerNetwork, 'svc-tasks');
  assert.deepEqual(c.dockerNetworks, []);
  assert.equal(c.dockerPidsLimit, 1024);
  assert.equal(c.k8sTaskServiceAccount, 'svc-task');
  assert.deepEqual(c.k8sServiceAccounts, []);
  assert.equal(c.k8sDispatcherServiceAccount, 'svc-dispatcher');
  assert.equal(c.k8sRunAsNonRoot, false);
});

test('set values are read', () => {
  const c = parseConfig(
    {
      SVC_DOCKER_NETWORK: 'host',
      SVC_DOCKER_NETWORKS: 'etl-net, container:*,container:db-1',
      SVC_DOCKER_PIDS_LIMIT: '64',
      SVC_K8S_TASK_SERVICE_ACCOUNT: 'task-nothing',
      SVC_K8S_SERVICE_ACCOUNTS: 'etl-runner,reports.reader',
      SVC_K8S_DISPATCHER_SERVICE_ACCOUNT: 'svc-prod-dispatcher',
      SVC_K8S_RUN_AS_NON_ROOT: 'true',
    },
    machine,
  );
  assert.equal(c.dockerNetwork, 'host');
  assert.deepEqual(c.dockerNetworks, [{ prefix: null, names: ['etl-net', 'container:*', 'container:db-1'] }], 'the flat form: every namespace');
  assert.equal(c.dockerPidsLimit, 64);
  assert.equal(c.k8sTaskServiceAccount, 'task-nothing');
  assert.deepEqual(c.k8sServiceAccounts, [{ prefix: null, names: ['etl-runner', 'reports.reader'] }]);
  assert.equal(c.k8sDispatcherServiceAccount, 'svc-prod-dispatcher');
  assert.equal(c.k8sRunAsNonRoot, true);
});

test("the dispatcher's own service account is refused in the allowlist and as the task account, even when named by default", () => {
  const p = problems({ SVC_K8S_SERVICE_ACCOUNTS: 'etl-runner,svc-dispatcher', SVC_K8S_TASK_SERVICE_ACCOUNT: 'svc-dispatcher' });
  assert.match(p.SVC_K8S_SERVICE_ACCOUNTS!, /dispatcher's own service account "svc-dispatcher"/);
  assert.match(p.SVC_K8S_TASK_SERVICE_ACCOUNT!, /dispatcher's own service account "svc-dispatcher"/);
  const q = problems({ SVC_K8S_DISPATCHER_SERVICE_ACCOUNT: 'ops', SVC_K8S_SERVICE_ACCOUNTS: 'ops' });
  assert.deepEqual(Object.keys(q), ['SVC_K8S_SERVICE_ACCOUNTS']);
});

test('bad values are refused, each on its variable', () => {
  const p = problems({
    SVC_DOCKER_NETWORK: 'no spaces',
    SVC_DOCKER_NETWORKS: 'ok,,bad/name',
    SVC_DOCKER_PIDS_LIMIT: '0',
    SVC_K8S_SERVICE_ACCOUNTS: 'Upper',
    SVC_K8S_RUN_AS_NON_ROOT: 'yes',
  });
  assert.deepEqual(Object.keys(p).sort(), ['SVC_DOCKER_NETWORK', 'SVC_DOCKER_NETWORKS', 'SVC_DOCKER_PIDS_LIMIT', 'SVC_K8S_RUN_AS_NON_ROOT', 'SVC_K8S_SERVICE_ACCOUNTS']);
  assert.match(p.SVC_K8S_RUN_AS_NON_ROOT!, /true or false/);
});

test('the map form: namespace prefixes to the names each may use, * for every namespace; a prefix covers descendants at the dot only', () => {
  const c = parseConfig({ SVC_DOCKER_NETWORKS: 'team-a=net-a|container:*; team-b.etl=net-b;*=shared', SVC_K8S_SERVICE_ACCOUNTS: 'team-a=sa1|sa2;team-b.etl=sa3' }, machine);
  assert.deepEqual(c.dockerNetworks, [
    { prefix: 'team-a', names: ['net-a', 'container:*'] },
    { prefix: 'team-b.etl', names: ['net-b'] },
    { prefix: null, names: ['shared'] },
  ]);
  assert.deepEqual(allowedIn(c.k8sServiceAccounts, 'team-a'), ['sa1', 'sa2']);
  assert.deepEqual(allowedIn(c.k8sServiceAccounts, 'team-a.x.y'), ['sa1', 'sa2']);
  assert.deepEqual(allowedIn(c.k8sServiceAccounts, 'team-ab'), [], 'team-a does not cover team-ab');
  assert.deepEqual(allowedIn(c.k8sServiceAccounts, 'team-b'), [], 'a parent is not covered by its child');
  assert.deepEqual(allowedIn(c.k8sServiceAccounts, 'team-b.etl'), ['sa3']);
  assert.deepEqual(allowedIn(c.dockerNetworks, 'team-b.etl.nightly'), ['net-b', 'shared']);
});

test('a bad map is refused with a message naming what is wrong; the dispatcher account is refused in any entry', () => {
  const p = problems({ SVC_DOCKER_NETWORKS: 'team-a=net-a;Team_B=x;team-c=;team-a=y', SVC_K8S_SERVICE_ACCOUNTS: 'team-a=ok;team-b=svc-dispatcher' });
  assert.match(p.SVC_DOCKER_NETWORKS!, /"Team_B" is not a namespace prefix/);
  assert.match(p.SVC_DOCKER_NETWORKS!, /the entry of "team-c" has an empty name/);
  assert.match(p.SVC_DOCKER_NETWORKS!, /names the prefix "team-a" twice/);
  assert.match(p.SVC_K8S_SERVICE_ACCOUNTS!, /dispatcher's own service account "svc-dispatcher"/);
  assert.match(
    problems({ SVC_K8S_SERVICE_ACCOUNTS: 'team-a=sa1,sa2' }).SVC_K8S_SERVICE_ACCOUNTS!,
    /"sa1,sa2" must be a Kubernetes service account name/,
    'names of an entry are separated by |',
  );
});
