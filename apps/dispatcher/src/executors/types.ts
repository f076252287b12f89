import type { ClaimedRun } from '@svc/engine';

/** One executor type's way of running a claimed task run. Resolves when the local work is done. */
export interface Executor {
  readonly type: string;
  /** Task runs this executor runs at once on this instance; default SVC_WORKER_SLOTS (kubernetes: SVC_K8S_MAX_JOBS). */
  readonly slots?: number;
  run(run: ClaimedRun, signal: AbortSignal): Promise<void>;
  /**
   * Whether the executor can run tasks now (docker: its engine answers).
   * Absent: always. The dispatcher claims for it and advertises its type only
   * while it is, so that no instance that cannot run a task holds it.
   */
  available?(): boolean;
  /** Called once before the first claim (checks its engine, sweeps what a crashed dispatcher left). */
  ready?(): Promise<void>;
  /** Releases what the executor keeps between task runs (after the last run ended). */
  close?(): void;
}
