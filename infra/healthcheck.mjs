#!/usr/bin/env node
// The HEALTHCHECK of the app images (infra/Dockerfile), by SVC_APP:
//   api-gateway   GET /healthz on SVC_PORT (default 8080) answers 200
//   maintenance   GET /metrics on SVC_METRICS_PORT answers 200, when it is set
//   others        PID 1 is alive and not a zombie: the scheduler and the
//                 dispatcher serve no HTTP, and exit when they cannot go on
// Exit 0 healthy, 1 not. Kubernetes uses its own probes (infra/kubernetes).
import fs from 'node:fs';

const app = process.env.SVC_APP ?? '';
const get = async (port, path) => {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(5000) });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
};

try {
  if (app === 'api-gateway') await get(process.env.SVC_PORT || 8080, '/healthz');
  else if (app === 'maintenance' && process.env.SVC_METRICS_PORT) await get(process.env.SVC_METRICS_PORT, '/metrics');
  else {
    const state = fs.readFileSync('/proc/1/stat', 'utf8').replace(/^.*\) /, '')[0];
    if (state === 'Z' || state === 'X') throw new Error(`PID 1 is in state ${state}`);
  }
  process.exit(0);
} catch (err) {
  console.error(`unhealthy: ${err?.message ?? err}`);
  process.exit(1);
}
