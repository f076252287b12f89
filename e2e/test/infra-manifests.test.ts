// The deployment material in infra/ against the code it deploys (the images
// themselves cannot be built here: no registry for the base image). Every app
// a manifest or the entrypoint starts exists and is built; every SVC_*
// variable set is one the configuration knows; the example configuration of
// the Kubernetes Secret and the pods loads, once its placeholder key is
// replaced, and the placeholder itself stops a service instead of running
// with it; ports and probes match the gateway's defaults and routes; the
// dispatcher's grace period leaves its SIGTERM shutdown time to finish.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import * as yaml from 'js-yaml';
import { describeConfig, parseConfig, parseMasterKeys } from '@svc/config';
import { root } from './stack.js';

const infra = (f: string) => fs.readFileSync(path.join(root, 'infra', f), 'utf8');
const docs = yaml.loadAll(infra('kubernetes/svc.yaml')) as any[];
const deployments = docs.filter((d) => d?.kind === 'Deployment');
const secret = docs.find((d) => d?.kind === 'Secret');
const containers = deployments.flatMap((d) => d.spec.template.spec.containers as any[]);
const known = new Set(describeConfig().map((v) => v.variable));

test('every app the manifests and the entrypoint start exists and is built', () => {
  const apps = containers.map((c) => c.args[0] as string);
  assert.deepEqual(apps.sort(), ['api-gateway', 'dispatcher', 'maintenance', 'scheduler']);
  const entry = infra('entrypoint.sh');
  assert.match(entry, /exec node "\/app\/apps\/\$\{app\}\/dist\/main\.js"/);
  const named = /Runs one svc app: (.*)\./.exec(entry)![1]!.replace(/ ARGS|or /g, '').split(/,\s*/).map((s) => s.trim());
  for (const app of new Set([...apps, ...named, /CMD \["([^"]+)"\]/.exec(infra('Dockerfile'))![1]!])) {
    assert.ok(fs.existsSync(path.join(root, 'apps', app, 'dist', 'main.js')), `apps/${app}/dist/main.js`);
  }
  assert.match(infra('Dockerfile'), /RUN CI=true node scripts\/bootstrap\.mjs/);
  assert.ok(fs.existsSync(path.join(root, 'scripts', 'bootstrap.mjs')));
});

test('every SVC_ variable the manifests and the image set is one the configuration knows', () => {
  const set = [
    ...Object.keys(secret.stringData),
    ...containers.flatMap((c) => (c.env ?? []).map((e: { name: string }) => e.name)),
    ...[...infra('Dockerfile').matchAll(/\b(SVC_[A-Z0-9_]+)=/g)].map((m) => m[1]!),
  ];
  assert.ok(set.length > 5);
  assert.deepEqual(set.filter((v) => !known.has(v)), []);
});

test('the example configuration loads once its key is real; the placeholder key is refused', () => {
  assert.throws(() => parseMasterKeys(secret.stringData.SVC_MASTER_KEYS), /expected 32/);
  const dockerEnv = Object.fromEntries([...infra('Dockerfile').matchAll(/\b(SVC_[A-Z0-9_]+)=(\S+)/g)].map((m) => [m[1]!, m[2]!]));
  for (const c of containers) {
    const env = {
      ...dockerEnv,
      ...secret.stringData,
      SVC_MASTER_KEYS: `k1:${Buffer.alloc(32, 7).toString('base64')}`,
      ...Object.fromEntries((c.env ?? []).map((e: { name: string; value: string }) => [e.name, e.value])),
    };
    const config = parseConfig(env, { cwd: root });
    assert.equal(config.host, '0.0.0.0', `${c.name}: listens beyond loopback in a container`);
    if (c.name === 'dispatcher') assert.deepEqual([config.pools, config.executors], [['default'], ['process']]);
  }
});

test('the gateway port and probes match its defaults and routes; the dispatcher has time for its shutdown', () => {
  const gw = containers.find((c) => c.name === 'api-gateway');
  const port = Number(describeConfig().find((v) => v.variable === 'SVC_PORT')!.default);
  assert.equal(gw.ports[0].containerPort, port);
  assert.match(infra('Dockerfile'), new RegExp(`EXPOSE ${port}\\b`));
  assert.deepEqual([gw.livenessProbe.httpGet.path, gw.readinessProbe.httpGet.path], ['/healthz', '/readyz']);
  assert.equal(gw.readinessProbe.httpGet.port, port);
  const service = docs.find((d) => d?.kind === 'Service');
  assert.equal(service.spec.ports[0].targetPort, port);
  assert.equal(service.spec.selector.app, deployments.find((d) => d.metadata.name === 'svc-api-gateway').spec.template.metadata.labels.app);
  const dispatcher = deployments.find((d) => d.metadata.name === 'svc-dispatcher');
  const killDelayS = Number(describeConfig().find((v) => v.variable === 'SVC_KILL_DELAY_MS')!.default) / 1000;
  assert.ok(dispatcher.spec.template.spec.terminationGracePeriodSeconds > killDelayS, 'SIGTERM, then the tasks get SIGKILL after the kill delay, before Kubernetes kills the pod');
});
