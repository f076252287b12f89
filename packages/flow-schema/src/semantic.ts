// Checks the JSON Schema cannot express, run on a flow that passed the schema:
// unique ids, dependencies that exist and form no cycle, select defaults among
// their values, cron fields in range, known time zones, retry bounds in order,
// and templates that parse and only read what exists where they are used
// (a task reads only its upstream tasks' outputs; `item` and `item_index`
// only in a task with `for_each`), and resources Kubernetes would take: no
// negative quantity, no request above its limit.
import picomatch from 'picomatch';
import { assertNever } from '@svc/assert';
import { cronProblem, isValidTimeZone, parseDuration } from '@svc/timing';
import { compareQuantities, parseQuantity } from '@svc/vocabulary';
import { fieldPath } from './field-path.js';
import type { ExecutorSpec, FlowDefinition, FlowTask, RetryPolicy } from './flow-definition.js';
import type { FlowError } from './flow-error.js';
import type { SourcePositions } from './positions.js';
import { isForEachRoot, mixedSecretExpressions, parseTemplate, soleExpression, TemplateSyntaxError, type ParsedTemplate } from './templates/index.js';
import { compileCondition, ConditionError, isConditionExpression } from './conditions.js';

type At = 'key' | 'value';

class Collector {
  readonly errors: FlowError[] = [];
  constructor(
    private readonly flow: FlowDefinition,
    private readonly positions?: SourcePositions,
  ) {}

  field(pointer: string): string {
    return fieldPath(pointer, this.flow);
  }

  add(pointer: string, message: (field: string) => string, at: At = 'value'): void {
    const field = this.field(pointer);
    const where = this.positions?.locate(pointer, at);
    this.errors.push({ pointer, field, message: message(field), ...(where ? { line: where.line, column: where.column } : {}) });
  }
}

const escape = (token: string) => token.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * Edit distance where swapping two neighbouring letters is one edit (optimal
 * string alignment), for "did you mean" hints on misspelt ids: `dya` is one
 * edit from `day`.
 */
function distance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2][j - 2] + 1);
      d[i][j] = v;
    }
  }
  return d[a.length][b.length];
}

function hint(name: string, candidates: Iterable<string>): string {
  let best: string | undefined;
  let bestD = Infinity;
  for (const c of candidates) {
    const d = distance(name, c);
    if (d < bestD) [best, bestD] = [c, d];
  }
  return best !== undefined && bestD <= Math.max(1, Math.floor(name.length / 3)) ? ` (did you mean "${best}"?)` : '';
}

function checkUniqueIds(c: Collector, items: { id: string }[] | undefined, list: 'tasks' | 'triggers' | 'inputs'): void {
  const seen = new Map<string, number>();
  items?.forEach((item, i) => {
    const first = seen.get(item.id);
    if (first === undefined) seen.set(item.id, i);
    else c.add(`/${list}/${i}/id`, (f) => `${f} "${item.id}" is already used by ${list}[${first}]`);
  });
}

/** Each task's transitive upstream set; cycles are reported and cut. */
/** Whether `candidate` is upstream of `task` (reached through depends_on). */
type IsUpstream = (task: string, candidate: string) => boolean;

