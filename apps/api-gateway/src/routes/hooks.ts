// Webhook triggers: POST /hooks/{key} starts the flow of the trigger the key
// belongs to, and editors rotate keys. The key is checked before a byte of the
// body is read (unknown: 404; flow disabled: 409 `flow_disabled`). The body,
// at most SVC_MAX_BODY_BYTES, is parsed as JSON when the Content-Type says
// JSON and kept as text otherwise; with the request headers (names lower
// case, Authorization, Proxy-Authorization and Cookie left out) it is what the
// trigger's `inputs` templates read as `trigger.body` and `trigger.headers`,
// and it is kept in the execution's trigger_payload, with the values of
// credential-like headers (keys, tokens, signatures) masked.
import type { Request } from 'express';
import type pg from 'pg';
import type { Engine } from '@svc/engine';
import { TemplateError } from '@svc/flow-schema';
import { conflict, createRawBodyReader, isJsonContentType, notFound, parseJsonBody, reply, validationFailed, type HandlerContext, type OperationHandlers } from '@svc/http';
import { recordAudit } from '@svc/identity';
import type { AuthPrincipal } from '../identity/principal.js';
import { auditContext } from './audit.js';
import { findWebhookKey, rotateWebhookKey, type WebhookKeyDeps, type WebhookTarget } from './webhook-keys.js';
import type { Answer } from '@svc/api-spec';

export interface HookRouteDeps extends WebhookKeyDeps {
  engine: Engine;
  /** `SVC_MAX_BODY_BYTES`: the largest webhook body (413 `body_too_large` beyond). */
  maxBodyBytes: number;
}

/** Headers a webhook sender may use for credentials of its own: never kept nor shown to templates. */
const DROPPED_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie']);

/**
 * Names of headers that carry credentials or signatures by convention
 * (`X-Api-Key`, `X-Hub-Signature-256`, `Stripe-Signature`, `X-Gitlab-Token`,
 * `X-Auth-Token`...): one of these words as a whole part of the name.
 */
const CREDENTIAL_HEADER = /(^|[-_])(auth|authorization|token|secret|signature|sig|password|passwd|apikey|key|credential|credentials|session)([-_]|$)/;

/**
 * The headers kept in an execution's `trigger_payload`, which every viewer
 * reads: credential-like values become `***`. Templates still read the
 * values (a flow may verify a signature), through `trigger.headers`.
 */
export function storedWebhookHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) out[name] = CREDENTIAL_HEADER.test(name) ? '***' : value;
  return out;
}

/** The request headers as templates read them: lower-case names, repeated values joined. */
export function webhookHeaders(req: Request): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    const n = name.toLowerCase();
    if (DROPPED_HEADERS.has(n) || value === undefined) continue;
    out[n] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/** The `verifyWebhookKey` of mountOperations: resolves the key in the path to its trigger. */
export function webhookKeyVerifier(pool: pg.Pool): (req: Request) => Promise<WebhookTarget> {
  return async (req) => {
    const key = String(req.params.key ?? '');
    const target = key ? await findWebhookKey(pool, key) : undefined;
    if (!target) throw notFound('unknown webhook key');
    if (!target.enabled) throw conflict('flow_disabled', `flow ${target.namespace}/${target.flow_id} is disabled`);
    return target;
  };
}

export function hookHandlers(deps: HookRouteDeps) {
  const readRaw = createRawBodyReader({ limit: deps.maxBodyBytes });
  return {
    async webhookStart({ req, res, principal: target }: HandlerContext<WebhookTarget, 'webhookStart'>) {
      const raw = await readRaw(req, res);
      const body = raw === undefined ? null : isJsonContentType(req.headers['content-type']) ? parseJsonBody(raw) : raw.toString('utf8');
      const headers = webhookHeaders(req);
      let created: Awaited<ReturnType<typeof deps.engine.executions.trigger>>;
      try {
        created = await deps.engine.executions.trigger({
          namespace: target.namespace,
          flowId: target.flow_id,
          inputTemplates: { templates: target.definition.inputs ?? {}, trigger: { body, headers } },
          triggerType: 'webhook',
          triggerId: target.trigger_id,
          triggerPayload: { body, headers: storedWebhookHeaders(headers) },
          createdBy: 'webhook',
        });
      } catch (err) {
        // The request did not carry what the trigger's input templates read.
        if (err instanceof TemplateError) throw validationFailed([{ field: 'body', message: err.message }]);
        throw err;
      }
      const state = created.execution ? created.execution.state : ((await deps.engine.executions.stateOf(created.id)) ?? 'QUEUED');
      return reply(201, { execution_id: created.id, id: created.id, state } satisfies Answer<'webhookStart', 201>);
    },

    async rotateWebhookKey(ctx: HandlerContext<AuthPrincipal, 'rotateWebhookKey'>) {
      const { namespace, flowId, triggerId } = ctx.params;
      const out = await rotateWebhookKey(deps, namespace, flowId, triggerId);
      await recordAudit(deps.pool, {
        action: 'flow.webhook_key.rotate',
        ...auditContext(ctx),
        targetType: 'flow',
        targetId: `${namespace}/${flowId}`,
        details: { namespace, flow_id: flowId, trigger_id: triggerId },
        at: deps.now(),
      });
      return out;
    },
  } satisfies OperationHandlers;
}
