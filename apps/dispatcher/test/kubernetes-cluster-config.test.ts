// Where the kubernetes executor finds its cluster: SVC_K8S_API_URL with
// SVC_K8S_TOKEN (checked against the stand-in's bearer token check), else the
// pod's service account when the dispatcher runs in a cluster, else none (the
// dispatcher then does not serve kubernetes).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { BatchV1Api } from '@kubernetes/client-node';
import { startStandin, type Standin } from '@svc/k8s-standin';
import { apiMessage, kubeConfigFor } from '../src/executors/kubernetes.js';

let s: Standin;
before(async () => {
  s = await startStandin({ namespaces: ['svc-jobs'] });
});
after(() => s.close());

const cfg = (k8sApiUrl: string | undefined, k8sToken: string | undefined) => ({ k8sApiUrl, k8sToken, k8sNamespace: 'svc-jobs' });

test('SVC_K8S_API_URL and SVC_K8S_TOKEN: requests carry the token; a wrong one is refused 401', async () => {
  const kc = kubeConfigFor(cfg(s.url, s.token), {})!;
  assert.equal(kc.getCurrentCluster()!.server, s.url);
  assert.equal(kc.getContextObject(kc.getCurrentContext())!.namespace, 'svc-jobs');
  const list = await kc.makeApiClient(BatchV1Api).listNamespacedJob({ namespace: 'svc-jobs' });
  assert.deepEqual(list.items, []);
  const wrong = kubeConfigFor(cfg(s.url, 'not-the-token'), {})!;
  const err = await wrong
    .makeApiClient(BatchV1Api)
    .listNamespacedJob({ namespace: 'svc-jobs' })
    .then(
      () => null,
      (e: unknown) => e,
    );
  assert.equal((err as { code: number }).code, 401);
  assert.equal(apiMessage(err), 'Unauthorized (HTTP 401)');
});

test('an https SVC_K8S_API_URL verifies the server certificate', () => {
  const kc = kubeConfigFor(cfg('https://k8s.example.com:6443', 'tok'), {})!;
  assert.equal(kc.getCurrentCluster()!.skipTLSVerify, false);
});

test('in a pod (KUBERNETES_SERVICE_HOST): the service account token, CA and API address', async () => {
  const prefix = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-sa-'));
  const dir = path.join(prefix, 'var/run/secrets/kubernetes.io/serviceaccount');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'token'), 'sa-token-123');
  fs.writeFileSync(path.join(dir, 'namespace'), 'svc-system');
  fs.writeFileSync(path.join(dir, 'ca.crt'), '');
  try {
    const kc = kubeConfigFor(cfg(undefined, undefined), { KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443' }, prefix)!;
    assert.equal(kc.getCurrentCluster()!.server, 'https://10.96.0.1:443');
    assert.equal(kc.getCurrentCluster()!.caFile, path.join(dir, 'ca.crt'));
    const opts: { headers?: Record<string, string> } = {};
    await kc.applyToHTTPSOptions(opts as never);
    assert.equal(opts.headers?.Authorization, 'Bearer sa-token-123', 'the token file is read');
    assert.equal(process.env.KUBERNETES_SERVICE_HOST, undefined, 'the process environment is left as it was');
  } finally {
    fs.rmSync(prefix, { recursive: true, force: true });
  }
});

test('neither: no cluster, so no kubernetes executor', () => {
  assert.equal(kubeConfigFor(cfg(undefined, undefined), {}), null);
});