/** Reports unknown, self and cyclic dependencies; answers upstream questions. */
function checkGraph(c: Collector, tasks: FlowTask[]): IsUpstream {
  const index = new Map(tasks.map((t, i) => [t.id, i]));
  const deps = new Map<string, string[]>();
  tasks.forEach((t, i) => {
    const known: string[] = [];
    t.depends_on?.forEach((d, j) => {
      if (d === t.id) c.add(`/tasks/${i}/depends_on/${j}`, (f) => `${f}: task "${t.id}" cannot depend on itself`);
      else if (!index.has(d)) c.add(`/tasks/${i}/depends_on/${j}`, (f) => `${f} names no task: "${d}"${hint(d, index.keys())}`);
      else known.push(d);
    });
    deps.set(t.id, known);
  });

  // Depth-first search with colours; a grey node reached again closes a cycle.
  const colour = new Map<string, 'grey' | 'black'>();
  const stack: string[] = [];
  const reported = new Set<string>();
  const visit = (id: string) => {
    colour.set(id, 'grey');
    stack.push(id);
    for (const d of deps.get(id) ?? []) {
      const col = colour.get(d);
      if (col === 'grey') {
        const cycle = [...stack.slice(stack.indexOf(d)), d];
        const key = [...new Set(cycle)].sort().join(',');
        if (!reported.has(key)) {
          reported.add(key);
          const at = index.get(id)!;
          c.add(`/tasks/${at}/depends_on`, (f) => `${f}: dependency cycle ${cycle.join(' → ')}`, 'key');
        }
      } else if (col === undefined) visit(d);
    }
    stack.pop();
    colour.set(id, 'black');
  };
  for (const t of tasks) if (!colour.has(t.id)) visit(t.id);

  // Ancestor sets are built only for tasks whose templates read another task
  // that is not a direct dependency: eager sets cost O(n²) on long chains.
  const ancestors = new Map<string, Set<string>>();
  return (task, candidate) => {
    const direct = deps.get(task) ?? [];
    if (direct.includes(candidate)) return true;
    let set = ancestors.get(task);
    if (!set) {
      set = new Set<string>();
      const todo = [...direct];
      while (todo.length) {
        const d = todo.pop()!;
        if (set.has(d) || d === task) continue;
        set.add(d);
        todo.push(...(deps.get(d) ?? []));
      }
      ancestors.set(task, set);
    }
    return set.has(candidate);
  };
}

function checkInputs(c: Collector, flow: FlowDefinition): void {
  flow.inputs?.forEach((input, i) => {
    if (input.type !== 'select') return;
    // Repeated values are the schema's (uniqueItems); a default among them is ours.
    const values = input.values ?? [];
    if (input.default !== undefined && !values.some((v) => v === input.default)) {
      c.add(`/inputs/${i}/default`, (f) => `${f} ${JSON.stringify(input.default)} is not one of the values: ${values.map((v) => JSON.stringify(v)).join(', ')}`);
    }
  });
}

function checkRetry(c: Collector, retry: RetryPolicy | undefined, pointer: string): void {
  if (!retry?.initial || !retry.max) return;
  if (parseDuration(retry.initial) > parseDuration(retry.max)) {
    c.add(`${pointer}/initial`, (f) => `${f} (${retry.initial}) must not be longer than ${c.field(`${pointer}/max`)} (${retry.max})`);
  }
}

/**
 * What the Kubernetes API server refuses in a pod's resources besides the
 * quantity grammar (the schema's pattern): a negative quantity, and a request
 * above the limit of the same resource. Docker gets the same limits, so the
 * rule holds for both executors.
 */
function checkResources(c: Collector, executor: ExecutorSpec | undefined, pointer: string): void {
  const resources = executor && 'resources' in executor ? executor.resources : undefined;
  if (!resources) return;
  for (const kind of ['requests', 'limits'] as const) {
    for (const name of ['cpu', 'memory'] as const) {
      const q = parseQuantity(resources[kind]?.[name] ?? '');
      if (q && q.nanos < 0n) c.add(`${pointer}/resources/${kind}/${name}`, (f) => `${f} must not be negative, got ${JSON.stringify(q.text)}`);
    }
  }
  for (const name of ['cpu', 'memory'] as const) {
    const request = parseQuantity(resources.requests?.[name] ?? '');
    const limit = parseQuantity(resources.limits?.[name] ?? '');
    if (request && limit && compareQuantities(request, limit) > 0) {
      c.add(`${pointer}/resources/requests/${name}`, (f) => `${f} (${request.text}) must not be more than ${c.field(`${pointer}/resources/limits/${name}`)} (${limit.text})`);
    }
  }
}

