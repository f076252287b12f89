// The network a docker task may run on: the operator's default always; what
// a flow names only when SVC_DOCKER_NETWORKS lists it (host and container:
// literally, container:* for every container:); the refusal names the network
// and the setting. The default network is created when missing (a stub
// engine: the test engine must not get a bridge network).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type Docker from 'dockerode';
import { DROPPED_CAPABILITIES, ensureTaskNetwork, isLoopbackUrl, taskNetwork } from './docker-task-network.js';

const defaults = { dockerNetwork: 'svc-tasks', dockerNetworks: [] };
const everywhere = (...names: string[]) => [{ prefix: null, names }];

test('no network named, or the default named: the default', () => {
  assert.deepEqual(taskNetwork(undefined, 'team-a', defaults), { network: 'svc-tasks' });
  assert.deepEqual(taskNetwork('svc-tasks', 'team-a', defaults), { network: 'svc-tasks' });
  assert.deepEqual(taskNetwork('host', 'team-a', { dockerNetwork: 'host', dockerNetworks: [] }), { network: 'host' }, "a host default is the operator's choice");
});

test('by default a flow may name no other network: host and container: are refused, naming the network and the setting', () => {
  for (const n of ['host', 'container:db', 'bridge', 'etl-net']) {
    const c = taskNetwork(n, 'team-a', defaults);
    assert.ok('refused' in c, n);
    assert.match(
      c.refused,
      new RegExp(
        `^the network ${n} is not allowed in namespace team-a: an operator must list it in SVC_DOCKER_NETWORKS for a prefix of team-a \\(it lists none for namespace team-a\\)`,
      ),
    );
  }
});

test('listed networks are allowed literally; container:* allows every container: but not host', () => {
  const cfg = { dockerNetwork: 'svc-tasks', dockerNetworks: everywhere('etl-net', 'container:*') };
  assert.deepEqual(taskNetwork('etl-net', 'team-a', cfg), { network: 'etl-net' });
  assert.deepEqual(taskNetwork('container:db-1', 'team-a', cfg), { network: 'container:db-1' });
  assert.ok('refused' in taskNetwork('host', 'team-a', cfg));
  assert.ok('refused' in taskNetwork('ETL-NET', 'team-a', cfg), 'no case folding');
  assert.ok(
    'refused' in taskNetwork('container:db', 'team-a', { dockerNetwork: 'svc-tasks', dockerNetworks: everywhere('container:db-1') }),
    'one container listed allows only it',
  );
  assert.deepEqual(taskNetwork('host', 'team-a', { dockerNetwork: 'svc-tasks', dockerNetworks: everywhere('host') }), { network: 'host' });
});

test('a network mapped to a namespace prefix serves that namespace and its descendants only, naming the namespace when refused', () => {
  const cfg = {
    dockerNetwork: 'svc-tasks',
    dockerNetworks: [
      { prefix: 'team-a', names: ['net-a'] },
      { prefix: 'team-b', names: ['net-b'] },
      { prefix: null, names: ['shared'] },
    ],
  };
  assert.deepEqual(taskNetwork('net-a', 'team-a', cfg), { network: 'net-a' });
  assert.deepEqual(taskNetwork('net-a', 'team-a.etl', cfg), { network: 'net-a' });
  assert.deepEqual(taskNetwork('shared', 'team-b', cfg), { network: 'shared' });
  const c = taskNetwork('net-b', 'team-a', cfg);
  assert.ok('refused' in c);
  assert.match(c.refused, /^the network net-b is not allowed in namespace team-a: .*\(for namespace team-a it lists net-a, shared\)/);
  assert.ok('refused' in taskNetwork('net-a', 'team-ab', cfg), 'team-a does not cover team-ab');
});

test('NET_RAW is among the dropped capabilities; loopback runner URLs are told apart', () => {
  assert.ok(DROPPED_CAPABILITIES.includes('NET_RAW'));
  assert.equal(isLoopbackUrl('http://127.0.0.1:8080'), true);
  assert.equal(isLoopbackUrl('http://[::1]:8080'), true);
  assert.equal(isLoopbackUrl('http://localhost:8080'), true);
  assert.equal(isLoopbackUrl('http://gateway.svc:8080'), false);
});

test('svc-tasks is created when missing, labelled and not internal; an existing one, or one made meanwhile by another dispatcher, is kept', async () => {
  const status = (code: number) => Object.assign(new Error(`HTTP ${code}`), { statusCode: code });
  const created: unknown[] = [];
  const engine = (exists: boolean, createFails?: number) =>
    ({
      getNetwork: (name: string) => ({ inspect: async () => (exists ? { Name: name, Internal: false } : Promise.reject(status(404))) }),
      createNetwork: async (o: unknown) => {
        created.push(o);
        if (createFails) throw status(createFails);
      },
    }) as unknown as Docker;
  await ensureTaskNetwork(engine(true));
  assert.deepEqual(created, []);
  await ensureTaskNetwork(engine(false));
  assert.deepEqual(created, [
    { Name: 'svc-tasks', Driver: 'bridge', Internal: false, CheckDuplicate: true, Labels: { 'app.kubernetes.io/managed-by': 'svc', 'svc.dev/purpose': 'task-network' } },
  ]);
  await ensureTaskNetwork(engine(false, 409));
  await assert.rejects(ensureTaskNetwork(engine(false, 500)), /HTTP 500/);
});

test('SVC_DOCKER_NETWORK_INTERNAL: svc-tasks is created internal; an existing one that is not internal is refused, naming what to do', async () => {
  const created: { Internal?: boolean }[] = [];
  const engine = (existing: { Internal: boolean } | undefined) =>
    ({
      getNetwork: () => ({ inspect: async () => existing ?? Promise.reject(Object.assign(new Error('HTTP 404'), { statusCode: 404 })) }),
      createNetwork: async (o: { Internal?: boolean }) => void created.push(o),
    }) as unknown as Docker;
  await ensureTaskNetwork(engine(undefined), true);
  assert.equal(created[0]?.Internal, true);
  await ensureTaskNetwork(engine({ Internal: true }), true);
  await assert.rejects(ensureTaskNetwork(engine({ Internal: false }), true), /svc-tasks exists and is not internal, while SVC_DOCKER_NETWORK_INTERNAL is true: remove it/);
  await ensureTaskNetwork(engine({ Internal: true }), false);
  assert.equal(created.length, 1);
});
