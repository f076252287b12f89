// Tool results are masked again before they go anywhere AI: to the model, to
// the turn's event stream, into the stored conversation and its pending
// actions, to triage evidence, and to MCP clients. Runners and the engine
// mask what a task run reports before it is stored, but stored text can
// still hold a secret value: a value printed before it was made a secret, a
// namespace file or a flow source with the value written in it, an execution
// error that quotes it.
//
// What masks an answer is its own scope, as a run's mask_values are the
// secrets that run resolved: the builtin secrets of the namespaces the
// answer concerns (the tool's `namespace` argument, the namespace of its
// `execution_id`, and, inside the result, the `namespace` of each object for
// that object's part), their parents and the global scope, plus the secrets
// an execution of the answer used (`secret_keys_used`, provider references
// included). Never every stored secret: masking with a secret the answer did
// not involve would turn masking into an oracle (an operator puts a guess of
// another namespace's secret in a run's inputs and sees whether it comes back
// as `***`). A stored tool result keeps the scope of its call, so it is
// masked the same way when the conversation is read or replayed.
import type pg from 'pg';
import type { MasterKey } from '@svc/config';
import { MASK, SecretMasker } from '@svc/engine/internal';
import { GLOBAL_SCOPE, openText, ProviderStore, scopeChain, secretAad, SecretStore } from '@svc/secrets';

export interface ResultMaskerDeps {
  pool: pg.Pool;
  masterKeys: readonly MasterKey[];
  log?: { warn(msg: string, meta?: Record<string, unknown>): unknown };
}

/** What a tool call's answer concerns, from its arguments; stored with a tool result. */
export interface MaskScope {
  namespaces: string[];
  executions: string[];
}

/** The scope of a tool call's arguments: its `namespace` and its `execution_id`. */
export function scopeOfArgs(args: Record<string, unknown> = {}): MaskScope {
  return {
    namespaces: typeof args.namespace === 'string' ? [args.namespace] : [],
    executions: typeof args.execution_id === 'string' ? [args.execution_id] : [],
  };
}

const uniq = (xs: Iterable<string>) => [...new Set(xs)].sort();
const keyOf = (s: MaskScope) => JSON.stringify([uniq(s.namespaces), uniq(s.executions)]);

/** The current values of the builtin secrets of one stored scope ('' global); one that cannot be opened is skipped and logged, never its value. */
async function builtinValuesOf(deps: ResultMaskerDeps, namespace: string): Promise<string[]> {
  const rows = (
    await deps.pool.query<{ key: string; ciphertext: Buffer; nonce: Buffer; key_id: string }>(`SELECT key, ciphertext, nonce, key_id FROM secrets WHERE namespace = $1`, [
      namespace,
    ])
  ).rows;
  const out: string[] = [];
  for (const r of rows) {
    try {
      out.push(openText({ ciphertext: r.ciphertext, nonce: r.nonce, keyId: r.key_id }, deps.masterKeys, secretAad(namespace, r.key)));
    } catch {
      deps.log?.warn('a secret could not be opened to mask AI tool results', { namespace, key: r.key });
    }
  }
  return out;
}

/**
 * An execution's namespace and the values of the secrets it used (as they are
 * now), provider references included; none for an unknown execution, or one
 * outside `inNamespace` when given (an object's `id` that is not its execution).
 */
export async function executionSecretValues(deps: ResultMaskerDeps, executionId: string, inNamespace?: string): Promise<{ namespace: string; values: string[] } | undefined> {
  const e = (await deps.pool.query<{ namespace: string; secret_keys_used: string[] | null }>(`SELECT namespace, secret_keys_used FROM executions WHERE id = $1`, [executionId]))
    .rows[0];
  if (!e || (inNamespace !== undefined && e.namespace !== inNamespace)) return undefined;
  const store = new SecretStore({ db: deps.pool, keys: deps.masterKeys, providers: new ProviderStore({ db: deps.pool, keys: deps.masterKeys }) });
  const values: string[] = [];
  for (const key of e.secret_keys_used ?? []) {
    try {
      values.push((await store.resolve(e.namespace, key)).value);
    } catch {
      // Deleted or unreachable now: its value cannot be looked up to mask with.
    }
  }
  return { namespace: e.namespace, values };
}

/**
 * Masks the answers of one turn's (or one MCP request's, one triage's) tool
 * calls, each with its own scope. Values are read once per scope and
 * execution; the scopes used are remembered, so text that belongs to the
 * whole turn (a provider's error) is masked with what the turn involved.
 */
export class ToolResultMasker {
  private readonly perScope = new Map<string, Promise<string[]>>();
  private readonly perExecution = new Map<string, Promise<{ namespace: string; values: string[] } | undefined>>();
  private readonly maskers = new Map<string, Promise<SecretMasker>>();
  private readonly used = { namespaces: new Set<string>(), executions: new Set<string>() };

  constructor(private readonly deps: ResultMaskerDeps) {}