function checkTriggers(c: Collector, flow: FlowDefinition): void {
  const inputIds = new Set((flow.inputs ?? []).map((x) => x.id));
  flow.triggers?.forEach((t, i) => {
    for (const key of Object.keys(t.inputs ?? {})) {
      if (!inputIds.has(key)) {
        c.add(`/triggers/${i}/inputs/${escape(key)}`, (f) => `${f} sets input "${key}", which the flow does not declare${hint(key, inputIds)}`, 'key');
      }
    }
    if (t.type !== 'schedule') return;
    const problem = cronProblem(t.cron);
    if (problem) c.add(`/triggers/${i}/cron`, (f) => `${f} ${JSON.stringify(t.cron)} is not a valid cron expression: ${problem}`);
    if (t.timezone !== undefined && !isValidTimeZone(t.timezone)) {
      c.add(`/triggers/${i}/timezone`, (f) => `${f} ${JSON.stringify(t.timezone)} is not a known IANA time zone (e.g. UTC, Europe/Paris, America/New_York)`);
    }
  });
}

/** Where a template is used decides what it may read. */
interface SiteRules {
  /** The task using it: it may read only its upstream tasks. */
  task?: string;
  /** Roots allowed here; default all. */
  roots?: readonly string[];
  /**
   * Whether secret() is allowed (not where the value is stored in the
   * database); 'deferred': allowed alone in its expression, into a string
   * input (trigger inputs: the stored value is masked, tasks read the real one).
   */
  secrets: boolean | 'deferred';
  /** The type of the trigger whose inputs these are: only a schedule's have `trigger.date`. */
  triggerType?: string;
  /** Task references allowed at all (none: flow env, which every task shares). */
  taskRefs: 'upstream' | 'any' | 'none';
  /**
   * `item` and `item_index`: 'allowed' in the templates of a task with
   * `for_each`; 'for_each' in the `for_each` itself (which makes the items)
   * and absent everywhere else, where reading them is an error.
   */
  item?: 'allowed' | 'for_each';
  /** The message when secret() is refused here; default: the value would be stored. */
  noSecrets?: (field: string) => string;
  /** The template must be one `{{ expression }}` and nothing else (`for_each`, which gives a value, not text). */
  sole?: boolean;
  /** `tasks.<id>.files[...]` allowed: the templates of a script or command task, whose runner fetches the files. */
  files?: boolean;
  what: string;
}

interface TemplateSite {
  pointer: string;
  source: string;
  rules: SiteRules;
}

