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
// answer concerns, their parents and the global scope, plus the secrets an
// execution of the answer used (`secret_keys_used`, provider references
// included). Never every stored secret: masking with a secret the answer did
// not involve would turn masking into an oracle (an operator puts a guess of
// another namespace's secret in a run's inputs and sees whether it comes back
// as `***`).
//
// The scope is taken from server facts only, never from the data returned:
// the record the operation named (the namespace of its path or query, the
// execution of its path, whose namespace is read from the database), and, in
// a list of executions (listExecutions), each listed execution's own
// namespace and secrets, read from the database by the id the server listed.
// A `namespace` key inside the data (a webhook body `{"namespace": "prod",
// "g": [guesses]}`) changes nothing. A failed call (401, 403, 404) read no
// record, so its error is masked with the global scope only. A stored tool
// result keeps the scope of its call, so it is masked the same way when the
// conversation is read or replayed.
import type pg from 'pg';
import type { MasterKey } from '@svc/config';
import { executionSecretKeys } from '@svc/engine/read-models';
import { MASK, Masker } from '@svc/masking';
import { GLOBAL_SCOPE, SecretStore } from '@svc/secrets';

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

/**
 * The scope of an operation call: the namespace its path or query names and
 * the execution its path names (an argument a tool does not pass on to its
 * operation names nothing).
 */
export function scopeOfInput(input: { params?: Record<string, unknown>; query?: Record<string, unknown> } = {}): MaskScope {
  const ns = input.params?.namespace ?? input.query?.namespace;
  return {
    namespaces: typeof ns === 'string' ? [ns] : [],
    executions: typeof input.params?.executionId === 'string' ? [input.params.executionId] : [],
  };
}

/** Nothing named: the global scope only. */
export const NO_SCOPE: MaskScope = { namespaces: [], executions: [] };

/** The scope of a failed call's error: none when it was refused or found nothing (no record of the scope was read). */
export function scopeOfError(scope: MaskScope, status: number): MaskScope {
  return status === 401 || status === 403 || status === 404 ? NO_SCOPE : scope;
}

/** Answers that list executions of more than one namespace (`items`): each item is masked with its own execution's scope. */
const EXECUTION_LISTS: ReadonlySet<string> = new Set(['listExecutions']);

const uniq = (xs: Iterable<string>) => [...new Set(xs)].sort();
const keyOf = (s: MaskScope) => JSON.stringify([uniq(s.namespaces), uniq(s.executions)]);

/** The secret store the masker reads values from (@svc/secrets opens the ciphertexts, for masking only). */
function storeOf(deps: ResultMaskerDeps): SecretStore {
  return SecretStore.withProviders(deps.pool, deps.masterKeys);
}

/** The current values of the builtin secrets `namespace` can read (its chain and the global ones); one that cannot be opened is skipped and logged, never its value. */
function builtinValuesOf(deps: ResultMaskerDeps, namespace: string): Promise<string[]> {
  return storeOf(deps).valuesInScope(namespace, {
    onUnreadable: (scope, key) => deps.log?.warn('a secret could not be opened to mask AI tool results', { namespace: scope, key }),
  });
}

/**
 * An execution's namespace (from the database) and the values of the secrets
 * it used (as they are now), provider references included; none for an
 * unknown execution.
 */
export async function executionSecretValues(deps: ResultMaskerDeps, executionId: string): Promise<{ namespace: string; values: string[] } | undefined> {
  const e = await executionSecretKeys(deps.pool, executionId);
  if (!e) return undefined;
  // A secret deleted or unreachable now cannot be looked up to mask with (valuesOf skips it).
  return { namespace: e.namespace, values: await storeOf(deps).valuesOf(e.namespace, e.keys) };
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
  private readonly maskers = new Map<string, Promise<Masker>>();
  private readonly used = { namespaces: new Set<string>(), executions: new Set<string>() };

  constructor(private readonly deps: ResultMaskerDeps) {}

  private builtin(namespace: string): Promise<string[]> {
    let p = this.perScope.get(namespace);
    if (!p) this.perScope.set(namespace, (p = builtinValuesOf(this.deps, namespace)));
    return p;
  }

  private execution(id: string) {
    let p = this.perExecution.get(id);
    if (!p) this.perExecution.set(id, (p = executionSecretValues(this.deps, id)));
    return p;
  }

  /** The masker of a scope: its namespaces' chains and globals, its executions' namespaces (from the database) and used secrets. */
  async forScope(scope: MaskScope): Promise<Masker> {
    const key = keyOf(scope);
    let p = this.maskers.get(key);
    if (!p) {
      p = (async () => {
        for (const n of scope.namespaces) this.used.namespaces.add(n);
        for (const e of scope.executions) this.used.executions.add(e);
        const namespaces = new Set(scope.namespaces);
        const values: string[] = [];
        for (const e of await Promise.all(scope.executions.map((id) => this.execution(id)))) {
          if (!e) continue;
          namespaces.add(e.namespace);
          values.push(...e.values);
        }
        // Each namespace's chain ends with the global scope, which is read even when no namespace is named.
        const chains = new Set<string>(namespaces.size ? namespaces : [GLOBAL_SCOPE]);
        for (const vs of await Promise.all([...chains].map((n) => this.builtin(n)))) values.push(...vs);
        return new Masker(values);
      })();
      this.maskers.set(key, p);
    }
    return p;
  }

  /** The masker of a call's scope. */
  async masker(scope: MaskScope): Promise<Masker> {
    return this.forScope(scope);
  }

  /**
   * A JSON value with every string (and key) masked with the call's scope;
   * in the answer of an operation that lists executions (`operationId`), each
   * item of `items` with that execution's scope as well, read from the
   * database by the item's id. Never by a `namespace` found in the data.
   */
  async value<T>(v: T, scope: MaskScope, operationId?: string): Promise<T> {
    const top = await this.forScope(scope);
    if (operationId === undefined || !EXECUTION_LISTS.has(operationId) || !v || typeof v !== 'object' || !Array.isArray((v as { items?: unknown }).items)) {
      return top.value(v) as T;
    }
    const { items, ...rest } = v as { items: unknown[] } & Record<string, unknown>;
    const masked = await Promise.all(
      items.map(async (item) => {
        const id = item && typeof item === 'object' ? (item as { id?: unknown }).id : undefined;
        const m = typeof id === 'string' ? await this.forScope({ namespaces: scope.namespaces, executions: [...scope.executions, id] }) : top;
        return m.value(item);
      }),
    );
    return { ...(top.value(rest) as Record<string, unknown>), items: masked } as T;
  }

  /** Text masked with a call's scope; without one, with everything this masker was used for so far (text of the whole turn). */
  async text(s: string, scope?: MaskScope): Promise<string> {
    return (await this.forScope(scope ?? { namespaces: [...this.used.namespaces], executions: [...this.used.executions] })).text(s);
  }

  /**
   * A stored tool result (JSON text, as resultText wrote it) masked again
   * as it was when stored: with its call's scope (and per listed execution,
   * by `operationId`) when it parses, else (cut short) with its call's
   * scope. A result stored before scopes were kept has none: the globals.
   */
  async stored(content: string, scope: MaskScope = NO_SCOPE, operationId?: string): Promise<string> {
    let parsed: unknown;
    try {
      parsed = JSON.parse(content);
    } catch {
      return this.text(content, scope);
    }
    return typeof parsed === 'string' ? this.text(content, scope) : JSON.stringify(await this.value(parsed, scope, operationId));
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
export function restoreMaskedLines(before: string, proposed: string, masker: Masker): { content: string; unresolved: number[] } {
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
