// Replay (an extension, docs/using/executions.md#replay): a new execution of
// an ended one with inputs and labels changed, from a task (the tasks neither
// it nor downstream of it reuse the original's SUCCESS runs, reason
// `reused`; without one every task runs), on the original's pinned flow
// revision and snapshot or on the flow's current ones. Rerun and restart keep
// their meaning (rerun.ts); a replay only adds to them.
import type pg from 'pg';
import { canRerun } from '@svc/state-machine';
import type { FlowDefinition } from '@svc/flow-schema';
import { ExecutionNotFoundError, FlowDisabledError, FlowNotFoundError, NotRestartableError, ReplayInvalidError } from '../errors.js';
import { checkFrom, REPLAY_FROM_KEY, REPLAY_OF_KEY, replayInputs, replayLabels, replayReuse } from '../planning/replay.js';
import { carriedPayloadFields, SECRET_INPUTS_KEY } from '../planning/trigger-date.js';
import { original, type OriginalRow } from '../sql/read-executions.js';
import { flowHead } from '../sql/trigger-flow.js';
import type { Created, NewExecution } from '../types.js';
import { pinnedRun } from './rerun.js';
import type { Starts } from './start.js';

/** What a replay changes; everything left out is the original's. */
export interface ReplayRequest {
  /** Merged over the original's inputs (coerced and checked like a trigger's). */
  inputs?: Record<string, unknown>;
  /** Merged over the original's labels; a label given null is removed. */
  labels?: Record<string, string | null>;
  /** The task to replay from; default none: every task runs. */
  from?: string;
  /** `pinned` (default): the original's flow revision and snapshot; `latest`: the flow's current revision and its namespace's head snapshot. */
  revision?: 'pinned' | 'latest';
}

/** What a replay would do (the dry run's answer), and the execution it starts. */
export interface ReplayPlan {
  /** The original's runs copied into the new execution. */
  reuse: { task_id: string; task_run_id: string }[];
  /** The tasks that run (every task of the chosen definition not reused). */
  run: string[];
  /** The new execution's inputs (a value the original read from secret() stays masked). */
  inputs: Record<string, unknown>;
  labels: Record<string, string>;
  /** Input ids whose value differs from the original's. */
  changed_inputs: string[];
  revision: { kind: 'pinned' | 'latest'; flow_revision_id: string | null };
  /** The original's namespace and flow (for the audit). */
  namespace: string;
  flow_id: string | null;
}

export class Replays {
  constructor(
    private readonly pool: pg.Pool,
    private readonly starts: Starts,
  ) {}

  /** The plan of a replay of execution `id` and the execution it would start (nothing is written). */
  async plan(id: string, req: ReplayRequest, actor: string): Promise<{ plan: ReplayPlan; execution: NewExecution }> {
    const o = await original(this.pool, { id });
    if (!o) throw new ExecutionNotFoundError(`no execution ${id}`);
    if (!canRerun(o.state)) throw new NotRestartableError(`execution ${id} is ${o.state}: replay needs FAILED, TIMED_OUT, CANCELLED or SUCCESS`);
    const kind = req.revision ?? 'pinned';
    const base = kind === 'latest' ? await this.latest(o) : pinnedRun(o);
    const def = base.definition;
    checkFrom(def, req.from);
    const { inputs, secretInputs, changed } = replayInputs(def, o, req.inputs);
    const labels = replayLabels(o.labels, req.labels);
    const reused = replayReuse(def, req.from, req.from === undefined ? new Map() : await this.starts.successRuns(id));
    // The fire time carries over (the same trigger.date); the secret recipes only of the inputs kept.
    const carried = Object.fromEntries(Object.entries(carriedPayloadFields(o.trigger_payload)).filter(([k]) => k !== SECRET_INPUTS_KEY));
    const execution: NewExecution = {
      ...base,
      inputs,
      labels,
      triggerType: 'replay',
      triggerPayload: {
        [REPLAY_OF_KEY]: id,
        ...(req.from !== undefined ? { [REPLAY_FROM_KEY]: req.from } : {}),
        revision: kind,
        original_trigger_type: o.trigger_type,
        ...carried,
        ...(Object.keys(secretInputs).length ? { [SECRET_INPUTS_KEY]: secretInputs } : {}),
      },
      createdBy: actor,
    };
    return {
      execution,
      plan: {
        reuse: [...reused].map(([task_id, r]) => ({ task_id, task_run_id: r.id })),
        run: def.tasks.map((t) => t.id).filter((k) => !reused.has(k)),
        inputs,
        labels,
        changed_inputs: changed,
        revision: { kind, flow_revision_id: base.flowRevisionId },
        namespace: o.namespace,
        flow_id: o.flow_id,
      },
    };
  }

  /** Starts the replay of execution `id` (the copied runs are read again at its start, as a restart's). */
  async replay(id: string, req: ReplayRequest, actor: string): Promise<Created & { plan: ReplayPlan }> {
    const { plan, execution } = await this.plan(id, req, actor);
    return { ...(await this.starts.create(execution)), plan };
  }

  /** The flow's current revision and its namespace's head snapshot. */
  private async latest(o: OriginalRow): Promise<Base> {
    if (!o.flow_id) throw new ReplayInvalidError([{ field: 'revision', message: 'a file run has no flow revision: only pinned' }]);
    const head = await flowHead(this.pool, { namespace: o.namespace, flowId: o.flow_id });
    if (!head || !head.snapshot_id) throw new FlowNotFoundError(`no flow ${o.namespace}/${o.flow_id}`);
    if (!head.enabled) throw new FlowDisabledError(`flow ${o.namespace}/${o.flow_id} is disabled`);
    return {
      namespace: o.namespace,
      flowId: o.flow_id,
      flowRevisionId: head.revision_id,
      definition: head.definition,
      snapshotId: head.snapshot_id,
      snapshotVersion: head.version,
      gitSha: head.git_sha,
    };
  }
}

type Base = Pick<NewExecution, 'namespace' | 'flowId' | 'flowRevisionId' | 'snapshotId' | 'snapshotVersion' | 'gitSha'> & { definition: FlowDefinition };
