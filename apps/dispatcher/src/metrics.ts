// What an operator needs to see of one dispatcher instance's work, on its
// /metrics (SVC_HEALTH_PORT): its slots and how many are in use, what it
// claims, how long it holds a slot per task run, and its failures (claims
// that failed, task runs an executor failed without ending). Deployment-wide
// queue figures (svc_queue_depth) are the gateway's, read from the database.
import client from 'prom-client';

export interface DispatcherMetrics {
  claimed: client.Counter<'executor'>;
  claimErrors: client.Counter<'executor'>;
  executorErrors: client.Counter<'executor'>;
  held: client.Histogram<'executor'>;
  queueWait: client.Histogram<'pool'>;
}

/** Registers the dispatcher's metrics on `registry`; `slots` and `inUse` are read at each scrape. */
export function createDispatcherMetrics(registry: client.Registry, types: { type: string; slots: number }[], inUse: (type: string) => number): DispatcherMetrics {
  const registers = [registry];
  new client.Gauge({
    name: 'svc_dispatcher_slots',
    help: 'Task runs this instance runs at once, per executor type (SVC_WORKER_SLOTS, SVC_K8S_MAX_JOBS)',
    labelNames: ['executor'] as const,
    registers,
    collect() {
      for (const t of types) this.set({ executor: t.type }, t.slots);
    },
  });
  new client.Gauge({
    name: 'svc_dispatcher_slots_used',
    help: 'Task runs this instance runs now, per executor type',
    labelNames: ['executor'] as const,
    registers,
    collect() {
      for (const t of types) this.set({ executor: t.type }, inUse(t.type));
    },
  });
  const metrics: DispatcherMetrics = {
    claimed: new client.Counter({ name: 'svc_dispatcher_claimed_total', help: 'Task runs this instance claimed, per executor type', labelNames: ['executor'] as const, registers }),
    claimErrors: new client.Counter({
      name: 'svc_dispatcher_claim_errors_total',
      help: 'Claims that failed (the database did not answer), per executor type',
      labelNames: ['executor'] as const,
      registers,
    }),
    executorErrors: new client.Counter({
      name: 'svc_dispatcher_executor_errors_total',
      help: 'Task runs an executor failed without ending them (they end executor_error), per executor type',
      labelNames: ['executor'] as const,
      registers,
    }),
    held: new client.Histogram({
      name: 'svc_dispatcher_task_run_seconds',
      help: 'How long this instance held a slot for a task run, from its claim to its end, per executor type',
      labelNames: ['executor'] as const,
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600],
      registers,
    }),
    queueWait: new client.Histogram({
      name: 'svc_dispatcher_queue_wait_seconds',
      help: 'How long each task run this instance started waited in QUEUED, from queued (or its retry backoff ending) to its start, per pool',
      labelNames: ['pool'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600],
      registers,
    }),
  };
  // Every series from the start, at 0: a rate over a fresh instance is 0, not absent.
  for (const t of types) for (const c of [metrics.claimed, metrics.claimErrors, metrics.executorErrors]) c.inc({ executor: t.type }, 0);
  return metrics;
}
