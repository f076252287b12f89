// Prisma 7 CLI configuration (generate, migrate diff/dev for developers).
// The runtime never calls the Prisma CLI: services apply migrations themselves
// (src/migrate.ts). The CLI's native schema engine cannot be downloaded on our
// machines, so it is replaced by a wasm-backed shim (tools/schema-engine-shim.mjs).
import path from 'node:path';
import { defineConfig } from 'prisma/config';

process.env.PRISMA_SCHEMA_ENGINE_BINARY ??= path.join(import.meta.dirname, 'tools/schema-engine-shim.mjs');

export default defineConfig({
  schema: path.join(import.meta.dirname, '../../prisma/schema.prisma'),
  migrations: { path: path.join(import.meta.dirname, '../../prisma/migrations') },
  datasource: { url: process.env.DATABASE_URL ?? 'postgresql://unused@127.0.0.1:1/unused' },
});
