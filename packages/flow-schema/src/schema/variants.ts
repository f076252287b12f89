/**
 * Which fields each type of task, trigger, executor and input takes. The JSON
 * Schema is generated from these tables (one `if/then` per type) and the error
 * formatter reads them to tell "unknown property" apart from "not allowed for
 * this type", so both always agree.
 */

export const TASK_TYPES = ['script', 'command', 'http', 'subflow'] as const;
export const TRIGGER_TYPES = ['schedule', 'webhook', 'flow'] as const;
export const EXECUTOR_TYPES = ['process', 'docker', 'kubernetes'] as const;
export const INPUT_TYPES = ['string', 'int', 'number', 'boolean', 'select', 'json', 'file'] as const;

/** The fields one value of a discriminator (`type`) adds to the common ones. */
export interface Variant {
  /** Fields this type requires, on top of the common required fields. */
  readonly required: readonly string[];
  /** Fields this type takes, on top of the common fields. */
  readonly fields: readonly string[];
}

/** A family of objects told apart by their `type` field. */
export interface VariantFamily {
  /** Noun used in messages: "a script task", "an http task". */
  readonly noun: string;
  /** Fields every type takes (including `type`). */
  readonly common: readonly string[];
  /** Per type, what it adds. Keys are the allowed values of `type`. */
  readonly variants: Readonly<Record<string, Variant>>;
}

export const TASK_FAMILY: VariantFamily = {
  noun: 'task',
  common: ['id', 'type', 'depends_on', 'run_if', 'timeout', 'retry', 'env', 'for_each', 'for_each_concurrency', 'fail_fast', 'approval'],
  variants: {
    script: { required: ['file'], fields: ['executor', 'files', 'file', 'runtime', 'args', 'output_files'] },
    command: { required: ['command'], fields: ['executor', 'files', 'command', 'workdir', 'output_files'] },
    http: { required: ['url'], fields: ['method', 'url', 'headers', 'body', 'expect_status'] },
    subflow: { required: ['flow'], fields: ['flow', 'inputs', 'wait'] },
  },
};

export const TRIGGER_FAMILY: VariantFamily = {
  noun: 'trigger',
  common: ['id', 'type', 'inputs'],
  variants: {
    schedule: { required: ['cron'], fields: ['cron', 'timezone', 'catch_up'] },
    webhook: { required: [], fields: [] },
    flow: { required: ['flow', 'states'], fields: ['flow', 'states'] },
  },
};

/**
 * `type` is optional on an executor: a task or flow may set only `pool` and
 * inherit the type from the flow, `namespace.yaml` or the instance default.
 * Without a type every executor field is accepted, since the effective type
 * is only known at dispatch.
 */
export const EXECUTOR_FAMILY: VariantFamily = {
  noun: 'executor',
  common: ['type', 'pool'],
  variants: {
    process: { required: [], fields: [] },
    docker: { required: ['image'], fields: ['image', 'inject_runner', 'pull', 'network', 'resources'] },
    kubernetes: { required: ['image'], fields: ['image', 'inject_runner', 'resources', 'kubernetes'] },
  },
};

export const INPUT_FAMILY: VariantFamily = {
  noun: 'input',
  common: ['id', 'type', 'required', 'default', 'description'],
  variants: {
    string: { required: [], fields: [] },
    int: { required: [], fields: [] },
    number: { required: [], fields: [] },
    boolean: { required: [], fields: [] },
    select: { required: ['values'], fields: ['values'] },
    json: { required: [], fields: [] },
    file: { required: [], fields: [] },
  },
};

/** Every field some type of the family takes. */
export function allFields(family: VariantFamily): string[] {
  const out = new Set(family.common);
  for (const v of Object.values(family.variants)) for (const f of v.fields) out.add(f);
  return [...out];
}

/** The types of the family that take `field`, in declaration order. */
export function typesTaking(family: VariantFamily, field: string): string[] {
  if (family.common.includes(field)) return Object.keys(family.variants);
  return Object.entries(family.variants)
    .filter(([, v]) => v.fields.includes(field))
    .map(([name]) => name);
}

/** "a script task", "an http task", "an input". */
export function withArticle(word: string): string {
  return /^[aeiou]/i.test(word) || /^http/i.test(word) ? `an ${word}` : `a ${word}`;
}
