// What a flow names outside its namespace (docs/operating/roles.md).
//
// A flow's namespace decides, not who saved it: flows run later, from
// schedules, webhooks and other flows. A `subflow` task may start a flow of
// its own namespace or of a descendant, and a `flow` trigger may listen to
// their executions; another namespace is reached only when an admin lists the
// caller (or an ancestor of it) in the target's `allowed_callers`. A
// `secret('<provider>:...')` reference goes through a provider only when the
// provider's `namespaces` cover the flow's namespace.
//
// Checked when a flow is saved (here: `reachProblems`, refusals as
// flow_invalid details `<path>:<json-pointer>`) and again when it runs (the
// engine calls `mayReach`; @svc/secrets checks a provider's scope at resolve).
import type pg from 'pg';
import { secretReferenceSites, type FlowDefinition } from '@svc/flow-schema';
import { namespaceCovers } from '@svc/vocabulary';
import type { FieldProblem } from './errors.js';

type Queryable = Pick<pg.Pool, 'query'>;

/** Why a caller may reach a target without any allowance: the target is the caller or below it. */
export function reachesByNesting(caller: string, target: string): boolean {
  return namespaceCovers(caller, target);
}

/** The allowed callers of a namespace ([] when it has none or does not exist). */
export async function allowedCallersOf(db: Queryable, namespace: string): Promise<string[]> {
  const r = await db.query<{ allowed_callers: string[] | null }>(`SELECT allowed_callers FROM namespaces WHERE name = $1`, [namespace]);
  return r.rows[0]?.allowed_callers ?? [];
}

/**
 * Whether flows of `caller` may start flows of `target` as subflows and
 * listen to its executions: `target` is `caller` or a descendant, or one of
 * `target`'s allowed callers covers `caller`.
 */
export async function mayReach(db: Queryable, caller: string, target: string): Promise<boolean> {
  if (reachesByNesting(caller, target)) return true;
  return (await allowedCallersOf(db, target)).some((a) => namespaceCovers(a, caller));
}

/** The text of a refusal, the same at save and at run. */
export function reachRefusal(what: 'subflow' | 'flow trigger', caller: string, target: string): string {
  const verb = what === 'subflow' ? 'start a flow of' : 'listen to executions of';
  return (
    `a ${what} of namespace ${caller} may not ${verb} namespace ${target}: ` +
    `flows reach their own namespace and its children only, unless an admin lists ${caller} in the allowed callers of ${target}`
  );
}

/** Whether a provider scope (`namespaces` of a secret provider) serves `namespace`: `*`, or an entry that covers it. */
export function providerServes(scope: readonly string[], namespace: string): boolean {
  return scope.some((s) => namespaceCovers(s, namespace));
}

/** The text of a provider refusal, the same at save and at resolve; never a value (references are names). */
export function providerRefusal(provider: string, namespace: string): string {
  return `secret provider ${provider} does not serve namespace ${namespace}: an admin adds the namespace (or a parent) to the provider's namespaces`;
}

/**
 * What the flows `files` of `namespace` name outside it and may not: subflow
 * targets, flow-trigger upstreams and secret providers. One problem per
 * field, `<path>:<json-pointer>` as every other flow_invalid detail.
 * References to a provider that does not exist are left to run time (a
 * missing provider is `secret_not_found` there, as before).
 */
export async function reachProblems(db: Queryable, namespace: string, files: readonly { path: string; definition: FlowDefinition }[]): Promise<FieldProblem[]> {
  const problems: FieldProblem[] = [];
  const allowance = new Map<string, Promise<boolean>>();
  const reach = (target: string) => {
    let p = allowance.get(target);
    if (!p) allowance.set(target, (p = mayReach(db, namespace, target)));
    return p;
  };
  const uses: { path: string; pointer: string; provider: string }[] = [];
  for (const { path, definition: flow } of files) {
    for (const [i, t] of flow.tasks.entries()) {
      if (t.type !== 'subflow') continue;
      const target = t.flow.split('/')[0];
      if (!(await reach(target))) problems.push({ field: `${path}:/tasks/${i}/flow`, message: `task "${t.id}": ${reachRefusal('subflow', namespace, target)}` });
    }
    for (const [i, t] of (flow.triggers ?? []).entries()) {
      if (t.type !== 'flow') continue;
      const target = t.flow.split('/')[0];
      if (!(await reach(target))) problems.push({ field: `${path}:/triggers/${i}/flow`, message: `trigger "${t.id}": ${reachRefusal('flow trigger', namespace, target)}` });
    }
    for (const site of secretReferenceSites(flow)) {
      for (const ref of site.references) {
        const colon = ref.indexOf(':');
        if (colon > 0) uses.push({ path, pointer: site.pointer, provider: ref.slice(0, colon) });
      }
    }
  }
  if (uses.length) {
    const names = [...new Set(uses.map((u) => u.provider))];
    const scopes = new Map(
      (await db.query<{ name: string; namespaces: string[] | null }>(`SELECT name, namespaces FROM secret_providers WHERE name = ANY($1::text[])`, [names])).rows.map((r) => [
        r.name,
        r.namespaces ?? [],
      ]),
    );
    const reported = new Set<string>();
    for (const u of uses) {
      const scope = scopes.get(u.provider);
      const field = `${u.path}:${u.pointer}`;
      if (scope === undefined || providerServes(scope, namespace) || reported.has(`${field}\n${u.provider}`)) continue;
      reported.add(`${field}\n${u.provider}`);
      problems.push({ field, message: providerRefusal(u.provider, namespace) });
    }
  }
  return problems;
}
