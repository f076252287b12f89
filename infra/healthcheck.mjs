#!/usr/bin/env node
// The HEALTHCHECK of the app images (infra/Dockerfile) and the Compose
// healthchecks (infra/compose.yaml):
//   node /app/healthcheck.mjs [healthz|readyz]      (default healthz)
// GETs that route of the app and wants 200: the gateway's on SVC_PORT (default
// 8080); the scheduler's, dispatcher's and maintenance's on SVC_HEALTH_PORT
// (the image sets 9464). With SVC_HEALTH_PORT unset by the operator, those
// serve no HTTP and only PID 1 being alive and not a zombie is checked.
// Exit 0 healthy, 1 not. Kubernetes uses its own probes (infra/kubernetes).
import fs from 'node:fs';

const app = process.env.SVC_APP ?? '';
const route = process.argv[2] ?? 'healthz';
if (route !== 'healthz' && route !== 'readyz') {
  console.error('usage: healthcheck.mjs [healthz|readyz]');
  process.exit(2);
}
const port = app === 'api-gateway' ? process.env.SVC_PORT || 8080 : process.env.SVC_HEALTH_PORT || process.env.SVC_METRICS_PORT;

try {
  if (port) {
    // /readyz answers within its own 5 s budget.
    const res = await fetch(`http://127.0.0.1:${port}/${route}`, { signal: AbortSignal.timeout(6000) });
    const body = await res.text();
    if (res.status !== 200) throw new Error(`/${route} answered ${res.status}: ${body.slice(0, 500)}`);
  } else {
    const state = fs.readFileSync('/proc/1/stat', 'utf8').replace(/^.*\) /, '')[0];
    if (state === 'Z' || state === 'X') throw new Error(`PID 1 is in state ${state}`);
  }
  process.exit(0);
} catch (err) {
  console.error(`unhealthy: ${err?.message ?? err}`);
  process.exit(1);
}
