#!/usr/bin/env node
// `npm run audit`: the production dependencies of the whole workspace against
// the registry's advisory database (`pnpm audit --prod`). Exit codes:
//   0  no critical advisory
//   1  at least one critical advisory (listed); fix by upgrading
//   3  skipped: the registry's audit endpoint could not be reached or does not
//      answer audits (offline, a mirror without the endpoint); said loudly
//   2  anything else (pnpm failed in a way this script does not know)
// SVC_AUDIT_LEVEL sets the level that fails (default critical).
import { spawnSync } from 'node:child_process';
import { ensurePnpm, pnpmBin, root } from './bootstrap.mjs';

const level = process.env.SVC_AUDIT_LEVEL ?? 'critical';
const LEVELS = ['info', 'low', 'moderate', 'high', 'critical'];

ensurePnpm();
const r = spawnSync(pnpmBin, ['audit', '--prod', '--json', '--audit-level', level], { cwd: root, encoding: 'utf8', timeout: 180_000, maxBuffer: 64 * 1024 * 1024 });
const out = `${r.stdout ?? ''}`;
const err = `${r.stderr ?? ''}${r.error ? `\n${r.error.message}` : ''}`;

function loud(lines) {
  const bar = '!'.repeat(78);
  process.stderr.write(`\n${bar}\n${lines.map((l) => `!! ${l}`).join('\n')}\n${bar}\n\n`);
}

let report;
try {
  report = JSON.parse(out);
} catch {
  report = undefined;
}

if (report?.metadata?.vulnerabilities) {
  const failing = Object.values(report.advisories ?? {}).filter((a) => LEVELS.indexOf(a.severity) >= LEVELS.indexOf(level));
  const counts = report.metadata.vulnerabilities;
  console.log(
    `pnpm audit --prod: ${Object.entries(counts)
      .map(([k, v]) => `${v} ${k}`)
      .join(', ')} (${report.metadata.dependencies ?? '?'} dependencies)`,
  );
  for (const a of failing)
    console.log(
      `${a.severity.toUpperCase()} ${a.module_name} ${a.vulnerable_versions}: ${a.title} (${a.url}); patched: ${a.patched_versions}; via ${(a.findings ?? [])
        .flatMap((f) => f.paths ?? [])
        .slice(0, 3)
        .join(' | ')}`,
    );
  process.exit(failing.length ? 1 : 0);
}

const text = `${out}\n${err}`;
const unreachable =
  /ERR_PNPM_AUDIT_BAD_RESPONSE|ERR_PNPM_AUDIT_ENDPOINT|ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|fetch failed|socket hang up|responded with (40[4-5]|5\d\d)/;
if (r.error?.code === 'ETIMEDOUT' || unreachable.test(text)) {
  const reason = (text.match(/responded with \d+/) ?? text.match(/ERR_PNPM_\w+|E[A-Z]{4,}|fetch failed|socket hang up/) ?? ['unknown'])[0];
  loud([
    `dependency audit SKIPPED: the registry's audit endpoint could not be reached (${reason}).`,
    'Known advisories were NOT checked. Run `npm run audit` where the registry answers audits.',
  ]);
  process.exit(3);
}
process.stderr.write(text);
process.exit(2);
