// Opt-in OpenTelemetry tracing (docs/operating/tracing.md). With
// OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT set, the
// official SDK is loaded (by dynamic import: with neither set, no
// @opentelemetry module is ever loaded) and started with the HTTP, Express and
// pg instrumentations, resource service.name `svc-<app>` and service.version
// the build version. The other OTEL_* variables (protocol, headers, sampler,
// OTEL_SDK_DISABLED ...) are read by the SDK as the specification says; only
// traces are exported (metrics stay on /metrics, logs on stdout) unless
// OTEL_METRICS_EXPORTER / OTEL_LOGS_EXPORTER say otherwise.
//
// Instrumentations patch http, express and pg as they are loaded, so every
// app's main.ts starts tracing before it imports the rest of the app
// (`await startTracing(kind)`, then `await import('./serve.js')`); this module
// imports nothing that loads them.
import { register } from 'node:module';
import { setTraceHooks } from '@svc/logging';
import { buildVersion } from './version.js';

/** The endpoint traces go to, when tracing is on. */
export function tracingEndpoint(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return undefined;
  return env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || undefined;
}

export interface Tracing {
  /** Exports the spans still buffered and stops the SDK. */
  shutdown(): Promise<void>;
}

let started: Promise<Tracing | undefined> | undefined;

/**
 * Starts tracing for the app `kind` (service.name `svc-<kind>`) when an OTLP
 * endpoint is configured; resolves to undefined, having loaded nothing, when
 * none is. Call once, before the app's own modules are imported.
 */
export function startTracing(kind: string, env: NodeJS.ProcessEnv = process.env): Promise<Tracing | undefined> {
  return (started ??= start(kind, env));
}

/** The tracing started in this process, if any (runService flushes it on shutdown). */
export function activeTracing(): Promise<Tracing | undefined> {
  return started ?? Promise.resolve(undefined);
}

const URL_ATTRIBUTES = ['url.path', 'url.full', 'url.query', 'http.target', 'http.url'];

/** `/hooks/<key>` (a webhook key is a credential) as `/hooks/{key}`, and any query string dropped. */
export function redactUrl(value: string): string {
  return value.replace(/\/hooks\/(?!git\/)[^/?#]+/g, '/hooks/{key}').replace(/\?.*$/s, '');
}

/** Rewrites the URL attributes the HTTP instrumentation set on `span` (its SDK span, whose attributes it can read). */
function redactUrlAttributes(span: { attributes?: Record<string, unknown>; setAttribute(k: string, v: string): unknown }): void {
  for (const key of URL_ATTRIBUTES) {
    const value = span.attributes?.[key];
    if (typeof value === 'string') span.setAttribute(key, key === 'url.query' ? '' : redactUrl(value));
  }
}

async function start(kind: string, env: NodeJS.ProcessEnv): Promise<Tracing | undefined> {
  if (!tracingEndpoint(env)) return undefined;
  // Traces only, unless the operator asks for more: the apps serve their metrics on /metrics and log to stdout.
  env.OTEL_METRICS_EXPORTER ??= 'none';
  env.OTEL_LOGS_EXPORTER ??= 'none';
  // The apps are ES modules: pg and express reach them through `import`, which only this loader hook lets the instrumentations patch.
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url);
  const [api, { NodeSDK }, { resourceFromAttributes }, { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION }, { HttpInstrumentation }, { ExpressInstrumentation }, { PgInstrumentation }] =
    await Promise.all([
      import('@opentelemetry/api'),
      import('@opentelemetry/sdk-node'),
      import('@opentelemetry/resources'),
      import('@opentelemetry/semantic-conventions'),
      import('@opentelemetry/instrumentation-http'),
      import('@opentelemetry/instrumentation-express'),
      import('@opentelemetry/instrumentation-pg'),
    ]);
  const sdk = new NodeSDK({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: `svc-${kind}`, [ATTR_SERVICE_VERSION]: buildVersion() }),
    instrumentations: [
      new HttpInstrumentation({
        // Probes and scrapes would drown the traces that matter.
        // Outgoing calls only inside traced work: a dispatcher's polling of its Docker engine would otherwise be one trace per call.
        requireParentforOutgoingSpans: true,
        ignoreIncomingRequestHook: (req) => /^\/(healthz|readyz|metrics)(\/|\?|$)/.test(req.url ?? ''),
        // No credential reaches the tracing backend: a webhook key in the path, or anything in a query string.
        // (The SDK span it receives also exposes its attributes, which the redaction reads.)
        requestHook: (span) => redactUrlAttributes(span),
      }),
      new ExpressInstrumentation(),
      // Only queries made inside a traced request or task: the engine's idle polling would otherwise be one trace per query.
      new PgInstrumentation({ requireParentSpan: true }),
    ],
  });
  sdk.start();
  const tracer = api.trace.getTracer('svc', buildVersion());
  setTraceHooks({
    traceId() {
      const ctx = api.trace.getActiveSpan()?.spanContext();
      return ctx && api.isSpanContextValid(ctx) ? ctx.traceId : undefined;
    },
    traceparent() {
      const carrier: Record<string, string> = {};
      api.propagation.inject(api.context.active(), carrier);
      return carrier.traceparent;
    },
    inSpan(traceparent, name, attributes, fn) {
      const parent = traceparent ? api.propagation.extract(api.ROOT_CONTEXT, { traceparent }) : api.ROOT_CONTEXT;
      const attrs = Object.fromEntries(Object.entries(attributes).filter(([, v]) => v !== undefined)) as Record<string, string | number | boolean>;
      return tracer.startActiveSpan(name, { attributes: attrs, kind: traceparent ? api.SpanKind.CONSUMER : api.SpanKind.INTERNAL }, parent, async (span) => {
        try {
          return await fn();
        } catch (err) {
          span.recordException(err instanceof Error ? err : String(err));
          span.setStatus({ code: api.SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
          throw err;
        } finally {
          span.end();
        }
      });
    },
  });
  return {
    async shutdown() {
      setTraceHooks(undefined);
      await sdk.shutdown();
    },
  };
}