/** Every template string of the flow (strings without `{{` are plain text and skipped). */
function templateSites(flow: FlowDefinition): TemplateSite[] {
  const sites: TemplateSite[] = [];
  const add = (pointer: string, source: string | undefined, rules: SiteRules) => {
    if (typeof source === 'string' && source.includes('{{')) sites.push({ pointer, source, rules });
  };
  const map = (obj: Record<string, string> | undefined, base: string, rules: SiteRules) => {
    if (obj) for (const k of Object.keys(obj)) add(`${base}/${escape(k)}`, obj[k], rules);
  };
  const list = (arr: string[] | undefined, base: string, rules: SiteRules) => {
    if (arr) for (let i = 0; i < arr.length; i++) add(`${base}/${i}`, arr[i], rules);
  };
  map(flow.env, '/env', { secrets: true, taskRefs: 'none', what: 'flow env (shared by every task)' });
  map(flow.outputs, '/outputs', { secrets: false, taskRefs: 'any', what: 'flow outputs (stored with the execution)' });
  // secret() in trigger inputs is deferred (templates/defer-secrets.ts): `inputs` keeps `***`, the tasks that read the input get the value.
  const triggerRules: SiteRules = {
    secrets: 'deferred',
    taskRefs: 'none',
    roots: ['trigger', 'vars', 'labels', 'flow', 'execution'],
    what: 'trigger inputs (resolved as the execution is created)',
  };
  flow.triggers?.forEach((t, i) => map(t.inputs, `/triggers/${i}/inputs`, { ...triggerRules, triggerType: t.type }));
  flow.tasks.forEach((t, i) => {
    const base = `/tasks/${i}`;
    const rules: SiteRules = { task: t.id, secrets: true, taskRefs: 'upstream', what: `task "${t.id}"`, ...(t.for_each !== undefined ? { item: 'allowed' } : {}) };
    if (typeof t.for_each === 'string') {
      add(`${base}/for_each`, t.for_each, {
        task: t.id,
        secrets: false,
        noSecrets: (f) => `${f}: for_each may not read secrets`,
        taskRefs: 'upstream',
        item: 'for_each',
        sole: true,
        what: `for_each of task "${t.id}"`,
      });
    }
    const runs = t.type === 'script' || t.type === 'command' ? { ...rules, files: true } : rules;
    map(t.env, `${base}/env`, runs);
    switch (t.type) {
      case 'script':
        list(t.args, `${base}/args`, runs);
        map(t.files, `${base}/files`, runs);
        break;
      case 'command':
        list(t.command, `${base}/command`, runs);
        map(t.files, `${base}/files`, runs);
        break;
      case 'http':
        add(`${base}/url`, t.url, rules);
        map(t.headers, `${base}/headers`, rules);
        add(`${base}/body`, t.body, rules);
        break;
      case 'subflow':
        map(t.inputs, `${base}/inputs`, { ...rules, secrets: false, what: `subflow inputs of task "${t.id}" (stored as the child's inputs)` });
        break;
      default:
        assertNever(t, 'task');
    }
  });
  return sites;
}

/**
 * The `secret()` references of a flow's templates, by JSON pointer of the
 * template (`/tasks/1/env/TOKEN`), in order; templates that do not parse are
 * left out (validation reports them). For checks of where a flow's secrets
 * may come from (secret providers serve listed namespaces).
 */
export function secretReferenceSites(flow: FlowDefinition): { pointer: string; references: string[] }[] {
  const out: { pointer: string; references: string[] }[] = [];
  for (const { pointer, source } of templateSites(flow)) {
    let parsed: ParsedTemplate;
    try {
      parsed = parseTemplate(source);
    } catch (err) {
      if (err instanceof TemplateSyntaxError) continue;
      throw err;
    }
    if (parsed.secretKeys.length) out.push({ pointer, references: [...parsed.secretKeys] });
  }
  return out;
}

