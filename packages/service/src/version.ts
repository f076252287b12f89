import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The build version instances report: `SVC_BUILD_VERSION` when the deployment
 * sets it (e.g. an image tag), else the version of the repository's root package.
 */
export function buildVersion(): string {
  if (process.env.SVC_BUILD_VERSION) return process.env.SVC_BUILD_VERSION;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const p = path.join(dir, 'package.json');
    if (fs.existsSync(p)) {
      const pkg = JSON.parse(fs.readFileSync(p, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'svc' && pkg.version) return pkg.version;
    }
    dir = path.dirname(dir);
  }
  return '0.0.0-dev';
}
