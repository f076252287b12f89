// Builds the OpenAPI 3.1.0 document from the operation catalog. Pure: no I/O,
// so `svc openapi` needs neither a database nor a server.
import { assertNever } from '@svc/assert';
import { flowSchema } from '@svc/flow-schema';
import type { AuthKind, Operation, OperationAuth } from './operation.js';
import { operations as catalog, FLOW_SCHEMA_PATH } from './operations/index.js';
import { ROLES } from './roles.js';
import { componentName, componentSchemas } from './schemas/index.js';

export interface OpenApiOptions {
  /** `info.version` of the document. Default `DEFAULT_DOCUMENT_VERSION`. */
  version?: string;
  /** URL of the server in `servers`. Default `http://127.0.0.1:8080` (the default SVC_HOST and SVC_PORT). */
  serverUrl?: string;
  /** Operations to describe. Default: the whole catalog. */
  operations?: readonly Operation[];
}

export const DEFAULT_DOCUMENT_VERSION = '0.1.0';
export const DEFAULT_SERVER_URL = 'http://127.0.0.1:8080';

type Json = Record<string, unknown>;

const TAGS: { name: Operation['tag']; description: string }[] = [
  { name: 'auth', description: 'Sign in, sign out, the own profile and sessions' },
  { name: 'tokens', description: 'The own API tokens' },
  { name: 'users', description: 'User administration' },
  { name: 'executions', description: 'Executions, their logs, artifacts, metrics and AI insights' },
  { name: 'flows', description: 'Flows, revisions and triggers' },
  { name: 'schedules', description: 'Schedule triggers' },
  { name: 'schemas', description: 'JSON Schemas of files' },
  { name: 'stats', description: 'Dashboard' },
  { name: 'namespaces', description: 'Namespaces, files and versions' },
  { name: 'secrets', description: 'Secrets (values are never readable)' },
  { name: 'variables', description: 'Variables' },
  { name: 'secret-providers', description: 'External secret providers' },
  { name: 'git', description: 'Git sources and pushes' },
  { name: 'instances', description: 'Service instances' },
  { name: 'storage', description: 'Object store status' },
  { name: 'audit', description: 'Audit log' },
  { name: 'ai', description: 'AI assistant and its provider' },
  { name: 'organizations', description: 'Organizations of the email interface: keys, senders, quotas, sent emails (admin)' },
  { name: 'alerts', description: 'Alert rules and their deliveries' },
  { name: 'runner', description: 'Runner protocol of `svc exec` (bearer run token)' },
  { name: 'hooks', description: 'Inbound webhooks from other systems' },
];

const ERROR_RESPONSES: Record<string, { status: number; description: string }> = {
  Unauthorized: { status: 401, description: '`unauthorized`: no credential, or an invalid one (revoked or expired token, disabled user)' },
  Forbidden: {
    status: 403,
    description: '`forbidden` (the role is too low), `csrf_failed` (a cookie request failed the Origin check) or `password_change_required`',
  },
  NotFound: { status: 404, description: '`not_found`: unknown API route, or an object that does not exist' },
  BodyTooLarge: { status: 413, description: '`body_too_large`: the JSON body is larger than 10 MiB' },
  UnsupportedMediaType: { status: 415, description: '`unsupported_media_type`: the `Content-Type` is not JSON' },
  ValidationFailed: {
    status: 422,
    description: '`validation_failed`: `details` has one `{field, message}` entry per failing field; parameters use their own name, a body that is not JSON gives field `body`',
  },
  Internal: { status: 500, description: '`internal`: unexpected error; the server log has the cause with the request ID' },
};

const ref = (kind: 'schemas' | 'responses' | 'headers', name: string) => ({ $ref: `#/components/${kind}/${name}` });
const requestIdHeader = { 'X-Request-Id': ref('headers', 'XRequestId') };

/**
 * Copies a TypeBox schema into plain JSON, replacing every schema marked as a
 * component (except the root of that component's own definition) by a `$ref`.
 */
function emit(node: unknown, used: Set<string>, selfName?: string): unknown {
  if (Array.isArray(node)) return node.map((n) => emit(n, used));
  if (node === null || typeof node !== 'object') return node;
  const name = componentName(node);
  if (name !== undefined && name !== selfName) {
    used.add(name);
    return ref('schemas', name);
  }
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) out[k] = emit(v, used);
  return out;
}

interface ObjectSchema {
  properties?: Record<string, Json>;
  required?: string[];
}

function pathParamNames(path: string): string[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
}

