// A small app assembled from this package's pieces the way the gateway does,
// served over real HTTP on 127.0.0.1 with a random port.
import express from 'express';
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Type } from '@sinclair/typebox';
import { isRole, schemas, type Operation } from '@svc/api-spec';
import {
  apiNotFound,
  errorHandler,
  mountOperations,
  rateLimited,
  reply,
  requestId,
  requestLogger,
  unauthorized,
  unmatched,
  type Handler,
  type HttpLogger,
  type LogFields,
  type Principal,
} from '../src/index.js';

export interface LogLine {
  level: 'debug' | 'info' | 'warn' | 'error';
  message: string;
  fields: LogFields;
}

export function recordingLogger(): HttpLogger & { lines: LogLine[] } {
  const lines: LogLine[] = [];
  const at =
    (level: LogLine['level']) =>
    (message: string, fields: LogFields = {}) => {
      lines.push({ level, message, fields });
    };
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

const ListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
  cursor: Type.Optional(Type.String()),
  state: Type.Optional(Type.Unsafe<string>({ type: 'string', enum: ['OPEN', 'CLOSED'] })),
});

export const fakeOperations: Operation[] = [
  {
    operationId: 'listThings',
    method: 'get',
    path: '/api/v1/things',
    tag: 'flows',
    summary: 'list',
    auth: { kind: 'role', minRole: 'viewer' },
    request: {
      query: ListQuery,
      cursor: schemas.CursorOf({ created_at: schemas.CursorTime, id: schemas.CursorText, n: Type.Optional(schemas.CursorInt4), ts: Type.Optional(schemas.CursorInt8) }),
    },
    responses: { 200: { description: 'ok' } },
  },
  {
    operationId: 'getThing',
    method: 'get',
    path: '/api/v1/things/{thingId}',
    tag: 'flows',
    summary: 'get',
    auth: { kind: 'role', minRole: 'viewer' },
    request: { params: Type.Object({ thingId: Type.String({ pattern: '^[a-z0-9-]+$', maxLength: 20 }) }) },
    responses: { 200: { description: 'ok' } },
  },
  {
    operationId: 'createThing',
    method: 'post',
    path: '/api/v1/things',
    tag: 'flows',
    summary: 'create',
    auth: { kind: 'role', minRole: 'editor' },
    request: {
      body: Type.Object(
        {
          name: Type.String({ minLength: 1, maxLength: 10 }),
          count: Type.Integer({ minimum: 1, maximum: 5 }),
          tags: Type.Optional(Type.Array(Type.Object({ key: Type.String({ maxLength: 3 }) }))),
        },
        { additionalProperties: false },
      ),
    },
    responses: { 201: { description: 'created' } },
  },
  {
    operationId: 'explode',
    method: 'get',
    path: '/api/v1/explode',
    tag: 'flows',
    summary: 'throws',
    auth: { kind: 'role', minRole: 'viewer' },
    request: {},
    responses: { 200: { description: 'never' } },
  },
  {
    operationId: 'notYet',
    method: 'post',
    path: '/api/v1/not-yet',
    tag: 'flows',
    summary: 'no handler',
    auth: { kind: 'role', minRole: 'admin' },
    request: { body: Type.Object({}) },
    responses: { 200: { description: 'ok' } },
  },
  {
    operationId: 'publicThing',
    method: 'get',
    path: '/api/v1/public/{name}',
    tag: 'schemas',
    summary: 'public',
    auth: { kind: 'public' },
    request: { params: Type.Object({ name: Type.String() }) },
    responses: { 200: { description: 'ok' } },
  },
  {
    operationId: 'hook',
    method: 'post',
    path: '/hooks/{key}',
    tag: 'hooks',
    summary: 'webhook',
    auth: { kind: 'webhook_key' },
    request: { params: Type.Object({ key: Type.String() }), body: Type.Unknown(), bodyRequired: false },
    responses: { 201: { description: 'started' } },
  },
  {
    operationId: 'gitPush',
    method: 'post',
    path: '/hooks/git/{sourceId}',
    tag: 'hooks',
    summary: 'signed webhook',
    auth: { kind: 'signature' },
    request: { params: Type.Object({ sourceId: Type.String() }), body: Type.Object({ ref: Type.String() }) },
    responses: { 202: { description: 'accepted' } },
  },
];

