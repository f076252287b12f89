import type { ClaimedRun, ClaimOptions } from '@svc/engine';

/** How to claim the next run for a slot as its run ends: undefined when the dispatcher claims nothing more (stopping). */
export interface Handoff {
  claim(): Omit<ClaimOptions, 'limit' | 'now'> | undefined;
}

/** One executor type's way of running a claimed task run. Resolves when the local work is done. */
export interface Executor {
  readonly type: string;
  /** Task runs this executor runs at once on this instance; default SVC_WORKER_SLOTS (kubernetes: SVC_K8S_MAX_JOBS). */
  readonly slots?: number;
  /**
   * Runs it. With `handoff`, an executor whose completion goes through the
   * engine in this process may claim the next run for the slot in the
   * transaction that ends this one, and resolves with it (the dispatcher
   * launches it).
   */
  run(run: ClaimedRun, signal: AbortSignal, handoff?: Handoff): Promise<void | ClaimedRun[]>;
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
