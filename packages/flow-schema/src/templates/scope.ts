/** What a template can read at dispatch. A root left out is "not available" when read. */
export interface TemplateScope {
  /** Inputs of the execution, after validation (typed values). */
  inputs?: Record<string, unknown>;
  /** Merged variables (flow `variables`, namespace chain, global), see docs/using/secrets-and-variables.md. */
  vars?: Record<string, string>;
  /** Labels of the execution. */
  labels?: Record<string, string>;
  /** `start_date`: when the execution started, RFC 3339 in UTC. */
  execution?: { id: string; namespace: string; flow_id: string | null; start_date: string };
  flow?: { id: string; namespace: string };
  /** Task runs visible to the template, by task id: normally the upstream tasks that ended. */
  tasks?: Record<
    string,
    {
      outputs?: Record<string, unknown> | null;
      state?: string;
      /** Output files of the run that the task will find fetched: name (as matched by `output_files`) to its path relative to the working directory. */
      files?: Record<string, string>;
    }
  >;
  trigger?: {
    /** Parsed JSON body of a webhook, or its text when it is not JSON. */
    body?: unknown;
    /** Request headers of a webhook, names in lower case. */
    headers?: Record<string, string>;
    /** Outputs of the upstream execution of a flow trigger. */
    outputs?: Record<string, unknown>;
    /** The fire time a schedule-triggered (or backfilled) execution is for, RFC 3339 with the schedule's UTC offset. */
    date?: string;
  };
  /** In a task with `for_each`: the item this task run is for (any JSON value). */
  item?: unknown;
  /** In a task with `for_each`: the item's 0-based index in the list. */
  item_index?: number;
}

/**
 * Value of a secret by key, or undefined when no scope has it. Synchronous:
 * the caller fetches the keys of `ParsedTemplate.secretKeys` beforehand.
 */
export type SecretLookup = (key: string) => string | undefined;

export interface RenderResult {
  text: string;
  /** Keys of the secrets actually read, deduplicated, in order of first use. */
  secretKeysUsed: string[];
}
