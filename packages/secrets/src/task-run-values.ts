// The secret values a task run resolved, kept sealed on its row while it
// runs so that its completion can be masked with the values the task saw,
// even when a secret changed meanwhile (the engine's completion masking).
// Sealed with the first master key under a context of their own (the task
// run's id), so the record opens only as that run's values; sealing and
// opening stay in this package with every other ciphertext.
import type { MasterKey } from '@svc/config';
import { openText, seal } from './crypto.js';

/** A task run's sealed secret values (a JSON array), base64 fields as stored in JSON. */
export interface SealedTaskRunValues {
  ciphertext: string;
  nonce: string;
  keyId: string;
}

const aad = (taskRunId: string) => `svc/task-run-mask/v1\0${taskRunId}`;

/** `values` sealed for task run `taskRunId`; undefined without master keys. */
export function sealTaskRunValues(taskRunId: string, values: readonly string[], keys: readonly MasterKey[]): SealedTaskRunValues | undefined {
  if (!keys.length) return undefined;
  const s = seal(JSON.stringify(values), keys, aad(taskRunId));
  return { ciphertext: s.ciphertext.toString('base64'), nonce: s.nonce.toString('base64'), keyId: s.keyId };
}

/** For masking only: the values sealed by sealTaskRunValues; undefined when they cannot be opened (the sealing key was removed). */
export function openTaskRunValues(taskRunId: string, sealed: SealedTaskRunValues, keys: readonly MasterKey[]): string[] | undefined {
  try {
    const text = openText({ ciphertext: Buffer.from(sealed.ciphertext, 'base64'), nonce: Buffer.from(sealed.nonce, 'base64'), keyId: sealed.keyId }, keys, aad(taskRunId));
    return JSON.parse(text) as string[];
  } catch {
    return undefined;
  }
}