function parameters(op: Operation, used: Set<string>): Json[] {
  const out: Json[] = [];
  const params = (op.request.params ?? {}) as ObjectSchema;
  const declared = Object.keys(params.properties ?? {});
  const inPath = pathParamNames(op.path);
  if (declared.join() !== inPath.join()) {
    throw new Error(`${op.operationId}: path parameters ${inPath.join(',')} but schema declares ${declared.join(',')}`);
  }
  for (const [name, schema] of Object.entries(params.properties ?? {})) {
    out.push(parameter(name, 'path', true, schema, used));
  }
  const query = (op.request.query ?? {}) as ObjectSchema;
  for (const [name, schema] of Object.entries(query.properties ?? {})) {
    out.push(parameter(name, 'query', (query.required ?? []).includes(name), schema, used));
  }
  if (op.streaming && op.method === 'get') {
    out.push({
      name: 'Last-Event-ID',
      in: 'header',
      required: false,
      description: 'The last received event id, to resume the stream without repeats or gaps',
      schema: { type: 'string' },
    });
  }
  return out;
}

function parameter(name: string, location: 'path' | 'query', required: boolean, schema: Json, used: Set<string>): Json {
  const p: Json = { name, in: location, required, schema: emit(schema, used) };
  if (typeof schema.description === 'string') p.description = schema.description;
  return p;
}

function security(auth: OperationAuth): Json[] {
  switch (auth.kind) {
    case 'public':
    case 'webhook_key':
    case 'signature':
      // The key travels in the path and the signature scheme is the source's own: no OpenAPI scheme fits.
      return [];
    case 'role':
      return [{ apiToken: [] }, { sessionCookie: [] }];
    case 'run_token':
      return [{ runToken: [] }];
    case 'org_key':
      // The organization interface is not part of the document (organizationOperations).
      return [];
    default:
      return assertNever(auth);
  }
}

/** `x-min-role`: the minimum role, or the kind of credential for operations outside the role table. */
export function minRoleLabel(auth: OperationAuth): string {
  return auth.kind === 'role' ? auth.minRole : auth.kind;
}

function responses(op: Operation, used: Set<string>): Json {
  const out: Json = {};
  for (const [status, r] of Object.entries(op.responses)) {
    const res: Json = { description: r.description };
    const headers: Json = { ...requestIdHeader };
    for (const [h, description] of Object.entries(r.headers ?? {})) headers[h] = { description, schema: { type: 'string' } };
    res.headers = headers;
    if (r.schema !== undefined) {
      res.content = { [r.contentType ?? 'application/json']: { schema: emit(r.schema, used) } };
    } else if (Number(status) >= 400) {
      used.add('ErrorEnvelope');
      res.content = { 'application/json': { schema: ref('schemas', 'ErrorEnvelope') } };
    }
    out[status] = res;
  }
  const hasJsonBody = op.request.body !== undefined && (op.request.bodyContentType ?? 'application/json') === 'application/json';
  const generic: [boolean, string][] = [
    [op.auth.kind !== 'public', 'Unauthorized'],
    [op.auth.kind === 'role', 'Forbidden'],
    [true, 'NotFound'],
    [hasJsonBody, 'BodyTooLarge'],
    [hasJsonBody, 'UnsupportedMediaType'],
    [op.request.params !== undefined || op.request.query !== undefined || op.request.body !== undefined, 'ValidationFailed'],
    [true, 'Internal'],
  ];
  for (const [applies, name] of generic) {
    const status = String(ERROR_RESPONSES[name].status);
    if (applies && out[status] === undefined) out[status] = ref('responses', name);
  }
  return out;
}

function operationObject(op: Operation, used: Set<string>): Json {
  const o: Json = {
    operationId: op.operationId,
    tags: [op.tag],
    summary: op.summary,
  };
  if (op.description) o.description = op.description;
  const params = parameters(op, used);
  if (params.length) o.parameters = params;
  if (op.request.body !== undefined) {
    o.requestBody = {
      required: op.request.bodyRequired ?? true,
      content: { [op.request.bodyContentType ?? 'application/json']: { schema: emit(op.request.body, used) } },
    };
  }
  o.responses = responses(op, used);
  o.security = security(op.auth);
  o['x-min-role'] = minRoleLabel(op.auth);
  return o;
}

