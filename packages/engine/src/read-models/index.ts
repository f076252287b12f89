// @svc/engine/read-models: what other domains read of the engine's tables
// (logs, artifacts and metrics; counts; the namespace and the secrets of an
// execution; what alerts and triage read). Self-contained: these files
// import @svc/db only, never the engine's systems, so reading costs no
// engine wiring. No package but the engine names the engine's tables
// (e2e/test/tables-have-one-writer.test.ts).
export * from './logs.js';
export * from './counts.js';
export * from './objects.js';
export * from './executions.js';
export { EXECUTIONS } from './relations.js';