/** HMAC secret of the signed test webhook. */
export const SIGNING_SECRET = 'sign-me';

export function sign(body: string): string {
  return createHmac('sha256', SIGNING_SECRET).update(body).digest('hex');
}

/** The secret the test webhook accepts; it must never show up in a log line. */
export const WEBHOOK_KEY = 'hk_super_secret_key';

export const SECRET_IN_ERROR = 'db password is hunter2';

/** Records how often a body was handed to a handler, to prove it was never read when refused. */
export interface Probe {
  handlerCalls: string[];
}

export interface TestServer {
  url: string;
  log: ReturnType<typeof recordingLogger>;
  probe: Probe;
  close(): Promise<void>;
}

/**
 * `Authorization: Bearer <role>` authenticates as that role; no header is 401;
 * an unknown role is an invalid credential (authenticate returns undefined).
 */
export async function startTestServer(opts: { bodyLimit?: number } = {}): Promise<TestServer> {
  const log = recordingLogger();
  const probe: Probe = { handlerCalls: [] };
  const handlers: Record<string, Handler<Principal>> = {
    listThings: ({ query, cursor }) => {
      probe.handlerCalls.push('listThings');
      return { query, cursor: cursor ?? null };
    },
    getThing: ({ params, principal }) => ({ id: params.thingId, role: principal?.role }),
    createThing: ({ body }) => {
      probe.handlerCalls.push('createThing');
      return body;
    },
    explode: () => {
      throw new Error(SECRET_IN_ERROR);
    },
    publicThing: ({ params }) => {
      if (params.name === 'busy') throw rateLimited(12.2);
      return reply(200, { hello: params.name }, { 'X-Extra': 'yes' });
    },
    hook: ({ body }) => ({ status: 201, body: { got: body ?? null } }),
    gitPush: ({ body, params }) => ({ source: params.sourceId, ref: (body as { ref: string }).ref }),
  };

  const app = express();
  app.disable('x-powered-by');
  app.use(requestId());
  app.use(requestLogger(log));
  const api = express.Router();
  mountOperations(api, {
    operations: fakeOperations,
    handlers,
    log,
    bodyLimit: opts.bodyLimit ?? 1024,
    authenticate: (req) => {
      const header = req.get('authorization');
      if (header === undefined) throw unauthorized();
      const role = header.replace(/^Bearer /, '');
      return isRole(role) ? { role } : undefined;
    },
    verifySignature: (req, raw) => {
      const given = Buffer.from(req.get('x-signature') ?? '', 'utf8');
      const want = Buffer.from(sign(raw.toString('utf8')), 'utf8');
      if (given.length !== want.length || !timingSafeEqual(given, want)) throw unauthorized('Bad signature');
      return { signed: true };
    },
    verifyWebhookKey: (req) => {
      if (req.params.key !== WEBHOOK_KEY) throw unauthorized('Unknown webhook key');
      return { webhook: true };
    },
  });
  app.use(api);
  app.use('/api', apiNotFound());
  app.use(unmatched());
  app.use(errorHandler(log));

  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    log,
    probe,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

/** The request log line of a request ID (written on response finish, so wait a tick for it). */
export async function requestLine(log: ReturnType<typeof recordingLogger>, id: string): Promise<LogLine | undefined> {
  for (let i = 0; i < 50; i++) {
    const line = log.lines.find((l) => l.message === 'http request' && l.fields.request_id === id);
    if (line) return line;
    await new Promise((r) => setTimeout(r, 10));
  }
  return undefined;
}

/** Raw request with full control over headers and how much of the body is sent. */
export function rawRequest(
  url: string,
  opts: { method: string; path: string; headers?: Record<string, string>; body?: string | Buffer; endBody?: boolean; timeoutMs?: number },
): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${url}${opts.path}`, { method: opts.method, headers: opts.headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') });
        req.destroy();
      });
    });
    req.on('error', reject);
    // A server that waits for a body we never finish must fail the test, not hang it.
    req.setTimeout(opts.timeoutMs ?? 3000, () => req.destroy(new Error('no response before the timeout')));
    if (opts.body !== undefined) req.write(opts.body);
    if (opts.endBody !== false) req.end();
  });
}
