import client from 'prom-client';
import { buildVersion } from './version.js';

/**
 * `svc_build_info{app, version, node}` = 1 on `registry`: which build each
 * instance runs (the image's SVC_BUILD_VERSION, stamped at build time), for
 * dashboards and alerts that join on it, as Prometheus' own `*_build_info`.
 */
export function registerBuildInfo(registry: client.Registry, app: string): void {
  const gauge = new client.Gauge({
    name: 'svc_build_info',
    help: 'The build this instance runs: 1, labelled with the app, its version and the Node version',
    labelNames: ['app', 'version', 'node'] as const,
    registers: [registry],
  });
  gauge.set({ app, version: buildVersion(), node: process.version }, 1);
}
