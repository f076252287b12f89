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
import ts from 'typescript';
import { buildOpenApiDocument } from '../src/openapi.js';

/** Where the generated types are checked in. */
export const GENERATED_TYPES_PATH = path.resolve(import.meta.dirname, '../src/openapi-types.generated.ts');

const HEADER = `// Generated from the OpenAPI document by openapi-typescript: do not edit.
// Regenerate: node --import tsx packages/api-spec/scripts/generate-types.ts
// (src/openapi-types.test.ts fails while this file is stale).
/* eslint-disable */

`;

type JsonSchema = Record<string, unknown> & { properties?: Record<string, unknown>; allOf?: unknown[] };
const isConditional = (x: unknown): x is { if: unknown; then: JsonSchema } =>
  typeof x === 'object' && x !== null && 'if' in x && 'then' in x && !('else' in x) && typeof (x as { then: unknown }).then === 'object';

/**
 * openapi-typescript drops the `if`/`then` variants of the flow file's
 * schemas (`allOf` of `{if: {type: const}, then: {properties}}`), so the
 * fields of one task type, trigger type, executor type or select input would
 * be missing from `FlowFile.*`. In the copy types are generated from, each
 * `then` property joins the object's own properties, optional (one declared
 * by several variants differently becomes their `anyOf`); which variant
 * requires what stays with the schema and the validators. The published
 * document is not changed.
 */
export function flattenConditionals(schemas: Record<string, JsonSchema>): void {
  for (const [name, s] of Object.entries(schemas)) {
    if (!name.startsWith('FlowFile') || !Array.isArray(s.allOf) || !s.allOf.every(isConditional)) continue;
    const own = s.properties ?? {};
    const added = new Map<string, unknown[]>();
    for (const c of s.allOf) {
      for (const [k, v] of Object.entries(c.then.properties ?? {})) {
        if (k in own) continue;
        const seen = added.get(k) ?? [];
        if (!seen.some((x) => JSON.stringify(x) === JSON.stringify(v))) seen.push(v);
        added.set(k, seen);
      }
    }
    const rest: JsonSchema = { ...s };
    delete rest.allOf;
    schemas[name] = { ...rest, properties: { ...own, ...Object.fromEntries([...added].map(([k, vs]) => [k, vs.length === 1 ? vs[0] : { anyOf: vs }])) } };
  }
}

/** The text of the generated file for the current document; deterministic (no dates, no paths). */
export async function generateTypes(): Promise<string> {
  // The document's defaults (version, server URL) are fixed, so the output only changes with the schemas.
  const doc = buildOpenApiDocument() as unknown as OpenAPI3 & { components: { schemas: Record<string, JsonSchema> } };
  flattenConditionals(doc.components.schemas);
  const ast = await openapiTS(doc, {
    // An object without `additionalProperties: true` gets no index signature:
    // a field the document does not declare is a compile error, not `unknown`.
    additionalProperties: false,
    // A field with a `default` stays optional, as its schema's `required`
    // says: request bodies may leave it out (GitSourceRequest.branch), and
    // the flow file's defaults are applied by the service, not by the sender.
    defaultNonNullable: false,
    // A binary request body (uploadFile, the runner's artifact upload) is
    // sent as bytes: the typed client takes a Blob, an ArrayBuffer or a
    // Uint8Array as they are, and a string as its UTF-8 text. Answers stay
    // `string`, as openapi-typescript types them.
    transform(schema, { path }) {
      if (!('contentMediaType' in schema) || !path?.includes('/requestBody/')) return undefined;
      return ts.factory.createUnionTypeNode(
        ['Blob', 'ArrayBuffer', 'Uint8Array']
          .map((n) => ts.factory.createTypeReferenceNode(n) as ts.TypeNode)
          .concat(ts.factory.createKeywordTypeNode(ts.SyntaxKind.StringKeyword)),
      );
    },
  });
  return HEADER + astToString(ast) + queryDefaults(doc) + minRoles(doc);
}

type DocOperation = { operationId?: string; 'x-min-role'?: string; parameters?: { name: string; in: string; schema?: JsonSchema & { $ref?: string } }[] };

/**
 * `queryDefaults`: per operation, the query parameters whose schema has a
 * `default`. The server's validator fills them in before a handler runs, so
 * a handler's `ctx.query` has them even where a client may leave them out
 * (@svc/api-spec's `HandlerQuery`). openapi-typescript keeps no trace of a
 * parameter's default, hence this addition.
 */
export function queryDefaults(doc: { paths?: unknown; components: { schemas: Record<string, JsonSchema> } }): string {
  const lines: string[] = [];
  for (const item of Object.values((doc.paths ?? {}) as Record<string, Record<string, DocOperation>>)) {
    for (const op of Object.values(item)) {
      if (typeof op !== 'object' || op === null || !op.operationId) continue;
      const names = (op.parameters ?? [])
        .filter((p) => {
          const s = p.schema?.$ref ? doc.components.schemas[p.schema.$ref.replace('#/components/schemas/', '')] : p.schema;
          return p.in === 'query' && s !== undefined && 'default' in s;
        })
        .map((p) => JSON.stringify(p.name));
      if (names.length > 0) lines.push(`    ${op.operationId}: ${names.join(' | ')};`);
    }
  }
  return `/** Per operation, the query parameters with a default: the server fills them in before a handler runs. */\nexport interface queryDefaults {\n${lines.sort().join('\n')}\n}\n`;
}

/**
 * `minRoles`: per operation, its `x-min-role` (the minimum role, or the kind
 * of credential outside the role table: `public`, `run_token`, `webhook_key`,
 * `signature`). openapi-typescript keeps no trace of an operation's
 * security; with this, a handler of an operation that needs a credential
 * gets its principal typed as present (@svc/http's `HandlerContext`).
 */
export function minRoles(doc: { paths?: unknown }): string {
  const lines: string[] = [];
  for (const item of Object.values((doc.paths ?? {}) as Record<string, Record<string, DocOperation>>)) {
    for (const op of Object.values(item)) {
      if (typeof op !== 'object' || op === null || !op.operationId || op['x-min-role'] === undefined) continue;
      lines.push(`    ${op.operationId}: ${JSON.stringify(op['x-min-role'])};`);
    }
  }
  return `/** Per operation, its \`x-min-role\`: the minimum role, or the kind of credential outside the role table. */\nexport interface minRoles {\n${lines.sort().join('\n')}\n}\n`;
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
