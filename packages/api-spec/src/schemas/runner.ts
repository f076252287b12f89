// The runner protocol's wire contract (/api/runner/v1/task-runs/{id}/...),
// declared once. The gateway validates the runner routes against these
// schemas, the OpenAPI document publishes them as components, and both sides
// take their TypeScript types from them: the engine builds a `RunnerSpec` and
// reads a `RunnerCompletion`, the runner (@svc/runner: in-process for the
// process executor, over HTTP as `svc exec`) reads the one and sends the other.
//
// Bodies the runner sends stay open (`additionalProperties: true`) and their
// fields optional where the gateway has a fallback: the runner always sends
// every field, other clients (tests, scripts) may send less.
import { Type, type Static } from '@sinclair/typebox';
import { component, FreeObject, Nullable, StringEnum, StringMap } from './helpers.js';

const open = { additionalProperties: true } as const;

/** The runner spec (response of runnerGetSpec): exactly the spec's fields. */
export const RunnerSpec = component(
  'RunnerSpec',
  Type.Object(
    {
      task_run_id: Type.String(),
      execution_id: Type.String(),
      flow_id: Type.String({ description: 'Empty for file runs' }),
      namespace: Type.String(),
      task_id: Type.String(),
      bundle_hash: Type.String({ description: 'Identifies the archive of runnerGetBundle; empty when the snapshot has no files' }),
      workdir: Type.String({ description: 'Working directory relative to the bundle root; empty means the root' }),
      attempt: Type.Integer(),
      command: Type.Array(Type.String(), { description: 'argv; for script tasks `[file, ...args]`, and the runner prefixes the interpreter' }),
      env: StringMap({ description: "The task's whole environment (SVC_* ids and the rendered env); PATH and HOME fall back to the runner's own" }),
      files: Type.Optional(StringMap({ description: 'Files written before the start: path relative to the bundle root to content' })),
      runtime: Type.Optional(Type.String({ description: 'Interpreter of a script task: `python`, `bash`, `bun` or `node`' })),
      output_files: Type.Optional(
        Type.Array(Type.String(), {
          description:
            "The task's `output_files` globs, relative to the working directory: after a success, the matching files are uploaded with `kind=output` (docs/using/files.md)",
        }),
      ),
      fetch_files: Type.Optional(
        Type.Array(
          Type.Object(
            {
              path: Type.String({ description: 'Where the runner writes it, relative to the working directory (`.svc/files/<task>/<name>`)' }),
              artifact_id: Type.String({ description: 'Fetched with runnerGetFile' }),
              size: Type.Integer({ minimum: 0 }),
              sha256: Type.String({ description: 'hex; the runner checks the bytes it received against it and against `size` before the command starts' }),
            },
            open,
          ),
          {
            description:
              "Files fetched before the command (docs/using/files.md): the output files of upstream tasks that its templates read (`tasks.<id>.files['p']`) and its file inputs. A mismatch fails the task run (executor_error, naming the file). (The contract's name `files` is the written files' map here.)",
          },
        ),
      ),
      limits: Type.Object(
        {
          max_artifact_bytes: Type.Integer({ description: 'Largest artifact uploaded; a larger file is skipped with a warning line. 0 or less: no limit' }),
          max_bundle_bytes: Type.Integer({ description: 'Largest bundle (sum of extracted file sizes); a larger one fails the run. 0 or less: no limit' }),
        },
        open,
      ),
      mask_values: Type.Array(Type.String(), { description: 'Values the runner masks in logs' }),
      timeout_seconds: Type.Integer({ description: 'Seconds before the task is killed as TIMED_OUT; 0 or less: no timeout' }),
    },
    { ...open, description: 'What the runner needs to run one task run' },
  ),
);
export type RunnerSpec = Static<typeof RunnerSpec>;