function checkTemplates(c: Collector, flow: FlowDefinition, isUpstream: IsUpstream): void {
  const taskIds = new Set(flow.tasks.map((t) => t.id));
  const gated = new Set(flow.tasks.filter((t) => t.approval !== undefined).map((t) => t.id));
  const inputIds = new Set((flow.inputs ?? []).map((i) => i.id));
  for (const { pointer, source, rules: site } of templateSites(flow)) {
    let parsed: ParsedTemplate;
    try {
      parsed = parseTemplate(source);
    } catch (err) {
      if (err instanceof TemplateSyntaxError) {
        c.add(pointer, (f) => `${f} has a template error: ${err.message}`);
        continue;
      }
      throw err;
    }
    if (site.sole && soleExpression(parsed) === undefined) {
      c.add(pointer, (f) => `${f} must be one {{ expression }} that gives a list, with no text around it or other expressions`);
    }
    if (!site.secrets && parsed.secretKeys.length) {
      c.add(pointer, site.noSecrets ?? ((f) => `${f} cannot use secret(): ${site.what} would store the secret's value`));
    }
    checkForEachRoots(c, pointer, parsed, site);
    if (site.secrets === 'deferred' && parsed.secretKeys.length) {
      for (const e of mixedSecretExpressions(parsed)) {
        c.add(pointer, (f) => `${f}: {{ ${e} }} calls secret() and reads a value too: in trigger inputs, write secret() in an expression of its own`);
      }
      const inputId = pointer
        .slice(pointer.lastIndexOf('/') + 1)
        .replaceAll('~1', '/')
        .replaceAll('~0', '~');
      const declared = flow.inputs?.find((x) => x.id === inputId);
      if (declared && declared.type !== 'string') {
        c.add(pointer, (f) => `${f} reads secret(), so input "${inputId}" must be of type string (it is ${declared.type}): its stored value is masked`);
      }
    }
    if (site.roots) {
      // item and item_index have their own message (checkForEachRoots).
      const bad = parsed.roots.filter((r) => !site.roots!.includes(r) && !isForEachRoot(r));
      if (bad.length) c.add(pointer, (f) => `${f} cannot read ${bad.map((b) => `"${b}"`).join(', ')} here: ${site.what} may read only ${site.roots!.join(', ')}`);
    }
    for (const ref of parsed.refs) {
      if (site.triggerType !== undefined && site.triggerType !== 'schedule' && ref.root === 'trigger' && ref.path[0] === 'date') {
        c.add(pointer, (f) => `${f}: {{ ${ref.text} }} is set only for schedule triggers, not for a ${site.triggerType} trigger`);
      }
      if (ref.root === 'tasks' && ref.path[1] === 'approval' && taskIds.has(String(ref.path[0])) && !gated.has(String(ref.path[0]))) {
        c.add(pointer, (f) => `${f}: {{ ${ref.text} }} reads the approval of task "${String(ref.path[0])}", which has no approval gate`);
      }
      if (ref.root === 'tasks' && ref.path[1] === 'files' && taskIds.has(String(ref.path[0]))) checkFileRef(c, pointer, ref, site, flow);
      if (ref.root === 'inputs' && typeof ref.path[0] === 'string' && !inputIds.has(ref.path[0])) {
        c.add(pointer, (f) => `${f}: {{ ${ref.text} }} reads input "${ref.path[0]}", which the flow does not declare${hint(String(ref.path[0]), inputIds)}`);
      }
    }
    for (const { taskId, expression } of parsed.taskRefs) {
      if (!taskIds.has(taskId)) {
        c.add(pointer, (f) => `${f}: {{ ${expression} }} names no task: "${taskId}"${hint(taskId, taskIds)}`);
      } else if (site.roots && !site.roots.includes('tasks')) {
        // Already reported above: this site may not read the `tasks` root at all.
      } else if (site.taskRefs === 'none') {
        c.add(pointer, (f) => `${f}: {{ ${expression} }} reads task "${taskId}", but ${site.what} cannot read tasks`);
      } else if (site.taskRefs === 'upstream' && site.task !== undefined && !isUpstream(site.task, taskId)) {
        const why =
          taskId === site.task ? 'a task cannot read its own outputs' : `"${taskId}" is not upstream of "${site.task}" (add it to depends_on, directly or through another task)`;
        c.add(pointer, (f) => `${f}: {{ ${expression} }} reads task "${taskId}", but ${why}`);
      }
    }
  }
}

/**
 * `tasks.<id>.files['path']` (docs/using/files.md): only where a runner fetches the file before the command (a script or
 * command task), and only a path that one of the `output_files` patterns of that task can match. Upstream is checked
 * with every task reference.
 */
function checkFileRef(c: Collector, pointer: string, ref: { path: (string | number)[]; text: string }, site: SiteRules, flow: FlowDefinition): void {
  const taskId = String(ref.path[0]);
  const name = ref.path[2];
  if (!site.files) {
    c.add(pointer, (f) => `${f}: {{ ${ref.text} }} reads an output file, but ${site.what} has no working directory to fetch it into (only a script or command task does)`);
    return;
  }
  if (typeof name !== 'string') return; // reported by the path check
  const source = flow.tasks.find((t) => t.id === taskId);
  const patterns = source && (source.type === 'script' || source.type === 'command') ? (source.output_files ?? []) : [];
  if (!patterns.length) {
    c.add(pointer, (f) => `${f}: {{ ${ref.text} }} reads an output file of task "${taskId}", which keeps none (it has no output_files)`);
    return;
  }
  if (!picomatch(patterns, { dot: true })(name)) {
    c.add(pointer, (f) => `${f}: {{ ${ref.text} }}: no output_files pattern of task "${taskId}" matches ${JSON.stringify(name)} (patterns: ${patterns.join(', ')})`);
  }
}

