// The Kustomize components of infra/kubernetes/components (what a Helm chart's
// values would toggle) and the Prometheus rules, against the apps they watch
// and scale. Every component is used by the production-components overlay,
// which infra-manifests.test.ts renders and validates like the others (the
// Kubernetes schemas, the custom resources' CRD schemas, the NetworkPolicies
// walked); here, what a schema cannot know: the PodMonitors scrape the port
// each app serves /metrics on, the PrometheusRule holds exactly the rules of
// infra/prometheus/svc-rules.yaml, which Debian's promtool accepts and whose
// unit tests pass, every metric an alert or the dispatchers' ScaledObject reads
// is one an app serves, the autoscalers own the replicas they scale, and the
// Ingress keeps the streams open and /metrics internal.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import * as yaml from 'js-yaml';
import { describeConfig } from '@svc/config';
import { containersOf, render, type K8sObject } from './infra-kustomize.js';
import { root } from './stack.js';
import { servedMetrics } from './served-metrics.js';

const k8s = path.join(root, 'infra', 'kubernetes');
const COMPONENTS = ['autoscaling', 'ingress', 'monitoring', 'network-policies'];
const overlayDir = path.join(k8s, 'overlays', 'production-components');
const objects = render(overlayDir);
const of = (kind: string) => objects.filter((o) => o.kind === kind);
const byName = (kind: string, name: string) => {
  const found = of(kind).find((o) => o.metadata.name === name);
  assert.ok(found, `${kind}/${name}`);
  return found;
};
const deployments = of('Deployment');
type Pod = { metadata: { labels: Record<string, string>; annotations?: Record<string, string> }; spec: Record<string, unknown> };
const podOf = (d: K8sObject) => (d.spec as { template: Pod }).template;
const rulesFile = path.join(root, 'infra/prometheus/svc-rules.yaml');
type Rule = { alert?: string; record?: string; expr: string; for?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
const rules = yaml.load(fs.readFileSync(rulesFile, 'utf8')) as { groups: { name: string; rules: Rule[] }[] };

/** The svc_ metrics the apps define (served-metrics.ts). */
const served = servedMetrics();
/** prom-client's default metrics, which every app registers. */
const PROM_CLIENT_DEFAULTS = /^(process|nodejs)_[a-z0-9_]+$/;
/** PromQL's functions, aggregations and keywords: every other name in an expression is a metric. */
const PROMQL = new Set(
  'sum min max avg count stddev stdvar topk bottomk quantile count_values group by without on ignoring group_left group_right and or unless bool offset rate irate increase delta idelta deriv predict_linear histogram_quantile absent absent_over_time time vector scalar abs ceil floor round clamp clamp_min clamp_max label_replace label_join sort sort_desc changes resets avg_over_time min_over_time max_over_time sum_over_time count_over_time last_over_time'.split(
    ' ',
  ),
);

/** The metric names an expression reads (label matchers, ranges, grouping labels and strings left out). */
function metricsOf(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  return [...new Set([...bare.matchAll(/\b[a-zA-Z_:][a-zA-Z0-9_:]*\b/g)].map((m) => m[0]).filter((w) => !PROMQL.has(w) && !/^\d/.test(w)))];
}
/** Whether an app serves the series `m` (a histogram's or counter's _bucket/_count/_sum included). */
const isServed = (m: string) => served.has(m) || served.has(m.replace(/_(bucket|count|sum)$/, '')) || PROM_CLIENT_DEFAULTS.test(m);

test('every component is a Kustomize Component, and the production-components overlay uses each', () => {
  assert.deepEqual(fs.readdirSync(path.join(k8s, 'components')).sort(), COMPONENTS);
  const used = (yaml.load(fs.readFileSync(path.join(overlayDir, 'app/kustomization.yaml'), 'utf8')) as { components: string[] }).components;
  assert.deepEqual(used.map((c) => path.basename(c)).sort(), COMPONENTS);
  for (const c of COMPONENTS) {
    const k = yaml.load(fs.readFileSync(path.join(k8s, 'components', c, 'kustomization.yaml'), 'utf8')) as { apiVersion: string; kind: string };
    assert.deepEqual([k.apiVersion, k.kind], ['kustomize.config.k8s.io/v1alpha1', 'Component'], c);
  }
  // The overlays without components carry none of their objects: they apply to a cluster without the CRDs.
  for (const o of ['production', 'staging']) {
    const kinds = new Set(render(path.join(k8s, 'overlays', o)).map((x) => x.kind));
    for (const k of ['PodMonitor', 'PrometheusRule', 'ScaledObject', 'HorizontalPodAutoscaler', 'Ingress']) assert.ok(!kinds.has(k), `${o}: ${k}`);
  }
});

test('monitoring: a PodMonitor for each app, on the port and path its /metrics is served on, copying the labels the rules select by', () => {
  const monitors = of('PodMonitor') as (K8sObject & {
    spec: { selector: { matchLabels: Record<string, string> }; podTargetLabels: string[]; podMetricsEndpoints: { port: string; path: string }[] };
  })[];
  assert.equal(monitors.length, deployments.length);
  const ns = byName('Deployment', 'svc-api-gateway').metadata.namespace;
  for (const d of deployments) {
    const labels = podOf(d).metadata.labels;
    const matching = monitors.filter((m) => Object.entries(m.spec.selector.matchLabels).every(([k, v]) => labels[k] === v));
    assert.equal(matching.length, 1, `${d.metadata.name}: one PodMonitor`);
    const m = matching[0]!;
    assert.equal(m.metadata.namespace, ns, 'beside the pods (a PodMonitor selects in its own namespace)');
    // Only this app's pods: the selector names the app.
    assert.equal(m.spec.selector.matchLabels['app.kubernetes.io/name'], d.metadata.name);
    const [endpoint] = m.spec.podMetricsEndpoints;
    const ports = (containersOf(d)[0]!.ports ?? []) as { name: string; containerPort: number }[];
    const port = ports.find((p) => p.name === endpoint!.port);
    assert.ok(port, `${d.metadata.name}: the port ${endpoint!.port}`);
    // The port the pod says it is scraped on (infra-manifests.test.ts checks that annotation against the app's configuration).
    assert.equal(String(port.containerPort), podOf(d).metadata.annotations?.['prometheus.io/port'], d.metadata.name);
    assert.equal(endpoint!.path, '/metrics');
    for (const l of ['app.kubernetes.io/name', 'app.kubernetes.io/part-of']) {
      assert.ok(m.spec.podTargetLabels.includes(l), `${d.metadata.name}: ${l} onto its series`);
      assert.ok(labels[l], `${d.metadata.name}: its pods carry ${l}`);
    }
  }
});

test('monitoring: the PrometheusRule holds exactly the rules of infra/prometheus/svc-rules.yaml', () => {
  const [rule, ...more] = of('PrometheusRule');
  assert.equal(more.length, 0);
  assert.deepEqual((rule!.spec as { groups: unknown }).groups, rules.groups);
  const alerts = rules.groups.flatMap((g) => g.rules).map((r) => r.alert);
  // The runbook's alerts (docs/runbook.md, "Alerts to set"), and those of the dispatcher and the scheduler.
  for (const a of [
    'SvcGatewayDown',
    'SvcHttpErrors',
    'SvcSlowApi',
    'SvcQueueGrowing',
    'SvcNoMaintenance',
    'SvcMaintenanceStale',
    'SvcMaintenanceErrors',
    'SvcLostTaskRuns',
    'SvcEventLoopLag',
    'SvcNoDispatcher',
    'SvcDispatchersSaturated',
    'SvcScheduleFireLag',
    'SvcMixedVersions',
  ])
    assert.ok(alerts.includes(a), a);
  assert.equal(new Set(alerts).size, alerts.length, 'alert names are unique');
  for (const r of rules.groups.flatMap((g) => g.rules)) {
    assert.ok(['warning', 'critical'].includes(r.labels?.severity ?? ''), `${r.alert}: severity`);
    assert.ok(r.annotations?.summary && r.annotations.description, `${r.alert}: summary and description`);
  }
});

test('every metric an alert or the ScaledObject reads is served by an app (the checker itself catches a misspelt one)', () => {
  assert.ok(served.size > 20, `${served.size} metrics found in the apps' sources`);
  assert.deepEqual(metricsOf('max by (pool) (svc_queue_dept{pool="a b"}[5m]) > 1 and on (x) up'), ['svc_queue_dept', 'up']);
  assert.equal(isServed('svc_queue_dept'), false);
  const reads: [string, string][] = rules.groups.flatMap((g) => g.rules.map((r) => [r.alert!, r.expr] as [string, string]));
  const scaled = byName('ScaledObject', 'svc-dispatcher').spec as { triggers: { type: string; metadata: { query: string } }[] };
  for (const t of scaled.triggers) reads.push([`ScaledObject ${t.type}`, t.metadata.query]);
  for (const [name, expr] of reads) {
    const metrics = metricsOf(expr);
    assert.ok(metrics.length > 0, `${name}: reads a metric`);
    // `up` is Prometheus's own series for each target it scrapes: the PodMonitors' targets.
    for (const m of metrics) assert.ok(m === 'up' || isServed(m), `${name}: ${m} is served by no app`);
  }
});

test("promtool (Debian's prometheus package) accepts the rules file and the PrometheusRule's rules, and the rules' unit tests pass", async () => {
  let promtool = spawnSync('promtool', ['--version'], { encoding: 'utf8' });
  if (promtool.error) {
    // Installed like docker.io and chromium are: apt-get, as root. No promtool is a failure, not a skip.
    assert.equal(process.getuid?.(), 0, 'promtool is missing and cannot be installed (not root): apt-get install prometheus');
    const { aptInstall } = (await import(pathToFileURL(path.join(root, 'scripts/apt-install.mjs')).href)) as {
      aptInstall(pkgs: string[]): Promise<{ ok: boolean; output: string }>;
    };
    const r = await aptInstall(['prometheus']);
    assert.ok(r.ok, `apt-get install prometheus failed: ${r.output.trim().split('\n').slice(-3).join(' | ')}`);
    promtool = spawnSync('promtool', ['--version'], { encoding: 'utf8' });
  }
  assert.equal(promtool.status, 0, promtool.stderr);
  const check = (...args: string[]) => spawnSync('promtool', args, { encoding: 'utf8', cwd: path.dirname(rulesFile) });
  const file = check('check', 'rules', rulesFile);
  assert.equal(file.status, 0, file.stdout + file.stderr);
  const count = rules.groups.flatMap((g) => g.rules).length;
  assert.match(file.stdout, new RegExp(`SUCCESS: ${count} rules found`));
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-rules-'));
  try {
    const fromCrd = path.join(tmp, 'from-prometheus-rule.yaml');
    fs.writeFileSync(fromCrd, yaml.dump({ groups: (byName('PrometheusRule', 'svc').spec as { groups: unknown }).groups }));
    const crd = check('check', 'rules', fromCrd);
    assert.equal(crd.status, 0, crd.stdout + crd.stderr);
    // A broken expression is refused: the check is real.
    const broken = path.join(tmp, 'broken.yaml');
    fs.writeFileSync(broken, yaml.dump({ groups: [{ name: 'x', rules: [{ alert: 'Broken', expr: 'sum(rate(svc_queue_depth[5m])' }] }] }));
    assert.notEqual(check('check', 'rules', broken).status, 0);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  const unit = check('test', 'rules', path.join(path.dirname(rulesFile), 'svc-rules.test.yaml'));
  assert.equal(unit.status, 0, unit.stdout + unit.stderr);
  assert.match(unit.stdout, /SUCCESS/);
});

test("autoscaling: an HPA owns the gateway's replicas, KEDA the dispatchers', on the work waiting and running", () => {
  const gw = byName('Deployment', 'svc-api-gateway');
  const hpa = byName('HorizontalPodAutoscaler', 'svc-api-gateway').spec as {
    scaleTargetRef: { apiVersion: string; kind: string; name: string };
    minReplicas: number;
    maxReplicas: number;
    metrics: { type: string; resource?: { name: string; target: { type: string } } }[];
  };
  assert.deepEqual(hpa.scaleTargetRef, { apiVersion: 'apps/v1', kind: 'Deployment', name: gw.metadata.name });
  assert.ok(hpa.minReplicas >= 2 && hpa.maxReplicas > hpa.minReplicas, 'two at least: a drain or a rollout never leaves one');
  // CPU utilization is measured against the request: the gateway has one.
  assert.ok(hpa.metrics.some((m) => m.resource?.name === 'cpu' && m.resource.target.type === 'Utilization'));
  assert.ok((containersOf(gw)[0]!.resources as { requests: { cpu?: string } }).requests.cpu);
  const d = byName('Deployment', 'svc-dispatcher');
  const so = byName('ScaledObject', 'svc-dispatcher').spec as {
    scaleTargetRef: { name: string; kind?: string };
    minReplicaCount: number;
    maxReplicaCount: number;
    fallback?: { replicas: number };
    triggers: { type: string; metadata: { query: string; threshold: string; serverAddress: string } }[];
  };
  assert.equal(so.scaleTargetRef.name, d.metadata.name);
  assert.equal(so.scaleTargetRef.kind ?? 'Deployment', 'Deployment');
  assert.ok(so.minReplicaCount >= 1 && so.maxReplicaCount > so.minReplicaCount);
  assert.ok((so.fallback?.replicas ?? 0) >= so.minReplicaCount, 'Prometheus unreachable: a safe count');
  const [trigger] = so.triggers;
  assert.equal(trigger!.type, 'prometheus');
  // The queue of the pool this Deployment serves, and the task runs its executor type runs.
  const env = Object.fromEntries(((containersOf(d)[0]!.env ?? []) as { name: string; value?: string }[]).map((e) => [e.name, e.value]));
  assert.match(trigger!.metadata.query, new RegExp(`svc_queue_depth\\{pool="${env.SVC_POOLS}"\\}`));
  assert.match(trigger!.metadata.query, new RegExp(`svc_dispatcher_slots_used\\{executor="${env.SVC_EXECUTORS}"\\}`));
  // The target per dispatcher is within what one dispatcher runs at once.
  const maxJobs = Number(env.SVC_K8S_MAX_JOBS ?? describeConfig().find((v) => v.variable === 'SVC_K8S_MAX_JOBS')!.default);
  const threshold = Number(trigger!.metadata.threshold);
  assert.ok(threshold > 0 && threshold <= maxJobs, `threshold ${threshold} <= ${maxJobs} Jobs per dispatcher`);
  // The autoscalers own the count: an apply must not reset it.
  for (const x of [gw, d]) assert.equal((x.spec as { replicas?: number }).replicas, undefined, `${x.metadata.name}: no replicas`);
  const pdb = byName('PodDisruptionBudget', 'svc-api-gateway').spec as { maxUnavailable: number };
  assert.ok(pdb.maxUnavailable < hpa.minReplicas, 'a drain leaves a gateway running');
});

test('ingress: the gateway behind it with streams unbuffered and kept open for an hour, on SVC_PUBLIC_URL, and /metrics refused to every client', () => {
  const [main, metrics] = [byName('Ingress', 'svc-api-gateway'), byName('Ingress', 'svc-api-gateway-metrics')];
  type Ingress = {
    ingressClassName: string;
    tls: { hosts: string[]; secretName: string }[];
    rules: { host: string; http: { paths: { path: string; pathType: string; backend: { service: { name: string; port: { name: string } } } }[] } }[];
  };
  const spec = (o: K8sObject) => o.spec as Ingress;
  const a = (o: K8sObject) => (o.metadata.annotations ?? {}) as Record<string, string>;
  const config = of('ConfigMap').find((c) => c.metadata.name.startsWith('svc-config-'))!.data as Record<string, string>;
  const host = new URL(config.SVC_PUBLIC_URL!).host;
  const service = byName('Service', 'svc-api-gateway').spec as { ports: { name: string }[] };
  for (const o of [main, metrics]) {
    assert.equal(spec(o).rules[0]!.host, host, `${o.metadata.name}: the public URL's host`);
    assert.deepEqual(spec(o).tls[0]!.hosts, [host]);
    assert.equal(spec(o).ingressClassName, 'nginx');
    const backend = spec(o).rules[0]!.http.paths[0]!.backend.service;
    assert.equal(backend.name, 'svc-api-gateway');
    assert.ok(
      service.ports.some((p) => p.name === backend.port.name),
      `${o.metadata.name}: the Service's port ${backend.port.name}`,
    );
    // Case-insensitive regex locations on the host, so /METRICS meets the /metrics rule.
    assert.equal(a(o)['nginx.ingress.kubernetes.io/use-regex'], 'true');
  }
  assert.equal(a(main)['nginx.ingress.kubernetes.io/proxy-buffering'], 'off');
  assert.equal(a(main)['nginx.ingress.kubernetes.io/proxy-request-buffering'], 'off');
  for (const t of ['proxy-read-timeout', 'proxy-send-timeout']) assert.ok(Number(a(main)[`nginx.ingress.kubernetes.io/${t}`]) >= 3600, t);
  assert.deepEqual(
    spec(main).rules[0]!.http.paths.map((p) => [p.path, p.pathType]),
    [['/', 'Prefix']],
  );
  assert.deepEqual(
    spec(metrics).rules[0]!.http.paths.map((p) => p.path),
    ['/metrics'],
  );
  // No client is ever at loopback as the controller sees it: every request to /metrics gets 403.
  for (const k of ['whitelist-source-range', 'allowlist-source-range']) assert.equal(a(metrics)[`nginx.ingress.kubernetes.io/${k}`], '127.0.0.1/32', k);
  assert.equal(a(metrics)['nginx.ingress.kubernetes.io/proxy-buffering'], undefined, 'nothing is served there to buffer');
});