/** One log line as the runner posts it (the stored line adds the task run's identity: LogLine). */
export const RunnerLogLine = component(
  'RunnerLogLine',
  Type.Object(
    {
      n: Type.Optional(
        Type.Integer({
          minimum: 1,
          maximum: 2147483647,
          description: 'Sequence number, 1, 2, 3 … per task run across both streams; a repeated number is stored once. Absent: the position in the batch',
        }),
      ),
      // At most 8999999999999999999: the column is a bigint.
      ts: Type.Optional(
        Type.String({ pattern: '^(0|[1-9][0-9]{0,17}|[1-8][0-9]{18})$', description: 'Nanoseconds since the epoch as a decimal string. Absent: the time of arrival' }),
      ),
      stream: Type.String({ description: '`stdout` or `stderr`' }),
      text: Type.String({ description: 'One line without its newline, already masked by the runner' }),
    },
    open,
  ),
);
export type RunnerLogLine = Static<typeof RunnerLogLine>;

/** Body of runnerPostLogs. */
export const RunnerLogsRequest = component('RunnerLogsRequest', Type.Object({ lines: Type.Array(RunnerLogLine, { maxItems: 10000 }) }, open));
export type RunnerLogsRequest = Static<typeof RunnerLogsRequest>;

export const RunnerHeartbeatRequest = component('RunnerHeartbeatRequest', FreeObject('Runner liveness; may carry progress'));

/** Answer of runnerHeartbeat. */
export const RunnerHeartbeatResponse = component(
  'RunnerHeartbeatResponse',
  Type.Object({ cancel: Type.Boolean({ description: 'True when the execution is being cancelled: the runner stops the task' }) }, open),
);
export type RunnerHeartbeatResponse = Static<typeof RunnerHeartbeatResponse>;

/** Body of runnerPostEvents (the spec leaves its payload open): one runner event. */
export const RunnerEventsRequest = component(
  'RunnerEventsRequest',
  Type.Object(
    {
      type: StringEnum(['started', 'progress', 'heartbeat'] as const, {
        description: '`started`: the task process started; `progress`: what the runner or task is doing; `heartbeat`: liveness, as runnerHeartbeat',
      }),
      message: Type.Optional(Type.String({ maxLength: 1000, description: "Shown on the task run as `progress.message`; masked against the run's secrets" })),
      percent: Type.Optional(Type.Number({ minimum: 0, maximum: 100 })),
    },
    {
      ...open,
      description: "A runner event: the latest `started` or `progress` event is the task run's `progress` ({type, at, message, percent}) and wakes its execution's event stream",
    },
  ),
);
export type RunnerEventsRequest = Static<typeof RunnerEventsRequest>;

/** The end states a runner reports. */
export const COMPLETION_STATES = ['SUCCESS', 'FAILED', 'TIMED_OUT', 'CANCELLED'] as const;

export const RunnerMetric = component('RunnerMetric', Type.Object({ name: Type.String(), value: Type.Number(), tags: Type.Optional(StringMap()) }, open));
export type RunnerMetric = Static<typeof RunnerMetric>;

/** Body of runnerComplete: the runner's report at the end of a task run. */
export const RunnerCompleteRequest = component(
  'RunnerCompleteRequest',
  Type.Object(
    {
      state: Type.Optional(StringEnum(COMPLETION_STATES, { description: 'Absent: SUCCESS when exit_code is 0, else FAILED' })),
      reason: Type.Optional(Type.String({ description: 'Empty on success; `exit_code`, `timeout`, `cancelled`, `runtime_not_found`, `executor_error`, `instance_shutdown`' })),
      error: Type.Optional(Type.String()),
      exit_code: Type.Optional(
        Nullable(
          Type.Integer({ minimum: -2147483648, maximum: 2147483647, description: "The process's exit code; 128 + signal number when a signal killed it; null when it never ran" }),
        ),
      ),
      outputs: Type.Optional(FreeObject()),
      metrics: Type.Optional(Type.Array(RunnerMetric)),
    },
    open,
  ),
);
export type RunnerCompletion = Static<typeof RunnerCompleteRequest>;
