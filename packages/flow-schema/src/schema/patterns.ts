import { DURATION_PATTERN } from '@svc/timing';
import { QUANTITY_PATTERN as VOCABULARY_QUANTITY_PATTERN } from '@svc/vocabulary';

/**
 * Regular expressions of the flow file, shared by the JSON Schema and by the
 * error wording, so that a pattern and its human explanation cannot drift apart.
 * They are written for ajv's `u` (unicode) regular expressions and for the
 * ECMA-262 dialect that YAML language servers use.
 */

/** Flow id: lower-case letters, digits, hyphens; starts with a letter or digit. */
export const FLOW_ID_PATTERN = '^[a-z0-9][a-z0-9-]*$';

/** Task and input ids: a lower-case letter, then lower-case letters, digits, underscores. */
export const TASK_ID_PATTERN = '^[a-z][a-z0-9_]*$';

/** Trigger ids: like task ids, but hyphens are allowed too. */
export const TRIGGER_ID_PATTERN = '^[a-z][a-z0-9_-]*$';

/** Executor pool names: lower-case letters, digits and hyphens. */
export const POOL_PATTERN = '^[a-z0-9-]+$';

/**
 * One or more groups of a decimal number and a unit (`30s`, `1h30m`, `1.5h`).
 * Both micro signs are accepted (U+00B5 as in the spec, and the Greek U+03BC
 * that some keyboards produce), as Go's time.ParseDuration does. Longer units
 * come first in the alternation only for readability: the `$` anchor makes the
 * order irrelevant for correctness.
 */
// One grammar for the schema and for the parser every service uses (@svc/timing).
export { DURATION_PATTERN };

/**
 * Five whitespace-separated fields of cron characters (digits, names such as
 * MON or JAN, `*`, `,`, `-`, `/`), or one of the four macros of the spec.
 * Ranges inside each field are checked by the scheduler's cron parser; the
 * schema only catches the shape (a wrong number of fields is the usual typo).
 */
export const CRON_PATTERN = '^(?:@(?:hourly|daily|weekly|monthly)|[0-9A-Za-z*,/-]+(?:[ \\t]+[0-9A-Za-z*,/-]+){4})$';

/**
 * The shape of an IANA zone name (`UTC`, `Europe/Paris`, `America/Argentina/Buenos_Aires`,
 * `Etc/GMT+5`). Whether the zone exists is checked semantically with
 * `Intl.DateTimeFormat`, not with a JSON Schema `format`, because the zone
 * database belongs to the runtime, not to the schema.
 */
export const TIMEZONE_PATTERN = '^[A-Za-z][A-Za-z0-9_+-]*(?:/[A-Za-z0-9_+-]+)*$';

/**
 * A `<namespace>/<flow_id>` reference. Namespace names are at most 128
 * characters and appear as one URL path segment in the API, so they hold no
 * slash or whitespace; the flow id part follows {@link FLOW_ID_PATTERN}.
 */
export const FLOW_REF_PATTERN = '^[^/\\s]{1,128}/[a-z0-9][a-z0-9-]{0,62}$';

/**
 * A path relative to the namespace root: not absolute, no `..` segment, no
 * backslash (so a Windows-style path cannot escape either).
 */
export const RELATIVE_PATH_PATTERN = '^(?!/)(?!.*(?:^|/)\\.\\.(?:/|$))[^\\\\]+$';

/** Script files whose runtime can be inferred from the extension. */
export const INFERABLE_SCRIPT_PATTERN = '\\.(?:py|sh|ts|js)$';

/**
 * A Kubernetes quantity (CPU and memory alike), exactly as Kubernetes reads
 * one: @svc/vocabulary's parser, which the executors use too.
 */
export const QUANTITY_PATTERN = VOCABULARY_QUANTITY_PATTERN;

/** `run_if`: a keyword, or one `{{ expression }}` (the expression is checked by conditions.ts). */
export const RUN_IF_PATTERN = '^(success|failure|always|\\s*\\{\\{[\\s\\S]*\\}\\}\\s*)$';

/** `for_each` as a string: a template that is one `{{ expression }}` (that it is only one is checked by semantic.ts). */
export const FOR_EACH_PATTERN = '^\\s*\\{\\{[\\s\\S]*\\}\\}\\s*$';

/**
 * What each pattern means, worded to finish the sentence "`field` must ...".
 * The error formatter looks a failing pattern up here; a pattern missing from
 * this table falls back to quoting the regular expression.
 */
export const PATTERN_HINTS: ReadonlyMap<string, string> = new Map([
  [FLOW_ID_PATTERN, 'contain only lower-case letters, digits and hyphens, and start with a letter or digit'],
  [TASK_ID_PATTERN, 'start with a lower-case letter and contain only lower-case letters, digits and underscores'],
  [TRIGGER_ID_PATTERN, 'start with a lower-case letter and contain only lower-case letters, digits, underscores and hyphens'],
  [POOL_PATTERN, 'contain only lower-case letters, digits and hyphens'],
  [DURATION_PATTERN, 'be a duration such as 30s, 10m, 2h or 1h30m (units ns, us, µs, ms, s, m, h)'],
  [CRON_PATTERN, 'be a cron expression of five fields (minute hour day-of-month month day-of-week) or one of @hourly, @daily, @weekly, @monthly'],
  [TIMEZONE_PATTERN, 'be an IANA time zone name such as UTC or Europe/Paris'],
  [FLOW_REF_PATTERN, 'be a flow reference of the form <namespace>/<flow_id>'],
  [RELATIVE_PATH_PATTERN, 'be a path relative to the namespace root (not absolute, no "..", no backslash)'],
  [INFERABLE_SCRIPT_PATTERN, 'end in .py, .sh, .ts or .js, or the task must set runtime'],
  [QUANTITY_PATTERN, 'be a Kubernetes quantity such as 2, 0.5, 500m, 512Mi, 1Gi, 1k or 1e3 (suffixes n, u, m, k, M, G, T, P, E, Ki, Mi, Gi, Ti, Pi, Ei)'],
  [RUN_IF_PATTERN, 'be success, failure, always, or one {{ expression }} such as "{{ inputs.env == \'prod\' }}"'],
  [FOR_EACH_PATTERN, 'be a list, or one {{ expression }} that gives a list, such as "{{ tasks.list.outputs.tables }}"'],
]);
