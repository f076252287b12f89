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
import { openText, ProviderStore, seal, SecretStore } from '@svc/secrets';
import type { RecordedSecrets, TaskCompletion } from '../types.js';

export type { RecordedSecrets } from '../types.js';

/** What replaces a secret value. Same as the runner's log masking. */
export const MASK = '***';

const aad = (taskRunId: string) => `svc/task-run-mask/v1\0${taskRunId}`;

/** The record of the secrets a task run resolved (values sealed when a master key exists). */
export function recordSecrets(taskRunId: string, namespace: string, keys: string[], values: string[], masterKeys: readonly MasterKey[]): RecordedSecrets {
  if (!masterKeys.length) return { namespace, keys };
  const s = seal(JSON.stringify(values), masterKeys, aad(taskRunId));
  return { namespace, keys, sealed: { ciphertext: s.ciphertext.toString('base64'), nonce: s.nonce.toString('base64'), keyId: s.keyId } };
}

/**
 * The secret values of a task run from its record: opened, else re-resolved
 * from the keys. Null when neither works (the caller withholds the report).
 */
export async function recordedValues(pool: pg.Pool | pg.ClientBase, taskRunId: string, rec: RecordedSecrets, masterKeys: readonly MasterKey[]): Promise<string[] | null> {
  if (rec.sealed) {
    try {
      const text = openText(
        { ciphertext: Buffer.from(rec.sealed.ciphertext, 'base64'), nonce: Buffer.from(rec.sealed.nonce, 'base64'), keyId: rec.sealed.keyId },
        masterKeys,
        aad(taskRunId),
      );
      return JSON.parse(text) as string[];
    } catch {
      // The sealing key was removed meanwhile: fall back to the current values.
    }
  }
  try {
    const db = pool as pg.Pool;
    const store = new SecretStore({ db, keys: masterKeys, providers: new ProviderStore({ db, keys: masterKeys }) });
    const values: string[] = [];
    for (const k of rec.keys) values.push((await store.resolve(rec.namespace, k)).value);
    return values;
  } catch {
    return null;
  }
}

/**
 * Masks text and JSON values against secret values: each value, each line of
 * a multi-line value (at least 4 characters, as the runner's log masking),
 * and the value as it appears inside a JSON string and URL-encoded (as a
 * component, as a whole URL, as a form field), since outputs often hold echoed
 * JSON or URLs. Longest first, so no tail of a
 * longer value is left beside a `***`.
 */
export class SecretMasker {
  private readonly pattern: RegExp | null;

  constructor(values: readonly string[]) {
    const all = new Set<string>();
    for (const v of values) {
      if (!v) continue;
      all.add(v);
      all.add(JSON.stringify(v).slice(1, -1));
      for (const enc of [encodeURIComponent, encodeURI, (x: string) => new URLSearchParams({ v: x }).toString().slice(2)]) {
        try {
          all.add(enc(v));
        } catch {
          // A lone surrogate cannot be URL-encoded: only the other forms then.
        }
      }
      if (/[\r\n]/.test(v)) for (const line of v.split(/\r?\n|\r/)) if (line.trim().length >= 4) all.add(line);
    }
    all.delete('');
    const sorted = [...all].sort((a, b) => b.length - a.length);
    this.pattern = sorted.length ? new RegExp(sorted.map(escapeRegExp).join('|'), 'g') : null;
  }

  text(s: string): string {
    return this.pattern ? s.replace(this.pattern, MASK) : s;
  }

  /** A JSON value with every string (and object key) masked, at any depth. */
  value(v: unknown): unknown {
    if (typeof v === 'string') return this.text(v);
    if (Array.isArray(v)) return v.map((x) => this.value(x));
    if (v && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) {
        const key = this.text(k);
        // A `__proto__` key must stay a key (see renderTemplateMap).
        Object.defineProperty(out, key, { value: this.value(x), enumerable: true, writable: true, configurable: true });
      }
      return out;
    }
    return v;
  }

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

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
