// The trace context of the work in hand, for the packages that must carry it
// (the gateway stores it on an execution, the engine continues it and hands
// it to the task) and for the log lines (trace_id). OpenTelemetry itself is
// loaded only when tracing is on (@svc/service's tracing.ts, which installs
// the hooks below): with tracing off every function here is a no-op and no
// @opentelemetry module is loaded.
//
// Apart from tracing, the fields of the work in hand (withLogFields): a
// dispatcher runs each task run inside its execution_id and task_run_id, so
// every line written for it carries them, whoever writes it.
import { AsyncLocalStorage } from 'node:async_hooks';

/** What the tracing SDK provides once it is started. */
export interface TraceHooks {
  /** The trace id of the span active here, if any. */
  traceId(): string | undefined;
  /** The W3C `traceparent` of the span active here, if any. */
  traceparent(): string | undefined;
  /**
   * Runs `fn` inside a new span `name`, a child of the W3C `traceparent`
   * (a context stored in a row by another process), or the root of a new
   * trace when `traceparent` is undefined; ended when `fn` settles.
   */
  inSpan<T>(traceparent: string | undefined, name: string, attributes: Record<string, string | number | boolean | undefined>, fn: () => Promise<T>): Promise<T>;
}

let hooks: TraceHooks | undefined;

/** Installed by @svc/service when OTEL_EXPORTER_OTLP_ENDPOINT (or _TRACES_ENDPOINT) is set. */
export function setTraceHooks(h: TraceHooks | undefined): void {
  hooks = h;
}

/** True when tracing is on in this process. */
export function tracingOn(): boolean {
  return hooks !== undefined;
}

/** The trace id of the active span; undefined with tracing off or outside a span. */
export function activeTraceId(): string | undefined {
  return hooks?.traceId();
}

/** The W3C traceparent of the active span, to store with work another process continues; undefined with tracing off. */
export function activeTraceparent(): string | undefined {
  return hooks?.traceparent();
}

/**
 * Runs `fn` in a span `name` that continues the stored `traceparent`. With
 * tracing off, or no stored context, just runs `fn`.
 */
export function continueTrace<T>(
  traceparent: string | null | undefined,
  name: string,
  attributes: Record<string, string | number | boolean | undefined>,
  fn: () => Promise<T>,
): Promise<T> {
  if (!hooks || !traceparent) return fn();
  return hooks.inSpan(traceparent, name, attributes, fn);
}

/**
 * Runs `fn` as the root span `name` of a new trace (work nothing traced
 * started, such as a schedule's fire). With tracing off, just runs `fn`.
 */
export function startTrace<T>(name: string, attributes: Record<string, string | number | boolean | undefined>, fn: () => Promise<T>): Promise<T> {
  if (!hooks) return fn();
  return hooks.inSpan(undefined, name, attributes, fn);
}

const workFields = new AsyncLocalStorage<Readonly<Record<string, string>>>();

/**
 * Runs `fn` with `fields` (an execution_id, a task_run_id...) added to every
 * log line written inside it, its callbacks and promises included, beside
 * those of an enclosing call. A line that names other work (its own value of
 * one of these fields differs) gets none of them: they belong together.
 */
export function withLogFields<T>(fields: Record<string, string | undefined>, fn: () => T): T {
  const own: Record<string, string> = { ...workFields.getStore() };
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) own[k] = v;
  return workFields.run(own, fn);
}

/** The fields of withLogFields in effect here; undefined outside any. */
export function activeLogFields(): Readonly<Record<string, string>> | undefined {
  return workFields.getStore();
}

/**
 * Runs `fn` outside any withLogFields: for long-lived resources made on
 * demand inside one piece of work (a helper process, a shared stream), whose
 * event callbacks would otherwise run, for every later piece of work, with
 * the ids of the one that happened to create them.
 */
export function outsideLogFields<T>(fn: () => T): T {
  return workFields.exit(fn);
}
