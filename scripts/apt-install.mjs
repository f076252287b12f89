// apt-get for the test and benchmark runs (`npm test`, `npm run bench`): the
// Debian packages a run needs on a fresh machine (Docker, busybox, musl,
// Chromium), installed once when missing and we are root.
import { spawn } from 'node:child_process';
import fs from 'node:fs';

/** PATH with the sbin directories (dockerd, apt-get's helpers live there; a non-login shell may lack them). */
export function withSbin(p = '') {
  return [...new Set([...p.split(':').filter(Boolean), '/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'])].join(':');
}

/**
 * `apt-get install` of `pkgs`, waiting up to 5 minutes for another apt-get's
 * dpkg lock; on failure the package lists are updated once and the install
 * retried. Resolves `{ ok, output }`.
 */
export function aptInstall(pkgs) {
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive', PATH: withSbin(process.env.PATH) };
  const lock = ['-o', 'DPkg::Lock::Timeout=300'];
  const run = (args) =>
    new Promise((resolve) => {
      const c = spawn('apt-get', args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      c.stdout.on('data', (d) => (output += d));
      c.stderr.on('data', (d) => (output += d));
      c.on('error', (err) => resolve({ ok: false, output: err.message }));
      c.on('exit', (code) => resolve({ ok: code === 0, output }));
    });
  const install = () => run(['install', '-y', '-q', '--no-install-recommends', ...lock, ...pkgs]);
  // No daemon a package ships may start as a service (docker.io's would make a bridge on a private range):
  // Debian's policy-rc.d answers 101 ("not allowed") to every invoke-rc.d while the install runs.
  const policy = '/usr/sbin/policy-rc.d';
  const guarded = !fs.existsSync(policy);
  if (guarded) fs.writeFileSync(policy, '#!/bin/sh\n# written by svc npm test while it installs packages\nexit 101\n', { mode: 0o755 });
  // The package lists may be missing or stale on a fresh machine: update once and retry.
  return install()
    .then((r) => (r.ok ? r : run(['update', '-q', ...lock]).then(install)))
    .finally(() => guarded && fs.rmSync(policy, { force: true }));
}