  private builtin(namespace: string): Promise<string[]> {
    let p = this.perScope.get(namespace);
    if (!p) this.perScope.set(namespace, (p = builtinValuesOf(this.deps, namespace)));
    return p;
  }

  private execution(id: string, inNamespace?: string) {
    const k = `${id}\0${inNamespace ?? ''}`;
    let p = this.perExecution.get(k);
    if (!p) this.perExecution.set(k, (p = executionSecretValues(this.deps, id, inNamespace)));
    return p;
  }

  /** The masker of a scope: its namespaces' chains and globals, its executions' namespaces and used secrets. */
  async forScope(scope: MaskScope, objectIds: { id: string; namespace: string }[] = []): Promise<SecretMasker> {
    const key = keyOf(scope) + JSON.stringify(objectIds);
    let p = this.maskers.get(key);
    if (!p) {
      p = (async () => {
        for (const n of scope.namespaces) this.used.namespaces.add(n);
        for (const e of scope.executions) this.used.executions.add(e);
        const namespaces = new Set(scope.namespaces);
        const values: string[] = [];
        const execs = [...scope.executions.map((id) => this.execution(id)), ...objectIds.map((o) => this.execution(o.id, o.namespace))];
        for (const e of await Promise.all(execs)) {
          if (!e) continue;
          namespaces.add(e.namespace);
          values.push(...e.values);
        }
        const stored = new Set<string>([GLOBAL_SCOPE]);
        for (const n of namespaces) for (const s of scopeChain(n)) stored.add(s);
        for (const vs of await Promise.all([...stored].map((s) => this.builtin(s)))) values.push(...vs);
        return new SecretMasker(values);
      })();
      this.maskers.set(key, p);
    }
    return p;
  }

  /** The masker for a tool call with these arguments (its argument scope only). */
  async masker(args: Record<string, unknown> = {}): Promise<SecretMasker> {
    return this.forScope(scopeOfArgs(args));
  }

  /**
   * A JSON value with every string (and key) masked: with the arguments'
   * scope, and an object that names its `namespace` (a flow, an execution of
   * a list) with that namespace instead (and, when its `id` is an execution
   * of that namespace, that execution's secrets).
   */
  async value<T>(v: T, args?: Record<string, unknown> | MaskScope): Promise<T> {
    const scope = isScope(args) ? args : scopeOfArgs(args);
    const plan = new Map<unknown, Promise<SecretMasker>>();
    const walk = (x: unknown, s: MaskScope, ids: { id: string; namespace: string }[]) => {
      if (Array.isArray(x)) return x.forEach((y) => walk(y, s, ids));
      if (!x || typeof x !== 'object') return;
      const o = x as Record<string, unknown>;
      if (typeof o.namespace === 'string') {
        s = { namespaces: [o.namespace], executions: s.executions };
        ids = typeof o.id === 'string' ? [{ id: o.id, namespace: o.namespace }] : [];
      }
      plan.set(o, this.forScope(s, ids));
      for (const y of Object.values(o)) walk(y, s, ids);
    };
    walk(v, scope, []);
    const top = await this.forScope(scope);
    const resolved = new Map<unknown, SecretMasker>();
    for (const [o, p] of plan) resolved.set(o, await p);
    const apply = (x: unknown, m: SecretMasker): unknown => {
      if (typeof x === 'string') return m.text(x);
      if (Array.isArray(x)) return x.map((y) => apply(y, m));
      if (!x || typeof x !== 'object') return x;
      const mo = resolved.get(x) ?? m;
      const out: Record<string, unknown> = {};
      // A `__proto__` key must stay a key (as SecretMasker.value does).
      for (const [k, y] of Object.entries(x)) Object.defineProperty(out, mo.text(k), { value: apply(y, mo), enumerable: true, writable: true, configurable: true });
      return out;
    };
    return apply(v, top) as T;
  }

  /** Text masked with the arguments' scope; without arguments, with everything this masker was used for so far (text of the whole turn). */
  async text(s: string, args?: Record<string, unknown> | MaskScope): Promise<string> {
    const scope = args === undefined ? { namespaces: [...this.used.namespaces], executions: [...this.used.executions] } : isScope(args) ? args : scopeOfArgs(args);
    return (await this.forScope(scope)).text(s);
  }

  /**
   * A stored tool result (JSON text, as resultText wrote it) masked again
   * as it was when stored: per object when it parses, else (cut short) with
   * its call's scope. A result stored before scopes were kept has none: the
   * objects' own namespaces and the globals then.
   */
  async stored(content: string, scope: MaskScope = { namespaces: [], executions: [] }): Promise<string> {
    let parsed: unknown;
    try {
      parsed = JSON.parse(content);
    } catch {
      return this.text(content, scope);
    }
    return typeof parsed === 'string' ? this.text(content, scope) : JSON.stringify(await this.value(parsed, scope));
  }
}

function isScope(x: unknown): x is MaskScope {
  return !!x && typeof x === 'object' && Array.isArray((x as MaskScope).namespaces) && Array.isArray((x as MaskScope).executions);
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
