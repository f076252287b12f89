#!/usr/bin/env node
// The maintenance process. Tracing (opt-in, @svc/service tracing.ts) starts first,
// so that its instrumentations see http, express and pg being loaded; the app
// itself is serve.ts.
import { startTracing } from '@svc/service/tracing';

await startTracing('maintenance');
await import('./serve.js');
