// What an Engine is built from (one bag of resources, built by each app's
// main.ts) and what its systems share (SystemResources: the bag, the start
// dependencies and the engine's own follow-up runner), after Trigger.dev's
// run engine, whose systems receive one explicit bag of resources.
import type pg from 'pg';
import type { ExecutorType, MasterKey } from '@svc/config';
import type { components } from '@svc/api-spec';
import type { ObjectStore } from '@svc/storage';
import { runFollowUps } from './systems/followups.js';
import type { FollowUp } from './systems/outbox.js';
import { SnapshotFacts } from './systems/snapshot-facts.js';
import type { StartDeps } from './systems/start.js';
import { FlowCache } from './systems/trigger.js';
import type { TriggerRequest } from './systems/trigger.js';

/** The API's Execution object (getExecution), as the engine returns it. */
export type ApiExecution = components['schemas']['Execution'];

/** The object store (files, bundles, artifacts). */
export type EngineStorage = ObjectStore;

/** The one bag of resources an Engine is built from. */
export interface EngineResources {
  /** The pool every engine statement runs on (the app's one pool). */
  pool: pg.Pool;
  storage: EngineStorage;
  /** The time of new rows and rules. Tests move it; the database's clock judges heartbeats and leases. */
  clock: { now(): Date };
  config: {
    /** SVC_DEFAULT_EXECUTOR. */
    defaultExecutor: ExecutorType;
    /** SVC_MASTER_KEYS: open builtin secrets, and the secret values recorded on task runs to mask their completions. */
    masterKeys: readonly MasterKey[];
    /** SVC_MAX_ARTIFACT_BYTES. */
    maxArtifactBytes: number;
    /** SVC_MAX_BUNDLE_BYTES. */
    maxBundleBytes: number;
  };
  log: {
    warn(msg: string, meta?: Record<string, unknown>): unknown;
    info(msg: string, meta?: Record<string, unknown>): unknown;
    debug?(msg: string, meta?: Record<string, unknown>): unknown;
  };
}

/** What the engine's systems share: built once by the Engine. */
export interface SystemResources {
  readonly pool: pg.Pool;
  readonly resources: EngineResources;
  /** What starting an execution needs (configuration, object store, the per-process caches). */
  readonly deps: StartDeps;
  /** The engine's clock (a function property: systems take it unbound). */
  readonly now: () => Date;
  /** Runs follow-ups after a commit; a failure is logged and left in the outbox for the backstop. */
  follow(f: FollowUp[]): Promise<void>;
  /** Aborted when the engine stops: retried writes give up. */
  readonly stopping: AbortSignal;
}

/** The systems' bag of an Engine built from `r`; `stopping` is aborted when it stops. */
export function systemResources(r: EngineResources, stopping: AbortSignal): SystemResources {
  const now = (): Date => r.clock.now();
  const deps: StartDeps = { config: { defaultExecutor: r.config.defaultExecutor, now }, storage: r.storage, snapshots: new SnapshotFacts(), flows: new FlowCache() };
  // Follow-ups run after their commit; a failure is logged and left in the outbox for the backstop.
  const follow = async (f: FollowUp[]): Promise<void> => {
    if (!f.length) return;
    await runFollowUps(r.pool, deps, f).catch((err) => r.log.warn('follow-up failed; the outbox backstop retries it', { err }));
  };
  return { pool: r.pool, resources: r, deps, now, follow, stopping };
}

/** A started execution: its id, and its API object when the start needed no second read. */
export interface Started {
  id: string;
  execution?: ApiExecution;
}

/** What one watchdog pass ended. */
export interface WatchdogReport {
  /** Executions ended TIMED_OUT (flow timeout). */
  executions: string[];
  /** Task runs ended TIMED_OUT reason timeout. */
  timedOut: string[];
  /** Task runs ended FAILED reason lost. */
  lost: string[];
  /** Follow-ups found left in the outbox and run. */
  leftovers: number;
}

/** A transaction of the caller's in which engine work commits with the caller's own writes. */
export interface EngineTx {
  /** Triggers a flow inside the transaction; its follow-ups run after the commit. */
  trigger(req: TriggerRequest): Promise<Started>;
}