/** `item` and `item_index` read outside the templates of a task with `for_each`: one error per root and template. */
function checkForEachRoots(c: Collector, pointer: string, parsed: ParsedTemplate, site: SiteRules): void {
  if (site.item === 'allowed') return;
  const reported = new Set<string>();
  for (const ref of parsed.refs) {
    if (!isForEachRoot(ref.root) || reported.has(ref.root)) continue;
    reported.add(ref.root);
    const why =
      site.item === 'for_each'
        ? 'for_each itself cannot read it (it gives the items that the rest of the task reads)'
        : `${ref.root} is only defined in a task with for_each${site.task !== undefined ? `, and task "${site.task}" has none` : ''}`;
    c.add(pointer, (f) => `${f}: {{ ${ref.text} }} reads ${ref.root}, but ${why}`);
  }
}

/** Expression conditions (`run_if: "{{ … }}"`) parse, type-check as a bool, and read only upstream tasks. */
function checkConditions(c: Collector, flow: FlowDefinition, isUpstream: IsUpstream): void {
  const taskIds = new Set(flow.tasks.map((t) => t.id));
  flow.tasks.forEach((t, i) => {
    if (!isConditionExpression(t.run_if)) return;
    const pointer = `/tasks/${i}/run_if`;
    let refs: readonly string[];
    try {
      refs = compileCondition(t.run_if).taskRefs;
    } catch (err) {
      if (!(err instanceof ConditionError)) throw err;
      const forEachRoot = /^Unknown variable: (item|item_index)$/.exec(err.message)?.[1];
      if (forEachRoot !== undefined) {
        // A condition is decided once for the whole task, before any item exists.
        c.add(pointer, (f) => `${f} cannot read ${forEachRoot}: ${forEachRoot} is only defined in the templates of a task with for_each, not in run_if`);
        return;
      }
      const where = t.run_if.includes('\n') ? `line ${err.line}, column ${err.column}` : `column ${err.column}`;
      c.add(pointer, (f) => `${f} has an expression error at ${where}: ${err.message}`);
      return;
    }
    for (const id of refs) {
      if (!taskIds.has(id)) c.add(pointer, (f) => `${f} reads task "${id}", which the flow does not have${hint(id, taskIds)}`);
      else if (id === t.id) c.add(pointer, (f) => `${f} reads task "${id}" itself: a condition is decided before its task runs`);
      else if (!isUpstream(t.id, id)) c.add(pointer, (f) => `${f} reads task "${id}", which is not upstream of "${t.id}" (add it to depends_on, directly or through another task)`);
    }
  });
}

/** Runs every semantic check on a schema-valid flow; errors in source order. */
export function checkFlowSemantics(flow: FlowDefinition, positions?: SourcePositions): FlowError[] {
  const c = new Collector(flow, positions);
  checkUniqueIds(c, flow.tasks, 'tasks');
  checkUniqueIds(c, flow.triggers, 'triggers');
  checkUniqueIds(c, flow.inputs, 'inputs');
  const isUpstream = checkGraph(c, flow.tasks);
  checkInputs(c, flow);
  checkTriggers(c, flow);
  checkRetry(c, flow.retry, '/retry');
  flow.tasks.forEach((t, i) => checkRetry(c, t.retry, `/tasks/${i}/retry`));
  checkResources(c, flow.executor, '/executor');
  flow.tasks.forEach((t, i) => checkResources(c, 'executor' in t ? t.executor : undefined, `/tasks/${i}/executor`));
  checkTemplates(c, flow, isUpstream);
  checkConditions(c, flow, isUpstream);
  return c.errors.sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
}
