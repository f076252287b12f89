// Test support for the runner and its callers: an in-memory transport that
// records every call, and an in-memory server of the runner routes over
// node:http (for the HTTP transport and `svc exec`).
export * from './memory-transport.js';
export * from './runner-server.js';
