// What an Engine is built from: one bag of resources, built by each app's
// serve.ts (after Trigger.dev's run engine, whose systems receive one explicit
// bag), and the types of what its façade answers. Types only: engine.ts
// builds the systems from the bag (e2e/test/engine-imports-form-no-circle.test.ts
// holds this file to type imports).
import type pg from 'pg';
import type { ExecutorType, MasterKey } from '@svc/config';
import type { ObjectStore } from '@svc/storage';
import type { ApiExecution, TriggerRequest } from './types.js';

export type { ApiExecution } from './types.js';

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
  /** Task runs whose approval gate's deadline passed: `on_timeout` applied. */
  approvalsTimedOut: string[];
  /** Follow-ups found left in the outbox and run. */
  leftovers: number;
}

/** A transaction of the caller's in which engine work commits with the caller's own writes. */
export interface EngineTx {
  /** Triggers a flow inside the transaction; its follow-ups run after the commit. */
  trigger(req: TriggerRequest): Promise<Started>;
}
