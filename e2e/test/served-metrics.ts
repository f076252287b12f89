// The svc_ metrics the apps serve: the prom-client `name:` (and `stateGauge('…')`) in the sources of every app with a
// /metrics and of @svc/service, tests left out. Read by the dashboard and runbook test and the alert rules test.
import fs from 'node:fs';
import path from 'node:path';
import { root } from './stack.js';

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [p] : [];
  });
}

export function servedMetrics(): Set<string> {
  return new Set(
    ['apps/api-gateway', 'apps/maintenance', 'apps/dispatcher', 'apps/scheduler', 'packages/service'].flatMap((dir) =>
      sources(path.join(root, dir, 'src')).flatMap((f) =>
        [...fs.readFileSync(f, 'utf8').matchAll(/\bname:\s*'(svc_[a-z0-9_]+)'|stateGauge\('(svc_[a-z0-9_]+)'/g)].map((m) => (m[1] ?? m[2])!),
      ),
    ),
  );
}