/** The OpenAPI 3.1.0 document of every `/api/v1`, `/api/runner/v1` and `/hooks` operation. */
export function buildOpenApiDocument(opts: OpenApiOptions = {}): Json {
  const ops = opts.operations ?? catalog;
  const used = new Set<string>();
  const paths: Record<string, Json> = {};
  for (const op of ops) {
    const item = (paths[op.path] ??= {});
    if (item[op.method] !== undefined) throw new Error(`two operations for ${op.method.toUpperCase()} ${op.path}`);
    item[op.method] = operationObject(op, used);
  }

  const all = componentSchemas();
  const schemas: Json = {};
  // Every declared component is published, referenced or not (the lint test
  // flags one that nothing references); references made from inside them are followed too.
  for (const [name, schema] of [...all].sort(([a], [b]) => a.localeCompare(b))) {
    schemas[name] = emit(schema, used, name);
  }

  // The flow file schema is written once (@svc/flow-schema) and published here
  // as components: its $defs become `FlowFile.<Def>` and its internal
  // references are rewritten to point at them.
  Object.assign(schemas, flowFileComponents());
  for (const name of used) {
    if (!(name in schemas)) throw new Error(`schema component ${name} is referenced but not exported`);
  }
  const getSchema = paths[FLOW_SCHEMA_PATH]?.get as { responses: Record<string, { content: Record<string, Json> }> } | undefined;
  const schemaResponse = getSchema?.responses['200']?.content['application/json'];
  if (schemaResponse) schemaResponse.schema = ref('schemas', 'FlowFile');

  const errorResponses: Json = {};
  for (const [name, { description }] of Object.entries(ERROR_RESPONSES)) {
    errorResponses[name] = {
      description,
      headers: { ...requestIdHeader },
      content: { 'application/json': { schema: ref('schemas', 'ErrorEnvelope') } },
    };
  }

  return {
    openapi: '3.1.0',
    info: {
      title: 'svc API',
      version: opts.version ?? DEFAULT_DOCUMENT_VERSION,
      description: [
        'API of the svc workflow orchestration service: `/api/v1` (UI, CLI, scripts), `/api/runner/v1` (runner protocol of `svc exec`) and `/hooks` (inbound webhooks).',
        '',
        `Roles in ascending order: ${ROLES.map((r) => `\`${r}\``).join(' < ')}. Each operation carries \`x-min-role\`: its minimum role, ` +
          'or `public`, `run_token`, `webhook_key`, `signature` for operations outside the role table. A higher role may call every operation of a lower role. ' +
          "`none` (extension) is no operation's minimum: such a caller reads only the namespaces a role binding opens to it, and lists show it only their items.",
        '',
        'Errors use the envelope `{"error": {"code", "message", "details?"}}`; every response carries `X-Request-Id`.',
        '',
        `The JSON Schema of flow files is served at \`${FLOW_SCHEMA_PATH}\` and included below as \`FlowFile\`.`,
      ].join('\n'),
    },
    servers: [{ url: opts.serverUrl ?? DEFAULT_SERVER_URL, description: 'svc server' }],
    tags: TAGS,
    security: [{ apiToken: [] }, { sessionCookie: [] }],
    paths,
    components: {
      schemas,
      responses: errorResponses,
      headers: {
        XRequestId: {
          description: 'ID of the request; the server log line of the request carries the same ID (`request_id`)',
          schema: { type: 'string' },
        },
      },
      securitySchemes: {
        apiToken: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'svc_ followed by 43 base62 characters',
          description: 'Bearer API token (`Authorization: Bearer svc_...`). Effective role: the lower of the token role and the owner role.',
        },
        sessionCookie: {
          type: 'apiKey',
          in: 'cookie',
          name: 'svc_session',
          description: 'Session cookie set by login. Non-GET requests must pass the Origin check (403 `csrf_failed`).',
        },
        runToken: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'run token',
          description: 'Bearer run token of one task run (runner protocol)',
        },
      },
    },
  };
}

/** All auth kinds, for exhaustive tables elsewhere. */
export const AUTH_KINDS: readonly AuthKind[] = ['public', 'role', 'run_token', 'webhook_key', 'signature', 'org_key'];

/**
 * Whether `node` is a bare presence test, `{required: [...]}` with no
 * `properties` (the flow schema's `not: {required: ['runtime']}`, "runtime is
 * absent").
 */
function isPresenceTest(node: unknown): node is { required: string[] } {
  return node !== null && typeof node === 'object' && Array.isArray((node as Json).required) && !('properties' in node);
}

/**
 * `flowSchema` as OpenAPI components: `FlowFile` and one `FlowFile.<Def>` per
 * `$defs` entry. Two rewrites, neither changing what validates:
 * - internal references point at the components;
 * - a `not` that is a bare presence test also declares the names it tests as
 *   `{}` (which constrains nothing), because Redocly's
 *   no-required-schema-properties-undefined reads `required` without
 *   `properties` as naming an undefined property.
 */
function flowFileComponents(): Json {
  const rewrite = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(rewrite);
    if (node === null || typeof node !== 'object') return node;
    const out: Json = {};
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string' && v.startsWith('#/$defs/')) out[k] = `#/components/schemas/FlowFile.${v.slice(8)}`;
      else if (k === 'not' && isPresenceTest(v)) out[k] = { ...v, properties: Object.fromEntries(v.required.map((name) => [name, {}])) };
      else out[k] = rewrite(v);
    }
    return out;
  };
  // The root without its `$defs` (components of their own), `$schema` and `$id` (the flow schema's, not a component's).
  const root: Json = Object.fromEntries(Object.entries(flowSchema).filter(([k]) => k !== '$defs' && k !== '$schema' && k !== '$id'));
  const $defs = flowSchema.$defs;
  const components: Json = { FlowFile: rewrite(root) };
  for (const [name, def] of Object.entries($defs as Json)) components[`FlowFile.${name}`] = rewrite(def);
  return components;
}
