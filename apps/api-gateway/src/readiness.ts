// GET /readyz: four checks in parallel under one 5 s budget. Each check
// resolves to 'ok' or throws; the error text becomes that check's value.
// Beside the checks, `details` carries what an operator should know without
// failing readiness (the same property as the other apps' health servers):
// `email` when no mail sender runs, with the number of emails waiting.
import crypto from 'node:crypto';
import type { Config } from '@svc/config';
import type { Db } from '@svc/db';
import { mailReadinessDetail } from '@svc/identity';
import { missingMasterKeyIds } from '@svc/secrets';
import { databaseChecks } from '@svc/service';
import type { ObjectStore } from '@svc/storage';

export const READINESS_TIMEOUT_MS = 5_000;
export const CHECK_NAMES = ['database', 'migrations', 'storage', 'master_keys'] as const;
export type CheckName = (typeof CHECK_NAMES)[number];

export interface ReadinessDeps {
  db: Db;
  storage: ObjectStore;
  config: Pick<Config, 'masterKeys'>;
  instanceId: string;
}

export interface ReadinessReport {
  status: 'ok' | 'fail';
  checks: Record<CheckName, string>;
  failed?: CheckName[];
  /** Warnings that do not fail readiness; absent when there is none. */
  details?: Record<string, string>;
}

/**
 * The warnings of /readyz: `email` when no maintenance instance sends mail
 * (SVC_SMTP_URL unset there), with how many emails wait. A detail that cannot
 * be read in time is left out: it never fails or delays readiness past the budget.
 */
export async function readinessDetails(db: Db, timeoutMs = READINESS_TIMEOUT_MS): Promise<Record<string, string>> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), timeoutMs)));
  try {
    const email = await Promise.race([mailReadinessDetail(db.pool).catch(() => null), late]);
    return email ? { email } : {};
  } finally {
    clearTimeout(timer);
  }
}

type Check = () => Promise<void>;

export function readinessChecks(deps: ReadinessDeps): Record<CheckName, Check> {
  return {
    // The same two checks as the health server of the other apps.
    ...databaseChecks(deps.db),
    async storage() {
      // One key per probe: concurrent /readyz calls must not read or delete each other's object.
      const body = crypto.randomBytes(16).toString('hex');
      const key = `health/${deps.instanceId}/${body}`;
      await deps.storage.put(key, body, { contentType: 'text/plain' });
      const back = (await deps.storage.getBuffer(key)).toString();
      await deps.storage.delete(key);
      if (back !== body) throw new Error('object store returned different content than was written');
    },
    async master_keys() {
      // Builtin secrets and secret provider credentials are both sealed with master keys.
      const missing = await missingMasterKeyIds(deps.db.pool, deps.config.masterKeys);
      if (missing.length) {
        throw new Error(`master_key_missing: SVC_MASTER_KEYS has no key for key id(s) ${missing.join(', ')} used by stored secrets`);
      }
    },
  };
}

function withDeadline(p: Promise<void>, deadline: Promise<never>): Promise<string> {
  return Promise.race([p, deadline]).then(
    () => 'ok',
    (err: unknown) => (err instanceof Error ? err.message : String(err)) || 'failed',
  );
}

export async function runReadiness(checks: Record<CheckName, Check>, timeoutMs = READINESS_TIMEOUT_MS): Promise<ReadinessReport> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs / 1000} s`)), timeoutMs);
  });
  deadline.catch(() => undefined);
  try {
    const results = await Promise.all(CHECK_NAMES.map((name) => withDeadline(checks[name](), deadline)));
    const report = Object.fromEntries(CHECK_NAMES.map((n, i) => [n, results[i]])) as Record<CheckName, string>;
    const failed = CHECK_NAMES.filter((n) => report[n] !== 'ok');
    return failed.length ? { status: 'fail', checks: report, failed } : { status: 'ok', checks: report };
  } finally {
    clearTimeout(timer);
  }
}
