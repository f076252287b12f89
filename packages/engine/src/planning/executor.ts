// Where a task runs, decided from the flow alone: its executor type and pool
// (task, flow, the snapshot's namespace.yaml, the instance default) and the
// settings a container executor reads, each from the nearest level that
// sets it. Pure: the caller reads namespace.yaml (systems/snapshot-facts.ts).
import type { ExecutorSpec, FlowDefinition, FlowTask, UntypedExecutor } from '@svc/flow-schema';
import { parseDuration } from '@svc/timing';
import { DEFAULT_TASK_TIMEOUT_MS } from '../constants.js';

/** The executor part of a snapshot's `namespace.yaml` (null without one). */
export type NamespaceFile = { executor?: ExecutorSpec } | null;

/** Task executor type and pool: task, flow, namespace.yaml, instance default; http and subflow run inline. */
export function resolveExecutor(task: FlowTask, def: FlowDefinition, nsFile: NamespaceFile, fallback: string) {
  if (task.type === 'http' || task.type === 'subflow') return { type: 'inline', pool: 'default' };
  const taskEx = (task as { executor?: { type?: string; pool?: string } }).executor;
  const type = taskEx?.type ?? def.executor?.type ?? nsFile?.executor?.type ?? fallback;
  const pool = taskEx?.pool ?? def.executor?.pool ?? nsFile?.executor?.pool ?? 'default';
  return { type, pool };
}

/** Fields of an executor that a container executor reads (pool and type are the claim's). */
const EXECUTOR_FIELDS = ['type', 'pool', 'image', 'inject_runner', 'pull', 'network', 'resources', 'kubernetes'] as const;

/**
 * A task's executor settings, each field from the nearest level that sets it:
 * the task, the flow, the snapshot's `namespace.yaml` (the same order as the
 * type). An object field (resources, kubernetes) is taken whole from one level.
 */
export function mergeExecutorSpec(task: FlowTask, def: FlowDefinition, nsFile: NamespaceFile): UntypedExecutor & { type?: string } {
  const levels = [(task as { executor?: ExecutorSpec }).executor, def.executor, nsFile?.executor].filter((x): x is ExecutorSpec => !!x);
  const out: Record<string, unknown> = {};
  for (const f of EXECUTOR_FIELDS) {
    const level = levels.find((l) => (l as Record<string, unknown>)[f] !== undefined);
    if (level) out[f] = (level as Record<string, unknown>)[f];
  }
  return out;
}

/** A task's timeout in milliseconds (default 24h), kept on its task runs for the claim. */
export function taskTimeoutMs(t: FlowTask): number {
  return t.timeout ? parseDuration(t.timeout) : DEFAULT_TASK_TIMEOUT_MS;
}
