// The Grafana dashboard and the runbook against the metrics the apps serve:
// every svc_ metric that the apps define (prom-client
// `name:` in apps/*/src and @svc/service) has a panel and a line in the runbook's metric table,
// and every metric a panel queries is one the apps serve (theirs, or
// prom-client's default process metrics). Also: the runbook names the files
// of infra/ it explains, and the README and the deployment page point at it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { root } from './stack.js';
import { servedMetrics } from './served-metrics.js';

/** The svc_ metrics the apps define (served-metrics.ts). */
const served = servedMetrics();
const dashboard = JSON.parse(fs.readFileSync(path.join(root, 'infra/grafana/svc-dashboard.json'), 'utf8')) as {
  panels: { type: string; title: string; targets?: { expr: string }[] }[];
  templating: { list: { name: string }[] };
};
const exprs = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));
const runbook = fs.readFileSync(path.join(root, 'docs/runbook.md'), 'utf8');
/** Series a histogram or counter exposes under its name. */
const base = (series: string) => series.replace(/_(bucket|count|sum)$/, '');
const PROM_CLIENT_DEFAULTS = /^(process|nodejs)_[a-z0-9_]+$/;

test('the apps define the metrics this test expects to find', () => {
  for (const m of [
    'svc_executions',
    'svc_task_runs',
    'svc_queue_depth',
    'svc_http_request_duration_seconds',
    'svc_maintenance_lease_held',
    'svc_maintenance_runs_total',
    'svc_dispatcher_slots_used',
    'svc_schedule_fire_lag_seconds',
    'svc_build_info',
  ]) {
    assert.ok(served.has(m), m);
  }
});

test('every svc_ metric the apps serve has a panel, and every panel queries a served metric', () => {
  const used = new Set(exprs.flatMap((e) => [...e.matchAll(/\b((?:svc|process|nodejs)_[a-z0-9_]+)\b/g)].map((m) => m[1]!)));
  for (const m of served)
    assert.ok(
      [...used].some((u) => base(u) === m || u === m),
      `no panel for ${m}`,
    );
  for (const u of used) assert.ok(served.has(u) || served.has(base(u)) || PROM_CLIENT_DEFAULTS.test(u), `${u} is not served by the apps`);
  assert.ok(dashboard.panels.every((p) => p.type === 'row' || (p.targets?.length ?? 0) > 0));
  assert.deepEqual(
    dashboard.templating.list.map((v) => v.name),
    ['datasource'],
  );
});

test('the runbook explains every served metric and covers each topic of the issue', () => {
  for (const m of served) assert.match(runbook, new RegExp(`\\| \`${m}[{\`]`), `runbook metric table: ${m}`);
  for (const heading of [
    '## Sizing',
    '## Scaling each app',
    '## Rotating master keys',
    '## Upgrading',
    '## Backup and restore',
    '## Metrics and alerts',
    '## Migrations, and how they coexist with the services',
  ]) {
    assert.ok(runbook.includes(`\n${heading}\n`), heading);
  }
  assert.match(runbook, /svc secrets rewrap|"args":\["secrets","rewrap"\]/);
  for (const f of [...runbook.matchAll(/`(infra\/[^`\s]+|\.dockerignore)`/g)].map((m) => m[1]!)) {
    assert.ok(fs.existsSync(path.join(root, f.replace(/\/$/, ''))), `the runbook names ${f}`);
  }
});

test('the README points at the deployment page and the runbook, and the deployment page at infra/', () => {
  const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
  assert.match(readme, /docs\/operating\/deployment\.md/);
  assert.match(readme, /docs\/runbook\.md/);
  const deployment = fs.readFileSync(path.join(root, 'docs/operating/deployment.md'), 'utf8');
  assert.match(deployment, /`infra\//);
  assert.match(deployment, /\(\.\.\/runbook\.md\)/);
});
