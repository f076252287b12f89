// The MCP server at /mcp (official SDK, Streamable HTTP, stateless: one
// server and transport per request) and its public card at
// /.well-known/mcp.json. Bearer API tokens only: no Authorization header (a
// session cookie alone included), a bad, expired or revoked token is 401 in
// the envelope before the SDK sees the request. The token's effective role
// limits the tools: only those whose operation the role may call are listed
// and callable; each runs through the invoker, so it is validated and audited
// like the same API call.
import express, { type Express, type Request, type Response } from 'express';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { roleAtLeast } from '@svc/api-spec';
import { createRawBodyReader, parseJsonBody, unauthorized, type HttpLogger } from '@svc/http';
import type { AuthPrincipal } from '../identity/principal.js';
import { asHttpError, minRoleOf, type Invoke } from './invoke.js';
import { scopeOfError, scopeOfInput, ToolResultMasker } from '@svc/ai';
import { resultText, TOOLS, TRIAGE_TOOL, type ToolDef } from './tools.js';

// Saving files stays with the assistant (behind a confirmation) and the API.
export const MCP_TOOLS: ToolDef[] = [...TOOLS.filter((t) => t.name !== 'save_flow'), TRIAGE_TOOL];
export const FLOW_SCHEMA_URI = 'svc://schemas/flow.json';

export interface McpDeps {
  authenticate: (req: Request) => Promise<AuthPrincipal>;
  /** The caller's highest role on any namespace (role bindings): a tool is listed when some namespace allows it; each call is still checked on its own namespace. */
  highestRole?: (principal: AuthPrincipal) => Promise<import('@svc/api-spec').Role>;
  invoke: Invoke;
  operation: (id: string) => import('@svc/api-spec').Operation;
  version: string;
  publicUrl: string;
  log: HttpLogger;
  bodyLimit: number;
  /** For masking tool results against the secret values. */
  pool: import('pg').Pool;
  masterKeys: readonly import('@svc/config').MasterKey[];
}

/** A zod shape of a tool's JSON Schema arguments (strings, integers, free objects). */
function shapeOf(t: ToolDef): Record<string, z.ZodType> {
  const required = new Set(t.parameters.required ?? []);
  const shape: Record<string, z.ZodType> = {};
  for (const [name, p] of Object.entries(t.parameters.properties)) {
    let s: z.ZodType = p.type === 'integer' ? z.number().int() : p.type === 'boolean' ? z.boolean() : p.type === 'object' ? z.record(z.string(), z.unknown()) : z.string();
    if (typeof p.description === 'string') s = s.describe(p.description);
    shape[name] = required.has(name) ? s : s.optional();
  }
  return shape;
}

function serverFor(deps: McpDeps, principal: AuthPrincipal, reach: import('@svc/api-spec').Role, req: Request, requestId: string): McpServer {
  const server = new McpServer({ name: 'svc', version: deps.version }, { capabilities: { tools: {}, resources: {} } });
  const from = { req, requestId, log: deps.log };
  const masker = new ToolResultMasker({ pool: deps.pool, masterKeys: deps.masterKeys, log: deps.log });
  for (const t of MCP_TOOLS) {
    const need = minRoleOf(deps.operation(t.operationId));
    if (need && !roleAtLeast(reach, need)) continue;
    server.registerTool(
      t.name,
      { description: `${t.description} (needs the ${need ?? 'viewer'} role)`, inputSchema: shapeOf(t), annotations: t.annotations },
      async (args: Record<string, unknown>) => {
        // Masked with what the operation names (its path's namespace or execution), never a namespace in the data.
        const scope = scopeOfInput(t.toInput(args));
        try {
          const r = await deps.invoke(t.operationId, principal, t.toInput(args), from);
          const body = await masker.value(r.body, scope, t.operationId);
          return {
            content: [{ type: 'text' as const, text: resultText(body) }],
            structuredContent: body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : { value: body },
          };
        } catch (err) {
          const e = asHttpError(err);
          const error = await masker.value({ status: e.status, code: e.code, message: e.message, ...(e.details ? { details: e.details } : {}) }, scopeOfError(scope, e.status));
          return { isError: true, content: [{ type: 'text' as const, text: JSON.stringify({ error }) }] };
        }
      },
    );
  }
  server.registerResource(
    'flow-schema',
    FLOW_SCHEMA_URI,
    { title: 'Flow file JSON Schema', description: 'JSON Schema (draft 2020-12) of *.flow.yaml files', mimeType: 'application/schema+json' },
    async (uri) => {
      const r = await deps.invoke('getFlowSchema', principal, {}, from);
      return { contents: [{ uri: uri.href, mimeType: 'application/schema+json', text: JSON.stringify(r.body) }] };
    },
  );
  return server;
}

export function mcpCard(deps: Pick<McpDeps, 'version' | 'publicUrl'>) {
  return {
    name: 'svc',
    title: 'svc workflow orchestration',
    version: deps.version,
    description: 'List, read and validate flows, trigger them with inputs, follow executions and their logs, cancel, rerun, restart and request AI triage.',
    transport: { type: 'streamable-http', url: `${deps.publicUrl.replace(/\/$/, '')}/mcp` },
    authentication: {
      type: 'bearer',
      required: true,
      description: 'An svc API token (Authorization: Bearer svc_...); its effective role limits the tools. Session cookies are not accepted.',
    },
    capabilities: { tools: true, resources: true },
    tools: MCP_TOOLS.map((t) => t.name),
    resources: [FLOW_SCHEMA_URI],
  };
}

export function mountMcp(app: Express, deps: McpDeps, named: (route: string) => express.RequestHandler): void {
  app.get('/.well-known/mcp.json', named('/.well-known/mcp.json'), (_req, res) => {
    res.json(mcpCard(deps));
  });
  // The body is read as /api/v1 reads it: the size limit, and the JSON depth limit before parsing (422 `body`).
  const readBody = createRawBodyReader({ limit: deps.bodyLimit });
  app.all('/mcp', named('/mcp'), async (req: Request, res: Response, next) => {
    // A bearer API token only: a session cookie alone is not a credential here. The
    // authenticator checks the account state as for /api/v1 (a temporary password: 403).
    if (!req.headers.authorization) throw unauthorized('/mcp needs a bearer API token');
    const principal = await deps.authenticate(req);
    if (principal.authType !== 'token') throw unauthorized('/mcp needs a bearer API token');
    req.body = parseJsonBody(await readBody(req, res));
    const requestId = String(res.locals.requestId ?? '');
    const reach = deps.highestRole ? await deps.highestRole(principal) : principal.role;
    const server = serverFor(deps, principal, reach, req, requestId);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    } catch (err) {
      next(err);
    }
  });
}
