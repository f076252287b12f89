import type { Config } from '@svc/config';
import type { Db, Notifier } from '@svc/db';
import type { Engine } from '@svc/engine';
import type { Logger } from '@svc/logging';
import type { Clock } from '@svc/service';
import type { ObjectStore } from '@svc/storage';

/** What the dispatcher and its executors share. */
export interface DispatcherContext {
  config: Config;
  db: Db;
  log: Logger;
  clock: Clock;
  storage: ObjectStore;
  /**
   * The engine: claims, prepares and completes task runs (its `complete` is
   * the one completion path; with its planner started, planning is batched),
   * and stores what runners send.
   */
  engine: Engine;
  instanceId: string;
  /** The process's shared notifier (ServiceContext.notifier): the dispatcher's wake-ups and stops. */
  notifier: Notifier;
  /** Replaces the executor types the instance row advertises. */
  advertise(executors: string[]): Promise<void>;
  heartbeatMs: number;
  killDelayMs: number;
  /** Shows a warning under /readyz's `details` (ServiceContext.readinessDetail; '' removes it); absent in tests that serve no /readyz. */
  readinessDetail?(subject: string, text: string): void;
}
