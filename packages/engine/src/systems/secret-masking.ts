// Secret values never leave a task run in what it reports. A task run that
// resolved secrets has them recorded on its row at preparation
// (`task_runs.spec.secrets`: the keys, and the values sealed with the first
// master key, never in plain text); its completion, from whichever source
// (the process or inline executor in a dispatcher, `svc exec` over the runner
// protocol), is masked against those values before it is stored: the error,
// the reason, the outputs (strings at any depth, and keys) and the metrics'
// names and tags. The record is removed when the run ends.
//
// Sealed values, not only keys: a secret rotated (or a provider value that
// changed) while the task ran must still be masked with the value the task
// saw. Without master keys (only provider secrets can resolve then) the keys
// are re-resolved at completion. When neither works, the report is withheld
// (fail closed) rather than stored unmasked.
import type pg from 'pg';
import type { MasterKey } from '@svc/config';
import { Masker } from '@svc/masking';
import { openTaskRunValues, sealTaskRunValues, SecretStore } from '@svc/secrets';
import type { RecordedSecrets, TaskCompletion } from '../types.js';

export type { RecordedSecrets } from '../types.js';

/** The record of the secrets a task run resolved (values sealed when a master key exists). */
export function recordSecrets(taskRunId: string, namespace: string, keys: string[], values: string[], masterKeys: readonly MasterKey[]): RecordedSecrets {
  const sealed = sealTaskRunValues(taskRunId, values, masterKeys);
  return sealed ? { namespace, keys, sealed } : { namespace, keys };
}

/**
 * The secret values of a task run from its record: opened, else re-resolved
 * from the keys. Null when neither works (the caller withholds the report).
 */
export async function recordedValues(pool: pg.Pool | pg.ClientBase, taskRunId: string, rec: RecordedSecrets, masterKeys: readonly MasterKey[]): Promise<string[] | null> {
  // Unopenable when the sealing key was removed meanwhile: the current values then.
  const opened = rec.sealed ? openTaskRunValues(taskRunId, rec.sealed, masterKeys) : undefined;
  if (opened) return opened;
  try {
    const db = pool as pg.Pool;
    const store = SecretStore.withProviders(db, masterKeys);
    const values: string[] = [];
    for (const k of rec.keys) values.push((await store.resolve(rec.namespace, k)).value);
    return values;
  } catch {
    return null;
  }
}

/**
 * Masks text and JSON values against secret values, as @svc/masking does
 * everywhere (each value in all its forms, longest first), and a completion.
 */
export class SecretMasker extends Masker {
  /** Everything a completion carries that came from the task, masked. */
  completion(done: TaskCompletion): TaskCompletion {
    return {
      ...done,
      reason: this.text(done.reason),
      error: this.text(done.error),
      ...(done.outputs ? { outputs: this.value(done.outputs) as Record<string, unknown> } : {}),
      ...(done.metrics
        ? { metrics: done.metrics.map((m) => ({ name: this.text(m.name), value: m.value, ...(m.tags ? { tags: this.value(m.tags) as Record<string, string> } : {}) })) }
        : {}),
    };
  }
}

/** Reasons runners and executors report; any other text is withheld with the rest. */
const KNOWN_REASONS = new Set(['', 'exit_code', 'timeout', 'cancelled', 'instance_shutdown', 'executor_error', 'runtime_not_found', 'unexpected_status', 'http_error']);

/** The report of a task run whose secrets could not be read to mask it: kept out, state and exit code stay. */
export function withheld(done: TaskCompletion): TaskCompletion {
  return {
    state: done.state,
    reason: KNOWN_REASONS.has(done.reason) ? done.reason : '',
    error: done.error ? 'the error text was withheld: the secrets of this task run could not be read to mask it' : '',
    exitCode: done.exitCode,
  };
}
