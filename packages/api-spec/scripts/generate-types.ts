// Writes src/openapi-types.generated.ts: the TypeScript types of the OpenAPI
// document (`svc openapi`), made by openapi-typescript from the same
// buildOpenApiDocument() the server publishes. Clients (web UI, CLI, e2e
// tests) take their API shapes from it instead of retyping them.
//
//   node --import tsx packages/api-spec/scripts/generate-types.ts   (from the repository root)
//   pnpm --filter @svc/api-spec run generate
//
// src/openapi-types.test.ts regenerates in memory and fails while the
// checked-in file differs, so a schema change without a regeneration is caught.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import { buildOpenApiDocument } from '../src/openapi.js';

/** Where the generated types are checked in. */
export const GENERATED_TYPES_PATH = path.resolve(import.meta.dirname, '../src/openapi-types.generated.ts');

const HEADER = `// Generated from the OpenAPI document by openapi-typescript: do not edit.
// Regenerate: node --import tsx packages/api-spec/scripts/generate-types.ts
// (src/openapi-types.test.ts fails while this file is stale).
/* eslint-disable */

`;

/** The text of the generated file for the current document; deterministic (no dates, no paths). */
export async function generateTypes(): Promise<string> {
  // The document's defaults (version, server URL) are fixed, so the output only changes with the schemas.
  const doc = buildOpenApiDocument() as unknown as OpenAPI3;
  const ast = await openapiTS(doc, {
    // An object without `additionalProperties: true` gets no index signature:
    // a field the document does not declare is a compile error, not `unknown`.
    additionalProperties: false,
    // A field with a `default` stays optional, as its schema's `required`
    // says: request bodies may leave it out (GitSourceRequest.branch), and
    // the flow file's defaults are applied by the service, not by the sender.
    defaultNonNullable: false,
  });
  return HEADER + astToString(ast);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const text = await generateTypes();
  const before = fs.existsSync(GENERATED_TYPES_PATH) ? fs.readFileSync(GENERATED_TYPES_PATH, 'utf8') : '';
  if (before === text) {
    process.stdout.write(`${path.relative(process.cwd(), GENERATED_TYPES_PATH)} is up to date\n`);
  } else {
    fs.writeFileSync(GENERATED_TYPES_PATH, text);
    process.stdout.write(`wrote ${path.relative(process.cwd(), GENERATED_TYPES_PATH)}\n`);
  }
}
