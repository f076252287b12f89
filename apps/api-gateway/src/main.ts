#!/usr/bin/env node
// The api-gateway process. Tracing (opt-in, @svc/service tracing.ts) starts first,
// so that its instrumentations see http, express and pg being loaded; the app
// itself is serve.ts.
import { startTracing } from '@svc/service/tracing';

await startTracing('api-gateway');
await import('./serve.js');
