// Tool results are masked again before they go anywhere AI: to the model, to
// the turn's event stream, into the stored conversation and its pending
// actions, and to MCP clients. Runners and the engine mask what a task run
// reports before it is stored, but stored text can still hold a secret
// value: a value printed before it was made a secret, a namespace file or a
// flow source with the value written in it, an execution error that quotes
// it. So every result is masked against the current value of every builtin
// secret (every namespace and the global scope), and, for a tool about one
// execution, the secrets it used (provider references included). Masking only
// removes text, so masking with secrets the caller could not read is safe.
import type pg from 'pg';
import type { MasterKey } from '@svc/config';
import { MASK, SecretMasker } from '@svc/engine/internal';
import { openText, ProviderStore, secretAad, SecretStore } from '@svc/secrets';

export interface ResultMaskerDeps {
  pool: pg.Pool;
  masterKeys: readonly MasterKey[];
  log?: { warn(msg: string, meta?: Record<string, unknown>): unknown };
}

/** The current values of every builtin secret; one that cannot be opened (its master key removed) is skipped and logged, never its value. */
export async function builtinSecretValues(deps: ResultMaskerDeps): Promise<string[]> {
  const rows = (await deps.pool.query<{ namespace: string; key: string; ciphertext: Buffer; nonce: Buffer; key_id: string }>(`SELECT namespace, key, ciphertext, nonce, key_id FROM secrets`)).rows;
  const out: string[] = [];
  for (const r of rows) {
    try {
      out.push(openText({ ciphertext: r.ciphertext, nonce: r.nonce, keyId: r.key_id }, deps.masterKeys, secretAad(r.namespace, r.key)));
    } catch {
      deps.log?.warn('a secret could not be opened to mask AI tool results', { namespace: r.namespace, key: r.key });
    }
  }
  return out;
}

/** The values of the secrets an execution used (as they are now), provider references included. */
export async function executionSecretValues(deps: ResultMaskerDeps, executionId: string): Promise<string[]> {
  const e = (await deps.pool.query<{ namespace: string; secret_keys_used: string[] | null }>(`SELECT namespace, secret_keys_used FROM executions WHERE id = $1`, [executionId])).rows[0];
  if (!e?.secret_keys_used?.length) return [];
  const store = new SecretStore({ db: deps.pool, keys: deps.masterKeys, providers: new ProviderStore({ db: deps.pool, keys: deps.masterKeys }) });
  const out: string[] = [];
  for (const key of e.secret_keys_used) {
    try {
      out.push((await store.resolve(e.namespace, key)).value);
    } catch {
      // Deleted or unreachable now: its value cannot be looked up to mask with.
    }
  }
  return out;
}

/**
 * Masks the results of one turn's (or one MCP request's) tool calls. The
 * builtin values are read once, on the first result; an execution's own
 * secrets once per execution.
 */
export class ToolResultMasker {
  private builtin?: Promise<string[]>;
  private readonly perExecution = new Map<string, Promise<string[]>>();

  constructor(private readonly deps: ResultMaskerDeps) {}

  /** The masker for a tool call with these arguments. */
  async masker(args: Record<string, unknown> = {}): Promise<SecretMasker> {
    this.builtin ??= builtinSecretValues(this.deps);
    const values = [...(await this.builtin)];
    const executionId = typeof args.execution_id === 'string' ? args.execution_id : undefined;
    if (executionId) {
      let p = this.perExecution.get(executionId);
      if (!p) this.perExecution.set(executionId, (p = executionSecretValues(this.deps, executionId)));
      values.push(...(await p));
    }
    return new SecretMasker(values);
  }

  /** A JSON value with every string (and key) masked. */
  async value<T>(v: T, args?: Record<string, unknown>): Promise<T> {
    return (await this.masker(args)).value(v) as T;
  }

  async text(s: string, args?: Record<string, unknown>): Promise<string> {
    return (await this.masker(args)).text(s);
  }
}

/**
 * A file the assistant proposes to save was written from the masked text it
 * read: a line that held a secret value reached it as `***`. Such a line
 * copied unchanged gets its real text back (from the file as it is now), so
 * saving does not overwrite the value with `***`. A line with `***` that is
 * not such a copy (changed, or ambiguous: two different lines that mask
 * alike) cannot be restored and is listed, by line number; the caller
 * refuses the save. `***` in a file that holds no secret value is text.
 */
export function restoreMaskedLines(before: string, proposed: string, masker: SecretMasker): { content: string; unresolved: number[] } {
  const real = new Map<string, string | null>();
  const beforeLines = before.split('\n');
  for (const line of beforeLines) {
    const masked = masker.text(line);
    if (masked === line) continue;
    const seen = real.get(masked);
    real.set(masked, seen === undefined || seen === line ? line : null);
  }
  const unresolved: number[] = [];
  if (!real.size) return { content: proposed, unresolved };
  const literal = new Set(beforeLines);
  const content = proposed
    .split('\n')
    .map((line, i) => {
      if (!line.includes(MASK)) return line;
      const r = real.get(line);
      if (typeof r === 'string') return r;
      if (!literal.has(line)) unresolved.push(i + 1);
      return line;
    })
    .join('\n');
  return { content, unresolved };
}

/** What the model and the user are told when a proposed save would write `***` over a secret value. */
export function unresolvedMaskMessage(path: string, lines: number[]): string {
  return `${path}: line${lines.length > 1 ? 's' : ''} ${lines.slice(0, 10).join(', ')} would write *** where the file holds a secret value (shown masked). Keep such lines exactly as read, or change them in the editor.`;
}
