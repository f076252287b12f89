// Secrets in the stand-in, as the kubernetes executor uses them for run
// tokens: created (201, with uid), read, refused when the name is taken
// (409) or malformed (422), deleted (404 after), and removed with the Job
// that owns them, as the garbage collector does; a Job whose pod mounts a
// secret volume passes validation, one whose secret volume names no Secret
// does not.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startStandin, type Standin } from '../src/index.js';
import { apiError, clients, job, until } from './support.js';

let s: Standin;
let c: ReturnType<typeof clients>;

before(async () => {
  s = await startStandin({ namespaces: ['default'] });
  c = clients(s);
});
after(() => s.close());

const secret = (name: string, owner?: { name: string; uid: string }) => ({
  metadata: { name, ...(owner ? { ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', ...owner }] } : {}) },
  data: { token: Buffer.from('t0k').toString('base64') },
});

test('a Secret is created, read, refused twice or with a bad name, and deleted', async () => {
  const created = await c.core.createNamespacedSecret({ namespace: 'default', body: secret('one') });
  assert.match(created.metadata!.uid!, /^[0-9a-f-]{36}$/);
  const read = await c.core.readNamespacedSecret({ namespace: 'default', name: 'one' });
  assert.equal(Buffer.from(read.data!.token!, 'base64').toString(), 't0k');
  assert.equal((await apiError(c.core.createNamespacedSecret({ namespace: 'default', body: secret('one') }))).code, 409);
  assert.equal((await apiError(c.core.createNamespacedSecret({ namespace: 'default', body: secret('Bad_Name') }))).code, 422);
  await c.core.deleteNamespacedSecret({ namespace: 'default', name: 'one' });
  assert.equal((await apiError(c.core.readNamespacedSecret({ namespace: 'default', name: 'one' }))).code, 404);
});

test('a Secret owned by a Job goes when the Job is deleted; a secret volume needs a secretName', async () => {
  const j = await c.batch.createNamespacedJob({
    namespace: 'default',
    body: job(
      'owner',
      { image: 'busybox', command: ['true'], volumeMounts: [{ name: 'tok', mountPath: '/t', readOnly: true }] },
      {},
      { volumes: [{ name: 'tok', secret: { secretName: 'owner-token' } }] },
    ),
  });
  await c.core.createNamespacedSecret({ namespace: 'default', body: secret('owner-token', { name: 'owner', uid: j.metadata!.uid! }) });
  await c.core.createNamespacedSecret({ namespace: 'default', body: secret('unowned') });
  await c.batch.deleteNamespacedJob({ namespace: 'default', name: 'owner', propagationPolicy: 'Background' });
  await until('the owned Secret to go', () => !s.secrets.all().some((x) => x.metadata.name === 'owner-token'));
  assert.ok(
    s.secrets.all().some((x) => x.metadata.name === 'unowned'),
    'a Secret of no Job stays',
  );
  const bad = await apiError(
    c.batch.createNamespacedJob({ namespace: 'default', body: job('nosecret', { image: 'busybox', command: ['true'] }, {}, { volumes: [{ name: 'tok', secret: {} }] }) }),
  );
  assert.equal(bad.code, 422);
  assert.match(JSON.stringify(bad.body), /secret\.secretName/);
});
